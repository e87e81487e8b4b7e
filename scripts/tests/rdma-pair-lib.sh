# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for two-guest RDMA tests (rc-pair.sh, nvmeof-pair.sh), on top of
# scripts/tests/sroce-lib.sh:
#
# pair_driver_of ROLE   the driver guest ROLE (a or b) runs
# pair_link             load this guest's driver (SROCE_DRV_A for guest a,
#                       SROCE_DRV_B for b: sroce or rxe, default sroce),
#                       link it to eth0, wait for an ACTIVE port; sets
#                       DRV and DEV (sroce0 or rxe0)
# pair_vlan             add VLAN 100 on eth0 (VLAN=eth0.100) with
#                       198.51.100.N/24 and 2001:db8:100::N/64, N the last
#                       byte of this guest's IPv4 address
# pair_kind_gid KIND    "GID TYPE" of a kind of GID, e.g. v2-ipv4,
#                       v1-linklocal, v1-vlan-ipv6 (after pair_vlan)
# v6_gid ADDR           an IPv6 address in sysfs GID notation
# pair_gid_index DEV GID TYPE
#                       gid_index, fast on large GID tables
# pair_run NAME SECS LISTEN
#                       run "${srv[@]}" on the serving guest and "${cli[@]}"
#                       on the other (PR_SERVER names the server, default
#                       b); the client prints one TAP line for both.
#                       LISTEN: "tcp:PORT", "cm" (an rdma_cm listener),
#                       "log:TEXT" (a line of its output) or "-", what the
#                       server must show before the client starts.  Each side gets SECS, then is killed.
#                       On the client PR_OK is 1 if both sides passed, PR_RC
#                       and PR_ST are the client's and the server's exit
#                       status and PR_CLOG the client's output.
#                       PR_TAP=PREFIX: the client prints TAP lines of its
#                       own, and they are the checks: each is reported
#                       again with PREFIX ahead of its name, and NAME only
#                       as a failure if a side failed while the client
#                       reported none.  Plan the client's lines, not NAME.
#                       PR_QUIET=1: no TAP line at all; the caller judges.
# lo_run NAME SECS LISTEN -- SERVER... -- CLIENT...
#                       both ends in this guest (same-host tests)
# words LIST            how many words LIST has
# verify_build PROG MAX compile rdma_verify as PROG; sets cc_out, cc_rc and
#                       per_verify, its count of cases up to MAX (0 when
#                       it cannot tell, which leaves the plan short)

# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

pair_driver_of() {
	local var=SROCE_DRV_${1^^}
	echo "${!var:-sroce}"
}

pair_driver() {
	pair_driver_of "$SROCE_ROLE"
}

pair_link() {
	DRV=$(pair_driver)
	case $DRV in
	sroce)
		sroce_load
		DEV=sroce0
		;;
	rxe)
		modprobe -a ib_uverbs rdma_rxe || fail "modprobe rdma_rxe"
		DEV=rxe0
		;;
	*) fail "SROCE_DRV_${SROCE_ROLE^^} must be sroce or rxe, not '$DRV'" ;;
	esac
	rdma link add "$DEV" type "$DRV" netdev eth0 || fail "rdma link add $DEV type $DRV"
	wait_for 20 bash -c "[[ \"\$(devinfo $DEV state)\" == PORT_ACTIVE* ]]" ||
		fail "$DEV port never became ACTIVE"
	log "guest $SROCE_ROLE runs $DRV ($DEV)"
}

VLAN=eth0.100

pair_vlan() {
	local n=${SROCE_MY_IP4##*.}
	ip link add link eth0 name "$VLAN" type vlan id 100 || fail "cannot add $VLAN"
	ip addr add "198.51.100.$n/24" dev "$VLAN" || fail "cannot address $VLAN"
	ip -6 addr add "2001:db8:100::$n/64" dev "$VLAN" nodad || fail "cannot address $VLAN"
	ip link set "$VLAN" up || fail "cannot bring $VLAN up"
}

# The GID types as sysfs spells them
pair_kind_gid() {
	local kind=$1 n=${SROCE_MY_IP4##*.} type addr
	case $kind in
	v1-*) type="IB/RoCE v1" ;;
	v2-*) type="RoCE v2" ;;
	*) fail "pair_kind_gid: bad kind '$kind'" ;;
	esac
	case ${kind#v?-} in
	ipv4) addr=$(v4_gid "$SROCE_MY_IP4") ;;
	ipv6) addr=$(v6_gid "$SROCE_MY_IP6") ;;
	linklocal) addr=$(v6_gid "$(ip -6 -o addr show dev eth0 scope link |
		awk '{ sub("/.*", "", $4); print $4; exit }')") ;;
	vlan-ipv4) addr=$(v4_gid "198.51.100.$n") ;;
	vlan-ipv6) addr=$(v6_gid "2001:db8:100::$n") ;;
	*) fail "pair_kind_gid: bad kind '$kind'" ;;
	esac
	echo "$addr $type"
}

