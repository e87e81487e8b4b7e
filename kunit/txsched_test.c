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

/* Starve @r @n times in a row */
static void starve(struct sroce_txroom *r, unsigned long qdisc, int n)
{
	while (n--)
		sroce_txroom_starved(r, qdisc);
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
	starve(&r, 0x1000, SROCE_TXROOM_STARVED - 1);
	sroce_txroom_fed(&r);
	starve(&r, 0x1000, SROCE_TXROOM_STARVED - 1);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_INIT);
	starve(&r, 0x1000, 1);
	KUNIT_EXPECT_EQ(test, r.room, 2 * SROCE_TXROOM_INIT);
	starve(&r, 0x1000, 32 * SROCE_TXROOM_STARVED);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_MAX);
}

/*
 * A drop halves the room, never below the minimum, and caps its growth
 * until another qdisc starves.
 */
static void sroce_txroom_drop_caps(struct kunit *test)
{
	const unsigned long tbf = 0x1000, other = 0x2000;
	struct sroce_txroom r;
	int i;

	sroce_txroom_init(&r);
	starve(&r, tbf, SROCE_TXROOM_STARVED);
	sroce_txroom_dropped(&r, tbf);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_INIT);
	starve(&r, tbf, 4 * SROCE_TXROOM_STARVED);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_INIT);
	starve(&r, other, SROCE_TXROOM_STARVED);
	KUNIT_EXPECT_EQ(test, r.room, 2 * SROCE_TXROOM_INIT);

	for (i = 0; i < 32; i++)
		sroce_txroom_dropped(&r, tbf);
	KUNIT_EXPECT_EQ(test, r.room, SROCE_TXROOM_MIN);
	KUNIT_EXPECT_TRUE(test, sroce_txroom_full(&r, SROCE_TXROOM_MIN));
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
	{}
};

static struct kunit_suite sroce_txsched_suite = {
	.name = "sroce_txsched",
	.test_cases = sroce_txsched_cases,
};

kunit_test_suites(&sroce_txsched_suite);
