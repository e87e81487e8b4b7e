#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two shaped traffic classes of one link, in one guest: the veth rig of
# sroce-lib.sh with eight queues a side, and on n1 an mqprio root giving
# each priority its own traffic class and queue (one transmit context, as
# in isolation.sh), a tbf of 10 Mb/s under priority 0's class and one of
# 40 Mb/s under priority 3's.  A context keeps a room of bytes for each
# netdev queue it sends to, and the skbs freed below a queue end the
# holds of its room (Documentation/design.rst, "tx").
# Two saturating ib_write_bw, on SL 0 and SL 3, run side by side:
#  - each keeps its own shaper busy: over the seconds both ran, sroce
#    sent each priority at 80 % of its shaped rate or more (tx_prioN_bytes,
#    sampled): a priority held for its full shaper does not hold the
#    other;
#  - neither shaper dropped a packet, and no request was sent again or
#    timed out; sroce held packets back for the shapers (tx_deferred);
#  - the retry timer looked at the held priorities again fewer times
#    than the shapers sent packets: a hold for a queue's room is ended by
#    the skbs freed below that queue, not by the timer, and one shaper
#    kept full does not make sroce poll the other's queue
#    (Documentation/performance.rst, "Behind shapers").
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

# "PRIORITY MBIT": the two shaped classes (class N+1 is priority N's)
classes=("0 10" "3 40")
secs=12
size=65536
# the QPs' local ACK timeout, as in backpressure.sh: 537 ms
ack_t=17
# the rig and its second shaper; per class its run and its rate; the
# drops, the transport, held back, the looks
t_plan $((2 + ${#classes[@]} * 2 + 4))

# softirq work (the shapers' watchdogs, receiving) must not wait behind
# perftest's pollers in ksoftirqd
for k in $(pgrep '^ksoftirqd/'); do
	chrt -f -p 50 "$k" >/dev/null 2>&1
done
sroce_load
map=(map 0 1 2 3 4 5 6 7 queues 1@0 1@1 1@2 1@3 1@4 1@5 1@6 1@7 hw 0)
shaper() {
	ip netns exec ns1 tc qdisc replace dev n1 parent "100:$(($1 + 1))" \
		tbf rate "${2}mbit" burst 16k limit 24k
}
read -r p mbit <<<"${classes[0]}"
name="a veth pair of 8 queues, mqprio on n1, priority $p shaped to $mbit Mb/s"
if VETH_QUEUES=8 veth_links handle 100: mqprio num_tc 8 "${map[@]}" && shaper "$p" "$mbit"; then
	t_ok "$name"
else
	t_fail "$name" "$(ip netns exec ns1 tc qdisc show dev n1 | tr '\n' ' ')"
fi
read -r p mbit <<<"${classes[1]}"
t_check "priority $p shaped to $mbit Mb/s" shaper "$p" "$mbit"
log "n1: $(ip netns exec ns1 tc qdisc show dev n1 | tr '\n' ';')"
ga=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2")
gb=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2")

# mqprio FIELD: field FIELD of the "Sent ... (dropped N, ...)" line of
# n1's mqprio, the sum of its classes': 4 packets sent, 7 dropped
mqprio() {
	ip netns exec ns1 tc -s qdisc show dev n1 | qdisc_sent "$1" mqprio
}
drops() {
	mqprio 7
}
transport() {
	echo "$(counter sroce1 retransmits) $(counter sroce1 ack_timeouts) $(counter sroce1 tx_drops)"
}
d0=$(drops)
c0=$(transport)
deferred0=$(counter sroce1 tx_deferred)
passes0=$(counter sroce1 tx_retry_passes)
sent0=$(mqprio 4)

pids=()
for c in "${classes[@]}"; do
	read -r p mbit <<<"$c"
	args=(-d sroce2 -x "$gb" -s "$size" -D "$secs" -S "$p" -u "$ack_t" -F -p $((18800 + p)))
	ip netns exec ns2 timeout 90 ib_write_bw "${args[@]}" >"/tmp/rooms.$p.srv" 2>&1 &
	pids+=($!)
done
for c in "${classes[@]}"; do
	read -r p mbit <<<"$c"
	wait_for 20 bash -c "ip netns exec ns2 ss -ltn | grep -q ':$((18800 + p)) '"
	args=(-d sroce1 -x "$ga" -s "$size" -D "$secs" -S "$p" -u "$ack_t" -F -p $((18800 + p)))
	timeout 90 ip netns exec ns1 ib_write_bw "${args[@]}" 198.51.100.12 \
		>"/tmp/rooms.$p.cli" 2>&1 &
	pids+=($!)
done
# sampled while either client runs
read -r pa _ <<<"${classes[0]}"
read -r pb _ <<<"${classes[1]}"
prio_bytes_samples sroce1 "$pa" "$pb" "${pids[2]}" "${pids[3]}" >/tmp/rooms.samples
for i in 0 1; do
	read -r p mbit <<<"${classes[i]}"
	if wait "${pids[i]}" && wait "${pids[i + 2]}"; then
		t_ok "ib_write_bw on priority $p completed"
	else
		t_fail "ib_write_bw on priority $p completed" \
			"$(tail -n 2 "/tmp/rooms.$p.cli" "/tmp/rooms.$p.srv" | tr '\n' ' ')"
	fi
done

# From samples "T BYTES_A BYTES_B": "MBIT_A MBIT_B SECONDS" over every
# interval from the second in which both priorities sent to the last but
# one (the first and last may hold a start or an end), those in which
# one sent nothing included: a priority held while the other sends
# lowers its rate
rates=$(awk 'NR > 1 { n++; t[n] = $1 - pt; da[n] = $2 - pa; db[n] = $3 - pb
		if (da[n] > 0 && db[n] > 0) { if (!first) first = n; last = n } }
	{ pt = $1; pa = $2; pb = $3 }
	END {
		for (i = first + 1; first && i < last; i++) { a += da[i]; b += db[i]; s += t[i] }
		if (s > 0) printf "%.2f %.2f %.1f\n", a * 8 / s / 1e6, b * 8 / s / 1e6, s
	}' /tmp/rooms.samples)
read -r ra rb span <<<"$rates"
log "both sending for ${span:-0} s: priority $pa at ${ra:-?} Mb/s, priority $pb at ${rb:-?} Mb/s"
for i in 0 1; do
	read -r p mbit <<<"${classes[i]}"
	r=$ra
	[ "$i" = 1 ] && r=$rb
	name="priority $p kept its $mbit Mb/s shaper busy: sent at 80 % of it or more"
	# over half the runs' length at least
	if [ -n "$r" ] && awk -v r="$r" -v m="$mbit" -v s="$span" -v d="$secs" \
		'BEGIN { exit !(r >= 0.8 * m && s >= d / 2) }'; then
		t_ok "$name ($r Mb/s)"
	else
		t_fail "$name" "${r:-no figure} Mb/s over ${span:-0} s"
	fi
done

d1=$(drops)
if [ -n "$d0" ] && [ "$d1" = "$d0" ]; then
	t_ok "the shapers dropped nothing"
else
	t_fail "the shapers dropped nothing" "dropped ${d0:-?} before, ${d1:-?} after"
fi
read -ra b <<<"$c0"
read -ra a <<<"$(transport)"
what=()
for i in 0 1 2; do
	[ "${a[i]}" = "${b[i]}" ] || what+=("$(echo retransmits ack_timeouts tx_drops |
		cut -d' ' -f$((i + 1))) +$((a[i] - b[i]))")
done
if [ ${#what[@]} = 0 ]; then
	t_ok "no retransmission, ACK timeout or transmit drop"
else
	t_fail "no retransmission, ACK timeout or transmit drop" "${what[*]}"
fi
deferred=$(($(counter sroce1 tx_deferred) - deferred0))
if [ "$deferred" -gt 0 ]; then
	t_ok "sroce held packets back for the shapers (tx_deferred +$deferred)"
else
	t_fail "sroce held packets back for the shapers" "tx_deferred did not move"
fi
passes=$(($(counter sroce1 tx_retry_passes) - passes0))
sent=$(($(mqprio 4) - sent0))
name="the retry timer looked again fewer times than the shapers sent packets"
if [ "$sent" -gt 0 ] && [ "$passes" -lt "$sent" ]; then
	t_ok "$name ($passes for $sent)"
else
	t_fail "$name" "$passes looks for $sent packets"
fi
t_done
