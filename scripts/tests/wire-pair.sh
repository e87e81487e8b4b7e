#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RoCE v1 and v2 as other tools see them, between two guests:
#
# wire     ibv_rc_pingpong and ibv_ud_pingpong with a non-zero SL over RoCE
#          v1 and v2 GIDs, untagged and over VLAN 100, captured on guest
#          a's eth0 with dumpcap and decoded by tshark: every RoCE frame
#          must decode as InfiniBand (ethertype 0x8915 for v1, UDP 4791
#          over IPv4/IPv6 for v2) with the opcodes the tool sends, the
#          QPNs and starting PSNs the tool printed, ACKs for PSNs that
#          were sent, the VLAN tag where the GID is the VLAN's with PCP =
#          SL from a sroce sender, and no malformed frame or expert info.
#          Then the decoder's checks are shown to fail: wire-check.awk
#          judges copies of a real run's decoded frames spoiled one way
#          each (a wrong PCP, a wrong destination QPN, a malformed flag).
# perftest ib_send_bw, ib_write_bw and ib_read_bw over RoCE v1 and v2 GIDs
#          (IPv4, IPv6, VLAN): they complete, but check no data; each
#          sroce side's receive counters must show the GID type's format.
# rdmacm   rping -V with rdma_cm's default RoCE mode set to v1 in configfs
#          on both guests (IPv4 and IPv6): RoCEv1 packets only; then the
#          default restored, and RoCEv2 only.
#
# SROCE_DRV_A, SROCE_DRV_B   sroce (default) or rxe; with rdma_rxe on
#                            either side only the RoCE v2 cases run
# SROCE_WIRE_ONLY="..."      groups to run: wire perftest rdmacm

# srv and cli are pair_run's arguments.
# shellcheck disable=SC2034
set -u
# shellcheck source=scripts/tests/rdma-pair-lib.sh
. "$SROCE_REPO/scripts/tests/rdma-pair-lib.sh"

only=${SROCE_WIRE_ONLY:-wire perftest rdmacm}
only=${only//,/ }
group() {
	[[ " $only " == *" $1 "* ]]
}

pair_link
modprobe rdma_ucm || fail "modprobe rdma_ucm"
pair_vlan
peer_drv=$(pair_driver_of "$SROCE_PEER_ROLE")
v1=1
[ "$DRV" = rxe ] || [ "$peer_drv" = rxe ] && v1=0

wire_kinds="v1-ipv4 v2-ipv4 v2-ipv6 v1-vlan-ipv6 v2-vlan-ipv4"
perf_kinds="v1-ipv4 v1-ipv6 v2-ipv4 v2-ipv6 v1-vlan-ipv4 v2-vlan-ipv6"
if [ "$v1" = 0 ]; then
	wire_kinds="v2-ipv4 v2-ipv6 v2-vlan-ipv4"
	perf_kinds="v2-ipv4 v2-ipv6 v2-vlan-ipv6"
fi

# The first VLAN kind's RC run is the one whose frames are spoiled to
# show wire-check.awk fails.
for spoil_kind in $wire_kinds; do
	[[ $spoil_kind == *-vlan-* ]] && break
done
spoils="pcp qpn malformed"

# How many checks check_format makes for KIND on this guest
format_checks() {
	[ "$DRV" = sroce ] || { echo 0; return; }
	case $1 in
	*-vlan-*) echo 2 ;;
	*) echo 1 ;;
	esac
}

# The plan, from the lists the groups below loop over.  pair_run's
# client (guest a) reports each run; wire-check.awk says how many checks
# it makes of a run's frames.
plan() {
	local n=2 client=0 k t
	[ "$SROCE_ROLE" != "${PR_SERVER:-b}" ] && client=1
	if group wire && [ "$client" = 1 ]; then
		# dumpcap starts and captured, tshark decodes, the self-tests
		n=$((n + 3 + $(wc -w <<<"$spoils")))
		for k in $wire_kinds; do
			for t in rc ud; do
				n=$((n + 1 + $(awk -f "$SROCE_REPO/scripts/tests/wire-check.awk" \
					-v plan=1 -v tagged="$([[ $k == *-vlan-* ]] && echo 1)" \
					/dev/null)))
			done
		done
	fi
	if group perftest; then
		for k in $perf_kinds; do
			for t in send write read; do
				n=$((n + client + $(format_checks "$k")))
			done
		done
	fi
	if group rdmacm; then
		[ "$v1" = 1 ] && n=$((n + 2 + 2 * (client + $(format_checks v1-cm))))
		n=$((n + 2 * (client + $(format_checks v2-cm))))
	fi
	echo "$n"
}
t_plan "$(plan)"

