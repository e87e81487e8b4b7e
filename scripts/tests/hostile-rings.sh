#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile userspace in one guest: two sroce links on the ends of a veth
# pair in namespaces ns1 and ns2.  scripts/tests/hostile_rings.c writes
# garbage into the rings librxe shares with the kernel (WQE opcodes,
# flags, num_sge, lengths, lkeys, inline sizes, UD ah_num, producer and
# consumer indices out of range) and races a writer thread against the
# kernel consuming them.  Each offending QP or CQ must fail with the right
# completion status or async event, refused calls with an errno.
#
# Meanwhile a bystander process runs ibv_rc_pingpong --chk between the
# same two devices, over and over: every run must succeed.  The rig fails
# the run on any kernel splat.
#
# SROCE_HOSTILE_ROUNDS   race rounds (default 12, 1 s each)
# SROCE_HOSTILE_SEED     the race's seed (default: from the clock, printed)
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

rounds=${SROCE_HOSTILE_ROUNDS:-12}
seed=${SROCE_HOSTILE_SEED:-$(date +%s)}
prog=/tmp/hostile_rings
out=/tmp/hostile_rings.out
by=/tmp/bystander
sroce_load

# Built before the plan: the program tells how many checks it reports.
cc_out=$(cc -O2 -Wall -Wextra -Werror -o "$prog" \
	"$SROCE_REPO/scripts/tests/hostile_rings.c" -libverbs -lpthread 2>&1)
cc_rc=$?
prog_plan=0
if [ "$cc_rc" = 0 ]; then
	prog_plan=$("$prog" --plan -r "$rounds") || fail "hostile_rings --plan failed"
fi
# A loadable module is unloaded at the end (the debug kernel has sroce
# built in).
unload_checks=1
! sroce_builtin || unload_checks=0
# the build, the links, bystander before; the program's; bystander during
# and after, link delete; the unload
t_plan $((1 + 1 + 1 + prog_plan + 2 + 1 + unload_checks))
t_status "hostile_rings compiles cleanly" "$cc_rc" "$cc_out"

# ns1: n1 198.51.100.11 (sroce1), ns2: n2 198.51.100.12 (sroce2)
t_check "two links on a veth pair" veth_links
if ! ga=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2") ||
	! gb=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2"); then
	fail "no RoCE v2 GIDs on the links"
fi

# One bystander run: an RC QP pair of two other processes on the same two
# devices, every message checked (--chk).
pingpong() {
	local port=$1
	ip netns exec ns2 ibv_rc_pingpong -d sroce2 -g "$gb" -p "$port" \
		-s 4096 -n 200 --chk >/dev/null 2>&1 &
	local srv=$! rc
	sleep 0.3
	timeout 30 ip netns exec ns1 ibv_rc_pingpong -d sroce1 -g "$ga" \
		-p "$port" -s 4096 -n 200 --chk 198.51.100.12 >/dev/null 2>&1
	rc=$?
	wait "$srv" || rc=1
	return "$rc"
}

t_check "bystander pingpong before the abuse" pingpong 18515

# Bystander loop until the hostile program is done: counts its runs.
rm -f "$by.stop"
(
	ok=0 bad=0 port=18516
	until [ -e "$by.stop" ]; do
		if pingpong "$port"; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
		port=$((port + 1))
	done
	echo "$ok $bad" >"$by.count"
) &
bypid=$!

log "hostile_rings: $rounds race rounds, seed $seed"
t0=$SECONDS
rc=127
if [ "$cc_rc" = 0 ]; then
	timeout -k 5 300 "$prog" -a sroce1 -A "$ga" -b sroce2 -B "$gb" \
		-r "$rounds" -S "$seed" >"$out" 2>&1
	rc=$?
fi
log "hostile_rings: $((SECONDS - t0)) s"
touch "$by.stop"
wait "$bypid"

# The program's checks, if it was built (t_program).
[ "$cc_rc" != 0 ] || t_program hostile_rings "$out" "$rc"

read -r byok bybad <"$by.count"
log "bystander: $byok pingpong runs passed, $bybad failed during the abuse"
if [ "$bybad" = 0 ] && [ "$byok" -ge 2 ]; then
	t_ok "bystander pingpong unaffected ($byok runs, all passed)"
else
	t_fail "bystander pingpong unaffected" "$byok passed, $bybad failed"
fi
t_check "bystander pingpong after the abuse" pingpong 18600

t_check "link delete after the test" bash -c \
	"ip netns exec ns1 rdma link delete sroce1 && ip netns exec ns2 rdma link delete sroce2"
ip netns del ns1
ip netns del ns2
if [ "$unload_checks" = 1 ]; then
	t_check "module unloads" modprobe -r rdma_sroce
fi
rm -f "$prog" "$out" "$by.stop" "$by.count"

t_done
