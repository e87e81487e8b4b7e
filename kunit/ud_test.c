// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the UD pieces around the wire: the DETH in whole packets,
 * which Q_Key a send uses and a receive accepts, the 40 bytes a receive
 * puts ahead of the payload (checked with ib_core's own readers), the
 * network types of AVs and completions, and the UD MTU of a netdev.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/checksum.h>
#include <rdma/ib_verbs.h>

#include <sroce/ah.h>
#include <sroce/transport.h>
#include <sroce/wire.h>

#include "vectors.h"

#define SROCE_UT_SQPN		0x5a1234
#define SROCE_UT_DQPN		0x000077
#define SROCE_UT_QKEY		0x1234abcdU
#define SROCE_UT_IMM		0xc0ffee11U

static const enum sroce_net_type sroce_ut_types[] = {
	SROCE_NET_ROCE_V1, SROCE_NET_ROCE_V2_IPV4, SROCE_NET_ROCE_V2_IPV6,
};

static void sroce_ut_params(enum sroce_net_type t, struct sroce_net_params *np)
{
	static const u8 s1[16] = { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
				   0x44, 0x55 };
	static const u8 d1[16] = { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
				   0x44, 0x66 };
	static const u8 s4[16] = { [10] = 0xff, 0xff, 192, 168, 7, 1 };
	static const u8 d4[16] = { [10] = 0xff, 0xff, 192, 168, 7, 2 };
	static const u8 s6[16] = { 0xfd, 0x00, 0x0a, 0x0b, [15] = 0x01 };
	static const u8 d6[16] = { 0xfd, 0x00, 0x0a, 0x0b, [15] = 0x02 };

	memset(np, 0, sizeof(*np));
	np->type = t;
	np->tclass = 0x68;
	np->hop_limit = 64;
	np->flow_label = 0x2468a;
	np->ip_id = 0x4321;
	np->sport = 0xd00d;
	switch (t) {
	case SROCE_NET_ROCE_V1:
		memcpy(&np->saddr, s1, 16);
		memcpy(&np->daddr, d1, 16);
		break;
	case SROCE_NET_ROCE_V2_IPV4:
		memcpy(&np->saddr, s4, 16);
		memcpy(&np->daddr, d4, 16);
		break;
	case SROCE_NET_ROCE_V2_IPV6:
		memcpy(&np->saddr, s6, 16);
		memcpy(&np->daddr, d6, 16);
		break;
	}
}

static u8 sroce_ut_payload_byte(unsigned int i)
{
	return i * 13 + 5;
}

/*
 * A UD SEND_ONLY (or SEND_ONLY with immediate) from SROCE_UT_SQPN with
 * @qkey and @plen payload bytes, in an allocation of its exact length.
 */
static u8 *sroce_ut_build(struct kunit *test, enum sroce_net_type t, u8 opcode, u32 qkey,
			  u32 sqpn, unsigned int plen, unsigned int *lenp)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	u8 tp[SROCE_MAX_TP_HDR_LEN];
	struct sroce_net_params np;
	unsigned int len, i;
	u8 *buf, *payload;

	KUNIT_ASSERT_NOT_NULL(test, info);
	len = sroce_frame_len(t, info, plen);
	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	payload = kunit_kmalloc(test, plen + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, payload);
	for (i = 0; i < plen; i++)
		payload[i] = sroce_ut_payload_byte(i);

	memset(tp, 0xa5, sizeof(tp));
	sroce_bth_init(tp, opcode, SROCE_DEFAULT_PKEY, SROCE_UT_DQPN, 0x10);
	sroce_deth_put(tp + SROCE_BTH_LEN, qkey, sqpn);
	if (sroce_opcode_has(info, SROCE_OPF_IMMDT))
		sroce_immdt_set(tp + SROCE_BTH_LEN + SROCE_DETH_LEN,
				cpu_to_be32(SROCE_UT_IMM));
	sroce_ut_params(t, &np);
	KUNIT_ASSERT_EQ(test, sroce_frame_build(buf, len, &np, tp, payload, plen), (int)len);
	*lenp = len;
	return buf;
}

