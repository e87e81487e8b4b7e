// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: request packets (RC, UC, UD and GSI) into memory and
 * receive completions, and the answer each request gets; the packets that
 * carry those answers are built and sent by respgen.c.
 *
 * Packets arrive in softirq with a reference on their QP and are handled
 * under qp->resp.lock.  What may not happen under that lock (posting a
 * completion, moving the QP to error, queueing work) is collected in a
 * struct resp_ctx and done once it is dropped.
 *
 * Memory keys are looked up again for every packet, or burst of READ
 * responses, rather than held across a message: a peer that never
 * finishes a message must not keep dereg_mr waiting.
 */
#include <linux/if_vlan.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_mad.h>

#include <sroce/ah.h>
#include <sroce/cq.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/mr.h>
#include <sroce/pktbuf.h>
#include <sroce/srq.h>
#include <sroce/stats.h>
#include <sroce/trace.h>
#include <sroce/transport.h>
#include <sroce/tx.h>
#include <sroce/wire.h>

/* What precedes a UD payload in the receive buffer (a struct ib_grh) */
#define RESP_UD_GRH_LEN		sizeof(union rdma_network_hdr)
/* Largest UD payload: the largest IB MTU; GSI carries one MAD */
#define RESP_UD_MAX_PAYLOAD	4096U
#define RESP_GSI_MAX_PAYLOAD	IB_MGMT_MAD_SIZE

static_assert(sizeof(union rdma_network_hdr) == SROCE_GRH_LEN);
static_assert(offsetof(union rdma_network_hdr, roce4grh) ==
	      SROCE_GRH_LEN - SROCE_IPV4_LEN);

/* What became of a request packet */
enum resp_verdict {
	RESP_DONE,	/* executed: its PSNs are consumed */
	RESP_RNR,	/* no receive WQE: nothing done, resend later */
	RESP_ERR,	/* refused: resp_ctx.nak and .status say how */
};

/**
 * struct resp_ctx - one request packet on its way through the responder
 * @qp: its QP
 * @nh: its network header; its headers up to the payload are there, the
 *	payload is reached through @pkt->skb (sroce_pkt_payload_bytes())
 * @pkt: the parsed packet
 * @flags: SROCE_OPF_* of its opcode
 * @mtu: path MTU in bytes (RC, UC)
 * @npsn: PSNs the request consumes (READ: one per response)
 * @res: READ or ATOMIC to answer once the request is accepted
 * @nak: RESP_ERR: the NAK code (RC)
 * @status: RESP_ERR: the status of the receive WQE held, if any
 * @wc: receive completion to post once resp.lock is dropped
 * @post_wc: @wc is due
 * @solicited: @wc fires a solicited-only arming
 * @queue_work: resp.tx_work must continue the responses
 * @qp_error: the QP must go to error
 */
struct resp_ctx {
	struct sroce_qp *qp;
	const void *nh;
	const struct sroce_pkt *pkt;
	u32 flags;
	u32 mtu;
	u32 npsn;
	struct sroce_rd_res *res;
	enum sroce_nak_code nak;
	enum ib_wc_status status;
	struct ib_wc wc;
	bool post_wc;
	bool solicited;
	bool queue_work;
	bool qp_error;
};

static enum resp_verdict resp_err(struct resp_ctx *c, enum sroce_nak_code nak,
				  enum ib_wc_status status)
{
	c->nak = nak;
	c->status = status;
	return RESP_ERR;
}

/* Errors in our own receive WQE, as opposed to a bad request */
static bool resp_err_is_local(const struct resp_ctx *c)
{
	return c->status == IB_WC_LOC_LEN_ERR ||
	       c->status == IB_WC_LOC_PROT_ERR ||
	       c->status == IB_WC_LOC_QP_OP_ERR;
}

/* Responses were queued in softirq: a burst now, the rest from the work */
static void resp_tx_kick(struct resp_ctx *c)
{
	int ret = sroce_resp_tx_kick(c->qp);

	if (ret > 0)
		c->queue_work = true;
	else if (ret < 0)
		c->qp_error = true;
}

/* --- Receive WQEs and completions ---------------------------------------- */

/*
 * The receive WQE for a new message: the one a UC message abandoned
 * midway still holds (IBTA reuses it), else the next of the RQ/SRQ.
 */
static int resp_get_wqe(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	int err;

	if (!resp->have_wqe) {
		err = sroce_rq_take(qp, resp->wqe);
		/* a malformed WQE is consumed: it completes in error */
		if (err && err != -EINVAL)
			return err;
		resp->have_wqe = true;
		if (err)
			return err;
	}
	resp->sge_idx = 0;
	resp->sge_off = 0;
	return 0;
}

