# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by kunit.sh and guest-kernel.sh: Debian's linux-source-6.12
# unpacked under $cache with the driver grafted in as
# drivers/infiniband/sw/sroce.  Expects $repo and $cache; sets $src,
# exports the ccache settings and sets $cc.  Holds $cache/kunit.lock on
# fd 9, since the machine builds one kernel at a time.

src=$cache/linux-source-6.12
mkdir -p "$cache"

exec 9>"$cache/kunit.lock"
flock 9

if [ ! -f "$src/Makefile" ]; then
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.12.tar.*' | head -n 1)
	[ -n "$tarball" ] || { echo "kernel-tree: linux-source-6.12 is not installed" >&2; exit 1; }
	echo "kernel-tree: unpacking $tarball" >&2
	tar -C "$cache" -xf "$tarball"
fi

# shellcheck source=scripts/kbuild-sources.sh
. "$repo/scripts/kbuild-sources.sh"
dst=$src/drivers/infiniband/sw/sroce
kbuild_sources_copy "$dst"
grep -q 'sw/sroce/' "$src/drivers/infiniband/sw/Makefile" ||
	echo 'obj-$(CONFIG_RDMA_SROCE) += sroce/' >>"$src/drivers/infiniband/sw/Makefile"
grep -q 'sw/sroce/Kconfig' "$src/drivers/infiniband/Kconfig" ||
	sed -i 's|^source "drivers/infiniband/sw/siw/Kconfig"|&\nsource "drivers/infiniband/sw/sroce/Kconfig"|' \
		"$src/drivers/infiniband/Kconfig"
grep -q 'sw/sroce/Kconfig' "$src/drivers/infiniband/Kconfig" ||
	{ echo "kernel-tree: could not hook sroce into drivers/infiniband/Kconfig" >&2; exit 1; }

export CCACHE_DIR=$cache/ccache
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
