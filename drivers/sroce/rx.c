// SPDX-License-Identifier: GPL-2.0
/*
 * First stop of every received RoCE packet, in softirq: bound the lengths,
 * validate the headers and the ICRC, count, and hand the packet on.  Nothing
 * a packet says is trusted before sroce_pkt_parse() has checked it.
 */
#include <linux/skbuff.h>

#include <sroce/sroce.h>
#include <sroce/wire.h>

void sroce_rx(struct sroce_dev *sdev, struct sk_buff *skb, int net_type)
{
	struct sroce_pkt pkt;
	unsigned int len;
	const u8 *nh;

	sroce_stats_inc(sdev, SROCE_CNT_RX_PACKETS);
	sroce_stats_inc(sdev, net_type == SROCE_NET_ROCE_V1 ?
			      SROCE_CNT_RX_V1_PACKETS : SROCE_CNT_RX_V2_PACKETS);

	/*
	 * The ICRC covers the whole packet, so it is read in full anyway;
	 * one linear copy keeps every later access a plain bounds check.
	 */
	if (skb_linearize(skb)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_NOMEM);
		goto drop;
	}
	nh = skb_network_header(skb);
	len = skb_tail_pointer(skb) - nh;

	if (sroce_pkt_parse(nh, len, net_type, &pkt)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_HDR_ERR);
		goto drop;
	}
	if (!sroce_pkt_icrc_ok(nh, &pkt)) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_ICRC_ERR);
		goto drop;
	}
	sroce_stats_add(sdev, SROCE_CNT_RX_BYTES, pkt.len);

	/* no queue pairs exist yet: every valid packet is for an unknown QP */
	sroce_stats_inc(sdev, SROCE_CNT_RX_NO_QP);
	consume_skb(skb);
	return;
drop:
	kfree_skb(skb);
}
