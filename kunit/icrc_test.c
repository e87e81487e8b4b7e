// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the ICRC: known packets must match byte for byte, the
 * incremental API must agree with the one-shot one, the variant fields must
 * not matter and every other covered bit must.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/crc32.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <sroce/wire.h>

#include "vectors.h"

/* Copy a vector into an exact-size allocation so KASAN sees overreads. */
static u8 *sroce_icrc_test_dup(struct kunit *test, const struct sroce_test_vec *v)
{
	u8 *p = kunit_kmalloc(test, v->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, v->data, v->len);
	return p;
}

static void sroce_icrc_seed(struct kunit *test)
{
	u8 ones[8];

	memset(ones, 0xff, sizeof(ones));
	KUNIT_EXPECT_EQ(test, crc32_le(~0U, ones, sizeof(ones)), SROCE_ICRC_SEED);
}

static void sroce_icrc_check_vector(struct kunit *test, const struct sroce_test_vec *v)
{
	unsigned int len = v->len - SROCE_ICRC_LEN;
	u8 *p = sroce_icrc_test_dup(test, v);
	u8 wire[SROCE_ICRC_LEN];

	sroce_icrc_put(wire, sroce_icrc_compute(v->type, p, len));
	KUNIT_EXPECT_MEMEQ_MSG(test, wire, v->data + len, SROCE_ICRC_LEN, "%s", v->name);
	KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_compute(v->type, p, len),
			    sroce_icrc_get(v->data + len), "%s", v->name);
	/* the masks are applied to a copy, never to the packet */
	KUNIT_EXPECT_MEMEQ_MSG(test, p, v->data, v->len, "%s modified", v->name);
}

static void sroce_icrc_cx4_cnp(struct kunit *test)
{
	sroce_icrc_check_vector(test, &sroce_test_vec_cnp);
	/* least significant byte first on the wire */
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(SROCE_NET_ROCE_V2_IPV4, sroce_test_vec_cnp.data,
						 sroce_test_vec_cnp.len - SROCE_ICRC_LEN),
			0x2a00fd82U);
}

static void sroce_icrc_scapy_uc(struct kunit *test)
{
	sroce_icrc_check_vector(test, &sroce_test_vec_uc);
}

static void sroce_icrc_roce_v1(struct kunit *test)
{
	sroce_icrc_check_vector(test, &sroce_test_vec_v1);
}

static void sroce_icrc_roce_v2_ipv6(struct kunit *test)
{
	sroce_icrc_check_vector(test, &sroce_test_vec_v6);
}

static void sroce_icrc_ipv4_options(struct kunit *test)
{
	sroce_icrc_check_vector(test, &sroce_test_vec_ipopt);
	KUNIT_EXPECT_EQ(test, sroce_icrc_hdr_len(SROCE_NET_ROCE_V2_IPV4,
						 sroce_test_vec_ipopt.data), 24 + 8 + 12);
}

static void sroce_icrc_hdr_lengths(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_icrc_hdr_len(SROCE_NET_ROCE_V2_IPV4,
						 sroce_test_vec_uc.data), 40);
	KUNIT_EXPECT_EQ(test, sroce_icrc_hdr_len(SROCE_NET_ROCE_V2_IPV6,
						 sroce_test_vec_v6.data), 60);
	KUNIT_EXPECT_EQ(test, sroce_icrc_hdr_len(SROCE_NET_ROCE_V1,
						 sroce_test_vec_v1.data), 52);
	KUNIT_EXPECT_EQ(test, sroce_icrc_hdr_len(0, sroce_test_vec_v1.data), 0);
}

/* Any split of the data after the BTH gives the same result. */
static void sroce_icrc_incremental(struct kunit *test)
{
	const struct sroce_test_vec *vecs[] = {
		&sroce_test_vec_uc, &sroce_test_vec_v1, &sroce_test_vec_v6,
		&sroce_test_vec_ipopt,
	};
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(vecs); i++) {
		const struct sroce_test_vec *v = vecs[i];
		unsigned int len = v->len - SROCE_ICRC_LEN;
		unsigned int hl = sroce_icrc_hdr_len(v->type, v->data);
		u32 want = sroce_icrc_get(v->data + len);
		u32 crc;

		for (k = hl; k <= len; k++) {
			crc = sroce_icrc_start(v->type, v->data);
			crc = sroce_icrc_update(crc, v->data + hl, k - hl);
			crc = sroce_icrc_update(crc, v->data + k, len - k);
			KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_finish(crc), want, "%s split %u",
					    v->name, k);
		}

		crc = sroce_icrc_start(v->type, v->data);
		for (k = hl; k < len; k++)
			crc = sroce_icrc_update(crc, v->data + k, 1);
		KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_finish(crc), want, "%s bytewise", v->name);
	}
}

/*
 * Bits excluded from the ICRC, per byte.  Returns the array for @v, sized
 * v->len; the ICRC field itself counts as excluded.
 */