declare -A gidx
for k in $wire_kinds $perf_kinds; do
	[ -n "${gidx[$k]:-}" ] && continue
	kg=$(pair_kind_gid "$k")
	wait_for 10 pair_gid_index "$DEV" "${kg%% *}" "${kg#* }" ||
		fail "$DEV: no ${kg#* } GID ${kg%% *}"
	gidx[$k]=$(pair_gid_index "$DEV" "${kg%% *}" "${kg#* }")
done
t_check "[$SROCE_ROLE] $DRV: ping the peer over eth0" retry 5 ping -c 1 -W 3 "$SROCE_PEER_IP4"
barrier linked || fail "the peer never linked its driver"

server_ip4=$SROCE_PEER_IP4
[ "$SROCE_ROLE" = b ] && server_ip4=$SROCE_MY_IP4

counter() {
	cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

# snap; run; check_format NAME KIND: what this guest received in between
# came in the format of KIND (sroce only: rdma_rxe has no such counters),
# and through the VLAN device for a VLAN GID.
snap() {
	s_v1=$(counter rx_roce_v1_packets)
	s_v2=$(counter rx_roce_v2_packets)
	s_vl=$(cat "/sys/class/net/$VLAN/statistics/rx_packets")
}

check_format() {
	local name="[$SROCE_ROLE] $1" kind=$2 d1 d2
	[ "$DRV" = sroce ] || return 0
	d1=$(($(counter rx_roce_v1_packets) - s_v1))
	d2=$(($(counter rx_roce_v2_packets) - s_v2))
	case $kind in
	*-vlan-*) t_check "$name: received through $VLAN" \
		test "$(cat "/sys/class/net/$VLAN/statistics/rx_packets")" -gt "$s_vl" ;;
	esac
	case $kind in
	v1-*) t_check "$name: received RoCEv1 ($d1 v1, $d2 v2 packets)" \
		test "$d1" -gt 0 -a "$d2" = 0 ;;
	v2-*) t_check "$name: received RoCEv2 ($d1 v1, $d2 v2 packets)" \
		test "$d2" -gt 0 -a "$d1" = 0 ;;
	esac
}

# ---- wire ------------------------------------------------------------

sl=5
iters=5
cap=/tmp/wire.pcapng
runs=/tmp/wire.runs

# "local address:  LID 0x0000, QPN 0x000011, PSN 0x4b6f2a..." -> "QPN PSN"
qpn_psn() {
	local f
	# (no process substitution: the guest has no /dev/fd)
	read -ra f <<<"$(grep -m 1 "^ *$1 address:" "$2" | tr -d ',:')"
	[ "${f[4]:-}" = QPN ] && [ "${f[6]:-}" = PSN ] && echo "$((f[5])) $((f[7]))"
}

