// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: turns send WQEs into request packets.
 *
 * It walks the SQ from req.wqe_index, one packet per step, under sq_lock,
 * and hands each few packets it built to the transmit queues with sq_lock
 * dropped (req_flush()): the ICRC and the netdev are the larger part of a
 * packet's cost, and the completer may take ACKs meanwhile.  One context
 * at a time runs it (req.running); a kick that finds it running only asks
 * it to look again (req.again), so the poster of a WQE never waits for
 * another CPU's requester to finish.
 * RC packets stay unacknowledged until the completer (comp.c) sees their
 * ACK; the completer owns comp.psn, the oldest unacknowledged PSN, and
 * rewinds the requester to it when something was lost.  Every WQE is
 * completed by the completer, in SQ order: the requester only marks the
 * ones that need no ACK (UC, UD, local operations, local errors) as SENT
 * and asks the completer to run.
 *
 * The requester never fails a QP for lack of memory or transmit room: it
 * stops, and a timer or the tx layer's wake-up starts it again.
 */
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

#include <sroce/ah.h>
#include <sroce/compat.h>
#include <sroce/device.h>
#include <sroce/hdr.h>
#include <sroce/limits.h>
#include <sroce/mr.h>
#include <sroce/opcode.h>
#include <sroce/pktbuf.h>
#include <sroce/psn.h>
#include <sroce/stats.h>
#include <sroce/transport.h>
#include <sroce/tx.h>
#include <sroce/txzc.h>

/* Wait before trying again after sroce_tx_alloc() found no memory */
#define SROCE_REQ_NOMEM_DELAY	msecs_to_jiffies(1)

/*
 * A READ takes one PSN per response packet.  Keep every READ well inside
 * half the PSN space so that PSN comparisons over everything outstanding
 * stay meaningful (only a READ of more than 1 GiB at a 256 byte MTU is
 * refused).
 */
#define SROCE_REQ_READ_MAX_PSNS	(SROCE_PSN_HALF / 2)

/* UC opcodes are the RC ones with the UC transport bits */
static_assert(SROCE_OP_UC_SEND_FIRST == (SROCE_OP_RC_SEND_FIRST | SROCE_TR_UC));
static_assert(SROCE_OP_UC_WRITE_ONLY_IMM ==
	      (SROCE_OP_RC_WRITE_ONLY_IMM | SROCE_TR_UC));

/* What one pass of the requester leaves for after sq_lock is dropped */
struct req_run {
	struct sroce_mr *mr;	/* source MR of the last SGE read, referenced */
	bool complete;		/* WQEs are SENT that complete without an ACK */
	bool nomem;		/* no packet buffer: try again a bit later */
	bool more;		/* out of budget with work left */
	unsigned int steps;	/* steps taken, up to SROCE_REQ_BUDGET */
	struct sk_buff_head batch; /* built, not yet handed to the tx layer */
	struct sk_buff *ackreq;	/* of these, the last that asks for an ACK */
	u32 ackreq_end;		/* and the PSN after it */
};

/* One request packet, decided before anything is built */
struct req_pkt {
	u8 opcode;
	u32 psn;
	u32 npsn;		/* PSNs it consumes: READ responses, else 1 */
	u32 offset;		/* message offset of the payload (or READ) */
	u32 len;		/* payload bytes */
	bool last;		/* the WQE's last packet */
	bool ackreq;
};

enum req_step {
	REQ_CONTINUE,
	REQ_STOP,
};

static u32 req_next_index(const struct sroce_qp *qp, u32 index)
{
	return (index + 1) & qp->sq_mask;
}

/* Done with the current WQE: the next one starts at its beginning */
static void req_advance(struct sroce_qp *qp)
{
	qp->req.wqe_index = req_next_index(qp, qp->req.wqe_index);
	qp->req.offset = 0;
}

/*
 * The requester is done with @wqe without an ACK to wait for (a local
 * operation, or a failure): the completer completes it with @status once
 * the WQEs before it are complete.
 */
static void req_mark_sent(struct sroce_swqe *wqe, enum ib_wc_status status,
			  struct req_run *run)
{
	wqe->status = status;
	wqe->state = SROCE_WQE_SENT;
	run->complete = true;
}

/*
 * The new WQE at req.fetch_index begins (or fails): from now on it is in
 * flight, and the completer and a rewind see it.
 */
static void req_take(struct sroce_qp *qp, struct sroce_swqe *wqe)
{
	struct sroce_req *req = &qp->req;

	req->fetch_index = req_next_index(qp, req->fetch_index);
	req->next_fetched = false;
	wqe->ssn = req->ssn++;
	wqe->rd_atomic = false;
	wqe->acked = 0;
}

/* ---- choosing what to send ---------------------------------------------- */

/*
 * Is there room in the RC window?  READs count with all their response
 * PSNs, so a large READ fills it by itself until its data is back.  After
 * a local ACK timeout the window is the one packet at comp.psn until
 * progress (comp_timeout_resend()).
 */
static bool req_window_open(const struct sroce_qp *qp)
{
	if (!sroce_qp_is_rc(qp))
		return true;
	if (qp->comp.probe)
		return qp->req.psn == qp->comp.psn;
	return sroce_psn_diff(qp->req.psn, qp->comp.psn) <
	       SROCE_MAX_UNACKED_PSNS;
}

static bool req_may_run(const struct sroce_qp *qp)
{
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return false;
	return !qp->comp.rnr_wait && !READ_ONCE(qp->req.tx_blocked) &&
	       req_window_open(qp);
}

/* Has the user or kernel producer posted a WQE the requester never saw? */
static bool req_sq_has_new(struct sroce_qp *qp)
{
	u32 posted = (sroce_sq_prod(qp) - qp->sq_cons) & qp->sq_mask;
	u32 seen = (qp->req.fetch_index - qp->sq_cons) & qp->sq_mask;

	/* a producer index moved backwards only ever looks like "nothing" */
	return posted > seen;
}

