// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the transmit scheduling policy (drivers/sroce/txsched.c).
 */
#include <kunit/test.h>
#include <linux/bits.h>

#include <sroce/txsched.h>

#define ALL_PRIO	0xff

static const u8 all_ets[SROCE_NUM_PRIO];

static void fill_len(u32 len[SROCE_NUM_PRIO], u32 v)
{
	int p;

	for (p = 0; p < SROCE_NUM_PRIO; p++)
		len[p] = v;
}

/* Run @n picks and add up the bytes each priority was given. */
static void run_picks(struct kunit *test, struct sroce_txsched *s, u8 ready,
		      u8 paused, const u32 len[SROCE_NUM_PRIO], int n,
		      u64 bytes[SROCE_NUM_PRIO])
{
	int i, p;

	for (i = 0; i < n; i++) {
		p = sroce_txsched_pick(s, ready, paused, len);
		KUNIT_ASSERT_GE(test, p, 0);
		KUNIT_ASSERT_LT(test, p, SROCE_NUM_PRIO);
		KUNIT_ASSERT_TRUE(test, ready & BIT(p));
		KUNIT_ASSERT_FALSE(test, paused & BIT(p));
		bytes[p] += len[p];
	}
}

static void sroce_txsched_default_is_fair(struct kunit *test)
{
	u64 bytes[SROCE_NUM_PRIO] = {};
	u32 len[SROCE_NUM_PRIO];
	struct sroce_txsched s;
	int p;

	sroce_txsched_init(&s);
	fill_len(len, 1000);
	run_picks(test, &s, ALL_PRIO, 0, len, 8000, bytes);
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		KUNIT_EXPECT_GE(test, bytes[p], 990000ULL);
		KUNIT_EXPECT_LE(test, bytes[p], 1010000ULL);
	}
}

static void sroce_txsched_nothing_to_send(struct kunit *test)
{
	u32 len[SROCE_NUM_PRIO];
	struct sroce_txsched s;

	sroce_txsched_init(&s);
	fill_len(len, 100);
	KUNIT_EXPECT_EQ(test, sroce_txsched_pick(&s, 0, 0, len), -EAGAIN);
	KUNIT_EXPECT_EQ(test, sroce_txsched_pick(&s, 0x0f, 0x0f, len), -EAGAIN);
	KUNIT_EXPECT_EQ(test, sroce_txsched_pick(&s, 0x0f, 0xff, len), -EAGAIN);
}

static void sroce_txsched_strict_first(struct kunit *test)
{
	u8 tsa[SROCE_NUM_PRIO] = {}, weight[SROCE_NUM_PRIO];
	u32 len[SROCE_NUM_PRIO];
	struct sroce_txsched s;
	int i;

	sroce_txsched_init(&s);
	memset(weight, 1, sizeof(weight));
	tsa[3] = SROCE_TSA_STRICT;
	tsa[6] = SROCE_TSA_STRICT;
	KUNIT_ASSERT_EQ(test, sroce_txsched_set(&s, tsa, weight), 0);
	fill_len(len, 4096);

	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, sroce_txsched_pick(&s, ALL_PRIO, 0, len), 6);
	/* the higher strict one paused: the lower strict one, not ETS */
	KUNIT_EXPECT_EQ(test, sroce_txsched_pick(&s, ALL_PRIO, BIT(6), len), 3);
	/* both strict ones idle: ETS gets the link */
	KUNIT_EXPECT_EQ(test, sroce_txsched_pick(&s, BIT(0) | BIT(6), BIT(6), len), 0);
}

/* Shares follow the weights in bytes, whatever the packet sizes. */
static void sroce_txsched_weights_in_bytes(struct kunit *test)
{
	u8 weight[SROCE_NUM_PRIO] = { 50, 30, 20, 1, 1, 1, 1, 1 };
	u64 bytes[SROCE_NUM_PRIO] = {}, total;
	u32 len[SROCE_NUM_PRIO] = { 4096, 1024, 256 };
	struct sroce_txsched s;

	sroce_txsched_init(&s);
	KUNIT_ASSERT_EQ(test, sroce_txsched_set(&s, all_ets, weight), 0);
	run_picks(test, &s, 0x07, 0, len, 50000, bytes);
	total = bytes[0] + bytes[1] + bytes[2];
	/* within one percentage point of 50/30/20 */
	KUNIT_EXPECT_GE(test, bytes[0] * 100, total * 49);
	KUNIT_EXPECT_LE(test, bytes[0] * 100, total * 51);
	KUNIT_EXPECT_GE(test, bytes[1] * 100, total * 29);
	KUNIT_EXPECT_LE(test, bytes[1] * 100, total * 31);
	KUNIT_EXPECT_GE(test, bytes[2] * 100, total * 19);
	KUNIT_EXPECT_LE(test, bytes[2] * 100, total * 21);
}

