#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Forged traffic (Documentation/security.rst).  Three hosts on one bridge
# (namespace nsb): the victim v0 in the guest's own namespace
# (198.51.100.10), its genuine peer n1 in ns1 (.11, sroce1) and a forger
# n3 in ns3 (.13).  rdma_cm is not used, the victim is in the namespace
# rdma_rxe 6.12 works in, so the same rig serves both drivers.
#
# For sroce0 and then rdma_rxe on v0: an rdma_verify WRITE stream from
# sroce1 checks every byte it lands in the victim's memory, and meanwhile
# ns3 sends RDMA WRITE, SEND and READ requests with the victim QP's number
# and PSNs across the 24-bit space (sec_inject.py): from its own address
# as RoCE v2 and RoCE v1, and with the peer's addresses over the other
# encapsulations (RoCE v1 with the peer's IPv4-mapped GID, RoCE v2 over
# IPv6).  For sroce the stream must pass, rx_wrong_peer must count every
# forged packet, the transport counters must not move, and a capture at
# the bridge must show the victim sent no NAK and nothing to the forger.
# For rdma_rxe the same figures are logged, for comparison, not judged.
#
# Then on sroce0: sec_numbers.c draws 10,000 QPNs and 10,000 MR keys,
# which sec_entropy.py judges (its self-test first shows the method
# rejects counters), and checks that deregistered and re-registered keys
# draw a remote access error over a loopback RC connection.
#
# SROCE_SEC_PER=N      forged packets per opcode and kind (default 16)
# SROCE_SEC_CHURN=N    QPs sec_numbers creates and destroys, timed (20000)

set -u
# verify_build, and sroce-lib.sh's helpers
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

per=${SROCE_SEC_PER:-16}
kinds=4
forged=$((kinds * 3 * per))
secs=40
port=18650
sd=/tmp/sec
mkdir -p "$sd"

prog=/tmp/rdma_verify
verify_build "$prog" 65536
nums=/tmp/sec_numbers
nums_out=$(cc -O2 -Wall -Wextra -o "$nums" "$SROCE_REPO/scripts/tests/sec_numbers.c" \
	-libverbs 2>&1)
nums_rc=$?
nums_plan=0
[ "$nums_rc" = 0 ] && nums_plan=$("$nums" --plan)
ENTROPY="/usr/bin/python3 $SROCE_REPO/scripts/tests/sec_entropy.py"
ent_self=$($ENTROPY --selftest --plan)
ent_plan=$($ENTROPY --plan)

# two builds and the rig; the sroce attack's 5; the entropy self-test, the
# program, two files judged; the link deletes
t_plan $((2 + 1 + 5 + ent_self + nums_plan + 2 * ent_plan + 2))
t_status "rdma_verify compiles cleanly" "$([ -z "$cc_out" ] && echo "$cc_rc" || echo 1)" "$cc_out"
t_status "sec_numbers compiles cleanly" "$([ -z "$nums_out" ] && echo "$nums_rc" || echo 1)" \
	"$nums_out"

sroce_load
ip netns add nsb
ip netns add ns1
ip netns add ns3
ip -n nsb link add br0 type bridge
ip link add v0 type veth peer name b0 netns nsb
ip link add n1 netns ns1 type veth peer name b1 netns nsb
ip link add n3 netns ns3 type veth peer name b3 netns nsb
for b in b0 b1 b3; do
	ip -n nsb link set "$b" master br0 up
done
ip -n nsb link set br0 up
ip addr add 198.51.100.10/24 dev v0
ip addr add 2001:db8:1::10/64 dev v0 nodad
ip link set v0 up
for i in 1 3; do
	ip -n "ns$i" addr add "198.51.100.1$i/24" dev "n$i"
	ip -n "ns$i" addr add "2001:db8:1::1$i/64" dev "n$i" nodad
	ip -n "ns$i" link set "n$i" up
	ip -n "ns$i" link set lo up
done
vmac=$(cat /sys/class/net/v0/address)

links_up() {
	# shellcheck disable=SC2016 # the inner bash expands devinfo
	rdma link add sroce0 type sroce netdev v0 &&
		ip netns exec ns1 rdma link add sroce1 type sroce netdev n1 &&
		wait_for 20 bash -c '[[ "$(devinfo sroce0 state)" == PORT_ACTIVE* ]] &&
			[[ "$(devinfo sroce1 state)" == PORT_ACTIVE* ]]' &&
		ip netns exec ns1 ping -c 1 -W 5 198.51.100.10 &&
		ip netns exec ns3 ping -c 1 -W 5 198.51.100.10
}
t_check "sroce0 on v0 and sroce1 on n1 ACTIVE, the bridge passes ping" links_up
wait_for 10 gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2" ||
	fail "sroce1: no RoCE v2 GID for 198.51.100.11"
