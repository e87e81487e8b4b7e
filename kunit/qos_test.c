// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the QoS policy (drivers/sroce/qos.c): classification in
 * both trust modes and the text forms of the configuration, bad ones
 * included.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/string.h>

#include <sroce/qos.h>

static const enum sroce_net_type all_types[] = {
	SROCE_NET_ROCE_V1, SROCE_NET_ROCE_V2_IPV4, SROCE_NET_ROCE_V2_IPV6,
};

static void sroce_qos_default_pcp(struct kunit *test)
{
	struct sroce_qos_class qc;
	struct sroce_qos_cfg c;
	int i, sl;

	sroce_qos_cfg_default(&c);
	KUNIT_EXPECT_EQ(test, c.trust, SROCE_TRUST_PCP);
	KUNIT_EXPECT_EQ(test, c.pfc_en, 0);
	for (i = 0; i < ARRAY_SIZE(all_types); i++) {
		for (sl = 0; sl < 16; sl++) {
			/* the traffic class never moves the priority */
			sroce_qos_classify(&c, all_types[i], sl, 0xb8, &qc);
			KUNIT_EXPECT_EQ(test, qc.prio, sl & 7);
			KUNIT_EXPECT_FALSE(test, qc.prio_tag);
		}
	}
}

/* RoCEv2 sends DSCP and no ECN of the user's; the GRH keeps its TClass */
static void sroce_qos_ecn_bits_dropped(struct kunit *test)
{
	struct sroce_qos_class qc;
	struct sroce_qos_cfg c;
	int tc;

	sroce_qos_cfg_default(&c);
	for (tc = 0; tc < 256; tc++) {
		sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV4, 0, tc, &qc);
		KUNIT_EXPECT_EQ(test, qc.tclass, tc & 0xfc);
		sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV6, 0, tc, &qc);
		KUNIT_EXPECT_EQ(test, qc.tclass, tc & 0xfc);
		sroce_qos_classify(&c, SROCE_NET_ROCE_V1, 0, tc, &qc);
		KUNIT_EXPECT_EQ(test, qc.tclass, tc);
	}
}

/*
 * With the reaction point on for its priority, a RoCEv2 packet is ECT(0)
 * whatever ECN bits the user's traffic class had; on other priorities,
 * and over RoCEv1, nothing changes.
 */
static void sroce_qos_ect_with_rp(struct kunit *test)
{
	struct sroce_qos_class qc;
	struct sroce_qos_cfg c;
	int tc;

	sroce_qos_cfg_default(&c);
	KUNIT_EXPECT_EQ(test, c.rp_en, 0);
	c.rp_en = BIT(3);
	for (tc = 0; tc < 256; tc++) {
		sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV4, 3, tc, &qc);
		KUNIT_EXPECT_EQ(test, qc.tclass, (tc & 0xfc) | SROCE_ECN_ECT0);
		sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV6, 3, tc, &qc);
		KUNIT_EXPECT_EQ(test, qc.tclass, (tc & 0xfc) | SROCE_ECN_ECT0);
		sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV4, 2, tc, &qc);
		KUNIT_EXPECT_EQ(test, qc.tclass, tc & 0xfc);
		sroce_qos_classify(&c, SROCE_NET_ROCE_V1, 3, tc, &qc);
		KUNIT_EXPECT_EQ(test, qc.tclass, tc);
	}
	/* in DSCP trust the priority, and so ECT, follows the DSCP */
	c.trust = SROCE_TRUST_DSCP;
	sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV4, 0, 26 << 2, &qc);
	KUNIT_EXPECT_EQ(test, qc.prio, 3);
	KUNIT_EXPECT_EQ(test, qc.tclass, (26 << 2) | SROCE_ECN_ECT0);
}

