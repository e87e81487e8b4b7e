// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the ICRC: known packets must match byte for byte, the
 * incremental API must agree with the one-shot one, the variant fields must
 * not matter and every other covered bit must.
 */
#include <crypto/hash.h>
#include <kunit/test.h>
#include <linux/err.h>
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

/*
 * An ICRC written from the rules alone (IBTA vol. 1 7.8.1, with annexes
 * A16 and A17 for RoCE; summed up in Documentation/testing.rst, "Test
 * vectors"), sharing nothing with icrc.c: CRC-32 one bit at a time
 * (reflected polynomial 0xedb88320, register ~0, result inverted) over
 * eight bytes of ones and a copy of the packet with the variant fields set
 * to ones.
 */
static const u8 sroce_icrc_ones[8] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

static u32 sroce_icrc_ref_bits(u32 crc, const u8 *p, unsigned int n)
{
	unsigned int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xedb88320U : 0);
	}
	return crc;
}

static u32 sroce_icrc_ref(struct kunit *test, enum sroce_net_type t, const u8 *nh,
			  unsigned int len)
{
	u8 *b = kunit_kmalloc(test, len, GFP_KERNEL);
	unsigned int bth = 0;
	u32 crc;

	KUNIT_ASSERT_NOT_NULL(test, b);
	memcpy(b, nh, len);
	switch (t) {
	case SROCE_NET_ROCE_V2_IPV4:
		b[1] = 0xff;				/* TOS */
		b[8] = 0xff;				/* TTL */
		b[10] = 0xff;				/* header checksum */
		b[11] = 0xff;
		bth = (b[0] & 0x0f) * 4 + 8;
		break;
	case SROCE_NET_ROCE_V1:
	case SROCE_NET_ROCE_V2_IPV6:
		b[0] |= 0x0f;				/* TClass */
		b[1] = 0xff;				/* TClass, FlowLabel */
		b[2] = 0xff;
		b[3] = 0xff;
		b[7] = 0xff;				/* HopLmt */
		bth = t == SROCE_NET_ROCE_V1 ? 40 : 48;
		break;
	}
	KUNIT_ASSERT_NE(test, bth, 0);
	if (t != SROCE_NET_ROCE_V1) {
		b[bth - 2] = 0xff;			/* UDP checksum */
		b[bth - 1] = 0xff;
	}
	b[bth + 4] = 0xff;				/* FECN, BECN, resv6a */
	crc = sroce_icrc_ref_bits(~0U, sroce_icrc_ones, sizeof(sroce_icrc_ones));
	crc = ~sroce_icrc_ref_bits(crc, b, len);
	kunit_kfree(test, b);
	return crc;
}

/* The reference against known answers, then every vector against it */
static void sroce_icrc_reference(struct kunit *test)
{
	const struct sroce_test_vec *vecs[] = {
		&sroce_test_vec_cnp, &sroce_test_vec_uc, &sroce_test_vec_v1,
		&sroce_test_vec_v6, &sroce_test_vec_ipopt,
	};
	static const u8 check[9] = { '1', '2', '3', '4', '5', '6', '7', '8', '9' };
	unsigned int i;

	/* the CRC-32 check value, and the register after the stand-in LRH */
	KUNIT_EXPECT_EQ(test, ~sroce_icrc_ref_bits(~0U, check, sizeof(check)), 0xcbf43926U);
	KUNIT_EXPECT_EQ(test, sroce_icrc_ref_bits(~0U, sroce_icrc_ones, sizeof(sroce_icrc_ones)),
			SROCE_ICRC_SEED);
	/* two externally captured ICRCs, and the self-computed ones */
	for (i = 0; i < ARRAY_SIZE(vecs); i++) {
		const struct sroce_test_vec *v = vecs[i];
		unsigned int len = v->len - SROCE_ICRC_LEN;

		KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_ref(test, v->type, v->data, len),
				    sroce_icrc_get(v->data + len), "%s", v->name);
	}
}

/* A cheap deterministic byte stream for headers and payloads */
static u8 sroce_icrc_test_byte(u32 *state)
{
	*state = *state * 1103515245U + 12345U;
	return *state >> 16;
}

/*
 * Packets sroce builds carry the ICRC the reference computes, whatever
 * their header fields, extended headers and payload length.
 */
