#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of `make bench`: what zero-copy transmit changes, in one guest.
# The two-guest rig's virtio-net has no scatter-gather, so there sroce
# always copies; here sroce1 (namespace ns1) sends to sroce2 (ns2) over a
# veth pair, which takes fragments, and the sender's veth end has
# scatter-gather turned off and on in turn: off, sroce copies every
# payload as before zero-copy; on, payloads of 256 bytes or more go out
# from the MR's pages.  SROCE_BENCH_ROUNDS rounds of each; prints
# "BENCH zc NAME-copy|NAME-zc value unit" lines, and the
# tx_zerocopy_packets each run added (which must be 0 with it off).
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

rounds=${SROCE_BENCH_ROUNDS:-3}
sroce_load
VETH_MTU=4200 veth_links || fail "veth rig"
g1=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2") || fail "no GID on sroce1"
g2=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2") || fail "no GID on sroce2"

port=18700
# run NAME SIZE ITERS: ib_write_bw of ITERS SIZE-byte messages, ns1 to
# ns2; prints "NAME MB/s zerocopy-packets-added"
run() {
	local zc0 bw
	port=$((port + 1))
	zc0=$(counter sroce1 tx_zerocopy_packets)
	bw=$(ns_write_bw sroce1 "$g1" sroce2 "$g2" "$port" -s "$2" -n "$3")
	echo "$1 ${bw:-n/a} $(($(counter sroce1 tx_zerocopy_packets) - zc0))"
}

for r in $(seq "$rounds"); do
	for sg in off on; do
		ip netns exec ns1 ethtool -K n1 sg "$sg" >/dev/null 2>&1 ||
			fail "ethtool -K n1 sg $sg"
		mode=zc
		[ "$sg" = off ] && mode=copy
		# a second or two each: 80 MB at 4 KiB, 192 MiB at 64 KiB
		for size in 4k:4096:20000 64k:65536:3072; do
			IFS=: read -r tag bytes n <<<"$size"
			read -r name bw zc <<<"$(run "write_bw_${tag}_veth" "$bytes" "$n")"
			log "round $r, scatter-gather $sg: $name $bw MB/s, $zc zero-copy packets"
			echo "BENCH zc $name-$mode $bw MB/s"
			echo "BENCH zc zerocopy_packets_$tag-$mode $zc packets"
		done
	done
done