static void sroce_qos_trust_dscp(struct kunit *test)
{
	struct sroce_qos_class qc;
	struct sroce_qos_cfg c;
	int dscp;

	sroce_qos_cfg_default(&c);
	c.trust = SROCE_TRUST_DSCP;
	for (dscp = 0; dscp < SROCE_NUM_DSCP; dscp++) {
		/* the default map: the class selector bits; ECN ignored */
		sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV4, 5,
				   dscp << 2 | 3, &qc);
		KUNIT_EXPECT_EQ(test, qc.prio, dscp >> 3);
		KUNIT_EXPECT_EQ(test, qc.tclass, dscp << 2);
	}
	c.dscp2prio[26] = 6;
	sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV6, 1, 26 << 2, &qc);
	KUNIT_EXPECT_EQ(test, qc.prio, 6);
	/* no IP header a switch could read: RoCEv1 goes by its SL */
	sroce_qos_classify(&c, SROCE_NET_ROCE_V1, 1, 26 << 2, &qc);
	KUNIT_EXPECT_EQ(test, qc.prio, 1);
}

static void sroce_qos_prio_tag_on_pfc(struct kunit *test)
{
	struct sroce_qos_class qc;
	struct sroce_qos_cfg c;
	int sl;

	sroce_qos_cfg_default(&c);
	c.pfc_en = BIT(3) | BIT(5);
	for (sl = 0; sl < 8; sl++) {
		sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV4, sl, 0, &qc);
		KUNIT_EXPECT_EQ(test, qc.prio_tag, sl == 3 || sl == 5);
	}
	/* by the priority the packet ends up on, also under trust dscp */
	c.trust = SROCE_TRUST_DSCP;
	sroce_qos_classify(&c, SROCE_NET_ROCE_V2_IPV4, 0, 24 << 2, &qc);
	KUNIT_EXPECT_EQ(test, qc.prio, 3);
	KUNIT_EXPECT_TRUE(test, qc.prio_tag);
}

static void sroce_qos_parse_trust_forms(struct kunit *test)
{
	const char *why = NULL;
	u8 t = 0xee;

	KUNIT_EXPECT_EQ(test, sroce_qos_parse_trust("dscp\n", &t, &why), 0);
	KUNIT_EXPECT_EQ(test, t, SROCE_TRUST_DSCP);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_trust("pcp", &t, &why), 0);
	KUNIT_EXPECT_EQ(test, t, SROCE_TRUST_PCP);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_trust("l2", &t, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_trust("", &t, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, t, SROCE_TRUST_PCP);
}

static void sroce_qos_parse_prio_mask_forms(struct kunit *test)
{
	static const char * const bad[] = {
		"", "0,0,0,1,0,0,0", "0,0,0,1,0,0,0,0,0", "0,0,0,2,0,0,0,0",
		"0,0,0,1,0,0,0,x", "0,,0,1,0,0,0,0", "00,0,0,1,0,0,0,0",
		"0 0 0 1 0 0 0 0",
	};
	const char *why;
	u8 en = 0xaa;
	int i;

	KUNIT_EXPECT_EQ(test,
			sroce_qos_parse_prio_mask("0,0,0,1,0,0,0,0\n", &en, &why),
			0);
	KUNIT_EXPECT_EQ(test, en, BIT(3));
	KUNIT_EXPECT_EQ(test,
			sroce_qos_parse_prio_mask(" 1, 0,0,0 ,0,0,0,1", &en, &why),
			0);
	KUNIT_EXPECT_EQ(test, en, BIT(0) | BIT(7));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test, sroce_qos_parse_prio_mask(bad[i], &en, &why),
				    -EINVAL, "\"%s\"", bad[i]);
		KUNIT_EXPECT_NOT_NULL(test, why);
		KUNIT_EXPECT_EQ(test, en, BIT(0) | BIT(7));
	}
}

/* The numeric knobs: decimal, within their range, or nothing changes */
static void sroce_qos_parse_uint_forms(struct kunit *test)
{
	static const char * const bad[] = {
		"", "64", "-1", "0x10", "4 8", "a", "99999999999",
	};
	const char *why;
	u32 v = 7;
	int i;

	KUNIT_EXPECT_EQ(test, sroce_qos_parse_uint("48\n", 63, &v, &why), 0);
	KUNIT_EXPECT_EQ(test, v, 48);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_uint("63", 63, &v, &why), 0);
	KUNIT_EXPECT_EQ(test, v, 63);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_uint("0", 63, &v, &why), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		v = 7;
		KUNIT_EXPECT_EQ_MSG(test, sroce_qos_parse_uint(bad[i], 63, &v, &why),
				    -EINVAL, "\"%s\"", bad[i]);
		KUNIT_EXPECT_NOT_NULL(test, why);
		KUNIT_EXPECT_EQ(test, v, 7);
	}
}