v6_gid() {
	local addr=$1 head tail x n i out=()
	local -a h=() t=()
	if [[ $addr == *::* ]]; then
		head=${addr%%::*}
		tail=${addr#*::}
	else
		head=$addr
		tail=
	fi
	[ -z "$head" ] || IFS=: read -ra h <<<"$head"
	[ -z "$tail" ] || IFS=: read -ra t <<<"$tail"
	n=$((8 - ${#h[@]} - ${#t[@]}))
	for x in "${h[@]}"; do out+=("$(printf %04x "0x$x")"); done
	for ((i = 0; i < n; i++)); do out+=(0000); done
	for x in "${t[@]}"; do out+=("$(printf %04x "0x$x")"); done
	(IFS=:; echo "${out[*]}")
}

# pair_gid_index DEV GID TYPE: gid_index, by its older name
pair_gid_index() {
	gid_index "$@"
}

_tcp_listening() {
	[ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

_cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep -q 'state LISTEN'
}

# Shown under a failing TAP line, so the log says why.
_show_tail() {
	local who=$1 file=$2
	[ -s "$file" ] || return 0
	echo "# --- $who (last lines)"
	# 40: a client's log holds every attempt of pair_run's retries, and
	# the rejected reconnects after the first one's failure (rping's, in
	# rc-sroce-rxe) can push it out of 15 lines.  Lines cut at 300
	# bytes: rping -v prints each ping's whole buffer, and forty 4 KiB
	# lines would hide a failure's one line of error.
	tail -n "${PR_TAIL:-40}" "$file" | cut -c1-300 | sed 's/^/#   /'
}

_pr_n=0
# shellcheck disable=SC2154 # srv and cli are set by the caller
pair_run() {
	local name=$1 secs=$2 listen=$3 server=${PR_SERVER:-b} n rc st end t0
	local slog stat clog
	_pr_n=$((_pr_n + 1))
	n=$_pr_n
	slog=$SROCE_SHARED/pr.$n.server.log
	stat=$SROCE_SHARED/pr.$n.server.status
	clog=$SROCE_SHARED/pr.$n.client.log

	if [ "$SROCE_ROLE" = "$server" ]; then
		(
			timeout -k 5 "$((secs + 20))" "${srv[@]}" >"$slog" 2>&1
			echo $? >"$stat.tmp"
			mv "$stat.tmp" "$stat"
		) &
		case $listen in
		tcp:*) wait_for 30 _tcp_listening "${listen#tcp:}" ;;
		cm) wait_for 30 _cm_listening ;;
		log:*) wait_for 30 grep -qF "${listen#log:}" "$slog" ;;
		esac || log "$name: the server shows no listener yet; trying anyway"
		barrier "pr$n.up" || return 1
		wait $!
		barrier "pr$n.done" || return 1
		return 0
	fi

	if ! barrier "pr$n.up"; then
		t_fail "$name" "the server side never got ready"
		return 1
	fi
	# A listener that is seen may still be a moment from accepting.
	t0=$SECONDS
	retry "${PR_RETRIES:-3}" timeout -k 5 "$secs" "${cli[@]}" >"$clog" 2>&1
	rc=$?
	log "$name: client done in $((SECONDS - t0)) s"
	end=$((SECONDS + 40))
	until [ -e "$stat" ] || [ $SECONDS -ge $end ]; do
		sleep 0.2
	done
	st=$(cat "$stat" 2>/dev/null || echo "none (still running)")
	PR_OK=0
	PR_RC=$rc
	PR_ST=$st
	PR_CLOG=$clog
	[ "$rc" = 0 ] && [ "$st" = 0 ] && PR_OK=1
	if [ -n "${PR_TAP:-}" ]; then
		_pr_tap "$name" "$PR_TAP"
	elif [ "${PR_QUIET:-0}" = 1 ]; then
		:
	elif [ "$PR_OK" = 1 ]; then
		t_ok "$name"
	else
		_show_tail "client: ${cli[*]}" "$clog"
		_show_tail "server: ${srv[*]}" "$slog"
		t_fail "$name" "client exit $rc, server exit $st"
	fi
	barrier "pr$n.done" || return 1
}

# _pr_tap NAME PREFIX: pair_run's PR_TAP, after the run.  The program's
# "not ok - CASE (why)" becomes t_fail "PREFIX CASE" "why"; a name that
# already starts with PREFIX (say, "rdma_verify ipv4 aborted") keeps it.
# shellcheck disable=SC2154 # srv and cli are set by pair_run's caller
_pr_tap() {
	local name=$1 prefix=$2 line case why failed=0
	while IFS= read -r line; do
		case $line in
		"ok - "*)
			case=${line#ok - }
			[[ $case == "$prefix "* ]] || case="$prefix $case"
			t_ok "$case"
			;;
		"not ok - "*)
			case=${line#not ok - }
			why=${case#* (}
			[ "$why" != "$case" ] || why="no reason given"
			case=${case%% (*}
			[[ $case == "$prefix "* ]] || case="$prefix $case"
			t_fail "$case" "${why%)}"
			failed=1
			;;
		"# "*) log "$prefix: ${line#\# }" ;;
		esac
	done <"$PR_CLOG"
	[ "$PR_OK" = 1 ] && return 0
	_show_tail "client: ${cli[*]}" "$PR_CLOG"
	_show_tail "server: ${srv[*]}" "$SROCE_SHARED/pr.$_pr_n.server.log"
	# Otherwise the plan's shortfall, if any, would be all that told.
	[ "$failed" = 1 ] ||
		t_fail "$name" "client exit $PR_RC, server exit $PR_ST, and no failing line from it"
}

# lo_run NAME SECS LISTEN -- SERVER... -- CLIENT...: both ends here, the
# server first (LISTEN: tcp:PORT or cm, what it shows once ready).  One
# check for the pair; with LO_QUIET=1 none when both pass, as the client's
# own TAP lines (LO_CLIENT_LOG) are the checks then, and a failing line
# only when the client reported no failure of its own.
lo_run() {
	local name=$1 secs=$2 listen=$3 srv=() cli=() spid rc st base=/tmp/lo.run
	shift 3
	[ "$1" = -- ] && shift
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	timeout -k 5 "$((secs + 10))" "${srv[@]}" >"$base.srv" 2>&1 &
	spid=$!
	case $listen in
	tcp:*) wait_for 30 _tcp_listening "${listen#tcp:}" ;;
	cm) wait_for 30 _cm_listening ;;
	esac || log "$name: the server shows no listener yet; trying anyway"
	retry "${LO_RETRIES:-3}" timeout -k 5 "$secs" "${cli[@]}" >"$base.cli" 2>&1
	rc=$?
	wait "$spid"
	st=$?
	# shellcheck disable=SC2034 # the caller reads it
	LO_CLIENT_LOG=$base.cli
	if [ "$rc" = 0 ] && [ "$st" = 0 ]; then
		[ "${LO_QUIET:-0}" = 1 ] || t_ok "$name"
		return 0
	fi
	echo "# client: ${cli[*]}"
	tail -n 15 "$base.cli" | cut -c1-300 | sed 's/^/#   /'
	echo "# server: ${srv[*]}"
	tail -n 15 "$base.srv" | cut -c1-300 | sed 's/^/#   /'
	if [ "${LO_QUIET:-0}" != 1 ] || ! grep -q '^not ok - ' "$base.cli"; then
		t_fail "$name" "client exit $rc, server exit $st"
	fi
	return 1
}

words() {
	local -a w
	read -ra w <<<"$1"
	echo "${#w[@]}"
}

# shellcheck disable=SC2034 # the caller reads what it sets
verify_build() {
	cc_out=$(cc -O2 -Wall -Wextra -o "$1" "$SROCE_REPO/scripts/tests/rdma_verify.c" \
		-libverbs 2>&1)
	cc_rc=$?
	per_verify=0
	if [ "$cc_rc" = 0 ]; then
		per_verify=$("$1" -m "$2" --plan) || per_verify=0
	fi
}

# fio_catches_corruption NAME FAM FILE TAG PEER: one check, that fio's
# crc32c verify catches data PEER changed after a good write.  The
# caller's fio_bad_job ARGS... writes and verifies, and later
# verify-only reads, the same blocks of FILE (fixed seeds);
# corrupt_sync FAM [skip] passes the handshake's barriers whatever
# happened; PEER overwrites bytes inside the data of the block at offset
# bad_blk of FILE and writes "ok", or why not, to
# $SROCE_SHARED/TAG.FAM.spoiled-result.  The verify-only pass must then
# fail at that very block.
fio_catches_corruption() {
	local name=$1 fam=$2 file=$3 tag=$4 peer=$5 fout=/tmp/fio.bad.$RANDOM why="" rc res
	if ! fio_bad_job --do_verify=1 >"$fout" 2>&1; then
		why="the write and verify failed first"
	fi
	[ -z "$why" ] || corrupt_sync "$fam" skip
	[ -n "$why" ] || corrupt_sync "$fam" || why="the $peer did not answer"
	if [ -z "$why" ]; then
		res=$(cat "$SROCE_SHARED/$tag.$fam.spoiled-result" 2>/dev/null)
		[ "$res" = ok ] || why="the $peer could not spoil the block: ${res:-no word}"
	fi
	if [ -z "$why" ]; then
		fio_bad_job --verify_only >"$fout" 2>&1
		rc=$?
		if [ "$rc" = 0 ]; then
			why="fio exit 0: the spoiled block passed its verify"
		elif ! grep -q "crc32c: verify failed at file $file offset $bad_blk," "$fout"; then
			why="fio exit $rc, but no crc32c failure at offset $bad_blk"
		fi
	fi
	if [ -z "$why" ]; then
		log "fio: $(grep -m 1 'crc32c: verify failed' "$fout")"
		t_ok "$name"
	else
		sed "s/^/# /" "$fout" | tail -n 30
		t_fail "$name" "$why"
	fi
}
