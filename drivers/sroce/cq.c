// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.  The ring is a struct sroce_queue the kernel produces
 * into; librxe reads user CQs straight from the mapped ring, kernel CQs are
 * read by poll_cq.
 *
 * Completion handlers run without the CQ lock, because consumers poll and
 * re-arm from inside them (a handler called under the lock would deadlock
 * on its first poll).  Arming is one-shot and taken under the lock by the
 * completion that fires it; the handler itself is delivered by at most one
 * poster at a time, which keeps calling it while more armed completions
 * arrive, so a handler never runs concurrently with itself nor recurses
 * into itself when it posts work that completes on the same CQ.
 */
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/uverbs_ioctl.h>

#include <sroce/compat.h>
#include <sroce/cq.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/queue.h>
#include <sroce/verbs.h>

/* librxe reads a struct ib_uverbs_wc from each slot and wants room for one */
static_assert(sizeof(struct ib_uverbs_wc) == 48);

static size_t sroce_cq_elem_size(bool user)
{
	return user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

static int sroce_cq_check_cqe(int cqe)
{
	return cqe < 1 || cqe > SROCE_MAX_CQE ? -EINVAL : 0;
}

/* A handler call is over; wake destroy_cq if it waits for the last one. */
static void sroce_cq_callback_done(struct sroce_cq *cq)
{
	lockdep_assert_held(&cq->lock);
	if (!--cq->callbacks && cq->dying)
		wake_up(&cq->idle_wq);
}

/* Deliver comp_handler calls until none is owed; we own in_handler. */
static void sroce_cq_run_handler(struct sroce_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	while (cq->event_due && !cq->dying) {
		cq->event_due = false;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
		spin_lock_irqsave(&cq->lock, flags);
	}
	cq->in_handler = false;
	sroce_cq_callback_done(cq);
	spin_unlock_irqrestore(&cq->lock, flags);
}

static void sroce_cq_report_overflow(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};
	unsigned long flags;

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	spin_lock_irqsave(&cq->lock, flags);
	sroce_cq_callback_done(cq);
	spin_unlock_irqrestore(&cq->lock, flags);
}

static void sroce_wc_to_uverbs(struct ib_uverbs_wc *uwc,
			       const struct ib_wc *wc)
{
	/* the slot is user memory: every byte is written, padding included */
	*uwc = (struct ib_uverbs_wc) {
		.wr_id = wc->wr_id,
		.status = wc->status,
		.opcode = wc->opcode,
		.vendor_err = wc->vendor_err,
		.byte_len = wc->byte_len,
		.ex.imm_data = wc->ex.imm_data,
		.qp_num = wc->qp ? wc->qp->qp_num : 0,
		.src_qp = wc->src_qp,
		.wc_flags = wc->wc_flags,
		.pkey_index = wc->pkey_index,
		/* RoCE has no LIDs; never WARN over a wide value */
		.slid = lower_16_bits(wc->slid),
		.sl = wc->sl,
		.dlid_path_bits = wc->dlid_path_bits,
		.port_num = wc->port_num,
	};
}

/**
 * sroce_cq_post() - add one completion to a CQ
 * @cq: the CQ
 * @wc: the completion, in kernel form (converted for user CQs)
 * @solicited: the completion fires a solicited-only arming (the request
 *	had the solicited event bit); unsuccessful completions always do
 *
 * Any context, including softirq; it does not sleep.  The CQ's completion
 * handler is called before returning if the CQ was armed for this
 * completion, without the CQ lock held.  A ring found full puts the CQ in
 * error and reports IB_EVENT_CQ_ERR once, instead of overwriting entries
 * the consumer has not read; for user CQs, the consumer index userspace
 * wrote is what counts.
 *
 * Return: 0; -ENOSPC if the CQ is full or in error; -EINVAL once
 * destroy_cq has begun.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	bool overflow = false, notify = false;
	struct sroce_queue *q = &cq->queue;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->dying) {
		err = -EINVAL;
		goto unlock;
	}
	if (cq->overflow) {
		err = -ENOSPC;
		goto unlock;
	}
	if (sroce_queue_full(q)) {
		cq->overflow = true;
		cq->callbacks++;
		overflow = true;
		err = -ENOSPC;
		goto unlock;
	}

	if (q->user)
		sroce_wc_to_uverbs(sroce_queue_producer_addr(q), wc);
	else
		memcpy(sroce_queue_producer_addr(q), wc, sizeof(*wc));
	sroce_queue_advance_producer(q);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		cq->event_due = true;
		if (!cq->in_handler) {
			cq->in_handler = true;
			cq->callbacks++;
			notify = true;
		}
	}
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow)
		sroce_cq_report_overflow(cq);
	if (notify)
		sroce_cq_run_handler(cq);
	return err;
}

static int sroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct rxe_create_cq_resp resp = {};
	struct sroce_ucontext *uctx;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (sroce_cq_check_cqe(attr->cqe) ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata) {
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		/* librxe sends nothing; anything else is from a future ABI */
		if (udata->inlen &&
		    !ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EOPNOTSUPP;
	}

	/* we report max_cq; make it true */
	if (atomic_inc_return(&sdev->num_cq) > SROCE_MAX_CQ) {
		err = -ENOMEM;
		goto uncount;
	}

	spin_lock_init(&cq->lock);
	init_waitqueue_head(&cq->idle_wq);
	err = sroce_queue_init(&cq->queue, attr->cqe,
			       sroce_cq_elem_size(udata), SROCE_QUEUE_TO_CLIENT,
			       !!udata);
	if (err)
		goto uncount;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext,
						 ibuc);
		err = sroce_queue_export(&cq->queue, &uctx->ibuc, &resp.mi);
		if (!err)
			err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_queue_free(&cq->queue);
			goto uncount;
		}
	}
	ibcq->cqe = sroce_queue_depth(&cq->queue);
	return 0;

