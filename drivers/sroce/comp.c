// SPDX-License-Identifier: GPL-2.0
/*
 * The completer: matches ACKs, READ responses and atomic ACKs against the
 * requests the requester sent, runs the local ACK timeout and the RNR
 * back-off, and completes send WQEs, always in SQ order.
 *
 * comp.psn is the oldest PSN not yet acknowledged.  An ACK acknowledges
 * every PSN up to its own (IBTA); a READ response or an atomic
 * ACK implicitly acknowledges everything before its request; a NAK
 * everything before the NAKed PSN.  A READ or ATOMIC is only done when its
 * data is back, so an acknowledgment that passes one without it means
 * responses were lost and the requester is rewound to ask again.
 *
 * Everything here comes from the wire: a PSN is only used once it lies
 * between comp.psn and the highest PSN sent, every walk is bounded by the
 * WQEs the requester has fetched, and a packet that matches nothing is
 * dropped and counted.
 */
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include <sroce/cq.h>
#include <sroce/device.h>
#include <sroce/frame.h>
#include <sroce/hdr.h>
#include <sroce/mr.h>
#include <sroce/pktbuf.h>
#include <sroce/psn.h>
#include <sroce/stats.h>
#include <sroce/trace.h>
#include <sroce/transport.h>
#include <sroce/tx.h>

/* Send completions collected under sq_lock before it is dropped to post */
#define SROCE_COMP_BATCH	8

/* rnr_retry 7 means retry for ever; retry_cnt 7 is seven retries (IBTA) */
#define SROCE_RNR_RETRY_INFINITE	7

/*
 * The IBTA lets a local ACK timeout of T expire anywhere between T and 4T:
 * consecutive timeouts without progress double it, up to 4T.
 */
#define SROCE_COMP_MAX_BACKOFF		2

/* What handling a packet or a timer leaves for after sq_lock */
struct comp_ctx {
	bool progress;		/* comp.psn moved forward */
	bool kick;		/* the requester has something to do */
	bool fatal;		/* the QP must go to error */
	bool error_raised;	/* sroce_qp_error() was called already */
};

struct comp_batch {
	struct ib_wc wc[SROCE_COMP_BATCH];
	unsigned int n;
	unsigned int retired;
	bool failed;		/* the last WQE retired completed in error */
};

static u32 comp_next_index(const struct sroce_qp *qp, u32 index)
{
	return (index + 1) & qp->sq_mask;
}

static bool comp_active(const struct sroce_qp *qp)
{
	return !qp->dead &&
	       (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD);
}

/* Every PSN sent has been acknowledged */
static bool comp_idle(const struct sroce_qp *qp)
{
	return qp->comp.psn == qp->req.psn_hi;
}

/*
 * Is a request that asked for an answer (AckReq) unanswered?  The IBTA's
 * transport timer times such answers.  Packets sent without AckReq are
 * answered along with the next that asks, and every burst ends with one
 * (a message's last packet, the window's, one in SROCE_ACKREQ_INTERVAL):
 * while the reaction point paces the rest of a message out slowly, no
 * answer is late yet, however long since the last ACK.
 */
static bool comp_ackreq_out(const struct sroce_qp *qp)
{
	return sroce_psn_after(qp->comp.ackreq_end, qp->comp.psn);
}

/*
 * Is @psn sent and not yet acknowledged?  Older PSNs are duplicates and
 * are ignored quietly; newer ones were never sent: counted as bogus.
 */
static bool comp_psn_valid(struct sroce_qp *qp, u32 psn)
{
	if (sroce_psn_diff(psn, qp->comp.psn) >= 0 &&
	    sroce_psn_before(psn, qp->req.psn_hi))
		return true;
	if (!sroce_psn_before(psn, qp->comp.psn))
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
	return false;
}

static bool comp_wqe_is_atomic(const struct sroce_swqe *wqe)
{
	return sroce_wqe_is_rd_atomic(wqe) && wqe->opcode != IB_WR_RDMA_READ;
}

