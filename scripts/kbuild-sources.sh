# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by kernel-tree.sh, build-for.sh and compat-plant.sh: what Kbuild
# needs of the checkout, copied to another directory.
#
# kbuild_sources_copy DST: Kbuild, Kconfig, drivers/, include/, kunit/ and
# compat/ into DST, without build products (the generated probe header
# included, which is the target kernel's).  rsync -c leaves unchanged
# files with their times, so make rebuilds only what changed.  Expects
# $repo.
kbuild_sources_copy() {
	mkdir -p "$1"
	rsync -rc --delete --exclude='*.o' --exclude='.*.cmd' --exclude='*.ko' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='sroce_probes.h' \
		"$repo/Kbuild" "$repo/Kconfig" "$repo/drivers" "$repo/include" \
		"$repo/kunit" "$repo/compat" "$1/"
}