/* A paused priority is never picked and does not stop the others. */
static void sroce_txsched_paused_skipped(struct kunit *test)
{
	u64 bytes[SROCE_NUM_PRIO] = {};
	u32 len[SROCE_NUM_PRIO];
	struct sroce_txsched s;

	sroce_txsched_init(&s);
	fill_len(len, 1500);
	run_picks(test, &s, 0x07, BIT(1), len, 3000, bytes);
	KUNIT_EXPECT_EQ(test, bytes[1], 0ULL);
	KUNIT_EXPECT_GE(test, bytes[0], 1490ULL * 1500);
	KUNIT_EXPECT_GE(test, bytes[2], 1490ULL * 1500);
}

/*
 * Credit is not banked while a priority is idle or paused: when it comes
 * back it gets its turn's share, not a burst making up for lost time.
 */
static void sroce_txsched_no_banking(struct kunit *test)
{
	u32 len[SROCE_NUM_PRIO];
	struct sroce_txsched s;
	int i, run = 0;

	sroce_txsched_init(&s);
	fill_len(len, 1024);
	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, sroce_txsched_pick(&s, BIT(1), 0, len), 1);
	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, sroce_txsched_pick(&s, 0x03, BIT(0), len), 1);

	/* both back: p0 may not send more than one turn in a row */
	for (i = 0; i < 100; i++) {
		int p = sroce_txsched_pick(&s, 0x03, 0, len);

		run = p == 0 ? run + 1 : 0;
		KUNIT_EXPECT_LE(test, run, 1);
	}
}

/* A packet far over the turn credit still goes out, after a few turns. */
static void sroce_txsched_big_packet(struct kunit *test)
{
	u64 bytes[SROCE_NUM_PRIO] = {};
	u32 len[SROCE_NUM_PRIO] = { U32_MAX, 1024 };
	struct sroce_txsched s;

	sroce_txsched_init(&s);
	run_picks(test, &s, 0x03, 0, len, 200, bytes);
	KUNIT_EXPECT_GT(test, bytes[0], 0ULL);
	KUNIT_EXPECT_GT(test, bytes[1], 0ULL);
}

static void sroce_txsched_set_rejects(struct kunit *test)
{
	u8 tsa[SROCE_NUM_PRIO] = {}, weight[SROCE_NUM_PRIO];
	u32 len[SROCE_NUM_PRIO];
	struct sroce_txsched s;

	sroce_txsched_init(&s);
	memset(weight, 10, sizeof(weight));
	weight[2] = 0;
	KUNIT_EXPECT_EQ(test, sroce_txsched_set(&s, tsa, weight), -EINVAL);
	/* a strict priority needs no weight */
	tsa[2] = SROCE_TSA_STRICT;
	KUNIT_EXPECT_EQ(test, sroce_txsched_set(&s, tsa, weight), 0);
	tsa[5] = 7;
	KUNIT_EXPECT_EQ(test, sroce_txsched_set(&s, tsa, weight), -EINVAL);
	/* the rejected call left priority 2 strict */
	fill_len(len, 64);
	KUNIT_EXPECT_EQ(test, sroce_txsched_pick(&s, ALL_PRIO, 0, len), 2);
}

/* Starve @r @n times in a row at @now */
static void starve(struct sroce_txroom *r, u64 now, int n)
{
	while (n--)
		sroce_txroom_starved(r, now);
}

/*
 * The room doubles after SROCE_TXROOM_STARVED starvations in a row, up to
 * its maximum; one fed hold in between starts the count again.  Full
 * means at or over.
 */
static void sroce_txroom_grows(struct kunit *test)
{
	struct sroce_txroom r;

	sroce_txroom_init(&r);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_INIT);
	KUNIT_EXPECT_FALSE(test, sroce_txroom_full(&r, SROCE_TXROOM_INIT - 1));
	KUNIT_EXPECT_TRUE(test, sroce_txroom_full(&r, SROCE_TXROOM_INIT));
	starve(&r, 1, SROCE_TXROOM_STARVED - 1);
	sroce_txroom_fed(&r);
	starve(&r, 1, SROCE_TXROOM_STARVED - 1);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_INIT);
	starve(&r, 1, 1);
	KUNIT_EXPECT_EQ(test, r.room, 2 * SROCE_TXROOM_INIT);
	starve(&r, 1, 32 * SROCE_TXROOM_STARVED);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_MAX);
}

