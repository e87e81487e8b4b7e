// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: the per-priority transmit queues and their way to the netdev.
 *
 * sroce_tx_send() finishes a packet of sroce_tx_alloc() (txbuild.c: ICRC,
 * UDP checksum, PCP) and appends it to a FIFO of its priority: each priority
 * has SROCE_TX_FLOWS of them, and the QP that sends it has one of them
 * (sroce_tx_flow_pick()), so a QP's packets keep their order and QPs
 * created less than SROCE_TX_FLOWS apart never share one.
 *
 * Transmit contexts.  A device has one per netdev transmit queue, as many
 * as there are CPUs, and under mqprio contexts of its own for each
 * traffic class (sroce_tx_ctx_count()), each with its own lock, FIFOs,
 * scheduler, pause clock and retry timer (struct sroce_tx); a packet goes
 * to the context its netdev queue belongs to (sroce_tx_ctx_of()), so QPs
 * whose flows hash to different queues, and different traffic classes,
 * are sent from different CPUs at once with nothing shared, and a flow
 * keeps its order.  The ETS between priorities, and the CNPs' precedence,
 * are applied inside each context; between contexts the netdev
 * arbitrates (a NIC's own ETS, the qdisc), as between a NIC's send queues
 * of different traffic classes, and the per-priority watermarks below are
 * per context.  What follows is the life of one context.
 *
 * One drainer at a time (tx->draining) moves packets from the FIFOs to the
 * netdev.  The txsched policy chooses the priority, and inside it the flow
 * (a deficit round robin over the FIFOs with packets); a priority whose next
 * packet would land on a stopped netdev queue (a PFC pause the NIC acts
 * on, a full ring, a BQL limit), or on a queue with its room of sroce's
 * bytes already below it (txsched.h), is skipped and its packet kept, so
 * it never piles up in a qdisc, where priorities no longer apply and a
 * shaper would drop it, and the other priorities go on.
 *
 * Bytes below are counted the way TCP's small queues count a socket's:
 * each skb handed to dev_queue_xmit() carries a destructor
 * (sroce_tx_skb_done()) that takes its bytes off when the stack frees it,
 * sent or dropped, or orphans it (netem does, as it holds skbs for
 * long).  That destructor wakes a priority held for its room once half
 * the room has drained, so such a hold costs no polling, and a queue
 * that takes packets as fast as they come (fq_codel, a FIFO, netem) gets
 * them as fast.  Nothing tells when a stopped netdev queue wakes: the
 * priorities held for one are looked at again as skbs of ours below it
 * complete, polled by an hrtimer with a back-off while none are, and
 * looked at by every later send to the context.  So is a priority that a
 * PFC frame received by sroce itself paused (pfc.h: links whose netdev
 * does not act on them), until its pause ends or an XON frame arrives.
 * Should a qdisc drop a packet all the same while packets of ours are
 * below it, a clone kept for the purpose goes back to the head of its
 * FIFO (tx_requeued): a drop costs a resend, not an RC timeout.
 *
 * Congestion notifications (cnp.c) have a short FIFO of their own, served
 * before every priority: a CNP that waited behind the data of a congested
 * flow would slow the reaction it asks for.  Only a PFC pause of the
 * CNP's own priority, or its stopped netdev queue, holds it back.
 *
 * The FIFOs push back: above SROCE_TX_HIGH_WM packets in its FIFO, or
 * SROCE_TX_PRIO_HIGH_WM in its priority, a sender is told to stop and its
 * waiter is armed on its FIFO; it is woken once both are down to their
 * low watermarks.  Senders that cannot stop (ACKs, READ responses) are
 * bounded by SROCE_TX_HARD_LIMIT and SROCE_TX_PRIO_LIMIT, beyond which
 * packets are dropped for the RC transport to repair.
 *
 * Callers.  sroce_tx_send() runs a bounded drain inline (process context,
 * often with BH disabled and a QP lock held, or softirq).  Because the
 * caller may hold a QP lock, waiters are never woken there: wake-ups, and
 * drains that ran out of budget, continue in tx->work.  tx->lock is only
 * ever taken with BH disabled and never held across dev_queue_xmit() or a
 * wake-up.
 */
#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include <sroce/device.h>
#include <sroce/pfc.h>
#include <sroce/qos.h>
#include <sroce/stats.h>
#include <sroce/trace.h>
#include <sroce/tx.h>
#include <sroce/txsched.h>

/*
 * FIFOs of a priority, chosen by the sending QP's number: QPs that share
 * one are served in arrival order, like one QP.  One bit each in a u64.
 */
#define SROCE_TX_FLOWS		64
/* Per FIFO: arm waiters above HIGH, wake them at LOW, drop above HARD */
#define SROCE_TX_HIGH_WM	512
#define SROCE_TX_LOW_WM		128
#define SROCE_TX_HARD_LIMIT	(4 * SROCE_TX_HIGH_WM)
/* The same per priority, for all its FIFOs together */
#define SROCE_TX_PRIO_HIGH_WM	(4 * SROCE_TX_HIGH_WM)
#define SROCE_TX_PRIO_LOW_WM	(2 * SROCE_TX_HIGH_WM)
#define SROCE_TX_PRIO_LIMIT	(8 * SROCE_TX_HIGH_WM)
/* Packets one drain pass hands down before it leaves the rest to tx->work */
#define SROCE_TX_BUDGET		256
/* Requeues in a row of dropped packets, beyond which a drop is final */
#define SROCE_TX_REQUEUE_MAX	16
/*
 * CNPs waiting: at most one per QP per np_min_time_between_cnps is made,
 * so only a link stopped for long fills this; a CNP beyond it is dropped,
 * and the next marked packet asks again.
 */
#define SROCE_TX_CTL_MAX	64
/* FIFO numbers (struct sroce_tx_waiter @queue) of one context */
#define SROCE_TX_CTX_QUEUES	(SROCE_NUM_PRIO * SROCE_TX_FLOWS)
/*
 * Polling of stopped netdev queues, doubled while nothing can be sent.  A
 * ring that drains at line rate wakes within the first few looks; one
 * that has stayed stopped through the 2.5 ms the doubling takes to reach
 * its bound is held by something slower (a peer's traffic, a busy host),
 * so the look that finds it awake comes late by at most about half of
 * the stall so far, and a long stall costs a look per bound, not dozens.
 */
#define SROCE_TX_RETRY_MIN_NS	(20 * NSEC_PER_USEC)
#define SROCE_TX_RETRY_MAX_NS	(1280 * NSEC_PER_USEC)
/*
 * Bytes below a context (struct sroce_tx_acct) are counted in units of
 * this many, at most SROCE_TX_UNITS_MAX to a packet: a unit count and a
 * room fit in the low bits of a pointer aligned to SROCE_TX_ACCT_SIZE
 * (kmalloc() aligns a power of two to itself).
 */
#define SROCE_TX_UNIT_SHIFT	8
#define SROCE_TX_UNITS_MAX	((1UL << SROCE_TX_UNIT_SHIFT) - 1)
#define SROCE_TX_ACCT_SIZE	4096

/**
 * struct sroce_tx_flow - one FIFO of a priority
 * @skbs: finished packets, oldest first (under tx->lock, not its own lock)
 * @drr: its place in the priority's round robin
 * @waiters: struct sroce_tx_waiter waiting for @skbs to shrink
 * @in: packets ever queued, the place (mark) of the last one
 * @out: of these, packets that left, to the netdev or dropped; @skbs
 *	holds the marks @out + 1 to @in, oldest first
 */
struct sroce_tx_flow {
	struct sk_buff_head skbs;
	struct sroce_txflow drr;
	struct list_head waiters;
	u64 in;
	u64 out;
};

/**
 * struct sroce_tx_prio - the transmit queue of one priority
 * @flow: its FIFOs
 * @drr: the round robin over those with packets
 * @len: packets in all of them
 * @waiting: bit f set while @flow[f] has waiters
 * @wake: of these, the FIFOs whose waiters may be due a wake-up
 * @stalled: the head packet was held back for a stopped netdev queue and
 *	has been counted as deferred
 */
struct sroce_tx_prio {
	struct sroce_tx_flow flow[SROCE_TX_FLOWS];
	struct sroce_txflows drr;
	unsigned int len;
	u64 waiting;
	u64 wake;
	bool stalled;
};

/**
 * struct sroce_tx_acct - the bytes of a context's packets below it
 * @refs: one for the context, one for each of its skbs not yet freed or
 *	orphaned by the stack
 * @tx: the context, NULL once it is going away (RCU)
 * @held: a bit per room a priority is held back for, until @units of
 *	that room fall to @kick_at
 * @units: per room (struct sroce_tx @room), the units below it
 * @kick_at: per room, where its holder wants to be woken
 * @home_cpu: the CPU that last queued a packet to the context: the
 *	wake-up drains there, as the senders would, not on whichever CPU
 *	freed the skb (a receiving or completing one)
 * @kick_csd: asks @home_cpu to start the context's kick timer; holds a
 *	reference while queued
 *
 * The skbs may outlive the context in a qdisc, so this outlives it too:
 * the last reference frees it.  Each skb keeps its own unit count in its
 * destructor argument, so what it takes away when freed is exactly what
 * it added, whatever the stack did to its length on the way.
 */
struct sroce_tx_acct {
	atomic_long_t refs;
	struct sroce_tx __rcu *tx;
	unsigned long held;
	atomic_t units[SROCE_TXROOM_SLOTS];
	int kick_at[SROCE_TXROOM_SLOTS];
	int home_cpu;
	call_single_data_t kick_csd;
};

/**
 * struct sroce_tx - one transmit context of a device
 * @sdev: the device
 * @index: which of the device's contexts (struct sroce_txdev) this is
 * @nctx: how many the device has
 * @per_tc: how many each traffic class has (sroce_txctx_count())
 * @lock: protects everything below but @wq and @waking*
 * @prio: the eight queues
 * @ctl: congestion notifications, served before @prio
 * @sched: which priority sends next
 * @pfc: the pause clock of the priorities PFC frames paused
 * @held_polled: the last pick held a priority back for a stopped netdev
 *	queue, or after a drop: nothing tells when either clears, so the
 *	retry timer polls
 * @held_room: the last pick held priorities back for rooms at their
 *	bound: a bit per @room held for, each woken by @acct
 * @room: how many bytes may be below each netdev queue before the
 *	priorities sending through it are held back (txsched.h); a
 *	shaper on one queue limits no other
 * @backoff_until: per room, no packet goes to it before this time (a
 *	qdisc dropped one of ours), 0 for none
 * @acct: what is below each room
 * @requeues: clones requeued since a packet last went down; only the
 *	draining context touches it
 * @draining: a context is moving packets to the netdev
 * @dead: sroce_tx_fini() has begun: nothing is queued or rearmed
 * @retry_ns: current delay of @retry_timer while it polls
 * @retry_timer: looks at held priorities again (sroce_tx_arm_retry())
 * @kick_timer: drains in softirq as soon as it can, on the context's home
 *	CPU, for a destructor that found a held room drained
 *	(sroce_tx_skb_done()): a destructor may run under a qdisc's lock,
 *	where no packet can be sent, and a worker would wait behind the
 *	busy threads of the CPU
 * @wq: runs @work (the device's, struct sroce_txdev)
 * @work: continues long drains and wakes waiters
 * @waking: the waiter whose ->wake() @work is running, or NULL
 * @waking_cpu: the CPU it runs on
 */
struct sroce_tx {
	struct sroce_dev *sdev;
	unsigned int index;
	unsigned int nctx;
	unsigned int per_tc;
	spinlock_t lock;	/* see @lock above */
	struct sroce_tx_prio prio[SROCE_NUM_PRIO];
	struct sk_buff_head ctl;
	struct sroce_txsched sched;
	struct sroce_pfc_state pfc;
	bool held_polled;
	u16 held_room;
	struct sroce_txroom room[SROCE_TXROOM_SLOTS];
	u64 backoff_until[SROCE_TXROOM_SLOTS];
	struct sroce_tx_acct *acct;
	unsigned int requeues;
	bool draining;
	bool dead;
	u64 retry_ns;
	struct hrtimer retry_timer;
	struct hrtimer kick_timer;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct sroce_tx_waiter *waking;
	int waking_cpu;
};

/**
 * struct sroce_txdev - the transmit contexts of a device
 * @nctx: how many there are, 1 to SROCE_TX_MAX_CTX
 * @per_tc: how many each traffic class of the netdev has, 0 when it had
 *	none at link time (sroce_txctx_count())
 * @pfc_lock: PFC frames go to the contexts' pause clocks one at a time, in
 *	the same order everywhere; taken before a context's lock
 * @wq: runs their work; may reclaim memory, as storage ULPs sit on top
 * @flow_next: counts the FIFOs handed to QPs (sroce_tx_flow_pick())
 * @ctx: the contexts
 */
struct sroce_txdev {
	unsigned int nctx;
	unsigned int per_tc;
	spinlock_t pfc_lock;	/* see @pfc_lock above */
	struct workqueue_struct *wq;
	atomic_t flow_next;
	struct sroce_tx *ctx[SROCE_TX_MAX_CTX];
};

/* Who runs a drain: decides what it may leave to whom */
enum sroce_tx_ctx {
	SROCE_TX_CTX_SEND,
	SROCE_TX_CTX_TIMER,
	SROCE_TX_CTX_WORK,
};

/* --- Queues -------------------------------------------------------------- */

/* The queue and counters of a packet: the priority sroce_tx_alloc() chose */
static u8 sroce_tx_prio_of(const struct sk_buff *skb)
{
	return skb->priority & (SROCE_NUM_PRIO - 1);
}

static bool sroce_tx_link_up(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

/*
 * What sroce keeps in a queued packet's control block: the FIFO it was
 * queued on, for putting a clone back there, and the netdev queue
 * sroce_tx_txq() resolved.  The stack owns the block only from
 * dev_queue_xmit() on.
 */
struct sroce_tx_cb {
	u8 flow;
	u16 queue;
};

static struct sroce_tx_cb *sroce_tx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_tx_cb) > sizeof(skb->cb));
	return (struct sroce_tx_cb *)skb->cb;
}

