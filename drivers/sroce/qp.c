// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: the verbs, the QPN table, the state machine and flushing.
 * The send queue is sq.c's, the receive queue rq.c's.
 *
 * Errors.  A QP in ERR completes everything on its queues with
 * IB_WC_WR_FLUSH_ERR.  One context at a time flushes a queue (the
 * sq_flushing / rq_flushing flags), popping one WQE under the queue's
 * lock and posting its completion after unlocking, because a consumer's
 * completion handler may post to this very QP.
 *
 * Kernel consumers post with interrupts disabled (ib_mad does, under its
 * own irqsave locks), so everything reachable from post_send/post_recv
 * takes the QP locks with spin_lock_irqsave, never with the _bh forms.
 */
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/uverbs_ioctl.h>

#include <sroce/ah.h>
#include <sroce/cq.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/mcast.h>
#include <sroce/mr.h>
#include <sroce/queue.h>
#include <sroce/rxe_abi.h>
#include <sroce/srq.h>
#include <sroce/stats.h>
#include <sroce/trace.h>
#include <sroce/transport.h>
#include <sroce/tx.h>
#include <sroce/verbs.h>

/* SGEs are copied between the rings and ib_sge arrays as they are */
static_assert(sizeof(struct rxe_sge) == sizeof(struct ib_sge));
static_assert(offsetof(struct rxe_sge, addr) == offsetof(struct ib_sge, addr));
static_assert(offsetof(struct rxe_sge, length) ==
	      offsetof(struct ib_sge, length));
static_assert(offsetof(struct rxe_sge, lkey) == offsetof(struct ib_sge, lkey));
/*
 * A copy of a WQE from a 256-byte slot (one SGE or 48 bytes inline) takes
 * 128 bytes on 64-bit: a full window of them is four pages, the first two
 * fit in the QP's own object.  Its status is an IB_WC_* in a byte.
 */
static_assert(sizeof(struct sroce_swqe) <= 80);
static_assert(IB_WC_GENERAL_ERR <= U8_MAX);

#define SROCE_PSN_MASK		0xffffffU
#define SROCE_QP_ACCESS		(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND)

/* ---- locking and events -------------------------------------------------- */

/*
 * Everything that writes qp->state or qp->attr: sq_lock, resp.lock and,
 * innermost, rq_lock (so that post_recv sees a state change atomically
 * with its own enqueue).
 */
static unsigned long sroce_qp_lock_all(struct sroce_qp *qp)
	__acquires(&qp->sq_lock) __acquires(&qp->resp.lock)
	__acquires(&qp->rq_lock)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	spin_lock(&qp->resp.lock);
	spin_lock(&qp->rq_lock);
	return flags;
}

static void sroce_qp_unlock_all(struct sroce_qp *qp, unsigned long flags)
	__releases(&qp->rq_lock) __releases(&qp->resp.lock)
	__releases(&qp->sq_lock)
{
	spin_unlock(&qp->rq_lock);
	spin_unlock(&qp->resp.lock);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

static void sroce_qp_set_state(struct sroce_qp *qp, enum ib_qp_state state)
{
	if (qp->state != state)
		trace_sroce_qp_state(qp, qp->state, state);
	qp->state = state;
	qp->attr.qp_state = state;
	qp->attr.cur_qp_state = state;
}

void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* The port's MTU as RoCE sees it: what UD messages must fit in */
static enum ib_mtu sroce_port_mtu(struct sroce_dev *sdev)
{
	return sroce_ud_mtu(READ_ONCE(sdev->ndev->mtu));
}

/* ---- QPN table ----------------------------------------------------------- */

/*
 * QPNs are keyed hashes of a counter (numspace.h), spread over 2^24: in a
 * radix tree each QP took a chain of nodes of its own, about 3 KiB.  A
 * hash table costs its entry and a bucket pointer or two.
 */
static const struct rhashtable_params sroce_qp_table_params = {
	.key_len = sizeof(u32),
	.key_offset = offsetof(struct sroce_qp_ref, qpn),
	.head_offset = offsetof(struct sroce_qp_ref, node),
	.automatic_shrinking = true,
};

int sroce_qp_table_init(struct sroce_dev *sdev)
{
	return rhashtable_init(&sdev->qps, &sroce_qp_table_params);
}

void sroce_qp_table_fini(struct sroce_dev *sdev)
{
	WARN_ON_ONCE(atomic_read(&sdev->qps.nelems));
	rhashtable_destroy(&sdev->qps);
}

/**
 * sroce_qp_get() - find a QP by number for a received packet
 * @sdev: the device
 * @qpn: destination QPN of the packet
 *
 * Under RCU, with no lock of the device: the table holds a struct
 * sroce_qp_ref, freed a grace period after destroy_qp removed it, and
 * destroy_qp returns only once every reference taken here is put.  Any
 * context.
 *
 * Return: the QP with a reference (sroce_qp_put()), or NULL.
 */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp = NULL;
	struct sroce_qp_ref *ref;

	rcu_read_lock();
	ref = rhashtable_lookup(&sdev->qps, &qpn, sroce_qp_table_params);
	if (ref) {
		qp = rcu_dereference(ref->qp);
		if (qp && !refcount_inc_not_zero(&ref->count))
			qp = NULL;
	}
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref->count))
		complete(&qp->done);
}

