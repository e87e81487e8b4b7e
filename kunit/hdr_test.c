// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the transport header codecs: exact wire bytes for known
 * values, round trips at unaligned addresses, and field isolation (writing
 * one field leaves every other bit of the header alone).
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include <sroce/wire.h>

/* Headers start at odd addresses on the wire; test them there too. */
#define SROCE_HDR_TEST_OFF	1

/* BTH of the scapy UC SEND_ONLY example (testing.rst, "Test vectors"). */
static const u8 sroce_hdr_test_bth_uc[SROCE_BTH_LEN] = {
	0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3, 0x00, 0xcf, 0x17, 0x10,
};

/* BTH of the ConnectX-4 Lx CNP capture (testing.rst, "Test vectors"). */
static const u8 sroce_hdr_test_bth_cnp[SROCE_BTH_LEN] = {
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00,
};

static void sroce_bth_decode_vectors(struct kunit *test)
{
	const u8 *b = sroce_hdr_test_bth_uc;

	KUNIT_EXPECT_EQ(test, sroce_bth_opcode(b), 0x24);
	KUNIT_EXPECT_FALSE(test, sroce_bth_se(b));
	KUNIT_EXPECT_TRUE(test, sroce_bth_mig(b));
	KUNIT_EXPECT_EQ(test, sroce_bth_padcnt(b), 2);
	KUNIT_EXPECT_EQ(test, sroce_bth_tver(b), 0);
	KUNIT_EXPECT_EQ(test, sroce_bth_pkey(b), 0xffff);
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(b));
	KUNIT_EXPECT_FALSE(test, sroce_bth_becn(b));
	KUNIT_EXPECT_EQ(test, sroce_bth_dqpn(b), 211);
	KUNIT_EXPECT_FALSE(test, sroce_bth_ackreq(b));
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(b), 13571856);

	b = sroce_hdr_test_bth_cnp;
	KUNIT_EXPECT_EQ(test, sroce_bth_opcode(b), SROCE_OP_CNP);
	KUNIT_EXPECT_FALSE(test, sroce_bth_mig(b));
	KUNIT_EXPECT_EQ(test, sroce_bth_padcnt(b), 0);
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(b));
	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(b));
	KUNIT_EXPECT_EQ(test, sroce_bth_dqpn(b), 0x118);
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(b), 0);
}

static void sroce_bth_encode_vectors(struct kunit *test)
{
	u8 buf[SROCE_BTH_LEN + SROCE_HDR_TEST_OFF];
	u8 *b = buf + SROCE_HDR_TEST_OFF;

	memset(buf, 0xa5, sizeof(buf));
	sroce_bth_init(b, 0x24, 0xffff, 211, 13571856);
	sroce_bth_set_mig(b, true);
	sroce_bth_set_padcnt(b, 2);
	KUNIT_EXPECT_MEMEQ(test, b, sroce_hdr_test_bth_uc, SROCE_BTH_LEN);
	/* init must not touch the byte in front of the header */
	KUNIT_EXPECT_EQ(test, buf[0], 0xa5);

	memset(buf, 0xa5, sizeof(buf));
	sroce_bth_init(b, SROCE_OP_CNP, 0xffff, 0x118, 0);
	sroce_bth_set_becn(b, true);
	KUNIT_EXPECT_MEMEQ(test, b, sroce_hdr_test_bth_cnp, SROCE_BTH_LEN);
}

/* One BTH field: how to write and read it, its largest value, its bits. */
struct sroce_hdr_test_field {
	const char *name;
	void (*set)(void *bth, u32 v);
	u32 (*get)(const void *bth);
	u32 max;
	u8 mask[SROCE_BTH_LEN];
};