static enum resp_verdict resp_wqe_err(struct resp_ctx *c, int err)
{
	if (err == -EAGAIN)
		return RESP_RNR;
	return resp_err(c, SROCE_NAK_REM_OP_ERR, IB_WC_LOC_QP_OP_ERR);
}

/* Start the completion of the WQE held, which it gives back */
static struct ib_wc *resp_wc_start(struct resp_ctx *c,
				   enum ib_wc_status status)
{
	struct sroce_qp *qp = c->qp;
	struct ib_wc *wc = &c->wc;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = qp->resp.wqe->wr_id;
	wc->status = status;
	wc->opcode = IB_WC_RECV;
	wc->qp = &qp->ibqp;
	wc->port_num = SROCE_PORT;
	c->post_wc = true;
	qp->resp.have_wqe = false;
	return wc;
}

/* The successful completion of a message that used a receive WQE */
static struct ib_wc *resp_recv_wc(struct resp_ctx *c, enum ib_wc_opcode op,
				  u32 byte_len)
{
	struct ib_wc *wc = resp_wc_start(c, IB_WC_SUCCESS);
	const void *h;

	wc->opcode = op;
	wc->byte_len = byte_len;
	wc->src_qp = c->qp->attr.dest_qp_num;
	h = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_IMMDT);
	if (h) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = sroce_immdt(h);
	}
	h = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_IETH);
	if (h) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = sroce_ieth_rkey(h);
	}
	c->solicited = c->pkt->se;
	return wc;
}

/* Copy @len bytes at offset @off of @sge; -EACCES for a bad lkey or range */
static int resp_place_sge(struct sroce_qp *qp, const struct ib_sge *sge,
			  u32 off, struct sroce_bytes *data, u32 len)
{
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_lookup(qp->sdev, sge->lkey, qp->pd, IB_ACCESS_LOCAL_WRITE,
			     false);
	if (!mr)
		return -EACCES;
	err = sroce_mr_copy_bytes(mr, sge->addr + off, data, len,
				  SROCE_COPY_TO_MR);
	sroce_mr_put(mr);
	return err ? -EACCES : 0;
}

/**
 * resp_place() - append message bytes to the receive WQE held
 * @qp: the QP, resp.lock held
 * @data: the bytes (pktbuf.h), advanced past those placed
 * @len: how many
 *
 * Return: 0, -ENOSPC when the message outgrows the WQE, or -EACCES when
 * an SGE cannot be written (bad lkey, out of its MR, read-only memory).
 */
static int resp_place(struct sroce_qp *qp, struct sroce_bytes *data, u32 len)
{
	struct sroce_resp *resp = &qp->resp;
	const struct sroce_rwqe *wqe = resp->wqe;
	u32 nsge = min_t(u32, wqe->num_sge, SROCE_MAX_SGE);
	int err;

	if (resp->offset > wqe->length || len > wqe->length - resp->offset)
		return -ENOSPC;
	/* each turn consumes bytes or an SGE, and there are at most nsge */
	while (len) {
		const struct ib_sge *sge;
		u32 n;

		if (resp->sge_idx >= nsge)
			return -ENOSPC;
		sge = &wqe->sge[resp->sge_idx];
		if (resp->sge_off >= sge->length) {
			resp->sge_idx++;
			resp->sge_off = 0;
			continue;
		}
		n = min(len, sge->length - resp->sge_off);
		err = resp_place_sge(qp, sge, resp->sge_off, data, n);
		if (err)
			return err;
		resp->sge_off += n;
		resp->offset += n;
		len -= n;
	}
	return 0;
}

static enum resp_verdict resp_place_err(struct resp_ctx *c, int err)
{
	if (err == -ENOSPC)
		return resp_err(c, SROCE_NAK_INVALID_REQ, IB_WC_LOC_LEN_ERR);
	return resp_err(c, SROCE_NAK_REM_OP_ERR, IB_WC_LOC_PROT_ERR);
}

/* --- Executing new requests (RC and UC) ---------------------------------- */

/* Does @flags continue the message in progress, or start one between? */
static bool resp_op_seq_ok(int cur_opcode, u32 flags)
{
	const struct sroce_opcode_info *cur;

	if (cur_opcode < 0)
		return flags & SROCE_OPF_START;
	cur = sroce_opcode_info(cur_opcode);
	return cur && (flags & (SROCE_OPF_MIDDLE | SROCE_OPF_LAST)) &&
	       (flags & cur->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE));
}