/* IBTA reserves QPNs 0 and 1 for the special QPs, 0xffffff for multicast */
static bool sroce_qpn_usable(u32 qpn)
{
	return qpn >= SROCE_MIN_QPN && qpn != SROCE_MCAST_QPN;
}

/* Enter @ref, QP not yet set, as number @qpn; -EBUSY if it is in use */
static int sroce_qpn_take(struct sroce_dev *sdev, struct sroce_qp_ref *ref,
			  u32 qpn)
{
	int err;

	ref->qpn = qpn;
	err = rhashtable_lookup_insert_fast(&sdev->qps, &ref->node,
					    sroce_qp_table_params);
	return err == -EEXIST ? -EBUSY : err;
}

static int sroce_qpn_take_cb(void *table, u32 qpn)
{
	struct sroce_qp *qp = table;

	return sroce_qpn_take(qp->sdev, qp->ref, qpn);
}

/*
 * Reserve a QPN for @qp; lookups find no QP there until it is complete
 * (sroce_create_qp()).  Other QPNs are drawn from the device's QPN
 * number space, so none tells an off-path sender which numbers live
 * connections have.
 */
static int sroce_qpn_reserve(struct sroce_qp *qp, enum ib_qp_type type)
{
	u32 qpn;

	/* -EBUSY: the device has its GSI QP already */
	if (type == IB_QPT_GSI)
		return sroce_qpn_take(qp->sdev, qp->ref, 1);
	/* the entry holds the number already: it is in the table */
	return sroce_num_reserve(&qp->sdev->qpn_ns, sroce_qpn_usable,
				 sroce_qpn_take_cb, qp, &qpn);
}

static void sroce_qpn_release(struct sroce_qp *qp)
{
	rhashtable_remove_fast(&qp->sdev->qps, &qp->ref->node,
			       sroce_qp_table_params);
}

/* ---- flushing ------------------------------------------------------------ */

/*
 * Retire the oldest WQE for the flush, which also takes WQEs the requester
 * never reached: its cursors must not fall behind sq_cons, or they would
 * read as a full ring.  The requester does not run in ERR; RESET
 * reinitialises it anyway.
 */
static void sroce_sq_flush_retire(struct sroce_qp *qp)
{
	u32 old = qp->sq_cons;

	sroce_sq_retire(qp);
	if (((qp->req.fetch_index - old) & qp->sq_mask) == 0)
		qp->req.fetch_index = qp->sq_cons;
	if (((qp->req.wqe_index - old) & qp->sq_mask) == 0) {
		qp->req.wqe_index = qp->sq_cons;
		qp->req.offset = 0;
	}
}

enum sroce_pop {
	SROCE_POP_NONE,		/* nothing (more) to flush */
	SROCE_POP_SILENT,	/* retired, no completion due */
	SROCE_POP_WC,		/* retired, post the completion */
};

/*
 * Pop the oldest send WQE of a QP in error into @wc.  A user WQE the
 * requester never fetched is only read for its wr_id (and opcode).  sq_lock
 * held.
 */
static enum sroce_pop sroce_sq_pop_flush(struct sroce_qp *qp,
					 struct ib_wc *wc)
{
	const struct rxe_send_wqe *slot;
	struct sroce_swqe *wqe;
	enum ib_wc_status status;
	enum sroce_pop pop;

	if (qp->state != IB_QPS_ERR || qp->dead ||
	    qp->sq_cons == sroce_sq_prod(qp))
		return SROCE_POP_NONE;
	wqe = sroce_sq_wqe(qp, qp->sq_cons);
	if (qp->user && !wqe->fetched) {
		slot = sroce_queue_addr(&qp->sq, qp->sq_cons);
		sroce_swqe_reset(wqe, READ_ONCE(slot->wr.wr_id),
				 READ_ONCE(slot->wr.opcode), 0);
	}
	/* finished before the error, or failed by the transport: as it was */
	if (wqe->fetched && (wqe->state == SROCE_WQE_DONE ||
			     wqe->status != IB_WC_SUCCESS))
		status = wqe->status;
	else
		status = IB_WC_WR_FLUSH_ERR;
	pop = sroce_sq_wc(qp, wqe, status, wc) ? SROCE_POP_WC :
						 SROCE_POP_SILENT;
	sroce_sq_flush_retire(qp);
	return pop;
}

/*
 * Complete every WQE on the SQ with a flush error.  A user QP's producer
 * moves as userspace likes, so one call flushes at most a ring's worth;
 * the next doorbell flushes the rest.
 */
void sroce_flush_sq(struct sroce_qp *qp)
{
	u32 budget = qp->user ? qp->sq_mask + 1 : U32_MAX;
	enum sroce_pop pop;
	unsigned long flags;
	struct ib_wc wc;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->sq_flushing) {
		/* it picks up what we queued before it looks again */
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return;
	}
	if (qp->comp.delivering) {
		/*
		 * The completer is posting the CQEs of older WQEs outside
		 * the lock; ours must come after them.
		 */
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		if (!READ_ONCE(qp->dead))
			schedule_delayed_work(&qp->flush_work, 1);
		return;
	}
	qp->sq_flushing = true;
	while (budget--) {
		pop = sroce_sq_pop_flush(qp, &wc);
		if (pop == SROCE_POP_NONE)
			break;
		if (pop == SROCE_POP_SILENT)
			continue;
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		sroce_cq_post(qp->scq, &wc, false);
		spin_lock_irqsave(&qp->sq_lock, flags);
	}
	qp->sq_flushing = false;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

