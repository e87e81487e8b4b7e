#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce follows its netdev's own DCB configuration (IEEE PFC and ETS, as
# dcbnl reports them), in one guest.  No netdev a guest has implements
# dcbnl, so a test fixture (dcb_shim/, built here against the guest's
# kernel headers) gives veth d0 IEEE DCB operations kept in memory, and
# dcb(8) sets them as on a NIC with DCB.  sroce0 runs on d0, sroce1 on its
# peer d1 in ns2, which has no DCB.
#  - qos/dcb is "on" (following) on d0 and "none" on d1; pfc and ets
#    show the netdev's settings, and change with them within the poll
#    interval; a traffic class's ETS share is split among its priorities
#    and strict classes stay strict;
#  - while they are in force, writes to pfc and ets are refused (EBUSY,
#    a log line, nothing changed); qos/dcb takes only on and off;
#  - on the wire, the PFC priority dcb(8) set gets priority tags;
#  - the DSCP entries of d0's application table (dcb app) are followed:
#    trust dscp while there are any, their priorities in dscp2prio (the
#    rest DSCP >> 3), and on the wire a RoCEv2 packet's priority comes
#    from its DSCP; trust and dscp2prio refuse writes meanwhile;
#  - qos/dcb off: sroce's own settings, writable, not following; on
#    again: the netdev's, at once; an ETS sroce cannot follow (a
#    credit-based shaper class) or a netdev that stops reporting DCB
#    leaves the last settings in place and says why.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

t_plan 32

shim=/tmp/dcb_shim
q0=/sys/class/infiniband/sroce0/ports/1/qos
q1=/sys/class/infiniband/sroce1/ports/1/qos

# the fixture, against the headers of the running kernel
rm -rf "$shim"
cp -r "$SROCE_REPO/scripts/tests/dcb_shim" "$shim"
out=$(make -s -C "/lib/modules/$(uname -r)/build" M="$shim" modules 2>&1)
t_status "the DCB fixture builds" $? "$out" || { t_done; exit; }

sroce_load
ip netns add ns2
ip link add d0 type veth peer name d1 netns ns2
ip addr add 203.0.113.1/24 dev d0
ip -n ns2 addr add 203.0.113.2/24 dev d1
ip link set d0 up
ip -n ns2 link set d1 up
ip -n ns2 link set lo up
t_check "d0 gets IEEE DCB operations" insmod "$shim/dcb_shim.ko" ifname=d0

dmesg -C
rdma link add sroce0 type sroce netdev d0
ip netns exec ns2 rdma link add sroce1 type sroce netdev d1
# shellcheck disable=SC2016 # the inner bash expands devinfo
t_check "sroce0 on d0 and sroce1 on d1 in ns2, both active with their GIDs" \
	wait_for 20 bash -c '[[ "$(devinfo sroce0 state)" == PORT_ACTIVE* ]] &&
		[[ "$(devinfo sroce1 state)" == PORT_ACTIVE* ]] &&
		gid_index sroce0 "$(v4_gid 203.0.113.1)" "RoCE v2" &&
		gid_index sroce1 "$(v4_gid 203.0.113.2)" "RoCE v2"'

# t_follows NAME ATTR WANT: sroce0's qos/ATTR reads WANT within 3 s (the
# poll interval and a TCG guest's delays); logs how long it took
t_follows() {
	local name=$1 attr=$2 want=$3 t0=$EPOCHREALTIME
	if wait_for 3 bash -c "[ \"\$(cat $q0/$attr)\" = '$want' ]"; then
		t_ok "$name"
		log "$name: after $(awk -v a="${t0/,/.}" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.2f", b - a }') s"
	else
		t_fail "$name" "$attr is '$(cat "$q0/$attr")', want '$want'"
	fi
}

