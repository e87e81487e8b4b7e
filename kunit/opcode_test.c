// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the opcode table: which opcodes exist, header lengths and
 * offsets for each class (checked against hand-computed IBA values and,
 * for every entry, against the wire order of the extended headers), and
 * the consistency of the role flags.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include <sroce/wire.h>

static bool sroce_opcode_test_expected_valid(unsigned int op)
{
	if (op <= 0x14 || op == 0x16 || op == 0x17 || op == 0x1c || op == 0x1d)
		return true;			/* RC */
	if (op >= 0x20 && op <= 0x2b)
		return true;			/* UC */
	return op == 0x64 || op == 0x65 || op == 0x81;	/* UD, CNP */
}

static void sroce_opcode_valid_set(struct kunit *test)
{
	unsigned int op, n = 0;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_info(op);

		KUNIT_EXPECT_EQ_MSG(test, !!info, sroce_opcode_test_expected_valid(op),
				    "opcode 0x%02x", op);
		if (info)
			n++;
	}
	KUNIT_EXPECT_EQ(test, n, 40);
}

static void sroce_opcode_reserved_rejected(struct kunit *test)
{
	/* IBTA RESYNC, gaps, RD, XRC, other CNP values, vendor range */
	static const u8 reserved[] = {
		0x15, 0x18, 0x1b, 0x1e, 0x1f, 0x2c, 0x3f, 0x40, 0x44, 0x60,
		0x63, 0x66, 0x80, 0x82, 0xa4, 0xe0, 0xff,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(reserved); i++) {
		KUNIT_EXPECT_NULL_MSG(test, sroce_opcode_info(reserved[i]),
				      "opcode 0x%02x", reserved[i]);
		KUNIT_EXPECT_STREQ(test, sroce_opcode_name(reserved[i]), "RESERVED");
	}
}

struct sroce_opcode_test_layout {
	u8 opcode;
	u8 hdr_len;
	u8 off[SROCE_HDR_NUM];
	bool payload;
};

/* Values worked out by hand from IBA vol. 1 tables 35-37 and annex A17. */
static const struct sroce_opcode_test_layout sroce_opcode_test_layouts[] = {
	{ SROCE_OP_RC_SEND_FIRST, 12, {}, true },
	{ SROCE_OP_RC_SEND_ONLY, 12, {}, true },
	{ SROCE_OP_RC_SEND_LAST_IMM, 16, { [SROCE_HDR_IMMDT] = 12 }, true },
	{ SROCE_OP_RC_SEND_ONLY_INV, 16, { [SROCE_HDR_IETH] = 12 }, true },
	{ SROCE_OP_RC_WRITE_FIRST, 28, { [SROCE_HDR_RETH] = 12 }, true },
	{ SROCE_OP_RC_WRITE_MIDDLE, 12, {}, true },
	{ SROCE_OP_RC_WRITE_ONLY_IMM, 32,
	  { [SROCE_HDR_RETH] = 12, [SROCE_HDR_IMMDT] = 28 }, true },
	{ SROCE_OP_RC_READ_REQ, 28, { [SROCE_HDR_RETH] = 12 }, false },
	{ SROCE_OP_RC_READ_RESP_FIRST, 16, { [SROCE_HDR_AETH] = 12 }, true },
	{ SROCE_OP_RC_READ_RESP_MIDDLE, 12, {}, true },
	{ SROCE_OP_RC_READ_RESP_ONLY, 16, { [SROCE_HDR_AETH] = 12 }, true },
	{ SROCE_OP_RC_ACK, 16, { [SROCE_HDR_AETH] = 12 }, false },
	{ SROCE_OP_RC_ATOMIC_ACK, 24,
	  { [SROCE_HDR_AETH] = 12, [SROCE_HDR_ATMACK] = 16 }, false },
	{ SROCE_OP_RC_CMP_SWAP, 40, { [SROCE_HDR_ATMETH] = 12 }, false },
	{ SROCE_OP_RC_FETCH_ADD, 40, { [SROCE_HDR_ATMETH] = 12 }, false },
	{ SROCE_OP_RC_FLUSH, 32, { [SROCE_HDR_FETH] = 12, [SROCE_HDR_RETH] = 16 }, false },
	{ SROCE_OP_RC_ATOMIC_WRITE, 28, { [SROCE_HDR_RETH] = 12 }, true },
	{ SROCE_OP_UC_SEND_ONLY_IMM, 16, { [SROCE_HDR_IMMDT] = 12 }, true },
	{ SROCE_OP_UC_WRITE_ONLY, 28, { [SROCE_HDR_RETH] = 12 }, true },
	{ SROCE_OP_UC_WRITE_LAST_IMM, 16, { [SROCE_HDR_IMMDT] = 12 }, true },
	{ SROCE_OP_UD_SEND_ONLY, 20, { [SROCE_HDR_DETH] = 12 }, true },
	{ SROCE_OP_UD_SEND_ONLY_IMM, 24,
	  { [SROCE_HDR_DETH] = 12, [SROCE_HDR_IMMDT] = 20 }, true },
	{ SROCE_OP_CNP, 28, {}, false },
};

