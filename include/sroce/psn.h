/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 24-bit packet sequence number arithmetic.  PSNs wrap at 2^24, so ordering
 * is only meaningful within half the space: a PSN up to 2^23 - 1 ahead of
 * another is after it, one up to 2^23 behind is before it.  At exactly 2^23
 * apart each PSN compares as before the other; nothing in a correctly
 * behaving connection gets that far (windows are a few thousand PSNs).
 */
#ifndef SROCE_PSN_H
#define SROCE_PSN_H

#include <linux/bitops.h>
#include <linux/types.h>

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		0x00ffffffU
#define SROCE_PSN_HALF		0x00800000U

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

static inline u32 sroce_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & SROCE_PSN_MASK;
}

/* Signed distance from @b to @a, in [-2^23, 2^23). */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return sign_extend32(a - b, SROCE_PSN_BITS - 1);
}

/* Negative, zero or positive as @a is before, equal to or after @b. */
static inline int sroce_psn_cmp(u32 a, u32 b)
{
	s32 d = sroce_psn_diff(a, b);

	return (d > 0) - (d < 0);
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

/* @psn lies in the inclusive range [@first, @last], which may wrap. */
static inline bool sroce_psn_in_range(u32 psn, u32 first, u32 last)
{
	return sroce_psn_diff(psn, first) >= 0 && sroce_psn_diff(last, psn) >= 0;
}

#endif /* SROCE_PSN_H */
