// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs entry points without a file of their own (user contexts) and the
 * sizes of the objects ib_core allocates for us.  CQs are in cq.c, PDs,
 * MRs and MWs in mr.c, AHs in ah.c, QPs in qp.c, SRQs in srq.c.
 */
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include <sroce/verbs.h>

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * sroce_fill_res_attrs() - an object's driver attributes for rdma resource
 * @msg: the netlink message
 * @a: the attributes, read by the caller under its object's locks
 * @n: how many
 *
 * They go in a nest of their own, which the driver opens.
 *
 * Return: 0, or -EMSGSIZE when @msg is full (nothing of the nest is left).
 */
int sroce_fill_res_attrs(struct sk_buff *msg, const struct sroce_res_attr *a,
			 unsigned int n)
{
	struct nlattr *nest;
	unsigned int i;
	int err = 0;

	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n && !err; i++)
		err = a[i].hex ?
			rdma_nl_put_driver_u32_hex(msg, a[i].name, a[i].value) :
			rdma_nl_put_driver_u32(msg, a[i].name, a[i].value);
	if (err) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

const struct ib_device_ops sroce_verbs_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};