static void sroce_opcode_layouts(struct kunit *test)
{
	unsigned int i, h;

	for (i = 0; i < ARRAY_SIZE(sroce_opcode_test_layouts); i++) {
		const struct sroce_opcode_test_layout *l = &sroce_opcode_test_layouts[i];
		const struct sroce_opcode_info *info = sroce_opcode_info(l->opcode);

		KUNIT_ASSERT_NOT_NULL_MSG(test, info, "opcode 0x%02x", l->opcode);
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, l->hdr_len, "%s", info->name);
		for (h = 0; h < SROCE_HDR_NUM; h++) {
			KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_hdr_off(info, h), l->off[h],
					    "%s header %u", info->name, h);
			KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_has(info, BIT(h)), !!l->off[h],
					    "%s header %u flag", info->name, h);
		}
		KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_has(info, SROCE_OPF_PAYLOAD), l->payload,
				    "%s", info->name);
	}
}

static const u8 sroce_opcode_test_hdr_len[SROCE_HDR_NUM] = {
	[SROCE_HDR_DETH] = 8, [SROCE_HDR_FETH] = 4, [SROCE_HDR_RETH] = 16,
	[SROCE_HDR_ATMETH] = 28, [SROCE_HDR_AETH] = 4, [SROCE_HDR_ATMACK] = 8,
	[SROCE_HDR_IMMDT] = 4, [SROCE_HDR_IETH] = 4,
};

/* Every entry: headers packed in wire order after the BTH, nothing else. */
static void sroce_opcode_offsets_follow_flags(struct kunit *test)
{
	unsigned int op, h;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_info(op);
		unsigned int end = SROCE_BTH_LEN;

		if (!info || op == SROCE_OP_CNP)
			continue;
		for (h = 0; h < SROCE_HDR_NUM; h++) {
			if (info->flags & BIT(h)) {
				KUNIT_EXPECT_EQ_MSG(test, info->off[h], end, "%s hdr %u",
						    info->name, h);
				end += sroce_opcode_test_hdr_len[h];
			} else {
				KUNIT_EXPECT_EQ_MSG(test, info->off[h], 0, "%s hdr %u",
						    info->name, h);
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, end, "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len % 4, 0, "%s", info->name);
		KUNIT_EXPECT_LE_MSG(test, info->hdr_len, SROCE_MAX_TP_HDR_LEN, "%s", info->name);
		/* RETH and AtomicETH never appear together, nor ImmDt and IETH */
		KUNIT_EXPECT_NE(test, info->flags & (SROCE_OPF_RETH | SROCE_OPF_ATMETH),
				SROCE_OPF_RETH | SROCE_OPF_ATMETH);
		KUNIT_EXPECT_NE(test, info->flags & (SROCE_OPF_IMMDT | SROCE_OPF_IETH),
				SROCE_OPF_IMMDT | SROCE_OPF_IETH);
	}
}

static void sroce_opcode_role_flags(struct kunit *test)
{
	const u32 pos = SROCE_OPF_FIRST | SROCE_OPF_MIDDLE | SROCE_OPF_LAST | SROCE_OPF_ONLY;
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_info(op);
		u8 tr = sroce_opcode_transport(op);

		if (!info || op == SROCE_OP_CNP)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, hweight32(info->flags & pos), 1, "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test,
				    hweight32(info->flags & (SROCE_OPF_REQ | SROCE_OPF_RESP)),
				    1, "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_has(info, SROCE_OPF_NEEDS_ACK),
				    tr == SROCE_TR_RC && sroce_opcode_has(info, SROCE_OPF_REQ),
				    "%s", info->name);
		/* an AETH only ever rides on a response, and only RC has those */
		if (sroce_opcode_has(info, SROCE_OPF_AETH))
			KUNIT_EXPECT_TRUE_MSG(test, sroce_opcode_has(info, SROCE_OPF_RESP),
					      "%s", info->name);
		if (tr != SROCE_TR_RC)
			KUNIT_EXPECT_FALSE_MSG(test, sroce_opcode_has(info, SROCE_OPF_RESP),
					       "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_has(info, SROCE_OPF_DETH),
				    tr == SROCE_TR_UD, "%s", info->name);
	}

	KUNIT_EXPECT_TRUE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_RC_SEND_ONLY),
						 SROCE_OPF_START));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_RC_SEND_ONLY),
						 SROCE_OPF_END));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_RC_SEND_MIDDLE),
						  SROCE_OPF_START | SROCE_OPF_END));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_UC_WRITE_LAST_IMM),
						 SROCE_OPF_RWQE));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_RC_WRITE_LAST),
						  SROCE_OPF_RWQE));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_RC_ACK),
						 SROCE_OPF_ACK));
	KUNIT_EXPECT_TRUE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_RC_ATOMIC_ACK),
						 SROCE_OPF_ATOMIC));
	KUNIT_EXPECT_FALSE(test, sroce_opcode_has(sroce_opcode_info(SROCE_OP_RC_READ_REQ),
						  SROCE_OPF_PAYLOAD));
	KUNIT_EXPECT_EQ(test, sroce_opcode_info(SROCE_OP_CNP)->flags, SROCE_OPF_CNP);
}

