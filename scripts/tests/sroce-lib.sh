# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# sroce-specific helpers for in-guest tests, on top of scripts/guest-lib.sh.

# shellcheck source=scripts/guest-lib.sh
. "$SROCE_REPO/scripts/guest-lib.sh"

INJECT="/usr/bin/python3 $SROCE_REPO/scripts/tests/roce_inject.py"

# cc: a test program (scripts/tests/NAME.c) that scripts/progs.sh built
# on the host, with -Wall -Wextra -Werror, is copied to the -o path
# instead of being compiled again, when the binary is newer than its
# source and the header the programs share: a compile takes a TCG guest
# about half a minute of CPU, and make check made some thirty.  The host
# compiler passed it with no output, so its check ("compiles cleanly")
# holds as for a compile here.  Anything else goes to the compiler.
# Exported, for the checks that compile through bash -c.
cc() {
	local a prev= out= src= bin
	for a in "$@"; do
		[ "$prev" = -o ] && out=$a
		[[ $a == "$SROCE_REPO"/scripts/tests/*.c ]] && src=$a
		prev=$a
	done
	bin=$SROCE_REPO/build/progs/$(basename "${src:-none}" .c)
	if [ -n "$out" ] && [ -n "$src" ] && [ -x "$bin" ] && [ "$bin" -nt "$src" ] &&
	   [ "$bin" -nt "$SROCE_REPO/scripts/tests/check_plan.h" ]; then
		cp "$bin" "$out"
		return
	fi
	command cc "$@"
}
export -f cc

# Load the driver the way a user does, plus the uverbs char device that
# rdma-core needs (udev would load it on a real system).
sroce_load() {
	if sroce_builtin; then
		sroce_check_builtin_params
		return
	fi
	sroce_install_module
	modprobe ib_uverbs || fail "modprobe ib_uverbs"
	# shellcheck disable=SC2086 # SROCE_MODPROBE_ARGS is a list of parameters
	modprobe rdma_sroce ${SROCE_MODPROBE_ARGS:-} || fail "modprobe rdma_sroce"
}

# True when the driver is built into the kernel (scripts/guest-kernel.sh).
# A built-in driver without parameters has no /sys/module entry, so ask
# the kernel's list of built-in modules.
sroce_builtin() {
	grep -qs '/rdma_sroce\.ko$' "/lib/modules/$(uname -r)/modules.builtin"
}

# A built-in driver took its parameters from the kernel command line
# (SROCE_GUEST_CMDLINE, "rdma_sroce.NAME=VALUE"): they must be the ones
# SROCE_MODPROBE_ARGS asks for.
sroce_check_builtin_params() {
	local kv want have
	for kv in ${SROCE_MODPROBE_ARGS:-}; do
		want=${kv#*=}
		case $want in 1) want=Y ;; 0) want=N ;; esac
		have=$(cat "/sys/module/rdma_sroce/parameters/${kv%%=*}" 2>/dev/null) ||
			fail "built-in rdma_sroce has no parameter ${kv%%=*}"
		[ "$have" = "$want" ] ||
			fail "built-in rdma_sroce: ${kv%%=*} is $have, the test wants $want (rdma_sroce.$kv on the kernel command line)"
	done
}

# wait_for SECS CMD...: poll CMD until it succeeds or SECS pass.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt "$end" ] || return 1
		sleep 0.2
	done
}

# t_refuse NAME ERRNO_TEXT LOG_TEXT CMD...: CMD must fail, print ERRNO_TEXT
# (e.g. "File exists") and leave LOG_TEXT in the kernel log ("" for none).
t_refuse() {
	local name=$1 errtext=$2 logtext=$3 out
	shift 3
	dmesg -C
	if out=$("$@" 2>&1); then
		t_fail "$name" "succeeded: $*"
	elif ! grep -qF -- "$errtext" <<<"$out"; then
		t_fail "$name" "wanted '$errtext', got '$out'"
	elif [ -n "$logtext" ] && ! dmesg | grep -qF -- "$logtext"; then
		t_fail "$name" "no '$logtext' in the kernel log"
	else
		t_ok "$name"
	fi
}

# t_sysattr NAME FILE WANT: the attribute FILE reads WANT
t_sysattr() {
	local name=$1 file=$2 want=$3 got
	got=$(cat "$file")
	if [ "$got" = "$want" ]; then
		t_ok "$name"
	else
		t_fail "$name" "${file##*/} is '$got', want '$want'"
	fi
}

# t_cfg_refuse DIR ATTR VALUE ERRNO_TEXT LOGTEXT: writing VALUE to
# DIR/ATTR fails with ERRNO_TEXT ("Invalid argument"), the kernel log says
# "D/ATTR: LOGTEXT; nothing changed" (D the last part of DIR) and every
# attribute of DIR reads as before
t_cfg_refuse() {
	local dir=$1 attr=$2 value=$3 errtext=$4 logtext=$5 name before after out
	name="${dir##*/}/$attr refuses '$value'"
	before=$(cat "$dir"/*)
	dmesg -C
	if out=$(bash -c 'echo "$1" >"$2"' _ "$value" "$dir/$attr" 2>&1); then
		t_fail "$name" "the write succeeded"
		return
	fi
	after=$(cat "$dir"/*)
	if ! grep -qF -- "$errtext" <<<"$out"; then
		t_fail "$name" "wanted '$errtext', got '$out'"
	elif ! dmesg | grep -qF -- "${dir##*/}/$attr: $logtext; nothing changed"; then
		t_fail "$name" "no '${dir##*/}/$attr: $logtext' in the kernel log: $(dmesg | tail -n 2)"
	elif [ "$before" != "$after" ]; then
		t_fail "$name" "the configuration changed"
	else
		t_ok "$name"
	fi
}

# t_status NAME STATUS [OUTPUT]: the check NAME for a command that ran
# before the plan was declared (compiling a program that tells its own
# plan): ok when STATUS is 0, else OUTPUT is shown.  Returns STATUS.
t_status() {
	local name=$1 rc=$2 out=${3:-}
	if [ "$rc" = 0 ]; then
		t_ok "$name"
	else
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
		t_fail "$name" "exit $rc"
	fi
	return "$rc"
}

# t_program PROG OUT STATUS: the checks a test program printed into OUT
# ("PASS name" / "FAIL name: why", its plan's every line), as ok / not ok
# lines; other lines go to the log.  A program that crashed owes lines,
# and the script's plan catches that; its exit STATUS is a check only when
# it failed without saying why.
t_program() {
	local prog=$1 out=$2 rc=$3 line name reported=0
	while IFS= read -r line; do
		case $line in
		"PASS "*) t_ok "${line#PASS }" ;;
		"FAIL "*) name=${line#FAIL }; t_fail "${name%%: *}" "${name#*: }"; reported=1 ;;
		*) log "$prog: $line" ;;
		esac
	done <"$out"
	[ "$rc" = 0 ] || [ "$reported" = 1 ] ||
		t_fail "$prog exits 0" "status $rc, but no check failed"
}