/**
 * sroce_tx_flow_pick() - the FIFO a new QP's packets go to, in each priority
 * @sdev: the device
 *
 * Not taken from the QPN, which is drawn at random: QPs get the FIFOs in
 * turn as they are created.  Any context.
 */
u8 sroce_tx_flow_pick(struct sroce_dev *sdev)
{
	return atomic_inc_return(&sdev->tx->flow_next) & (SROCE_TX_FLOWS - 1);
}

/* The number of a FIFO, unique in the device, in struct sroce_tx_waiter */
static u16 sroce_tx_queue_id(const struct sroce_tx *tx, u8 prio,
			     unsigned int flow)
{
	return tx->index * SROCE_TX_CTX_QUEUES + prio * SROCE_TX_FLOWS + flow;
}

/* Under tx->lock: take @w, which is queued, off its wait list */
static void sroce_tx_unwait(struct sroce_tx *tx, struct sroce_tx_waiter *w)
{
	unsigned int queue = w->queue % SROCE_TX_CTX_QUEUES;
	struct sroce_tx_prio *q = &tx->prio[queue / SROCE_TX_FLOWS];
	unsigned int f = queue % SROCE_TX_FLOWS;

	list_del(&w->entry);
	w->queued = false;
	if (list_empty(&q->flow[f].waiters)) {
		q->waiting &= ~BIT_ULL(f);
		q->wake &= ~BIT_ULL(f);
	}
}

/* Put @w on a FIFO's wait list; returns true if it was not waiting yet */
static bool sroce_tx_arm_waiter(struct sroce_tx *tx, u8 prio, unsigned int f,
				struct sroce_tx_waiter *w)
{
	struct sroce_tx_prio *q = &tx->prio[prio];
	u16 queue = sroce_tx_queue_id(tx, prio, f);
	bool was_queued = w->queued;

	if (was_queued && w->queue == queue)
		return false;
	if (was_queued)
		sroce_tx_unwait(tx, w);
	w->queue = queue;
	w->queued = true;
	list_add_tail(&w->entry, &q->flow[f].waiters);
	q->waiting |= BIT_ULL(f);
	return !was_queued;
}

/*
 * Under tx->lock.  Returns 0 or 1 as sroce_tx_send() does; *@drop is set
 * when the FIFO or the priority is at its hard limit and @skb was not
 * queued.
 */