static void sroce_qp_flush_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(to_delayed_work(work),
					   struct sroce_qp, flush_work);

	sroce_flush_sq(qp);
}

/*
 * Pop the next receive WQE of a QP in error: first the one the responder
 * had taken (from the RQ or the SRQ: it belongs to this QP now), then the
 * RQ's.  The SRQ is not ours to flush.  resp.lock held.
 */
static bool sroce_rq_pop_flush(struct sroce_qp *qp, struct ib_wc *wc)
{
	const struct rxe_recv_wqe *slot;
	bool found = false;
	u64 wr_id = 0;

	if (qp->state != IB_QPS_ERR || qp->dead)
		return false;
	if (sroce_resp_release_wqe(qp, &wr_id)) {
		found = true;
	} else if (!qp->srq) {
		spin_lock(&qp->rq_lock);
		if (!sroce_queue_empty(&qp->rq)) {
			slot = sroce_queue_consumer_addr(&qp->rq);
			wr_id = READ_ONCE(slot->wr_id);
			sroce_queue_advance_consumer(&qp->rq);
			found = true;
		}
		spin_unlock(&qp->rq_lock);
	}
	if (!found)
		return false;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = IB_WC_WR_FLUSH_ERR;
	wc->opcode = IB_WC_RECV;
	wc->qp = &qp->ibqp;
	wc->port_num = SROCE_PORT;
	return true;
}

/* The RQ's counterpart of sroce_flush_sq() */
void sroce_flush_rq(struct sroce_qp *qp)
{
	u32 budget = qp->user ? qp->rq.index_mask + 2 : U32_MAX;
	unsigned long flags;
	struct ib_wc wc;

	spin_lock_irqsave(&qp->resp.lock, flags);
	if (qp->rq_flushing) {
		spin_unlock_irqrestore(&qp->resp.lock, flags);
		return;
	}
	qp->rq_flushing = true;
	while (budget-- && sroce_rq_pop_flush(qp, &wc)) {
		spin_unlock_irqrestore(&qp->resp.lock, flags);
		sroce_cq_post(qp->rcq, &wc, false);
		spin_lock_irqsave(&qp->resp.lock, flags);
	}
	qp->rq_flushing = false;
	spin_unlock_irqrestore(&qp->resp.lock, flags);
}

/* ERR (unless in RESET or being destroyed); true if the state changed */
static bool sroce_qp_enter_error(struct sroce_qp *qp)
{
	unsigned long flags;
	bool changed = false;

	flags = sroce_qp_lock_all(qp);
	if (qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET &&
	    !qp->dead) {
		sroce_qp_set_state(qp, IB_QPS_ERR);
		changed = true;
	}
	sroce_qp_unlock_all(qp, flags);
	return changed;
}

/**
 * sroce_qp_error() - the transport gives up on a QP
 * @qp: the QP; the caller holds none of its locks
 * @event: raise IB_EVENT_QP_FATAL
 *
 * Moves the QP to ERR and flushes both queues.  A QP already in ERR is
 * flushed again (cheap, and it catches WQEs posted meanwhile).
 */
void sroce_qp_error(struct sroce_qp *qp, bool event)
{
	bool changed = sroce_qp_enter_error(qp);

	if (changed)
		sroce_stats_inc(qp->sdev, SROCE_CNT_QP_ERRORS);
	if (READ_ONCE(qp->state) != IB_QPS_ERR)
		return;
	sroce_flush_sq(qp);
	sroce_flush_rq(qp);
	if (event && changed)
		sroce_qp_event(qp, IB_EVENT_QP_FATAL);
}

/**
 * sroce_qps_flush_user() - move every user QP of a device to ERR
 * @sdev: a device about to be taken from its users
 *
 * Their posted work completes with IB_WC_WR_FLUSH_ERR into CQ rings that
 * stay mapped in the processes after ib_core has destroyed the objects,
 * so a user learns the fate of each WQE as from a QP in error.  Kernel
 * QPs are left to their ULPs, which drain them on their own removal
 * event.  Process context.
 */
void sroce_qps_flush_user(struct sroce_dev *sdev)
{
	struct rhashtable_iter iter;
	struct sroce_qp_ref *ref;
	struct sroce_qp *qp, *tmp;
	LIST_HEAD(flush);

	/*
	 * One walk that never stops, which would let it miss entries when
	 * QPs are destroyed meanwhile: the user QPs are collected with a
	 * reference each (ib_core frees a QP without a grace period, so
	 * nothing of it is read before), then errored outside RCU.
	 */
	rhashtable_walk_enter(&sdev->qps, &iter);
	rhashtable_walk_start(&iter);
	while ((ref = rhashtable_walk_next(&iter))) {
		/* -EAGAIN: resized, the walk starts over (seen QPs are listed) */
		if (IS_ERR(ref))
			continue;
		qp = rcu_dereference(ref->qp);
		if (!qp || !refcount_inc_not_zero(&ref->count))
			continue;
		if (!qp->user || !list_empty(&qp->unplug_entry)) {
			sroce_qp_put(qp);
			continue;
		}
		list_add_tail(&qp->unplug_entry, &flush);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);

	list_for_each_entry_safe(qp, tmp, &flush, unplug_entry) {
		list_del_init(&qp->unplug_entry);
		sroce_qp_error(qp, false);
		sroce_qp_put(qp);
	}
}