/*
 * Is there a free copy for the WQE at req.fetch_index?  The copies hold
 * the WQEs from qp->sq_cons to it, and a user QP has fewer copies than
 * slots (qp->swqe_mask).  When there is none, req.copies_grow has
 * req_work double the window if it may still grow, and req.copies_wait
 * asks the completer to kick the requester once it retires one.
 */
static bool req_copy_free(const struct sroce_qp *qp)
{
	return ((qp->req.fetch_index - qp->sq_cons) & qp->sq_mask) <=
	       qp->swqe_mask;
}

/**
 * sroce_req_copies_freed() - the completer retired WQEs
 * @qp: the QP, sq_lock held
 *
 * Return: true if the requester stopped for want of a WQE copy (and is to
 * be kicked once sq_lock is dropped); it no longer waits.
 */
bool sroce_req_copies_freed(struct sroce_qp *qp)
{
	bool waited = qp->req.copies_wait;

	lockdep_assert_held(&qp->sq_lock);
	qp->req.copies_wait = false;
	return waited;
}

/*
 * The WQE at req.wqe_index; NULL when the SQ holds nothing more to send.
 * A new one is fetched (copied and checked) once, and stays new (POSTED,
 * at req.fetch_index) until req_take(): a WQE waiting for a fence or a
 * READ/ATOMIC slot has not begun, so a draining SQ leaves it alone.
 */
static struct sroce_swqe *req_current_wqe(struct sroce_qp *qp,
					  struct req_run *run)
{
	struct sroce_req *req = &qp->req;
	u32 ahead = (req->wqe_index - qp->sq_cons) & qp->sq_mask;
	u32 seen = (req->fetch_index - qp->sq_cons) & qp->sq_mask;
	struct sroce_swqe *wqe;
	int status;

	if (ahead < seen)
		return sroce_sq_wqe(qp, req->wqe_index);
	/* retired under us: a failed WQE, the QP is going to error */
	if (ahead > seen)
		return NULL;
	if (qp->state != IB_QPS_RTS || !req_sq_has_new(qp))
		return NULL;

	wqe = sroce_sq_wqe(qp, req->wqe_index);
	if (req->next_fetched)
		return wqe;
	if (!req_copy_free(qp)) {
		/* once per wait: a failed grow is not retried until then */
		if (!req->copies_wait) {
			if (qp->swqe_mask < qp->swqe_max_mask)
				req->copies_grow = true;
			else
				sroce_stats_inc(qp->sdev,
						SROCE_CNT_SQ_COPIES_FULL);
		}
		req->copies_wait = true;
		return NULL;
	}
	status = sroce_sq_fetch(qp, req->wqe_index);
	req->next_fetched = true;
	wqe->state = SROCE_WQE_POSTED;
	wqe->status = IB_WC_SUCCESS;
	if (status) {
		req_take(qp, wqe);
		req_mark_sent(wqe, status > 0 ? status : IB_WC_LOC_QP_OP_ERR,
			      run);
	}
	return wqe;
}

/* The operations each transport carries */
static bool req_opcode_allowed(const struct sroce_qp *qp, u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_BIND_MW:
		return !sroce_qp_is_ud(qp);
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	case IB_WR_ATOMIC_WRITE:
#endif
		return sroce_qp_is_rc(qp);
	default:
		return false;
	}
}

/* PSNs a message takes: one per packet, for a READ one per response */
static u32 req_wqe_npsn(const struct sroce_qp *qp,
			const struct sroce_swqe *wqe)
{
	u32 mtu = sroce_qp_mtu(qp);

	if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD || sroce_qp_is_ud(qp))
		return 1;
	return max_t(u64, 1, DIV_ROUND_UP_ULL((u64)wqe->length, mtu));
}

/*
 * Checks of a WQE before its first packet.  sroce_sq_fetch() validated
 * what userspace wrote; these are the transport's own limits.  Returns 0
 * or the IB_WC_* status the WQE fails with.
 */
static int req_check_wqe(const struct sroce_qp *qp,
			 const struct sroce_swqe *wqe)
{
	bool inl = wqe->send_flags & IB_SEND_INLINE;

	if (!req_opcode_allowed(qp, wqe->opcode))
		return IB_WC_LOC_QP_OP_ERR;
	if (sroce_wqe_is_local(wqe))
		return 0;
	if (sroce_qp_is_ud(qp) && !wqe->wr.ud.ah)
		return IB_WC_LOC_QP_OP_ERR;
	if (wqe->length > SROCE_MAX_MSG_SIZE ||
	    wqe->num_sge > qp->max_send_sge)
		return IB_WC_LOC_LEN_ERR;
	if (inl && (sroce_wqe_is_rd_atomic(wqe) ||
		    wqe->length > qp->max_inline))
		return IB_WC_LOC_QP_OP_ERR;
	if (wqe->opcode == IB_WR_RDMA_READ &&
	    req_wqe_npsn(qp, wqe) > SROCE_REQ_READ_MAX_PSNS)
		return IB_WC_LOC_LEN_ERR;
	/* the original value comes back into the first 8 bytes */
	if ((wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	     wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) &&
	    (!wqe->num_sge || wqe->sge[0].length < sizeof(u64)))
		return IB_WC_LOC_LEN_ERR;
	return 0;
}

/*
 * How many READ/ATOMIC operations may be in flight.  ib_core and rdma_cm
 * accept max_rd_atomic 0, and the IBTA gives no meaning to issuing a READ
 * with an initiator depth of 0 other than "never outstanding", which would
 * stall the SQ for good.  Like hardware (mlx5 programs 2^0 for 0), allow
 * one: the responder's own max_dest_rd_atomic is what protects the peer,
 * and it NAKs what it cannot hold.
 */
static u32 req_rd_atomic_depth(const struct sroce_qp *qp)
{
	return clamp_t(u32, qp->attr.max_rd_atomic, 1, SROCE_MAX_RD_ATOMIC);
}

