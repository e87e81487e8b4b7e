#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Observability, in one guest, over the veth rig of sroce-lib.sh (sroce1
# on n1 in ns1, sroce2 on n2 in ns2): sroce's tracepoints and its
# driver attributes in rdma resource.
#  - the nine events (include/sroce/trace.h) are in tracefs, and
#    trace-cmd turns them on;
#  - loss (netem, 3 % of n1's packets) under an RC ib_write_bw: midway,
#    rdma resource shows the QP's PSNs, retransmits and queue depths, its
#    CQ's fill and its MR's pages (-dd); afterwards the trace holds the QP
#    going RESET, INIT, RTR, RTS and ERR, one sroce_nak_sent per sequence
#    NAK sroce2 counted (seq_nak_sent), one sroce_nak_recv per one sroce1
#    counted, and sroce1's resends with their cause;
#  - congestion marks (tc pedit sets CE on n1's RoCE packets) with the
#    reaction point on: one sroce_cnp_sent per CNP sroce2 counted, one
#    sroce_cnp_recv "handled" per CNP sroce1 handled;
#  - PFC frames (pfc_inject) for priority 0, PFC on for it, under a flow on
#    it: sroce_pfc_rx honours them, a frame for priority 5 (PFC off) is
#    seen and not honoured, and the flow's priority is held back for the
#    pause (sroce_tx_held);
#  - a shaper (tbf) under a saturating UD ib_send_bw: one sroce_tx_held
#    per stall sroce1 counted (tx_deferred), "qdisc full" among them, one
#    sroce_tx_fifo_full per QP stopped at its FIFO (tx_queue_full);
#  - trace-cmd's report of the whole run (its own parser of the events'
#    formats) names the QP states as the kernel's text does.
# Each count is against the hw counter incremented at the same place, so a
# missing or a doubled event shows.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

TR=/sys/kernel/tracing
EVENTS="sroce_qp_state sroce_qp_resend sroce_nak_sent sroce_nak_recv sroce_cnp_sent
	sroce_cnp_recv sroce_pfc_rx sroce_tx_held sroce_tx_fifo_full"
# the rig, the events, trace-cmd; loss 8; marks 3; PFC 4; shaper 3;
# the report 1
t_plan 22

sroce_load
t_check "two links on a veth pair" veth_links
for m in sch_netem sch_tbf sch_ingress act_pedit act_csum cls_flower cls_matchall; do
	modprobe "$m" || log "modprobe $m failed"
done
ga=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2")
gb=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2")

[ -d "$TR/events" ] || mount -t tracefs nodev "$TR"
missing=()
for e in $EVENTS; do
	# tracefs files have no size: read the format
	grep -q '^print fmt:' "$TR/events/sroce/$e/format" 2>/dev/null || missing+=("$e")
