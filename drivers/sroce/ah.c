// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles.  An AH keeps a copy of everything the packet builder
 * needs (struct sroce_av), so the transport never goes back to the GID
 * table for it.  ib_core holds the AH's reference on its source GID entry
 * (ah->sgid_attr) from before create until after destroy, so we keep none.
 *
 * librxe does not pass AH pointers: it writes the number we return in
 * struct rxe_create_ah_resp into each UD WQE.  User AHs are therefore
 * entered in a per-device table under that number, and the transport
 * resolves it with sroce_ah_get(), from softirq if need be.  Kernel AHs
 * reach the transport as pointers in the work request and stay out of the
 * table, which also lets them be destroyed where sleeping is not allowed.
 */
#include <linux/xarray.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/ah.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/numspace.h>

/**
 * sroce_av_from_attr() - fill an address vector from AH attributes
 * @av: what to fill
 * @attr: RoCE AH attributes as ib_core passes them (create_ah, or
 *	modify_qp with IB_QP_AV): GRH set, sgid_attr filled, dmac resolved
 *
 * Return: 0, or -EINVAL for attributes that are not RoCE of a kind we
 * speak (v1, v2 over IPv4 or IPv6).
 */
int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	int net_type;
	bool v4;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !sgid_attr ||
	    rdma_ah_get_port_num(attr) != SROCE_PORT)
		return -EINVAL;
	net_type = rdma_gid_attr_network_type(sgid_attr);
	if (net_type != RDMA_NETWORK_ROCE_V1 &&
	    net_type != RDMA_NETWORK_IPV4 && net_type != RDMA_NETWORK_IPV6)
		return -EINVAL;
	/* RoCEv2 builds one IP header: both ends must be of its family */
	v4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	if ((net_type == RDMA_NETWORK_IPV4 && !v4) ||
	    (net_type == RDMA_NETWORK_IPV6 && v4))
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->network_type = net_type;
	av->port_num = SROCE_PORT;
	av->sl = rdma_ah_get_sl(attr);
	av->static_rate = rdma_ah_get_static_rate(attr);
	av->traffic_class = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	av->sgid_index = grh->sgid_index;
	av->flow_label = grh->flow_label & 0xfffff;
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	/* the GID's netdev may be a VLAN device over ours: tag with its id */
	if (rdma_read_gid_l2_fields(sgid_attr, &av->vlan_id, av->smac))
		return -EINVAL;
	return 0;
}

static int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct rxe_create_ah_resp resp = {};
	int err;

	err = sroce_av_from_attr(&ah->av, init->ah_attr);
	if (err)
		return err;
	refcount_set(&ah->ref, 1);
	init_completion(&ah->done);
	if (!udata)
		return 0;

	/* reserve the number, answer, and only then let lookups find it */
	err = xa_alloc_cyclic_irq(&sdev->ahs, &ah->ah_num, NULL,
				  XA_LIMIT(1, SROCE_MAX_AH - 1),
				  &sdev->ah_next, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	/* a librxe without ah_num support sends no room; it passes AVs */
	if (udata->outlen >= sizeof(resp)) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			xa_erase_irq(&sdev->ahs, ah->ah_num);
			return err;
		}
	}
	xa_store_irq(&sdev->ahs, ah->ah_num, ah, GFP_KERNEL);
	return 0;
}

static int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);

	if (!ah->ah_num)
		return 0;
	/*
	 * Numbered AHs are user AHs, which uverbs always destroys with
	 * RDMA_DESTROY_AH_SLEEPABLE: wait for the transport to let go, as
	 * ib_core frees the memory when we return.
	 */
	xa_erase_irq(&sdev->ahs, ah->ah_num);
	sroce_ah_put(ah);
	wait_for_completion(&ah->done);
	return 0;
}

static int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct sroce_av *av = &to_sah(ibah)->av;

	memset(attr, 0, sizeof(*attr));
	attr->type = ibah->type;
	rdma_ah_set_port_num(attr, av->port_num);
	rdma_ah_set_sl(attr, av->sl);
	rdma_ah_set_static_rate(attr, av->static_rate);
	rdma_ah_set_grh(attr, &av->dgid, av->flow_label,
			av->sgid_index, av->hop_limit, av->traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
	return 0;
}

/**
 * sroce_ah_get() - find a user AH by the number librxe put in a UD WQE
 * @sdev: the device
 * @ah_num: wr.ud.ah_num, untrusted
 *
 * The caller must still check that the AH's PD (ah->ibah.pd) is the QP's.
 * Callable from any context.  Return: the AH, to be released with
 * sroce_ah_put(), or NULL.
 */
struct sroce_ah *sroce_ah_get(struct sroce_dev *sdev, u32 ah_num)
{
	unsigned long flags;
	struct sroce_ah *ah;

	/*
	 * Under the table lock, not RCU: ib_core frees AHs without a grace
	 * period, so the reference must be taken before destroy can erase.
	 * The lock is IRQ-safe so that callers may hold IRQ-safe locks.
	 */
	xa_lock_irqsave(&sdev->ahs, flags);
	ah = xa_load(&sdev->ahs, ah_num);
	if (ah && !refcount_inc_not_zero(&ah->ref))
		ah = NULL;
	xa_unlock_irqrestore(&sdev->ahs, flags);
	return ah;
}

void sroce_ah_put(struct sroce_ah *ah)
{
	if (refcount_dec_and_test(&ah->ref))
		complete(&ah->done);
}

const struct ib_device_ops sroce_ah_ops = {
	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.query_ah = sroce_query_ah,
};