/* The DETH right behind the BTH, whole, and covered by the ICRC. */
static void sroce_ud_deth_in_packet(struct kunit *test)
{
	static const u32 qkeys[] = {
		0, 1, SROCE_UT_QKEY, 0x7fffffff, 0x80000000, SROCE_GSI_QKEY, 0xffffffff,
	};
	static const u8 opcodes[] = { SROCE_OP_UD_SEND_ONLY, SROCE_OP_UD_SEND_ONLY_IMM };
	unsigned int i, j, k, bit, len;

	for (i = 0; i < ARRAY_SIZE(sroce_ut_types); i++) {
		enum sroce_net_type t = sroce_ut_types[i];
		unsigned int b = sroce_net_hdr_len(t);

		for (j = 0; j < ARRAY_SIZE(opcodes); j++) {
			bool imm = opcodes[j] == SROCE_OP_UD_SEND_ONLY_IMM;

			for (k = 0; k < ARRAY_SIZE(qkeys); k++) {
				u32 sqpn = k ? SROCE_UT_SQPN : 0xffffff;
				struct sroce_pkt pkt;
				const u8 *deth, *pl;
				u8 *p;

				/* a source QPN beyond 24 bits keeps its low 24 */
				p = sroce_ut_build(test, t, opcodes[j], qkeys[k],
						   sqpn | 0x3000000, 13, &len);
				KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
				KUNIT_EXPECT_EQ(test, pkt.qpn, SROCE_UT_DQPN);
				deth = sroce_pkt_hdr(p, &pkt, SROCE_HDR_DETH);
				KUNIT_ASSERT_PTR_EQ(test, deth, (const u8 *)p + b + SROCE_BTH_LEN);
				KUNIT_EXPECT_EQ(test, get_unaligned_be32(deth), qkeys[k]);
				KUNIT_EXPECT_EQ(test, sroce_deth_qkey(deth), qkeys[k]);
				KUNIT_EXPECT_EQ(test, deth[4], 0);
				KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(deth), sqpn);
				KUNIT_EXPECT_EQ(test, pkt.payload_off,
						b + SROCE_BTH_LEN + SROCE_DETH_LEN + (imm ? 4 : 0));
				if (imm)
					KUNIT_EXPECT_EQ(test, get_unaligned_be32(deth + 8),
							SROCE_UT_IMM);
				KUNIT_EXPECT_EQ(test, pkt.payload_len, 13);
				pl = sroce_pkt_payload(p, &pkt);
				KUNIT_EXPECT_EQ(test, pl[0], sroce_ut_payload_byte(0));
				KUNIT_EXPECT_EQ(test, pl[12], sroce_ut_payload_byte(12));
				KUNIT_EXPECT_TRUE(test, sroce_pkt_icrc_ok(p, &pkt));

				/* no DETH bit, reserved byte included, is variant */
				for (bit = 0; bit < SROCE_DETH_LEN * 8; bit++) {
					p[b + SROCE_BTH_LEN + bit / 8] ^= BIT(bit % 8);
					KUNIT_EXPECT_FALSE_MSG(test, sroce_pkt_icrc_ok(p, &pkt),
							       "DETH bit %u", bit);
					p[b + SROCE_BTH_LEN + bit / 8] ^= BIT(bit % 8);
				}
				kunit_kfree(test, p);
			}
		}
	}
}

/* A UD packet whose headers do not fit is refused, whatever fills it. */
static void sroce_ud_short_deth(struct kunit *test)
{
	unsigned int i, len;

	for (i = 0; i < ARRAY_SIZE(sroce_ut_types); i++) {
		enum sroce_net_type t = sroce_ut_types[i];
		unsigned int b = sroce_net_hdr_len(t);
		struct sroce_pkt pkt;
		u8 *p;

		/* 12 BTH + 8 DETH + 4 ICRC; as SEND_ONLY_IMM it lacks 4 bytes */
		p = sroce_ut_build(test, t, SROCE_OP_UD_SEND_ONLY, SROCE_UT_QKEY,
				   SROCE_UT_SQPN, 0, &len);
		KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
		KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
		p[b] = SROCE_OP_UD_SEND_ONLY_IMM;
		KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), -SROCE_RX_ERR_HDR_LEN);
		/* UD knows no other request: no FIRST, no MIDDLE, no WRITE */
		p[b] = SROCE_TR_UD;
		KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), -SROCE_RX_ERR_OPCODE);
		p[b] = SROCE_TR_UD | 0x01;
		KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), -SROCE_RX_ERR_OPCODE);
		p[b] = SROCE_TR_UD | 0x0a;
		KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), -SROCE_RX_ERR_OPCODE);
		p[b] = SROCE_TR_UD | 0x06;
		KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), -SROCE_RX_ERR_OPCODE);
	}
}