/* ---- create / destroy ---------------------------------------------------- */

static int sroce_qp_check_init(const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* ib_mad's, on our only port */
		if (udata || init->port_num != SROCE_PORT)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->rwq_ind_tbl || init->xrcd)
		return -EOPNOTSUPP;
	/* the one creation flag: keep a UD QP's multicasts from itself */
	if (init->create_flags & ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK ||
	    (init->create_flags && init->qp_type != IB_QPT_UD))
		return -EOPNOTSUPP;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	/* with an SRQ the RQ caps mean nothing and are ignored */
	if (!init->srq && (cap->max_recv_wr > SROCE_MAX_QP_WR ||
			   cap->max_recv_sge > SROCE_MAX_SGE))
		return -EINVAL;
	if (udata) {
		/* librxe sends no command data */
		if (udata->inlen ||
		    udata->outlen < sizeof(struct rxe_create_qp_resp))
			return -EINVAL;
	}
	return 0;
}

/* The user SQ ring; caps become what its slots hold, as librxe expects */
static int sroce_qp_init_user_sq(struct sroce_qp *qp, struct ib_qp_cap *cap)
{
	size_t room, elem;
	int err;

	elem = sizeof(struct rxe_send_wqe) +
	       max_t(size_t, cap->max_send_sge * sizeof(struct rxe_sge),
		     cap->max_inline_data);
	err = sroce_queue_init(&qp->sq, max(cap->max_send_wr, 1U), elem,
			       SROCE_QUEUE_FROM_CLIENT, true);
	if (err)
		return err;
	room = sroce_queue_elem_size(&qp->sq) - sizeof(struct rxe_send_wqe);
	cap->max_send_sge = min_t(size_t, room / sizeof(struct rxe_sge),
				  SROCE_MAX_SGE);
	cap->max_inline_data = min_t(size_t, room, SROCE_MAX_INLINE);
	cap->max_send_wr = sroce_queue_depth(&qp->sq);
	qp->sq_mask = qp->sq.index_mask;
	return 0;
}

/*
 * An array of @mask + 1 send WQEs of qp->swqe_stride bytes, each with its
 * SGE/inline tail.  kmalloc() rounds a size above a page up to a power of
 * two of pages (20 KiB would take 32), vmalloc() to a page.
 */
static void *sroce_swqe_alloc(const struct sroce_qp *qp, u32 mask)
{
	size_t size = array_size(mask + 1, qp->swqe_stride);

	return size > PAGE_SIZE ? vzalloc(size) : kzalloc(size, GFP_KERNEL);
}

static void sroce_swqe_free(struct sroce_qp *qp, void *copies)
{
	if (copies != qp->swqe_embed)
		kvfree(copies);
}

/* the embedded copies never move the QP to a larger kmalloc class */
static_assert(sizeof(struct sroce_qp) + SROCE_SQ_COPIES_EMBED <=
	      roundup_pow_of_two(sizeof(struct sroce_qp)));

/*
 * The kernel's send WQEs, each with room for its SGEs/inline data: a
 * kernel QP posts into them, one per slot.  A user QP's requester copies
 * the WQEs it fetches into them: a window that starts in the QP itself
 * (two one-SGE WQEs in SROCE_SQ_COPIES_EMBED bytes) or, for WQEs that
 * do not fit there, at what fits kmalloc's 512-byte class (one at
 * least), and doubles whenever the requester finds it full, up to the SQ
 * or SROCE_SQ_COPIES (sroce_sq_grow_copies()).  A QP that keeps one or
 * two WQEs in flight, as request/response traffic does, costs the kernel
 * nothing more for them however deep its SQ.
 */
static int sroce_qp_init_swqe(struct sroce_qp *qp)
{
	size_t tail = max_t(size_t, qp->max_send_sge * sizeof(struct ib_sge),
			    qp->max_inline);
	size_t first;
	bool embed;

	qp->swqe_stride = ALIGN(sizeof(struct sroce_swqe) + tail,
				__alignof__(struct sroce_swqe));
	if (qp->user) {
		qp->swqe_max_mask = min_t(u32, qp->sq_mask, SROCE_SQ_COPIES - 1);
		first = SROCE_SQ_COPIES_EMBED / qp->swqe_stride;
		embed = first > 0;
		if (!embed)
			first = max_t(size_t, SROCE_SQ_COPIES_FIRST /
					      qp->swqe_stride, 1);
		qp->swqe_mask = min_t(u32, qp->swqe_max_mask,
				      rounddown_pow_of_two(first) - 1);
	} else {
		embed = false;
		qp->swqe_max_mask = qp->sq_mask;
		qp->swqe_mask = qp->sq_mask;
	}
	qp->swqe = embed ? qp->swqe_embed : sroce_swqe_alloc(qp, qp->swqe_mask);
	return qp->swqe ? 0 : -ENOMEM;
}

/*
 * Move the copies in use, slots sq_cons up to and including fetch_index
 * when that one was fetched, from @from (@from_mask) to their slots in
 * @to (qp->swqe_mask), each with its tail of SGEs or inline data.
 */
static void sroce_swqe_move(struct sroce_qp *qp, void *from, u32 from_mask,
			    void *to)
{
	u32 live = (qp->req.fetch_index - qp->sq_cons) & qp->sq_mask;
	struct sroce_swqe *src, *dst;
	u32 i, index;

	if (qp->req.next_fetched)
		live++;
	for (i = 0; i < live; i++) {
		index = qp->sq_cons + i;
		src = from + (size_t)(index & from_mask) * qp->swqe_stride;
		dst = sroce_sq_wqe(qp, index);
		memcpy(dst, src, qp->swqe_stride);
	}
}

