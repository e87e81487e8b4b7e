#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DCQCN on an ECN incast, in one guest: three senders (sroce1..3 in
# namespaces s1..s3) stream to one receiver (sroce4 in r), every byte
# checked (rdma_verify -S), through a Linux bridge (namespace br) whose
# port toward the receiver is the bottleneck: tbf at SROCE_INCAST_MBIT
# (default 40) Mb/s with a child that marks ECN-capable packets (CoDel's
# ce_threshold, or RED).  Four runs (SROCE_INCAST_MODES):
#
#  off    congestion control off (rp_enable 0, the default): the requests
#         are not ECN-capable, nothing marks them, the queue fills to its
#         limit and tail-drops, go-back-N resends;
#  on     rp_enable 1 for priority 0 on the senders (the receiver's
#         notification point is on by default): the requests are ECT(0),
#         the bottleneck marks them, the receiver sends CNPs, the senders'
#         reaction points cut and pace their QPs;
#  mixed  as on, but s3's data comes as RDMA READ responses: the receiver
#         READs from s3, marks on the responses make the receiver's QP
#         send CNPs to s3's, whose responder paces them;
#  join   as on, s1 alone, s2 joining 10 s later: how soon both are
#         within 10 % of a fair share (convergence).
#
# Each run reports per-sender throughput over the window all three ran,
# Jain's fairness index, the bottleneck's utilisation, its queue's
# backlog (p50/p99 of samples every 100 ms), qdisc drops and marks,
# retransmissions, ACK timeouts, CNPs sent and handled, and a per-second
# series (incast_report.py computes them).  Checked: off, that nothing
# arrived wrong and any failure was reported; on and mixed, that every
# stream completed with every byte checked, Jain >= 0.95, utilisation
# >= 0.90, no qdisc drop, no retransmission, no ACK timeout, CNPs sent
# and handled (mixed: by s3's READ responder); on, a p99 backlog below
# off's; join, convergence within join_max.  The stream checker is shown
# to catch a flipped byte.
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

