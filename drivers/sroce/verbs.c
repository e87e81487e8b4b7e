// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs entry points without a file of their own: user contexts, and
 * queue pairs, which are refused with -EOPNOTSUPP until the transport
 * exists, so consumers fail cleanly at creation instead of meeting a
 * half-working object later (SRQs have no ops at all yet).  CQs are in
 * cq.c, PDs, MRs and MWs in mr.c, AHs in ah.c.
 */
#include <rdma/ib_verbs.h>

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

static int sroce_create_qp(struct ib_qp *ibqp,
			   struct ib_qp_init_attr *init_attr,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

/*
 * The ops below can only be reached through an object create_* handed out,
 * which it never does yet; ib_core still insists they exist.
 */
static int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return 0;
}

static int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

const struct ib_device_ops sroce_verbs_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.create_qp = sroce_create_qp,
	.modify_qp = sroce_modify_qp,
	.destroy_qp = sroce_destroy_qp,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};