static void sroce_icrc_check_built(struct kunit *test, enum sroce_net_type t)
{
	static const u8 opcodes[] = {
		SROCE_OP_RC_SEND_ONLY, SROCE_OP_RC_WRITE_FIRST, SROCE_OP_RC_ACK,
		SROCE_OP_RC_CMP_SWAP, SROCE_OP_UD_SEND_ONLY, SROCE_OP_UD_SEND_ONLY_IMM,
		SROCE_OP_CNP,
	};
	static const unsigned int sizes[] = { 0, 1, 2, 3, 4, 61, 256, 1021 };
	unsigned int size = SROCE_GRH_LEN + SROCE_UDP_LEN + SROCE_MAX_TP_HDR_LEN + 1024 +
			    SROCE_ICRC_LEN;
	u8 *buf = kunit_kmalloc(test, size, GFP_KERNEL);
	u8 *payload = kunit_kmalloc(test, 1024, GFP_KERNEL);
	u8 tp[SROCE_MAX_TP_HDR_LEN];
	struct sroce_net_params np;
	unsigned int i, j, k, n = 0;
	u32 seed = t;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, payload);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		const struct sroce_opcode_info *info = sroce_opcode_info(opcodes[i]);

		KUNIT_ASSERT_NOT_NULL(test, info);
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			unsigned int plen = sizes[j];
			struct sroce_pkt pkt;
			u8 *bth;
			int len;

			if (plen && !sroce_opcode_has(info, SROCE_OPF_PAYLOAD))
				break;
			memset(&np, 0, sizeof(np));
			np.type = t;
			for (k = 0; k < 16; k++) {
				np.saddr.s6_addr[k] = sroce_icrc_test_byte(&seed);
				np.daddr.s6_addr[k] = sroce_icrc_test_byte(&seed);
			}
			np.tclass = sroce_icrc_test_byte(&seed);
			np.hop_limit = sroce_icrc_test_byte(&seed);
			np.flow_label = sroce_icrc_test_byte(&seed) << 12 | plen;
			np.ip_id = sroce_icrc_test_byte(&seed) << 8 | i;
			np.sport = 0xc000 | sroce_icrc_test_byte(&seed);
			for (k = 0; k < info->hdr_len; k++)
				tp[k] = sroce_icrc_test_byte(&seed);
			tp[0] = opcodes[i];
			tp[1] &= ~0x0f;			/* TVer 0 */
			for (k = 0; k < plen; k++)
				payload[k] = sroce_icrc_test_byte(&seed);

			len = sroce_frame_build(buf, size, &np, tp, payload, plen);
			KUNIT_ASSERT_GT(test, len, 0);
			KUNIT_ASSERT_EQ(test, sroce_pkt_parse(buf, len, t, &pkt), 0);
			KUNIT_EXPECT_EQ_MSG(test, sroce_icrc_get(buf + pkt.icrc_off),
					    sroce_icrc_ref(test, t, buf, pkt.icrc_off),
					    "%s payload %u", sroce_opcode_name(opcodes[i]), plen);

			/* the network may set FECN and BECN on the way */
			bth = buf + pkt.bth_off;
			bth[4] |= 0xc0;
			KUNIT_EXPECT_TRUE(test, sroce_pkt_icrc_ok(buf, &pkt));
			/* but nothing else: the last byte before the ICRC */
			buf[pkt.icrc_off - 1] ^= 0x80;
			KUNIT_EXPECT_FALSE(test, sroce_pkt_icrc_ok(buf, &pkt));
			n++;
		}
	}
	/* four opcodes with a payload at every size, three without */
	KUNIT_EXPECT_EQ(test, n, 4 * ARRAY_SIZE(sizes) + 3);
}

static void sroce_icrc_built_v1(struct kunit *test)
{
	sroce_icrc_check_built(test, SROCE_NET_ROCE_V1);
}

static void sroce_icrc_built_ipv4(struct kunit *test)
{
	sroce_icrc_check_built(test, SROCE_NET_ROCE_V2_IPV4);
}

static void sroce_icrc_built_ipv6(struct kunit *test)
{
	sroce_icrc_check_built(test, SROCE_NET_ROCE_V2_IPV6);
}

/*
 * A RoCEv1 packet built with other TClass, FlowLabel and HopLmt values, as
 * a router would leave it, has the same ICRC; any other GRH field changes
 * it.
 */
