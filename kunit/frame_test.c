// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for packet build and parse.  Buffers are allocated at exactly
 * the size handed to the parser so that KASAN reports any read past it.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/checksum.h>

#include <sroce/wire.h>

#include "vectors.h"

#define SROCE_FT_PKEY		0x8001
#define SROCE_FT_QPN		0xabcdef
#define SROCE_FT_PSN		0xfedcba
#define SROCE_FT_TCLASS		0x5b	/* DSCP 22, ECN CE */
#define SROCE_FT_FLOW		0xabcde
#define SROCE_FT_HOPS		17
#define SROCE_FT_SPORT		0xc0de
#define SROCE_FT_TAIL		0xee	/* what Ethernet padding is made of here */

static const char *sroce_ft_type_name(enum sroce_net_type t)
{
	switch (t) {
	case SROCE_NET_ROCE_V1:
		return "v1";
	case SROCE_NET_ROCE_V2_IPV4:
		return "v2/ipv4";
	case SROCE_NET_ROCE_V2_IPV6:
		return "v2/ipv6";
	}
	return "?";
}

static void sroce_ft_params(enum sroce_net_type t, struct sroce_net_params *np)
{
	static const u8 s6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 };
	static const u8 d6[16] = { 0x20, 0x01, 0x0d, 0xb8, [14] = 0x01, [15] = 0x02 };
	static const u8 s1[16] = { 0xfe, 0x80, [8] = 0x02, 0x02, 0x03, 0xff, 0xfe, 0x04,
				   0x05, 0x06 };
	static const u8 d1[16] = { 0xfe, 0x80, [8] = 0x02, 0x02, 0x03, 0xff, 0xfe, 0x04,
				   0x05, 0x07 };
	static const u8 s4[16] = { [10] = 0xff, 0xff, 10, 1, 2, 3 };
	static const u8 d4[16] = { [10] = 0xff, 0xff, 10, 4, 5, 6 };

	memset(np, 0, sizeof(*np));
	np->type = t;
	np->tclass = SROCE_FT_TCLASS;
	np->hop_limit = SROCE_FT_HOPS;
	np->flow_label = SROCE_FT_FLOW;
	np->ip_id = 0x1234;
	np->sport = SROCE_FT_SPORT;
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

/* BTH and extended headers with a recognisable value in each header. */
static void sroce_ft_tp_hdr(u8 *tp, u8 opcode, u32 payload_len)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	const u8 *o = info->off;

	memset(tp, 0, SROCE_MAX_TP_HDR_LEN);
	sroce_bth_init(tp, opcode, SROCE_FT_PKEY, SROCE_FT_QPN, SROCE_FT_PSN);
	sroce_bth_set_se(tp, true);
	sroce_bth_set_ackreq(tp, true);
	if (o[SROCE_HDR_DETH])
		sroce_deth_put(tp + o[SROCE_HDR_DETH], 0x11111111, 0x222222);
	if (o[SROCE_HDR_FETH])
		sroce_feth_put(tp + o[SROCE_HDR_FETH], 1, 2);
	if (o[SROCE_HDR_RETH])
		sroce_reth_put(tp + o[SROCE_HDR_RETH], 0x3333333333333333ULL, 0x44444444,
			       payload_len);
	if (o[SROCE_HDR_ATMETH])
		sroce_atmeth_put(tp + o[SROCE_HDR_ATMETH], 0x3333333333333330ULL, 0x44444444,
				 1, 2);
	if (o[SROCE_HDR_AETH])
		sroce_aeth_put(tp + o[SROCE_HDR_AETH], 0x1f, 0x555555);
	if (o[SROCE_HDR_ATMACK])
		sroce_atmack_set_orig(tp + o[SROCE_HDR_ATMACK], 0x6666666666666666ULL);
	if (o[SROCE_HDR_IMMDT])
		sroce_immdt_set(tp + o[SROCE_HDR_IMMDT], cpu_to_be32(0x77777777));
	if (o[SROCE_HDR_IETH])
		sroce_ieth_set_rkey(tp + o[SROCE_HDR_IETH], 0x88888888);
}

static u8 sroce_ft_payload_byte(unsigned int i)
{
	return i * 7 + 3;
}

/*
 * Build a packet into an allocation of its exact length plus @tail bytes of
 * stand-in Ethernet padding.  *@lenp gets the packet length.
 */
static u8 *sroce_ft_build(struct kunit *test, enum sroce_net_type t, u8 opcode,
			  unsigned int plen, unsigned int tail, unsigned int *lenp)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	u8 tp[SROCE_MAX_TP_HDR_LEN];
	struct sroce_net_params np;
	unsigned int len, i;
	u8 *payload = NULL;
	u8 *buf;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, info);
	len = sroce_frame_len(t, info, plen);
	buf = kunit_kmalloc(test, len + tail, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, SROCE_FT_TAIL, len + tail);
	if (plen) {
		payload = kunit_kmalloc(test, plen, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, payload);
		for (i = 0; i < plen; i++)
			payload[i] = sroce_ft_payload_byte(i);
	}
	sroce_ft_params(t, &np);
	sroce_ft_tp_hdr(tp, opcode, plen);

	ret = sroce_frame_build(buf, len + tail, &np, tp, payload, plen);
	KUNIT_ASSERT_EQ_MSG(test, ret, (int)len, "%s %s payload %u", sroce_ft_type_name(t),
			    info->name, plen);
	*lenp = len;
	return buf;
}

