/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The three encapsulations sroce speaks and the fixed parts of the headers
 * below the BTH.  "Network header" (nh) always means the GRH for RoCEv1 and
 * the IP header (followed by UDP) for RoCEv2.
 */
#ifndef SROCE_NETHDR_H
#define SROCE_NETHDR_H

#include <linux/if_ether.h>
#include <linux/types.h>

enum sroce_net_type {
	SROCE_NET_ROCE_V1 = 1,		/* Ethertype 0x8915, GRH */
	SROCE_NET_ROCE_V2_IPV4,		/* IPv4 + UDP 4791 */
	SROCE_NET_ROCE_V2_IPV6,		/* IPv6 + UDP 4791 */
};

#define SROCE_ETH_P_ROCE_V1	0x8915
#define SROCE_UDP_DPORT		4791

#define SROCE_GRH_LEN		40
#define SROCE_IPV4_LEN		20	/* without options */
#define SROCE_IPV4_MAX_LEN	60
#define SROCE_IPV6_LEN		40
#define SROCE_UDP_LEN		8
/* ECN codepoints in the low two bits of TOS / Traffic Class (RFC 3168). */
#define SROCE_ECN_MASK		0x03
#define SROCE_ECN_ECT1		0x01
#define SROCE_ECN_ECT0		0x02
#define SROCE_ECN_CE		0x03
/* GRH next-header value announcing an IBA transport header. */
#define SROCE_GRH_NXTHDR_IBA	0x1b

static inline bool sroce_net_type_valid(enum sroce_net_type t)
{
	return t == SROCE_NET_ROCE_V1 || t == SROCE_NET_ROCE_V2_IPV4 ||
	       t == SROCE_NET_ROCE_V2_IPV6;
}

/* The Ethernet type of frames of @t; 0 for a bad @t. */
static inline u16 sroce_net_ethertype(enum sroce_net_type t)
{
	switch (t) {
	case SROCE_NET_ROCE_V1:
		return SROCE_ETH_P_ROCE_V1;
	case SROCE_NET_ROCE_V2_IPV4:
		return ETH_P_IP;
	case SROCE_NET_ROCE_V2_IPV6:
		return ETH_P_IPV6;
	}
	return 0;
}

/* The encapsulation an Ethernet type announces, or 0 if none of ours. */
static inline enum sroce_net_type sroce_net_type_of_ethertype(u16 ethertype)
{
	switch (ethertype) {
	case SROCE_ETH_P_ROCE_V1:
		return SROCE_NET_ROCE_V1;
	case ETH_P_IP:
		return SROCE_NET_ROCE_V2_IPV4;
	case ETH_P_IPV6:
		return SROCE_NET_ROCE_V2_IPV6;
	}
	return 0;
}

/* Bytes from the network header to the BTH in frames sroce builds. */
static inline unsigned int sroce_net_hdr_len(enum sroce_net_type t)
{
	switch (t) {
	case SROCE_NET_ROCE_V1:
		return SROCE_GRH_LEN;
	case SROCE_NET_ROCE_V2_IPV4:
		return SROCE_IPV4_LEN + SROCE_UDP_LEN;
	case SROCE_NET_ROCE_V2_IPV6:
		return SROCE_IPV6_LEN + SROCE_UDP_LEN;
	}
	return 0;
}

#endif /* SROCE_NETHDR_H */
