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
# 2. rdma link delete during that traffic.  sroce lets go of its users
#    (unplug.c): the delete must finish while the process still holds the
#    device, and the process must then stop on its own, not by a signal
#    (rdma_rxe would wait until the process closes the device).
# 3. The same with the netdev removed under the traffic.
# 4. live_user.c holds a device with work pending on it while the device
#    goes by rdma link delete, netdev removal, namespace deletion and
#    module unload: each removal finishes in seconds, the process gets
#    IBV_EVENT_DEVICE_FATAL, every pending WQE completes flushed in the CQ
#    ring it still has mapped, and its later verbs fail cleanly.
# 5. Module unload and reload after the links are gone, repeatedly (not on
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
user=/tmp/live_user
# rounds of steps 2 and 3, four checks each; step 4's removals, four
# checks each; step 5's unload cycles (two checks) and step 4's module
# unload need a loadable module
deletes=(1 2 3 4 5)
removals=(1 2 3)
kinds=(link netdev netns module)
sroce_load
unload_checks=2
if sroce_builtin; then
	unload_checks=0
	kinds=(link netdev netns)
fi
# the builds, the links, step 1's four, one after each loop, the
# namespaces
t_plan $((2 + 1 + 4 + 4 * ${#deletes[@]} + 1 + 4 * ${#removals[@]} + 1 + \
	4 * ${#kinds[@]} + 1 + unload_checks))
t_check "teardown_stress compiles cleanly" bash -c \
	"cc -O2 -Wall -Wextra -Werror -o $prog $SROCE_REPO/scripts/tests/teardown_stress.c -libverbs"
t_check "live_user compiles cleanly" bash -c \
	"cc -O2 -Wall -Wextra -Werror -o $user $SROCE_REPO/scripts/tests/live_user.c -libverbs"

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

# removed WHAT CMD...: CMD takes a device from under teardown_stress
# (started as $pid), in the background; it must finish while the process
# still runs, and the process must then stop by itself within 30 s, with
# status 0 (a signal, from a crash, would make it 128 or more)
removed() {
	local what=$1 del rc=0 n=0
	shift
	"$@" &
	del=$!
	while kill -0 "$del" 2>/dev/null && [ $n -lt 150 ]; do
		sleep 0.2
		n=$((n + 1))
	done
	if kill -0 "$del" 2>/dev/null; then
		t_fail "$what finishes while the user holds the device" "still waiting after 30 s"
		kill -9 "$pid" 2>/dev/null
	else
		t_ok "$what finishes while the user holds the device ($((n / 5)) s)"
	fi
	wait "$del" 2>/dev/null
	timeout 30 tail --pid="$pid" -f /dev/null || kill -9 "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	t_status "the user stops on its own, cleanly, after the $what" "$rc" "status $rc"
}

# --- 2. rdma link delete under traffic ---------------------------------------
for i in "${deletes[@]}"; do
	"$prog" "${devs[@]}" -c -S "$((seed + i))" >/dev/null 2>&1 &
	pid=$!
	sleep 1.$((RANDOM % 10))
	removed "link delete $i under traffic" ip netns exec ns2 rdma link delete sroce2
	t_check "sroce2 is gone ($i)" bash -c '[ ! -e /sys/class/infiniband/sroce2 ]'
	ip netns exec ns2 rdma link add sroce2 type sroce netdev n2
	t_check "link re-added ($i)" wait_for 20 gids
done
t_check "traffic after the link deletes" timeout 60 "$prog" "${devs[@]}" -n 5 -S "$seed"

# --- 3. netdev removal under traffic -----------------------------------------
for i in "${removals[@]}"; do
	"$prog" "${devs[@]}" -c -S "$((seed + 10 + i))" >/dev/null 2>&1 &
	pid=$!
	sleep 1.$((RANDOM % 10))
	removed "netdev removal $i under traffic" ip -n ns1 link del n1
	t_check "both devices went with the veth pair ($i)" wait_for 30 no_devices
	t_check "veth pair and links re-made ($i)" make_links
	gids
done
t_check "traffic after the netdev removals" timeout 60 "$prog" "${devs[@]}" -n 5 -S "$seed"

# --- 4. a user holding the device, with work pending, as it goes -----------
# live_user on sroce1 (the process in the initial namespace, so that
# deleting ns1 does not wait for it to leave)
held() {
	local kind=$1 out=/tmp/live_user.$1 go=/tmp/live_user.$1.go n=0 rc=0 drc=0
	"$user" -d sroce1 -g "${devs[3]}" -t 60 -w "$go" >"$out" 2>&1 &
	pid=$!
	wait_for 30 grep -qx ready "$out" || log "$kind: live_user not ready: $(tr '\n' ' ' <"$out")"
	case $kind in
	link) ip netns exec ns1 rdma link delete sroce1 & ;;
	netdev) ip -n ns1 link del n1 & ;;
	netns) ip netns del ns1 & ;;
	module) modprobe -r rdma_sroce & ;;
	esac
	del=$!
	# a netdev's or namespace's removal unregisters the device after the
	# command has returned: the device must be gone too
	while { kill -0 "$del" 2>/dev/null || [ -e /sys/class/infiniband/sroce1 ]; } &&
		[ $n -lt 100 ]; do
		sleep 0.2
		n=$((n + 1))
	done
	if kill -0 "$del" 2>/dev/null || [ -e /sys/class/infiniband/sroce1 ]; then
		t_fail "$kind: sroce1 went while live_user held it" "still there after 20 s"
	elif ! wait "$del"; then
		t_fail "$kind: sroce1 went while live_user held it" "the removal failed"
	elif ! wait_for 10 grep -qx holding "$out"; then
		# it closes nothing before $go exists: the removal did not
		# wait for the device to be closed
		t_fail "$kind: sroce1 went while live_user held it" \
			"live_user is not holding it: $(tr '\n' ' ' <"$out")"
	else
		t_ok "$kind: sroce1 went in $((n / 5)) s while live_user held it"
	fi
	: >"$go"
	timeout 60 tail --pid="$pid" -f /dev/null || kill -9 "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	wait "$del" 2>/dev/null || drc=$?
	log "$kind: removal status $drc; live_user: $(tr '\n' ' ' <"$out")"
	t_check "$kind: live_user got IBV_EVENT_DEVICE_FATAL" grep -qx 'event DEVICE_FATAL' "$out"
	t_check "$kind: its 12 pending WQEs completed, flushed, in its mapped CQ ring" \
		grep -qx 'flushed 12 of 12' "$out"
	t_status "$kind: its verbs after the removal failed cleanly (post refused, destroy 0), status 0" \
		"$rc" "status $rc: $(grep -v '^ready' "$out" | tr '\n' ' ')"
}
for kind in "${kinds[@]}"; do
	ip netns del ns1 2>/dev/null
	ip netns del ns2 2>/dev/null
	wait_for 30 no_devices || log "$kind: devices left before it"
	if ! make_links || ! gids; then
		log "$kind: the links did not come up"
	fi
	held "$kind"
done
[ "${kinds[-1]}" != module ] || modprobe rdma_sroce

# --- 5. module unload and reload ---------------------------------------------
ip netns del ns1 2>/dev/null
ip netns del ns2 2>/dev/null
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
rm -f "$prog" "$user" /tmp/live_user.*
t_done