/* Parse @len bytes of @p from an exact-size copy. */
static int sroce_ft_parse_copy(struct kunit *test, const u8 *p, unsigned int len,
			       enum sroce_net_type t, struct sroce_pkt *pkt)
{
	u8 *copy = kmalloc(len, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	memcpy(copy, p, len);
	ret = sroce_pkt_parse(copy, len, t, pkt);
	kfree(copy);
	return ret;
}

static void sroce_ft_check_parsed(struct kunit *test, const u8 *buf, unsigned int len,
				  enum sroce_net_type t, u8 opcode, unsigned int plen,
				  const struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	unsigned int nhl = sroce_net_hdr_len(t);
	struct sroce_net_params np;
	const u8 *h;
	unsigned int i;

	sroce_ft_params(t, &np);
	KUNIT_EXPECT_PTR_EQ(test, pkt->info, info);
	KUNIT_EXPECT_EQ(test, pkt->type, t);
	KUNIT_EXPECT_EQ(test, pkt->opcode, opcode);
	KUNIT_EXPECT_EQ(test, pkt->len, len);
	KUNIT_EXPECT_EQ(test, pkt->bth_off, nhl);
	KUNIT_EXPECT_EQ(test, pkt->payload_off, nhl + info->hdr_len);
	KUNIT_EXPECT_EQ(test, pkt->payload_len, plen);
	KUNIT_EXPECT_EQ(test, pkt->padcnt, sroce_padcnt(plen));
	KUNIT_EXPECT_EQ(test, pkt->icrc_off, len - SROCE_ICRC_LEN);
	KUNIT_EXPECT_EQ(test, pkt->qpn, SROCE_FT_QPN);
	KUNIT_EXPECT_EQ(test, pkt->psn, SROCE_FT_PSN);
	KUNIT_EXPECT_EQ(test, pkt->pkey, SROCE_FT_PKEY);
	KUNIT_EXPECT_TRUE(test, pkt->se);
	KUNIT_EXPECT_TRUE(test, pkt->ackreq);
	KUNIT_EXPECT_FALSE(test, pkt->mig);
	KUNIT_EXPECT_FALSE(test, pkt->fecn);
	KUNIT_EXPECT_FALSE(test, pkt->becn);
	KUNIT_EXPECT_EQ(test, pkt->tclass, SROCE_FT_TCLASS);
	KUNIT_EXPECT_EQ(test, pkt->hop_limit, SROCE_FT_HOPS);
	KUNIT_EXPECT_EQ(test, pkt->flow_label,
			t == SROCE_NET_ROCE_V2_IPV4 ? 0 : SROCE_FT_FLOW);
	KUNIT_EXPECT_EQ(test, pkt->sport, t == SROCE_NET_ROCE_V1 ? 0 : SROCE_FT_SPORT);
	KUNIT_EXPECT_MEMEQ(test, &pkt->sgid, &np.saddr, sizeof(np.saddr));
	KUNIT_EXPECT_MEMEQ(test, &pkt->dgid, &np.daddr, sizeof(np.daddr));
	KUNIT_EXPECT_TRUE(test, sroce_pkt_icrc_ok(buf, pkt));

	h = sroce_pkt_payload(buf, pkt);
	for (i = 0; i < plen; i++)
		if (h[i] != sroce_ft_payload_byte(i))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, plen, "payload differs at byte %u", i);
	for (i = plen; i < plen + pkt->padcnt; i++)
		KUNIT_EXPECT_EQ_MSG(test, h[i], 0, "pad byte %u", i - plen);

	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_DETH);
	KUNIT_EXPECT_EQ(test, !!h, sroce_opcode_has(info, SROCE_OPF_DETH));
	if (h)
		KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(h), 0x222222);
	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_RETH);
	if (h) {
		KUNIT_EXPECT_EQ(test, sroce_reth_rkey(h), 0x44444444);
		KUNIT_EXPECT_EQ(test, sroce_reth_len(h), plen);
	}
	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_ATMETH);
	if (h)
		KUNIT_EXPECT_EQ(test, sroce_atmeth_compare(h), 2);
	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_AETH);
	KUNIT_EXPECT_EQ(test, !!h, sroce_opcode_has(info, SROCE_OPF_AETH));
	if (h)
		KUNIT_EXPECT_EQ(test, sroce_aeth_msn(h), 0x555555);
	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_ATMACK);
	if (h)
		KUNIT_EXPECT_EQ(test, sroce_atmack_orig(h), 0x6666666666666666ULL);
	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_IMMDT);
	KUNIT_EXPECT_EQ(test, !!h, sroce_opcode_has(info, SROCE_OPF_IMMDT));
	if (h)
		KUNIT_EXPECT_EQ(test, be32_to_cpu(sroce_immdt(h)), 0x77777777);
	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_IETH);
	if (h)
		KUNIT_EXPECT_EQ(test, sroce_ieth_rkey(h), 0x88888888);
	h = sroce_pkt_hdr(buf, pkt, SROCE_HDR_FETH);
	if (h)
		KUNIT_EXPECT_EQ(test, sroce_feth_plt(h), 2);
}

static const u8 sroce_ft_opcodes[] = {
	SROCE_OP_RC_SEND_ONLY, SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_WRITE_ONLY_IMM,
	SROCE_OP_RC_READ_REQ, SROCE_OP_RC_READ_RESP_LAST, SROCE_OP_RC_ACK,
	SROCE_OP_RC_ATOMIC_ACK, SROCE_OP_RC_CMP_SWAP, SROCE_OP_RC_SEND_ONLY_INV,
	SROCE_OP_RC_FLUSH, SROCE_OP_RC_ATOMIC_WRITE, SROCE_OP_UC_SEND_LAST_IMM,
	SROCE_OP_UD_SEND_ONLY_IMM,
};

static const unsigned int sroce_ft_sizes[] = {
	0, 1, 2, 3, 4, 5, 7, 8, 255, 256, 1024, 4093, 4096,
};

static void sroce_ft_roundtrip(struct kunit *test, enum sroce_net_type t)
{
	unsigned int i, j, len;

	for (i = 0; i < ARRAY_SIZE(sroce_ft_opcodes); i++) {
		u8 op = sroce_ft_opcodes[i];
		bool has_payload = sroce_opcode_has(sroce_opcode_info(op), SROCE_OPF_PAYLOAD);

		for (j = 0; j < ARRAY_SIZE(sroce_ft_sizes); j++) {
			unsigned int plen = sroce_ft_sizes[j];
			struct sroce_pkt pkt;
			u8 *buf;

			if (plen && !has_payload)
				break;
			buf = sroce_ft_build(test, t, op, plen, 0, &len);
			KUNIT_ASSERT_EQ_MSG(test, sroce_pkt_parse(buf, len, t, &pkt), 0,
					    "%s %s payload %u", sroce_ft_type_name(t),
					    sroce_opcode_name(op), plen);
			sroce_ft_check_parsed(test, buf, len, t, op, plen, &pkt);
			if (t == SROCE_NET_ROCE_V2_IPV4)
				KUNIT_EXPECT_EQ(test, (__force u16)ip_fast_csum(buf, 5), 0);
			kunit_kfree(test, buf);
		}
	}
}

static void sroce_frame_roundtrip_v1(struct kunit *test)
{
	sroce_ft_roundtrip(test, SROCE_NET_ROCE_V1);
}

static void sroce_frame_roundtrip_ipv4(struct kunit *test)
{
	sroce_ft_roundtrip(test, SROCE_NET_ROCE_V2_IPV4);
}

static void sroce_frame_roundtrip_ipv6(struct kunit *test)
{
	sroce_ft_roundtrip(test, SROCE_NET_ROCE_V2_IPV6);
}

