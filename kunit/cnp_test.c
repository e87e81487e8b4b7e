// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the DCQCN notification point's pacing of CNPs
 * (include/sroce/cnp.h), with injected time.
 */
#include <kunit/test.h>
#include <linux/atomic.h>

#include <sroce/cnp.h>

#define US	NSEC_PER_USEC

/* One CNP per window: the first at once, the next no sooner than @min */
static void sroce_np_due_window(struct kunit *test)
{
	u64 t0 = 5000 * US;

	KUNIT_EXPECT_TRUE(test, sroce_np_due(0, 1, 50));
	KUNIT_EXPECT_FALSE(test, sroce_np_due(t0, t0, 50));
	KUNIT_EXPECT_FALSE(test, sroce_np_due(t0, t0 + 50 * US - 1, 50));
	KUNIT_EXPECT_TRUE(test, sroce_np_due(t0, t0 + 50 * US, 50));
	/* 0: a CNP for every marked packet */
	KUNIT_EXPECT_TRUE(test, sroce_np_due(t0, t0, 0));
	/* the longest interval does not overflow */
	KUNIT_EXPECT_FALSE(test, sroce_np_due(t0, t0 + 999999 * US, 1000000));
	KUNIT_EXPECT_TRUE(test, sroce_np_due(t0, t0 + 1000000 * US, 1000000));
}

/* Marked packets every 7 us for 1 ms, 50 us apart: 20 CNPs, spaced so */
static void sroce_np_claim_sequence(struct kunit *test)
{
	atomic64_t last = ATOMIC64_INIT(0);
	u64 t, prev = 0, start = 1000 * US;
	int n = 0;

	for (t = start; t < start + 1000 * US; t += 7 * US) {
		if (!sroce_np_claim(&last, t, 50))
			continue;
		if (n)
			KUNIT_EXPECT_GE(test, t - prev, 50 * US);
		KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&last), t);
		prev = t;
		n++;
	}
	/* 56 us apart (the first multiple of 7 at or past 50): 18 windows */
	KUNIT_EXPECT_EQ(test, n, 18);
}

/* A refused claim leaves the window where it was, so it cannot slide */
static void sroce_np_claim_refused(struct kunit *test)
{
	atomic64_t last = ATOMIC64_INIT(100 * US);

	KUNIT_EXPECT_TRUE(test, sroce_np_claim(&last, 200 * US, 50));
	KUNIT_EXPECT_FALSE(test, sroce_np_claim(&last, 249 * US, 50));
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&last), 200 * US);
	KUNIT_EXPECT_TRUE(test, sroce_np_claim(&last, 250 * US, 50));
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&last), 250 * US);
}

static struct kunit_case sroce_cnp_cases[] = {
	KUNIT_CASE(sroce_np_due_window),
	KUNIT_CASE(sroce_np_claim_sequence),
	KUNIT_CASE(sroce_np_claim_refused),
	{}
};

static struct kunit_suite sroce_cnp_suite = {
	.name = "sroce_cnp",
	.test_cases = sroce_cnp_cases,
};

kunit_test_suites(&sroce_cnp_suite);
