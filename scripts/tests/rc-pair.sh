#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC traffic between two guests, over RoCE v2 on IPv4 and on IPv6 GIDs:
# ibv_rc_pingpong and ibv_srq_pingpong (--chk), perftest (send, write,
# read, atomic; bandwidth and latency), rping -V and ucmatose over rdma_cm,
# and rdma_verify (every byte of every RC operation checked, both ways;
# then again to 64 KiB with every remote access through memory windows),
# whose checker must also report the corruption of its self-test (-x).
# perftest checks no data: its checks say the runs completed, no more.
# Guest a is the client (requester, "a->b"), b serves.
#
# Each guest runs its own driver, so one script covers sroce-sroce, interop
# both ways and the rdma_rxe reference:
#   scripts/guest.sh --pair --env SROCE_DRV_A=sroce --env SROCE_DRV_B=rxe \
#       scripts/tests/rc-pair.sh
# SROCE_DRV_A, SROCE_DRV_B   sroce (default) or rxe
# SROCE_RC_FULL=1            every size, both families, both directions
#                            (the default is a representative subset)
# SROCE_RC_ONLY="..."        groups to run (space or comma separated):
#                            pingpong perftest rdmacm verify, and cnp
#                            (between sroce and rxe only; not by default)
# SROCE_RC_VERIFY_MAX=N      rdma_verify's largest message (default 16 MiB)
# SROCE_RC_VERIFY_ARGS="..."  more rdma_verify client options (-n 3, -x, -P 0)
# SROCE_RC_ACK_T=N           rdma_verify's local ACK timeout exponent (default 17)

# srv and cli are pair_run's arguments.
# shellcheck disable=SC2034
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

