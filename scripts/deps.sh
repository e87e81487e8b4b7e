#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package sroce's build, guest rig and tests need.
# Idempotent and quiet when everything is already present.  Picks the
# newest 6.12 kernel the mirror carries.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo -E "$@"; fi
}

newest_kver() {
	apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64-unsigned$' |
		awk '{print $1}' | sed -e 's/^linux-image-//' -e 's/-unsigned$//' |
		sort -V | tail -n 1
}

BASE_PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
	zstd xz-utils rsync python3 ccache sparse qemu-system-x86 busybox-static
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	perftest rdmacm-utils infiniband-diags iproute2 tshark ethtool iputils-ping
	procps util-linux nvme-cli fio trace-cmd dkms"

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

kver=${SROCE_KVER:-}
if [ -z "$kver" ]; then
	# The image must already be present, or the lists must be fresh.
	kver=$(find /lib/modules -maxdepth 1 -name '6.12.*-amd64' -printf '%f\n' 2>/dev/null |
		sort -V | tail -n 1 || true)
fi

need=$(missing $BASE_PKGS)
if [ -z "$kver" ] || [ -n "$need" ]; then
	as_root apt-get update -qq
	[ -n "$kver" ] || kver=$(newest_kver)
fi
[ -n "$kver" ] || { echo "deps: no 6.12 kernel on the mirror" >&2; exit 1; }

need=$(missing $BASE_PKGS "linux-image-$kver-unsigned" "linux-headers-$kver" linux-source-6.12)
if [ -n "$need" ]; then
	echo "deps: installing:" $need >&2
	as_root apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

# Keep the rxe/sroce userspace provider usable without udev in the guest.
echo "$kver"
