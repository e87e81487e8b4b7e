// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the translation of a netdev's IEEE DCB objects
 * (drivers/sroce/dcb.c) and the qos/dcb attribute's text form.
 */
#include <kunit/test.h>
#include <linux/dcbnl.h>
#include <linux/string.h>

#include <sroce/dcb.h>
#include <sroce/qos.h>

/* Each priority its own traffic class, all ETS with the shares given */
static void ets_identity(struct ieee_ets *ets, const u8 bw[8])
{
	int i;

	memset(ets, 0, sizeof(*ets));
	ets->ets_cap = IEEE_8021QAZ_MAX_TCS;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		ets->prio_tc[i] = i;
		ets->tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		ets->tc_tx_bw[i] = bw[i];
	}
}

static void sroce_dcb_identity_map(struct kunit *test)
{
	static const u8 bw[8] = { 40, 20, 10, 10, 5, 5, 5, 5 };
	struct ieee_pfc pfc = { .pfc_en = BIT(3) | BIT(5) };
	struct sroce_dcb d;
	struct ieee_ets ets;
	const char *why = NULL;
	int p;

	ets_identity(&ets, bw);
	ets.tc_tsa[6] = IEEE_8021QAZ_TSA_STRICT;
	KUNIT_ASSERT_EQ(test, sroce_dcb_from_ieee(&pfc, &ets, &d, &why), 0);
	KUNIT_EXPECT_EQ(test, d.pfc_en, BIT(3) | BIT(5));
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (p == 6) {
			KUNIT_EXPECT_EQ(test, d.tsa[p], SROCE_TSA_STRICT);
			KUNIT_EXPECT_EQ(test, d.weight[p], 0);
			continue;
		}
		KUNIT_EXPECT_EQ(test, d.tsa[p], SROCE_TSA_ETS);
		KUNIT_EXPECT_EQ(test, d.weight[p], bw[p]);
	}
}

/*
 * A traffic class's share is split evenly among its priorities; a class
 * of 0 % still gets the least share, as the scheduler takes no 0.
 */
static void sroce_dcb_classes_shared(struct kunit *test)
{
	static const u8 bw[8] = { 50, 50, 0, 0, 0, 0, 0, 0 };
	struct ieee_pfc pfc = {};
	struct sroce_dcb d;
	struct ieee_ets ets;
	const char *why = NULL;
	static const u8 tc[8] = { 0, 0, 0, 1, 0, 0, 2, 0 };
	int p;

	ets_identity(&ets, bw);
	memcpy(ets.prio_tc, tc, sizeof(tc));
	KUNIT_ASSERT_EQ(test, sroce_dcb_from_ieee(&pfc, &ets, &d, &why), 0);
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		KUNIT_EXPECT_EQ(test, d.tsa[p], SROCE_TSA_ETS);
		/* six priorities share class 0's 50 %: 8 each */
		if (tc[p] == 0)
			KUNIT_EXPECT_EQ(test, d.weight[p], 8);
	}
	KUNIT_EXPECT_EQ(test, d.weight[3], 50);
	KUNIT_EXPECT_EQ(test, d.weight[6], 1);
	KUNIT_EXPECT_EQ(test, d.pfc_en, 0);
}

