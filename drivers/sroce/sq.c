// SPDX-License-Identifier: GPL-2.0
/*
 * The send queue: work requests checked and copied into the kernel's
 * WQEs, the requester's view of the ring, and their completions.
 *
 * The transport reads only struct sroce_swqe, the kernel's WQEs.  A
 * kernel QP has one per slot and writes it in post_send.  User QPs share
 * a ring of librxe's struct rxe_send_wqe with userspace; the requester
 * copies a slot out once (sroce_sq_fetch()) and checks the copy, and the
 * ring is not read again for that WQE.  Slot i's WQE is swqe i &
 * swqe_mask: for a user QP the copies are a window of the WQEs fetched
 * and not yet retired, which grows with use up to SROCE_SQ_COPIES
 * (sroce_sq_grow_copies() in qp.c).
 *
 * Kernel consumers post with interrupts disabled (see qp.c), so
 * post_send takes the QP locks with spin_lock_irqsave.
 */

#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/ah.h>
#include <sroce/compat.h>
#include <sroce/limits.h>
#include <sroce/mr.h>
#include <sroce/queue.h>
#include <sroce/transport.h>

#define SROCE_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

static bool sroce_wr_ok_for_qp(const struct sroce_qp *qp, u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
	case IB_WR_BIND_MW:
		return qp->type == IB_QPT_RC || qp->type == IB_QPT_UC;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	case IB_WR_ATOMIC_WRITE:
#endif
		return qp->type == IB_QPT_RC;
	default:
		return false;
	}
}

/* Opcodes that carry a message of their own, which may be inline */
static bool sroce_wr_may_inline(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return true;
	default:
		return false;
	}
}

/* Local operations: no message, no SGEs */
static bool sroce_wr_is_local(u32 opcode)
{
	return opcode == IB_WR_LOCAL_INV || opcode == IB_WR_REG_MR ||
	       opcode == IB_WR_BIND_MW;
}

static u32 sroce_wr_max_len(const struct sroce_qp *qp)
{
	return sroce_qp_is_ud(qp) ? qp->mtu : SROCE_MAX_MSG_SIZE;
}

/* Start a slot afresh; its tail (SGEs or inline data) is filled after */
void sroce_swqe_reset(struct sroce_swqe *wqe, u64 wr_id, u32 opcode,
		      u32 send_flags)
{
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	wqe->send_flags = send_flags;
	wqe->ex = 0;
	memset(&wqe->wr, 0, sizeof(wqe->wr));
	wqe->length = 0;
	wqe->num_sge = 0;
	wqe->state = SROCE_WQE_POSTED;
	wqe->status = IB_WC_SUCCESS;
	wqe->ssn = 0;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->rd_atomic = false;
	wqe->acked = 0;
	wqe->fetched = false;
}

/* Drop what a slot holds.  Kernel AHs are borrowed: see sroce_swqe_ud(). */
void sroce_swqe_release(struct sroce_qp *qp, struct sroce_swqe *wqe)
{
	if (!wqe->fetched)
		return;
	wqe->fetched = false;
	if (sroce_qp_is_ud(qp)) {
		if (qp->user && wqe->wr.ud.ah)
			sroce_ah_put(wqe->wr.ud.ah);
		wqe->wr.ud.ah = NULL;
	} else if (wqe->opcode == IB_WR_REG_MR && wqe->wr.reg.mr) {
		sroce_mr_put(wqe->wr.reg.mr);
		wqe->wr.reg.mr = NULL;
	}
}

/* Sum of @n SGE lengths, or -EINVAL past the largest message */
int sroce_sge_len(const struct ib_sge *sge, u32 n, u32 max, u32 *len)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += sge[i].length;
	if (sum > max)
		return -EINVAL;
	*len = sum;
	return 0;
}

