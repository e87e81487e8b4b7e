// SPDX-License-Identifier: GPL-2.0
/*
 * The receive queue: always a ring of struct rxe_recv_wqe, mapped into
 * the process for user QPs, filled by post_recv for kernel ones, emptied
 * by the responder through sroce_rq_take().  An SRQ's ring (srq.c) is
 * posted to and taken from by the same code.
 *
 * Kernel consumers post with interrupts disabled (see qp.c), so
 * post_recv takes the QP locks with spin_lock_irqsave.
 */

#include <linux/minmax.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/limits.h>
#include <sroce/queue.h>
#include <sroce/srq.h>
#include <sroce/transport.h>

/**
 * sroce_recv_wqe_post() - add a kernel consumer's receive WR to a ring
 * @q: a kernel RQ or SRQ ring
 * @max_sge: SGEs per WQE the ring was made for
 * @wr: the work request
 *
 * Return: 0, -EINVAL for too many SGEs or too long a total, -ENOMEM when
 * the ring is full.
 */
int sroce_recv_wqe_post(struct sroce_queue *q, u32 max_sge,
			const struct ib_recv_wr *wr)
{
	struct rxe_recv_wqe *slot;
	u32 len;

	if (wr->num_sge < 0 || wr->num_sge > max_sge ||
	    sroce_sge_len(wr->sg_list, wr->num_sge, SROCE_MAX_MSG_SIZE, &len))
		return -EINVAL;
	if (sroce_queue_full(q))
		return -ENOMEM;

	slot = sroce_queue_producer_addr(q);
	memset(slot, 0, sizeof(*slot));
	slot->wr_id = wr->wr_id;
	slot->dma.length = len;
	slot->dma.resid = len;
	slot->dma.num_sge = wr->num_sge;
	memcpy(slot->dma.sge, wr->sg_list,
	       wr->num_sge * sizeof(struct rxe_sge));
	sroce_queue_advance_producer(q);
	return 0;
}

/**
 * sroce_recv_wqe_take() - copy the oldest receive WQE of a ring and check it
 * @q: an RQ or SRQ ring, user or kernel
 * @max_sge: SGEs per WQE the ring was made for
 * @wqe: where the copy goes
 *
 * Return: 0; -EAGAIN when the ring is empty; -EINVAL for a WQE with too
 * many SGEs or too long a total, which is consumed with only its wr_id.
 */
int sroce_recv_wqe_take(struct sroce_queue *q, u32 max_sge,
			struct sroce_rwqe *wqe)
{
	const struct rxe_recv_wqe *slot;
	u32 n;
	int err = 0;

	if (sroce_queue_empty(q))
		return -EAGAIN;
	slot = sroce_queue_consumer_addr(q);
	wqe->wr_id = READ_ONCE(slot->wr_id);
	n = READ_ONCE(slot->dma.num_sge);
	if (n > min_t(u32, max_sge, SROCE_MAX_SGE)) {
		n = 0;
		err = -EINVAL;
	}
	memcpy(wqe->sge, slot->dma.sge, n * sizeof(*wqe->sge));
	if (!err)
		err = sroce_sge_len(wqe->sge, n, SROCE_MAX_MSG_SIZE,
				    &wqe->length);
	if (err) {
		n = 0;
		wqe->length = 0;
	}
	wqe->num_sge = n;
	sroce_queue_advance_consumer(q);
	return err;
}

int sroce_rq_take(struct sroce_qp *qp, struct sroce_rwqe *wqe)
{
	unsigned long flags;
	int err;

	if (qp->srq)
		return sroce_srq_take(qp->srq, wqe);
	spin_lock_irqsave(&qp->rq_lock, flags);
	err = sroce_recv_wqe_take(&qp->rq, qp->max_recv_sge, wqe);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return err;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state;
	bool posted = false;
	unsigned long flags;
	int err = 0;

	/* librxe posts receives in the ring itself */
	if (qp->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq_lock, flags);
	state = qp->state;
	if (state == IB_QPS_RESET)
		err = -EINVAL;
	for (; !err && wr; wr = wr->next) {
		err = sroce_recv_wqe_post(&qp->rq, qp->max_recv_sge, wr);
		if (err)
			break;
		posted = true;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);

	if (err)
		*bad_wr = wr;
	/* in ERR they complete at once, behind those being flushed */
	if (posted && state == IB_QPS_ERR)
		sroce_flush_rq(qp);
	return err;
}

/*
 * A QP's attributes in order: the first SROCE_QP_RES_ANY for any QP, the
 * first SROCE_QP_RES_CONNECTED for a UC QP, the first SROCE_QP_RES_RC for
 * an RC QP; the reaction point's follow those of RC and UC QPs.
 */
