// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for PFC frames and the pause clock (drivers/sroce/pfc.c),
 * with the time injected.
 */
#include <kunit/test.h>
#include <linux/bits.h>

#include <sroce/compat.h>
#include <sroce/pfc.h>

/* A PFC frame after its EtherType: @vector, each priority's time @q[p] */
static void make_frame(u8 buf[SROCE_PFC_LEN], u16 opcode, u16 vector,
		       const u16 q[SROCE_NUM_PRIO])
{
	int p;

	put_unaligned_be16(opcode, buf);
	put_unaligned_be16(vector, buf + 2);
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		put_unaligned_be16(q[p], buf + 4 + 2 * p);
}

static const u16 all_max[SROCE_NUM_PRIO] = {
	0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
};

static void sroce_pfc_parse_valid(struct kunit *test)
{
	u16 q[SROCE_NUM_PRIO] = { 1, 2, 3, 0xffff, 5, 6, 7, 0 };
	struct sroce_pfc_frame f;
	u8 buf[SROCE_PFC_LEN + 26];
	int p;

	make_frame(buf, SROCE_PFC_OPCODE, 0x88, q);
	/* padded to the shortest Ethernet frame, as on the wire */
	KUNIT_ASSERT_EQ(test, sroce_pfc_parse(buf, sizeof(buf), &f), 0);
	KUNIT_EXPECT_EQ(test, f.enable, 0x88);
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		KUNIT_EXPECT_EQ(test, f.quanta[p], q[p]);
}

static void sroce_pfc_parse_malformed(struct kunit *test)
{
	struct sroce_pfc_frame f = { .enable = 0x5a };
	u8 buf[SROCE_PFC_LEN];
	unsigned int len;

	make_frame(buf, SROCE_PFC_OPCODE, 0x08, all_max);
	for (len = 0; len < SROCE_PFC_LEN; len++)
		KUNIT_EXPECT_EQ(test, sroce_pfc_parse(buf, len, &f), -EINVAL);
	/* 802.3x PAUSE, and an opcode no one defined */
	make_frame(buf, 0x0001, 0x08, all_max);
	KUNIT_EXPECT_EQ(test, sroce_pfc_parse(buf, sizeof(buf), &f),
			-EOPNOTSUPP);
	make_frame(buf, 0x0102, 0x08, all_max);
	KUNIT_EXPECT_EQ(test, sroce_pfc_parse(buf, sizeof(buf), &f),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, f.enable, 0x5a);
	/* the reserved octet of the vector is ignored */
	make_frame(buf, SROCE_PFC_OPCODE, 0xff08, all_max);
	KUNIT_ASSERT_EQ(test, sroce_pfc_parse(buf, sizeof(buf), &f), 0);
	KUNIT_EXPECT_EQ(test, f.enable, 0x08);
}

static void sroce_pfc_quanta_time(struct kunit *test)
{
	/* 65535 quanta of 512 bit times at 10 Gb/s */
	KUNIT_EXPECT_EQ(test, sroce_pfc_quanta_ns(0xffff, 10000), 3355392ULL);
	KUNIT_EXPECT_EQ(test, sroce_pfc_quanta_ns(0xffff, 100000), 335539ULL);
	KUNIT_EXPECT_EQ(test, sroce_pfc_quanta_ns(1, 1000), 512ULL);
	KUNIT_EXPECT_EQ(test, sroce_pfc_quanta_ns(0, 1000), 0ULL);
	/* an unknown speed: the default */
	KUNIT_EXPECT_EQ(test, sroce_pfc_quanta_ns(100, 0),
			sroce_pfc_quanta_ns(100, SROCE_PFC_DEFAULT_SPEED));
}

static struct sroce_pfc_frame one(int prio, u16 quanta)
{
	struct sroce_pfc_frame f = { .enable = BIT(prio) };
	int p;

	/* times for the priorities not enabled must not count */
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		f.quanta[p] = 0xffff;
	f.quanta[prio] = quanta;
	return f;
}

