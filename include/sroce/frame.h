/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building whole RoCE packets in linear buffers, and parsing their headers
 * (the payload may lie elsewhere: pktbuf.h), from the
 * network header (GRH for RoCEv1, IP for RoCEv2) to the ICRC.  Link-layer
 * headers are the caller's business.
 */
#ifndef SROCE_FRAME_H
#define SROCE_FRAME_H

#include <linux/in6.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include <sroce/hdr.h>
#include <sroce/icrc.h>
#include <sroce/nethdr.h>
#include <sroce/opcode.h>

struct sk_buff;

/* --- Build --------------------------------------------------------------- */

struct sroce_net_params {
	enum sroce_net_type type;
	/* GIDs; for RoCEv2/IPv4 the IPv4-mapped form ::ffff:a.b.c.d. */
	struct in6_addr saddr;
	struct in6_addr daddr;
	u32 flow_label;		/* RoCEv1 and RoCEv2/IPv6 */
	u16 ip_id;		/* RoCEv2/IPv4 */
	u16 sport;		/* RoCEv2 UDP source port */
	u8 tclass;		/* GRH TClass, IPv4 TOS, IPv6 Traffic Class */
	u8 hop_limit;		/* GRH HopLmt, IPv4 TTL, IPv6 Hop Limit */
};

/*
 * Write the GRH, or the IP and UDP headers, in front of @tp_len bytes of
 * transport (BTH through ICRC).  Returns the bytes written
 * (sroce_net_hdr_len()), -EINVAL for an unknown type or -EMSGSIZE when
 * @tp_len does not fit the length fields.
 */
int sroce_net_hdr_build(void *nh, const struct sroce_net_params *np, unsigned int tp_len);

/* Network header through ICRC for @payload_len bytes under opcode @info. */
static inline unsigned int sroce_frame_len(enum sroce_net_type t,
					   const struct sroce_opcode_info *info,
					   unsigned int payload_len)
{
	return sroce_net_hdr_len(t) + info->hdr_len + payload_len +
	       sroce_padcnt(payload_len) + SROCE_ICRC_LEN;
}

/*
 * Compute the ICRC over the @len bytes from @nh and store it right after
 * them.
 */
void sroce_frame_put_icrc(void *nh, enum sroce_net_type t, unsigned int len);

/*
 * Build a complete packet at @nh (at most @size bytes): network headers, the
 * transport headers at @tp_hdr (BTH and extended headers as the BTH opcode
 * requires), the payload (zeros if @payload is NULL), zero pad and ICRC.
 * Transport headers and payload may already sit where they belong in @nh.
 * The BTH pad count is set here.  Returns the packet length, -EINVAL for an
 * unknown opcode or a payload on an opcode without one, -ENOSPC if @size is
 * too small, or an error of sroce_net_hdr_build().
 */
int sroce_frame_build(void *nh, unsigned int size, const struct sroce_net_params *np,
		      const void *tp_hdr, const void *payload, unsigned int payload_len);

/* BTH and reserved bytes of a CNP to @dqpn; returns the bytes written. */
unsigned int sroce_cnp_build(void *bth, u32 dqpn);

/* --- Parse --------------------------------------------------------------- */

/* Why a received packet was rejected; sroce_pkt_parse() returns -reason. */
enum sroce_rx_err {
	SROCE_RX_OK,
	SROCE_RX_ERR_NET_TYPE,		/* unknown encapsulation requested */
	SROCE_RX_ERR_TRUNCATED,		/* fewer bytes than a header or length field needs */
	SROCE_RX_ERR_IP_VERSION,	/* IP or GRH version nibble */
	SROCE_RX_ERR_IP_IHL,		/* IPv4 IHL below 5 */
	SROCE_RX_ERR_IP_LEN,		/* IP length too short for IP + UDP headers */
	SROCE_RX_ERR_IP_FRAG,		/* IPv4 fragment */
	SROCE_RX_ERR_IP_PROTO,		/* not UDP (IPv6 extension headers included) */
	SROCE_RX_ERR_UDP_PORT,		/* destination port not 4791 */
	SROCE_RX_ERR_UDP_LEN,		/* UDP length disagrees with IP or is too short */
	SROCE_RX_ERR_GRH_NXTHDR,	/* GRH next header not IBA */
	SROCE_RX_ERR_GRH_PAYLEN,	/* GRH payload too short for BTH + ICRC */
	SROCE_RX_ERR_OPCODE,		/* reserved or unsupported opcode */
	SROCE_RX_ERR_TVER,		/* BTH transport version not 0 */
	SROCE_RX_ERR_HDR_LEN,		/* opcode's headers + ICRC longer than packet */
	SROCE_RX_ERR_PAYLOAD,		/* payload on an opcode that carries none */
	SROCE_RX_ERR_PADCNT,		/* pad count disagrees with the length */
	SROCE_RX_ERR_NUM
};

/* Short stable names, e.g. for drop counters. */
const char *sroce_rx_err_name(enum sroce_rx_err err);