/*
 * CNPs: their own priority and DSCP whatever the flow, ECT(0) on RoCEv2
 * as ConnectX sends them (TOS 0xc2 with the defaults), a priority tag
 * where PFC is on for their priority.
 */
static void sroce_qos_cnp_class(struct kunit *test)
{
	struct sroce_qos_class qc;
	struct sroce_qos_cfg c;

	sroce_qos_cfg_default(&c);
	KUNIT_EXPECT_EQ(test, c.np_en, 0xff);
	sroce_qos_classify_cnp(&c, SROCE_NET_ROCE_V2_IPV4, &qc);
	KUNIT_EXPECT_EQ(test, qc.prio, SROCE_CNP_PRIO_DEFAULT);
	KUNIT_EXPECT_EQ(test, qc.tclass, 0xc2);
	KUNIT_EXPECT_FALSE(test, qc.prio_tag);

	c.cnp_dscp = 26;
	c.cnp_prio = 3;
	c.pfc_en = BIT(3);
	sroce_qos_classify_cnp(&c, SROCE_NET_ROCE_V2_IPV6, &qc);
	KUNIT_EXPECT_EQ(test, qc.prio, 3);
	KUNIT_EXPECT_EQ(test, qc.tclass, (26 << 2) | SROCE_ECN_ECT0);
	KUNIT_EXPECT_TRUE(test, qc.prio_tag);

	/* a GRH's traffic class has no ECN bits to claim */
	sroce_qos_classify_cnp(&c, SROCE_NET_ROCE_V1, &qc);
	KUNIT_EXPECT_EQ(test, qc.tclass, 26 << 2);
	KUNIT_EXPECT_EQ(test, qc.prio, 3);
}

static void sroce_qos_parse_ets_forms(struct kunit *test)
{
	static const char all_strict[] =
		"strict,strict,strict,strict,strict,strict,strict,strict";
	static const char * const bad[] = {
		"",
		"13,13,13,13,12,12,12,11",		/* 99 */
		"13,13,13,13,12,12,12,14",		/* 101 */
		"strict,strict,25,25,25,25,0,0",	/* a share of 0 */
		"strict,strict,20,20,20,20,10",		/* seven */
		"101,strict,strict,strict,strict,strict,strict,strict",
		"-1,strict,strict,strict,strict,strict,strict,101",
		"ets,13,13,13,12,12,12,12",
		"strict,strict,20,20,20,20,10,10,strict",
		"strict,strict,20,20,20,20,10,10,10,10,10,10,10,10,10,10,10,10,10,10,10,10,10,10",
	};
	u8 tsa[SROCE_NUM_PRIO], w[SROCE_NUM_PRIO];
	u8 tsa0[SROCE_NUM_PRIO], w0[SROCE_NUM_PRIO];
	char out[96];
	const char *why;
	int i;

	KUNIT_ASSERT_EQ(test, sroce_qos_parse_ets("strict,strict,20,20,20,20,10,10\n",
						  tsa, w, &why), 0);
	KUNIT_EXPECT_EQ(test, tsa[0], SROCE_TSA_STRICT);
	KUNIT_EXPECT_EQ(test, tsa[1], SROCE_TSA_STRICT);
	KUNIT_EXPECT_EQ(test, tsa[2], SROCE_TSA_ETS);
	KUNIT_EXPECT_EQ(test, w[2], 20);
	KUNIT_EXPECT_EQ(test, w[7], 10);
	KUNIT_EXPECT_EQ(test, w[0], 0);
	/* the shown form reads back as itself */
	sroce_qos_format_ets(tsa, w, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "strict,strict,20,20,20,20,10,10\n");
	/* all strict: no shares to sum */
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_ets(all_strict, tsa, w, &why), 0);

	KUNIT_ASSERT_EQ(test, sroce_qos_parse_ets("75,25,strict,strict,strict,strict,strict,strict",
						  tsa0, w0, &why), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(tsa, tsa0, sizeof(tsa));
		memcpy(w, w0, sizeof(w));
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test, sroce_qos_parse_ets(bad[i], tsa, w, &why),
				    -EINVAL, "\"%s\"", bad[i]);
		KUNIT_EXPECT_NOT_NULL(test, why);
		KUNIT_EXPECT_MEMEQ(test, tsa, tsa0, sizeof(tsa));
		KUNIT_EXPECT_MEMEQ(test, w, w0, sizeof(w));
	}
}

