// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast: UD QPs attached to multicast GIDs.
 *
 * A group is a multicast GID and the QPNs attached to it.  Received
 * packets look groups up under RCU; attach and detach replace a group by
 * an updated copy, so a packet sees every member exactly once, whatever
 * changes while it is delivered.
 *
 * The first attach to a group makes the link's netdev receive it: the
 * Ethernet address for RoCEv1, and the IPv4 or IPv6 membership for
 * RoCEv2, whose packets reach us through the IP stack, which drops
 * multicast of groups the interface has not joined.  rdma_cm joins IPv4
 * groups itself for RoCEv2; memberships are counted, so both can hold one.
 *
 * A multicast the device sends goes to the wire and, while the device has
 * groups, also through loopback.c to its own receive path, as a hardware
 * port loops multicast back to the QPs of its own host: the members here
 * receive it like any other.  Only the sending QP itself may opt out
 * (IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK); the DETH names it.
 */
#include <linux/hash.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ip.h>

#include <sroce/device.h>
#include <sroce/frame.h>
#include <sroce/limits.h>
#include <sroce/mcast.h>
#include <sroce/stats.h>
#include <sroce/transport.h>

/**
 * struct sroce_mcg - a multicast group of one device
 * @node: entry in the device's group table
 * @rcu: frees the group after the packets looking at it are done
 * @mgid: the multicast GID (IPv4-mapped for an IPv4 group)
 * @nqps: QPs attached, the first @nqps entries of @qpns
 * @qpns: the attached QPs, by QPN: a lookup, not a reference, keeps a
 *	destroyed QP from receiving
 */
struct sroce_mcg {
	struct hlist_node node;
	struct rcu_head rcu;
	struct in6_addr mgid;
	unsigned int nqps;
	u32 qpns[SROCE_MAX_MCAST_QP_ATTACH];
};

static u32 sroce_mcg_hash(const struct in6_addr *mgid)
{
	return jhash(mgid, sizeof(*mgid), 0);
}

static struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev,
					const struct in6_addr *mgid)
{
	struct sroce_mcg *mcg;

	hash_for_each_possible_rcu(sdev->mcgs, mcg, node,
				   sroce_mcg_hash(mgid))
		if (ipv6_addr_equal(&mcg->mgid, mgid))
			return mcg;
	return NULL;
}

/* The Ethernet address ib_core gives an AH towards @mgid */
static void sroce_mcg_mac(const struct in6_addr *mgid, u8 *mac)
{
	if (ipv6_addr_v4mapped(mgid))
		ip_eth_mc_map(mgid->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(mgid, mac);
}

/* Make or stop the netdev receiving @mgid.  Takes RTNL. */
static void sroce_mcg_listen(struct sroce_dev *sdev,
			     const struct in6_addr *mgid, bool on)
{
	struct net_device *ndev = sdev->ndev;
	struct in_device *in_dev;
	u8 mac[ETH_ALEN];

	sroce_mcg_mac(mgid, mac);
	if (on)
		dev_mc_add(ndev, mac);
	else
		dev_mc_del(ndev, mac);

	if (ipv6_addr_v4mapped(mgid) && !ipv4_is_multicast(mgid->s6_addr32[3]))
		return;
	/*
	 * Both families' group calls find the netdev's inet(6)_dev under
	 * RTNL: ip_mc_*_group() always, ipv6_dev_mc_*() on kernels before
	 * the IPv6 groups got a lock of their own.
	 */
	rtnl_lock();
	if (!ipv6_addr_v4mapped(mgid)) {
		/* fails only without IPv6 on @ndev: RoCEv1 still works */
		if (on)
			ipv6_dev_mc_inc(ndev, mgid);
		else
			ipv6_dev_mc_dec(ndev, mgid);
	} else {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev && on)
			ip_mc_inc_group(in_dev, mgid->s6_addr32[3]);
		else if (in_dev)
			ip_mc_dec_group(in_dev, mgid->s6_addr32[3]);
	}
	rtnl_unlock();
}

/* Put @new in the table in place of @old (either may be NULL) */
static void sroce_mcg_replace(struct sroce_dev *sdev, struct sroce_mcg *old,
			      struct sroce_mcg *new)
{
	if (old && new)
		hlist_replace_rcu(&old->node, &new->node);
	else if (new)
		hash_add_rcu(sdev->mcgs, &new->node,
			     sroce_mcg_hash(&new->mgid));
	else if (old)
		hash_del_rcu(&old->node);
	if (old)
		kfree_rcu(old, rcu);
}

static int sroce_mcg_index(const struct sroce_mcg *mcg, u32 qpn)
{
	unsigned int i;

	for (i = 0; i < mcg->nqps; i++)
		if (mcg->qpns[i] == qpn)
			return i;
	return -1;
}

static int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	const struct in6_addr *mgid = (struct in6_addr *)gid->raw;
	struct sroce_mcg *old, *new;
	int err = 0;

	/* ib_core has checked that @gid is multicast and @ibqp is UD */
	mutex_lock(&sdev->mcast_lock);
	old = sroce_mcg_find(sdev, mgid);
	if (old && sroce_mcg_index(old, ibqp->qp_num) >= 0)
		goto out;		/* attached already: nothing changes */
	if (old && old->nqps == SROCE_MAX_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out;
	}
	if (!old && sdev->num_mcg == SROCE_MAX_MCAST_GRP) {
		err = -ENOMEM;
		goto out;
	}
	new = old ? kmemdup(old, sizeof(*old), GFP_KERNEL) :
		    kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new) {
		err = -ENOMEM;
		goto out;
	}
	new->mgid = *mgid;
	new->qpns[new->nqps++] = ibqp->qp_num;
	if (!old) {
		sroce_mcg_listen(sdev, mgid, true);
		WRITE_ONCE(sdev->num_mcg, sdev->num_mcg + 1);
	}
	sroce_mcg_replace(sdev, old, new);
