// SPDX-License-Identifier: GPL-2.0
/*
 * Loopback: a packet a device addresses to itself (its netdev's MAC, as
 * ib_core resolves a local destination) is handed to the device's own
 * receive path instead of the netdev, which would only put it on the wire
 * where nobody answers it.  So two QPs of one device reach each other, over
 * RoCEv1 and RoCEv2 alike.
 *
 * A destination another netdev of the same namespace owns is local too:
 * the kernel routes such an address through its loopback device, and
 * ib_core gives it the sending netdev's own MAC (a path bound to a GID
 * resolves a local address to the GID's netdev), or that netdev's MAC
 * (link-local GIDs carry it).  When an sroce device is linked to the
 * netdev that owns the destination address, the packet goes to that
 * device's receive path the same way, never to the wire, where it may
 * find no way back (unconnected netdevs) or be dropped as a martian (a
 * source address that is local).
 *
 * The packet is complete when it gets here (ICRC, checksums, priority:
 * it went through the transmit queues like any other), and sroce_rx()
 * checks it as if it came from the wire.  Delivery runs from a BH work
 * item, so in softirq context like a received packet, and never inside
 * the sender's context: sroce_tx_xmit() may run under a QP lock that the
 * receive path takes again (the QP's own ACKs, the peer QP's responder).
 *
 * A multicast goes to the wire and, as a copy, to the device's own
 * receive path too, for the members of its group on this device
 * (mcast.c); the copy is marked PACKET_LOOPBACK so that the receive path
 * can tell who sent it.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>

#include <sroce/compat.h>
#include <sroce/device.h>
#include <sroce/rx.h>
#include <sroce/stats.h>
#include <sroce/tx.h>
#include <sroce/wire.h>

/* Packets waiting for delivery; past it they are dropped, RC resends them */
#define SROCE_LO_LIMIT		2048
/* Packets one work run delivers before it lets other softirq work run */
#define SROCE_LO_BUDGET		64

/**
 * struct sroce_lo - the loopback queue of one device
 * @sdev: the device
 * @skbs: packets waiting for delivery, oldest first (its own lock)
 * @work: delivers them, in softirq context (sroce_queue_bh_work())
 */
struct sroce_lo {
	struct sroce_dev *sdev;
	struct sk_buff_head skbs;
	struct work_struct work;
};

/* The MAC a frame to ourselves carries: the netdev's, or its VLAN's */
static bool sroce_lo_own_mac(const struct net_device *ndev,
			     const struct sk_buff *skb)
{
	const u8 *dest = eth_hdr(skb)->h_dest;
	struct net_device *vdev;
	bool own;

	if (ether_addr_equal(dest, ndev->dev_addr))
		return true;
	if (!skb_vlan_tag_present(skb))
		return false;
	rcu_read_lock();
	vdev = __vlan_find_dev_deep_rcu((struct net_device *)ndev,
					skb->vlan_proto,
					skb_vlan_tag_get_id(skb));
	own = vdev && ether_addr_equal(dest, vdev->dev_addr);
	rcu_read_unlock();
	return own;
}

static int sroce_lo_net_type(const struct sk_buff *skb)
{
	return sroce_net_type_of_ethertype(ntohs(skb->protocol));
}

static void sroce_lo_work(struct work_struct *work)
{
	struct sroce_lo *lo = container_of(work, struct sroce_lo, work);
	struct sroce_dev *sdev = lo->sdev;
	struct sk_buff *skb;
	int n;

	/* the receive path expects what a softirq from the wire gives it */
	sroce_bh_work_begin();
	rcu_read_lock();
	for (n = 0; n < SROCE_LO_BUDGET; n++) {
		skb = skb_dequeue(&lo->skbs);
		if (!skb)
			break;
		sroce_stats_inc(sdev, SROCE_CNT_RX_LOOPBACK);
		sroce_rx(sdev, skb, sroce_lo_net_type(skb));
	}
	rcu_read_unlock();
	sroce_bh_work_end();
	if (n == SROCE_LO_BUDGET && !skb_queue_empty_lockless(&lo->skbs))
		sroce_queue_bh_work(&lo->work);
}

/* Queue @skb (consumed) for @lo's device; 0, or -ENOBUFS when dropped */
static int sroce_lo_xmit(struct sroce_lo *lo, struct sk_buff *skb)
{
	unsigned long flags;
	bool full;

	skb->pkt_type = PACKET_LOOPBACK;
	spin_lock_irqsave(&lo->skbs.lock, flags);
	full = skb_queue_len(&lo->skbs) >= SROCE_LO_LIMIT;
	if (!full)
		__skb_queue_tail(&lo->skbs, skb);
	spin_unlock_irqrestore(&lo->skbs.lock, flags);
	if (full) {
		kfree_skb(skb);
		return -ENOBUFS;
	}
	sroce_queue_bh_work(&lo->work);
	return 0;
}

/* What sroce_lo_peer() and sroce_lo_neighbour() look for */
struct sroce_lo_find {
	const struct sroce_dev *sdev;
	const struct sk_buff *skb;
};

/* Another device of the sender's namespace */
static bool sroce_lo_neighbour(const struct sroce_dev *peer, const void *arg)
{
	const struct sroce_lo_find *f = arg;

	return peer != f->sdev && peer->net == f->sdev->net;
}