static int sroce_tx_enqueue(struct sroce_tx *tx, struct sk_buff *skb, u8 prio,
			    u8 flow, struct sroce_tx_waiter *w, bool *drop)
{
	struct sroce_tx_prio *q = &tx->prio[prio];
	unsigned int f = flow & (SROCE_TX_FLOWS - 1);
	struct sroce_tx_flow *fl = &q->flow[f];

	*drop = skb_queue_len(&fl->skbs) >= SROCE_TX_HARD_LIMIT ||
		q->len >= SROCE_TX_PRIO_LIMIT;
	if (!*drop) {
		if (!sroce_txflow_active(&fl->drr))
			sroce_txflows_add(&q->drr, &fl->drr);
		sroce_tx_cb(skb)->flow = f;
		__skb_queue_tail(&fl->skbs, skb);
		q->len++;
		fl->in++;
		if (w) {
			w->mark = fl->in;
			w->mark_queue = sroce_tx_queue_id(tx, prio, f);
		}
	}
	if (skb_queue_len(&fl->skbs) <= SROCE_TX_HIGH_WM &&
	    q->len <= SROCE_TX_PRIO_HIGH_WM)
		return 0;
	if (w && sroce_tx_arm_waiter(tx, prio, f, w)) {
		sroce_stats_inc(tx->sdev, SROCE_CNT_TX_QUEUE_FULL);
		trace_sroce_tx_fifo_full(tx->sdev, prio, f);
	}
	return 1;
}

static bool sroce_tx_should_wake(const struct sroce_tx_prio *q, unsigned int f)
{
	return skb_queue_len(&q->flow[f].skbs) <= SROCE_TX_LOW_WM &&
	       q->len <= SROCE_TX_PRIO_LOW_WM &&
	       !list_empty(&q->flow[f].waiters);
}

/*
 * Under tx->lock, after a packet left FIFO @f of @q: which waiters it may
 * have let go.  Either watermark may be the last to be reached: the FIFO's
 * (checked at each of its packets) or the priority's (when it crosses it).
 * Returns true if there is a wake-up to run.
 */
static bool sroce_tx_note_out(struct sroce_tx_prio *q, unsigned int f)
{
	u64 due = 0;

	if ((q->waiting & BIT_ULL(f)) && sroce_tx_should_wake(q, f))
		due |= BIT_ULL(f);
	if (q->len == SROCE_TX_PRIO_LOW_WM)
		due |= q->waiting;
	q->wake |= due;
	return due;
}

/*
 * The netdev queue @skb will go to, resolved the way dev_queue_xmit() will
 * (netdev_core_pick_tx() is not exported); the flow hash and sender CPU
 * sroce_tx_steer() set make both picks agree.  The answer is kept in the
 * control block, not in the skb's queue mapping: skb_tx_hash() takes a
 * mapping it finds for a recorded receive queue, the one below it, so
 * each later pick (ours, then dev_queue_xmit()'s) would move the packet
 * to another queue of a netdev without XPS maps (a veth), and the
 * packets of one flow would pass each other in two qdiscs.
 */
static struct netdev_queue *sroce_tx_txq(struct net_device *ndev,
					 struct sk_buff *skb)
{
	const struct net_device_ops *ops = ndev->netdev_ops;
	u16 index = 0;

	skb_set_queue_mapping(skb, 0);
	if (ndev->real_num_tx_queues != 1) {
		if (ops->ndo_select_queue)
			index = ops->ndo_select_queue(ndev, skb, NULL);
		else
			index = netdev_pick_tx(ndev, skb, NULL);
		index = netdev_cap_txqueue(ndev, index);
	}
	sroce_tx_cb(skb)->queue = index;
	return netdev_get_tx_queue(ndev, index);
}

/* --- Bytes below -------------------------------------------------------- */

static atomic_t sroce_tx_accts = ATOMIC_INIT(0);

static void sroce_tx_acct_put(struct sroce_tx_acct *a);

/*
 * On the home CPU, in the IPI: start the kick timer there.  Fini clears
 * a->tx and waits a grace period before cancelling the timer.
 */
static void sroce_tx_kick_home(void *info)
{
	struct sroce_tx_acct *a = info;
	struct sroce_tx *tx;

	rcu_read_lock();
	tx = rcu_dereference(a->tx);
	if (tx)
		hrtimer_start(&tx->kick_timer, 0, HRTIMER_MODE_REL_PINNED_SOFT);
	sroce_tx_acct_put(a);
	rcu_read_unlock();
}

/* Any context, in a read-side section: drain @a's context soon, at home */
static void sroce_tx_kick(struct sroce_tx_acct *a, struct sroce_tx *tx)
{
	int cpu = READ_ONCE(a->home_cpu);

	if (cpu == raw_smp_processor_id() || !cpu_online(cpu)) {
		hrtimer_start(&tx->kick_timer, 0, HRTIMER_MODE_REL_PINNED_SOFT);
		return;
	}
	atomic_long_inc(&a->refs);
	/* busy: a kick is on its way there already */
	if (smp_call_function_single_async(cpu, &a->kick_csd))
		sroce_tx_acct_put(a);
}

static struct sroce_tx_acct *sroce_tx_acct_create(struct sroce_tx *tx)
{
	struct sroce_tx_acct *a;

	BUILD_BUG_ON(sizeof(*a) > SROCE_TX_ACCT_SIZE);
	BUILD_BUG_ON(SROCE_TXROOM_SLOTS << SROCE_TX_UNIT_SHIFT >
		     SROCE_TX_ACCT_SIZE);
	a = kzalloc(SROCE_TX_ACCT_SIZE, GFP_KERNEL);
	if (!a)
		return NULL;
	atomic_long_set(&a->refs, 1);
	RCU_INIT_POINTER(a->tx, tx);
	a->home_cpu = raw_smp_processor_id();
	INIT_CSD(&a->kick_csd, sroce_tx_kick_home, a);
	atomic_inc(&sroce_tx_accts);
	return a;
}

static void sroce_tx_acct_put(struct sroce_tx_acct *a)
{
	if (!atomic_long_dec_and_test(&a->refs))
		return;
	kfree(a);
	if (atomic_dec_and_test(&sroce_tx_accts))
		wake_up_var(&sroce_tx_accts);
}

/*
 * The destructor of every skb handed to the netdev: the stack freed or
 * orphaned it (a qdisc that holds skbs for long, such as netem, orphans
 * them as they come in), so its bytes are no longer below the context.
 * A priority held back for its room is woken once the room is down to
 * what its holder asked for.  Any context; the read-side section covers
 * the context's kick timer (sroce_tx_fini()) and the module's text
 * (sroce_tx_exit()).
 */
static void sroce_tx_skb_done(struct sk_buff *skb)
{
	unsigned long arg = (unsigned long)skb_shinfo(skb)->destructor_arg;
	struct sroce_tx_acct *a = (void *)(arg & ~(SROCE_TX_ACCT_SIZE - 1UL));
	unsigned int r = (arg >> SROCE_TX_UNIT_SHIFT) & (SROCE_TXROOM_SLOTS - 1);
	struct sroce_tx *tx;
	int left;

	rcu_read_lock();
	/* fully ordered: pairs with sroce_tx_await()'s barrier */
	left = atomic_sub_return(arg & SROCE_TX_UNITS_MAX, &a->units[r]);
	if (test_bit(r, &a->held) && left <= READ_ONCE(a->kick_at[r]) &&
	    test_and_clear_bit(r, &a->held)) {
		tx = rcu_dereference(a->tx);
		if (tx)
			sroce_tx_kick(a, tx);
	}
	sroce_tx_acct_put(a);
	rcu_read_unlock();
}

/* Bytes of @tx's packets below room @r */
static u32 sroce_tx_below(const struct sroce_tx *tx, unsigned int r)
{
	return (u32)atomic_read(&tx->acct->units[r]) << SROCE_TX_UNIT_SHIFT;
}

/* Count @skb, about to go down to room @r, as below @tx until it is freed */
static void sroce_tx_charge(struct sroce_tx *tx, struct sk_buff *skb,
			    unsigned int r)
{
	struct sroce_tx_acct *a = tx->acct;
	unsigned long units;

	units = min(DIV_ROUND_UP(skb->len, 1UL << SROCE_TX_UNIT_SHIFT),
		    SROCE_TX_UNITS_MAX);
	atomic_long_inc(&a->refs);
	atomic_add(units, &a->units[r]);
	skb_shinfo(skb)->destructor_arg =
		(void *)((unsigned long)a | r << SROCE_TX_UNIT_SHIFT | units);
	skb->destructor = sroce_tx_skb_done;
}

