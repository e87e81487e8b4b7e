/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce counters, exported through rdma statistic (rdma_hw_stats).
 */
#ifndef SROCE_STATS_H
#define SROCE_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

/* the priorities of the per-priority counters (SROCE_NUM_PRIO) */
#define SROCE_STATS_NUM_PRIO	8

enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_BYTES,
	SROCE_CNT_RX_V1_PACKETS,
	SROCE_CNT_RX_V2_PACKETS,
	SROCE_CNT_RX_HDR_ERR,
	SROCE_CNT_RX_ICRC_ERR,
	SROCE_CNT_RX_NO_QP,
	SROCE_CNT_RX_NOMEM,
	SROCE_CNT_RX_BAD_QP_TYPE,	/* opcode of another transport than the QP's */
	SROCE_CNT_RX_WRONG_PEER,	/* to a connected QP, not from its peer */
	SROCE_CNT_RX_QP_STATE,		/* QP not in a state that receives */
	SROCE_CNT_RX_BAD_PKEY,
	SROCE_CNT_RX_BAD_QKEY,
	SROCE_CNT_RX_DUP_REQ,		/* duplicate requests answered */
	SROCE_CNT_RX_OUT_OF_SEQ,	/* requests ahead of the expected PSN */
	SROCE_CNT_RX_BAD_RESP,		/* responses not matching any WQE */
	SROCE_CNT_RX_CNP,		/* congestion notifications received */
	SROCE_CNT_RX_MCAST,		/* multicast packets with group members */
	SROCE_CNT_RX_LOOPBACK,		/* sent by this device to itself */
	SROCE_CNT_TX_PACKETS,
	SROCE_CNT_TX_BYTES,
	SROCE_CNT_TX_DROPS,		/* the netdev or qdisc refused a packet */
	SROCE_CNT_TX_DEFERRED,		/* held back: netdev queue stopped */
	SROCE_CNT_TX_QUEUE_FULL,	/* a QP stopped at a full priority queue */
	SROCE_CNT_SEQ_NAK_SENT,
	SROCE_CNT_SEQ_NAK_RCVD,
	SROCE_CNT_RNR_NAK_SENT,
	SROCE_CNT_RNR_NAK_RCVD,
	SROCE_CNT_ERR_NAK_SENT,		/* invalid request, access, operational */
	SROCE_CNT_ERR_NAK_RCVD,
	SROCE_CNT_RETRANSMITS,		/* request packets sent again */
	SROCE_CNT_ACK_TIMEOUTS,
	SROCE_CNT_RETRY_EXCEEDED,
	SROCE_CNT_RNR_RETRY_EXCEEDED,
	SROCE_CNT_QP_ERRORS,		/* QPs the transport moved to error */
	SROCE_CNT_RX_PFC_MALFORMED,	/* MAC Control frames short or unknown */
	SROCE_CNT_TX_REQUEUED,		/* dropped by a qdisc, queued again */
	SROCE_CNT_NP_ECN_MARKED,	/* CE / FECN packets of RC and UC QPs */
	SROCE_CNT_NP_CNP_SENT,		/* CNPs queued to the peer */
	SROCE_CNT_RP_CNP_HANDLED,	/* CNPs that cut a QP's rate */
	SROCE_CNT_RP_CNP_IGNORED,	/* CNPs that changed nothing */
	SROCE_CNT_RX_ECN_ECT,		/* RoCEv2 received ECT(0) or ECT(1) */
	SROCE_CNT_RX_ECN_CE,		/* RoCEv2 received CE, any QP type */
	SROCE_CNT_TX_ECN_ECT,		/* RoCEv2 sent ECN-capable */
	SROCE_CNT_TX_ZEROCOPY,		/* payload sent from the MR's pages */
	SROCE_CNT_RX_FRAGMENTED,	/* payload read from the skb's fragments */
	SROCE_CNT_SQ_COPIES_FULL,	/* a requester waited for a WQE copy */
	SROCE_CNT_SQ_COPIES_GROWN,	/* a QP's window of WQE copies doubled */
	SROCE_CNT_TX_RETRY_PASSES,	/* the retry timer looked at held priorities */
	/* what tx_packets and tx_bytes count, per priority 0..7 */
	SROCE_CNT_TX_PRIO0_PACKETS,
	SROCE_CNT_TX_PRIO0_BYTES = SROCE_CNT_TX_PRIO0_PACKETS + SROCE_STATS_NUM_PRIO,
	/* from the PFC pause clock (pfc.h), not per-CPU counts */
	SROCE_CNT_RX_PRIO0_PAUSE = SROCE_CNT_TX_PRIO0_BYTES + SROCE_STATS_NUM_PRIO,
	SROCE_CNT_RX_PRIO0_PAUSE_DURATION = SROCE_CNT_RX_PRIO0_PAUSE + SROCE_STATS_NUM_PRIO,
	SROCE_NUM_COUNTERS = SROCE_CNT_RX_PRIO0_PAUSE_DURATION + SROCE_STATS_NUM_PRIO
};

struct sroce_stats {
	u64 cnt[SROCE_NUM_COUNTERS];
};

#endif /* SROCE_STATS_H */
