#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC traffic between two guests, over RoCE v2 on IPv4 and on IPv6 GIDs:
# ibv_rc_pingpong and ibv_srq_pingpong (--chk), perftest (send, write,
# read, atomic; bandwidth and latency), rping -V and ucmatose over rdma_cm,
# and rdma_verify (every byte of every RC operation checked, both ways).
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
#                            pingpong perftest rdmacm verify
# SROCE_RC_VERIFY_MAX=N      rdma_verify's largest message (default 16 MiB)
# SROCE_RC_VERIFY_ARGS="..."  more rdma_verify client options (-n 3, -x, -P 0)

# srv and cli are pair_run's arguments.
# shellcheck disable=SC2034
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

full=${SROCE_RC_FULL:-0}
only=${SROCE_RC_ONLY:-pingpong perftest rdmacm verify}
only=${only//,/ }
verify_max=${SROCE_RC_VERIFY_MAX:-16777216}

group() {
	[[ " $only " == *" $1 "* ]]
}

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

if group verify; then
	prog=/tmp/rdma_verify
	t_check "[$SROCE_ROLE] rdma_verify compiles cleanly" bash -c \
		"cc -O2 -Wall -Wextra -o $prog $SROCE_REPO/scripts/tests/rdma_verify.c -libverbs 2>&1 |
		 tee /dev/stderr | { ! grep -q .; }"
	log "rdma_verify built"
fi

if [ "$full" = 1 ]; then
	families="ipv4 ipv6"
	servers="b a"
	sizes="2 4096 65536 1048576"
else
	families="ipv4 ipv6"
	servers="b"
	sizes="2 65536"
fi

# Which guest serves, and so the direction the names show.
direction() {
	[ "$1" = b ] && echo "a->b" || echo "b->a"
}

run_pingpong() {
	local s m sm dir=$1 list="1:1024 4096:4096 65536:4096"
	[ "$full" = 1 ] && list+=" 5000:1024 1048576:4096"
	for sm in $list; do
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
# IPv4 either way.  -F: no CPU frequency complaints in a VM.
perf() {
	local name=$1 tool=$2
	shift 2
	srv=("$tool" -d "$DEV" -x "${gidx[$fam]}" -F "$@")
	cli=("${srv[@]}" "$server_ip4")
	pair_run "$name" 90 tcp:18515
}

run_perftest() {
	local s dir=$1 t
	for s in $sizes; do
		for t in send write read; do
			perf "ib_${t}_bw $s B $fam $dir" "ib_${t}_bw" -s "$s" -n 20
		done
	done
	perf "ib_atomic_bw CMP_AND_SWAP 8 B $fam $dir" ib_atomic_bw -A CMP_AND_SWAP -n 20
	perf "ib_atomic_bw FETCH_AND_ADD 8 B $fam $dir" ib_atomic_bw -A FETCH_AND_ADD -n 20
	for s in $sizes; do
		for t in send write read; do
			perf "ib_${t}_lat $s B $fam $dir" "ib_${t}_lat" -s "$s" -n 20
		done
	done
	perf "ib_atomic_lat FETCH_AND_ADD 8 B $fam $dir" ib_atomic_lat -A FETCH_AND_ADD -n 20
	[ "$full" = 1 ] &&
		perf "ib_atomic_lat CMP_AND_SWAP 8 B $fam $dir" ib_atomic_lat -A CMP_AND_SWAP -n 20
	return 0
}

# rdma_cm picks the device and GID from the addresses.
run_rdmacm() {
	local dir=$1 s
	for s in 64 4096; do
		srv=(rping -s -a "$server_ip" -v -V -C 10 -S "$s")
		cli=(rping -c -a "$server_ip" -v -V -C 10 -S "$s")
		pair_run "rping -V $s B x10 $fam $dir" 60 cm
	done
	srv=(ucmatose -b "$server_ip" -c 2 -C 10 -S 1000)
	cli=(ucmatose -s "$server_ip" -c 2 -C 10 -S 1000)
	pair_run "ucmatose 2 conns x10 1000 B $fam $dir" 60 cm
}

# Both directions in one run: the program swaps requester and responder.
run_verify() {
	local port=18600 line name why extra=()
	read -ra extra <<<"${SROCE_RC_VERIFY_ARGS:-}"
	srv=(/tmp/rdma_verify -d "$DEV" -g "${gidx[$fam]}" -p "$port" -t 30)
	cli=("${srv[@]}" -s "$((RANDOM + 1))" -m "$verify_max" -l "$fam" -r a:b
		"${extra[@]}" "${peer_ip[$fam]}")
	PR_RETRIES=1 pair_run "rdma_verify $fam (all cases, both ways)" 600 "tcp:$port"
	[ "$SROCE_ROLE" = a ] || return 0
	# Its own TAP lines, one per case, count too (_pr_n: pair_run's last).
	# shellcheck disable=SC2154
	while IFS= read -r line; do
		case $line in
		"ok - "*) t_ok "rdma_verify ${line#ok - }" ;;
		"not ok - "*)
			name=${line#not ok - }
			why=${name#* (}
			t_fail "rdma_verify ${name%% (*}" "${why%)}"
			;;
		"# "*) log "rdma_verify: ${line#\# }" ;;
		esac
	done <"$SROCE_SHARED/pr.$_pr_n.client.log"
}

# One short exchange first: if plain RC traffic does not work, each of the
# tests below would only run into its timeout, so stop here, failed.
srv=(ibv_rc_pingpong -d "$DEV" -g "${gidx[ipv4]}" -s 4096 -m 4096 -n 5 -r 16 --chk)
cli=("${srv[@]}" "$SROCE_PEER_IP4")
PR_SERVER=b pair_run "gate: ibv_rc_pingpong 4096 B ipv4 a->b" 60 tcp:18515
[ "$SROCE_ROLE" = a ] && [ "${PR_OK:-0}" != 1 ] && : >"$SROCE_SHARED/rc.gate-failed"
barrier gate || fail "the peer did not reach the gate"
if [ -e "$SROCE_SHARED/rc.gate-failed" ]; then
	[ "$SROCE_ROLE" = a ] &&
		t_fail "rc-pair: the rest" "not run: basic RC traffic fails (the gate above)"
	servers=
fi

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
		[ "$server" = b ] && group verify && run_verify
	done
done

barrier finished || log "the peer did not finish"
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
t_done
