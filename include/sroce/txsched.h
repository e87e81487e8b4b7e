/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit scheduling policy across the eight priorities, as a pure state
 * machine: which priority sends its next packet.  The tx layer owns the
 * queues and the netdev; this only decides, so it can be tested alone.
 *
 * Like 802.1Qaz ETS: priorities marked strict are served first, highest
 * number first; the remaining ones share what is left by weight, with a
 * deficit round robin over bytes so that packet sizes do not skew shares.
 * A paused priority (PFC, or a stopped netdev queue) is skipped and keeps
 * its place; it neither blocks the others nor banks credit while paused.
 */
#ifndef SROCE_TXSCHED_H
#define SROCE_TXSCHED_H

#include <linux/list.h>
#include <linux/time64.h>
#include <linux/types.h>

#define SROCE_NUM_PRIO		8
/* bytes of credit one unit of weight earns per round */
#define SROCE_TXSCHED_QUANTUM	1024
/* longer packets are charged as this long, which bounds a pick's work */
#define SROCE_TXSCHED_MAX_LEN	65536

enum sroce_tsa {
	SROCE_TSA_ETS,
	SROCE_TSA_STRICT,
};

/**
 * struct sroce_txsched - scheduler state for one device
 * @tsa: per priority, strict or ETS
 * @weight: per ETS priority, its share (any positive scale, e.g. percent)
 * @deficit: per priority, bytes it may still send in the current round
 * @next: the ETS priority whose turn it is
 * @in_turn: @next has already been credited for its current turn
 */
struct sroce_txsched {
	u8 tsa[SROCE_NUM_PRIO];
	u8 weight[SROCE_NUM_PRIO];
	s32 deficit[SROCE_NUM_PRIO];
	u8 next;
	bool in_turn;
};

/*
 * Room: how many bytes of a transmit context's packets may be below it,
 * in the qdisc and the netdev queue it sends to (counted from the hand-off
 * to the netdev until the stack frees or orphans each skb, tx.c), before
 * the priorities sending through that queue are held back in sroce,
 * where they are scheduled by the rules above and push back to the QPs.
 * Whatever holds more of them (a FIFO qdisc, a shaper's queue) is beyond
 * sroce's priorities, ETS and pause: that is the bound.  A qdisc that
 * shapes (tbf, htb) never stops its netdev queue; it drops what exceeds
 * its limit, which sroce cannot read.  So the room starts small, doubles
 * when the bytes below ran out SROCE_TXROOM_STARVED times in a row while
 * sroce held packets back (the room did not bridge the wake-up, not just
 * one late one), and halves on a drop.  The room at a drop is a ceiling
 * for SROCE_TXROOM_CEILING_NS: probing past it again at once would only
 * find the same limit.  A qdisc that orphans what it holds (netem) keeps
 * nothing sroce counts, and is never held for.
 */
#define SROCE_TXROOM_MIN	(4 * 1024)
#define SROCE_TXROOM_INIT	(16 * 1024)
#define SROCE_TXROOM_MAX	(1024 * 1024)
#define SROCE_TXROOM_STARVED	8
#define SROCE_TXROOM_CEILING_NS	(10ULL * NSEC_PER_SEC)
/*
 * Rooms of a transmit context: one per netdev queue it sends to, by the
 * queue's rank among them (sroce_txplace()); beyond this many, queues
 * share one.
 */
#define SROCE_TXROOM_SLOTS	16

/* Transmit contexts of a device at most (sroce_txctx_count()) */
#define SROCE_TX_MAX_CTX	8U

/**
 * struct sroce_txplace - where the packets for one netdev queue wait
 * @ctx: the transmit context that sends them
 * @slot: the room (SROCE_TXROOM_SLOTS) that context keeps for the queue
 */
struct sroce_txplace {
	unsigned int ctx;
	unsigned int slot;
};

/**
 * struct sroce_txroom - the room below one netdev queue
 * @room: bytes below it before its priorities are held back
 * @ceiling: @room may not grow past this until @ceiling_until
 * @ceiling_until: when the ceiling of the last drop lapses, 0 for none
 * @starved: times in a row the bytes below ran out during a hold
 */
struct sroce_txroom {
	u32 room;
	u32 ceiling;
	u64 ceiling_until;
	u8 starved;
};

/*
 * Inside one priority, the flows (a QP towards one peer) with packets
 * waiting share it by deficit round robin over bytes, so that a bulk QP
 * that filled its queue does not delay the one packet of a
 * latency-sensitive QP by more than one quantum per other active flow.
 * A quantum is at least the longest packet, so a flow at the head of the
 * round sends at least one packet on its turn, and a flow that just
 * became active is served in the next round, never after the backlog of
 * the others.
 */
#define SROCE_TXFLOW_QUANTUM	4608

/**
 * struct sroce_txflow - the round robin state of one flow
 * @node: on &struct sroce_txflows @active while the flow has packets
 * @deficit: bytes it may still send in its current turn
 * @in_turn: it has been credited for the turn it is in
 */
struct sroce_txflow {
	struct list_head node;
	s32 deficit;
	bool in_turn;
};

/**
 * struct sroce_txflows - the flows of one priority that have packets
 * @active: in round robin order, the one whose turn it is first
 */
struct sroce_txflows {
	struct list_head active;
};

/* The length of the packet at the head of @f, which has packets */
typedef u32 (*sroce_txflow_len_t)(const struct sroce_txflow *f);

void sroce_txflows_init(struct sroce_txflows *fs);
void sroce_txflow_init(struct sroce_txflow *f);
bool sroce_txflow_active(const struct sroce_txflow *f);
void sroce_txflows_add(struct sroce_txflows *fs, struct sroce_txflow *f);
struct sroce_txflow *sroce_txflows_peek(struct sroce_txflows *fs,
					sroce_txflow_len_t head_len);
void sroce_txflows_sent(struct sroce_txflow *f, u32 len, bool empty);
void sroce_txflows_putback(struct sroce_txflows *fs, struct sroce_txflow *f,
			   u32 len);

void sroce_txroom_init(struct sroce_txroom *r);
bool sroce_txroom_full(const struct sroce_txroom *r, u32 below);
void sroce_txroom_starved(struct sroce_txroom *r, u64 now);
void sroce_txroom_fed(struct sroce_txroom *r);
void sroce_txroom_dropped(struct sroce_txroom *r, u64 now);
unsigned int sroce_txctx_count(unsigned int ntc, unsigned int min_count,
			       unsigned int nqueues, unsigned int ncpu,
			       unsigned int *per_tc);
struct sroce_txplace sroce_txplace(unsigned int queue, int tc,
				   unsigned int rank, unsigned int per_tc,
				   unsigned int nctx);

void sroce_txsched_init(struct sroce_txsched *s);
int sroce_txsched_set(struct sroce_txsched *s, const u8 tsa[SROCE_NUM_PRIO],
		      const u8 weight[SROCE_NUM_PRIO]);
int sroce_txsched_pick(struct sroce_txsched *s, u8 ready, u8 paused,
		       const u32 head_len[SROCE_NUM_PRIO]);

#endif /* SROCE_TXSCHED_H */