REPORT="/usr/bin/python3 $SROCE_REPO/scripts/tests/incast_report.py"
mbit=${SROCE_INCAST_MBIT:-40}
secs=${SROCE_INCAST_SECS:-30}
warmup=${SROCE_INCAST_WARMUP:-5}
modes=${SROCE_INCAST_MODES:-off on mixed join}
# SROCE_INCAST_FIGURES=0: judge no figure but that CNPs were sent and
# handled (the debug kernel moves too few packets for the others; it
# still runs every path, the READ responder's pacing included)
figures=${SROCE_INCAST_FIGURES:-1}
senders=(s1 s2 s3)
# The marking child (SROCE_INCAST_AQM):
#  codel  (default) CoDel with ce_threshold: an ECN-capable packet is
#         marked as it leaves the queue if it waited more than CE_US
#         (5 ms, 25 KB at 40 Mb/s); CoDel's own law held off (target 1 s,
#         interval 10 s); a tail drop once LIMIT bytes (in packets of the
#         MTU) wait.  Marking at dequeue tells the senders without the
#         queue's own delay; RED, which marks as packets join the queue,
#         sends its marks through up to 60 ms of queue, and the flows
#         swing the queue between empty and 140 to 290 KB and use less
#         of the link than with CoDel (Documentation/performance.rst).
#  red    RED on its average backlog, averaged over few packets:
#         ECN-capable packets marked from RED_MIN with a probability up
#         to RED_PROB at RED_MAX, all of them past it; nothing dropped
#         early (ecn nodrop); a tail drop once LIMIT bytes wait.
# Both queue what is not ECN-capable rather than drop it early, so that
# rdma_verify's TCP control traffic does not count as drops.
aqm=${SROCE_INCAST_AQM:-codel}
ce_us=${SROCE_INCAST_CE_US:-5000}
red_min=${SROCE_INCAST_RED_MIN:-30000}
red_max=${SROCE_INCAST_RED_MAX:-90000}
q_limit=${SROCE_INCAST_LIMIT:-300000}
red_prob=${SROCE_INCAST_RED_PROB:-0.01}
# DCQCN's time constants scaled to this rig.  Its defaults assume a
# 40 Gb/s link whose queue fills and drains in microseconds, faster than
# the 50 us between CNPs; here a queue at the marking threshold (30 KB at
# 40 Mb/s) takes 6 ms to drain, and a TCG guest's round trip is
# milliseconds, so CNPs every 50 us would keep cutting long after the
# queue had begun to fall (tried: rates driven to the floor, the link
# idle a quarter of the time).  So: CNPs at most every 20 ms, the alpha
# period 25 ms, above it, as the paper asks; the increase timer 50 ms
# with steps of 1 Mb/s (2.5 % of the link, where the paper's 40 Mb/s is
# 0.1 % of 40 Gb/s); the byte counter out of the way (4 MB); the target
# clamped on every CNP (rp_clamp_tgt_rate, as in the paper), and the
# first CNP of a flow setting 20 Mb/s rather than halving 10 Gb/s ten
# times (rp_rate_to_set_on_first_cnp, which mlx5 offers for this); and
# alpha's gain g 1/32 rather than 1/256 (rp_dce_tcp_g 992): with periods
# 450 times the paper's, the paper's g left a newcomer's alpha, which
# starts near 1, cutting it twice as deep as the flow it joined for
# seconds (tried: no fair share 20 s after a join).
rp_params=${SROCE_INCAST_RP:-rp_clamp_tgt_rate=1 rp_ai_rate=1 rp_hai_rate=5 rp_time_reset=50000 rp_byte_reset=4000000 rp_dce_tcp_rtt=25000 rp_rate_to_set_on_first_cnp=20 rp_dce_tcp_g=992}
np_min_us=${SROCE_INCAST_NP_MIN_US:-20000}
# the QPs' local ACK timeout, 4.096 us * 2^T: 268 ms, above the 60 ms a
# full RED queue takes to drain and a TCG guest's hiccups
ack_t=${SROCE_INCAST_ACK_T:-16}
# the links' MTU: 4200, for RoCE's 4096-byte path MTU, as on RoCE fabrics
# (and a quarter of the packets a 1024-byte MTU takes, which a TCG guest
# notices: at 1500 its CPU, not the shaper, sometimes set the pace)
mtu=${SROCE_INCAST_MTU:-4200}
# join: s2 starts this long after s1; both must share fairly this soon.
# The bound, from the parameters: the newcomer's alpha starts at
# 1023/1024 and decays by 31/32 every 25 ms without a CNP, to the
# incumbent's (about 0.1) in some 70 periods, under 2 s; meanwhile and
# after, each CNP cuts both flows by alpha/2, 5 to 8 % once alike, and
# they gain the same 1 Mb/s steps, so the gap between them (some 18 Mb/s
# at the join) shrinks by that much per CNP: to 10 % of the 20 Mb/s
# share takes about 30 CNPs, at some 6 a second per flow: 5 to 7 s in
# all.  That is when the newcomer's first window fits the queue.  It
# sends at line rate until its first CNP, and when that burst overflows
# the queue (7 drops in one run) go-back-N and an ACK timeout set it back
# to half its share, from which additive increase climbs 1 Mb/s a step,
# for over 10 s in all (Documentation/performance.rst has the times
# measured with and without such drops); the check allows 15.
join_s=${SROCE_INCAST_JOIN_S:-10}
join_max=${SROCE_INCAST_JOIN_MAX:-15}

read -ra mode_list <<<"$modes"
# mode_checks MODE: the checks of one run: three streams; with cc on
# Jain, utilisation, queue, drops, retransmissions, ACK timeouts, CNPs;
# the mixed run the same but the queue, CNPs counted at the READ's
# responder.  And the checker's self-test.
mode_checks() {
	case $1 in
	off) echo 3 ;;
	on) echo $((figures ? 10 : 4)) ;;
	mixed) echo $((figures ? 9 : 4)) ;;
	join) echo $((figures ? 3 : 2)) ;;
	*) fail "SROCE_INCAST_MODES: unknown mode '$1' (off, on, mixed, join)" ;;
	esac
}
plan=1
for m in "${mode_list[@]}"; do
	plan=$((plan + $(mode_checks "$m")))
done
t_plan "$plan"

# The shaper's and the AQM's dequeue, the receive path that marks and
# answers with CNPs, and the pace timers all run in softirq; when the
# streams' load makes the kernel defer it to ksoftirqd, that thread
# waits behind them for tens of milliseconds, which a switch and a NIC
# never do: real time, as in qos.sh and backpressure.sh.
for k in $(pgrep '^ksoftirqd/'); do
	chrt -f -p 50 "$k" >/dev/null 2>&1
