/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs and the transport that runs them.
 *
 * The contract between the files of the data path:
 *
 *   qp.c    verbs (create/modify/query/destroy, post_send/post_recv), the
 *           QPN table, the state machine, flushing
 *   srq.c   shared receive queues
 *   req.c   requester: send WQEs -> request packets
 *   comp.c  completer: ACKs / READ responses / atomic ACKs -> send
 *           completions, retransmit and RNR timers
 *   resp.c  responder: request packets -> memory, receive completions,
 *           ACKs, NAKs, READ responses, atomic replies
 *
 * Locking.  qp->sq_lock (taken with spin_lock_bh) covers the send queue,
 * the requester and the completer state; qp->resp.lock (spin_lock_bh)
 * covers the responder state and the receive queue consumer.  They nest
 * sq_lock -> resp.lock only in qp.c (state changes); the transport never
 * takes both.  sroce_cq_post() may call the consumer's completion handler,
 * which may post to this very QP: never call it with sq_lock, resp.lock,
 * rq_lock or an SRQ lock held (collect the ib_wc, unlock, then post).
 * qp->state is written under both locks and read under either (or with
 * READ_ONCE for a hint).  The requester drops sq_lock to hand the packets
 * it built to the tx layer; req.running keeps any other context from
 * running it meanwhile, and sroce_comp_stop() waits for it.  The packets
 * are committed before (req.psn and psn_hi moved, WQEs SENT), so the
 * completer may see as sent what is not queued yet: an ACK for them
 * cannot come before they leave, and a rewind only resends.
 *
 * Ownership.  Each file owns its part of struct sroce_qp (req.c/comp.c
 * struct sroce_req and struct sroce_comp, resp.c struct sroce_resp and
 * struct sroce_rd_res, qp.c the rest) and may add members there.
 *
 * Context.  Received packets are handled in softirq (resp.c, comp.c).
 * The requester runs from sroce_req_kick(): inline in the poster's context
 * (or the softirq of the ACK that opened the window) for a bounded number
 * of packets, then from qp->req_work; a kick while it runs elsewhere is
 * left to that run.
 */
#ifndef SROCE_TRANSPORT_H
#define SROCE_TRANSPORT_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/ah.h>
#include <sroce/hdr.h>
#include <sroce/queue.h>
#include <sroce/rp.h>
#include <sroce/tx.h>
#include <sroce/txsched.h>
#include <sroce/verbs.h>

struct sk_buff;
struct sroce_bytes;
struct sroce_dev;
struct sroce_pkt;
struct sroce_srq;

/* Requester: packets a QP may have unacknowledged before it waits */
#define SROCE_MAX_UNACKED_PSNS	128
/*
 * User SQ: WQEs the kernel holds copies of at once (fetched, not yet
 * retired), at most.  As many as the RC PSN window, which stops
 * one-packet RC messages first (but for a moment while CQEs are posted);
 * UC and UD WQEs retire right after the run that sent them.  The window
 * starts in the QP itself (SROCE_SQ_COPIES_EMBED bytes: two one-SGE
 * WQEs, as much as request/response traffic keeps in flight), or at what
 * fits SROCE_SQ_COPIES_FIRST bytes for WQEs that do not fit there, and
 * grows to this as the QP uses it.
 */
#define SROCE_SQ_COPIES		128
#define SROCE_SQ_COPIES_FIRST	512
/* Requester asks for an ACK at least this often within a message */
#define SROCE_ACKREQ_INTERVAL	64
/* Requester packets built per sroce_req_kick() before it yields */
#define SROCE_REQ_BUDGET	64
/* Requester packets built under sq_lock before they are sent without it */
#define SROCE_REQ_BATCH		8

/* Progress of a send WQE, kernel-owned (struct sroce_swqe.state) */
enum sroce_wqe_state {
	SROCE_WQE_POSTED,	/* not yet looked at by the requester */
	SROCE_WQE_SENDING,	/* some packets built */
	SROCE_WQE_SENT,		/* all packets built, waiting for the ACK */
	SROCE_WQE_DONE,		/* completed (or flushed) */
};

