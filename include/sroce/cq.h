/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues (cq.c): the verbs, and sroce_cq_post() by which
 * the transport completes work requests.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include <sroce/queue.h>

/**
 * struct sroce_cq - a completion queue
 * @ibcq: ib_core's part
 * @lock: serialises @queue and the state below; never held while a
 *	handler of the consumer runs
 * @queue: the ring of completions (struct ib_uverbs_wc for user CQs,
 *	struct ib_wc for kernel ones)
 * @idle_wq: destroy_cq waits here for @callbacks to drain
 * @callbacks: posters that left @lock to call a handler
 * @notify: the arming, 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP
 * @event_due: an armed completion came; comp_handler is owed a call
 * @in_handler: one poster is delivering @event_due calls
 * @overflow: a completion found the ring full; the CQ is in error
 * @dying: destroy_cq has begun; nothing is posted any more
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* see @lock above */
	struct sroce_queue queue;
	wait_queue_head_t idle_wq;
	unsigned int callbacks;
	u8 notify;
	bool event_due;
	bool in_handler;
	bool overflow;
	bool dying;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

/* cq.c: completion queues; the transport posts with sroce_cq_post() */
extern const struct ib_device_ops sroce_cq_ops;
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited);

#endif /* SROCE_CQ_H */
