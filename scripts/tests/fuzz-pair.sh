#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed and hostile packets from guest a at guest b's sroce, while a
# bystander connection between the two must carry on undisturbed.
#
#   scripts/guest.sh --pair [--env SROCE_FUZZ_SEED=N] [--env SROCE_FUZZ_COUNT=N] \
#       scripts/tests/fuzz-pair.sh
#
# - victim: fuzz_victim.c on both guests, 96 RC QPs pairwise connected;
#   guest a sends one of each RC request on QP 0, which roce_fuzz.py
#   captures (AF_PACKET) as the templates of its packets.
# - bystander: rdma_verify (every byte checked, up to 64 KiB) in a loop
#   from the moment the injection starts, and once more after it ended;
#   every run must pass.  A second one on b alone, both ends on b's own
#   device (its packets looped back inside sroce), loops over the same
#   time, so that loopback traffic and the injected packets meet in b's
#   receive path.
# - roce_fuzz.py injects class after class (truncations, bad ICRC, lying
#   lengths, unknown opcodes, wrong transport, foreign P_Keys, unknown QPNs,
#   PSNs outside the window, invalid rkeys, ranges outside the MR or
#   wrapping, misaligned atomics, huge and zero DMA lengths, ...) over RoCE
#   v2 IPv4, v2 IPv6 and v1, and checks b's counters after each; then
#   SROCE_FUZZ_COUNT (default 3000) seeded random mutations of the captured
#   packets (SROCE_FUZZ_SEED, default random, printed), all within
#   SROCE_FUZZ_SECS (default 300) seconds.  Nothing is ever
#   addressed to a QPN outside the victim's and never-allocated ranges.
# - afterwards b's device must still carry ibv_rc_pingpong --chk.
# The rig fails the run on any kernel splat.

# srv and cli are pair_run's arguments.
# shellcheck disable=SC2034
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

S=$SROCE_SHARED
FUZZ="/usr/bin/python3 $SROCE_REPO/scripts/tests/roce_fuzz.py"
nqp=96
cport=18700
vport=18600
lport=18650
t_start=$SECONDS

pair_link

# The plan: on a, roce_fuzz.py's checks (it counts them itself), the
# bystander's and the pingpong after (pair_run's client); on b, whether the
# victim ran to its end and the loopback bystander's.  Both: ping, the two
# builds, the link delete.
if [ "$SROCE_ROLE" = a ]; then
	fuzz_checks=$($FUZZ plan) || fail "roce_fuzz.py plan failed"
	t_plan $((3 + fuzz_checks + 1 + 1 + 1))
else
	t_plan $((3 + 1 + 1 + 1))
fi

gid4=$(v4_gid "$SROCE_MY_IP4")
wait_for 10 pair_gid_index "$DEV" "$gid4" "RoCE v2" || fail "$DEV: no RoCE v2 GID for $SROCE_MY_IP4"
gidx=$(pair_gid_index "$DEV" "$gid4" "RoCE v2")
[ "$SROCE_ROLE" = b ] && cat /sys/class/net/eth0/address >"$S/mac.b"
t_check "[$SROCE_ROLE] $DRV: ping the peer over eth0" retry 5 ping -c 1 -W 3 "$SROCE_PEER_IP4"
barrier linked || fail "the peer never linked its driver"

