#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Same-host traffic: both ends of every connection on one sroce device in
# one guest, as a user trying sroce on a single machine, MPI ranks on one
# host or a local initiator of a storage target would have them.  A frame
# to the device's own MAC never comes back from the wire, so sroce loops
# it back to its own receive path (drivers/sroce/loopback.c).
#
# Over each GID kind (RoCE v2 IPv4 and IPv6, RoCE v1 IPv4-mapped and
# IPv6): ibv_rc_pingpong, ibv_ud_pingpong (each with --chk, polling and
# with completion events), ibv_srq_pingpong --chk and rdma_verify (every
# RC operation and size, checked byte for byte, both ways); the counters
# must show the GID's wire format, rx_loopback_packets at least the
# packets the tools exchanged, and eth0 must not have carried them.  Then
# perftest bandwidth (send, write, read, atomic) over a v2 and a v1 GID,
# a checked stream of 64-byte WRITEs 128 deep (the window of WQE copies
# must grow: counter sq_copies_grown), and rping -V over rdma_cm to the
# local IPv4 and IPv6 address.  Then multicast: two UD QPs attached to a group
# receive, each, every datagram a third QP of the device sends to it
# (mcast_ud.c checks payload and GRH), over RoCE v2 IPv4 and IPv6 and
# RoCE v1 IPv6 where those kinds run.
#
# SROCE_LO_VERIFY_MAX=N   rdma_verify's largest message (default 16 MiB)
# SROCE_LO_KINDS="..."    GID kinds, space or comma separated (default:
#                         v2-ipv4 v2-ipv6 v1-ipv4 v1-ipv6)
#
# NVMe over Fabrics with target and host on one device: nvmeof-pair.sh run
# in a single guest.

set -u
# v6_gid, _tcp_listening, _cm_listening, and sroce-lib.sh's helpers
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

DEV=sroce0
verify_max=${SROCE_LO_VERIFY_MAX:-16777216}
kinds=${SROCE_LO_KINDS:-v2-ipv4 v2-ipv6 v1-ipv4 v1-ipv6}
kinds=${kinds//,/ }
# NAME:TOOL:OPTIONS, each run over every kind
pingpongs="rc:ibv_rc_pingpong:--chk rc-events:ibv_rc_pingpong:-e_--chk"
pingpongs+=" ud:ibv_ud_pingpong:--chk ud-events:ibv_ud_pingpong:-e_--chk"
pingpongs+=" srq:ibv_srq_pingpong:--chk"
# perftest over RoCE v2 / IPv4 and RoCE v1 / IPv6, of those that run
perf_kinds=
for k in v2-ipv4 v1-ipv6; do
	[[ " $kinds " != *" $k "* ]] || perf_kinds+=" $k"
done
perf_tools="ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw"
rping_addrs="$SROCE_MY_IP4 $SROCE_MY_IP6"
# multicast: the group of each kind that runs (mcast-pair.sh's kinds)
declare -A mc_groups=([v2-ipv4]=239.1.9.1 [v2-ipv6]=ff0e::db8:9:1 [v1-ipv6]=ff0e::db8:9:2)
mc_kinds=
for k in $kinds; do
	[ -z "${mc_groups[$k]:-}" ] || mc_kinds+=" $k"
done
mc_msgs=20

# Built ahead of the plan, which takes rdma_verify's count of its cases.
prog=/tmp/rdma_verify
verify_build "$prog" "$verify_max"
mprog=/tmp/mcast_ud
mc_out=$(cc -O2 -Wall -Wextra -o "$mprog" "$SROCE_REPO/scripts/tests/mcast_ud.c" \
	-libverbs 2>&1)
mc_rc=$?

# The link, the build; per kind every ping-pong, rdma_verify's cases, the
# wire format, the loopback count and eth0 untouched; perftest; rping;
# multicast's build and two checks per kind; the link deleted.
plan=$((3 + $(words "$kinds") * ($(words "$pingpongs") + per_verify + 3)))
plan=$((plan + 2 * $(words "$mc_kinds")))
plan=$((plan + $(words "$perf_kinds") * $(words "$perf_tools")))
[ -z "$perf_kinds" ] || plan=$((plan + 2))
plan=$((plan + $(words "$rping_addrs") + 1))
t_plan "$plan"

t_status "rdma_verify compiles cleanly" "$([ -z "$cc_out" ] && echo "$cc_rc" || echo 1)" "$cc_out"
t_status "mcast_ud compiles cleanly" "$([ -z "$mc_out" ] && echo "$mc_rc" || echo 1)" "$mc_out"

sroce_load
modprobe rdma_ucm || fail "modprobe rdma_ucm"
rdma link add "$DEV" type sroce netdev eth0 || fail "rdma link add"
t_check "$DEV port ACTIVE" wait_for 20 bash -c "[[ \"\$(devinfo $DEV state)\" == PORT_ACTIVE* ]]"

kind_gid() {
	case $1 in
	v2-ipv4) echo "$(v4_gid "$SROCE_MY_IP4") RoCE v2" ;;
	v2-ipv6) echo "$(v6_gid "$SROCE_MY_IP6") RoCE v2" ;;
	v1-ipv4) echo "$(v4_gid "$SROCE_MY_IP4") IB/RoCE v1" ;;
	v1-ipv6) echo "$(v6_gid "$SROCE_MY_IP6") IB/RoCE v1" ;;
	esac
}

