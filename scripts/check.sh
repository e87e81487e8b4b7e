#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: build (W=1, sparse), KUnit in QEMU, the guest integration
# tests, then some of them again on the debug guest kernel.  Every check is counted; the last line is
# "N passed, N failed" and the exit status is non-zero if anything failed.
#
# SROCE_CHECK_ONLY="build kunit guest debug" picks stages (default: all),
# SROCE_CHECK_TESTS="NAME..." guest tests by name (default: all), and
# SROCE_CHECK_LONG=1 (make check-long) adds the long variants: the second
# interop direction, rc-pair's full matrix, netem and the full-length soaks
# on the debug kernel.
# Logs are kept (and their directory printed) only when something failed,
# or when SROCE_LOGDIR names where to put them.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
stages=${SROCE_CHECK_ONLY:-build kunit guest debug}
long=${SROCE_CHECK_LONG:-0}
logdir=${SROCE_LOGDIR:-$(mktemp -d /tmp/sroce-check.XXXXXX)}
mkdir -p "$logdir"
passed=0
failed=0
# The guest rig's patterns (guest-init.sh), for the KUnit kernel's log too.
splat_re=$(cat scripts/splat.re)

ok() {
	passed=$((passed + 1))
	echo "ok - $1"
}

not_ok() {
	failed=$((failed + 1))
	echo "not ok - $1${2:+: $2}"
}

# Each stage's duration is printed when the next starts (and at the end),
# so a slow run shows where its time went.
cur_stage=
stage_t0=$SECONDS
check_t0=$SECONDS
stage_done() {
	local d=$((SECONDS - stage_t0))
	[ -z "$cur_stage" ] || printf '=== %s took %dm%02ds\n' "$cur_stage" $((d / 60)) $((d % 60))
	cur_stage=
}

stage() {
	stage_done
	cur_stage=$1
	stage_t0=$SECONDS
	printf '\n=== %s (%s)\n' "$1" "$(date +%T)"
}

want() {
	[[ " $stages " == *" $1 "* ]]
}