/**
 * sroce_sq_grow_copies() - double a user QP's window of WQE copies
 * @qp: a user QP whose requester found every copy in use (req.c)
 *
 * The larger array is allocated without a lock and swapped in under
 * sq_lock while no requester runs; every other reader of the copies holds
 * sq_lock while it uses them.  If memory is short, the window stays as it
 * is and the requester goes on waiting for the completer to free a copy;
 * it asks again the next time it has to wait (req.c).
 *
 * Context: process, no lock of @qp held.
 */
void sroce_sq_grow_copies(struct sroce_qp *qp)
{
	void *copies, *old;
	bool grow;
	u32 mask;

	spin_lock_bh(&qp->sq_lock);
	mask = qp->swqe_mask;
	grow = mask < qp->swqe_max_mask;
	if (!grow)
		qp->req.copies_grow = false;
	/* a requester running elsewhere asks again when it stops */
	if (qp->req.running || qp->dead)
		grow = false;
	spin_unlock_bh(&qp->sq_lock);
	if (!grow)
		return;

	copies = sroce_swqe_alloc(qp, mask * 2 + 1);
	spin_lock_bh(&qp->sq_lock);
	/* or one that began while we allocated */
	if (!copies || qp->dead || qp->req.running || qp->swqe_mask != mask) {
		if (!copies)
			qp->req.copies_grow = false;
		spin_unlock_bh(&qp->sq_lock);
		kvfree(copies);
		return;
	}
	old = qp->swqe;
	qp->swqe = copies;
	qp->swqe_mask = mask * 2 + 1;
	sroce_swqe_move(qp, old, mask, copies);
	qp->req.copies_grow = false;
	/* req_work runs the requester next: it finds a free copy */
	qp->req.copies_wait = false;
	sroce_stats_inc(qp->sdev, SROCE_CNT_SQ_COPIES_GROWN);
	spin_unlock_bh(&qp->sq_lock);
	sroce_swqe_free(qp, old);
}

static int sroce_qp_init_sq(struct sroce_qp *qp, struct ib_qp_cap *cap)
{
	int err;

	if (qp->user) {
		err = sroce_qp_init_user_sq(qp, cap);
		if (err)
			return err;
	} else {
		qp->sq_mask = roundup_pow_of_two(cap->max_send_wr + 1) - 1;
		cap->max_send_wr = qp->sq_mask;
	}
	qp->max_send_wr = cap->max_send_wr;
	qp->max_send_sge = cap->max_send_sge;
	qp->max_inline = cap->max_inline_data;

	err = sroce_qp_init_swqe(qp);
	if (err)
		sroce_queue_free(&qp->sq);
	return err;
}

static int sroce_qp_init_rq(struct sroce_qp *qp, struct ib_qp_cap *cap)
{
	size_t elem;
	int err;

	if (qp->srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	elem = sizeof(struct rxe_recv_wqe) +
	       cap->max_recv_sge * sizeof(struct rxe_sge);
	err = sroce_queue_init(&qp->rq, max(cap->max_recv_wr, 1U), elem,
			       SROCE_QUEUE_FROM_CLIENT, qp->user);
	if (err)
		return err;
	if (qp->user)
		cap->max_recv_sge =
			min_t(size_t, (sroce_queue_elem_size(&qp->rq) -
				       sizeof(struct rxe_recv_wqe)) /
				      sizeof(struct rxe_sge), SROCE_MAX_SGE);
	cap->max_recv_wr = sroce_queue_depth(&qp->rq);
	qp->max_recv_wr = cap->max_recv_wr;
	qp->max_recv_sge = cap->max_recv_sge;
	return 0;
}

static void sroce_qp_free_queues(struct sroce_qp *qp)
{
	sroce_swqe_free(qp, qp->swqe);
	qp->swqe = NULL;
	sroce_queue_free(&qp->sq);
	sroce_queue_free(&qp->rq);
}

static int sroce_qp_export(struct sroce_qp *qp, struct ib_udata *udata)
{
	struct sroce_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	struct rxe_create_qp_resp resp = {};
	int err;

	err = sroce_queue_export(&qp->sq, &uctx->ibuc, &resp.sq_mi);
	if (!err && !qp->srq)
		err = sroce_queue_export(&qp->rq, &uctx->ibuc, &resp.rq_mi);
	if (!err)
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	return err;
}

static void sroce_qp_init_fields(struct sroce_qp *qp,
				 const struct ib_qp_init_attr *init,
				 struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	enum ib_mtu mtu;

	qp->sdev = sdev;
	qp->pd = to_spd(qp->ibqp.pd);
	qp->scq = to_scq(init->send_cq);
	qp->rcq = to_scq(init->recv_cq);
	qp->srq = init->srq ? to_ssrq(init->srq) : NULL;
	qp->type = init->qp_type;
	qp->user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->block_mcast_lb = !!(init->create_flags &
				IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK);
	init_completion(&qp->done);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->resp.lock);
	spin_lock_init(&qp->rq_lock);
	mutex_init(&qp->mod_lock);
	INIT_WORK(&qp->req_work, sroce_req_work);
	sroce_rp_init(qp);
	INIT_WORK(&qp->drain_work, sroce_qp_drain_work);
	INIT_DELAYED_WORK(&qp->flush_work, sroce_qp_flush_work);
	INIT_LIST_HEAD(&qp->unplug_entry);

	/* UD has no path MTU: messages fit the port's */
	mtu = sroce_qp_is_ud(qp) ? sroce_port_mtu(sdev) : IB_MTU_256;
	qp->attr.path_mtu = mtu;
	qp->mtu = ib_mtu_enum_to_int(mtu);
	qp->attr.port_num = SROCE_PORT;
	sroce_qp_set_state(qp, IB_QPS_RESET);
}

