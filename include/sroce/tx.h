/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transmit layer (txbuild.c, tx.c, txzc.c, loopback.c): packet
 * buffers, the per-priority transmit queues and their scheduling, PFC
 * pause, the netdev handoff with its backpressure, and delivery between
 * links of one host.  It owns struct sroce_txdev and the tx contexts; callers
 * hold a struct sroce_tx_waiter per sender.
 */
#ifndef SROCE_TX_H
#define SROCE_TX_H

#include <linux/list.h>
#include <linux/types.h>

#include <sroce/txsched.h>

struct sk_buff;
struct sroce_av;
struct sroce_dev;
struct sroce_lo;
struct sroce_pfc_frame;
struct sroce_qos_class;

/**
 * struct sroce_tx_waiter - a QP's handle on the transmit queues
 * @entry: on a transmit FIFO's wait list while @queued
 * @wake: called (softirq or process context, no QP lock held) when the
 *	FIFO it waited for has drained below its low watermark
 * @queue: the FIFO waited for (its transmit context, priority and flow,
 *	as tx.c numbers them)
 * @queued: on a wait list
 * @mark: the place in its FIFO of the last packet sent with this handle,
 *	for sroce_tx_still_queued()
 * @mark_queue: that packet's FIFO
 */
struct sroce_tx_waiter {
	struct list_head entry;
	void (*wake)(struct sroce_tx_waiter *w);
	u16 queue;
	bool queued;
	u64 mark;
	u16 mark_queue;
};

int sroce_tx_init(struct sroce_dev *sdev);
void sroce_tx_fini(struct sroce_dev *sdev);
unsigned int sroce_tx_contexts(struct sroce_dev *sdev);

/*
 * A packet to @av: Ethernet (+ VLAN tag), network headers for a transport
 * part of @tp_len bytes (BTH through pad) plus the ICRC.  *@bth is set to
 * the transport part, which the caller fills completely.  @sport is the
 * RoCEv2 UDP source port.  Any context.  NULL when out of memory.
 */
struct sk_buff *sroce_tx_alloc(struct sroce_dev *sdev,
			       const struct sroce_av *av, u16 sport,
			       unsigned int tp_len, void **bth);
struct sroce_qos_class;
/* The same with the class given rather than looked up from @av (CNPs) */
struct sk_buff *sroce_tx_alloc_class(struct sroce_dev *sdev,
				     const struct sroce_av *av, u16 sport,
				     const struct sroce_qos_class *qc,
				     unsigned int tp_len, void **bth);
/*
 * txbuild.c, for tx.c: the ICRC, IPv6 UDP checksum and PCP (@prio) of a
 * packet of sroce_tx_alloc() whose transport part is written; 0 or
 * -EINVAL.  And whether it is a RoCEv2 packet marked ECN-capable.
 */
int sroce_tx_finish(struct sk_buff *skb, u8 prio);
bool sroce_tx_ect(const struct sk_buff *skb);
/*
 * Finish @skb (ICRC, checksums, PCP) and queue it on its priority, which
 * sroce_tx_alloc() chose, in FIFO @flow there.  Returns 0 when
 * queued; 1 when queued but that FIFO or the priority is above its high
 * watermark: @w (if not NULL) is then armed and woken once there is room,
 * and the caller should stop building packets.  Returns a
 * negative errno when the packet was dropped (device gone or down); the
 * skb is consumed in every case.
 */
int sroce_tx_send(struct sroce_dev *sdev, struct sk_buff *skb, u8 flow,
		  struct sroce_tx_waiter *w);
/* The transmit FIFO for a new QP (in each priority); any context */
u8 sroce_tx_flow_pick(struct sroce_dev *sdev);
/*
 * Finish a CNP and queue it ahead of all data; 0 or a negative errno, the
 * skb consumed in every case.  No QP lock may be held.
 */
int sroce_tx_send_ctl(struct sroce_dev *sdev, struct sk_buff *skb);
/* Take @w off its wait list, if it is on one (destroy, error) */
void sroce_tx_cancel_wait(struct sroce_dev *sdev, struct sroce_tx_waiter *w);
/*
 * Is the packet at @mark of FIFO @queue (struct sroce_tx_waiter) still in
 * sroce's queue, not yet handed to the netdev?  Any context.
 */
bool sroce_tx_still_queued(struct sroce_dev *sdev, u16 queue, u64 mark);
struct sroce_pfc_frame;
/* A PFC frame arrived for the link (softirq) */
void sroce_tx_pfc_rx(struct sroce_dev *sdev, const struct sroce_pfc_frame *f);
/* PFC is off for @prios now: end their pauses.  Process context. */
void sroce_tx_pfc_off(struct sroce_dev *sdev, u8 prios);
/* Per priority: pause frames received, and microseconds spent paused */
void sroce_tx_pfc_stats(struct sroce_dev *sdev, u64 frames[SROCE_NUM_PRIO],
			u64 duration_us[SROCE_NUM_PRIO]);
/* New ETS shares (qos.h); -EINVAL leaves the old ones.  Process context. */
int sroce_tx_set_ets(struct sroce_dev *sdev, const u8 tsa[SROCE_NUM_PRIO],
		     const u8 weight[SROCE_NUM_PRIO]);

/* The module waits for the skbs its devices sent */
void sroce_tx_exit(void);

/* loopback.c: packets between links of one host, and multicast to them */
struct sroce_lo *sroce_lo_create(struct sroce_dev *sdev);
void sroce_lo_destroy(struct sroce_lo *lo);
int sroce_lo_local(struct sroce_dev *sdev, struct sk_buff *skb);
int sroce_lo_mcast(struct sroce_lo *lo, const struct sk_buff *skb);

#endif /* SROCE_TX_H */
