# SPDX-License-Identifier: GPL-2.0
#
# wire-pair.sh's checks of one run's frames.  Input: tshark -T fields
# lines, tab separated: time, eth.src, frame.protocols, vlan.id,
# vlan.priority, eth.type, vlan.etype, udp.dstport, BTH opcode, destqp,
# PSN, DETH srcqp, expert messages.  Variables: t0, t1 (the run's time
# window), chain (the protocols every RoCE frame must decode as), tool (rc
# or ud), iters, sl, lq/lp and rq/rp (local and remote QPN and first PSN),
# me (this guest's MAC), pcp_me/pcp_peer (1: that side must set PCP = sl),
# tagged (1: VLAN 100 GID), zero_csum_peer (1: the peer is rdma_rxe,
# which sends IPv6 UDP checksum 0 (RFC 6936), an expert error to tshark;
# tolerated on its frames only).  Output: "key TAB ok|fail TAB check TAB
# why", key naming the check (encap, opcodes, qpn, pcp, clean).
#
# skip=WHY: judge nothing, report every check as failed for WHY (the run
# itself failed), so that a run always reports the same checks.
# plan=1: print only how many checks a run with these variables reports
# (read no frames: give it /dev/null).

function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			return -1
		v = v * 16 + c - 1
	}
	return v
}

function bad(what, why) {
	if (!(what in err))
		err[what] = why " (frame " NR ")"
}

function verdict(key, good, what, why) {
	checks++
	if (plan != "")
		return
	if (skip != "") {
		good = 0
		why = skip
	}
	printf "%s\t%s\t%s\t%s\n", key, good ? "ok" : "fail", what, why
}

$1 >= t0 && $1 <= t1 &&
($3 ~ /infiniband/ || $6 ~ /0x8915/ || $7 ~ /0x8915/ || $8 == 4791) {
	n++
	mine = $2 == me
	op = $9 + 0
	dqp = hex($10)
	psn = $11 + 0
	if ($3 != chain && index($3, chain ":") != 1)
		bad("encap", "protocols " $3 ", want " chain)
	if (tagged && $4 != "100")
		bad("encap", "VLAN id '" $4 "', want 100")
	if (!tagged && $4 != "")
		bad("encap", "tagged (VLAN " $4 ")")
	if (tagged && (mine ? pcp_me : pcp_peer) && $5 != sl)
		bad("pcp", (mine ? "sent" : "received") " PCP " $5)
	if (!mine && zero_csum_peer && $13 == "Illegal checksum value (0)" &&
	    $3 ~ /:ipv6:udp:/)
		zero_csum++
	else if ($3 ~ /_ws\.malformed/ || $13 != "")
		bad("clean", "malformed or expert info: " $3 " " $13)
	ops[op] = 1
	if (dqp != (mine ? rq : lq))
		bad("qpn", sprintf("%s frame to QPN 0x%x (local 0x%x, remote 0x%x)",
				   mine ? "sent" : "received", dqp, lq, rq))
	if (tool == "ud" && hex($12) != (mine ? lq : rq))
		bad("qpn", "DETH source QPN " $12)
	if (op == 4 || op == 100) {
		k = mine ? "me" : "peer"
		sends[k]++
		if (!(k in first))
			first[k] = psn
		sent[k, psn] = 1
	} else if (op == 17) {
		acks[mine ? "peer" : "me", psn] = 1
	}
}

END {
	verdict("encap", n && !("encap" in err),
		sprintf("%d RoCE frames, all decoded as %s%s", n, chain,
			tagged ? " (VLAN 100)" : ""),
		n ? err["encap"] : "none captured")

	want = tool == "rc" ? "4 17" : "100"
	got = ""
	for (o = 0; o < 256; o++)
		if (o in ops)
			got = got (got == "" ? "" : " ") o
	verdict("opcodes", got == want, "BTH opcodes " want, "got '" got "'")

	why = err["qpn"]
	if (lq == rq)
		why = "both sides use QPN " lq ": directions indistinguishable"
	else if (sends["me"] < iters || sends["peer"] < iters)
		why = sprintf("%d sends from here, %d from the peer, want %d each",
			      sends["me"], sends["peer"], iters)
	else if (first["me"] != lp || first["peer"] != rp)
		why = sprintf("first PSNs 0x%x, 0x%x", first["me"], first["peer"])
	for (k in acks) {
		split(k, kp, SUBSEP)
		if (!((kp[1], kp[2]) in sent))
			why = sprintf("ACK of PSN 0x%x, never sent", kp[2])
	}
	verdict("qpn", why == "",
		sprintf("dest QPNs 0x%x/0x%x, first PSNs 0x%x/0x%x%s", rq, lq,
			lp, rp, tool == "rc" ? ", ACKed PSNs" : ", DETH source QPNs"),
		why)

	if (tagged)
		verdict("pcp", !("pcp" in err),
			sprintf("VLAN PCP %d from each sroce sender", sl), err["pcp"])

	verdict("clean", !("clean" in err),
		"no malformed frame, no expert info" \
		(zero_csum ? " (but the peer's zero UDP checksums over IPv6 in " \
			     zero_csum " frames)" : ""),
		err["clean"])

	if (plan != "")
		print checks
}