/*
 * Bytes in @txq's ring by its byte queue limits, 0 for a netdev without
 * them.  The completions are read first: what is queued by then is as
 * much or more.  The ring has a limit of its own, and stops the queue at
 * it: what a room bounds is what waits above the ring.
 */
static u32 sroce_tx_ring_bytes(struct netdev_queue *txq)
{
#ifdef CONFIG_BQL
	unsigned int done = READ_ONCE(txq->dql.num_completed);

	return READ_ONCE(txq->dql.num_queued) - done;
#else
	return 0;
#endif
}

/*
 * Under tx->lock: ask to be woken once room @r is down to @bytes.  False
 * when it already is (its last skb may have gone before the request was
 * seen), and the packet may go.
 */
static bool sroce_tx_await(struct sroce_tx *tx, unsigned int r, u32 bytes)
{
	struct sroce_tx_acct *a = tx->acct;

	WRITE_ONCE(a->kick_at[r], bytes >> SROCE_TX_UNIT_SHIFT);
	set_bit(r, &a->held);
	/* pairs with the destructor's atomic_sub_return() */
	smp_mb__after_atomic();
	if (sroce_tx_below(tx, r) > bytes)
		return true;
	clear_bit(r, &a->held);
	return false;
}

/* The sender's CPU is where the context's wake-ups drain (@home_cpu) */
static void sroce_tx_home(struct sroce_tx *tx)
{
	int cpu = raw_smp_processor_id();

	if (READ_ONCE(tx->acct->home_cpu) != cpu)
		WRITE_ONCE(tx->acct->home_cpu, cpu);
}

/**
 * sroce_tx_exit() - wait for the last skb any device sent to be freed
 *
 * A qdisc may hold skbs of a device that is gone, and their destructor
 * is in this module.  Context: process, module exit, no device left.
 */
void sroce_tx_exit(void)
{
	wait_var_event(&sroce_tx_accts, !atomic_read(&sroce_tx_accts));
	/* the last destructor has left its read-side section */
	synchronize_rcu();
}

/*
 * Where the packets for netdev queue @q wait, for a device of @nctx
 * contexts, @per_tc a traffic class (txsched.c: sroce_txplace())
 */
static struct sroce_txplace sroce_tx_place(struct net_device *ndev,
					   unsigned int per_tc,
					   unsigned int nctx, unsigned int q)
{
	int tc = netdev_get_num_tc(ndev) ? netdev_txq_to_tc(ndev, q) : -1;
	unsigned int rank = 0;

	if (tc >= 0 && q >= ndev->tc_to_txq[tc].offset)
		rank = q - ndev->tc_to_txq[tc].offset;
	else
		tc = -1;
	return sroce_txplace(q, tc, rank, per_tc, nctx);
}

/* Which of tx->room is for the netdev queue sroce_tx_txq() chose for @skb */
static unsigned int sroce_tx_room_of(const struct sroce_tx *tx,
				     const struct sk_buff *skb)
{
	const struct sroce_tx_cb *cb = (const struct sroce_tx_cb *)skb->cb;

	return sroce_tx_place(tx->sdev->ndev, tx->per_tc, tx->nctx,
			      cb->queue).slot;
}

/*
 * Under tx->lock: a qdisc dropped a packet for room @r: nothing goes to it
 * before the retry timer has looked again, or the drops would go on.
 */
static bool sroce_tx_backing_off(struct sroce_tx *tx, unsigned int r)
{
	if (!tx->backoff_until[r])
		return false;
	if (ktime_get_ns() >= tx->backoff_until[r]) {
		tx->backoff_until[r] = 0;
		return false;
	}
	tx->held_polled = true;
	return true;
}

/*
 * Under tx->lock: may the head packet @skb of a priority go down now?
 * *@was_held has the bit of each room the previous pick held a priority
 * for: nothing below it now means the room was too small to bridge the
 * wake-up, something that it was enough; the bit is cleared once told.
 */
static enum sroce_tx_hold sroce_tx_hold(struct sroce_tx *tx,
					struct sk_buff *skb, u16 *was_held)
{
	struct netdev_queue *txq = sroce_tx_txq(tx->sdev->ndev, skb);
	unsigned int r = sroce_tx_room_of(tx, skb);
	struct sroce_txroom *room = &tx->room[r];
	u32 below = sroce_tx_below(tx, r), ring;

	if (*was_held & BIT(r)) {
		if (below)
			sroce_txroom_fed(room);
		else
			sroce_txroom_starved(room, ktime_get_ns());
		*was_held &= ~BIT(r);
	}
	if (sroce_tx_backing_off(tx, r))
		return SROCE_TX_HOLD_DROPPED;
	if (netif_xmit_frozen_or_stopped(txq)) {
		/*
		 * Completions that free skbs of ours come as the queue
		 * drains: look again at the next one, and poll only for a
		 * queue that nothing of ours is below.
		 */
		if (!below || !sroce_tx_await(tx, r, below - 1))
			tx->held_polled = true;
		return SROCE_TX_HOLD_STOPPED;
	}
	/* ours above the ring, as far as the ring's own count tells */
	ring = min(sroce_tx_ring_bytes(txq), below);
	if (!sroce_txroom_full(room, below - ring) ||
	    !sroce_tx_await(tx, r, ring + room->room / 2))
		return SROCE_TX_GO;
	tx->held_room |= BIT(r);
	return SROCE_TX_HOLD_ROOM;
}

/* Priority @p's head packet is held back: count it once */
static void sroce_tx_defer(struct sroce_tx *tx, struct sroce_tx_prio *q,
			   u8 p, enum sroce_tx_hold why)
{
	if (q->stalled)
		return;
	q->stalled = true;
	sroce_stats_inc(tx->sdev, SROCE_CNT_TX_DEFERRED);
	trace_sroce_tx_held(tx->sdev, p, why);
}

/*
 * Under tx->lock: the CNP to send next, unless its priority is paused
 * (@pfc) or its netdev queue stopped.  A qdisc's room is not asked: a
 * CNP is one small packet, and holding it back would delay the very
 * reaction that empties the queues.
 */
static struct sk_buff *sroce_tx_pick_ctl(struct sroce_tx *tx, u8 pfc)
{
	struct sk_buff *skb = skb_peek(&tx->ctl);
	bool stopped;

	if (!skb || (pfc & BIT(sroce_tx_prio_of(skb))))
		return NULL;
	rcu_read_lock();
	stopped = netif_xmit_frozen_or_stopped(sroce_tx_txq(tx->sdev->ndev, skb));
	rcu_read_unlock();
	if (stopped) {
		tx->held_polled = true;
		return NULL;
	}
	return __skb_dequeue(&tx->ctl);
}

static struct sroce_tx_flow *sroce_tx_flow_drr(const struct sroce_txflow *f)
{
	return container_of(f, struct sroce_tx_flow, drr);
}

static u32 sroce_tx_flow_head_len(const struct sroce_txflow *f)
{
	return skb_peek(&sroce_tx_flow_drr(f)->skbs)->len;
}

/* Under tx->lock: the FIFO of @q whose packet goes next, or NULL */
static struct sroce_tx_flow *sroce_tx_head_flow(struct sroce_tx_prio *q)
{
	struct sroce_txflow *f = sroce_txflows_peek(&q->drr,
						    sroce_tx_flow_head_len);

	return f ? sroce_tx_flow_drr(f) : NULL;
}

/* Under tx->lock: take the head packet of FIFO @fl of @q */
static struct sk_buff *sroce_tx_dequeue(struct sroce_tx_prio *q,
					struct sroce_tx_flow *fl, bool *wake)
{
	struct sk_buff *skb = __skb_dequeue(&fl->skbs);

	sroce_txflows_sent(&fl->drr, skb->len, skb_queue_empty(&fl->skbs));
	q->len--;
	fl->out++;
	q->stalled = false;
	if (sroce_tx_note_out(q, fl - q->flow))
		*wake = true;
	return skb;
}

/*
 * Under tx->lock: dequeue the packet to send next, or NULL when every
 * priority is empty or held back.  Sets *@wake when the dequeue brought a
 * queue with waiters down to its low watermark, *@ctl when it is a CNP.
 */