/* Only the last packet of a message is short, and only an only one empty */
static bool resp_len_ok(u32 flags, u32 len, u32 mtu)
{
	if (flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE))
		return len == mtu;
	if (flags & SROCE_OPF_LAST)
		return len && len <= mtu;
	return len <= mtu;
}

static enum resp_verdict resp_send(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *resp = &qp->resp;
	struct sroce_bytes b;
	const void *ieth;
	int err;

	if (c->flags & SROCE_OPF_START) {
		err = resp_get_wqe(qp);
		if (err)
			return resp_wqe_err(c, err);
		resp->offset = 0;
	}
	b = sroce_pkt_payload_bytes(c->nh, c->pkt);
	err = resp_place(qp, &b, c->pkt->payload_len);
	if (err)
		return resp_place_err(c, err);
	if (!(c->flags & SROCE_OPF_END))
		return RESP_DONE;

	ieth = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_IETH);
	if (ieth && sroce_mr_invalidate(qp->pd, sroce_ieth_rkey(ieth)))
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	resp_recv_wc(c, IB_WC_RECV, resp->offset);
	return RESP_DONE;
}

/* Resolve an rkey for a range only to check it */
static bool resp_rkey_ok(struct sroce_qp *qp, u32 rkey, int access, u64 va,
			 u32 len)
{
	struct sroce_mr *mr = sroce_rkey_lookup(qp->sdev, rkey, qp->pd,
						qp->ibqp.qp_num, access, va,
						len);

	if (!mr)
		return false;
	sroce_mr_put(mr);
	return true;
}

/* The RETH of a WRITE's first (or only) packet */
static enum resp_verdict resp_write_start(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *resp = &qp->resp;
	const void *reth = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_RETH);
	u64 va;
	u32 len;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	va = sroce_reth_va(reth);
	len = sroce_reth_len(reth);
	if (len > SROCE_MAX_MSG_SIZE)
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	/* a zero-length WRITE names no memory (IBTA C9-88) */
	if (len && !resp_rkey_ok(qp, sroce_reth_rkey(reth),
				 IB_ACCESS_REMOTE_WRITE, va, len))
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	resp->write_va = va;
	resp->write_rkey = sroce_reth_rkey(reth);
	resp->write_len = len;
	resp->offset = 0;
	return RESP_DONE;
}

static int resp_write_data(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *resp = &qp->resp;
	u32 len = c->pkt->payload_len;
	struct sroce_bytes b;
	struct sroce_mr *mr;
	int err;

	mr = sroce_rkey_lookup(qp->sdev, resp->write_rkey, qp->pd,
			       qp->ibqp.qp_num, IB_ACCESS_REMOTE_WRITE,
			       resp->write_va, len);
	if (!mr)
		return -EACCES;
	b = sroce_pkt_payload_bytes(c->nh, c->pkt);
	err = sroce_mr_copy_bytes(mr, resp->write_va, &b, len,
				  SROCE_COPY_TO_MR);
	sroce_mr_put(mr);
	return err;
}

static enum resp_verdict resp_write(struct resp_ctx *c)
{
	struct sroce_resp *resp = &c->qp->resp;
	u32 len = c->pkt->payload_len;
	enum resp_verdict v;
	int err;

	if (c->flags & SROCE_OPF_RETH) {
		v = resp_write_start(c);
		if (v != RESP_DONE)
			return v;
	}
	/* the payloads add up to exactly the RETH length */
	if (len > resp->write_len - resp->offset ||
	    ((c->flags & SROCE_OPF_END) &&
	     resp->offset + len != resp->write_len))
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	/* _WITH_IMMEDIATE: no WQE, no data written, so a resend is clean */
	if (c->flags & SROCE_OPF_RWQE) {
		err = resp_get_wqe(c->qp);
		if (err)
			return resp_wqe_err(c, err);
	}
	if (len && resp_write_data(c))
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	resp->write_va += len;
	resp->offset += len;
	if (c->flags & SROCE_OPF_RWQE)
		resp_recv_wc(c, IB_WC_RECV_RDMA_WITH_IMM, resp->write_len);
	return RESP_DONE;
}

