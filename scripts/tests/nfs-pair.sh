#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA between two guests: b exports a tmpfs, as NFSv4's root,
# through nfsd, which listens for RPC-over-RDMA on port 20049 (RFC 8267's
# NFS/RDMA port), and a mounts it with
# "-o rdma,port=20049,vers=4.2".  Through the mount, fio writes and verifies
# files with direct I/O (every block's crc32c is read back over the wire),
# a 16 MiB random file goes each way and its SHA-256 is compared on the
# other end, and fio's verify is shown to catch a block that b changes
# behind a's back.  The RPCs must have gone over the RDMA device, not TCP:
# the mount says proto=rdma and the device counted the packets.  Then a
# unmounts, both unload rpcrdma and delete their link.  The kernel's
# RPC-over-RDMA transport (xprtrdma, svcrdma) drives the device here:
# kernel QPs, fast-reg MRs, RDMA READ and WRITE chunks, and NFSv4.1's
# backchannel on the same connection.
#
#   scripts/guest.sh --pair --env SROCE_DRV_A=sroce --env SROCE_DRV_B=rxe \
#       scripts/tests/nfs-pair.sh
# Two guests, so that the RPCs cross the wire between two hosts.
#
# SROCE_DRV_A, SROCE_DRV_B   sroce (default) or rxe, per guest
# SROCE_NFS_FAMILIES         "ipv4" (default), "ipv4 ipv6"
# SROCE_NFS_SIZE             bytes each fio job covers (default 32M)
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

families=${SROCE_NFS_FAMILIES:-ipv4}
size=${SROCE_NFS_SIZE:-32M}
export_dir=/srv/nfs
mnt=/mnt/nfs
port=20049
me="[$SROCE_ROLE]"
# fio verify runs per family, RW:BS:IODEPTH
fio_jobs="randwrite:4k:16 write:1m:4"
# The corruption run: BS-byte blocks over the first LEN bytes of a file;
# b spoils CUT_LEN bytes at CUT_AT into the block at BAD, past fio's
# verify header, so the data's crc32c is what must catch it.
bad_bs=4096
bad_len=$((4 << 20))
bad_blk=$((1 << 20))
cut_at=2048
cut_len=512
blob_mib=16

[ "$SROCE_PAIR" = 1 ] || fail "nfs-pair.sh needs two guests (guest.sh --pair)"

nfam=$(words "$families")
# server: modules, export, daemons, rdma listener; teardown, link delete
server_plan=$((4 + 2))
# client: per family mount, proto=rdma, each fio job, the corruption run,
# a blob each way, the device's packets, unmount; then rpcrdma unload,
# link delete
client_plan=$((nfam * (2 + $(words "$fio_jobs") + 1 + 2 + 1 + 1) + 2))
if [ "$SROCE_ROLE" = b ]; then
	t_plan "$server_plan"
else
	t_plan "$client_plan"
fi

for m in nfsd nfsv4 rpcrdma; do
	modinfo "$m" >/dev/null 2>&1 || fail "no module $m in $(uname -r)"
done

# nfs-utils and rpcbind, unpacked into this guest's root only: the host
# has their libraries but not the packages (scripts/deps.sh says why).
nfs_root=/opt/nfs-utils
nfs_unpack() {
	local p d
	for p in nfs-common nfs-kernel-server rpcbind; do
		d=$(compgen -G "${SROCE_DEBS:-/var/cache/sroce/debs}/${p}_*.deb" | sort -V | tail -n 1)
		[ -n "$d" ] || fail "no $p package in ${SROCE_DEBS:-}: run scripts/deps.sh"
		dpkg-deb -x "$d" "$nfs_root" || fail "cannot unpack $d"
	done
	# mount(8) and umount(8) look for their helpers in /sbin.
	for p in mount.nfs mount.nfs4 umount.nfs umount.nfs4; do
		ln -sf "$nfs_root/sbin/$p" "/sbin/$p" || fail "cannot link /sbin/$p"
	done
	mkdir -p /var/lib/nfs/v4recovery /run/rpcbind || fail "cannot make nfs-utils' state dirs"
	PATH=$nfs_root/usr/sbin:$nfs_root/sbin:$nfs_root/usr/bin:$PATH
}
nfs_unpack

pair_link
barrier linked || fail "the peer never linked its driver"

# tx_packets (sroce) or sent_pkts (rdma_rxe): what the device sent
dev_tx() {
	local d=/sys/class/infiniband/$DEV/ports/1/hw_counters
	cat "$d/tx_packets" 2>/dev/null || cat "$d/sent_pkts"
}

# ------------------------------------------------------------ server (b)