static void sroce_hdr_test_set_opcode(void *b, u32 v) { sroce_bth_set_opcode(b, v); }
static u32 sroce_hdr_test_get_opcode(const void *b) { return sroce_bth_opcode(b); }
static void sroce_hdr_test_set_se(void *b, u32 v) { sroce_bth_set_se(b, v); }
static u32 sroce_hdr_test_get_se(const void *b) { return sroce_bth_se(b); }
static void sroce_hdr_test_set_mig(void *b, u32 v) { sroce_bth_set_mig(b, v); }
static u32 sroce_hdr_test_get_mig(const void *b) { return sroce_bth_mig(b); }
static void sroce_hdr_test_set_pad(void *b, u32 v) { sroce_bth_set_padcnt(b, v); }
static u32 sroce_hdr_test_get_pad(const void *b) { return sroce_bth_padcnt(b); }
static void sroce_hdr_test_set_tver(void *b, u32 v) { sroce_bth_set_tver(b, v); }
static u32 sroce_hdr_test_get_tver(const void *b) { return sroce_bth_tver(b); }
static void sroce_hdr_test_set_pkey(void *b, u32 v) { sroce_bth_set_pkey(b, v); }
static u32 sroce_hdr_test_get_pkey(const void *b) { return sroce_bth_pkey(b); }
static void sroce_hdr_test_set_fecn(void *b, u32 v) { sroce_bth_set_fecn(b, v); }
static u32 sroce_hdr_test_get_fecn(const void *b) { return sroce_bth_fecn(b); }
static void sroce_hdr_test_set_becn(void *b, u32 v) { sroce_bth_set_becn(b, v); }
static u32 sroce_hdr_test_get_becn(const void *b) { return sroce_bth_becn(b); }
static void sroce_hdr_test_set_dqpn(void *b, u32 v) { sroce_bth_set_dqpn(b, v); }
static u32 sroce_hdr_test_get_dqpn(const void *b) { return sroce_bth_dqpn(b); }
static void sroce_hdr_test_set_ackreq(void *b, u32 v) { sroce_bth_set_ackreq(b, v); }
static u32 sroce_hdr_test_get_ackreq(const void *b) { return sroce_bth_ackreq(b); }
static void sroce_hdr_test_set_psn(void *b, u32 v) { sroce_bth_set_psn(b, v); }
static u32 sroce_hdr_test_get_psn(const void *b) { return sroce_bth_psn(b); }

#define SROCE_HDR_TEST_FIELD(n, m, ...) {					\
	.name = #n, .set = sroce_hdr_test_set_##n, .get = sroce_hdr_test_get_##n,	\
	.max = (m), .mask = { __VA_ARGS__ },				\
}

static const struct sroce_hdr_test_field sroce_hdr_test_bth_fields[] = {
	SROCE_HDR_TEST_FIELD(opcode, 0xff, [0] = 0xff),
	SROCE_HDR_TEST_FIELD(se, 1, [1] = 0x80),
	SROCE_HDR_TEST_FIELD(mig, 1, [1] = 0x40),
	SROCE_HDR_TEST_FIELD(pad, 3, [1] = 0x30),
	SROCE_HDR_TEST_FIELD(tver, 0xf, [1] = 0x0f),
	SROCE_HDR_TEST_FIELD(pkey, 0xffff, [2] = 0xff, [3] = 0xff),
	SROCE_HDR_TEST_FIELD(fecn, 1, [4] = 0x80),
	SROCE_HDR_TEST_FIELD(becn, 1, [4] = 0x40),
	SROCE_HDR_TEST_FIELD(dqpn, 0xffffff, [5] = 0xff, [6] = 0xff, [7] = 0xff),
	SROCE_HDR_TEST_FIELD(ackreq, 1, [8] = 0x80),
	SROCE_HDR_TEST_FIELD(psn, 0xffffff, [9] = 0xff, [10] = 0xff, [11] = 0xff),
};

/*
 * Setting a field to all ones on a zero header must produce exactly its
 * mask, and clearing it on an all-ones header exactly the complement, even
 * when the value passed is wider than the field.
 */
