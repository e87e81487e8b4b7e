// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit scheduling policy: strict priorities first, then a deficit round
 * robin over the ETS priorities, weighted in bytes; inside a priority, a
 * deficit round robin over its flows; and the room a qdisc below may fill
 * before priorities are held.  See txsched.h.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include <sroce/txsched.h>

static void sroce_txsched_reset(struct sroce_txsched *s)
{
	memset(s->deficit, 0, sizeof(s->deficit));
	s->next = 0;
	s->in_turn = false;
}

/* Every priority ETS with equal weight: plain byte-fair round robin. */
void sroce_txsched_init(struct sroce_txsched *s)
{
	int p;

	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		s->tsa[p] = SROCE_TSA_ETS;
		s->weight[p] = 1;
	}
	sroce_txsched_reset(s);
}

/* Apply a new configuration; -EINVAL leaves the old one in place. */
int sroce_txsched_set(struct sroce_txsched *s, const u8 tsa[SROCE_NUM_PRIO],
		      const u8 weight[SROCE_NUM_PRIO])
{
	int p;

	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (tsa[p] != SROCE_TSA_ETS && tsa[p] != SROCE_TSA_STRICT)
			return -EINVAL;
		if (tsa[p] == SROCE_TSA_ETS && !weight[p])
			return -EINVAL;
	}
	memcpy(s->tsa, tsa, sizeof(s->tsa));
	memcpy(s->weight, weight, sizeof(s->weight));
	sroce_txsched_reset(s);
	return 0;
}

static void sroce_txsched_end_turn(struct sroce_txsched *s)
{
	s->next = (s->next + 1) % SROCE_NUM_PRIO;
	s->in_turn = false;
}

/**
 * sroce_txsched_pick - choose the priority that sends next
 * @s: scheduler state
 * @ready: bit p set if priority p has a packet waiting
 * @paused: bit p set if priority p may not send now (PFC, stopped queue)
 * @head_len: length of the waiting packet of each ready priority
 *
 * Returns the priority, whose deficit has been charged for the packet, or
 * -EAGAIN if no priority is both ready and unpaused.
 */
int sroce_txsched_pick(struct sroce_txsched *s, u8 ready, u8 paused,
		       const u32 head_len[SROCE_NUM_PRIO])
{
	u8 eligible = ready & ~paused;
	u8 ets = 0;
	int p;

	if (!eligible)
		return -EAGAIN;

	for (p = SROCE_NUM_PRIO - 1; p >= 0; p--) {
		if (!(eligible & BIT(p)))
			continue;
		if (s->tsa[p] == SROCE_TSA_STRICT)
			return p;
		ets |= BIT(p);
	}

	/*
	 * Each full cycle credits every eligible priority at least one
	 * quantum, and a packet is charged at most SROCE_TXSCHED_MAX_LEN, so
	 * this ends within MAX_LEN / QUANTUM + 1 cycles.
	 */
	for (;;) {
		u32 len;

		p = s->next;
		if (!(ets & BIT(p))) {
			/* an empty queue must not bank credit while idle */
			if (!(ready & BIT(p)))
				s->deficit[p] = 0;
			sroce_txsched_end_turn(s);
			continue;
		}
		if (!s->in_turn) {
			s->deficit[p] += SROCE_TXSCHED_QUANTUM * s->weight[p];
			s->in_turn = true;
		}
		len = min_t(u32, head_len[p], SROCE_TXSCHED_MAX_LEN);
		if (s->deficit[p] >= (s32)len) {
			s->deficit[p] -= len;
			return p;
		}
		sroce_txsched_end_turn(s);
	}
}

void sroce_txflows_init(struct sroce_txflows *fs)
{
	INIT_LIST_HEAD(&fs->active);
}

void sroce_txflow_init(struct sroce_txflow *f)
{
	INIT_LIST_HEAD(&f->node);
	f->deficit = 0;
	f->in_turn = false;
}

bool sroce_txflow_active(const struct sroce_txflow *f)
{
	return !list_empty(&f->node);
}

/*
 * @f, not active, got a packet: it joins the round at its end.  A flow
 * that is not active has no credit and no turn (sroce_txflow_init(), the
 * only way out of the round).
 */
void sroce_txflows_add(struct sroce_txflows *fs, struct sroce_txflow *f)
{
	list_add_tail(&f->node, &fs->active);
}

/**
 * sroce_txflows_peek - the flow whose packet goes next
 * @fs: the active flows of a priority
 * @head_len: tells the length of a flow's next packet
 *
 * Credits the flow at the head of the round for its turn, or passes the
 * turn on when its credit does not cover its next packet.  Calling it
 * again before sroce_txflows_sent() returns the same flow: a priority
 * that was not picked keeps its place.
 *
 * Return: the flow, or NULL when none has packets.
 */
struct sroce_txflow *sroce_txflows_peek(struct sroce_txflows *fs,
					sroce_txflow_len_t head_len)
{
	struct sroce_txflow *f;
	u32 len;

	/*
	 * The deficit never goes negative and a turn's credit covers any
	 * packet (lengths are charged at most a quantum): this passes the
	 * turn at most once.
	 */
	for (;;) {
		f = list_first_entry_or_null(&fs->active, struct sroce_txflow,
					     node);
		if (!f)
			return NULL;
		len = min_t(u32, head_len(f), SROCE_TXFLOW_QUANTUM);
		if (!f->in_turn) {
			f->deficit += SROCE_TXFLOW_QUANTUM;
			f->in_turn = true;
		}
		if (f->deficit >= (s32)len)
			return f;
		f->in_turn = false;
		list_move_tail(&f->node, &fs->active);
	}
}

