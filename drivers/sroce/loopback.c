// SPDX-License-Identifier: GPL-2.0
/*
 * Loopback: a packet a device addresses to itself (its netdev's MAC, as
 * ib_core resolves a local destination) is handed to the device's own
 * receive path instead of the netdev, which would only put it on the wire
 * where nobody answers it.  So two QPs of one device reach each other, over
 * RoCEv1 and RoCEv2 alike.
 *
 * The packet is complete when it gets here (ICRC, checksums, priority:
 * it went through the transmit queues like any other), and sroce_rx()
 * checks it as if it came from the wire.  Delivery runs from a BH work
 * item, so in softirq context like a received packet, and never inside
 * the sender's context: sroce_tx_xmit() may run under a QP lock that the
 * receive path takes again (the QP's own ACKs, the peer QP's responder).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <sroce/loopback.h>
#include <sroce/sroce.h>
#include <sroce/wire.h>

/* Packets waiting for delivery; past it they are dropped, RC resends them */
#define SROCE_LO_LIMIT		2048
/* Packets one work run delivers before it lets other softirq work run */
#define SROCE_LO_BUDGET		64

/**
 * struct sroce_lo - the loopback queue of one device
 * @sdev: the device
 * @skbs: packets waiting for delivery, oldest first (its own lock)
 * @work: delivers them, on system_bh_wq
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

/**
 * sroce_lo_wants() - is @skb addressed to its own device?
 * @sdev: the sending device
 * @skb: a finished packet of sroce_tx_alloc(), mac header set
 *
 * Return: true if sroce_lo_xmit() is to take it instead of the netdev.
 */
bool sroce_lo_wants(const struct sroce_dev *sdev, const struct sk_buff *skb)
{
	return skb_mac_header_was_set(skb) && sroce_lo_own_mac(sdev->ndev, skb);
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
	rcu_read_lock();
	for (n = 0; n < SROCE_LO_BUDGET; n++) {
		skb = skb_dequeue(&lo->skbs);
		if (!skb)
			break;
		sroce_stats_inc(sdev, SROCE_CNT_RX_LOOPBACK);
		sroce_rx(sdev, skb, sroce_lo_net_type(skb));
	}
	rcu_read_unlock();
	if (n == SROCE_LO_BUDGET && !skb_queue_empty_lockless(&lo->skbs))
		queue_work(system_bh_wq, &lo->work);
}

/**
 * sroce_lo_xmit() - deliver @skb to its own device's receive path
 * @lo: the device's loopback queue
 * @skb: a packet for which sroce_lo_wants() was true; consumed
 *
 * Context: any; the delivery happens later, in softirq context.
 *
 * Return: 0 when queued, -ENOBUFS when the queue was full and @skb dropped.
 */
int sroce_lo_xmit(struct sroce_lo *lo, struct sk_buff *skb)
{
	unsigned long flags;
	bool full;

	spin_lock_irqsave(&lo->skbs.lock, flags);
	full = skb_queue_len(&lo->skbs) >= SROCE_LO_LIMIT;
	if (!full)
		__skb_queue_tail(&lo->skbs, skb);
	spin_unlock_irqrestore(&lo->skbs.lock, flags);
	if (full) {
		kfree_skb(skb);
		return -ENOBUFS;
	}
	queue_work(system_bh_wq, &lo->work);
	return 0;
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