# ce_mark NS DEV: set CE on the RoCE packets leaving DEV (tc pedit, which
# needs sch_ingress, act_pedit, act_csum, cls_flower, cls_matchall): the
# ECN field of RoCEv2 over IPv4 (and its header checksum) and over IPv6
# (bits 20-21 of the first word), and FECN, the top bit of the BTH's fifth
# byte, 44 bytes into a RoCEv1 packet (after the GRH).
ce_mark() {
	local ns=$1 dev=$2
	ip netns exec "$ns" tc qdisc add dev "$dev" clsact &&
		ip netns exec "$ns" tc filter add dev "$dev" egress protocol ip \
			flower ip_proto udp dst_port 4791 \
			action pedit ex munge ip dsfield set 3 retain 3 pipe action csum ip &&
		ip netns exec "$ns" tc filter add dev "$dev" egress protocol ipv6 \
			flower ip_proto udp dst_port 4791 \
			action pedit munge offset 0 u32 set 0x00300000 retain 0x00300000 &&
		ip netns exec "$ns" tc filter add dev "$dev" egress protocol 0x8915 matchall \
			action pedit munge offset 44 u8 set 0x80 retain 0x80
}

ce_unmark() {
	ip netns exec "$1" tc qdisc del dev "$2" clsact
}

