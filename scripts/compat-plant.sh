#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Show that a build for KVER catches an API that kernel lacks, used past
# include/sroce/compat.h: plant compat/PROBE.c, a probe compat/expected
# says fails there, at the end of a copy of drivers/sroce/loopback.c, and
# build the copy for KVER.  The build must fail, in that file.  Without
# PROBE, the first probe compat/expected says KVER lacks.
#
# Usage: scripts/compat-plant.sh KVER [PROBE]
# Exit: 0 if the planted build failed in the planted file, 1 if it built,
# 3 if it failed elsewhere, 2 on bad usage.  On a kernel that has the
# probe's facility (PROBE given), 1 is the control: the plant is valid C.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: compat-plant.sh KVER [PROBE]" >&2; exit 2; }
kver=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-/var/cache/sroce}
kdir=/lib/modules/$kver/build
series=$(sh "$repo/scripts/kver.sh" --series-of "$kver")
probe=${2:-$(awk -v s="$series" '
	$1 == "#" && $2 == "probe" { for (i = 3; i <= NF; i++) if ($i == s) c = i - 1; next }
	$1 !~ /^#/ && NF && c && $c == "n" { print $1; exit }' "$repo/compat/expected")}
[ -n "$probe" ] && [ -f "$repo/compat/$probe.c" ] ||
	{ echo "compat-plant: no probe that $kver lacks in compat/expected" >&2; exit 2; }
[ -e "$kdir/Makefile" ] || { echo "compat-plant: no headers for $kver" >&2; exit 2; }

dst=$cache/kbuild/plant-$kver
trap 'rm -rf "$dst"' EXIT
# shellcheck source=scripts/kbuild-sources.sh
. "$repo/scripts/kbuild-sources.sh"
kbuild_sources_copy "$dst"
{
	echo
	echo "/* planted by scripts/compat-plant.sh: compat/$probe.c */"
	grep -v '^// SPDX' "$repo/compat/$probe.c"
} >>"$dst/drivers/sroce/loopback.c"
log=$dst.log
if make -C "$kdir" M="$dst" CONFIG_RDMA_SROCE=m drivers/sroce/loopback.o \
	>"$log" 2>&1; then
	echo "compat-plant: $probe planted in loopback.c built for $kver" >&2
	rm -f "$log"
	exit 1
fi
if ! grep -qE "drivers/sroce/loopback\.c:[0-9]+:[0-9]+: error" "$log"; then
	echo "compat-plant: the planted build for $kver failed, but not in loopback.c:" >&2
	tail -n 20 "$log" >&2
	rm -f "$log"
	exit 3
fi
grep -m 1 -E "drivers/sroce/loopback\.c:[0-9]+:[0-9]+: error" "$log" | sed "s#$dst/##"
rm -f "$log"
echo "$probe"
