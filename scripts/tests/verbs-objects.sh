#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Verbs objects through Debian's librxe in one guest: completion queues
# (create, limits, resize, notify, the extended API, many at once, the
# mapped ring and garbage written into it), the send doorbell in each QP
# state, and cleanup at process exit.
# The checks are in verbs_objects.c, compiled here against libibverbs.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

sroce_load

ip link add va type veth peer name vb
ip link set va up
ip link set vb up

# Built before the plan: the program lists the checks it has.
prog=/tmp/verbs_objects
cc_out=$(cc -O2 -Wall -Wextra -Werror -o "$prog" \
	"$SROCE_REPO/scripts/tests/verbs_objects.c" -libverbs 2>&1)
cc_rc=$?
cases=()
if [ "$cc_rc" = 0 ]; then
	# no process substitution: the guest has no /dev/fd
	list=$("$prog" --list) || fail "verbs_objects --list failed"
	[ -n "$list" ] || fail "verbs_objects --list printed nothing"
	mapfile -t cases <<<"$list"
fi
# the link, the build, one per case, link delete and unload
t_plan $((1 + 1 + ${#cases[@]} + 2))

t_check "link add sroce0 on va" rdma link add sroce0 type sroce netdev va
t_status "verbs_objects.c compiles against libibverbs" "$cc_rc" "$cc_out"

for c in "${cases[@]}"; do
	t_check "${c#* }" "$prog" sroce0 "${c%% *}"
done

# Leaked objects or mappings would make ib_core wait for users forever.
t_check "link delete after all of it" timeout 60 rdma link delete sroce0
t_check "module unloads" timeout 60 modprobe -r rdma_sroce

t_done