static u8 *sroce_icrc_test_masked_bits(struct kunit *test, const struct sroce_test_vec *v)
{
	u8 *m = kunit_kzalloc(test, v->len, GFP_KERNEL);
	unsigned int udp;

	KUNIT_ASSERT_NOT_NULL(test, m);
	if (v->type == SROCE_NET_ROCE_V2_IPV4) {
		m[1] = 0xff;			/* TOS: DSCP + ECN */
		m[8] = 0xff;			/* TTL */
		m[10] = 0xff;			/* header checksum */
		m[11] = 0xff;
		udp = (v->data[0] & 0x0f) * 4;
	} else {
		m[0] = 0x0f;			/* TClass high nibble */
		m[1] = 0xff;			/* TClass low nibble, FlowLabel */
		m[2] = 0xff;
		m[3] = 0xff;
		m[7] = 0xff;			/* HopLmt / Hop Limit */
		udp = SROCE_IPV6_LEN;
	}
	if (v->type != SROCE_NET_ROCE_V1) {
		m[udp + 6] = 0xff;		/* UDP checksum */
		m[udp + 7] = 0xff;
		m[udp + SROCE_UDP_LEN + 4] = 0xff;	/* BTH FECN, BECN, Resv6 */
	} else {
		m[SROCE_GRH_LEN + 4] = 0xff;
	}
	memset(m + v->len - SROCE_ICRC_LEN, 0xff, SROCE_ICRC_LEN);
	return m;
}

static void sroce_icrc_check_masking(struct kunit *test, const struct sroce_test_vec *v)
{
	unsigned int len = v->len - SROCE_ICRC_LEN;
	u8 *m = sroce_icrc_test_masked_bits(test, v);
	u8 *p = sroce_icrc_test_dup(test, v);
	u32 want = sroce_icrc_get(v->data + len);
	unsigned int i, covered = 0;

	for (i = 0; i < v->len; i++) {
		u8 keep = ~m[i];

		if (m[i]) {
			p[i] ^= m[i];
			KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_compute(v->type, p, len), want,
					    "%s: masked bits %02x of byte %u", v->name, m[i], i);
			p[i] = v->data[i] ^ (m[i] & 0x5a);
			KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_compute(v->type, p, len), want,
					    "%s: masked bits %02x of byte %u", v->name, m[i], i);
			p[i] = v->data[i];
		}
		if (keep) {
			/*
			 * One flipped bit always changes a CRC-32.  Take the
			 * top covered bit so IPv4 IHL stays intact.
			 */
			u8 bit = BIT(fls(keep) - 1);

			p[i] ^= bit;
			KUNIT_EXPECT_NE_MSG(test, sroce_icrc_compute(v->type, p, len), want,
					    "%s: bit %02x of byte %u", v->name, bit, i);
			p[i] = v->data[i];
			covered++;
		}
	}
	/* a broken mask table must not make this test vacuous */
	KUNIT_EXPECT_GE_MSG(test, covered, len - 8, "%s", v->name);
}

static void sroce_icrc_masking_ipv4(struct kunit *test)
{
	sroce_icrc_check_masking(test, &sroce_test_vec_uc);
	sroce_icrc_check_masking(test, &sroce_test_vec_cnp);
	sroce_icrc_check_masking(test, &sroce_test_vec_ipopt);
}

static void sroce_icrc_masking_ipv6(struct kunit *test)
{
	sroce_icrc_check_masking(test, &sroce_test_vec_v6);
}

static void sroce_icrc_masking_v1(struct kunit *test)
{
	sroce_icrc_check_masking(test, &sroce_test_vec_v1);
}

static void sroce_icrc_store_order(struct kunit *test)
{
	static const u8 want[SROCE_ICRC_LEN + 1] = { 0x00, 0x82, 0xfd, 0x00, 0x2a };
	u8 buf[SROCE_ICRC_LEN + 1] = {};

	sroce_icrc_put(buf + 1, 0x2a00fd82U);
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_icrc_get(buf + 1), 0x2a00fd82U);
}

static struct kunit_case sroce_icrc_test_cases[] = {
	KUNIT_CASE(sroce_icrc_seed),
	KUNIT_CASE(sroce_icrc_cx4_cnp),
	KUNIT_CASE(sroce_icrc_scapy_uc),
	KUNIT_CASE(sroce_icrc_roce_v1),
	KUNIT_CASE(sroce_icrc_roce_v2_ipv6),
	KUNIT_CASE(sroce_icrc_ipv4_options),
	KUNIT_CASE(sroce_icrc_hdr_lengths),
	KUNIT_CASE(sroce_icrc_incremental),
	KUNIT_CASE(sroce_icrc_masking_ipv4),
	KUNIT_CASE(sroce_icrc_masking_ipv6),
	KUNIT_CASE(sroce_icrc_masking_v1),
	KUNIT_CASE(sroce_icrc_store_order),
	{}
};

static struct kunit_suite sroce_icrc_test_suite = {
	.name = "sroce_icrc",
	.test_cases = sroce_icrc_test_cases,
};

kunit_test_suites(&sroce_icrc_test_suite);
