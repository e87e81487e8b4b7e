# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for test scripts that scripts/guest.sh runs inside a guest:
#
#   . "$SROCE_LIB"        # or . "$SROCE_REPO/scripts/guest-lib.sh"
#
# log MSG...             timestamped line on the console (stderr)
# fail MSG...            log and exit 1
# sroce_install_module   install $SROCE_KO (guest.sh --ko) for modprobe
# barrier NAME [SECS]    wait until the peer reaches the same NAME
# retry N CMD...         run CMD until it succeeds, at most N times
# t_plan N              declare, before the first check, that this guest
#                        will report N checks: prints the TAP plan "1..N"
# t_ok NAME / t_fail NAME MSG / t_check NAME CMD... / t_done
#                        "ok - NAME" / "not ok - NAME: MSG" lines, counted;
#                        t_done prints "N passed, N failed", fails if any did
#                        or if the count is not the plan
#
# The plan is what makes a check that never ran visible: scripts/check.sh
# fails a guest whose checks fall short of (or exceed) its plan, or that
# printed none.  Compute N from the same lists the script loops over, and
# count a check by the guest that prints it; see Documentation/testing.rst.

: "${SROCE_ROLE:=a}" "${SROCE_PEER_ROLE:=b}" "${SROCE_PAIR:=0}"
: "${SROCE_SHARED:=/shared}" "${SROCE_REPO:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

_t_passed=0
_t_failed=0
_t_plan=

log() {
	local now=$EPOCHREALTIME
	printf '[%s %(%T)T.%s] %s\n' "$SROCE_ROLE" "${now%.*}" "${now:${#now}-6:3}" "$*" >&2
}

fail() {
	log "FAIL: $*"
	exit 1
}

# sroce_install_module [KO]: then "modprobe rdma_sroce" works.  Uses the
# index guest.sh made on the host for its .ko (SROCE_MODINDEX), as
# depmod -a here takes minutes under TCG; falls back to depmod -a.
sroce_install_module() {
	local ko=${1:-${SROCE_KO:-$SROCE_REPO/rdma_sroce.ko}} mods idx=${SROCE_MODINDEX:-} end
	mods=/lib/modules/$(uname -r)
	[ -f "$ko" ] || fail "no $ko; build the module first (make)"
	mkdir -p "$mods/updates" || fail "cannot create $mods/updates"
	cp "$ko" "$mods/updates/" || fail "cannot copy $ko to $mods/updates"
	if [ -n "$idx" ]; then
		end=$((SECONDS + ${SROCE_MODINDEX_TIMEOUT:-300}))
		until [ -e "$idx.ready" ] || [ -e "$idx.failed" ] || [ $SECONDS -ge $end ]; do
			sleep 0.2
		done
		if [ -e "$idx.ready" ] &&
			[ "$(sha256sum <"$ko" | cut -d' ' -f1)" = "$(cat "$idx/ko.sha256")" ]; then
			cp "$idx"/modules.* "$mods/" || fail "cannot copy the module index"
			return 0
		fi
		log "host module index missing or for another .ko; running depmod -a (slow)"
	fi
	depmod -a || fail "depmod failed"
}

# True once the peer guest has finished (or its QEMU is gone): nothing it
# has not done yet will ever happen, so waiting longer is pointless.
_peer_gone() {
	[ -e "$SROCE_SHARED/.rig/status.$SROCE_PEER_ROLE" ] ||
		[ -e "$SROCE_SHARED/.rig/exited.$SROCE_PEER_ROLE" ]
}

# barrier NAME [SECS]: each NAME can be used once per run.  A no-op in
# single mode.  Fails (status 1) on timeout or if the peer has ended.
barrier() {
	local name=$1 secs=${2:-${SROCE_BARRIER_TIMEOUT:-300}} end
	[ "$SROCE_PAIR" = 1 ] || return 0
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || fail "barrier: bad name '$name'"
	: >"$SROCE_SHARED/$name.$SROCE_ROLE" || fail "barrier: cannot write $SROCE_SHARED"
	end=$((SECONDS + secs))
	until [ -e "$SROCE_SHARED/$name.$SROCE_PEER_ROLE" ]; do
		if _peer_gone; then
			log "barrier $name: peer $SROCE_PEER_ROLE ended without reaching it"
			return 1
		fi
		if [ $SECONDS -ge $end ]; then
			log "barrier $name: peer $SROCE_PEER_ROLE did not arrive within $secs s"
			return 1
		fi
		sleep 0.1
	done
}

# retry N CMD...: for a client whose server may not listen yet.  Waits
# SROCE_RETRY_DELAY (default 1) seconds between tries; returns CMD's last
# status, early if the peer has ended.
retry() {
	local n=$1 i rc=1
	shift
	for ((i = 1; i <= n; i++)); do
		"$@" && return 0
		rc=$?
		[ "$i" -lt "$n" ] || break
		if [ "$SROCE_PAIR" = 1 ] && _peer_gone; then
			log "retry: peer $SROCE_PEER_ROLE has ended; giving up on: $*"
			break
		fi
		sleep "${SROCE_RETRY_DELAY:-1}"
	done
	return "$rc"
}

t_plan() {
	[[ $1 =~ ^[0-9]+$ ]] || fail "t_plan: not a count: '$1'"
	[ -z "$_t_plan" ] || fail "t_plan: the plan was already declared ($_t_plan)"
	[ $((_t_passed + _t_failed)) = 0 ] || fail "t_plan: after the first check"
	_t_plan=$1
	echo "1..$1"
}

t_ok() {
	_t_passed=$((_t_passed + 1))
	echo "ok - $1"
}

t_fail() {
	_t_failed=$((_t_failed + 1))
	echo "not ok - $1: ${2:-failed}"
}

# t_check NAME CMD...: runs CMD; its output is shown only if it fails.
t_check() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		t_ok "$name"
	else
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
		t_fail "$name" "exit $rc: $*"
	fi
	return $rc
}

t_done() {
	local ran=$((_t_passed + _t_failed))
	echo "$_t_passed passed, $_t_failed failed"
	if [ -z "$_t_plan" ]; then
		log "t_done: no plan was declared (t_plan)"
		return 1
	fi
	if [ "$ran" != "$_t_plan" ]; then
		log "t_done: planned $_t_plan checks, ran $ran"
		return 1
	fi
	[ $_t_failed = 0 ]
}
