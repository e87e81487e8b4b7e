#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-guest half of `make bench`: link the driver named by SROCE_BENCH_DRV
# (sroce or rxe) to eth0 on both guests and run perftest between them, b
# serving and a measuring.  Guest a prints "BENCH DRV name value unit"
# lines (b those of the wire row), which scripts/bench.sh picks out of
# the consoles.
# SROCE_BENCH_ROWS: a regular expression; only rows whose names match run
# (default: all).
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

drv=${SROCE_BENCH_DRV:-sroce}
iters=${SROCE_BENCH_ITERS:-1000}
bench_link "$drv"

out=/tmp/bench.$drv
: >"$out"

# figure NAME TOOL LOG: the "NAME value unit" line of TOOL's output
figure() {
	local name=$1 tool=$2 log=$3
	case $tool in
	*_bw)	# bytes iterations peak average msgrate
		awk -v n="$name" '$1 ~ /^[0-9]+$/ && NF >= 5 { print n, $4, "MB/s" }' "$log" ;;
	*_lat | */udp_pingpong)	# bytes iterations min max typical ...
		awk -v n="$name" '$1 ~ /^[0-9]+$/ && NF >= 5 { print n, $5, "us" }' "$log" ;;
	iperf3)	# the receiver's line of the sum (of the one stream without -P)
		awk -v n="$name" '/receiver/ { v = $(NF - 2) } END { if (v != "") print n, v, "MB/s" }' "$log" ;;
	esac | tail -n 1
}

# measure NAME SERVER... -- CLIENT...: one measurement, SERVER on b and
# CLIENT on a once b listens; a failing client records "n/a".  The
# longest row takes some 15 s; 120 s ends a run that stalled (rdma_rxe's
# 4 KiB writes over 4 QPs can).
limit=120
n=0
rows=${SROCE_BENCH_ROWS:-.}
measure() {
	local name=$1 srv cli log=/tmp/$1.log
	# both guests skip the same rows, so their barriers stay in step
	[[ $name =~ $rows ]] || return 0
	shift
	split_cmds srv cli "$@"
	set -- "${cli[@]}"
	n=$((n + 1))
	if [ "$SROCE_ROLE" = b ]; then
		timeout "$limit" "${srv[@]}" >/tmp/server.log 2>&1 &
		barrier "srv$n" || return 1
		wait $! || log "$name: server failed: $(tail -n 3 /tmp/server.log)"
		barrier "done$n" || return 1
		return 0
	fi
	barrier "srv$n" || return 1
	if retry 10 timeout "$limit" "$@" >"$log" 2>&1; then
		figure "$name" "$1" "$log" >>"$out"
	else
		log "$name failed: $(tail -n 3 "$log")"
		echo "$name n/a -" >>"$out"
	fi
	barrier "done$n" || return 1
}

# bench NAME TOOL ARGS...: perftest's TOOL, the same ARGS on both sides
bench() {
	local name=$1 tool=$2
	shift 2
	measure "$name" "$tool" -d "$dev" -x "$gidx" -F "$@" -- \
		"$tool" -d "$dev" -x "$gidx" -F "$@" "$SROCE_PEER_IP4"
}

# tcp NAME STREAMS: iperf3 over the same wire for SROCE_BENCH_SECS
# (default 5), the receiver's MB/s
secs=${SROCE_BENCH_SECS:-5}
tcp() {
	measure "$1" iperf3 -s -1 -p 5301 -- \
		iperf3 -c "$SROCE_PEER_IP4" -p 5301 -t "$secs" -P "$2" -f M
}

# The 4 KiB rows run for SROCE_BENCH_SECS_4K (default 4) seconds in
# perftest's duration mode: 1,000 messages of 4 KiB per QP took 0.2 to
# 0.5 s, short enough for the start of a run to decide it (sroce's 4 KiB
# write over 1 QP measures a third more in 1,000 iterations than in
# 10,000), and in 10,000 iterations rdma_rxe's 4-QP runs stall until
# killed in most rounds, where a window ends on time and counts what
# completed.  Here perftest posts 4 x 128 x 4 KiB before it polls,
# which the window outlasts by far (Documentation/design.rst, "Who
# transmits").
secs4k=${SROCE_BENCH_SECS_4K:-4}
for op in write send read; do
	for size in 4k:4096:-D:$secs4k 64k:65536:-n:$iters; do
		# not "n", measure()'s count of barriers
		IFS=: read -r name bytes mode count <<<"$size"
		bench "${op}_bw_${name}_1qp" "ib_${op}_bw" -s "$bytes" "$mode" "$count"
		bench "${op}_bw_${name}_4qp" "ib_${op}_bw" -s "$bytes" "$mode" "$count" -q 4
	done