/*
 * A fenced WQE waits for every READ/ATOMIC before it to complete; a
 * READ/ATOMIC waits for a free slot.
 */
static bool req_must_wait(struct sroce_qp *qp, const struct sroce_swqe *wqe)
{
	struct sroce_req *req = &qp->req;

	req->fence_wait = !req->offset && (wqe->send_flags & IB_SEND_FENCE) &&
			  req->rd_atomic;
	if (req->fence_wait)
		return true;
	return sroce_wqe_is_rd_atomic(wqe) && !wqe->rd_atomic &&
	       req->rd_atomic >= req_rd_atomic_depth(qp);
}

/* The first packet is about to go: the WQE gets its PSNs */
static void req_begin(struct sroce_qp *qp, struct sroce_swqe *wqe)
{
	wqe->first_psn = qp->req.psn;
	wqe->last_psn = sroce_psn_add(qp->req.psn, req_wqe_npsn(qp, wqe) - 1);
	wqe->state = SROCE_WQE_SENDING;
	qp->req.offset = 0;
}

/* ---- local operations --------------------------------------------------- */

static void req_drop_mr(struct req_run *run)
{
	if (run->mr) {
		sroce_mr_put(run->mr);
		run->mr = NULL;
	}
}

static int req_reg_mr(struct sroce_qp *qp, const struct sroce_swqe *wqe)
{
	struct sroce_mr *mr = wqe->wr.reg.mr;

	if (!mr || mr->pd != qp->pd ||
	    sroce_mr_fast_reg(mr, wqe->wr.reg.key, wqe->wr.reg.access))
		return IB_WC_MW_BIND_ERR;
	return IB_WC_SUCCESS;
}

/*
 * A window bound by this QP: to the MR its lkey names in the QP's PD, or,
 * for a zero-length bind of a type 1 window, to nothing.  Every way it can
 * fail is a memory window bind error (IBTA 10.6.7).
 */
static int req_bind_mw(struct sroce_qp *qp, const struct sroce_swqe *wqe)
{
	struct sroce_mr *mr = NULL;
	int err;

	if (wqe->wr.bind.length) {
		mr = sroce_mr_lookup(qp->sdev, wqe->wr.bind.mr_lkey, qp->pd, 0,
				     false);
		if (!mr)
			return IB_WC_MW_BIND_ERR;
	}
	err = sroce_mw_bind(qp->sdev, wqe->wr.bind.mw_rkey, wqe->wr.bind.rkey,
			    qp->pd, qp->ibqp.qp_num, mr, wqe->wr.bind.addr,
			    wqe->wr.bind.length, wqe->wr.bind.access);
	if (mr)
		sroce_mr_put(mr);
	return err ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS;
}

/*
 * IB_WR_REG_MR, IB_WR_BIND_MW and IB_WR_LOCAL_INV take effect when the
 * requester reaches them, after every earlier WQE has been sent
 * (IB_SEND_FENCE also waits for earlier READs).  A failed one is a memory
 * management error (REG_MR), a bind error, or a local protection error (an
 * rkey that is not ours to invalidate).
 */
static enum req_step req_do_local(struct sroce_qp *qp, struct sroce_swqe *wqe,
				  struct req_run *run)
{
	int status = IB_WC_SUCCESS;

	/* keys change: a cached MR may no longer be what its lkey names */
	req_drop_mr(run);

	if (wqe->opcode == IB_WR_REG_MR)
		status = req_reg_mr(qp, wqe);
	else if (wqe->opcode == IB_WR_BIND_MW)
		status = req_bind_mw(qp, wqe);
	else if (sroce_mr_invalidate(qp->pd, wqe->ex))
		status = IB_WC_LOC_PROT_ERR;

	req_mark_sent(wqe, status, run);
	if (status != IB_WC_SUCCESS)
		return REQ_STOP;
	req_advance(qp);
	return REQ_CONTINUE;
}

/* ---- payload ------------------------------------------------------------ */

static struct sroce_mr *req_sge_mr(struct sroce_qp *qp, u32 lkey, int access,
				   struct sroce_mr **mrp)
{
	if (*mrp && READ_ONCE((*mrp)->ibmr.lkey) == lkey)
		return *mrp;
	if (*mrp)
		sroce_mr_put(*mrp);
	*mrp = sroce_mr_lookup(qp->sdev, lkey, qp->pd, access, false);
	return *mrp;
}

/* One piece of a message: @n bytes at @iova of @mr; 0 or an IB_WC_* status */
typedef int (*req_piece_fn)(struct sroce_mr *mr, u64 iova, u32 n, void *arg);

/*
 * Hand @len bytes of @wqe's message from @offset to @fn, a piece per SGE,
 * each SGE's MR looked up with @access (and cached in *@mrp).  Returns 0,
 * IB_WC_LOC_PROT_ERR for a bad lkey or address, IB_WC_LOC_LEN_ERR if the
 * SGEs hold fewer bytes, or what @fn returned.
 */
static int req_wqe_walk(struct sroce_qp *qp, const struct sroce_swqe *wqe,
			u32 offset, u32 len, int access, struct sroce_mr **mrp,
			req_piece_fn fn, void *arg)
{
	u32 nsge = min(wqe->num_sge, qp->max_send_sge);
	struct sroce_mr *mr;
	u32 i, n;
	u64 iova;
	int err;

	for (i = 0; i < nsge && len; i++) {
		const struct ib_sge *sge = &wqe->sge[i];

		if (offset >= sge->length) {
			offset -= sge->length;
			continue;
		}
		n = min(len, sge->length - offset);
		if (check_add_overflow(sge->addr, (u64)offset, &iova))
			return IB_WC_LOC_PROT_ERR;
		mr = req_sge_mr(qp, sge->lkey, access, mrp);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		err = fn(mr, iova, n, arg);
		if (err)
			return err;
		len -= n;
		offset = 0;
	}
	return len ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
}

struct req_copy {
	struct sroce_bytes *b;
	enum sroce_copy_dir dir;
};