/* Response packets of a READ of @len bytes: one even when empty */
static u32 resp_read_npkts(u32 len, u32 mtu)
{
	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

static enum resp_verdict resp_read(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	const void *reth = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_RETH);
	struct sroce_rd_res *res;
	u32 len, rkey, npkts;
	u64 va;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ))
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	va = sroce_reth_va(reth);
	rkey = sroce_reth_rkey(reth);
	len = sroce_reth_len(reth);
	npkts = resp_read_npkts(len, c->mtu);
	/* beyond half the PSN space, PSNs could no longer be ordered */
	if (len > SROCE_MAX_MSG_SIZE || npkts >= SROCE_PSN_HALF ||
	    !sroce_resp_rd_room(qp))
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	if (len && !resp_rkey_ok(qp, rkey, IB_ACCESS_REMOTE_READ, va, len))
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);

	res = sroce_resp_res_new(qp);
	res->atomic = false;
	res->first_psn = c->pkt->psn;
	res->last_psn = sroce_psn_add(c->pkt->psn, npkts - 1);
	res->va = va;
	res->rkey = rkey;
	res->length = len;
	res->cur_psn = res->first_psn;
	res->cur_va = va;
	res->resid = len;
	c->res = res;
	c->npsn = npkts;
	return RESP_DONE;
}

/*
 * sroce_mr_atomic() failed: a misaligned target is an invalid request,
 * the rest (outside the MR, read-only memory) a remote access error
 */
static enum resp_verdict resp_atomic_err(struct resp_ctx *c, int err)
{
	if (err == -EINVAL)
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
}

static enum resp_verdict resp_atomic(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	const void *h = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_ATMETH);
	u64 va = sroce_atmeth_va(h), swap_add = sroce_atmeth_swap_add(h);
	u32 rkey = sroce_atmeth_rkey(h);
	struct sroce_rd_res *res;
	struct sroce_mr *mr;
	u64 orig;
	int err;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC))
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	if ((va & (sizeof(u64) - 1)) || !sroce_resp_rd_room(qp))
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	mr = sroce_rkey_lookup(qp->sdev, rkey, qp->pd, qp->ibqp.qp_num,
			       IB_ACCESS_REMOTE_ATOMIC, va, sizeof(u64));
	if (!mr)
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	if (c->pkt->opcode == SROCE_OP_RC_CMP_SWAP)
		err = sroce_mr_atomic(mr, va, SROCE_ATOMIC_CMP_SWAP,
				      sroce_atmeth_compare(h), swap_add, &orig);
	else
		err = sroce_mr_atomic(mr, va, SROCE_ATOMIC_FETCH_ADD, swap_add,
				      0, &orig);
	sroce_mr_put(mr);
	if (err)
		return resp_atomic_err(c, err);

	/* kept to answer a duplicate without executing it twice */
	res = sroce_resp_res_new(qp);
	res->atomic = true;
	res->first_psn = c->pkt->psn;
	res->last_psn = c->pkt->psn;
	res->va = va;
	res->rkey = rkey;
	res->length = sizeof(u64);
	res->orig = orig;
	res->cur_psn = c->pkt->psn;
	c->res = res;
	return RESP_DONE;
}

/*
 * ATOMIC WRITE (IBTA 1.5, A19.4): the 8 bytes of the payload stored as
 * one, at an aligned address, with remote write rights.  Acknowledged as
 * a WRITE is; a duplicate is acknowledged again and not executed again
 * (resp_rc_duplicate()), so it needs no responder resource.
 */
static enum resp_verdict resp_atomic_write(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	const void *reth = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_RETH);
	u64 va = sroce_reth_va(reth), value, orig;
	struct sroce_bytes b;
	struct sroce_mr *mr;
	int err;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	if (sroce_reth_len(reth) != sizeof(value) ||
	    c->pkt->payload_len != sizeof(value) || (va & (sizeof(value) - 1)))
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	b = sroce_pkt_payload_bytes(c->nh, c->pkt);
	if (sroce_bytes_move(&b, &value, sizeof(value), true))
		return resp_err(c, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
	mr = sroce_rkey_lookup(qp->sdev, sroce_reth_rkey(reth), qp->pd,
			       qp->ibqp.qp_num, IB_ACCESS_REMOTE_WRITE, va,
			       sizeof(value));
	if (!mr)
		return resp_err(c, SROCE_NAK_REM_ACCESS, IB_WC_REM_ACCESS_ERR);
	/* the bytes as they came: an ATOMIC WRITE has no byte order */
	err = sroce_mr_atomic(mr, va, SROCE_ATOMIC_WRITE, value, 0, &orig);
	sroce_mr_put(mr);
	if (err)
		return resp_atomic_err(c, err);
	return RESP_DONE;
}

