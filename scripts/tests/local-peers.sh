#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two sroce devices of one host reaching each other: r0 on dummy d0 and r1
# on dummy d1, both in the guest's namespace.  A dummy netdev drops what
# it is given, so nothing can come back from a wire: the kernel routes an
# address of d1 through its loopback device, ib_core resolves it to d1's
# MAC, and sroce must hand r0's packets for d1 to r1's receive path, and
# r1's answers to r0's (drivers/sroce/loopback.c).
#
# Over each GID kind (RoCE v2 IPv4 and IPv6, RoCE v1 IPv6) of
# SROCE_LO_KINDS that is one of them: ibv_rc_pingpong and ibv_ud_pingpong
# with --chk and rdma_verify (every RC operation up to 64 KiB, checked
# byte for byte) from r0 to r1; the counters of both devices must show
# the packets looped back, and the dummies must have carried none.
# (rdma_cm between the two is not covered: its listener checks that the
# route back to the client leaves through the netdev the request came in
# on, validate_net_dev() in drivers/infiniband/core/cma.c, and the route
# to an address d0 owns is d0's local route, so ib_core rejects rping
# from d0's address to d1's, reason 28, whatever the device does.)
#
# SROCE_LO_KINDS="..."    GID kinds, space or comma separated (default:
#                         v2-ipv4 v2-ipv6 v1-ipv6)

set -u
# lo_run, v4_gid, v6_gid, and sroce-lib.sh's helpers
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

kinds=
lo_kinds=${SROCE_LO_KINDS:-}
for k in ${lo_kinds//,/ }; do
	case $k in v2-ipv4 | v2-ipv6 | v1-ipv6) kinds+=" $k" ;; esac
done
[ -n "${SROCE_LO_KINDS:-}" ] || kinds="v2-ipv4 v2-ipv6 v1-ipv6"
ip4=(10.77.1.1 10.77.2.1)
ip6=(2001:db8:771::1 2001:db8:772::1)
verify_max=65536
n=50

prog=/tmp/rdma_verify
verify_build "$prog" "$verify_max"

# The build, two ports ACTIVE; per kind two ping-pongs, rdma_verify's
# cases, the counters of each device, the dummies and zero-copy; two
# deletes.
plan=$((3 + $(words "$kinds") * (2 + per_verify + 5) + 2))
t_plan "$plan"
t_status "rdma_verify compiles cleanly" "$([ -z "$cc_out" ] && echo "$cc_rc" || echo 1)" "$cc_out"

sroce_load
modprobe dummy || fail "modprobe dummy"
for i in 0 1; do
	ip link add "d$i" type dummy || fail "ip link add d$i"
	ip addr add "${ip4[$i]}/24" dev "d$i"
	ip addr add "${ip6[$i]}/64" dev "d$i" nodad
	ip link set "d$i" up
	rdma link add "r$i" type sroce netdev "d$i" || fail "rdma link add r$i"
	t_check "r$i on d$i: port ACTIVE" \
		wait_for 20 bash -c "[[ \"\$(devinfo r$i state)\" == PORT_ACTIVE* ]]"
done

kind_gid() {
	local i=$2
	case $1 in
	v2-ipv4) echo "$(v4_gid "${ip4[$i]}") RoCE v2" ;;
	v2-ipv6) echo "$(v6_gid "${ip6[$i]}") RoCE v2" ;;
	v1-ipv6) echo "$(v6_gid "${ip6[$i]}") IB/RoCE v1" ;;
	esac
}

declare -A gidx
for k in $kinds; do
	for i in 0 1; do
		kg=$(kind_gid "$k" "$i")
		wait_for 10 gid_index "r$i" "${kg%% *}" "${kg#* }" ||
			fail "r$i: no ${kg#* } GID for $k"
		gidx[$k.$i]=$(gid_index "r$i" "${kg%% *}" "${kg#* }")
	done
done

tx_of() {
	cat "/sys/class/net/$1/statistics/tx_packets"
}

for k in $kinds; do
	g0=${gidx[$k.0]}
	g1=${gidx[$k.1]}
	lo0=$(counter r0 rx_loopback_packets)
	lo1=$(counter r1 rx_loopback_packets)
	zc=$(counter r0 tx_zerocopy_packets)
	fr=$(counter r1 rx_fragmented_packets)
	tx=$(($(tx_of d0) + $(tx_of d1)))
	for tool in ibv_rc_pingpong ibv_ud_pingpong; do
		size=4096
		[ "$tool" = ibv_ud_pingpong ] && size=1024
		lo_run "$tool $size B x$n --chk over $k, r0 to r1" 60 tcp:18515 \
			-- "$tool" -d r1 -g "$g1" -s "$size" -n "$n" --chk \
			-- "$tool" -d r0 -g "$g0" -s "$size" -n "$n" --chk 127.0.0.1
	done

	LO_QUIET=1 LO_RETRIES=1 lo_run "rdma_verify over $k, r0 to r1" 600 tcp:18600 \
		-- "$prog" -d r1 -g "$g1" -p 18600 -t 60 \
		-- "$prog" -d r0 -g "$g0" -p 18600 -t 60 -s "$RANDOM" -m "$verify_max" \
		-l "$k" -r r0:r1 127.0.0.1
	while IFS= read -r line; do
		case $line in
		"ok - "*) t_ok "rdma_verify r0 to r1 ${line#ok - }" ;;
		"not ok - "*) t_fail "rdma_verify r0 to r1 ${line#not ok - }" ;;
		esac
	done <"$LO_CLIENT_LOG"

	# each ping-pong's packets cross both ways, n at least each way
	lo0=$(($(counter r0 rx_loopback_packets) - lo0))
	lo1=$(($(counter r1 rx_loopback_packets) - lo1))
	tx=$(($(tx_of d0) + $(tx_of d1) - tx))
	t_check "$k: r0 received its peer's packets locally ($lo0)" test "$lo0" -ge $((2 * n))
	t_check "$k: r1 received its peer's packets locally ($lo1)" test "$lo1" -ge $((2 * n))
	t_check "$k: d0 and d1 carried none of them ($tx frames sent)" test "$tx" -lt 20
	# a dummy takes fragments: 4 KiB payloads leave from the MRs' pages
	zc=$(($(counter r0 tx_zerocopy_packets) - zc))
	t_check "$k: r0 sent payloads from the MRs' pages ($zc packets)" test "$zc" -ge "$n"
	# and r1 read them from those fragments, not from a linearised copy
	fr=$(($(counter r1 rx_fragmented_packets) - fr))
	t_check "$k: r1 received payloads in fragments ($fr packets)" test "$fr" -ge "$n"
done

for i in 0 1; do
	t_check "rdma link delete r$i" rdma link delete "r$i"
done
t_done