static void sroce_bth_field_isolation(struct kunit *test)
{
	u8 buf[SROCE_BTH_LEN + SROCE_HDR_TEST_OFF];
	u8 *b = buf + SROCE_HDR_TEST_OFF;
	u8 want[SROCE_BTH_LEN];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sroce_hdr_test_bth_fields); i++) {
		const struct sroce_hdr_test_field *f = &sroce_hdr_test_bth_fields[i];

		memset(b, 0, SROCE_BTH_LEN);
		f->set(b, f->max);
		KUNIT_EXPECT_MEMEQ_MSG(test, b, f->mask, SROCE_BTH_LEN, "set %s", f->name);
		KUNIT_EXPECT_EQ_MSG(test, f->get(b), f->max, "get %s", f->name);

		memset(b, 0, SROCE_BTH_LEN);
		f->set(b, U32_MAX);
		KUNIT_EXPECT_MEMEQ_MSG(test, b, f->mask, SROCE_BTH_LEN, "wide %s", f->name);

		for (j = 0; j < SROCE_BTH_LEN; j++)
			want[j] = ~f->mask[j];
		memset(b, 0xff, SROCE_BTH_LEN);
		f->set(b, 0);
		KUNIT_EXPECT_MEMEQ_MSG(test, b, want, SROCE_BTH_LEN, "clear %s", f->name);
		KUNIT_EXPECT_EQ_MSG(test, f->get(b), 0, "get cleared %s", f->name);
	}
}

/* Every field reads back what was written, whatever its neighbours hold. */
static void sroce_bth_roundtrip(struct kunit *test)
{
	static const u32 vals[] = { 0, 1, 2, 0x5a, 0xa5a5a5, 0x800000, 0xffffff };
	const struct sroce_hdr_test_field *fields = sroce_hdr_test_bth_fields;
	const unsigned int nfields = ARRAY_SIZE(sroce_hdr_test_bth_fields);
	u8 buf[SROCE_BTH_LEN + SROCE_HDR_TEST_OFF];
	u8 *b = buf + SROCE_HDR_TEST_OFF;
	unsigned int i, j, k;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < nfields; i++) {
		for (j = 0; j < ARRAY_SIZE(vals); j++) {
			u32 v = vals[j] & fields[i].max;
			bool ones = j & 1;

			for (k = 0; k < nfields; k++)
				if (k != i)
					fields[k].set(b, ones ? U32_MAX : 0);
			fields[i].set(b, v);
			KUNIT_EXPECT_EQ_MSG(test, fields[i].get(b), v, "%s", fields[i].name);
			for (k = 0; k < nfields; k++) {
				u32 want = ones ? fields[k].max : 0;

				if (k == i)
					continue;
				KUNIT_EXPECT_EQ_MSG(test, fields[k].get(b), want, "%s next to %s",
						    fields[k].name, fields[i].name);
			}
		}
	}
}

static void sroce_padcnt_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_padcnt(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_padcnt(1), 3);
	KUNIT_EXPECT_EQ(test, sroce_padcnt(2), 2);
	KUNIT_EXPECT_EQ(test, sroce_padcnt(3), 1);
	KUNIT_EXPECT_EQ(test, sroce_padcnt(4), 0);
	KUNIT_EXPECT_EQ(test, sroce_padcnt(4093), 3);
	KUNIT_EXPECT_EQ(test, sroce_padcnt(4096), 0);
}

static void sroce_reth_codec(struct kunit *test)
{
	static const u8 want[SROCE_RETH_LEN] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	};
	u8 buf[SROCE_RETH_LEN + SROCE_HDR_TEST_OFF];
	u8 *h = buf + SROCE_HDR_TEST_OFF;

	sroce_reth_put(h, 0x0102030405060708ULL, 0x11223344, 0x55667788);
	KUNIT_EXPECT_MEMEQ(test, h, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_reth_va(h), 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, sroce_reth_rkey(h), 0x11223344);
	KUNIT_EXPECT_EQ(test, sroce_reth_len(h), 0x55667788);

	sroce_reth_set_rkey(h, 0);
	KUNIT_EXPECT_EQ(test, sroce_reth_va(h), 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, sroce_reth_len(h), 0x55667788);
	sroce_reth_set_va(h, U64_MAX);
	sroce_reth_set_len(h, U32_MAX);
	KUNIT_EXPECT_EQ(test, sroce_reth_rkey(h), 0);
	KUNIT_EXPECT_EQ(test, sroce_reth_va(h), U64_MAX);
}

