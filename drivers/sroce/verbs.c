// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs entry points without a file of their own (user contexts) and the
 * sizes of the objects ib_core allocates for us.  CQs are in cq.c, PDs,
 * MRs and MWs in mr.c, AHs in ah.c, QPs in qp.c, SRQs in srq.c.
 */
#include <rdma/ib_verbs.h>

#include <sroce/qp.h>
#include <sroce/sroce.h>
#include <sroce/verbs.h>

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

const struct ib_device_ops sroce_verbs_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};
