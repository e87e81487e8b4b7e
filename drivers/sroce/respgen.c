// SPDX-License-Identifier: GPL-2.0
/*
 * The responder's packets to the requester: ACKs and NAKs, READ responses
 * and ATOMIC acknowledgments, and the responder resources they come from.
 *
 * Responses leave in PSN order.  READ responses and ATOMIC acknowledgments
 * are responder resources queued on resp.tx_list; a generator sends them,
 * inline for a short burst and otherwise from resp.tx_work, which stops
 * when the transmit queue pushes back and resumes when resp.waiter is
 * woken.  While anything is queued, an ACK or NAK waits behind it (only
 * the latest: they are cumulative).  NAKs that end the connection go at
 * once, since nothing queued before them will be sent any more.  resp.c
 * decides what is answered; everything here runs under resp.lock but for
 * the work and the ring's allocation.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <sroce/device.h>
#include <sroce/mr.h>
#include <sroce/rp.h>
#include <sroce/stats.h>
#include <sroce/trace.h>
#include <sroce/transport.h>
#include <sroce/tx.h>
#include <sroce/wire.h>

/* READ response packets sent from softirq before the work takes over */
#define RESP_INLINE_BURST	16
/* Packets per hold of resp.lock in the work, and holds per work run */
#define RESP_WORK_BURST		16
#define RESP_WORK_ROUNDS	32

/* What the response generator left behind */
enum resp_tx_state {
	RESP_TX_IDLE,		/* nothing queued any more */
	RESP_TX_MORE,		/* budget spent: continue from the work */
	RESP_TX_BLOCKED,	/* transmit queue full: resp.waiter is armed;
				 * or the QP's rate holds it: the pace timer
				 */
	RESP_TX_FAILED,		/* fatal: NAK sent, the QP must go to error */
};

/* --- Packets to the requester ------------------------------------------- */

/*
 * A packet of @opcode at @psn with room for @payload bytes, BTH filled and
 * pad zeroed; *@bth points at its transport part.  NULL without memory.
 */
static struct sk_buff *resp_pkt_alloc(struct sroce_qp *qp, u8 opcode, u32 psn,
				      u32 payload, u8 **bth)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	u8 pad = sroce_padcnt(payload);
	struct sk_buff *skb;
	void *tp;

	skb = sroce_tx_alloc(qp->sdev, &qp->av, qp->sport,
			     info->hdr_len + payload + pad, &tp);
	if (!skb)
		return NULL;
	sroce_bth_init(tp, opcode, SROCE_DEFAULT_PKEY, qp->attr.dest_qp_num,
		       psn);
	sroce_bth_set_padcnt(tp, pad);
	memset((u8 *)tp + info->hdr_len + payload, 0, pad);
	*bth = tp;
	return skb;
}

static void *resp_ext_hdr(u8 *bth, u8 opcode, enum sroce_ext_hdr h)
{
	return bth + sroce_opcode_hdr_off(sroce_opcode_info(opcode), h);
}

/**
 * sroce_resp_send_ack() - send an ACKNOWLEDGE now
 * @qp: the QP
 * @syn: AETH syndrome: ACK, RNR NAK or NAK
 * @psn: the PSN it answers
 * @msn: MSN to report
 *
 * Out of memory or a device going down loses it: the requester's timer
 * recovers, as from any lost packet.
 */
void sroce_resp_send_ack(struct sroce_qp *qp, u8 syn, u32 psn, u32 msn)
{
	struct sk_buff *skb;
	u8 *bth;

	skb = resp_pkt_alloc(qp, SROCE_OP_RC_ACK, psn, 0, &bth);
	if (!skb)
		return;
	sroce_aeth_put(resp_ext_hdr(bth, SROCE_OP_RC_ACK, SROCE_HDR_AETH),
		       syn, msn);
	/* an ACK is never held back: above the watermark it is still sent */
	sroce_tx_send(qp->sdev, skb, qp->tx_flow, NULL);
}

/* An ATOMIC ACKNOWLEDGE carrying the value @res found, or NULL */
static struct sk_buff *resp_build_atomic_ack(struct sroce_qp *qp,
					     const struct sroce_rd_res *res)
{
	const u8 op = SROCE_OP_RC_ATOMIC_ACK;
	struct sk_buff *skb;
	u8 *bth;

	skb = resp_pkt_alloc(qp, op, res->first_psn, 0, &bth);
	if (!skb)
		return NULL;
	sroce_aeth_put(resp_ext_hdr(bth, op, SROCE_HDR_AETH), sroce_resp_syn_ack(),
		       res->msn);
	sroce_atmack_set_orig(resp_ext_hdr(bth, op, SROCE_HDR_ATMACK),
			      res->orig);
	return skb;
}

