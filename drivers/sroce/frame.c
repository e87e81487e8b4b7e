// SPDX-License-Identifier: GPL-2.0
/*
 * Packet build and parse on linear buffers.
 *
 * The parser is the first thing that looks at bytes from the wire, so it
 * checks every offset against the bytes actually present before reading,
 * and takes the packet length only from the IP/UDP/GRH length fields: short
 * frames arrive with Ethernet padding that is not part of the packet.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <net/checksum.h>

#include <sroce/compat.h>
#include <sroce/frame.h>

/* IPv4 header field offsets. */
#define SROCE_IP4_TOS		1
#define SROCE_IP4_TOT_LEN	2
#define SROCE_IP4_ID		4
#define SROCE_IP4_FRAG		6
#define SROCE_IP4_TTL		8
#define SROCE_IP4_PROTO		9
#define SROCE_IP4_CSUM		10
#define SROCE_IP4_SADDR		12
#define SROCE_IP4_DADDR		16
#define SROCE_IP4_DF		0x4000
#define SROCE_IP4_MF_OFFSET	0x3fff

/* IPv6 header and GRH share one layout. */
#define SROCE_IP6_PAYLEN	4
#define SROCE_IP6_NEXTHDR	6
#define SROCE_IP6_HOPLMT	7
#define SROCE_IP6_SADDR		8
#define SROCE_IP6_DADDR		24
#define SROCE_IP6_FLOW_MASK	0x000fffffU

#define SROCE_UDP_SPORT		0
#define SROCE_UDP_DPORT_OFF	2
#define SROCE_UDP_LENGTH	4
#define SROCE_UDP_CSUM		6

#define SROCE_IPPROTO_UDP	17

static void sroce_ip6_hdr_build(u8 *h, const struct sroce_net_params *np, u8 nexthdr,
				unsigned int paylen)
{
	put_unaligned_be32((6U << 28) | ((u32)np->tclass << 20) |
			   (np->flow_label & SROCE_IP6_FLOW_MASK), h);
	put_unaligned_be16(paylen, h + SROCE_IP6_PAYLEN);
	h[SROCE_IP6_NEXTHDR] = nexthdr;
	h[SROCE_IP6_HOPLMT] = np->hop_limit;
	memcpy(h + SROCE_IP6_SADDR, &np->saddr, sizeof(np->saddr));
	memcpy(h + SROCE_IP6_DADDR, &np->daddr, sizeof(np->daddr));
}

static void sroce_ip4_hdr_build(u8 *h, const struct sroce_net_params *np, unsigned int totlen)
{
	__sum16 csum;

	h[0] = 0x45;
	h[SROCE_IP4_TOS] = np->tclass;
	put_unaligned_be16(totlen, h + SROCE_IP4_TOT_LEN);
	put_unaligned_be16(np->ip_id, h + SROCE_IP4_ID);
	/* RoCE must not be fragmented: the ICRC would not survive it anyway. */
	put_unaligned_be16(SROCE_IP4_DF, h + SROCE_IP4_FRAG);
	h[SROCE_IP4_TTL] = np->hop_limit;
	h[SROCE_IP4_PROTO] = SROCE_IPPROTO_UDP;
	put_unaligned_be16(0, h + SROCE_IP4_CSUM);
	memcpy(h + SROCE_IP4_SADDR, &np->saddr.s6_addr32[3], 4);
	memcpy(h + SROCE_IP4_DADDR, &np->daddr.s6_addr32[3], 4);
	csum = ip_fast_csum(h, SROCE_IPV4_LEN / 4);
	put_unaligned(csum, (__sum16 *)(h + SROCE_IP4_CSUM));
}

/* The ICRC protects the payload, so the UDP checksum is left at zero. */
static void sroce_udp_hdr_build(u8 *h, u16 sport, unsigned int udplen)
{
	put_unaligned_be16(sport, h + SROCE_UDP_SPORT);
	put_unaligned_be16(SROCE_UDP_DPORT, h + SROCE_UDP_DPORT_OFF);
	put_unaligned_be16(udplen, h + SROCE_UDP_LENGTH);
	put_unaligned_be16(0, h + SROCE_UDP_CSUM);
}