/**
 * struct sroce_swqe - the kernel's copy of a send work request
 *
 * Kernel QPs write these directly in post_send.  For user QPs the
 * requester copies the librxe struct rxe_send_wqe out of the mmapped ring
 * into this slot once (sroce_sq_fetch()) and validates it; nothing is read
 * from the user ring afterwards.
 *
 * @wr_id: returned in the completion
 * @opcode: IB_WR_*
 * @send_flags: IB_SEND_*
 * @ex: immediate data (big endian, as posted) or the rkey to invalidate
 * @length: total bytes of the message (sum of SGEs, or inline length)
 * @rdma: RDMA WRITE/READ and ATOMIC WRITE target; @rdma.value holds the
 *	8 bytes an ATOMIC WRITE stores, as posted
 * @atomic: ATOMIC target and operands
 * @ud: UD destination; @ud.ah is referenced (sroce_ah_get) while posted
 * @reg: IB_WR_REG_MR: the MR (kernel QPs only), new key and access
 * @bind: IB_WR_BIND_MW (user QPs only): the window's current and new
 *	rkey, the MR by its lkey, and the range and access to grant
 * @num_sge: SGEs in @sge (0 for inline)
 * @state: enum sroce_wqe_state
 * @status: IB_WC_* the WQE completes with (both fit a byte, which keeps a
 *	one-SGE WQE with librxe's 48 bytes of inline data at 128)
 * @ssn: send sequence number (for the completer)
 * @first_psn: PSN of its first packet (valid once SENDING)
 * @last_psn: PSN of its last packet (for READ: of the last response)
 * @rd_atomic: occupies one of the QP's max_rd_atomic slots
 * @acked: bytes of a READ already placed, for retries
 * @fetched: the slot holds a complete kernel copy (posted by a kernel
 *	consumer, or copied by sroce_sq_fetch()) whose references are
 *	released when it is retired (qp.c)
 * @sge: the scatter/gather list, checked against the QP's max_send_sge
 * @inline_data: or the message copied at post time (IB_SEND_INLINE)
 *
 * The tail (@sge or @inline_data) is as long as the QP's slots allow
 * (qp->swqe_stride), and part of the slot: a slot copied whole is whole.
 */
struct sroce_swqe {
	u64 wr_id;
	u32 opcode;
	u32 send_flags;
	u32 ex;
	u32 length;
	union {
		struct {
			u64 remote_addr;
			u32 rkey;
			u8 value[8];
		} rdma;
		struct {
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {
			u32 remote_qpn;
			u32 remote_qkey;
			struct sroce_ah *ah;
		} ud;
		struct {
			struct sroce_mr *mr;
			u32 key;
			u32 access;
		} reg;
		struct {
			u64 addr;
			u64 length;
			u32 mr_lkey;
			u32 mw_rkey;
			u32 rkey;
			u32 access;
		} bind;
	} wr;
	u32 num_sge;

