#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel: Debian's 6.12 source with sroce and its KUnit
# suites built in, KASAN, lockdep and kmemleak on, and what guest.sh needs
# to boot it (scripts/guest-kernel.config).  scripts/kunit.sh boots the
# same image to run the suites.  Prints the bzImage path,
# for "guest.sh --kernel".  Next to it, lib/modules/<release> indexes the
# built-in modules, so that modprobe in the guest finds them.  The build
# tree lives under $SROCE_CACHE, so later builds are incremental.
#
# Usage: scripts/guest-kernel.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-/var/cache/sroce}
build=$cache/guest-kernel
frag=$repo/scripts/guest-kernel.config
# shellcheck source=scripts/kernel-tree.sh
. "$repo/scripts/kernel-tree.sh"

mkdir -p "$build"
kmake() {
	make -C "$src" O="$build" ARCH=x86_64 CC="$cc" -j"$(nproc)" "$@"
}

# Like kunit.py: the fragment on top of the Kconfig defaults.
if ! cmp -s "$frag" "$build/.config.frag"; then
	cp "$frag" "$build/.config"
	kmake -s olddefconfig
	cp "$frag" "$build/.config.frag"
fi
kmake -s olddefconfig
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_* | "# CONFIG_"*" is not set") grep -qxF "$line" "$build/.config" ||
		{ echo "guest-kernel: $line did not stick" >&2; missing=1; } ;;
	esac
done <"$frag"
[ $missing = 0 ] || exit 1

kmake -s bzImage >&2

# guest.sh mounts lib/modules/<release> of the kernel's directory in the
# guest: there is no module to load, but modprobe must know the built-ins.
kver=$(cat "$build/include/config/kernel.release")
out=$build/install
rm -rf "$out.new"
mkdir -p "$out.new/lib/modules/$kver"
cp "$build/modules.builtin" "$build/modules.builtin.modinfo" "$out.new/lib/modules/$kver/"
: >"$out.new/lib/modules/$kver/modules.order"
depmod -b "$out.new" "$kver"
cp "$build/arch/x86/boot/bzImage" "$out.new/vmlinuz-$kver"
rm -rf "$out"
mv "$out.new" "$out"
echo "$out/vmlinuz-$kver"
