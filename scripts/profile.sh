#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make profile: a CPU profile of sroce's hot path in two guests while
# ib_write_bw runs between them (scripts/tests/profile.sh), for each
# message size in SROCE_PROFILE_SIZES (default "4096 65536").  Prints the
# top symbols of the sender (a) and of the receiver (b), and the call
# chains to the symbols named in SROCE_PROFILE_CALLERS (comma-separated).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rc=0
log=
trap 'rm -f "$log"' EXIT
for size in ${SROCE_PROFILE_SIZES:-4096 65536}; do
	log=$(mktemp)
	if ! bash "$repo/scripts/guest.sh" --pair --timeout 300 \
		--env SROCE_PROFILE_SIZE="$size" \
		--env SROCE_PROFILE_CALLERS="${SROCE_PROFILE_CALLERS:-}" \
		"$repo/scripts/tests/profile.sh" >"$log" 2>&1; then
		echo "profile: the $size-byte run failed; its last lines:" >&2
		tail -n 8 "$log" >&2
		rc=1
	fi
	echo "== ib_write_bw, $size-byte messages"
	sed -n 's/^\[a\] PROFILE bw /bandwidth /p' "$log"
	for r in a b; do
		[ $r = a ] && echo "-- sender (a): % of samples, symbol" || echo "-- receiver (b)"
		sed -n "s/^\[$r\] PROFILE $r //p" "$log" | grep -v '^chain ' | head -n 20
		sed -n "s/^\[$r\] PROFILE $r chain //p" "$log"
	done
	rm -f "$log"
done
exit $rc
