#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a 6.12 kernel from Debian's linux-source with sroce and its KUnit
# suites linked in, and run them in QEMU through kunit.py.  Source, build
# tree and ccache live under $SROCE_CACHE so the second run is incremental.
#
# Usage: scripts/kunit.sh [kunit.py run options...]
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-/var/cache/sroce}
src=$cache/linux-source-6.12
build=$cache/kunit-build
mkdir -p "$cache"

# One kernel build at a time on this machine.
exec 9>"$cache/kunit.lock"
flock 9

if [ ! -f "$src/Makefile" ]; then
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.12.tar.*' | head -n 1)
	[ -n "$tarball" ] || { echo "kunit: linux-source-6.12 is not installed" >&2; exit 1; }
	echo "kunit: unpacking $tarball" >&2
	tar -C "$cache" -xf "$tarball"
fi

# Graft the driver into the tree as drivers/infiniband/sw/sroce.  rsync -c
# keeps unchanged files untouched so make sees only real edits.
dst=$src/drivers/infiniband/sw/sroce
mkdir -p "$dst"
rsync -rc --delete --exclude='*.o' --exclude='.*.cmd' \
	"$repo/Kbuild" "$repo/Kconfig" "$repo/drivers" "$repo/include" "$repo/kunit" "$dst/"
grep -q 'sw/sroce/' "$src/drivers/infiniband/sw/Makefile" ||
	echo 'obj-$(CONFIG_RDMA_SROCE) += sroce/' >>"$src/drivers/infiniband/sw/Makefile"
grep -q 'sw/sroce/Kconfig' "$src/drivers/infiniband/Kconfig" ||
	sed -i 's|^source "drivers/infiniband/sw/siw/Kconfig"|&\nsource "drivers/infiniband/sw/sroce/Kconfig"|' \
		"$src/drivers/infiniband/Kconfig"
grep -q 'sw/sroce/Kconfig' "$src/drivers/infiniband/Kconfig" ||
	{ echo "kunit: could not hook sroce into drivers/infiniband/Kconfig" >&2; exit 1; }

export CCACHE_DIR=$cache/ccache
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"

cd "$src"
python3 tools/testing/kunit/kunit.py run \
	--arch=x86_64 \
	--build_dir="$build" \
	--kunitconfig="$repo/kunit/.kunitconfig" \
	--make_options="CC=$cc" \
	--jobs="$(nproc)" \
	--timeout=300 \
	"$@"