/*
 * A drop halves the room, never below the minimum, and caps its growth
 * for SROCE_TXROOM_CEILING_NS; starvations after that grow it again.
 */
static void sroce_txroom_drop_caps(struct kunit *test)
{
	const u64 t0 = 5 * NSEC_PER_SEC;
	struct sroce_txroom r;
	int i;

	sroce_txroom_init(&r);
	starve(&r, t0, SROCE_TXROOM_STARVED);
	sroce_txroom_dropped(&r, t0);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_INIT);
	starve(&r, t0 + SROCE_TXROOM_CEILING_NS - 1, 4 * SROCE_TXROOM_STARVED);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_INIT);
	starve(&r, t0 + SROCE_TXROOM_CEILING_NS, SROCE_TXROOM_STARVED);
	KUNIT_EXPECT_EQ(test, r.room, 2 * SROCE_TXROOM_INIT);

	for (i = 0; i < 32; i++)
		sroce_txroom_dropped(&r, 2 * t0);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_MIN);
	KUNIT_EXPECT_TRUE(test, sroce_txroom_full(&r, SROCE_TXROOM_MIN));
}

/*
 * A netdev of @ntc traffic classes of @count queues each (offsets @count
 * apart; @ntc 0: @count queues and no classes) on @ncpu CPUs: every queue
 * has one context and a room of its own in it, and with classes no
 * context sends for two of them.
 */
static void expect_placed_apart(struct kunit *test, unsigned int ntc,
				unsigned int count, unsigned int ncpu,
				unsigned int want_nctx)
{
	unsigned int nctx, per, t, r, q;
	u32 slots[SROCE_TX_MAX_CTX] = {};
	int owner[SROCE_TX_MAX_CTX];
	struct sroce_txplace p;

	nctx = sroce_txctx_count(ntc, count, max(ntc, 1U) * count, ncpu, &per);
	KUNIT_EXPECT_EQ_MSG(test, nctx, want_nctx, "%u classes of %u, %u CPUs",
			    ntc, count, ncpu);
	KUNIT_ASSERT_GE(test, nctx, 1U);
	KUNIT_ASSERT_LE(test, nctx, SROCE_TX_MAX_CTX);
	for (t = 0; t < SROCE_TX_MAX_CTX; t++)
		owner[t] = -1;
	for (t = 0; t < max(ntc, 1U); t++) {
		for (r = 0; r < count; r++) {
			q = t * count + r;
			p = sroce_txplace(q, ntc ? (int)t : -1, ntc ? r : 0,
					  per, nctx);
			KUNIT_ASSERT_LT(test, p.ctx, nctx);
			KUNIT_ASSERT_LT(test, p.slot, SROCE_TXROOM_SLOTS);
			KUNIT_EXPECT_FALSE_MSG(test, slots[p.ctx] & BIT(p.slot),
					       "queue %u shares room %u of context %u",
					       q, p.slot, p.ctx);
			slots[p.ctx] |= BIT(p.slot);
			if (ntc && owner[p.ctx] >= 0)
				KUNIT_EXPECT_EQ_MSG(test, owner[p.ctx], (int)t,
						    "classes %d and %u share context %u",
						    owner[p.ctx], t, p.ctx);
			owner[p.ctx] = t;
		}
	}
	/* every context sends for some queue */
	for (t = 0; t < nctx; t++)
		KUNIT_EXPECT_NE_MSG(test, slots[t], 0U, "context %u unused", t);
}

/*
 * Contexts and rooms of a device.  Without classes, queues go round as
 * many contexts as there are CPUs (at most eight).  With mqprio a class
 * has contexts of its own, whatever the CPUs: the layout of
 * isolation.sh (eight classes of one queue) once had one context for all
 * on any CPU count, then, going round two CPUs' contexts, put classes 0
 * and 2 together.
 */