# pfc_inject_build: scripts/tests/pfc_inject.c built to $INJECT_PFC, as
# one check ("pfc_inject compiles cleanly": no warning either)
INJECT_PFC=/tmp/pfc_inject
pfc_inject_build() {
	local out rc
	out=$(cc -O2 -Wall -Wextra -o "$INJECT_PFC" "$SROCE_REPO/scripts/tests/pfc_inject.c" 2>&1)
	rc=$?
	[ -z "$out" ] || rc=1
	t_status "pfc_inject compiles cleanly" "$rc" "$out"
}

# devinfo DEV FIELD: one field of `ibv_devinfo -v -d DEV`, e.g. active_mtu.
devinfo() {
	ibv_devinfo -v -d "$1" | awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }'
}

# counter DEV NAME: a port counter of DEV as rdma statistic reports it.
counter() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# gid_index DEV GID TYPE: the index at which GID (sysfs notation) appears
# in DEV's table with TYPE ("IB/RoCE v1" or "RoCE v2"); fails if nowhere.
# No fork per entry: two per entry make a 256-entry table cost about ten
# seconds under TCG.
gid_index() {
	local dev=$1 gid=$2 type=$3 f g t
	for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
		read -r g 2>/dev/null <"$f" || continue
		[ "$g" = "$gid" ] || continue
		read -r t 2>/dev/null <"/sys/class/infiniband/$dev/ports/1/gid_attrs/types/${f##*/}" ||
			continue
		if [ "$t" = "$type" ]; then
			echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

has_gid_type() {
	gid_index "$@" >/dev/null
}

# ipv4 address -> RoCEv2 GID in sysfs notation (::ffff:a.b.c.d)
v4_gid() {
	local IFS=.
	# shellcheck disable=SC2086
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}

# MAC -> EUI-64 as ibv_devinfo prints node_guid (xxxx:xxxx:xxxx:xxxx)
mac_guid() {
	local IFS=:
	# shellcheck disable=SC2086
	set -- $1
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x$1 ^ 2)) "$2" "$3" "$4" "$5" "$6"
}

# qdisc_sent FIELD [KIND]: from `tc -s qdisc show` on stdin, field FIELD
# of the first "Sent ... (dropped N, ...)" line (4 packets sent, 7
# dropped), of the first qdisc of KIND ("mqprio": the sum of its classes)
# if given; nothing if there is none
qdisc_sent() {
	# shellcheck disable=SC2016 # awk's fields, not the shell's
	awk -v f="$1" -v k="${2:-}" '
		k == "" || $1 == "qdisc" && $2 == k { m = 1 }
		m && /Sent/ { gsub(",", ""); print $f; exit }'
}

# prio_bytes_samples DEV PA PB PID...: "T BYTES_A BYTES_B" every half
# second, DEV's tx_prioPA_bytes and tx_prioPB_bytes, while any PID runs;
# at real-time priority, as busy-polling perftest runs leave a normal
# shell one turn in seconds
prio_bytes_samples() {
	# shellcheck disable=SC2016 # the inner bash expands its own
	chrt -f 40 bash -c 'hw=/sys/class/infiniband/$1/ports/1/hw_counters
		a=$2 b=$3
		shift 3
		running() {
			local p
			for p in "$@"; do
				kill -0 "$p" 2>/dev/null && return 0
			done
			return 1
		}
		while running "$@"; do
			read -r x <"$hw/tx_prio${a}_bytes"
			read -r y <"$hw/tx_prio${b}_bytes"
			echo "${EPOCHREALTIME/,/.} $x $y"
			sleep 0.5
		done' _ "$@"
}

