/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DCQCN reaction point of a QP: the glue between the rate state
 * machine (dcqcn.h, pure) and the transport.  A CNP received for an RC or
 * UC QP whose priority has the reaction point enabled (rp_enable) feeds
 * the QP's state; while that state holds the QP below its maximum rate,
 * the QP sends its next data packet no sooner than the previous one's
 * bytes take at the current rate, waiting on a per-QP hrtimer that only
 * runs while the QP is limited and has work.  The rate-increase and alpha
 * timers of the algorithm are lazy: no timer fires for them, their
 * periods are applied when the QP next sends or hears a CNP.
 *
 * What is paced: the requester's packets, retransmissions included, and
 * the responder's READ responses, which share the QP's one rate: a CNP
 * for a QP that serves READs says its responses were marked.  ACKs,
 * NAKs and atomic responses are not paced: they are small, and holding
 * them would only delay the peer's completions.
 *
 * Locking: struct sroce_qp_rp is under its own lock, rp.lock, innermost:
 * taken under qp->sq_lock (requester, CNPs) or qp->resp.lock
 * (responder), never the other way round, and nothing is taken under it
 * but the pace timer's base.
 */
#ifndef SROCE_RP_H
#define SROCE_RP_H

#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <sroce/dcqcn.h>

struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;
struct sroce_res_attr;

/* Who sends a QP's paced packets */
enum sroce_rp_sender {
	SROCE_RP_REQ,
	SROCE_RP_RESP,
};

/**
 * struct sroce_qp_rp - the reaction point of one QP
 * @lock: covers the rest (see above)
 * @st: the DCQCN rate state; valid once @armed
 * @armed: a CNP was handled: @st holds the QP's rate
 * @stopped: the QP is being destroyed; the timer is not armed again
 * @waiting: the senders the pace timer runs, BIT(enum sroce_rp_sender)
 * @next_tx_ns: the earliest time of the QP's next data packet
 * @pace_timer: runs the waiting senders at @next_tx_ns
 */
struct sroce_qp_rp {
	spinlock_t lock;	/* innermost; see the top of this file */
	struct sroce_dcqcn_rp st;
	bool armed;
	bool stopped;
	unsigned int waiting;
	u64 next_tx_ns;
	struct hrtimer pace_timer;
};

/* At QP creation, before the QP is reachable */
void sroce_rp_init(struct sroce_qp *qp);
/*
 * At destroy, with qp->dead set, before req_work and resp.tx_work are
 * cancelled: may sleep
 */
void sroce_rp_stop(struct sroce_qp *qp);
/* A new connection (the requester's init): back to the maximum rate */
void sroce_rp_reset(struct sroce_qp *qp);
/* A CNP for the device (softirq): counted handled or ignored */
void sroce_rp_cnp(struct sroce_dev *sdev, const struct sroce_pkt *pkt);
/*
 * Before a sender builds a data packet (the requester under sq_lock, the
 * responder under resp.lock): true if the QP must wait for its rate (the
 * pace timer then kicks the sender)
 */
bool sroce_rp_hold(struct sroce_qp *qp, enum sroce_rp_sender who);
/* Under the same lock, after the sender queued a packet of @bytes */
void sroce_rp_sent(struct sroce_qp *qp, unsigned int bytes);
/* rdma resource show qp -dd: the QP's rate and alpha, in @a[0..2] */
#define SROCE_RP_RES_ATTRS	3
void sroce_rp_res_attrs(struct sroce_qp *qp, struct sroce_res_attr *a);

#endif /* SROCE_RP_H */