declare -A gidx
for k in $kinds; do
	kg=$(kind_gid "$k")
	wait_for 10 gid_index "$DEV" "${kg%% *}" "${kg#* }" || fail "$DEV: no ${kg#* } GID for $k"
	gidx[$k]=$(gid_index "$DEV" "${kg%% *}" "${kg#* }")
done
log "$DEV GID indexes: $(for k in $kinds; do printf '%s=%s ' "$k" "${gidx[$k]}"; done)"

eth0_tx() {
	cat /sys/class/net/eth0/statistics/tx_packets
}

n=50
for k in $kinds; do
	g=${gidx[$k]}
	v1=$(counter "$DEV" rx_roce_v1_packets)
	v2=$(counter "$DEV" rx_roce_v2_packets)
	lo=$(counter "$DEV" rx_loopback_packets)
	tx=$(eth0_tx)
	for pp in $pingpongs; do
		name=${pp%%:*}
		rest=${pp#*:}
		tool=${rest%%:*}
		read -ra opts <<<"${rest#*:}"
		opts=("${opts[@]//_/ }")
		read -ra opts <<<"${opts[*]}"
		size=4096
		[ "$tool" = ibv_ud_pingpong ] && size=1024
		args=(-d "$DEV" -g "$g" -s "$size" -n "$n" "${opts[@]}")
		[ "$tool" = ibv_srq_pingpong ] && args+=(-q 4)
		lo_run "$name ping-pong $size B x$n over $k, one device" 60 tcp:18515 \
			-- "$tool" "${args[@]}" -- "$tool" "${args[@]}" 127.0.0.1
	done

	LO_QUIET=1 LO_RETRIES=1 lo_run "rdma_verify over $k" 900 tcp:18600 \
		-- "$prog" -d "$DEV" -g "$g" -p 18600 -t 60 \
		-- "$prog" -d "$DEV" -g "$g" -p 18600 -t 60 -s "$RANDOM" -m "$verify_max" \
		-l "$k" -r requester:responder 127.0.0.1
	while IFS= read -r line; do
		case $line in
		"ok - "*) t_ok "rdma_verify ${line#ok - }" ;;
		"not ok - "*) t_fail "rdma_verify ${line#not ok - }" ;;
		esac
	done <"$LO_CLIENT_LOG"

	v1=$(($(counter "$DEV" rx_roce_v1_packets) - v1))
	v2=$(($(counter "$DEV" rx_roce_v2_packets) - v2))
	lo=$(($(counter "$DEV" rx_loopback_packets) - lo))
	tx=$(($(eth0_tx) - tx))
	case $k in
	v1-*) t_check "$k: RoCEv1 only ($v1 v1, $v2 v2)" test "$v1" -gt 0 -a "$v2" = 0 ;;
	v2-*) t_check "$k: RoCEv2 only ($v1 v1, $v2 v2)" test "$v2" -gt 0 -a "$v1" = 0 ;;
	esac
	# every ping-pong exchanged at least 2n packets
	t_check "$k: rx_loopback_packets counts them ($lo)" \
		test "$lo" -ge $(($(words "$pingpongs") * 2 * n)) -a "$lo" = $((v1 + v2))
	t_check "$k: eth0 carried none of them ($tx frames sent)" test "$tx" -lt 20