/*
 * Stop the transport of a QP marked dead, for good: no timer or work of
 * it runs after this.  Packets are the caller's business.
 */
static void sroce_qp_transport_stop(struct sroce_qp *qp)
{
	/* the completer's and requester's timers, req_work, the tx wait */
	sroce_comp_stop(qp);
	sroce_resp_cleanup(qp);
	cancel_work_sync(&qp->drain_work);
	cancel_delayed_work_sync(&qp->flush_work);
}

static int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	err = sroce_qp_check_init(init, udata);
	if (err)
		return err;
	/* we report max_qp; make it true */
	if (atomic_inc_return(&sdev->num_qp) > SROCE_MAX_QP) {
		err = -ENOMEM;
		goto uncount;
	}

	qp->ref = kmalloc(sizeof(*qp->ref), GFP_KERNEL);
	if (!qp->ref) {
		err = -ENOMEM;
		goto uncount;
	}
	refcount_set(&qp->ref->count, 1);
	RCU_INIT_POINTER(qp->ref->qp, NULL);
	sroce_qp_init_fields(qp, init, udata);
	err = sroce_qpn_reserve(qp, init->qp_type);
	if (err)
		goto free_ref;
	ibqp->qp_num = qp->ref->qpn;
	qp->tx_flow = sroce_tx_flow_pick(sdev);

	err = sroce_qp_init_sq(qp, &init->cap);
	if (err)
		goto unreserve;
	err = sroce_qp_init_rq(qp, &init->cap);
	if (err)
		goto free_queues;
	if (udata) {
		err = sroce_qp_export(qp, udata);
		if (err)
			goto free_queues;
	}

	sroce_req_init(qp);
	sroce_comp_init(qp);
	err = sroce_resp_init(qp);
	if (err) {
		qp->dead = true;
		sroce_qp_transport_stop(qp);
		goto free_queues;
	}
	/* the QP is complete: received packets may find it from now on */
	rcu_assign_pointer(qp->ref->qp, qp);
	return 0;

free_queues:
	sroce_qp_free_queues(qp);
unreserve:
	sroce_qpn_release(qp);
	/* lookups may have found the entry, but with no QP in it */
	kfree_rcu(qp->ref, rcu);
	goto uncount;
free_ref:
	kfree(qp->ref);
uncount:
	atomic_dec(&sdev->num_qp);
	return err;
}

/* Drop the references of every slot still holding some */
static void sroce_sq_release_all(struct sroce_qp *qp)
{
	u32 i;

	for (i = 0; i <= qp->swqe_mask; i++)
		sroce_swqe_release(qp, sroce_sq_wqe(qp, qp->sq_cons + i));
}

static int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	unsigned long flags;

	flags = sroce_qp_lock_all(qp);
	qp->dead = true;
	sroce_qp_set_state(qp, IB_QPS_ERR);
	sroce_qp_unlock_all(qp, flags);
	if (qp->type == IB_QPT_UD)
		sroce_mcast_detach_qp(qp);

	/*
	 * Once the entry is gone, a lookup finds nothing, or an entry whose
	 * count it cannot raise from zero; the packets being processed hold
	 * the QP.  Wait for them to let go.
	 */
	sroce_qpn_release(qp);
	sroce_qp_put(qp);
	wait_for_completion(&qp->done);
	kfree_rcu(qp->ref, rcu);

	sroce_qp_transport_stop(qp);
	sroce_sq_release_all(qp);
	sroce_qp_free_queues(qp);
	mutex_destroy(&qp->mod_lock);
	atomic_dec(&sdev->num_qp);
	return 0;
}

/* ---- modify / query ------------------------------------------------------ */

static int sroce_qp_check_attr(const struct ib_qp_attr *attr, int mask,
			       struct sroce_av *av)
{
	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return -EINVAL;
	/* one partition, the default one */
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) && (attr->path_mtu < IB_MTU_256 ||
					attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SROCE_QP_ACCESS))
		return -EINVAL;
	if (mask & IB_QP_AV)
		return sroce_av_from_attr(av, &attr->ah_attr);
	return 0;
}

/* Store the attributes of @mask; all locks held */
static void sroce_qp_store_attr(struct sroce_qp *qp,
				const struct ib_qp_attr *attr, int mask,
				const struct sroce_av *av)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		/* ib_core holds that reference, not us: never hand it out */
		a->ah_attr.grh.sgid_attr = NULL;
		qp->av = *av;
	}
	if (mask & IB_QP_PATH_MTU) {
		a->path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;

	if ((mask & (IB_QP_AV | IB_QP_DEST_QPN)) && !sroce_qp_is_ud(qp))
		qp->sport = rdma_get_udp_sport(qp->av.flow_label,
					       qp->ibqp.qp_num, a->dest_qp_num);
	if (sroce_qp_is_ud(qp)) {
		a->path_mtu = sroce_port_mtu(qp->sdev);
		qp->mtu = ib_mtu_enum_to_int(a->path_mtu);
	}
}

