#!/bin/bash
set -u
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"
modprobe ib_uverbs
for i in 1 2; do ip netns add "ns$i"; done
ip link add n1 netns ns1 mtu 4200 numtxqueues 2 numrxqueues 2 type veth \
	peer name n2 netns ns2 mtu 4200 numtxqueues 2 numrxqueues 2
for i in 1 2; do
	ip -n "ns$i" addr add "198.51.100.1$i/24" dev "n$i"
	ip -n "ns$i" link set "n$i" up
	ip -n "ns$i" link set lo up
done
sroce_load
ip netns exec ns1 rdma link add sroce1 type sroce netdev n1
ip netns exec ns2 rdma link add sroce2 type sroce netdev n2
wait_for 20 gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2"
wait_for 20 gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2"
g1=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2")
g2=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2")
port=18800
for mode in norps rps norps rps; do
	m=0; [ $mode = rps ] && m=3
	for i in 1 2; do ip netns exec ns$i sh -c "for q in /sys/class/net/n$i/queues/rx-*; do echo $m > \$q/rps_cpus; done"; done
	ip netns exec ns1 cat /sys/class/net/n1/queues/rx-0/rps_cpus
	port=$((port+1))
	grep NET_RX /proc/softirqs; grep -h "^cpu[01]" /proc/stat
	bw=$(ns_write_bw sroce1 "$g1" sroce2 "$g2" "$port" -s 65536 -q 4 -n 2000)
	grep NET_RX /proc/softirqs; grep -h "^cpu[01]" /proc/stat
	echo "RESULT $(nproc) $mode $bw"
done