g1=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2")

# the victim's RC QP that rdma_verify brought to RTS, or nothing
victim_qpn() {
	rdma resource show qp link "$1/1" 2>/dev/null | awk '
		/ type RC / && / state RTS / && / comm rdma_verify/ {
			for (i = 1; i < NF; i++)
				if ($i == "lqpn") { print $(i + 1); exit }
		}'
}

# snap DEV FILE: DEV's counters, "name value" a line; no fork per counter,
# which on the debug kernel took long enough for the stream to end
snap() {
	local f v
	for f in "/sys/class/infiniband/$1/ports/1/hw_counters/"*; do
		read -r v <"$f" && echo "${f##*/} $v"
	done >"$2"
}

# delta BEFORE AFTER NAME
delta() {
	awk -v n="$3" 'FNR == NR { if ($1 == n) b = $2; next }
		$1 == n { print $2 - b; found = 1 } END { if (!found) print "-" }' "$1" "$2"
}

# moved BEFORE AFTER: the counters that moved, "name +d" each
moved() {
	awk 'FNR == NR { b[$1] = $2; next } $2 != b[$1] { printf "%s +%d ", $1, $2 - b[$1] }' \
		"$1" "$2"
}

# attack DEV: the stream to DEV on v0 from sroce1, the forger's packets
# into it, and the capture at the victim's bridge port.  Leaves
# $sd/DEV.{cli,srv,inject,before,after,answers} and sets stream_ok,
# sent, answers_nak and answers_forger.
attack() {
	local dev=$1 gv qpn spid cpid dpid i
	gv=$(gid_index "$dev" "$(v4_gid 198.51.100.10)" "RoCE v2") || {
		log "$dev: no RoCE v2 GID for 198.51.100.10"
		gv=1
	}
	rm -f "$sd/$dev.pcap"
	# only what the victim sends: tshark is slow under TCG
	ip netns exec nsb dumpcap -q -i b0 -s 128 -f "ether src $vmac" -w "$sd/$dev.pcap" \
		2>"$sd/dumpcap.err" &
	dpid=$!
	wait_for 10 test -s "$sd/$dev.pcap"
	timeout $((secs + 90)) "$prog" -d "$dev" -g "$gv" -p "$port" -t 30 \
		>"$sd/$dev.srv" 2>&1 &
	spid=$!
	wait_for 20 bash -c "ss -ltn | grep -q ':$port '"
	timeout $((secs + 90)) ip netns exec ns1 "$prog" -d sroce1 -g "$g1" -p "$port" -t 30 \
		-S "$secs" -m 65536 -s "$RANDOM" -l "$dev" 198.51.100.10 >"$sd/$dev.cli" 2>&1 &
	cpid=$!
	port=$((port + 1))
	qpn=
	for i in $(seq 100); do
		qpn=$(victim_qpn "$dev")
		[ -n "$qpn" ] && break
		sleep 0.2
	done
	# the peer's counters are read first and last, so that every
	# duplicate the victim counts falls inside the peer's window
	snap sroce1 "$sd/$dev.peer.before"
	snap "$dev" "$sd/$dev.before"
	sent=0
	if [ -n "$qpn" ]; then
		log "$dev: victim QPN $qpn; forging $forged packets"
		ip netns exec ns3 python3 "$SROCE_REPO/scripts/tests/sec_inject.py" \
			--ifname n3 --dmac "$vmac" --qpn "$qpn" --per "$per" \
			--kind v2-4,198.51.100.13,198.51.100.10 \
			--kind v1,::ffff:198.51.100.13,::ffff:198.51.100.10 \
			--kind v1,::ffff:198.51.100.11,::ffff:198.51.100.10 \
			--kind v2-6,2001:db8:1::11,2001:db8:1::10 >"$sd/$dev.inject" 2>&1
		sent=$(awk '$1 == "sent" { print $2 }' "$sd/$dev.inject")
		[ "$(victim_qpn "$dev")" = "$qpn" ] ||
			log "$dev: the victim QP was gone when the forger finished"
	else
		log "$dev: no RC QP of rdma_verify in RTS"
	fi
	wait "$spid" "$cpid"
	# the stream's own end; then the victim's answers, if any, are out
	snap "$dev" "$sd/$dev.after"
	snap sroce1 "$sd/$dev.peer.after"
	kill "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	stream_ok=0
	grep -q '^ok - ' "$sd/$dev.cli" && stream_ok=1
	log "$dev: $(grep -m 1 'ok - ' "$sd/$dev.cli")"
	# every RoCE frame the victim sent: IP or GRH destination, AETH syndrome
	tshark -r "$sd/$dev.pcap" -Y "eth.src == $vmac && (udp.dstport == 4791 || eth.type == 0x8915)" \
		-T fields -E separator=/t -e ip.dst -e ipv6.dst -e infiniband.grh.dgid \
		-e infiniband.aeth.syndrome >"$sd/$dev.answers" 2>"$sd/tshark.err" ||
		log "tshark: $(tail -n 3 "$sd/tshark.err")"
	answers_forger=$(grep -c '198\.51\.100\.13' "$sd/$dev.answers")
	# AETH syndrome bits 6..5: 01 RNR NAK, 11 NAK (tshark may print hex)
	answers_nak=$(python3 -c '
import sys
n = 0
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) > 3 and f[3]:
        n += (int(f[3].split(",")[0], 0) >> 5) & 1
print(n)' "$sd/$dev.answers")
	log "$dev: $(wc -l <"$sd/$dev.answers") RoCE frames from the victim," \
		"$answers_nak NAKs, $answers_forger to the forger; counters moved:" \
		"$(moved "$sd/$dev.before" "$sd/$dev.after"); the peer's:" \
		"$(moved "$sd/$dev.peer.before" "$sd/$dev.peer.after")"
	rm -f "$sd/$dev.pcap"
}