/* Another device of the sender's namespace, whose netdev @f->skb is for */
static bool sroce_lo_peer(const struct sroce_dev *peer, const void *arg)
{
	return sroce_lo_neighbour(peer, arg) &&
	       sroce_lo_own_mac(peer->ndev, ((const struct sroce_lo_find *)arg)->skb);
}

/*
 * The netdev of @net that owns the destination address of @skb, or NULL.
 * The RoCEv1 GRH puts its DGID where the IPv6 header has its destination.
 * Under RCU.
 */
static struct net_device *sroce_lo_dest_ndev(struct net *net,
					     const struct sk_buff *skb)
{
	const struct in6_addr *daddr;

	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(net, ip_hdr(skb)->daddr, false);
	daddr = &ipv6_hdr(skb)->daddr;
	if (ipv6_addr_v4mapped(daddr))
		return __ip_dev_find(net, daddr->s6_addr32[3], false);
	return ipv6_dev_find(net, daddr, NULL);
}

/*
 * The device a packet @sdev sends to its own MAC is for: the one linked
 * to the netdev that owns its destination address, else @sdev.  Under RCU.
 */
static struct sroce_dev *sroce_lo_target(struct sroce_dev *sdev,
					 const struct sk_buff *skb)
{
	struct sroce_lo_find f = { .sdev = sdev, .skb = skb };
	struct net_device *ndev;
	struct sroce_dev *peer;

	/* one device in the namespace: nothing to look up */
	if (!sroce_dev_net_shared(sdev->net) ||
	    !sroce_dev_find_rcu(sroce_lo_neighbour, &f))
		return sdev;
	ndev = sroce_lo_dest_ndev(sdev->net, skb);
	if (ndev && is_vlan_dev(ndev))
		ndev = vlan_dev_real_dev(ndev);
	if (!ndev || ndev == sdev->ndev)
		return sdev;
	peer = sroce_dev_from_ndev_rcu(ndev);
	return peer && peer->net == sdev->net ? peer : sdev;
}

/**
 * sroce_lo_local() - deliver @skb locally if it is for a device of this host
 * @sdev: the sending device
 * @skb: a finished packet of sroce_tx_alloc(), mac and network headers set
 *
 * A packet to @sdev's own MAC goes to the receive path of the device that
 * owns its destination address, @sdev itself unless another device of the
 * namespace does; one to the MAC of another device's netdev goes to that
 * device.  On a namespace with one device this costs no walk at all.
 *
 * Context: any; the delivery happens later, in softirq context.
 *
 * Return: 1 when @skb is for the netdev (not consumed), 0 when it was
 * queued for local delivery, -ENOBUFS when that queue was full and @skb
 * dropped.
 */
int sroce_lo_local(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_lo_find f = { .sdev = sdev, .skb = skb };
	struct sroce_dev *peer;
	int rc = 1;

	if (!skb_mac_header_was_set(skb))
		return 1;
	rcu_read_lock();
	if (sroce_lo_own_mac(sdev->ndev, skb)) {
		rc = sroce_lo_xmit(sroce_lo_target(sdev, skb)->lo, skb);
	} else if (sroce_dev_net_shared(sdev->net) &&
		   !is_multicast_ether_addr(eth_hdr(skb)->h_dest)) {
		peer = sroce_dev_find_rcu(sroce_lo_peer, &f);
		if (peer)
			rc = sroce_lo_xmit(peer->lo, skb);
	}
	rcu_read_unlock();
	return rc;
}

/**
 * sroce_lo_mcast() - loop a copy of a multicast back to its own device
 * @lo: the device's loopback queue
 * @skb: a finished packet on its way to the netdev; not consumed
 *
 * A copy, not a clone: the wire's packet and ours are read by two
 * contexts at once, and the receive path may rearrange its buffer.
 *
 * Context: any; the delivery happens later, in softirq context.
 *
 * Return: 0 when @skb is no multicast, the device has no group, or the
 * copy was queued; -ENOBUFS when it could not be made or queued.
 */
int sroce_lo_mcast(struct sroce_lo *lo, const struct sk_buff *skb)
{
	struct sk_buff *copy;

	if (!skb_mac_header_was_set(skb) ||
	    !is_multicast_ether_addr(eth_hdr(skb)->h_dest) ||
	    !READ_ONCE(lo->sdev->num_mcg))
		return 0;
	copy = skb_copy(skb, GFP_ATOMIC);
	if (!copy)
		return -ENOBUFS;
	return sroce_lo_xmit(lo, copy);
}

/**
 * sroce_lo_create() - the loopback queue of a device
 * @sdev: the device
 *
 * Context: process.
 *
 * Return: the queue, or NULL when out of memory.
 */
struct sroce_lo *sroce_lo_create(struct sroce_dev *sdev)
{
	struct sroce_lo *lo = kzalloc(sizeof(*lo), GFP_KERNEL);

	if (!lo)
		return NULL;
	lo->sdev = sdev;
	skb_queue_head_init(&lo->skbs);
	INIT_WORK(&lo->work, sroce_lo_work);
	return lo;
}

/**
 * sroce_lo_destroy() - drop what is queued and free the queue
 * @lo: the queue, or NULL
 *
 * The caller guarantees that sroce_lo_xmit() is no longer called.  When
 * this returns, no delivery is running or will run.  Context: process.
 */
void sroce_lo_destroy(struct sroce_lo *lo)
{
	if (!lo)
		return;
	cancel_work_sync(&lo->work);
	skb_queue_purge(&lo->skbs);
	kfree(lo);
}