uncount:
	atomic_dec(&sdev->num_cq);
	return err;
}

#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
/* ib_core hands over the whole attribute bundle: the driver's part is ours */
static int sroce_create_cq_attrs(struct ib_cq *ibcq,
				 const struct ib_cq_init_attr *attr,
				 struct uverbs_attr_bundle *attrs)
{
	return sroce_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
#define sroce_create_cq_attrs	sroce_create_cq
#endif

static int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	/*
	 * Posters check dying under the lock, so once the handler calls in
	 * progress are over none runs again and the caller may free what the
	 * handlers use.  (A consumer must not destroy a CQ from its own
	 * handler.)  ib_core destroys from process context.
	 */
	spin_lock_irq(&cq->lock);
	cq->dying = true;
	cq->notify = 0;
	wait_event_lock_irq(cq->idle_wq, !cq->callbacks, cq->lock);
	spin_unlock_irq(&cq->lock);
	sroce_queue_free(&cq->queue);
	atomic_dec(&to_sdev(ibcq->device)->num_cq);
	return 0;
}

static int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct sroce_ucontext *uctx;
	struct sroce_queue new;
	unsigned long flags;
	int err;

	err = sroce_cq_check_cqe(cqe);
	if (err)
		return err;
	if (!!udata != cq->queue.user)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = sroce_queue_init(&new, cqe, sroce_cq_elem_size(udata),
			       SROCE_QUEUE_TO_CLIENT, !!udata);
	if (err)
		return err;
	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext,
						 ibuc);
		err = sroce_queue_export(&new, &uctx->ibuc, &resp.mi);
		/*
		 * Before the switch, which cannot be undone; if the switch
		 * then fails, librxe ignores the response of a failed call.
		 */
		if (!err)
			err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto out;
	}

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->dying) {
		err = -EINVAL;
	} else {
		/* refuses to shrink below the completions still queued */
		err = sroce_queue_resize(&cq->queue, &new);
		if (!err)
			ibcq->cqe = sroce_queue_depth(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
out:
	/* the old ring on success, the unused new one otherwise */
	sroce_queue_free(&new);
	return err;
}

static int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue *q = &cq->queue;
	unsigned long flags;
	int n = 0;

	/* librxe polls user CQs itself; the ring is not ours to consume */
	if (q->user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	for (; n < num_entries && !sroce_queue_empty(q); n++) {
		memcpy(&wc[n], sroce_queue_consumer_addr(q), sizeof(*wc));
		sroce_queue_advance_consumer(q);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int sroce_peek_cq(struct ib_cq *ibcq, int wc_cnt)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	u32 count;

	spin_lock_irqsave(&cq->lock, flags);
	count = sroce_queue_count(&cq->queue);
	spin_unlock_irqrestore(&cq->lock, flags);
	return min_t(u32, count, max(wc_cnt, 0));
}

static int sroce_req_notify_cq(struct ib_cq *ibcq,
			       enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* an arming for every completion covers a solicited-only one */
	if (flags & IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if ((flags & IB_CQ_SOLICITED) && cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;
	/*
	 * Completions already queued fire no event; tell a consumer who asks,
	 * so it polls again instead of waiting for one.
	 */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    !sroce_queue_empty(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * rdma resource show cq -dd: how full the CQ is, and whether it overran
 * (the consumer polled too slowly: the completions it missed are lost,
 * IB_EVENT_CQ_ERR was raised)
 */
static int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_res_attr a[] = {
		{ .name = "cqe_used" },
		{ .name = "overflow" },
	};
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	a[0].value = sroce_queue_count(&cq->queue);
	a[1].value = cq->overflow;
	spin_unlock_irqrestore(&cq->lock, flags);
	return sroce_fill_res_attrs(msg, a, ARRAY_SIZE(a));
}

const struct ib_device_ops sroce_cq_ops = {
	.create_cq = sroce_create_cq_attrs,
	.fill_res_cq_entry = sroce_fill_res_cq_entry,
	.destroy_cq = sroce_destroy_cq,
	.resize_cq = sroce_resize_cq,
	.poll_cq = sroce_poll_cq,
	.peek_cq = sroce_peek_cq,
	.req_notify_cq = sroce_req_notify_cq,
	.mmap = sroce_queue_mmap,
	.mmap_free = sroce_queue_mmap_free,
};