# veth_pair [TC_ARGS...]: the two hosts of single-guest tests, without
# RDMA links: veth n1 in ns1 (198.51.100.11, 2001:db8:1::11) to n2 in ns2
# (.12, ::12), both up.  VETH_MTU sets both MTUs (default 1500),
# VETH_QUEUES their numbers of queues (default 1); TC_ARGS, if any, make
# n1's root qdisc ("netem delay 2ms").  Namespaces left from an earlier
# call are reused.
veth_pair() {
	local mtu=${VETH_MTU:-1500} i
	for i in 1 2; do
		ip netns add "ns$i" 2>/dev/null
	done
	local q=(numtxqueues "${VETH_QUEUES:-1}" numrxqueues "${VETH_QUEUES:-1}")
	ip link add n1 netns ns1 mtu "$mtu" "${q[@]}" type veth \
		peer name n2 netns ns2 mtu "$mtu" "${q[@]}" || return 1
	for i in 1 2; do
		ip -n "ns$i" addr add "198.51.100.1$i/24" dev "n$i" &&
			ip -n "ns$i" addr add "2001:db8:1::1$i/64" dev "n$i" nodad &&
			ip -n "ns$i" link set "n$i" up && ip -n "ns$i" link set lo up ||
			return 1
	done
	if [ $# -gt 0 ]; then
		ip netns exec ns1 tc qdisc add dev n1 root "$@" || return 1
	fi
}

# veth_rps: RPS over all the guest's CPUs on the receive queues of n1 and
# n2.  A veth hands each packet to the receiver on the CPU that sent it;
# a NIC's RSS keeps a flow on one CPU by a hash of it, and RPS stands in
# for that (with one CPU it changes nothing).
veth_rps() {
	local mask i
	mask=$(printf %x $(((1 << $(nproc)) - 1)))
	for i in 1 2; do
		ip netns exec "ns$i" sh -c \
			"for q in /sys/class/net/n$i/queues/rx-*; do echo $mask >\$q/rps_cpus; done" ||
			return 1
	done
}

# veth_links [TC_ARGS...]: veth_pair's rig with sroce1 on n1 and sroce2 on
# n2, both ACTIVE with their RoCE v2 GIDs, and a ping across.
veth_links() {
	veth_pair "$@" || return 1
	# shellcheck disable=SC2016 # the inner bash expands devinfo
	ip netns exec ns1 rdma link add sroce1 type sroce netdev n1 &&
		ip netns exec ns2 rdma link add sroce2 type sroce netdev n2 &&
		wait_for 20 bash -c '[[ "$(devinfo sroce1 state)" == PORT_ACTIVE* ]] &&
			[[ "$(devinfo sroce2 state)" == PORT_ACTIVE* ]]' &&
		wait_for 10 gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2" &&
		wait_for 10 gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2" &&
		ip netns exec ns1 ping -c 1 -W 3 198.51.100.12 >/dev/null
}

# ns_bw TOOL DEV1 GID1 DEV2 GID2 PORT ARGS...: perftest's TOOL (ib_write_bw,
# ib_send_bw or ib_read_bw) with its ARGS from DEV1 (namespace ns1) to DEV2
# (ns2, 198.51.100.12) on PORT; prints its average MB/s, or nothing when it
# gave none (its output is in /tmp/ns_write_bw.cli and .srv for
# ib_write_bw, and so on)
ns_bw() {
	local tool=$1 d1=$2 g1=$3 d2=$4 g2=$5 port=$6 srv out
	shift 6
	out=/tmp/ns_${tool#ib_}
	ip netns exec ns2 timeout 180 "$tool" -d "$d2" -x "$g2" -F -p "$port" "$@" \
		>"$out.srv" 2>&1 &
	srv=$!
	wait_for 20 bash -c "ip netns exec ns2 ss -ltn | grep -q ':$port '" || return 1
	ip netns exec ns1 timeout 180 "$tool" -d "$d1" -x "$g1" -F -p "$port" "$@" \
		198.51.100.12 >"$out.cli" 2>&1
	wait "$srv"
	awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { if (v != "") print v }' \
		"$out.cli"
}

# ns_write_bw DEV1 GID1 DEV2 GID2 PORT ARGS...: ns_bw with ib_write_bw
ns_write_bw() {
	ns_bw ib_write_bw "$@"
}

# veth_send_lat NAME PORT GID1 GID2 ARGS...: a 2-byte ib_send_lat from
# sroce1 (ns1, GID index GID1) to sroce2 (ns2, GID2) over the veth rig,
# with the perftest ARGS given ("-S 3 -n 100 -e"); prints "T_TYPICAL P99"
# in microseconds, or fails.  Logs in /tmp/NAME.cli and /tmp/NAME.srv.
# perftest converts cycles with the clock rate it measures at its start,
# which a loaded TCG guest can get wrong enough to print "inf" (twice in a
# row beside a busy bulk run, in a cold CI run): such a run is logged and
# made again on the next port, reporting cycles (-C), which this converts
# with the clock rate the guest's kernel calibrated (/proc/cpuinfo).
veth_send_lat() {
	local name=$1 p=$2 ga=$3 gb=$4 spid rc try mhz=1 cyc=()
	shift 4
	for try in 1 2; do
		ip netns exec ns2 timeout 120 ib_send_lat -d sroce2 -x "$gb" -s 2 -F -p "$p" \
			"${cyc[@]}" "$@" >"/tmp/$name.srv" 2>&1 &
		spid=$!
		wait_for 20 bash -c "ip netns exec ns2 ss -ltn | grep -q ':$p '"
		timeout 120 ip netns exec ns1 ib_send_lat -d sroce1 -x "$ga" -s 2 -F -p "$p" \
			"${cyc[@]}" "$@" 198.51.100.12 >"/tmp/$name.cli" 2>&1
		rc=$?
		wait "$spid" || rc=1
		[ "$rc" = 0 ] || return 1
		# perftest: bytes, iterations, t_min, t_max, t_typical, t_avg,
		# t_stdev, 99%, 99.9%
		awk -v mhz="$mhz" '$1 == 2 && NF >= 9 && $5 ~ /^[0-9.]+$/ && $8 ~ /^[0-9.]+$/ {
			printf "%.2f %.2f\n", $5 / mhz, $8 / mhz; found = 1 } END { exit !found }' \
			"/tmp/$name.cli" && return 0
		log "$name: no finite latency from perftest (try $try): $(grep -m 1 '^ *2 ' "/tmp/$name.cli")"
		p=$((p + 100))
		cyc=(-C)
		mhz=$(awk -F: '$1 ~ /^cpu MHz/ { print $2 + 0; exit }' /proc/cpuinfo)
		[ -n "$mhz" ] && [ "$mhz" != 0 ] || return 1
	done
	return 1
}

# for checks that run these through bash -c
export -f devinfo counter gid_index has_gid_type v4_gid

# bench_link DRV: link DRV (sroce or rxe) to eth0 as DEV (sroce0, rxe0)
# and set dev and gidx, the RoCE v2 GID index of our IPv4 address (what
# perftest's -x wants), for make bench's guest halves
bench_link() {
	case $1 in
	sroce)
		sroce_load
		dev=sroce0
		;;
	rxe)
		modprobe ib_uverbs || fail "modprobe ib_uverbs"
		modprobe rdma_rxe || fail "modprobe rdma_rxe"
		dev=rxe0
		;;
	*) fail "the driver must be sroce or rxe, not $1" ;;
	esac
	rdma link add "$dev" type "$1" netdev eth0 || fail "rdma link add $dev"
	local gid
	gid=$(v4_gid "$SROCE_MY_IP4")
	wait_for 10 has_gid_type "$dev" "$gid" "RoCE v2" || fail "no RoCE v2 GID for $SROCE_MY_IP4"
	gidx=$(gid_index "$dev" "$gid" "RoCE v2") || fail "no GID index"
}

