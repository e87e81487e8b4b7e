#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch --strict over every C file and header git tracks (the driver,
# its KUnit suites, the tests' programs), using the checkpatch of Debian's
# linux-source-6.12; the
# driver's layering; no source or build file citing a document that is not
# in the repository, and no text narrating the work rather than the product.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
status=0

# Comments cite the IBTA or Documentation/, never a document kept outside
# the repository.  scripts/tests/ is not checked yet.  The patterns are
# bracketed so that this file does not match itself.
rc=0
cites=$(git grep -n -I --untracked -E \
	-e '(^|[^[:alnum:]_])roce-spe[c]' -e 'design[.]md' -e 'peers[.]md' \
	-e '[.][.]/share[d]/' \
	-- drivers include kunit scripts Kbuild Kconfig Makefile \
	':!scripts/tests') || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
if [ -n "$cites" ]; then
	sed 's/^\([^:]*:[0-9]*\):\(.*\)$/style: \1: cites a document outside the repository: \2/' \
		<<<"$cites" >&2
	status=1
fi

# The tree speaks of the product, not of how the work on it went: no
# numbered work sessions or sittings, no reviews.  Bracketed so that this
# file does not match itself.
rc=0
story=$(git grep -n -I -i --untracked -E \
	-e '(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|[0-9]+(st|nd|rd|th)) (work )?(session|sittin[g])s?' \
	-e '(^|[^[:alnum:]_])(sittin[g]|reviewe[r]s?|review'"'"'s|the revie[w])([^[:alnum:]_]|$)' \
	-- ':!*.o' ':!*.ko') || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
if [ -n "$story" ]; then
	sed 's/^\([^:]*:[0-9]*\):\(.*\)$/style: \1: narrates the work, not the product: \2/' \
		<<<"$story" >&2
	status=1
fi

# Which layer may include which, what each header declares, and which
# files may call each other in a cycle (Documentation/design.rst,
# "Layers"); the last two are read from the built objects.
make -s rig-modules >/dev/null || exit 1
python3 scripts/layers.py || status=1

cache=${SROCE_CACHE:-/var/cache/sroce}
cp=$cache/linux-source-6.12/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.12.tar.*' | head -n 1)
	[ -n "$tarball" ] || { echo "style: linux-source-6.12 is not installed" >&2; exit 1; }
	mkdir -p "$cache"
	tar -C "$cache" -xf "$tarball" linux-source-6.12/scripts linux-source-6.12/Documentation/dev-tools
fi
mapfile -t files < <(git ls-files '*.c' '*.h')
perl "$cp" --strict --no-tree --quiet --show-types \
	-f "${files[@]}" || status=$?
exit "$status"
