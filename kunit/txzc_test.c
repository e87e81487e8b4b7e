// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for packets in fragments: zero-copy transmit (txzc.c),
 * whose ICRC over a packet in fragments must be the one over the same
 * bytes in one piece and whose fragment helpers must take page
 * references and refuse what the stack cannot hold; and receive
 * (pktbuf.c), which checks the ICRC and copies the payload where they
 * lie.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <sroce/pktbuf.h>
#include <sroce/txzc.h>
#include <sroce/wire.h>

#include "vectors.h"

/* stands in for the ICRC until it is computed */
#define SROCE_TXZC_TEST_JUNK	0x5a

static void sroce_txzc_test_put_page(void *page)
{
	put_page(page);
}

static void sroce_txzc_test_free_skb(void *skb)
{
	kfree_skb(skb);
}

/* A page freed when the test ends, after the skbs registered later */
static struct page *sroce_txzc_test_page(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sroce_txzc_test_put_page,
							page), 0);
	return page;
}

static struct sk_buff *sroce_txzc_test_skb(struct kunit *test, const u8 *lin,
					   unsigned int len)
{
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sroce_txzc_test_free_skb,
							skb), 0);
	skb_put_data(skb, lin, len);
	skb_reset_network_header(skb);
	return skb;
}

/* Copy @len bytes of @src to @off in @page and attach them */
static void sroce_txzc_test_attach(struct kunit *test, struct sk_buff *skb,
				   struct page *page, unsigned int off,
				   const u8 *src, unsigned int len)
{
	memcpy((u8 *)page_address(page) + off, src, len);
	KUNIT_ASSERT_EQ(test, sroce_tx_add_page(skb, page, off, len), 0);
}

/*
 * Packet @pkt (@len bytes, ICRC last) in pieces: its first @lin bytes
 * linear, the rest in two fragments (one at an odd offset, one ending at
 * its page's end) and a trailer fragment of @tail bytes whose ICRC is
 * junk.  Returns the ICRC the trailer holds once computed.
 */
static u8 *sroce_txzc_test_split(struct kunit *test, enum sroce_net_type t,
				 const u8 *pkt, unsigned int len,
				 unsigned int lin, unsigned int tail)
{
	unsigned int body = len - lin - tail, a = body / 2, b = body - a;
	struct sk_buff *skb;
	struct page *pg[3];
	u8 *icrc;
	int i;

	KUNIT_ASSERT_GE(test, len, lin + tail);
	KUNIT_ASSERT_GE(test, tail, SROCE_ICRC_LEN);
	for (i = 0; i < 3; i++)
		pg[i] = sroce_txzc_test_page(test);
	skb = sroce_txzc_test_skb(test, pkt, lin);
	if (a)
		sroce_txzc_test_attach(test, skb, pg[0], 1, pkt + lin, a);
	if (b)
		sroce_txzc_test_attach(test, skb, pg[1], PAGE_SIZE - b,
				       pkt + lin + a, b);
	sroce_txzc_test_attach(test, skb, pg[2], 100, pkt + len - tail, tail);
	icrc = (u8 *)page_address(pg[2]) + 100 + tail - SROCE_ICRC_LEN;
	memset(icrc, SROCE_TXZC_TEST_JUNK, SROCE_ICRC_LEN);
	KUNIT_EXPECT_EQ(test, skb->len, len);

	KUNIT_EXPECT_EQ(test, sroce_txzc_put_icrc(skb, t), 0);
	return icrc;
}

/* Real packets (vectors.c) in pieces: the ICRC each was captured with */
static void sroce_txzc_icrc_vectors(struct kunit *test)
{
	const struct sroce_test_vec *vecs[] = {
		&sroce_test_vec_cnp, &sroce_test_vec_uc, &sroce_test_vec_v1,
		&sroce_test_vec_v6, &sroce_test_vec_ipopt,
	};
	unsigned int i, lin, tail;
	const u8 *icrc;

	for (i = 0; i < ARRAY_SIZE(vecs); i++) {
		const struct sroce_test_vec *v = vecs[i];

		lin = sroce_icrc_hdr_len(v->type, v->data) + 1;
		tail = min(v->len - lin, SROCE_ICRC_LEN + 3U);
		icrc = sroce_txzc_test_split(test, v->type, v->data, v->len,
					     lin, tail);
		KUNIT_EXPECT_MEMEQ_MSG(test, icrc, v->data + v->len - SROCE_ICRC_LEN,
				       SROCE_ICRC_LEN, "%s", v->name);
	}
}