	u32 ssn;
	u32 first_psn;
	u32 last_psn;
	u32 acked;
	u8 state;
	u8 status;
	bool rd_atomic;
	bool fetched;
	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/**
 * struct sroce_rwqe - the responder's copy of a receive work request
 * @wr_id: returned in the completion
 * @num_sge: SGEs in @sge
 * @length: sum of the SGE lengths (bounded by SROCE_MAX_MSG_SIZE)
 * @sge: scatter list, as many entries as the ring it comes from allows
 *	(the QP's max_recv_sge or the SRQ's max_sge)
 */
struct sroce_rwqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;
	struct ib_sge sge[];
};

/**
 * struct sroce_rd_res - a responder resource: one READ or ATOMIC served,
 *	kept to answer a duplicate of it (resp.c, under resp.lock)
 * @valid: holds a request
 * @atomic: ATOMIC (else READ)
 * @queued: on resp.tx_list: responses still to be sent
 * @counted: a new request not yet fully answered, which holds one of
 *	max_dest_rd_atomic (a replay for a duplicate does not)
 * @mid: the next READ response continues a sequence (MIDDLE/LAST rather
 *	than FIRST/ONLY)
 * @first_psn: PSN of the request
 * @last_psn: PSN of its last response packet
 * @va: READ: first byte; ATOMIC: target
 * @rkey: as requested
 * @length: READ length
 * @orig: ATOMIC: the value returned the first time
 * @msn: MSN its responses carry
 * @cur_psn: PSN of the next response to send
 * @cur_va: READ: next byte to send
 * @resid: READ: bytes still to send
 * @tx_entry: on resp.tx_list while @queued
 */
struct sroce_rd_res {
	bool valid;
	bool atomic;
	bool queued;
	bool counted;
	bool mid;
	u32 first_psn;
	u32 last_psn;
	u64 va;
	u32 rkey;
	u32 length;
	u64 orig;
	u32 msn;
	u32 cur_psn;
	u64 cur_va;
	u32 resid;
	struct list_head tx_entry;
};

/**
 * struct sroce_req - requester state (under qp->sq_lock)
 * @wqe_index: next SQ slot to send from
 * @fetch_index: next SQ slot the requester has not taken; slots from
 *	qp->sq_cons up to here have begun (or failed) and are in flight
 * @next_fetched: the WQE at @fetch_index went through sroce_sq_fetch() but
 *	has not begun (it waits for a fence or a READ/ATOMIC slot)
 * @psn: PSN of the next request packet
 * @psn_hi: the PSN after the highest one ever sent (a rewind moves @psn back,
 *	not this): ACKs beyond it are bogus, packets before it are resends
 * @offset: bytes of the WQE at @wqe_index already sent
 * @opcode: opcode of the last packet sent (-1 when none), for FIRST/MIDDLE
 *	/LAST chains
 * @ssn: next send sequence number
 * @rd_atomic: READ/ATOMIC WQEs in flight (held to qp->attr max_rd_atomic)
 * @pkts_since_ackreq: packets since the last one with AckReq set
 * @fence_wait: stopped at a fenced WQE until the READs/ATOMICs before it
 *	complete
 * @tx_blocked: stopped because the transmit queue was full, @waiter
 *	armed; also set while a batch is being handed over (req_flush())
 * @copies_wait: stopped because every WQE copy of a user QP is in use;
 *	the completer kicks once it retires one
 * @copies_grow: the window of copies may grow: req_work grows it
 *	(sroce_sq_grow_copies()) before it runs the requester
 * @running: a context runs the requester; it may be handing packets to
 *	the transmit queues with sq_lock dropped (req.c, req_flush())
 * @again: a kick came while @running: the runner looks at the SQ again
 * @epoch: counts sroce_req_init() calls, so that a runner that dropped
 *	sq_lock sees a reset that happened meanwhile
 * @waiter: how the tx layer wakes us
 * @delay_timer: retries a requester that found no memory for a packet
 * @retransmits: request packets sent again since RESET (rdma resource)
 */
struct sroce_req {
	u32 wqe_index;
	u32 fetch_index;
	bool next_fetched;
	u32 psn;
	u32 psn_hi;
	u32 offset;
	int opcode;
	u32 ssn;
	u32 rd_atomic;
	u32 pkts_since_ackreq;
	bool fence_wait;
	bool tx_blocked;
	bool copies_wait;
	bool copies_grow;
	bool running;
	bool again;
	u32 epoch;
	struct sroce_tx_waiter waiter;
	struct timer_list delay_timer;
	u32 retransmits;
};

/**
 * struct sroce_comp - completer state (under qp->sq_lock)
 * @psn: oldest PSN not yet acknowledged
 * @retry_cnt: retries left for this stretch without progress
 * @rnr_retry: RNR retries left (7 = infinite, never decremented)
 * @retrans_timer: local ACK timeout, armed while requests are unacked
 * @rnr_timer: RNR back-off before resending
 * @rnr_wait: waiting for @rnr_timer; the requester sends nothing
 * @seq_retried: a sequence error already rewound to @seq_retry_psn; more
 *	reports of the same gap are ignored until progress
 * @seq_retry_psn: see @seq_retried
 * @probe: a local ACK timeout rewound the requester; until progress it
 *	sends only the packet at @psn (comp.c, comp_timeout_resend())
 * @backoff: the local ACK timeout is doubled this many times (0 to 2)
 *	after timeouts without progress
 * @ackreq_mark: where the last request with AckReq stands in the transmit
 *	queues (struct sroce_tx_waiter @mark)
 * @ackreq_queue: its transmit FIFO (@mark_queue there)
 * @ackreq_end: the PSN after the furthest request sent with AckReq; while
 *	it is not beyond @psn, no request sent asked for an answer yet
 * @delivering: one context is posting send completions outside sq_lock;
 *	others leave theirs to it, which keeps the CQEs in SQ order
 * @ack_timeouts: local ACK timeouts since RESET (rdma resource)
 */
struct sroce_comp {
	u32 psn;
	u8 retry_cnt;
	u8 rnr_retry;
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
	bool rnr_wait;
	bool seq_retried;
	u32 seq_retry_psn;
	bool probe;
	u8 backoff;
	bool delivering;
	u64 ackreq_mark;
	u16 ackreq_queue;
	u32 ackreq_end;
	u32 ack_timeouts;
};

/**
 * struct sroce_resp - responder state (under @lock; resp.c)
 * @lock: see the locking rules at the top of this file
 * @psn: expected PSN of the next new request (ePSN); qp.c sets it from
 *	IB_QP_RQ_PSN
 * @msn: message sequence number, in every ACK
 * @opcode: opcode of the last packet of the message in progress, -1
 *	between messages
 * @wqe: receive WQE of the message in progress
 * @have_wqe: @wqe holds a WQE taken from the RQ/SRQ
 * @sge_idx: SGE of @wqe the next byte of a SEND goes to
 * @sge_off: offset in that SGE
 * @offset: bytes of the current SEND or WRITE message placed so far
 * @write_va: next byte the current RDMA WRITE places
 * @write_rkey: rkey of the current RDMA WRITE (looked up per packet)
 * @write_len: bytes the RETH announced
 * @nak_sent: a PSN sequence error NAK (or an RNR NAK) was sent for the
 *	current gap
 * @failed: a fatal error was found; packets are dropped until the QP is
 *	in the error state and reset
 * @stopping: sroce_resp_cleanup() has begun: @tx_work sends nothing
 * @rd_res: responder resources (RC only), a ring of @rd_res_num
 * @rd_res_num: entries in @rd_res: the largest max_dest_rd_atomic set, 0
 *	before any; max_dest_rd_atomic limits how many may be unanswered (a
 *	lowered one: the rest answer duplicates)
 * @rd_res_next: ring slot of the next new resource
 * @rd_pending: resources queued that are @counted
 * @tx_list: resources with responses to send, in the order they go out
 * @tx_psn: PSN of the last response the generator sent
 * @tx_psn_valid: @tx_psn is set
 * @ack_owed: an ACK or NAK waits for @tx_list to drain
 * @ack_syn: its AETH syndrome
 * @ack_psn: its PSN
 * @ack_msn: its MSN
 * @tx_blocked: the transmit queue pushed back; @waiter is armed
 * @waiter: how the tx layer wakes @tx_work
 * @tx_work: sends the responses not sent inline from softirq
 */
struct sroce_resp {
	spinlock_t lock;	/* see @lock above */
	u32 psn;
	u32 msn;
	int opcode;
	struct sroce_rwqe *wqe;
	bool have_wqe;
	u32 sge_idx;
	u32 sge_off;
	u32 offset;
	u64 write_va;
	u32 write_rkey;
	u32 write_len;
	bool nak_sent;
	bool failed;
	bool stopping;
	struct sroce_rd_res *rd_res;
	u32 rd_res_num;
	u32 rd_res_next;
	u32 rd_pending;
	struct list_head tx_list;
	u32 tx_psn;
	bool tx_psn_valid;
	bool ack_owed;
	u8 ack_syn;
	u32 ack_psn;
	u32 ack_msn;
	bool tx_blocked;
	struct sroce_tx_waiter waiter;
	struct work_struct tx_work;
};

/**
 * struct sroce_qp_ref - what the QPN table holds for a QP
 * @node: in the device's QPN table
 * @qpn: the key
 * @count: the QP's references (struct sroce_qp's @ref)
 * @qp: the QP once it is complete (NULL while its number is only
 *	reserved), valid while @count is not zero
 * @rcu: frees this after a grace period
 *
 * A received packet finds its QP under RCU alone.  ib_core frees a QP as
 * soon as destroy_qp returns, without a grace period, so the table holds
 * this small object instead, which outlives its QP by one: a lookup that
 * loaded it before destroy_qp removed it may still read @count, and
 * finds it zero.
 */
struct sroce_qp_ref {
	struct rhash_head node;
	u32 qpn;
	refcount_t count;
	struct sroce_qp __rcu *qp;
	struct rcu_head rcu;
};

/**
 * struct sroce_qp - a queue pair
 * @ibqp: ib_core's part (first)
 * @sdev: the device
 * @pd: protection domain
 * @scq: send CQ
 * @rcq: receive CQ
 * @srq: shared receive queue, or NULL
 * @type: IB_QPT_RC, _UC, _UD or _GSI
 * @user: created by a user process (rings are mmapped)
 * @sig_all: every send WQE completes (IB_SIGNAL_ALL_WR)
 * @block_mcast_lb: UD only: its multicasts are not looped back to itself
 *	(IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK)
 * @ref: the QP's entry in the QPN table, and its references: one for the
 *	table plus one per sroce_qp_get()
 * @done: completed when the last reference goes
 * @dead: destroy_qp has begun: no new work is started
 * @state: IB_QPS_*; see the locking rules
 * @attr: the attributes last set by modify_qp (and defaults), the
 *	transport reads timeout, retry_cnt, rnr_retry, min_rnr_timer,
 *	max_rd_atomic, max_dest_rd_atomic, qp_access_flags, qkey, dest_qp_num,
 *	path_mtu from here
 * @mtu: path MTU in bytes (from attr.path_mtu; 256 for UD/GSI is not
 *	used: they use the port's active MTU)
 * @av: primary path (RC/UC), valid once modify_qp set IB_QP_AV
 * @sport: UDP source port for RoCEv2 (rdma_get_udp_sport of the flow
 *	label or of the QPNs)
 * @tx_flow: its transmit FIFO in each priority (sroce_tx_flow_pick())
 * @sq_lock: see the locking rules
 * @sq: user ring of struct rxe_send_wqe (user QPs only)
 * @swqe: the kernel's send WQEs, @swqe_stride bytes apart: for a kernel QP
 *	the SQ itself, one per slot; for a user QP the copies of the WQEs
 *	the requester fetched and the completer has not retired, slot
 *	index & @swqe_mask (at most %SROCE_SQ_COPIES, see req.c); replaced
 *	under sq_lock when it grows (sroce_sq_grow_copies())
 * @swqe_stride: bytes per entry of @swqe (struct + SGE/inline area)
 * @swqe_mask: entries of @swqe, less one (a power of two)
 * @swqe_max_mask: what @swqe_mask may grow to
 * @sq_mask: SQ slots - 1 (same ring geometry as @sq for user QPs)
 * @sq_prod: next free slot (kernel QPs; user QPs read @sq's producer)
 * @sq_cons: oldest slot not yet completed
 * @max_send_sge: SGEs per send WQE
 * @max_inline: inline bytes per send WQE
 * @max_send_wr: depth of the SQ
 * @rq: ring of struct rxe_recv_wqe (when there is no SRQ)
 * @rq_lock: serialises the RQ's kernel producer (post_recv) with its
 *	consumer; innermost, inside resp.lock; qp->state is also written
 *	under it, so a poster sees either the old state or the flush
 * @max_recv_sge: SGEs per receive WQE
 * @max_recv_wr: depth of the RQ (0 with an SRQ)
 * @req: requester state
 * @comp: completer state
 * @resp: responder state
 * @req_work: runs the requester when it is not run inline
 * @sq_drained_sent: IB_EVENT_SQ_DRAINED was delivered for the current SQD
 * @drain_work: delivers IB_EVENT_SQ_DRAINED outside sq_lock
 * @mod_lock: serialises modify_qp calls
 * @unplug_entry: on the list of user QPs sroce_qps_flush_user() errors
 *	(empty otherwise)
 * @sq_flushing: one context is flushing the SQ (under sq_lock); others
 *	leave their WQEs to it, so flush completions keep their order.  The
 *	flush does not start while comp.delivering is set (it retries from
 *	@flush_work), and the completer must not pop WQEs while this is set:
 *	the flush completes WQEs already DONE with their own status
 * @rq_flushing: the same for the RQ (under resp.lock)
 * @flush_work: retries an SQ flush that found the completer delivering
 * @np_last_cnp_ns: when this QP last sent a CNP, 0 if never (cnp.c; set
 *	without a lock, by compare and exchange)
 * @rp: its DCQCN reaction point (rp.c), under its own lock
 * @swqe_embed: a user QP's first copies when they fit (@swqe points here
 *	until the window grows): SROCE_SQ_COPIES_EMBED bytes past the
 *	struct, in what the QP leaves of its kmalloc class
 */
struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_dev *sdev;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	struct sroce_srq *srq;
	enum ib_qp_type type;
	bool user;
	bool sig_all;
	bool block_mcast_lb;
	struct sroce_qp_ref *ref;
	struct completion done;
	bool dead;