# Daemons get no stdout: t_check's command substitution would wait for it.
daemons_up() {
	rpcbind </dev/null >/dev/null 2>&1 &&
		rpc.mountd </dev/null >/dev/null 2>&1 &&
		rpc.nfsd -N 3 -V 4.2 --rdma="$port" 4
}

server_up() {
	t_check "$me nfsd and rpcrdma load" modprobe -a nfsd rpcrdma
	# fsid=0: the export is NFSv4's root, so that no lookup crosses the
	# guest's own root (an overlay, which nfsd cannot make handles for)
	# and the tmpfs, which has no device or UUID, gets its fsid
	t_check "$me export $export_dir (tmpfs)" bash -c "
		mkdir -p $export_dir && mount -t tmpfs -o size=512m nfs $export_dir &&
		echo '$export_dir *(rw,fsid=0,no_root_squash,insecure,no_subtree_check,sync)' >/etc/exports &&
		exportfs -ra"
	# A short grace period: NFSv4 refuses OPENs during it after a start.
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	t_check "$me rpcbind, rpc.mountd and nfsd (NFSv4 only) start" daemons_up
	t_check "$me nfsd listens on rdma $port" \
		grep -qx "rdma $port" /proc/fs/nfsd/portlist
}

server_down() {
	rpc.nfsd 0 &&
		exportfs -ua &&
		pkill -x rpc.mountd
	pkill -x rpcbind
	umount "$export_dir" &&
		wait_for 20 modprobe -r rpcrdma
}

# b's half: overwrite CUT_LEN bytes of block BAD of the file, each with a
# value it cannot have held (its old one + 1).
spoil_block() (
	f=$export_dir/spoiled.$1 blk=/tmp/spoil.blk
	set -o pipefail
	dd if="$f" of="$blk" bs="$bad_bs" skip=$((bad_blk / bad_bs)) count=1 status=none &&
		dd if="$blk" bs=1 skip="$cut_at" count="$cut_len" status=none |
		tr '\000-\377' '\001-\377\000' |
			dd of="$blk" bs=1 seek="$cut_at" conv=notrunc status=none &&
		dd if="$blk" of="$f" bs="$bad_bs" seek=$((bad_blk / bad_bs)) count=1 \
			conv=notrunc status=none
)

server_spoil() {
	local fam=$1 res
	barrier "nfs.$fam.written" 900 || return 0
	if [ -e "$SROCE_SHARED/nfs.$fam.skip" ]; then
		log "$fam: the client skipped the corruption run"
	elif res=$(spoil_block "$fam" 2>&1); then
		log "$fam: spoiled $cut_len bytes at $((bad_blk + cut_at)) of spoiled.$fam"
		echo ok >"$SROCE_SHARED/nfs.$fam.spoiled-result"
	else
		echo "${res:-dd failed}" >"$SROCE_SHARED/nfs.$fam.spoiled-result"
	fi
	barrier "nfs.$fam.spoiled" 120
}

# The blobs: a's arrives and b hashes it; b's is made for a to read.
server_blobs() {
	local fam=$1
	head -c $((blob_mib << 20)) /dev/urandom >"$export_dir/blob-b.$fam" &&
		sha256sum <"$export_dir/blob-b.$fam" | cut -d' ' -f1 \
			>"$SROCE_SHARED/nfs.$fam.blob-b"
	barrier "nfs.$fam.blobs" 900 || return 0
	sha256sum <"$export_dir/blob-a.$fam" 2>&1 | cut -d' ' -f1 \
		>"$SROCE_SHARED/nfs.$fam.blob-a.at-b"
	barrier "nfs.$fam.hashed" 120
}

# -------------------------------------------------------------- client (a)

fio_verify() {
	local name=$1 fout=/tmp/fio.$RANDOM t0=$SECONDS
	shift
	timeout -k 10 600 fio --name=verify --directory="$mnt" --direct=1 \
		--ioengine=libaio --size="$size" --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_dump=0 --randrepeat=0 \
		"$@" >"$fout" 2>&1
	local rc=$?
	log "$name: fio took $((SECONDS - t0)) s"
	if [ $rc = 0 ] && grep -q "err= 0" "$fout" && ! grep -q "verify: bad" "$fout"; then
		t_ok "$name"
	else
		sed "s/^/# /" "$fout" | tail -n 30
		t_fail "$name" "fio exit $rc"
	fi
}

fio_bad_job() {
	timeout -k 10 300 fio --name=spoiled --filename="$bad_file" --direct=1 \
		--ioengine=libaio --iodepth=16 --rw=write --bs="$bad_bs" \
		--size="$bad_len" --verify=crc32c --verify_fatal=1 --verify_dump=0 \
		--randrepeat=1 "$@"
}