/*
 * The packet of @len bytes that sroce_txflows_peek() chose left @f;
 * @empty: it was the last, and @f leaves the round with no credit banked.
 */
void sroce_txflows_sent(struct sroce_txflow *f, u32 len, bool empty)
{
	f->deficit -= min_t(u32, len, SROCE_TXFLOW_QUANTUM);
	if (empty) {
		list_del(&f->node);
		sroce_txflow_init(f);
	}
}

/*
 * A packet of @len bytes that left @f came back (the qdisc dropped it): it
 * is the next to go, so @f goes on with its turn, at the head.
 */
void sroce_txflows_putback(struct sroce_txflows *fs, struct sroce_txflow *f,
			   u32 len)
{
	if (!sroce_txflow_active(f)) {
		list_add(&f->node, &fs->active);
		f->in_turn = true;
	} else {
		list_move(&f->node, &fs->active);
	}
	f->deficit += min_t(u32, len, SROCE_TXFLOW_QUANTUM);
}

void sroce_txroom_init(struct sroce_txroom *r)
{
	r->room = SROCE_TXROOM_INIT;
	r->ceiling = SROCE_TXROOM_MAX;
	r->ceiling_until = 0;
	r->starved = 0;
}

/* Are @below bytes below the queue as many as it may have, or more? */
bool sroce_txroom_full(const struct sroce_txroom *r, u32 below)
{
	return below >= r->room;
}

/*
 * At @now, the bytes below ran out while packets were held back for
 * them: after enough such times in a row, more room, up to the ceiling
 * of the last drop while it lasts.
 */
void sroce_txroom_starved(struct sroce_txroom *r, u64 now)
{
	if (r->ceiling_until && now >= r->ceiling_until) {
		r->ceiling = SROCE_TXROOM_MAX;
		r->ceiling_until = 0;
	}
	if (++r->starved < SROCE_TXROOM_STARVED)
		return;
	r->starved = 0;
	r->room = min_t(u32, r->room * 2, r->ceiling);
}

/* Bytes were still below after a hold: the room bridged it */
void sroce_txroom_fed(struct sroce_txroom *r)
{
	r->starved = 0;
}

/**
 * sroce_txctx_count() - how many transmit contexts a device gets
 * @ntc: the netdev's traffic classes (mqprio), 0 without
 * @min_count: the fewest queues a class has
 * @nqueues: the netdev's transmit queues
 * @ncpu: the CPUs online
 * @per_tc: set to the contexts each class gets, 0 without classes
 *
 * Without classes, one per queue, as many as there are CPUs to run them.
 * A traffic class is what a NIC gives a send queue and an ETS share of
 * its own, so with classes each gets contexts of its own, never shared
 * with another class while there are at most SROCE_TX_MAX_CTX, and as
 * many of them as its queues, the CPUs and that limit allow.
 *
 * Return: the count, 1 to SROCE_TX_MAX_CTX.
 */
unsigned int sroce_txctx_count(unsigned int ntc, unsigned int min_count,
			       unsigned int nqueues, unsigned int ncpu,
			       unsigned int *per_tc)
{
	unsigned int per;

	if (!ntc) {
		*per_tc = 0;
		return clamp(min3(nqueues, ncpu, SROCE_TX_MAX_CTX), 1U,
			     SROCE_TX_MAX_CTX);
	}
	ntc = min_t(unsigned int, ntc, SROCE_TX_MAX_CTX);
	per = min3(SROCE_TX_MAX_CTX / ntc, min_count, ncpu);
	*per_tc = max(per, 1U);
	return ntc * *per_tc;
}

/**
 * sroce_txplace() - the context and room of a netdev queue
 * @queue: the queue
 * @tc: its traffic class, or -1 (no classes, or none when the device
 *	counted its contexts: @per_tc 0)
 * @rank: its number past its class's first queue
 * @per_tc: what sroce_txctx_count() gave
 * @nctx: what sroce_txctx_count() returned
 *
 * Without classes queues go round the contexts, so a context's queues are
 * @nctx apart and their number over @nctx tells them apart.  With them,
 * a class's queues go round its own contexts, and their rank over the
 * class's contexts tells them apart; classes beyond SROCE_TX_MAX_CTX (or
 * a layout changed since the count) wrap onto the first ones, into the
 * other half of the rooms.  Queues beyond the rooms share them.
 *
 * Return: the context and the room, both always in range.
 */
struct sroce_txplace sroce_txplace(unsigned int queue, int tc,
				   unsigned int rank, unsigned int per_tc,
				   unsigned int nctx)
{
	struct sroce_txplace p;
	unsigned int c;

	nctx = max(nctx, 1U);
	if (tc < 0 || !per_tc) {
		p.ctx = queue % nctx;
		p.slot = (queue / nctx) % SROCE_TXROOM_SLOTS;
		return p;
	}
	c = tc * per_tc + rank % per_tc;
	p.ctx = c % nctx;
	p.slot = (rank / per_tc + (c / nctx) * (SROCE_TXROOM_SLOTS / 2)) %
		 SROCE_TXROOM_SLOTS;
	return p;
}

/* At @now, a qdisc dropped a packet of ours: half the room, and no more for a while */
void sroce_txroom_dropped(struct sroce_txroom *r, u64 now)
{
	r->room = max_t(u32, r->room / 2, SROCE_TXROOM_MIN);
	r->ceiling = r->room;
	r->ceiling_until = now + SROCE_TXROOM_CEILING_NS;
	r->starved = 0;
}