/* Consume what a ring holds; bounded, whatever userspace does meanwhile */
static void sroce_queue_consume_all(struct sroce_queue *q)
{
	u32 n;

	for (n = 0; n <= q->index_mask && !sroce_queue_empty(q); n++)
		sroce_queue_advance_consumer(q);
}

/*
 * Empty both queues without completions, as a move to RESET does.  A
 * user ring keeps its indices (librxe does not reset them): the consumer
 * catches up with the producer.  All locks held.
 */
static void sroce_qp_discard(struct sroce_qp *qp)
{
	sroce_sq_release_all(qp);
	if (qp->user) {
		sroce_queue_consume_all(&qp->sq);
		qp->sq_cons = qp->sq.cons;
	} else {
		qp->sq_cons = qp->sq_prod;
	}
	if (!qp->srq)
		sroce_queue_consume_all(&qp->rq);
	qp->sq_drained_sent = false;
}

/*
 * A user QP leaves the states that refuse a send doorbell (RESET, INIT,
 * RTR) for one that takes it (RTS, ERR).  What its ring holds was written
 * by librxe before a doorbell that sroce_post_send() refused, and a post
 * that failed has no effect: it neither runs nor completes, flushed or
 * not.  Nothing was fetched before RTS.  All locks held.
 */
static void sroce_sq_drop_refused(struct sroce_qp *qp)
{
	sroce_queue_consume_all(&qp->sq);
	qp->sq_cons = qp->sq.cons;
	qp->req.wqe_index = qp->sq_cons;
	qp->req.fetch_index = qp->sq_cons;
}

/*
 * The move to RESET: empty the queues and start the transport over, all
 * under the locks, so that packets, timers and work of before find a QP
 * in RESET and a transport in its initial state.
 */
static void sroce_qp_reset(struct sroce_qp *qp)
{
	/* no path: sroce_pkt_from_peer() takes nothing from the last peer */
	memset(&qp->av, 0, sizeof(qp->av));
	sroce_qp_discard(qp);
	sroce_req_init(qp);
	sroce_comp_init(qp);
	sroce_resp_reset(qp);
}

/**
 * struct sroce_qp_mod - what a modify_qp prepares before the locks, and
 *	learns under them
 * @av: the path of IB_QP_AV, checked
 * @ring: responder resources to swap in; after, the ring replaced
 * @ring_num: entries of @ring
 * @drained: the move to SQD found no WQE in flight
 */
struct sroce_qp_mod {
	struct sroce_av av;
	struct sroce_rd_res *ring;
	u32 ring_num;
	bool drained;
};

/* State change and attributes, all at once under the locks */
static int sroce_qp_apply(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			  int mask, enum ib_qp_state new,
			  struct sroce_qp_mod *m)
{
	enum ib_qp_state cur;
	unsigned long flags;

	flags = sroce_qp_lock_all(qp);
	cur = qp->state;
	/* the transport may have moved it to ERR since we looked */
	if (!ib_modify_qp_is_ok(cur, new, qp->type, mask)) {
		sroce_qp_unlock_all(qp, flags);
		return -EINVAL;
	}
	sroce_qp_store_attr(qp, attr, mask, &m->av);
	if (m->ring)
		sroce_resp_res_swap(qp, &m->ring, m->ring_num);
	if (mask & IB_QP_RQ_PSN)
		qp->resp.psn = qp->attr.rq_psn;
	/* also reloads the completer's retry counters */
	if (mask & IB_QP_SQ_PSN)
		sroce_req_set_psn(qp, qp->attr.sq_psn);
	if (new == IB_QPS_SQD && cur != IB_QPS_SQD) {
		/* the requester takes no new WQE; maybe none is in flight */
		qp->sq_drained_sent = sroce_sq_drained(qp);
		m->drained = qp->sq_drained_sent;
	}
	if (qp->user && cur < IB_QPS_RTS && new >= IB_QPS_RTS)
		sroce_sq_drop_refused(qp);
	sroce_qp_set_state(qp, new);
	if (new == IB_QPS_RESET)
		sroce_qp_reset(qp);
	sroce_qp_unlock_all(qp, flags);
	return 0;
}

static int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_qp_mod m = {};
	enum ib_qp_state cur, new;
	int err;

	/* librxe sends no command data */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/* no alternate path, no resizing */
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | IB_QP_CAP))
		return -EOPNOTSUPP;

	mutex_lock(&qp->mod_lock);
	cur = READ_ONCE(qp->state);
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, qp->type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = sroce_qp_check_attr(attr, mask, &m.av);
	if (err)
		goto out;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) && qp->type == IB_QPT_RC) {
		m.ring = sroce_resp_res_alloc(qp, attr->max_dest_rd_atomic,
					      &m.ring_num);
		if (IS_ERR(m.ring)) {
			err = PTR_ERR(m.ring);
			m.ring = NULL;
			goto out;
		}
	}
	err = sroce_qp_apply(qp, attr, mask, new, &m);
	if (err || !(mask & IB_QP_STATE))
		goto out;

	switch (new) {
	case IB_QPS_RTS:
		sroce_req_kick(qp);
		break;
	case IB_QPS_SQD:
		if (m.drained)
			sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
		break;
	case IB_QPS_ERR:
		sroce_flush_sq(qp);
		sroce_flush_rq(qp);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&qp->mod_lock);
	/* the ring not used, or the one replaced */
	kfree(m.ring);
	return err;
}