done
sroce_load
for m in sch_tbf sch_red sch_codel; do
	modprobe "$m" || log "modprobe $m failed"
done
verify_build /tmp/rdma_verify 65536
[ "$cc_rc" = 0 ] || fail "rdma_verify does not build: $cc_out"

# --- the rig -----------------------------------------------------------------

# host NS I: a namespace with veth e0 (198.51.100.I/24) whose peer p-NS
# is a port of br0 in namespace br, and sroceI on e0
host() {
	local ns=$1 i=$2
	ip netns add "$ns" &&
		ip link add e0 netns "$ns" mtu "$mtu" type veth peer name "p-$ns" netns br \
			mtu "$mtu" &&
		ip -n "$ns" addr add "198.51.100.$i/24" dev e0 &&
		ip -n "$ns" link set e0 up && ip -n "$ns" link set lo up &&
		ip -n br link set "p-$ns" master br0 up &&
		ip netns exec "$ns" rdma link add "sroce$i" type sroce netdev e0
}

rig() {
	local i=1 ns
	ip netns add br && ip -n br link add br0 type bridge &&
		ip -n br link set br0 up || return 1
	for ns in "${senders[@]}" r; do
		host "$ns" "$i" || return 1
		i=$((i + 1))
	done
	for i in 1 2 3 4; do
		wait_for 20 bash -c "[[ \"\$(devinfo sroce$i state)\" == PORT_ACTIVE* ]]" &&
			wait_for 10 gid_index "sroce$i" "$(v4_gid "198.51.100.$i")" "RoCE v2" ||
			return 1
	done
	# rdma_verify's TCP control connections cross the bottleneck too:
	# ECN-capable, RED marks them rather than dropping them
	for ns in "${senders[@]}" r; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1 || return 1
	done
	for ns in "${senders[@]}"; do
		ip netns exec "$ns" ping -c 1 -W 5 198.51.100.4 >/dev/null || return 1
	done
}
rig || fail "the incast rig did not come up"

# bottleneck: (re)make p-r's qdiscs, so their counters start at zero
bottleneck() {
	local avpkt=$((mtu - 100))
	ip netns exec br tc qdisc del dev p-r root 2>/dev/null
	ip netns exec br tc qdisc del dev p-r clsact 2>/dev/null
	ip netns exec br tc qdisc add dev p-r clsact
	# counts the RoCE packets toward r that are not ECN-capable
	ip netns exec br tc filter add dev p-r egress protocol ip pref 1 flower \
		ip_proto udp dst_port 4791 ip_tos 0/3 action pass
	ip netns exec br tc qdisc add dev p-r root handle 1: tbf rate "${mbit}mbit" \
		burst $((4 * mtu)) latency 1s || return 1
	if [ "$aqm" = codel ]; then
		ip netns exec br tc qdisc add dev p-r parent 1:1 handle 10: codel \
			limit $((q_limit / mtu)) target 1s interval 10s ecn \
			ce_threshold "${ce_us}us"
	else
		ip netns exec br tc qdisc add dev p-r parent 1:1 handle 10: red \
			limit "$q_limit" min "$red_min" max "$red_max" avpkt $avpkt \
			burst $((red_min / avpkt + 1)) \
			probability "$red_prob" bandwidth "${mbit}mbit" ecn nodrop
	fi
}

# sample_queue FILE: the RED backlog every 100 ms, "MS BYTES", until
# /tmp/incast.stop exists
sample_queue() {
	ip netns exec br /usr/bin/python3 "$SROCE_REPO/scripts/tests/qdisc_sample.py" \
		p-r "$aqm" 100 /tmp/incast.stop >"$1"
}

cc_dir() {
	echo "/sys/class/infiniband/$1/ports/1/cc"
}

sum_counter() {
	local name=$1 i s=0
	shift
	for i in "$@"; do
		s=$((s + $(counter "sroce$i" "$name")))
	done
	echo "$s"
}