/*
 * A send WR whose Q_Key has the high bit set uses the QP's Q_Key instead
 * (IBTA vol. 1 ch. 11, Post Send Request); QP1 always has the GSI's Q_Key
 * (ch. 13).  A receive accepts only the QP's Q_Key.
 */
static void sroce_ud_qkey_rules(struct kunit *test)
{
	struct sroce_qp *ud = kunit_kzalloc(test, sizeof(*ud), GFP_KERNEL);
	struct sroce_qp *gsi = kunit_kzalloc(test, sizeof(*gsi), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ud);
	KUNIT_ASSERT_NOT_NULL(test, gsi);
	ud->type = IB_QPT_UD;
	ud->attr.qkey = SROCE_UT_QKEY;
	gsi->type = IB_QPT_GSI;
	gsi->attr.qkey = 0x11;		/* whatever modify_qp set, QP1 ignores it */

	KUNIT_EXPECT_EQ(test, sroce_qp_qkey(ud), SROCE_UT_QKEY);
	KUNIT_EXPECT_EQ(test, sroce_qp_qkey(gsi), 0x80010000U);

	/* the WR's own Q_Key */
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(ud, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(ud, 0x22), 0x22);
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(ud, 0x7fffffff), 0x7fffffff);
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(gsi, 0x7fffffff), 0x7fffffff);
	/* high bit: the QP's, whatever the other 31 bits say */
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(ud, 0x80000000), SROCE_UT_QKEY);
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(ud, 0xffffffff), SROCE_UT_QKEY);
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(ud, SROCE_GSI_QKEY), SROCE_UT_QKEY);
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(gsi, SROCE_GSI_QKEY), SROCE_GSI_QKEY);
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(gsi, 0x80000000), SROCE_GSI_QKEY);

	/* modify_qp changes what both directions use */
	ud->attr.qkey = 0x80000001;
	KUNIT_EXPECT_EQ(test, sroce_ud_send_qkey(ud, 0x80000000), 0x80000001);
	KUNIT_EXPECT_EQ(test, sroce_qp_qkey(ud), 0x80000001);
}

/*
 * Q_Keys end to end: what one QP puts in the DETH against what another
 * accepts, through a real packet.
 */
static void sroce_ud_qkey_match(struct kunit *test)
{
	struct sroce_qp *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct sroce_qp *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	static const struct {
		u32 tx_qkey;
		u32 wr_qkey;
		u32 rx_qkey;
		bool ok;
	} cases[] = {
		{ 0x1111, 0x80000000, 0x1111, true },	/* both use their own */
		{ 0x1111, 0x80000000, 0x2222, false },
		{ 0x1111, 0x2222, 0x2222, true },	/* the WR names the peer's */
		{ 0x2222, 0x1111, 0x2222, false },	/* the WR wins over the QP */
		{ 0x1111, 0x00000000, 0x0000, true },
		{ 0x1111, 0xffffffff, 0x1111, true },
	};
	unsigned int i, len;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	KUNIT_ASSERT_NOT_NULL(test, rx);
	tx->type = IB_QPT_UD;
	rx->type = IB_QPT_UD;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sroce_pkt pkt;
		const u8 *deth;
		u8 *p;

		tx->attr.qkey = cases[i].tx_qkey;
		rx->attr.qkey = cases[i].rx_qkey;
		p = sroce_ut_build(test, SROCE_NET_ROCE_V1, SROCE_OP_UD_SEND_ONLY,
				   sroce_ud_send_qkey(tx, cases[i].wr_qkey), SROCE_UT_SQPN,
				   4, &len);
		KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, SROCE_NET_ROCE_V1, &pkt), 0);
		deth = sroce_pkt_hdr(p, &pkt, SROCE_HDR_DETH);
		KUNIT_ASSERT_NOT_NULL(test, deth);
		KUNIT_EXPECT_EQ_MSG(test, sroce_deth_qkey(deth) == sroce_qp_qkey(rx), cases[i].ok,
				    "case %u", i);
	}
}

/* Parse a built packet and lay out its 40-byte receive header. */
static void sroce_ut_grh_area(struct kunit *test, const u8 *p, unsigned int len,
			      enum sroce_net_type t, struct sroce_pkt *pkt,
			      union rdma_network_hdr *h)
{
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, pkt), 0);
	memset(h, 0xa5, sizeof(*h));
	sroce_pkt_ud_grh(p, pkt, h);
}

/*
 * RoCEv2/IPv4: 20 zero bytes, then the IPv4 header, which ib_core takes
 * for IPv4 and reads the addresses of.
 */
