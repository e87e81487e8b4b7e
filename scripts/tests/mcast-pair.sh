#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast between two guests with rdma_cm's mckey: guest b joins a group
# with two UD QPs, guest a joins it and sends datagrams, and each of b's
# QPs must receive every one of them.  Over RoCE v2 (IPv4 group) and, with
# RoCE v1 as rdma_cm's default mode (configfs), over RoCE v1 (IPv4 and IPv6
# groups).  rdma_cm refuses IPv6 groups over RoCE v2 (-ENOTSUPP from
# cma_iboe_join_multicast() in 6.12, whatever the device).
# On b the receive counters must show the format used and the multicast
# deliveries; once mckey has left, b's netdev must have left the group.
#
# Then the same with plain verbs (mcast_ud.c: ibv_attach_mcast and an AH
# to the group, no rdma_cm), which also checks each datagram's payload and
# the group address in its GRH: IPv6 over RoCE v2, IPv4 over RoCE v2
# (no rdma_cm joining the group for the device), IPv6 over RoCE v1.  Its
# checks are shown to fail: in a self-test run a sends one datagram with a
# wrong payload byte and b spoils the GRH group address of another as it
# arrives; b's mcast_ud must report exactly those, on each QP.
#
# SROCE_DRV_A, SROCE_DRV_B   sroce (default) or rxe; rxe has no RoCE v1,
#                            so its runs cover the RoCE v2 group only

# srv and cli are pair_run's arguments.
# shellcheck disable=SC2034
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

pair_link

msgs=20
qps=2
# name -> "group bind-address roce-mode"
declare -A cases=(
	[v2-ipv4]="239.1.2.3 $SROCE_MY_IP4 RoCE v2"
	[v1-ipv4]="239.1.2.4 $SROCE_MY_IP4 IB/RoCE v1"
	[v1-ipv6]="ff0e::db8:1:2:4 $SROCE_MY_IP6 IB/RoCE v1"
)
order="v2-ipv4 v1-ipv4 v1-ipv6"
if [ "$DRV" = rxe ] || [ "$(pair_driver_of "$SROCE_PEER_ROLE")" = rxe ]; then
	order="v2-ipv4"
fi

# name -> "group GID-type", the GID being this guest's eth0 address
declare -A vcases=(
	[verbs-v2-ipv6]="ff0e::db8:1:2:5 RoCE v2"
	[verbs-v2-ipv4]="239.1.2.6 RoCE v2"
	[verbs-v1-ipv6]="ff0e::db8:1:2:7 IB/RoCE v1"
)
vorder="verbs-v2-ipv6 verbs-v2-ipv4 verbs-v1-ipv6"
if [ "$DRV" != sroce ] || [ "$(pair_driver_of "$SROCE_PEER_ROLE")" != sroce ]; then
	vorder=
fi
# mcast_ud's self-test: the group, and the datagrams a and b spoil
st_group=239.1.2.8
st_sent=3
st_grh=5

# The plan, from the loops below: pair_run's client (a) reports each run;
# b checks its counters and group memberships, and the self-test.
plan() {
	local n=3 b=0 k
	[ "$SROCE_ROLE" = b ] && b=1
	for k in $order; do
		n=$((n + 1 + (1 - b)))
		[ "$b" = 1 ] && [ "$DRV" = sroce ] && n=$((n + 3))
	done
	if [ -n "$vorder" ]; then
		n=$((n + 1 + b))
		for k in $vorder; do
			n=$((n + (1 - b) + 2 * b))
		done
	fi
	echo "$n"
}
t_plan "$(plan)"

t_check "[$SROCE_ROLE] $DRV: ping the peer over eth0" retry 5 ping -c 1 -W 3 "$SROCE_PEER_IP4"
modprobe rdma_ucm || fail "modprobe rdma_ucm"
barrier linked || fail "the peer never linked its driver"

counter() {
	cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

# rdma_cm's default GID type for $DEV: "RoCE v2" or "IB/RoCE v1"
cm_mode() {
	local d=/sys/kernel/config/rdma_cm/$DEV
	[ -d "$d" ] || mkdir "$d" || return 1
	echo "$1" >"$d/ports/1/default_roce_mode" &&
		[ "$(cat "$d/ports/1/default_roce_mode")" = "$1" ]
}

# The link-layer address of an IPv4 or IPv6 group, as "ip maddr" shows it
group_mac() {
	local g=$1 a b c
	case $g in
	*:*)
		# 33:33 and the low 32 bits of the group
		python3 -c 'import ipaddress, sys
b = ipaddress.IPv6Address(sys.argv[1]).packed[12:]
print("33:33:" + ":".join("%02x" % x for x in b))' "$g"
		;;
	*)
		IFS=. read -r _ a b c <<<"$g"
		printf '01:00:5e:%02x:%02x:%02x\n' $((a & 127)) "$b" "$c"
		;;
	esac
}

