#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: perftest between two guests, with rdma_rxe on both and with
# sroce on both, in the same rig and run, as a table with the ratio
# sroce/rxe.  Figures, not pass/fail: a tool that does not run on a driver
# shows "n/a".
#
# SROCE_BENCH_ROUNDS (default 3): rounds, each one run per driver, rxe and
# sroce taking turns so that a drift of the host's speed reaches both; a
# cell is the median of its rounds, with the lowest and highest after it.
# SROCE_BENCH_BASE=REV: sroce as of git revision REV too, built in a clone
# of its own, as a column "base" and a ratio sroce/base: what a change did,
# measured in the same run.
# Then, in one guest, sroce over a veth pair with the sender's
# scatter-gather off (every payload copied) and on (zero-copy transmit),
# the same number of rounds (scripts/tests/zerocopy-ab.sh); and 4 QPs
# over a two-queue veth pair in one guest of 1 and of 2 vCPUs, the two
# guests taking turns, a round each (scripts/tests/vcpu-ab.sh).
# Last, instructions: the guests under a TCG plugin that counts what they
# execute (scripts/icount), per KiB moved and per round trip, both
# guests' kernels together, for rdma_rxe, sroce and TCP, the same rounds.
# SROCE_BENCH_ONLY="pairs zc cpus icount" picks those parts (default: all), and
# SROCE_BENCH_ROWS, a regular expression, the rows of the pairs' table
# (default: all; a base older than this option runs all of them).
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${SROCE_BENCH_ROUNDS:-3}
base=${SROCE_BENCH_BASE:-}
run=$(mktemp -d /tmp/sroce-bench.XXXXXX)
trap 'rm -rf "$run"' EXIT
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: SROCE_BENCH_ROUNDS must be a count" >&2; exit 2; }
only=${SROCE_BENCH_ONLY:-pairs zc cpus icount}
want() { [[ " $only " == *" $1 "* ]]; }

kinds=(rxe sroce)
if [ -n "$base" ]; then
	rev=$(git -C "$repo" rev-parse --verify --quiet "$base^{commit}") ||
		{ echo "bench: no revision '$base'" >&2; exit 2; }
	echo "bench: building sroce as of ${rev:0:12} for the base column" >&2
	if ! { git clone -q "$repo" "$run/base" && git -C "$run/base" checkout -q "$rev" &&
		make -s -C "$run/base" modules KVER="$(sh "$repo/scripts/kver.sh" --rig)"; } \
		>"$run/base-build.log" 2>&1; then
		cat "$run/base-build.log" >&2
		echo "bench: the base did not build" >&2
		exit 1
	fi
	kinds+=(base)
fi

# one run: KIND's figures, "name value unit" a line, into $run/KIND.ROUND
bench_run() {
	local kind=$1 round=$2 drv=$1 tree=$repo log
	[ "$kind" = base ] && drv=sroce tree=$run/base
	log=$run/log.$kind.$round
	echo "bench: round $round of $rounds, $kind on both guests" >&2
	if ! bash "$tree/scripts/guest.sh" --pair --timeout 1200 \
		--env SROCE_BENCH_DRV="$drv" --env SROCE_BENCH_ROWS="${SROCE_BENCH_ROWS:-.}" \
		"$tree/scripts/tests/perftest.sh" >"$log" 2>&1; then
		echo "bench: the $kind run of round $round failed; its last lines, and any splat:" >&2
		tail -n 5 "$log" >&2
		# what check.sh and the guests call a splat, not only BUG/WARNING
		grep -E -A 12 -f "$repo/scripts/splat.re" "$log" | head -n 40 >&2
	fi
	# the guests hand their results over on the console
	sed -n "s/^\[[ab]\] BENCH $drv //p" "$log" >"$run/$kind.$round"
}

if want pairs; then
	# the guests' C programs, built once here rather than in each guest
	bash "$repo/scripts/progs.sh" >"$run/progs.log" 2>&1 || cat "$run/progs.log" >&2
	for round in $(seq "$rounds"); do
		for kind in "${kinds[@]}"; do
			bench_run "$kind" "$round"
		done
	done
