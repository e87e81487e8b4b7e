#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run sroce's KUnit suites in QEMU on the debug kernel: Debian's 6.12
# source with sroce, its suites, KASAN, lockdep and kmemleak built in
# (scripts/guest-kernel.sh, the same image the debug guest tests boot).
# KUnit is off by default in that kernel; kunit.enable=1 turns it on for
# this boot, and kunit_shutdown powers the guest off when the suites end.
# The whole console log goes to LOG (this run's, for check.sh's splat
# scan); kunit.py parse reads it and prints one line per case.
#
# Usage: scripts/kunit.sh [LOG]
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-/var/cache/sroce}
# Without LOG the console log is a temporary file, gone when this ends.
if [ $# -gt 0 ]; then
	log=$1
else
	log=$(mktemp /tmp/sroce-kunit.XXXXXX)
	trap 'rm -f "$log" "$log.tap"' EXIT
fi
timeout=${SROCE_KUNIT_TIMEOUT:-600}

kernel=${SROCE_KERNEL:-$(bash "$repo/scripts/guest-kernel.sh")}
qemu=$(command -v qemu-system-x86_64) || { echo "kunit: no qemu; run scripts/deps.sh" >&2; exit 1; }

# No root file system: the suites run from kernel_init before it would
# be mounted.  panic=-1 turns a crash into an exit instead of a hang.
rc=0
timeout --foreground -k 10 "$timeout" "$qemu" \
	-machine q35 -cpu max -m 1024 -smp 1 -nodefaults -display none \
	-no-reboot -monitor none -serial stdio -kernel "$kernel" \
	-append "console=ttyS0 kunit.enable=1 kunit_shutdown=poweroff panic=-1" \
	</dev/null >"$log" 2>&1 || rc=$?
[ "$rc" != 124 ] || echo "kunit: the guest did not finish within $timeout s" >&2

tr -d '\r' <"$log" >"$log.tap"
prc=0
python3 "$cache/linux-source-6.12/tools/testing/kunit/kunit.py" parse "$log.tap" || prc=$?
rm -f "$log.tap"
[ "$rc" = 0 ] || exit "$rc"
exit "$prc"