static u8 resp_read_opcode(bool mid, bool last)
{
	if (!mid)
		return last ? SROCE_OP_RC_READ_RESP_ONLY :
			      SROCE_OP_RC_READ_RESP_FIRST;
	return last ? SROCE_OP_RC_READ_RESP_LAST : SROCE_OP_RC_READ_RESP_MIDDLE;
}

/**
 * resp_build_read_response() - the next response packet of a READ
 * @qp: the QP
 * @res: the READ, at its next response
 * @mr: the referenced MR covering the bytes (NULL when @len is 0)
 * @len: payload bytes
 * @last: the last response of the sequence
 *
 * Return: the packet, ERR_PTR(-ENOMEM), or ERR_PTR(-EFAULT) when the
 * bytes cannot be read from @mr any more.
 */
static struct sk_buff *resp_build_read_response(struct sroce_qp *qp,
						const struct sroce_rd_res *res,
						struct sroce_mr *mr, u32 len,
						bool last)
{
	u8 opcode = resp_read_opcode(res->mid, last);
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	struct sk_buff *skb;
	u8 *bth;

	skb = resp_pkt_alloc(qp, opcode, res->cur_psn, len, &bth);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	/* MIDDLE has no AETH; the others carry ACK and the READ's MSN */
	if (info->flags & SROCE_OPF_AETH)
		sroce_aeth_put(bth + info->off[SROCE_HDR_AETH], sroce_resp_syn_ack(),
			       res->msn);
	if (len && sroce_mr_copy(mr, res->cur_va, bth + info->hdr_len, len,
				 SROCE_COPY_FROM_MR)) {
		kfree_skb(skb);
		return ERR_PTR(-EFAULT);
	}
	return skb;
}

/* --- Responder resources and the response generator ---------------------- */

static void resp_res_dequeue(struct sroce_qp *qp, struct sroce_rd_res *res)
{
	if (!res->queued)
		return;
	list_del_init(&res->tx_entry);
	res->queued = false;
	if (res->counted) {
		res->counted = false;
		qp->resp.rd_pending--;
	}
}

/*
 * Put @res behind the responses already queued (a restarted one keeps its
 * place).  @counted: a new request, which holds one of max_dest_rd_atomic
 * until its responses are out.
 */
void sroce_resp_res_queue(struct sroce_qp *qp, struct sroce_rd_res *res,
			  bool counted)
{
	if (!res->queued) {
		list_add_tail(&res->tx_entry, &qp->resp.tx_list);
		res->queued = true;
	}
	if (counted && !res->counted) {
		res->counted = true;
		qp->resp.rd_pending++;
	}
}

/* The slot for a new READ or ATOMIC: the oldest of the ring */
struct sroce_rd_res *sroce_resp_res_new(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_rd_res *res = &resp->rd_res[resp->rd_res_next];

	/* still queued only for a peer replaying very old requests */
	resp_res_dequeue(qp, res);
	resp->rd_res_next = (resp->rd_res_next + 1) % resp->rd_res_num;
	res->valid = true;
	res->mid = false;
	return res;
}

/*
 * The resource covering @psn.  The newest match wins: a ring of large
 * READs can span more than the PSN space, and only the newest can be what
 * a requester retries.
 */
struct sroce_rd_res *sroce_resp_res_find(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;
	u32 i, n = resp->rd_res_num;

	for (i = 1; i <= n; i++) {
		struct sroce_rd_res *res =
			&resp->rd_res[(resp->rd_res_next + n - i) % n];

		if (res->valid &&
		    sroce_psn_in_range(psn, res->first_psn, res->last_psn))
			return res;
	}
	return NULL;
}

/* Another READ or ATOMIC may be accepted (max_dest_rd_atomic) */
bool sroce_resp_rd_room(const struct sroce_qp *qp)
{
	u32 max = min_t(u32, qp->attr.max_dest_rd_atomic, qp->resp.rd_res_num);

	return qp->resp.rd_pending < max;
}