static const enum sroce_net_type sroce_ft_types[] = {
	SROCE_NET_ROCE_V1, SROCE_NET_ROCE_V2_IPV4, SROCE_NET_ROCE_V2_IPV6,
};

/* Bytes after the packet (Ethernet padding, FCS) are never part of it. */
static void sroce_frame_ethernet_padding(struct kunit *test)
{
	static const unsigned int tails[] = { 1, 2, 4, 18 };
	unsigned int i, j, len;

	for (i = 0; i < ARRAY_SIZE(sroce_ft_types); i++) {
		for (j = 0; j < ARRAY_SIZE(tails); j++) {
			enum sroce_net_type t = sroce_ft_types[i];
			struct sroce_pkt pkt;
			u8 *buf;

			buf = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 0, tails[j], &len);
			KUNIT_ASSERT_EQ(test, sroce_pkt_parse(buf, len + tails[j], t, &pkt), 0);
			sroce_ft_check_parsed(test, buf, len, t, SROCE_OP_RC_SEND_ONLY, 0, &pkt);
			KUNIT_EXPECT_EQ(test, buf[len], SROCE_FT_TAIL);
		}
	}
}

/* The smallest RoCEv2/IPv4 packet is shorter than an Ethernet payload. */
static void sroce_frame_min_ipv4_padded(struct kunit *test)
{
	struct sroce_pkt pkt;
	unsigned int len;
	u8 *buf;

	buf = sroce_ft_build(test, SROCE_NET_ROCE_V2_IPV4, SROCE_OP_RC_SEND_ONLY, 0, 2, &len);
	KUNIT_EXPECT_EQ(test, len, 44);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(buf, 46, SROCE_NET_ROCE_V2_IPV4, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.len, 44);
	KUNIT_EXPECT_EQ(test, pkt.icrc_off, 40);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
	KUNIT_EXPECT_TRUE(test, sroce_pkt_icrc_ok(buf, &pkt));
}

/* Every proper prefix of a valid packet is rejected, without overreading. */
static void sroce_frame_truncation(struct kunit *test)
{
	static const struct {
		u8 opcode;
		unsigned int plen;
	} cases[] = {
		{ SROCE_OP_RC_SEND_ONLY, 0 },
		{ SROCE_OP_RC_WRITE_ONLY_IMM, 13 },
		{ SROCE_OP_RC_CMP_SWAP, 0 },
		{ SROCE_OP_UD_SEND_ONLY, 256 },
		{ SROCE_OP_CNP, 0 },
	};
	unsigned int i, j, l, len;

	for (i = 0; i < ARRAY_SIZE(sroce_ft_types); i++) {
		enum sroce_net_type t = sroce_ft_types[i];

		for (j = 0; j < ARRAY_SIZE(cases); j++) {
			struct sroce_pkt pkt;
			u8 *buf;

			buf = sroce_ft_build(test, t, cases[j].opcode, cases[j].plen, 0, &len);
			for (l = 0; l < len; l++) {
				int ret = sroce_ft_parse_copy(test, buf, l, t, &pkt);

				KUNIT_EXPECT_EQ_MSG(test, ret, -SROCE_RX_ERR_TRUNCATED,
						    "%s %s cut at %u", sroce_ft_type_name(t),
						    sroce_opcode_name(cases[j].opcode), l);
			}
			KUNIT_EXPECT_EQ(test, sroce_ft_parse_copy(test, buf, len, t, &pkt), 0);
			kunit_kfree(test, buf);
		}
	}
}

/*
 * The parser touches nothing past the BTH, whatever @len promises: given
 * only the bytes sroce_pkt_parse_need() names (under KASAN, a read past
 * them is caught), it parses; IPv4 options lengthen them.
 */
static void sroce_frame_parse_reads_headers_only(struct kunit *test)
{
	const struct sroce_test_vec *v;
	unsigned int i, len, n;
	struct sroce_pkt pkt;
	u8 *buf, *head;

	for (i = 0; i < ARRAY_SIZE(sroce_ft_types); i++) {
		enum sroce_net_type t = sroce_ft_types[i];

		buf = sroce_ft_build(test, t, SROCE_OP_RC_WRITE_ONLY, 1024, 0, &len);
		n = sroce_pkt_parse_need(t, buf[0]);
		KUNIT_EXPECT_EQ(test, n, sroce_net_hdr_len(t) + SROCE_BTH_LEN);
		head = kunit_kmalloc(test, n, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, head);
		memcpy(head, buf, n);
		KUNIT_EXPECT_EQ(test, sroce_pkt_parse(head, len, t, &pkt), 0);
		KUNIT_EXPECT_EQ(test, pkt.payload_len, 1024);
	}

	v = &sroce_test_vec_ipopt;
	n = sroce_pkt_parse_need(v->type, v->data[0]);
	KUNIT_EXPECT_GT(test, n, SROCE_IPV4_LEN + SROCE_UDP_LEN + SROCE_BTH_LEN);
	head = kunit_kmalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, head);
	memcpy(head, v->data, n);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(head, v->len, v->type, &pkt), 0);
}

/* Mutate a field of a valid packet and expect a given verdict. */
static void sroce_ft_expect(struct kunit *test, const u8 *orig, unsigned int len,
			    enum sroce_net_type t, unsigned int off, u8 val, int err)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);
	struct sroce_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, orig, len);
	p[off] = val;
	KUNIT_EXPECT_EQ_MSG(test, sroce_pkt_parse(p, len, t, &pkt), err,
			    "%s byte %u = 0x%02x", sroce_ft_type_name(t), off, val);
	kunit_kfree(test, p);
}

/* As sroce_ft_expect() for a big-endian 16-bit field. */
static void sroce_ft_expect16(struct kunit *test, const u8 *orig, unsigned int len,
			      enum sroce_net_type t, unsigned int off, u16 val, int err)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);
	struct sroce_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, orig, len);
	put_unaligned_be16(val, p + off);
	KUNIT_EXPECT_EQ_MSG(test, sroce_pkt_parse(p, len, t, &pkt), err,
			    "%s bytes %u-%u = %u", sroce_ft_type_name(t), off, off + 1, val);
	kunit_kfree(test, p);
}

