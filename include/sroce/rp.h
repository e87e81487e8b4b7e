/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DCQCN reaction point of a QP: the glue between the rate state
 * machine (dcqcn.h, pure) and the transport.  A CNP received for an RC or
 * UC QP whose priority has the reaction point enabled (rp_enable) feeds
 * the QP's state; while that state holds the QP below its maximum rate,
 * the requester sends its next request packet no sooner than the
 * previous one's bytes take at the current rate, waiting on a per-QP
 * hrtimer that only runs while the QP is limited and has work.  The
 * rate-increase and alpha timers of the algorithm are lazy: no timer
 * fires for them, their periods are applied when the QP next sends or
 * hears a CNP.
 *
 * What is paced: the requester's packets, retransmissions included.  Not
 * yet: READ responses and ACKs, which the responder sends.
 *
 * Locking: struct sroce_qp_rp is the requester's, under qp->sq_lock.
 */
#ifndef SROCE_RP_H
#define SROCE_RP_H

#include <linux/hrtimer.h>
#include <linux/types.h>

#include <sroce/dcqcn.h>

struct sk_buff;
struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;

/**
 * struct sroce_qp_rp - the reaction point of one QP
 * @st: the DCQCN rate state; valid once @armed
 * @armed: a CNP was handled: @st holds the QP's rate
 * @next_tx_ns: the earliest time of the QP's next request packet
 * @pace_timer: runs the requester at @next_tx_ns
 */
struct sroce_qp_rp {
	struct sroce_dcqcn_rp st;
	bool armed;
	u64 next_tx_ns;
	struct hrtimer pace_timer;
};

/* At QP creation, before the QP is reachable */
void sroce_rp_init(struct sroce_qp *qp);
/* At destroy, with qp->dead set and no requester run left: may sleep */
void sroce_rp_stop(struct sroce_qp *qp);
/* A CNP for the device (softirq): counted handled or ignored */
void sroce_rp_cnp(struct sroce_dev *sdev, const struct sroce_pkt *pkt);
/*
 * Under sq_lock, before the requester builds a packet: true if the QP
 * must wait for its rate (the pace timer is then armed).
 */
bool sroce_rp_hold(struct sroce_qp *qp);
/* Under sq_lock, after the requester queued a packet of @bytes */
void sroce_rp_sent(struct sroce_qp *qp, unsigned int bytes);
/* rdma resource show qp -dd: the QP's rate and alpha */
int sroce_rp_fill_res(struct sk_buff *msg, struct sroce_qp *qp);

#endif /* SROCE_RP_H */