/* The RC request whose PSN range holds @psn, or NULL */
static struct sroce_swqe *comp_find(struct sroce_qp *qp, u32 psn)
{
	u32 idx;

	for (idx = qp->sq_cons; idx != qp->req.fetch_index;
	     idx = comp_next_index(qp, idx)) {
		struct sroce_swqe *wqe = sroce_sq_wqe(qp, idx);

		if (wqe->state == SROCE_WQE_POSTED)
			break;
		if (!sroce_wqe_needs_ack(qp, wqe))
			continue;
		if (sroce_psn_in_range(psn, wqe->first_psn, wqe->last_psn))
			return wqe;
		if (sroce_psn_before(psn, wqe->first_psn))
			break;
	}
	return NULL;
}

/* ---- timers ------------------------------------------------------------- */

/*
 * Local ACK timeout: 4.096 us * 2^timeout, 0 for none (IBTA), times the
 * back-off after timeouts without progress.
 */
static unsigned long comp_timeout_jiffies(const struct sroce_qp *qp)
{
	u8 timeout = min_t(u8, qp->attr.timeout, 31);

	if (!timeout)
		return 0;
	return max(nsecs_to_jiffies((4096ULL << timeout) << qp->comp.backoff),
		   1UL);
}

static void comp_arm_timer(struct sroce_qp *qp)
{
	unsigned long t = comp_timeout_jiffies(qp);

	if (t)
		mod_timer(&qp->comp.retrans_timer, jiffies + t);
}

/* ---- acknowledging ------------------------------------------------------ */

/* comp.psn moves forward to @psn: a new stretch for the retry counters */
static void comp_advance(struct sroce_qp *qp, u32 psn, struct comp_ctx *ctx)
{
	struct sroce_comp *comp = &qp->comp;

	if (!sroce_psn_after(psn, comp->psn))
		return;
	comp->psn = psn;
	comp->retry_cnt = qp->attr.retry_cnt;
	comp->rnr_retry = qp->attr.rnr_retry;
	comp->seq_retried = false;
	comp->probe = false;
	comp->backoff = 0;
	ctx->progress = true;
}

/*
 * Acknowledge every request PSN before @end (@end is at most req.psn_hi).
 * SENDs and WRITEs are done once acknowledged.  Returns false when a READ
 * or ATOMIC without its response lies in the way: comp.psn stays there.
 */
static bool comp_ack_upto(struct sroce_qp *qp, u32 end, struct comp_ctx *ctx)
{
	u32 idx;

	for (idx = qp->sq_cons;
	     idx != qp->req.fetch_index && sroce_psn_before(qp->comp.psn, end);
	     idx = comp_next_index(qp, idx)) {
		struct sroce_swqe *wqe = sroce_sq_wqe(qp, idx);

		/* nothing after a failed or unstarted WQE was sent */
		if (wqe->state == SROCE_WQE_POSTED ||
		    wqe->status != IB_WC_SUCCESS)
			break;
		if (!sroce_wqe_needs_ack(qp, wqe) ||
		    sroce_psn_before(wqe->last_psn, qp->comp.psn))
			continue;
		if (sroce_wqe_is_rd_atomic(wqe))
			return false;
		comp_advance(qp, sroce_psn_before(wqe->last_psn, end) ?
				 sroce_psn_add(wqe->last_psn, 1) : end, ctx);
	}
	return true;
}

/*
 * The request holding @psn completes with @status and the QP goes to
 * error.  Earlier WQEs still complete normally, in order, first.
 */
static void comp_fail_at(struct sroce_qp *qp, u32 psn,
			 enum ib_wc_status status, struct comp_ctx *ctx)
{
	struct sroce_swqe *wqe = comp_find(qp, psn);

