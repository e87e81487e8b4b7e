#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/progs.sh [DIR]: compile the guest tests' C programs
# (scripts/tests/*.c) on the host, into DIR (default build/progs), with
# -Wall -Wextra -Werror: at least as strict as any test's own command.
# The guests run on the host's root file system, so these binaries run
# there as they are; sroce-lib.sh's cc() copies one instead of compiling
# it again, which takes half a minute of a TCG guest's CPU for each.
# Prints each program's compiler output; exits non-zero if one failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$repo/build/progs}
rm -rf "$dir"
mkdir -p "$dir" || exit 1
rc=0
for src in "$repo"/scripts/tests/*.c; do
	name=$(basename "$src" .c)
	if ! out=$(cc -O2 -Wall -Wextra -Werror -o "$dir/$name" "$src" \
		-libverbs -lrdmacm -lpthread 2>&1) || [ -n "$out" ]; then
		echo "$name: ${out:-compiler failed}"
		rm -f "$dir/$name"
		rc=1
	fi
done
exit $rc