run_wire() {
	local kind tool name t0
	if [ "$SROCE_ROLE" = a ]; then
		: >"$runs"
		dumpcap -i eth0 -q -a duration:900 -w "$cap" 2>/tmp/dumpcap.err &
		cap_pid=$!
		if wait_for 60 grep -q '^Capturing on' /tmp/dumpcap.err; then
			t_ok "wire: dumpcap starts"
		else
			t_fail "wire: dumpcap starts" "$(cat /tmp/dumpcap.err)"
		fi
	fi
	# Both guests hand out QPNs alike: make b's differ from a's, so a frame
	# sent to the wrong side's QPN shows.  (This client creates its QP,
	# finds no server and exits.)
	if [ "$SROCE_ROLE" = b ]; then
		ibv_rc_pingpong -d "$DEV" -g "${gidx[v2-ipv4]}" -p 1 127.0.0.1 >/dev/null 2>&1
	fi
	barrier wire.capturing || return 1
	for kind in $wire_kinds; do
		for tool in rc ud; do
			name="wire: ibv_${tool}_pingpong SL $sl $kind"
			srv=("ibv_${tool}_pingpong" -d "$DEV" -g "${gidx[$kind]}" -s 256 -n "$iters"
			     -r 16 -l "$sl" --chk)
			[ "$tool" = rc ] && srv+=(-m 1024)
			cli=("${srv[@]}" "$server_ip4")
			t0=$EPOCHREALTIME
			pair_run "$name" 60 tcp:18515
			[ "$SROCE_ROLE" = a ] || continue
			# shellcheck disable=SC2154 # _pr_n: pair_run's last
			local log=$SROCE_SHARED/pr.$_pr_n.client.log
			echo "$kind $tool $t0 $EPOCHREALTIME $PR_OK" \
				"$(qpn_psn local "$log") $(qpn_psn remote "$log")" >>"$runs"
		done
	done
	barrier wire.done || return 1
	[ "$SROCE_ROLE" = a ] || return 0
	kill -INT "$cap_pid"
	wait "$cap_pid"
	t_check "wire: dumpcap captured" test -s "$cap"
	# No decode-as needed: tshark takes ethertype 0x8915 and UDP port 4791
	# for InfiniBand by itself.
	if ! tshark -r "$cap" -T fields -E separator=/t -E occurrence=a -E aggregator=, \
		-e frame.time_epoch -e eth.src -e frame.protocols -e vlan.id \
		-e vlan.priority -e eth.type -e vlan.etype -e udp.dstport \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.deth.srcqp -e _ws.expert.message \
		>/tmp/wire.fields 2>/tmp/tshark.err; then
		t_fail "wire: tshark decodes the capture" "$(tail -n 5 /tmp/tshark.err)"
		return 1
	fi
	t_ok "wire: tshark decodes the capture ($(wc -l </tmp/wire.fields) frames)"
	local ok t1 lq lp rq rp skip
	while read -r kind tool t0 t1 ok lq lp rq rp; do
		name="wire: ibv_${tool}_pingpong SL $sl $kind"
		skip=
		if [ "$ok" != 1 ] || [ -z "$rp" ]; then
			skip="the run failed or printed no addresses"
		fi
		wire_check "$name" "$kind" "$tool" "$t0" "$t1" "$lq" "$lp" "$rq" "$rp" "$skip"
	done <"$runs"
	wire_selftest
}

# judge FIELDS KIND TOOL T0 T1 LQ LP RQ RP [SKIP]: wire-check.awk's verdicts
# on the frames of one run (between T0 and T1) against what the run used
judge() {
	local fields=$1 kind=$2 tool=$3 t0=$4 t1=$5 lq=$6 lp=$7 rq=$8 rp=$9 skip=${10:-}
	local chain=eth:ethertype:
	case $kind in *-vlan-*) chain+=vlan:ethertype: ;; esac
	case $kind in
	v1-*) chain+=infiniband ;;
	*-ipv4) chain+=ip:udp:infiniband ;;
	*) chain+=ipv6:udp:infiniband ;;
	esac
	awk -F '\t' -f "$SROCE_REPO/scripts/tests/wire-check.awk" \
		-v t0="$t0" -v t1="$t1" -v chain="$chain" -v skip="$skip" \
		-v tool="$tool" -v iters="$iters" -v sl="$sl" \
		-v lq="$lq" -v lp="$lp" -v rq="$rq" -v rp="$rp" \
		-v me="$(cat /sys/class/net/eth0/address)" \
		-v pcp_me="$([ "$DRV" = sroce ] && echo 1)" \
		-v pcp_peer="$([ "$peer_drv" = sroce ] && echo 1)" \
		-v tagged="$([[ $kind == *-vlan-* ]] && echo 1)" \
		-v zero_csum_peer="$([ "$peer_drv" = rxe ] && echo 1)" \
		"$fields"
}

# wire_check NAME KIND TOOL T0 T1 LQ LP RQ RP SKIP: report the verdicts.  An
# awk that reports fewer checks than it plans leaves the plan unmet.
wire_check() {
	local name=$1 key verdict what why
	shift
	judge /tmp/wire.fields "$@" >/tmp/wire.verdicts
	while IFS=$'\t' read -r key verdict what why; do
		if [ "$verdict" = ok ]; then
			t_ok "$name: $what"
		else
			t_fail "$name: $what" "$why"
		fi
	done </tmp/wire.verdicts
}

# spoil HOW T0 T1 LQ: the decoded frames, with the first frame this guest
# sent within T0..T1 spoiled: its PCP one off, sent to its own QPN, or
# flagged malformed by the decoder
spoil() {
	awk -F '\t' -v OFS='\t' -v how="$1" -v t0="$2" -v t1="$3" -v lq="$4" \
		-v me="$(cat /sys/class/net/eth0/address)" '
		!done && $1 >= t0 && $1 <= t1 && $2 == me && $3 ~ /infiniband/ {
			if (how == "pcp")
				$5 = ($5 + 1) % 8
			else if (how == "qpn")
				$10 = sprintf("0x%06x", lq)
			else
				$3 = $3 ":_ws.malformed"
			done = 1
		}
		{ print }' /tmp/wire.fields
}