/* UC opcodes 0x20-0x2b are RC 0x00-0x0b minus the ACK obligation. */
static void sroce_opcode_uc_mirrors_rc(struct kunit *test)
{
	unsigned int op;

	for (op = SROCE_OP_RC_SEND_FIRST; op <= SROCE_OP_RC_WRITE_ONLY_IMM; op++) {
		const struct sroce_opcode_info *rc = sroce_opcode_info(op);
		const struct sroce_opcode_info *uc = sroce_opcode_info(op | SROCE_TR_UC);

		KUNIT_ASSERT_NOT_NULL(test, rc);
		KUNIT_ASSERT_NOT_NULL(test, uc);
		KUNIT_EXPECT_EQ_MSG(test, uc->flags, rc->flags & ~SROCE_OPF_NEEDS_ACK,
				    "%s", uc->name);
		KUNIT_EXPECT_EQ(test, uc->hdr_len, rc->hdr_len);
		KUNIT_EXPECT_MEMEQ(test, uc->off, rc->off, sizeof(rc->off));
		KUNIT_EXPECT_STREQ(test, uc->name + 2, rc->name + 2);
	}
}

static void sroce_opcode_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, sroce_opcode_name(0x04), "RC_SEND_ONLY");
	KUNIT_EXPECT_STREQ(test, sroce_opcode_name(0x11), "RC_ACK");
	KUNIT_EXPECT_STREQ(test, sroce_opcode_name(0x2b), "UC_WRITE_ONLY_IMM");
	KUNIT_EXPECT_STREQ(test, sroce_opcode_name(0x65), "UD_SEND_ONLY_IMM");
	KUNIT_EXPECT_STREQ(test, sroce_opcode_name(0x81), "CNP");
	KUNIT_EXPECT_EQ(test, sroce_opcode_transport(0x65), SROCE_TR_UD);
	KUNIT_EXPECT_EQ(test, sroce_opcode_transport(0x2b), SROCE_TR_UC);
	KUNIT_EXPECT_EQ(test, sroce_opcode_transport(0x81), SROCE_TR_CNP);
}

static struct kunit_case sroce_opcode_test_cases[] = {
	KUNIT_CASE(sroce_opcode_valid_set),
	KUNIT_CASE(sroce_opcode_reserved_rejected),
	KUNIT_CASE(sroce_opcode_layouts),
	KUNIT_CASE(sroce_opcode_offsets_follow_flags),
	KUNIT_CASE(sroce_opcode_role_flags),
	KUNIT_CASE(sroce_opcode_uc_mirrors_rc),
	KUNIT_CASE(sroce_opcode_names),
	{}
};

static struct kunit_suite sroce_opcode_test_suite = {
	.name = "sroce_opcode",
	.test_cases = sroce_opcode_test_cases,
};

kunit_test_suites(&sroce_opcode_test_suite);
