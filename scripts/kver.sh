#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Which kernel `make` builds rdma_sroce for.
#
#   kver.sh             the running kernel, when its headers are installed;
#                       else the newest installed kernel of a supported
#                       series, said on stderr
#   kver.sh --rig       the newest installed 6.12 kernel: the one the test
#                       guests boot (scripts/guest.sh)
#   kver.sh --newest S  the newest installed kernel of series S
#   kver.sh --series    the supported series, one per line
#   kver.sh --series-of RELEASE   its series: 6.1.0-57-amd64 -> 6.1
#
# The supported series are the columns of compat/expected: the kernels
# whose probe results are written down and checked.  Prints nothing when
# there is no kernel to build for.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
expected=$here/../compat/expected

series() {
	awk '$1 == "#" && $2 == "probe" { for (i = 3; i <= NF; i++) print $i }' "$expected"
}

series_of() {
	echo "$1" | sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p'
}

supported() {
	series | grep -qxF "$(series_of "$1")"
}

# installed [SERIES]: kernels with headers, newest last
installed() {
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] || continue
		k=${d%/build}
		k=${k##*/}
		if [ -n "${1:-}" ]; then
			[ "$(series_of "$k")" = "$1" ] && echo "$k"
		else
			supported "$k" && echo "$k"
		fi
	done | sort -V
}

case ${1:-} in
--series) series ;;
--series-of) series_of "${2:?--series-of wants a release}" ;;
--newest) installed "${2:?--newest wants a series}" | tail -n 1 ;;
--rig) installed 6.12 | tail -n 1 ;;
"")
	run=$(uname -r)
	if [ -e "/lib/modules/$run/build/Makefile" ]; then
		supported "$run" ||
			echo "sroce: building for the running kernel $run, which is not one of the" \
			     "supported series ($(series | tr '\n' ' ' | sed 's/ $//'))" >&2
		echo "$run"
		exit 0
	fi
	k=$(installed | tail -n 1)
	[ -z "$k" ] ||
		echo "sroce: no headers for the running kernel $run; building for $k" \
		     "(make KVER=... picks another)" >&2
	echo "$k"
	;;
*)
	echo "usage: kver.sh [--rig | --newest SERIES | --series | --series-of RELEASE]" >&2
	exit 2
	;;
esac