static struct sk_buff *sroce_tx_pick(struct sroce_tx *tx, bool *wake,
				     bool *ctl)
{
	struct sroce_tx_flow *head[SROCE_NUM_PRIO] = {};
	u32 head_len[SROCE_NUM_PRIO] = {};
	u8 ready = 0, paused = 0, pfc = 0;
	u16 was_held = tx->held_room;
	enum sroce_tx_hold hold;
	struct sroce_tx_prio *q;
	struct sk_buff *skb;
	int p;

	if (sroce_pfc_next_end(&tx->pfc))
		pfc = sroce_pfc_paused(&tx->pfc, ktime_get_ns());
	tx->held_polled = false;
	tx->held_room = 0;
	skb = sroce_tx_pick_ctl(tx, pfc);
	*ctl = !!skb;
	if (skb)
		return skb;
	rcu_read_lock();
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		q = &tx->prio[p];
		head[p] = sroce_tx_head_flow(q);
		if (!head[p])
			continue;
		skb = skb_peek(&head[p]->skbs);
		ready |= BIT(p);
		head_len[p] = skb->len;
		if (pfc & BIT(p)) {
			paused |= BIT(p);
			sroce_tx_defer(tx, q, p, SROCE_TX_HOLD_PAUSE);
			continue;
		}
		hold = sroce_tx_hold(tx, skb, &was_held);
		if (hold != SROCE_TX_GO) {
			paused |= BIT(p);
			sroce_tx_defer(tx, q, p, hold);
		}
	}
	rcu_read_unlock();

	p = sroce_txsched_pick(&tx->sched, ready, paused, head_len);
	if (p < 0)
		return NULL;
	return sroce_tx_dequeue(&tx->prio[p], head[p], wake);
}

/*
 * Under tx->lock, or in the draining context: a qdisc that already holds
 * packets of ours may drop the next one for want of room: keep a clone to
 * send again (it shares the data, and what the stack changes on the way
 * down it changes on its own copy; an fclone's companion costs no
 * allocation).  With nothing of ours below, a drop is of what sending
 * again would not get through (a policer, an oversized packet) and is
 * left to the RC transport.
 */
static struct sk_buff *sroce_tx_spare(struct sroce_tx *tx, unsigned int r,
				      struct sk_buff *skb)
{
	return sroce_tx_below(tx, r) ? skb_clone(skb, GFP_ATOMIC) : NULL;
}

/*
 * Without tx->lock, in the draining context: a qdisc dropped a packet
 * bound for room @r whose clone @spare was kept.  It goes back to the
 * head of its FIFO, so the order of its priority is kept; the room
 * shrinks and takes nothing until the retry timer looks again.  A qdisc
 * that drops every packet it is given ends that after
 * SROCE_TX_REQUEUE_MAX tries.
 */
static void sroce_tx_requeue(struct sroce_tx *tx, struct sk_buff *spare,
			     unsigned int r)
{
	struct sroce_tx_prio *q = &tx->prio[sroce_tx_prio_of(spare)];
	struct sroce_tx_flow *fl = &q->flow[sroce_tx_cb(spare)->flow];
	u64 now = ktime_get_ns();
	bool final;

	spin_lock_bh(&tx->lock);
	sroce_txroom_dropped(&tx->room[r], now);
	tx->backoff_until[r] = now + tx->retry_ns;
	final = tx->dead || ++tx->requeues > SROCE_TX_REQUEUE_MAX;
	if (!final) {
		__skb_queue_head(&fl->skbs, spare);
		sroce_txflows_putback(&q->drr, &fl->drr, spare->len);
		q->len++;
		fl->out--;
	}
	spin_unlock_bh(&tx->lock);
	if (final) {
		sroce_stats_inc(tx->sdev, SROCE_CNT_TX_DROPS);
		kfree_skb(spare);
		return;
	}
	sroce_stats_inc(tx->sdev, SROCE_CNT_TX_REQUEUED);
}

/*
 * Without tx->lock: the qdisc below room @r queued a packet but reports
 * congestion (it dropped another, or marks)
 */
static void sroce_tx_congested(struct sroce_tx *tx, unsigned int r)
{
	spin_lock_bh(&tx->lock);
	sroce_txroom_dropped(&tx->room[r], ktime_get_ns());
	spin_unlock_bh(&tx->lock);
}

/*
 * Without tx->lock: hand @skb to the netdev, or to the receive path of the
 * device of this host it is addressed to (loopback.c), and count the
 * outcome.  A drop with no spare kept is not reported to anyone: the RC
 * transport repairs it by timeout.  A CNP (@ctl) is never requeued: it
 * has no FIFO of a priority to go back to, and the congestion it reports
 * will be reported again.
 */
static void sroce_tx_xmit(struct sroce_tx *tx, struct sk_buff *skb, bool ctl)
{
	u8 prio = sroce_tx_prio_of(skb);
	unsigned int len = skb->len;
	bool ect = sroce_tx_ect(skb);
	unsigned int r = sroce_tx_room_of(tx, skb);
	struct sk_buff *spare;
	int rc;

	rc = sroce_lo_local(tx->sdev, skb);
	if (rc < 0) {
		sroce_stats_inc(tx->sdev, SROCE_CNT_TX_DROPS);
		return;
	}
	if (!rc)
		goto sent;
	/* the members of its group on this device get their own copy */
	if (sroce_lo_mcast(tx->sdev->lo, skb))
		sroce_stats_inc(tx->sdev, SROCE_CNT_TX_DROPS);
	spare = ctl ? NULL : sroce_tx_spare(tx, r, skb);
	/* below the queue sroce_tx_pick() resolved, which dev_queue_xmit() will */
	sroce_tx_charge(tx, skb, r);
	rc = dev_queue_xmit(skb);
	if (rc == NET_XMIT_DROP && spare) {
		sroce_tx_requeue(tx, spare, r);
		return;
	}
	consume_skb(spare);
	/*
	 * NET_XMIT_CN: queued, though the qdisc signals congestion.
	 * net_xmit_eval() evaluates its argument twice: never pass it the call.
	 */
	if (rc == NET_XMIT_CN)
		sroce_tx_congested(tx, r);
	if (net_xmit_eval(rc)) {
		sroce_stats_inc(tx->sdev, SROCE_CNT_TX_DROPS);
		return;
	}
	tx->requeues = 0;
sent:
	sroce_stats_inc(tx->sdev, SROCE_CNT_TX_PACKETS);
	sroce_stats_add(tx->sdev, SROCE_CNT_TX_BYTES, len);
	sroce_stats_inc(tx->sdev, SROCE_CNT_TX_PRIO0_PACKETS + prio);
	sroce_stats_add(tx->sdev, SROCE_CNT_TX_PRIO0_BYTES + prio, len);
	if (ect)
		sroce_stats_inc(tx->sdev, SROCE_CNT_TX_ECN_ECT);
}

/* Under tx->lock: free every queued packet; true if waiters are to wake */
static bool sroce_tx_purge(struct sroce_tx *tx)
{
	struct sk_buff_head dropped;
	bool wake = false;
	int p;

	__skb_queue_head_init(&dropped);
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		struct sroce_tx_prio *q = &tx->prio[p];
		unsigned int f;

		for (f = 0; f < SROCE_TX_FLOWS; f++) {
			struct sroce_tx_flow *fl = &q->flow[f];

			fl->out += skb_queue_len(&fl->skbs);
			skb_queue_splice_init(&fl->skbs, &dropped);
			sroce_txflow_init(&fl->drr);
		}
		sroce_txflows_init(&q->drr);
		q->len = 0;
		q->stalled = false;
		q->wake = q->waiting;
		wake |= !!q->waiting;
	}
	skb_queue_splice_init(&tx->ctl, &dropped);
	if (skb_queue_len(&dropped))
		sroce_stats_add(tx->sdev, SROCE_CNT_TX_DROPS,
				skb_queue_len(&dropped));
	__skb_queue_purge(&dropped);
	return wake;
}

static bool sroce_tx_pending(const struct sroce_tx *tx)
{
	int p;

	if (skb_queue_len(&tx->ctl))
		return true;
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		if (tx->prio[p].len)
			return true;
	return false;
}

