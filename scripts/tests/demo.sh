#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-guest half of `make demo`: load sroce the way a user does, link it
# to eth0, and show what a user of a RoCE NIC would look at.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

show() {
	printf '\n[%s]# %s\n' "$SROCE_ROLE" "$*"
	"$@" 2>&1 | sed "s/^/[$SROCE_ROLE]   /"
}

sroce_load
show rdma link add sroce0 type sroce netdev eth0
wait_for 10 has_gid_type sroce0 "$(v4_gid "$SROCE_MY_IP4")" "RoCE v2" ||
	fail "GIDs never appeared"
cat /sys/class/net/eth0/address >"$SROCE_SHARED/mac.$SROCE_ROLE"
barrier linked || fail "peer never linked"

if [ "$SROCE_ROLE" = a ]; then
	show rdma link show
	show ibv_devices
	show ibv_devinfo -d sroce0
	printf '\n[a]# GID table (sysfs: index, GID, type)\n'
	for f in /sys/class/infiniband/sroce0/ports/1/gids/*; do
		i=${f##*/}
		gid=$(cat "$f" 2>/dev/null) || continue
		[ "$gid" != 0000:0000:0000:0000:0000:0000:0000:0000 ] || continue
		printf '[a]   %3s  %s  %s\n' "$i" "$gid" \
			"$(cat "/sys/class/infiniband/sroce0/ports/1/gid_attrs/types/$i")"
	done
fi
barrier shown || fail "peer never showed"

if [ "$SROCE_ROLE" = b ]; then
	peer_mac=$(cat "$SROCE_SHARED/mac.a")
	printf '\n[b]# sending RoCEv2 (IPv4, IPv6) and RoCEv1 frames to guest a\n'
	$INJECT --ifname eth0 --dmac "$peer_mac" --mode v2-4 \
		--src "$SROCE_MY_IP4" --dst "$SROCE_PEER_IP4" --count 5
	$INJECT --ifname eth0 --dmac "$peer_mac" --mode v2-6 \
		--src "$SROCE_MY_IP6" --dst "$SROCE_PEER_IP6" --count 5
	$INJECT --ifname eth0 --dmac "$peer_mac" --mode v1 \
		--src fe80::2 --dst fe80::1 --count 5
	$INJECT --ifname eth0 --dmac "$peer_mac" --mode v2-4 \
		--src "$SROCE_MY_IP4" --dst "$SROCE_PEER_IP4" --bad-icrc
fi
barrier sent || fail "peer never sent"

if [ "$SROCE_ROLE" = a ]; then
	sleep 1
	show rdma statistic show link sroce0/1
	printf '\n[a] The frames name a QPN no QP has: valid ones are counted as\n'
	printf '[a] rx_unknown_qp, a corrupted ICRC as rx_icrc_errors.  (RC traffic\n'
	printf '[a] over sroce QPs is not shown: the data path is not working yet.)\n'
fi
barrier done || true
rdma link delete sroce0