/*
 * A long packet (the UC vector's headers before 3000 payload bytes):
 * pieces long enough for the accelerated CRC, and the same ICRC as the
 * bytes in one buffer.
 */
static void sroce_txzc_icrc_long(struct kunit *test)
{
	const struct sroce_test_vec *v = &sroce_test_vec_uc;
	unsigned int hdr = sroce_icrc_hdr_len(v->type, v->data);
	unsigned int len = hdr + 3000 + SROCE_ICRC_LEN, i;
	u8 *pkt = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 want[SROCE_ICRC_LEN];
	const u8 *icrc;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	memcpy(pkt, v->data, hdr);
	for (i = hdr; i < len; i++)
		pkt[i] = i * 7 + (i >> 8);
	sroce_icrc_put(want, sroce_icrc_compute(v->type, pkt,
						len - SROCE_ICRC_LEN));

	icrc = sroce_txzc_test_split(test, v->type, pkt, len, hdr, 6);
	KUNIT_EXPECT_MEMEQ(test, icrc, want, SROCE_ICRC_LEN);
	/* and a byte changed in a fragment changes it */
	pkt[hdr + 1500] ^= 1;
	icrc = sroce_txzc_test_split(test, v->type, pkt, len, hdr, 6);
	KUNIT_EXPECT_MEMNEQ(test, icrc, want, SROCE_ICRC_LEN);
}

/* Not built this way: no fragment, or a last one too short for an ICRC */
static void sroce_txzc_icrc_refused(struct kunit *test)
{
	const struct sroce_test_vec *v = &sroce_test_vec_uc;
	struct page *page = sroce_txzc_test_page(test);
	struct sk_buff *skb;

	skb = sroce_txzc_test_skb(test, v->data, v->len);
	KUNIT_EXPECT_EQ(test, sroce_txzc_put_icrc(skb, v->type), -EINVAL);

	skb = sroce_txzc_test_skb(test, v->data, v->len - 3);
	sroce_txzc_test_attach(test, skb, page, 0, v->data + v->len - 3, 3);
	KUNIT_EXPECT_EQ(test, sroce_txzc_put_icrc(skb, v->type), -EINVAL);
	KUNIT_EXPECT_MEMEQ(test, page_address(page), v->data + v->len - 3, 3);
}

/*
 * Each fragment holds a page reference until the skb goes; slab memory
 * is refused; one fragment is kept for the trailer, which is pad zeros
 * and room for the ICRC.
 */
static void sroce_txzc_fragments(struct kunit *test)
{
	struct page *page = sroce_txzc_test_page(test);
	int refs = page_ref_count(page);
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	const skb_frag_t *trailer;
	void *slab;
	unsigned int i;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	slab = kunit_kmalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slab);
	KUNIT_EXPECT_EQ(test, sroce_tx_add_page(skb, virt_to_page(slab),
						offset_in_page(slab), 64), -EFAULT);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, 0);

	for (i = 0; i < MAX_SKB_FRAGS - 1; i++)
		KUNIT_ASSERT_EQ(test, sroce_tx_add_page(skb, page, i, 1), 0);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), refs + MAX_SKB_FRAGS - 1);
	KUNIT_EXPECT_EQ(test, sroce_tx_add_page(skb, page, 0, 1), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, skb->len, MAX_SKB_FRAGS - 1);
	KUNIT_EXPECT_EQ(test, skb->data_len, MAX_SKB_FRAGS - 1);

	KUNIT_ASSERT_EQ(test, sroce_tx_add_trailer(skb, 3), 0);
	KUNIT_EXPECT_EQ(test, sroce_tx_add_trailer(skb, 3), -EMSGSIZE);
	trailer = &skb_shinfo(skb)->frags[MAX_SKB_FRAGS - 1];
	KUNIT_EXPECT_EQ(test, skb_frag_size(trailer), 3 + SROCE_ICRC_LEN);
	p = skb_frag_address(trailer);
	KUNIT_EXPECT_TRUE(test, !p[0] && !p[1] && !p[2]);
	KUNIT_EXPECT_EQ(test, skb->len, MAX_SKB_FRAGS - 1 + 3 + SROCE_ICRC_LEN);

	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), refs);
}

/*
 * A packet as a netdev may deliver it: its first @lin bytes linear, the
 * rest in two fragments, the second holding the last @cut bytes (so
 * an ICRC may straddle them).  @body gets where each fragment's bytes
 * are, for a test to alter.
 */