static int req_copy_piece(struct sroce_mr *mr, u64 iova, u32 n, void *arg)
{
	struct req_copy *c = arg;

	if (sroce_mr_copy_bytes(mr, iova, c->b, n, c->dir))
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}

/**
 * sroce_wqe_copy() - move message bytes between a buffer or packet and a send WQE
 * @qp: the QP of @wqe (its PD checks the lkeys)
 * @wqe: the send WQE; its SGEs are the kernel's copy
 * @offset: first byte of the message
 * @b: the packet payload: a buffer, or a received packet (@to_wqe only);
 *	advanced past the bytes copied
 * @len: bytes to copy
 * @to_wqe: into the WQE's memory (READ response, atomic result) instead of
 *	out of it (SEND/WRITE payload)
 * @mrp: MR cache for one direction, NULL at first; the caller drops the
 *	reference it holds with sroce_mr_put() when done
 *
 * Context: sq_lock held.  Return: 0, IB_WC_LOC_PROT_ERR for a bad lkey or
 * range, or IB_WC_LOC_LEN_ERR if the SGEs hold fewer than @offset + @len
 * bytes.
 */
int sroce_wqe_copy(struct sroce_qp *qp, const struct sroce_swqe *wqe,
		   u32 offset, struct sroce_bytes *b, u32 len, bool to_wqe,
		   struct sroce_mr **mrp)
{
	struct req_copy c = {
		.b = b,
		.dir = to_wqe ? SROCE_COPY_TO_MR : SROCE_COPY_FROM_MR,
	};

#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	if (wqe->opcode == IB_WR_ATOMIC_WRITE) {
		/* the value travels whole, in the one packet */
		if (to_wqe || offset || len != sizeof(wqe->wr.rdma.value) ||
		    sroce_bytes_move(b, (u8 *)wqe->wr.rdma.value, len, false))
			return IB_WC_LOC_LEN_ERR;
		return IB_WC_SUCCESS;
	}
#endif
	if (wqe->send_flags & IB_SEND_INLINE) {
		/* only ever read: inline data goes out, never comes back */
		if (to_wqe || offset > wqe->length || len > wqe->length - offset)
			return IB_WC_LOC_LEN_ERR;
		if (sroce_bytes_move(b, (u8 *)wqe->inline_data + offset, len,
				     false))
			return IB_WC_LOC_LEN_ERR;
		return IB_WC_SUCCESS;
	}
	return req_wqe_walk(qp, wqe, offset, len,
			    to_wqe ? IB_ACCESS_LOCAL_WRITE : 0, mrp,
			    req_copy_piece, &c);
}

/* ---- building a packet -------------------------------------------------- */

/* The FIRST, MIDDLE, LAST and ONLY opcodes of one RC operation */
struct req_forms {
	u8 first, middle, last, only;
};

static const struct req_forms req_send = {
	SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_MIDDLE,
	SROCE_OP_RC_SEND_LAST, SROCE_OP_RC_SEND_ONLY,
};

static const struct req_forms req_send_imm = {
	SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_MIDDLE,
	SROCE_OP_RC_SEND_LAST_IMM, SROCE_OP_RC_SEND_ONLY_IMM,
};

static const struct req_forms req_send_inv = {
	SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_MIDDLE,
	SROCE_OP_RC_SEND_LAST_INV, SROCE_OP_RC_SEND_ONLY_INV,
};

static const struct req_forms req_write = {
	SROCE_OP_RC_WRITE_FIRST, SROCE_OP_RC_WRITE_MIDDLE,
	SROCE_OP_RC_WRITE_LAST, SROCE_OP_RC_WRITE_ONLY,
};

static const struct req_forms req_write_imm = {
	SROCE_OP_RC_WRITE_FIRST, SROCE_OP_RC_WRITE_MIDDLE,
	SROCE_OP_RC_WRITE_LAST_IMM, SROCE_OP_RC_WRITE_ONLY_IMM,
};

static u8 req_pick(const struct req_forms *f, bool first, bool last)
{
	if (first)
		return last ? f->only : f->first;
	return last ? f->last : f->middle;
}

/*
 * Opcode of the next packet of @wqe, from its position in the message.  A
 * message resumed after a rewind starts again with MIDDLE/LAST (not FIRST):
 * the responder still holds the start of it.
 */
static u8 req_next_opcode(const struct sroce_qp *qp,
			  const struct sroce_swqe *wqe, bool first, bool last)
{
	const struct req_forms *f;

	switch (wqe->opcode) {
	case IB_WR_RDMA_READ:
		return SROCE_OP_RC_READ_REQ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_OP_RC_CMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_OP_RC_FETCH_ADD;
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
	case IB_WR_ATOMIC_WRITE:
		return SROCE_OP_RC_ATOMIC_WRITE;
#endif
	case IB_WR_SEND_WITH_IMM:
		f = &req_send_imm;
		break;
	case IB_WR_SEND_WITH_INV:
		f = &req_send_inv;
		break;
	case IB_WR_RDMA_WRITE:
		f = &req_write;
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		f = &req_write_imm;
		break;
	default:
		f = &req_send;
		break;
	}
	if (sroce_qp_is_ud(qp))
		return wqe->opcode == IB_WR_SEND_WITH_IMM ?
		       SROCE_OP_UD_SEND_ONLY_IMM : SROCE_OP_UD_SEND_ONLY;
	if (qp->type == IB_QPT_UC)
		return req_pick(f, first, last) | SROCE_TR_UC;
	return req_pick(f, first, last);
}

/*
 * RC asks for an ACK at the end of every message, at least every
 * SROCE_ACKREQ_INTERVAL packets, and when the packet fills the window (the
 * requester then waits for that ACK).
 */