static void sroce_ud_grh_ipv4(struct kunit *test)
{
	const enum sroce_net_type t = SROCE_NET_ROCE_V2_IPV4;
	union rdma_network_hdr h;
	union ib_gid sgid, dgid;
	struct sroce_net_params np;
	struct sroce_pkt pkt;
	unsigned int len;
	u8 *p;

	KUNIT_ASSERT_EQ(test, sizeof(h), SROCE_GRH_LEN);
	p = sroce_ut_build(test, t, SROCE_OP_UD_SEND_ONLY, SROCE_UT_QKEY, SROCE_UT_SQPN, 100,
			   &len);
	sroce_ut_grh_area(test, p, len, t, &pkt, &h);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(h.reserved, 0, sizeof(h.reserved)));
	KUNIT_EXPECT_MEMEQ(test, (u8 *)&h + 20, p, 20);
	KUNIT_EXPECT_EQ(test, (unsigned int)h.roce4grh.version, 4);
	KUNIT_EXPECT_EQ(test, (unsigned int)h.roce4grh.ihl, 5);
	KUNIT_EXPECT_EQ(test, (__force u16)ip_fast_csum(&h.roce4grh, 5), 0);

	KUNIT_EXPECT_EQ(test, ib_get_rdma_header_version(&h), 4);
	KUNIT_EXPECT_EQ(test, sroce_rdma_net_type(t), RDMA_NETWORK_IPV4);
	KUNIT_ASSERT_EQ(test, ib_get_gids_from_rdma_hdr(&h, sroce_rdma_net_type(t), &sgid,
							&dgid), 0);
	sroce_ut_params(t, &np);
	KUNIT_EXPECT_MEMEQ(test, sgid.raw, &np.saddr, 16);
	KUNIT_EXPECT_MEMEQ(test, dgid.raw, &np.daddr, 16);
	KUNIT_EXPECT_MEMEQ(test, sgid.raw, &pkt.sgid, 16);

	/* with IP options: still IPv4 to ib_core, same addresses */
	p = kunit_kmalloc(test, sroce_test_vec_ipopt.len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, sroce_test_vec_ipopt.data, sroce_test_vec_ipopt.len);
	sroce_ut_grh_area(test, p, sroce_test_vec_ipopt.len, t, &pkt, &h);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(h.reserved, 0, sizeof(h.reserved)));
	KUNIT_EXPECT_MEMEQ(test, (u8 *)&h + 20, p, 20);
	KUNIT_EXPECT_EQ(test, ib_get_rdma_header_version(&h), 4);
	KUNIT_ASSERT_EQ(test, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV4, &sgid, &dgid), 0);
	KUNIT_EXPECT_MEMEQ(test, sgid.raw, &pkt.sgid, 16);
	KUNIT_EXPECT_MEMEQ(test, dgid.raw, &pkt.dgid, 16);
}

/*
 * RoCEv1 and RoCEv2/IPv6: the GRH or IPv6 header itself.  ib_core tells
 * them apart by the next header (ib_get_net_type_by_grh()).
 */
static void sroce_ud_grh_v1_ipv6(struct kunit *test)
{
	static const enum sroce_net_type types[] = {
		SROCE_NET_ROCE_V1, SROCE_NET_ROCE_V2_IPV6,
	};
	unsigned int i, len;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		enum sroce_net_type t = types[i];
		bool v1 = t == SROCE_NET_ROCE_V1;
		struct sroce_net_params np;
		union rdma_network_hdr h;
		union ib_gid sgid, dgid;
		struct sroce_pkt pkt;
		u32 vtf;
		u8 *p;

		p = sroce_ut_build(test, t, SROCE_OP_UD_SEND_ONLY_IMM, SROCE_UT_QKEY,
				   SROCE_UT_SQPN, 33, &len);
		sroce_ut_grh_area(test, p, len, t, &pkt, &h);
		sroce_ut_params(t, &np);
		KUNIT_EXPECT_MEMEQ(test, &h, p, SROCE_GRH_LEN);

		vtf = be32_to_cpu(h.ibgrh.version_tclass_flow);
		KUNIT_EXPECT_EQ(test, vtf >> 28, 6);
		KUNIT_EXPECT_EQ(test, (vtf >> 20) & 0xff, np.tclass);
		KUNIT_EXPECT_EQ(test, vtf & 0xfffff, np.flow_label);
		KUNIT_EXPECT_EQ(test, h.ibgrh.hop_limit, np.hop_limit);
		KUNIT_EXPECT_EQ(test, h.ibgrh.next_hdr, v1 ? 0x1b : IPPROTO_UDP);
		/* RoCEv1 PayLen runs from the BTH, IPv6's from the UDP header */
		KUNIT_EXPECT_EQ(test, be16_to_cpu(h.ibgrh.paylen),
				len - SROCE_GRH_LEN);
		KUNIT_EXPECT_EQ(test, ib_get_rdma_header_version(&h), 6);
		KUNIT_EXPECT_EQ(test, sroce_rdma_net_type(t),
				v1 ? RDMA_NETWORK_ROCE_V1 : RDMA_NETWORK_IPV6);
		KUNIT_ASSERT_EQ(test, ib_get_gids_from_rdma_hdr(&h, sroce_rdma_net_type(t),
								&sgid, &dgid), 0);
		KUNIT_EXPECT_MEMEQ(test, sgid.raw, &np.saddr, 16);
		KUNIT_EXPECT_MEMEQ(test, dgid.raw, &np.daddr, 16);
	}
}

