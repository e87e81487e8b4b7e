#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-guest half of `make profile`: where the CPU goes in both guests
# while perftest's ib_write_bw runs over sroce (SROCE_PROFILE_SIZE bytes,
# default 65536), as perf's software clock sees it: TCG has no hardware
# counters, but cpu-clock samples work.  Each guest prints its top
# symbols as "PROFILE role percent symbol" lines, and with
# SROCE_PROFILE_CALLERS=sym,sym the call chains that lead to those.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

size=${SROCE_PROFILE_SIZE:-65536}
secs=${SROCE_PROFILE_SECS:-10}
command -v perf >/dev/null || fail "no perf on the host's root (make deps installs linux-perf)"
sroce_load
rdma link add sroce0 type sroce netdev eth0 || fail "rdma link add sroce0"
gid=$(v4_gid "$SROCE_MY_IP4")
wait_for 10 has_gid_type sroce0 "$gid" "RoCE v2" || fail "no RoCE v2 GID for $SROCE_MY_IP4"
gidx=$(gid_index sroce0 "$gid" "RoCE v2") || fail "no GID index"

# perf first: under TCG its start takes many seconds (it reads every
# kernel symbol), and it runs its command only once it samples
rm -f /tmp/perf.ready
perf record -q -a -g -e cpu-clock -F 997 -o /tmp/perf.data -- \
	sh -c "touch /tmp/perf.ready; sleep $((secs + 4))" 2>/tmp/perf.err &
perf=$!
wait_for 120 test -e /tmp/perf.ready || fail "perf record never started: $(tail -n 3 /tmp/perf.err)"
args=(-d sroce0 -x "$gidx" -F -s "$size" -D "$secs")
if [ "$SROCE_ROLE" = b ]; then
	timeout 120 ib_write_bw "${args[@]}" >/tmp/bw.log 2>&1 &
	bw=$!
	barrier listening || fail "peer gone"
else
	barrier listening || fail "peer gone"
	timeout 120 ib_write_bw "${args[@]}" "$SROCE_PEER_IP4" >/tmp/bw.log 2>&1 &
	bw=$!
fi
wait "$bw" || log "ib_write_bw: $(tail -n 3 /tmp/bw.log)"
wait "$perf" || fail "perf record: $(tail -n 3 /tmp/perf.err)"
[ "$SROCE_ROLE" = a ] && awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print "PROFILE bw", $4, "MB/s" }' /tmp/bw.log
perf report -q -i /tmp/perf.data --stdio --no-children -g none --sort sym --percent-limit 0.8 2>/dev/null |
	awk -v r="$SROCE_ROLE" 'NF >= 3 { sub(/%/, "", $1); $2 = ""; print "PROFILE", r, $0 }'
if [ -n "${SROCE_PROFILE_CALLERS:-}" ]; then
	perf report -q -i /tmp/perf.data --stdio --no-children --sort sym \
		-S "$SROCE_PROFILE_CALLERS" -g caller,2,callee --percent-limit 1 2>/dev/null |
		sed "s/^/PROFILE $SROCE_ROLE chain /"
fi
barrier reported || true
rdma link delete sroce0