/* Opcode-specific part of a kernel WR */
static int sroce_swqe_wr_fields(struct sroce_qp *qp, struct sroce_swqe *wqe,
				const struct ib_send_wr *wr)
{
	struct sroce_mr *mr;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex = (__force u32)wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->ex = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	if (sroce_qp_is_ud(qp)) {
		const struct ib_ud_wr *ud = ud_wr(wr);

		if (!ud->ah || ud->ah->pd != qp->ibqp.pd ||
		    ud->remote_qpn > SROCE_QPN_MASK)
			return -EINVAL;
		/*
		 * Borrowed, not referenced: kernel AHs are freed when
		 * destroy_ah returns, whatever their count, and a consumer
		 * must keep the AH until the WR completes anyway.
		 */
		wqe->wr.ud.ah = to_sah(ud->ah);
		wqe->wr.ud.remote_qpn = ud->remote_qpn;
		wqe->wr.ud.remote_qkey = ud->remote_qkey;
		return 0;
	}

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		/* the target is one aligned 8-byte word, the result too */
		if ((atomic_wr(wr)->remote_addr & 7) || wqe->length < 8)
			return -EINVAL;
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		if (!reg_wr(wr)->mr)
			return -EINVAL;
		mr = to_smr(reg_wr(wr)->mr);
		/* held until retired: dereg_mr waits for it */
		if (mr->pd != qp->pd || !refcount_inc_not_zero(&mr->ref))
			return -EINVAL;
		wqe->wr.reg.mr = mr;
		wqe->wr.reg.key = reg_wr(wr)->key;
		wqe->wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
	return 0;
}

/* The message of a kernel WR: SGEs, or inline data copied right now */
static int sroce_swqe_data(struct sroce_qp *qp, struct sroce_swqe *wqe,
			   const struct ib_send_wr *wr)
{
	u32 n = wr->num_sge, len = 0, i;

	if ((wr->send_flags & IB_SEND_INLINE) &&
	    !sroce_wr_may_inline(wr->opcode))
		return -EINVAL;
	if (sroce_wr_is_local(wr->opcode))
		return 0;
	if (!(wr->send_flags & IB_SEND_INLINE)) {
		memcpy(wqe->sge, wr->sg_list, n * sizeof(*wqe->sge));
		wqe->num_sge = n;
		return sroce_sge_len(wqe->sge, n, sroce_wr_max_len(qp),
				     &wqe->length);
	}

	for (i = 0; i < n; i++) {
		u32 l = wr->sg_list[i].length;

		if (l > qp->max_inline - len)
			return -EINVAL;
		/* kernel consumers hand us kernel virtual addresses */
		memcpy(wqe->inline_data + len,
		       ib_virt_dma_to_ptr(wr->sg_list[i].addr), l);
		len += l;
	}
	if (len > sroce_wr_max_len(qp))
		return -EINVAL;
	wqe->length = len;
	return 0;
}

/*
 * A kernel WR has no fields to name a window with, nor to carry the value
 * of an ATOMIC WRITE: both come from user space only.
 */
static bool sroce_wr_user_only(u32 opcode)
{
	switch (opcode) {
	case IB_WR_BIND_MW:
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	case IB_WR_ATOMIC_WRITE:
#endif
		return true;
	default:
		return false;
	}
}

/**
 * sroce_swqe_from_wr() - check a kernel send WR and fill a slot with it
 * @qp: a kernel QP, sq_lock held
 * @wqe: the slot at the producer
 * @wr: the work request
 *
 * References are taken last, so a refused WR leaves nothing to undo.
 *
 * Return: 0, or -EINVAL for a WR the QP cannot execute.
 */
static int sroce_swqe_from_wr(struct sroce_qp *qp, struct sroce_swqe *wqe,
			      const struct ib_send_wr *wr)
{
	int err;

	if (!sroce_wr_ok_for_qp(qp, wr->opcode) ||
	    sroce_wr_user_only(wr->opcode) ||
	    (wr->send_flags & ~SROCE_SEND_FLAGS) || wr->num_sge < 0 ||
	    wr->num_sge > qp->max_send_sge)
		return -EINVAL;

	sroce_swqe_reset(wqe, wr->wr_id, wr->opcode, wr->send_flags);
	err = sroce_swqe_data(qp, wqe, wr);
	if (!err)
		err = sroce_swqe_wr_fields(qp, wqe, wr);
	if (err)
		return err;
	wqe->fetched = true;
	return 0;
}

