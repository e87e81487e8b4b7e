#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every transport over every kind of GID between two guests:
# ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong with --chk over
# RoCE v2 GIDs (IPv4, IPv6) and RoCE v1 GIDs (IPv4-mapped, IPv6,
# link-local).  The type of the GID a QP or AH uses picks the wire format,
# as on a hardware RoCE NIC; on sroce the RoCEv1/RoCEv2 receive counters
# must show that format was used.  The same again over GIDs of an 802.1Q
# VLAN device on eth0 (VLAN 100), whose receive counters must show the
# traffic went through it.  Guest b serves, a is the client.
#
# SROCE_DRV_A, SROCE_DRV_B   sroce (default) or rxe; rxe has no RoCE v1,
#                            so its runs cover the RoCE v2 GIDs only

# srv and cli are pair_run's arguments.
# shellcheck disable=SC2034
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

# The GID kinds, each carrying every transport; known before the link is
# up (pair_driver is what pair_link will load), so the plan comes first.
order="v2-ipv4 v2-ipv6 v1-ipv4 v1-ipv6 v1-linklocal"
order+=" v2-vlan-ipv4 v2-vlan-ipv6 v1-vlan-ipv4 v1-vlan-ipv6"
if [ "$(pair_driver)" = rxe ] || [ "$(pair_driver_of "$SROCE_PEER_ROLE")" = rxe ]; then
	order="v2-ipv4 v2-ipv6 v2-vlan-ipv4 v2-vlan-ipv6"
fi
tools="rc uc ud"

# a: per kind and tool the run, and on sroce (check_format) its wire
# format and, for a VLAN kind, the VLAN device's count.  Both: ping, link
# delete.
plan=2
if [ "$SROCE_ROLE" = a ]; then
	for kind in $order; do
		per=1
		if [ "$(pair_driver)" = sroce ]; then
			per=$((per + 1))
			[[ $kind == *-vlan-* ]] && per=$((per + 1))
		fi
		for tool in $tools; do
			plan=$((plan + per))
		done
	done
fi
t_plan "$plan"

pair_link

# VLAN 100 on eth0: its addresses become GIDs of the device on eth0
pair_vlan
vlan=$VLAN

declare -A gidx
for k in $order; do
	kg=$(pair_kind_gid "$k")
	g=${kg%% *}
	gtype=${kg#* }
	wait_for 10 pair_gid_index "$DEV" "$g" "$gtype" || fail "$DEV: no $gtype GID $g"
	gidx[$k]=$(pair_gid_index "$DEV" "$g" "$gtype")
done
log "$DEV GID indexes: $(for k in $order; do printf '%s=%s ' "$k" "${gidx[$k]}"; done)"
t_check "[$SROCE_ROLE] $DRV: ping the peer over eth0" retry 5 ping -c 1 -W 3 "$SROCE_PEER_IP4"
barrier linked || fail "the peer never linked its driver"

counter() {
	cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

# The format a run used, from this guest's receive counters (sroce only),
# and for a VLAN GID that the VLAN device received it.
check_format() {
	local name=$1 kind=$2 v1_before=$3 v2_before=$4 v1 v2
	[ "$DRV" = sroce ] || return 0
	v1=$(($(counter rx_roce_v1_packets) - v1_before))
	v2=$(($(counter rx_roce_v2_packets) - v2_before))
	case $kind in
	*-vlan-*) t_check "$name: went through $vlan" \
		test "$(cat "/sys/class/net/$vlan/statistics/rx_packets")" -gt "$5" ;;
	esac
	case $kind in
	v1-*) t_check "$name: arrived as RoCEv1 ($v1 v1, $v2 v2 packets)" \
		test "$v1" -gt 0 -a "$v2" = 0 ;;
	v2-*) t_check "$name: arrived as RoCEv2 ($v1 v1, $v2 v2 packets)" \
		test "$v2" -gt 0 -a "$v1" = 0 ;;
	esac
}

server_ip4=192.0.2.2
for kind in $order; do
	for tool in $tools; do
		case $tool in
		ud) size=1024 ;;
		*) size=4096 ;;
		esac
		name="ibv_${tool}_pingpong $size B $kind a->b"
		srv=("ibv_${tool}_pingpong" -d "$DEV" -g "${gidx[$kind]}" -s "$size" -n 20 -r 64 --chk)
		[ "$tool" = ud ] || srv+=(-m 4096)
		cli=("${srv[@]}" "$server_ip4")
		v1=$(counter rx_roce_v1_packets)
		v2=$(counter rx_roce_v2_packets)
		vl=$(cat "/sys/class/net/$vlan/statistics/rx_packets")
		pair_run "$name" 60 tcp:18515
		[ "$SROCE_ROLE" = a ] && check_format "$name" "$kind" "$v1" "$v2" "$vl"
	done
done

barrier finished || true
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
t_done