# snap: the counters a run is judged by, "NAME VALUE" lines
snap() {
	echo "retransmits $(sum_counter retransmits 1 2 3 4)"
	echo "ack_timeouts $(sum_counter ack_timeouts 1 2 3 4)"
	echo "s3_cnp_handled $(counter sroce3 rp_cnp_handled)"
	echo "cnp_sent $(counter sroce4 np_cnp_sent)"
	echo "marked $(counter sroce4 np_ecn_marked_roce_packets)"
	echo "cnp_handled $(sum_counter rp_cnp_handled 1 2 3)"
	echo "cnp_ignored $(sum_counter rp_cnp_ignored 1 2 3)"
	# packets the kernel's backlog had no room for (softnet_stat's
	# second column, hex, per CPU): a loss no qdisc counts
	local d=0 _ dropped _rest
	while read -r _ dropped _rest; do
		d=$((d + 16#$dropped))
	done </proc/net/softnet_stat
	echo "backlog_drops $d"
}

# delta NAME: how far NAME moved between /tmp/incast.before and .after
delta() {
	echo $(($(awk -v n="$1" '$1 == n { print $2 }' /tmp/incast.after) -
		$(awk -v n="$1" '$1 == n { print $2 }' /tmp/incast.before)))
}

# qdisc_stat FIELD: from the marking qdisc's statistics: dropped; RED's
# marked, early, pdrop; CoDel's ce_mark
qdisc_stat() {
	ip netns exec br tc -s qdisc show dev p-r | awk -v f="$1" '
		$1 == "qdisc" { red = ($2 == "red" || $2 == "codel") }
		red && $1 == "Sent" && f == "dropped" { v = $7; sub(/,$/, "", v); print v + 0; exit }
		red && f != "dropped" { for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1) + 0; exit } }'
}

set_cc() {
	local mode=$1 i kv en=0,0,0,0,0,0,0,0
	[ "$mode" != off ] && en=1,0,0,0,0,0,0,0
	echo "$np_min_us" >"$(cc_dir sroce4)/np_min_time_between_cnps"
	for i in 1 2 3; do
		for kv in $rp_params; do
			echo "${kv#*=}" >"$(cc_dir "sroce$i")/${kv%%=*}" ||
				log "cannot set ${kv%%=*} on sroce$i"
		done
		echo "$en" >"$(cc_dir "sroce$i")/rp_enable"
	done
}

# --- the runs ----------------------------------------------------------------

# judge_stream MODE I STATUS: with congestion control on, sI's stream
# must complete with every byte checked.  Off, RED drops what is not
# ECN-capable and a starved QP may run out of retries: its stream may
# end, but loudly, and nothing that arrived may be wrong.
judge_stream() {
	local mode=$1 i=$2 rc=$3 clog=/tmp/incast.$1.cli$2 slog=/tmp/incast.$1.srv$2 tap why
	tap=$(grep -E '^(not )?ok - ' "$clog" | head -n 1)
	why="exit $rc: $(grep -v progress "$clog" "$slog" | tail -n 4 | tr '\n' ' ')"
	log "cc $mode: s$i: ${tap:-no verdict} (exit $rc)"
	if [ "$mode" != off ]; then
		if [[ $tap == ok* ]] && [ "$rc" = 0 ]; then
			t_ok "cc $mode: s$i's ${ops[i]} stream to r complete, every byte checked"
		else
			t_fail "cc $mode: s$i's ${ops[i]} stream to r complete, every byte checked" "$why"
		fi
	elif grep -q mismatch "$clog" "$slog" || [ -z "$tap" ]; then
		t_fail "cc off: s$i's stream to r: no byte wrong, any failure reported" "$why"
	else
		t_ok "cc off: s$i's stream to r: no byte wrong, any failure reported"
	fi
	[[ $tap == ok* ]] && [ "$rc" = 0 ]
}