	if (wqe) {
		/* the first error found is the one reported */
		if (wqe->status == IB_WC_SUCCESS)
			wqe->status = status;
		wqe->state = SROCE_WQE_SENT;
		/* stop the requester at it */
		sroce_req_rewind(qp);
	}
	timer_delete(&qp->comp.retrans_timer);
	ctx->fatal = true;
}

/* Send again from comp.psn, if the retry count allows */
static void comp_resend(struct sroce_qp *qp, enum sroce_resend_cause cause,
			struct comp_ctx *ctx)
{
	struct sroce_comp *comp = &qp->comp;

	if (!comp->retry_cnt) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RETRY_EXCEEDED);
		comp_fail_at(qp, comp->psn, IB_WC_RETRY_EXC_ERR, ctx);
		return;
	}
	comp->retry_cnt--;
	trace_sroce_qp_resend(qp, comp->psn, cause, comp->retry_cnt);
	comp->seq_retried = true;
	comp->seq_retry_psn = comp->psn;
	sroce_req_rewind(qp);
	comp_arm_timer(qp);
	ctx->kick = true;
}

/*
 * A local ACK timeout: resend from comp.psn, but only its packet, asking
 * for an ACK, and wait longer for it (up to the 4T the IBTA allows).
 *
 * A timeout does not tell a lost packet from a slow peer.  Resending the
 * whole window at each one, as plain go-back-N does, is what a slow peer
 * cannot survive: it must work through every duplicate, in order, before
 * it reaches a new packet whose ACK would show progress, and every
 * further timeout queues another window of duplicates ahead of that one.
 * On an emulated guest with KASAN, a 1 MiB WRITE ran out of retries that
 * way with no packet lost.  The probe costs the peer one packet; its ACK,
 * or any progress, ends probing and the rest of the window goes out again
 * (a sequence NAK, which proves the peer waits at a PSN, resends the
 * whole window at once, as before).
 */
static void comp_timeout_resend(struct sroce_qp *qp, struct comp_ctx *ctx)
{
	struct sroce_comp *comp = &qp->comp;

	if (comp->backoff < SROCE_COMP_MAX_BACKOFF)
		comp->backoff++;
	comp->probe = true;
	comp_resend(qp, SROCE_RESEND_TIMEOUT, ctx);
}

/*
 * A sequence error (NAK) or a gap in the responses: resend, but only once
 * per gap.  The responder NAKs a gap once, yet stale NAKs and responses
 * queued behind the lost one keep arriving until the resend is through.
 */
static void comp_seq_err(struct sroce_qp *qp, enum sroce_resend_cause cause,
			 struct comp_ctx *ctx)
{
	if (qp->comp.seq_retried && qp->comp.seq_retry_psn == qp->comp.psn)
		return;
	qp->comp.probe = false;
	comp_resend(qp, cause, ctx);
}

/* ---- ACKNOWLEDGE -------------------------------------------------------- */

static void comp_ack(struct sroce_qp *qp, u32 psn, struct comp_ctx *ctx)
{
	/* a READ or ATOMIC passed without its response: they were lost */
	if (!comp_ack_upto(qp, sroce_psn_add(psn, 1), ctx))
		comp_seq_err(qp, SROCE_RESEND_LOST_RESPONSE, ctx);
}

/*
 * RNR NAK: the responder had no receive WQE for @psn.  Wait the time it
 * asks for, then resend from there.
 */
static void comp_rnr(struct sroce_qp *qp, u32 psn, u8 timer_code,
		     struct comp_ctx *ctx)
{
	struct sroce_comp *comp = &qp->comp;
	unsigned long wait;