static void sroce_icrc_v1_grh_fields(struct kunit *test)
{
	const struct sroce_test_vec *v = &sroce_test_vec_v1;
	unsigned int len = v->len - SROCE_ICRC_LEN;
	u32 want = sroce_icrc_get(v->data + len);
	u8 tp[SROCE_BTH_LEN];
	struct sroce_net_params np;
	u8 *buf = kunit_kmalloc(test, v->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(&np, 0, sizeof(np));
	np.type = SROCE_NET_ROCE_V1;
	np.tclass = 0xb8;
	np.flow_label = 0xfedcb;
	np.hop_limit = 1;
	memcpy(&np.saddr, v->data + 8, 16);
	memcpy(&np.daddr, v->data + 24, 16);
	memcpy(tp, v->data + SROCE_GRH_LEN, SROCE_BTH_LEN);
	KUNIT_ASSERT_EQ(test, sroce_frame_build(buf, v->len, &np, tp, v->data + 52, 8),
			(int)v->len);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf), 0x6b8fedcbU);
	KUNIT_EXPECT_EQ(test, buf[7], 1);
	KUNIT_EXPECT_EQ(test, sroce_icrc_get(buf + len), want);
	KUNIT_EXPECT_MEMEQ(test, buf + 4, v->data + 4, 3);
	KUNIT_EXPECT_MEMEQ(test, buf + 8, v->data + 8, v->len - 8);

	/* the version nibble, PayLen, NxtHdr and either GID are covered */
	buf[0] ^= 0x10;
	KUNIT_EXPECT_NE(test, sroce_icrc_compute(SROCE_NET_ROCE_V1, buf, len), want);
	buf[0] ^= 0x10;
	buf[5] ^= 0x04;
	KUNIT_EXPECT_NE(test, sroce_icrc_compute(SROCE_NET_ROCE_V1, buf, len), want);
	buf[5] ^= 0x04;
	buf[6] = 0x11;
	KUNIT_EXPECT_NE(test, sroce_icrc_compute(SROCE_NET_ROCE_V1, buf, len), want);
	buf[6] = SROCE_GRH_NXTHDR_IBA;
	buf[8] ^= 0x01;
	KUNIT_EXPECT_NE(test, sroce_icrc_compute(SROCE_NET_ROCE_V1, buf, len), want);
	buf[8] ^= 0x01;
	buf[39] ^= 0x80;
	KUNIT_EXPECT_NE(test, sroce_icrc_compute(SROCE_NET_ROCE_V1, buf, len), want);
	buf[39] ^= 0x80;
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(SROCE_NET_ROCE_V1, buf, len), want);
}

/*
 * The crypto API's "crc32" (crc32-pclmul where the CPU has PCLMULQDQ)
 * must give crc32_le()'s register for every length around its folding
 * block of 16 bytes and its own fallback below 79, at every alignment.
 */
static void sroce_icrc_accel_matches(struct kunit *test)
{
	static const unsigned int lens[] = {
		0, 1, 15, 16, 17, 63, 64, 78, 79, 80, 127, 128, 129, 255, 256,
		1000, 1024, 1500, 4095, 4096, 4200,
	};
	struct crypto_shash *tfm;
	unsigned int i, off;
	u32 crc;
	u8 *buf;

	tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(tfm))
		kunit_skip(test, "no crc32 in the crypto API: %pe", tfm);
	kunit_info(test, "crc32 through %s\n", crypto_shash_driver_name(tfm));
	buf = kunit_kmalloc(test, 4200 + 16, GFP_KERNEL);
	if (!buf) {
		crypto_free_shash(tfm);
		KUNIT_FAIL(test, "no memory");
		return;
	}
	for (i = 0; i < 4200 + 16; i++)
		buf[i] = (i * 131 + 7) ^ (i >> 8);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		for (off = 0; off < 16; off++)
			KUNIT_EXPECT_EQ_MSG(test,
					    sroce_icrc_shash_update(tfm, SROCE_ICRC_SEED,
								    buf + off, lens[i]),
					    crc32_le(SROCE_ICRC_SEED, buf + off, lens[i]),
					    "length %u at offset %u", lens[i], off);
	/* and a bit flipped in the middle is seen */
	crc = sroce_icrc_shash_update(tfm, SROCE_ICRC_SEED, buf, 4200);
	buf[2100] ^= 0x10;
	KUNIT_EXPECT_NE(test, sroce_icrc_shash_update(tfm, SROCE_ICRC_SEED, buf, 4200), crc);
	crypto_free_shash(tfm);
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
	KUNIT_CASE(sroce_icrc_reference),
	KUNIT_CASE(sroce_icrc_built_v1),
	KUNIT_CASE(sroce_icrc_built_ipv4),
	KUNIT_CASE(sroce_icrc_built_ipv6),
	KUNIT_CASE(sroce_icrc_v1_grh_fields),
	KUNIT_CASE(sroce_icrc_accel_matches),
	{}
};

static struct kunit_suite sroce_icrc_test_suite = {
	.name = "sroce_icrc",
	.test_cases = sroce_icrc_test_cases,
};

kunit_test_suites(&sroce_icrc_test_suite);
