// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the receive rule of connected QPs: sroce_pkt_from_peer()
 * against a QP connected over each encapsulation, and packets that differ
 * from its path in one thing at a time.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include <sroce/frame.h>
#include <sroce/qp.h>
#include <sroce/verbs.h>

static void sroce_rx_test_gid(union ib_gid *gid, u8 last)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	gid->raw[12] = 198;
	gid->raw[13] = 51;
	gid->raw[14] = 100;
	gid->raw[15] = last;
}

/* A QP of ours (.10) connected to .11 over @network_type */
static struct sroce_qp *sroce_rx_test_qp(struct kunit *test, u8 network_type)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->type = IB_QPT_RC;
	qp->av.network_type = network_type;
	sroce_rx_test_gid(&qp->av.sgid, 10);
	sroce_rx_test_gid(&qp->av.dgid, 11);
	return qp;
}

/* A packet of @type from .@src to .@dst */
static void sroce_rx_test_pkt(struct sroce_pkt *pkt, enum sroce_net_type type,
			      u8 src, u8 dst)
{
	union ib_gid g;

	memset(pkt, 0, sizeof(*pkt));
	pkt->type = type;
	sroce_rx_test_gid(&g, src);
	memcpy(&pkt->sgid, g.raw, sizeof(pkt->sgid));
	sroce_rx_test_gid(&g, dst);
	memcpy(&pkt->dgid, g.raw, sizeof(pkt->dgid));
}

static const struct {
	u8 network_type;
	enum sroce_net_type type;
} sroce_rx_test_paths[] = {
	{ RDMA_NETWORK_ROCE_V1, SROCE_NET_ROCE_V1 },
	{ RDMA_NETWORK_IPV4, SROCE_NET_ROCE_V2_IPV4 },
	{ RDMA_NETWORK_IPV6, SROCE_NET_ROCE_V2_IPV6 },
};

static void sroce_rx_from_peer(struct kunit *test)
{
	struct sroce_pkt pkt;
	struct sroce_qp *qp;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sroce_rx_test_paths); i++) {
		qp = sroce_rx_test_qp(test, sroce_rx_test_paths[i].network_type);
		for (j = 0; j < ARRAY_SIZE(sroce_rx_test_paths); j++) {
			/* the peer's addresses, over each encapsulation */
			sroce_rx_test_pkt(&pkt, sroce_rx_test_paths[j].type, 11, 10);
			KUNIT_EXPECT_EQ(test, sroce_pkt_from_peer(qp, &pkt), i == j);
		}
		/* over the QP's own: a stranger, another destination, swapped */
		sroce_rx_test_pkt(&pkt, sroce_rx_test_paths[i].type, 13, 10);
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
		sroce_rx_test_pkt(&pkt, sroce_rx_test_paths[i].type, 11, 12);
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
		sroce_rx_test_pkt(&pkt, sroce_rx_test_paths[i].type, 10, 11);
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
		/* one bit off in the first byte of the source */
		sroce_rx_test_pkt(&pkt, sroce_rx_test_paths[i].type, 11, 10);
		pkt.sgid.s6_addr[0] ^= 0x80;
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
	}

	/* no path yet (RESET, INIT): nothing is from the peer */
	qp = sroce_rx_test_qp(test, 0);
	memset(&qp->av, 0, sizeof(qp->av));
	for (j = 0; j < ARRAY_SIZE(sroce_rx_test_paths); j++) {
		sroce_rx_test_pkt(&pkt, sroce_rx_test_paths[j].type, 0, 0);
		memset(&pkt.sgid, 0, sizeof(pkt.sgid));
		memset(&pkt.dgid, 0, sizeof(pkt.dgid));
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
	}
}

static struct kunit_case sroce_rx_test_cases[] = {
	KUNIT_CASE(sroce_rx_from_peer),
	{}
};

static struct kunit_suite sroce_rx_test_suite = {
	.name = "sroce_rx",
	.test_cases = sroce_rx_test_cases,
};

kunit_test_suites(&sroce_rx_test_suite);