static void sroce_frame_bad_ipv4(struct kunit *test)
{
	const enum sroce_net_type t = SROCE_NET_ROCE_V2_IPV4;
	unsigned int len;
	u8 *p;

	/* 20 IP + 8 UDP + 12 BTH + 8 payload + 4 ICRC = 52 */
	p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 8, 0, &len);
	KUNIT_ASSERT_EQ(test, len, 52);

	sroce_ft_expect(test, p, len, t, 0, 0x65, -SROCE_RX_ERR_IP_VERSION);
	sroce_ft_expect(test, p, len, t, 0, 0x44, -SROCE_RX_ERR_IP_IHL);
	sroce_ft_expect(test, p, len, t, 0, 0x40, -SROCE_RX_ERR_IP_IHL);
	/* a 60-byte IP header does not fit a 52-byte total length */
	sroce_ft_expect(test, p, len, t, 0, 0x4f, -SROCE_RX_ERR_IP_LEN);
	/* IHL 6 moves the UDP header onto the UDP length/checksum */
	sroce_ft_expect(test, p, len, t, 0, 0x46, -SROCE_RX_ERR_UDP_PORT);
	sroce_ft_expect(test, p, len, t, 9, 6, -SROCE_RX_ERR_IP_PROTO);
	sroce_ft_expect(test, p, len, t, 6, 0x60, -SROCE_RX_ERR_IP_FRAG);	/* DF|MF */
	sroce_ft_expect(test, p, len, t, 7, 0x01, -SROCE_RX_ERR_IP_FRAG);	/* offset */
	sroce_ft_expect(test, p, len, t, 6, 0x00, 0);				/* no DF */
	/* TOS, TTL, ID and header checksum are not the parser's business */
	sroce_ft_expect(test, p, len, t, 1, 0xff, 0);
	sroce_ft_expect(test, p, len, t, 8, 0, 0);
	sroce_ft_expect(test, p, len, t, 10, 0x12, 0);

	sroce_ft_expect16(test, p, len, t, 2, len + 1, -SROCE_RX_ERR_TRUNCATED);
	sroce_ft_expect16(test, p, len, t, 2, 0xffff, -SROCE_RX_ERR_TRUNCATED);
	sroce_ft_expect16(test, p, len, t, 2, 27, -SROCE_RX_ERR_IP_LEN);
	sroce_ft_expect16(test, p, len, t, 2, 0, -SROCE_RX_ERR_IP_LEN);
	/* IP shorter than UDP says, and the other way round */
	sroce_ft_expect16(test, p, len, t, 2, len - 4, -SROCE_RX_ERR_UDP_LEN);
	sroce_ft_expect16(test, p, len, t, 24, len - 20 + 4, -SROCE_RX_ERR_UDP_LEN);
	sroce_ft_expect16(test, p, len, t, 24, len - 20 - 4, -SROCE_RX_ERR_UDP_LEN);
	sroce_ft_expect16(test, p, len, t, 24, 0, -SROCE_RX_ERR_UDP_LEN);
	sroce_ft_expect16(test, p, len, t, 22, 4792, -SROCE_RX_ERR_UDP_PORT);
	sroce_ft_expect16(test, p, len, t, 20, 1, 0);			/* any sport */
	sroce_ft_expect16(test, p, len, t, 26, 0xabcd, 0);		/* UDP checksum */
}

/* Length fields that agree with each other but not with the packet. */
static void sroce_frame_consistent_lies(struct kunit *test)
{
	const enum sroce_net_type t = SROCE_NET_ROCE_V2_IPV4;
	struct sroce_pkt pkt;
	unsigned int len;
	u8 *p;

	p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 8, 0, &len);

	/* four bytes less: still well formed, but the ICRC cannot match */
	put_unaligned_be16(len - 4, p + 2);
	put_unaligned_be16(len - 20 - 4, p + 24);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.len, len - 4);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 4);
	KUNIT_EXPECT_FALSE(test, sroce_pkt_icrc_ok(p, &pkt));

	/* two bytes less: payload + pad no longer a whole number of words */
	put_unaligned_be16(len - 2, p + 2);
	put_unaligned_be16(len - 20 - 2, p + 24);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), -SROCE_RX_ERR_PADCNT);

	/* too short for BTH + ICRC */
	put_unaligned_be16(20 + 8 + 15, p + 2);
	put_unaligned_be16(8 + 15, p + 24);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), -SROCE_RX_ERR_UDP_LEN);
	/* just BTH + ICRC: an empty SEND_ONLY, which only the ICRC can catch */
	put_unaligned_be16(20 + 8 + 16, p + 2);
	put_unaligned_be16(8 + 16, p + 24);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
	KUNIT_EXPECT_FALSE(test, sroce_pkt_icrc_ok(p, &pkt));
}

static void sroce_frame_bad_ipv6(struct kunit *test)
{
	const enum sroce_net_type t = SROCE_NET_ROCE_V2_IPV6;
	unsigned int len;
	u8 *p;

	p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 8, 0, &len);
	sroce_ft_expect(test, p, len, t, 0, 0x40, -SROCE_RX_ERR_IP_VERSION);
	sroce_ft_expect(test, p, len, t, 6, 0, -SROCE_RX_ERR_IP_PROTO);	/* hop-by-hop */
	sroce_ft_expect(test, p, len, t, 6, 0x1b, -SROCE_RX_ERR_IP_PROTO);
	sroce_ft_expect16(test, p, len, t, 4, len - 40 + 1, -SROCE_RX_ERR_TRUNCATED);
	sroce_ft_expect16(test, p, len, t, 4, 0xffff, -SROCE_RX_ERR_TRUNCATED);
	sroce_ft_expect16(test, p, len, t, 4, 7, -SROCE_RX_ERR_IP_LEN);
	sroce_ft_expect16(test, p, len, t, 4, 0, -SROCE_RX_ERR_IP_LEN);	/* jumbogram */
	sroce_ft_expect16(test, p, len, t, 4, len - 40 - 4, -SROCE_RX_ERR_UDP_LEN);
	sroce_ft_expect16(test, p, len, t, 44, len - 40 - 4, -SROCE_RX_ERR_UDP_LEN);
	sroce_ft_expect16(test, p, len, t, 42, 4790, -SROCE_RX_ERR_UDP_PORT);
	sroce_ft_expect(test, p, len, t, 1, 0xff, 0);		/* TC and flow label */
	sroce_ft_expect(test, p, len, t, 7, 0, 0);		/* hop limit */
}

static void sroce_frame_bad_grh(struct kunit *test)
{
	const enum sroce_net_type t = SROCE_NET_ROCE_V1;
	unsigned int len;
	u8 *p;

	p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 8, 0, &len);
	sroce_ft_expect(test, p, len, t, 0, 0x40, -SROCE_RX_ERR_IP_VERSION);
	sroce_ft_expect(test, p, len, t, 6, 17, -SROCE_RX_ERR_GRH_NXTHDR);
	sroce_ft_expect16(test, p, len, t, 4, len - 40 + 1, -SROCE_RX_ERR_TRUNCATED);
	sroce_ft_expect16(test, p, len, t, 4, 0xffff, -SROCE_RX_ERR_TRUNCATED);
	sroce_ft_expect16(test, p, len, t, 4, 15, -SROCE_RX_ERR_GRH_PAYLEN);
	sroce_ft_expect16(test, p, len, t, 4, 0, -SROCE_RX_ERR_GRH_PAYLEN);
	sroce_ft_expect16(test, p, len, t, 4, len - 40 - 2, -SROCE_RX_ERR_PADCNT);
}

