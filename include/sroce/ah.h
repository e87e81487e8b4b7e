/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address vectors and address handles (ah.c): where a packet goes,
 * as the AH attributes and a connected QP's path give it.
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include <linux/completion.h>
#include <linux/if_ether.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

#include <sroce/nethdr.h>

struct rdma_ah_attr;
struct sroce_dev;

/**
 * struct sroce_av - where packets of an AH or a connected QP go
 * @network_type: RDMA_NETWORK_ROCE_V1, RDMA_NETWORK_IPV4 or _IPV6
 * @port_num: always SROCE_PORT
 * @sl: service level from the AH attributes
 * @static_rate: IB rate code, kept for query_ah
 * @traffic_class: GRH traffic class, or the IPv4 TOS / IPv6 TC byte
 * @hop_limit: GRH hop limit, IPv4 TTL, IPv6 hop limit
 * @sgid_index: index of @sgid in the port's GID table
 * @flow_label: 20-bit GRH / IPv6 flow label
 * @vlan_id: VLAN of the source GID's netdev, 0xffff for none
 * @dmac: destination MAC, resolved by ib_core before we see the attributes
 * @smac: MAC of the source GID's netdev
 * @sgid: source GID (an IPv4-mapped address for RoCEv2 over IPv4)
 * @dgid: destination GID
 */
struct sroce_av {
	u8 network_type;
	u8 port_num;
	u8 sl;
	u8 static_rate;
	u8 traffic_class;
	u8 hop_limit;
	u8 sgid_index;
	u32 flow_label;
	u16 vlan_id;
	u8 dmac[ETH_ALEN];
	u8 smac[ETH_ALEN];
	union ib_gid sgid;
	union ib_gid dgid;
};

/* The encapsulation of an AV's network type; 0 for one sroce lacks (IB). */
static inline enum sroce_net_type sroce_av_net_type(u8 network_type)
{
	switch (network_type) {
	case RDMA_NETWORK_ROCE_V1:
		return SROCE_NET_ROCE_V1;
	case RDMA_NETWORK_IPV4:
		return SROCE_NET_ROCE_V2_IPV4;
	case RDMA_NETWORK_IPV6:
		return SROCE_NET_ROCE_V2_IPV6;
	}
	return 0;
}

/* The network_hdr_type a receive completion reports for a packet of @t. */
static inline enum rdma_network_type sroce_rdma_net_type(enum sroce_net_type t)
{
	switch (t) {
	case SROCE_NET_ROCE_V2_IPV4:
		return RDMA_NETWORK_IPV4;
	case SROCE_NET_ROCE_V2_IPV6:
		return RDMA_NETWORK_IPV6;
	default:
		return RDMA_NETWORK_ROCE_V1;
	}
}

/**
 * struct sroce_ah - an address handle
 * @ibah: the ib_core object (first, ib_core allocates it)
 * @av: the address, copied from the attributes at creation
 * @ah_num: non-zero number librxe puts in UD WQEs; 0 for kernel AHs, which
 *	are not in the device's AH table
 * @ref: one for the table plus one per sroce_ah_get()
 * @done: completed when the last reference is dropped
 */
struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_av av;
	u32 ah_num;
	refcount_t ref;
	struct completion done;
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr);
struct sroce_ah *sroce_ah_get(struct sroce_dev *sdev, u32 ah_num);
void sroce_ah_put(struct sroce_ah *ah);

extern const struct ib_device_ops sroce_ah_ops;

#endif /* SROCE_AH_H */