# The checker is shown to fail: the check a spoiling targets passes on
# the real frames of the $spoil_kind RC run, and fails on the spoiled copy.
wire_selftest() {
	local how key name run f real spoilt
	run=$(awk -v k="$spoil_kind" '$1 == k && $2 == "rc"' "$runs")
	read -ra f <<<"$run"
	for how in $spoils; do
		case $how in
		pcp) key=pcp name="PCP $(((sl + 1) % 8)) instead of $sl on a sent frame" ;;
		qpn) key=qpn name="a frame sent to its own QPN" ;;
		malformed) key=clean name="a frame flagged malformed" ;;
		esac
		name="wire-check.awk self-test: $name is reported (ibv_rc_pingpong $spoil_kind)"
		if [ "${f[4]:-}" != 1 ] || [ -z "${f[8]:-}" ]; then
			t_fail "$name" "the $spoil_kind RC run failed: nothing real to spoil"
			continue
		fi
		real=$(judge /tmp/wire.fields "$spoil_kind" rc "${f[@]:2:2}" "${f[@]:5:4}" |
			awk -F '\t' -v k="$key" '$1 == k { print $2 }')
		spoil "$how" "${f[2]}" "${f[3]}" "${f[5]}" >/tmp/wire.spoilt
		spoilt=$(judge /tmp/wire.spoilt "$spoil_kind" rc "${f[@]:2:2}" "${f[@]:5:4}" |
			awk -F '\t' -v k="$key" '$1 == k { print $2 ": " $4 }')
		if [ "$real" = ok ] && [[ $spoilt == fail:* ]]; then
			t_ok "$name"
		else
			t_fail "$name" "$key on the real frames: '$real', on the spoiled: '$spoilt'"
		fi
	done
}

# ---- perftest --------------------------------------------------------

run_perftest() {
	local kind t name
	for kind in $perf_kinds; do
		for t in send write read; do
			name="ib_${t}_bw 4096 B x200 $kind"
			srv=("ib_${t}_bw" -d "$DEV" -x "${gidx[$kind]}" -F -n 200 -s 4096 --report_gbits)
			cli=("${srv[@]}" "$server_ip4")
			snap
			pair_run "$name completed (perftest, no data check)" 90 tcp:18515
			check_format "$name" "$kind"
		done
	done
}

# ---- rdma_cm's default RoCE mode -------------------------------------

cm_dir=/sys/kernel/config/rdma_cm/$DEV
cm_mode=$cm_dir/ports/1/default_roce_mode

set_cm_mode() {
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
		return 1
	[ -d "$cm_dir" ] || mkdir "$cm_dir" || return 1
	echo "$1" >"$cm_mode" && [ "$(cat "$cm_mode")" = "$1" ]
}

run_rping() {
	local mode=$1 kind=$2 fam ip name
	for fam in ipv4 ipv6; do
		if [ "$fam" = ipv4 ]; then
			ip=$server_ip4
		else
			ip=2001:db8::2
		fi
		name="rping -V 64 B x10 $fam, rdma_cm mode $mode"
		srv=(rping -s -a "$ip" -v -V -C 10 -S 64)
		cli=("$SROCE_REPO/scripts/tests/rping_client.sh" -c -a "$ip" -v -V -C 10 -S 64)
		snap
		pair_run "$name" 60 cm
		check_format "$name" "$kind"
	done
}

run_rdmacm() {
	if [ "$v1" = 1 ]; then
		t_check "[$SROCE_ROLE] rdma_cm: default_roce_mode of $DEV set to IB/RoCE v1" \
			set_cm_mode "IB/RoCE v1"
		barrier cm.v1 || return 1
		run_rping "v1" v1-cm
		t_check "[$SROCE_ROLE] rdma_cm: default_roce_mode of $DEV back to RoCE v2" \
			set_cm_mode "RoCE v2"
		rmdir "$cm_dir" || log "cannot remove $cm_dir"
		barrier cm.v2 || return 1
	fi
	run_rping "default" v2-cm
}

group wire && run_wire
group perftest && run_perftest
group rdmacm && run_rdmacm

barrier finished || log "the peer did not finish"
t_check "[$SROCE_ROLE] rdma link delete $DEV" rdma link delete "$DEV"
t_done