# split_cmds SRV CLI WORDS...: WORDS are SERVER... -- CLIENT...; the two
# commands go into the arrays named SRV and CLI
split_cmds() {
	local -n _srv=$1 _cli=$2
	shift 2
	_srv=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_srv+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	_cli=("$@")
}

# serve_one TAG SECS PORT CMD...: a pair's server side of one perftest
# run.  CMD runs for at most SECS with its output in /tmp/TAG.srv; once
# it listens on PORT the client is let go at barrier TAG.up, and this
# returns when the client has left $SROCE_SHARED/TAG.cli and the server
# has ended, or was ended 10 s after that (rdma_rxe's client may fail
# while its server waits on).
serve_one() {
	local tag=$1 secs=$2 port=$3 spid
	shift 3
	timeout "$secs" "$@" >"/tmp/$tag.srv" 2>&1 &
	spid=$!
	wait_for 20 bash -c "ss -ltn | grep -q ':$port '" ||
		log "$1: the server shows no listener: $(tail -n 2 "/tmp/$tag.srv" | tr '\n' ' ')"
	barrier "$tag.up" || fail "peer gone"
	wait_for "$secs" test -e "$SROCE_SHARED/$tag.cli"
	wait_for 10 bash -c "! kill -0 $spid 2>/dev/null" || kill "$spid" 2>/dev/null
	wait "$spid"
}