	sroce_stats_inc(qp->sdev, SROCE_CNT_RNR_NAK_RCVD);
	comp_ack_upto(qp, psn, ctx);
	/* later packets of the same burst are NAKed too: one back-off */
	if (comp->rnr_wait)
		return;
	if (!comp->rnr_retry) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RNR_RETRY_EXCEEDED);
		comp_fail_at(qp, psn, IB_WC_RNR_RETRY_EXC_ERR, ctx);
		return;
	}
	if (comp->rnr_retry != SROCE_RNR_RETRY_INFINITE)
		comp->rnr_retry--;

	comp->rnr_wait = true;
	timer_delete(&comp->retrans_timer);
	wait = max(nsecs_to_jiffies(sroce_rnr_timer_ns(timer_code)), 1UL);
	mod_timer(&comp->rnr_timer, jiffies + wait);
}

static void comp_nak(struct sroce_qp *qp, u32 psn, u8 code,
		     struct comp_ctx *ctx)
{
	enum ib_wc_status status;

	switch (code) {
	case SROCE_NAK_PSN_SEQ_ERR:
		sroce_stats_inc(qp->sdev, SROCE_CNT_SEQ_NAK_RCVD);
		/* the NAK carries the responder's expected PSN */
		comp_ack_upto(qp, psn, ctx);
		comp_seq_err(qp, SROCE_RESEND_SEQ_NAK, ctx);
		return;
	case SROCE_NAK_INVALID_REQ:
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	case SROCE_NAK_REM_ACCESS:
		status = IB_WC_REM_ACCESS_ERR;
		break;
	case SROCE_NAK_REM_OP_ERR:
		status = IB_WC_REM_OP_ERR;
		break;
	case SROCE_NAK_INVALID_RD_REQ:
		status = IB_WC_REM_INV_RD_REQ_ERR;
		break;
	default:
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
		return;
	}
	sroce_stats_inc(qp->sdev, SROCE_CNT_ERR_NAK_RCVD);
	/*
	 * What came before was executed.  Should a READ before @psn lack
	 * its data, the flush reports both (ctx->fatal).
	 */
	comp_ack_upto(qp, psn, ctx);
	comp_fail_at(qp, psn, status, ctx);
}

static void comp_acknowledge(struct sroce_qp *qp, const void *nh,
			     const struct sroce_pkt *pkt, struct comp_ctx *ctx)
{
	const void *aeth = sroce_pkt_hdr(nh, pkt, SROCE_HDR_AETH);
	u8 syn;

	if (!aeth) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
		return;
	}
	if (!comp_psn_valid(qp, pkt->psn))
		return;

	syn = sroce_aeth_syn(aeth);
	if (sroce_aeth_syn_type(syn) != SROCE_AETH_ACK)
		trace_sroce_nak_recv(qp, pkt->psn, syn);
	switch (sroce_aeth_syn_type(syn)) {
	case SROCE_AETH_ACK:
		comp_ack(qp, pkt->psn, ctx);
		break;
	case SROCE_AETH_RNR_NAK:
		comp_rnr(qp, pkt->psn, sroce_aeth_syn_value(syn), ctx);
		break;
	case SROCE_AETH_NAK:
		comp_nak(qp, pkt->psn, sroce_aeth_syn_value(syn), ctx);
		break;
	default:
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
		break;
	}
}

/* ---- READ responses and atomic ACKs ------------------------------------- */

/*
 * Check a READ response at comp.psn against the READ it answers and place
 * its payload.  The first packet of a READ resumed after a rewind is a
 * FIRST/ONLY even mid-message, so only the end of the message is checked
 * against the opcode, and the length against the PSN.
 */
static int comp_read_place(struct sroce_qp *qp, struct sroce_swqe *wqe,
			   const void *nh, const struct sroce_pkt *pkt)
{
	u32 mtu = sroce_qp_mtu(qp);
	u64 off = (u64)sroce_psn_diff(pkt->psn, wqe->first_psn) * mtu;
	bool last = pkt->psn == wqe->last_psn;
	struct sroce_mr *mr = NULL;
	struct sroce_bytes b;
	u32 want;
	int status;

	if (last != sroce_opcode_has(pkt->info, SROCE_OPF_END) ||
	    off > wqe->length)
		return IB_WC_BAD_RESP_ERR;
	want = last ? wqe->length - off : mtu;
	if (pkt->payload_len != want)
		return IB_WC_BAD_RESP_ERR;

	b = sroce_pkt_payload_bytes(nh, pkt);
	status = sroce_wqe_copy(qp, wqe, off, &b, want, true, &mr);
	if (mr)
		sroce_mr_put(mr);
	return status;
}

