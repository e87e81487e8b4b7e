#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rping_client.sh ARGS...: "rping ARGS..." (a client with -v -V -C N), whose
# exit status is whether its pings went through.  Debian 12's rping
# (rdma-core 44) may exit 255 after a run that passed: its CM thread is
# never joined, and may call rdma_get_cm_event() on the event channel
# main() has just destroyed (rdma-core pull request 1622, "rping: Fix
# spurious failure return codes", joins it).  Such an exit is taken as
# success only when the output holds every one of the N pings, each
# printed after rping validated it, that one error line and nothing else
# but rping's DISCONNECT notice.
#
# A command rather than a function of sroce-lib.sh: timeout and the pair
# runners (rdma-pair-lib.sh) exec their client.
set -u
prev='' want='' race='rdma_get_cm_event: Bad file descriptor'
for a in "$@"; do
	[ "$prev" = -C ] && want=$a
	prev=$a
done
out=$(rping "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" = 255 ] && [ -n "$want" ] && [[ " $* " == *" -V "* ]] &&
	[[ " $* " == *" -v "* ]] || exit "$rc"
n=$(grep -c '^ping data: rdma-ping-' <<<"$out")
others=$(grep -v -e '^ping data: rdma-ping-' -e '^client DISCONNECT EVENT\.\.\.$' \
	-e "^$race\$" <<<"$out")
if [ "$n" = "$want" ] && [ -z "$others" ] && grep -qx "$race" <<<"$out"; then
	echo "# rping exited 255 from its CM thread's race at exit (rdma-core PR 1622) after $n validated pings: passed"
	exit 0
fi
exit "$rc"