build() {
	cc -O2 -Wall -Wextra -o "/tmp/$1" "$SROCE_REPO/scripts/tests/$1.c" -libverbs 2>&1 |
		tee /dev/stderr | { ! grep -q .; }
}
build rdma_verify >"/tmp/build.rdma_verify" 2>&1 &
bv=$!
build fuzz_victim >"/tmp/build.fuzz_victim" 2>&1 &
bf=$!
for p in "$bv rdma_verify" "$bf fuzz_victim"; do
	if wait "${p% *}"; then
		t_ok "[$SROCE_ROLE] ${p#* } compiles cleanly"
	else
		t_fail "[$SROCE_ROLE] ${p#* } compiles cleanly" "$(cat "/tmp/build.${p#* }")"
	fi
done
barrier built || fail "the peer did not build"

# The victim on both guests; b also serves its counters.  It waits for
# the fuzzer as long as this guest may run: the fuzzer's own time grows
# with the kernel (SROCE_FUZZ_SECS), and QPs gone before it ends would
# fail its later checks for the wrong reason.
/tmp/fuzz_victim -d "$DEV" -g "$gidx" -n "$nqp" -r "$SROCE_ROLE" -D "$S" -t "$SROCE_TIMEOUT" \
	>"/tmp/victim.log" 2>&1 &
victim=$!

if [ "$SROCE_ROLE" = b ]; then
	$FUZZ counters --dev "$DEV" --port "$cport" --ready "$S/counters.ready" \
		>/tmp/counters.log 2>&1 &
	counters=$!
	# rdma_verify serves one client per run: a new server for each, until
	# a says the bystander is done.
	wait_for 300 test -e "$S/fuzz.captured" ||
		log "the fuzzer never captured; serving the bystander anyway"
	# The loopback bystander: runs one after another, each with both
	# ends here, until a says the bystander is done.
	(
		j=0
		while [ ! -e "$S/bystander.stop" ]; do
			j=$((j + 1))
			during=1
			[ -e "$S/fuzz.finished" ] && during=0
			timeout -k 5 300 /tmp/rdma_verify -d "$DEV" -g "$gidx" -p "$lport" -t 30 \
				>"/tmp/lo.server.$j.log" 2>&1 &
			spid=$!
			wait_for 30 _tcp_listening "$lport" || true
			timeout -k 5 300 /tmp/rdma_verify -d "$DEV" -g "$gidx" -p "$lport" -t 30 \
				-s "$j" -m 65536 -l "loopback $j" -r b:b 127.0.0.1 \
				>"/tmp/lo.client.$j.log" 2>&1
			st=$?
			wait "$spid"
			echo "$j $st $? $during" >>/tmp/lo.status
		done
	) &
	lo_bystander=$!
	i=0
	while [ ! -e "$S/bystander.stop" ]; do
		i=$((i + 1))
		timeout -k 5 300 /tmp/rdma_verify -d "$DEV" -g "$gidx" -p "$vport" -t 30 \
			>"$S/bystander.server.$i.log" 2>&1 &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			if [ -e "$S/bystander.stop" ]; then
				kill "$pid" 2>/dev/null
				break
			fi
			sleep 0.3
		done
		wait "$pid"
	done
	wait "$lo_bystander"
	touch /tmp/lo.status
	runs=0 bad=0 cases=0 during=0
	while read -r j st sst dur; do
		runs=$((runs + 1))
		n=$(grep -c '^ok - ' "/tmp/lo.client.$j.log")
		cases=$((cases + n))
		during=$((during + dur))
		if [ "$st" != 0 ] || [ "$sst" != 0 ] || [ "$n" = 0 ] ||
		   grep -q '^not ok' "/tmp/lo.client.$j.log"; then
			bad=$((bad + 1))
			log "loopback bystander run $j: client status $st, server status $sst"
			grep -E '^not ok|rdma_verify' "/tmp/lo.client.$j.log" | head -n 10 |
				while IFS= read -r l; do log "  $l"; done
		fi
	done <"/tmp/lo.status"
	log "loopback bystander: $runs runs ($during during the injection), $cases cases"
	if [ "$bad" = 0 ] && [ "$during" -ge 1 ]; then
		name="[b] loopback bystander rdma_verify passed every case of $runs runs"
		t_ok "$name ($cases cases, $during during the injection)"
	else
		t_fail "[b] loopback bystander rdma_verify passed throughout" \
			"$bad of $runs runs failed, $during during the injection"
	fi
	wait_for 60 test -e "$S/fuzz.stop" || log "a never stopped the victim"
	wait "$victim"
	t_check "[b] fuzz_victim ran to its end" test "$?" = 0
	sed -n 's/^# /victim: /p' /tmp/victim.log | while IFS= read -r l; do log "$l"; done
	echo quit | timeout 5 bash -c "cat >/dev/tcp/127.0.0.1/$cport" 2>/dev/null
	wait "$counters" || log "counter server: $(tail -n 3 /tmp/counters.log)"
else
	seed=${SROCE_FUZZ_SEED:-$(((RANDOM << 15) | RANDOM))}
	count=${SROCE_FUZZ_COUNT:-3000}
	# most of its time goes to reading b's counters after each class,
	# which a debug kernel under load makes slow
	fuzz_secs=${SROCE_FUZZ_SECS:-300}
	log "fuzz seed $seed (SROCE_FUZZ_SEED=$seed repeats this run), $count random mutations"
	wait_for 60 test -e "$S/mac.b" || fail "no MAC of guest b"
	# The bystander: from the moment the fuzzer captured its templates
	# until it finished, then once more.
	(
		wait_for 300 test -e "$S/fuzz.captured" || exit 1
		: >"$S/bystander.running"
		i=0
		while :; do
			last=0
			[ -e "$S/fuzz.finished" ] && last=1
			i=$((i + 1))
			timeout -k 5 300 /tmp/rdma_verify -d "$DEV" -g "$gidx" -p "$vport" -t 30 \
				-s "$((seed + i))" -m 65536 -l "run $i" -r a:b "$SROCE_PEER_IP4" \
				>"$S/bystander.client.$i.log" 2>&1
			echo "$i $? $last" >>"$S/bystander.status"
			[ "$last" = 1 ] && break
		done
	) &
	bystander=$!
	wait_for 120 test -e "$S/counters.ready" || log "guest b's counter server is not up"
	t0=$SECONDS
	timeout -k 5 "$fuzz_secs" $FUZZ fuzz --ifname eth0 --dmac "$(cat "$S/mac.b")" \
		--src4 "$SROCE_MY_IP4" --dst4 "$SROCE_PEER_IP4" \
		--src6 "$SROCE_MY_IP6" --dst6 "$SROCE_PEER_IP6" \
		--dir "$S" --counters-host "$SROCE_PEER_IP4" --counters-port "$cport" \
		--seed "$seed" --count "$count" >/tmp/fuzz.out 2>&1
	rc=$?
	# (also when the fuzzer failed early: the bystander runs once anyway)
	: >"$S/fuzz.captured"
	: >"$S/fuzz.finished"
	log "fuzzer done in $((SECONDS - t0)) s (status $rc)"
	fuzz_failed=0
	while IFS= read -r line; do
		case $line in
		"RESULT ok "*) t_ok "${line#RESULT ok }" ;;
		"RESULT fail "*)
			name=${line#RESULT fail }
			t_fail "${name%%: *}" "${name#*: }"
			fuzz_failed=1
			;;
		"# "*) log "${line#\# }" ;;
		"TOTAL "*) total=${line#TOTAL } ;;
		*) log "fuzzer: $line" ;;
		esac
	done </tmp/fuzz.out
	# Its checks are the fuzzer's own: an end short of them leaves the
	# plan unmet; one that reported no failure is made a failure here.
	if [ "$rc" = 0 ] && [ -n "${total:-}" ]; then
		log "fuzzer ran to its end: $total malformed packets, seed $seed"
	elif [ "$fuzz_failed" = 0 ]; then
		t_fail "fuzzer ran to its end" "status $rc, seed $seed: $(tail -n 1 /tmp/fuzz.out)"
	fi
	wait "$bystander"
	: >"$S/fuzz.stop"
	: >"$S/bystander.stop"
	wait "$victim"
	sed -n 's/^# /victim: /p' /tmp/victim.log | while IFS= read -r l; do log "$l"; done

	runs=0 bad=0 cases=0 during=0
	while read -r i st last; do
		runs=$((runs + 1))
		n=$(grep -c '^ok - ' "$S/bystander.client.$i.log")
		cases=$((cases + n))
		[ "$last" = 0 ] && during=$((during + 1))
		if [ "$st" != 0 ] || grep -q '^not ok' "$S/bystander.client.$i.log" || [ "$n" = 0 ]; then
			bad=$((bad + 1))
			log "bystander run $i: status $st"
			grep -E '^not ok|rdma_verify' "$S/bystander.client.$i.log" | head -n 10 |
				while IFS= read -r l; do log "  $l"; done
		fi
	done <"$S/bystander.status"
	log "bystander: $runs runs of rdma_verify ($during started during the injection), $cases cases"
	if [ "$bad" = 0 ] && [ "$during" -ge 1 ] && [ "$runs" -ge 2 ]; then
		t_ok "bystander rdma_verify passed every case of $runs runs ($cases cases, $during during the injection)"
	else
		t_fail "bystander rdma_verify passed throughout" \
			"$bad of $runs runs failed, $during during the injection"
	fi
fi
barrier fuzzed || fail "the peer did not finish the fuzzing"

# b's device still works.
srv=(ibv_rc_pingpong -d "$DEV" -g "$gidx" -s 4096 -m 1024 -n 20 -r 32 --chk)
cli=("${srv[@]}" "$SROCE_PEER_IP4")
PR_SERVER=b pair_run "after the fuzzing: ibv_rc_pingpong 4096 B x20 --chk" 60 tcp:18515

barrier finished || log "the peer did not finish"
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
log "fuzz-pair: $((SECONDS - t_start)) s"
t_done
