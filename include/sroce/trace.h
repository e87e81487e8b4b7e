/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of sroce: the events an operator asks about when a
 * connection slows down or fails, which the hw counters only sum up.
 * Each names the device and, where there is one, the QP, so that
 * "trace-cmd record -e sroce" or "perf trace -e 'sroce:*'" tells which
 * connection met what, and when:
 *
 *  sroce_qp_state     a QP's state changed (by a verb, or by the transport
 *                     giving up on it)
 *  sroce_qp_resend    the requester goes back to resend, and why
 *  sroce_nak_sent     the responder sent a NAK or an RNR NAK
 *  sroce_nak_recv     the requester received one
 *  sroce_cnp_sent     the notification point sent a CNP for a marked packet
 *  sroce_cnp_recv     the reaction point heard one: its rate and alpha after
 *  sroce_pfc_rx       a PFC frame arrived: the priorities it names, those
 *                     PFC is enabled for, and its pause quanta
 *  sroce_tx_held      a priority's head packet was held back (a pause, a
 *                     stopped netdev queue, a full qdisc), once per stall
 *  sroce_tx_fifo_full a QP stopped at a full transmit FIFO and waits
 *
 * They cost a patched-out branch each while disabled.
 */
#ifndef SROCE_TRACE_TYPES_H
#define SROCE_TRACE_TYPES_H

#include <linux/types.h>

/*
 * Read once, though the events below are read several times.
 *
 * Why the requester resends (sroce_qp_resend):
 */
enum sroce_resend_cause {
	SROCE_RESEND_TIMEOUT,		/* the local ACK timer expired */
	SROCE_RESEND_SEQ_NAK,		/* the responder NAKed a gap */
	SROCE_RESEND_LOST_RESPONSE,	/* a response went missing */
	SROCE_RESEND_RNR,		/* an RNR NAK's wait ended */
};

/*
 * Whether a priority's head packet goes now, or why it waits: the drain's
 * verdict (tx.c), which sroce_tx_held reports as it is
 */
enum sroce_tx_hold {
	SROCE_TX_GO,
	SROCE_TX_HOLD_PAUSE,		/* its priority is paused by PFC */
	SROCE_TX_HOLD_STOPPED,		/* its netdev queue is stopped */
	SROCE_TX_HOLD_ROOM,		/* the bytes below that queue are at its room */
	SROCE_TX_HOLD_DROPPED,		/* a qdisc dropped a packet for that queue */
};

/* An RNR NAK whatever its timer code; a NAK as it is */
static inline u8 sroce_trace_nak_kind(u8 syn)
{
	return (syn & 0xe0) == 0x20 ? 0x20 : syn;
}

/* The device every event names first: its __string() and its source */
#define sroce_trace_dev(sdev)		dev_name(&(sdev)->ib_dev.dev)
#define sroce_trace_qp_dev(qp)		sroce_trace_dev((qp)->sdev)
#endif /* SROCE_TRACE_TYPES_H */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include <sroce/compat.h>
#include <sroce/dcqcn.h>
#include <sroce/device.h>
#include <sroce/pfc.h>
#include <sroce/transport.h>

/* The enum constants the print formats name, for perf and trace-cmd */
TRACE_DEFINE_ENUM(IB_QPT_GSI);
TRACE_DEFINE_ENUM(IB_QPT_RC);
TRACE_DEFINE_ENUM(IB_QPT_UC);
TRACE_DEFINE_ENUM(IB_QPT_UD);
TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);
TRACE_DEFINE_ENUM(SROCE_RESEND_TIMEOUT);
TRACE_DEFINE_ENUM(SROCE_RESEND_SEQ_NAK);
TRACE_DEFINE_ENUM(SROCE_RESEND_LOST_RESPONSE);
TRACE_DEFINE_ENUM(SROCE_RESEND_RNR);
TRACE_DEFINE_ENUM(SROCE_TX_HOLD_PAUSE);
TRACE_DEFINE_ENUM(SROCE_TX_HOLD_STOPPED);
TRACE_DEFINE_ENUM(SROCE_TX_HOLD_ROOM);
TRACE_DEFINE_ENUM(SROCE_TX_HOLD_DROPPED);

#define sroce_show_qp_type(t)					\
	__print_symbolic(t, { IB_QPT_GSI, "GSI" }, { IB_QPT_RC, "RC" },	\
			 { IB_QPT_UC, "UC" }, { IB_QPT_UD, "UD" })

