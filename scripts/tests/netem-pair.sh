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
steps="loss1 loss10 reorder dup jitter rnr rnr-exc peer-exit blackhole"
only=${SROCE_NETEM_ONLY:-$steps}
only=${only//,/ }
prog=/tmp/rdma_verify
port=18700

step() {
	[[ " $only " == *" $1 "* ]]
}

pair_link
# Built first: it tells the plan how many checks each of its runs reports.
build_out=$(cc -O2 -Wall -Wextra -o "$prog" "$SROCE_REPO/scripts/tests/rdma_verify.c" \
	-libverbs 2>&1)
build_rc=$?
# (a warning fails "compiles cleanly")
[ -n "$build_out" ] && [ "$build_rc" = 0 ] && build_rc=1
[ -x "$prog" ] || fail "rdma_verify does not compile: $build_out"

gid4=$(v4_gid "$SROCE_MY_IP4")
gid6=$(v6_gid "$SROCE_MY_IP6")
wait_for 10 pair_gid_index "$DEV" "$gid4" "RoCE v2" || fail "$DEV: no RoCE v2 GID for $SROCE_MY_IP4"
wait_for 10 pair_gid_index "$DEV" "$gid6" "RoCE v2" || fail "$DEV: no RoCE v2 GID for $SROCE_MY_IP6"
declare -A gidx=(
	[ipv4]=$(pair_gid_index "$DEV" "$gid4" "RoCE v2")
	[ipv6]=$(pair_gid_index "$DEV" "$gid6" "RoCE v2")
)
declare -A peer_ip=([ipv4]=$SROCE_PEER_IP4 [ipv6]=$SROCE_PEER_IP6)

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

# Each step's counter checks, on guest a: "DESCRIPTION|TEST" lines, TEST
# an arithmetic expression over D.
declare -A expects=(
	[loss1]="netem dropped packets on both guests|D[a.netem_dropped] > 0 && D[b.netem_dropped] > 0
both requesters retransmitted|D[a.retransmits] > 0 && D[b.retransmits] > 0"
	[loss10]="netem dropped packets on both guests|D[a.netem_dropped] > 0 && D[b.netem_dropped] > 0
both requesters retransmitted|D[a.retransmits] > 0 && D[b.retransmits] > 0
sequence NAKs and ACK timeouts recovered the losses|D[a.seq_nak_received] + D[b.seq_nak_received] > 0 && D[a.ack_timeouts] + D[b.ack_timeouts] > 0"
	[reorder]="requests arrived out of sequence|D[a.rx_out_of_sequence] + D[b.rx_out_of_sequence] > 0"
	[dup]="duplicate requests arrived and were answered|D[a.rx_duplicate_requests] > 0 && D[b.rx_duplicate_requests] > 0"
	[rnr]="both requesters got RNR NAKs and retried|D[a.rnr_nak_received] > 0 && D[b.rnr_nak_received] > 0 && D[a.rnr_nak_sent] > 0 && D[b.rnr_nak_sent] > 0
no RNR retry budget ran out|D[a.rnr_retry_exceeded] + D[b.rnr_retry_exceeded] == 0"
	[rnr-exc]="3 RNR NAKs sent and received, then one QP out of RNR retries|D[b.rnr_nak_sent] == 3 && D[a.rnr_nak_received] == 3 && D[a.rnr_retry_exceeded] == 1"
	[peer-exit]="8 or more ACK timeouts and one QP out of retries|D[a.ack_timeouts] >= 8 && D[a.retry_exceeded] == 1"
	[blackhole]="guest b's netem dropped its packets|D[b.netem_dropped] > 0
8 or more ACK timeouts and one QP out of retries|D[a.ack_timeouts] >= 8 && D[a.retry_exceeded] == 1"
)

# expect_counters STEP: the step's counter checks, each naming the
# counters it read
expect_counters() {
	local line what test vals r
	[ -n "${expects[$1]:-}" ] || return 0
	while IFS= read -r line; do
		what=${line%%|*}
		test=${line#*|}
		vals=
		while read -r r; do
			r=${r#D[}
			r=${r%]}
			vals+=" $r=${D[$r]:-?}"
		done <<<"$(grep -o 'D\[[a-z_.]*\]' <<<"$test" | sort -u)"
		if [ "$D_ok" = 1 ] && ((test)); then
			t_ok "$1: $what"
		else
			t_fail "$1: $what" "$test, with$vals"
		fi
	done <<<"${expects[$1]}"
}

# ---- running rdma_verify ----------------------------------------------------

# Each step: "FAMILY SECS CLIENT_OPTS..." (the client's -m, -R, -f and -N
# apply to both sides), the server's -C in vcut, netem's settings on both
# guests in vnetem.
declare -A vstep=(
	[loss1]="ipv4 300 -m $max"
	[loss10]="ipv6 400 -m $max"
	[reorder]="ipv4 300 -m $max"
	[dup]="ipv6 300 -m $max"
	[jitter]="ipv4 300 -m $max"
	# every SEND and WRITE with immediate finds its receive 100 ms late
	[rnr]="ipv4 300 -m 65536 -R 100"
	# rnr_retry 2: the first try and two retries, each NAKed, then error
	[rnr-exc]="ipv4 120 -f rnr-exc -N 2"
	# retry_cnt 7: the try and seven retries each time out
	[peer-exit]="ipv4 180 -f peer-exit -m $max"
	# guest b drops everything it sends once WRITEs flow: no ACK returns
	[blackhole]="ipv4 180 -f blackhole -m $max"
)
declare -A vcut=([blackhole]="tc qdisc add dev eth0 root netem loss 100%")
declare -A vnetem=(
	[loss1]="loss 1%"
	[loss10]="loss 10%"
	[reorder]="delay 1ms reorder 25% 50%"
	[dup]="duplicate 5%"
	[jitter]="delay 5ms 2ms"
)

# client_cmd STEP: cli, rdma_verify's client for STEP; its TAP lines carry
# the step, so that no two steps report a check of the same name
client_cmd() {
	local fam secs copts
	read -r fam secs copts <<<"${vstep[$1]}"
	read -ra copts <<<"$copts"
	cli=("$prog" -d "$DEV" -g "${gidx[$fam]}" -p "$port" -t 30 -s "$((RANDOM + 1))"
		-l "$1 $fam" -r a:b "${copts[@]}" "${peer_ip[$fam]}")
}

# The plan, from the step tables: rdma_verify tells how many TAP lines its
# client (a) prints; a checks the counters, and netem's delay on jitter.
plan() {
	local n=3 s
	for s in $steps; do
		step "$s" || continue
		[ "$SROCE_ROLE" = a ] || continue
		client_cmd "$s"
		n=$((n + $("${cli[@]}" --plan)))
		[ "$s" = jitter ] && n=$((n + 1))
		[ "$cnt_ok" = 1 ] && [ -n "${expects[$s]:-}" ] &&
			n=$((n + $(wc -l <<<"${expects[$s]}")))
	done
	echo "$n"
}

# verify STEP
verify() {
	local fam secs
	_step=$1
	read -r fam secs _ <<<"${vstep[$_step]}"
	port=$((port + 1))
	snap "pre.$_step"
	barrier "pre.$_step" || fail "the peer did not reach step $_step"
	srv=("$prog" -d "$DEV" -g "${gidx[$fam]}" -p "$port" -t 30)
	[ -n "${vcut[$_step]:-}" ] && srv+=(-C "${vcut[$_step]}")
	client_cmd "$_step"
	t0=$SECONDS
	PR_RETRIES=1 PR_TAIL=30 PR_TAP="rdma_verify" \
		pair_run "rdma_verify $_step $fam" "$secs" "tcp:$port"
	log "$_step: $((SECONDS - t0)) s"
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

# ---- the steps --------------------------------------------------------------

plan_n=$(plan) || fail "cannot compute the plan"
t_plan "$plan_n"
t_check "[$SROCE_ROLE] modprobe sch_netem" modprobe sch_netem
tc qdisc del dev eth0 root 2>/dev/null
t_status "[$SROCE_ROLE] rdma_verify compiles cleanly" "$build_rc" "$build_out"
barrier linked || fail "the peer never linked its driver"

for s in $steps; do
	step "$s" || continue
	# shellcheck disable=SC2086 # netem's settings are words
	[ -n "${vnetem[$s]:-}" ] && netem ${vnetem[$s]}
	if [ "$s" = jitter ] && [ "$SROCE_ROLE" = a ]; then
		# 5 +- 2 ms each way: a round trip cannot take less than 6 ms
		# iputils: "rtt min/avg/max/mdev = a/b/c/d ms"; busybox: "round-trip …"
		rtt=$(ping -c 3 -i 0.2 "$SROCE_PEER_IP4" |
			sed -n 's|.*min/avg/max.* = [0-9.]*/\([0-9]*\).*|\1|p')
		if [ "${rtt:-0}" -ge 6 ]; then
			t_ok "jitter: netem delays the wire (ping average ${rtt} ms)"
		else
			t_fail "jitter: netem delays the wire" "ping average ${rtt:-none} ms"
		fi
	fi
	verify "$s"
	[ "$SROCE_ROLE" = a ] && [ "$cnt_ok" = 1 ] && expect_counters "$s"
	netem
done

barrier finished || log "the peer did not finish"
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
t_done
