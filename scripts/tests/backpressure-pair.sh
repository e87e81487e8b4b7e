#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backpressure on the wire between two guests, rdma_rxe and sroce in the
# same run: the egress of both guests' eth0 shaped by a tbf with a short
# queue (rate 20mbit burst 16k limit 24k), and for each driver in turn,
# rdma_rxe first and then sroce on both guests, ib_write_bw, ib_send_bw
# and ib_read_bw of 200 x 64 KiB from a to b (b serves).  Checked on a:
#  - sroce: each tool completes, neither shaper drops a packet, and no
#    request is sent again or times out (READs: no transmit drop on
#    either side; their timeouts are logged, as in backpressure.sh: the
#    responses wait in the responder's queue, which the requester's
#    timer cannot see);
#  - rdma_rxe: behind the same shapers it lost packets at them.  That is
#    what shows the rig pushes back: a driver that hands every packet to
#    the qdisc whatever it holds loses some here (rdma_rxe 6.12's tools
#    then fail, its QP in error).  Its figures (exit status, drops, its
#    counters, seconds) are logged beside sroce's.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

shaper=(tbf rate 20mbit burst 16k limit 24k)
tools="ib_write_bw ib_send_bw ib_read_bw"
size=65536
iters=200
# the QPs' local ACK timeout, as in backpressure.sh: 537 ms
ack_t=17
# a tool's run: sroce's takes some 6 s at the shaped rate; rdma_rxe's may
# stall on its losses until this ends it
secs=60
# Both: the shaper, each driver's link and its removal.  a: per sroce
# tool its run, the drops and the transport; rdma_rxe's one check.
plan=$((1 + 2 * 2))
[ "$SROCE_ROLE" = a ] && plan=$((plan + $(wc -w <<<"$tools") * 3 + 1))
t_plan "$plan"

for k in $(pgrep '^ksoftirqd/'); do
	chrt -f -p 50 "$k" >/dev/null 2>&1
done
t_check "[$SROCE_ROLE] eth0's egress shaped: ${shaper[*]}" \
	tc qdisc replace dev eth0 root "${shaper[@]}"

# drops: what this guest's shaper dropped so far
drops() {
	tc -s qdisc show dev eth0 | qdisc_sent 7
}
# state DEV: "DROPS C1 C2 C3" of this guest: the shaper's drops and
# three of the driver's counters (sroce: retransmits ack_timeouts
# tx_drops; rdma_rxe: sent_pkts rcvd_seq_err retry_exceeded_err)
state() {
	local c v names=(retransmits ack_timeouts tx_drops)
	[ "$1" = rxe0 ] && names=(sent_pkts rcvd_seq_err retry_exceeded_err)
	v=$(drops)
	echo -n "${v:-?}"
	for c in "${names[@]}"; do
		v=$(counter "$1" "$c" 2>/dev/null)
		echo -n " ${v:-?}"
	done
	echo
}

link() {
	local drv=$1 dev=$2
	case $drv in
	sroce) sroce_load ;;
	rxe) modprobe -a ib_uverbs rdma_rxe ;;
	esac
	rdma link add "$dev" type "$drv" netdev eth0 &&
		wait_for 20 bash -c "[[ \"\$(devinfo $dev state)\" == PORT_ACTIVE* ]]"
}
# rdma_rxe must be unloaded: it holds UDP port 4791 while loaded
unlink() {
	rdma link delete "$1" || return 1
	[ "$1" != rxe0 ] || modprobe -r rdma_rxe
}

# sub A B: the fields of state line B minus those of A ("?" where
# either is "?")
sub() {
	local a b i out=()
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in 0 1 2 3; do
		if [[ ${a[i]:-} =~ ^[0-9]+$ && ${b[i]:-} =~ ^[0-9]+$ ]]; then
			out+=($((b[i] - a[i])))
		else
			out+=("?")
		fi
	done
	echo "${out[*]}"
}

