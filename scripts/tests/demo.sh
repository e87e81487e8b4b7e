#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-guest half of `make demo`: load sroce the way a user does, link it
# to eth0, show what a user of a RoCE NIC would look at, and run verbs
# traffic between the two guests with the stock rdma-core tools.
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

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

gidx=$(gid_index sroce0 "$(v4_gid "$SROCE_MY_IP4")" "RoCE v2") || fail "no RoCE v2 GID index"

# serve_and_run NAME LISTEN SERVER... -- CLIENT...: b runs the server in the
# background until it shows LISTEN ("tcp:PORT" or "cm"), a runs the client
# and shows what it prints.
n=0
serve_and_run() {
	local name=$1 listen=$2 srv=() cli=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	n=$((n + 1))
	if [ "$SROCE_ROLE" = b ]; then
		timeout 120 "${srv[@]}" >"/tmp/demo-server.$n" 2>&1 &
		case $listen in
		tcp:*) wait_for 30 _tcp_listening "${listen#tcp:}" ;;
		cm) wait_for 30 _cm_listening ;;
		esac || log "$name: no listener yet"
		barrier "up$n" || fail "peer never reached $name"
		wait
	else
		barrier "up$n" || fail "peer never reached $name"
		printf '\n[a]# %s\n' "$name"
		show timeout 120 "${cli[@]}"
	fi
	barrier "done$n" || fail "peer never finished $name"
}

modprobe rdma_ucm || fail "modprobe rdma_ucm"
serve_and_run "RC ping-pong, 4 KiB messages, every byte checked" tcp:18515 \
	ibv_rc_pingpong -d sroce0 -g "$gidx" -s 4096 -m 4096 -n 200 --chk -- \
	ibv_rc_pingpong -d sroce0 -g "$gidx" -s 4096 -m 4096 -n 200 --chk "$SROCE_PEER_IP4"
serve_and_run "RDMA WRITE bandwidth, 64 KiB messages" tcp:18515 \
	ib_write_bw -d sroce0 -x "$gidx" -F -s 65536 -n 500 -- \
	ib_write_bw -d sroce0 -x "$gidx" -F -s 65536 -n 500 "$SROCE_PEER_IP4"
serve_and_run "RDMA WRITE latency, 2 bytes" tcp:18515 \
	ib_write_lat -d sroce0 -x "$gidx" -F -s 2 -n 500 -- \
	ib_write_lat -d sroce0 -x "$gidx" -F -s 2 -n 500 "$SROCE_PEER_IP4"
# rping_client.sh: Debian's rping may exit 255 after its last ping
serve_and_run "rping over rdma_cm, data verified" cm \
	rping -s -a "$SROCE_MY_IP4" -C 5 -S 64 -V -- \
	"$SROCE_REPO/scripts/tests/rping_client.sh" -c -a "$SROCE_PEER_IP4" -C 5 -S 64 -V -v

if [ "$SROCE_ROLE" = b ]; then
	peer_mac=$(cat "$SROCE_SHARED/mac.a")
	printf '\n[b]# sending one RoCEv2 frame with a corrupted ICRC to guest a\n'
	$INJECT --ifname eth0 --dmac "$peer_mac" --mode v2-4 \
		--src "$SROCE_MY_IP4" --dst "$SROCE_PEER_IP4" --bad-icrc
fi
barrier sent || fail "peer never sent"

if [ "$SROCE_ROLE" = a ]; then
	sleep 1
	show rdma statistic show link sroce0/1
	printf '\n[a] The counters add up what went over the wire above: packets and\n'
	printf '[a] bytes each way, and the corrupted frame dropped as rx_icrc_errors.\n'
fi
barrier "done" || true
rdma link delete sroce0