done
if [ ${#missing[@]} = 0 ]; then
	t_ok "the nine sroce events are in tracefs"
else
	t_fail "the nine sroce events are in tracefs" "missing: ${missing[*]}"
fi
# 4 MB a CPU: the loss phase makes a few thousand events at most
t_check "trace-cmd starts the sroce events" trace-cmd start -b 4096 -e sroce
# every event that reached the buffer is in the raw text; none lost
overruns() {
	cat "$TR"/per_cpu/cpu*/stats | awk '$1 == "overrun:" { n += $2 } END { print n + 0 }'
}

# phase_begin: an empty buffer, and the counters before
declare -A c0=()
CTRS="sroce1:seq_nak_received sroce2:seq_nak_sent sroce2:np_cnp_sent
	sroce1:rp_cnp_handled sroce1:tx_deferred sroce1:tx_queue_full"
phase_begin() {
	local k
	: >"$TR/trace"
	for k in $CTRS; do
		c0[$k]=$(counter "${k%%:*}" "${k#*:}")
	done
}
# delta DEV:NAME: the counter's move since phase_begin
delta() {
	echo $(($(counter "${1%%:*}" "${1#*:}") - c0[$1]))
}
# phase_end NAME: the phase's events to /tmp/trace.NAME
phase_end() {
	cat "$TR/trace" >"/tmp/trace.$1"
	log "$1: $(grep -c ' sroce_' "/tmp/trace.$1") events, overruns $(overruns)"
}
# events NAME PATTERN: how many of the phase's events match PATTERN
events() {
	grep -cE "$2" "/tmp/trace.$1"
}
# t_events NAME WHAT PATTERN COUNTER: as many events as the counter moved,
# one at least
t_events() {
	local n d
	n=$(events "$1" "$3")
	d=$(delta "$4")
	if [ "$n" -gt 0 ] && [ "$n" = "$d" ]; then
		t_ok "$1: $2: $n events, as $4 moved"
	else
		t_fail "$1: $2: one per ${4#*:}" "$n events, the counter moved by $d"
	fi
}
# t_seen NAME WHAT PATTERN: one event at least
t_seen() {
	local n
	n=$(events "$1" "$3")
	if [ "$n" -gt 0 ]; then
		t_ok "$1: $2 ($n)"
	else
		t_fail "$1: $2" "no event matches '$3'"
	fi
}
# bw NAME PORT SECS TOOL ARGS...: a perftest run from sroce1 to sroce2,
# in the background; BW_PIDS the two processes, BW_NAME its name
bw() {
	local name=$1 port=$2 secs=$3 tool=$4
	shift 4
	BW_NAME=$name
	ip netns exec ns2 timeout 120 "$tool" -d sroce2 -x "$gb" -F -p "$port" -D "$secs" "$@" \
		>"/tmp/$name.srv" 2>&1 &
	BW_PIDS=($!)
	wait_for 20 bash -c "ip netns exec ns2 ss -ltn | grep -q ':$port '"
	timeout 120 ip netns exec ns1 "$tool" -d sroce1 -x "$ga" -F -p "$port" -D "$secs" "$@" \
		198.51.100.12 >"/tmp/$name.cli" 2>&1 &
	BW_PIDS+=($!)
}
# bw_wait WHAT: both ends of the last run ended well
bw_wait() {
	local rc=0 p
	for p in "${BW_PIDS[@]}"; do
		wait "$p" || rc=1
	done
	t_status "$1 completed" "$rc" \
		"$(tail -n 2 "/tmp/$BW_NAME.cli" "/tmp/$BW_NAME.srv" | tr '\n' ' ')"
}

# --- loss ---------------------------------------------------------------------

phase_begin
ip netns exec ns1 tc qdisc add dev n1 root netem loss 3%
# a long local ACK timeout (-u 18, 1 s): the losses are recovered by
# sequence NAKs, as they are meant to be
bw loss 18901 6 ib_write_bw -s 16384 -u 18
sleep 3
rdma -dd res show qp link sroce1/1 >/tmp/trace.res.qp 2>&1
rdma -dd res show cq dev sroce1 >/tmp/trace.res.cq 2>&1
rdma -dd res show mr dev sroce1 >/tmp/trace.res.mr 2>&1
for r in qp cq mr; do
	log "rdma -dd res show $r: $(grep -v 'type GSI' "/tmp/trace.res.$r" | tr '\n' ' ' | cut -c1-600)"
done
bw_wait "loss: ib_write_bw with 3 % lost"
ip netns exec ns1 tc qdisc del dev n1 root
phase_end loss
qpline=$(grep 'type RC' /tmp/trace.res.qp | head -n 1)
if [[ $qpline =~ drv_sq_psn\ 0x[0-9a-f]+ ]] && [[ $qpline =~ drv_unacked_psn\ 0x ]] &&
	[[ $qpline =~ drv_expected_psn\ 0x ]] && [[ $qpline =~ drv_retransmits\ [1-9] ]] &&
	[[ $qpline =~ drv_sq_outstanding\ [0-9]{1,5}\  ]] && [[ $qpline =~ drv_dcqcn_rate_mbps ]]; then
	t_ok "loss: rdma resource shows the QP's PSNs, its retransmits and its queue"
else
	t_fail "loss: rdma resource shows the QP's PSNs, its retransmits and its queue" "${qpline:-no RC QP}"
fi
t_check "loss: rdma resource shows the CQ's fill" grep -q 'drv_cqe_used [0-9]' /tmp/trace.res.cq
t_check "loss: rdma resource shows the MR's pages" grep -q 'drv_pages [1-9]' /tmp/trace.res.mr
# one RC QP of sroce1 through every state
states=0
for qpn in $(grep -oE 'sroce_qp_state: sroce1 RC QP 0x[0-9a-f]+' /tmp/trace.loss | awk '{ print $5 }' | sort -u); do
	seq=$(grep -F "sroce1 RC QP $qpn:" /tmp/trace.loss | grep -oE '[A-Z]+ -> [A-Z]+$' | tr '\n' ',')
	if [[ $seq == *"RESET -> INIT,INIT -> RTR,RTR -> RTS,"*"-> ERR,"* ]]; then
		states=1
		log "loss: QP $qpn: $seq"
	fi
done
if [ "$states" = 1 ]; then
	t_ok "loss: sroce_qp_state: an RC QP of sroce1 went RESET, INIT, RTR, RTS, ERR"
else
	t_fail "loss: sroce_qp_state: an RC QP of sroce1 went RESET, INIT, RTR, RTS, ERR" \
		"$(grep 'sroce_qp_state' /tmp/trace.loss | head -n 8 | tr '\n' ' ')"
fi
t_events loss "sroce_nak_sent of sroce2, sequence errors" \
	'sroce_nak_sent: sroce2 .*PSN sequence error' sroce2:seq_nak_sent
t_events loss "sroce_nak_recv of sroce1, sequence errors" \
	'sroce_nak_recv: sroce1 .*PSN sequence error' sroce1:seq_nak_received
t_seen loss "sroce_qp_resend of sroce1, for a sequence NAK" \
	'sroce_qp_resend: sroce1 QP 0x[0-9a-f]+: resend from PSN 0x[0-9a-f]+, sequence NAK; [0-9]+ retries left'

# --- congestion marks -------------------------------------------------------------

ce_mark ns1 n1 || log "marks: tc could not mark on n1"
cc1=/sys/class/infiniband/sroce1/ports/1/cc
echo 1,0,0,0,0,0,0,0 >"$cc1/rp_enable"
phase_begin
bw marks 18902 2 ib_write_bw -s 4096
bw_wait "marks: ib_write_bw with every packet marked"
phase_end marks
echo 0,0,0,0,0,0,0,0 >"$cc1/rp_enable"
ce_unmark ns1 n1
t_events marks "sroce_cnp_sent of sroce2" 'sroce_cnp_sent: sroce2 QP 0x[0-9a-f]+: CNP to QP' \
	sroce2:np_cnp_sent
t_events marks "sroce_cnp_recv of sroce1, handled" \
	'sroce_cnp_recv: sroce1 QP 0x[0-9a-f]+: CNP handled; rate [0-9]+ Mb/s' sroce1:rp_cnp_handled

# --- PFC frames -------------------------------------------------------------------

pfc_inject_build
echo 1,0,0,0,0,0,0,0 >/sys/class/infiniband/sroce1/ports/1/qos/pfc
phase_begin
bw pfc 18903 4 ib_write_bw -s 4096 -u 20
# pause only once the flow is sending: under load, perftest's connection
# set-up alone can outlast a fixed delay, and a pause of an idle
# priority holds nothing back
sent_over() {
	[ "$(counter sroce1 tx_prio0_packets)" -gt "$1" ]
}
wait_for 30 sent_over $(($(counter sroce1 tx_prio0_packets) + 200)) ||
	log "pfc: priority 0 of sroce1 did not start sending in 30 s"
ip netns exec ns2 "$INJECT_PFC" n2 xoff:0:300 sleep:100 once:5 >/tmp/trace.inject 2>&1 ||
	log "pfc: pfc_inject: $(tail -n 2 /tmp/trace.inject | tr '\n' ' ')"
for p in "${BW_PIDS[@]}"; do
	wait "$p"
done
phase_end pfc
echo 0,0,0,0,0,0,0,0 >/sys/class/infiniband/sroce1/ports/1/qos/pfc
t_seen pfc "sroce_pfc_rx of sroce1, priority 0 paused and honoured" \
	'sroce_pfc_rx: sroce1 PFC frame: priorities 0x01, honoured 0x01, quanta \{0xffff,'
t_seen pfc "sroce_pfc_rx of sroce1, priority 5 (PFC off) not honoured" \
	'sroce_pfc_rx: sroce1 PFC frame: priorities 0x20, honoured 0x00'
t_seen pfc "sroce_tx_held of sroce1, priority 0 for the pause" \
	'sroce_tx_held: sroce1 priority 0 held back: PFC pause'

# --- a shaper ---------------------------------------------------------------------

# 5 Mb/s: a slow host's guest sends UD at little more than 20 Mb/s, so a
# shaper near that rate may leave its QP's FIFO short of its high
# watermark for the 3 s
ip netns exec ns1 tc qdisc add dev n1 root tbf rate 5mbit burst 16k limit 32k
phase_begin
bw shaper 18904 3 ib_send_bw -c UD -s 1024
bw_wait "shaper: a saturating UD ib_send_bw through a 5 Mb/s tbf"
# A UD send completes once queued in sroce, so packets may still wait for
# the shaper when perftest ends, and their holds would move tx_deferred
# after the events were copied (CI's run of e26c834: 2107 events, 2110).
# Without the shaper nothing is held any more: then copy.
ip netns exec ns1 tc qdisc del dev n1 root
phase_end shaper
t_events shaper "sroce_tx_held of sroce1, once per stall" 'sroce_tx_held: sroce1 priority' \
	sroce1:tx_deferred
log "shaper: $(events shaper 'held back: qdisc full') of them for a full qdisc"
t_events shaper "sroce_tx_fifo_full of sroce1" 'sroce_tx_fifo_full: sroce1 priority 0 FIFO' \
	sroce1:tx_queue_full

# an event of each kind, for the log
for e in $EVENTS; do
	log "seen: $(cat /tmp/trace.loss /tmp/trace.marks /tmp/trace.pfc /tmp/trace.shaper |
		grep -m 1 " $e: " | sed 's/^ *//')"
done

# --- trace-cmd's report -------------------------------------------------------------

# the whole run again, read through the formats by trace-cmd's parser
trace-cmd stop
trace-cmd extract -o /tmp/trace.dat >/tmp/trace.extract 2>&1
trace-cmd report -i /tmp/trace.dat >/tmp/trace.report 2>/tmp/trace.report.err
trace-cmd reset
raw=$(grep -c 'sroce_qp_state: .*RTR -> RTS' /tmp/trace.shaper)
rep=$(grep -c 'sroce_qp_state: .*RTR -> RTS' /tmp/trace.report)
if [ "$raw" -gt 0 ] && [ "$rep" = "$raw" ]; then
	t_ok "trace-cmd report names the QP states as the kernel does ($rep RTR -> RTS)"
else
	t_fail "trace-cmd report names the QP states as the kernel does" \
		"kernel $raw, trace-cmd $rep: $(grep -m 2 sroce_qp_state /tmp/trace.report | tr '\n' ' ')"
fi
t_done
