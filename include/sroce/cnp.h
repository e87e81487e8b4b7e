/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DCQCN notification point (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015): a packet of an RC or UC QP
 * that a switch marked Congestion Experienced (the IP ECN codepoint of
 * RoCEv2, RFC 3168; the BTH FECN bit of RoCEv1, whose GRH no switch
 * marks) makes that QP send a Congestion Notification Packet (RoCE annex
 * A17.9.3: opcode 0x81, BECN set, DestQP the peer's QP) back to whichever
 * side sent the marked data: the requester for requests, the responder
 * for READ responses and ACKs.  At most one per QP per
 * np_min_time_between_cnps, and only on the priorities np_enable names
 * (qos.h holds the knobs, with the rest of the device's configuration).
 *
 * Runs in the receive softirq.  No QP lock is held while the CNP is built
 * or sent (tx.c's CNP queue, served before all data), nothing sleeps.
 * What the sender does with a CNP is the reaction point's (rp.h).
 */
#ifndef SROCE_CNP_H
#define SROCE_CNP_H

#include <linux/atomic.h>
#include <linux/time64.h>
#include <linux/types.h>

struct sroce_qp;
struct sroce_pkt;

/*
 * May a QP whose last CNP went at @last_ns send another at @now_ns, with
 * at least @min_us between two?  @last_ns 0: it never sent one.
 */
static inline bool sroce_np_due(u64 last_ns, u64 now_ns, u32 min_us)
{
	return !last_ns || now_ns - last_ns >= (u64)min_us * NSEC_PER_USEC;
}

/*
 * Take the right to send a CNP now for the QP whose last CNP time is
 * @last.  Of several CPUs receiving marked packets of one QP at once, one
 * wins.
 */
static inline bool sroce_np_claim(atomic64_t *last, u64 now_ns, u32 min_us)
{
	s64 old = atomic64_read(last);

	if (!sroce_np_due(old, now_ns, min_us))
		return false;
	return atomic64_try_cmpxchg(last, &old, now_ns);
}

/* A packet of RC or UC QP @qp passed the receive checks (softirq) */
void sroce_np_rcv(struct sroce_qp *qp, const struct sroce_pkt *pkt);

#endif /* SROCE_CNP_H */
