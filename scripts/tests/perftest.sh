#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-guest half of `make bench`: link the driver named by SROCE_BENCH_DRV
# (sroce or rxe) to eth0 on both guests and run perftest between them, b
# serving and a measuring.  Guest a prints "BENCH DRV name value unit"
# lines, which scripts/bench.sh picks out of the console.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

drv=${SROCE_BENCH_DRV:-sroce}
iters=${SROCE_BENCH_ITERS:-1000}
case $drv in
sroce)
	sroce_load
	dev=sroce0
	;;
rxe)
	modprobe ib_uverbs || fail "modprobe ib_uverbs"
	modprobe rdma_rxe || fail "modprobe rdma_rxe"
	dev=rxe0
	;;
*) fail "SROCE_BENCH_DRV must be sroce or rxe" ;;
esac
rdma link add "$dev" type "$drv" netdev eth0 || fail "rdma link add $dev"

# The RoCE v2 GID of our IPv4 address: what perftest's -x wants.
gid=$(v4_gid "$SROCE_MY_IP4")
wait_for 10 has_gid_type "$dev" "$gid" "RoCE v2" || fail "no RoCE v2 GID for $SROCE_MY_IP4"
gidx=$(gid_index "$dev" "$gid" "RoCE v2") || fail "no GID index"

out=/tmp/bench.$drv
: >"$out"

# bench NAME TOOL ARGS...: one measurement; a failing tool records "n/a".
n=0
bench() {
	local name=$1 tool=$2 log
	shift 2
	n=$((n + 1))
	if [ "$SROCE_ROLE" = b ]; then
		timeout 300 "$tool" -d "$dev" -x "$gidx" -F "$@" >/tmp/server.log 2>&1 &
		barrier "srv$n" || return 1
		wait $! || log "$name: server failed: $(tail -n 3 /tmp/server.log)"
		barrier "done$n" || return 1
		return 0
	fi
	barrier "srv$n" || return 1
	log=/tmp/$name.log
	if retry 10 timeout 300 "$tool" -d "$dev" -x "$gidx" -F "$@" \
		"$SROCE_PEER_IP4" >"$log" 2>&1; then
		case $tool in
		*_bw)	# bytes iterations peak average msgrate
			awk -v n="$name" '$1 ~ /^[0-9]+$/ && NF >= 5 { print n, $4, "MB/s" }' "$log" ;;
		*_lat)	# bytes iterations min max typical ...
			awk -v n="$name" '$1 ~ /^[0-9]+$/ && NF >= 5 { print n, $5, "us" }' "$log" ;;
		esac | tail -n 1 >>"$out"
	else
		log "$name failed: $(tail -n 3 "$log")"
		echo "$name n/a -" >>"$out"
	fi
	barrier "done$n" || return 1
}

bench write_bw_64k_1qp ib_write_bw -s 65536 -n "$iters"
bench write_bw_64k_4qp ib_write_bw -s 65536 -n "$iters" -q 4
bench send_bw_64k ib_send_bw -s 65536 -n "$iters"
bench read_bw_64k ib_read_bw -s 65536 -n "$iters"
bench write_lat_2b ib_write_lat -s 2 -n "$iters"
bench send_lat_2b ib_send_lat -s 2 -n "$iters"

[ "$SROCE_ROLE" = b ] || sed "s/^/BENCH $drv /" "$out"
rdma link delete "$dev"