static bool req_want_ackreq(const struct sroce_qp *qp, const struct req_pkt *p)
{
	u32 next = sroce_psn_add(p->psn, p->npsn);

	if (!sroce_qp_is_rc(qp))
		return false;
	return p->last || qp->comp.probe ||
	       qp->req.pkts_since_ackreq + 1 >= SROCE_ACKREQ_INTERVAL ||
	       sroce_psn_diff(next, qp->comp.psn) >= SROCE_MAX_UNACKED_PSNS;
}

/* Describe the next packet of @wqe, which is SENDING from req.offset */
static void req_plan(const struct sroce_qp *qp, const struct sroce_swqe *wqe,
		     struct req_pkt *p)
{
	u32 mtu = sroce_qp_mtu(qp);
	u32 left;

	p->psn = qp->req.psn;
	p->offset = qp->req.offset;
	left = wqe->length - min(p->offset, wqe->length);

	if (wqe->opcode == IB_WR_RDMA_READ) {
		/* one request for everything not yet received */
		p->len = 0;
		p->npsn = max(sroce_psn_diff(wqe->last_psn, p->psn) + 1, 1);
		p->last = true;
	} else if (sroce_wqe_is_rd_atomic(wqe)) {
		p->len = 0;
		p->npsn = 1;
		p->last = true;
	} else {
		p->len = min(left, mtu);
		p->npsn = 1;
		p->last = left <= mtu;
	}
	p->opcode = req_next_opcode(qp, wqe, !p->offset, p->last);
	p->ackreq = req_want_ackreq(qp, p);
}

/* Extended headers after the BTH, as the opcode's table entry places them */
static void req_fill_ext_headers(const struct sroce_qp *qp,
				 const struct sroce_swqe *wqe,
				 const struct req_pkt *p, u8 *bth)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(p->opcode);
	unsigned int off;

	off = sroce_opcode_hdr_off(info, SROCE_HDR_DETH);
	if (off)
		sroce_deth_put(bth + off,
			       sroce_ud_send_qkey(qp, wqe->wr.ud.remote_qkey),
			       qp->ibqp.qp_num);

	off = sroce_opcode_hdr_off(info, SROCE_HDR_RETH);
	if (off)
		/* a READ resumed at @offset asks for the rest only */
		sroce_reth_put(bth + off, wqe->wr.rdma.remote_addr + p->offset,
			       wqe->wr.rdma.rkey, wqe->length - p->offset);

	off = sroce_opcode_hdr_off(info, SROCE_HDR_ATMETH);
	if (off) {
		bool cas = wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP;

		sroce_atmeth_put(bth + off, wqe->wr.atomic.remote_addr,
				 wqe->wr.atomic.rkey,
				 cas ? wqe->wr.atomic.swap :
				       wqe->wr.atomic.compare_add,
				 cas ? wqe->wr.atomic.compare_add : 0);
	}

	off = sroce_opcode_hdr_off(info, SROCE_HDR_IMMDT);
	if (off)
		sroce_immdt_set(bth + off, (__force __be32)wqe->ex);

	off = sroce_opcode_hdr_off(info, SROCE_HDR_IETH);
	if (off)
		sroce_ieth_set_rkey(bth + off, wqe->ex);
}

static u32 req_dest_qpn(const struct sroce_qp *qp, const struct sroce_swqe *wqe)
{
	return sroce_qp_is_ud(qp) ? wqe->wr.ud.remote_qpn :
				    qp->attr.dest_qp_num;
}

/*
 * One piece of a message as fragments of its MR's pages.  Any failure (a
 * page the stack must not hold, too many pieces) sends the caller back to
 * copying, which finds a bad lkey or range again and completes the WQE
 * with its error.
 */
static int req_attach_piece(struct sroce_mr *mr, u64 iova, u32 n, void *arg)
{
	struct page *page;
	u32 off, chunk;

	if (sroce_mr_check_range(mr, iova, n))
		return IB_WC_LOC_PROT_ERR;
	while (n) {
		page = sroce_mr_page(mr, iova, &off);
		if (!page)
			return IB_WC_LOC_PROT_ERR;
		chunk = min_t(u32, n, PAGE_SIZE - off);
		if (sroce_tx_add_page(arg, page, off, chunk))
			return IB_WC_LOC_PROT_ERR;
		iova += chunk;
		n -= chunk;
	}
	return IB_WC_SUCCESS;
}

/*
 * A packet of @tp_len transport bytes whose payload stays in the MR's
 * pages (txzc.h), or NULL to copy it: an inline or short payload, a
 * netdev without scatter-gather, or memory that cannot be attached.
 * Only RC: a UC or UD send completes once handed to the netdev, and
 * its buffer, reused at once, would change under a packet still queued
 * there; an RC request completes on its ACK, when the peer has it.
 */
static struct sk_buff *req_alloc_zc(struct sroce_qp *qp,
				    const struct sroce_swqe *wqe,
				    const struct req_pkt *p,
				    const struct sroce_av *av, u16 sport,
				    unsigned int tp_len, void **bth,
				    struct req_run *run)
{
	u32 pad = sroce_padcnt(p->len);
	struct sk_buff *skb;

