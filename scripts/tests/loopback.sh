#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Same-host traffic: both ends of every connection on one sroce device in
# one guest, as a user trying sroce on a single machine, MPI ranks on one
# host or a local initiator of a storage target would have them.  A frame
# to the device's own MAC never comes back from the wire, so sroce loops
# it back to its own receive path (drivers/sroce/loopback.c).
#
# Over each GID kind (RoCE v2 IPv4 and IPv6, RoCE v1 IPv4-mapped and
# IPv6): ibv_rc_pingpong, ibv_ud_pingpong (each with --chk, polling and
# with completion events), ibv_srq_pingpong --chk and rdma_verify (every
# RC operation and size, checked byte for byte, both ways); the counters
# must show the GID's wire format, rx_loopback_packets at least the
# packets the tools exchanged, and eth0 must not have carried them.  Then
# perftest bandwidth (send, write, read, atomic) over a v2 and a v1 GID,
# and rping -V over rdma_cm to the local IPv4 and IPv6 address.
#
# SROCE_LO_VERIFY_MAX=N   rdma_verify's largest message (default 16 MiB)
# SROCE_LO_KINDS="..."    GID kinds, space or comma separated (default:
#                         v2-ipv4 v2-ipv6 v1-ipv4 v1-ipv6)
#
# NVMe over Fabrics with target and host on one device: nvmeof-pair.sh run
# in a single guest.

set -u
# v6_gid, _tcp_listening, _cm_listening, and sroce-lib.sh's helpers
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

DEV=sroce0
verify_max=${SROCE_LO_VERIFY_MAX:-16777216}
kinds=${SROCE_LO_KINDS:-v2-ipv4 v2-ipv6 v1-ipv4 v1-ipv6}
kinds=${kinds//,/ }
# NAME:TOOL:OPTIONS, each run over every kind
pingpongs="rc:ibv_rc_pingpong:--chk rc-events:ibv_rc_pingpong:-e_--chk"
pingpongs+=" ud:ibv_ud_pingpong:--chk ud-events:ibv_ud_pingpong:-e_--chk"
pingpongs+=" srq:ibv_srq_pingpong:--chk"
perf_kinds="v2-ipv4 v1-ipv6"
perf_tools="ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw"
rping_addrs="$SROCE_MY_IP4 $SROCE_MY_IP6"

words() {
	local -a w
	read -ra w <<<"$1"
	echo "${#w[@]}"
}

# Built ahead of the plan, which takes rdma_verify's count of its cases.
prog=/tmp/rdma_verify
cc_out=$(cc -O2 -Wall -Wextra -o "$prog" "$SROCE_REPO/scripts/tests/rdma_verify.c" \
	-libverbs 2>&1)
cc_rc=$?
per_verify=0
if [ "$cc_rc" = 0 ]; then
	per_verify=$("$prog" -m "$verify_max" --plan) || per_verify=0
fi

# The link, the build; per kind every ping-pong, rdma_verify's cases, the
# wire format, the loopback count and eth0 untouched; perftest; rping;
# the link deleted.
plan=$((2 + $(words "$kinds") * ($(words "$pingpongs") + per_verify + 3)))
plan=$((plan + $(words "$perf_kinds") * $(words "$perf_tools")))
plan=$((plan + $(words "$rping_addrs") + 1))
t_plan "$plan"

t_status "rdma_verify compiles cleanly" "$([ -z "$cc_out" ] && echo "$cc_rc" || echo 1)" "$cc_out"

sroce_load
modprobe rdma_ucm || fail "modprobe rdma_ucm"
rdma link add "$DEV" type sroce netdev eth0 || fail "rdma link add"
t_check "$DEV port ACTIVE" wait_for 20 bash -c "[[ \"\$(devinfo $DEV state)\" == PORT_ACTIVE* ]]"

kind_gid() {
	case $1 in
	v2-ipv4) echo "$(v4_gid "$SROCE_MY_IP4") RoCE v2" ;;
	v2-ipv6) echo "$(v6_gid "$SROCE_MY_IP6") RoCE v2" ;;
	v1-ipv4) echo "$(v4_gid "$SROCE_MY_IP4") IB/RoCE v1" ;;
	v1-ipv6) echo "$(v6_gid "$SROCE_MY_IP6") IB/RoCE v1" ;;
	esac
}

declare -A gidx
for k in $kinds; do
	kg=$(kind_gid "$k")
	wait_for 10 gid_index "$DEV" "${kg%% *}" "${kg#* }" || fail "$DEV: no ${kg#* } GID for $k"
	gidx[$k]=$(gid_index "$DEV" "${kg%% *}" "${kg#* }")
done
log "$DEV GID indexes: $(for k in $kinds; do printf '%s=%s ' "$k" "${gidx[$k]}"; done)"