/* Checks on the BTH, the same for every encapsulation. */
static void sroce_frame_bad_bth(struct kunit *test)
{
	unsigned int i, len;

	for (i = 0; i < ARRAY_SIZE(sroce_ft_types); i++) {
		enum sroce_net_type t = sroce_ft_types[i];
		unsigned int b = sroce_net_hdr_len(t);
		u8 *p;

		/* BTH + 8 payload + ICRC: 24 bytes of transport */
		p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 8, 0, &len);
		sroce_ft_expect(test, p, len, t, b, 0x15, -SROCE_RX_ERR_OPCODE);
		sroce_ft_expect(test, p, len, t, b, 0x40, -SROCE_RX_ERR_OPCODE);
		sroce_ft_expect(test, p, len, t, b, 0xff, -SROCE_RX_ERR_OPCODE);
		sroce_ft_expect(test, p, len, t, b + 1, p[b + 1] | 1, -SROCE_RX_ERR_TVER);
		/* 40 bytes of AtomicETH do not fit */
		sroce_ft_expect(test, p, len, t, b, SROCE_OP_RC_CMP_SWAP, -SROCE_RX_ERR_HDR_LEN);
		/* neither does the CNP's reserved block */
		sroce_ft_expect(test, p, len, t, b, SROCE_OP_CNP, -SROCE_RX_ERR_HDR_LEN);
		/* an ACK is 16 bytes, the 4 left over would be payload */
		sroce_ft_expect(test, p, len, t, b, SROCE_OP_RC_ACK, -SROCE_RX_ERR_PAYLOAD);
		/* a 4-byte payload with 3 pad bytes is fine, the headers don't know */
		sroce_ft_expect(test, p, len, t, b + 1, 0x30, 0);
		/* FECN/BECN/reserved bits and M are accepted */
		sroce_ft_expect(test, p, len, t, b + 4, 0xff, 0);
		sroce_ft_expect(test, p, len, t, b + 1, 0x40, 0);

		p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 0, 0, &len);
		sroce_ft_expect(test, p, len, t, b + 1, 0x10, -SROCE_RX_ERR_PADCNT);
		sroce_ft_expect(test, p, len, t, b + 1, 0x30, -SROCE_RX_ERR_PADCNT);
	}
}

static void sroce_frame_bad_net_type(struct kunit *test)
{
	unsigned int len;
	struct sroce_pkt pkt;
	u8 *p;

	p = sroce_ft_build(test, SROCE_NET_ROCE_V2_IPV4, SROCE_OP_RC_SEND_ONLY, 0, 0, &len);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, 0, &pkt), -SROCE_RX_ERR_NET_TYPE);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, 4, &pkt), -SROCE_RX_ERR_NET_TYPE);
	/* the right bytes under the wrong encapsulation */
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, SROCE_NET_ROCE_V2_IPV6, &pkt),
			-SROCE_RX_ERR_IP_VERSION);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(p, len, SROCE_NET_ROCE_V1, &pkt),
			-SROCE_RX_ERR_IP_VERSION);
}

static void sroce_frame_rx_err_names(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < SROCE_RX_ERR_NUM; i++) {
		const char *n = sroce_rx_err_name(i);

		KUNIT_ASSERT_NOT_NULL_MSG(test, n, "error %u", i);
		KUNIT_EXPECT_STRNEQ(test, n, "");
		KUNIT_EXPECT_STRNEQ(test, n, "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, n, sroce_rx_err_name(j));
	}
	KUNIT_EXPECT_STREQ(test, sroce_rx_err_name(SROCE_RX_ERR_NUM), "unknown");
	KUNIT_EXPECT_STREQ(test, sroce_rx_err_name(SROCE_RX_ERR_TRUNCATED), "truncated");
}

/* Build the section 2.3 packets from their fields: same bytes, ICRC included. */
static void sroce_ft_build_expect(struct kunit *test, const struct sroce_net_params *np,
				  const u8 *tp, const u8 *payload, unsigned int plen,
				  const struct sroce_test_vec *v)
{
	u8 *buf = kunit_kzalloc(test, v->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, sroce_frame_build(buf, v->len, np, tp, payload, plen),
			(int)v->len);
	KUNIT_EXPECT_MEMEQ_MSG(test, buf, v->data, v->len, "%s", v->name);
}

