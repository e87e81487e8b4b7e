// SPDX-License-Identifier: GPL-2.0
/*
 * ICRC over the masked headers.  The variant fields are overwritten in a
 * copy on the stack: the packet may be shared (cloned skbs, packet sockets)
 * and must reach its consumers unmodified.
 */
#include <linux/bug.h>
#include <linux/string.h>

#include <sroce/icrc.h>

#define SROCE_ICRC_MAX_HDR	(SROCE_IPV4_MAX_LEN + SROCE_UDP_LEN + SROCE_BTH_LEN)

/* IPv4 fields routers may change: TOS (DSCP, ECN), TTL and the checksum. */
#define SROCE_IPV4_TOS_OFF	1
#define SROCE_IPV4_TTL_OFF	8
#define SROCE_IPV4_CSUM_OFF	10
/* GRH / IPv6: TClass and FlowLabel span the low nibble of byte 0 to byte 3. */
#define SROCE_IPV6_HOPLMT_OFF	7
#define SROCE_UDP_CSUM_OFF	6
/* BTH byte 4 holds FECN, BECN and reserved bits, all left to the network. */
#define SROCE_BTH_VARIANT_OFF	4

static unsigned int sroce_icrc_l3_len(enum sroce_net_type t, const u8 *nh)
{
	switch (t) {
	case SROCE_NET_ROCE_V1:
		return SROCE_GRH_LEN;
	case SROCE_NET_ROCE_V2_IPV4:
		return (nh[0] & 0x0f) * 4 + SROCE_UDP_LEN;
	case SROCE_NET_ROCE_V2_IPV6:
		return SROCE_IPV6_LEN + SROCE_UDP_LEN;
	}
	return 0;
}

unsigned int sroce_icrc_hdr_len(enum sroce_net_type t, const void *nh)
{
	unsigned int l3 = sroce_icrc_l3_len(t, nh);

	return l3 ? l3 + SROCE_BTH_LEN : 0;
}

u32 sroce_icrc_start(enum sroce_net_type t, const void *nh)
{
	u8 buf[SROCE_ICRC_MAX_HDR];
	unsigned int n = sroce_icrc_hdr_len(t, nh);
	unsigned int bth;

	if (!n)
		return SROCE_ICRC_SEED;

	memcpy(buf, nh, n);
	bth = n - SROCE_BTH_LEN;

	if (t == SROCE_NET_ROCE_V2_IPV4) {
		buf[SROCE_IPV4_TOS_OFF] = 0xff;
		buf[SROCE_IPV4_TTL_OFF] = 0xff;
		buf[SROCE_IPV4_CSUM_OFF] = 0xff;
		buf[SROCE_IPV4_CSUM_OFF + 1] = 0xff;
	} else {
		buf[0] |= 0x0f;
		buf[1] = 0xff;
		buf[2] = 0xff;
		buf[3] = 0xff;
		buf[SROCE_IPV6_HOPLMT_OFF] = 0xff;
	}
	if (t != SROCE_NET_ROCE_V1) {
		buf[bth - SROCE_UDP_LEN + SROCE_UDP_CSUM_OFF] = 0xff;
		buf[bth - SROCE_UDP_LEN + SROCE_UDP_CSUM_OFF + 1] = 0xff;
	}
	buf[bth + SROCE_BTH_VARIANT_OFF] = 0xff;

	return crc32_le(SROCE_ICRC_SEED, buf, n);
}

u32 sroce_icrc_compute(enum sroce_net_type t, const void *nh, unsigned int len)
{
	unsigned int n = sroce_icrc_hdr_len(t, nh);
	u32 crc;

	if (WARN_ON_ONCE(!n || len < n))
		return 0;
	crc = sroce_icrc_start(t, nh);
	crc = sroce_icrc_update(crc, (const u8 *)nh + n, len - n);
	return sroce_icrc_finish(crc);
}