static void sroce_qp_cap(const struct sroce_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = qp->max_send_wr;
	cap->max_recv_wr = qp->max_recv_wr;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = qp->max_inline;
}

static int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	/* the attributes change under all the locks; one of them will do */
	spin_lock_irqsave(&qp->sq_lock, flags);
	*attr = qp->attr;
	attr->sq_draining = qp->state == IB_QPS_SQD && !qp->sq_drained_sent;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	sroce_qp_cap(qp, &attr->cap);

	memset(init, 0, sizeof(*init));
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	sroce_qp_cap(qp, &init->cap);
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = qp->type;
	init->port_num = SROCE_PORT;
	return 0;
}

enum {
	SROCE_QP_RES_SQ_PSN,
	SROCE_QP_RES_SQ_OUTSTANDING,
	SROCE_QP_RES_RQ_POSTED,
	SROCE_QP_RES_ANY,
	SROCE_QP_RES_EXPECTED_PSN = SROCE_QP_RES_ANY,
	SROCE_QP_RES_CONNECTED,
	SROCE_QP_RES_UNACKED_PSN = SROCE_QP_RES_CONNECTED,
	SROCE_QP_RES_RETRANSMITS,
	SROCE_QP_RES_ACK_TIMEOUTS,
	SROCE_QP_RES_RETRY_LEFT,
	SROCE_QP_RES_RNR_RETRY_LEFT,
	SROCE_QP_RES_RC,
	SROCE_QP_RES_MAX = SROCE_QP_RES_RC + SROCE_RP_RES_ATTRS,
};

static const struct sroce_res_attr sroce_qp_res_names[SROCE_QP_RES_RC] = {
	[SROCE_QP_RES_SQ_PSN] = { .name = "sq_psn", .hex = true },
	[SROCE_QP_RES_SQ_OUTSTANDING] = { .name = "sq_outstanding" },
	[SROCE_QP_RES_RQ_POSTED] = { .name = "rq_posted" },
	[SROCE_QP_RES_EXPECTED_PSN] = { .name = "expected_psn", .hex = true },
	[SROCE_QP_RES_UNACKED_PSN] = { .name = "unacked_psn", .hex = true },
	[SROCE_QP_RES_RETRANSMITS] = { .name = "retransmits" },
	[SROCE_QP_RES_ACK_TIMEOUTS] = { .name = "ack_timeouts" },
	[SROCE_QP_RES_RETRY_LEFT] = { .name = "retry_left" },
	[SROCE_QP_RES_RNR_RETRY_LEFT] = { .name = "rnr_retry_left" },
};

/* Each part under its own lock; a snapshot, not an atomic one */
static void sroce_qp_res_read(struct sroce_qp *qp, struct sroce_res_attr *a)
{
	unsigned long flags;

	memcpy(a, sroce_qp_res_names, sizeof(sroce_qp_res_names));
	spin_lock_bh(&qp->sq_lock);
	a[SROCE_QP_RES_SQ_PSN].value = qp->req.psn;
	a[SROCE_QP_RES_SQ_OUTSTANDING].value =
		(sroce_sq_prod(qp) - qp->sq_cons) & qp->sq_mask;
	a[SROCE_QP_RES_UNACKED_PSN].value = qp->comp.psn;
	a[SROCE_QP_RES_RETRANSMITS].value = qp->req.retransmits;
	a[SROCE_QP_RES_ACK_TIMEOUTS].value = qp->comp.ack_timeouts;
	a[SROCE_QP_RES_RETRY_LEFT].value = qp->comp.retry_cnt;
	a[SROCE_QP_RES_RNR_RETRY_LEFT].value = qp->comp.rnr_retry;
	spin_unlock_bh(&qp->sq_lock);
	spin_lock_bh(&qp->resp.lock);
	a[SROCE_QP_RES_EXPECTED_PSN].value = qp->resp.psn;
	spin_unlock_bh(&qp->resp.lock);
	if (!qp->ibqp.srq) {
		spin_lock_irqsave(&qp->rq_lock, flags);
		a[SROCE_QP_RES_RQ_POSTED].value = sroce_queue_count(&qp->rq);
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
}

/*
 * rdma resource show qp -dd: where the QP's sequence numbers stand, what
 * it resent, how full its queues are, and what congestion control does
 * to it.  An RC QP has them all; a UC QP its expected PSN and its rate;
 * a UD QP its send PSN and queues.
 */
static int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_res_attr a[SROCE_QP_RES_MAX];
	unsigned int n = SROCE_QP_RES_ANY;

	sroce_qp_res_read(qp, a);
	if (qp->type == IB_QPT_RC)
		n = SROCE_QP_RES_RC;
	else if (qp->type == IB_QPT_UC)
		n = SROCE_QP_RES_CONNECTED;
	if (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC) {
		sroce_rp_res_attrs(qp, &a[n]);
		n += SROCE_RP_RES_ATTRS;
	}
	return sroce_fill_res_attrs(msg, a, n);
}

const struct ib_device_ops sroce_qp_ops = {
	.create_qp = sroce_create_qp,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.modify_qp = sroce_modify_qp,
	.query_qp = sroce_query_qp,
	.destroy_qp = sroce_destroy_qp,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,
};