t_follows "qos/dcb is on over d0" dcb on
t_sysattr "qos/dcb is none over d1, which has no DCB" "$q1/dcb" none
if dmesg | grep -qF "qos: following the DCB settings of d0"; then
	t_ok "the log says sroce0 follows d0's DCB"
else
	t_fail "the log says sroce0 follows d0's DCB" "$(dmesg | grep sroce | tail -n 3)"
fi
t_sysattr "pfc is d0's: off" "$q0/pfc" 0,0,0,0,0,0,0,0
t_sysattr "ets is d0's: eight classes of equal share" "$q0/ets" 13,13,13,13,12,12,12,12

dcb pfc set dev d0 prio-pfc 3:on
t_follows "pfc follows dcb pfc set prio-pfc 3:on" pfc 0,0,0,1,0,0,0,0
# priorities 0-2, 4, 5 and 7 share class 0's 60 %, 3 has class 3's 40 %,
# 6 is class 6, strict
dcb ets set dev d0 prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:6 7:0 \
	tc-tsa all:ets 6:strict tc-bw 0:60 1:0 2:0 3:40 4:0 5:0 6:0 7:0
t_follows "ets follows dcb ets set, class shares split by priority" ets \
	10,10,10,40,10,10,strict,10

busy="the netdev's DCB settings are in force (qos/dcb is on)"
t_cfg_refuse "$q0" pfc 0,0,0,0,0,0,0,0 "Device or resource busy" "$busy"
t_cfg_refuse "$q0" ets 13,13,13,13,12,12,12,12 "Device or resource busy" "$busy"
t_cfg_refuse "$q0" dcb maybe "Invalid argument" "write on or off"

# --- on the wire: priority 3 is tagged, as d0's PFC asks ----------------------

g0=$(gid_index sroce0 "$(v4_gid 203.0.113.1)" "RoCE v2")
g1=$(gid_index sroce1 "$(v4_gid 203.0.113.2)" "RoCE v2")
port=18800
# wire_tags NAME SL TCLASS DSCP: an ib_send_bw of 50 messages on SL and
# traffic class TCLASS; every RoCE frame of sroce0's is to carry a
# priority tag (VLAN 0) of PCP 3, and DSCP in its IP header
wire_tags() {
	local name=$1 sl=$2 tclass=$3 dscp=$4 cap=/tmp/dcb.pcap dpid spid rc n tags
	local args=(-S "$sl" --tclass "$tclass" -n 50 -s 1024 -F -p "$port")
	ip netns exec ns2 dumpcap -q -i d1 -w "$cap" 2>/tmp/dumpcap.err &
	dpid=$!
	wait_for 10 test -s "$cap"
	ip netns exec ns2 timeout 60 ib_send_bw -d sroce1 -x "$g1" "${args[@]}" \
		>/tmp/dcb.srv 2>&1 &
	spid=$!
	wait_for 20 bash -c "ip netns exec ns2 ss -ltn | grep -q ':$port '"
	timeout 60 ib_send_bw -d sroce0 -x "$g0" "${args[@]}" 203.0.113.2 \
		>/tmp/dcb.cli 2>&1
	rc=$?
	wait "$spid" || rc=1
	port=$((port + 1))
	sleep 1
	kill "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	# per RoCE frame sroce0 sent: its VLAN ID and PCP (empty when
	# untagged), and its DSCP
	tshark -r "$cap" -Y "ip.src == 203.0.113.1 && udp.dstport == 4791" -T fields \
		-e vlan.id -e vlan.priority -e ip.dsfield.dscp >/tmp/dcb.fields 2>/tmp/tshark.err
	rm -f "$cap"
	tags=$(sort /tmp/dcb.fields | uniq -c | tr -s ' \t' ' ' | tr '\n' ';')
	n=$(wc -l </tmp/dcb.fields)
	if [ "$rc" = 0 ] && [ "$n" -ge 50 ] && ! grep -qvP "^0\t3\t$dscp\$" /tmp/dcb.fields; then
		t_ok "$name: all of sroce0's $n frames priority-tagged (VLAN 0, PCP 3), DSCP $dscp"
	else
		t_fail "$name: all of sroce0's frames priority-tagged (VLAN 0, PCP 3), DSCP $dscp" \
			"status $rc, $n frames (VLAN, PCP, DSCP): $tags $(tail -n 1 /tmp/dcb.cli /tmp/dcb.srv | tr "\n" " ")"
	fi
}
wire_tags "ib_send_bw on SL 3" 3 0 0

