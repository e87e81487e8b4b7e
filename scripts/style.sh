#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch --strict over every C file of the driver, its headers and its
# KUnit suites, using the checkpatch of Debian's linux-source-6.12.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-/var/cache/sroce}
cp=$cache/linux-source-6.12/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.12.tar.*' | head -n 1)
	[ -n "$tarball" ] || { echo "style: linux-source-6.12 is not installed" >&2; exit 1; }
	mkdir -p "$cache"
	tar -C "$cache" -xf "$tarball" linux-source-6.12/scripts linux-source-6.12/Documentation/dev-tools
fi
cd "$repo"
mapfile -t files < <(git ls-files '*.c' '*.h')
perl "$cp" --strict --no-tree --quiet --show-types \
	-f "${files[@]}"