	enum ib_qp_state state;
	struct ib_qp_attr attr;
	u32 mtu;
	struct sroce_av av;
	u16 sport;
	u8 tx_flow;

	spinlock_t sq_lock;	/* see the locking rules */
	struct sroce_queue sq;
	void *swqe;
	size_t swqe_stride;
	u32 swqe_mask;
	u32 swqe_max_mask;
	u32 sq_mask;
	u32 sq_prod;
	u32 sq_cons;
	u32 max_send_sge;
	u32 max_inline;
	u32 max_send_wr;

	struct sroce_queue rq;
	spinlock_t rq_lock;	/* see @rq_lock above */
	u32 max_recv_sge;
	u32 max_recv_wr;

	struct sroce_req req;
	struct sroce_comp comp;
	struct sroce_resp resp;
	struct work_struct req_work;
	bool sq_drained_sent;
	struct work_struct drain_work;
	struct mutex mod_lock;	/* see @mod_lock above */
	struct list_head unplug_entry;
	bool sq_flushing;
	bool rq_flushing;
	struct delayed_work flush_work;
	atomic64_t np_last_cnp_ns;
	struct sroce_qp_rp rp;
	u8 swqe_embed[] __aligned(__alignof__(struct sroce_swqe));
};

/*
 * ib_core allocates a QP with kzalloc() (size_ib_qp): above 1 KiB,
 * kmalloc rounds up to a power of two.  What struct sroce_qp leaves of
 * that, at most SROCE_SQ_COPIES_EMBED_MAX bytes, is allocated with it
 * as @swqe_embed: the first WQE copies cost nothing there.  256 bytes on
 * x86_64; less, or none, where locks are larger (PREEMPT_RT), and the QP
 * never moves to a larger class for them.
 */