done
for op in write send; do
	bench "${op}_lat_2b" "ib_${op}_lat" -s 2 -n "$iters"
	bench "${op}_lat_4k" "ib_${op}_lat" -s 4096 -n "$iters"
done
# how the aggregate holds as QPs are added: the same 512 MiB of 64 KiB
# writes over 1, 16 and 256 QPs.  Iterations, not perftest's duration
# mode: that counts only the completions it polls inside its window, and
# perftest posts to every QP before it first polls.  sroce transmits in
# the caller of ibv_post_send, so posting 256 x 64 x 64 KiB took about as
# long as sending it, and a 5 s window saw no completion at all
# (Documentation/design.rst, "Who transmits").  perftest sizes its CQ as
# tx-depth times QPs, within either driver's max_cqe at a depth of 32.
for q in 1 16 256; do
	bench "write_bw_64k_${q}qp_512m" ib_write_bw -s 65536 -q "$q" -t 32 \
		-n $((8192 / q))
done
# What QPs cost, on guest a alone: the kernel memory of an RC QP with
# perftest's default depths (100 of them), created and again connected;
# the same over 1,000, where the slab pages the last QPs leave part-used
# are a tenth of the error (at 100 the figure moves by a KiB a QP with
# the caches' state, whichever driver); and the time to create and
# connect 1,000 in pairs through this device's own GID.
if [ "$SROCE_ROLE" = a ]; then
	prog=/tmp/qp_scale
	if ! cc -O2 -Wall -Wextra -Werror -o "$prog" \
		"$SROCE_REPO/scripts/tests/qp_scale.c" -libverbs >/tmp/qp_scale.log 2>&1; then
		log "qp_scale.c does not build: $(tail -n 3 /tmp/qp_scale.log)"
	fi
	for c in "mem 100 qp_slab_vmalloc_kib KiB" "memrts 100 qp_rts_slab_vmalloc_kib KiB" \
		"mem 1000 qp1000_slab_vmalloc_kib KiB" \
		"memrts 1000 qp1000_rts_slab_vmalloc_kib KiB" \
		"connect 1000 connect_1000qps_s s"; do
		read -r mode count name unit <<<"$c"
		[[ $name =~ $rows ]] || continue
		# Once unmeasured: the first 1,000 QPs' rings are the first touch
		# of some 140 MB of guest memory, which costs either driver about
		# 0.3 s more under TCG (0.82 against 0.50 s for rdma_rxe in a
		# fresh guest), whatever ran before in the guest decides.
		[ "$mode" = connect ] &&
			timeout 300 "$prog" "$dev" "$gidx" "$mode" "$count" >/dev/null 2>&1
		v=$(timeout 300 "$prog" "$dev" "$gidx" "$mode" "$count" 2>/tmp/qp_scale.log |
			awk '{ print $2 }')
		if [ -n "$v" ]; then
			echo "$name $v $unit"
		else
			log "qp_scale $mode $count failed: $(tail -n 3 /tmp/qp_scale.log)"
			echo "$name n/a -"
		fi >>"$out"
	done
fi

# TCP on the same wire, once per driver run: a drift of the host between
# the runs shows in it too
tcp tcp_1stream 1
tcp tcp_4streams 4

