// SPDX-License-Identifier: GPL-2.0
/*
 * ICRC over the masked headers.  The variant fields are overwritten in a
 * copy on the stack: the packet may be shared (cloned skbs, packet sockets)
 * and must reach its consumers unmodified.
 */
#include <crypto/hash.h>
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/printk.h>
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

struct crypto_shash *sroce_icrc_tfm __read_mostly;
/* sroce_icrc_accel_start() looked, found or not: it looks once per load */
static bool sroce_icrc_looked;

/**
 * sroce_icrc_shash_update - crc32_le() through a crypto API "crc32"
 * @tfm: the transform
 * @crc: the running CRC, as crc32_le() takes it
 * @p: the bytes
 * @len: how many
 *
 * The state of every "crc32" shash is the crc32_le() register itself, so
 * it is imported and exported as it stands.  Any context: shash is
 * synchronous, and the accelerated code checks itself whether the FPU is
 * usable, falling back to the table code when not.
 *
 * Return: the running CRC after @p.
 */
u32 sroce_icrc_shash_update(struct crypto_shash *tfm, u32 crc,
			    const void *p, size_t len)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	__le32 state = cpu_to_le32(crc);

	desc->tfm = tfm;
	/* nothing secret in it: no shash_desc_zero() per packet */
	if (!crypto_shash_import(desc, &state) &&
	    !crypto_shash_update(desc, p, len) &&
	    !crypto_shash_export(desc, &state))
		return le32_to_cpu(state);
	return crc32_le(crc, p, len);
}

/*
 * Take a "crc32" only if its state is what sroce_icrc_shash_update()
 * assumes, and it agrees with crc32_le() on bytes that are not a multiple
 * of 16, at an odd address.
 */
static bool sroce_icrc_accel_agrees(struct crypto_shash *tfm)
{
	u8 buf[SROCE_ICRC_ACCEL_MIN * 2 + 1];
	unsigned int i;

	if (crypto_shash_statesize(tfm) != sizeof(u32) ||
	    crypto_shash_descsize(tfm) != sizeof(u32))
		return false;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 7 + 3;
	return sroce_icrc_shash_update(tfm, SROCE_ICRC_SEED, buf + 1,
				       sizeof(buf) - 1) ==
	       crc32_le(SROCE_ICRC_SEED, buf + 1, sizeof(buf) - 1);
}

/**
 * sroce_icrc_accel_start - find the fastest CRC-32 the crypto API has
 *
 * At the first link rather than at module load: a driver built into the
 * kernel initialises before a root file system could give the crypto API
 * its modules.  Without one, or with one that does not agree with
 * crc32_le(), the ICRC stays on crc32_le(), and later links do not look
 * again.
 *
 * Context: process, under the link mutex.
 */
void sroce_icrc_accel_start(void)
{
	struct crypto_shash *tfm;

	if (sroce_icrc_looked)
		return;
	sroce_icrc_looked = true;
	tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(tfm)) {
		pr_info("%s: ICRC through crc32_le: no crc32 in the crypto API (%pe)\n",
			KBUILD_MODNAME, tfm);
		return;
	}
	if (!sroce_icrc_accel_agrees(tfm)) {
		pr_warn("%s: ICRC through crc32_le: %s disagrees with it\n",
			KBUILD_MODNAME, crypto_shash_driver_name(tfm));
		crypto_free_shash(tfm);
		return;
	}
	pr_info("%s: ICRC through %s\n", KBUILD_MODNAME,
		crypto_shash_driver_name(tfm));
	WRITE_ONCE(sroce_icrc_tfm, tfm);
}

/* Context: module exit, no device left to use it */
void sroce_icrc_accel_stop(void)
{
	struct crypto_shash *tfm = sroce_icrc_tfm;

	WRITE_ONCE(sroce_icrc_tfm, NULL);
	if (tfm)
		crypto_free_shash(tfm);
}