#define SROCE_SQ_COPIES_EMBED_MAX	256
#define SROCE_QP_SLACK	(roundup_pow_of_two(sizeof(struct sroce_qp)) - \
			 sizeof(struct sroce_qp))
#define SROCE_SQ_COPIES_EMBED						\
	MIN_T(size_t, SROCE_QP_SLACK &					\
		      ~(size_t)(__alignof__(struct sroce_swqe) - 1),	\
	      SROCE_SQ_COPIES_EMBED_MAX)
#define SROCE_QP_OBJ_SIZE	(sizeof(struct sroce_qp) + SROCE_SQ_COPIES_EMBED)

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

static inline struct sroce_swqe *sroce_sq_wqe(const struct sroce_qp *qp,
					      u32 index)
{
	return (struct sroce_swqe *)((u8 *)qp->swqe +
				     (size_t)(index & qp->swqe_mask) *
				     qp->swqe_stride);
}

static inline bool sroce_qp_is_rc(const struct sroce_qp *qp)
{
	return qp->type == IB_QPT_RC;
}

static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI;
}

/* The Q_Key a UD QP accepts, and sends with when a WR asks for its own */
static inline u32 sroce_qp_qkey(const struct sroce_qp *qp)
{
	return qp->type == IB_QPT_GSI ? SROCE_GSI_QKEY : READ_ONCE(qp->attr.qkey);
}

