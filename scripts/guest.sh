#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a script inside one QEMU guest, or two guests joined by a virtual
# wire (--pair), booting the host's 6.12 kernel over a read-only 9p view of
# the host root.  Nothing here touches the host kernel.
#
# Exit status: the script's status (single mode), 0 if both scripts passed
# (pair mode), 124 on timeout, 125 if a guest never reached its script
# (or its kernel reported a splat before any driver's init),
# 126 on a kernel splat or a guest that died while running its script,
# 2 on bad usage.
set -euo pipefail

# Bash reads scripts as it runs them; the braces make it parse this one
# whole first, so editing it cannot upset runs already in progress.
{

usage() {
	cat <<'EOF'
usage: guest.sh [--pair] [--timeout SECS] [--mem MB] [--smp N] [--kernel PATH]
                [--ko PATH] [--log FILE_PREFIX] [--env K=V]... SCRIPT [ARGS...]

  --pair           boot guests a and b, wired together, both running SCRIPT
  --timeout SECS   kill everything after SECS (default 600); exit 124
  --mem MB         guest memory (default 2048)
  --smp N          guest CPUs (default 1)
  --kernel PATH    guest kernel (default: newest /boot/vmlinuz-6.12.*-amd64)
  --ko PATH        the rdma_sroce.ko modprobe finds (default: the repo's);
                   one built for --kernel's release
  --log PREFIX     save PREFIX.<role>.console and PREFIX.<role>.dmesg
  --env K=V        export K=V to the script (repeatable)

SCRIPT runs with bash in the guest (by its host path, from the repo dir)
after the rig has mounted the host root read-only under a writable tmpfs
overlay, /shared (a per-run host dir, the same for both guests), /tmp,
/run, configfs and debugfs, and brought up eth0 (MTU 4200; a: 192.0.2.1/24
2001:db8::1/64, b: .2 and ::2).  Its environment: SROCE_ROLE (a|b),
SROCE_PEER_ROLE, SROCE_PAIR (0|1), SROCE_MY_IP4/6, SROCE_PEER_IP4/6,
SROCE_REPO, SROCE_SHARED=/shared, SROCE_LIB (scripts/guest-lib.sh),
SROCE_TIMEOUT, SROCE_KO (--ko's module), SROCE_MODINDEX (if that exists), SROCE_DEBS
(packages scripts/deps.sh fetched for guests only), the --env pairs.  A
kernel splat fails the run unless --env SROCE_ALLOW_SPLAT=1; with --env
SROCE_ALLOW_WARN_IN=DIR/ a WARNING raised in kernel source under DIR/ is
reported and does not (as for rdma_rxe's own, drivers/infiniband/sw/rxe/).

SROCE_GUEST_PLUGIN=SO loads the TCG plugin SO into both guests (its
control file /shared/.icount.ROLE, scripts/icount), and
SROCE_GUEST_KEEP_SHARED=DIR keeps a copy of /shared in DIR.

Exit: the script's status (pair: 0 if both passed), 124 timeout, 125 boot
failure, 126 kernel splat or guest crash, 2 usage.
EOF
}

die() {
	echo "guest.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)

pair=0
timeout=600
mem=2048
smp=1
kernel=
ko=$repo/rdma_sroce.ko
logprefix=
envs=()

optarg() {
	# Accept both "--opt value" and "--opt=value".
	[ $# -ge 2 ] || die "$1 needs a value"
	printf '%s' "$2"
}

while [ $# -gt 0 ]; do
	case $1 in
	--pair) pair=1; shift ;;
	--timeout | --mem | --smp | --kernel | --ko | --log | --env)
		val=$(optarg "$@")
		opt=$1
		shift 2
		;;
	--timeout=* | --mem=* | --smp=* | --kernel=* | --ko=* | --log=* | --env=*)
		opt=${1%%=*}
		val=${1#*=}
		shift
		;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage >&2; die "unknown option $1" ;;
	*) break ;;
	esac
	case ${opt:-} in
	--timeout) timeout=$val ;;
	--mem) mem=$val ;;
	--smp) smp=$val ;;
	--kernel) kernel=$val ;;
	--ko) ko=$(realpath -e -- "$val" 2>/dev/null) || die "no such module: $val" ;;
	--log) logprefix=$val ;;
	--env)
		[[ $val =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env wants K=V, got '$val'"
		envs+=("$val")
		;;
	esac
	opt=
done

[ $# -ge 1 ] || { usage >&2; exit 2; }
for n in "$timeout" "$mem" "$smp"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "not a positive integer: $n"
done

script=$(realpath -e -- "$1" 2>/dev/null) || die "no such script: $1"
shift
if [ ! -f "$script" ] || [ ! -r "$script" ]; then
	die "not a readable file: $script"
fi

# The guest sees the host root, except where it mounts fresh file systems;
# the repo gets a 9p share of its own at the same path, so a clone under
# /tmp (as CI may make) works too.
hidden_path() {
	case $1/ in
	"$repo"/*) return 1 ;;
	/tmp/* | /run/* | /proc/* | /sys/* | /dev/* | /shared/*) return 0 ;;
	esac
	return 1
}
case $repo/ in
/proc/* | /sys/* | /dev/* | /shared/*) die "repo $repo cannot be shown to the guest there" ;;
esac
hidden_path "$script" && die "$script is hidden in the guest (fresh mount there); put it elsewhere"
hidden_path "$ko" && die "$ko is hidden in the guest (fresh mount there); put it elsewhere"

if [ -z "$kernel" ]; then
	kernel=$(find /boot -maxdepth 1 -name 'vmlinuz-6.12.*-amd64' | sort -V | tail -n 1)
	[ -n "$kernel" ] || die "no /boot/vmlinuz-6.12.*-amd64; run scripts/deps.sh"
fi
[ -r "$kernel" ] || die "cannot read kernel $kernel"
kernel=$(realpath -e "$kernel")

qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 not found; run scripts/deps.sh"
busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox not found (busybox-static); run scripts/deps.sh"

# The bzImage header names the version (offset 0x20e points at it), which
# is more reliable than the file name for self-built kernels.
kernel_version() {
	local off
	off=$(od -An -tu2 -j526 -N2 "$1" 2>/dev/null | tr -d ' ')
	if [ -n "$off" ] && [ "$off" -gt 0 ]; then
		dd if="$1" bs=1 skip=$((off + 512)) count=256 2>/dev/null |
			tr '\0' '\n' | head -n 1 | awk '{print $1}'
	else
		basename "$1" | sed 's/^vmlinuz-//'
	fi
}
[ "$(dd if="$kernel" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ] ||
	die "$kernel is not a bzImage"
kver=$(kernel_version "$kernel")
[ -n "$kver" ] || die "cannot tell the version of $kernel"
# scripts/guest-kernel.sh puts the index of its built-in modules here
kmoddir=$(dirname "$kernel")/lib/modules/$kver

# ---------------------------------------------------------------------------
# initramfs: busybox, the modules needed to mount the 9p root and the
# overlay, and an /init that switch_roots into scripts/guest-init.sh.

read -r -d '' initramfs_init <<'EOF' || true
#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# sroce guest rig, stage 1: mount the host root (9p, read-only) under a
# tmpfs overlay and switch_root into the rig's stage 2 on the host root.
/bin/busybox --install -s /bin
export PATH=/bin

# reboot(2) directly: /proc may already have moved to the new root.
die() {
	echo "rig-initramfs: $*"
	poweroff -f
	while :; do sleep 60; done
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# Without a /dev/console at boot the kernel leaves us no stdio.
exec </dev/console >/dev/console 2>&1

for m in $(cat /modules.order); do
	insmod "/modules/$m" || die "insmod $m failed"
done

stage2=
for arg in $(cat /proc/cmdline); do
	case $arg in sroce_init=*) stage2=${arg#sroce_init=} ;; esac
done
[ -n "$stage2" ] || die "no sroce_init= on the kernel command line"

mkdir -p /lower /rw /newroot
# Read-only and unchanging for the run, so let the guest cache it.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose \
	hostroot /lower || die "cannot mount the host root"
mount -t tmpfs -o mode=0755 rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay /newroot || die "cannot mount the overlay"
[ -f "/newroot$stage2" ] || die "$stage2 not found on the host root"
for d in proc sys dev; do
	mount --move "/$d" "/newroot/$d" || die "cannot move /$d"
done
exec switch_root /newroot /bin/bash "$stage2"
EOF

# Modules with their dependencies, dependencies first, from modules.dep:
# the virtio PCI transport (a module in Debian's 6.1), 9p and overlay.
initramfs_modules() {
	local moddir=$1 want=(virtio_pci 9p 9pnet_virtio overlay) seen=() m
	declare -A done_=()
	add() {
		local path=$1 line dep
		[ -n "${done_[$path]:-}" ] && return 0
		done_[$path]=1
		line=$(grep -m1 "^$path:" "$moddir/modules.dep") || return 1
		for dep in ${line#*:}; do
			add "$dep" || return 1
		done
		seen+=("$path")
	}
	for m in "${want[@]}"; do
		local path
		path=$(grep -m1 -E "^([^:]*/)?$m\.ko(\.[a-z]+)?:" "$moddir/modules.dep" | cut -d: -f1) || true
		if [ -z "$path" ]; then
			# Built in: nothing to load.
			grep -qE "/$m\.ko$" "$moddir/modules.builtin" 2>/dev/null && continue
			echo "guest.sh: module $m not found in $moddir" >&2
			return 1
		fi
		add "$path" || return 1
	done
	printf '%s\n' "${seen[@]}"
}

cache_dir=${SROCE_CACHE:-/var/cache/sroce}/guest
if ! mkdir -p "$cache_dir" 2>/dev/null || [ ! -w "$cache_dir" ]; then
	cache_dir=${XDG_CACHE_HOME:-$HOME/.cache}/sroce/guest
	mkdir -p "$cache_dir"
fi

build_initramfs() {
	local out=$1 moddir=/lib/modules/$kver tmp m mods=()
	tmp=$(mktemp -d "$cache_dir/build.XXXXXX")
	# Subshell: the caller's EXIT trap is not in place yet.
	(
		trap 'rm -rf "$tmp"' EXIT
		mkdir -p "$tmp"/{bin,dev,proc,sys,modules}
		cp "$busybox" "$tmp/bin/busybox"
		printf '%s\n' "$initramfs_init" >"$tmp/init"
		chmod 755 "$tmp/init"
		if [ "$(id -u)" = 0 ]; then
			mknod "$tmp/dev/console" c 5 1
		fi
		if [ -d "$moddir" ]; then
			mapfile -t mods < <(initramfs_modules "$moddir")
			[ ${#mods[@]} -gt 0 ] || [ -f "$moddir/modules.dep" ] || exit 1
		else
			echo "guest.sh: no $moddir; assuming 9p and overlay are built into $kernel" >&2
		fi
		: >"$tmp/modules.order"
		for m in "${mods[@]}"; do
			local name
			name=$(basename "$m")
			case $name in
			*.ko.xz) xz -dc "$moddir/$m" >"$tmp/modules/${name%.xz}" ;;
			*.ko.zst) zstd -qdc "$moddir/$m" >"$tmp/modules/${name%.zst}" ;;
			*.ko.gz) gzip -dc "$moddir/$m" >"$tmp/modules/${name%.gz}" ;;
			*.ko) cp "$moddir/$m" "$tmp/modules/$name" ;;
			*) echo "guest.sh: odd module name $m" >&2; exit 1 ;;
			esac
			echo "${name%.ko*}.ko" >>"$tmp/modules.order"
		done
		# Uncompressed: TCG is slow at decompressing, and it is small.
		(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort |
			cpio --quiet -o -H newc -R 0:0) >"$out.new"
		mv -f "$out.new" "$out"
	)
}

