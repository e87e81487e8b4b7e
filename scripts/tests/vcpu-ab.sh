#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of `make bench`: what a second CPU gives.  One guest (booted with 1
# or with 2 vCPUs by bench.sh), two namespaces joined by a veth pair with
# two queues each way, and ib_write_bw with 4 QPs of 64 KiB messages from
# ns1 to ns2, over rdma_rxe and over sroce in turn (they cannot share a
# namespace: both want UDP port 4791), SROCE_BENCH_ROUNDS rounds.  The
# two-guest rig cannot show it: its netdev has one queue, and two guests
# of 2 vCPUs would share this machine's two cores.  Prints
# "BENCH vcpu DRIVER NAME value MB/s" lines.
#
# A veth delivers a packet on the CPU that sent it; a multi-queue NIC
# spreads what it receives over CPUs by a hash of the flow (RSS), and a
# RoCEv2 flow's UDP source port differs per QP.  RPS over all the guest's
# CPUs on both ends stands in for that (with one CPU it changes nothing).
# rdma_rxe on 6.12 routes and listens in the initial namespace only
# (rxe_net.c), so its runs here fail: "n/a".  SROCE_BENCH_DRIVERS picks
# the drivers (default "rxe sroce").
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

rounds=${SROCE_BENCH_ROUNDS:-3}
ncpu=$(nproc)
modprobe ib_uverbs || fail "modprobe ib_uverbs"
VETH_MTU=4200 VETH_QUEUES=2 veth_pair || fail "veth pair"
veth_rps || fail "RPS on n1 and n2"

port=18800
# run DRV: link DRV at both ends, one ib_write_bw, unlink; prints MB/s
run() {
	local drv=$1 g1 g2 bw
	port=$((port + 1))
	if [ "$drv" = sroce ]; then
		sroce_load
	else
		modprobe rdma_rxe || fail "modprobe rdma_rxe"
	fi
	ip netns exec ns1 rdma link add "${drv}1" type "$drv" netdev n1 &&
		ip netns exec ns2 rdma link add "${drv}2" type "$drv" netdev n2 ||
		fail "rdma link add $drv"
	wait_for 20 gid_index "${drv}1" "$(v4_gid 198.51.100.11)" "RoCE v2" &&
		wait_for 20 gid_index "${drv}2" "$(v4_gid 198.51.100.12)" "RoCE v2" ||
		fail "$drv: no RoCE v2 GIDs"
	g1=$(gid_index "${drv}1" "$(v4_gid 198.51.100.11)" "RoCE v2")
	g2=$(gid_index "${drv}2" "$(v4_gid 198.51.100.12)" "RoCE v2")
	bw=$(ns_write_bw "${drv}1" "$g1" "${drv}2" "$g2" "$port" -s 65536 -q 4 -n 2000)
	[ -n "$bw" ] || log "$drv failed: $(grep -v 'address\|GID' /tmp/ns_write_bw.cli | tail -n 4 | tr '\n' ' ')"
	rdma link delete "${drv}1"
	rdma link delete "${drv}2"
	if [ "$drv" = sroce ]; then
		modprobe -r rdma_sroce
	else
		modprobe -r rdma_rxe
	fi
	echo "${bw:-n/a}"
}

for r in $(seq "$rounds"); do
	for drv in ${SROCE_BENCH_DRIVERS:-rxe sroce}; do
		bw=$(run "$drv")
		log "round $r, $ncpu vCPU(s): $drv $bw MB/s"
		echo "BENCH vcpu $drv write_bw_64k_4qp_veth_${ncpu}cpu $bw MB/s"
	done
done
