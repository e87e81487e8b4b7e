/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device layer: struct sroce_dev (one link, an ib_device bound to one
 * netdev), the registry that finds a device from a netdev or a match
 * (registry.c, any context under RCU), its counters, and its key and
 * number tables (numspace.h).  Every layer above may use it; it calls none.
 */
#ifndef SROCE_DEVICE_H
#define SROCE_DEVICE_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rhashtable-types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <sroce/numspace.h>
#include <sroce/stats.h>

struct sroce_net;
struct sroce_qos_cfg;
struct sroce_txdev;

/**
 * struct sroce_dev - one sroce link: an ib_device bound to one netdev
 * @ib_dev: the registered InfiniBand device (must stay first for ib_core)
 * @ndev: the Ethernet device the link carries RoCE over
 * @ndev_tracker: reference tracker for @ndev
 * @net: network namespace the link was created in; its UDP socket is ours
 * @list: entry in the list of published devices (RCU; link.c)
 * @ndev_node: entry in the hash by @ndev that packets and netdev events
 *	find the device through (RCU; link.c)
 * @all_entry: entry in the list of registered devices (link mutex)
 * @v1_pt: RoCEv1 (ethertype 0x8915) receive hook bound to @ndev
 * @port_state: port state last reported to ib_core (IB_PORT_ACTIVE/DOWN)
 * @stats: per-CPU counters, summed for rdma statistic
 * @listed: @list is linked and the v1 hook is installed
 * @net_ref: holds a reference on the UDP socket of @net
 * @dead: dealloc_driver has run; only the reference of @all_entry is left
 * @keys: MR and MW key index -> object, a hash table looked up under RCU
 *	(numspace.c)
 * @ahs: AH number -> user AH, for librxe's UD WQEs (ah.c)
 * @key_ns: where key indexes are drawn from
 * @num_keys: key indexes reserved, held under SROCE_MAX_KEYS
 * @ah_next: cursor of the cyclic AH number allocation
 * @num_pd: PDs allocated, held to max_pd
 * @num_cq: CQs allocated, held to max_cq
 * @qps: QPN -> struct sroce_qp_ref, looked up under RCU by received
 *	packets (qp.c).  A hash table: QPNs are drawn at random from 2^24,
 *	and a radix tree would spend a node or more on each
 * @qpn_ns: where QPNs are drawn from
 * @num_qp: QPs allocated, held to max_qp
 * @num_srq: SRQs allocated, held to max_srq
 * @tx: the transmit queues (tx.c)
 * @lo: the loopback queue (loopback.c), made and freed with @tx; other
 *	devices of the host queue to it too, under RCU while this one is
 *	on the device list (link.c)
 * @mcgs: multicast GID -> attached QPNs, looked up under RCU (mcast.c)
 * @mcast_lock: serialises changes of @mcgs
 * @num_mcg: groups in @mcgs, held to max_mcast_grp
 */
struct sroce_dev {
	struct ib_device ib_dev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct net *net;
	struct list_head list;
	struct hlist_node ndev_node;
	struct list_head all_entry;
	struct packet_type v1_pt;
	struct packet_type pfc_pt;
	u32 speed_mbps;			/* the netdev's, 0 if unknown */
	enum ib_port_state port_state;
	struct sroce_stats __percpu *stats;
	bool listed;
	bool net_ref;
	bool dead;

	/* number spaces of the verbs objects, see include/sroce/numspace.h */
	struct rhashtable keys;
	struct xarray ahs;
	struct sroce_numspace key_ns;
	atomic_t num_keys;
	u32 ah_next;
	atomic_t num_pd;
	atomic_t num_cq;
	struct rhashtable qps;
	struct sroce_numspace qpn_ns;
	atomic_t num_qp;
	atomic_t num_srq;

	struct sroce_txdev *tx;
	atomic_t tx_ip_id;		/* IPv4 ID of the next packet (txbuild.c) */
	struct sroce_lo *lo;
	/* QoS configuration, see include/sroce/qos.h */
	struct sroce_qos_cfg __rcu *qos;
	struct mutex qos_lock;		/* serialises writers of @qos */
	/* reads the netdev's DCB settings while qos/dcb is on (dcb.h) */
	struct delayed_work dcb_work;
	int dcb_ret;			/* its last outcome, 0 if followed */

	DECLARE_HASHTABLE(mcgs, 6);
	struct mutex mcast_lock;	/* see above */
	unsigned int num_mcg;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ib_dev)
{
	return container_of(ib_dev, struct sroce_dev, ib_dev);
}

/* registry.c: the published devices, found from any context under RCU */
int sroce_registry_init(void);
void sroce_registry_exit(void);
void sroce_dev_list_add(struct sroce_dev *sdev);
void sroce_dev_list_del(struct sroce_dev *sdev);
bool sroce_dev_net_shared(const struct net *net);
struct sroce_dev *sroce_dev_from_ndev_rcu(const struct net_device *ndev);
struct sroce_dev *sroce_dev_find_rcu(bool (*match)(const struct sroce_dev *sdev,
						   const void *arg),
				     const void *arg);

/*
 * Counters are per CPU, added without a lock from any context; a read
 * sums every CPU's share (rdma statistic, tests).
 */
static inline void sroce_stats_add(struct sroce_dev *sdev,
				   enum sroce_counter c, u64 n)
{
	this_cpu_add(sdev->stats->cnt[c], n);
}

static inline void sroce_stats_inc(struct sroce_dev *sdev, enum sroce_counter c)
{
	sroce_stats_add(sdev, c, 1);
}

static inline u64 sroce_stats_read(struct sroce_dev *sdev, enum sroce_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(sdev->stats, cpu)->cnt[c];
	return sum;
}

#endif /* SROCE_DEVICE_H */