int sroce_net_hdr_build(void *nh, const struct sroce_net_params *np, unsigned int tp_len)
{
	unsigned int udplen = SROCE_UDP_LEN + tp_len;
	u8 *h = nh;

	switch (np->type) {
	case SROCE_NET_ROCE_V1:
		if (tp_len > U16_MAX)
			return -EMSGSIZE;
		sroce_ip6_hdr_build(h, np, SROCE_GRH_NXTHDR_IBA, tp_len);
		return SROCE_GRH_LEN;
	case SROCE_NET_ROCE_V2_IPV4:
		if (tp_len > U16_MAX - SROCE_IPV4_LEN - SROCE_UDP_LEN)
			return -EMSGSIZE;
		sroce_ip4_hdr_build(h, np, SROCE_IPV4_LEN + udplen);
		sroce_udp_hdr_build(h + SROCE_IPV4_LEN, np->sport, udplen);
		return SROCE_IPV4_LEN + SROCE_UDP_LEN;
	case SROCE_NET_ROCE_V2_IPV6:
		if (tp_len > U16_MAX - SROCE_UDP_LEN)
			return -EMSGSIZE;
		sroce_ip6_hdr_build(h, np, SROCE_IPPROTO_UDP, udplen);
		sroce_udp_hdr_build(h + SROCE_IPV6_LEN, np->sport, udplen);
		return SROCE_IPV6_LEN + SROCE_UDP_LEN;
	}
	return -EINVAL;
}

void sroce_frame_put_icrc(void *nh, enum sroce_net_type t, unsigned int len)
{
	sroce_icrc_put((u8 *)nh + len, sroce_icrc_compute(t, nh, len));
}

int sroce_frame_build(void *nh, unsigned int size, const struct sroce_net_params *np,
		      const void *tp_hdr, const void *payload, unsigned int payload_len)
{
	const struct sroce_opcode_info *info;
	unsigned int nhl, tp_len, len;
	u8 pad = sroce_padcnt(payload_len);
	u8 *bth, *p;
	int ret;

	if (!sroce_net_type_valid(np->type))
		return -EINVAL;
	info = sroce_opcode_info(sroce_bth_opcode(tp_hdr));
	if (!info || (payload_len && !sroce_opcode_has(info, SROCE_OPF_PAYLOAD)))
		return -EINVAL;
	if (payload_len > U16_MAX)
		return -EMSGSIZE;

	nhl = sroce_net_hdr_len(np->type);
	tp_len = info->hdr_len + payload_len + pad + SROCE_ICRC_LEN;
	len = nhl + tp_len;
	if (len > size)
		return -ENOSPC;

	/* Transport headers first: they may overlap where they are copied to. */
	bth = (u8 *)nh + nhl;
	memmove(bth, tp_hdr, info->hdr_len);
	ret = sroce_net_hdr_build(nh, np, tp_len);
	if (ret < 0)
		return ret;
	sroce_bth_set_padcnt(bth, pad);

	p = bth + info->hdr_len;
	if (!payload)
		memset(p, 0, payload_len);
	else if (payload != p)
		memcpy(p, payload, payload_len);
	memset(p + payload_len, 0, pad);

	sroce_frame_put_icrc(nh, np->type, len - SROCE_ICRC_LEN);
	return len;
}

unsigned int sroce_cnp_build(void *bth, u32 dqpn)
{
	sroce_bth_init(bth, SROCE_OP_CNP, SROCE_DEFAULT_PKEY, dqpn, 0);
	sroce_bth_set_becn(bth, true);
	memset((u8 *)bth + SROCE_BTH_LEN, 0, SROCE_CNP_RSVD_LEN);
	return SROCE_BTH_LEN + SROCE_CNP_RSVD_LEN;
}

static const char * const sroce_rx_err_names[SROCE_RX_ERR_NUM] = {
	[SROCE_RX_OK]			= "ok",
	[SROCE_RX_ERR_NET_TYPE]		= "net_type",
	[SROCE_RX_ERR_TRUNCATED]	= "truncated",
	[SROCE_RX_ERR_IP_VERSION]	= "ip_version",
	[SROCE_RX_ERR_IP_IHL]		= "ip_ihl",
	[SROCE_RX_ERR_IP_LEN]		= "ip_len",
	[SROCE_RX_ERR_IP_FRAG]		= "ip_frag",
	[SROCE_RX_ERR_IP_PROTO]		= "ip_proto",
	[SROCE_RX_ERR_UDP_PORT]		= "udp_port",
	[SROCE_RX_ERR_UDP_LEN]		= "udp_len",
	[SROCE_RX_ERR_GRH_NXTHDR]	= "grh_nxthdr",
	[SROCE_RX_ERR_GRH_PAYLEN]	= "grh_paylen",
	[SROCE_RX_ERR_OPCODE]		= "opcode",
	[SROCE_RX_ERR_TVER]		= "tver",
	[SROCE_RX_ERR_HDR_LEN]		= "hdr_len",
	[SROCE_RX_ERR_PAYLOAD]		= "payload",
	[SROCE_RX_ERR_PADCNT]		= "padcnt",
};