static void sroce_aeth_codec(struct kunit *test)
{
	static const u8 want[SROCE_AETH_LEN] = { 0x1f, 0x12, 0x34, 0x56 };
	u8 buf[SROCE_AETH_LEN + SROCE_HDR_TEST_OFF];
	u8 *h = buf + SROCE_HDR_TEST_OFF;

	sroce_aeth_put(h, sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID), 0x123456);
	KUNIT_EXPECT_MEMEQ(test, h, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn(h), 0x1f);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(h), 0x123456);

	/* a 24-bit MSN wider than 24 bits must not spill into the syndrome */
	sroce_aeth_set_syn(h, 0);
	sroce_aeth_set_msn(h, U32_MAX);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn(h), 0);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(h), 0xffffff);
	sroce_aeth_set_syn(h, 0xff);
	sroce_aeth_set_msn(h, 0);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn(h), 0xff);
	KUNIT_EXPECT_EQ(test, h[1] | h[2] | h[3], 0);
}

static void sroce_aeth_syndrome(struct kunit *test)
{
	u8 s;

	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID), 0x1f);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_ack(0), 0x00);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_rnr(0), 0x20);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_rnr(14), 0x2e);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR), 0x60);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ), 0x61);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_nak(SROCE_NAK_REM_ACCESS), 0x62);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_nak(SROCE_NAK_REM_OP_ERR), 0x63);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_nak(SROCE_NAK_INVALID_RD_REQ), 0x64);
	/* an out-of-range value must not change the type */
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_rnr(0x3f), 0x3f);

	s = 0x6a;
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_type(s), SROCE_AETH_NAK);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_value(s), 0x0a);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_type(0x3f), SROCE_AETH_RNR_NAK);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_type(0x1f), SROCE_AETH_ACK);
	KUNIT_EXPECT_EQ(test, sroce_aeth_syn_type(0x40), SROCE_AETH_RESERVED);
}

static void sroce_rnr_timer_table(struct kunit *test)
{
	u8 code;

	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(0), 655360);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(1), 10);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(4), 40);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(5), 60);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(6), 80);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(14), 1280);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(18), 5120);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(25), 61440);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(30), 327680);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(31), 491520);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_ns(1), 10000);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_ns(0), 655360000ULL);
	/* only the 5-bit value counts */
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_us(0x20 | 5), 60);

	for (code = 2; code < SROCE_AETH_NUM_CODES; code++)
		KUNIT_EXPECT_GT_MSG(test, sroce_rnr_timer_us(code), sroce_rnr_timer_us(code - 1),
				    "code %u", code);

	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_code(0), 1);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_code(10), 1);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_code(11), 2);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_code(61000), 25);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_code(491520), 31);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_code(491521), 0);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_code(U32_MAX), 0);
}

static void sroce_aeth_credit_table(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(4), 4);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(5), 6);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(6), 8);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(7), 12);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(20), 1024);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(29), 24576);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(30), 32768);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credits(SROCE_AETH_CREDIT_INVALID), U32_MAX);

	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(5), 4);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(6), 5);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(7), 5);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(1023), 19);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(1024), 20);
	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(32768), 30);
	/* never the "invalid" code, however many WQEs there are */
	KUNIT_EXPECT_EQ(test, sroce_aeth_credit_code(U32_MAX), 30);
}

static void sroce_deth_codec(struct kunit *test)
{
	static const u8 want[SROCE_DETH_LEN] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef,
	};
	u8 buf[SROCE_DETH_LEN + SROCE_HDR_TEST_OFF];
	u8 *h = buf + SROCE_HDR_TEST_OFF;

	memset(buf, 0x77, sizeof(buf));
	sroce_deth_put(h, SROCE_GSI_QKEY, 0xabcdef);
	KUNIT_EXPECT_MEMEQ(test, h, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_deth_qkey(h), SROCE_GSI_QKEY);
	KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(h), 0xabcdef);

	/* the reserved byte between Q_Key and SrcQP stays put */
	h[4] = 0x5a;
	sroce_deth_set_sqpn(h, U32_MAX);
	sroce_deth_set_qkey(h, 0);
	KUNIT_EXPECT_EQ(test, h[4], 0x5a);
	KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(h), 0xffffff);
	KUNIT_EXPECT_EQ(test, sroce_deth_qkey(h), 0);
}