static void comp_read_response(struct sroce_qp *qp, const void *nh,
			       const struct sroce_pkt *pkt,
			       struct comp_ctx *ctx)
{
	struct sroce_swqe *wqe;
	int status;

	if (!comp_psn_valid(qp, pkt->psn))
		return;
	wqe = comp_find(qp, pkt->psn);
	if (!wqe || wqe->opcode != IB_WR_RDMA_READ) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
		return;
	}
	/* the READ's first response acknowledges everything before it */
	if (!comp_ack_upto(qp, wqe->first_psn, ctx) ||
	    pkt->psn != qp->comp.psn) {
		/* an earlier response was lost: ask again from comp.psn */
		comp_seq_err(qp, SROCE_RESEND_LOST_RESPONSE, ctx);
		return;
	}
	status = comp_read_place(qp, wqe, nh, pkt);
	if (status) {
		comp_fail_at(qp, pkt->psn, status, ctx);
		return;
	}
	comp_advance(qp, sroce_psn_add(pkt->psn, 1), ctx);
}

static void comp_atomic_ack(struct sroce_qp *qp, const void *nh,
			    const struct sroce_pkt *pkt, struct comp_ctx *ctx)
{
	const void *atmack = sroce_pkt_hdr(nh, pkt, SROCE_HDR_ATMACK);
	struct sroce_mr *mr = NULL;
	struct sroce_swqe *wqe;
	struct sroce_bytes b;
	u64 orig;
	int status;

	if (!atmack) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
		return;
	}
	if (!comp_psn_valid(qp, pkt->psn))
		return;
	wqe = comp_find(qp, pkt->psn);
	if (!wqe || !comp_wqe_is_atomic(wqe)) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
		return;
	}
	if (!comp_ack_upto(qp, pkt->psn, ctx) || pkt->psn != qp->comp.psn) {
		comp_seq_err(qp, SROCE_RESEND_LOST_RESPONSE, ctx);
		return;
	}

	/* the original remote value, in host order like any local u64 */
	orig = sroce_atmack_orig(atmack);
	b = sroce_bytes_buf(&orig);
	status = sroce_wqe_copy(qp, wqe, 0, &b, sizeof(orig), true, &mr);
	if (mr)
		sroce_mr_put(mr);
	if (status) {
		comp_fail_at(qp, pkt->psn, status, ctx);
		return;
	}
	comp_advance(qp, sroce_psn_add(pkt->psn, 1), ctx);
}

static void comp_dispatch(struct sroce_qp *qp, const void *nh,
			  const struct sroce_pkt *pkt, struct comp_ctx *ctx)
{
	const struct sroce_opcode_info *info = pkt->info;

	if (sroce_opcode_has(info, SROCE_OPF_ACK))
		comp_acknowledge(qp, nh, pkt, ctx);
	else if (sroce_opcode_has(info, SROCE_OPF_READ) &&
		 sroce_opcode_has(info, SROCE_OPF_RESP))
		comp_read_response(qp, nh, pkt, ctx);
	else if (sroce_opcode_has(info, SROCE_OPF_ATMACK))
		comp_atomic_ack(qp, nh, pkt, ctx);
	else
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
}

/*
 * After progress: the ACK timer runs again for what is still outstanding
 * (or stops), and a requester resending PSNs a late ACK just covered
 * skips ahead.
 */