static void sroce_frame_build_vectors(struct kunit *test)
{
	const struct sroce_test_vec *v;
	struct sroce_net_params np;
	u8 tp[SROCE_MAX_TP_HDR_LEN];
	static const u8 v1_payload[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	/* A: ConnectX-4 Lx CNP */
	v = &sroce_test_vec_cnp;
	memset(&np, 0, sizeof(np));
	np.type = SROCE_NET_ROCE_V2_IPV4;
	np.tclass = 0xc2;
	np.ip_id = 0x718c;
	np.hop_limit = 64;
	np.sport = 0;
	np.saddr.s6_addr32[2] = htonl(0xffff);
	np.saddr.s6_addr32[3] = htonl(0x0a001101);
	np.daddr.s6_addr32[2] = htonl(0xffff);
	np.daddr.s6_addr32[3] = htonl(0x0a001201);
	KUNIT_EXPECT_EQ(test, sroce_cnp_build(tp, 0x118), 28);
	sroce_ft_build_expect(test, &np, tp, NULL, 0, v);

	/* B: scapy UC SEND_ONLY, 18 payload bytes and 2 pad bytes */
	v = &sroce_test_vec_uc;
	memset(&np, 0, sizeof(np));
	np.type = SROCE_NET_ROCE_V2_IPV4;
	np.tclass = 0x01;
	np.ip_id = 1144;
	np.hop_limit = 64;
	np.sport = 49152;
	np.saddr.s6_addr32[2] = htonl(0xffff);
	np.saddr.s6_addr32[3] = htonl(0xc0a80007);
	np.daddr = np.saddr;
	sroce_bth_init(tp, SROCE_OP_UC_SEND_ONLY, 0xffff, 211, 13571856);
	sroce_bth_set_mig(tp, true);
	sroce_ft_build_expect(test, &np, tp, v->data + 40, 18, v);

	/* RoCEv1 RC SEND_ONLY */
	v = &sroce_test_vec_v1;
	memset(&np, 0, sizeof(np));
	np.type = SROCE_NET_ROCE_V1;
	np.hop_limit = 64;
	memcpy(&np.saddr, v->data + 8, 16);
	memcpy(&np.daddr, v->data + 24, 16);
	sroce_bth_init(tp, SROCE_OP_RC_SEND_ONLY, 0xffff, 0x11, 1);
	sroce_bth_set_ackreq(tp, true);
	sroce_ft_build_expect(test, &np, tp, v1_payload, sizeof(v1_payload), v);

	/* RoCEv2/IPv6, same transport */
	v = &sroce_test_vec_v6;
	np.type = SROCE_NET_ROCE_V2_IPV6;
	np.tclass = 0x02;
	np.flow_label = 0x12345;
	np.sport = 0xc123;
	memcpy(&np.saddr, v->data + 8, 16);
	memcpy(&np.daddr, v->data + 24, 16);
	sroce_ft_build_expect(test, &np, tp, v1_payload, sizeof(v1_payload), v);
}

static void sroce_ft_parse_vector(struct kunit *test, const struct sroce_test_vec *v,
				  struct sroce_pkt *pkt)
{
	u8 *p = kunit_kmalloc(test, v->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, v->data, v->len);
	KUNIT_ASSERT_EQ_MSG(test, sroce_pkt_parse(p, v->len, v->type, pkt), 0, "%s", v->name);
	KUNIT_EXPECT_TRUE_MSG(test, sroce_pkt_icrc_ok(p, pkt), "%s", v->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->len, v->len, "%s", v->name);
	p[pkt->payload_off - 1] ^= 1;
	KUNIT_EXPECT_FALSE_MSG(test, sroce_pkt_icrc_ok(p, pkt), "%s", v->name);
}

static void sroce_frame_parse_vectors(struct kunit *test)
{
	struct sroce_pkt pkt;

	sroce_ft_parse_vector(test, &sroce_test_vec_cnp, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.opcode, SROCE_OP_CNP);
	KUNIT_EXPECT_EQ(test, pkt.qpn, 0x118);
	KUNIT_EXPECT_TRUE(test, pkt.becn);
	KUNIT_EXPECT_FALSE(test, pkt.fecn);
	KUNIT_EXPECT_EQ(test, pkt.tclass, 0xc2);
	KUNIT_EXPECT_FALSE(test, sroce_pkt_ce(&pkt));	/* ECN 10 is ECT(0) */
	KUNIT_EXPECT_EQ(test, pkt.sport, 0);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
	KUNIT_EXPECT_EQ(test, pkt.payload_off, 56);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pkt.dgid.s6_addr32[3]), 0x0a001201);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pkt.dgid.s6_addr32[2]), 0xffff);
	KUNIT_EXPECT_TRUE(test, !pkt.dgid.s6_addr32[0] && !pkt.dgid.s6_addr32[1]);

	sroce_ft_parse_vector(test, &sroce_test_vec_uc, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.opcode, SROCE_OP_UC_SEND_ONLY);
	KUNIT_EXPECT_TRUE(test, pkt.mig);
	KUNIT_EXPECT_EQ(test, pkt.padcnt, 2);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 18);
	KUNIT_EXPECT_EQ(test, pkt.payload_off, 40);
	KUNIT_EXPECT_EQ(test, pkt.qpn, 211);
	KUNIT_EXPECT_EQ(test, pkt.psn, 13571856);
	KUNIT_EXPECT_EQ(test, pkt.sport, 49152);
	KUNIT_EXPECT_EQ(test, pkt.hop_limit, 64);

	sroce_ft_parse_vector(test, &sroce_test_vec_ipopt, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.bth_off, 32);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 18);

	sroce_ft_parse_vector(test, &sroce_test_vec_v1, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.opcode, SROCE_OP_RC_SEND_ONLY);
	KUNIT_EXPECT_EQ(test, pkt.qpn, 0x11);
	KUNIT_EXPECT_EQ(test, pkt.psn, 1);
	KUNIT_EXPECT_TRUE(test, pkt.ackreq);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 8);
	KUNIT_EXPECT_EQ(test, pkt.sgid.s6_addr[15], 0x06);
	KUNIT_EXPECT_EQ(test, pkt.dgid.s6_addr[15], 0x07);

	sroce_ft_parse_vector(test, &sroce_test_vec_v6, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.tclass, 0x02);
	KUNIT_EXPECT_EQ(test, pkt.flow_label, 0x12345);
	KUNIT_EXPECT_EQ(test, pkt.sport, 0xc123);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 8);
}

static void sroce_frame_cnp(struct kunit *test)
{
	static const u8 want[28] = {
		0x81, 0x00, 0xff, 0xff, 0x40, 0x12, 0x34, 0x56, 0x00, 0x00, 0x00, 0x00,
	};
	u8 bth[28];

	memset(bth, 0xa5, sizeof(bth));
	KUNIT_EXPECT_EQ(test, sroce_cnp_build(bth, 0x123456), sizeof(want));
	KUNIT_EXPECT_MEMEQ(test, bth, want, sizeof(want));
}

static void sroce_frame_congestion(struct kunit *test)
{
	unsigned int i, len;

	for (i = 0; i < ARRAY_SIZE(sroce_ft_types); i++) {
		enum sroce_net_type t = sroce_ft_types[i];
		unsigned int b = sroce_net_hdr_len(t);
		struct sroce_pkt pkt;
		u8 *p;

		/* the test parameters mark every IP header CE */
		p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 0, 0, &len);
		KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
		KUNIT_EXPECT_EQ(test, sroce_pkt_ce(&pkt), t != SROCE_NET_ROCE_V1);
		sroce_bth_set_fecn(p + b, true);
		KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
		KUNIT_EXPECT_TRUE(test, pkt.fecn);
		KUNIT_EXPECT_TRUE(test, sroce_pkt_ce(&pkt));
		/* FECN is outside the ICRC */
		KUNIT_EXPECT_TRUE(test, sroce_pkt_icrc_ok(p, &pkt));
	}
}

