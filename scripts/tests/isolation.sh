#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Isolation of priorities on a multi-queue link, in one guest: the veth
# rig of sroce-lib.sh with eight queues a side, and on n1 an mqprio root
# giving each priority its own traffic class and queue, as a RoCE host
# with a multi-queue NIC has it.  Priority 0's queue is the bottleneck: a
# tbf child shapes it to 20 Mb/s, and an ib_send_bw on SL 0 saturates
# it (an RC ib_send_bw on SL 0), so its packets wait in sroce and in the
# tbf (tx_deferred).
#  - a 2-byte ib_send_lat on SL 3, whose queue is free, does not wait
#    for priority 0's: its median stays under a quarter of the median of
#    the same run on SL 0, which waits in the shaped queue;
#  - priority 0 was saturated: while the latency runs went, the tbf sent
#    at three quarters of its rate or more, and sroce deferred packets to
#    it (tx_deferred).  A shaper sends at its rate only while a backlog
#    waits, so a backlog waited three quarters of the time or more, well
#    over the half that SL 0's median needs to be a queue's (93 % was
#    measured alone; the sender sleeps on events and its peer too, and
#    each has gaps under TCG).  The bulk run outlasted both latency runs.  (The bound
#    was once SL 0's median against ten times SL 3's idle one; in a
#    loaded pool an idle run's median once took 501 us, four times its
#    usual, and missed it with the queue full.  Sampling the backlog
#    every 200 ms cost the guest enough CPU to delay SL 3 too.);
#  - with two vCPUs or more (SROCE_GUEST_SMP=2), the latency runs keep
#    to vCPU 0 and the bulk run to the last vCPU, and RPS receives each
#    priority's packets on its run's vCPU, as a NIC's receive queues
#    would.  The bulk run's packets then leave from its own vCPU: fewer
#    than 5 % of those handed to the netdev during SL 3's run left from
#    vCPU 0 (0.05 to 2.7 % measured; 37 % while one transmit context
#    held every traffic class, whose drains the latency run's sends
#    ran);
#  - the latencies against SL 3's idle ones, p99s too, are logged, and
#    with SROCE_ISO_ROUNDS=N (two vCPUs; make check-long) N interleaved
#    rounds of SL 3 idle, beside the bulk run and beside a busy loop.
#    The bound a NIC meets, a p99 within 1.2 times the idle one, is not
#    asserted.  With one vCPU the bulk run's packets (their ICRC above
#    all) take the CPU the latency run needs.  With two, where vCPU 0
#    sends almost none of them, SL 3's p99 was 0.8 to 6 times the idle
#    one in 2,000 iterations (its median 0.7 to 2.2 times): a busy loop
#    on vCPU 1 cost it 1.1 to 1.4 times, so TCG's vCPUs do not run as
#    independently as cores, and runs of one guest vary (idle medians of
#    182 to 318 us in one boot; Documentation/testing.rst).
# All runs sleep on events rather than poll, so that their pollers do not
# take turns on a CPU.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

rate_mbit=20
iters=${SROCE_ISO_ITERS:-200}
# with two vCPUs, SROCE_ISO_ROUNDS=N more rounds after the checks (below)
rounds=${SROCE_ISO_ROUNDS:-0}
lat_args=(-n "$iters" -e -u 17)
# ratio A B: A / B, two decimals; "" when either is missing
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b + 0 > 0) printf "%.2f", a / b }'
}
# below A B: A < B, both present
below() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }'
}
ncpu=$(nproc)
# the rig; the idle run; the bulk run, the two beside it; the two bounds;
# with two vCPUs, where the bulk run's packets left
t_plan $((ncpu >= 2 ? 8 : 7))

for k in $(pgrep '^ksoftirqd/'); do
	chrt -f -p 50 "$k" >/dev/null 2>&1
done
# With two vCPUs or more, the latency runs (this shell and what it starts)
# keep to vCPU 0 and the bulk run to the last one, as a host's latency
# and bulk applications on cores of their own.
bulk_cpu=()
if [ "$ncpu" -ge 2 ]; then
	taskset -p -c 0 $$ >/dev/null || fail "taskset"
	bulk_cpu=(taskset -c $((ncpu - 1)))
fi
sroce_load
map=(map 0 1 2 3 4 5 6 7 queues 1@0 1@1 1@2 1@3 1@4 1@5 1@6 1@7 hw 0)
name="a veth pair of 8 queues, mqprio on n1, its priority 0 shaped"
if VETH_QUEUES=8 veth_links handle 100: mqprio num_tc 8 "${map[@]}" &&
	ip netns exec ns1 tc qdisc replace dev n1 parent 100:1 \
		tbf rate "${rate_mbit}mbit" burst 16k limit 24k; then
	t_ok "$name"
