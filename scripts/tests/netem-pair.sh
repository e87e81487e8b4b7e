#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC reliability between two guests on an unreliable wire: rdma_verify
# (every byte of every RC operation, both ways, across the PSN wrap) with
# netem on both guests' eth0 dropping, reordering, duplicating and delaying
# packets; then RNR (receives posted late, and none at all) and a peer
# that vanishes mid-transfer, whose requests must end in error completions
# rather than hang.  Counters prove the faults happened: retransmits under
# loss, out-of-sequence requests under reordering, duplicates under
# duplication, RNR NAKs, ACK timeouts.  Guest a is the client.
#
# SROCE_NETEM_MAX=N     rdma_verify's largest message (default 1 MiB)
# SROCE_NETEM_ONLY="…"  steps to run (space or comma separated):
#                       loss1 loss10 reorder dup jitter rnr rnr-exc
#                       peer-exit blackhole
# SROCE_DRV_A/B         sroce (default) or rxe, as in rc-pair.sh; the
#                       counter checks need sroce on both sides

# srv and cli are pair_run's arguments.
# shellcheck disable=SC2034
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

max=${SROCE_NETEM_MAX:-1048576}
only=${SROCE_NETEM_ONLY:-loss1 loss10 reorder dup jitter rnr rnr-exc peer-exit blackhole}
only=${only//,/ }
prog=/tmp/rdma_verify
port=18700

step() {
	[[ " $only " == *" $1 "* ]]
}

pair_link
t_check "[$SROCE_ROLE] modprobe sch_netem" modprobe sch_netem
tc qdisc del dev eth0 root 2>/dev/null

gid4=$(v4_gid "$SROCE_MY_IP4")
gid6=$(v6_gid "$SROCE_MY_IP6")
wait_for 10 pair_gid_index "$DEV" "$gid4" "RoCE v2" || fail "$DEV: no RoCE v2 GID for $SROCE_MY_IP4"
wait_for 10 pair_gid_index "$DEV" "$gid6" "RoCE v2" || fail "$DEV: no RoCE v2 GID for $SROCE_MY_IP6"
declare -A gidx=(
	[ipv4]=$(pair_gid_index "$DEV" "$gid4" "RoCE v2")
	[ipv6]=$(pair_gid_index "$DEV" "$gid6" "RoCE v2")
)
declare -A peer_ip=([ipv4]=$SROCE_PEER_IP4 [ipv6]=$SROCE_PEER_IP6)
t_check "[$SROCE_ROLE] rdma_verify compiles cleanly" bash -c \
	"cc -O2 -Wall -Wextra -o $prog $SROCE_REPO/scripts/tests/rdma_verify.c -libverbs 2>&1 |
	 tee /dev/stderr | { ! grep -q .; }"
barrier linked || fail "the peer never linked its driver"

# ---- counters, both guests ------------------------------------------------

counters="retransmits ack_timeouts retry_exceeded rnr_retry_exceeded
	seq_nak_sent seq_nak_received rnr_nak_sent rnr_nak_received
	rx_duplicate_requests rx_out_of_sequence"
cnt_ok=0
[ "$(pair_driver_of a)" = sroce ] && [ "$(pair_driver_of b)" = sroce ] && cnt_ok=1

# snap TAG: this guest's counters (and netem's drops) into /shared.  No
# fork per counter: under TCG each costs a good part of a second.
snap() {
	local f=$SROCE_SHARED/cnt.$1.$SROCE_ROLE c v drops
	[ "$cnt_ok" = 1 ] || return 0
	for c in $counters; do
		read -r v <"/sys/class/infiniband/$DEV/ports/1/hw_counters/$c"
		echo "$c $v"
	done >"$f.tmp"
	drops=$(tc -s qdisc show dev eth0 | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p')
	echo "netem_dropped ${drops%%$'\n'*}" >>"$f.tmp"
	mv "$f.tmp" "$f"
}

# load_deltas: D[ROLE.NAME], how much NAME rose on guest ROLE in the step
# (0 where unknown: D_ok is then 0 and every expect fails)
declare -A D
D_ok=0
load_deltas() {
	local r n v f
	local -A pre
	D_ok=1
	for r in a b; do
		for n in $counters netem_dropped; do
			D[$r.$n]=0
		done
		for f in pre post; do
			[ -e "$SROCE_SHARED/cnt.$f.$_step.$r" ] || D_ok=0
		done
		[ "$D_ok" = 1 ] || continue
		while read -r n v; do
			pre[$r.$n]=$v
		done <"$SROCE_SHARED/cnt.pre.$_step.$r"
		while read -r n v; do
			D[$r.$n]=$((v - ${pre[$r.$n]:-0}))
		done <"$SROCE_SHARED/cnt.post.$_step.$r"
	done
}

# Both sides' rises, for the log
show_deltas() {
	local r c line
	for r in a b; do
		line=
		for c in $counters netem_dropped; do
			line+=" $c=${D[$r.$c]:-0}"
		done
		log "$_step: guest $r:$line"
	done
}

# expect NAME DESCRIPTION TEST: on guest a, a check of the counters
expect() {
	local what=$2
	shift 2
	[ "$SROCE_ROLE" = a ] && [ "$cnt_ok" = 1 ] || return 0
	if [ "$D_ok" = 1 ] && (("$@")); then
		t_ok "$_step: $what"
	else
		t_fail "$_step: $what" "$*"
	fi
}

# ---- running rdma_verify ----------------------------------------------------

# Its TAP lines count too, one per case (_pr_n: pair_run's last).
# shellcheck disable=SC2154
import_tap() {
	local line name why
	[ "$SROCE_ROLE" = a ] || return 0
	while IFS= read -r line; do
		case $line in
		"ok - "*) t_ok "rdma_verify ${line#ok - }" ;;
		"not ok - "*)
			name=${line#not ok - }
			why=${name#* (}
			[ "$why" = "$name" ] && why=failed
			t_fail "rdma_verify ${name%% (*}" "${why%)}"
			;;
		"# "*) log "rdma_verify: ${line#\# }" ;;
		esac
	done <"$SROCE_SHARED/pr.$_pr_n.client.log"
}

# verify STEP NAME FAMILY SECS [CLIENT_OPTS... [-- SERVER_OPTS...]]
verify() {
	local fam=$3 secs=$4 copts=() sopts=()
	_step=$1
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		copts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	sopts=("$@")
	port=$((port + 1))
	snap "pre.$_step"
	barrier "pre.$_step" || fail "the peer did not reach step $_step"
	srv=("$prog" -d "$DEV" -g "${gidx[$fam]}" -p "$port" -t 30 "${sopts[@]}")
	cli=("$prog" -d "$DEV" -g "${gidx[$fam]}" -p "$port" -t 30 -s "$((RANDOM + 1))"
		-l "$fam" -r a:b "${copts[@]}" "${peer_ip[$fam]}")
	t0=$SECONDS
	PR_RETRIES=1 PR_TAIL=30 pair_run "rdma_verify $_step $fam" "$secs" "tcp:$port"
	log "$_step: $((SECONDS - t0)) s"
	import_tap
	snap "post.$_step"
	barrier "post.$_step" || fail "the peer did not finish step $_step"
	load_deltas
	[ "$cnt_ok" = 1 ] && [ "$SROCE_ROLE" = a ] && show_deltas
	return 0
}

# netem ARGS...: on this guest's eth0 (both guests call it), or off
netem() {
	tc qdisc del dev eth0 root 2>/dev/null
	[ $# = 0 ] && return 0
	tc qdisc add dev eth0 root netem "$@" || fail "tc qdisc add dev eth0 root netem $*"
}

# ---- unreliable wires ---------------------------------------------------------

if step loss1; then
	netem loss 1%
	verify loss1 "loss 1%" ipv4 300 -m "$max"
	expect loss1 "netem dropped packets on both guests" \
		"${D[a.netem_dropped]} > 0 && ${D[b.netem_dropped]} > 0"
	expect loss1 "both requesters retransmitted" \
		"${D[a.retransmits]} > 0 && ${D[b.retransmits]} > 0"
	netem
fi

if step loss10; then
	netem loss 10%
	verify loss10 "loss 10%" ipv6 400 -m "$max"
	expect loss10 "netem dropped packets on both guests" \
		"${D[a.netem_dropped]} > 0 && ${D[b.netem_dropped]} > 0"
	expect loss10 "both requesters retransmitted" \
		"${D[a.retransmits]} > 0 && ${D[b.retransmits]} > 0"
	expect loss10 "sequence NAKs and ACK timeouts recovered the losses" \
		"${D[a.seq_nak_received]} + ${D[b.seq_nak_received]} > 0 &&
		 ${D[a.ack_timeouts]} + ${D[b.ack_timeouts]} > 0"
	netem
fi

if step reorder; then
	netem delay 1ms reorder 25% 50%
	verify reorder "reordering" ipv4 300 -m "$max"
	expect reorder "requests arrived out of sequence" \
		"${D[a.rx_out_of_sequence]} + ${D[b.rx_out_of_sequence]} > 0"
	netem
fi

if step dup; then
	netem duplicate 5%
	verify dup "duplication" ipv6 300 -m "$max"
	expect dup "duplicate requests arrived and were answered" \
		"${D[a.rx_duplicate_requests]} > 0 && ${D[b.rx_duplicate_requests]} > 0"
	netem
fi

if step jitter; then
	netem delay 5ms 2ms
	# 5 +- 2 ms each way: a round trip cannot take less than 6 ms
	if [ "$SROCE_ROLE" = a ]; then
		# iputils: "rtt min/avg/max/mdev = a/b/c/d ms"; busybox: "round-trip …"
		rtt=$(ping -c 3 -i 0.2 "$SROCE_PEER_IP4" |
			sed -n 's|.*min/avg/max.* = [0-9.]*/\([0-9]*\).*|\1|p')
		if [ "${rtt:-0}" -ge 6 ]; then
			t_ok "jitter: netem delays the wire (ping average ${rtt} ms)"
		else
			t_fail "jitter: netem delays the wire" "ping average ${rtt:-none} ms"
		fi
	fi
	verify jitter "delay 5 ms, jitter 2 ms" ipv4 300 -m "$max"
	netem
fi

# ---- receivers not ready --------------------------------------------------------

if step rnr; then
	# every SEND and WRITE with immediate finds its receive 100 ms late
	verify rnr "receives posted late" ipv4 300 -m 65536 -R 100
	expect rnr "both requesters got RNR NAKs and retried" \
		"${D[a.rnr_nak_received]} > 0 && ${D[b.rnr_nak_received]} > 0 &&
		 ${D[a.rnr_nak_sent]} > 0 && ${D[b.rnr_nak_sent]} > 0"
	expect rnr "no RNR retry budget ran out" \
		"${D[a.rnr_retry_exceeded]} + ${D[b.rnr_retry_exceeded]} == 0"
fi

if step rnr-exc; then
	# rnr_retry 2: the first try and two retries, each NAKed, then error
	verify rnr-exc "no receive, rnr_retry 2" ipv4 120 -f rnr-exc -N 2
	expect rnr-exc "3 RNR NAKs sent and received, then one QP out of RNR retries" \
		"${D[b.rnr_nak_sent]} == 3 && ${D[a.rnr_nak_received]} == 3 &&
		 ${D[a.rnr_retry_exceeded]} == 1"
fi

# ---- a peer that vanishes ---------------------------------------------------------

if step peer-exit; then
	verify peer-exit "peer exits mid-transfer" ipv4 180 -f peer-exit -m "$max"
	# retry_cnt 7: the try and seven retries each time out
	expect peer-exit "8 or more ACK timeouts and one QP out of retries" \
		"${D[a.ack_timeouts]} >= 8 && ${D[a.retry_exceeded]} == 1"
fi

if step blackhole; then
	# guest b drops everything it sends once WRITEs flow: no ACK returns
	verify blackhole "wire cut mid-transfer" ipv4 180 -f blackhole -m "$max" \
		-- -C "tc qdisc add dev eth0 root netem loss 100%"
	expect blackhole "guest b's netem dropped its packets" \
		"${D[b.netem_dropped]} > 0"
	expect blackhole "8 or more ACK timeouts and one QP out of retries" \
		"${D[a.ack_timeouts]} >= 8 && ${D[a.retry_exceeded]} == 1"
	netem
fi

barrier finished || log "the peer did not finish"
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
t_done