	if (qp->type != IB_QPT_RC || p->len < SROCE_TXZC_MIN ||
	    (wqe->send_flags & IB_SEND_INLINE) ||
	    !sroce_txzc_possible(qp->sdev))
		return NULL;
	skb = sroce_tx_alloc_frags(qp->sdev, av, sport, tp_len, p->len + pad,
				   bth);
	if (!skb)
		return NULL;
	if (req_wqe_walk(qp, wqe, p->offset, p->len, 0, &run->mr,
			 req_attach_piece, skb) ||
	    sroce_tx_add_trailer(skb, pad)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * Fill the transport part of a packet: BTH, extended headers, and unless
 * the payload is attached already (@zc), payload and pad.  Returns 0 or
 * the IB_WC_* status the WQE fails with.
 */
static int req_build_packet(struct sroce_qp *qp, const struct sroce_swqe *wqe,
			    const struct req_pkt *p, u8 *bth, bool zc,
			    struct req_run *run)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(p->opcode);
	bool solicited = wqe->send_flags & IB_SEND_SOLICITED;
	u8 pad = sroce_padcnt(p->len);
	u8 *payload = bth + info->hdr_len;
	struct sroce_bytes b;
	int err;

	sroce_bth_init(bth, p->opcode, SROCE_DEFAULT_PKEY,
		       req_dest_qpn(qp, wqe), p->psn);
	/* SE matters only where the message consumes a receive WQE */
	sroce_bth_set_se(bth, solicited &&
			 sroce_opcode_has(info, SROCE_OPF_END) &&
			 sroce_opcode_has(info, SROCE_OPF_RWQE));
	sroce_bth_set_ackreq(bth, p->ackreq);
	sroce_bth_set_padcnt(bth, pad);
	req_fill_ext_headers(qp, wqe, p, bth);
	if (zc)
		return 0;

	b = sroce_bytes_buf(payload);
	err = sroce_wqe_copy(qp, wqe, p->offset, &b, p->len, false, &run->mr);
	if (err)
		return err;
	memset(payload + p->len, 0, pad);
	return 0;
}

/* Where the packet goes: the QP's path, or the AH of a UD WQE */
static const struct sroce_av *req_dest(const struct sroce_qp *qp,
				       const struct sroce_swqe *wqe, u16 *sport)
{
	const struct sroce_av *av;

	if (!sroce_qp_is_ud(qp)) {
		*sport = qp->sport;
		return &qp->av;
	}
	av = &wqe->wr.ud.ah->av;
	*sport = rdma_get_udp_sport(av->flow_label, qp->ibqp.qp_num,
				    wqe->wr.ud.remote_qpn);
	return av;
}

/* The packet is built: move the requester past it */
static void req_commit(struct sroce_qp *qp, struct sroce_swqe *wqe,
		       const struct req_pkt *p, struct req_run *run)
{
	struct sroce_req *req = &qp->req;
	u32 next = sroce_psn_add(p->psn, p->npsn);

	if (sroce_qp_is_rc(qp) && sroce_psn_before(p->psn, req->psn_hi)) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RETRANSMITS);
		req->retransmits++;
	}
	if (sroce_psn_after(next, req->psn_hi))
		req->psn_hi = next;
	req->psn = next;
	req->opcode = p->opcode;
	req->pkts_since_ackreq = p->ackreq ? 0 : req->pkts_since_ackreq + 1;

	if (sroce_wqe_is_rd_atomic(wqe) && !wqe->rd_atomic) {
		wqe->rd_atomic = true;
		req->rd_atomic++;
	}
	if (!p->last) {
		wqe->state = SROCE_WQE_SENDING;
		req->offset += p->len;
		return;
	}
	wqe->state = SROCE_WQE_SENT;
	if (!sroce_wqe_needs_ack(qp, wqe))
		run->complete = true;
	req_advance(qp);
}

/*
 * IBTA C10-93.1.1 lets a UD message that exceeds the path MTU go unsent
 * without an error completion, as if lost on the wire.
 */
static enum req_step req_drop_ud(struct sroce_qp *qp, struct sroce_swqe *wqe,
				 struct req_run *run)
{
	sroce_stats_inc(qp->sdev, SROCE_CNT_TX_DROPS);
	qp->req.psn = sroce_psn_add(qp->req.psn, 1);
	req_mark_sent(wqe, IB_WC_SUCCESS, run);
	req_advance(qp);
	return REQ_CONTINUE;
}

/* Build and queue the next packet of @wqe */
static enum req_step req_send_packet(struct sroce_qp *qp,
				     struct sroce_swqe *wqe,
				     struct req_run *run)
{
	const struct sroce_av *av;
	struct sk_buff *skb;
	struct req_pkt p;
	unsigned int tp_len;
	void *bth;
	u16 sport;
	bool zc;
	int ret;

	/* a QP that CNPs slowed down waits for its rate (rp.h) */
	if (sroce_rp_hold(qp, SROCE_RP_REQ))
		return REQ_STOP;
	if (sroce_qp_is_ud(qp) && wqe->length > sroce_qp_mtu(qp))
		return req_drop_ud(qp, wqe, run);

	req_plan(qp, wqe, &p);
	tp_len = sroce_opcode_info(p.opcode)->hdr_len + p.len +
		 sroce_padcnt(p.len);
	av = req_dest(qp, wqe, &sport);
	skb = req_alloc_zc(qp, wqe, &p, av, sport, tp_len, &bth, run);
	zc = !!skb;
	if (!zc)
		skb = sroce_tx_alloc(qp->sdev, av, sport, tp_len, &bth);
	if (!skb) {
		run->nomem = true;
		return REQ_STOP;
	}
	ret = req_build_packet(qp, wqe, &p, bth, zc, run);
	if (zc && !ret)
		sroce_stats_inc(qp->sdev, SROCE_CNT_TX_ZEROCOPY);
	if (ret) {
		kfree_skb(skb);
		req_mark_sent(wqe, ret, run);
		return REQ_STOP;
	}
	req_commit(qp, wqe, &p, run);
	sroce_rp_sent(qp, skb->len);
	if (p.ackreq) {
		run->ackreq = skb;
		run->ackreq_end = sroce_psn_add(p.psn, p.npsn);
	}
	__skb_queue_tail(&run->batch, skb);
	return REQ_CONTINUE;
}

/*
 * Hand the packets built so far to the transmit queues, in PSN order:
 * no other context runs the requester meanwhile (req.running).  sq_lock
 * is dropped for it, BH stays disabled, so that sroce_comp_stop() can
 * wait for req.running with no fear of a preempted runner.  A reset
 * (req.epoch) or a destroy meanwhile ends the run: what was sent is then
 * of no account.  A packet dropped (device down) is a loss RC recovers
 * from.
 *
 * The requester stops when a send said so and left @w armed: a later
 * send of the batch to another transmit context (another destination of
 * a UD QP, a queue layout changed) takes @w off the first one, and a
 * requester stopped with @w armed nowhere would never be woken.
 *
 * Context: sq_lock held and BH disabled, both on return too.
 */
