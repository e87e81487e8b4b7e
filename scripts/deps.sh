#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package sroce's build, guest rig and tests need.
# Idempotent and quiet when everything is already present.  Picks the
# newest 6.12 kernel the mirror carries (the guests' kernel, with its
# source for KUnit and the debug kernel), and the newest 6.1 (Debian 12's
# own: the module is built and run on it too).
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo -E "$@"; fi
}

# newest_kver REGEX: the newest linux-image-<kver>-unsigned on the mirror
# whose kver matches
newest_kver() {
	apt-cache search --names-only "^linux-image-$1-unsigned\$" |
		awk '{print $1}' | sed -e 's/^linux-image-//' -e 's/-unsigned$//' |
		sort -V | tail -n 1
}

# installed_kver GLOB: the newest kernel of /lib/modules matching
installed_kver() {
	find /lib/modules -maxdepth 1 -name "$1" -printf '%f\n' 2>/dev/null | sort -V | tail -n 1 || true
}

BASE_PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
	zstd xz-utils rsync python3 ccache sparse qemu-system-x86 busybox-static
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	perftest rdmacm-utils infiniband-diags iproute2 tshark ethtool iputils-ping
	procps util-linux nvme-cli fio trace-cmd dkms iperf3 linux-perf"

# NFS over RDMA (scripts/tests/nfs-pair.sh) needs nfsd's userspace in the
# guests, but installed here it would start nfsd and rpcbind on the host.
# So only the libraries it links against are installed; its packages are
# fetched to $NFS_DEBS, and the guests unpack them into their own root.
NFS_PKGS="nfs-kernel-server nfs-common rpcbind"
NFS_LIBS="libblkid1 libcap2 libcom-err2 libdevmapper1.02.1 libevent-core-2.1-7
	libgssapi-krb5-2 libkeyutils1 libkrb5-3 libmount1 libnfsidmap1
	libsqlite3-0 libsystemd0 libtirpc3 libuuid1 libwrap0"
NFS_DEBS=${SROCE_CACHE:-/var/cache/sroce}/debs

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

kver=${SROCE_KVER:-}
# The image must already be present, or the lists must be fresh.
[ -n "$kver" ] || kver=$(installed_kver '6.12.*-amd64')
kver61=$(installed_kver '6.1.0-*-amd64')

# missing_debs: the NFS packages not yet in $NFS_DEBS
missing_debs() {
	local p
	for p in $NFS_PKGS; do
		compgen -G "$NFS_DEBS/${p}_*.deb" >/dev/null || echo "$p"
	done
}

need=$(missing $BASE_PKGS $NFS_LIBS)
need_debs=$(missing_debs)
if [ -z "$kver" ] || [ -z "$kver61" ] || [ -n "$need" ] || [ -n "$need_debs" ]; then
	as_root apt-get update -qq
	[ -n "$kver" ] || kver=$(newest_kver '6\.12\.[0-9]+\+deb[0-9]+-amd64')
	[ -n "$kver61" ] || kver61=$(newest_kver '6\.1\.0-[0-9]+-amd64')
fi
[ -n "$kver" ] || { echo "deps: no 6.12 kernel on the mirror" >&2; exit 1; }
[ -n "$kver61" ] || { echo "deps: no 6.1 kernel on the mirror" >&2; exit 1; }

need=$(missing $BASE_PKGS $NFS_LIBS "linux-image-$kver-unsigned" "linux-headers-$kver" linux-source-6.12 \
	"linux-image-$kver61-unsigned" "linux-headers-$kver61")
if [ -n "$need" ]; then
	echo "deps: installing:" $need >&2
	as_root apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
if [ -n "$need_debs" ]; then
	echo "deps: fetching to $NFS_DEBS:" $need_debs >&2
	as_root mkdir -p "$NFS_DEBS"
	# apt-get download writes to the current directory; _apt must be
	# able to write there, or apt falls back with a warning.
	# Only nfs-pair.sh (make check-long) needs them: a failed download
	# is said, and that test fails on its own.
	(cd "$NFS_DEBS" && as_root apt-get download -qq $need_debs >/dev/null 2>&1) ||
		echo "deps: cannot download $need_debs; nfs-pair.sh will fail" >&2
fi

# Keep the rxe/sroce userspace provider usable without udev in the guest.
echo "$kver"