/* The DETH Q_Key of a UD send: a WR Q_Key with the high bit set means the QP's */
static inline u32 sroce_ud_send_qkey(const struct sroce_qp *qp, u32 wr_qkey)
{
	return wr_qkey & BIT(31) ? sroce_qp_qkey(qp) : wr_qkey;
}

/*
 * The largest payload of a UD packet, its "path MTU": the largest IB MTU
 * that fits a netdev MTU of @ndev_mtu bytes with the longest RoCE headers
 * (iboe_get_mtu()), and at least 256.
 */
static inline enum ib_mtu sroce_ud_mtu(int ndev_mtu)
{
	enum ib_mtu mtu = iboe_get_mtu(ndev_mtu);

	return mtu ? mtu : IB_MTU_256;
}

/* --- qp.c ---------------------------------------------------------------- */
extern const struct ib_device_ops sroce_qp_ops;

/* The device's QPN table: set up before any QP, torn down after the last */
int sroce_qp_table_init(struct sroce_dev *sdev);
void sroce_qp_table_fini(struct sroce_dev *sdev);

/* QP @qpn with a reference, or NULL; any context (see qp.c) */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);

/* Double a user QP's window of WQE copies; process context, no QP lock */
void sroce_sq_grow_copies(struct sroce_qp *qp);

/*
 * Receive rings (RQ and SRQ alike) of struct rxe_recv_wqe: a kernel
 * consumer's post, and the responder's copy-then-check take (same returns
 * as sroce_rq_take()).  The caller holds the lock that serialises @q.
 */
int sroce_recv_wqe_post(struct sroce_queue *q, u32 max_sge,
			const struct ib_recv_wr *wr);
int sroce_recv_wqe_take(struct sroce_queue *q, u32 max_sge,
			struct sroce_rwqe *wqe);

/*
 * Move @qp to IB_QPS_ERR from the transport (fatal completion error,
 * bad user WQE, retry exhausted) and flush both queues with
 * IB_WC_WR_FLUSH_ERR completions.  Takes sq_lock and resp.lock itself:
 * call with none of the QP's locks held (any context but hardirq).
 * Raises IB_EVENT_QP_FATAL when @event.
 */
void sroce_qp_error(struct sroce_qp *qp, bool event);

/* Every user QP of @sdev to ERR, as its device goes (unplug.c) */
void sroce_qps_flush_user(struct sroce_dev *sdev);
/* An asynchronous event of @qp to its consumer */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);
/* Complete what is left on a queue of a QP in ERR (sq.c and rq.c post) */
void sroce_flush_sq(struct sroce_qp *qp);
void sroce_flush_rq(struct sroce_qp *qp);

/* --- sq.c ---------------------------------------------------------------- */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
/*
 * The SQ's producer: slots before it hold posted WQEs.  For user QPs it
 * is read (masked) from the ring.
 */
u32 sroce_sq_prod(struct sroce_qp *qp);
/*
 * Make the swqe at @index valid: for user QPs copy and check the ring's
 * struct rxe_send_wqe (taking the UD AH reference).  Called by the
 * requester once per WQE, under sq_lock.  Returns 0 or an IB_WC_* error
 * status (> 0) the WQE must complete with.
 */
int sroce_sq_fetch(struct sroce_qp *qp, u32 index);
/*
 * Retire the oldest SQ slot (sq_cons): drop the swqe's references (UD AH,
 * REG_MR MR) and, for user QPs, advance the ring's consumer index.
 * Under sq_lock.
 */
void sroce_sq_retire(struct sroce_qp *qp);
/* Start a slot afresh; its tail (SGEs or inline data) is filled after */
void sroce_swqe_reset(struct sroce_swqe *wqe, u64 wr_id, u32 opcode,
		      u32 send_flags);
