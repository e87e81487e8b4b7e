// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_device of an sroce link: identity, port attributes that follow the
 * netdev, and the counters behind `rdma statistic`.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include <sroce/ah.h>
#include <sroce/compat.h>
#include <sroce/config.h>
#include <sroce/cq.h>
#include <sroce/dcb.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/link.h>
#include <sroce/mcast.h>
#include <sroce/mr.h>
#include <sroce/numspace.h>
#include <sroce/qos.h>
#include <sroce/rx.h>
#include <sroce/srq.h>
#include <sroce/stats.h>
#include <sroce/transport.h>
#include <sroce/tx.h>
#include <sroce/verbs.h>

static enum ib_port_state sroce_port_state(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/*
 * The largest IB MTU whose packets fit the netdev MTU with the biggest
 * headers we may put in front of them; the same rule rdma_cm applies, so
 * both sides of a connection agree on it.
 */
static enum ib_mtu sroce_active_mtu(const struct net_device *ndev)
{
	enum ib_mtu mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));

	return mtu ? mtu : IB_MTU_256;
}

/* The netdev's link speed in Mb/s, 0 if unknown.  Caller holds RTNL. */
u32 sroce_dev_link_speed(struct net_device *ndev)
{
	struct ethtool_link_ksettings lk;

	if (__ethtool_get_link_ksettings(ndev, &lk) ||
	    lk.base.speed == SPEED_UNKNOWN)
		return 0;
	return lk.base.speed;
}

/* Report a port state change to ib_core.  Caller holds RTNL. */
void sroce_dev_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state(sdev->ndev);
	struct ib_event ev = {
		.device = &sdev->ib_dev,
		.element.port_num = SROCE_PORT,
	};

	if (state == sdev->port_state)
		return;
	WRITE_ONCE(sdev->port_state, state);
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

/* RDMA ATOMIC WRITE (IBTA 1.5) is offered where ib_core knows it */
#ifdef SROCE_HAVE_IB_ATOMIC_WRITE
#define SROCE_DEVICE_ATOMIC_WRITE	IB_DEVICE_ATOMIC_WRITE
#else
#define SROCE_DEVICE_ATOMIC_WRITE	0
#endif

static int sroce_query_device(struct ib_device *ib_dev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = ib_dev->node_guid;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = GENMASK_ULL(31, PAGE_SHIFT);
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = SROCE_VENDOR_PART_ID;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_KEYS - 1;
	attr->max_mw = SROCE_MAX_KEYS - 1;	/* shares the MRs' key space */
	attr->max_ah = SROCE_MAX_AH - 1;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	attr->local_ca_ack_delay = 15;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SROCE_MAX_QP * SROCE_MAX_RD_ATOMIC;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_MCAST_GRP *
					  SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_pkeys = 1;
	attr->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				 IB_DEVICE_BAD_QKEY_CNTR |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 SROCE_DEVICE_ATOMIC_WRITE;
	return 0;
}

static int sroce_query_port(struct ib_device *ib_dev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ib_dev);
	struct net_device *ndev = sdev->ndev;

	attr->state = sroce_port_state(ndev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = sroce_active_mtu(ndev);
	attr->gid_tbl_len = SROCE_GID_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	return ib_get_eth_speed(ib_dev, port, &attr->active_speed,
				&attr->active_width);
}