# lo_run NAME SECS LISTEN -- SERVER... -- CLIENT...: both ends here, the
# server first (LISTEN: tcp:PORT or cm, what it shows once ready).  One
# check for the pair; with LO_QUIET=1 none when both pass, as the client's
# own TAP lines (LO_CLIENT_LOG) are the checks then, and a failing line
# only when the client reported no failure of its own.
lo_run() {
	local name=$1 secs=$2 listen=$3 srv=() cli=() spid rc st base=/tmp/lo.run
	shift 3
	[ "$1" = -- ] && shift
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	timeout -k 5 "$((secs + 10))" "${srv[@]}" >"$base.srv" 2>&1 &
	spid=$!
	case $listen in
	tcp:*) wait_for 30 _tcp_listening "${listen#tcp:}" ;;
	cm) wait_for 30 _cm_listening ;;
	esac || log "$name: the server shows no listener yet; trying anyway"
	retry "${LO_RETRIES:-3}" timeout -k 5 "$secs" "${cli[@]}" >"$base.cli" 2>&1
	rc=$?
	wait "$spid"
	st=$?
	LO_CLIENT_LOG=$base.cli
	if [ "$rc" = 0 ] && [ "$st" = 0 ]; then
		[ "${LO_QUIET:-0}" = 1 ] || t_ok "$name"
		return 0
	fi
	echo "# client: ${cli[*]}"
	tail -n 15 "$base.cli" | sed 's/^/#   /'
	echo "# server: ${srv[*]}"
	tail -n 15 "$base.srv" | sed 's/^/#   /'
	if [ "${LO_QUIET:-0}" != 1 ] || ! grep -q '^not ok - ' "$base.cli"; then
		t_fail "$name" "client exit $rc, server exit $st"
	fi
	return 1
}

eth0_tx() {
	cat /sys/class/net/eth0/statistics/tx_packets
}

n=50
for k in $kinds; do
	g=${gidx[$k]}
	v1=$(counter "$DEV" rx_roce_v1_packets)
	v2=$(counter "$DEV" rx_roce_v2_packets)
	lo=$(counter "$DEV" rx_loopback_packets)
	tx=$(eth0_tx)
	for pp in $pingpongs; do
		name=${pp%%:*}
		rest=${pp#*:}
		tool=${rest%%:*}
		read -ra opts <<<"${rest#*:}"
		opts=("${opts[@]//_/ }")
		read -ra opts <<<"${opts[*]}"
		size=4096
		[ "$tool" = ibv_ud_pingpong ] && size=1024
		args=(-d "$DEV" -g "$g" -s "$size" -n "$n" "${opts[@]}")
		[ "$tool" = ibv_srq_pingpong ] && args+=(-q 4)
		lo_run "$name ping-pong $size B x$n over $k, one device" 60 tcp:18515 \
			-- "$tool" "${args[@]}" -- "$tool" "${args[@]}" 127.0.0.1
	done

	LO_QUIET=1 LO_RETRIES=1 lo_run "rdma_verify over $k" 900 tcp:18600 \
		-- "$prog" -d "$DEV" -g "$g" -p 18600 -t 60 \
		-- "$prog" -d "$DEV" -g "$g" -p 18600 -t 60 -s "$RANDOM" -m "$verify_max" \
		-l "$k" -r requester:responder 127.0.0.1
	while IFS= read -r line; do
		case $line in
		"ok - "*) t_ok "rdma_verify ${line#ok - }" ;;
		"not ok - "*) t_fail "rdma_verify ${line#not ok - }" ;;
		esac
	done <"$LO_CLIENT_LOG"

	v1=$(($(counter "$DEV" rx_roce_v1_packets) - v1))
	v2=$(($(counter "$DEV" rx_roce_v2_packets) - v2))
	lo=$(($(counter "$DEV" rx_loopback_packets) - lo))
	tx=$(($(eth0_tx) - tx))
	case $k in
	v1-*) t_check "$k: RoCEv1 only ($v1 v1, $v2 v2)" test "$v1" -gt 0 -a "$v2" = 0 ;;
	v2-*) t_check "$k: RoCEv2 only ($v1 v1, $v2 v2)" test "$v2" -gt 0 -a "$v1" = 0 ;;
	esac
	# every ping-pong exchanged at least 2n packets
	t_check "$k: rx_loopback_packets counts them ($lo)" \
		test "$lo" -ge $(($(words "$pingpongs") * 2 * n)) -a "$lo" = $((v1 + v2))
	t_check "$k: eth0 carried none of them ($tx frames sent)" test "$tx" -lt 20
done

for k in $perf_kinds; do
	for tool in $perf_tools; do
		args=(-d "$DEV" -x "${gidx[$k]}" -F -n 200)
		[ "$tool" = ib_atomic_bw ] || args+=(-s 65536)
		lo_run "$tool over $k, one device, completed (perftest, no data check)" 90 tcp:18515 \
			-- "$tool" "${args[@]}" -- "$tool" "${args[@]}" 127.0.0.1
	done
done

for a in $rping_addrs; do
	lo_run "rping -V 4096 B x10 to $a, one device" 60 cm \
		-- rping -s -a "$a" -v -V -C 10 -S 4096 -- rping -c -a "$a" -v -V -C 10 -S 4096
done

t_check "rdma link delete $DEV" rdma link delete "$DEV"
t_done
