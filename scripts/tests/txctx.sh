#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several transmit contexts (drivers/sroce/tx.c): a guest of two vCPUs,
# the veth rig of sroce-lib.sh with two queues a side (and an mq root on
# n1, whose children count each queue's bytes), so each sroce device
# drains through two contexts, one per netdev queue.
#  - qos/tx_contexts reads 2 on both devices;
#  - ib_write_bw, ib_send_bw and ib_read_bw over 16 QPs each complete
#    (READ responses leave through the responder's contexts);
#  - both of n1's queues carried sroce's packets: 16 flows fall on one
#    queue with a chance of 2^-15;
#  - nothing was resent, nothing arrived out of sequence: a QP's packets
#    go through one context and one netdev queue, in order, whichever CPU
#    built them.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

# the rig; the contexts of each device; three tools; the queues; order
t_plan 8
[ "$(nproc)" -ge 2 ] || fail "needs two vCPUs (SROCE_GUEST_SMP=2), has $(nproc)"
sroce_load
name="a veth pair of two queues a side, sroce1 and sroce2 on it"
# 16 QPs keep up to 2048 packets in flight, over the 1000 a CPU's receive
# backlog holds by default: a drop there would count as out of sequence.
sysctl -qw net.core.netdev_max_backlog=16384 || fail "netdev_max_backlog"
# A veth has no qdisc: mq gives each queue a child that counts its bytes.
# A veth receives on the CPU that sent, where a NIC's RSS steers a flow to
# one CPU: RPS stands in for that, or the wire itself would reorder.
if VETH_QUEUES=2 VETH_MTU=4200 veth_links &&
	ip netns exec ns1 tc qdisc replace dev n1 root handle 1: mq && veth_rps; then
	t_ok "$name"
else
	t_fail "$name" "the rig"
fi
for d in sroce1 sroce2; do
	n=$(cat "/sys/class/infiniband/$d/ports/1/qos/tx_contexts")
	t_status "$d: two transmit contexts" "$([ "$n" = 2 ] && echo 0 || echo 1)" "tx_contexts reads $n"
done
ga=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2")
gb=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2")

port=18950
for tool in ib_write_bw ib_send_bw ib_read_bw; do
	port=$((port + 1))
	# -u 20: 16 QPs keep up to 8 MiB in flight, which a loaded host's
	# guests drain slower than perftest's 67 ms ACK timeout; resends are
	# not what this test is about
	bw=$(ns_bw "$tool" sroce1 "$ga" sroce2 "$gb" "$port" -s 65536 -q 16 -n 100 -u 20)
	t_status "$tool, 16 QPs of 64 KiB messages: completes" "$([ -n "$bw" ] && echo 0 || echo 1)" \
		"$(tail -n 3 "/tmp/ns_${tool#ib_}.cli" | tr '\n' ' ')"
	log "$tool: ${bw:-none} MB/s; so far sroce1 retransmits $(counter sroce1 retransmits), ack_timeouts $(counter sroce1 ack_timeouts)"
done

# bytes each of n1's queues sent, from the children of its mq root
ip netns exec ns1 tc -s qdisc show dev n1 | sed 's/^/# tc: /'
sent=$(ip netns exec ns1 tc -s qdisc show dev n1 |
	awk '/^qdisc/ { child = ($0 ~ /parent /) } child && /Sent/ { printf "%s ", $2 }')
log "n1's queues sent: $sent bytes"
read -ra per <<<"$sent"
busy=0
for b in "${per[@]}"; do
	[ "$b" -gt 1000000 ] && busy=$((busy + 1))
done
t_status "both of n1's queues carried over 1 MB" "$([ "$busy" = 2 ] && echo 0 || echo 1)" "sent: $sent"

log "softnet_stat (processed/dropped per CPU): $(while read -r a b _; do printf '%d/%d ' "0x$a" "0x$b"; done </proc/net/softnet_stat)"
for d in sroce1 sroce2; do
	log "$d: retransmits $(counter $d retransmits), ack_timeouts $(counter $d ack_timeouts)," \
		"rx_duplicate_requests $(counter $d rx_duplicate_requests), seq_nak_received $(counter $d seq_nak_received)"
done
# a reorder shows as a gap at the responder and a resend after its NAK
bad="$(counter sroce1 retransmits)/$(counter sroce2 rx_out_of_sequence)"
t_status "nothing resent, nothing out of sequence" "$([ "$bad" = 0/0 ] && echo 0 || echo 1)" \
	"sroce1 retransmits / sroce2 rx_out_of_sequence: $bad"
ip netns exec ns1 rdma link delete sroce1
ip netns exec ns2 rdma link delete sroce2
