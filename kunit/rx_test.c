// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the receive rule of connected QPs: sroce_pkt_from_peer()
 * against a QP connected over each encapsulation, and packets that differ
 * from its path in one thing at a time.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include <sroce/frame.h>
#include <sroce/rx.h>
#include <sroce/transport.h>

static const struct {
	u8 network_type;
	enum sroce_net_type type;
	u8 prefix[12];		/* the GIDs of the path's kind, but host @last */
} sroce_rx_test_paths[] = {
	/* RoCE v1 over link-local GIDs */
	{ RDMA_NETWORK_ROCE_V1, SROCE_NET_ROCE_V1,
	  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff } },
	/* RoCE v2 over IPv4: IPv4-mapped, 198.51.100.last */
	{ RDMA_NETWORK_IPV4, SROCE_NET_ROCE_V2_IPV4,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff } },
	/* RoCE v2 over IPv6: 2001:db8:1::last */
	{ RDMA_NETWORK_IPV6, SROCE_NET_ROCE_V2_IPV6,
	  { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0 } },
};

static void sroce_rx_test_gid(u8 *raw, unsigned int path, u8 last)
{
	memcpy(raw, sroce_rx_test_paths[path].prefix, 12);
	raw[12] = 198;
	raw[13] = 51;
	raw[14] = 100;
	raw[15] = last;
}

/* A QP of ours (host 10) connected to host 11 over @path, on @vlan */
static struct sroce_qp *sroce_rx_test_qp(struct kunit *test, unsigned int path,
					 u16 vlan)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->type = IB_QPT_RC;
	qp->av.network_type = sroce_rx_test_paths[path].network_type;
	qp->av.vlan_id = vlan;
	sroce_rx_test_gid(qp->av.sgid.raw, path, 10);
	sroce_rx_test_gid(qp->av.dgid.raw, path, 11);
	return qp;
}

/* A packet over @path from host @src to host @dst, on no VLAN */
static void sroce_rx_test_pkt(struct sroce_pkt *pkt, unsigned int path,
			      u8 src, u8 dst)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->type = sroce_rx_test_paths[path].type;
	pkt->vlan_id = SROCE_NO_VLAN;
	sroce_rx_test_gid(pkt->sgid.s6_addr, path, src);
	sroce_rx_test_gid(pkt->dgid.s6_addr, path, dst);
}

static void sroce_rx_from_peer(struct kunit *test)
{
	const unsigned int n = ARRAY_SIZE(sroce_rx_test_paths);
	struct sroce_pkt pkt;
	struct sroce_qp *qp;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		qp = sroce_rx_test_qp(test, i, SROCE_NO_VLAN);
		/* the peer's packet over the QP's encapsulation, and no other */
		for (j = 0; j < n; j++) {
			sroce_rx_test_pkt(&pkt, j, 11, 10);
			KUNIT_EXPECT_EQ(test, sroce_pkt_from_peer(qp, &pkt), i == j);
			/* the QP's GIDs exactly, but another encapsulation */
			sroce_rx_test_pkt(&pkt, i, 11, 10);
			pkt.type = sroce_rx_test_paths[j].type;
			KUNIT_EXPECT_EQ(test, sroce_pkt_from_peer(qp, &pkt), i == j);
		}
		/* a stranger, another destination, the two swapped */
		sroce_rx_test_pkt(&pkt, i, 13, 10);
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
		sroce_rx_test_pkt(&pkt, i, 11, 12);
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
		sroce_rx_test_pkt(&pkt, i, 10, 11);
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
		/* one bit off at either end of either address */
		for (j = 0; j < 4; j++) {
			u8 *raw = j & 1 ? pkt.dgid.s6_addr : pkt.sgid.s6_addr;

			sroce_rx_test_pkt(&pkt, i, 11, 10);
			raw[j & 2 ? 15 : 0] ^= 0x01;
			KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
		}
		/* from the peer, but arriving on a VLAN the path is not on */
		sroce_rx_test_pkt(&pkt, i, 11, 10);
		pkt.vlan_id = 20;
		KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
	}

	/* a path on VLAN 10: the peer on VLAN 10, not untagged or on 20 */
	qp = sroce_rx_test_qp(test, 1, 10);
	sroce_rx_test_pkt(&pkt, 1, 11, 10);
	pkt.vlan_id = 10;
	KUNIT_EXPECT_TRUE(test, sroce_pkt_from_peer(qp, &pkt));
	pkt.vlan_id = 20;
	KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
	pkt.vlan_id = SROCE_NO_VLAN;
	KUNIT_EXPECT_FALSE(test, sroce_pkt_from_peer(qp, &pkt));
	/* this host's own packets loop back on no VLAN */
	pkt.loopback = true;
	KUNIT_EXPECT_TRUE(test, sroce_pkt_from_peer(qp, &pkt));

	/* no path (before RTR, after RESET): nothing is from the peer */
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->type = IB_QPT_RC;
	for (j = 0; j < n; j++) {
		memset(&pkt, 0, sizeof(pkt));
		pkt.type = sroce_rx_test_paths[j].type;
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
