// SPDX-License-Identifier: GPL-2.0
/*
 * First stop of every received RoCE packet, in softirq: bound the lengths,
 * validate the headers and the ICRC, count, and hand the packet to its QP's
 * responder (requests) or completer (responses).  Nothing a packet says is
 * trusted before sroce_pkt_parse() has checked it; the skb is freed when
 * they return, so they copy what they keep.
 */
#include <linux/if_vlan.h>
#include <linux/skbuff.h>

#include <sroce/ah.h>
#include <sroce/cnp.h>
#include <sroce/compat.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/mcast.h>
#include <sroce/pktbuf.h>
#include <sroce/rx.h>
#include <sroce/stats.h>
#include <sroce/transport.h>
#include <sroce/wire.h>

/* The BTH transport bits a QP of @type accepts */
static u8 sroce_qp_transport(const struct sroce_qp *qp)
{
	switch (qp->type) {
	case IB_QPT_RC:
		return SROCE_TR_RC;
	case IB_QPT_UC:
		return SROCE_TR_UC;
	default:
		return SROCE_TR_UD;
	}
}

/* Only the default partition exists: full or limited membership of it */
static bool sroce_pkey_ok(u16 pkey)
{
	return (pkey & 0x7fff) == (SROCE_DEFAULT_PKEY & 0x7fff);
}

/**
 * sroce_pkt_from_peer() - did @pkt come from @qp's peer, over its path?
 * @qp: a connected (RC or UC) QP
 * @pkt: a packet naming it, headers and ICRC checked
 *
 * A connected QP talks to one peer: the source must be the GID or address
 * the QP was connected to, the destination the QP's own, the packet must
 * use the encapsulation the QP was connected over, so that a RoCEv1 frame
 * cannot drive a QP connected over IPv4 past IP filtering, and arrive on
 * the VLAN of the QP's GID (or on none, as the GID).  RoCE carries no
 * authentication; this is what keeps a sender elsewhere on the network
 * out of connections it has no part in.  Packets this host looped back
 * come from no VLAN.  A QP without a path (before RTR, after RESET) has
 * network type 0, which no packet has.
 *
 * The path is read without the QP's locks, which the receive path would
 * otherwise take once more per packet.  It changes under them when
 * modify_qp sets IB_QP_AV: on the way to RTR, before the peer talks to
 * the QP, or in SQD; a packet racing that change may be judged by a mix
 * of the old and the new path, both of them the QP's.
 * Context: softirq.
 */
bool sroce_pkt_from_peer(const struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	const struct sroce_av *av = &qp->av;

	return pkt->type == sroce_av_net_type(av->network_type) &&
	       (pkt->loopback || pkt->vlan_id == av->vlan_id) &&
	       !memcmp(&pkt->sgid, av->dgid.raw, sizeof(pkt->sgid)) &&
	       !memcmp(&pkt->dgid, av->sgid.raw, sizeof(pkt->dgid));
}

static void sroce_rx_dispatch(struct sroce_dev *sdev, const u8 *nh,
			      const struct sroce_pkt *pkt)
{
	struct sroce_qp *qp;

	if (sroce_opcode_has(pkt->info, SROCE_OPF_CNP)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_CNP);
		sroce_rp_cnp(sdev, pkt);
		return;
	}
	if (!sroce_pkey_ok(pkt->pkey)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_BAD_PKEY);
		return;
	}
	if (pkt->qpn == SROCE_MCAST_QPN) {
		/* only UD sends may be multicast */
		if (sroce_opcode_transport(pkt->opcode) != SROCE_TR_UD ||
		    !sroce_opcode_has(pkt->info, SROCE_OPF_REQ))
			sroce_stats_inc(sdev, SROCE_CNT_RX_BAD_QP_TYPE);
		else
			sroce_mcast_rcv(sdev, nh, pkt);
		return;
	}

	qp = sroce_qp_get(sdev, pkt->qpn);
	if (!qp) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_NO_QP);
		return;
	}
	if (sroce_opcode_transport(pkt->opcode) != sroce_qp_transport(qp)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_BAD_QP_TYPE);
		goto put;
	}
	if (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC) {
		/* never answered, so a guessed QPN learns nothing */
		if (!sroce_pkt_from_peer(qp, pkt)) {
			sroce_stats_inc(sdev, SROCE_CNT_RX_WRONG_PEER);
			goto put;
		}
		/* they answer congestion marks before the transport runs */
		sroce_np_rcv(qp, pkt);
	}
	if (sroce_opcode_has(pkt->info, SROCE_OPF_REQ))
		sroce_resp_rcv(qp, nh, pkt);
	else
		sroce_comp_rcv(qp, nh, pkt);
