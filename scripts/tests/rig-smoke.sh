#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the guest rig: writable overlay and /shared, eth0 addressed with
# MTU 4200, and in pair mode the wire (IPv4, IPv6) and a barrier.
#   scripts/guest.sh scripts/tests/rig-smoke.sh
#   scripts/guest.sh --pair scripts/tests/rig-smoke.sh
# --env RIG_SMOKE_FAIL=1 adds a failing check, to test status propagation.
# --env RIG_SMOKE_HANG=1 makes it hang, to test the timeout path.

# shellcheck source=scripts/guest-lib.sh
. "$SROCE_LIB"

log "rig smoke, role $SROCE_ROLE, pair=$SROCE_PAIR, kernel $(uname -r)"

# Straight-line checks: 10 of the guest itself; in a pair 3 pings and 3
# of the barriers and the peer's share; the forced failure if asked for.
plan=10
[ "$SROCE_PAIR" = 1 ] && plan=$((plan + 3 + 3))
[ "${RIG_SMOKE_FAIL:-0}" = 1 ] && plan=$((plan + 1))
t_plan "$plan"

# The overlay lets tests install modules under the host's module tree.
kmod=/lib/modules/$(uname -r)
t_check overlay-writable sh -c "mkdir -p $kmod/updates && touch $kmod/updates/.rig-smoke && rm $kmod/updates/.rig-smoke"
t_check shared-writable sh -c "echo $SROCE_ROLE >$SROCE_SHARED/data.$SROCE_ROLE && grep -qx $SROCE_ROLE $SROCE_SHARED/data.$SROCE_ROLE"
t_check configfs-mounted mountpoint -q /sys/kernel/config
t_check debugfs-mounted mountpoint -q /sys/kernel/debug
t_check tmp-is-tmpfs test "$(stat -f -c %T /tmp)" = tmpfs
t_check eth0-mtu-4200 grep -qx 4200 /sys/class/net/eth0/mtu
t_check eth0-ip4 sh -c "ip -4 -o addr show dev eth0 | grep -q ' $SROCE_MY_IP4/24 '"
t_check eth0-ip6 sh -c "ip -6 -o addr show dev eth0 | grep -q ' $SROCE_MY_IP6/64 '"
t_check ip6-not-tentative sh -c "! ip -6 -o addr show dev eth0 tentative | grep -q ."
t_check repo-visible test -f "$SROCE_REPO/scripts/guest-lib.sh"

if [ "$SROCE_PAIR" = 1 ]; then
	t_check ping-ip4 retry 5 ping -c 2 -W 2 "$SROCE_PEER_IP4"
	t_check ping-ip6 retry 5 ping -6 -c 2 -W 2 "$SROCE_PEER_IP6"
	# Large frames must cross the wire unfragmented.
	t_check ping-ip4-mtu ping -c 1 -W 2 -M "do" -s $((4200 - 28)) "$SROCE_PEER_IP4"
	if barrier smoke; then
		t_ok barrier
		t_check peer-shared-visible grep -qx "$SROCE_PEER_ROLE" "$SROCE_SHARED/data.$SROCE_PEER_ROLE"
	else
		t_fail barrier "peer did not arrive"
	fi
	# Hold on until both have pinged, so neither powers off under the other.
	if barrier smoke-done; then
		t_ok barrier-done
	else
		t_fail barrier-done "peer did not arrive"
	fi
fi

[ "${RIG_SMOKE_FAIL:-0}" = 1 ] && t_fail forced-failure "RIG_SMOKE_FAIL=1"
if [ "${RIG_SMOKE_HANG:-0}" = 1 ]; then
	log "hanging on purpose (RIG_SMOKE_HANG=1)"
	sleep infinity
fi

t_done