# Rebuild whenever anything that goes into the image changes.
initramfs=$cache_dir/initramfs-$kver.cpio
key=$({
	echo "$kver"
	stat -c '%n %s %Y' "$busybox" "$kernel"
	stat -c '%n %s %Y' "/lib/modules/$kver/modules.dep" 2>/dev/null || true
	printf '%s\n' "$initramfs_init"
	declare -f initramfs_modules build_initramfs
} | sha256sum | cut -d' ' -f1)
(
	flock 9
	if [ ! -f "$initramfs" ] || [ "$(cat "$initramfs.key" 2>/dev/null)" != "$key" ]; then
		echo "guest.sh: building initramfs for $kver" >&2
		build_initramfs "$initramfs" || exit 1
		echo "$key" >"$initramfs.key"
	fi
) 9>"$cache_dir/.lock" || die "initramfs build failed"

# ---------------------------------------------------------------------------
# Run directory: the shared 9p dir, the wire socket, console FIFOs.

rundir=
roles=(a)
[ $pair = 1 ] && roles=(a b)
declare -A qpid=() rpid=() ended=() t_start=() t_boot=() t_end=()
finished=0

log_path() {
	if [ -n "$logprefix" ]; then
		echo "$logprefix.$1.$2"
	else
		echo "$rundir/$1.$2"
	fi
}