/*
 * Under tx->lock: look at the held priorities again when the first of
 * them may go: a PFC pause at its end, and a stopped netdev queue or a
 * room after a drop after tx->retry_ns.  A room at its bound needs no
 * timer: the skbs below it wake the context as they are freed.  A timer
 * already set to fire as early, slack included, stays.
 */
static void sroce_tx_arm_retry(struct sroce_tx *tx)
{
	u64 now = ktime_get_ns(), at = U64_MAX, slack = tx->retry_ns / 4, end;

	if (tx->held_polled)
		at = now + tx->retry_ns;
	end = sroce_pfc_next_end(&tx->pfc);
	if (end && end < at) {
		/* a pause is timed: end it on time */
		at = max(end, now);
		slack = SROCE_TX_RETRY_MIN_NS / 4;
	}
	if (at == U64_MAX)
		return;
	if (hrtimer_is_queued(&tx->retry_timer) &&
	    ktime_to_ns(hrtimer_get_expires(&tx->retry_timer)) <= at + slack)
		return;
	/*
	 * Pinned: a drain runs at home, and an unpinned timer armed from an
	 * interrupt on an idle CPU is moved by nohz to a busy one, whose
	 * traffic then waits behind this context's drains.
	 */
	hrtimer_start_range_ns(&tx->retry_timer, ns_to_ktime(at), slack,
			       HRTIMER_MODE_ABS_PINNED_SOFT);
}

/*
 * Under tx->lock, at the end of a drain pass that sent @sent packets:
 * leave what is left to tx->work (budget spent, waiters to wake) or to the
 * retry timer (everything left is held back).
 */
static void sroce_tx_reschedule(struct sroce_tx *tx, enum sroce_tx_ctx ctx,
				unsigned int sent, bool wake)
{
	if (tx->dead)
		return;
	if (sent == SROCE_TX_BUDGET || (wake && ctx != SROCE_TX_CTX_WORK)) {
		queue_work(tx->wq, &tx->work);
		return;
	}
	if (sent)
		tx->retry_ns = SROCE_TX_RETRY_MIN_NS;
	else if (ctx == SROCE_TX_CTX_TIMER)
		tx->retry_ns = min_t(u64, tx->retry_ns * 2,
				     SROCE_TX_RETRY_MAX_NS);
	if (sroce_tx_pending(tx))
		sroce_tx_arm_retry(tx);
}

/*
 * One bounded pass moving packets to the netdev, if no other context is
 * at it (that one will see our packets).  Never sleeps.
 */
static void sroce_tx_drain(struct sroce_tx *tx, enum sroce_tx_ctx ctx)
{
	unsigned int sent = 0;
	bool wake = false, ctl;
	struct sk_buff *skb;

	spin_lock_bh(&tx->lock);
	if (tx->draining || tx->dead) {
		spin_unlock_bh(&tx->lock);
		return;
	}
	tx->draining = true;
	/* nothing would leave: keep neither packets nor waiting QPs */
	if (!sroce_tx_link_up(tx->sdev->ndev))
		wake = sroce_tx_purge(tx);

	while (sent < SROCE_TX_BUDGET && !tx->dead) {
		skb = sroce_tx_pick(tx, &wake, &ctl);
		if (!skb)
			break;
		spin_unlock_bh(&tx->lock);
		sroce_tx_xmit(tx, skb, ctl);
		sent++;
		spin_lock_bh(&tx->lock);
	}
	tx->draining = false;
	sroce_tx_reschedule(tx, ctx, sent, wake);
	spin_unlock_bh(&tx->lock);
}

/* --- Waking -------------------------------------------------------------- */

/*
 * Under tx->lock: the next waiter of priority @p due a wake-up, taken off
 * its list, or NULL
 */
static struct sroce_tx_waiter *sroce_tx_next_woken(struct sroce_tx *tx, int p)
{
	struct sroce_tx_prio *q = &tx->prio[p];
	struct sroce_tx_waiter *w;
	unsigned int f;

	while (q->wake) {
		f = __ffs64(q->wake);
		if (!sroce_tx_should_wake(q, f)) {
			q->wake &= ~BIT_ULL(f);
			continue;
		}
		w = list_first_entry(&q->flow[f].waiters,
				     struct sroce_tx_waiter, entry);
		sroce_tx_unwait(tx, w);
		return w;
	}
	return NULL;
}

/*
 * Wake the waiters of the FIFOs at or below their low watermarks, one at a
 * time with no lock held.  Each ->wake() runs with BH disabled, so no other
 * context of this CPU can run until it returns: sroce_tx_cancel_wait()
 * relies on that.  A FIFO that fills up again keeps its remaining
 * waiters, so this ends after at most one call per waiter.
 */
static void sroce_tx_wake_waiters(struct sroce_tx *tx)
{
	struct sroce_tx_waiter *w;
	int p;

	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		for (;;) {
			spin_lock_bh(&tx->lock);
			w = sroce_tx_next_woken(tx, p);
			if (!w) {
				spin_unlock_bh(&tx->lock);
				break;
			}
			tx->waking_cpu = smp_processor_id();
			WRITE_ONCE(tx->waking, w);
			spin_unlock(&tx->lock);

			w->wake(w);

			/* pairs with sroce_tx_cancel_wait(): @w may go now */
			smp_store_release(&tx->waking, NULL);
			local_bh_enable();
		}
	}
}

static void sroce_tx_work(struct work_struct *work)
{
	struct sroce_tx *tx = container_of(work, struct sroce_tx, work);

	sroce_tx_drain(tx, SROCE_TX_CTX_WORK);
	sroce_tx_wake_waiters(tx);
}

static enum hrtimer_restart sroce_tx_kicked(struct hrtimer *timer)
{
	struct sroce_tx *tx = container_of(timer, struct sroce_tx, kick_timer);

	sroce_tx_drain(tx, SROCE_TX_CTX_SEND);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart sroce_tx_retry(struct hrtimer *timer)
{
	struct sroce_tx *tx = container_of(timer, struct sroce_tx, retry_timer);

	sroce_stats_inc(tx->sdev, SROCE_CNT_TX_RETRY_PASSES);
	sroce_tx_drain(tx, SROCE_TX_CTX_TIMER);
	return HRTIMER_NORESTART;
}

/* --- Contexts ----------------------------------------------------------- */

/*
 * How many transmit contexts a device gets, and how many of them each
 * traffic class (txsched.c: sroce_txctx_count()).  Read once, at link
 * time.  A later queue layout (ethtool -L, mqprio, XPS) is mapped onto
 * these contexts as well, but a flow whose packets then resolve to another
 * queue may pass its own packets still waiting in the old context, once:
 * RC repairs that with a NAK and a resend.
 */
static unsigned int sroce_tx_ctx_count(struct net_device *ndev,
				       unsigned int *per_tc)
{
	unsigned int ntc = max(netdev_get_num_tc(ndev), 0);
	unsigned int min_count = U16_MAX, tc;

	for (tc = 0; tc < ntc; tc++)
		min_count = min_t(unsigned int, min_count,
				  ndev->tc_to_txq[tc].count);
	return sroce_txctx_count(ntc, min_count, ndev->real_num_tx_queues,
				 num_online_cpus(), per_tc);
}

/*
 * The context that sends @skb: the one its netdev queue belongs to, so
 * that contexts never hand packets to the same queue and each priority's
 * packets of a flow go through one context, in order.  Under mqprio a
 * traffic class has contexts of its own: a bulk class is never drained by
 * a latency-sensitive class's senders.
 */
static struct sroce_tx *sroce_tx_ctx_of(struct sroce_txdev *txd,
					struct net_device *ndev,
					struct sk_buff *skb)
{
	if (txd->nctx == 1)
		return txd->ctx[0];
	rcu_read_lock_bh();
	sroce_tx_txq(ndev, skb);
	rcu_read_unlock_bh();
	return txd->ctx[sroce_tx_place(ndev, txd->per_tc, txd->nctx,
				       sroce_tx_cb(skb)->queue).ctx];
}

/* The context a waiter's or a mark's FIFO number (sroce_tx_queue_id()) is in */
static struct sroce_tx *sroce_tx_ctx_of_queue(struct sroce_txdev *txd,
					      u16 queue)
{
	unsigned int c = queue / SROCE_TX_CTX_QUEUES;

	return c < txd->nctx ? txd->ctx[c] : NULL;
}

/*
 * @w, about to be armed in context @tx, may still wait in another one
 * (its QP's path changed): take it off there first, under that context's
 * lock.  Only @w's owner arms it, and that is our caller, so @w->queue is
 * stable here; a wake-up running meanwhile is harmless.
 */
static void sroce_tx_unwait_other(struct sroce_txdev *txd, struct sroce_tx *tx,
				  struct sroce_tx_waiter *w)
{
	struct sroce_tx *other = sroce_tx_ctx_of_queue(txd, w->queue);

