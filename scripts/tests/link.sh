#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Link lifecycle and bad input in one guest, over veth pairs and network
# namespaces: rdma link add/delete, port state and MTU following the netdev,
# both RoCE GID types, per-namespace receive hooks, and every refusal.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

# netdev MTU:active IB MTU, one check each
mtus=(1500:1024 2200:2048 4200:4096 9000:4096 1100:512)
# The checks outside that loop, by section: identity 12, GIDs 8, port
# state 7, refusals 7, delete and reuse 3, netdev removal 2, namespaces
# 8, rdma_rxe 6, module unload 7.
t_plan $((12 + 8 + 7 + ${#mtus[@]} + 7 + 3 + 2 + 8 + 6 + 7))

sroce_load

ip link add va mtu 4200 type veth peer name vb mtu 4200
ip link set va up
ip link set vb up
ip addr add 198.51.100.1/24 dev va
ip -6 addr add 2001:db8:1::1/64 dev va nodad
mac_va=$(cat /sys/class/net/va/address)

# --- add, show, identity -------------------------------------------------
t_check "link add sroce0 on va" rdma link add sroce0 type sroce netdev va
t_check "rdma link shows sroce0 on va" \
	bash -c 'rdma link show sroce0/1 | grep -q "netdev va"'
t_check "ibv_devices lists sroce0" bash -c 'ibv_devices | grep -qw sroce0'
t_check "ibv_devinfo opens sroce0" ibv_devinfo -d sroce0
# the first link picks the ICRC's CRC-32: the crypto API's PCLMULQDQ code
# where the CPU has the instruction (QEMU's -cpu max does)
icrc=$(dmesg | sed -n 's/.*rdma_sroce: ICRC through //p' | tail -n 1)
if grep -qw pclmulqdq /proc/cpuinfo; then want=crc32-pclmul; else want=crc32_le; fi
[ "${icrc%%:*}" = "$want" ] && t_ok "the ICRC runs through $want" ||
	t_fail "the ICRC runs through $want" "the log says '${icrc:-nothing}'"

guid=$(mac_guid "$mac_va")
[ "$(devinfo sroce0 node_guid)" = "$guid" ] && t_ok "node_guid is the MAC's EUI-64" ||
	t_fail "node_guid is the MAC's EUI-64" "got $(devinfo sroce0 node_guid), want $guid"
[ "$(devinfo sroce0 sys_image_guid)" = "$guid" ] && t_ok "sys_image_guid set" ||
	t_fail "sys_image_guid set" "got $(devinfo sroce0 sys_image_guid)"
vid=$(devinfo sroce0 vendor_id)
[ -n "$vid" ] && [ "$((vid))" -ne 0 ] && t_ok "vendor_id non-zero ($vid)" ||
	t_fail "vendor_id non-zero" "got '$vid'"
msg=$(devinfo sroce0 max_msg_sz)
[ -n "$msg" ] && [ "$((msg))" -ge $((2 << 30)) ] && t_ok "max_msg_sz >= 2 GiB ($msg)" ||
	t_fail "max_msg_sz >= 2 GiB" "got '$msg'"
t_check "link_layer Ethernet" bash -c '[ "$(devinfo sroce0 link_layer)" = Ethernet ]'
t_check "driver is probed by librxe (transport InfiniBand)" \
	bash -c 'ibv_devinfo -d sroce0 | grep -q "transport:.*InfiniBand"'
speed=$(devinfo sroce0 active_speed)
[ -n "$speed" ] && t_ok "active_speed reported ($speed)" || t_fail "active_speed reported"

# --- GIDs: both RoCE types, following the addresses ----------------------
gid4=$(v4_gid 198.51.100.1)
gid6=2001:0db8:0001:0000:0000:0000:0000:0001
t_check "IPv4 GID as RoCE v2" wait_for 10 has_gid_type sroce0 "$gid4" "RoCE v2"
t_check "IPv4 GID as RoCE v1" has_gid_type sroce0 "$gid4" "IB/RoCE v1"
t_check "IPv6 GID as RoCE v2" wait_for 10 has_gid_type sroce0 "$gid6" "RoCE v2"
t_check "IPv6 GID as RoCE v1" has_gid_type sroce0 "$gid6" "IB/RoCE v1"
t_check "ibv_devinfo -v lists RoCE v1 GIDs" bash -c 'ibv_devinfo -v -d sroce0 | grep -q "RoCE v1"'
t_check "ibv_devinfo -v lists RoCE v2 GIDs" bash -c 'ibv_devinfo -v -d sroce0 | grep -q "RoCE v2"'

ip addr add 203.0.113.7/32 dev va
t_check "added address appears as a GID" wait_for 10 has_gid_type sroce0 "$(v4_gid 203.0.113.7)" "RoCE v2"
ip addr del 203.0.113.7/32 dev va
t_check "removed address leaves the table" \
	wait_for 10 bash -c "! grep -qx $(v4_gid 203.0.113.7) /sys/class/infiniband/sroce0/ports/1/gids/*"

# --- port state and events follow the netdev -----------------------------
t_check "port ACTIVE with carrier" bash -c '[[ "$(devinfo sroce0 state)" == PORT_ACTIVE* ]]'
stdbuf -oL ibv_asyncwatch -d sroce0 >/tmp/events 2>&1 &
watch_pid=$!
sleep 1
ip link set va down
t_check "port DOWN when the netdev goes down" \
	wait_for 10 bash -c '[[ "$(devinfo sroce0 state)" == PORT_DOWN* ]]'
t_check "IB event PORT_ERR delivered" wait_for 10 grep -q PORT_ERR /tmp/events
ip link set va up
t_check "port ACTIVE when it comes back" \
	wait_for 10 bash -c '[[ "$(devinfo sroce0 state)" == PORT_ACTIVE* ]]'
t_check "IB event PORT_ACTIVE delivered" wait_for 10 grep -q PORT_ACTIVE /tmp/events
ip link set vb down
t_check "port DOWN when the carrier is lost" \
	wait_for 10 bash -c '[[ "$(devinfo sroce0 state)" == PORT_DOWN* ]]'
ip link set vb up
t_check "port ACTIVE when the carrier returns" \
	wait_for 10 bash -c '[[ "$(devinfo sroce0 state)" == PORT_ACTIVE* ]]'
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null

# --- active MTU follows the netdev MTU ------------------------------------
for m in "${mtus[@]}"; do
	ip link set va mtu "${m%%:*}"
	t_check "netdev MTU ${m%%:*} gives IB MTU ${m##*:}" \
		bash -c "[[ \"\$(devinfo sroce0 active_mtu)\" == ${m##*:}* ]]"
done
ip link set va mtu 4200

# --- refusals ---------------------------------------------------------------
t_refuse "refuse unknown netdev" "No such device" "" \
	rdma link add bad0 type sroce netdev nosuchdev
t_refuse "refuse loopback" "Invalid argument" "lo is not an Ethernet device" \
	rdma link add bad0 type sroce netdev lo
modprobe tun
ip tuntap add tun0 mode tun
t_refuse "refuse an L3 tun device" "Invalid argument" "tun0 is not an Ethernet device" \
	rdma link add bad0 type sroce netdev tun0
ip tuntap del tun0 mode tun
modprobe ipip
ip link add ipip0 type ipip local 198.51.100.1 remote 198.51.100.2
t_refuse "refuse an ipip tunnel" "Invalid argument" "ipip0 is not an Ethernet device" \
	rdma link add bad0 type sroce netdev ipip0
ip link del ipip0
t_refuse "refuse a second link on the same netdev" "File exists" "va already carries an sroce link" \
	rdma link add sroce1 type sroce netdev va
t_refuse "refuse a name already in use" "File exists" "an RDMA device named sroce0 already exists" \
	rdma link add sroce0 type sroce netdev vb
t_check "refusals left no device behind" \
	bash -c '[ "$(ls /sys/class/infiniband | sort | tr "\n" " ")" = "sroce0 " ]'

# --- delete and reuse ------------------------------------------------------
t_check "link delete sroce0" rdma link delete sroce0
t_check "sroce0 is gone" bash -c '! ibv_devices | grep -qw sroce0'
t_check "the name can be reused" rdma link add sroce0 type sroce netdev va

# --- netdev removal takes the device with it ------------------------------
t_check "second link on the veth peer" rdma link add sroce2 type sroce netdev vb
ip link del va
t_check "NETDEV_UNREGISTER removes both devices" \
	wait_for 20 bash -c '[ -z "$(ls /sys/class/infiniband)" ]'

# --- per-namespace receive hooks ------------------------------------------
for ns in ns1 ns2; do ip netns add $ns; done
ip link add n1 netns ns1 mtu 4200 type veth peer name n2 netns ns2 mtu 4200
ip -n ns1 addr add 198.51.100.11/24 dev n1
ip -n ns2 addr add 198.51.100.12/24 dev n2
ip -n ns1 -6 addr add 2001:db8:2::11/64 dev n1 nodad
ip -n ns2 -6 addr add 2001:db8:2::12/64 dev n2 nodad
ip -n ns1 link set n1 up
ip -n ns2 link set n2 up
t_check "link in ns1" ip netns exec ns1 rdma link add sroce_ns1 type sroce netdev n1
t_check "link in ns2 (its own UDP 4791)" ip netns exec ns2 rdma link add sroce_ns2 type sroce netdev n2

mac_n2=$(ip netns exec ns2 cat /sys/class/net/n2/address)
inject() { ip netns exec ns1 $INJECT --ifname n1 --dmac "$mac_n2" "$@"; }

v2=$(counter sroce_ns2 rx_roce_v2_packets)
noqp=$(counter sroce_ns2 rx_unknown_qp)
inject --mode v2-4 --src 198.51.100.11 --dst 198.51.100.12 --count 3
inject --mode v2-6 --src 2001:db8:2::11 --dst 2001:db8:2::12 --count 2
t_check "RoCEv2 over veth reaches the device in ns2" \
	wait_for 5 bash -c "[ \$(cat /sys/class/infiniband/sroce_ns2/ports/1/hw_counters/rx_roce_v2_packets) -ge $((v2 + 5)) ]"
t_check "valid ICRC, unknown QP counted" \
	bash -c "[ \$(cat /sys/class/infiniband/sroce_ns2/ports/1/hw_counters/rx_unknown_qp) -eq $((noqp + 5)) ]"

inject --mode v1 --src fe80::1 --dst fe80::2 --count 2
t_check "RoCEv1 frames reach the device in ns2" \
	wait_for 5 bash -c "[ \$(cat /sys/class/infiniband/sroce_ns2/ports/1/hw_counters/rx_roce_v1_packets) -ge 2 ]"

icrc=$(counter sroce_ns2 rx_icrc_errors)
inject --mode v2-4 --src 198.51.100.11 --dst 198.51.100.12 --bad-icrc
inject --mode v1 --src fe80::1 --dst fe80::2 --bad-icrc
t_check "bad ICRC dropped and counted (v1 and v2)" \
	wait_for 5 bash -c "[ \$(cat /sys/class/infiniband/sroce_ns2/ports/1/hw_counters/rx_icrc_errors) -eq $((icrc + 2)) ]"
hdr=$(counter sroce_ns2 rx_header_errors)
inject --mode v1 --src fe80::1 --dst fe80::2 --payload 0 --truncate 8
inject --mode v1 --src fe80::1 --dst fe80::2 --opcode 0x1e
t_check "truncated and reserved-opcode frames counted as header errors" \
	wait_for 5 bash -c "[ \$(cat /sys/class/infiniband/sroce_ns2/ports/1/hw_counters/rx_header_errors) -eq $((hdr + 2)) ]"
t_check "nothing leaks into ns1's device" \
	bash -c '[ "$(cat /sys/class/infiniband/sroce_ns1/ports/1/hw_counters/rx_packets)" = 0 ]'

# rdma_rxe binds UDP 4791 in the initial namespace only: it loads beside
# our namespaced links, and then an sroce link there must be refused.
ip link add vr type veth peer name vs
t_check "rdma_rxe loads beside sroce links in other namespaces" modprobe rdma_rxe
t_refuse "refuse a link where rdma_rxe owns UDP 4791" "Address already in use" \
	"UDP port 4791 is owned by another driver" rdma link add sroce3 type sroce netdev vr
# rdma_rxe's unload unregisters every device with its driver id, ours too;
# take ours down first so the test sees only what sroce does.
ip netns del ns1
t_check "deleting a namespace removes its link" \
	wait_for 20 bash -c '[ ! -e /sys/class/infiniband/sroce_ns1 ]'
ip -n ns2 link set n2 netns 1 2>/dev/null || true
t_check "moving the netdev out of its namespace removes its link" \
	wait_for 20 bash -c '[ ! -e /sys/class/infiniband/sroce_ns2 ]'
t_check "rdma_rxe unloads" modprobe -r rdma_rxe
t_check "link works again once rdma_rxe is gone" rdma link add sroce3 type sroce netdev vr
ip netns del ns2 2>/dev/null

# --- module unload with live links ------------------------------------------
t_check "another live link" rdma link add sroce4 type sroce netdev vs
t_check "rmmod with live links" modprobe -r rdma_sroce
t_check "no device left after unload" bash -c '[ -z "$(ls /sys/class/infiniband)" ]'
t_check "reload and link again" \
	bash -c 'modprobe rdma_sroce && rdma link add sroce0 type sroce netdev vr && rdma link delete sroce0'
t_check "unload after links are gone" modprobe -r rdma_sroce
t_check "rdma link add loads the module on demand" \
	bash -c 'rdma link add sroce0 type sroce netdev vr && lsmod | grep -qw rdma_sroce'
t_check "and it unloads again" bash -c 'rdma link delete sroce0 && modprobe -r rdma_sroce'

t_done