/* Drop every queued response; a requester that misses them retries */
void sroce_resp_tx_abandon(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_rd_res *res, *tmp;

	list_for_each_entry_safe(res, tmp, &resp->tx_list, tx_entry)
		resp_res_dequeue(qp, res);
	resp->ack_owed = false;
	resp->tx_psn_valid = false;
}

static enum resp_tx_state resp_tx_abandon_st(struct sroce_qp *qp)
{
	sroce_resp_tx_abandon(qp);
	return RESP_TX_IDLE;
}

/* The generator met an error that ends the connection: NAK @psn */
static enum resp_tx_state resp_tx_fail(struct sroce_qp *qp, u32 psn,
				       enum sroce_nak_code nak)
{
	sroce_resp_tx_abandon(qp);
	qp->resp.failed = true;
	sroce_stats_inc(qp->sdev, SROCE_CNT_ERR_NAK_SENT);
	trace_sroce_nak_sent(qp, psn, sroce_aeth_syn_nak(nak));
	sroce_resp_send_ack(qp, sroce_aeth_syn_nak(nak), psn, qp->resp.msn);
	return RESP_TX_FAILED;
}

static void resp_tx_sent(struct sroce_qp *qp, u32 psn)
{
	qp->resp.tx_psn = psn;
	qp->resp.tx_psn_valid = true;
}

/*
 * Everything queued is out: send the ACK or NAK that waited, unless a
 * response sent meanwhile is for a later PSN and so said more already.
 */
static void resp_tx_drained(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	if (resp->ack_owed &&
	    (!resp->tx_psn_valid ||
	     sroce_psn_after(resp->ack_psn, resp->tx_psn)))
		sroce_resp_send_ack(qp, resp->ack_syn, resp->ack_psn, resp->ack_msn);
	resp->ack_owed = false;
	resp->tx_psn_valid = false;
}

static enum resp_tx_state resp_atomic_one(struct sroce_qp *qp,
					  struct sroce_rd_res *res,
					  unsigned int *budget)
{
	struct sk_buff *skb = resp_build_atomic_ack(qp, res);
	int ret;

	if (!skb)
		return resp_tx_abandon_st(qp);
	ret = sroce_tx_send(qp->sdev, skb, qp->tx_flow,
			    &qp->resp.waiter);
	if (ret < 0)
		return resp_tx_abandon_st(qp);
	(*budget)--;
	resp_tx_sent(qp, res->first_psn);
	resp_res_dequeue(qp, res);
	return ret ? RESP_TX_BLOCKED : RESP_TX_MORE;
}

/* Send the next response of READ @res; @mr covers its bytes */
static enum resp_tx_state resp_read_one(struct sroce_qp *qp,
					struct sroce_rd_res *res,
					struct sroce_mr *mr, u32 mtu)
{
	u32 len = min(res->resid, mtu);
	bool last = len == res->resid;
	unsigned int wire_len;
	struct sk_buff *skb;
	int ret;

	/* a QP that CNPs slowed down waits for its rate (rp.h) */
	if (sroce_rp_hold(qp, SROCE_RP_RESP))
		return RESP_TX_BLOCKED;
	skb = resp_build_read_response(qp, res, mr, len, last);
	if (IS_ERR(skb)) {
		if (PTR_ERR(skb) == -EFAULT)
			return resp_tx_fail(qp, res->cur_psn,
					    SROCE_NAK_REM_ACCESS);
		return resp_tx_abandon_st(qp);
	}
	wire_len = skb->len;
	ret = sroce_tx_send(qp->sdev, skb, qp->tx_flow,
			    &qp->resp.waiter);
	if (ret < 0)
		return resp_tx_abandon_st(qp);

	sroce_rp_sent(qp, wire_len);
	resp_tx_sent(qp, res->cur_psn);
	res->cur_psn = sroce_psn_add(res->cur_psn, 1);
	res->cur_va += len;
	res->resid -= len;
	res->mid = true;
	if (last)
		resp_res_dequeue(qp, res);
	return ret ? RESP_TX_BLOCKED : RESP_TX_MORE;
}

/*
 * Up to *@budget responses of READ @res.  The rkey is resolved again for
 * the bytes of this burst: the MR may have gone since the request, and a
 * READ may take long enough that holding it would stall dereg_mr.
 */