static void sroce_pfc_pause_expires(struct kunit *test)
{
	struct sroce_pfc_frame f = one(3, 1000);
	struct sroce_pfc_state s = {};
	u64 d = sroce_pfc_quanta_ns(1000, 1000);	/* 512 us */

	sroce_pfc_rx(&s, &f, 1000, 5000);
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, 5000), BIT(3));
	KUNIT_EXPECT_EQ(test, sroce_pfc_next_end(&s), 5000 + d);
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, 5000 + d - 1), BIT(3));
	KUNIT_EXPECT_EQ(test, sroce_pfc_duration_ns(&s, 3, 5000 + d / 2), d / 2);
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, 5000 + d), 0);
	KUNIT_EXPECT_EQ(test, sroce_pfc_next_end(&s), 0ULL);
	/* the whole pause, not the time until it was noticed */
	KUNIT_EXPECT_EQ(test, sroce_pfc_duration_ns(&s, 3, 5000 + 10 * d), d);
	KUNIT_EXPECT_EQ(test, s.frames[3], 1ULL);
	KUNIT_EXPECT_EQ(test, s.frames[2] + s.frames[4], 0ULL);
}

static void sroce_pfc_xon_resumes(struct kunit *test)
{
	struct sroce_pfc_frame off = one(5, 0xffff), on = one(5, 0);
	struct sroce_pfc_state s = {};

	sroce_pfc_rx(&s, &off, 10000, 0);
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, 1000), BIT(5));
	sroce_pfc_rx(&s, &on, 10000, 1000);
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, 1000), 0);
	KUNIT_EXPECT_EQ(test, sroce_pfc_duration_ns(&s, 5, 9999999), 1000ULL);
	/* XON is not a pause frame; an XON to a running priority is no-op */
	KUNIT_EXPECT_EQ(test, s.frames[5], 1ULL);
	sroce_pfc_rx(&s, &on, 10000, 2000);
	KUNIT_EXPECT_EQ(test, sroce_pfc_duration_ns(&s, 5, 9999999), 1000ULL);
}

static void sroce_pfc_refresh_replaces(struct kunit *test)
{
	struct sroce_pfc_frame f = one(0, 2000), shorter = one(0, 10);
	struct sroce_pfc_state s = {};
	u64 d = sroce_pfc_quanta_ns(2000, 1000);

	sroce_pfc_rx(&s, &f, 1000, 0);
	sroce_pfc_rx(&s, &f, 1000, d / 2);
	KUNIT_EXPECT_EQ(test, sroce_pfc_next_end(&s), d / 2 + d);
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, d + 1), BIT(0));
	/* a shorter time cuts the pause short */
	sroce_pfc_rx(&s, &shorter, 1000, d);
	KUNIT_EXPECT_EQ(test, sroce_pfc_next_end(&s),
			d + sroce_pfc_quanta_ns(10, 1000));
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, d + 2 * 5120), 0);
	/* one pause from 0 to its end */
	KUNIT_EXPECT_EQ(test, sroce_pfc_duration_ns(&s, 0, 100 * d),
			d + sroce_pfc_quanta_ns(10, 1000));
	KUNIT_EXPECT_EQ(test, s.frames[0], 3ULL);
}

static void sroce_pfc_priorities_apart(struct kunit *test)
{
	struct sroce_pfc_frame f = { .enable = BIT(1) | BIT(6) };
	struct sroce_pfc_state s = {};

	f.quanta[1] = 100;
	f.quanta[6] = 300;
	f.quanta[3] = 0xffff;	/* not enabled */
	sroce_pfc_rx(&s, &f, 1000, 0);
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, 1), BIT(1) | BIT(6));
	KUNIT_EXPECT_EQ(test, sroce_pfc_next_end(&s),
			sroce_pfc_quanta_ns(100, 1000));
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, sroce_pfc_quanta_ns(100, 1000)),
			BIT(6));
	KUNIT_EXPECT_EQ(test, sroce_pfc_next_end(&s),
			sroce_pfc_quanta_ns(300, 1000));
	KUNIT_EXPECT_EQ(test, sroce_pfc_paused(&s, sroce_pfc_quanta_ns(300, 1000)),
			0);
}

static struct kunit_case sroce_pfc_cases[] = {
	KUNIT_CASE(sroce_pfc_parse_valid),
	KUNIT_CASE(sroce_pfc_parse_malformed),
	KUNIT_CASE(sroce_pfc_quanta_time),
	KUNIT_CASE(sroce_pfc_pause_expires),
	KUNIT_CASE(sroce_pfc_xon_resumes),
	KUNIT_CASE(sroce_pfc_refresh_replaces),
	KUNIT_CASE(sroce_pfc_priorities_apart),
	{}
};

static struct kunit_suite sroce_pfc_suite = {
	.name = "sroce_pfc",
	.test_cases = sroce_pfc_cases,
};

kunit_test_suites(&sroce_pfc_suite);