fi

# cell KIND NAME: "median min max" over the rounds that gave a figure
cell() {
	cat "$run/$1".[0-9]* 2>/dev/null | awk -v n="$2" '$1 == n && $2 ~ /^[0-9.]+$/ { print $2 }' |
		sort -g | awk '{ v[NR] = $1 }
		END { if (!NR) { print "n/a"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.2f %.2f %.2f %d\n", m, v[1], v[NR], NR }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0)
		printf "%.2f", a / b; else print "n/a" }'
}
show() {
	[ "$1" = n/a ] && { echo n/a; return; }
	read -r m lo hi k <<<"$1"
	echo "$m [$lo-$hi]/$k"
}

if want pairs; then
	units=$(cat "$run"/{rxe,sroce,base}.[0-9]* 2>/dev/null | awk '$3 != "-" { u[$1] = $3 } END { for (n in u) print n, u[n] }')
	hdr=$(printf '%-24s %-26s %-26s %9s' test rxe sroce sroce/rxe)
	[ -n "$base" ] && hdr+=$(printf ' %-26s %10s' "base ${rev:0:12}" sroce/base)
	printf '\n%s\n' "$hdr"
	# the rows in the order the guests printed them (b's wire row
	# wherever its console line fell among a's)
	names=$(cat "$run"/{rxe,sroce,base}.[0-9]* 2>/dev/null | awk '!seen[$1]++ { print $1 }')
	for name in $names; do
		r=$(cell rxe "$name")
		s=$(cell sroce "$name")
		line=$(printf '%-24s %-26s %-26s %9s' "$name" "$(show "$r")" "$(show "$s")" \
			"$(ratio "${s%% *}" "${r%% *}")")
		if [ -n "$base" ]; then
			b=$(cell base "$name")
			line+=$(printf ' %-26s %10s' "$(show "$b")" "$(ratio "${s%% *}" "${b%% *}")")
		fi
		printf '%s  %s\n' "$line" "$(awk -v n="$name" '$1 == n { print $2 }' <<<"$units")"
	done
	echo "(median [lowest-highest]/runs with a figure; ratios of the medians;"
	echo " bandwidth in MB/s, higher is better; latency t_typical in us, lower is better)"
fi

# two_cells LABEL KIND_A KIND_B NAME: NAME's cells of two kinds, and B/A
two_cells() {
	local a b
	a=$(cell "$2" "$4")
	b=$(cell "$3" "$4")
	printf '%-24s %-26s %-26s %9s\n' "$1" "$(show "$a")" "$(show "$b")" \
		"$(ratio "${b%% *}" "${a%% *}")"
}

if want zc; then
	# zero-copy transmit against copying, in one guest over veth
	echo "bench: zero-copy against copy over veth, one guest, $rounds rounds" >&2
	if ! bash "$repo/scripts/guest.sh" --timeout 1200 --env SROCE_BENCH_ROUNDS="$rounds" \
		"$repo/scripts/tests/zerocopy-ab.sh" >"$run/log.zc" 2>&1; then
		echo "bench: the zero-copy run failed; its last lines:" >&2
		tail -n 5 "$run/log.zc" >&2
	fi
	for mode in copy zc; do
		sed -n "s/^BENCH zc \(.*\)-$mode /\1 /p" "$run/log.zc" >"$run/$mode.1"
	done
	printf '\n%-24s %-26s %-26s %9s\n' "sroce over veth" "copy (sg off)" "zero-copy (sg on)" zc/copy
	for name in write_bw_4k_veth write_bw_64k_veth zerocopy_packets_4k zerocopy_packets_64k; do
		two_cells "$name" copy zc "$name"
	done
	echo "(ib_write_bw from sroce1 to sroce2 in two namespaces of one guest, MB/s;"
	echo " zerocopy_packets: tx_zerocopy_packets added per run, 0 when copying)"
fi

if want cpus; then
	# What a second vCPU gives: a guest of 1 and one of 2 vCPUs taking
	# turns, a round each, so that a drift of the host's speed reaches
	# both columns (run one after the other, the 1-vCPU column once
	# spread from 55 to 82 MB/s over its three rounds).
	for round in $(seq "$rounds"); do
		for cpus in 1 2; do
			echo "bench: 4 QPs over veth, one guest of $cpus vCPU(s), round $round of $rounds" >&2
			log=$run/log.cpu$cpus.$round
			if ! bash "$repo/scripts/guest.sh" --smp "$cpus" --timeout 600 \
				--env SROCE_BENCH_ROUNDS=1 "$repo/scripts/tests/vcpu-ab.sh" \
				>"$log" 2>&1; then
				echo "bench: the $cpus-vCPU run failed; its last lines:" >&2
				tail -n 5 "$log" >&2
			fi
			sed -n "s/^BENCH vcpu \([a-z]*\) write_bw_64k_4qp_veth_${cpus}cpu /\1 /p" \
				"$log" >"$run/cpu$cpus.$round"
		done
	done
	printf '\n%-24s %-26s %-26s %9s\n' "4 QPs over veth" "1 vCPU" "2 vCPUs" 2/1
	for drv in rxe sroce; do
		two_cells "$drv" cpu1 cpu2 "$drv"
	done
	echo "(ib_write_bw, 4 QPs of 64 KiB messages, between two namespaces of one guest, MB/s;"
	echo " RPS over the guest's CPUs stands in for a NIC's RSS; rdma_rxe 6.12 works in the"
	echo " initial namespace only, so its runs fail: n/a)"
fi

if want icount; then
	# The guests' instructions, counted by a TCG plugin of our own; a
	# count does not depend on the emulator's speed, as time does.
	if ! gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
		-o "$run/icount.so" "$repo/scripts/icount/icount-plugin.c" -lpthread; then
		echo "bench: the instruction-count plugin did not build" >&2
		exit 1
	fi
	for round in $(seq "$rounds"); do
		for kind in rxe sroce tcp; do
			echo "bench: instructions, round $round of $rounds, $kind on both guests" >&2
			d=$run/ic.$kind.$round
			log=$run/log.ic.$kind.$round
			mkdir -p "$d"
			if ! SROCE_GUEST_PLUGIN=$run/icount.so SROCE_GUEST_KEEP_SHARED=$d \
				bash "$repo/scripts/guest.sh" --pair --timeout 2400 \
				--env SROCE_BENCH_DRV="$kind" "$repo/scripts/icount/guest.sh" \
				>"$log" 2>&1; then
				echo "bench: the $kind instruction run of round $round failed; its last lines:" >&2
				tail -n 5 "$log" >&2
			fi
			sed -n 's/^\[a\] ICOUNT //p' "$log" >"$d/rows.txt"
			# "ROW_PART value" lines, for cell()
			python3 "$repo/scripts/icount/report.py" "$d" |
				awk '$4 != "n/a" { print $2 "_total", $5; print $2 "_module", $6;
					print $2 "_crc", $7; print $2 "_rep", $11 }' >"$run/ic$kind.$round"
			rm -rf "$d"
		done
	done
	printf '\n%-24s %-26s %-26s %9s %-26s\n' "instructions" rxe sroce sroce/rxe tcp
	names=$(cat "$run"/ic{rxe,sroce,tcp}.[0-9]* 2>/dev/null | awk '!seen[$1]++ { print $1 }')
	for name in $names; do
		r=$(cell icrxe "$name")
		s=$(cell icsroce "$name")
		t=$(cell ictcp "$name")
		printf '%-24s %-26s %-26s %9s %-26s\n' "$name" "$(show "$r")" "$(show "$s")" \
			"$(ratio "${s%% *}" "${r%% *}")" "$(show "$t")"
	done
	echo "(guest instructions per KiB moved, or per round trip for *_lat_*, both guests'"
	echo " kernels together: _total all kernel code but REP string iterations, _module the"
	echo " driver's module, _crc CRC code, _rep REP string iterations (TCG counts one an"
	echo " element), apart; the long run's count minus the short run's, so start-up and"
	echo " connection set-up cancel out; median [lowest-highest]/runs)"
fi
