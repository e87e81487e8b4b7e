// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: building a packet.
 *
 * sroce_tx_alloc() classifies a packet (qos.h: its priority and traffic
 * class), builds its link and network headers in one skb and leaves the
 * transport part to the caller; sroce_tx_finish() adds what can only be
 * computed once that part is written (ICRC, the IPv6 UDP checksum) and the
 * PCP, as tx.c queues it.  Nothing here queues, waits or holds a lock.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/ip6_checksum.h>

#include <sroce/ah.h>
#include <sroce/device.h>
#include <sroce/frame.h>
#include <sroce/icrc.h>
#include <sroce/qos.h>
#include <sroce/tx.h>
#include <sroce/txzc.h>

/* Hop limits for an AV that has none */
#define SROCE_TX_IP_TTL		64
#define SROCE_TX_GRH_HOPLMT	0xff

static int sroce_tx_net_type(u8 network_type, enum sroce_net_type *t,
			     __be16 *proto)
{
	*t = sroce_av_net_type(network_type);
	if (!*t)
		return -EINVAL;
	*proto = htons(sroce_net_ethertype(*t));
	return 0;
}

/*
 * A GRH never crosses a router (RoCEv1 is link-local), so its hop limit
 * only has to be one no router would discard; IP gets the usual TTL.
 */
static u8 sroce_tx_hop_limit(const struct sroce_av *av, enum sroce_net_type t)
{
	if (av->hop_limit)
		return av->hop_limit;
	return t == SROCE_NET_ROCE_V1 ? SROCE_TX_GRH_HOPLMT : SROCE_TX_IP_TTL;
}

static void sroce_tx_net_params(struct sroce_dev *sdev,
				const struct sroce_av *av,
				enum sroce_net_type t, u16 sport, u8 tclass,
				struct sroce_net_params *np)
{
	np->type = t;
	/* IPv4 AVs hold IPv4-mapped GIDs, which is what frame.c expects */
	memcpy(&np->saddr, av->sgid.raw, sizeof(np->saddr));
	memcpy(&np->daddr, av->dgid.raw, sizeof(np->daddr));
	np->flow_label = av->flow_label;
	np->ip_id = (u16)atomic_inc_return(&sdev->tx_ip_id);
	np->sport = sport;
	np->tclass = tclass;
	np->hop_limit = sroce_tx_hop_limit(av, t);
}

static void sroce_tx_eth_hdr(struct sk_buff *skb, const struct sroce_av *av,
			     __be16 proto)
{
	struct ethhdr *eh = skb_push(skb, ETH_HLEN);

	ether_addr_copy(eh->h_dest, av->dmac);
	ether_addr_copy(eh->h_source, skb->dev->dev_addr);
	eh->h_proto = proto;
	skb_reset_mac_header(skb);
	skb->protocol = proto;
}

/*
 * Tag frames of a VLAN GID, and priority-tag (VLAN ID 0) those of a PFC
 * priority that would otherwise leave untagged.  The PCP is filled in at
 * send time.  A link made on a VLAN device gets its tag from that device,
 * whose egress map turns skb->priority into the PCP.
 */
static void sroce_tx_vlan(struct sk_buff *skb, const struct sroce_av *av,
			  bool prio_tag)
{
	struct net_device *ndev = skb->dev;

	if (is_vlan_dev(ndev) &&
	    (av->vlan_id >= VLAN_N_VID || vlan_dev_vlan_id(ndev) == av->vlan_id))
		return;
	if (av->vlan_id < VLAN_N_VID)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), av->vlan_id);
	else if (prio_tag)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), 0);
}

/*
 * All packets of one flow (one QP towards one peer) must leave through the
 * same netdev queue, or a backlog in one queue reorders them on the wire.
 * Give the stack a flow hash, and pin the CPU that XPS maps by, to the flow
 * rather than to whichever CPU happens to drain.
 */
static void sroce_tx_steer(struct sk_buff *skb, const struct sroce_av *av,
			   u16 sport)
{
	u32 hash = jhash(av->dgid.raw, sizeof(av->dgid.raw), sport);

	skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
#ifdef CONFIG_XPS
	skb->sender_cpu = reciprocal_scale(hash, nr_cpu_ids) + 1;
#endif
}