static void sroce_txplace_per_class(struct kunit *test)
{
	unsigned int per;
	struct sroce_txplace p;

	expect_placed_apart(test, 8, 1, 2, 8);
	expect_placed_apart(test, 8, 1, 1, 8);
	expect_placed_apart(test, 8, 8, 8, 8);
	expect_placed_apart(test, 4, 4, 4, 8);
	expect_placed_apart(test, 2, 4, 2, 4);
	expect_placed_apart(test, 3, 2, 8, 6);
	expect_placed_apart(test, 1, 16, 1, 1);
	expect_placed_apart(test, 0, 64, 8, 8);
	expect_placed_apart(test, 0, 16, 1, 1);
	expect_placed_apart(test, 0, 2, 2, 2);
	expect_placed_apart(test, 0, 1, 4, 1);
	/* classes of several queues: one context each, two CPUs or eight */
	KUNIT_EXPECT_EQ(test, sroce_txctx_count(8, 2, 16, 2, &per), 8U);
	KUNIT_EXPECT_EQ(test, per, 1U);
	/* sixteen classes wrap onto eight contexts, into other rooms */
	KUNIT_EXPECT_EQ(test, sroce_txctx_count(16, 1, 16, 2, &per), 8U);
	p = sroce_txplace(9, 9, 0, per, 8);
	KUNIT_EXPECT_EQ(test, p.ctx, 1U);
	KUNIT_EXPECT_NE(test, p.slot, sroce_txplace(1, 1, 0, per, 8).slot);
	/* a class the count never saw, and no contexts: still in range */
	p = sroce_txplace(40, 12, 3, 2, 6);
	KUNIT_EXPECT_LT(test, p.ctx, 6U);
	KUNIT_EXPECT_LT(test, p.slot, SROCE_TXROOM_SLOTS);
	KUNIT_EXPECT_EQ(test, sroce_txplace(5, -1, 0, 0, 0).ctx, 0U);
	KUNIT_EXPECT_EQ(test, sroce_txplace(17, -1, 0, 0, 1).slot, 1U);
}

/* A flow of the DRR inside a priority: a list of packet lengths */
struct fake_flow {
	struct sroce_txflow drr;
	const u32 *len;
	int n;
	int next;
	u64 bytes;
};

static u32 fake_head_len(const struct sroce_txflow *f)
{
	const struct fake_flow *ff = container_of(f, struct fake_flow, drr);

	return ff->len[ff->next];
}

static void fake_add(struct sroce_txflows *fs, struct fake_flow *ff,
		     const u32 *len, int n)
{
	ff->len = len;
	ff->n = n;
	ff->next = 0;
	ff->bytes = 0;
	sroce_txflow_init(&ff->drr);
	sroce_txflows_add(fs, &ff->drr);
}

/* Peek, check the flow is one of ours, and send its head packet */
static struct fake_flow *fake_send(struct kunit *test,
				   struct sroce_txflows *fs)
{
	struct sroce_txflow *f = sroce_txflows_peek(fs, fake_head_len);
	struct fake_flow *ff;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, f);
	ff = container_of(f, struct fake_flow, drr);
	KUNIT_ASSERT_LT(test, ff->next, ff->n);
	len = ff->len[ff->next++];
	ff->bytes += len;
	sroce_txflows_sent(f, len, ff->next == ff->n);
	return ff;
}

/*
 * A flow with one small packet that joins behind a backlogged bulk flow
 * is served after at most one quantum of the bulk flow, not after its
 * backlog.
 */
static void sroce_txflows_newcomer_next_round(struct kunit *test)
{
	static u32 bulk_len[512], one[1] = { 64 };
	struct fake_flow bulk, lat;
	struct sroce_txflows fs;
	int i, at = -1;

	for (i = 0; i < ARRAY_SIZE(bulk_len); i++)
		bulk_len[i] = 4096 + 78;
	sroce_txflows_init(&fs);
	fake_add(&fs, &bulk, bulk_len, ARRAY_SIZE(bulk_len));
	fake_send(test, &fs);
	fake_add(&fs, &lat, one, 1);
	for (i = 0; i < 4 && at < 0; i++)
		if (fake_send(test, &fs) == &lat)
			at = i;
	/* the bulk flow's turn covered one packet, sent before the newcomer */
	KUNIT_EXPECT_EQ(test, at, 0);
	KUNIT_EXPECT_FALSE(test, sroce_txflow_active(&lat.drr));
	KUNIT_EXPECT_TRUE(test, sroce_txflow_active(&bulk.drr));
}

/* Two backlogged flows of different packet sizes get equal bytes */
static void sroce_txflows_fair_in_bytes(struct kunit *test)
{
	static u32 small[4000], big[1000];
	struct fake_flow a, b;
	struct sroce_txflows fs;
	int i;

	for (i = 0; i < ARRAY_SIZE(small); i++)
		small[i] = 1024;
	for (i = 0; i < ARRAY_SIZE(big); i++)
		big[i] = 4096;
	sroce_txflows_init(&fs);
	fake_add(&fs, &a, small, ARRAY_SIZE(small));
	fake_add(&fs, &b, big, ARRAY_SIZE(big));
	for (i = 0; i < 1500; i++)
		fake_send(test, &fs);
	/* a round robin over bytes: apart by at most a quantum plus a packet */
	KUNIT_EXPECT_LE(test, abs((s64)a.bytes - (s64)b.bytes),
			(s64)SROCE_TXFLOW_QUANTUM + 4096);
	KUNIT_EXPECT_GT(test, a.bytes, 1000ULL * 1024);
}