static enum resp_tx_state resp_read_burst(struct sroce_qp *qp,
					  struct sroce_rd_res *res,
					  unsigned int *budget)
{
	u32 mtu = sroce_resp_mtu(qp);
	u64 span = min_t(u64, res->resid, (u64)*budget * mtu);
	enum resp_tx_state st = RESP_TX_MORE;
	struct sroce_mr *mr = NULL;

	if (span) {
		mr = sroce_rkey_lookup(qp->sdev, res->rkey, qp->pd,
				       qp->ibqp.qp_num, IB_ACCESS_REMOTE_READ,
				       res->cur_va, span);
		if (!mr)
			return resp_tx_fail(qp, res->cur_psn,
					    SROCE_NAK_REM_ACCESS);
	}
	/* each packet takes one budget and at most mtu bytes of @span */
	while (st == RESP_TX_MORE && *budget && res->queued) {
		st = resp_read_one(qp, res, mr, mtu);
		(*budget)--;
	}
	if (mr)
		sroce_mr_put(mr);
	return st;
}

/**
 * resp_tx_run() - send queued responses, in order
 * @qp: the QP, resp.lock held
 * @budget: most packets to send
 *
 * Return: what is left to do, see enum resp_tx_state.
 */
static enum resp_tx_state resp_tx_run(struct sroce_qp *qp,
				      unsigned int budget)
{
	struct sroce_resp *resp = &qp->resp;
	enum resp_tx_state st = RESP_TX_MORE;
	struct sroce_rd_res *res;

	lockdep_assert_held(&resp->lock);
	while (st == RESP_TX_MORE && budget) {
		res = list_first_entry_or_null(&resp->tx_list,
					       struct sroce_rd_res, tx_entry);
		if (!res)
			break;
		if (res->atomic)
			st = resp_atomic_one(qp, res, &budget);
		else
			st = resp_read_burst(qp, res, &budget);
	}
	if (st == RESP_TX_FAILED)
		return st;
	if (list_empty(&resp->tx_list)) {
		resp_tx_drained(qp);
		if (st == RESP_TX_MORE)
			st = RESP_TX_IDLE;
	}
	if (st == RESP_TX_BLOCKED)
		resp->tx_blocked = true;
	return st;
}

/**
 * sroce_resp_tx_kick() - send a burst of the responses just queued
 * @qp: the QP, resp.lock held (softirq)
 *
 * Return: 1 when resp.tx_work must send the rest, -EIO when the QP must go
 * to error (a NAK ended the connection), 0 otherwise.
 */
int sroce_resp_tx_kick(struct sroce_qp *qp)
{
	/* blocked: the queue is full, and the waiter's wake-up resumes */
	if (qp->resp.tx_blocked)
		return 0;
	switch (resp_tx_run(qp, RESP_INLINE_BURST)) {
	case RESP_TX_MORE:
		return 1;
	case RESP_TX_FAILED:
		return -EIO;
	default:
		return 0;
	}
}

void sroce_resp_queue_work(struct sroce_qp *qp)
{
	queue_work(system_wq, &qp->resp.tx_work);
}

/* One burst of responses under resp.lock, unless the QP is past them */
static enum resp_tx_state resp_tx_round(struct sroce_qp *qp,
					unsigned int budget)
{
	struct sroce_resp *resp = &qp->resp;
	enum resp_tx_state st;

	spin_lock_bh(&resp->lock);
	if (resp->stopping || resp->failed || !sroce_resp_state_ok(qp)) {
		st = resp_tx_abandon_st(qp);
	} else {
		resp->tx_blocked = false;
		st = resp_tx_run(qp, budget);
	}
	spin_unlock_bh(&resp->lock);
	return st;
}

/**
 * sroce_resp_kick() - continue the responses of @qp
 * @qp: the QP, its responder set up
 *
 * For the pace timer (rp.c), once a paced READ response may go: a short
 * burst here, as the requester's kick does, the rest from resp.tx_work.
 * A work item per paced packet would add the worker's wake-up to every
 * gap the rate sets, and slow the QP below it.
 * Context: softirq or process, no lock of @qp held.
 */
void sroce_resp_kick(struct sroce_qp *qp)
{
	switch (resp_tx_round(qp, RESP_INLINE_BURST)) {
	case RESP_TX_MORE:
		sroce_resp_queue_work(qp);
		break;
	case RESP_TX_FAILED:
		sroce_qp_error(qp, true);
		break;
	default:
		break;
	}
}

/* The transmit queue has room again (BH disabled, no lock held) */
static void resp_tx_wake(struct sroce_tx_waiter *w)
{
	sroce_resp_queue_work(container_of(w, struct sroce_qp, resp.waiter));
}

