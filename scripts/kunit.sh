#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a 6.12 kernel from Debian's linux-source with sroce and its KUnit
# suites linked in, and run them in QEMU through kunit.py.  Source, build
# tree and ccache live under $SROCE_CACHE so the second run is incremental.
#
# Usage: scripts/kunit.sh [kunit.py run options...]
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-/var/cache/sroce}
build=$cache/kunit-build
# shellcheck source=scripts/kernel-tree.sh
. "$repo/scripts/kernel-tree.sh"

cd "$src"
python3 tools/testing/kunit/kunit.py run \
	--arch=x86_64 \
	--build_dir="$build" \
	--kunitconfig="$repo/kunit/.kunitconfig" \
	--make_options="CC=$cc" \
	--jobs="$(nproc)" \
	--timeout=300 \
	"$@"
