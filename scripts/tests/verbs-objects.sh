#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Verbs objects through Debian's librxe in one guest: completion queues
# (create, limits, resize, notify, the extended API, many at once, the
# mapped ring and garbage written into it) and cleanup at process exit.
# The checks are in verbs_objects.c, compiled here against libibverbs.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

sroce_load

ip link add va type veth peer name vb
ip link set va up
ip link set vb up
t_check "link add sroce0 on va" rdma link add sroce0 type sroce netdev va

prog=/tmp/verbs_objects
t_check "verbs_objects.c compiles against libibverbs" \
	cc -O2 -Wall -Wextra -Werror -o "$prog" \
	"$SROCE_REPO/scripts/tests/verbs_objects.c" -libverbs ||
	{ t_done; exit 1; }

t_check "query_device reports CQ limits" "$prog" sroce0 query
t_check "CQ create, poll empty, destroy (with a PD)" "$prog" sroce0 cq-create
t_check "CQ size limits and comp_vector range" "$prog" sroce0 cq-limits
t_check "CQ resize up and down, refused past max" "$prog" sroce0 cq-resize
t_check "CQ notify arming, no spurious event" "$prog" sroce0 cq-notify
t_check "CQ through ibv_create_cq_ex" "$prog" sroce0 cq-ex
t_check "256 CQs created, resized, destroyed" "$prog" sroce0 cq-many
t_check "CQ ring mapping: ABI header, refused mappings, garbage indices" \
	"$prog" sroce0 cq-mmap
t_check "process exit with live CQs and mappings" "$prog" sroce0 exit-cleanup

# Leaked objects or mappings would make ib_core wait for users forever.
t_check "link delete after all of it" timeout 60 rdma link delete sroce0
t_check "module unloads" timeout 60 modprobe -r rdma_sroce

t_done