static enum req_step req_flush(struct sroce_qp *qp, struct req_run *run)
	__must_hold(&qp->sq_lock)
{
	struct sroce_tx_waiter *w = &qp->req.waiter;
	u32 end = run->ackreq_end, epoch = qp->req.epoch;
	struct sk_buff *skb, *ackreq = run->ackreq;
	bool told = false, blocked;
	u16 mark_queue = 0;
	u64 mark = 0;

	if (skb_queue_empty(&run->batch))
		return REQ_CONTINUE;
	run->ackreq = NULL;
	/* blocked until proven otherwise: the wake-up may come first */
	WRITE_ONCE(qp->req.tx_blocked, true);
	spin_unlock(&qp->sq_lock);
	while ((skb = __skb_dequeue(&run->batch))) {
		if (sroce_tx_send(qp->sdev, skb, qp->tx_flow, w) > 0)
			told = true;
		/* where the request that asked for an ACK waits (only we
		 * write the marks)
		 */
		if (skb == ackreq) {
			mark = w->mark;
			mark_queue = w->mark_queue;
		}
	}
	/* a wake-up that came meanwhile took @w off its list: go on */
	blocked = told && READ_ONCE(w->queued);
	spin_lock(&qp->sq_lock);

	if (qp->dead || qp->req.epoch != epoch)
		return REQ_STOP;
	if (!blocked)
		WRITE_ONCE(qp->req.tx_blocked, false);
	if (ackreq)
		sroce_comp_arm(qp, end, mark, mark_queue);
	return blocked ? REQ_STOP : REQ_CONTINUE;
}

/* ---- the requester loop ------------------------------------------------- */

/* One WQE-sized step: a packet, a local operation or a skip */
static enum req_step req_step(struct sroce_qp *qp, struct req_run *run)
{
	struct sroce_swqe *wqe;
	int status;

	if (!req_may_run(qp))
		return REQ_STOP;
	wqe = req_current_wqe(qp, run);
	if (!wqe)
		return REQ_STOP;

	switch (wqe->state) {
	case SROCE_WQE_SENT:
		/* the completer fails the QP once it reaches a failed WQE */
		if (wqe->status != IB_WC_SUCCESS)
			return REQ_STOP;
		/* executed already: reached again after a rewind */
		if (!sroce_wqe_needs_ack(qp, wqe)) {
			req_advance(qp);
			return REQ_CONTINUE;
		}
		break;		/* an RC request resent after a rewind */
	case SROCE_WQE_POSTED:
		/* a draining SQ finishes what it started, nothing more */
		if (qp->state != IB_QPS_RTS)
			return REQ_STOP;
		status = req_check_wqe(qp, wqe);
		if (status) {
			req_take(qp, wqe);
			req_mark_sent(wqe, status, run);
			return REQ_STOP;
		}
		break;
	default:
		break;
	}

	if (req_must_wait(qp, wqe))
		return REQ_STOP;
	if (wqe->state == SROCE_WQE_POSTED)
		req_take(qp, wqe);
	if (sroce_wqe_is_local(wqe))
		return req_do_local(qp, wqe, run);
	if (wqe->state == SROCE_WQE_POSTED)
		req_begin(qp, wqe);
	return req_send_packet(qp, wqe, run);
}

/*
 * Steps until there is nothing to do or the budget is spent, handing the
 * packets over each SROCE_REQ_BATCH of them and at the end.
 */
static void req_run(struct sroce_qp *qp, struct req_run *run)
	__must_hold(&qp->sq_lock)
{
	while (run->steps < SROCE_REQ_BUDGET) {
		run->steps++;
		if (req_step(qp, run) == REQ_STOP) {
			req_flush(qp, run);
			return;
		}
		if (skb_queue_len(&run->batch) == SROCE_REQ_BATCH &&
		    req_flush(qp, run) == REQ_STOP)
			return;
	}
	/* out of budget: more to do, unless the last packets stopped us */
	if (req_flush(qp, run) == REQ_CONTINUE)
		run->more = true;
}

static void req_schedule(struct sroce_qp *qp)
{
	queue_work(system_highpri_wq, &qp->req_work);
}

/**
 * sroce_req_kick() - let the requester look at the send queue
 * @qp: the QP
 *
 * Runs the requester in the caller's context for at most
 * %SROCE_REQ_BUDGET steps and leaves the rest to qp->req_work.  A kick
 * that finds the requester running in another context leaves the look to
 * it (req.again), so none is lost.  With interrupts disabled the whole
 * run goes to the work item.
 *
 * Context: any but hardirq; no lock of @qp held.
 */
void sroce_req_kick(struct sroce_qp *qp)
{
	struct req_run run = {};
	struct sroce_req *req = &qp->req;

	if (in_hardirq() || irqs_disabled()) {
		if (!READ_ONCE(qp->dead))
			req_schedule(qp);
		return;
	}

	spin_lock_bh(&qp->sq_lock);
	/* sroce_comp_stop() takes sq_lock after qp->dead is set */
	if (qp->dead) {
		spin_unlock_bh(&qp->sq_lock);
		return;
	}
	if (req->running) {
		req->again = true;
		spin_unlock_bh(&qp->sq_lock);
		return;
	}
	__skb_queue_head_init(&run.batch);
	req->running = true;
	do {
		req->again = false;
		req_run(qp, &run);
	} while (req->again && !run.more && !qp->dead);
	req->running = false;
	if (run.more || req->copies_grow)
		req_schedule(qp);
	else if (run.nomem && !timer_pending(&req->delay_timer))
		mod_timer(&req->delay_timer, jiffies + SROCE_REQ_NOMEM_DELAY);
	spin_unlock_bh(&qp->sq_lock);

	req_drop_mr(&run);
	/* what that retires may free copies the requester waits for */
	if (run.complete && sroce_comp_run(qp) && !READ_ONCE(qp->dead))
		req_schedule(qp);
}