static struct sk_buff *sroce_pktbuf_test_rx_skb(struct kunit *test,
						const u8 *pkt, unsigned int len,
						unsigned int lin, unsigned int cut,
						u8 *body[2])
{
	struct page *pg[2] = { sroce_txzc_test_page(test),
			       sroce_txzc_test_page(test) };
	struct sk_buff *skb;

	KUNIT_ASSERT_GT(test, len, lin + cut);
	KUNIT_ASSERT_GT(test, cut, 0);
	skb = sroce_txzc_test_skb(test, pkt, lin);
	sroce_txzc_test_attach(test, skb, pg[0], 3, pkt + lin, len - lin - cut);
	sroce_txzc_test_attach(test, skb, pg[1], PAGE_SIZE - cut,
			       pkt + len - cut, cut);
	body[0] = (u8 *)page_address(pg[0]) + 3;
	body[1] = (u8 *)page_address(pg[1]) + PAGE_SIZE - cut;
	KUNIT_EXPECT_EQ(test, skb->len, len);
	return skb;
}

/*
 * A vector received in one linear buffer, with 6 bytes of link padding
 * after it, and with all but its last 2 bytes linear (the ICRC split
 * between the linear part and a fragment): the ICRC checks, and a bit
 * changed in its last byte fails it.
 */
static void sroce_pktbuf_rx_icrc_linear(struct kunit *test,
					const struct sroce_test_vec *v)
{
	struct page *page = sroce_txzc_test_page(test);
	u8 *padded = kunit_kmalloc(test, v->len + 6, GFP_KERNEL);
	struct sroce_pkt pkt;
	struct sk_buff *skb;
	u8 *last;

	KUNIT_ASSERT_NOT_NULL(test, padded);
	memcpy(padded, v->data, v->len);
	memset(padded + v->len, 0xee, 6);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(padded, v->len + 6, v->type, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.len, v->len);

	skb = sroce_txzc_test_skb(test, padded, v->len + 6);
	KUNIT_EXPECT_TRUE_MSG(test, sroce_skb_icrc_ok(skb, &pkt), "%s", v->name);
	skb->data[v->len - 1] ^= 0x04;
	KUNIT_EXPECT_FALSE_MSG(test, sroce_skb_icrc_ok(skb, &pkt), "%s", v->name);

	skb = sroce_txzc_test_skb(test, v->data, v->len - 2);
	sroce_txzc_test_attach(test, skb, page, 5, v->data + v->len - 2, 2);
	KUNIT_EXPECT_TRUE_MSG(test, sroce_skb_icrc_ok(skb, &pkt), "%s", v->name);
	last = (u8 *)page_address(page) + 6;
	*last ^= 0x04;
	KUNIT_EXPECT_FALSE_MSG(test, sroce_skb_icrc_ok(skb, &pkt), "%s", v->name);
}

/*
 * Received in pieces, the headers linear and the ICRC split between two
 * fragments: each vector's ICRC checks where it lies, and a bit changed
 * in either fragment fails it; and the same in the shapes above.
 */
static void sroce_pktbuf_rx_icrc(struct kunit *test)
{
	const struct sroce_test_vec *vecs[] = {
		&sroce_test_vec_cnp, &sroce_test_vec_uc, &sroce_test_vec_v1,
		&sroce_test_vec_v6, &sroce_test_vec_ipopt,
	};
	struct sroce_pkt pkt;
	struct sk_buff *skb;
	unsigned int i;
	u8 *body[2];

	for (i = 0; i < ARRAY_SIZE(vecs); i++) {
		const struct sroce_test_vec *v = vecs[i];

		KUNIT_ASSERT_EQ(test, sroce_pkt_parse(v->data, v->len, v->type,
						      &pkt), 0);
		skb = sroce_pktbuf_test_rx_skb(test, v->data, v->len,
					       pkt.payload_off, 2, body);
		KUNIT_EXPECT_TRUE_MSG(test, sroce_skb_icrc_ok(skb, &pkt), "%s",
				      v->name);
		body[0][0] ^= 0x10;
		KUNIT_EXPECT_FALSE_MSG(test, sroce_skb_icrc_ok(skb, &pkt), "%s",
				       v->name);
		body[0][0] ^= 0x10;
		body[1][1] ^= 0x01;
		KUNIT_EXPECT_FALSE_MSG(test, sroce_skb_icrc_ok(skb, &pkt), "%s",
				       v->name);
		body[1][1] ^= 0x01;
		KUNIT_EXPECT_TRUE(test, sroce_skb_icrc_ok(skb, &pkt));
		sroce_pktbuf_rx_icrc_linear(test, v);
	}
}