rxe_pushed=0
rxe_log=()
n=0
port=18600
for drv in rxe sroce; do
	dev=${drv}0
	t_check "[$SROCE_ROLE] $drv linked to eth0" link "$drv" "$dev"
	gid=$(v4_gid "$SROCE_MY_IP4")
	gidx=
	wait_for 10 has_gid_type "$dev" "$gid" "RoCE v2" && gidx=$(gid_index "$dev" "$gid" "RoCE v2")
	[ -n "$gidx" ] || log "$dev: no RoCE v2 GID for $SROCE_MY_IP4"
	for tool in $tools; do
		n=$((n + 1))
		port=$((port + 1))
		args=(-d "$dev" -x "$gidx" -s "$size" -n "$iters" -u "$ack_t" -F -p "$port")
		s0=$(state "$dev")
		if [ "$SROCE_ROLE" = b ]; then
			serve_one "bpp.$n" "$secs" "$port" "$tool" "${args[@]}"
			sub "$s0" "$(state "$dev")" >"$SROCE_SHARED/bpp.$n.b"
			barrier "done$n" || fail "peer gone"
			continue
		fi
		barrier "bpp.$n.up" || fail "peer gone"
		t0=$SECONDS
		timeout "$secs" "$tool" "${args[@]}" "$SROCE_PEER_IP4" >"/tmp/bpp.$n.cli" 2>&1
		rc=$?
		took=$((SECONDS - t0))
		: >"$SROCE_SHARED/bpp.$n.cli"
		da=$(sub "$s0" "$(state "$dev")")
		barrier "done$n" || fail "peer gone"
		db=$(cat "$SROCE_SHARED/bpp.$n.b" 2>/dev/null)
		# four numbers a side, "?" for what a side could not tell
		read -ra A <<<"$da"
		read -ra B <<<"$db"
		for i in 0 1 2 3; do
			[[ ${A[i]:-} =~ ^-?[0-9]+$ ]] || A[i]="?"
			[[ ${B[i]:-} =~ ^-?[0-9]+$ ]] || B[i]="?"
		done
		# what the shapers dropped; a side that could not tell counts
		# as a drop for sroce, and as none for rdma_rxe's check
		known=$((${A[0]/\?/0} + ${B[0]/\?/0}))
		drop=$((${A[0]/\?/999999} + ${B[0]/\?/999999}))
		if [ "$drv" = rxe ]; then
			[ "$known" -gt 0 ] && rxe_pushed=1
			line="rdma_rxe $tool: exit $rc in $took s, shapers dropped $known (a ${A[0]}, b ${B[0]}),"
			line+=" a sent_pkts +${A[1]} rcvd_seq_err +${A[2]} retry_exceeded_err +${A[3]},"
			line+=" b rcvd_seq_err +${B[2]}"
			rxe_log+=("$line")
			log "$line"
			[ "$rc" = 0 ] || log "rdma_rxe $tool: $(grep -i -m 3 'error\|fail\|status' \
				"/tmp/bpp.$n.cli" | tr '\n' ' ')"
			continue
		fi
		log "sroce $tool: exit $rc in $took s, shapers dropped $drop;" \
			"a retransmits +${A[1]} ack_timeouts +${A[2]} tx_drops +${A[3]};" \
			"b retransmits +${B[1]} ack_timeouts +${B[2]} tx_drops +${B[3]}"
		if [ "$rc" = 0 ]; then
			t_ok "sroce: $tool ${iters}x$size B behind the shapers completed ($took s)"
		else
			t_fail "sroce: $tool ${iters}x$size B behind the shapers completed" \
				"exit $rc: $(tail -n 2 "/tmp/bpp.$n.cli" | tr '\n' ' ')"
		fi
		if [ "$drop" = 0 ]; then
			t_ok "sroce: $tool: no packet dropped by either shaper"
		else
			t_fail "sroce: $tool: no packet dropped by either shaper" \
				"a dropped ${A[0]}, b ${B[0]}"
		fi
		if [ "$tool" = ib_read_bw ]; then
			what="no transmit drop"
			bad=$((${A[3]/\?/1} + ${B[3]/\?/1}))
		else
			what="no retransmission, ACK timeout or transmit drop"
			bad=$((${A[1]/\?/1} + ${A[2]/\?/1} + ${A[3]/\?/1} + ${B[3]/\?/1}))
		fi
		if [ "$bad" = 0 ]; then
			t_ok "sroce: $tool: $what"
		else
			t_fail "sroce: $tool: $what" "a: ${A[*]:1}; b: ${B[*]:1}"
		fi
	done
	t_check "[$SROCE_ROLE] $dev removed" unlink "$dev"
	barrier "unlinked.$drv" || fail "peer gone"
done

if [ "$SROCE_ROLE" = a ]; then
	name="rdma_rxe behind the same shapers lost packets at them"
	if [ "$rxe_pushed" = 1 ]; then
		t_ok "$name"
	else
		t_fail "$name" "${rxe_log[*]}"
	fi
fi
t_done
