#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-guest half of make bench's instruction counts (scripts/icount): the guests run
# under the TCG plugin of scripts/icount (SROCE_GUEST_PLUGIN), which
# counts the instructions each guest executes per translation block and
# writes them out when asked through /shared/.icount.ROLE.  With the
# driver SROCE_BENCH_DRV (sroce or rxe) linked to eth0 on both guests, or
# none for "tcp", each workload runs twice, a short and a long run, each
# between a snapshot before and one after on both guests; the difference
# of the two runs is what the extra bytes or round trips cost, without
# the tools' start-up and connection set-up.  Guest a prints
# "ICOUNT DRV ROW UNITS" lines (the extra KiB or round trips), and each
# guest leaves its /proc/kallsyms in /shared for scripts/icount/report.py.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

drv=${SROCE_BENCH_DRV:-sroce}
# messages of the short and the long run (the long one three times as many)
n64k=${SROCE_ICOUNT_64K:-256}
n4k=${SROCE_ICOUNT_4K:-2048}
nlat=${SROCE_ICOUNT_LAT:-500}
dev=
[ "$drv" = tcp ] || bench_link "$drv"
sysctl -qw kernel.kptr_restrict=0
cat /proc/kallsyms >"$SROCE_SHARED/kallsyms.$SROCE_ROLE"

ctl=$SROCE_SHARED/.icount.$SROCE_ROLE
# snap NAME: the plugin's counters now, into $ctl.NAME
snap() {
	rm -f "$ctl.done"
	echo "$1" >"$ctl.req"
	mv "$ctl.req" "$ctl"
	local i
	for i in $(seq 3000); do
		[ -e "$ctl.done" ] && return 0
		sleep 0.02
	done
	fail "the plugin wrote no snapshot $1"
}

n=0
limit=300
# once NAME SERVER... -- CLIENT...: SERVER on b, CLIENT on a once b
# listens, each guest's own command between its snapshots NAME.0 and
# NAME.1, so that no barrier's polling falls between them
once() {
	local name=$1 srv cli
	shift
	split_cmds srv cli "$@"
	set -- "${cli[@]}"
	n=$((n + 1))
	if [ "$SROCE_ROLE" = b ]; then
		barrier "go$n" || fail "peer gone"
		snap "$name.0"
		timeout "$limit" "${srv[@]}" >/tmp/server.log 2>&1 &
		wait_for 20 bash -c "ss -ltn | grep -q ':$port '"
		barrier "srv$n" || fail "peer gone"
		wait $! || log "$name: server failed: $(tail -n 3 /tmp/server.log)"
		snap "$name.1"
	else
		barrier "go$n" || fail "peer gone"
		barrier "srv$n" || fail "peer gone"
		snap "$name.0"
		timeout "$limit" "$@" >/tmp/client.log 2>&1 ||
			log "$name: client failed: $(tail -n 3 /tmp/client.log)"
		snap "$name.1"
	fi
	barrier "ran$n" || fail "peer gone"
}

# row NAME UNITS SHORT_ARGS -- LONG_ARGS -- SERVER... -- CLIENT...: the
# short and the long run, SHORT_ARGS or LONG_ARGS after both commands;
# UNITS is what the long run moves more than the short one
row() {
	local name=$1 units=$2 short=() long=() srv=() cli=()
	shift 2
	while [ "$1" != -- ]; do short+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do long+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	once "$name.short" "${srv[@]}" "${short[@]}" -- "${cli[@]}" "${short[@]}"
	once "$name.long" "${srv[@]}" "${long[@]}" -- "${cli[@]}" "${long[@]}"
	[ "$SROCE_ROLE" = a ] && echo "ICOUNT $drv $name $units"
}

# perf NAME TOOL SIZE SHORT UNITS: perftest's TOOL of SIZE-byte messages
port=18515
perf() {
	local name=$1 tool=$2 size=$3 count=$4 units=$5
	row "$name" "$units" -n "$count" -- -n $((3 * count)) -- \
		"$tool" -d "$dev" -x "$gidx" -F -s "$size" -- \
		"$tool" -d "$dev" -x "$gidx" -F -s "$size" "$SROCE_PEER_IP4"
}

if [ -n "$dev" ]; then
	# unmeasured: the first run in a fresh guest also pays for first
	# faults and slab growth, which the short run of the first row would
	# otherwise carry alone
	once warmup "ib_write_bw" -d "$dev" -x "$gidx" -F -s 65536 -n "$n64k" -- \
		ib_write_bw -d "$dev" -x "$gidx" -F -s 65536 -n "$n64k" "$SROCE_PEER_IP4"
	perf write_bw_64k ib_write_bw 65536 "$n64k" $((2 * n64k * 64))
	perf send_bw_64k ib_send_bw 65536 "$n64k" $((2 * n64k * 64))
	perf read_bw_64k ib_read_bw 65536 "$n64k" $((2 * n64k * 64))
	perf write_bw_4k ib_write_bw 4096 "$n4k" $((2 * n4k * 4))
	# a round trip each: perftest's -n counts them
	perf write_lat_2 ib_write_lat 2 "$nlat" $((2 * nlat))
	perf send_lat_2 ib_send_lat 2 "$nlat" $((2 * nlat))
else
	# iperf3's server takes no byte count: only the client is given one
	mib=$((n64k / 16))
	port=5301
	srv=(iperf3 -s -1 -p "$port")
	cli=(iperf3 -c "$SROCE_PEER_IP4" -p 5301 -l 64K -n)
	once tcp_64k.short "${srv[@]}" -- "${cli[@]}" "${mib}M"
	once tcp_64k.long "${srv[@]}" -- "${cli[@]}" "$((3 * mib))M"
	[ "$SROCE_ROLE" = a ] && echo "ICOUNT $drv tcp_64k $((2 * mib * 1024))"
fi
barrier "end" || fail "peer gone"