/* The network types of AVs and of UD completions, and their Ethertypes. */
static void sroce_ud_network_types(struct kunit *test)
{
	static const struct {
		u8 rdma;
		enum sroce_net_type t;
		u16 ethertype;
	} map[] = {
		{ RDMA_NETWORK_ROCE_V1, SROCE_NET_ROCE_V1, 0x8915 },
		{ RDMA_NETWORK_IPV4, SROCE_NET_ROCE_V2_IPV4, 0x0800 },
		{ RDMA_NETWORK_IPV6, SROCE_NET_ROCE_V2_IPV6, 0x86dd },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		KUNIT_EXPECT_EQ(test, sroce_av_net_type(map[i].rdma), map[i].t);
		KUNIT_EXPECT_EQ(test, sroce_rdma_net_type(map[i].t), map[i].rdma);
		KUNIT_EXPECT_EQ(test, sroce_net_ethertype(sroce_av_net_type(map[i].rdma)),
				map[i].ethertype);
	}
	/* InfiniBand proper is not ours to send */
	KUNIT_EXPECT_EQ(test, sroce_av_net_type(RDMA_NETWORK_IB), 0);
	KUNIT_EXPECT_EQ(test, sroce_av_net_type(0xff), 0);
}

/*
 * UD messages are single packets of at most the "path MTU" a netdev MTU
 * gives; the largest such packet fits the netdev MTU in every
 * encapsulation.
 */
static void sroce_ud_mtu_fits(struct kunit *test)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(SROCE_OP_UD_SEND_ONLY_IMM);
	unsigned int i, m;

	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(1500), IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(9000), IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(65535), IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(4096 + 96), IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(4096 + 95), IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(1024 + 96), IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(1024 + 95), IB_MTU_512);
	/* too small for any: the floor, which such a netdev cannot carry */
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(256 + 95), IB_MTU_256);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(68), IB_MTU_256);
	KUNIT_EXPECT_EQ(test, sroce_ud_mtu(0), IB_MTU_256);

	KUNIT_ASSERT_NOT_NULL(test, info);
	for (m = 256 + 96; m <= 9216; m++) {
		unsigned int pmtu = ib_mtu_enum_to_int(sroce_ud_mtu(m));

		for (i = 0; i < ARRAY_SIZE(sroce_ut_types); i++) {
			enum sroce_net_type t = sroce_ut_types[i];

			if (sroce_frame_len(t, info, pmtu) > m) {
				KUNIT_FAIL(test, "netdev MTU %u: %u-byte UD packet is %u bytes",
					   m, pmtu, sroce_frame_len(t, info, pmtu));
				return;
			}
		}
	}
}

static struct kunit_case sroce_ud_test_cases[] = {
	KUNIT_CASE(sroce_ud_deth_in_packet),
	KUNIT_CASE(sroce_ud_short_deth),
	KUNIT_CASE(sroce_ud_qkey_rules),
	KUNIT_CASE(sroce_ud_qkey_match),
	KUNIT_CASE(sroce_ud_grh_ipv4),
	KUNIT_CASE(sroce_ud_grh_v1_ipv6),
	KUNIT_CASE(sroce_ud_network_types),
	KUNIT_CASE(sroce_ud_mtu_fits),
	{}
};

static struct kunit_suite sroce_ud_test_suite = {
	.name = "sroce_ud",
	.test_cases = sroce_ud_test_cases,
};

kunit_test_suites(&sroce_ud_test_suite);