#define sroce_show_qp_state(s)					\
	__print_symbolic(s, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

/*
 * An AETH syndrome (IBTA vol. 1, the AETH): its type in bits 7..5, 001
 * an RNR NAK (a timer code below), 011 a NAK (its code below); hdr.h
 */
#define sroce_show_nak(kind)						\
	__print_symbolic(kind, { 0x20, "RNR NAK" },			\
			 { 0x60, "PSN sequence error" },		\
			 { 0x61, "invalid request" },			\
			 { 0x62, "remote access error" },		\
			 { 0x63, "remote operational error" },		\
			 { 0x64, "invalid RD request" })

TRACE_EVENT(sroce_qp_state,
	    TP_PROTO(const struct sroce_qp *qp, enum ib_qp_state from,
		     enum ib_qp_state to),
	    TP_ARGS(qp, from, to),
	    TP_STRUCT__entry(__string(dev, sroce_trace_qp_dev(qp))
			     __field(u32, qpn)
			     __field(u8, type)
			     __field(u8, from)
			     __field(u8, to)),
	    TP_fast_assign(sroce_assign_str(dev, sroce_trace_qp_dev(qp));
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->type = qp->type;
			   __entry->from = from;
			   __entry->to = to;),
	    TP_printk("%s %s QP 0x%06x: %s -> %s", __get_str(dev),
		      sroce_show_qp_type(__entry->type), __entry->qpn,
		      sroce_show_qp_state(__entry->from),
		      sroce_show_qp_state(__entry->to))
);

TRACE_EVENT(sroce_qp_resend,
	    TP_PROTO(const struct sroce_qp *qp, u32 psn,
		     enum sroce_resend_cause cause, u8 retries_left),
	    TP_ARGS(qp, psn, cause, retries_left),
	    TP_STRUCT__entry(__string(dev, sroce_trace_qp_dev(qp))
			     __field(u32, qpn)
			     __field(u32, psn)
			     __field(u8, cause)
			     __field(u8, left)),
	    TP_fast_assign(sroce_assign_str(dev, sroce_trace_qp_dev(qp));
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->psn = psn;
			   __entry->cause = cause;
			   __entry->left = retries_left;),
	    TP_printk("%s QP 0x%06x: resend from PSN 0x%06x, %s; %u retries left",
		      __get_str(dev), __entry->qpn, __entry->psn,
		      __print_symbolic(__entry->cause,
				       { SROCE_RESEND_TIMEOUT, "ACK timeout" },
				       { SROCE_RESEND_SEQ_NAK, "sequence NAK" },
				       { SROCE_RESEND_LOST_RESPONSE,
					 "a response lost" },
				       { SROCE_RESEND_RNR, "RNR wait over" }),
		      __entry->left)
);

DECLARE_EVENT_CLASS(sroce_nak_class,
		    TP_PROTO(const struct sroce_qp *qp, u32 psn, u8 syn),
		    TP_ARGS(qp, psn, syn),
		    TP_STRUCT__entry(__string(dev, sroce_trace_qp_dev(qp))
				     __field(u32, qpn)
				     __field(u32, psn)
				     __field(u8, syn)
				     __field(u8, kind)),
		    TP_fast_assign(sroce_assign_str(dev, sroce_trace_qp_dev(qp));
				   __entry->qpn = qp->ibqp.qp_num;
				   __entry->psn = psn;
				   __entry->syn = syn;
				   __entry->kind = sroce_trace_nak_kind(syn);),
		    TP_printk("%s QP 0x%06x: PSN 0x%06x, %s (syndrome 0x%02x)",
			      __get_str(dev), __entry->qpn, __entry->psn,
			      sroce_show_nak(__entry->kind), __entry->syn)
);

DEFINE_EVENT(sroce_nak_class, sroce_nak_sent,
	     TP_PROTO(const struct sroce_qp *qp, u32 psn, u8 syn),
	     TP_ARGS(qp, psn, syn));

DEFINE_EVENT(sroce_nak_class, sroce_nak_recv,
	     TP_PROTO(const struct sroce_qp *qp, u32 psn, u8 syn),
	     TP_ARGS(qp, psn, syn));

TRACE_EVENT(sroce_cnp_sent,
	    TP_PROTO(const struct sroce_qp *qp, u32 dqpn, u8 prio),
	    TP_ARGS(qp, dqpn, prio),
	    TP_STRUCT__entry(__string(dev, sroce_trace_qp_dev(qp))
			     __field(u32, qpn)
			     __field(u32, dqpn)
			     __field(u8, prio)),
	    TP_fast_assign(sroce_assign_str(dev, sroce_trace_qp_dev(qp));
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->dqpn = dqpn;
			   __entry->prio = prio;),
	    TP_printk("%s QP 0x%06x: CNP to QP 0x%06x, priority %u",
		      __get_str(dev), __entry->qpn, __entry->dqpn,
		      __entry->prio)
);

/* Under the QP's rp.lock: the reaction point's state is stable */
TRACE_EVENT(sroce_cnp_recv,
	    TP_PROTO(const struct sroce_qp *qp, bool handled),
	    TP_ARGS(qp, handled),
	    TP_STRUCT__entry(__string(dev, sroce_trace_qp_dev(qp))
			     __field(u32, qpn)
			     __field(u32, rate)
			     __field(u32, alpha)
			     __field(bool, handled)),
	    TP_fast_assign(sroce_assign_str(dev, sroce_trace_qp_dev(qp));
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->handled = handled;
			   __entry->rate = qp->rp.armed ?
				sroce_dcqcn_rp_rate_mbps(&qp->rp.st) : 0;
			   __entry->alpha = qp->rp.armed ?
				sroce_dcqcn_rp_alpha(&qp->rp.st) : 0;),
	    TP_printk("%s QP 0x%06x: CNP %s; rate %u Mb/s, alpha %u/1024",
		      __get_str(dev), __entry->qpn,
		      __entry->handled ? "handled" : "ignored", __entry->rate,
		      __entry->alpha)
);

TRACE_EVENT(sroce_pfc_rx,
	    TP_PROTO(const struct sroce_dev *sdev,
		     const struct sroce_pfc_frame *f, u8 honoured),
	    TP_ARGS(sdev, f, honoured),
	    TP_STRUCT__entry(__string(dev, sroce_trace_dev(sdev))
			     __array(u16, quanta, SROCE_NUM_PRIO)
			     __field(u8, enable)
			     __field(u8, honoured)),
	    TP_fast_assign(sroce_assign_str(dev, sroce_trace_dev(sdev));
			   memcpy(__entry->quanta, f->quanta,
				  sizeof(__entry->quanta));
			   __entry->enable = f->enable;
			   __entry->honoured = honoured;),
	    TP_printk("%s PFC frame: priorities 0x%02x, honoured 0x%02x, quanta %s",
		      __get_str(dev), __entry->enable, __entry->honoured,
		      __print_array(__entry->quanta, SROCE_NUM_PRIO,
				    sizeof(u16)))
);

TRACE_EVENT(sroce_tx_held,
	    TP_PROTO(const struct sroce_dev *sdev, u8 prio,
		     enum sroce_tx_hold why),
	    TP_ARGS(sdev, prio, why),
	    TP_STRUCT__entry(__string(dev, sroce_trace_dev(sdev))
			     __field(u8, prio)
			     __field(u8, why)),
	    TP_fast_assign(sroce_assign_str(dev, sroce_trace_dev(sdev));
			   __entry->prio = prio;
			   __entry->why = why;),
	    TP_printk("%s priority %u held back: %s", __get_str(dev),
		      __entry->prio,
		      __print_symbolic(__entry->why,
				       { SROCE_TX_HOLD_PAUSE, "PFC pause" },
				       { SROCE_TX_HOLD_STOPPED,
					 "netdev queue stopped" },
				       { SROCE_TX_HOLD_ROOM, "room full" },
				       { SROCE_TX_HOLD_DROPPED,
					 "backing off after a drop" }))
);

TRACE_EVENT(sroce_tx_fifo_full,
	    TP_PROTO(const struct sroce_dev *sdev, u8 prio, u8 fifo),
	    TP_ARGS(sdev, prio, fifo),
	    TP_STRUCT__entry(__string(dev, sroce_trace_dev(sdev))
			     __field(u8, prio)
			     __field(u8, fifo)),
	    TP_fast_assign(sroce_assign_str(dev, sroce_trace_dev(sdev));
			   __entry->prio = prio;
			   __entry->fifo = fifo;),
	    TP_printk("%s priority %u FIFO %u full: a QP waits for room",
		      __get_str(dev), __entry->prio, __entry->fifo)
);

#endif /* SROCE_TRACE_H */

/* define_trace.h finds this file as "sroce/trace.h", under -I include */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH sroce
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