declare -A q99
run_mode() {
	local mode=$1 i pids=() srvs=() sampler rc=() gid idx=(1 2 3) flows=()
	local delay=(0 0 0 0) dur=("$secs" "$secs" "$secs" "$secs")
	ops=(- write write write)
	[ "$mode" = mixed ] && ops[3]="read"
	if [ "$mode" = join ]; then
		idx=(1 2)
		delay[2]=$join_s
		dur[2]=$((secs - join_s))
	fi
	for i in "${idx[@]}"; do
		flows+=(--flow "s$i=/tmp/incast.$mode.srv$i")
	done
	set_cc "$mode"
	bottleneck || fail "cannot set up the bottleneck"
	for i in "${idx[@]}"; do
		gid=$(gid_index sroce4 "$(v4_gid 198.51.100.4)" "RoCE v2")
		ip netns exec r timeout $((secs + 120)) /tmp/rdma_verify -d sroce4 -g "$gid" \
			-p $((18700 + i)) -t 60 -T "$ack_t" >"/tmp/incast.$mode.srv$i" 2>&1 &
		srvs+=($!)
	done
	for i in "${idx[@]}"; do
		wait_for 20 bash -c "ip netns exec r ss -ltn | grep -q ':$((18700 + i)) '" ||
			log "server $i does not listen"
	done
	snap >/tmp/incast.before
	rm -f /tmp/incast.stop
	sample_queue "/tmp/incast.$mode.queue" &
	sampler=$!
	for i in "${idx[@]}"; do
		gid=$(gid_index "sroce$i" "$(v4_gid "198.51.100.$i")" "RoCE v2")
		(
			sleep "${delay[i]}"
			exec ip netns exec "s$i" timeout $((secs + 120)) /tmp/rdma_verify \
				-d "sroce$i" -g "$gid" -p $((18700 + i)) -t 60 -T "$ack_t" \
				-S "${dur[i]}" -o "${ops[i]}" -l "cc $mode s$i" 198.51.100.4
		) >"/tmp/incast.$mode.cli$i" 2>&1 &
		pids+=($!)
	done
	# Who is throttled: in the warmup the figures leave out (join: once
	# the convergence bound has passed), as the three rdma calls take
	# the guest's CPU for a second each under TCG.  Taken half way
	# through, they would make a dip of two seconds in every mixed
	# run's series, enough to pull its utilisation under the bound.
	local at=2
	[ "$mode" != join ] || at=$((join_s + join_max + 1))
	sleep "$at"
	for i in "${idx[@]}"; do
		log "cc $mode: sroce$i QP at ${at} s: $(ip netns exec "s$i" rdma -dd res show qp link "sroce$i" 2>&1 |
			grep -o 'dcqcn.*' | tr '\n' ' ')"
	done
	for i in "${idx[@]}"; do
		wait "${pids[$((i - 1))]}"
		rc[i]=$?
	done
	wait "${srvs[@]}"
	local failed=()
	for i in "${idx[@]}"; do
		judge_stream "$mode" "$i" "${rc[i]}" || failed+=(--failed "s$i")
	done
	: >/tmp/incast.stop
	wait "$sampler"
	snap >/tmp/incast.after
	$REPORT --rate "$mbit" --warmup "$warmup" --queue "/tmp/incast.$mode.queue" \
		"${flows[@]}" "${failed[@]}" >"/tmp/incast.$mode.fig" 2>&1
	[ "$mode" != join ] ||
		$REPORT --rate "$mbit" --converge 0 "${flows[@]}" >>"/tmp/incast.$mode.fig" 2>&1
	fig() {
		awk -v k="$1" '$1 == k { print $2 }' "/tmp/incast.$mode.fig"
	}
	log "cc $mode: $(tr '\n' ' ' <"/tmp/incast.$mode.fig")"
	$REPORT --rate "$mbit" --series 1 "${flows[@]}" |
		sed "s/^/# cc $mode: Mb\/s at /"
	local marks
	marks="ce_mark $(qdisc_stat ce_mark)"
	[ "$aqm" = red ] &&
		marks="marked $(qdisc_stat marked) early $(qdisc_stat early) pdrop $(qdisc_stat pdrop)"
	log "cc $mode: qdisc dropped $(qdisc_stat dropped) $marks;" \
		"retransmits $(delta retransmits) ack_timeouts $(delta ack_timeouts)" \
		"CNPs sent $(delta cnp_sent) handled $(delta cnp_handled) ignored $(delta cnp_ignored)" \
		"marked $(delta marked) backlog drops $(delta backlog_drops)"
	for i in 1 2 3 4; do
		log "cc $mode: sroce$i counters: $(cd "/sys/class/infiniband/sroce$i/ports/1/hw_counters" &&
			grep -v '^0$' -- * 2>/dev/null | grep -v 'prio[1-7]' | tr '\n' ' ')"
	done
	log "cc $mode: RoCE packets into r not ECN-capable: $(ip netns exec br tc -s filter show dev p-r egress protocol ip pref 1 2>/dev/null |
		awk '$1 == "Sent" { print $4; exit }')"
	q99[$mode]=$(fig queue_p99)
	[ "$mode" != off ] || return 0
	if [ "$figures" = 0 ]; then
		case $mode in
		on) t_check "cc on: CNPs sent ($(delta cnp_sent)) and handled ($(delta cnp_handled))" \
			test "$(delta cnp_sent)" -gt 0 -a "$(delta cnp_handled)" -gt 0 ;;
		mixed) t_check "cc mixed: s3 paces its READ responses: CNPs handled ($(delta s3_cnp_handled))" \
			test "$(delta s3_cnp_handled)" -gt 0 ;;
		esac
		return
	fi
	if [ "$mode" = join ]; then
		local conv
		conv=$(fig converge_s)
		t_check "cc join: both flows within 10 % of a fair share in ${conv:-?} s, at most $join_max s" \
			awk -v x="${conv:-none}" -v m="$join_max" 'BEGIN { exit !(x ~ /^[0-9.]+$/ && x <= m) }'
		return
	fi

	local jain util drops
	jain=$(fig jain) util=$(fig util) drops=$(qdisc_stat dropped)
	t_check "cc $mode: Jain's index ${jain:-?} >= 0.95" \
		awk -v x="${jain:-0}" 'BEGIN { exit !(x >= 0.95) }'
	t_check "cc $mode: bottleneck utilisation ${util:-?} >= 0.90" \
		awk -v x="${util:-0}" 'BEGIN { exit !(x >= 0.90) }'
	if [ "$mode" = mixed ]; then
		t_check "cc mixed: no qdisc drop (${drops:-?})" test "${drops:-1}" = 0
		t_check "cc mixed: no retransmission ($(delta retransmits))" test "$(delta retransmits)" = 0
		t_check "cc mixed: no ACK timeout ($(delta ack_timeouts))" test "$(delta ack_timeouts)" = 0
		t_check "cc mixed: s3 paces its READ responses: CNPs handled ($(delta s3_cnp_handled))" \
			test "$(delta s3_cnp_handled)" -gt 0
		return
	fi
	if [ -n "${q99[off]:-}" ]; then
		t_check "cc on: queue p99 ${q99[on]:-?} B below cc off's ${q99[off]} B" \
			test "${q99[on]:-999999999}" -lt "${q99[off]}"
	else
		t_fail "cc on: queue p99 below cc off's" "cc off did not run (SROCE_INCAST_MODES)"
	fi
	t_check "cc on: no qdisc drop (${drops:-?})" test "${drops:-1}" = 0
	t_check "cc on: no retransmission ($(delta retransmits))" test "$(delta retransmits)" = 0
	t_check "cc on: no ACK timeout ($(delta ack_timeouts))" test "$(delta ack_timeouts)" = 0
	t_check "cc on: CNPs sent ($(delta cnp_sent)) and handled ($(delta cnp_handled))" \
		test "$(delta cnp_sent)" -gt 0 -a "$(delta cnp_handled)" -gt 0
}

for m in "${mode_list[@]}"; do
	run_mode "$m"
done

# the checker: a flipped byte in every message that arrives fails the stream
gid=$(gid_index sroce4 "$(v4_gid 198.51.100.4)" "RoCE v2")
ip netns exec r timeout 60 /tmp/rdma_verify -d sroce4 -g "$gid" -p 18710 -t 20 -x \
	>/tmp/incast.x.srv 2>&1 &
wait_for 20 bash -c "ip netns exec r ss -ltn | grep -q ':18710 '"
gid=$(gid_index sroce1 "$(v4_gid 198.51.100.1)" "RoCE v2")
ip netns exec s1 timeout 60 /tmp/rdma_verify -d sroce1 -g "$gid" -p 18710 -t 20 -S 2 \
	198.51.100.4 >/tmp/incast.x.cli 2>&1
wait
if grep -q '^not ok - stream write .*server: .*first mismatch' /tmp/incast.x.cli; then
	t_ok "the stream checker reports a flipped byte"
else
	t_fail "the stream checker reports a flipped byte" "$(tr '\n' ' ' </tmp/incast.x.cli)"
fi

t_done