full=${SROCE_RC_FULL:-0}
only=${SROCE_RC_ONLY:-pingpong perftest rdmacm verify}
only=${only//,/ }
verify_max=${SROCE_RC_VERIFY_MAX:-16777216}
# rdma_verify once more with every remote access through memory windows
# (-W: type 1, bound by each side over its buffers), to this size
windows_max=65536

group() {
	[[ " $only " == *" $1 "* ]]
}

if [ "$full" = 1 ]; then
	families="ipv4 ipv6"
	servers="b a"
	sizes="2 4096 65536 1048576"
else
	families="ipv4 ipv6"
	servers="b"
	sizes="2 65536"
fi

# What each group runs, for each server and family; the plan counts these.
# pingpong: SIZE:MTU of ibv_rc_pingpong, then one ibv_srq_pingpong
pp_list="1:1024 4096:4096 65536:4096"
[ "$full" = 1 ] && pp_list+=" 5000:1024 1048576:4096"
# perftest: each tool at each of $sizes, then the atomics
perf_tools="send write read"
# and a send queue 512 deep of 64-byte messages: more WQEs posted than the
# kernel holds copies of (SROCE_SQ_COPIES)
deep_tools="send write"
atomic_bw_ops="CMP_AND_SWAP FETCH_AND_ADD"
atomic_lat_ops="FETCH_AND_ADD"
[ "$full" = 1 ] && atomic_lat_ops+=" CMP_AND_SWAP"
# rdmacm: rping at each size, then one ucmatose
rping_sizes="64 4096"
# verify: the self-test's largest message (-x); small, as it only has to
# show that corrupted data is reported
selftest_max=4097

# cnp: sroce's CNPs sent to an rdma_rxe peer, which has no congestion
# control and must carry on.  The rxe guest marks CE on every RoCEv2/IPv4
# packet it sends (tc pedit on eth0's egress, as a congested switch
# would); rdma_verify runs both ways up to cnp_max, every byte checked;
# the sroce guest must have counted the marks and sent CNPs, and the rxe
# guest must have received them (a capture of BTH opcode 0x81).  sroce
# to sroce is cc.sh's.
cnp_max=65536
cnp=0
if group cnp; then
	if [ "$(pair_driver_of a)" != "$(pair_driver_of b)" ]; then
		cnp=1
	else
		log "rc-pair: the cnp group needs sroce on one side and rxe on the other; not run"
	fi
fi

# rdma_verify's QPs' local ACK timeout, 2^N x 4.096 us: 17 (537 ms, seven
# retries 4.3 s).  With 14 (67 ms, all retries in half a second) a
# sroce-rxe run on a loaded slow host can give up on an inline SEND
# right after a 16 MiB READ, and the QP's remaining cases cannot run: a
# starved TCG guest stalls longer than that.
ack_t=${SROCE_RC_ACK_T:-17}
verify_extra=()
read -ra verify_extra <<<"${SROCE_RC_VERIFY_ARGS:-}"
prog=/tmp/rdma_verify
if group verify || [ "$cnp" = 1 ]; then
	# Built ahead of the plan, which takes rdma_verify's count of its cases.
	cc_out=$(cc -O2 -Wall -Wextra -o "$prog" "$SROCE_REPO/scripts/tests/rdma_verify.c" \
		-libverbs 2>&1)
	cc_rc=$?
fi

# Checks per server and family, by group, on the client's guest (pair_run
# reports there: a while b serves, b while a serves).  Verify's client is
# always a, which covers b->a itself: it runs with b serving only.
per_pass=0
per_verify=0
group pingpong && per_pass=$((per_pass + $(words "$pp_list") + 1))
group perftest && per_pass=$((per_pass +
	$(words "$sizes") * $(words "$perf_tools") * 2 + $(words "$deep_tools") +
	$(words "$atomic_bw_ops") + $(words "$atomic_lat_ops")))
group rdmacm && per_pass=$((per_pass + $(words "$rping_sizes") + 1))
if group verify; then
	# one line per case and direction, as rdma_verify prints them
	if ! per_verify=$("$prog" -m "$verify_max" "${verify_extra[@]}" --plan); then
		log "rdma_verify cannot say how many cases it runs; planning none"
		per_verify=0
	fi
	if ! per_windows=$("$prog" -m "$windows_max" -W --plan); then
		log "rdma_verify -W cannot say how many cases it runs; planning none"
		per_windows=0
	fi
	per_verify=$((per_verify + per_windows))
fi
per_cnp=0
if [ "$cnp" = 1 ] && ! per_cnp=$("$prog" -m "$cnp_max" --plan); then
	log "rdma_verify cannot say how many cases it runs; planning none"
	per_cnp=0
fi
passes=0
b_passes=0
for s in $servers; do
	passes=$((passes + $(words "$families")))
	[ "$s" = b ] && b_passes=$((b_passes + $(words "$families")))
done
# Both: ping, the build of rdma_verify, link delete, and with cnp its
# count on this side.  a: the gate, the passes b serves, the self-test,
# cnp's rdma_verify cases.  b: the passes a serves (SROCE_RC_FULL).
plan=$((2 + $(group verify || [ "$cnp" = 1 ] && echo 1 || echo 0) + cnp))
if [ "$SROCE_ROLE" = a ]; then
	plan=$((plan + 1 + b_passes * (per_pass + per_verify) + per_cnp))
	group verify && plan=$((plan + 1))
else
	plan=$((plan + (passes - b_passes) * per_pass))
fi
# a sroce requester's window of WQE copies must grow as it sends 64-byte
# messages 512 deep to b over the wire (qp.c): one check on a
grow_check=0
if [ "$SROCE_ROLE" = a ] && [ "$(pair_driver)" = sroce ] && group perftest &&
   [ "$b_passes" -gt 0 ]; then
	grow_check=1
fi
plan=$((plan + grow_check))
t_plan "$plan"

pair_link
modprobe rdma_ucm || fail "modprobe rdma_ucm"

gid4=$(v4_gid "$SROCE_MY_IP4")
gid6=$(v6_gid "$SROCE_MY_IP6")
wait_for 10 pair_gid_index "$DEV" "$gid4" "RoCE v2" || fail "$DEV: no RoCE v2 GID for $SROCE_MY_IP4"
wait_for 10 pair_gid_index "$DEV" "$gid6" "RoCE v2" || fail "$DEV: no RoCE v2 GID for $SROCE_MY_IP6"
declare -A gidx=(
	[ipv4]=$(pair_gid_index "$DEV" "$gid4" "RoCE v2")
	[ipv6]=$(pair_gid_index "$DEV" "$gid6" "RoCE v2")
)
declare -A peer_ip=([ipv4]=$SROCE_PEER_IP4 [ipv6]=$SROCE_PEER_IP6)
log "$DEV: RoCE v2 GID index ${gidx[ipv4]} (IPv4), ${gidx[ipv6]} (IPv6)"
t_check "[$SROCE_ROLE] $DRV: ping the peer over eth0" retry 5 ping -c 1 -W 3 "$SROCE_PEER_IP4"
barrier linked || fail "the peer never linked its driver"

if group verify || [ "$cnp" = 1 ]; then
	if [ "$cc_rc" = 0 ] && [ -z "$cc_out" ]; then
		t_ok "[$SROCE_ROLE] rdma_verify compiles cleanly"
	else
		printf '%s\n' "$cc_out" | sed 's/^/# /'
		t_fail "[$SROCE_ROLE] rdma_verify compiles cleanly" "cc exit $cc_rc, or warnings"
	fi
fi

# Which guest serves, and so the direction the names show.
direction() {
	[ "$1" = b ] && echo "a->b" || echo "b->a"
}

run_pingpong() {
	local s m sm dir=$1
	for sm in $pp_list; do
		s=${sm%:*}
		m=${sm#*:}
		srv=(ibv_rc_pingpong -d "$DEV" -g "${gidx[$fam]}" -s "$s" -m "$m" -n 20 -r 64 --chk)
		cli=("${srv[@]}" "$server_ip4")
		pair_run "ibv_rc_pingpong $s B mtu $m $fam $dir" 60 tcp:18515
	done
	srv=(ibv_srq_pingpong -d "$DEV" -g "${gidx[$fam]}" -s 4096 -m 4096 -q 4 -n 10 -r 32 --chk)
	cli=("${srv[@]}" "$server_ip4")
	pair_run "ibv_srq_pingpong 4096 B x4 QPs $fam $dir" 60 tcp:18515
}

# perftest: -x picks the GID (so the family); the OOB exchange is TCP over
# IPv4 either way.  -F: no CPU frequency complaints in a VM.  perftest
# checks no data, so the check says only that the run completed.
perf() {
	local name=$1 tool=$2
	shift 2
	srv=("$tool" -d "$DEV" -x "${gidx[$fam]}" -F "$@")
	cli=("${srv[@]}" "$server_ip4")
	pair_run "$name completed (perftest, no data check)" 90 tcp:18515
}

run_perftest() {
	local s dir=$1 t op
	for s in $sizes; do
		for t in $perf_tools; do
			perf "ib_${t}_bw $s B $fam $dir" "ib_${t}_bw" -s "$s" -n 20
		done
	done
	for t in $deep_tools; do
		perf "ib_${t}_bw 64 B tx-depth 512 $fam $dir" "ib_${t}_bw" -s 64 -t 512 -n 2000
	done
	for op in $atomic_bw_ops; do
		perf "ib_atomic_bw $op 8 B $fam $dir" ib_atomic_bw -A "$op" -n 20
	done
	for s in $sizes; do
		for t in $perf_tools; do
			perf "ib_${t}_lat $s B $fam $dir" "ib_${t}_lat" -s "$s" -n 20
		done
	done
	for op in $atomic_lat_ops; do
		perf "ib_atomic_lat $op 8 B $fam $dir" ib_atomic_lat -A "$op" -n 20
	done
}

# rdma_cm picks the device and GID from the addresses.
run_rdmacm() {
	local dir=$1 s
	for s in $rping_sizes; do
		srv=(rping -s -a "$server_ip" -v -V -C 10 -S "$s")
		cli=("$SROCE_REPO/scripts/tests/rping_client.sh" -c -a "$server_ip" -v -V -C 10 -S "$s")
		pair_run "rping -V $s B x10 $fam $dir" 60 cm
	done
	srv=(ucmatose -b "$server_ip" -c 2 -C 10 -S 1000)
	cli=(ucmatose -s "$server_ip" -c 2 -C 10 -S 1000)
	pair_run "ucmatose 2 conns x10 1000 B $fam $dir" 60 cm
}

# Both directions in one run: the program swaps requester and responder.
# Its lines, one per case, are the checks (PR_TAP); the plan has their
# count from rdma_verify --plan.
run_verify() {
	local port=18600
	srv=("$prog" -d "$DEV" -g "${gidx[$fam]}" -p "$port" -t 30 -T "$ack_t")
	cli=("${srv[@]}" -s "$((RANDOM + 1))" -m "$verify_max" -l "$fam" -r a:b
		"${verify_extra[@]}" "${peer_ip[$fam]}")
	PR_RETRIES=1 PR_TAP=rdma_verify pair_run "rdma_verify $fam (all cases, both ways)" \
		600 "tcp:$port"
}

# The same through memory windows: the rkeys each side hands the other are
# its windows', so every WRITE, READ and atomic of every case is checked
# through a window, both ways.
run_verify_windows() {
	local port=18602
	srv=("$prog" -d "$DEV" -g "${gidx[$fam]}" -p "$port" -t 30 -T "$ack_t")
	cli=("${srv[@]}" -s "$((RANDOM + 1))" -m "$windows_max" -W
		-l "$fam windows" -r a:b "${peer_ip[$fam]}")
	PR_RETRIES=1 PR_TAP=rdma_verify pair_run \
		"rdma_verify $fam through memory windows (both ways)" 300 "tcp:$port"
}

# The checker checked: with -x on both sides every message is spoiled as it
# arrives, before the check.  rdma_verify must then fail (exit 1, not an
# abort) and report every case that carries data (any but zero-length and
# atomic ones) as a mismatch, and pass the others; all its cases must
# report.  Its lines are evidence here, not checks.
run_verify_selftest() {
	local port=18601 name="rdma_verify self-test: corruption reported (-x, ipv4)"
	local want line op len n=0 spoiled=0 bad=()
	srv=("$prog" -d "$DEV" -g "${gidx[ipv4]}" -p "$port" -t 30 -x)
	cli=("${srv[@]}" -m "$selftest_max" -l self-test -r a:b "${peer_ip[ipv4]}")
	PR_SERVER=b PR_RETRIES=1 PR_QUIET=1 pair_run "$name" 300 "tcp:$port"
	[ "$SROCE_ROLE" = a ] || return 0
	want=$("$prog" -m "$selftest_max" --plan) || want="unknown"
	while IFS= read -r line; do
		case $line in
		"ok - "* | "not ok - "*) ;;
		*) continue ;;
		esac
		n=$((n + 1))
		read -r op len _ <<<"${line#*ok - }"
		if [ "$len" != 0 ] && [[ $op != atomic_* ]]; then
			spoiled=$((spoiled + 1))
			[[ $line == "not ok - "*"mismatch at byte"* ]] ||
				bad+=("not reported as a mismatch: $line")
		elif [[ $line != "ok - "* ]]; then
			bad+=("failed, but nothing was spoiled: $line")
		fi
	done <"$PR_CLOG"
	log "self-test: $n cases reported, $spoiled of them spoiled; client exit $PR_RC, server exit $PR_ST"
	[ "$n" = "$want" ] || bad+=("$n case lines, want $want")
	[ "$PR_RC" = 1 ] || bad+=("client exit $PR_RC, want 1")
	[ "$PR_ST" = 1 ] || bad+=("server exit $PR_ST, want 1")
	if [ ${#bad[@]} = 0 ]; then
		t_ok "$name"
	else
		printf '#   %s\n' "${bad[@]:0:10}"
		t_fail "$name" "${#bad[@]} problems, the first: ${bad[0]}"
	fi
}

# cnp's run (see cnp_max): the rxe guest marks and captures, the sroce
# guest counts; each checks its own side.
run_cnp() {
	local port=18602 cap=/tmp/rc.cnp.pcapng cap_pid m0 c0 m1 c1 n
	local name="rdma_verify with CE marks and sroce's CNPs (ipv4, both ways)"
	if [ "$DRV" = rxe ]; then
		modprobe -a sch_ingress act_pedit act_csum cls_flower ||
			log "cnp: modprobe of the tc modules failed"
		if ! tc qdisc add dev eth0 clsact ||
		   ! tc filter add dev eth0 egress protocol ip flower ip_proto udp \
			dst_port 4791 action pedit ex munge ip dsfield set 3 retain 3 \
			pipe action csum ip; then
			log "cnp: the marking filter was refused"
		fi
		dumpcap -q -i eth0 -f 'udp dst port 4791 and udp[8] = 0x81' -w "$cap" \
			2>/tmp/rc.cnp.err &
		cap_pid=$!
		wait_for 10 test -s "$cap" || log "cnp: dumpcap: $(cat /tmp/rc.cnp.err)"
	else
		m0=$(counter "$DEV" np_ecn_marked_roce_packets)
		c0=$(counter "$DEV" np_cnp_sent)
	fi
	barrier cnp.ready || fail "the peer never got ready for cnp"
	srv=("$prog" -d "$DEV" -g "${gidx[ipv4]}" -p "$port" -t 30)
	cli=("${srv[@]}" -s "$((RANDOM + 1))" -m "$cnp_max" -l cnp -r a:b "${peer_ip[ipv4]}")
	PR_SERVER=b PR_RETRIES=1 PR_TAP=rdma_verify pair_run "$name" 300 "tcp:$port"
	if [ "$DRV" = rxe ]; then
		sleep 0.5
		kill -INT "$cap_pid"
		wait "$cap_pid"
		tc qdisc del dev eth0 clsact
		n=$(tshark -r "$cap" 2>/dev/null | wc -l)
		t_check "[$SROCE_ROLE] rxe: CNPs arrived ($n) while the data it sent was marked" \
			test "$n" -gt 0
		return
	fi
	m1=$(counter "$DEV" np_ecn_marked_roce_packets)
	c1=$(counter "$DEV" np_cnp_sent)
	t_check "[$SROCE_ROLE] sroce: marks counted ($((m1 - m0))) and CNPs sent ($((c1 - c0))) to rxe" \
		test "$((m1 - m0))" -gt 0 -a "$((c1 - c0))" -gt 0
}

# One short exchange first: if plain RC traffic does not work, each of the
# tests below would only run into its timeout, so stop here, failed.
srv=(ibv_rc_pingpong -d "$DEV" -g "${gidx[ipv4]}" -s 4096 -m 4096 -n 5 -r 16 --chk)
cli=("${srv[@]}" "$SROCE_PEER_IP4")
PR_SERVER=b pair_run "gate: ibv_rc_pingpong 4096 B ipv4 a->b" 60 tcp:18515
[ "$SROCE_ROLE" = a ] && [ "${PR_OK:-0}" != 1 ] && : >"$SROCE_SHARED/rc.gate-failed"
barrier gate || fail "the peer did not reach the gate"
if [ -e "$SROCE_SHARED/rc.gate-failed" ]; then
	# The plan counts them: the shortfall shows they never ran.
	log "rc-pair: the rest not run: basic RC traffic fails (the gate above)"
	servers=
fi

[ "$grow_check" = 1 ] && grown=$(counter "$DEV" sq_copies_grown)
for server in $servers; do
	dir=$(direction "$server")
	export PR_SERVER=$server
	for fam in $families; do
		server_ip4=192.0.2.$([ "$server" = a ] && echo 1 || echo 2)
		if [ "$fam" = ipv4 ]; then
			server_ip=$server_ip4
		else
			server_ip=2001:db8::$([ "$server" = a ] && echo 1 || echo 2)
		fi
		group pingpong && run_pingpong "$dir"
		group perftest && run_perftest "$dir"
		group rdmacm && run_rdmacm "$dir"
		# Verify always has a as its client: it covers b->a itself.
		[ "$server" = b ] && group verify && run_verify && run_verify_windows
	done
done
if [ -n "$servers" ] && [ "$grow_check" = 1 ]; then
	grown=$(($(counter "$DEV" sq_copies_grown) - grown))
	t_check "[$SROCE_ROLE] sroce: the windows of WQE copies grew sending to the peer ($grown doublings)" \
		test "$grown" -ge 1
fi
[ -n "$servers" ] && group verify && run_verify_selftest
[ -n "$servers" ] && [ "$cnp" = 1 ] && run_cnp

barrier finished || log "the peer did not finish"
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
t_done