static void sroce_immdt_ieth_codec(struct kunit *test)
{
	static const u8 want[4] = { 0xde, 0xad, 0xbe, 0xef };
	u8 buf[4 + SROCE_HDR_TEST_OFF];
	u8 *h = buf + SROCE_HDR_TEST_OFF;

	sroce_immdt_set(h, cpu_to_be32(0xdeadbeef));
	KUNIT_EXPECT_MEMEQ(test, h, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(sroce_immdt(h)), 0xdeadbeef);

	memset(h, 0, 4);
	sroce_ieth_set_rkey(h, 0xdeadbeef);
	KUNIT_EXPECT_MEMEQ(test, h, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_ieth_rkey(h), 0xdeadbeef);
}

static void sroce_atomic_codec(struct kunit *test)
{
	static const u8 want[SROCE_ATMETH_LEN] = {
		0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
		0xca, 0xfe, 0xba, 0xbe,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
	};
	static const u8 want_ack[SROCE_ATMACK_LEN] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a,
	};
	u8 buf[SROCE_ATMETH_LEN + SROCE_HDR_TEST_OFF];
	u8 *h = buf + SROCE_HDR_TEST_OFF;

	sroce_atmeth_put(h, 0x1020304050607080ULL, 0xcafebabe, 0x0123456789abcdefULL,
			 0xfedcba9876543210ULL);
	KUNIT_EXPECT_MEMEQ(test, h, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_atmeth_va(h), 0x1020304050607080ULL);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_rkey(h), 0xcafebabe);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_swap_add(h), 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_compare(h), 0xfedcba9876543210ULL);

	sroce_atmeth_set_swap_add(h, 0);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_rkey(h), 0xcafebabe);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_compare(h), 0xfedcba9876543210ULL);

	sroce_atmack_set_orig(h, 42);
	KUNIT_EXPECT_MEMEQ(test, h, want_ack, sizeof(want_ack));
	KUNIT_EXPECT_EQ(test, sroce_atmack_orig(h), 42);
}

static void sroce_feth_codec(struct kunit *test)
{
	static const u8 want[SROCE_FETH_LEN] = { 0x00, 0x00, 0x00, 0x25 };
	u8 buf[SROCE_FETH_LEN + SROCE_HDR_TEST_OFF];
	u8 *h = buf + SROCE_HDR_TEST_OFF;

	memset(buf, 0xff, sizeof(buf));
	sroce_feth_put(h, 2, 5);
	KUNIT_EXPECT_MEMEQ(test, h, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_feth_sel(h), 2);
	KUNIT_EXPECT_EQ(test, sroce_feth_plt(h), 5);

	sroce_feth_put(h, 0xff, 0);
	KUNIT_EXPECT_EQ(test, h[3], 0x30);
	KUNIT_EXPECT_EQ(test, sroce_feth_sel(h), 3);
	KUNIT_EXPECT_EQ(test, sroce_feth_plt(h), 0);
}

static struct kunit_case sroce_hdr_test_cases[] = {
	KUNIT_CASE(sroce_bth_decode_vectors),
	KUNIT_CASE(sroce_bth_encode_vectors),
	KUNIT_CASE(sroce_bth_field_isolation),
	KUNIT_CASE(sroce_bth_roundtrip),
	KUNIT_CASE(sroce_padcnt_values),
	KUNIT_CASE(sroce_reth_codec),
	KUNIT_CASE(sroce_aeth_codec),
	KUNIT_CASE(sroce_aeth_syndrome),
	KUNIT_CASE(sroce_rnr_timer_table),
	KUNIT_CASE(sroce_aeth_credit_table),
	KUNIT_CASE(sroce_deth_codec),
	KUNIT_CASE(sroce_immdt_ieth_codec),
	KUNIT_CASE(sroce_atomic_codec),
	KUNIT_CASE(sroce_feth_codec),
	{}
};

static struct kunit_suite sroce_hdr_test_suite = {
	.name = "sroce_hdr",
	.test_cases = sroce_hdr_test_cases,
};

kunit_test_suites(&sroce_hdr_test_suite);