	if (!other || other == tx)
		return;
	spin_lock_bh(&other->lock);
	if (w->queued)
		sroce_tx_unwait(other, w);
	spin_unlock_bh(&other->lock);
}

/* --- Entry points -------------------------------------------------------- */

/* How many transmit contexts @sdev has; 0 while it has none */
unsigned int sroce_tx_contexts(struct sroce_dev *sdev)
{
	return sdev->tx ? sdev->tx->nctx : 0;
}

/* What every packet goes through before it is queued */
static int sroce_tx_prepare(struct sroce_dev *sdev, struct sk_buff *skb)
{
	if (!sdev->tx)
		return -ENODEV;
	if (!sroce_tx_link_up(sdev->ndev))
		return -ENETDOWN;
	return sroce_tx_finish(skb, sroce_tx_prio_of(skb));
}

/**
 * sroce_tx_send() - finish a packet and queue it for transmission
 * @sdev: the device
 * @skb: a packet of sroce_tx_alloc(), transport part filled in
 * @flow: the FIFO of the QP sending it (sroce_tx_flow_pick())
 * @w: how to wake the caller when it is told to stop, or NULL
 *
 * Adds the ICRC and the checksums, queues @skb on its priority (the
 * skb->priority sroce_tx_alloc() chose), in FIFO @flow there, and
 * transmits what may be transmitted.  Context: process or softirq, QP
 * locks may be held (@w is never woken from here).
 *
 * Return: 0 when queued; 1 when the priority's queue is above its high
 * watermark: @w is then armed and the caller should stop building packets
 * until it is woken.  Past the hard limit @skb is dropped (counted, the
 * RC transport retransmits) and 1 is returned as well.  A send to another
 * transmit context than the one @w waits in takes @w off there first,
 * armed again or not.  -ENODEV when the
 * device is going away, -ENETDOWN when the netdev is down, -EINVAL for an
 * skb sroce_tx_alloc() did not make; @skb is consumed in every case.
 */
int sroce_tx_send(struct sroce_dev *sdev, struct sk_buff *skb, u8 flow,
		  struct sroce_tx_waiter *w)
{
	u8 prio = sroce_tx_prio_of(skb);
	struct sroce_tx *tx;
	bool drop;
	int ret;

	ret = sroce_tx_prepare(sdev, skb);
	if (ret)
		goto free;

	tx = sroce_tx_ctx_of(sdev->tx, sdev->ndev, skb);
	if (w && sdev->tx->nctx > 1)
		sroce_tx_unwait_other(sdev->tx, tx, w);
	spin_lock_bh(&tx->lock);
	if (tx->dead) {
		spin_unlock_bh(&tx->lock);
		ret = -ENODEV;
		goto free;
	}
	ret = sroce_tx_enqueue(tx, skb, prio, flow, w, &drop);
	spin_unlock_bh(&tx->lock);
	sroce_tx_home(tx);
	if (drop) {
		sroce_stats_inc(sdev, SROCE_CNT_TX_DROPS);
		kfree_skb(skb);
	}

	sroce_tx_drain(tx, SROCE_TX_CTX_SEND);
	return ret;

free:
	sroce_stats_inc(sdev, SROCE_CNT_TX_DROPS);
	kfree_skb(skb);
	return ret;
}

/**
 * sroce_tx_send_ctl() - finish a CNP and send it ahead of the data
 * @sdev: the device
 * @skb: a packet of sroce_tx_alloc_class(), transport part filled in
 *
 * Like sroce_tx_send(), but @skb goes to the CNP queue, which the drain
 * serves before every priority.  Context: softirq or process, no QP lock
 * needed or held by the callers.
 *
 * Return: 0 when queued; -ENOBUFS when the CNP queue is full, or the
 * errors of sroce_tx_send(); @skb is consumed in every case.
 */
int sroce_tx_send_ctl(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_tx *tx;
	int ret;

	ret = sroce_tx_prepare(sdev, skb);
	if (ret)
		goto free;
	tx = sroce_tx_ctx_of(sdev->tx, sdev->ndev, skb);
	spin_lock_bh(&tx->lock);
	if (tx->dead)
		ret = -ENODEV;
	else if (skb_queue_len(&tx->ctl) >= SROCE_TX_CTL_MAX)
		ret = -ENOBUFS;
	else
		__skb_queue_tail(&tx->ctl, skb);
	spin_unlock_bh(&tx->lock);
	if (ret)
		goto free;
	sroce_tx_drain(tx, SROCE_TX_CTX_SEND);
	return 0;

free:
	sroce_stats_inc(sdev, SROCE_CNT_TX_DROPS);
	kfree_skb(skb);
	return ret;
}

/**
 * sroce_tx_cancel_wait() - stop waiting for room in a transmit queue
 * @sdev: the device
 * @w: the waiter, armed by sroce_tx_send() or not
 *
 * Takes @w off its wait list.  When this returns, @w->wake is neither
 * running (unless this is called from @w->wake itself) nor going to be
 * called, so @w may be freed.  Context: process or softirq.  It may spin
 * for the length of one @w->wake call, so the caller must not hold a lock
 * that @w->wake takes.
 */
void sroce_tx_cancel_wait(struct sroce_dev *sdev, struct sroce_tx_waiter *w)
{
	struct sroce_txdev *txd = sdev->tx;
	struct sroce_tx *tx;
	unsigned int c;

	/* @w's context: no one arms @w while it is cancelled (the caller) */
	tx = txd ? sroce_tx_ctx_of_queue(txd, w->queue) : NULL;
	if (!tx)
		return;
	spin_lock_bh(&tx->lock);
	if (w->queued)
		sroce_tx_unwait(tx, w);
	spin_unlock(&tx->lock);
	/*
	 * A waker may have taken @w off its list just before: wait for its
	 * call to return.  That may be another context's waker, whose
	 * wake-up let the owner arm @w where it is now.  With BH disabled
	 * here, a waker seen on this CPU can only be the one that called us.
	 */
	for (c = 0; c < txd->nctx; c++) {
		tx = txd->ctx[c];
		/* pairs with the release in sroce_tx_wake_waiters() */
		while (smp_load_acquire(&tx->waking) == w &&
		       READ_ONCE(tx->waking_cpu) != smp_processor_id())
			cpu_relax();
	}
	local_bh_enable();
}

bool sroce_tx_still_queued(struct sroce_dev *sdev, u16 queue, u64 mark)
{
	struct sroce_tx *tx;
	struct sroce_tx_flow *fl;
	bool queued;

	tx = sdev->tx ? sroce_tx_ctx_of_queue(sdev->tx, queue) : NULL;
	if (!tx)
		return false;
	queue %= SROCE_TX_CTX_QUEUES;
	fl = &tx->prio[queue / SROCE_TX_FLOWS].flow[queue % SROCE_TX_FLOWS];
	spin_lock_bh(&tx->lock);
	queued = fl->out < mark;
	spin_unlock_bh(&tx->lock);
	return queued;
}

/*
 * Feed @f to the pause clock of every context, each of which may hold any
 * priority (a priority's traffic class can change under it); an XON or a
 * shorter pause lets go at once.  They all get the same arrival time, so
 * their clocks agree.
 */
static void sroce_tx_pfc_apply(struct sroce_txdev *txd,
			       const struct sroce_pfc_frame *f)
{
	struct sroce_tx *tx;
	unsigned int c;
	u64 now;

	spin_lock_bh(&txd->pfc_lock);
	now = ktime_get_ns();
	for (c = 0; c < txd->nctx; c++) {
		tx = txd->ctx[c];
		spin_lock(&tx->lock);
		sroce_pfc_rx(&tx->pfc, f, READ_ONCE(tx->sdev->speed_mbps), now);
		spin_unlock(&tx->lock);
	}
	spin_unlock_bh(&txd->pfc_lock);
	for (c = 0; c < txd->nctx; c++)
		sroce_tx_drain(txd->ctx[c], SROCE_TX_CTX_SEND);
}

/*
 * Only the priorities PFC is enabled for honour pause frames (IEEE 802.1Q
 * 36.1.1); for the others a frame is ignored, and not counted.
 */
void sroce_tx_pfc_rx(struct sroce_dev *sdev, const struct sroce_pfc_frame *f)
{
	struct sroce_pfc_frame mine = *f;

	if (!sdev->tx)
		return;
	rcu_read_lock();
	mine.enable &= rcu_dereference(sdev->qos)->pfc_en;
	rcu_read_unlock();
	trace_sroce_pfc_rx(sdev, f, mine.enable);
	if (mine.enable)
		sroce_tx_pfc_apply(sdev->tx, &mine);
}

/* PFC was turned off for @prios: what their pause frames paused resumes */
void sroce_tx_pfc_off(struct sroce_dev *sdev, u8 prios)
{
	struct sroce_pfc_frame xon = { .enable = prios };

	sroce_tx_pfc_apply(sdev->tx, &xon);
}

void sroce_tx_pfc_stats(struct sroce_dev *sdev, u64 frames[SROCE_NUM_PRIO],
			u64 duration_us[SROCE_NUM_PRIO])
{
	/* every context has the same clock (sroce_tx_pfc_apply()) */
	struct sroce_tx *tx = sdev->tx->ctx[0];
	u64 now;
	int p;

	spin_lock_bh(&tx->lock);
	/* not before the lock: a frame may start a pause in between */
	now = ktime_get_ns();
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		frames[p] = tx->pfc.frames[p];
		duration_us[p] = div_u64(sroce_pfc_duration_ns(&tx->pfc, p, now),
					 NSEC_PER_USEC);
	}
	spin_unlock_bh(&tx->lock);
}