static void comp_settle(struct sroce_qp *qp, struct comp_ctx *ctx)
{
	if (!ctx->progress)
		return;
	if (sroce_psn_after(qp->comp.psn, qp->req.psn))
		sroce_req_rewind(qp);
	if (comp_idle(qp) || !comp_ackreq_out(qp))
		timer_delete(&qp->comp.retrans_timer);
	else if (!qp->comp.rnr_wait && !ctx->fatal)
		comp_arm_timer(qp);
	ctx->kick = true;
}

/* ---- completions -------------------------------------------------------- */

/* May the oldest WQE complete now? */
static bool comp_wqe_done(const struct sroce_qp *qp,
			  const struct sroce_swqe *wqe)
{
	switch (wqe->state) {
	case SROCE_WQE_SENT:
		if (wqe->status != IB_WC_SUCCESS ||
		    !sroce_wqe_needs_ack(qp, wqe))
			return true;
		fallthrough;
	case SROCE_WQE_SENDING:
		/* READ/ATOMIC PSNs are only acknowledged with their data */
		return sroce_wqe_needs_ack(qp, wqe) &&
		       sroce_psn_before(wqe->last_psn, qp->comp.psn);
	default:
		return false;
	}
}

/* Retire the WQEs that are done, oldest first, collecting their CQEs */
static void comp_collect(struct sroce_qp *qp, struct comp_batch *b)
{
	unsigned int i;

	for (i = 0; i < SROCE_COMP_BATCH && !b->failed; i++) {
		u32 idx = qp->sq_cons;
		struct sroce_swqe *wqe = sroce_sq_wqe(qp, idx);
		enum ib_wc_status status;

		/* a flush completes what is left, in order, itself */
		if (!comp_active(qp) || qp->sq_flushing ||
		    idx == qp->req.fetch_index || !comp_wqe_done(qp, wqe))
			break;
		status = wqe->status;
		if (sroce_sq_wc(qp, wqe, status, &b->wc[b->n]))
			b->n++;
		if (wqe->rd_atomic) {
			wqe->rd_atomic = false;
			if (qp->req.rd_atomic)
				qp->req.rd_atomic--;
		}
		wqe->state = SROCE_WQE_DONE;
		sroce_sq_retire(qp);
		b->retired++;
		b->failed = status != IB_WC_SUCCESS;
		if (qp->sq_cons == idx)
			break;
	}
}

/*
 * Post what is complete.  Entered with sq_lock held, returns with it
 * released.  CQEs are posted without the lock (the consumer's handler may
 * post to this QP); one context at a time does it, and the others leave
 * their WQEs to it, so that CQEs keep the SQ order.  A WQE that completed
 * in error moves the QP to error once its CQE is out.
 */
static void comp_deliver_locked(struct sroce_qp *qp, struct comp_ctx *ctx)
	__releases(&qp->sq_lock)
{
	struct comp_batch b;
	unsigned int i;

	if (qp->comp.delivering) {
		spin_unlock_bh(&qp->sq_lock);
		return;
	}
	qp->comp.delivering = true;
	for (;;) {
		b.n = 0;
		b.retired = 0;
		b.failed = false;
		comp_collect(qp, &b);
		if (!b.retired)
			break;
		if (sroce_req_copies_freed(qp))
			ctx->kick = true;
		if (!b.n && !b.failed)
			continue;

		spin_unlock_bh(&qp->sq_lock);
		for (i = 0; i < b.n; i++)
			sroce_cq_post(qp->scq, &b.wc[i], false);
		if (b.failed) {
			/* the CQE reports the error: no async event */
			sroce_qp_error(qp, false);
			ctx->error_raised = true;
		}
		spin_lock_bh(&qp->sq_lock);
	}
	qp->comp.delivering = false;
	spin_unlock_bh(&qp->sq_lock);
}

/* After sq_lock: error the QP, restart the requester */
static void comp_finish(struct sroce_qp *qp, const struct comp_ctx *ctx)
{
	if (ctx->fatal) {
		/* no CQE carried the error (a WQE before it is stuck) */
		if (!ctx->error_raised)
			sroce_qp_error(qp, true);
		return;
	}
	if (ctx->kick)
		sroce_req_kick(qp);
}