/*
 * Copy and check the fields of a user WQE that depend on the opcode.
 * Return: 0 or the IB_WC_* status the WQE completes with.
 */
static int sroce_swqe_user_wr(struct sroce_qp *qp, struct sroce_swqe *wqe,
			      const struct rxe_send_wr *uwr)
{
	struct sroce_ah *ah;

	switch (wqe->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex = (__force u32)uwr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->ex = uwr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	if (sroce_qp_is_ud(qp)) {
		if (uwr->wr.ud.remote_qpn > SROCE_QPN_MASK)
			return IB_WC_LOC_QP_OP_ERR;
		/* ah_num 0 is an older librxe passing an AV: not spoken */
		ah = sroce_ah_get(qp->sdev, uwr->wr.ud.ah_num);
		if (!ah)
			return IB_WC_LOC_QP_OP_ERR;
		wqe->wr.ud.ah = ah;
		if (ah->ibah.pd != qp->ibqp.pd)
			return IB_WC_LOC_PROT_ERR;
		wqe->wr.ud.remote_qpn = uwr->wr.ud.remote_qpn;
		wqe->wr.ud.remote_qkey = uwr->wr.ud.remote_qkey;
		return 0;
	}

	switch (wqe->opcode) {
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	case IB_WR_ATOMIC_WRITE:
		/* one aligned 8-byte word, as for the other atomics */
		if (uwr->wr.rdma.remote_addr & 7)
			return IB_WC_LOC_QP_OP_ERR;
		fallthrough;
#endif
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = uwr->wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = uwr->wr.rdma.rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (uwr->wr.atomic.remote_addr & 7)
			return IB_WC_LOC_QP_OP_ERR;
		if (wqe->length < 8)
			return IB_WC_LOC_LEN_ERR;
		wqe->wr.atomic.remote_addr = uwr->wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = uwr->wr.atomic.compare_add;
		wqe->wr.atomic.swap = uwr->wr.atomic.swap;
		wqe->wr.atomic.rkey = uwr->wr.atomic.rkey;
		break;
	case IB_WR_BIND_MW:
		wqe->wr.bind.addr = uwr->wr.mw.addr;
		wqe->wr.bind.length = uwr->wr.mw.length;
		wqe->wr.bind.mr_lkey = uwr->wr.mw.mr_lkey;
		wqe->wr.bind.mw_rkey = uwr->wr.mw.mw_rkey;
		wqe->wr.bind.rkey = uwr->wr.mw.rkey;
		wqe->wr.bind.access = uwr->wr.mw.access;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * The message of a user WQE.  @hdr is our copy of the slot's header; the
 * tail is copied from @slot once, bounded by the checked count, and only
 * our copy is looked at afterwards.
 */
static int sroce_swqe_user_data(struct sroce_qp *qp, struct sroce_swqe *wqe,
				const struct rxe_send_wqe *hdr,
				const struct rxe_send_wqe *slot)
{
	u32 len, n;

	if ((wqe->send_flags & IB_SEND_INLINE) &&
	    !sroce_wr_may_inline(wqe->opcode))
		return IB_WC_LOC_QP_OP_ERR;
	if (sroce_wr_is_local(wqe->opcode))
		return 0;
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	if (wqe->opcode == IB_WR_ATOMIC_WRITE) {
		/* librxe's 8 bytes sit where inline data would */
		if (hdr->dma.length != sizeof(wqe->wr.rdma.value))
			return IB_WC_LOC_LEN_ERR;
		memcpy(wqe->wr.rdma.value, slot->dma.inline_data,
		       sizeof(wqe->wr.rdma.value));
		wqe->length = sizeof(wqe->wr.rdma.value);
		return 0;
	}
#endif
	if (wqe->send_flags & IB_SEND_INLINE) {
		len = hdr->dma.length;
		if (len > qp->max_inline || len > sroce_wr_max_len(qp))
			return IB_WC_LOC_LEN_ERR;
		memcpy(wqe->inline_data, slot->dma.inline_data, len);
		wqe->length = len;
		return 0;
	}

	n = hdr->dma.num_sge;
	if (n > qp->max_send_sge)
		return IB_WC_LOC_QP_OP_ERR;
	memcpy(wqe->sge, slot->dma.sge, n * sizeof(*wqe->sge));
	wqe->num_sge = n;
	if (sroce_sge_len(wqe->sge, n, sroce_wr_max_len(qp), &wqe->length))
		return IB_WC_LOC_LEN_ERR;
	return 0;
}

static int sroce_swqe_from_user(struct sroce_qp *qp, struct sroce_swqe *wqe,
				u32 index)
{
	const struct rxe_send_wqe *slot = sroce_queue_addr(&qp->sq, index);
	struct rxe_send_wqe hdr;
	int status;

	/* userspace may rewrite the slot at any time: one copy, then checks */
	memcpy(&hdr, slot, sizeof(hdr));
	sroce_swqe_reset(wqe, hdr.wr.wr_id, hdr.wr.opcode, hdr.wr.send_flags);
	/* it completes (with its wr_id) whatever is wrong with it */
	wqe->fetched = true;

	/* REG_MR names a kernel MR: kernel QPs only */
	if (!sroce_wr_ok_for_qp(qp, wqe->opcode) ||
	    wqe->opcode == IB_WR_REG_MR ||
	    (wqe->send_flags & ~SROCE_SEND_FLAGS))
		return IB_WC_LOC_QP_OP_ERR;
	status = sroce_swqe_user_data(qp, wqe, &hdr, slot);
	if (!status)
		status = sroce_swqe_user_wr(qp, wqe, &hdr.wr);
	return status;
}

/**
 * sroce_sq_fetch() - make the send WQE at @index valid for the requester
 * @qp: the QP, sq_lock held
 * @index: an SQ slot between sq_cons and sroce_sq_prod()
 *
 * For user QPs the ring's slot is copied into the swqe and checked; a slot
 * already copied is not read again.  Kernel WQEs were checked at post.
 *
 * Return: 0, or the IB_WC_* error status (> 0) the WQE completes with;
 * the swqe's status is set to it as well.
 */
int sroce_sq_fetch(struct sroce_qp *qp, u32 index)
{
	struct sroce_swqe *wqe = sroce_sq_wqe(qp, index);
	int status;

	if (!qp->user || wqe->fetched)
		return wqe->status;
	status = sroce_swqe_from_user(qp, wqe, index);
	wqe->status = status;
	return status;
}

/**
 * sroce_sq_prod() - the SQ's producer index
 * @qp: the QP, sq_lock held
 *
 * For user QPs the index userspace wrote, masked.  A producer moved back
 * behind what the requester fetched (only a corrupted ring does that)
 * reads as the requester's position, so no loop over the SQ runs past the
 * WQEs in flight into slots not posted.
 */
u32 sroce_sq_prod(struct sroce_qp *qp)
{
	u32 prod, seen;

	if (!qp->user)
		return qp->sq_prod;
	prod = sroce_queue_prod(&qp->sq);
	seen = (qp->req.fetch_index - qp->sq_cons) & qp->sq_mask;
	if (((prod - qp->sq_cons) & qp->sq_mask) < seen)
		return qp->req.fetch_index & qp->sq_mask;
	return prod;
}

/*
 * Every WQE the requester took has completed (for SQD, where it takes no
 * new ones).
 */
bool sroce_sq_drained(const struct sroce_qp *qp)
{
	return qp->sq_cons == (qp->req.fetch_index & qp->sq_mask);
}

/**
 * sroce_sq_retire() - retire the oldest send WQE
 * @qp: the QP, sq_lock held
 *
 * Releases the references the slot holds and hands the slot back to the
 * producer.  In SQD, retiring the last WQE sent raises IB_EVENT_SQ_DRAINED
 * (from a work item: the consumer's handler may post to this QP).
 */
void sroce_sq_retire(struct sroce_qp *qp)
{
	struct sroce_swqe *wqe = sroce_sq_wqe(qp, qp->sq_cons);

	sroce_swqe_release(qp, wqe);
	wqe->state = SROCE_WQE_DONE;
	if (qp->user) {
		/* sq.cons is ours alone; keep the two in step */
		qp->sq.cons = qp->sq_cons;
		sroce_queue_advance_consumer(&qp->sq);
		qp->sq_cons = qp->sq.cons;
	} else {
		qp->sq_cons = (qp->sq_cons + 1) & qp->sq_mask;
	}

	if (qp->state == IB_QPS_SQD && !qp->sq_drained_sent &&
	    sroce_sq_drained(qp)) {
		qp->sq_drained_sent = true;
		schedule_work(&qp->drain_work);
	}
}

void sroce_qp_drain_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, drain_work);

	if (READ_ONCE(qp->state) == IB_QPS_SQD && !READ_ONCE(qp->dead))
		sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

static enum ib_wc_opcode sroce_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	case IB_WR_ATOMIC_WRITE:
		return IB_WC_ATOMIC_WRITE;
#endif
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		/* the sends, and whatever a flushed user WQE claimed to be */
		return IB_WC_SEND;
	}
}

