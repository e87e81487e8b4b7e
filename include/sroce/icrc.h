/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Invariant CRC (IBA 7.8.1, RoCE annex A17.4): CRC-32 as used by Ethernet
 * over 8 bytes of ones standing in for the LRH, the network header (+UDP)
 * and BTH with their variant fields replaced by ones, the remaining
 * transport headers, the payload and the pad bytes.  The result goes on the
 * wire least-significant byte first.
 *
 * The incremental form lets the receive path run it over skb fragments:
 *	crc = sroce_icrc_start(t, nh);
 *	crc = sroce_icrc_update(crc, p, n);	(for each piece after the BTH)
 *	icrc = sroce_icrc_finish(crc);
 */
#ifndef SROCE_ICRC_H
#define SROCE_ICRC_H

#include <linux/compiler.h>
#include <linux/crc32.h>
#include <linux/types.h>

#include <sroce/compat.h>
#include <sroce/hdr.h>
#include <sroce/nethdr.h>

/* crc32_le() register after the 8 bytes of ones, starting from ~0. */
#define SROCE_ICRC_SEED		0xdebb20e3U

/*
 * Bytes sroce_icrc_start() consumes from @nh: network header (+UDP) and the
 * BTH.  For IPv4 the header length comes from IHL, so @nh must be a header
 * that sroce_pkt_parse() accepted or that sroce built.  0 for a bad @t.
 */
unsigned int sroce_icrc_hdr_len(enum sroce_net_type t, const void *nh);

/* Running CRC after the masked headers; @nh is read, never modified. */
u32 sroce_icrc_start(enum sroce_net_type t, const void *nh);

/*
 * On 6.12, crc32_le() is the generic table code; the crypto API's "crc32"
 * resolves to the PCLMULQDQ folding code (crc32-pclmul) on x86 CPUs that
 * have it, several times faster per byte on long buffers (design.rst,
 * "ICRC").  Pieces shorter than this go to crc32_le() whatever the CPU:
 * the accelerated code falls back to it itself below 79 bytes, and the
 * indirect call costs more than it saves there.
 */
#define SROCE_ICRC_ACCEL_MIN	128

struct crypto_shash;

u32 sroce_icrc_shash_update(struct crypto_shash *tfm, u32 crc,
			    const void *p, size_t len);
void sroce_icrc_accel_start(void);
void sroce_icrc_accel_stop(void);

/* The accelerated CRC-32, once sroce_icrc_accel_start() found one */
extern struct crypto_shash *sroce_icrc_tfm;

static inline u32 sroce_icrc_update(u32 crc, const void *p, size_t len)
{
	struct crypto_shash *tfm = READ_ONCE(sroce_icrc_tfm);

	if (tfm && len >= SROCE_ICRC_ACCEL_MIN)
		return sroce_icrc_shash_update(tfm, crc, p, len);
	return crc32_le(crc, p, len);
}

static inline u32 sroce_icrc_finish(u32 crc)
{
	return ~crc;
}

/*
 * ICRC of a linear packet: @len bytes from @nh up to, not including, the
 * ICRC field.  @len must be at least sroce_icrc_hdr_len().
 */
u32 sroce_icrc_compute(enum sroce_net_type t, const void *nh, unsigned int len);

static inline void sroce_icrc_put(void *p, u32 icrc)
{
	put_unaligned_le32(icrc, p);
}

static inline u32 sroce_icrc_get(const void *p)
{
	return get_unaligned_le32(p);
}

#endif /* SROCE_ICRC_H */