static enum resp_verdict resp_execute(struct resp_ctx *c)
{
	if (c->flags & SROCE_OPF_SEND)
		return resp_send(c);
	if (c->flags & SROCE_OPF_WRITE)
		return resp_write(c);
	if (c->flags & SROCE_OPF_READ)
		return resp_read(c);
	if (c->flags & SROCE_OPF_ATOMIC)
		return resp_atomic(c);
	if (c->flags & SROCE_OPF_ATOMIC_WRITE)
		return resp_atomic_write(c);
	/* FLUSH: the device does not offer it */
	return resp_err(c, SROCE_NAK_INVALID_REQ, IB_WC_REM_INV_REQ_ERR);
}

/* The request's PSNs are consumed; a message that ends counts in the MSN */
static void resp_advance(struct resp_ctx *c)
{
	struct sroce_resp *resp = &c->qp->resp;

	resp->psn = sroce_psn_add(c->pkt->psn, c->npsn);
	if (c->flags & SROCE_OPF_END) {
		resp->opcode = -1;
		resp->msn = (resp->msn + 1) & SROCE_MSN_MASK;
	} else {
		resp->opcode = c->pkt->opcode;
	}
}

/* Forget the message in progress; a WQE it holds stays for the next one */
static void resp_msg_reset(struct sroce_resp *resp)
{
	resp->opcode = -1;
	resp->offset = 0;
}

/*
 * An error that ends the connection: complete the WQE held in error, drop
 * what was queued, and let later packets find the QP failed until it is
 * in the error state.
 */
static void resp_fail(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;

	if (qp->resp.have_wqe)
		resp_wc_start(c, c->status);
	resp_msg_reset(&qp->resp);
	sroce_resp_tx_abandon(qp);
	qp->resp.failed = true;
	c->qp_error = true;
}

/* --- RC ------------------------------------------------------------------ */

static void resp_rc_fatal(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;

	resp_fail(c);
	sroce_stats_inc(qp->sdev, SROCE_CNT_ERR_NAK_SENT);
	trace_sroce_nak_sent(qp, c->pkt->psn, sroce_aeth_syn_nak(c->nak));
	/* at once: nothing queued before it is going to be sent */
	sroce_resp_send_ack(qp, sroce_aeth_syn_nak(c->nak), c->pkt->psn,
			    qp->resp.msn);
}

static void resp_rc_done(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;

	resp_advance(c);
	if (c->res) {
		/* READ and ATOMIC are answered by their responses */
		c->res->msn = qp->resp.msn;
		sroce_resp_res_queue(qp, c->res, true);
		resp_tx_kick(c);
	} else if (c->pkt->ackreq) {
		sroce_resp_ack(qp, sroce_resp_syn_ack(), c->pkt->psn);
	}
}

static void resp_rc_rnr(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;

	sroce_stats_inc(qp->sdev, SROCE_CNT_RNR_NAK_SENT);
	trace_sroce_nak_sent(qp, c->pkt->psn,
			     sroce_aeth_syn_rnr(qp->attr.min_rnr_timer));
	sroce_resp_ack(qp, sroce_aeth_syn_rnr(qp->attr.min_rnr_timer), c->pkt->psn);
	/*
	 * The requester resends from this PSN after the RNR delay; what it
	 * had in flight behind it must not draw a sequence NAK that would
	 * make it resend at once.
	 */
	qp->resp.nak_sent = true;
}

/* The packet at ePSN */
static void resp_rc_new(struct resp_ctx *c)
{
	struct sroce_resp *resp = &c->qp->resp;
	enum resp_verdict v;

	resp->nak_sent = false;
	/* a NAK still held back asked for this very packet: it is stale */
	if (resp->ack_owed &&
	    sroce_aeth_syn_type(resp->ack_syn) != SROCE_AETH_ACK)
		resp->ack_owed = false;
	if (!resp_op_seq_ok(resp->opcode, c->flags) ||
	    !resp_len_ok(c->flags, c->pkt->payload_len, c->mtu))
		v = resp_err(c, SROCE_NAK_INVALID_REQ, IB_WC_REM_INV_REQ_ERR);
	else
		v = resp_execute(c);

	switch (v) {
	case RESP_DONE:
		resp_rc_done(c);
		break;
	case RESP_RNR:
		resp_rc_rnr(c);
		break;
	default:
		resp_rc_fatal(c);
		break;
	}
}

/* A packet beyond ePSN: some were lost; NAK once per gap (class B) */
static void resp_rc_out_of_seq(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;

	sroce_stats_inc(qp->sdev, SROCE_CNT_RX_OUT_OF_SEQ);
	if (qp->resp.nak_sent)
		return;
	qp->resp.nak_sent = true;
	sroce_stats_inc(qp->sdev, SROCE_CNT_SEQ_NAK_SENT);
	trace_sroce_nak_sent(qp, qp->resp.psn,
			     sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR));
	sroce_resp_ack(qp, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR), qp->resp.psn);
}