static void sroce_frame_build_errors(struct kunit *test)
{
	struct sroce_net_params np;
	u8 tp[SROCE_MAX_TP_HDR_LEN];
	u8 buf[128];

	sroce_ft_params(SROCE_NET_ROCE_V2_IPV4, &np);
	sroce_ft_tp_hdr(tp, SROCE_OP_RC_SEND_ONLY, 0);
	/* 20 + 8 + 12 + 8 + 4 */
	KUNIT_EXPECT_EQ(test, sroce_frame_build(buf, 51, &np, tp, NULL, 8), -ENOSPC);
	KUNIT_EXPECT_EQ(test, sroce_frame_build(buf, 52, &np, tp, NULL, 8), 52);

	sroce_ft_tp_hdr(tp, SROCE_OP_RC_ACK, 0);
	KUNIT_EXPECT_EQ(test, sroce_frame_build(buf, sizeof(buf), &np, tp, NULL, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_frame_build(buf, sizeof(buf), &np, tp, NULL, 0), 48);

	sroce_bth_set_opcode(tp, 0x15);
	KUNIT_EXPECT_EQ(test, sroce_frame_build(buf, sizeof(buf), &np, tp, NULL, 0), -EINVAL);

	sroce_ft_tp_hdr(tp, SROCE_OP_RC_ACK, 0);
	np.type = 0;
	KUNIT_EXPECT_EQ(test, sroce_frame_build(buf, sizeof(buf), &np, tp, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_net_hdr_build(buf, &np, 16), -EINVAL);

	np.type = SROCE_NET_ROCE_V2_IPV4;
	KUNIT_EXPECT_EQ(test, sroce_net_hdr_build(buf, &np, 65535 - 28), 28);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 2), 65535);
	KUNIT_EXPECT_EQ(test, sroce_net_hdr_build(buf, &np, 65535 - 27), -EMSGSIZE);
	np.type = SROCE_NET_ROCE_V2_IPV6;
	KUNIT_EXPECT_EQ(test, sroce_net_hdr_build(buf, &np, 65535 - 8), 48);
	KUNIT_EXPECT_EQ(test, sroce_net_hdr_build(buf, &np, 65535 - 7), -EMSGSIZE);
	np.type = SROCE_NET_ROCE_V1;
	KUNIT_EXPECT_EQ(test, sroce_net_hdr_build(buf, &np, 65535), 40);
	KUNIT_EXPECT_EQ(test, sroce_net_hdr_build(buf, &np, 65536), -EMSGSIZE);
}

/* Transport headers may be prepared in place, right behind the net header. */
static void sroce_frame_build_in_place(struct kunit *test)
{
	const struct sroce_test_vec *v = &sroce_test_vec_v6;
	struct sroce_net_params np;
	u8 *buf = kunit_kzalloc(test, v->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(&np, 0, sizeof(np));
	np.type = SROCE_NET_ROCE_V2_IPV6;
	np.tclass = 0x02;
	np.flow_label = 0x12345;
	np.hop_limit = 64;
	np.sport = 0xc123;
	memcpy(&np.saddr, v->data + 8, 16);
	memcpy(&np.daddr, v->data + 24, 16);
	memcpy(buf + 48, v->data + 48, v->len - 48 - SROCE_ICRC_LEN);
	KUNIT_ASSERT_EQ(test, sroce_frame_build(buf, v->len, &np, buf + 48, buf + 60, 8),
			(int)v->len);
	KUNIT_EXPECT_MEMEQ(test, buf, v->data, v->len);
}

/* The GRH of a RoCEv1 frame, field by field (IBTA vol. 1 ch. 8), and back. */
static void sroce_frame_v1_grh_layout(struct kunit *test)
{
	static const struct {
		u8 tclass;
		u32 flow;
		u8 hops;
	} cases[] = {
		{ 0x00, 0x00000, 0 },
		{ 0xff, 0xfffff, 0xff },
		{ 0xa5, 0x5a5a5, 1 },
		{ 0x5a, 0xa5a5a, 0x80 },
		{ 0x5b, 0xabcde, 17 },
	};
	static const unsigned int sizes[] = { 0, 3, 256 };
	const enum sroce_net_type t = SROCE_NET_ROCE_V1;
	const struct sroce_opcode_info *info = sroce_opcode_info(SROCE_OP_UD_SEND_ONLY);
	u8 tp[SROCE_MAX_TP_HDR_LEN];
	struct sroce_net_params np;
	struct sroce_pkt pkt;
	unsigned int i, j;
	u8 *buf;

	buf = kunit_kmalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			unsigned int plen = sizes[j];
			unsigned int want = SROCE_GRH_LEN + SROCE_BTH_LEN + SROCE_DETH_LEN +
					    plen + sroce_padcnt(plen) + SROCE_ICRC_LEN;
			int len;

			sroce_ft_params(t, &np);
			np.tclass = cases[i].tclass;
			np.flow_label = cases[i].flow;
			np.hop_limit = cases[i].hops;
			sroce_ft_tp_hdr(tp, SROCE_OP_UD_SEND_ONLY, plen);
			memset(buf, SROCE_FT_TAIL, 512);
			len = sroce_frame_build(buf, 512, &np, tp, NULL, plen);
			KUNIT_ASSERT_EQ(test, len, (int)want);
			KUNIT_EXPECT_EQ(test, sroce_frame_len(t, info, plen), want);

			/* IPVer 6 | TClass | FlowLabel, big-endian */
			KUNIT_EXPECT_EQ_MSG(test, buf[0], 0x60 | cases[i].tclass >> 4,
					    "case %u", i);
			KUNIT_EXPECT_EQ_MSG(test, buf[1],
					    (cases[i].tclass & 0x0f) << 4 | cases[i].flow >> 16,
					    "case %u", i);
			KUNIT_EXPECT_EQ_MSG(test, buf[2], (cases[i].flow >> 8) & 0xff,
					    "case %u", i);
			KUNIT_EXPECT_EQ_MSG(test, buf[3], cases[i].flow & 0xff, "case %u", i);
			/* PayLen: everything after the GRH, ICRC included */
			KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 4), want - SROCE_GRH_LEN);
			KUNIT_EXPECT_EQ(test, buf[6], 0x1b);
			KUNIT_EXPECT_EQ(test, buf[7], cases[i].hops);
			KUNIT_EXPECT_MEMEQ(test, buf + 8, &np.saddr, 16);
			KUNIT_EXPECT_MEMEQ(test, buf + 24, &np.daddr, 16);
			/* the BTH right behind it, no UDP header */
			KUNIT_EXPECT_EQ(test, buf[40], SROCE_OP_UD_SEND_ONLY);
			KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 42), SROCE_FT_PKEY);
			KUNIT_EXPECT_EQ(test, buf[want], SROCE_FT_TAIL);

			KUNIT_ASSERT_EQ(test, sroce_pkt_parse(buf, want, t, &pkt), 0);
			KUNIT_EXPECT_EQ(test, pkt.tclass, cases[i].tclass);
			KUNIT_EXPECT_EQ(test, pkt.flow_label, cases[i].flow);
			KUNIT_EXPECT_EQ(test, pkt.hop_limit, cases[i].hops);
			KUNIT_EXPECT_EQ(test, pkt.len, want);
			KUNIT_EXPECT_EQ(test, pkt.bth_off, SROCE_GRH_LEN);
			KUNIT_EXPECT_EQ(test, pkt.payload_len, plen);
			KUNIT_EXPECT_EQ(test, pkt.sport, 0);
			KUNIT_EXPECT_TRUE(test, sroce_pkt_icrc_ok(buf, &pkt));
		}
	}

	/* a flow label wider than 20 bits loses its top, not the TClass */
	sroce_ft_params(t, &np);
	np.tclass = 0x00;
	np.flow_label = 0xfff00001;
	sroce_ft_tp_hdr(tp, SROCE_OP_RC_SEND_ONLY, 0);
	KUNIT_ASSERT_GT(test, sroce_frame_build(buf, 512, &np, tp, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf), 0x60000001);
}