const char *sroce_rx_err_name(enum sroce_rx_err err)
{
	if ((unsigned int)err >= SROCE_RX_ERR_NUM)
		return "unknown";
	return sroce_rx_err_names[err];
}

/*
 * Each sroce_parse_*() checks its network header, fills the addressing part
 * of @pkt and returns the transport length (BTH through ICRC, from the
 * length fields), or -reason.
 */
static int sroce_parse_ip6_common(const u8 *h, struct sroce_pkt *pkt)
{
	u32 w = get_unaligned_be32(h);

	pkt->tclass = (w >> 20) & 0xff;
	pkt->flow_label = w & SROCE_IP6_FLOW_MASK;
	pkt->hop_limit = h[SROCE_IP6_HOPLMT];
	memcpy(&pkt->sgid, h + SROCE_IP6_SADDR, sizeof(pkt->sgid));
	memcpy(&pkt->dgid, h + SROCE_IP6_DADDR, sizeof(pkt->dgid));
	return get_unaligned_be16(h + SROCE_IP6_PAYLEN);
}

static int sroce_parse_grh(const u8 *h, unsigned int len, struct sroce_pkt *pkt)
{
	unsigned int paylen;

	if (len < SROCE_GRH_LEN)
		return -SROCE_RX_ERR_TRUNCATED;
	if (h[0] >> 4 != 6)
		return -SROCE_RX_ERR_IP_VERSION;
	if (h[SROCE_IP6_NEXTHDR] != SROCE_GRH_NXTHDR_IBA)
		return -SROCE_RX_ERR_GRH_NXTHDR;
	paylen = sroce_parse_ip6_common(h, pkt);
	if (paylen > len - SROCE_GRH_LEN)
		return -SROCE_RX_ERR_TRUNCATED;
	if (paylen < SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return -SROCE_RX_ERR_GRH_PAYLEN;
	pkt->bth_off = SROCE_GRH_LEN;
	return paylen;
}

/* @iplen: bytes the IP header says follow it; all of them are present. */
static int sroce_parse_udp(const u8 *h, unsigned int iplen, struct sroce_pkt *pkt)
{
	unsigned int udplen = get_unaligned_be16(h + SROCE_UDP_LENGTH);

	if (get_unaligned_be16(h + SROCE_UDP_DPORT_OFF) != SROCE_UDP_DPORT)
		return -SROCE_RX_ERR_UDP_PORT;
	/* A shorter UDP length would leave bytes in the IP packet unaccounted. */
	if (udplen != iplen)
		return -SROCE_RX_ERR_UDP_LEN;
	if (udplen < SROCE_UDP_LEN + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return -SROCE_RX_ERR_UDP_LEN;
	pkt->sport = get_unaligned_be16(h + SROCE_UDP_SPORT);
	return udplen - SROCE_UDP_LEN;
}

/* RoCEv2 GIDs of IPv4 peers are IPv4-mapped IPv6 addresses. */
static void sroce_v4mapped(struct in6_addr *gid, const u8 *addr)
{
	memset(gid->s6_addr, 0, 10);
	gid->s6_addr[10] = 0xff;
	gid->s6_addr[11] = 0xff;
	memcpy(&gid->s6_addr[12], addr, 4);
}

static int sroce_parse_ip4(const u8 *h, unsigned int len, struct sroce_pkt *pkt)
{
	unsigned int ihl, totlen;

	if (len < SROCE_IPV4_LEN)
		return -SROCE_RX_ERR_TRUNCATED;
	if (h[0] >> 4 != 4)
		return -SROCE_RX_ERR_IP_VERSION;
	ihl = (h[0] & 0x0f) * 4;
	if (ihl < SROCE_IPV4_LEN)
		return -SROCE_RX_ERR_IP_IHL;
	if (h[SROCE_IP4_PROTO] != SROCE_IPPROTO_UDP)
		return -SROCE_RX_ERR_IP_PROTO;
	if (get_unaligned_be16(h + SROCE_IP4_FRAG) & SROCE_IP4_MF_OFFSET)
		return -SROCE_RX_ERR_IP_FRAG;
	totlen = get_unaligned_be16(h + SROCE_IP4_TOT_LEN);
	if (totlen < ihl + SROCE_UDP_LEN)
		return -SROCE_RX_ERR_IP_LEN;
	if (totlen > len)
		return -SROCE_RX_ERR_TRUNCATED;

	pkt->tclass = h[SROCE_IP4_TOS];
	pkt->hop_limit = h[SROCE_IP4_TTL];
	sroce_v4mapped(&pkt->sgid, h + SROCE_IP4_SADDR);
	sroce_v4mapped(&pkt->dgid, h + SROCE_IP4_DADDR);
	pkt->bth_off = ihl + SROCE_UDP_LEN;
	return sroce_parse_udp(h + ihl, totlen - ihl, pkt);
}

static int sroce_parse_ip6(const u8 *h, unsigned int len, struct sroce_pkt *pkt)
{
	unsigned int paylen;

	if (len < SROCE_IPV6_LEN)
		return -SROCE_RX_ERR_TRUNCATED;
	if (h[0] >> 4 != 6)
		return -SROCE_RX_ERR_IP_VERSION;
	/* Extension headers would move the UDP header; RoCE does not use them. */
	if (h[SROCE_IP6_NEXTHDR] != SROCE_IPPROTO_UDP)
		return -SROCE_RX_ERR_IP_PROTO;
	paylen = sroce_parse_ip6_common(h, pkt);
	if (paylen < SROCE_UDP_LEN)
		return -SROCE_RX_ERR_IP_LEN;
	if (paylen > len - SROCE_IPV6_LEN)
		return -SROCE_RX_ERR_TRUNCATED;
	pkt->bth_off = SROCE_IPV6_LEN + SROCE_UDP_LEN;
	return sroce_parse_udp(h + SROCE_IPV6_LEN, paylen, pkt);
}

int sroce_pkt_parse(const void *nh, unsigned int len, enum sroce_net_type t,
		    struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info;
	unsigned int rest;
	const u8 *bth;
	int tp_len;

	memset(pkt, 0, sizeof(*pkt));
	pkt->type = t;

	switch (t) {
	case SROCE_NET_ROCE_V1:
		tp_len = sroce_parse_grh(nh, len, pkt);
		break;
	case SROCE_NET_ROCE_V2_IPV4:
		tp_len = sroce_parse_ip4(nh, len, pkt);
		break;
	case SROCE_NET_ROCE_V2_IPV6:
		tp_len = sroce_parse_ip6(nh, len, pkt);
		break;
	default:
		return -SROCE_RX_ERR_NET_TYPE;
	}
	if (tp_len < 0)
		return tp_len;

	/*
	 * The network parsers guarantee bth_off + tp_len <= len and
	 * tp_len >= BTH + ICRC, so the BTH can be read.
	 */
	bth = (const u8 *)nh + pkt->bth_off;
	pkt->opcode = sroce_bth_opcode(bth);
	info = sroce_opcode_info(pkt->opcode);
	if (!info)
		return -SROCE_RX_ERR_OPCODE;
	if (sroce_bth_tver(bth) != SROCE_BTH_TVER)
		return -SROCE_RX_ERR_TVER;
	if (tp_len < info->hdr_len + SROCE_ICRC_LEN)
		return -SROCE_RX_ERR_HDR_LEN;

	pkt->padcnt = sroce_bth_padcnt(bth);
	rest = tp_len - info->hdr_len - SROCE_ICRC_LEN;
	if (rest && !sroce_opcode_has(info, SROCE_OPF_PAYLOAD))
		return -SROCE_RX_ERR_PAYLOAD;
	/* Headers are whole words, so payload + pad must be too. */
	if (rest % 4 || pkt->padcnt > rest)
		return -SROCE_RX_ERR_PADCNT;

	pkt->info = info;
	pkt->len = pkt->bth_off + tp_len;
	pkt->payload_off = pkt->bth_off + info->hdr_len;
	pkt->payload_len = rest - pkt->padcnt;
	pkt->icrc_off = pkt->len - SROCE_ICRC_LEN;
	pkt->se = sroce_bth_se(bth);
	pkt->mig = sroce_bth_mig(bth);
	pkt->pkey = sroce_bth_pkey(bth);
	pkt->fecn = sroce_bth_fecn(bth);
	pkt->becn = sroce_bth_becn(bth);
	pkt->qpn = sroce_bth_dqpn(bth);
	pkt->ackreq = sroce_bth_ackreq(bth);
	pkt->psn = sroce_bth_psn(bth);
	return 0;
}

bool sroce_pkt_icrc_ok(const void *nh, const struct sroce_pkt *pkt)
{
	const u8 *p = nh;

	return sroce_icrc_compute(pkt->type, p, pkt->icrc_off) ==
	       sroce_icrc_get(p + pkt->icrc_off);
}

void sroce_pkt_ud_grh(const void *nh, const struct sroce_pkt *pkt, void *grh)
{
	u8 *g = grh;

	if (pkt->type == SROCE_NET_ROCE_V2_IPV4) {
		memset(g, 0, SROCE_GRH_LEN - SROCE_IPV4_LEN);
		memcpy(g + SROCE_GRH_LEN - SROCE_IPV4_LEN, nh, SROCE_IPV4_LEN);
	} else {
		memcpy(g, nh, SROCE_GRH_LEN);
	}
}