/**
 * sroce_comp_run() - complete the send WQEs that are done
 * @qp: the QP
 *
 * For the requester, after it marked WQEs that need no ACK as sent (UC,
 * UD, local operations, local errors).  It does not kick the requester.
 *
 * Context: softirq or process; no lock of @qp held.
 *
 * Return: true if the requester waited for WQE copies and a WQE retired:
 * the caller (the requester) has more to do.
 */
bool sroce_comp_run(struct sroce_qp *qp)
{
	struct comp_ctx ctx = {};

	spin_lock_bh(&qp->sq_lock);
	comp_deliver_locked(qp, &ctx);
	return ctx.kick;
}

/**
 * sroce_comp_rcv() - a response for the requester of @qp
 * @qp: the QP the packet is addressed to (referenced by the caller)
 * @nh: the packet's network header, with the headers up to the payload
 *	(the payload is reached through @pkt->skb)
 * @pkt: the parsed packet, a response (ACKNOWLEDGE, READ RESPONSE or
 *	ATOMIC ACKNOWLEDGE)
 *
 * Context: softirq; no lock of @qp held.  The packet is the caller's.
 */
void sroce_comp_rcv(struct sroce_qp *qp, const void *nh,
		    const struct sroce_pkt *pkt)
{
	struct comp_ctx ctx = {};

	/* only RC requests are answered */
	if (!sroce_qp_is_rc(qp)) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_RESP);
		return;
	}

	spin_lock_bh(&qp->sq_lock);
	if (!comp_active(qp)) {
		spin_unlock_bh(&qp->sq_lock);
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_QP_STATE);
		return;
	}
	comp_dispatch(qp, nh, pkt, &ctx);
	comp_settle(qp, &ctx);
	comp_deliver_locked(qp, &ctx);
	comp_finish(qp, &ctx);
}

/**
 * sroce_comp_arm() - a request with AckReq was handed to the tx layer
 * @qp: the QP
 * @end: the PSN after it
 * @mark: where it stands in its transmit FIFO (struct sroce_tx_waiter)
 * @mark_queue: that FIFO
 *
 * Starts the local ACK timer unless it runs already: it measures from the
 * oldest unanswered request, so later packets do not push it back.  Its
 * ACK may have been taken already (the requester hands packets over with
 * sq_lock dropped): the timer then finds nothing outstanding and stops.
 *
 * Context: sq_lock held (the requester).
 */
void sroce_comp_arm(struct sroce_qp *qp, u32 end, u64 mark, u16 mark_queue)
{
	unsigned long t = comp_timeout_jiffies(qp);

	if (sroce_psn_after(end, qp->comp.ackreq_end))
		qp->comp.ackreq_end = end;
	qp->comp.ackreq_mark = mark;
	qp->comp.ackreq_queue = mark_queue;
	if (t && !timer_pending(&qp->comp.retrans_timer))
		mod_timer(&qp->comp.retrans_timer, jiffies + t);
}

static void comp_retrans_expired(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, comp.retrans_timer);
	struct comp_ctx ctx = {};

	spin_lock_bh(&qp->sq_lock);
	/* pending again: re-armed by progress while we waited for the lock */
	if (!comp_active(qp) || qp->comp.rnr_wait || comp_idle(qp) ||
	    !comp_ackreq_out(qp) || timer_pending(t)) {
		spin_unlock_bh(&qp->sq_lock);
		return;
	}
	/*
	 * The IBTA's transport timer measures from the transmission of a
	 * request: while the last one that asked for an ACK waits in our own
	 * queue (a PFC pause, a shaper), no answer can be late yet.
	 */
	if (sroce_tx_still_queued(qp->sdev, qp->comp.ackreq_queue,
				  qp->comp.ackreq_mark)) {
		comp_arm_timer(qp);
		spin_unlock_bh(&qp->sq_lock);
		return;
	}
	sroce_stats_inc(qp->sdev, SROCE_CNT_ACK_TIMEOUTS);
	qp->comp.ack_timeouts++;
	comp_timeout_resend(qp, &ctx);
	comp_deliver_locked(qp, &ctx);
	comp_finish(qp, &ctx);
}

