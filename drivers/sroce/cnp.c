// SPDX-License-Identifier: GPL-2.0
/*
 * The DCQCN notification point: congestion marks in, CNPs out.  See
 * include/sroce/cnp.h.
 */
#include <linux/bits.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>

#include <sroce/ah.h>
#include <sroce/cnp.h>
#include <sroce/device.h>
#include <sroce/qos.h>
#include <sroce/stats.h>
#include <sroce/trace.h>
#include <sroce/transport.h>
#include <sroce/tx.h>
#include <sroce/wire.h>

/* What a CNP of @qp needs, copied under the lock modify_qp writes it under */
struct sroce_np_path {
	struct sroce_av av;
	u16 sport;
	u32 dqpn;
};

/*
 * Copy @qp's path while it is connected: a QP being reset, or in error,
 * has no peer to tell (its path may be changing under modify_qp).
 */
static bool sroce_np_path(struct sroce_qp *qp, struct sroce_np_path *path)
{
	bool connected;

	spin_lock_bh(&qp->resp.lock);
	switch (qp->state) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		connected = true;
		path->av = qp->av;
		path->sport = qp->sport;
		path->dqpn = qp->attr.dest_qp_num;
		break;
	default:
		connected = false;
	}
	spin_unlock_bh(&qp->resp.lock);
	return connected;
}

/*
 * Build and queue the CNP.  The UDP source port is the flow's own, as
 * for its ACKs, so that ECMP routes it the way of the flow's return
 * traffic.  Out of memory, or the CNP queue full, loses it: the next
 * marked packet asks again.
 */
static bool sroce_np_send(struct sroce_dev *sdev,
			  const struct sroce_np_path *path,
			  const struct sroce_qos_class *qc)
{
	struct sk_buff *skb;
	void *bth;

	skb = sroce_tx_alloc_class(sdev, &path->av, path->sport, qc,
				   SROCE_BTH_LEN + SROCE_CNP_RSVD_LEN, &bth);
	if (!skb) {
		sroce_stats_inc(sdev, SROCE_CNT_TX_DROPS);
		return false;
	}
	sroce_cnp_build(bth, path->dqpn);
	if (sroce_tx_send_ctl(sdev, skb))
		return false;
	sroce_stats_inc(sdev, SROCE_CNT_NP_CNP_SENT);
	return true;
}

/**
 * sroce_np_rcv() - the notification point's look at a received packet
 * @qp: its RC or UC QP
 * @pkt: the packet, headers and ICRC checked
 *
 * Counts a congestion-marked packet and answers it with a CNP to @qp's
 * peer if the QP's priority has the notification point enabled and the
 * QP's last CNP is at least np_min_time_between_cnps old.  The priority
 * is the QP's, from its path as the QoS configuration classifies it:
 * what the marked flow travels on, in either direction.  Context:
 * softirq; takes @qp's resp.lock for a moment, never across the send.
 */
void sroce_np_rcv(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_dev *sdev = qp->sdev;
	const struct sroce_qos_cfg *c;
	struct sroce_qos_class flow, qc;
	struct sroce_np_path path;
	enum sroce_net_type t;
	bool enabled;
	u32 min_us;

	if (!sroce_pkt_ce(pkt))
		return;
	sroce_stats_inc(sdev, SROCE_CNT_NP_ECN_MARKED);
	if (!sroce_np_path(qp, &path))
		return;
	t = sroce_av_net_type(path.av.network_type);
	if (!t)
		return;
	rcu_read_lock();
	c = rcu_dereference(sdev->qos);
	sroce_qos_classify(c, t, path.av.sl, path.av.traffic_class, &flow);
	enabled = c->np_en & BIT(flow.prio);
	min_us = c->np_min_time_us;
	sroce_qos_classify_cnp(c, t, &qc);
	rcu_read_unlock();
	if (!enabled || !sroce_np_claim(&qp->np_last_cnp_ns, ktime_get_ns(),
					min_us))
		return;
	if (sroce_np_send(sdev, &path, &qc))
		trace_sroce_cnp_sent(qp, path.dqpn, flow.prio);
}