/**
 * sroce_sq_wc() - the completion of a send WQE
 * @qp: its QP
 * @wqe: the WQE
 * @status: how it completes
 * @wc: filled
 *
 * Return: false when no completion is due: a successful WQE posted
 * without IB_SEND_SIGNALED on a QP that does not signal all.  Errors
 * (flushes included) always complete.
 */
bool sroce_sq_wc(const struct sroce_qp *qp, const struct sroce_swqe *wqe,
		 enum ib_wc_status status, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wqe->wr_id;
	wc->status = status;
	wc->opcode = sroce_wc_opcode(wqe->opcode);
	wc->byte_len = wqe->length;
	wc->qp = (struct ib_qp *)&qp->ibqp;
	wc->port_num = SROCE_PORT;

	return status != IB_WC_SUCCESS || qp->sig_all ||
	       (wqe->send_flags & IB_SEND_SIGNALED);
}

static bool sroce_sq_full(const struct sroce_qp *qp)
{
	return ((qp->sq_prod + 1) & qp->sq_mask) == qp->sq_cons;
}

static int sroce_post_send_kernel(struct sroce_qp *qp,
				  const struct ib_send_wr *wr,
				  const struct ib_send_wr **bad_wr)
{
	struct sroce_swqe *wqe;
	bool posted = false, flush = false;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->state < IB_QPS_RTS) {
		err = -EINVAL;
		goto unlock;
	}
	/*
	 * In ERR every WR completes at once with a flush error (ib_drain_qp
	 * relies on it); it goes through the SQ all the same, behind the
	 * WQEs being flushed, so that completions keep their order.
	 */
	flush = qp->state == IB_QPS_ERR;
	for (; wr; wr = wr->next) {
		if (sroce_sq_full(qp)) {
			err = -ENOMEM;
			break;
		}
		wqe = sroce_sq_wqe(qp, qp->sq_prod);
		if (flush) {
			sroce_swqe_reset(wqe, wr->wr_id, wr->opcode,
					 wr->send_flags);
			wqe->fetched = true;
		} else {
			err = sroce_swqe_from_wr(qp, wqe, wr);
			if (err)
				break;
		}
		qp->sq_prod = (qp->sq_prod + 1) & qp->sq_mask;
		posted = true;
	}
unlock:
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	if (err)
		*bad_wr = wr;
	if (posted) {
		if (flush)
			sroce_flush_sq(qp);
		else
			sroce_req_kick(qp);
	}
	return err;
}

int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state;

	if (!qp->user)
		return sroce_post_send_kernel(qp, wr, bad_wr);

	/*
	 * librxe's doorbell: the WQEs are in the ring already.  Real WRs
	 * through uverbs would name addresses userspace chose as kernel
	 * ones: refused.
	 */
	if (wr) {
		*bad_wr = wr;
		return -EINVAL;
	}
	state = READ_ONCE(qp->state);
	/* as for kernel WRs: before RTS a doorbell is refused (IBTA 10.3.1) */
	if (state < IB_QPS_RTS)
		return -EINVAL;
	if (state == IB_QPS_ERR) {
		/* user receives have no syscall: flush those too */
		sroce_flush_sq(qp);
		sroce_flush_rq(qp);
	} else {
		sroce_req_kick(qp);
	}
	return 0;
}
