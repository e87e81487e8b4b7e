// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for 24-bit PSN arithmetic, around the 0xffffff -> 0 wrap and
 * at the edges of the half-space window.
 */
#include <kunit/test.h>

#include <sroce/wire.h>

static void sroce_psn_add_sub_wrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xfffffe, 1), 0xffffff);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xffffff, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xfffff0, 0x20), 0x10);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(5, 0xffffff), 4);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0x123456, 0x1000000), 0x123456);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0, 0), 0);

	KUNIT_EXPECT_EQ(test, sroce_psn_sub(0, 1), 0xffffff);
	KUNIT_EXPECT_EQ(test, sroce_psn_sub(3, 5), 0xfffffe);
	KUNIT_EXPECT_EQ(test, sroce_psn_sub(0x10, 0x20), 0xfffff0);
	KUNIT_EXPECT_EQ(test, sroce_psn_sub(0x800000, 0x800000), 0);
	KUNIT_EXPECT_EQ(test, sroce_psn_sub(sroce_psn_add(0xabcdef, 0x654321), 0x654321),
			0xabcdef);
}

static void sroce_psn_cmp_wrap(struct kunit *test)
{
	KUNIT_EXPECT_GT(test, sroce_psn_cmp(0, 0xffffff), 0);
	KUNIT_EXPECT_LT(test, sroce_psn_cmp(0xffffff, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_psn_cmp(0x123456, 0x123456), 0);
	KUNIT_EXPECT_EQ(test, sroce_psn_cmp(0, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_psn_cmp(7, 3), 1);
	KUNIT_EXPECT_EQ(test, sroce_psn_cmp(3, 7), -1);

	KUNIT_EXPECT_EQ(test, sroce_psn_diff(2, 0xfffffe), 4);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0xfffffe, 2), -4);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x000010, 0xfffff0), 0x20);

	KUNIT_EXPECT_TRUE(test, sroce_psn_before(0xffffff, 0));
	KUNIT_EXPECT_FALSE(test, sroce_psn_before(0, 0xffffff));
	KUNIT_EXPECT_TRUE(test, sroce_psn_after(0, 0xffffff));
	KUNIT_EXPECT_FALSE(test, sroce_psn_after(5, 5));
	KUNIT_EXPECT_FALSE(test, sroce_psn_before(5, 5));
}

static void sroce_psn_half_window(struct kunit *test)
{
	/* up to 2^23 - 1 ahead is after */
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	KUNIT_EXPECT_GT(test, sroce_psn_cmp(0x7fffff, 0), 0);
	KUNIT_EXPECT_GT(test, sroce_psn_cmp(0x7ffffe, 0xffffff), 0);
	/* one more and it is behind */
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x800001, 0), -0x7fffff);
	KUNIT_EXPECT_LT(test, sroce_psn_cmp(0x800001, 0), 0);
	/* exactly half way each side sees the other as ahead */
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x800000, 0), -0x800000);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0, 0x800000), -0x800000);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x923456, 0x123456), -0x800000);
}

/* Callers may hand in values with junk above bit 23; it must not matter. */
static void sroce_psn_ignores_high_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x1000005, 5), 0);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0xff000003, 2), 1);
	KUNIT_EXPECT_EQ(test, sroce_psn_cmp(2, 0xff000003), -1);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xff000000, 1), 1);
	KUNIT_EXPECT_EQ(test, sroce_psn_sub(0xff000000, 1), 0xffffff);
}

static void sroce_psn_range(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_range(0x100, 0x100, 0x100));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_range(0x150, 0x100, 0x1ff));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_range(0x200, 0x100, 0x1ff));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_range(0xff, 0x100, 0x1ff));
	/* a range spanning the wrap */
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_range(0xfffff0, 0xfffff0, 0x10));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_range(0xffffff, 0xfffff0, 0x10));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_range(0, 0xfffff0, 0x10));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_range(0x10, 0xfffff0, 0x10));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_range(0x11, 0xfffff0, 0x10));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_range(0xffffef, 0xfffff0, 0x10));
}

static struct kunit_case sroce_psn_test_cases[] = {
	KUNIT_CASE(sroce_psn_add_sub_wrap),
	KUNIT_CASE(sroce_psn_cmp_wrap),
	KUNIT_CASE(sroce_psn_half_window),
	KUNIT_CASE(sroce_psn_ignores_high_bits),
	KUNIT_CASE(sroce_psn_range),
	{}
};

static struct kunit_suite sroce_psn_test_suite = {
	.name = "sroce_psn",
	.test_cases = sroce_psn_test_cases,
};

kunit_test_suites(&sroce_psn_test_suite);