/*
 * Continue the responses in process context, a burst per hold of
 * resp.lock; after RESP_WORK_ROUNDS bursts the work queues itself again
 * so that other QPs' work gets the worker too.
 */
static void resp_tx_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp,
					   resp.tx_work);
	enum resp_tx_state st = RESP_TX_MORE;
	unsigned int round;

	for (round = 0; round < RESP_WORK_ROUNDS && st == RESP_TX_MORE;
	     round++) {
		st = resp_tx_round(qp, RESP_WORK_BURST);
		cond_resched();
	}
	if (st == RESP_TX_MORE)
		sroce_resp_queue_work(qp);
	else if (st == RESP_TX_FAILED)
		sroce_qp_error(qp, true);
}

/*
 * Send or hold back an ACK or NAK for @psn: while responses are queued it
 * waits for them, else it would acknowledge PSNs not answered yet.
 */
void sroce_resp_ack(struct sroce_qp *qp, u8 syn, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;

	if (list_empty(&resp->tx_list)) {
		sroce_resp_send_ack(qp, syn, psn, resp->msn);
		return;
	}
	resp->ack_owed = true;
	resp->ack_syn = syn;
	resp->ack_psn = psn;
	resp->ack_msn = resp->msn;
}

/* The response work and the transmit waiter of a new QP's responder */
void sroce_resp_tx_init(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	INIT_LIST_HEAD(&resp->tx_list);
	INIT_WORK(&resp->tx_work, resp_tx_work);
	INIT_LIST_HEAD(&resp->waiter.entry);
	resp->waiter.wake = resp_tx_wake;
	resp->waiter.queued = false;
}

/**
 * sroce_resp_res_alloc() - responder resources for a new max_dest_rd_atomic
 * @qp: an RC QP, its mod_lock held
 * @max_dest: the max_dest_rd_atomic modify_qp is about to set
 * @num: set to the entries of the ring returned
 *
 * The ring holds max_dest_rd_atomic responses, the responder resources of
 * an RC QP.  More would only answer a duplicate of a READ or ATOMIC older
 * than the requester's max_rd_atomic newest, which it no longer waits for
 * (the CM makes its depth at most ours); that is dropped (class D).  It only
 * grows: a smaller value limits what is accepted (sroce_resp_rd_room()), and the
 * responses remembered stay.
 *
 * Return: a ring for sroce_resp_res_swap(), NULL if the one in place will
 * do, or ERR_PTR(-ENOMEM).  Context: process.
 */
struct sroce_rd_res *sroce_resp_res_alloc(struct sroce_qp *qp, u32 max_dest,
					  u32 *num)
{
	struct sroce_rd_res *ring;

	lockdep_assert_held(&qp->mod_lock);
	*num = max_dest;
	if (*num <= qp->resp.rd_res_num)
		return NULL;
	ring = kcalloc(*num, sizeof(*ring), GFP_KERNEL);
	return ring ?: ERR_PTR(-ENOMEM);
}

/**
 * sroce_resp_res_swap() - put a larger ring of responder resources in place
 * @qp: the QP, resp.lock held
 * @ring: from sroce_resp_res_alloc(); set to the ring replaced (to free)
 * @num: its entries, more than the ring in place has
 *
 * The responses remembered and queued move along (the responder may be
 * serving READs, as in SQD), oldest first, so that the next new resource
 * is again the slot after the newest and @tx_list keeps its order.
 */
void sroce_resp_res_swap(struct sroce_qp *qp, struct sroce_rd_res **ring,
			 u32 num)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_rd_res *old = resp->rd_res, *fresh = *ring, *res;
	u32 n = resp->rd_res_num, i;
	LIST_HEAD(queued);

	lockdep_assert_held(&resp->lock);
	for (i = 0; i < num; i++) {
		if (i < n)
			fresh[i] = old[(resp->rd_res_next + i) % n];
		INIT_LIST_HEAD(&fresh[i].tx_entry);
	}
	list_for_each_entry(res, &resp->tx_list, tx_entry) {
		i = (res - old + n - resp->rd_res_next) % n;
		list_add_tail(&fresh[i].tx_entry, &queued);
	}
	INIT_LIST_HEAD(&resp->tx_list);
	list_splice(&queued, &resp->tx_list);
	resp->rd_res = fresh;
	resp->rd_res_num = num;
	resp->rd_res_next = n;
	*ring = old;
}