# Both sides pass both barriers whatever happened.
corrupt_sync() {
	local fam=$1 skip=${2:-}
	[ -z "$skip" ] || : >"$SROCE_SHARED/nfs.$fam.skip"
	barrier "nfs.$fam.written" 900 && barrier "nfs.$fam.spoiled" 120
}

# Two checks: a's blob as b stores it, b's blob as a reads it.
client_blobs() {
	local fam=$1 tag=$2 mine theirs at_b got
	head -c $((blob_mib << 20)) /dev/urandom >/tmp/blob-a
	mine=$(sha256sum </tmp/blob-a | cut -d' ' -f1)
	cp /tmp/blob-a "$mnt/blob-a.$fam" || log "cp to $mnt failed"
	rm -f /tmp/blob-a
	if ! barrier "nfs.$fam.blobs" 900 || ! barrier "nfs.$fam.hashed" 120; then
		t_fail "$blob_mib MiB written by a, SHA-256 on b $tag" "the server did not answer"
		t_fail "$blob_mib MiB written by b, SHA-256 on a $tag" "the server did not answer"
		return
	fi
	at_b=$(cat "$SROCE_SHARED/nfs.$fam.blob-a.at-b")
	if [ "$at_b" = "$mine" ]; then
		t_ok "$blob_mib MiB written by a, SHA-256 on b $tag"
	else
		t_fail "$blob_mib MiB written by a, SHA-256 on b $tag" "$mine sent, ${at_b:-nothing} stored"
	fi
	theirs=$(cat "$SROCE_SHARED/nfs.$fam.blob-b")
	got=$(sha256sum <"$mnt/blob-b.$fam" | cut -d' ' -f1)
	if [ -n "$theirs" ] && [ "$got" = "$theirs" ]; then
		t_ok "$blob_mib MiB written by b, SHA-256 on a $tag"
	else
		t_fail "$blob_mib MiB written by b, SHA-256 on a $tag" "${theirs:-nothing} stored, $got read"
	fi
}

client_run() {
	local fam=$1 addr tag job rw bs qd tx0 tx1 opts
	[ "$fam" = ipv4 ] && addr=$SROCE_PEER_IP4 || addr="[$SROCE_PEER_IP6]"
	tag="$fam a->b"
	mkdir -p "$mnt"
	tx0=$(dev_tx)
	if ! t_check "mount -o rdma,port=$port,vers=4.2 $addr:/ ($export_dir) $tag" \
		timeout -k 5 120 mount -t nfs -o "rdma,port=$port,vers=4.2" \
		"$addr:/" "$mnt"; then
		corrupt_sync "$fam" skip
		barrier "nfs.$fam.blobs" 900 && barrier "nfs.$fam.hashed" 120
		return 1
	fi
	opts=$(awk -v m="$mnt" '$2 == m { print $4 }' /proc/mounts)
	log "mount options: $opts"
	t_check "the mount runs over RDMA (proto=rdma, port=$port) $tag" \
		bash -c "[[ ,$opts, == *,proto=rdma,* && ,$opts, == *,port=$port,* ]]"
	for job in $fio_jobs; do
		IFS=: read -r rw bs qd <<<"$job"
		fio_verify "fio $rw $bs qd$qd $size crc32c verify $tag" \
			--rw="$rw" --bs="$bs" --iodepth="$qd"
	done
	# with direct I/O nothing of the file stays cached on a
	bad_file=$mnt/spoiled.$fam
	fio_catches_corruption "fio crc32c verify catches a block spoiled on the server $tag" \
		"$fam" "$bad_file" nfs server
	client_blobs "$fam" "$tag"
	tx1=$(dev_tx)
	# fio alone moved 2 x $size each way; at 4 KiB a packet that is
	# thousands of packets, where a TCP mount would leave the count alone.
	if [ $((tx1 - tx0)) -ge 4096 ]; then
		t_ok "$DEV sent $((tx1 - tx0)) packets for the mount $tag"
	else
		t_fail "$DEV sent $((tx1 - tx0)) packets for the mount $tag" "fewer than 4096: not over RDMA"
	fi
	t_check "umount $tag" timeout -k 5 60 umount "$mnt"
}

if [ "$SROCE_ROLE" = b ]; then
	server_up
	barrier server_up || fail "the client never arrived"
	for fam in $families; do
		server_spoil "$fam"
		server_blobs "$fam"
	done
	barrier client_done 900 || log "the client did not finish"
	t_check "$me nfsd stops, rpcrdma unloads" server_down
else
	barrier server_up || fail "the server never came up"
	for fam in $families; do
		client_run "$fam"
	done
	t_check "$me rpcrdma unloads" wait_for 20 modprobe -r rpcrdma
	barrier client_done || log "the server did not wait"
fi

t_check "$me rdma link delete $DEV" rdma link delete "$DEV"
t_done
