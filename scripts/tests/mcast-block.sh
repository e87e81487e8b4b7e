#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK, in one guest.  Only a kernel
# consumer can set it (librxe, which userspace uses for sroce, passes no
# create flags), so a test fixture (mcast_lb/, built here against the
# guest's kernel headers) is that consumer: two UD QPs of sroce0 join
# 239.1.2.3 over RoCE v2, A with the flag and B without.  A's datagram
# reaches B and not A, B's reaches both, and an RC QP with the flag is
# refused.  The fixture runs its checks while it loads and logs a TAP line
# for each; they are reported again here.  A run told to expect another
# payload shows its payload check fails, and one with A created without
# the flag that the check on A fails, alone.  loopback.sh covers multicast
# loopback without the flag, from userspace.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

fixture_checks=6
# the build, the link, the load; the fixture's; the unload, the two
# self-tests, the link's delete
t_plan $((3 + fixture_checks + 4))

fix=/tmp/mcast_lb
rm -rf "$fix"
cp -r "$SROCE_REPO/scripts/tests/mcast_lb" "$fix"
out=$(make -s -C "/lib/modules/$(uname -r)/build" M="$fix" modules 2>&1)
t_status "the fixture builds" $? "$out" || { t_done; exit; }

sroce_load
rdma link add sroce0 type sroce netdev eth0 || fail "rdma link add sroce0"
# shellcheck disable=SC2016 # the inner bash expands devinfo
t_check "sroce0 is active with the RoCE v2 GID of $SROCE_MY_IP4" \
	wait_for 20 bash -c '[[ "$(devinfo sroce0 state)" == PORT_ACTIVE* ]] &&
		gid_index sroce0 "$(v4_gid "$SROCE_MY_IP4")" "RoCE v2" >/dev/null'
gidx=$(gid_index sroce0 "$(v4_gid "$SROCE_MY_IP4")" "RoCE v2") || gidx=-1

dmesg -C
t_check "the fixture runs on sroce0 (GID index $gidx)" \
	insmod "$fix/mcast_lb.ko" dev=sroce0 gid_index="$gidx" group=239.1.2.3
# Its lines, in its order; a missing one fails as itself.
mapfile -t lines < <(dmesg | sed -n 's/^\[[^]]*\] mcast_lb: \(\(not \)\?ok - .*\)$/\1/p')
dmesg | grep -F "mcast_lb:" | grep -vE "mcast_lb: (not )?ok - " | sed 's/^/# /'
for ((i = 0; i < fixture_checks; i++)); do
	line=${lines[i]:-}
	case $line in
	"ok - "*) t_ok "${line#ok - }" ;;
	"not ok - "*) t_fail "${line#not ok - }" "the fixture says so" ;;
	*) t_fail "fixture check $((i + 1)) of $fixture_checks" "not reported" ;;
	esac
done
[ "${#lines[@]}" -le "$fixture_checks" ] ||
	t_fail "the fixture reports $fixture_checks checks" "it reported ${#lines[@]}"
t_check "the fixture unloads" rmmod mcast_lb

# The payload check itself: told to expect another payload, the fixture
# must count each of the three datagrams that arrive as bad.
dmesg -C
insmod "$fix/mcast_lb.ko" dev=sroce0 gid_index="$gidx" group=239.1.2.3 spoil=1
bad=$(dmesg | grep -cE "mcast_lb: not ok - .* \(0, 1 bad\)")
rmmod mcast_lb 2>/dev/null
if [ "$bad" = 3 ]; then
	t_ok "with spoil=1 the fixture counts all 3 datagrams bad"
else
	dmesg | grep -F "mcast_lb:" | sed 's/^/# /'
	t_fail "with spoil=1 the fixture counts all 3 datagrams bad" "$bad of 3"
fi
# The check on A itself: created without the flag, A must get its own
# datagram, and that check alone must fail.
dmesg -C
insmod "$fix/mcast_lb.ko" dev=sroce0 gid_index="$gidx" group=239.1.2.3 noblock=1
nots=$(dmesg | grep -E "mcast_lb: not ok - ")
rmmod mcast_lb 2>/dev/null
if [ "$(grep -c . <<<"$nots")" = 1 ] &&
   grep -qF "not ok - A, which blocks its multicast loopback, does not (1, 0 bad)" <<<"$nots"; then
	t_ok "with noblock=1 A gets its own datagram, and only that check fails"
else
	dmesg | grep -F "mcast_lb:" | sed 's/^/# /'
	t_fail "with noblock=1 A gets its own datagram, and only that check fails" \
		"${nots:-no check failed}"
fi
t_check "rdma link delete sroce0" rdma link delete sroce0
t_done