put:
	sroce_qp_put(qp);
}

/*
 * What the path made of the ECN field: whether our peers' packets arrive
 * ECN-capable, and how many a switch marked (np_ecn_marked_roce_packets
 * counts only the marks the notification point acts on).
 */
static void sroce_rx_count_ecn(struct sroce_dev *sdev,
			       const struct sroce_pkt *pkt)
{
	u8 ecn = sroce_pkt_ecn(pkt);

	if (ecn == SROCE_ECN_CE)
		sroce_stats_inc(sdev, SROCE_CNT_RX_ECN_CE);
	else if (ecn)
		sroce_stats_inc(sdev, SROCE_CNT_RX_ECN_ECT);
}

/*
 * Make @skb's data start at its network header, where the offsets of
 * struct sroce_pkt and pktbuf.h count from: UDP hands it over at the UDP
 * header, loopback at the Ethernet header.  Then what the parser reads is
 * made linear (sroce_rx() adds the extended headers once it knows them),
 * and the rest is read where it lies.  A frag_list (which the ICRC walk
 * does not follow) is linearised, unreadable fragments are refused.
 * Return: false to drop it.
 */
static bool sroce_rx_prepare(struct sroce_dev *sdev, struct sk_buff *skb,
			     int net_type)
{
	int off = skb_network_offset(skb);

	if (!skb_frags_readable(skb) || off > (int)skb->len) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_HDR_ERR);
		return false;
	}
	if (off < 0)
		__skb_push(skb, -off);
	else if (!pskb_pull(skb, off))
		goto nomem;
	if (skb_has_frag_list(skb) && skb_linearize(skb))
		goto nomem;
	if (!skb->len) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_HDR_ERR);
		return false;
	}
	/* what the parser reads, and no payload byte more */
	if (!pskb_may_pull(skb, 1) ||
	    !pskb_may_pull(skb, min(skb->len,
				    sroce_pkt_parse_need(net_type, *skb->data))))
		goto nomem;
	return true;
nomem:
	sroce_stats_inc(sdev, SROCE_CNT_RX_NOMEM);
	return false;
}

void sroce_rx(struct sroce_dev *sdev, struct sk_buff *skb, int net_type)
{
	struct sroce_pkt pkt;
	const u8 *nh;

	sroce_stats_inc(sdev, SROCE_CNT_RX_PACKETS);
	sroce_stats_inc(sdev, net_type == SROCE_NET_ROCE_V1 ?
			      SROCE_CNT_RX_V1_PACKETS : SROCE_CNT_RX_V2_PACKETS);

	if (!sroce_rx_prepare(sdev, skb, net_type))
		goto drop;
	if (sroce_pkt_parse(skb->data, skb->len, net_type, &pkt)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_HDR_ERR);
		goto drop;
	}
	/* the extended headers too; this may move the linear part */
	if (!pskb_may_pull(skb, pkt.payload_off)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_NOMEM);
		goto drop;
	}
	nh = skb->data;
	pkt.skb = skb;
	pkt.loopback = skb->pkt_type == PACKET_LOOPBACK;
	pkt.vlan_id = is_vlan_dev(skb->dev) ? vlan_dev_vlan_id(skb->dev) :
					      SROCE_NO_VLAN;
	if (!sroce_skb_icrc_ok(skb, &pkt)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_ICRC_ERR);
		goto drop;
	}
	if (skb_headlen(skb) < pkt.payload_off + pkt.payload_len)
		sroce_stats_inc(sdev, SROCE_CNT_RX_FRAGMENTED);
	sroce_stats_add(sdev, SROCE_CNT_RX_BYTES, pkt.len);
	sroce_rx_count_ecn(sdev, &pkt);

	sroce_rx_dispatch(sdev, nh, &pkt);
	consume_skb(skb);
	return;
drop:
	kfree_skb(skb);
}