/*
 * The packet of sroce_tx_alloc_class(), of which the last @frag_len bytes
 * of the transport part (payload and pad) and the ICRC are left for the
 * caller to attach as fragments (txzc.h); 0 for a linear packet.
 */
static struct sk_buff *sroce_tx_alloc_skb(struct sroce_dev *sdev,
					  const struct sroce_av *av, u16 sport,
					  const struct sroce_qos_class *qc,
					  unsigned int tp_len,
					  unsigned int frag_len, void **bth)
{
	struct net_device *ndev = sdev->ndev;
	struct sroce_net_params np;
	unsigned int hroom, nhl, lin;
	enum sroce_net_type t;
	struct sk_buff *skb;
	__be16 proto;
	int ret;

	if (!sdev->tx || tp_len < SROCE_BTH_LEN + frag_len ||
	    sroce_tx_net_type(av->network_type, &t, &proto))
		return NULL;
	nhl = sroce_net_hdr_len(t);
	lin = nhl + tp_len - frag_len + (frag_len ? 0 : SROCE_ICRC_LEN);

	/* room for a tag the stack may have to insert in software */
	hroom = LL_RESERVED_SPACE_EXTRA(ndev, VLAN_HLEN);
	/* an fclone: the spare sroce_tx_spare() may keep costs no allocation */
	skb = __alloc_skb(hroom + lin + READ_ONCE(ndev->needed_tailroom),
			  GFP_ATOMIC, SKB_ALLOC_FCLONE, NUMA_NO_NODE);
	if (!skb)
		return NULL;
	skb_reserve(skb, hroom);
	skb->dev = ndev;

	skb_reset_network_header(skb);
	skb_put(skb, lin);
	skb->priority = qc->prio;
	sroce_tx_net_params(sdev, av, t, sport, qc->tclass, &np);
	ret = sroce_net_hdr_build(skb->data, &np, tp_len + SROCE_ICRC_LEN);
	if (ret < 0) {
		kfree_skb(skb);
		return NULL;
	}
	/* RoCEv2: the UDP header, which checksum offload starts from */
	skb_set_transport_header(skb, t == SROCE_NET_ROCE_V1 ? nhl :
				 nhl - SROCE_UDP_LEN);
	*bth = skb->data + nhl;

	sroce_tx_eth_hdr(skb, av, proto);
	skb_reset_mac_len(skb);
	sroce_tx_vlan(skb, av, qc->prio_tag);
	sroce_tx_steer(skb, av, sport);
	return skb;
}

/**
 * sroce_tx_alloc_class() - allocate and address a packet of a given class
 * @sdev: the device
 * @av: where the packet goes
 * @sport: UDP source port (RoCEv2)
 * @qc: its priority (skb->priority from here on), traffic class and tag
 * @tp_len: bytes of the transport part, BTH through pad
 * @bth: set to the transport part
 *
 * Builds the Ethernet header (tagged for a VLAN GID or a PFC priority)
 * and the GRH or the IP and UDP headers for a transport part of @tp_len
 * bytes plus the ICRC.  The caller fills all @tp_len bytes at *@bth;
 * sroce_tx_send() adds the ICRC after them.  Any context.
 *
 * Return: the skb, with skb->data at the Ethernet header, or NULL when out
 * of memory or @av / @tp_len cannot be encoded.
 */
struct sk_buff *sroce_tx_alloc_class(struct sroce_dev *sdev,
				     const struct sroce_av *av, u16 sport,
				     const struct sroce_qos_class *qc,
				     unsigned int tp_len, void **bth)
{
	return sroce_tx_alloc_skb(sdev, av, sport, qc, tp_len, 0, bth);
}

/**
 * sroce_tx_alloc() - allocate and address a packet of a path
 * @sdev: the device
 * @av: where the packet goes
 * @sport: UDP source port (RoCEv2)
 * @tp_len: bytes of the transport part, BTH through pad
 * @bth: set to the transport part
 *
 * sroce_tx_alloc_class() with the class the device's QoS configuration
 * gives @av's service level and traffic class.
 *
 * Return: the skb, or NULL.
 */
