#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce guest rig, stage 2: PID 1 in the guest after switch_root, run from
# the host root so it can change without rebuilding the initramfs.  Sets up
# mounts and eth0, runs the test script, checks dmesg for kernel splats,
# reports the status into /shared/.rig and powers off.  Started by the
# initramfs that scripts/guest.sh builds; not meant to be run by hand.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

# Parsed whole before it runs (bash reads scripts as it goes), so the file
# can be edited while guests are using it.
{

# PID 1 must never exit (that panics), so every way out goes through here.
poweroff_now() {
	sync
	echo o >/proc/sysrq-trigger || busybox poweroff -f
	# Builtins only: the 9p root goes away while the kernel powers off.
	while :; do read -r -t 60 _ </dev/console; done 2>/dev/null
}

rig_die() {
	echo "rig: guest ${SROCE_ROLE:-?}: $*"
	poweroff_now
}

if [ $$ != 1 ]; then
	echo "guest-init.sh runs as PID 1 inside a rig guest; use scripts/guest.sh" >&2
	exit 2
fi

# Static busybox: under TCG, util-linux mount spends ~0.2 s just linking.
mnt() {
	local type=$1 src=$2 dir=$3 opts=${4:-}
	[ -d "$dir" ] || mkdir -p "$dir"
	busybox mount -t "$type" ${opts:+-o "$opts"} "$src" "$dir" ||
		rig_die "cannot mount $type on $dir"
}

mnt tmpfs tmpfs /tmp mode=1777
mnt tmpfs tmpfs /run mode=0755
mnt devpts devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs tmpfs /dev/shm mode=1777
mnt debugfs debugfs /sys/kernel/debug
# No DAD on the wire: the link-local address (RoCE GID 0) must be usable
# at once too, not only the nodad one we add.  Before eth0 exists.
echo 0 >/proc/sys/net/ipv6/conf/default/accept_dad
echo 0 >/proc/sys/net/ipv6/conf/all/accept_dad
[ -e /dev/ptmx ] || ln -s pts/ptmx /dev/ptmx
# what systemd makes on a real system; bash's <(...) needs /dev/fd (dkms)
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for f in stdin:0 stdout:1 stderr:2; do
	[ -e "/dev/${f%:*}" ] || ln -s "/proc/self/fd/${f#*:}" "/dev/${f%:*}"
done
# cache=none: the peer's and the host's writes must show up at once.
mnt 9p shared /shared trans=virtio,version=9p2000.L,cache=none,msize=512000

role=
# shellcheck disable=SC2013 # words, not lines
for arg in $(cat /proc/cmdline); do
	case $arg in sroce_role=*) role=${arg#sroce_role=} ;; esac
done
rig=/shared/.rig
[ -f "$rig/config.$role" ] || rig_die "no $rig/config.$role"
rig_script=
rig_args=()
# shellcheck source=/dev/null
. "$rig/config.$role"
# The repo at its host path, even where a fresh /tmp or /run hides it.
mnt 9p repo "$SROCE_REPO" trans=virtio,version=9p2000.L,ro,msize=512000

# A self-built kernel (scripts/guest-kernel.sh) has its module index next to
# it on the host, not under the host's /lib/modules.
if [ -n "${SROCE_KMODDIR:-}" ]; then
	kmods=/lib/modules/$(uname -r)
	mkdir -p "$kmods" && busybox mount -o bind,ro "$SROCE_KMODDIR" "$kmods" ||
		rig_die "cannot mount $SROCE_KMODDIR on $kmods"
fi
# No udev here: load what the rig needs by hand, in one go (each exec costs).
modprobe -a configfs virtio_net virtio_rng || rig_die "cannot load the rig's modules"
mnt configfs configfs /sys/kernel/config

hostname "sroce-$role"


ip link set lo up
for _ in $(seq 50); do
	[ -e /sys/class/net/eth0 ] && break
	sleep 0.1
done
[ -e /sys/class/net/eth0 ] || rig_die "no eth0"
# 4200 leaves room for IB MTU 4096 plus the RoCE headers.
ip link set eth0 mtu 4200 || rig_die "cannot set the eth0 MTU"
ip addr add "$SROCE_MY_IP4/24" dev eth0
ip -6 addr add "$SROCE_MY_IP6/64" dev eth0 nodad
ip link set eth0 up || rig_die "cannot bring eth0 up"

# Matches the start of any kernel report a test must not leave behind;
# check.sh scans the KUnit kernel's log with the same patterns.
splat_re=$(cat "$SROCE_REPO/scripts/splat.re" 2>/dev/null) || rig_die "cannot read scripts/splat.re"
[ -n "$splat_re" ] || rig_die "scripts/splat.re is empty"

echo "rig: guest $role up, running $rig_script"
: >"$rig/started.$role"
cd "$SROCE_REPO" || cd /
bash "$rig_script" "${rig_args[@]}" </dev/null
status=$?
echo "rig: guest $role: script exited with status $status"

# kmemleak only reports what a scan has found.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak 2>/dev/null
	if [ -s /sys/kernel/debug/kmemleak ]; then
		echo "rig: kmemleak: suspected leaks:"
		cat /sys/kernel/debug/kmemleak
		echo "kmemleak: suspected memory leaks (see above)" >/dev/kmsg
	fi
fi

dmesg >"$rig/dmesg.$role" 2>&1
# SROCE_ALLOW_WARN_IN=DIR/: a WARNING raised in the kernel's source under
# DIR (drivers/infiniband/sw/rxe/: rdma_rxe's own, which a test that
# shows rdma_rxe failing may trigger) is reported, and its report, from
# "cut here" to "end trace", left out of the scan but for any line in it
# that looks like a splat of its own (another CPU's, an interrupt's).
# Nothing else is left out: a BUG, an oops, a WARNING raised anywhere
# else, or a report cut short still fails the run, and so does an awk
# that could not finish (the whole dmesg is scanned then).
scan=$rig/dmesg.$role
if [ -n "${SROCE_ALLOW_WARN_IN:-}" ]; then
	: >"$rig/tolerated.$role"
	if awk -v at="at $SROCE_ALLOW_WARN_IN" -v kept="$rig/tolerated.$role" -v re="$splat_re" '
		/-+\[ cut here \]-+/ {
			if (inb)
				printf "%s", blk
			blk = $0 "\n"
			other = ""
			inb = 1
			ok = 0
			next
		}
		inb {
			blk = blk $0 "\n"
			if (index($0, "WARNING: ") && index($0, at))
				ok = 1
			else if ($0 ~ re && $0 !~ /Call Trace/)
				other = other $0 "\n"
			if (/---\[ end trace/) {
				inb = 0
				if (ok) {
					printf "%s", blk >>kept
					printf "%s", other
				} else {
					printf "%s", blk
				}
			}
			next
		}
		{ print }
		END { if (inb) printf "%s", blk }' "$rig/dmesg.$role" >"$rig/dmesg-scan.$role"; then
		scan=$rig/dmesg-scan.$role
	fi
	grep 'WARNING: ' "$rig/tolerated.$role" | while IFS= read -r line; do
		echo "rig: guest $role: tolerated (SROCE_ALLOW_WARN_IN): $line"
	done
fi
if grep -Eq "$splat_re" "$scan"; then
	if [ "${SROCE_ALLOW_SPLAT:-0}" = 1 ]; then
		echo "rig: guest $role: kernel splat allowed by SROCE_ALLOW_SPLAT=1"
	else
		echo "rig: kernel splat in guest $role; dmesg follows"
		cat "$rig/dmesg.$role"
		echo "rig: kernel splat in guest $role:"
		grep -E "$splat_re" "$scan" | head -n 5
		status=126
		# A report from before the kernel ran its first initcall past
		# the early ones (smp_init() comes first), so before any
		# driver's init, sroce's included, is the kernel's or the
		# emulator's.  It also blinds the test: KASAN reports only its
		# first finding, and the taint turns lockdep off.  The run
		# proved nothing and says so as a boot failure, status 125.
		if awk -v re="$splat_re" '
			/smp: Bringing up secondary CPUs/ && !smp { smp = NR }
			$0 ~ re { last = NR }
			END { exit !(smp && last && last < smp) }' "$scan"; then
			echo "rig: guest $role: the kernel splat came while it booted, before any driver's init"
			status=125
		fi
	fi
fi

echo "$status" >"$rig/status.$role.tmp" && mv "$rig/status.$role.tmp" "$rig/status.$role"
poweroff_now
}
