#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Transmit behind the qdiscs hosts run, between two guests: for each of
# pfifo_fast (the kernel's default),
# fq_codel (systemd's default_qdisc), netem delay 1ms and netem delay 5ms
# on the egress of both guests' eth0, ib_write_bw and ib_read_bw of
# 64 KiB messages from a to b (b serves; a READ's data leaves b).  Such a
# qdisc holds packets but never refuses them: a transmit path that takes
# a queue holding packets for a full one holds itself back and waits, so
# the counters say whether sroce did:
#  - each run completes;
#  - on both guests together, sroce held a priority back (tx_deferred)
#    for at most 1 % of the packets it sent, and its retry timer looked
#    at held priorities (tx_retry_passes) for at most 1 % of them.
# MB/s, retransmissions and the counters go to the log.
#
# SROCE_QDISCS_ITERS=N  messages per run (default 400)
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

qdiscs=("pfifo_fast" "fq_codel" "netem delay 1ms" "netem delay 5ms")
tools="ib_write_bw ib_read_bw"
size=65536
iters=${SROCE_QDISCS_ITERS:-400}
# the QPs' local ACK timeout, as in backpressure.sh: 537 ms
ack_t=17
secs=120
# per cent of the packets sent that may see a hold, or a retry pass
bound_pct=1
dev=sroce0
# Both: the link, and per qdisc its installation.  a: per qdisc and tool
# its run and the two counter checks.
plan=$((1 + ${#qdiscs[@]}))
[ "$SROCE_ROLE" = a ] && plan=$((plan + ${#qdiscs[@]} * $(wc -w <<<"$tools") * 3))
t_plan "$plan"

sroce_load
link() {
	rdma link add "$dev" type sroce netdev eth0 &&
		wait_for 20 bash -c "[[ \"\$(devinfo $dev state)\" == PORT_ACTIVE* ]]"
}
t_check "[$SROCE_ROLE] $dev linked to eth0" link
gid=$(v4_gid "$SROCE_MY_IP4")
gidx=
wait_for 10 has_gid_type "$dev" "$gid" "RoCE v2" && gidx=$(gid_index "$dev" "$gid" "RoCE v2")
[ -n "$gidx" ] || fail "$dev: no RoCE v2 GID for $SROCE_MY_IP4"

COUNTERS=(tx_packets tx_deferred tx_retry_passes retransmits ack_timeouts tx_drops tx_requeued)
# state: this guest's COUNTERS, one line
state() {
	local c v out=()
	for c in "${COUNTERS[@]}"; do
		read -r v <"/sys/class/infiniband/$dev/ports/1/hw_counters/$c"
		out+=("${v:-0}")
	done
	echo "${out[*]}"
}
# sub A B: line B minus line A, field by field
sub() {
	local a b i out=()
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in "${!COUNTERS[@]}"; do
		out+=($((${b[i]:-0} - ${a[i]:-0})))
	done
	echo "${out[*]}"
}

# qdisc_stats: eth0's root qdisc's counts since it was installed, one line
qdisc_stats() {
	tc -s qdisc show dev eth0 | awk '/^ Sent/ { sub(/^ /, ""); print; exit }'
}

n=0
port=18800
for q in "${qdiscs[@]}"; do
	read -ra qa <<<"$q"
	t_check "[$SROCE_ROLE] eth0's egress: $q" tc qdisc replace dev eth0 root "${qa[@]}"
	for tool in $tools; do
		n=$((n + 1))
		port=$((port + 1))
		args=(-d "$dev" -x "$gidx" -s "$size" -n "$iters" -u "$ack_t" -F -p "$port")
		s0=$(state)
		if [ "$SROCE_ROLE" = b ]; then
			serve_one "qd.$n" "$secs" "$port" "$tool" "${args[@]}"
			sub "$s0" "$(state)" >"$SROCE_SHARED/qd.$n.b"
			log "b's eth0 after $tool: $(qdisc_stats)"
			barrier "qdone$n" || fail "peer gone"
			continue
		fi
		barrier "qd.$n.up" || fail "peer gone"
		timeout "$secs" "$tool" "${args[@]}" "$SROCE_PEER_IP4" >"/tmp/qd.$n.cli" 2>&1
		rc=$?
		: >"$SROCE_SHARED/qd.$n.cli"
		read -ra A <<<"$(sub "$s0" "$(state)")"
		barrier "qdone$n" || fail "peer gone"
		read -ra B <<<"$(cat "$SROCE_SHARED/qd.$n.b" 2>/dev/null)"
		mbs=$(awk -v s="$size" '$1 == s { print $4; exit }' "/tmp/qd.$n.cli")
		name="$tool ${iters}x$size B behind $q"
		log "$name: ${mbs:-?} MB/s; a ${COUNTERS[*]}: ${A[*]}; b: ${B[*]}"
		log "a's eth0 after $tool: $(qdisc_stats)"
		if [ "$rc" = 0 ]; then
			t_ok "$name completed (${mbs:-?} MB/s)"
		else
			t_fail "$name completed" "exit $rc: $(tail -n 2 "/tmp/qd.$n.cli" | tr '\n' ' ')"
		fi
		sent=$((A[0] + ${B[0]:-0}))
		for i in 1 2; do
			c=$((A[i] + ${B[i]:-999999}))
			check="$q: ${COUNTERS[i]} at most ${bound_pct} % of the packets sent ($tool)"
			if [ "$sent" -gt 0 ] && [ $((c * 100)) -le $((sent * bound_pct)) ]; then
				t_ok "$check: $c of $sent"
			else
				t_fail "$check" "$c of $sent"
			fi
		done
	done
done
t_done
