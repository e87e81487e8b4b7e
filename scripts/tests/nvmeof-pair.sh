#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics (RDMA) between two guests: b exports a memory-backed
# null_blk namespace through nvmet-rdma on its link address, a connects
# with nvme-rdma and runs fio with verify (every block written is read
# back and its crc32c checked), then both tear down.  The kernel ULPs
# drive the RDMA device here, not librxe: kernel QPs, fast-reg MRs,
# invalidation, SEND_WITH_INV, and whatever nvme-rdma asks of a CQ.
#
#   scripts/guest.sh --pair --env SROCE_DRV_A=sroce --env SROCE_DRV_B=rxe \
#       scripts/tests/nvmeof-pair.sh
# SROCE_DRV_A, SROCE_DRV_B   sroce (default) or rxe, per guest
# SROCE_NVME_FAMILIES        "ipv4" (default), "ipv4 ipv6"
# SROCE_NVME_SIZE            bytes fio covers per job (default 64M)
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

families=${SROCE_NVME_FAMILIES:-ipv4}
size=${SROCE_NVME_SIZE:-64M}
nqn=nqn.2024-01.org.sroce:test
cfs=/sys/kernel/config/nvmet
me="[$SROCE_ROLE]"

for m in nvmet nvmet-rdma nvme-rdma null_blk; do
	modinfo "$m" >/dev/null 2>&1 || fail "no module $m in $(uname -r)"
done

pair_link
barrier linked || fail "the peer never linked its driver"

# ------------------------------------------------------------ target (b)

target_up() {
	local port=0 fam addr
	t_check "$me null_blk, 1 GiB, memory backed" \
		modprobe null_blk nr_devices=1 gb=1 memory_backed=1 bs=4096
	t_check "$me nvmet-rdma loads" modprobe -a nvmet nvmet-rdma
	wait_for 10 test -b /dev/nullb0 || fail "no /dev/nullb0"
	t_check "$me subsystem $nqn" bash -c "mkdir $cfs/subsystems/$nqn &&
		echo 1 >$cfs/subsystems/$nqn/attr_allow_any_host &&
		mkdir $cfs/subsystems/$nqn/namespaces/1 &&
		echo -n /dev/nullb0 >$cfs/subsystems/$nqn/namespaces/1/device_path &&
		echo 1 >$cfs/subsystems/$nqn/namespaces/1/enable"
	for fam in $families; do
		port=$((port + 1))
		[ "$fam" = ipv4 ] && addr=$SROCE_MY_IP4 || addr=$SROCE_MY_IP6
		t_check "$me rdma port $port on $addr:4420 ($fam)" bash -c "
			mkdir $cfs/ports/$port &&
			echo rdma >$cfs/ports/$port/addr_trtype &&
			echo $fam >$cfs/ports/$port/addr_adrfam &&
			echo $addr >$cfs/ports/$port/addr_traddr &&
			echo 4420 >$cfs/ports/$port/addr_trsvcid &&
			ln -s $cfs/subsystems/$nqn $cfs/ports/$port/subsystems/$nqn"
	done
}

target_down() {
	local p
	for p in "$cfs"/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p/subsystems/$nqn"
		rmdir "$p"
	done
	echo 0 >"$cfs/subsystems/$nqn/namespaces/1/enable"
	rmdir "$cfs/subsystems/$nqn/namespaces/1" "$cfs/subsystems/$nqn" &&
		modprobe -r nvmet-rdma nvmet null_blk
}

# -------------------------------------------------------------- host (a)

# The block device of namespace 1 of $nqn: under the subsystem with
# multipath (nvme-subsysN/nvmeNn1), else under the controller.
ns_dev() {
	local s b
	for s in /sys/class/nvme-subsystem/* /sys/class/nvme/*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
		for b in "$s"/nvme*n1; do
			# Per-path nodes (nvmeXcYnZ) have no /dev entry.
			if [ -b "/dev/${b##*/}" ]; then
				echo "/dev/${b##*/}"
				return 0
			fi
		done
	done
	return 1
}

# fio_verify NAME ARGS...: fio writes, reads back and checks crc32c.
fio_verify() {
	local name=$1 fout=/tmp/fio.$RANDOM t0=$SECONDS
	shift
	timeout -k 10 600 fio --name=verify --filename="$dev" --direct=1 \
		--ioengine=libaio --iodepth=16 --size="$size" --verify=crc32c \
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

host_run() {
	local fam=$1 addr tag
	[ "$fam" = ipv4 ] && addr=$SROCE_PEER_IP4 || addr=$SROCE_PEER_IP6
	tag="$fam a->b"
	modprobe nvme-rdma || fail "modprobe nvme-rdma"
	# A short controller-loss timeout, so a dead transport ends the I/O
	# with errors instead of leaving it queued for minutes.
	if ! t_check "nvme connect rdma $addr:4420 $tag" \
		timeout -k 5 90 nvme connect -t rdma -a "$addr" -s 4420 -n "$nqn" \
		--hostnqn="nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)" \
		--ctrl-loss-tmo=20 --reconnect-delay=2 --keep-alive-tmo=10; then
		return 1
	fi
	if ! wait_for 30 ns_dev; then
		t_fail "namespace appears $tag" "no block device for $nqn"
		nvme disconnect -n "$nqn" >/dev/null 2>&1
		return 1
	fi
	dev=$(ns_dev)
	t_ok "namespace appears $tag ($dev)"
	fio_verify "fio randwrite 4k qd16 $size crc32c verify $tag" --rw=randwrite --bs=4k
	fio_verify "fio randwrite 64k qd16 $size crc32c verify $tag" --rw=randwrite --bs=64k
	fio_verify "fio write 1m qd4 $size crc32c verify $tag" --rw=write --bs=1m --iodepth=4
	t_check "nvme disconnect $tag" timeout -k 5 60 nvme disconnect -n "$nqn"
	t_check "controller gone $tag" wait_for 20 bash -c '! ls /sys/class/nvme/nvme* >/dev/null 2>&1'
}

if [ "$SROCE_ROLE" = b ]; then
	target_up
	barrier target_up || fail "the host never arrived"
	barrier host_done 900 || log "the host did not finish"
	t_check "$me target teardown" target_down
else
	barrier target_up || fail "the target never came up"
	for fam in $families; do
		host_run "$fam"
	done
	t_check "$me nvme-rdma unloads" modprobe -r nvme-rdma
	barrier host_done || log "the target did not wait"
fi

t_check "$me rdma link delete $DEV" rdma link delete "$DEV"
t_done
