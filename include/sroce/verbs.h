/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce verbs objects.  Each embeds the ib_core object ib_core allocates
 * for us (INIT_RDMA_OBJ_SIZE) and grows as the transport lands.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include <linux/completion.h>
#include <linux/if_ether.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include <sroce/nethdr.h>
#include <sroce/queue.h>

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

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

enum sroce_mr_type {
	SROCE_MR_DMA,		/* iova is a kernel virtual address */
	SROCE_MR_USER,		/* pinned user pages */
	SROCE_MR_FAST,		/* kernel page list, valid after IB_WR_REG_MR */
};

enum sroce_mr_state {
	SROCE_MR_FREE,		/* fast-reg MR not registered or invalidated */
	SROCE_MR_VALID,
	SROCE_MR_DEAD,		/* being deregistered: no new windows */
};

/**
 * struct sroce_mr - a memory region
 * @ibmr: the ib_core object; ibmr.lkey == ibmr.rkey is the current key
 * @pd: the PD accesses are checked against (rereg may change it)
 * @type: DMA, user or fast-reg
 * @state: accesses are only granted while VALID
 * @access: IB_ACCESS_* flags granted
 * @iova: first byte of the registered range
 * @length: bytes in the registered range
 * @page_shift: log2 of the page size of @pages / @fr_pages
 * @page_off: offset of @iova in the first page
 * @npages: pages covering the registered range
 * @umem: pinned user memory (user MRs)
 * @pages: the pinned pages (user MRs)
 * @fr_pages: kernel virtual addresses of the pages (fast-reg MRs)
 * @fr_max: size of @fr_pages (alloc_mr's max_num_sg)
 * @fr_mapped: pages set by the last map_mr_sg
 * @fr_map_off: offset of the mapped iova in its page at map_mr_sg time
 * @lock: serialises state, key, access and PD changes
 * @num_mw: memory windows bound to the MR (each holds a reference)
 * @ref: one for the key table plus one per sroce_mr_lookup()
 * @done: completed when the last reference is dropped
 * @rcu: the MR is freed after a grace period: lookups run under RCU
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_pd *pd;
	enum sroce_mr_type type;
	enum sroce_mr_state state;
	int access;
	u64 iova;
	u64 length;
	u32 page_shift;
	u32 page_off;
	u32 npages;
	struct ib_umem *umem;
	struct page **pages;
	u64 *fr_pages;
	u32 fr_max;
	u32 fr_mapped;
	u32 fr_map_off;
	spinlock_t lock;	/* see @lock above */
	unsigned int num_mw;
	refcount_t ref;
	struct completion done;
	struct rcu_head rcu;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

/**
 * struct sroce_cq - a completion queue
 * @ibcq: ib_core's part
 * @lock: serialises @queue and the state below; never held while a
 *	handler of the consumer runs
 * @queue: the ring of completions (struct ib_uverbs_wc for user CQs,
 *	struct ib_wc for kernel ones)
 * @idle_wq: destroy_cq waits here for @callbacks to drain
 * @callbacks: posters that left @lock to call a handler
 * @notify: the arming, 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP
 * @event_due: an armed completion came; comp_handler is owed a call
 * @in_handler: one poster is delivering @event_due calls
 * @overflow: a completion found the ring full; the CQ is in error
 * @dying: destroy_cq has begun; nothing is posted any more
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* see @lock above */
	struct sroce_queue queue;
	wait_queue_head_t idle_wq;
	unsigned int callbacks;
	u8 notify;
	bool event_due;
	bool in_handler;
	bool overflow;
	bool dying;
};

/**
 * struct sroce_mw - a memory window (type 1 or 2)
 * @ibmw: the ib_core object (first, ib_core allocates it); ibmw.rkey is
 *	the current key
 * @lock: serialises binding, invalidation and lookups
 * @state: SROCE_MR_VALID while bound
 * @mr: the MR the window is bound to, referenced while bound
 * @addr: first byte of the window
 * @length: bytes in the window
 * @access: remote access the window grants
 * @qpn: the QP a type 2 window was bound through, the only one it serves
 */
struct sroce_mw {
	struct ib_mw ibmw;
	spinlock_t lock;	/* see @lock above */
	enum sroce_mr_state state;
	struct sroce_mr *mr;
	u64 addr;
	u64 length;
	int access;
	u32 qpn;
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

extern const struct ib_device_ops sroce_verbs_ops;

/**
 * struct sroce_res_attr - a driver attribute of rdma resource show -dd
 * @name: its name (the rdma tool prints it with "drv_" before it)
 * @value: its value
 * @hex: print @value in hex (PSNs)
 */
struct sroce_res_attr {
	const char *name;
	u32 value;
	bool hex;
};

int sroce_fill_res_attrs(struct sk_buff *msg, const struct sroce_res_attr *a,
			 unsigned int n);

/* cq.c: completion queues; the transport posts with sroce_cq_post() */
extern const struct ib_device_ops sroce_cq_ops;
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited);

#endif /* SROCE_VERBS_H */