static void comp_rnr_expired(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, comp.rnr_timer);

	spin_lock_bh(&qp->sq_lock);
	if (!comp_active(qp) || !qp->comp.rnr_wait) {
		spin_unlock_bh(&qp->sq_lock);
		return;
	}
	qp->comp.rnr_wait = false;
	trace_sroce_qp_resend(qp, qp->comp.psn, SROCE_RESEND_RNR,
			      qp->comp.rnr_retry);
	sroce_req_rewind(qp);
	comp_arm_timer(qp);
	spin_unlock_bh(&qp->sq_lock);
	sroce_req_kick(qp);
}

/**
 * sroce_comp_init() - reset the completer
 * @qp: the QP, at create or entering RESET
 *
 * The first call (the QP is zeroed at allocation) sets up the timers;
 * later ones only stop them (their handlers check the QP state anyway).
 *
 * Context: sq_lock held, or the QP not yet reachable.
 */
void sroce_comp_init(struct sroce_qp *qp)
{
	struct sroce_comp *comp = &qp->comp;

	if (!comp->retrans_timer.function) {
		timer_setup(&comp->retrans_timer, comp_retrans_expired, 0);
		timer_setup(&comp->rnr_timer, comp_rnr_expired, 0);
	} else {
		timer_delete(&comp->retrans_timer);
		timer_delete(&comp->rnr_timer);
	}
	comp->psn = qp->attr.sq_psn & SROCE_PSN_MASK;
	comp->ackreq_end = comp->psn;
	comp->retry_cnt = qp->attr.retry_cnt;
	comp->rnr_retry = qp->attr.rnr_retry;
	comp->rnr_wait = false;
	comp->seq_retried = false;
	comp->probe = false;
	comp->backoff = 0;
	comp->ack_timeouts = 0;
}

/**
 * sroce_comp_stop() - stop the transport of a QP for good
 * @qp: the QP being destroyed, qp->dead already set
 *
 * After it returns no timer, tx wake-up or work item of @qp runs or will
 * run: runs of the requester that started before qp->dead was set are
 * waited for (req.running), later ones see it.  Each part is only
 * stopped if sroce_req_init()/sroce_comp_init() set it up.
 *
 * Context: process, may sleep; no lock of @qp held.
 */
void sroce_comp_stop(struct sroce_qp *qp)
{
	bool comp_set = qp->comp.retrans_timer.function;
	bool req_set = qp->req.waiter.wake;

	if (!comp_set && !req_set)
		return;
	/*
	 * Runs that began before qp->dead was set are over after this.  A
	 * runner keeps BH disabled while it has sq_lock dropped (req.c), so
	 * it runs on another CPU and soon takes sq_lock back and stops.
	 */
	spin_lock_bh(&qp->sq_lock);
	while (qp->req.running) {
		spin_unlock_bh(&qp->sq_lock);
		cpu_relax();
		spin_lock_bh(&qp->sq_lock);
	}
	spin_unlock_bh(&qp->sq_lock);
	/* no sender arms the pace timer now: it must not queue req_work, nor
	 * resp.tx_work, which sroce_resp_cleanup() cancels after this
	 */
	sroce_rp_stop(qp);

	if (comp_set) {
		timer_shutdown_sync(&qp->comp.retrans_timer);
		timer_shutdown_sync(&qp->comp.rnr_timer);
	}
	if (req_set) {
		timer_shutdown_sync(&qp->req.delay_timer);
		sroce_tx_cancel_wait(qp->sdev, &qp->req.waiter);
		cancel_work_sync(&qp->req_work);
	}
}