static int sroce_get_port_immutable(struct ib_device *ib_dev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	/* both GID types, so ib_core fills RoCE v1 and v2 entries */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
				    RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	err = ib_query_port(ib_dev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int sroce_query_pkey(struct ib_device *ib_dev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ib_dev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static const struct rdma_stat_desc sroce_counter_desc[SROCE_NUM_COUNTERS] = {
	[SROCE_CNT_RX_PACKETS]		= { .name = "rx_packets" },
	[SROCE_CNT_RX_BYTES]		= { .name = "rx_bytes" },
	[SROCE_CNT_RX_V1_PACKETS]	= { .name = "rx_roce_v1_packets" },
	[SROCE_CNT_RX_V2_PACKETS]	= { .name = "rx_roce_v2_packets" },
	[SROCE_CNT_RX_HDR_ERR]		= { .name = "rx_header_errors" },
	[SROCE_CNT_RX_ICRC_ERR]		= { .name = "rx_icrc_errors" },
	[SROCE_CNT_RX_NO_QP]		= { .name = "rx_unknown_qp" },
	[SROCE_CNT_RX_NOMEM]		= { .name = "rx_nomem_drops" },
	[SROCE_CNT_RX_BAD_QP_TYPE]	= { .name = "rx_wrong_transport" },
	[SROCE_CNT_RX_WRONG_PEER]	= { .name = "rx_wrong_peer" },
	[SROCE_CNT_RX_QP_STATE]		= { .name = "rx_qp_state_drops" },
	[SROCE_CNT_RX_BAD_PKEY]		= { .name = "rx_bad_pkey" },
	[SROCE_CNT_RX_BAD_QKEY]		= { .name = "rx_bad_qkey" },
	[SROCE_CNT_RX_DUP_REQ]		= { .name = "rx_duplicate_requests" },
	[SROCE_CNT_RX_OUT_OF_SEQ]	= { .name = "rx_out_of_sequence" },
	[SROCE_CNT_RX_BAD_RESP]		= { .name = "rx_unexpected_responses" },
	[SROCE_CNT_RX_CNP]		= { .name = "rx_cnp_packets" },
	[SROCE_CNT_RX_MCAST]		= { .name = "rx_multicast_packets" },
	[SROCE_CNT_RX_LOOPBACK]		= { .name = "rx_loopback_packets" },
	[SROCE_CNT_TX_PACKETS]		= { .name = "tx_packets" },
	[SROCE_CNT_TX_BYTES]		= { .name = "tx_bytes" },
	[SROCE_CNT_TX_DROPS]		= { .name = "tx_drops" },
	[SROCE_CNT_TX_DEFERRED]		= { .name = "tx_deferred" },
	[SROCE_CNT_TX_QUEUE_FULL]	= { .name = "tx_queue_full" },
	[SROCE_CNT_SEQ_NAK_SENT]	= { .name = "seq_nak_sent" },
	[SROCE_CNT_SEQ_NAK_RCVD]	= { .name = "seq_nak_received" },
	[SROCE_CNT_RNR_NAK_SENT]	= { .name = "rnr_nak_sent" },
	[SROCE_CNT_RNR_NAK_RCVD]	= { .name = "rnr_nak_received" },
	[SROCE_CNT_ERR_NAK_SENT]	= { .name = "error_nak_sent" },
	[SROCE_CNT_ERR_NAK_RCVD]	= { .name = "error_nak_received" },
	[SROCE_CNT_RETRANSMITS]		= { .name = "retransmits" },
	[SROCE_CNT_ACK_TIMEOUTS]	= { .name = "ack_timeouts" },
	[SROCE_CNT_RETRY_EXCEEDED]	= { .name = "retry_exceeded" },
	[SROCE_CNT_RNR_RETRY_EXCEEDED]	= { .name = "rnr_retry_exceeded" },
	[SROCE_CNT_QP_ERRORS]		= { .name = "qp_errors" },
	[SROCE_CNT_RX_PFC_MALFORMED]	= { .name = "rx_pfc_malformed" },
	[SROCE_CNT_TX_REQUEUED]		= { .name = "tx_requeued" },
	/* named as mlx5 names its congestion counters */
	[SROCE_CNT_NP_ECN_MARKED]	= { .name = "np_ecn_marked_roce_packets" },
	[SROCE_CNT_NP_CNP_SENT]		= { .name = "np_cnp_sent" },
	[SROCE_CNT_RP_CNP_HANDLED]	= { .name = "rp_cnp_handled" },
	[SROCE_CNT_RP_CNP_IGNORED]	= { .name = "rp_cnp_ignored" },
	[SROCE_CNT_RX_ECN_ECT]		= { .name = "rx_ecn_ect_packets" },
	[SROCE_CNT_RX_ECN_CE]		= { .name = "rx_ecn_ce_packets" },
	[SROCE_CNT_TX_ECN_ECT]		= { .name = "tx_ecn_ect_packets" },
	[SROCE_CNT_TX_ZEROCOPY]		= { .name = "tx_zerocopy_packets" },
	[SROCE_CNT_RX_FRAGMENTED]	= { .name = "rx_fragmented_packets" },
	[SROCE_CNT_SQ_COPIES_FULL]	= { .name = "sq_copies_full" },
	[SROCE_CNT_SQ_COPIES_GROWN]	= { .name = "sq_copies_grown" },
	[SROCE_CNT_TX_RETRY_PASSES]	= { .name = "tx_retry_passes" },
	/* named as mlx5 names its per-priority Ethernet counters */
	[SROCE_CNT_TX_PRIO0_PACKETS + 0] = { .name = "tx_prio0_packets" },
	[SROCE_CNT_TX_PRIO0_PACKETS + 1] = { .name = "tx_prio1_packets" },
	[SROCE_CNT_TX_PRIO0_PACKETS + 2] = { .name = "tx_prio2_packets" },
	[SROCE_CNT_TX_PRIO0_PACKETS + 3] = { .name = "tx_prio3_packets" },
	[SROCE_CNT_TX_PRIO0_PACKETS + 4] = { .name = "tx_prio4_packets" },
	[SROCE_CNT_TX_PRIO0_PACKETS + 5] = { .name = "tx_prio5_packets" },
	[SROCE_CNT_TX_PRIO0_PACKETS + 6] = { .name = "tx_prio6_packets" },
	[SROCE_CNT_TX_PRIO0_PACKETS + 7] = { .name = "tx_prio7_packets" },
	[SROCE_CNT_TX_PRIO0_BYTES + 0] = { .name = "tx_prio0_bytes" },
	[SROCE_CNT_TX_PRIO0_BYTES + 1] = { .name = "tx_prio1_bytes" },
	[SROCE_CNT_TX_PRIO0_BYTES + 2] = { .name = "tx_prio2_bytes" },
	[SROCE_CNT_TX_PRIO0_BYTES + 3] = { .name = "tx_prio3_bytes" },
	[SROCE_CNT_TX_PRIO0_BYTES + 4] = { .name = "tx_prio4_bytes" },
	[SROCE_CNT_TX_PRIO0_BYTES + 5] = { .name = "tx_prio5_bytes" },
	[SROCE_CNT_TX_PRIO0_BYTES + 6] = { .name = "tx_prio6_bytes" },
	[SROCE_CNT_TX_PRIO0_BYTES + 7] = { .name = "tx_prio7_bytes" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 0] = { .name = "rx_prio0_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 1] = { .name = "rx_prio1_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 2] = { .name = "rx_prio2_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 3] = { .name = "rx_prio3_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 4] = { .name = "rx_prio4_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 5] = { .name = "rx_prio5_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 6] = { .name = "rx_prio6_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE + 7] = { .name = "rx_prio7_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 0] = { .name = "rx_prio0_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 1] = { .name = "rx_prio1_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 2] = { .name = "rx_prio2_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 3] = { .name = "rx_prio3_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 4] = { .name = "rx_prio4_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 5] = { .name = "rx_prio5_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 6] = { .name = "rx_prio6_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION + 7] = { .name = "rx_prio7_pause_duration" },
};

static struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ib_dev,
						       u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_desc,
					  ARRAY_SIZE(sroce_counter_desc),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int sroce_get_hw_stats(struct ib_device *ib_dev,
			      struct rdma_hw_stats *stats, u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ib_dev);
	int i;

	for (i = 0; i < SROCE_CNT_RX_PRIO0_PAUSE; i++)
		stats->value[i] = sroce_stats_read(sdev, i);
	sroce_tx_pfc_stats(sdev, &stats->value[SROCE_CNT_RX_PRIO0_PAUSE],
			   &stats->value[SROCE_CNT_RX_PRIO0_PAUSE_DURATION]);
	return SROCE_NUM_COUNTERS;
}

/*
 * The netdev is reported through the legacy get_netdev op rather than
 * ib_device_set_netdev(): the latter also files the device in ib_core's
 * netdev hash, where rdma_rxe's netdev notifier looks up "its" devices by
 * driver id, which we share with it for librxe's sake.  A loaded rdma_rxe
 * would then treat an sroce device as a struct rxe_dev and write past it
 * on every event of our netdev.
 */
static struct net_device *sroce_get_netdev(struct ib_device *ib_dev, u32 port)
{
	struct net_device *ndev = to_sdev(ib_dev)->ndev;

	dev_hold(ndev);
	return ndev;
}

/* At dealloc: undo what sroce_newlink() (link.c) got as far as doing */
static void sroce_dev_detach(struct sroce_dev *sdev)
{
	if (sdev->listed) {
		sroce_dev_list_del(sdev);
		/*
		 * One grace period covers both: the receive path and the
		 * notifier look devices up under RCU, and the v1 hook runs
		 * under it too.
		 */
		sroce_l2_hooks_del(sdev);
		sdev->listed = false;
	}
	if (sdev->net_ref) {
		sroce_net_put(sdev->net);
		sdev->net_ref = false;
	}
}

static void sroce_dealloc_driver(struct ib_device *ib_dev)
{
	struct sroce_dev *sdev = to_sdev(ib_dev);

	sroce_dev_detach(sdev);
	sroce_dcb_stop(sdev);
	sroce_tx_fini(sdev);
	sroce_qos_fini(sdev);
	sroce_mcast_fini(sdev);
	sroce_tables_fini(sdev);
	sroce_qp_table_fini(sdev);
	free_percpu(sdev->stats);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	WRITE_ONCE(sdev->dead, true);
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	/*
	 * what makes Debian's unmodified librxe drive us
	 * (Documentation/design.rst, "rxe userspace ABI")
	 */
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.dealloc_driver = sroce_dealloc_driver,
	.query_device = sroce_query_device,
	.query_port = sroce_query_port,
	.get_port_immutable = sroce_get_port_immutable,
	.query_pkey = sroce_query_pkey,
	.get_link_layer = sroce_get_link_layer,
	.get_netdev = sroce_get_netdev,
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.get_hw_stats = sroce_get_hw_stats,
	.port_groups = sroce_qos_port_groups,

	/* the sizes of the objects ib_core allocates for the layers below */
	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	/* with the first WQE copies embedded (transport.h) */
	.size_ib_qp = SROCE_QP_OBJ_SIZE +
		      BUILD_BUG_ON_ZERO(offsetof(struct sroce_qp, ibqp)),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};

struct sroce_dev *sroce_dev_create(struct net_device *ndev)
{
	struct sroce_dev *sdev;
	struct ib_device *ib_dev;

	sdev = ib_alloc_device(sroce_dev, ib_dev);
	if (!sdev)
		return ERR_PTR(-ENOMEM);

	sdev->stats = alloc_percpu(struct sroce_stats);
	if (!sdev->stats) {
		ib_dealloc_device(&sdev->ib_dev);
		return ERR_PTR(-ENOMEM);
	}
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sdev->ndev = ndev;
	sdev->net = dev_net(ndev);
	sdev->port_state = sroce_port_state(ndev);
	INIT_LIST_HEAD(&sdev->list);
	INIT_HLIST_NODE(&sdev->ndev_node);
	INIT_LIST_HEAD(&sdev->all_entry);
	if (sroce_tables_init(sdev))
		goto put;
	sroce_numspace_init(&sdev->qpn_ns);
	sroce_mcast_init(sdev);
	BUILD_BUG_ON(SROCE_STATS_NUM_PRIO != SROCE_NUM_PRIO);
	if (sroce_qp_table_init(sdev))
		goto pool;
	sroce_dcb_init(sdev);
	if (sroce_qos_init(sdev) || sroce_tx_init(sdev)) {
		sroce_qos_fini(sdev);
		sroce_qp_table_fini(sdev);
		goto pool;
	}

	ib_dev = &sdev->ib_dev;
	ib_dev->node_type = RDMA_NODE_IB_CA;
	ib_dev->phys_port_cnt = 1;
	ib_dev->num_comp_vectors = num_possible_cpus();
	ib_dev->local_dma_lkey = 0;
	addrconf_addr_eui48((u8 *)&ib_dev->node_guid, ndev->dev_addr);
	ib_dev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				   BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ib_set_device_ops(ib_dev, &sroce_dev_ops);
	ib_set_device_ops(ib_dev, &sroce_verbs_ops);
	ib_set_device_ops(ib_dev, &sroce_mr_ops);
	ib_set_device_ops(ib_dev, &sroce_mw_ops);
	ib_set_device_ops(ib_dev, &sroce_ah_ops);
	ib_set_device_ops(ib_dev, &sroce_cq_ops);
	ib_set_device_ops(ib_dev, &sroce_qp_ops);
	ib_set_device_ops(ib_dev, &sroce_srq_ops);
	ib_set_device_ops(ib_dev, &sroce_mcast_ops);
	ib_set_device_ops(ib_dev, &sroce_unplug_ops);
	return sdev;

pool:
	sroce_tables_fini(sdev);
put:
	netdev_put(ndev, &sdev->ndev_tracker);
	free_percpu(sdev->stats);
	ib_dealloc_device(&sdev->ib_dev);
	return ERR_PTR(-ENOMEM);
}

int sroce_dev_register(struct sroce_dev *sdev, const char *name)
{
	/* no DMA device: ib_core then uses virtual DMA for ULP buffers */
	return ib_register_device(&sdev->ib_dev, name, NULL);
}
