// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues.  An SRQ is a ring of struct rxe_recv_wqe like a
 * QP's RQ (mapped into the process for user SRQs), consumed by the
 * responders of every QP attached to it under srq->lock.  It has no state
 * of its own to flush: a QP in error only flushes the WQE it had taken.
 */
#include <linux/idr.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/uverbs_ioctl.h>

#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/queue.h>
#include <sroce/srq.h>
#include <sroce/transport.h>
#include <sroce/verbs.h>

/* SRQ numbers librxe is told about; only their uniqueness matters */
static DEFINE_IDA(sroce_srq_ida);

static void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/**
 * sroce_srq_take() - the responder takes a receive WQE from an SRQ
 * @srq: the SRQ of the receiving QP
 * @wqe: where the checked copy goes
 *
 * Called under the QP's resp.lock.  An armed limit fires once, when a
 * take leaves fewer WQEs than the limit; the event is raised after the
 * SRQ lock is dropped, as the handler may post to this SRQ.
 *
 * Return: as sroce_rq_take().
 */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_rwqe *wqe)
{
	bool limit_reached = false;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&srq->lock, flags);
	err = sroce_recv_wqe_take(&srq->rq, srq->max_sge, wqe);
	if (err != -EAGAIN && srq->limit &&
	    sroce_queue_count(&srq->rq) < srq->limit) {
		srq->limit = 0;
		limit_reached = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (limit_reached)
		sroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

/* A ring for @max_wr WQEs of @max_sge SGEs; the SRQ's SGEs never change */
static int sroce_srq_queue_init(struct sroce_queue *q, u32 max_wr,
				u32 max_sge, bool user)
{
	return sroce_queue_init(q, max_wr, sizeof(struct rxe_recv_wqe) +
				max_sge * sizeof(struct rxe_sge),
				SROCE_QUEUE_FROM_CLIENT, user);
}

/* SGEs a slot of @q holds, as librxe will fill it */
static u32 sroce_srq_slot_sge(const struct sroce_queue *q)
{
	size_t room = sroce_queue_elem_size(q) - sizeof(struct rxe_recv_wqe);

	return min_t(size_t, room / sizeof(struct rxe_sge), SROCE_MAX_SGE);
}

static int sroce_srq_check_udata(struct ib_udata *udata)
{
	if (udata->outlen < sizeof(struct rxe_create_srq_resp))
		return -EINVAL;
	/* librxe sends nothing; anything else is from a future ABI */
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	return 0;
}

static int sroce_srq_export(struct sroce_srq *srq, struct ib_udata *udata)
{
	struct sroce_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	struct rxe_create_srq_resp resp = {};
	int err;

	err = sroce_queue_export(&srq->rq, &uctx->ibuc, &resp.mi);
	if (err)
		return err;
	resp.srq_num = srq->srq_num;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static int sroce_create_srq(struct ib_srq *ibsrq,
			    struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err, num;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SROCE_MAX_SRQ_WR ||
	    attr->max_sge > SROCE_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata) {
		err = sroce_srq_check_udata(udata);
		if (err)
			return err;
	}

	/* we report max_srq; make it true */
	if (atomic_inc_return(&sdev->num_srq) > SROCE_MAX_SRQ) {
		err = -ENOMEM;
		goto uncount;
	}
	spin_lock_init(&srq->lock);
	srq->pd = to_spd(ibsrq->pd);
	err = sroce_srq_queue_init(&srq->rq, attr->max_wr, attr->max_sge,
				   !!udata);
	if (err)
		goto uncount;
	/* librxe fills as many SGEs as it is told the slots hold */
	if (udata)
		attr->max_sge = sroce_srq_slot_sge(&srq->rq);
	attr->max_wr = sroce_queue_depth(&srq->rq);
	srq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;

	num = ida_alloc_min(&sroce_srq_ida, 1, GFP_KERNEL);
	if (num < 0) {
		err = num;
		goto free_queue;
	}
	srq->srq_num = num;
	if (udata) {
		err = sroce_srq_export(srq, udata);
		if (err)
			goto free_num;
	}
	return 0;

free_num:
	ida_free(&sroce_srq_ida, srq->srq_num);
free_queue:
	sroce_queue_free(&srq->rq);
uncount:
	atomic_dec(&sdev->num_srq);
	return err;
}

/*
 * A ring for the new size, exported and announced at the address librxe
 * gave, before the switch, which cannot be undone; if the switch then
 * fails, librxe ignores the mminfo of a failed call.
 */
static int sroce_srq_resize_prepare(struct sroce_srq *srq, u32 max_wr,
				    struct ib_udata *udata,
				    struct sroce_queue *new)
{
	struct rxe_modify_srq_cmd cmd = {};
	struct sroce_ucontext *uctx;
	struct mminfo mi = {};
	int err;

	if (!max_wr || max_wr > SROCE_MAX_SRQ_WR)
		return -EINVAL;
	if (!!udata != srq->rq.user)
		return -EINVAL;
	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		if (ib_copy_from_udata(&cmd, udata, sizeof(cmd)))
			return -EFAULT;
	}

	err = sroce_srq_queue_init(new, max_wr, srq->max_sge, !!udata);
	if (err || !udata)
		return err;
	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	err = sroce_queue_export(new, &uctx->ibuc, &mi);
	if (!err && copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				 sizeof(mi)))
		err = -EFAULT;
	if (err)
		sroce_queue_free(new);
	return err;
}

static int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask,
			    struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_queue new = {};
	bool resize = mask & IB_SRQ_MAX_WR;
	unsigned long flags;
	u32 depth, limit;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (resize) {
		err = sroce_srq_resize_prepare(srq, attr->max_wr, udata, &new);
		if (err)
			return err;
	}

	spin_lock_irqsave(&srq->lock, flags);
	depth = sroce_queue_depth(resize ? &new : &srq->rq);
	limit = (mask & IB_SRQ_LIMIT) ? attr->srq_limit : srq->limit;
	/* an armed limit must stay reachable, whichever changes */
	if (limit > depth)
		err = -EINVAL;
	else if (resize)
		/* refuses to shrink below the WQEs still posted */
		err = sroce_queue_resize(&srq->rq, &new);
	if (!err && (mask & IB_SRQ_LIMIT))
		srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);

	/* the old ring on success, the unused new one otherwise */
	sroce_queue_free(&new);
	return err;
}

static int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = sroce_queue_depth(&srq->rq);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

static int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	/*
	 * ib_core refuses while a QP uses the SRQ, and destroy_qp waited for
	 * that QP's responder: nobody takes from the ring any more.
	 */
	sroce_queue_free(&srq->rq);
	ida_free(&sroce_srq_ida, srq->srq_num);
	atomic_dec(&to_sdev(ibsrq->device)->num_srq);
	return 0;
}

static int sroce_post_srq_recv(struct ib_srq *ibsrq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	/* librxe posts to user SRQs in the ring itself */
	if (srq->rq.user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_recv_wqe_post(&srq->rq, srq->max_sge, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

const struct ib_device_ops sroce_srq_ops = {
	.create_srq = sroce_create_srq,
	.modify_srq = sroce_modify_srq,
	.query_srq = sroce_query_srq,
	.destroy_srq = sroce_destroy_srq,
	.post_srq_recv = sroce_post_srq_recv,
};
