// SPDX-License-Identifier: GPL-2.0
/*
 * AETH code tables.  Both the RNR NAK timer codes and the ACK credit codes
 * follow the same scale: codes 1..4 are linear, after that odd codes are
 * 6 * 2^k and even codes 8 * 2^k units, so they are computed rather than
 * tabulated.  RNR timer units are 10 us and code 0 means the longest wait.
 */
#include <linux/limits.h>
#include <linux/time64.h>

#include <sroce/hdr.h>

#define SROCE_RNR_UNIT_US	10
#define SROCE_RNR_CODE0_US	655360

static u32 sroce_aeth_scale(u8 code)
{
	if (code <= 4)
		return code;
	return ((code & 1) ? 6U : 8U) << ((code - 5) / 2);
}

u32 sroce_rnr_timer_us(u8 timer_code)
{
	timer_code &= SROCE_AETH_VALUE_MASK;
	if (!timer_code)
		return SROCE_RNR_CODE0_US;
	return sroce_aeth_scale(timer_code) * SROCE_RNR_UNIT_US;
}

u64 sroce_rnr_timer_ns(u8 timer_code)
{
	return (u64)sroce_rnr_timer_us(timer_code) * NSEC_PER_USEC;
}

/* Shortest timer that waits at least @min_us; code 0 once nothing else does. */
u8 sroce_rnr_timer_code(u32 min_us)
{
	u8 code;

	for (code = 1; code < SROCE_AETH_NUM_CODES; code++)
		if (sroce_rnr_timer_us(code) >= min_us)
			return code;
	return 0;
}

u32 sroce_aeth_credits(u8 credit_code)
{
	credit_code &= SROCE_AETH_VALUE_MASK;
	if (credit_code == SROCE_AETH_CREDIT_INVALID)
		return U32_MAX;
	return sroce_aeth_scale(credit_code);
}

/* Largest code that does not promise more WQEs than @nwqe. */
u8 sroce_aeth_credit_code(u32 nwqe)
{
	u8 code = 0;

	while (code + 1 < SROCE_AETH_CREDIT_INVALID &&
	       sroce_aeth_scale(code + 1) <= nwqe)
		code++;
	return code;
}
