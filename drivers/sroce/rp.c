// SPDX-License-Identifier: GPL-2.0
/*
 * The DCQCN reaction point of a QP: CNPs in, the requester and the
 * responder's READ responses paced.  See include/sroce/rp.h.
 */
#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

#include <sroce/ah.h>
#include <sroce/device.h>
#include <sroce/pfc.h>
#include <sroce/qos.h>
#include <sroce/rp.h>
#include <sroce/rx.h>
#include <sroce/stats.h>
#include <sroce/trace.h>
#include <sroce/transport.h>
#include <sroce/verbs.h>
#include <sroce/wire.h>

/* The longest a QP waits for one packet, whatever its rate says */
#define SROCE_RP_MAX_GAP_NS	NSEC_PER_SEC

/* The senders that wait for the pace timer */
#define SROCE_RP_WAIT_REQ	BIT(SROCE_RP_REQ)
#define SROCE_RP_WAIT_RESP	BIT(SROCE_RP_RESP)

static enum hrtimer_restart sroce_rp_pace_expired(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, rp.pace_timer);
	struct sroce_qp_rp *rp = &qp->rp;
	unsigned int waiting;

	spin_lock(&rp->lock);
	waiting = rp->waiting;
	rp->waiting = 0;
	spin_unlock(&rp->lock);
	/* softirq: each runs here as from any kick (sroce_rp_stop() fences) */
	if (waiting & SROCE_RP_WAIT_REQ)
		sroce_req_kick(qp);
	if (waiting & SROCE_RP_WAIT_RESP)
		sroce_resp_kick(qp);
	return HRTIMER_NORESTART;
}

void sroce_rp_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->rp.lock);
	hrtimer_init(&qp->rp.pace_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_SOFT);
	qp->rp.pace_timer.function = sroce_rp_pace_expired;
}

/*
 * Once @stopped is set no sender arms the timer again, so after the
 * cancel it neither runs nor will: before req_work and resp.tx_work are
 * cancelled, which it could otherwise queue once more.
 */
void sroce_rp_stop(struct sroce_qp *qp)
{
	spin_lock_bh(&qp->rp.lock);
	qp->rp.stopped = true;
	spin_unlock_bh(&qp->rp.lock);
	hrtimer_cancel(&qp->rp.pace_timer);
}

/*
 * A new connection starts at its maximum rate.  Called at create and
 * under the QP's locks with interrupts off (the move to RESET), where
 * re-enabling bottom halves would run softirqs, so irqsave.
 */
void sroce_rp_reset(struct sroce_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->rp.lock, flags);
	qp->rp.armed = false;
	spin_unlock_irqrestore(&qp->rp.lock, flags);
}

/*
 * Under RCU, and sq_lock or resp.lock (either keeps the path still): is
 * the reaction point on for @qp's priority?  The priority is that of the
 * QP's path, as for its packets.
 */
static bool sroce_rp_enabled(const struct sroce_qp *qp,
			     const struct sroce_qos_cfg *c)
{
	enum sroce_net_type t = sroce_av_net_type(qp->av.network_type);
	struct sroce_qos_class qc;

	if (!t)
		return false;
	sroce_qos_classify(c, t, qp->av.sl, qp->av.traffic_class, &qc);
	return c->rp_en & BIT(qc.prio);
}

/* Under sq_lock and rp.lock: feed a CNP to @qp's state; false if ignored */
static bool sroce_rp_cnp_locked(struct sroce_qp *qp)
{
	struct sroce_qp_rp *rp = &qp->rp;
	const struct sroce_qos_cfg *c;
	u64 now = ktime_get_ns();
	bool handled = false;
	u32 speed;

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return false;
	rcu_read_lock();
	c = rcu_dereference(qp->sdev->qos);
	if (sroce_rp_enabled(qp, c)) {
		if (!rp->armed) {
			speed = READ_ONCE(qp->sdev->speed_mbps);
			sroce_dcqcn_rp_init(&rp->st, &c->rp,
					    speed ?: SROCE_PFC_DEFAULT_SPEED,
					    now);
			rp->next_tx_ns = now;
			rp->armed = true;
		}
		handled = sroce_dcqcn_rp_cnp(&rp->st, &c->rp, now);
	}
	rcu_read_unlock();
	trace_sroce_cnp_recv(qp, handled);
	return handled;
}

/**
 * sroce_rp_cnp() - a CNP arrived
 * @sdev: the device
 * @pkt: the CNP, headers and ICRC checked
 *
 * Its DestQP names our QP whose data was marked.  A CNP not from the
 * QP's peer is counted as rx_wrong_peer too.  A CNP for no QP, for a
 * QP that is not connected and sending, for a priority the reaction
 * point is off for, or within the monitor period of the last one, is
 * counted as ignored (rp_cnp_ignored) and changes nothing.
 * Context: softirq.
 */