out:
	mutex_unlock(&sdev->mcast_lock);
	return err;
}

/* Detach @qpn from @old; mcast_lock held.  -EINVAL if not attached. */
static int sroce_mcg_remove(struct sroce_dev *sdev, struct sroce_mcg *old,
			    u32 qpn)
{
	int i = sroce_mcg_index(old, qpn);
	struct sroce_mcg *new;

	if (i < 0)
		return -EINVAL;
	if (old->nqps == 1) {
		sroce_mcg_listen(sdev, &old->mgid, false);
		sroce_mcg_replace(sdev, old, NULL);
		WRITE_ONCE(sdev->num_mcg, sdev->num_mcg - 1);
		return 0;
	}
	/* a QP being destroyed must leave: its QPN will be reused */
	new = kmemdup(old, sizeof(*old), GFP_KERNEL | __GFP_NOFAIL);
	new->qpns[i] = new->qpns[--new->nqps];
	sroce_mcg_replace(sdev, old, new);
	return 0;
}

static int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcg *mcg;
	int err = -EINVAL;

	mutex_lock(&sdev->mcast_lock);
	mcg = sroce_mcg_find(sdev, (struct in6_addr *)gid->raw);
	if (mcg)
		err = sroce_mcg_remove(sdev, mcg, ibqp->qp_num);
	mutex_unlock(&sdev->mcast_lock);
	return err;
}

/**
 * sroce_mcast_detach_qp() - detach a QP being destroyed from every group
 * @qp: the QP; its number is not reused before this returns
 *
 * uverbs detaches the groups of a user QP itself; a kernel consumer may
 * not have.  Process context.
 */
void sroce_mcast_detach_qp(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct hlist_node *tmp;
	struct sroce_mcg *mcg;
	unsigned int bkt;

	mutex_lock(&sdev->mcast_lock);
	hash_for_each_safe(sdev->mcgs, bkt, tmp, mcg, node)
		sroce_mcg_remove(sdev, mcg, qp->ibqp.qp_num);
	mutex_unlock(&sdev->mcast_lock);
}

/*
 * The QPN of this device that sent @pkt, or SROCE_MCAST_QPN (no QP has it)
 * for a packet from the wire or one without a DETH (the responder drops it).
 */
static u32 sroce_mcast_sender(const u8 *nh, const struct sroce_pkt *pkt)
{
	const void *deth;

	if (!pkt->loopback)
		return SROCE_MCAST_QPN;
	deth = sroce_pkt_hdr(nh, pkt, SROCE_HDR_DETH);
	return deth ? sroce_deth_sqpn(deth) : SROCE_MCAST_QPN;
}

/**
 * sroce_mcast_rcv() - deliver a packet sent to a multicast group
 * @sdev: the device it arrived on
 * @nh: its network header, with the headers up to the payload
 * @pkt: the parsed packet, destination QPN SROCE_MCAST_QPN
 *
 * Hands the packet to the responder of every QP attached to the group
 * of its destination GID, but for the QP that sent it here when that QP
 * blocks its own multicast loopback.  Context: softirq.
 */
void sroce_mcast_rcv(struct sroce_dev *sdev, const u8 *nh,
		     const struct sroce_pkt *pkt)
{
	u32 qpns[SROCE_MAX_MCAST_QP_ATTACH];
	const struct sroce_mcg *mcg;
	unsigned int i, n = 0;
	struct sroce_qp *qp;
	u32 sender = sroce_mcast_sender(nh, pkt);

	rcu_read_lock();
	mcg = sroce_mcg_find(sdev, &pkt->dgid);
	if (mcg) {
		n = mcg->nqps;
		memcpy(qpns, mcg->qpns, n * sizeof(qpns[0]));
	}
	rcu_read_unlock();
	if (!n) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_NO_QP);
		return;
	}
	sroce_stats_inc(sdev, SROCE_CNT_RX_MCAST);

	for (i = 0; i < n; i++) {
		qp = sroce_qp_get(sdev, qpns[i]);
		if (!qp)
			continue;	/* being destroyed */
		if (qpns[i] != sender || !qp->block_mcast_lb)
			sroce_resp_rcv(qp, nh, pkt);
		sroce_qp_put(qp);
	}
}

void sroce_mcast_init(struct sroce_dev *sdev)
{
	hash_init(sdev->mcgs);
	mutex_init(&sdev->mcast_lock);
}

/* The device is going away: every QP is gone, drop what a ULP left */
void sroce_mcast_fini(struct sroce_dev *sdev)
{
	struct hlist_node *tmp;
	struct sroce_mcg *mcg;
	unsigned int bkt;

	mutex_lock(&sdev->mcast_lock);
	hash_for_each_safe(sdev->mcgs, bkt, tmp, mcg, node) {
		sroce_mcg_listen(sdev, &mcg->mgid, false);
		sroce_mcg_replace(sdev, mcg, NULL);
	}
	WRITE_ONCE(sdev->num_mcg, 0);
	mutex_unlock(&sdev->mcast_lock);
	mutex_destroy(&sdev->mcast_lock);
}

const struct ib_device_ops sroce_mcast_ops = {
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,
};