struct sk_buff *sroce_tx_alloc(struct sroce_dev *sdev,
			       const struct sroce_av *av, u16 sport,
			       unsigned int tp_len, void **bth)
{
	return sroce_tx_alloc_frags(sdev, av, sport, tp_len, 0, bth);
}

/* The class of a packet to @av under the configuration in force now */
static void sroce_tx_classify(struct sroce_dev *sdev, enum sroce_net_type t,
			      u8 sl, u8 tclass, struct sroce_qos_class *out)
{
	rcu_read_lock();
	sroce_qos_classify(rcu_dereference(sdev->qos), t, sl, tclass, out);
	rcu_read_unlock();
}

/* sroce_tx_alloc() with fragments to come: include/sroce/txzc.h */
struct sk_buff *sroce_tx_alloc_frags(struct sroce_dev *sdev,
				     const struct sroce_av *av, u16 sport,
				     unsigned int tp_len,
				     unsigned int frag_len, void **bth)
{
	struct sroce_qos_class qc;
	enum sroce_net_type t = sroce_av_net_type(av->network_type);

	if (!t)
		return NULL;
	sroce_tx_classify(sdev, t, av->sl, av->traffic_class, &qc);
	return sroce_tx_alloc_skb(sdev, av, sport, &qc, tp_len, frag_len, bth);
}

/* --- Finishing ----------------------------------------------------------- */

/* Is @skb, a packet of sroce_tx_alloc(), a RoCEv2 one marked ECN-capable? */
bool sroce_tx_ect(const struct sk_buff *skb)
{
	switch (ntohs(skb->protocol)) {
	case ETH_P_IP:
		return ipv4_get_dsfield(ip_hdr(skb)) & SROCE_ECN_MASK;
	case ETH_P_IPV6:
		return ipv6_get_dsfield(ipv6_hdr(skb)) & SROCE_ECN_MASK;
	default:
		return false;
	}
}

static int sroce_tx_skb_type(const struct sk_buff *skb, enum sroce_net_type *t)
{
	*t = sroce_net_type_of_ethertype(ntohs(skb->protocol));
	return *t ? 0 : -EINVAL;
}

/*
 * IPv6 UDP with a zero checksum is only accepted by sockets that opt in
 * (RFC 6936); ours and rdma_rxe's do, other receivers and middleboxes may
 * not.  A real checksum is accepted everywhere: let the NIC compute it
 * when it can, else compute it here (the ICRC must already be in place).
 */
static void sroce_tx_udp6_csum(struct sk_buff *skb)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	struct udphdr *uh = udp_hdr(skb);
	int off = skb_transport_offset(skb);
	unsigned int len = skb->len - off;

	if (skb->dev->features & (NETIF_F_HW_CSUM | NETIF_F_IPV6_CSUM)) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
		uh->check = ~udp_v6_check(len, &ip6h->saddr, &ip6h->daddr, 0);
		return;
	}
	uh->check = 0;
	uh->check = udp_v6_check(len, &ip6h->saddr, &ip6h->daddr,
				 skb_checksum(skb, off, len, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
	skb->ip_summed = CHECKSUM_NONE;
}

/* ICRC, UDP checksum and PCP of a packet of sroce_tx_alloc() */
int sroce_tx_finish(struct sk_buff *skb, u8 prio)
{
	enum sroce_net_type t;
	unsigned int len;
	u8 *nh;

	if (sroce_tx_skb_type(skb, &t))
		return -EINVAL;
	if (skb_is_nonlinear(skb)) {
		if (sroce_txzc_put_icrc(skb, t))
			return -EINVAL;
	} else {
		nh = skb_network_header(skb);
		len = skb_tail_pointer(skb) - nh - SROCE_ICRC_LEN;
		sroce_icrc_put(nh + len, sroce_icrc_compute(t, nh, len));
	}

	/* IPv4 keeps the zero UDP checksum sroce_net_hdr_build() wrote */
	if (t == SROCE_NET_ROCE_V2_IPV6)
		sroce_tx_udp6_csum(skb);

	if (skb_vlan_tag_present(skb))
		__vlan_hwaccel_put_tag(skb, skb->vlan_proto,
				       skb_vlan_tag_get_id(skb) |
				       (prio << VLAN_PRIO_SHIFT));
	return 0;
}
