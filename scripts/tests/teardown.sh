#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown races in one guest: two sroce links on the ends of a veth pair
# in namespaces ns1 and ns2, netem holding every packet 2 ms in ns1's
# qdisc, so that packets are still queued in the netdev when their QP dies.
#
# 1. teardown_stress.c: hundreds of cycles of connecting RC QPs, putting a
#    burst of WRITEs, SENDs and READs on the wire both ways, and
#    destroying QPs, MRs, CQs and PDs in a random order in the middle of
#    it.  No cycle may fail.
#    The same with both QPs of each cycle on one device, whose packets
#    loop back inside sroce (loopback.c) instead of crossing the veth.
# 2. rdma link delete during that traffic.  sroce has no
#    disassociate_ucontext, so the delete waits for the process to close
#    the device (as with rdma_rxe); killing it must let the delete finish.
# 3. The same with the netdev removed under the traffic.
# 4. Module unload and reload after the links are gone, repeatedly (not on
#    a kernel with sroce built in).
# The rig fails the run on any splat, and scans kmemleak at the end.
#
# SROCE_TEARDOWN_CYCLES   cycles of step 1 (default 1000)
# SROCE_TEARDOWN_SEED     its seed (default: from the clock, printed)
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

cycles=${SROCE_TEARDOWN_CYCLES:-1000}
seed=${SROCE_TEARDOWN_SEED:-$(date +%s)}
prog=/tmp/teardown_stress
# rounds of steps 2 and 3, three checks each; step 4's unload cycles
# (two checks) need a loadable module
deletes=(1 2 3 4 5)
removals=(1 2 3)
sroce_load
unload_checks=2
! sroce_builtin || unload_checks=0
# the build, the links, step 1's four, one after each loop, the namespaces
t_plan $((1 + 1 + 4 + 3 * ${#deletes[@]} + 1 + 3 * ${#removals[@]} + 1 + 1 + unload_checks))
t_check "teardown_stress compiles cleanly" bash -c \
	"cc -O2 -Wall -Wextra -Werror -o $prog $SROCE_REPO/scripts/tests/teardown_stress.c -libverbs"

# ns1: n1 198.51.100.11 (sroce1), ns2: n2 198.51.100.12 (sroce2), with a
# delay that keeps packets in flight at every teardown
make_links() {
	VETH_MTU=4200 veth_links netem delay 2ms limit 10000
}

# The RoCE v2 GIDs of both links, as teardown_stress arguments
gids() {
	local a b
	a=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2") &&
		b=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2") &&
		devs=(-a sroce1 -A "$a" -b sroce2 -B "$b")
}

no_devices() {
	[ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]
}

# --- 1. objects destroyed with traffic in flight ----------------------------
t_check "two links on a veth pair, netem in ns1" make_links
log "teardown_stress: $cycles cycles, seed $seed"
t0=$SECONDS
gids || fail "no RoCE v2 GIDs on the links"
t_check "$cycles cycles of RC traffic torn down mid-flight (seed $seed)" \
	timeout -k 5 600 "$prog" "${devs[@]}" -n "$cycles" -S "$seed"
log "teardown_stress: $((SECONDS - t0)) s"
t_check "sroce2 received the bursts (over 4 packets a cycle)" \
	bash -c "[ \$(counter sroce2 rx_packets) -gt $((cycles * 4)) ]"
lo_cycles=$((cycles / 4))
lo_devs=(-a sroce1 -A "${devs[3]}" -b sroce1 -B "${devs[3]}")
t_check "$lo_cycles cycles torn down mid-flight with both QPs on sroce1 (loopback)" \
	timeout -k 5 600 "$prog" "${lo_devs[@]}" -n "$lo_cycles" -S "$seed"
t_check "sroce1 looped the bursts back (over 4 packets a cycle)" \
	bash -c "[ \$(counter sroce1 rx_loopback_packets) -gt $((lo_cycles * 4)) ]"

# --- 2. rdma link delete under traffic ---------------------------------------
for i in "${deletes[@]}"; do
	"$prog" "${devs[@]}" -c -S "$((seed + i))" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	ip netns exec ns2 rdma link delete sroce2 &
	del=$!
	sleep 0.$((RANDOM % 10))
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	t_check "link delete $i under traffic finishes once the user is gone" \
		timeout 30 bash -c "while kill -0 $del 2>/dev/null; do sleep 0.2; done"
	wait "$del" 2>/dev/null
	t_check "sroce2 is gone ($i)" bash -c '[ ! -e /sys/class/infiniband/sroce2 ]'
	ip netns exec ns2 rdma link add sroce2 type sroce netdev n2
	t_check "link re-added ($i)" wait_for 20 gids
done
t_check "traffic after the link deletes" timeout 60 "$prog" "${devs[@]}" -n 5 -S "$seed"

# --- 3. netdev removal under traffic -----------------------------------------
for i in "${removals[@]}"; do
	"$prog" "${devs[@]}" -c -S "$((seed + 10 + i))" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	ip -n ns1 link del n1 &
	del=$!
	sleep 0.$((RANDOM % 10))
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	t_check "netdev removal $i under traffic finishes once the user is gone" \
		timeout 60 bash -c "while kill -0 $del 2>/dev/null; do sleep 0.2; done"
	wait "$del" 2>/dev/null
	t_check "both devices went with the veth pair ($i)" wait_for 30 no_devices
	t_check "veth pair and links re-made ($i)" make_links
	gids
done
t_check "traffic after the netdev removals" timeout 60 "$prog" "${devs[@]}" -n 5 -S "$seed"

# --- 4. module unload and reload ---------------------------------------------
ip netns del ns1
ip netns del ns2
t_check "namespaces deleted, links gone" wait_for 30 no_devices
if [ "$unload_checks" = 0 ]; then
	log "sroce is built in: no module unload cycles"
else
	n=0
	for i in $(seq 1 10); do
		timeout 60 modprobe -r rdma_sroce || { log "unload cycle $i: unload failed"; break; }
		timeout 60 modprobe rdma_sroce || { log "unload cycle $i: load failed"; break; }
		if ! make_links || ! gids; then
			log "unload cycle $i: the links did not come back"
			break
		fi
		timeout 60 "$prog" "${devs[@]}" -n 3 -S "$((seed + 20 + i))" >/dev/null ||
			{ log "unload cycle $i: traffic failed"; break; }
		ip netns del ns1
		ip netns del ns2
		wait_for 30 no_devices || { log "unload cycle $i: devices left"; break; }
		n=$((n + 1))
	done
	t_check "10 cycles of unload, reload, link, traffic, namespace removal ($n done)" \
		test "$n" = 10
	t_check "module unloads at the end" modprobe -r rdma_sroce
fi
rm -f "$prog"
t_done
