#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build rdma_sroce.ko for another kernel than the checkout's own build,
# without touching that one: Kbuild builds an external module inside its
# source directory, so the sources are copied under $SROCE_CACHE first
# (kbuild-sources.sh).  Prints the module's path.
#
# Usage: scripts/build-for.sh KVER [MAKE ARGS...]   e.g. W=1
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: build-for.sh KVER [MAKE ARGS...]" >&2; exit 2; }
kver=$1
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-/var/cache/sroce}
kdir=/lib/modules/$kver/build
src=$cache/kbuild/$kver

[ -e "$kdir/Makefile" ] || { echo "build-for: no headers for $kver in $kdir" >&2; exit 1; }
# shellcheck source=scripts/kbuild-sources.sh
. "$repo/scripts/kbuild-sources.sh"
kbuild_sources_copy "$src"
make -C "$kdir" M="$src" CONFIG_RDMA_SROCE=m -j"$(nproc)" "$@" modules >&2
echo "$src/rdma_sroce.ko"
