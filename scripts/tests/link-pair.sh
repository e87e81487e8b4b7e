#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests joined by a wire: each links sroce0 to its eth0, shows both GID
# types for its addresses, and receives the other's RoCEv1 and RoCEv2
# frames through its own hooks.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

# Each guest, straight through: 5 checks of its own link, 5 of the
# peer's frames arriving, 3 of teardown.
t_plan $((5 + 5 + 3))

sroce_load
t_check "[$SROCE_ROLE] link add sroce0 on eth0" rdma link add sroce0 type sroce netdev eth0
t_check "[$SROCE_ROLE] port ACTIVE" \
	wait_for 10 bash -c '[[ "$(devinfo sroce0 state)" == PORT_ACTIVE* ]]'
t_check "[$SROCE_ROLE] active MTU 4096 on a 4200-byte netdev" \
	bash -c '[[ "$(devinfo sroce0 active_mtu)" == 4096* ]]'
t_check "[$SROCE_ROLE] own IPv4 address as RoCE v1 and v2 GIDs" \
	wait_for 10 bash -c ". $SROCE_REPO/scripts/tests/sroce-lib.sh;
		has_gid_type sroce0 $(v4_gid "$SROCE_MY_IP4") 'RoCE v2' &&
		has_gid_type sroce0 $(v4_gid "$SROCE_MY_IP4") 'IB/RoCE v1'"
t_check "[$SROCE_ROLE] ping the peer" ping -c 2 -W 5 "$SROCE_PEER_IP4"
cat /sys/class/net/eth0/address >"$SROCE_SHARED/mac.$SROCE_ROLE"
barrier linked || fail "peer never linked"

# Each side sends a known mix to the other; counters are read afterwards.
peer_mac=$(cat "$SROCE_SHARED/mac.$SROCE_PEER_ROLE")
inject() { $INJECT --ifname eth0 --dmac "$peer_mac" "$@"; }
inject --mode v2-4 --src "$SROCE_MY_IP4" --dst "$SROCE_PEER_IP4" --count 4
inject --mode v2-6 --src "$SROCE_MY_IP6" --dst "$SROCE_PEER_IP6" --count 3
inject --mode v1 --src fe80::1 --dst fe80::2 --count 2
inject --mode v2-4 --src "$SROCE_MY_IP4" --dst "$SROCE_PEER_IP4" --bad-icrc
barrier sent || fail "peer never sent"

t_check "[$SROCE_ROLE] peer's RoCEv2 frames received" \
	wait_for 10 bash -c "[ \$(cat /sys/class/infiniband/sroce0/ports/1/hw_counters/rx_roce_v2_packets) -ge 8 ]"
t_check "[$SROCE_ROLE] peer's RoCEv1 frames received" \
	bash -c "[ \$(cat /sys/class/infiniband/sroce0/ports/1/hw_counters/rx_roce_v1_packets) -eq 2 ]"
t_check "[$SROCE_ROLE] 9 valid packets for unknown QPs" \
	bash -c "[ \$(cat /sys/class/infiniband/sroce0/ports/1/hw_counters/rx_unknown_qp) -eq 9 ]"
t_check "[$SROCE_ROLE] 1 ICRC error" \
	bash -c "[ \$(cat /sys/class/infiniband/sroce0/ports/1/hw_counters/rx_icrc_errors) -eq 1 ]"
t_check "[$SROCE_ROLE] rdma statistic shows the counters" \
	bash -c 'rdma statistic show link sroce0/1 | grep -q "rx_unknown_qp 9"'
barrier counted || fail "peer never counted"

t_check "[$SROCE_ROLE] link delete" rdma link delete sroce0
t_check "[$SROCE_ROLE] relink" rdma link add sroce0 type sroce netdev eth0
t_check "[$SROCE_ROLE] unload with a live link" modprobe -r rdma_sroce
t_done