/* Is [va, va + len) inside [start, start + size)?  No sum can wrap. */
static bool resp_range_within(u64 start, u64 size, u64 va, u64 len)
{
	return va >= start && va - start <= size && len <= size - (va - start);
}

/*
 * A READ seen before: regenerate its responses from the requested PSN,
 * re-reading memory (C9-105); the new RETH must lie within the original
 * request.  Anything else is dropped (class D).
 */
static void resp_dup_read(struct resp_ctx *c)
{
	const void *reth = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_RETH);
	struct sroce_rd_res *res = sroce_resp_res_find(c->qp, c->pkt->psn);
	u32 psn = c->pkt->psn;
	u64 va;
	u32 len;

	if (!res || res->atomic || sroce_reth_rkey(reth) != res->rkey)
		return;
	va = sroce_reth_va(reth);
	len = sroce_reth_len(reth);
	if (!resp_range_within(res->va, res->length, va, len) ||
	    (u32)sroce_psn_diff(res->last_psn, psn) + 1 <
	    resp_read_npkts(len, c->mtu))
		return;

	res->cur_psn = psn;
	res->cur_va = va;
	res->resid = len;
	/* from the middle: MIDDLE/LAST, which is what rxe's completer takes */
	res->mid = psn != res->first_psn;
	sroce_resp_res_queue(c->qp, res, false);
	resp_tx_kick(c);
}

/* An ATOMIC seen before: never again, send the saved reply */
static void resp_dup_atomic(struct resp_ctx *c)
{
	const void *h = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_ATMETH);
	struct sroce_rd_res *res = sroce_resp_res_find(c->qp, c->pkt->psn);

	if (!res || !res->atomic || res->first_psn != c->pkt->psn ||
	    res->va != sroce_atmeth_va(h) || res->rkey != sroce_atmeth_rkey(h))
		return;
	sroce_resp_res_queue(c->qp, res, false);
	resp_tx_kick(c);
}

/* A packet before ePSN: our answer was lost, or it was resent early */
static void resp_rc_duplicate(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;

	sroce_stats_inc(qp->sdev, SROCE_CNT_RX_DUP_REQ);
	if (c->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE |
			SROCE_OPF_ATOMIC_WRITE)) {
		/*
		 * Done already: acknowledge everything so far.  Only where
		 * the requester asks, so a resent message draws one ACK,
		 * not one per packet.
		 */
		if (c->pkt->ackreq || (c->flags & SROCE_OPF_END))
			sroce_resp_ack(qp, sroce_resp_syn_ack(),
				       sroce_psn_sub(qp->resp.psn, 1));
	} else if (c->flags & SROCE_OPF_READ) {
		resp_dup_read(c);
	} else if (c->flags & SROCE_OPF_ATOMIC) {
		resp_dup_atomic(c);
	}
}

static void resp_rc_rcv(struct resp_ctx *c)
{
	struct sroce_resp *resp = &c->qp->resp;
	s32 diff;

	spin_lock_bh(&resp->lock);
	if (resp->failed) {
		sroce_stats_inc(c->qp->sdev, SROCE_CNT_RX_QP_STATE);
	} else {
		diff = sroce_psn_diff(c->pkt->psn, resp->psn);
		if (diff > 0)
			resp_rc_out_of_seq(c);
		else if (diff < 0)
			resp_rc_duplicate(c);
		else
			resp_rc_new(c);
	}
	spin_unlock_bh(&resp->lock);
}

/* --- UC ------------------------------------------------------------------ */

/*
 * UC has no answers: a lost packet loses its message, and the responder
 * picks up again at the next FIRST or ONLY.  Only errors in our own WQE
 * are fatal.
 */
static void resp_uc_locked(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *resp = &qp->resp;
	bool gap = c->pkt->psn != resp->psn;

	if (gap)
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_OUT_OF_SEQ);
	if (gap || (resp->opcode >= 0 && (c->flags & SROCE_OPF_START)))
		resp_msg_reset(resp);
	resp->psn = sroce_psn_add(c->pkt->psn, 1);
	if (!resp_op_seq_ok(resp->opcode, c->flags)) {
		/* the rest of a message whose start was lost */
		if (!gap)
			sroce_stats_inc(qp->sdev, SROCE_CNT_RX_OUT_OF_SEQ);
		return;
	}
	if (!resp_len_ok(c->flags, c->pkt->payload_len, c->mtu)) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_HDR_ERR);
		resp_msg_reset(resp);
		return;
	}

	switch (resp_execute(c)) {
	case RESP_DONE:
		resp_advance(c);
		break;
	case RESP_RNR:
		/* no RNR on UC: the message is lost */
		resp_msg_reset(resp);
		break;
	default:
		if (resp_err_is_local(c))
			resp_fail(c);
		else
			resp_msg_reset(resp);
		break;
	}
}