# --- the DSCP entries of d0's application table ------------------------------

# dscp2prio's text: the priority of each DSCP, DSCP >> 3 but for the
# pairs given ("10:3 46:6")
dscp_map() {
	local d p out=()
	for d in $(seq 0 63); do
		p=$((d >> 3))
		for pair in "$@"; do
			[ "${pair%:*}" = "$d" ] && p=${pair#*:}
		done
		out+=("$p")
	done
	(IFS=,; echo "${out[*]}")
}
t_sysattr "trust is d0's: pcp, with no DSCP entry in its app table" "$q0/trust" pcp
t_cfg_refuse "$q0" trust dscp "Device or resource busy" "$busy"
t_cfg_refuse "$q0" dscp2prio "10 3" "Device or resource busy" "$busy"
dcb app add dev d0 dscp-prio 10:3 46:6
t_follows "trust follows dcb app add dscp-prio: dscp" trust dscp
t_sysattr "dscp2prio is d0's: 10 on 3, 46 on 6, the rest DSCP >> 3" "$q0/dscp2prio" \
	"$(dscp_map 10:3 46:6)"
# SL 0 would be priority 0, untagged: the tag says the DSCP chose
wire_tags "ib_send_bw on SL 0, traffic class 40 (DSCP 10)" 0 40 10
dcb app del dev d0 dscp-prio 10:3 46:6
t_follows "dcb app del: trust pcp again" trust pcp
t_sysattr "... and dscp2prio DSCP >> 3 again" "$q0/dscp2prio" "$(dscp_map)"

# --- off, and on again -----------------------------------------------------------

echo off >"$q0/dcb"
t_check "qos/dcb off: pfc is sroce's to set" bash -c "echo 0,0,0,0,0,0,0,1 >$q0/pfc"
dcb pfc set dev d0 prio-pfc 5:on
sleep 2.5
t_sysattr "qos/dcb off: pfc does not follow d0 (2.5 s)" "$q0/pfc" 0,0,0,0,0,0,0,1
echo on >"$q0/dcb"
t_sysattr "qos/dcb on: d0's pfc as the write returns" "$q0/pfc" 0,0,0,1,0,1,0,0

# --- what sroce cannot follow ----------------------------------------------------

dmesg -C
dcb ets set dev d0 tc-tsa 3:cbs
t_follows "a credit-based shaper class: qos/dcb reads none" dcb none
t_sysattr "... and ets stays as it was" "$q0/ets" 10,10,10,40,10,10,strict,10
why="a traffic class has an algorithm other than strict priority or ETS"
if dmesg | grep -qF "qos: not following the DCB settings of d0: $why"; then
	t_ok "... and the log says why"
else
	t_fail "... and the log says why" "$(dmesg | grep sroce | tail -n 3)"
fi
dcb ets set dev d0 tc-tsa 3:ets
t_follows "an ETS class again: followed again" dcb on

dmesg -C
t_check "the fixture unloads" rmmod dcb_shim
t_follows "d0 without DCB: qos/dcb reads none" dcb none
t_check "... pfc keeps d0's last settings and is sroce's to set again" bash -c "
	[ \"\$(cat $q0/pfc)\" = 0,0,0,1,0,1,0,0 ] && echo 0,0,0,1,0,0,0,0 >$q0/pfc"

rdma link delete sroce0
ip netns exec ns2 rdma link delete sroce1
ip link delete d0
t_done