/* Drop what a slot holds (a user UD AH, a REG_MR MR) */
void sroce_swqe_release(struct sroce_qp *qp, struct sroce_swqe *wqe);
/* Sum of @n SGE lengths into *@len, or -EINVAL when above @max */
int sroce_sge_len(const struct ib_sge *sge, u32 n, u32 max, u32 *len);
/* Every WQE fetched has been retired */
bool sroce_sq_drained(const struct sroce_qp *qp);
/* qp->drain_work: IB_EVENT_SQ_DRAINED for a QP still in SQD */
void sroce_qp_drain_work(struct work_struct *work);
/*
 * Fill @wc for send WQE @wqe completing with @status (wr_id, opcode,
 * byte_len, qp).  Returns false when no CQE is due (a successful unsignaled
 * WQE).  The caller posts @wc to qp->scq after dropping its locks.
 */
bool sroce_sq_wc(const struct sroce_qp *qp, const struct sroce_swqe *wqe,
		 enum ib_wc_status status, struct ib_wc *wc);

/* --- rq.c ---------------------------------------------------------------- */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
/*
 * Take the next receive WQE of @qp (its RQ or SRQ) into @wqe.  Called by
 * the responder under resp.lock.  Returns 0, -EAGAIN when the queue is
 * empty (RNR), or -EINVAL for a malformed user WQE (the QP goes to error).
 * A malformed WQE is consumed all the same, with @wqe->wr_id set and no
 * SGEs, so that it can be completed with an error status.
 * Raises IB_EVENT_SRQ_LIMIT_REACHED when an armed SRQ falls below its limit.
 */
int sroce_rq_take(struct sroce_qp *qp, struct sroce_rwqe *wqe);

/* --- req.c --------------------------------------------------------------- */
/* Make the requester look at the SQ (new WQEs, ACK progress, wake-ups) */
void sroce_req_kick(struct sroce_qp *qp);
void sroce_req_work(struct work_struct *work);
/*
 * Reset the requester: at create (also sets up req_work, the tx waiter and
 * the requester's timer) and when the QP enters RESET, with the SQ empty.
 * Under sq_lock, or before the QP is reachable.
 */
void sroce_req_init(struct sroce_qp *qp);
/*
 * modify_qp set IB_QP_SQ_PSN (RTR->RTS, SQD->RTS): requests start at @psn.
 * Also reloads the completer's retry counters from qp->attr.  Under
 * sq_lock, with no request outstanding.
 */
void sroce_req_set_psn(struct sroce_qp *qp, u32 psn);
/* Rewind to the oldest unacknowledged WQE (timeout, NAK); under sq_lock */
void sroce_req_rewind(struct sroce_qp *qp);
/*
 * The completer retired WQEs: true if the requester waited for a WQE copy
 * and must be kicked (once the caller dropped sq_lock).  Under sq_lock.
 */
bool sroce_req_copies_freed(struct sroce_qp *qp);
/*
 * Copy @len bytes at @offset of @wqe's message between @b (pktbuf.h) and
 * the WQE's SGEs or inline data (@to_wqe: into them).  *@mrp caches the
 * last MR looked up for one direction (start with NULL, sroce_mr_put()
 * when done).  Returns 0 or the IB_WC_* error status.
 */
int sroce_wqe_copy(struct sroce_qp *qp, const struct sroce_swqe *wqe,
		   u32 offset, struct sroce_bytes *b, u32 len, bool to_wqe,
		   struct sroce_mr **mrp);

/* Local operations: executed by the requester, no packet, no PSN */
static inline bool sroce_wqe_is_local(const struct sroce_swqe *wqe)
{
	return wqe->opcode == IB_WR_REG_MR || wqe->opcode == IB_WR_LOCAL_INV ||
	       wqe->opcode == IB_WR_BIND_MW;
}