/**
 * sroce_req_work() - the requester, from qp->req_work
 * @work: qp->req_work
 *
 * Context: process.
 */
void sroce_req_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, req_work);

	if (READ_ONCE(qp->req.copies_grow))
		sroce_sq_grow_copies(qp);
	sroce_req_kick(qp);
}

static void req_delay_expired(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, req.delay_timer);

	if (!READ_ONCE(qp->dead))
		req_schedule(qp);
}

/*
 * The tx queue we stopped at has room again.  No QP lock is taken: the
 * tx layer calls this from its work with BH disabled, and a QP lock is
 * no business of it.
 */
static void req_tx_wake(struct sroce_tx_waiter *w)
{
	struct sroce_qp *qp = container_of(w, struct sroce_qp, req.waiter);

	WRITE_ONCE(qp->req.tx_blocked, false);
	if (!READ_ONCE(qp->dead))
		req_schedule(qp);
}

/**
 * sroce_req_init() - reset the requester
 * @qp: the QP, at create or entering RESET with its SQ empty
 *
 * The first call (the QP is zeroed at allocation) also sets up req_work,
 * the tx waiter and the retry timer.  Later calls leave those alone: the
 * waiter may still sit on a tx wait list, its wake-up is harmless.
 *
 * Context: sq_lock held, or the QP not yet reachable.
 */
void sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (!req->waiter.wake) {
		INIT_WORK(&qp->req_work, sroce_req_work);
		INIT_LIST_HEAD(&req->waiter.entry);
		req->waiter.wake = req_tx_wake;
		timer_setup(&req->delay_timer, req_delay_expired, 0);
	}
	req->wqe_index = qp->sq_cons;
	req->fetch_index = qp->sq_cons;
	req->next_fetched = false;
	req->psn = qp->attr.sq_psn & SROCE_PSN_MASK;
	req->psn_hi = req->psn;
	req->offset = 0;
	req->opcode = -1;
	req->ssn = 1;
	req->rd_atomic = 0;
	req->pkts_since_ackreq = 0;
	req->fence_wait = false;
	req->tx_blocked = false;
	req->copies_wait = false;
	req->copies_grow = false;
	/* a runner with sq_lock dropped sees this when it takes it back */
	req->epoch++;
	req->retransmits = 0;
	/* a new connection starts at full rate; a stale pace timer only kicks */
	sroce_rp_reset(qp);
}

/**
 * sroce_req_set_psn() - the SQ PSN was set by modify_qp
 * @qp: the QP, with no request outstanding
 * @psn: the first PSN of the next request
 *
 * The completer starts from the same PSN with full retry counters.
 *
 * Context: sq_lock held.
 */
void sroce_req_set_psn(struct sroce_qp *qp, u32 psn)
{
	psn &= SROCE_PSN_MASK;
	qp->req.psn = psn;
	qp->req.psn_hi = psn;
	qp->comp.psn = psn;
	qp->comp.ackreq_end = psn;
	qp->comp.retry_cnt = qp->attr.retry_cnt;
	qp->comp.rnr_retry = qp->attr.rnr_retry;
	qp->comp.seq_retried = false;
	qp->comp.probe = false;
	qp->comp.backoff = 0;
}

/*
 * Where a rewind resumes inside @wqe: READs ask again for what has not
 * arrived, SENDs and WRITEs continue at the first unacknowledged packet.
 */
static u32 req_resume_offset(const struct sroce_qp *qp,
			     const struct sroce_swqe *wqe)
{
	s32 acked = sroce_psn_diff(qp->comp.psn, wqe->first_psn);
	u64 off;

	if (acked <= 0)
		return 0;
	off = (u64)acked * sroce_qp_mtu(qp);
	return min_t(u64, off, wqe->length);
}

/*
 * Nothing of @wqe is sent again: a local operation already executed, or a
 * request acknowledged in full that the completer is about to complete.
 */
static bool req_wqe_settled(const struct sroce_qp *qp,
			    const struct sroce_swqe *wqe)
{
	switch (wqe->state) {
	case SROCE_WQE_SENT:
		if (wqe->status != IB_WC_SUCCESS)
			return false;	/* the requester stops at it */
		if (!sroce_wqe_needs_ack(qp, wqe))
			return true;
		fallthrough;
	case SROCE_WQE_SENDING:
		return sroce_psn_before(wqe->last_psn, qp->comp.psn);
	default:
		return false;
	}
}

/**
 * sroce_req_rewind() - resend from the oldest unacknowledged PSN
 * @qp: an RC QP
 *
 * Moves the requester back (or, after a late ACK, forward) to comp.psn:
 * to the oldest WQE not fully acknowledged, at the byte offset of comp.psn
 * in it.  Local operations already executed are not run again; a WQE that
 * failed stays where the requester stops.  READ/ATOMIC slots are counted
 * again for what will be resent.
 *
 * Context: sq_lock held (the completer).
 */
void sroce_req_rewind(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	bool found = false;
	u32 idx, held = 0;

	if (!sroce_qp_is_rc(qp))
		return;

	req->wqe_index = req->fetch_index;
	req->offset = 0;
	for (idx = qp->sq_cons; idx != req->fetch_index;
	     idx = req_next_index(qp, idx)) {
		struct sroce_swqe *wqe = sroce_sq_wqe(qp, idx);

		if (!found && req_wqe_settled(qp, wqe)) {
			held += wqe->rd_atomic;
			continue;
		}
		if (!found) {
			found = true;
			req->wqe_index = idx;
			if (wqe->state != SROCE_WQE_POSTED)
				req->offset = req_resume_offset(qp, wqe);
		}
		/* resent WQEs take their slot again when they go out */
		wqe->rd_atomic = false;
	}
	req->psn = qp->comp.psn;
	req->rd_atomic = held;
	req->opcode = -1;
	req->pkts_since_ackreq = 0;
	req->fence_wait = false;
}