/* The default shares, through the scheduler: an eighth each, to a point */
static void sroce_qos_default_ets_shares(struct kunit *test)
{
	u64 bytes[SROCE_NUM_PRIO] = {}, total = 0;
	u32 len[SROCE_NUM_PRIO];
	struct sroce_txsched s;
	struct sroce_qos_cfg c;
	int i, p;

	sroce_qos_cfg_default(&c);
	sroce_txsched_init(&s);
	KUNIT_ASSERT_EQ(test, sroce_txsched_set(&s, c.tsa, c.weight), 0);
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		len[p] = 1024;
	for (i = 0; i < 10000; i++) {
		p = sroce_txsched_pick(&s, 0xff, 0, len);
		KUNIT_ASSERT_GE(test, p, 0);
		bytes[p] += len[p];
		total += len[p];
	}
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		KUNIT_EXPECT_GE(test, bytes[p] * 1000, total * 115);
		KUNIT_EXPECT_LE(test, bytes[p] * 1000, total * 135);
	}
}

static void sroce_qos_parse_dscp2prio_forms(struct kunit *test)
{
	static const char * const bad[] = {
		"", "26", "64 3", "26 8", "26 -1", "x 3", "26 3 4", "26,3",
	};
	const char *why;
	u8 d = 0, p = 0;
	int i;

	KUNIT_EXPECT_EQ(test, sroce_qos_parse_dscp2prio("26 3\n", &d, &p, &why),
			0);
	KUNIT_EXPECT_EQ(test, d, 26);
	KUNIT_EXPECT_EQ(test, p, 3);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_dscp2prio("63\t7", &d, &p, &why),
			0);
	KUNIT_EXPECT_EQ(test, d, 63);
	KUNIT_EXPECT_EQ(test, p, 7);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_qos_parse_dscp2prio(bad[i], &d, &p, &why),
				    -EINVAL, "\"%s\"", bad[i]);
		KUNIT_EXPECT_NOT_NULL(test, why);
		KUNIT_EXPECT_EQ(test, d, 63);
		KUNIT_EXPECT_EQ(test, p, 7);
	}
}

static struct kunit_case sroce_qos_cases[] = {
	KUNIT_CASE(sroce_qos_default_pcp),
	KUNIT_CASE(sroce_qos_ecn_bits_dropped),
	KUNIT_CASE(sroce_qos_trust_dscp),
	KUNIT_CASE(sroce_qos_prio_tag_on_pfc),
	KUNIT_CASE(sroce_qos_parse_trust_forms),
	KUNIT_CASE(sroce_qos_ect_with_rp),
	KUNIT_CASE(sroce_qos_parse_prio_mask_forms),
	KUNIT_CASE(sroce_qos_parse_uint_forms),
	KUNIT_CASE(sroce_qos_cnp_class),
	KUNIT_CASE(sroce_qos_parse_ets_forms),
	KUNIT_CASE(sroce_qos_default_ets_shares),
	KUNIT_CASE(sroce_qos_parse_dscp2prio_forms),
	{}
};

static struct kunit_suite sroce_qos_suite = {
	.name = "sroce_qos",
	.test_cases = sroce_qos_cases,
};

kunit_test_suites(&sroce_qos_suite);