static void resp_uc_rcv(struct resp_ctx *c)
{
	struct sroce_resp *resp = &c->qp->resp;

	spin_lock_bh(&resp->lock);
	if (resp->failed)
		sroce_stats_inc(c->qp->sdev, SROCE_CNT_RX_QP_STATE);
	else
		resp_uc_locked(c);
	spin_unlock_bh(&resp->lock);
}

/* --- UD and GSI ---------------------------------------------------------- */

static void resp_ud_complete(struct resp_ctx *c, const void *deth)
{
	struct net_device *ndev = c->qp->sdev->ndev;
	struct ib_wc *wc;

	wc = resp_recv_wc(c, IB_WC_RECV,
			  RESP_UD_GRH_LEN + c->pkt->payload_len);
	wc->src_qp = sroce_deth_sqpn(deth);
	wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc->network_hdr_type = sroce_rdma_net_type(c->pkt->type);
	/* ib_core matches the GID of the VLAN the packet came in on */
	if (ndev && is_vlan_dev(ndev)) {
		wc->wc_flags |= IB_WC_WITH_VLAN;
		wc->vlan_id = vlan_dev_vlan_id(ndev);
	}
}

static void resp_ud_locked(struct resp_ctx *c, const void *deth)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *resp = &qp->resp;
	union rdma_network_hdr grh;
	struct sroce_bytes b;
	int err;

	err = resp_get_wqe(qp);
	if (err == -EAGAIN)
		return;		/* UD has no RNR: the datagram is lost */
	if (err) {
		c->status = IB_WC_LOC_QP_OP_ERR;
		resp_fail(c);
		return;
	}
	resp->offset = 0;
	if (RESP_UD_GRH_LEN + c->pkt->payload_len > resp->wqe->length) {
		/* the consumer's buffer is short: its WQE, not the QP */
		resp_wc_start(c, IB_WC_LOC_LEN_ERR);
		return;
	}
	sroce_pkt_ud_grh(c->nh, c->pkt, &grh);
	b = sroce_bytes_buf(&grh);
	err = resp_place(qp, &b, RESP_UD_GRH_LEN);
	if (!err) {
		b = sroce_pkt_payload_bytes(c->nh, c->pkt);
		err = resp_place(qp, &b, c->pkt->payload_len);
	}
	if (err) {
		c->status = err == -ENOSPC ? IB_WC_LOC_LEN_ERR :
					     IB_WC_LOC_PROT_ERR;
		resp_fail(c);
		return;
	}
	resp_ud_complete(c, deth);
}

static void resp_ud_rcv(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	const void *deth = sroce_pkt_hdr(c->nh, c->pkt, SROCE_HDR_DETH);
	bool gsi = qp->type == IB_QPT_GSI;

	if (!deth || sroce_deth_qkey(deth) != sroce_qp_qkey(qp)) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_QKEY);
		return;
	}
	/*
	 * ib_mad posts buffers for one MAD and does not repost one that
	 * completes in error: a longer datagram would eat QP1's buffers.
	 */
	if (c->pkt->payload_len >
	    (gsi ? RESP_GSI_MAX_PAYLOAD : RESP_UD_MAX_PAYLOAD)) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_HDR_ERR);
		return;
	}

	spin_lock_bh(&qp->resp.lock);
	if (qp->resp.failed)
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_QP_STATE);
	else
		resp_ud_locked(c, deth);
	spin_unlock_bh(&qp->resp.lock);
}

/* --- Entry points -------------------------------------------------------- */

/* What was decided under resp.lock and must be done without it */
static void resp_finish(struct resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;

	/* a CQ overrun is an error of the QP too (IBTA class G) */
	if (c->post_wc && qp->rcq &&
	    sroce_cq_post(qp->rcq, &c->wc, c->solicited) == -ENOSPC)
		c->qp_error = true;
	if (c->queue_work)
		sroce_resp_queue_work(qp);
	if (c->qp_error)
		sroce_qp_error(qp, true);
}