/* Peeking again picks the same flow and credits nothing more */
static void sroce_txflows_peek_keeps_place(struct kunit *test)
{
	static u32 len[2] = { 3000, 3000 };
	struct fake_flow a, b;
	struct sroce_txflows fs;
	struct sroce_txflow *f;
	s32 deficit;

	sroce_txflows_init(&fs);
	KUNIT_EXPECT_NULL(test, sroce_txflows_peek(&fs, fake_head_len));
	fake_add(&fs, &a, len, 2);
	fake_add(&fs, &b, len, 2);
	f = sroce_txflows_peek(&fs, fake_head_len);
	KUNIT_ASSERT_PTR_EQ(test, f, &a.drr);
	deficit = a.drr.deficit;
	KUNIT_EXPECT_PTR_EQ(test, sroce_txflows_peek(&fs, fake_head_len), f);
	KUNIT_EXPECT_EQ(test, a.drr.deficit, deficit);
	fake_send(test, &fs);
	/* 1608 bytes left of the quantum do not cover 3000: b's turn */
	KUNIT_EXPECT_PTR_EQ(test, fake_send(test, &fs), &b);
	KUNIT_EXPECT_PTR_EQ(test, fake_send(test, &fs), &a);
	KUNIT_EXPECT_PTR_EQ(test, fake_send(test, &fs), &b);
	KUNIT_EXPECT_NULL(test, sroce_txflows_peek(&fs, fake_head_len));
	KUNIT_EXPECT_EQ(test, a.drr.deficit, 0);
}

/*
 * A packet the qdisc dropped is put back: its flow goes first again, even
 * when the packet had emptied it, and then the round goes on.
 */
static void sroce_txflows_putback_first(struct kunit *test)
{
	static u32 one[1] = { 2000 }, two[2] = { 2000, 2000 };
	struct fake_flow a, b;
	struct sroce_txflows fs;

	sroce_txflows_init(&fs);
	fake_add(&fs, &a, one, 1);
	fake_add(&fs, &b, two, 2);
	KUNIT_ASSERT_PTR_EQ(test, fake_send(test, &fs), &a);
	KUNIT_EXPECT_FALSE(test, sroce_txflow_active(&a.drr));
	a.next = 0;
	a.bytes = 0;
	sroce_txflows_putback(&fs, &a.drr, one[0]);
	KUNIT_EXPECT_PTR_EQ(test, fake_send(test, &fs), &a);
	KUNIT_EXPECT_PTR_EQ(test, fake_send(test, &fs), &b);
	/* b mid-turn: its packet comes back and goes first again */
	b.next--;
	sroce_txflows_putback(&fs, &b.drr, two[0]);
	KUNIT_EXPECT_PTR_EQ(test, fake_send(test, &fs), &b);
	KUNIT_EXPECT_PTR_EQ(test, fake_send(test, &fs), &b);
	KUNIT_EXPECT_NULL(test, sroce_txflows_peek(&fs, fake_head_len));
}

static struct kunit_case sroce_txsched_cases[] = {
	KUNIT_CASE(sroce_txsched_default_is_fair),
	KUNIT_CASE(sroce_txsched_nothing_to_send),
	KUNIT_CASE(sroce_txsched_strict_first),
	KUNIT_CASE(sroce_txsched_weights_in_bytes),
	KUNIT_CASE(sroce_txsched_paused_skipped),
	KUNIT_CASE(sroce_txsched_no_banking),
	KUNIT_CASE(sroce_txsched_big_packet),
	KUNIT_CASE(sroce_txsched_set_rejects),
	KUNIT_CASE(sroce_txroom_grows),
	KUNIT_CASE(sroce_txroom_drop_caps),
	KUNIT_CASE(sroce_txplace_per_class),
	KUNIT_CASE(sroce_txflows_newcomer_next_round),
	KUNIT_CASE(sroce_txflows_fair_in_bytes),
	KUNIT_CASE(sroce_txflows_peek_keeps_place),
	KUNIT_CASE(sroce_txflows_putback_first),
	{}
};

static struct kunit_suite sroce_txsched_suite = {
	.name = "sroce_txsched",
	.test_cases = sroce_txsched_cases,
};

kunit_test_suites(&sroce_txsched_suite);