void sroce_rp_cnp(struct sroce_dev *sdev, const struct sroce_pkt *pkt)
{
	struct sroce_qp *qp = sroce_qp_get(sdev, pkt->qpn);
	bool handled = false;

	if (!qp) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_NO_QP);
	} else if ((qp->type == IB_QPT_RC || qp->type == IB_QPT_UC) &&
		   !sroce_pkt_from_peer(qp, pkt)) {
		/* a forged CNP must not slow a connection down */
		sroce_stats_inc(sdev, SROCE_CNT_RX_WRONG_PEER);
		sroce_qp_put(qp);
	} else {
		if (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC) {
			spin_lock_bh(&qp->sq_lock);
			spin_lock(&qp->rp.lock);
			handled = sroce_rp_cnp_locked(qp);
			spin_unlock(&qp->rp.lock);
			spin_unlock_bh(&qp->sq_lock);
		}
		sroce_qp_put(qp);
	}
	sroce_stats_inc(sdev, handled ? SROCE_CNT_RP_CNP_HANDLED :
					SROCE_CNT_RP_CNP_IGNORED);
}

/* Under rp.lock: may the sender go now?  Else arm the timer for it. */
static bool sroce_rp_hold_locked(struct sroce_qp *qp, enum sroce_rp_sender who)
{
	struct sroce_qp_rp *rp = &qp->rp;
	const struct sroce_qos_cfg *c;
	bool limited;
	u64 now;

	if (!rp->armed || rp->stopped)
		return false;
	now = ktime_get_ns();
	rcu_read_lock();
	c = rcu_dereference(qp->sdev->qos);
	sroce_dcqcn_rp_advance(&rp->st, &c->rp, now);
	limited = sroce_rp_enabled(qp, c) && sroce_dcqcn_rp_limited(&rp->st);
	rcu_read_unlock();
	if (!limited) {
		rp->armed = false;
		return false;
	}
	if (now >= rp->next_tx_ns)
		return false;
	rp->waiting |= BIT(who);
	/* pinned, as the transmit retry timer is (tx.c) */
	if (!hrtimer_is_queued(&rp->pace_timer))
		hrtimer_start(&rp->pace_timer, ns_to_ktime(rp->next_tx_ns),
			      HRTIMER_MODE_ABS_PINNED_SOFT);
	return true;
}

/**
 * sroce_rp_hold() - must a sender of the QP wait for the QP's rate?
 * @qp: the QP; sq_lock held for the requester, resp.lock for the
 *	responder
 * @who: which of them asks
 *
 * Catches the rate state up to now: a QP back at its maximum rate, or
 * whose priority no longer has the reaction point on, is paced no more
 * until its next CNP.  Otherwise the packet waits until the previous
 * one's bytes (the requester's or the responder's: the rate is the QP's)
 * have taken their time at the current rate, and the pace timer runs the
 * sender then.
 *
 * Return: true if the sender must stop for now.
 */
bool sroce_rp_hold(struct sroce_qp *qp, enum sroce_rp_sender who)
{
	bool hold;

	spin_lock(&qp->rp.lock);
	hold = sroce_rp_hold_locked(qp, who);
	spin_unlock(&qp->rp.lock);
	return hold;
}

/**
 * sroce_rp_sent() - a sender of the QP queued a packet
 * @qp: the QP, with the lock sroce_rp_hold() wants held
 * @bytes: its length on the wire
 *
 * Counts the bytes for the byte stage and sets when the next packet may
 * go: the time these bytes take at the current rate, from now or from
 * when this one was due, whichever is later, so an idle QP banks no
 * credit and a busy one keeps its rate on average.
 */
void sroce_rp_sent(struct sroce_qp *qp, unsigned int bytes)
{
	struct sroce_qp_rp *rp = &qp->rp;
	const struct sroce_qos_cfg *c;
	u64 now, gap;

	spin_lock(&rp->lock);
	if (!rp->armed)
		goto out;
	now = ktime_get_ns();
	rcu_read_lock();
	c = rcu_dereference(qp->sdev->qos);
	sroce_dcqcn_rp_sent(&rp->st, &c->rp, bytes, now);
	rcu_read_unlock();
	gap = min_t(u64, sroce_dcqcn_rp_tx_ns(&rp->st, bytes),
		    SROCE_RP_MAX_GAP_NS);
	rp->next_tx_ns = max(rp->next_tx_ns, now) + gap;
out:
	spin_unlock(&rp->lock);
}

/**
 * sroce_rp_res_attrs() - the QP's congestion state for rdma resource show
 * @qp: an RC or UC QP
 * @a: SROCE_RP_RES_ATTRS attributes to fill
 *
 * dcqcn_limited 1 while CNPs hold the QP below its maximum rate;
 * dcqcn_rate_mbps its current rate then (else the link's speed), and
 * dcqcn_alpha its congestion estimate in 1/1024.
 */
void sroce_rp_res_attrs(struct sroce_qp *qp, struct sroce_res_attr *a)
{
	u32 rate = READ_ONCE(qp->sdev->speed_mbps), alpha = 0;
	bool armed;

	spin_lock_bh(&qp->rp.lock);
	armed = qp->rp.armed;
	if (armed) {
		rate = sroce_dcqcn_rp_rate_mbps(&qp->rp.st);
		alpha = sroce_dcqcn_rp_alpha(&qp->rp.st);
	}
	spin_unlock_bh(&qp->rp.lock);
	a[0] = (struct sroce_res_attr){ .name = "dcqcn_limited", .value = armed };
	a[1] = (struct sroce_res_attr){ .name = "dcqcn_rate_mbps", .value = rate };
	a[2] = (struct sroce_res_attr){ .name = "dcqcn_alpha", .value = alpha };
}