/**
 * sroce_resp_rcv() - handle a request packet
 * @qp: its QP, referenced by the caller
 * @nh: the packet's network header; the headers up to the payload are
 *	linear there, the payload may be in @pkt->skb's fragments
 * @pkt: the parsed packet: a request (SROCE_OPF_REQ) of @qp's transport,
 *	P_Key already checked
 *
 * Executes the request or answers it (ACK, NAK, READ responses, ATOMIC
 * acknowledgment) and posts the receive completion it causes.  Nothing of
 * the packet is kept after the return.  Context: softirq.
 */
void sroce_resp_rcv(struct sroce_qp *qp, const void *nh,
		    const struct sroce_pkt *pkt)
{
	struct resp_ctx c = {
		.qp = qp,
		.nh = nh,
		.pkt = pkt,
		.flags = pkt->info->flags,
		.mtu = sroce_resp_mtu(qp),
		.npsn = 1,
	};

	if (!sroce_resp_state_ok(qp)) {
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_QP_STATE);
		return;
	}
	switch (qp->type) {
	case IB_QPT_RC:
		resp_rc_rcv(&c);
		break;
	case IB_QPT_UC:
		resp_uc_rcv(&c);
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		resp_ud_rcv(&c);
		break;
	default:
		sroce_stats_inc(qp->sdev, SROCE_CNT_RX_BAD_QP_TYPE);
		return;
	}
	resp_finish(&c);
}

/* Between messages, nothing queued, nothing remembered */
static void resp_clear(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	u32 i;

	sroce_resp_tx_abandon(qp);
	for (i = 0; i < resp->rd_res_num; i++)
		resp->rd_res[i].valid = false;
	resp->rd_res_next = 0;
	resp->msn = 0;
	resp_msg_reset(resp);
	resp->have_wqe = false;
	resp->nak_sent = false;
	resp->failed = false;
	/* an armed waiter may still wake the work: it finds nothing to do */
	resp->tx_blocked = false;
}

/**
 * sroce_resp_init() - set up the responder of a new QP
 * @qp: the QP, its type, device and RQ (or SRQ) set, not yet reachable
 *
 * sroce_resp_cleanup() may be called after a failure too.  Context:
 * process.
 *
 * Return: 0, or -ENOMEM.
 */
int sroce_resp_init(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	u32 nsge;

	spin_lock_init(&resp->lock);
	sroce_resp_tx_init(qp);
	resp->stopping = false;
	resp->rd_res = NULL;
	resp->rd_res_num = 0;
	resp_clear(qp);
	/* room for as many SGEs as the ring the WQEs come from has */
	nsge = qp->srq ? qp->srq->max_sge : qp->max_recv_sge;
	resp->wqe = kzalloc(struct_size(resp->wqe, sge, nsge), GFP_KERNEL);
	return resp->wqe ? 0 : -ENOMEM;
}

/**
 * sroce_resp_reset() - forget all responder state (modify_qp to RESET)
 * @qp: the QP, resp.lock held
 *
 * A receive WQE a message held is dropped without a completion, as RESET
 * drops the receive queue.  The expected PSN is left to modify_qp
 * (IB_QP_RQ_PSN).  Does not sleep.
 */
void sroce_resp_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->resp.lock);
	resp_clear(qp);
}

/**
 * sroce_resp_release_wqe() - hand over the receive WQE a message holds
 * @qp: the QP, resp.lock held
 * @wr_id: set to the WQE's wr_id
 *
 * For the flush when the QP enters the error state: the WQE of a message
 * in progress was taken off the RQ/SRQ and must be completed (flushed)
 * before those still there.
 *
 * Return: true if a WQE was held.
 */
bool sroce_resp_release_wqe(struct sroce_qp *qp, u64 *wr_id)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&resp->lock);
	if (!resp->have_wqe)
		return false;
	*wr_id = resp->wqe->wr_id;
	resp->have_wqe = false;
	resp_msg_reset(resp);
	return true;
}

/**
 * sroce_resp_cleanup() - stop the responder of a QP being destroyed
 * @qp: the QP, no longer reachable by received packets
 *
 * Stops the response work and the transmit wait for good and frees the
 * responder resources.  Context: process; sleeps.
 */
void sroce_resp_cleanup(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	spin_lock_bh(&resp->lock);
	resp->stopping = true;
	sroce_resp_tx_abandon(qp);
	spin_unlock_bh(&resp->lock);

	cancel_work_sync(&resp->tx_work);
	sroce_tx_cancel_wait(qp->sdev, &resp->waiter);
	/* a wake-up that came before the waiter was taken off its list */
	cancel_work_sync(&resp->tx_work);

	kfree(resp->rd_res);
	resp->rd_res = NULL;
	resp->rd_res_num = 0;
	kfree(resp->wqe);
	resp->wqe = NULL;
}