int sroce_tx_set_ets(struct sroce_dev *sdev, const u8 tsa[SROCE_NUM_PRIO],
		     const u8 weight[SROCE_NUM_PRIO])
{
	struct sroce_txdev *txd = sdev->tx;
	struct sroce_tx *tx;
	unsigned int c;
	int ret = 0;

	/* the values are checked by the first: all or none take them */
	for (c = 0; c < txd->nctx && !ret; c++) {
		tx = txd->ctx[c];
		spin_lock_bh(&tx->lock);
		ret = sroce_txsched_set(&tx->sched, tsa, weight);
		spin_unlock_bh(&tx->lock);
	}
	return ret;
}

static void sroce_tx_prio_init(struct sroce_tx_prio *q)
{
	unsigned int f;

	for (f = 0; f < SROCE_TX_FLOWS; f++) {
		__skb_queue_head_init(&q->flow[f].skbs);
		sroce_txflow_init(&q->flow[f].drr);
		INIT_LIST_HEAD(&q->flow[f].waiters);
	}
	sroce_txflows_init(&q->drr);
}

/* A context with its queues empty, or NULL for want of memory */
static struct sroce_tx *sroce_tx_ctx_create(struct sroce_dev *sdev,
					    struct sroce_txdev *txd,
					    unsigned int index)
{
	const struct sroce_qos_cfg *qos;
	struct sroce_tx *tx;
	int p;

	tx = kvzalloc(sizeof(*tx), GFP_KERNEL);
	if (!tx)
		return NULL;
	tx->sdev = sdev;
	tx->index = index;
	tx->nctx = txd->nctx;
	tx->per_tc = txd->per_tc;
	tx->wq = txd->wq;
	spin_lock_init(&tx->lock);
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		sroce_tx_prio_init(&tx->prio[p]);
	__skb_queue_head_init(&tx->ctl);
	sroce_txsched_init(&tx->sched);
	for (p = 0; p < SROCE_TXROOM_SLOTS; p++)
		sroce_txroom_init(&tx->room[p]);
	tx->acct = sroce_tx_acct_create(tx);
	if (!tx->acct) {
		kvfree(tx);
		return NULL;
	}
	qos = rcu_dereference_protected(sdev->qos, true);
	sroce_txsched_set(&tx->sched, qos->tsa, qos->weight);
	tx->retry_ns = SROCE_TX_RETRY_MIN_NS;
	hrtimer_init(&tx->retry_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	tx->retry_timer.function = sroce_tx_retry;
	hrtimer_init(&tx->kick_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	tx->kick_timer.function = sroce_tx_kicked;
	INIT_WORK(&tx->work, sroce_tx_work);
	return tx;
}

/* Wait for a drainer that is handing a packet down to notice tx->dead */
static void sroce_tx_wait_drainer(struct sroce_tx *tx)
{
	spin_lock_bh(&tx->lock);
	while (tx->draining) {
		spin_unlock_bh(&tx->lock);
		cpu_relax();
		spin_lock_bh(&tx->lock);
	}
	spin_unlock_bh(&tx->lock);
}

/* Stop a context for good and drop what it still holds */
static void sroce_tx_ctx_stop(struct sroce_tx *tx)
{
	int p;

	/* from here on nothing arms the timer or queues the work */
	spin_lock_bh(&tx->lock);
	tx->dead = true;
	spin_unlock_bh(&tx->lock);
	hrtimer_cancel(&tx->retry_timer);
	hrtimer_cancel(&tx->kick_timer);
	cancel_work_sync(&tx->work);
	sroce_tx_wait_drainer(tx);

	spin_lock_bh(&tx->lock);
	sroce_tx_purge(tx);
	spin_unlock_bh(&tx->lock);
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		WARN_ON_ONCE(tx->prio[p].waiting);
}

static void sroce_txdev_free(struct sroce_txdev *txd)
{
	unsigned int c;

	for (c = 0; c < txd->nctx; c++) {
		if (!txd->ctx[c])
			continue;
		sroce_tx_acct_put(txd->ctx[c]->acct);
		kvfree(txd->ctx[c]);
	}
	if (txd->wq)
		destroy_workqueue(txd->wq);
	kfree(txd);
}

/**
 * sroce_tx_init() - set up the transmit contexts of a device
 * @sdev: the device, its netdev and QoS configuration set
 *
 * Context: process.
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_tx_init(struct sroce_dev *sdev)
{
	struct sroce_txdev *txd;
	unsigned int c;

	txd = kzalloc(sizeof(*txd), GFP_KERNEL);
	if (!txd)
		return -ENOMEM;
	spin_lock_init(&txd->pfc_lock);
	txd->wq = alloc_workqueue("sroce_tx/%s", WQ_HIGHPRI | WQ_MEM_RECLAIM,
				  0, sdev->ndev->name);
	if (!txd->wq)
		goto nomem;
	txd->nctx = sroce_tx_ctx_count(sdev->ndev, &txd->per_tc);
	for (c = 0; c < txd->nctx; c++) {
		txd->ctx[c] = sroce_tx_ctx_create(sdev, txd, c);
		if (!txd->ctx[c])
			goto nomem;
	}
	sdev->lo = sroce_lo_create(sdev);
	if (!sdev->lo)
		goto nomem;
	sdev->tx = txd;
	return 0;

nomem:
	sroce_txdev_free(txd);
	return -ENOMEM;
}

/**
 * sroce_tx_fini() - tear down the transmit contexts of a device
 * @sdev: the device, unregistered, without QPs
 *
 * Stops the timers and the work, drops the packets still queued and frees
 * the state.  Context: process, may sleep.
 */
void sroce_tx_fini(struct sroce_dev *sdev)
{
	struct sroce_txdev *txd = sdev->tx;
	unsigned int c;

	if (!txd)
		return;
	/*
	 * Skbs still below may outlive the contexts: from here on their
	 * destructors start no kick timer, and none still starts one after
	 * the grace period; sroce_tx_ctx_stop() cancels what they started.
	 */
	for (c = 0; c < txd->nctx; c++)
		RCU_INIT_POINTER(txd->ctx[c]->acct->tx, NULL);
	synchronize_rcu();
	for (c = 0; c < txd->nctx; c++)
		sroce_tx_ctx_stop(txd->ctx[c]);
	/*
	 * No drainer is left to loop a packet back, and the device left the
	 * list a grace period ago (sroce_dev_detach() in device.c): no other device
	 * queues to it either.
	 */
	sroce_lo_destroy(sdev->lo);
	sdev->lo = NULL;

	sdev->tx = NULL;
	sroce_txdev_free(txd);
}