# --- sroce ---------------------------------------------------------------------

attack sroce0
t_check "sroce: the stream's every byte checked, beside the forged packets" test "$stream_ok" = 1
t_check "sroce: the forger sent $forged packets" test "${sent:-0}" = "$forged"
wp=$(delta "$sd/sroce0.before" "$sd/sroce0.after" rx_wrong_peer)
t_check "sroce: rx_wrong_peer counted each of them ($wp)" test "$wp" = "$forged"
# No NAK or error for them.  Requests seen twice or early must be the
# peer's own retransmissions: on a loaded guest its ACK timer can expire
# (a cold CI run saw 136 duplicates so), and each resent packet is one
# duplicate at most.
still=
bad=0
for c in seq_nak_sent error_nak_sent qp_errors; do
	d=$(delta "$sd/sroce0.before" "$sd/sroce0.after" "$c")
	still+="$c $d, "
	[ "$d" = 0 ] || bad=1
done
early=0
for c in rx_out_of_sequence rx_duplicate_requests; do
	d=$(delta "$sd/sroce0.before" "$sd/sroce0.after" "$c")
	still+="$c $d, "
	early=$((early + d))
done
retx=$(delta "$sd/sroce0.peer.before" "$sd/sroce0.peer.after" retransmits)
[ "$early" -le "$retx" ] || bad=1
t_check "sroce: the transport never saw them (${still%, }; the peer resent $retx)" \
	test "$bad" = 0
t_check "sroce: no NAK ($answers_nak), nothing to the forger ($answers_forger)" \
	test "$answers_nak" = 0 -a "$answers_forger" = 0

# --- the numbers -----------------------------------------------------------------

sd_self=$sd/entropy.self
$ENTROPY --selftest >"$sd_self" 2>&1
t_program sec_entropy "$sd_self" "$?"
if [ "$nums_rc" = 0 ]; then
	g0=$(gid_index sroce0 "$(v4_gid 198.51.100.10)" "RoCE v2")
	SEC_CHURN=${SROCE_SEC_CHURN:-20000} timeout 600 "$nums" sroce0 "$g0" "$sd" \
		>"$sd/numbers" 2>&1
	t_program sec_numbers "$sd/numbers" "$?"
fi
for f in qpns:24 rkeys:32; do
	$ENTROPY --name "${f%:*}" "${f#*:}" "$sd/${f%:*}.txt" >"$sd/entropy.${f%:*}" 2>&1
	t_program sec_entropy "$sd/entropy.${f%:*}" "$?"
done
t_check "rdma link delete sroce0" rdma link delete sroce0

# --- rdma_rxe, for comparison ------------------------------------------------------

# shellcheck disable=SC2016 # the inner bash expands devinfo
if modprobe rdma_rxe && rdma link add rxe0 type rxe netdev v0 &&
	wait_for 20 bash -c '[[ "$(devinfo rxe0 state)" == PORT_ACTIVE* ]]'; then
	attack rxe0
	log "rdma_rxe: stream $([ "$stream_ok" = 1 ] && echo passed || echo failed)," \
		"forged ${sent:-0}, $answers_nak NAKs, $answers_forger frames to the forger"
	rdma link delete rxe0
else
	log "rdma_rxe: no link on v0, no comparison"
fi

# rdma_rxe's unload unregisters every device of its driver id, sroce1 too
t_check "rdma link delete sroce1" ip netns exec ns1 rdma link delete sroce1
modprobe -r rdma_rxe 2>/dev/null
for n in ns1 ns3 nsb; do
	ip netns del "$n"
done
ip link del v0 2>/dev/null
t_done