struct sroce_pkt {
	const struct sroce_opcode_info *info;
	enum sroce_net_type type;
	/* Offsets from the network header, lengths in bytes. */
	unsigned int len;		/* whole packet, from the length fields */
	unsigned int bth_off;
	unsigned int payload_off;
	unsigned int payload_len;	/* without pad */
	unsigned int icrc_off;
	/* GRH GIDs or IP addresses (IPv4-mapped for RoCEv2/IPv4). */
	struct in6_addr sgid;
	struct in6_addr dgid;
	u32 flow_label;			/* 0 for RoCEv2/IPv4 */
	u32 qpn;
	u32 psn;
	u16 pkey;
	u16 sport;			/* UDP source port, 0 for RoCEv1 */
	u8 opcode;
	u8 padcnt;
	u8 tclass;			/* TClass / TOS / Traffic Class, ECN in 1..0 */
	u8 hop_limit;			/* HopLmt / TTL / Hop Limit */
	bool se;
	bool mig;
	bool ackreq;
	bool fecn;
	bool becn;
	bool loopback;			/* sent by this device (loopback.c) */
	u16 vlan_id;			/* of its VLAN device, or SROCE_NO_VLAN */
	/*
	 * The skb holding it, its data at the network header, set by the
	 * receive path: the payload may be in its fragments (pktbuf.h).
	 * NULL for a packet parsed from a bare buffer.
	 */
	const struct sk_buff *skb;
};

/* A packet's or a path's VLAN when it has none (rdma_read_gid_l2_fields) */
#define SROCE_NO_VLAN		0xffff

/*
 * Most bytes sroce_pkt_parse() reads from a packet of type @t whose first
 * byte is @b0 (for RoCEv2/IPv4, the version and header length): network
 * header, UDP and BTH.  A receive path working on a non-linear buffer
 * makes min(len, this) bytes linear first (for IPv4, the first byte
 * before), and then pkt->payload_off bytes for the extended headers.
 * Asking for more would pull payload bytes out of the fragments.
 */
static inline unsigned int sroce_pkt_parse_need(enum sroce_net_type t, u8 b0)
{
	switch (t) {
	case SROCE_NET_ROCE_V2_IPV4:
		return max_t(unsigned int, (b0 & 0x0f) * 4, SROCE_IPV4_LEN) +
		       SROCE_UDP_LEN + SROCE_BTH_LEN;
	case SROCE_NET_ROCE_V2_IPV6:
		return SROCE_IPV6_LEN + SROCE_UDP_LEN + SROCE_BTH_LEN;
	default:
		return SROCE_GRH_LEN + SROCE_BTH_LEN;
	}
}

/*
 * Validate the headers of a received packet and describe it in @pkt.  @nh is
 * the network header, @len the bytes of the packet from there (Ethernet
 * padding included), of which only the first sroce_pkt_parse_need() need
 * be at @nh: it reads no further (and never at or beyond @nh + @len), and
 * trusts no length field.  Returns 0 or -enum sroce_rx_err.  The ICRC is
 * not checked.
 */
int sroce_pkt_parse(const void *nh, unsigned int len, enum sroce_net_type t,
		    struct sroce_pkt *pkt);

/* For a packet sroce_pkt_parse() accepted; needs all pkt->len bytes at @nh. */
bool sroce_pkt_icrc_ok(const void *nh, const struct sroce_pkt *pkt);

/*
 * The 40 bytes a UD receive places ahead of the payload (struct ib_grh,
 * union rdma_network_hdr), as ib_core and rdma-core read them: the GRH
 * for RoCEv1, the IPv6 header for RoCEv2/IPv6, and for RoCEv2/IPv4 20
 * zero bytes, then the first 20 bytes of the IPv4 header.
 */
void sroce_pkt_ud_grh(const void *nh, const struct sroce_pkt *pkt, void *grh);

static inline const void *sroce_pkt_bth(const void *nh, const struct sroce_pkt *pkt)
{
	return (const u8 *)nh + pkt->bth_off;
}

/* Extended header @h of a parsed packet, or NULL if its opcode has none. */
static inline const void *sroce_pkt_hdr(const void *nh, const struct sroce_pkt *pkt,
					enum sroce_ext_hdr h)
{
	unsigned int off = sroce_opcode_hdr_off(pkt->info, h);

	return off ? (const u8 *)nh + pkt->bth_off + off : NULL;
}

static inline const void *sroce_pkt_payload(const void *nh, const struct sroce_pkt *pkt)
{
	return (const u8 *)nh + pkt->payload_off;
}

/*
 * Congestion Experienced: the IP ECN codepoint for RoCEv2; RoCEv1 has no IP
 * header for switches to mark, so there it is the BTH FECN bit.
 */
static inline bool sroce_pkt_ce(const struct sroce_pkt *pkt)
{
	if (pkt->type == SROCE_NET_ROCE_V1)
		return pkt->fecn;
	return (pkt->tclass & SROCE_ECN_MASK) == SROCE_ECN_CE;
}

/* The IP ECN codepoint of a RoCEv2 packet; RoCEv1 has none (Not-ECT) */
static inline u8 sroce_pkt_ecn(const struct sroce_pkt *pkt)
{
	if (pkt->type == SROCE_NET_ROCE_V1)
		return 0;
	return pkt->tclass & SROCE_ECN_MASK;
}

#endif /* SROCE_FRAME_H */