# The ceiling over the bandwidth rows: what the wire carries from a to b
# with no transport at all.  pktgen on a sends frames of a 4 KiB RoCE v2
# packet's size (Ethernet, IPv4, UDP, BTH, 4096 bytes, ICRC: 4154) as
# fast as virtio-net takes them, to a UDP port nobody listens on; b
# counts what its eth0 received over 4 s in the middle of the run and
# reports it as 4096-byte payloads in MB/s (2^20 bytes, as perftest's).
# QEMU holds a sender back when the receiving guest's ring is full, so
# this is what both guests and the host between them can move, whatever
# the driver above.  b hands its figure over in its own BENCH line.
wire_frames=4154
wire() {
	local name=wire_4k_payload t0 t1 b0 b1 mac pid
	[[ $name =~ $rows ]] || return 0
	n=$((n + 1))
	if [ "$SROCE_ROLE" = b ]; then
		barrier "wire$n" || return 1
		sleep 1
		t0=$(date +%s%N)
		b0=$(cat /sys/class/net/eth0/statistics/rx_bytes)
		sleep 4
		t1=$(date +%s%N)
		b1=$(cat /sys/class/net/eth0/statistics/rx_bytes)
		barrier "measured$n" && barrier "done$n" || return 1
		# a sender that did not start or did not last leaves a mark
		# before "done", so that no figure of whatever else arrived
		# is taken for the wire's
		[ -e "$SROCE_SHARED/nowire$n.a" ] && b1=$b0
		awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) -v f=$wire_frames -v n=$name \
			'BEGIN { if (b > 0) printf "%s %.2f MB/s\n", n, b / f * 4096 / 1048576 / (t / 1e9)
				else print n, "n/a -" }' >>"$out"
		return 0
	fi
	ping -c 1 -W 5 "$SROCE_PEER_IP4" >/dev/null 2>&1
	mac=$(ip neigh show "$SROCE_PEER_IP4" dev eth0 | awk '{ print $3 }')
	if ! modprobe pktgen || ! pktgen_setup "$mac"; then
		log "$name: pktgen could not be set up (peer MAC '$mac')"
		: >"$SROCE_SHARED/nowire$n.a"
		barrier "wire$n" && barrier "measured$n" && barrier "done$n"
		return
	fi
	echo start >/proc/net/pktgen/pgctrl &
	pid=$!
	# "start" returns only once stopped: gone before b has measured,
	# pktgen sent nothing or not for long enough
	if barrier "wire$n" && barrier "measured$n"; then
		if ! kill -0 "$pid" 2>/dev/null; then
			log "$name: pktgen stopped by itself: $(grep -i result /proc/net/pktgen/eth0)"
			: >"$SROCE_SHARED/nowire$n.a"
		fi
		barrier "done$n"
	fi
	echo stop >/proc/net/pktgen/pgctrl
	wait "$pid"
	echo rem_device_all >/proc/net/pktgen/kpktgend_0
}

# pktgen_setup MAC: pktgen's first thread sends to b's MAC and IPv4
# address, nothing but eth0, until stopped
pktgen_setup() {
	local c
	[[ $1 =~ ^([0-9a-f]{2}:){5}[0-9a-f]{2}$ ]] || return 1
	echo rem_device_all >/proc/net/pktgen/kpktgend_0 &&
		echo "add_device eth0" >/proc/net/pktgen/kpktgend_0 || return 1
	for c in "count 0" "pkt_size $wire_frames" "delay 0" "clone_skb 0" \
		"dst $SROCE_PEER_IP4" "dst_mac $1" "udp_dst_min 5303" "udp_dst_max 5303"; do
		echo "$c" >/proc/net/pktgen/eth0 || return 1
	done
}
wire

# The floor under the latency rows: a round trip between user processes
# through the guests' UDP stacks, halved, both ends polling as perftest
# does; once one datagram each way, and once with each answered by a
# 1-byte acknowledgment first (`_acked`): the four packets of an RC
# round trip of ib_write_lat or ib_send_lat, where each side waits for
# the ACK of its own message.
udp=/tmp/udp_pingpong
cc -O2 -Wall -Wextra -Werror -o "$udp" "$SROCE_REPO/scripts/tests/udp_pingpong.c" ||
	log "udp_pingpong.c does not build"
for size in 2b:2 4k:4096; do
	for name in udp_lat udp_acked_lat; do
		opt=()
		[ "$name" = udp_acked_lat ] && opt=(-a)
		measure "${name}_${size%%:*}" "$udp" "${opt[@]}" -s 5302 -- \
			"$udp" "${opt[@]}" -c "$SROCE_PEER_IP4" 5302 "${size##*:}" "$iters"
	done
done

# b's lines are its wire row's
sed "s/^/BENCH $drv /" "$out"
rdma link delete "$dev"