for kind in $order; do
	read -r group bind mode <<<"${cases[$kind]}"
	t_check "[$SROCE_ROLE] $kind: rdma_cm default mode of $DEV: $mode" cm_mode "$mode"
	barrier "mode-$kind" || fail "the peer never set its rdma_cm mode"

	name="mckey $kind $group: $qps QPs on b receive $msgs datagrams from a"
	# line-buffered, so that pair_run sees b is ready to receive
	srv=(stdbuf -oL mckey -m "$group" -b "$bind" -c "$qps" -C "$msgs")
	cli=(mckey -m "$group" -b "$bind" -s -C "$msgs")
	v1=$(counter rx_roce_v1_packets)
	v2=$(counter rx_roce_v2_packets)
	mc=$(counter rx_multicast_packets)
	PR_RETRIES=1 pair_run "$name" 60 "log:receiving data transfers"

	if [ "$SROCE_ROLE" != b ] || [ "$DRV" != sroce ]; then
		continue
	fi
	v1=$(($(counter rx_roce_v1_packets) - v1))
	v2=$(($(counter rx_roce_v2_packets) - v2))
	mc=$(($(counter rx_multicast_packets) - mc))
	case $kind in
	v1-*) t_check "$kind: arrived as RoCEv1 ($v1 v1, $v2 v2 packets)" \
		test "$v1" -ge "$msgs" -a "$v2" = 0 ;;
	v2-*) t_check "$kind: arrived as RoCEv2 ($v1 v1, $v2 v2 packets)" \
		test "$v2" -ge "$msgs" -a "$v1" = 0 ;;
	esac
	t_check "$kind: $mc multicast deliveries counted for $msgs datagrams" \
		test "$mc" = "$msgs"
	mac=$(group_mac "$group")
	t_check "$kind: eth0 left $group and $mac after mckey" \
		bash -c "! ip maddr show dev eth0 | awk '{ print \$2 }' |
			grep -qixF -e '$group' -e '$mac'"
done

t_check "[$SROCE_ROLE] rdma_cm default mode of $DEV back to RoCE v2" cm_mode "RoCE v2"

prog=/tmp/mcast_ud
[ -z "$vorder" ] || t_check "[$SROCE_ROLE] mcast_ud compiles cleanly" bash -c \
	"cc -O2 -Wall -Wextra -Werror -o $prog $SROCE_REPO/scripts/tests/mcast_ud.c -libverbs"
for kind in $vorder; do
	read -r group type <<<"${vcases[$kind]}"
	case $kind in
	*-ipv4) gid=$(v4_gid "$SROCE_MY_IP4") ;;
	*) gid=$(v6_gid "$SROCE_MY_IP6") ;;
	esac
	wait_for 10 pair_gid_index "$DEV" "$gid" "$type" || fail "$DEV: no $type GID $gid"
	gidx=$(pair_gid_index "$DEV" "$gid" "$type")

	name="mcast_ud $kind $group: $qps QPs on b receive $msgs datagrams from a"
	srv=(stdbuf -oL "$prog" -d "$DEV" -g "$gidx" -m "$group" -r -q "$qps" -n "$msgs")
	cli=("$prog" -d "$DEV" -g "$gidx" -m "$group" -s -n "$msgs")
	v1=$(counter rx_roce_v1_packets)
	v2=$(counter rx_roce_v2_packets)
	PR_RETRIES=1 pair_run "$name" 60 "log:ready"

	[ "$SROCE_ROLE" = b ] || continue
	v1=$(($(counter rx_roce_v1_packets) - v1))
	v2=$(($(counter rx_roce_v2_packets) - v2))
	case $kind in
	*-v1-*) t_check "$kind: arrived as RoCEv1 ($v1 v1, $v2 v2 packets)" \
		test "$v1" -ge "$msgs" -a "$v2" = 0 ;;
	*) t_check "$kind: arrived as RoCEv2 ($v1 v1, $v2 v2 packets)" \
		test "$v2" -ge "$msgs" -a "$v1" = 0 ;;
	esac
	t_check "$kind: eth0 left $group after the last detach" \
		bash -c "! ip maddr show dev eth0 | awk '{ print \$2 }' | grep -qixF '$group'"
done

# The self-test: b must report datagram $st_sent's payload (spoilt by a)
# and datagram $st_grh's group address (spoilt by b) on every QP, nothing
# else, and fail.
selftest() {
	local gidx pid rc sst want got name
	name="mcast_ud self-test: a wrong payload and a wrong GRH group reported"
	gidx=$(pair_gid_index "$DEV" "$(v4_gid "$SROCE_MY_IP4")" "RoCE v2")
	if [ "$SROCE_ROLE" = a ]; then
		barrier selftest.ready || return 1
		"$prog" -d "$DEV" -g "$gidx" -m "$st_group" -s -n "$msgs" -x "$st_sent" \
			>/tmp/selftest.log 2>&1
		echo $? >"$SROCE_SHARED/selftest.sender"
		barrier selftest.done
		return
	fi
	stdbuf -oL "$prog" -d "$DEV" -g "$gidx" -m "$st_group" -r -q "$qps" -n "$msgs" \
		-x "$st_grh" -t 60 >/tmp/selftest.log 2>&1 &
	pid=$!
	wait_for 30 grep -q '^ready' /tmp/selftest.log ||
		log "self-test: the receiver is not ready; trying anyway"
	barrier selftest.ready || { kill "$pid"; t_fail "$name" "a never sent"; return 1; }
	wait "$pid"
	rc=$?
	barrier selftest.done
	sst=$(cat "$SROCE_SHARED/selftest.sender" 2>/dev/null || echo none)
	want=$(for ((q = 0; q < qps; q++)); do
		echo "mcast_ud: QP $q: datagram $st_sent corrupted or out of order"
		echo "mcast_ud: QP $q: datagram $st_grh not addressed to the group"
	done | sort)
	got=$(grep '^mcast_ud: QP ' /tmp/selftest.log | sort)
	if [ "$sst" = 0 ] && [ "$rc" = 1 ] && [ "$got" = "$want" ]; then
		t_ok "$name"
	else
		sed 's/^/# /' /tmp/selftest.log
		t_fail "$name" "sender exit $sst, receiver exit $rc, want exit 1 and: $want"
	fi
}
[ -z "$vorder" ] || selftest
rm -f "$prog"
barrier finished || true
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
t_done