#define SROCE_PKTBUF_TEST_PLEN	3000

/*
 * A 3000-byte SEND received in a linear part and two fragments: its
 * payload copied out in three pieces is the payload sent, a copy past
 * the payload and the ICRC or into the packet is refused, and a byte
 * changed in a fragment shows in both the ICRC and the copy.
 */
static void sroce_pktbuf_rx_payload(struct kunit *test)
{
	static const unsigned int piece[] = { 7, 2000, 993 };
	const struct sroce_opcode_info *info;
	struct sroce_net_params np = {
		.type = SROCE_NET_ROCE_V2_IPV4,
		.saddr.s6_addr = { [10] = 0xff, 0xff, 192, 0, 2, 1 },
		.daddr.s6_addr = { [10] = 0xff, 0xff, 192, 0, 2, 2 },
		.sport = 0xc001,
		.hop_limit = 64,
	};
	u8 tp[SROCE_BTH_LEN], *payload, *pkt, *out, *body[2];
	unsigned int len, i, done = 0;
	struct sroce_bytes b;
	struct sroce_pkt rx;
	struct sk_buff *skb;

	info = sroce_opcode_info(SROCE_OP_RC_SEND_ONLY);
	len = sroce_frame_len(np.type, info, SROCE_PKTBUF_TEST_PLEN);
	payload = kunit_kmalloc(test, SROCE_PKTBUF_TEST_PLEN, GFP_KERNEL);
	pkt = kunit_kmalloc(test, len, GFP_KERNEL);
	out = kunit_kzalloc(test, SROCE_PKTBUF_TEST_PLEN, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, payload && pkt && out);
	for (i = 0; i < SROCE_PKTBUF_TEST_PLEN; i++)
		payload[i] = i * 13 + (i >> 8);
	sroce_bth_init(tp, SROCE_OP_RC_SEND_ONLY, 0xffff, 0x123, 0x456);
	KUNIT_ASSERT_EQ(test, sroce_frame_build(pkt, len, &np, tp, payload,
						SROCE_PKTBUF_TEST_PLEN), (int)len);
	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(pkt, len, np.type, &rx), 0);

	skb = sroce_pktbuf_test_rx_skb(test, pkt, len, rx.payload_off + 10,
				       1000, body);
	rx.skb = skb;
	KUNIT_EXPECT_TRUE(test, sroce_skb_icrc_ok(skb, &rx));
	b = sroce_pkt_payload_bytes(NULL, &rx);
	for (i = 0; i < ARRAY_SIZE(piece); i++) {
		KUNIT_ASSERT_EQ(test, sroce_bytes_move(&b, out + done, piece[i],
						       true), 0);
		done += piece[i];
	}
	KUNIT_EXPECT_EQ(test, done, SROCE_PKTBUF_TEST_PLEN);
	KUNIT_EXPECT_MEMEQ(test, out, payload, SROCE_PKTBUF_TEST_PLEN);
	/* the ICRC's 4 bytes are left, not 5; and a packet is never written */
	KUNIT_EXPECT_EQ(test, sroce_bytes_move(&b, out, 5, true), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_bytes_move(&b, out, 4, false), -EFAULT);

	body[1][0] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, sroce_skb_icrc_ok(skb, &rx));
	b = sroce_pkt_payload_bytes(NULL, &rx);
	KUNIT_ASSERT_EQ(test, sroce_bytes_move(&b, out, SROCE_PKTBUF_TEST_PLEN,
					       true), 0);
	KUNIT_EXPECT_MEMNEQ(test, out, payload, SROCE_PKTBUF_TEST_PLEN);
}

static struct kunit_case sroce_txzc_test_cases[] = {
	KUNIT_CASE(sroce_txzc_icrc_vectors),
	KUNIT_CASE(sroce_txzc_icrc_long),
	KUNIT_CASE(sroce_txzc_icrc_refused),
	KUNIT_CASE(sroce_txzc_fragments),
	KUNIT_CASE(sroce_pktbuf_rx_icrc),
	KUNIT_CASE(sroce_pktbuf_rx_payload),
	{}
};

static struct kunit_suite sroce_txzc_test_suite = {
	.name = "sroce_txzc",
	.test_cases = sroce_txzc_test_cases,
};

kunit_test_suites(&sroce_txzc_test_suite);