# shellcheck disable=SC2317 # called from the EXIT trap
save_logs() {
	local r
	[ -n "$logprefix" ] || return 0
	for r in "${roles[@]}"; do
		[ -f "$shared/.rig/dmesg.$r" ] && cp "$shared/.rig/dmesg.$r" "$(log_path "$r" dmesg)"
	done
	return 0
}

# shellcheck disable=SC2317
stop_guest() {
	local pid=$1 _
	kill -0 "$pid" 2>/dev/null || return 0
	# QEMU leads its own process group (setsid), so this gets all of it.
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
}

# shellcheck disable=SC2317
cleanup() {
	local rc=$? r _
	trap - EXIT INT TERM HUP
	for r in "${!qpid[@]}"; do
		stop_guest "${qpid[$r]}"
	done
	for r in "${!qpid[@]}"; do
		wait "${qpid[$r]}" 2>/dev/null || true
	done
	# Readers end at EOF once QEMU is gone; one stuck opening its FIFO
	# (QEMU never started) needs a push.
	[ -z "$mpid" ] || stop_guest "$mpid"
	for r in "${!rpid[@]}"; do
		for _ in $(seq 20); do
			kill -0 "${rpid[$r]}" 2>/dev/null || break
			sleep 0.1
		done
		kill "${rpid[$r]}" 2>/dev/null || true
		wait "${rpid[$r]}" 2>/dev/null || true
	done
	if [ -n "$rundir" ]; then
		save_logs || true
		# SROCE_GUEST_KEEP_SHARED=DIR: what the guests left in /shared
		[ -z "${SROCE_GUEST_KEEP_SHARED:-}" ] ||
			cp -a "$shared/." "$SROCE_GUEST_KEEP_SHARED/" || true
		rm -rf "$rundir"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "guest.sh: interrupted; stopping guests" >&2; exit 130' INT
trap 'echo "guest.sh: terminated; stopping guests" >&2; exit 143' TERM
trap 'echo "guest.sh: hangup; stopping guests" >&2; exit 129' HUP

rundir=$(mktemp -d /tmp/sroce-run.XXXXXX)
shared=$rundir/shared
mkdir -p "$shared/.rig"
chmod 1777 "$shared"
sock=$rundir/wire.sock

# ---------------------------------------------------------------------------
# Module index for the repo's rdma_sroce.ko.  depmod -a in a TCG guest
# re-reads and unpacks all ~4000 modules over 9p (minutes); on the host it
# takes seconds.  So depmod runs here, in a scratch base dir that links
# the stock tree (the host's /lib/modules stays untouched), while the
# guests boot; sroce_install_module copies the result if the .ko matches.
# Cached by the .ko's hash.

# Runs detached (own process group) so cleanup can stop it, depmod and all.
# shellcheck disable=SC2317 # run through bash -c
modindex_worker() {
	set -euo pipefail
	# Not local: the EXIT trap runs after this function has returned.
	ko=$1 kver=$2 cache=$3 out=$4 tmp=
	local sum key dir m e
	m=/lib/modules/$kver
	sum=$(sha256sum "$ko" | cut -d' ' -f1)
	key=$( (echo "$sum"; stat -c '%s %Y' "$m/modules.dep") | sha256sum | cut -c1-16)
	dir=$cache/$key
	mkdir -p "$cache"
	# The guest waits for .ready or .failed.
	trap 'rm -rf "$tmp" "$out.tmp"; [ -e "$out.ready" ] || : >"$out.failed"' EXIT
	trap 'exit 143' TERM
	exec 9>"$cache/.lock"
	flock 9
	if [ ! -f "$dir/ko.sha256" ]; then
		tmp=$(mktemp -d "$cache/.build.XXXXXX")
		mkdir -p "$tmp/lib/modules/$kver/updates"
		for e in "$m"/*; do
			case ${e##*/} in
			modules.order | modules.builtin | modules.builtin.modinfo) cp "$e" "$tmp$m/" ;;
			modules.* | build | source | updates) ;;
			*) ln -s "$e" "$tmp$m/" ;;
			esac
		done
		for e in "$m"/updates/*; do
			[ -e "$e" ] && ln -s "$e" "$tmp$m/updates/"
		done
		cp "$ko" "$tmp$m/updates/"
		depmod -b "$tmp" "$kver"
		mkdir -p "$tmp/out"
		cp "$tmp$m"/modules.* "$tmp/out/"
		echo "$sum" >"$tmp/out/ko.sha256"
		rm -rf "$dir"
		mv "$tmp/out" "$dir"
		rm -rf "$tmp"
		# Keep the cache small: drop indexes unused for two days.
		find "$cache" -mindepth 1 -maxdepth 1 -name '[0-9a-f]*' -mtime +2 -exec rm -rf {} +
	fi
	touch "$dir"
	flock -u 9
	cp -r "$dir" "$out.tmp"
	mv "$out.tmp" "$out"
	: >"$out.ready"
}

mpid=
start_modindex() {
	[ -f "$ko" ] && [ -f "/lib/modules/$kver/modules.dep" ] || return 0
	command -v depmod >/dev/null || return 0
	setsid bash -c "$(declare -f modindex_worker); modindex_worker \"\$@\"" modindex \
		"$ko" "$kver" "$cache_dir/modindex/$kver" "$shared/.rig/modindex" \
		</dev/null >"$rundir/modindex.log" 2>&1 &
	mpid=$!
}

# Config for stage 2, sourced by bash in the guest.
write_config() {
	local role=$1 peer me_n peer_n kv
	if [ "$role" = a ]; then
		peer=b me_n=1 peer_n=2
	else
		peer=a me_n=2 peer_n=1
	fi
	{
		printf 'export SROCE_ROLE=%q\n' "$role"
		printf 'export SROCE_PEER_ROLE=%q\n' "$peer"
		printf 'export SROCE_PAIR=%q\n' "$pair"
		printf 'export SROCE_MY_IP4=192.0.2.%d\n' "$me_n"
		printf 'export SROCE_MY_IP6=2001:db8::%d\n' "$me_n"
		printf 'export SROCE_PEER_IP4=192.0.2.%d\n' "$peer_n"
		printf 'export SROCE_PEER_IP6=2001:db8::%d\n' "$peer_n"
		printf 'export SROCE_REPO=%q\n' "$repo"
		printf 'export SROCE_SHARED=/shared\n'
		printf 'export SROCE_LIB=%q\n' "$repo/scripts/guest-lib.sh"
		printf 'export SROCE_TIMEOUT=%q\n' "$timeout"
		printf 'export SROCE_DEBS=%q\n' "${SROCE_CACHE:-/var/cache/sroce}/debs"
		[ -z "$mpid" ] || printf 'export SROCE_MODINDEX=/shared/.rig/modindex\n'
		printf 'export SROCE_KO=%q\n' "$ko"
		[ ! -d "$kmoddir" ] || printf 'export SROCE_KMODDIR=%q\n' "$kmoddir"
		for kv in "${envs[@]}"; do
			printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"
		done
		printf 'rig_script=%q\n' "$script"
		printf 'rig_args=('
		[ ${#args[@]} -eq 0 ] || printf ' %q' "${args[@]}"
		printf ' )\n'
	} >"$shared/.rig/config.$role"
}

start_guest() {
	local role=$1 mac netdev fifo prefix= plugin
	if [ "$role" = a ]; then
		mac=52:54:00:5e:00:01
		# Single mode: a listening socket nobody joins still gives eth0.
		netdev=stream,id=n0,server=on,addr.type=unix,addr.path=$sock
	else
		mac=52:54:00:5e:00:02
		netdev=stream,id=n0,server=off,addr.type=unix,addr.path=$sock
	fi
	[ $pair = 1 ] && prefix="[$role] "
	fifo=$rundir/console.$role
	mkfifo "$fifo"
	# Strip the serial CRs, keep an unprefixed copy, prefix what we show.
	sed -u -e 's/\r$//' -e "w $(log_path "$role" console)" -e "s/^/$prefix/" <"$fifo" &
	rpid[$role]=$!
	t_start[$role]=$EPOCHREALTIME
	# SROCE_GUEST_PLUGIN: a TCG plugin for both guests (make bench's
	# instruction counts), its control file in the shared dir
	plugin=()
	[ -z "${SROCE_GUEST_PLUGIN:-}" ] ||
		plugin=(-plugin "$SROCE_GUEST_PLUGIN,ctl=$shared/.icount.$role")
	setsid "$qemu" "${plugin[@]}" \
		-machine q35 -cpu max -m "$mem" -smp "$smp" \
		-nodefaults -display none -no-reboot -monitor none -serial stdio \
		-kernel "$kernel" -initrd "$initramfs" \
		-append "console=ttyS0 quiet panic=-1 net.ifnames=0 ${SROCE_GUEST_CMDLINE:-}sroce_init=$init2 sroce_role=$role" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$shared,mount_tag=shared,security_model=none,multidevs=remap" \
		-virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
		-netdev "$netdev" -device "virtio-net-pci,netdev=n0,mac=$mac,romfile=" \
		-device virtio-rng-pci \
		</dev/null >"$fifo" 2>&1 &
	qpid[$role]=$!
}

args=("$@")
# SROCE_GUEST_INIT: a modified stage 2 to try out (debugging the rig).
init2=${SROCE_GUEST_INIT:-$here/guest-init.sh}
[[ $init2 != *[[:space:]]* ]] || die "$init2: a path with spaces cannot go on the kernel command line"
start_modindex
for r in "${roles[@]}"; do
	write_config "$r"
done

if [ -n "$logprefix" ]; then
	mkdir -p "$(dirname "$logprefix")"
fi

deadline=$((SECONDS + timeout))
start_guest a
if [ $pair = 1 ]; then
	# B connects to A's listening socket, so it must exist first.
	while [ ! -S "$sock" ]; do
		kill -0 "${qpid[a]}" 2>/dev/null || break
		[ $SECONDS -lt $deadline ] || break
		sleep 0.1
	done
	start_guest b
fi

elapsed() {
	local s=${1/./} e=${2/./}
	printf '%d.%01d' $(((e - s) / 1000000)) $(((e - s) % 1000000 / 100000))
}

# Once one guest of a pair has failed, the other gets a grace period and is
# then stopped: its peer-facing work (a server awaiting a dead client) may
# otherwise wait out the whole timeout.
grace=${SROCE_PEER_GRACE:-30}
failed_at=
while [ $finished -lt ${#roles[@]} ]; do
	for r in "${roles[@]}"; do
		[ -n "${ended[$r]:-}" ] && continue
		if [ -z "${t_boot[$r]:-}" ] && [ -e "$shared/.rig/started.$r" ]; then
			t_boot[$r]=$EPOCHREALTIME
		fi
		if ! kill -0 "${qpid[$r]}" 2>/dev/null; then
			wait "${qpid[$r]}" 2>/dev/null || true
			ended[$r]=1
			t_end[$r]=$EPOCHREALTIME
			finished=$((finished + 1))
			# Lets the peer's barrier give up at once instead of timing out.
			: >"$shared/.rig/exited.$r"
			if [ -z "$failed_at" ] && [ "$(cat "$shared/.rig/status.$r" 2>/dev/null)" != 0 ]; then
				failed_at=$SECONDS
			fi
		fi
	done
	[ $finished -lt ${#roles[@]} ] || break
	[ $SECONDS -lt $deadline ] || break
	if [ -n "$failed_at" ] && [ $SECONDS -ge $((failed_at + grace)) ]; then
		stopped_early=1
		break
	fi
	sleep 0.2
done

# Let the readers drain before the summary, so it comes last.
for r in "${roles[@]}"; do
	if [ -n "${ended[$r]:-}" ]; then
		wait "${rpid[$r]}" 2>/dev/null || true
		unset "rpid[$r]"
	fi
done

rc=0
declare -A st=()
for r in "${roles[@]}"; do
	who="guest $r"
	times=
	if [ -n "${t_boot[$r]:-}" ]; then
		times=" (boot-to-script $(elapsed "${t_start[$r]}" "${t_boot[$r]}") s"
		[ -n "${t_end[$r]:-}" ] && times+=", total $(elapsed "${t_start[$r]}" "${t_end[$r]}") s"
		times+=")"
	fi
	if [ -z "${ended[$r]:-}" ] && [ -n "${stopped_early:-}" ]; then
		st[$r]=stopped
		echo "guest.sh: $who: stopped, $grace s after its peer failed$times" >&2
	elif [ -z "${ended[$r]:-}" ]; then
		st[$r]=124
		echo "guest.sh: $who: TIMEOUT after $timeout s, killing it$times" >&2
	elif [ -f "$shared/.rig/status.$r" ]; then
		st[$r]=$(cat "$shared/.rig/status.$r")
		[[ ${st[$r]} =~ ^[0-9]+$ ]] || st[$r]=125
		case ${st[$r]} in
		0) echo "guest.sh: $who: passed$times" >&2 ;;
		125) echo "guest.sh: $who: boot failure, a kernel splat before any driver's init$times" >&2 ;;
		126) echo "guest.sh: $who: kernel splat$times" >&2 ;;
		*) echo "guest.sh: $who: script failed, status ${st[$r]}$times" >&2 ;;
		esac
	elif [ -e "$shared/.rig/started.$r" ]; then
		st[$r]=126
		echo "guest.sh: $who: died while running the script (kernel panic?)$times" >&2
	else
		st[$r]=125
		echo "guest.sh: $who: boot failure, the script never started" >&2
	fi
done

# Worst first: timeout, boot failure, splat, then the scripts' own status.
for want in 124 125 126; do
	for r in "${roles[@]}"; do
		[ "${st[$r]}" = "$want" ] && [ $rc = 0 ] && rc=$want
	done
done
for r in "${roles[@]}"; do
	[ "$rc" = 0 ] && [ "${st[$r]}" != stopped ] && rc=${st[$r]}
done
exit "$rc"
}