/* What sroce cannot follow is refused whole, the output untouched */
static void sroce_dcb_refused(struct kunit *test)
{
	static const u8 bw[8] = { 13, 13, 13, 13, 12, 12, 12, 12 };
	struct ieee_pfc pfc = { .pfc_en = 0xff };
	struct sroce_dcb d, before;
	struct ieee_ets ets;
	const char *why = NULL;

	memset(&d, 0x5a, sizeof(d));
	before = d;
	ets_identity(&ets, bw);
	ets.prio_tc[2] = 8;
	KUNIT_EXPECT_EQ(test, sroce_dcb_from_ieee(&pfc, &ets, &d, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
	KUNIT_EXPECT_MEMEQ(test, &d, &before, sizeof(d));

	ets_identity(&ets, bw);
	ets.tc_tsa[4] = IEEE_8021QAZ_TSA_CB_SHAPER;
	why = NULL;
	KUNIT_EXPECT_EQ(test, sroce_dcb_from_ieee(&pfc, &ets, &d, &why),
			-EOPNOTSUPP);
	KUNIT_EXPECT_NOT_NULL(test, why);
	ets.tc_tsa[4] = IEEE_8021QAZ_TSA_VENDOR;
	KUNIT_EXPECT_EQ(test, sroce_dcb_from_ieee(&pfc, &ets, &d, &why),
			-EOPNOTSUPP);
	KUNIT_EXPECT_MEMEQ(test, &d, &before, sizeof(d));

	/* a class no priority maps to may have any algorithm */
	ets.prio_tc[4] = 0;
	KUNIT_EXPECT_EQ(test, sroce_dcb_from_ieee(&pfc, &ets, &d, &why), 0);
	KUNIT_EXPECT_EQ(test, d.pfc_en, 0xff);
}

/* No DSCP entry: trust pcp, the default map; an entry: trust dscp */
static void sroce_dcb_app_dscp(struct kunit *test)
{
	u8 mask[SROCE_NUM_DSCP] = {};
	struct sroce_dcb d;
	int dscp;

	memset(&d, 0xee, sizeof(d));
	sroce_dcb_from_app(mask, SROCE_APPTRUST_UNKNOWN, &d);
	KUNIT_EXPECT_EQ(test, d.trust, SROCE_TRUST_PCP);
	for (dscp = 0; dscp < SROCE_NUM_DSCP; dscp++)
		KUNIT_EXPECT_EQ(test, d.dscp2prio[dscp], dscp >> 3);

	mask[10] = BIT(3);
	mask[46] = BIT(6);
	/* two entries for one DSCP: the higher priority */
	mask[26] = BIT(1) | BIT(4);
	sroce_dcb_from_app(mask, SROCE_APPTRUST_UNKNOWN, &d);
	KUNIT_EXPECT_EQ(test, d.trust, SROCE_TRUST_DSCP);
	KUNIT_EXPECT_EQ(test, d.dscp2prio[10], 3);
	KUNIT_EXPECT_EQ(test, d.dscp2prio[46], 6);
	KUNIT_EXPECT_EQ(test, d.dscp2prio[26], 4);
	KUNIT_EXPECT_EQ(test, d.dscp2prio[11], 1);
	KUNIT_EXPECT_EQ(test, d.dscp2prio[63], 7);

	/* what the driver says it trusts wins over the entries */
	sroce_dcb_from_app(mask, SROCE_APPTRUST_OTHER, &d);
	KUNIT_EXPECT_EQ(test, d.trust, SROCE_TRUST_PCP);
	KUNIT_EXPECT_EQ(test, d.dscp2prio[10], 3);
	memset(mask, 0, sizeof(mask));
	sroce_dcb_from_app(mask, SROCE_APPTRUST_DSCP, &d);
	KUNIT_EXPECT_EQ(test, d.trust, SROCE_TRUST_DSCP);
}

/* dcb-apptrust(8)'s order: the first selector is the most trusted */
static void sroce_dcb_apptrust_order(struct kunit *test)
{
	static const u8 dscp_pcp[] = { IEEE_8021QAZ_APP_SEL_DSCP, DCB_APP_SEL_PCP };
	static const u8 pcp_dscp[] = { DCB_APP_SEL_PCP, IEEE_8021QAZ_APP_SEL_DSCP };
	static const u8 eth_dscp[] = { IEEE_8021QAZ_APP_SEL_ETHERTYPE,
				       IEEE_8021QAZ_APP_SEL_DSCP };
	static const u8 pcp[] = { DCB_APP_SEL_PCP };

	KUNIT_EXPECT_EQ(test, sroce_dcb_apptrust_of(dscp_pcp, 2), SROCE_APPTRUST_DSCP);
	KUNIT_EXPECT_EQ(test, sroce_dcb_apptrust_of(pcp_dscp, 2), SROCE_APPTRUST_OTHER);
	KUNIT_EXPECT_EQ(test, sroce_dcb_apptrust_of(eth_dscp, 2), SROCE_APPTRUST_DSCP);
	KUNIT_EXPECT_EQ(test, sroce_dcb_apptrust_of(pcp, 1), SROCE_APPTRUST_OTHER);
	KUNIT_EXPECT_EQ(test, sroce_dcb_apptrust_of(pcp, 0), SROCE_APPTRUST_OTHER);
}

static void sroce_dcb_parse_onoff_forms(struct kunit *test)
{
	const char *why = NULL;
	bool on = false;

	KUNIT_EXPECT_EQ(test, sroce_qos_parse_onoff("on\n", &on, &why), 0);
	KUNIT_EXPECT_TRUE(test, on);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_onoff("off", &on, &why), 0);
	KUNIT_EXPECT_FALSE(test, on);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_onoff("1", &on, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
	KUNIT_EXPECT_EQ(test, sroce_qos_parse_onoff("onn", &on, &why), -EINVAL);
	KUNIT_EXPECT_FALSE(test, on);
}

static struct kunit_case sroce_dcb_cases[] = {
	KUNIT_CASE(sroce_dcb_identity_map),
	KUNIT_CASE(sroce_dcb_classes_shared),
	KUNIT_CASE(sroce_dcb_refused),
	KUNIT_CASE(sroce_dcb_parse_onoff_forms),
	KUNIT_CASE(sroce_dcb_app_dscp),
	KUNIT_CASE(sroce_dcb_apptrust_order),
	{}
};

static struct kunit_suite sroce_dcb_suite = {
	.name = "sroce_dcb",
	.test_cases = sroce_dcb_cases,
};

kunit_test_suites(&sroce_dcb_suite);
