#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PDs, MRs and AHs driven through Debian's libibverbs and librxe in one
# guest: scripts/tests/verbs_mr.c is compiled here and run against an sroce
# link on a veth pair whose peer end lives in a namespace (so ARP and ND
# have someone to answer).  Good calls must work, bad ones fail with an
# errno; the rig fails the run on any kernel splat.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

sroce_load

ip netns add peer
ip link add va type veth peer name vb
ip link set vb netns peer
ip link set va up
ip -n peer link set vb up
ip -n peer link set lo up
ip addr add 198.51.100.1/24 dev va
ip -6 addr add 2001:db8:1::1/64 dev va nodad
ip -n peer addr add 198.51.100.2/24 dev vb
ip -n peer -6 addr add 2001:db8:1::2/64 dev vb nodad
peer_ll=fe80::$(mac_guid "$(ip netns exec peer cat /sys/class/net/vb/address)")

# Built before the plan: the program tells how many checks it reports.
prog=/tmp/verbs_mr
cc_out=$(cc -O2 -Wall -o "$prog" "$SROCE_REPO/scripts/tests/verbs_mr.c" -libverbs 2>&1)
cc_rc=$?
prog_plan=0
if [ "$cc_rc" = 0 ]; then
	prog_plan=$("$prog" --plan) || fail "verbs_mr --plan failed"
fi
# link, GID, ARP, ND; the build; the program's; link delete, unload
t_plan $((4 + 1 + prog_plan + 2))

t_check "link add sroce0 on va" rdma link add sroce0 type sroce netdev va
t_check "IPv4 GID as RoCE v2" \
	wait_for 10 has_gid_type sroce0 "$(v4_gid 198.51.100.1)" "RoCE v2"
t_check "peer answers ARP" ping -c 1 -W 5 198.51.100.2
t_check "peer answers ND" ping -6 -c 1 -W 5 2001:db8:1::2
t_status "test program compiles in the guest" "$cc_rc" "$cc_out"

# The program's checks, if it was built (t_program).
if [ "$cc_rc" = 0 ]; then
	out=/tmp/verbs_mr.out
	"$prog" sroce0 198.51.100.1 198.51.100.2 2001:db8:1::2 "$peer_ll" >"$out" 2>&1
	t_program verbs_mr "$out" "$?"
fi

# the objects are gone: the link and the module come down cleanly
t_check "link delete after the test" rdma link delete sroce0
t_check "module unloads" modprobe -r rdma_sroce
ip netns del peer

t_done