else
	t_fail "$name" "$(ip netns exec ns1 tc qdisc show dev n1 | tr '\n' ' ')"
fi
# With two vCPUs or more, each priority's packets are received where its
# application runs, as a NIC's receive queue of a traffic class
# interrupts a core of its own: priority 0's on the bulk run's vCPU, the
# others' on vCPU 0.  RPS per receive queue: a veth hands the packet of
# its transmit queue q > 0 to RPS as received on queue q - 1 (it keeps
# the queue mapping, which RPS reads as a recorded receive queue plus
# one), and that of queue 0 as received on queue 0; so priority 0 (and
# 1, not used here) is received on rx-0, priority 3 on rx-2.  n2's mqprio
# puts the ACKs on their priority's queue too.
if [ ${#bulk_cpu[@]} -gt 0 ]; then
	lat_mask=1
	bulk_mask=$(printf %x $((1 << (ncpu - 1))))
	ip netns exec ns2 tc qdisc replace dev n2 root handle 100: mqprio num_tc 8 "${map[@]}" ||
		fail "mqprio on n2"
	for i in 1 2; do
		ip netns exec "ns$i" sh -c "for q in 0 1 2 3 4 5 6 7; do
			m=$lat_mask; [ \$q = 0 ] && m=$bulk_mask
			echo \$m >/sys/class/net/n$i/queues/rx-\$q/rps_cpus || exit 1
		done" || fail "RPS on n$i"
		log "n$i's RPS masks: $(ip netns exec "ns$i" sh -c "cat /sys/class/net/n$i/queues/rx-*/rps_cpus" | tr '\n' ' ')"
	done
fi
ga=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2")
gb=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2")
log "n1: $(ip netns exec ns1 tc qdisc show dev n1 | tr '\n' ';')"

if idle=$(veth_send_lat iso.idle 18900 "$ga" "$gb" -S 3 "${lat_args[@]}"); then
	t_ok "ib_send_lat on SL 3, idle, completed"
else
	t_fail "ib_send_lat on SL 3, idle, completed" "$(tail -n 2 /tmp/iso.idle.cli | tr '\n' ' ')"
fi
log "idle, SL 3: t_typical ${idle% *} us, p99 ${idle#* } us"

deferred0=$(counter sroce1 tx_deferred)
# 150 s at the shaped rate, far more than the latency runs take even in
# a loaded pool: it is stopped once they are done.  It sleeps on events
# too, which perftest allows by iterations only.
args=(-s 65536 -n $((150 * rate_mbit * 1000000 / 8 / 65536)) -S 0 -e -F -p 18901)
bulk_secs=$((200 + 40 * rounds))
"${bulk_cpu[@]}" ip netns exec ns2 timeout $bulk_secs ib_send_bw -d sroce2 -x "$gb" "${args[@]}" >/tmp/iso.bulk.srv 2>&1 &
bsrv=$!
wait_for 20 bash -c "ip netns exec ns2 ss -ltn | grep -q ':18901 '"
"${bulk_cpu[@]}" timeout $bulk_secs ip netns exec ns1 ib_send_bw -d sroce1 -x "$ga" "${args[@]}" 198.51.100.12 \
	>/tmp/iso.bulk.cli 2>&1 &
bcli=$!
sleep 3
# tbf_sent: the shaper's clock (ns), the bytes and the packets it has sent
tbf_sent() {
	echo "$(date +%s%N) $(ip netns exec ns1 tc -s qdisc show dev n1 parent 100:1 |
		awk '$1 == "Sent" { print $2, $4; exit }')"
}
# cpu_sample: the guest's busy and idle jiffies, and its hrtimer softirqs
cpu_sample() {
	echo "$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)" \
		"$(awk '$1 == "HRTIMER:" { for (i = 2; i <= NF; i++) s += $i; print s }' /proc/softirqs)"
}
# netrx: each CPU's NET_RX softirqs so far
netrx() {
	awk '$1 == "NET_RX:" { $1 = ""; print }' /proc/softirqs
}
# xmit_trace 1|0: count the packets over 500 bytes (the bulk run's: the
# latency runs send 2 bytes) each CPU hands to a netdev, from now (1) to
# now (0), in tracefs's per-CPU buffers
tr=/sys/kernel/tracing
xmit_trace() {
	if [ "$1" = 1 ] && ! { { mountpoint -q $tr || mount -t tracefs nodev $tr; } &&
		echo 4096 >$tr/buffer_size_kb &&
		echo 'len > 500' >$tr/events/net/net_dev_start_xmit/filter &&
		echo 1 >$tr/events/net/net_dev_start_xmit/enable && echo >$tr/trace; }; then
		log "tracefs: could not trace net_dev_start_xmit"
	fi
	echo "$1" >$tr/tracing_on
}
# xmit_who CPU: who handed those packets to a netdev on CPU, the task
# and the trace's context flags (s: softirq, h: hardirq), most first
xmit_who() {
	awk '/net_dev_start_xmit/ { n[$1 " " $3]++ }
		END { for (k in n) print n[k], k }' "$tr/per_cpu/cpu$1/trace" 2>/dev/null |
		sort -rn | head -n 4 | tr '\n' ';'
}
# xmit_counts: what xmit_trace counted, a figure per CPU; "" when the
# buffers overflowed or nothing was counted
xmit_counts() {
	local c n out=()
	for c in $(seq 0 $((ncpu - 1))); do
		n=$(grep -c net_dev_start_xmit "$tr/per_cpu/cpu$c/trace" 2>/dev/null)
		grep -q '^overrun: 0$' "$tr/per_cpu/cpu$c/stats" 2>/dev/null || return
		out+=("${n:-0}")
	done
	echo "${out[*]}"
}
passes0=$(counter sroce1 tx_retry_passes)
read -ra rx0 <<<"$(netrx)"
read -r busy0 idle0 hrt0 <<<"$(cpu_sample)"
read -r t0 sent0 pkts0 <<<"$(tbf_sent)"
[ "$ncpu" -ge 2 ] && xmit_trace 1
hi=$(veth_send_lat iso.sl3 18902 "$ga" "$gb" -S 3 "${lat_args[@]}")
hi_rc=$?
[ "$ncpu" -ge 2 ] && xmit_trace 0
lo=$(veth_send_lat iso.sl0 18903 "$ga" "$gb" -S 0 "${lat_args[@]}")
lo_rc=$?
read -r t1 sent1 pkts1 <<<"$(tbf_sent)"
read -r busy1 idle1 hrt1 <<<"$(cpu_sample)"
read -ra rx1 <<<"$(netrx)"
deferred=$(($(counter sroce1 tx_deferred) - deferred0))
passes=$(($(counter sroce1 tx_retry_passes) - passes0))
if kill -0 "$bcli" 2>/dev/null && kill -0 "$bsrv" 2>/dev/null; then
	t_ok "a saturating ib_send_bw on SL 0 ran through both latency runs"
else
	t_fail "a saturating ib_send_bw on SL 0 ran through both latency runs" \
		"$(tail -n 2 /tmp/iso.bulk.cli /tmp/iso.bulk.srv | tr '\n' ' ')"
fi
# median: the middle of the numbers on stdin, one a line
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# With two vCPUs and SROCE_ISO_ROUNDS=N: N rounds of SL 3's run beside
# the bulk run, idle with the bulk run stopped (SIGSTOP, its 8 MiB in
# flight drained), and beside a busy loop alone on the bulk vCPU; the
# medians of each kind are logged.  One idle run against one beside it
# compares runs that vary by half between them under TCG; interleaved,
# the bulk run is set against the idle runs around it and against what
# any busy vCPU costs.  Figures, not checks.
if [ "$rounds" -gt 0 ] && [ ${#bulk_cpu[@]} -gt 0 ]; then
	bpids=$(pgrep -x ib_send_bw | tr '\n' ' ')
	: >/tmp/iso.rounds
	for r in $(seq 1 "$rounds"); do
		for kind in beside idle busy; do
			case $kind in
			idle)
				# shellcheck disable=SC2086 # a list of PIDs
				kill -STOP $bpids
				read -r _ s0 _ <<<"$(tbf_sent)"
				sleep 4
				read -r _ s1 _ <<<"$(tbf_sent)"
				log "round $r: the bulk run stopped, $((s1 - s0)) bytes drained"
				;;
			busy)
				"${bulk_cpu[@]}" sh -c 'while :; do :; done' &
				burn=$!
				;;
			esac
			read -r _ s0 _ <<<"$(tbf_sent)"
			v=$(veth_send_lat "iso.r$r$kind" $((19000 + 10 * r + ${#kind})) "$ga" "$gb" -S 3 "${lat_args[@]}")
			read -r _ s1 _ <<<"$(tbf_sent)"
			log "round $r, $kind: t_typical ${v% *} us, p99 ${v#* } us; the tbf sent $((s1 - s0)) bytes"
			[ -n "$v" ] && echo "$kind $v" >>/tmp/iso.rounds
		done
		kill "$burn"
		wait "$burn" 2>/dev/null
		# shellcheck disable=SC2086
		kill -CONT $bpids
		sleep 2
	done
	for f in 2 3; do
		what=t_typical
		[ $f = 3 ] && what=p99
		i=$(awk -v f=$f '$1 == "idle" { print $f }' /tmp/iso.rounds | median)
		b=$(awk -v f=$f '$1 == "beside" { print $f }' /tmp/iso.rounds | median)
		c=$(awk -v f=$f '$1 == "busy" { print $f }' /tmp/iso.rounds | median)
		log "$rounds rounds, medians of SL 3's $what: idle $i us, beside the bulk run $b" \
			"(x$(ratio "$b" "$i")), beside a busy loop $c (x$(ratio "$c" "$i"))"
	done
fi
kill "$bcli" "$bsrv" 2>/dev/null
wait "$bcli" "$bsrv" 2>/dev/null
log "bulk: tx_deferred +$deferred; tx_retry_passes +$passes while the tbf sent $((${pkts1:-0} - ${pkts0:-0})) packets"
log "while the latency runs went: the guest's CPUs $(awk -v b="$((busy1 - busy0))" -v i="$((idle1 - idle0))" \
	'BEGIN { if (b + i > 0) printf "%.0f", 100 * b / (b + i) }') % busy, $(awk -v n="$((hrt1 - hrt0))" \
	-v t="$((${t1:-0} - ${t0:-0}))" 'BEGIN { if (t > 0) printf "%.0f", n / t * 1e9 }') hrtimer softirqs a second"
log "softnet_stat (processed/received by RPS per CPU): $(while read -r a _ _ _ _ _ _ _ _ r _; do
	printf '%d/%d ' "0x$a" "0x$r"
done </proc/net/softnet_stat)"
log "NET_RX softirqs per CPU while the latency runs went: $(for i in "${!rx1[@]}"; do
	printf '%d ' $((rx1[i] - ${rx0[i]:-0}))
done)"
for c in "3 $hi_rc iso.sl3" "0 $lo_rc iso.sl0"; do
	read -r sl rc name <<<"$c"
	if [ "$rc" = 0 ]; then
		t_ok "ib_send_lat on SL $sl beside it completed"
	else
		t_fail "ib_send_lat on SL $sl beside it completed" "$(tail -n 2 "/tmp/$name.cli" | tr '\n' ' ')"
	fi
done
log "beside, SL 3: t_typical ${hi% *} us, p99 ${hi#* } us; SL 0: t_typical ${lo% *} us, p99 ${lo#* } us"

log "SL 3 beside the saturated SL 0 against idle: median x$(ratio "${hi% *}" "${idle% *}"), p99 x$(ratio "${hi#* }" "${idle#* }")"
log "SL 0 beside the bulk run against SL 3 idle: median x$(ratio "${lo% *}" "${idle% *}")"
# the shaped queue's rate while the latency runs went, in Mb/s
sat=$(awk -v b="$((${sent1:-0} - ${sent0:-0}))" -v t="$((${t1:-0} - ${t0:-0}))" \
	'BEGIN { if (t > 0) printf "%.2f", b * 8 / t * 1000 }')
name="SL 0's queue was saturated: the tbf sent at 3/4 of its $rate_mbit Mb/s or more, packets deferred"
if [ "$deferred" -gt 0 ] && [ -n "$sat" ] && ! below "$sat" "$(awk -v r="$rate_mbit" 'BEGIN { print r * 0.75 }')"; then
	t_ok "$name ($sat Mb/s, tx_deferred +$deferred)"
else
	t_fail "$name" "${sat:-no figure} Mb/s, tx_deferred +$deferred"
fi
if [ "$ncpu" -ge 2 ]; then
	# Before priority 0 had a transmit context of its own, a third of
	# its packets left from vCPU 0, sent by the latency run's drains or
	# by a retry timer the nohz code had moved there.
	read -ra per <<<"$(xmit_counts)"
	total=0
	for n in "${per[@]}"; do
		total=$((total + n))
	done
	name="the bulk run's packets left from its own vCPU: under 5 % from vCPU 0 during SL 3's run"
	if [ "$total" -gt 1000 ] && [ $((per[0] * 100)) -lt $((total * 5)) ]; then
		t_ok "$name (${per[0]} of $total; on vCPU 0: $(xmit_who 0))"
	else
		t_fail "$name" "per CPU: ${per[*]:-no count}; on vCPU 0: $(xmit_who 0)"
	fi
fi
quarter=$(awk -v m="${lo% *}" 'BEGIN { if (m != "") printf "%.2f", m / 4 }')
if [ "$hi_rc" = 0 ] && [ "$lo_rc" = 0 ] && below "${hi% *}" "$quarter"; then
	t_ok "SL 3 did not wait for SL 0's queue: its median under a quarter of SL 0's"
else
	t_fail "SL 3 did not wait for SL 0's queue: its median under a quarter of SL 0's" \
		"SL 3 median ${hi% *} us, SL 0 median ${lo% *} us"
fi
t_done