/* Operations that take one of the initiator's max_rd_atomic slots */
static inline bool sroce_wqe_is_rd_atomic(const struct sroce_swqe *wqe)
{
	return wqe->opcode == IB_WR_RDMA_READ ||
	       wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* The WQE completes only once the responder acknowledged its PSNs */
static inline bool sroce_wqe_needs_ack(const struct sroce_qp *qp,
				       const struct sroce_swqe *wqe)
{
	return sroce_qp_is_rc(qp) && !sroce_wqe_is_local(wqe);
}

/* Payload bytes per packet: qp->mtu held to the IB MTUs */
static inline u32 sroce_qp_mtu(const struct sroce_qp *qp)
{
	return clamp(qp->mtu, 256U, 4096U);
}

/* --- comp.c -------------------------------------------------------------- */
/* Set up the completer's timers (create) or reset it (RESET); see req_init */
void sroce_comp_init(struct sroce_qp *qp);
/*
 * Stop the transport of a QP being destroyed, for good: the completer's
 * and the requester's timers, the tx wait and req_work.  Call after setting
 * qp->dead; may sleep.
 */
void sroce_comp_stop(struct sroce_qp *qp);
/* An ACKNOWLEDGE, READ RESPONSE or ATOMIC ACKNOWLEDGE for @qp (softirq) */
void sroce_comp_rcv(struct sroce_qp *qp, const void *nh,
		    const struct sroce_pkt *pkt);
/* The requester sent a request with AckReq: (re)arm the ACK timer */
void sroce_comp_arm(struct sroce_qp *qp, u32 end, u64 mark, u16 mark_queue);
/*
 * Complete the send WQEs that are done, in SQ order, and post their CQEs;
 * after a failed one, move the QP to error.  Takes sq_lock: call unlocked.
 * True when the requester waited for the WQE copies that freed.
 */
bool sroce_comp_run(struct sroce_qp *qp);

/* --- resp.c and respgen.c: the responder -------------------------------- */

/* States in which the receive side works (IBTA 10.3.1) */
static inline bool sroce_resp_state_ok(const struct sroce_qp *qp)
{
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
		return true;
	default:
		return false;
	}
}

/* The path MTU held to the IB MTUs, so no division by it can fault */
static inline u32 sroce_resp_mtu(const struct sroce_qp *qp)
{
	return clamp(READ_ONCE(qp->mtu), 256U, 4096U);
}

/* The syndrome of an ACK: no end-to-end credits ("invalid", as rxe sends) */
static inline u8 sroce_resp_syn_ack(void)
{
	return sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID);
}

/*
 * At create, type, sdev and the RQ or SRQ set (the receive WQE it holds is
 * sized by their SGEs); 0 or -ENOMEM; cleanup is safe after both
 */
int sroce_resp_init(struct sroce_qp *qp);
/* Continue queued responses from resp.tx_work (the pace timer's kick) */
void sroce_resp_kick(struct sroce_qp *qp);
/* Stop the response work and tx wait, free the resources; may sleep */
void sroce_resp_cleanup(struct sroce_qp *qp);
/*
 * modify_qp of max_dest_rd_atomic (RC): a larger ring, allocated before the
 * locks, then swapped in under them (the old one comes back to be freed)
 */
struct sroce_rd_res *sroce_resp_res_alloc(struct sroce_qp *qp, u32 max_dest,
					  u32 *num);
void sroce_resp_res_swap(struct sroce_qp *qp, struct sroce_rd_res **ring,
			 u32 num);
/* Modify to RESET: forget all responder state; under resp.lock */
void sroce_resp_reset(struct sroce_qp *qp);
/*
 * Flush on error: hand over the receive WQE a partial message holds (its
 * wr_id), to be flushed before those still queued.  Under resp.lock.
 */
bool sroce_resp_release_wqe(struct sroce_qp *qp, u64 *wr_id);
/* A request packet for @qp (softirq) */
void sroce_resp_rcv(struct sroce_qp *qp, const void *nh,
		    const struct sroce_pkt *pkt);

/*
 * respgen.c, for resp.c; all under resp.lock.  An ACK, RNR NAK or NAK
 * (@syn) now, or, from sroce_resp_ack(), behind the responses queued.
 */
void sroce_resp_send_ack(struct sroce_qp *qp, u8 syn, u32 psn, u32 msn);
void sroce_resp_ack(struct sroce_qp *qp, u8 syn, u32 psn);
/* The slot for a new READ or ATOMIC, the oldest of the ring */
struct sroce_rd_res *sroce_resp_res_new(struct sroce_qp *qp);
/* The resource covering @psn (a duplicate READ or ATOMIC), or NULL */
struct sroce_rd_res *sroce_resp_res_find(struct sroce_qp *qp, u32 psn);
/*
 * Queue @res's responses behind those queued; @counted: a new request,
 * which holds one of max_dest_rd_atomic until they are out
 */
void sroce_resp_res_queue(struct sroce_qp *qp, struct sroce_rd_res *res,
			  bool counted);
/* Another READ or ATOMIC may be accepted (max_dest_rd_atomic) */
bool sroce_resp_rd_room(const struct sroce_qp *qp);
/* Drop every queued response; a requester that misses them retries */
void sroce_resp_tx_abandon(struct sroce_qp *qp);
int sroce_resp_tx_kick(struct sroce_qp *qp);
/* Let resp.tx_work continue the responses; any context */
void sroce_resp_queue_work(struct sroce_qp *qp);
/* At create, before anything can queue a response */
void sroce_resp_tx_init(struct sroce_qp *qp);

#endif /* SROCE_TRANSPORT_H */
