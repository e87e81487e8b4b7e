#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: perftest between two guests, once with rdma_rxe on both and
# once with sroce on both, in the same rig and run, as a table with the
# ratio sroce/rxe.  Figures, not pass/fail: a tool that does not run on a
# driver shows "n/a".
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
run=$(mktemp -d /tmp/sroce-bench.XXXXXX)
trap 'rm -rf "$run"' EXIT

declare -A val unit
for drv in rxe sroce; do
	echo "bench: $drv on both guests" >&2
	bash "$repo/scripts/guest.sh" --pair --timeout 1200 \
		--env SROCE_BENCH_DRV="$drv" \
		"$repo/scripts/tests/perftest.sh" >"$run/$drv.log" 2>&1 ||
		echo "bench: the $drv run failed (log kept below)" >&2
	# guest a hands its results over on the console
	sed -n "s/^\[a\] BENCH $drv //p" "$run/$drv.log" >"$run/$drv.txt"
	while read -r name v u; do
		val[$drv.$name]=$v
		[ "$u" = - ] || unit[$name]=$u
	done <"$run/$drv.txt"
done

printf '\n%-20s %12s %12s %8s\n' test rxe sroce sroce/rxe
for name in write_bw_64k_1qp write_bw_64k_4qp send_bw_64k read_bw_64k \
	    write_lat_2b send_lat_2b; do
	r=${val[rxe.$name]:-n/a}
	s=${val[sroce.$name]:-n/a}
	u=${unit[$name]:-}
	ratio=n/a
	if [[ $r =~ ^[0-9.]+$ && $s =~ ^[0-9.]+$ ]]; then
		ratio=$(awk -v r="$r" -v s="$s" 'BEGIN { if (r > 0) printf "%.2f", s / r; else print "n/a" }')
	fi
	printf '%-20s %12s %12s %8s  %s\n' "$name" "$r" "$s" "$ratio" "$u"
done
echo "(bandwidth in MB/s, higher is better; latency t_typical in us, lower is better)"