done

for k in $perf_kinds; do
	for tool in $perf_tools; do
		args=(-d "$DEV" -x "${gidx[$k]}" -F -n 200)
		[ "$tool" = ib_atomic_bw ] || args+=(-s 65536)
		lo_run "$tool over $k, one device, completed (perftest, no data check)" 90 tcp:18515 \
			-- "$tool" "${args[@]}" -- "$tool" "${args[@]}" 127.0.0.1
	done
done

# A stream of 64-byte WRITEs 128 deep, every byte checked where it lands,
# over the first perftest kind: more in flight than a user QP's first
# window of WQE copies holds, which must grow (qp.c) while it is in use.
# rdma_verify posts them 64 at a time: the requester runs in the poster's
# call, and on one device the ACK of a WQE posted alone comes back before
# that call returns, so one at a time never fills a window.
read -r k _ <<<"$perf_kinds"
if [ -n "$k" ]; then
	grown=$(counter "$DEV" sq_copies_grown)
	lo_run "rdma_verify stream of 64 B WRITEs, 128 in flight, over $k, one device, checked" \
		60 tcp:18601 -- "$prog" -d "$DEV" -g "${gidx[$k]}" -p 18601 -t 30 \
		-- "$prog" -d "$DEV" -g "${gidx[$k]}" -p 18601 -t 30 -S 2 -m 64 -D 128 \
		-l "$k" 127.0.0.1
	grown=$(($(counter "$DEV" sq_copies_grown) - grown))
	t_check "$k: the window of WQE copies grew ($grown doublings)" test "$grown" -ge 1
fi

for a in $rping_addrs; do
	lo_run "rping -V 4096 B x10 to $a, one device" 60 cm \
		-- rping -s -a "$a" -v -V -C 10 -S 4096 \
		-- "$SROCE_REPO/scripts/tests/rping_client.sh" -c -a "$a" -v -V -C 10 -S 4096
done

# Multicast loopback: the receiver's QPs and the sender's on one device.
for k in $mc_kinds; do
	group=${mc_groups[$k]}
	name="mcast_ud over $k to $group: 2 QPs receive $mc_msgs datagrams of a third, one device"
	mc=$(counter "$DEV" rx_multicast_packets)
	stdbuf -oL "$mprog" -d "$DEV" -g "${gidx[$k]}" -m "$group" -r -q 2 -n "$mc_msgs" -t 30 \
		>/tmp/mcast.recv 2>&1 &
	rpid=$!
	wait_for 30 grep -q '^ready' /tmp/mcast.recv ||
		log "mcast_ud: the receiver is not ready; sending anyway"
	"$mprog" -d "$DEV" -g "${gidx[$k]}" -m "$group" -s -n "$mc_msgs" >/tmp/mcast.send 2>&1
	sst=$?
	wait "$rpid"
	rst=$?
	if [ "$sst" = 0 ] && [ "$rst" = 0 ]; then
		t_ok "$name"
	else
		sed 's/^/# receiver: /' /tmp/mcast.recv
		sed 's/^/# sender: /' /tmp/mcast.send
		t_fail "$name" "sender exit $sst, receiver exit $rst"
	fi
	mc=$(($(counter "$DEV" rx_multicast_packets) - mc))
	t_check "$k: rx_multicast_packets counts the $mc_msgs looped back ($mc)" \
		test "$mc" = "$mc_msgs"
done

t_check "rdma link delete $DEV" rdma link delete "$DEV"
t_done