# Count the "ok -"/"not ok -" lines a guest test printed, and hold each
# guest to its plan ("1..N", t_plan in guest-lib.sh): a guest that printed
# no plan, or fewer or more checks than it planned, or one check name
# twice, fails here.  A run that failed without reporting a failing check
# (timeout, splat, crash) counts as one failure.
count_tap() {
	local name=$1 log=$2 rc=$3 mode=$4 p=0 f=0 r roles=a key rest
	local n_plans n_plan n_pass n_fail n_dup
	local -A plans=() plan=() np=() nf=() dups=()
	[ "$mode" = pair ] && roles="a b"
	while read -r key r rest; do
		if [ "$key" = dup ]; then
			echo "# $name [$r]: check reported twice: $rest"
			continue
		fi
		read -r n_plans n_plan n_pass n_fail n_dup <<<"$r $rest"
		r=$key
		plans[$r]=$n_plans plan[$r]=$n_plan np[$r]=$n_pass nf[$r]=$n_fail dups[$r]=$n_dup
		p=$((p + n_pass))
		f=$((f + n_fail))
	done < <(awk -f scripts/tap-count.awk "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	for r in $roles; do
		if [ "${plans[$r]:-0}" != 1 ]; then
			not_ok "$name [$r]: one plan line" "${plans[$r]:-0} plan lines"
		elif [ $((np[$r] + nf[$r])) != "${plan[$r]}" ]; then
			not_ok "$name [$r]: checks as planned" \
				"planned ${plan[$r]}, reported $((np[$r] + nf[$r]))"
		fi
		[ "${dups[$r]:-0}" = 0 ] ||
			not_ok "$name [$r]: check names unique" "${dups[$r]} names reported twice"
	done
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		not_ok "$name" "guest run failed with status $rc (see $log)"
	fi
	echo "# $name: $p passed, $f failed, status $rc"
}

# run_guest_tests GUEST_ARGS... -- ENTRY...: each ENTRY is
# "MODE NAME:SCRIPT[:K=V K=V...]", the K=V pairs reaching the script
# through guest.sh --env; GUEST_ARGS go to every guest.sh call.
run_guest_tests() {
	local gargs=() t mode rest name script envs args kv
	while [ "$1" != -- ]; do
		gargs+=("$1")
		shift
	done
	shift
	for t in "$@"; do
		mode=${t%% *}
		rest=${t#* }
		name=${rest%%:*}
		rest=${rest#*:}
		if [ -n "${SROCE_CHECK_TESTS:-}" ] && [[ " $SROCE_CHECK_TESTS " != *" $name "* ]]; then
			continue
		fi
		script=$repo/${rest%%:*}
		envs=()
		[[ $rest == *:* ]] && read -ra envs <<<"${rest#*:}"
		stage "guest $mode $name"
		args=("${gargs[@]}" --timeout 600 --log "$logdir/$mode-$name")
		[ "$mode" = pair ] && args+=(--pair)
		for kv in "${envs[@]}"; do
			args+=(--env "$kv")
		done
		bash scripts/guest.sh "${args[@]}" "$script" 2>&1 | tee "$logdir/$mode-$name.out" |
			grep -E '^(\[[ab]\] )?((not )?ok - |1\.\.[0-9]+$)|guest\.sh:|splat'
		count_tap "$mode $name" "$logdir/$mode-$name.out" "${PIPESTATUS[0]}" "$mode"
	done
}

if want build; then
	stage build
	if make -s modules W=1 C=2 >"$logdir/build.log" 2>&1 &&
	   [ -f rdma_sroce.ko ]; then
		ok "module builds"
		if grep -E 'warning:|error:' "$logdir/build.log"; then
			not_ok "no compiler or sparse warnings (W=1, C=2)"
		else
			ok "no compiler or sparse warnings (W=1, C=2)"
		fi
	else
		cat "$logdir/build.log"
		not_ok "module builds"
	fi
	# A test script make check never runs is a check that never runs.
	unrun=
	for t in $(grep -lE '^[[:space:]]*t_plan ' scripts/tests/*.sh); do
		grep -qF ":$t" scripts/check.sh || unrun+=" $t"
	done
	if [ -z "$unrun" ]; then
		ok "every test script in scripts/tests runs in make check"
	else
		not_ok "every test script in scripts/tests runs in make check" "not listed:$unrun"
	fi
	if bash scripts/style.sh >"$logdir/style.log" 2>&1; then
		ok "checkpatch --strict clean"
	else
		cat "$logdir/style.log"
		not_ok "checkpatch --strict clean"
	fi
fi

# KUnit: the suites run in QEMU on the debug kernel (scripts/kunit.sh).
# The plan comes from the suites' sources (kunit-plan.awk): every suite
# there must report every one of its cases, so a suite dropped from Kbuild
# or a case that never ran is a failure, not a smaller total.  The splat
# scan reads this run's console log.
kunit_ran() {
	awk '
		/=+ [A-Za-z0-9_]+ \([0-9]+ subtests?\) =+/ {
			match($0, /= [A-Za-z0-9_]+ \(/)
			suite = substr($0, RSTART + 2, RLENGTH - 4)
			ran[suite] += 0
			next
		}
		/=/ { next }
		suite != "" && /\] \[(PASSED|FAILED|CRASHED)\] / { ran[suite]++ }
		END { for (s in ran) print s, ran[s] }
	' "$1"
}

if want kunit; then
	stage kunit
	klog=$logdir/kunit.console
	bash scripts/kunit.sh "$klog" >"$logdir/kunit.log" 2>&1
	rc=$?
	grep -E '\] (\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete)' "$logdir/kunit.log" |
		grep -v '====' || true
	p=$(grep -cE '^\[[0-9:]+\] \[PASSED\] ' "$logdir/kunit.log")
	f=$(grep -cE '^\[[0-9:]+\] \[(FAILED|CRASHED)\] ' "$logdir/kunit.log")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		tail -n 40 "$logdir/kunit.log"
		not_ok "kunit run" "kunit.sh exited $rc (see $logdir/kunit.log)"
	fi
	declare -A kran=()
	while read -r suite n; do
		kran[$suite]=$n
	done < <(kunit_ran "$logdir/kunit.log")
	kplanned=0
	kmissing=0
	while read -r suite n; do
		kplanned=$((kplanned + n))
		if [ "${kran[$suite]:-none}" != "$n" ]; then
			kmissing=$((kmissing + 1))
			not_ok "KUnit suite $suite ran its $n cases" "ran ${kran[$suite]:-none}"
		fi
	done < <(awk -f scripts/kunit-plan.awk kunit/*.c || echo "kunit-plan-failed 1")
	echo "# KUnit: $kplanned cases planned in kunit/*.c, $((p + f)) reported"
	[ "$kmissing" != 0 ] || [ "$kplanned" = 0 ] || ok "KUnit: every planned suite and case ran ($kplanned)"
	if [ ! -s "$klog" ]; then
		not_ok "KUnit kernel log free of splats" "no console log $klog"
	elif grep -E "$splat_re" "$klog"; then
		not_ok "KUnit kernel log free of splats" "see $klog"
	else
		ok "KUnit kernel log free of splats (KASAN, lockdep, WARN, BUG)"
	fi
fi

if want guest; then
	[ -f rdma_sroce.ko ] || make -s modules >/dev/null 2>&1
	# "MODE NAME:SCRIPT[:K=V K=V...]": the K=V pairs reach the script
	# through guest.sh --env.  rc-pair's and wire-pair's interop runs skip
	# perftest (the sroce-sroce runs have it) to keep the stage within its
	# budget.
	interop="SROCE_RC_ONLY=pingpong,rdmacm,verify"
	tests=(
		"single rig-smoke:scripts/tests/rig-smoke.sh"
		"pair rig-smoke:scripts/tests/rig-smoke.sh"
		"single link:scripts/tests/link.sh"
		"single verbs-objects:scripts/tests/verbs-objects.sh"
		"single verbs-mr:scripts/tests/verbs-mr.sh"
		"single teardown:scripts/tests/teardown.sh"
		"single hostile-rings:scripts/tests/hostile-rings.sh"
		"pair link-pair:scripts/tests/link-pair.sh"
		"pair rc-sroce-sroce:scripts/tests/rc-pair.sh:SROCE_DRV_A=sroce SROCE_DRV_B=sroce"
		"pair rc-sroce-rxe:scripts/tests/rc-pair.sh:SROCE_DRV_A=sroce SROCE_DRV_B=rxe $interop"
		"pair nvmeof-sroce-sroce:scripts/tests/nvmeof-pair.sh:SROCE_DRV_A=sroce SROCE_DRV_B=sroce"
		"pair transports-sroce-sroce:scripts/tests/transports-pair.sh"
		"pair transports-sroce-rxe:scripts/tests/transports-pair.sh:SROCE_DRV_B=rxe"
		"pair netem-sroce-sroce:scripts/tests/netem-pair.sh"
		"pair mcast-sroce-sroce:scripts/tests/mcast-pair.sh"
		"pair mcast-sroce-rxe:scripts/tests/mcast-pair.sh:SROCE_DRV_B=rxe"
		"pair wire-sroce-sroce:scripts/tests/wire-pair.sh"
		"pair wire-sroce-rxe:scripts/tests/wire-pair.sh:SROCE_DRV_B=rxe SROCE_WIRE_ONLY=wire,rdmacm"
		"pair fuzz-sroce-sroce:scripts/tests/fuzz-pair.sh"
		"single loopback:scripts/tests/loopback.sh"
		"single nvmeof-loopback:scripts/tests/nvmeof-pair.sh"
	)
	# make check-long: what the rest already covers once, again in the
	# other role or at full length.
	# nvmeof-sroce-rxe: in the cold run of 2026-12-01 guest b's rdma_rxe
	# (the target; sroce only on a) died in its own requester
	# (__kmalloc_node_track_caller from rxe_init_packet), not reproduced
	# since; kept to check-long until that is understood.
	long_tests=(
		"pair nvmeof-sroce-rxe:scripts/tests/nvmeof-pair.sh:SROCE_DRV_A=sroce SROCE_DRV_B=rxe"
		"pair rc-rxe-sroce:scripts/tests/rc-pair.sh:SROCE_DRV_A=rxe SROCE_DRV_B=sroce $interop"
		"pair rc-full-sroce-sroce:scripts/tests/rc-pair.sh:SROCE_RC_FULL=1"
	)
	[ "$long" = 1 ] && tests+=("${long_tests[@]}")
	run_guest_tests -- "${tests[@]}"
fi

# The debug guest kernel: sroce built in, KASAN, lockdep, kmemleak.  The
# guest rig fails a run on any splat these report.  rdma_verify stops at
# 1 MiB here: this kernel is several times slower than Debian's.  netem-pair
# (SROCE_NETEM_MAX=65536 passes here too) and transports-pair run on
# Debian's kernel only, to keep make check within its time.
if want debug; then
	stage "debug guest kernel"
	if kernel=$(bash scripts/guest-kernel.sh 2>"$logdir/guest-kernel.log"); then
		ok "debug guest kernel builds (KASAN, lockdep, kmemleak)"
		debug_tests=(
			"pair debug-rc:scripts/tests/rc-pair.sh:SROCE_RC_ONLY=verify SROCE_RC_VERIFY_MAX=1048576"
			"pair debug-mcast:scripts/tests/mcast-pair.sh"
			"single debug-teardown:scripts/tests/teardown.sh:SROCE_TEARDOWN_CYCLES=150"
			"single debug-hostile-rings:scripts/tests/hostile-rings.sh:SROCE_HOSTILE_ROUNDS=4"
			"pair debug-fuzz:scripts/tests/fuzz-pair.sh:SROCE_FUZZ_COUNT=1000"
			"single debug-loopback:scripts/tests/loopback.sh:SROCE_LO_VERIFY_MAX=1048576 SROCE_LO_KINDS=v2-ipv4,v1-ipv6"
		)
		debug_long_tests=(
			"pair debug-rc-long:scripts/tests/rc-pair.sh:SROCE_RC_ONLY=pingpong,rdmacm,verify SROCE_RC_VERIFY_MAX=1048576"
			"single debug-teardown-long:scripts/tests/teardown.sh:SROCE_TEARDOWN_CYCLES=300"
			"single debug-hostile-rings-long:scripts/tests/hostile-rings.sh"
			"pair debug-fuzz-long:scripts/tests/fuzz-pair.sh"
			"pair debug-netem:scripts/tests/netem-pair.sh:SROCE_NETEM_MAX=65536"
		)
		[ "$long" = 1 ] && debug_tests+=("${debug_long_tests[@]}")
		run_guest_tests --kernel "$kernel" -- "${debug_tests[@]}"
	else
		tail -n 40 "$logdir/guest-kernel.log"
		not_ok "debug guest kernel builds (KASAN, lockdep, kmemleak)"
	fi
fi

stage_done
d=$((SECONDS - check_t0))
printf '=== make check took %dm%02ds\n' $((d / 60)) $((d % 60))
echo
if [ "$failed" != 0 ] || [ -n "${SROCE_LOGDIR:-}" ]; then
	echo "logs: $logdir"
else
	rm -rf "$logdir"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
