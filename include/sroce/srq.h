/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared receive queues (srq.c): the verbs and the responder's take.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <sroce/queue.h>

struct sroce_pd;
struct sroce_rwqe;

/**
 * struct sroce_srq - a shared receive queue
 * @ibsrq: ib_core's part (first)
 * @pd: protection domain of its receive buffers
 * @rq: the ring of struct rxe_recv_wqe (user or kernel)
 * @lock: serialises consumers (responders of several QPs) and kernel
 *	producers; taken with spin_lock_irqsave (kernel consumers post
 *	receives with interrupts off), inside resp.lock
 * @max_sge: SGEs per WQE the ring was sized for
 * @limit: armed SRQ limit, 0 when not armed
 * @srq_num: number reported to librxe (create_srq_resp)
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	struct sroce_pd *pd;
	struct sroce_queue rq;
	spinlock_t lock;	/* see @lock above */
	u32 max_sge;
	u32 limit;
	u32 srq_num;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

extern const struct ib_device_ops sroce_srq_ops;

/* sroce_rq_take() for a QP with an SRQ; takes srq->lock */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_rwqe *wqe);

#endif /* SROCE_SRQ_H */