/* RoCEv1 is Ethertype 0x8915 (ETH_P_IBOE), RoCEv2 the IP Ethertypes. */
static void sroce_frame_ethertype(struct kunit *test)
{
	static const u16 others[] = { 0, ETH_P_8021Q, ETH_P_ARP, 0x8914, 0x8916, 0x9115 };
	unsigned int i;

	KUNIT_EXPECT_EQ(test, SROCE_ETH_P_ROCE_V1, 0x8915);
	KUNIT_EXPECT_EQ(test, SROCE_ETH_P_ROCE_V1, ETH_P_IBOE);
	KUNIT_EXPECT_EQ(test, sroce_net_ethertype(SROCE_NET_ROCE_V1), 0x8915);
	KUNIT_EXPECT_EQ(test, sroce_net_ethertype(SROCE_NET_ROCE_V2_IPV4), 0x0800);
	KUNIT_EXPECT_EQ(test, sroce_net_ethertype(SROCE_NET_ROCE_V2_IPV6), 0x86dd);
	KUNIT_EXPECT_EQ(test, sroce_net_ethertype(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_net_ethertype(4), 0);
	for (i = 0; i < ARRAY_SIZE(sroce_ft_types); i++) {
		enum sroce_net_type t = sroce_ft_types[i];

		KUNIT_EXPECT_EQ(test, sroce_net_type_of_ethertype(sroce_net_ethertype(t)), t);
	}
	for (i = 0; i < ARRAY_SIZE(others); i++)
		KUNIT_EXPECT_EQ_MSG(test, sroce_net_type_of_ethertype(others[i]), 0,
				    "ethertype 0x%04x", others[i]);
}

/* Every GRH version but 6 and every next header but 0x1b; short PayLens. */
static void sroce_frame_v1_grh_checks(struct kunit *test)
{
	const enum sroce_net_type t = SROCE_NET_ROCE_V1;
	struct sroce_pkt pkt;
	unsigned int len, v;
	u8 *p;

	/* 40 GRH + 12 BTH + 8 payload + 4 ICRC */
	p = sroce_ft_build(test, t, SROCE_OP_RC_SEND_ONLY, 8, 0, &len);
	KUNIT_ASSERT_EQ(test, len, 64);

	for (v = 0; v < 16; v++)
		sroce_ft_expect(test, p, len, t, 0, v << 4 | (p[0] & 0x0f),
				v == 6 ? 0 : -SROCE_RX_ERR_IP_VERSION);
	for (v = 0; v < 256; v++)
		sroce_ft_expect(test, p, len, t, 6, v,
				v == 0x1b ? 0 : -SROCE_RX_ERR_GRH_NXTHDR);
	/* a bad version is reported before a bad next header */
	p[6] = 17;
	sroce_ft_expect(test, p, len, t, 0, 0x40, -SROCE_RX_ERR_IP_VERSION);
	p[6] = SROCE_GRH_NXTHDR_IBA;

	/* PayLen of just BTH + ICRC: an empty SEND_ONLY to the parser */
	put_unaligned_be16(SROCE_BTH_LEN + SROCE_ICRC_LEN, p + 4);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
	KUNIT_EXPECT_FALSE(test, sroce_pkt_icrc_ok(p, &pkt));

	/* a word short: well formed, the rest taken for Ethernet padding */
	put_unaligned_be16(len - 40 - 4, p + 4);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.len, len - 4);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 4);
	KUNIT_EXPECT_EQ(test, pkt.icrc_off, len - 8);
	/* but the ICRC then covers the wrong bytes */
	KUNIT_EXPECT_FALSE(test, sroce_pkt_icrc_ok(p, &pkt));
	put_unaligned_be16(len - 40, p + 4);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(p, len, t, &pkt), 0);
	KUNIT_EXPECT_TRUE(test, sroce_pkt_icrc_ok(p, &pkt));
}

static struct kunit_case sroce_frame_test_cases[] = {
	KUNIT_CASE(sroce_frame_roundtrip_v1),
	KUNIT_CASE(sroce_frame_roundtrip_ipv4),
	KUNIT_CASE(sroce_frame_roundtrip_ipv6),
	KUNIT_CASE(sroce_frame_ethernet_padding),
	KUNIT_CASE(sroce_frame_min_ipv4_padded),
	KUNIT_CASE(sroce_frame_truncation),
	KUNIT_CASE(sroce_frame_parse_reads_headers_only),
	KUNIT_CASE(sroce_frame_bad_ipv4),
	KUNIT_CASE(sroce_frame_consistent_lies),
	KUNIT_CASE(sroce_frame_bad_ipv6),
	KUNIT_CASE(sroce_frame_bad_grh),
	KUNIT_CASE(sroce_frame_bad_bth),
	KUNIT_CASE(sroce_frame_bad_net_type),
	KUNIT_CASE(sroce_frame_rx_err_names),
	KUNIT_CASE(sroce_frame_build_vectors),
	KUNIT_CASE(sroce_frame_parse_vectors),
	KUNIT_CASE(sroce_frame_cnp),
	KUNIT_CASE(sroce_frame_congestion),
	KUNIT_CASE(sroce_frame_build_errors),
	KUNIT_CASE(sroce_frame_build_in_place),
	KUNIT_CASE(sroce_frame_v1_grh_layout),
	KUNIT_CASE(sroce_frame_ethertype),
	KUNIT_CASE(sroce_frame_v1_grh_checks),
	{}
};

static struct kunit_suite sroce_frame_test_suite = {
	.name = "sroce_frame",
	.test_cases = sroce_frame_test_cases,
};

kunit_test_suites(&sroce_frame_test_suite);
