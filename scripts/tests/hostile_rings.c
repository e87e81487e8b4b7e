// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile userspace: rings shared with the kernel, garbled on purpose.
 *
 * The objects are made the ordinary way, through libibverbs and librxe, on
 * two sroce devices joined by a veth pair (RC and UD traffic from device A
 * to device B).  librxe keeps where it mapped the rings to itself, so each
 * ring is found as the new mapping of the uverbs device in /proc/self/maps
 * after the call that made it, and told apart by the index mask in its
 * header (the queue depths are chosen to differ).  The program then writes
 * the rings as librxe would not: garbage WQEs, indices out of range, a
 * consumer index the kernel owns, and a thread rewriting everything while
 * the kernel consumes.  It rings the send doorbell as librxe does, with an
 * empty IB_USER_VERBS_CMD_POST_SEND on the command fd.
 *
 * Expected of the driver: each offending WQE completes with the error
 * status its defect calls for and puts its QP in error; a CQ whose
 * consumer index is garbage reports IBV_EVENT_CQ_ERR; calls the ABI does
 * not allow fail with an errno; every object can still be destroyed; and
 * nothing outside the garbled QP notices (a clean QP pair of this process
 * carries traffic afterwards; the test script runs another process's
 * traffic meanwhile).  The kernel faulting is caught by the test rig.
 *
 * Usage: hostile_rings -a DEV_A -A GID_INDEX_A -b DEV_B -B GID_INDEX_B
 *	[-r RACE_ROUNDS] [-s RACE_SECONDS_PER_ROUND] [-S SEED]
 *        hostile_rings --plan [-r RACE_ROUNDS]
 * Prints "PASS name", "FAIL name: why" and "INFO ..." lines, one PASS or
 * FAIL for each check of plan_checks() whatever happens (check_plan.h);
 * exits 1 if anything failed.  --plan prints how many checks a run with
 * those race rounds reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "check_plan.h"

#define SQ_WR		15	/* 16 slots: index mask 15 */
#define RQ_WR		31	/* 32 slots: index mask 31 */
#define CQ_CQE		63	/* 64 slots or more: index mask >= 63 */
#define SRQ_WR		7	/* 8 slots */
#define BUF_SIZE	65536
#define MSG		64
#define QKEY		0x11111111
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* the header of a ring as librxe and the kernel share it (rxe_queue.h) */
#define RING_PROD	128
#define RING_CONS	256
#define RING_DATA	384

static int failures;
/* RTS attribute of the next QPs connected; 7 retries RNR for ever */
static int rnr_retry = 1;
/*
 * Local ACK timeout of new RC QPs: short, so that the cases meant to fail
 * do so fast; longer for cases that must succeed through RNR NAK cycles,
 * which a loaded host can otherwise turn into a retry-count failure.
 */
static int ack_timeout = 10;

static void pass(const char *name)
{
	failures += plan_report(name, NULL);
}

static void __printf(2, 3) fail(const char *name, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	failures += plan_report(name, why);
}

static void info(const char *fmt, ...)
{
	va_list ap;

	printf("INFO ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* setup failed: every check not reported yet fails with the reason */
static void die(const char *what)
{
	char why[256];

	snprintf(why, sizeof(why), "setup failed: %s: %s", what,
		 strerror(errno));
	printf("INFO %s\n", why);
	plan_finish(why);
	exit(1);
}

/* ---- finding the rings ---------------------------------------------------- */

struct ring {
	__u8 *base;
	__u32 mask;
	__u32 log2_elem;
};

#define MAX_MAPS 256
static uintptr_t known[MAX_MAPS];
static int nknown;

static int is_known(uintptr_t a)
{
	for (int i = 0; i < nknown; i++)
		if (known[i] == a)
			return 1;
	return 0;
}

/*
 * The uverbs mappings that appeared since the last call (the rings of the
 * object just made); mappings that went away are forgotten first.
 */
static int new_rings(struct ring *out, int max)
{
	uintptr_t now[MAX_MAPS], start, end;
	int n = 0, nnow = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("open /proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx", &start, &end) != 2 ||
		    nnow == MAX_MAPS)
			continue;
		now[nnow++] = start;
		if (is_known(start) || n == max)
			continue;
		out[n].base = (__u8 *)start;
		out[n].log2_elem = *(__u32 *)start;
		out[n].mask = *(__u32 *)(start + 4);
		n++;
	}
	fclose(f);
	memcpy(known, now, sizeof(now[0]) * nnow);
	nknown = nnow;
	return n;
}

/* the indices, as the other side may be writing them meanwhile */
static __u32 ring_prod(const struct ring *r)
{
	return __atomic_load_n((__u32 *)(r->base + RING_PROD),
			       __ATOMIC_ACQUIRE);
}

static void ring_set_cons(const struct ring *r, __u32 v)
{
	__atomic_store_n((__u32 *)(r->base + RING_CONS), v,
			 __ATOMIC_RELEASE);
}

static void *ring_slot(const struct ring *r, __u32 i)
{
	return r->base + RING_DATA + ((size_t)(i & r->mask) << r->log2_elem);
}

static size_t ring_elem(const struct ring *r)
{
	return (size_t)1 << r->log2_elem;
}

/* the producer store that hands slots over, as librxe makes it */
static void ring_set_prod(const struct ring *r, __u32 v)
{
	__atomic_store_n((__u32 *)(r->base + RING_PROD), v,
			 __ATOMIC_RELEASE);
}

/* ---- the raw uverbs commands librxe issues -------------------------------- */

/* librxe's doorbell: an empty post_send; returns 0 or an errno */
static int kick(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req;
	struct ib_uverbs_post_send_resp resp;

	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = qp->handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno;
	return 0;
}

/* a post_send or post_recv with one real WR, as librxe never sends */
static int post_real_wr(struct ibv_qp *qp, int recv)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		union {
			struct {
				struct ib_uverbs_post_send cmd;
				struct ib_uverbs_send_wr wr;
			} s;
			struct {
				struct ib_uverbs_post_recv cmd;
				struct ib_uverbs_recv_wr wr;
			} r;
		};
	} req;
	struct ib_uverbs_post_send_resp resp;
	size_t len;

	memset(&req, 0, sizeof(req));
	req.hdr.out_words = sizeof(resp) / 4;
	if (recv) {
		len = sizeof(req.hdr) + sizeof(req.r);
		req.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
		req.r.cmd.response = (uintptr_t)&resp;
		req.r.cmd.qp_handle = qp->handle;
		req.r.cmd.wr_count = 1;
		req.r.cmd.wqe_size = sizeof(req.r.wr);
		req.r.wr.wr_id = 7;
	} else {
		len = sizeof(req.hdr) + sizeof(req.s);
		req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
		req.s.cmd.response = (uintptr_t)&resp;
		req.s.cmd.qp_handle = qp->handle;
		req.s.cmd.wr_count = 1;
		req.s.cmd.wqe_size = sizeof(req.s.wr);
		req.s.wr.wr_id = 7;
		req.s.wr.opcode = IBV_WR_SEND;
		req.s.wr.send_flags = IBV_SEND_SIGNALED;
	}
	req.hdr.in_words = len / 4;
	if (write(qp->context->cmd_fd, &req, len) != (ssize_t)len)
		return errno;
	return 0;
}

/* ---- devices and QPs ------------------------------------------------------ */

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;	/* pd2: for objects of a foreign PD */
	struct ibv_mr *mr, *mr2;
	__u8 *buf, *buf2;
	int gidx;
	union ibv_gid gid;
};

static struct side sa, sb;

struct qpx {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ring cqr, sq, rq;
};

static void open_side(struct side *s, const char *name, int gidx)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (!list[i]) {
		errno = ENODEV;
		die(name);
	}
	s->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!s->ctx)
		die("ibv_open_device");
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		die("ibv_query_gid");
	s->pd = ibv_alloc_pd(s->ctx);
	s->pd2 = ibv_alloc_pd(s->ctx);
	s->buf = aligned_alloc(4096, BUF_SIZE);
	s->buf2 = aligned_alloc(4096, BUF_SIZE);
	if (!s->pd || !s->pd2 || !s->buf || !s->buf2)
		die("alloc_pd");
	memset(s->buf, 0x5a, BUF_SIZE);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	s->mr2 = ibv_reg_mr(s->pd2, s->buf2, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr || !s->mr2)
		die("ibv_reg_mr");
	new_rings(NULL, 0);
}

/* a CQ of side @s and its ring */
static struct ibv_cq *make_cq(struct side *s, struct ring *r)
{
	struct ibv_cq *cq;
	struct ring found[4];
	int n;

	new_rings(NULL, 0);
	cq = ibv_create_cq(s->ctx, CQ_CQE, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	n = new_rings(found, 4);
	if (n != 1) {
		errno = EPROTO;
		die("one new mapping for a CQ");
	}
	*r = found[0];
	return cq;
}

static void make_qp(struct side *s, struct qpx *x, enum ibv_qp_type type,
		    struct ibv_pd *pd, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.qp_type = type,
		.sq_sig_all = 0,
		.srq = srq,
		.cap = {
			.max_send_wr = SQ_WR,
			.max_recv_wr = srq ? 0 : RQ_WR,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
	};
	struct ring found[4];
	int n, i;

	memset(x, 0, sizeof(*x));
	x->cq = make_cq(s, &x->cqr);
	init.send_cq = x->cq;
	init.recv_cq = x->cq;
	x->qp = ibv_create_qp(pd ? pd : s->pd, &init);
	if (!x->qp)
		die("ibv_create_qp");
	n = new_rings(found, 4);
	for (i = 0; i < n; i++) {
		if (found[i].mask == SQ_WR)
			x->sq = found[i];
		else if (found[i].mask == RQ_WR)
			x->rq = found[i];
	}
	if (!x->sq.base || (!srq && !x->rq.base)) {
		errno = EPROTO;
		die("finding the new QP's rings");
	}
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
		.qkey = QKEY,
	};

	if (qp->qp_type == IBV_QPT_UD)
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_QKEY);
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void connect_rc(struct ibv_qp *qp, const struct side *me,
		       const struct side *peer, __u32 dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = peer->gid, .sgid_index = me->gidx,
				 .hop_limit = 64 },
			.port_num = 1,
		},
	};

	if (to_init(qp))
		die("RC to INIT");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RC to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = ack_timeout;
	a.retry_cnt = 2;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("RC to RTS");
}

static void ready_ud(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	if (to_init(qp) || ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("UD to RTR");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD to RTS");
}

struct pair {
	struct qpx a, b;
};

static void make_rc_pair(struct pair *p, struct ibv_srq *srq_b)
{
	make_qp(&sa, &p->a, IBV_QPT_RC, NULL, NULL);
	make_qp(&sb, &p->b, IBV_QPT_RC, NULL, srq_b);
	connect_rc(p->a.qp, &sa, &sb, p->b.qp->qp_num);
	connect_rc(p->b.qp, &sb, &sa, p->a.qp->qp_num);
}

static int destroy_qpx(struct qpx *x)
{
	int err = ibv_destroy_qp(x->qp);

	if (!err)
		err = ibv_destroy_cq(x->cq);
	new_rings(NULL, 0);
	return err;
}

/* the checks destroy_one() and destroy_pair() report for check NAME */
#define UD_DESTROYED	"%s: UD QP and CQ destroyed"
#define DESTROYED	"%s: QPs and CQs destroyed"

static void destroy_one(const char *name, struct qpx *x)
{
	char what[PLAN_NAME];
	int err = destroy_qpx(x);

	snprintf(what, sizeof(what), UD_DESTROYED, name);
	if (err)
		fail(what, "%s", strerror(err));
	else
		pass(what);
}

static void destroy_pair(const char *name, struct pair *p)
{
	char what[PLAN_NAME];
	int err = destroy_qpx(&p->a);

	if (!err)
		err = destroy_qpx(&p->b);
	snprintf(what, sizeof(what), DESTROYED, name);
	if (err)
		fail(what, "%s", strerror(err));
	else
		pass(what);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &i))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the next completion on @cq, within @secs; 0 if there is none */
static int next_wc(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now_s() + secs;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0;
		usleep(1000);
	} while (now_s() < end);
	return 0;
}

/* ---- WQEs written straight into the rings -------------------------------- */

static struct rxe_send_wqe *swqe_at(const struct ring *r, __u32 i)
{
	struct rxe_send_wqe *w = ring_slot(r, i);

	memset(w, 0, ring_elem(r));
	return w;
}

/* a valid signalled SEND of MSG bytes from side A's MR */
static struct rxe_send_wqe *swqe_send(const struct ring *r, __u32 i,
				      __u64 wr_id)
{
	struct rxe_send_wqe *w = swqe_at(r, i);

	w->wr.wr_id = wr_id;
	w->wr.opcode = IBV_WR_SEND;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	w->dma.length = MSG;
	w->dma.resid = MSG;
	w->dma.num_sge = 1;
	w->dma.sge[0].addr = (uintptr_t)sa.buf;
	w->dma.sge[0].length = MSG;
	w->dma.sge[0].lkey = sa.mr->lkey;
	return w;
}

/* hand the WQE at the producer over and ring the doorbell */
static int post_one(struct qpx *x)
{
	ring_set_prod(&x->sq, (ring_prod(&x->sq) + 1) & x->sq.mask);
	return kick(x->qp);
}

static void post_recv_ok(struct qpx *x, __u64 wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sb.buf, .length = BUF_SIZE,
		.lkey = sb.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(x->qp, &wr, &bad))
		die("ibv_post_recv");
}

/*
 * The first completion of @x must be @wr_id with @status, and the QP must
 * then be in ERR (when @to_err).
 */
static void expect_wc(const char *name, struct qpx *x, __u64 wr_id,
		      enum ibv_wc_status status, int to_err)
{
	struct ibv_wc wc;

	if (!next_wc(x->cq, &wc, 5)) {
		fail(name, "no completion within 5 s");
		return;
	}
	if (wc.wr_id != wr_id || wc.status != status) {
		fail(name, "completion wr_id %llu status %s, wanted %llu %s",
		     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		     (unsigned long long)wr_id, ibv_wc_status_str(status));
		return;
	}
	if (to_err && qp_state(x->qp) != IBV_QPS_ERR) {
		fail(name, "%s as wanted, but the QP is in state %d",
		     ibv_wc_status_str(status), qp_state(x->qp));
		return;
	}
	pass(name);
}

/* ---- send queue scenarios ------------------------------------------------- */

enum sq_garbage {
	G_OPCODE, G_OPCODE_REG_MR, G_OPCODE_UD_READ, G_FLAGS, G_NUM_SGE,
	G_NUM_SGE_HUGE, G_LEN_HUGE, G_LEN_WRAP, G_LKEY, G_LKEY_FOREIGN_PD,
	G_ADDR_OUTSIDE, G_INLINE_HUGE, G_INLINE_OVER, G_INLINE_READ,
	G_ATOMIC_SHORT, G_BIND_UNKNOWN, G_BIND_MR_KEY, G_NR
};

static const struct {
	const char *name;
	enum ibv_wc_status status;
} sq_cases[G_NR] = {
	[G_OPCODE] = { "SQ: opcode 0x7f", IBV_WC_LOC_QP_OP_ERR },
	[G_OPCODE_REG_MR] = { "SQ: kernel-only opcode REG_MR",
			      IBV_WC_LOC_QP_OP_ERR },
	[G_OPCODE_UD_READ] = { "SQ: RDMA READ on a UD QP",
			       IBV_WC_LOC_QP_OP_ERR },
	[G_FLAGS] = { "SQ: unknown send_flags bits", IBV_WC_LOC_QP_OP_ERR },
	[G_NUM_SGE] = { "SQ: num_sge max_send_sge + 1", IBV_WC_LOC_QP_OP_ERR },
	[G_NUM_SGE_HUGE] = { "SQ: num_sge 0xffffffff", IBV_WC_LOC_QP_OP_ERR },
	[G_LEN_HUGE] = { "SQ: SGE length 0xffffffff", IBV_WC_LOC_LEN_ERR },
	[G_LEN_WRAP] = { "SQ: two SGEs whose lengths wrap 32 bits",
			 IBV_WC_LOC_LEN_ERR },
	[G_LKEY] = { "SQ: lkey 0xdeadbeef", IBV_WC_LOC_PROT_ERR },
	[G_LKEY_FOREIGN_PD] = { "SQ: lkey of another PD's MR",
				IBV_WC_LOC_PROT_ERR },
	[G_ADDR_OUTSIDE] = { "SQ: SGE past the end of its MR",
			     IBV_WC_LOC_PROT_ERR },
	[G_INLINE_HUGE] = { "SQ: inline length 1 MiB", IBV_WC_LOC_LEN_ERR },
	[G_INLINE_OVER] = { "SQ: inline length max_inline_data + 1",
			    IBV_WC_LOC_LEN_ERR },
	[G_INLINE_READ] = { "SQ: inline on an RDMA READ",
			    IBV_WC_LOC_QP_OP_ERR },
	[G_ATOMIC_SHORT] = { "SQ: atomic into a 4-byte SGE",
			     IBV_WC_LOC_LEN_ERR },
	[G_BIND_UNKNOWN] = { "SQ: BIND_MW of window key 0xdeadbeef",
			     IBV_WC_MW_BIND_ERR },
	[G_BIND_MR_KEY] = { "SQ: BIND_MW naming an MR as its window",
			    IBV_WC_MW_BIND_ERR },
};

static void sq_garbage_one(enum sq_garbage g)
{
	const char *name = sq_cases[g].name;
	__u32 p, max_sge, max_inline;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct rxe_send_wqe *w;
	struct pair pr;
	int err;

	make_rc_pair(&pr, NULL);
	post_recv_ok(&pr.b, 1);
	if (ibv_query_qp(pr.a.qp, &qa, IBV_QP_CAP, &qi))
		die("ibv_query_qp");
	max_sge = qa.cap.max_send_sge;
	max_inline = qa.cap.max_inline_data;
	p = ring_prod(&pr.a.sq);
	w = swqe_send(&pr.a.sq, p, 1000 + g);
	switch (g) {
	case G_OPCODE:
		w->wr.opcode = 0x7f;
		break;
	case G_OPCODE_REG_MR:
		w->wr.opcode = 0x20;	/* the kernel's IB_WR_REG_MR */
		break;
	case G_OPCODE_UD_READ:
		break;		/* below, on a UD QP */
	case G_FLAGS:
		w->wr.send_flags |= 0x80000000u;
		break;
	case G_NUM_SGE:
		w->dma.num_sge = max_sge + 1;
		break;
	case G_NUM_SGE_HUGE:
		w->dma.num_sge = 0xffffffffu;
		break;
	case G_LEN_HUGE:
		w->dma.sge[0].length = 0xffffffffu;
		w->dma.length = 0xffffffffu;
		break;
	case G_LEN_WRAP:
		w->dma.num_sge = 2;
		w->dma.sge[0].length = 0x80000000u;
		w->dma.sge[1] = w->dma.sge[0];
		w->dma.length = 0;	/* what the sum wraps to */
		break;
	case G_LKEY:
		w->dma.sge[0].lkey = 0xdeadbeef;
		break;
	case G_LKEY_FOREIGN_PD:
		w->dma.sge[0].addr = (uintptr_t)sa.buf2;
		w->dma.sge[0].lkey = sa.mr2->lkey;
		break;
	case G_ADDR_OUTSIDE:
		w->dma.sge[0].addr = (uintptr_t)sa.buf + BUF_SIZE - 8;
		break;
	case G_INLINE_HUGE:
		w->wr.send_flags |= IBV_SEND_INLINE;
		w->dma.length = 1 << 20;
		w->dma.num_sge = 0;
		break;
	case G_INLINE_OVER:
		w->wr.send_flags |= IBV_SEND_INLINE;
		w->dma.length = max_inline + 1;
		w->dma.num_sge = 0;
		break;
	case G_INLINE_READ:
		w->wr.opcode = IBV_WR_RDMA_READ;
		w->wr.send_flags |= IBV_SEND_INLINE;
		w->wr.wr.rdma.remote_addr = (uintptr_t)sb.buf;
		w->wr.wr.rdma.rkey = sb.mr->rkey;
		break;
	case G_ATOMIC_SHORT:
		w->wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		w->wr.wr.atomic.remote_addr = (uintptr_t)sb.buf;
		w->wr.wr.atomic.rkey = sb.mr->rkey;
		w->dma.sge[0].length = 4;
		w->dma.length = 4;
		break;
	case G_BIND_UNKNOWN:
	case G_BIND_MR_KEY:
		w->wr.opcode = IBV_WR_BIND_MW;
		w->wr.wr.mw.addr = (uintptr_t)sa.buf;
		w->wr.wr.mw.length = 64;
		w->wr.wr.mw.mr_lkey = sa.mr->lkey;
		w->wr.wr.mw.mw_rkey = g == G_BIND_UNKNOWN ? 0xdeadbeef :
				      sa.mr->rkey;
		w->wr.wr.mw.rkey = (w->wr.wr.mw.mw_rkey & ~0xffu) |
				   ((w->wr.wr.mw.mw_rkey + 1) & 0xffu);
		w->wr.wr.mw.access = IBV_ACCESS_REMOTE_READ;
		break;
	case G_NR:
		break;
	}
	if (g == G_OPCODE_UD_READ) {
		struct qpx ud;

		make_qp(&sa, &ud, IBV_QPT_UD, NULL, NULL);
		ready_ud(ud.qp);
		p = ring_prod(&ud.sq);
		memcpy(swqe_at(&ud.sq, p), w, sizeof(*w) + 2 * 16);
		((struct rxe_send_wqe *)ring_slot(&ud.sq, p))->wr.opcode =
			IBV_WR_RDMA_READ;
		err = post_one(&ud);
		if (err)
			fail(name, "doorbell: %s", strerror(err));
		else
			expect_wc(name, &ud, 1000 + g, sq_cases[g].status, 1);
		destroy_one(name, &ud);
		destroy_pair(name, &pr);
		return;
	}
	err = post_one(&pr.a);
	if (err)
		fail(name, "doorbell: %s", strerror(err));
	else
		expect_wc(name, &pr.a, 1000 + g, sq_cases[g].status, 1);
	destroy_pair(name, &pr);
}

/*
 * A producer index far out of range, over a ring full of bad WQEs: the
 * kernel masks it, the first WQE fails, the rest flush, and no more
 * completions come than the masked index covers.
 */
static void sq_prod_out_of_range(void)
{
	const char *name = "SQ: producer index 0xdeadbeef";
	__u32 i, want, got = 0, errors = 0, flushed = 0;
	struct rxe_send_wqe *w;
	struct ibv_wc wc;
	struct pair pr;
	int err;

	make_rc_pair(&pr, NULL);
	for (i = 0; i <= pr.a.sq.mask; i++) {
		w = swqe_send(&pr.a.sq, i, i);
		w->wr.opcode = 0x55;
	}
	ring_set_prod(&pr.a.sq, 0xdeadbeef);
	want = 0xdeadbeef & pr.a.sq.mask;
	err = kick(pr.a.qp);
	if (!err) {
		/* a second doorbell: the ring must not look longer */
		usleep(100000);
		err = kick(pr.a.qp);
	}
	if (err) {
		fail(name, "doorbell: %s", strerror(err));
		destroy_pair(name, &pr);
		return;
	}
	while (next_wc(pr.a.cq, &wc, 1)) {
		got++;
		if (wc.status == IBV_WC_LOC_QP_OP_ERR && wc.wr_id == 0)
			errors++;
		else if (wc.status == IBV_WC_WR_FLUSH_ERR)
			flushed++;
	}
	if (got != want || errors != 1 || flushed != want - 1)
		fail(name, "%u completions (%u LOC_QP_OP_ERR, %u flushed), wanted %u: 1 and %u",
		     got, errors, flushed, want, want - 1);
	else if (qp_state(pr.a.qp) != IBV_QPS_ERR)
		fail(name, "QP not in ERR");
	else
		pass(name);
	destroy_pair(name, &pr);
}

/*
 * The SQ's consumer index is the kernel's: garbage written there is never
 * read back, and a valid SEND posted after it goes through.  So does one
 * whose producer index was moved back while it was in flight (held there
 * by RNR NAKs until a receive is posted): moved back behind what the
 * kernel fetched, the index means "nothing new", not a ring's worth.
 */
static void sq_cons_garbage(void)
{
	const char *name = "SQ: garbage in the kernel-owned consumer index";
	struct ibv_wc wc;
	struct pair pr;
	__u32 p;
	int err;

	rnr_retry = 7;
	ack_timeout = 14;
	make_rc_pair(&pr, NULL);
	rnr_retry = 1;
	ack_timeout = 10;
	post_recv_ok(&pr.b, 1);
	ring_set_cons(&pr.a.sq, 0xffffffff);
	p = ring_prod(&pr.a.sq);
	swqe_send(&pr.a.sq, p, 77);
	err = post_one(&pr.a);
	if (err)
		fail(name, "doorbell: %s", strerror(err));
	else
		expect_wc(name, &pr.a, 77, IBV_WC_SUCCESS, 0);
	if (!next_wc(pr.b.cq, &wc, 5) || wc.status != IBV_WC_SUCCESS ||
	    wc.byte_len != MSG)
		fail("SQ: the SEND after the garbage index arrives",
		     "receiver saw no good completion");
	else
		pass("SQ: the SEND after the garbage index arrives");

	/* producer index moved back over the WQE in flight, then on again */
	name = "SQ: producer index moved backwards";
	p = ring_prod(&pr.a.sq);
	swqe_send(&pr.a.sq, p, 78);
	ring_set_prod(&pr.a.sq, (p + 1) & pr.a.sq.mask);
	err = kick(pr.a.qp);
	usleep(100000);		/* sent, and RNR NAKed: no receive yet */
	ring_set_prod(&pr.a.sq, p);
	if (!err)
		err = kick(pr.a.qp);
	usleep(100000);
	ring_set_prod(&pr.a.sq, (p + 1) & pr.a.sq.mask);
	if (!err)
		err = kick(pr.a.qp);
	post_recv_ok(&pr.b, 2);
	if (err) {
		fail(name, "doorbell: %s", strerror(err));
	} else {
		/* sent once, whenever the kernel saw it */
		expect_wc(name, &pr.a, 78, IBV_WC_SUCCESS, 0);
		if (next_wc(pr.a.cq, &wc, 0.5))
			fail("SQ: one completion for a WQE whose index went back",
			     "another: wr_id %llu %s",
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
		else
			pass("SQ: one completion for a WQE whose index went back");
	}
	destroy_pair("SQ: kernel-owned indices", &pr);
}

/* ---- UD address handles -------------------------------------------------- */

/* a legal UD send with an AH of side A's first and second PD */
static const char *const ud_legal[2] = {
	"UD: a legal send with librxe's own ah_num",
	"UD: a legal send with librxe's own ah_num, second PD",
};

/* ah_num librxe wrote into a slot for an AH of @pd (a legal post) */
static __u32 learn_ah_num(struct ibv_pd *pd, struct ibv_ah **ahp)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = sb.gid, .sgid_index = sa.gidx,
			 .hop_limit = 64 },
		.port_num = 1,
	};
	struct ibv_sge sge = { .length = 8 };
	struct ibv_send_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct rxe_send_wqe *w;
	struct ibv_wc wc;
	struct qpx ud;
	__u32 p, num;

	sge.addr = (uintptr_t)(pd == sa.pd ? sa.buf : sa.buf2);
	sge.lkey = pd == sa.pd ? sa.mr->lkey : sa.mr2->lkey;
	*ahp = ibv_create_ah(pd, &aa);
	if (!*ahp)
		die("ibv_create_ah");
	make_qp(&sa, &ud, IBV_QPT_UD, pd, NULL);
	ready_ud(ud.qp);
	wr.wr.ud.ah = *ahp;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = QKEY;
	p = ring_prod(&ud.sq);
	if (ibv_post_send(ud.qp, &wr, &bad))
		die("ibv_post_send UD");
	w = ring_slot(&ud.sq, p);
	num = w->wr.wr.ud.ah_num;
	if (!next_wc(ud.cq, &wc, 5) || wc.status != IBV_WC_SUCCESS)
		fail(ud_legal[pd != sa.pd], "no successful completion");
	else
		pass(ud_legal[pd != sa.pd]);
	destroy_qpx(&ud);
	return num;
}

enum ud_garbage { U_AH_0, U_AH_MAX, U_AH_NEVER, U_AH_FOREIGN, U_QPN,
	U_AH_DESTROYED, U_NR };

static const struct {
	const char *name;
	enum ibv_wc_status status;
} ud_cases[U_NR] = {
	[U_AH_0] = { "UD: ah_num 0", IBV_WC_LOC_QP_OP_ERR },
	[U_AH_MAX] = { "UD: ah_num 0xffffffff", IBV_WC_LOC_QP_OP_ERR },
	[U_AH_NEVER] = { "UD: ah_num never allocated", IBV_WC_LOC_QP_OP_ERR },
	[U_AH_FOREIGN] = { "UD: ah_num of another PD's AH",
			   IBV_WC_LOC_PROT_ERR },
	[U_QPN] = { "UD: remote QPN above 24 bits", IBV_WC_LOC_QP_OP_ERR },
	[U_AH_DESTROYED] = { "UD: ah_num of a destroyed AH",
			     IBV_WC_LOC_QP_OP_ERR },
};

static void ud_bad(enum ud_garbage g, __u32 ah_num, __u32 remote_qpn)
{
	const char *name = ud_cases[g].name;
	enum ibv_wc_status status = ud_cases[g].status;
	struct rxe_send_wqe *w;
	struct qpx ud;
	__u32 p;
	int err;

	make_qp(&sa, &ud, IBV_QPT_UD, NULL, NULL);
	ready_ud(ud.qp);
	p = ring_prod(&ud.sq);
	w = swqe_send(&ud.sq, p, 300);
	w->wr.wr.ud.ah_num = ah_num;
	w->wr.wr.ud.remote_qpn = remote_qpn;
	w->wr.wr.ud.remote_qkey = QKEY;
	err = post_one(&ud);
	if (err)
		fail(name, "doorbell: %s", strerror(err));
	else
		expect_wc(name, &ud, 300, status, 1);
	destroy_one(name, &ud);
}

static void ud_scenarios(void)
{
	struct ibv_ah *own, *foreign;
	__u32 own_num, foreign_num;

	own_num = learn_ah_num(sa.pd, &own);
	foreign_num = learn_ah_num(sa.pd2, &foreign);
	info("ah_num of an AH on the QP's PD %u, on another PD %u",
	     own_num, foreign_num);
	ud_bad(U_AH_0, 0, 1);
	ud_bad(U_AH_MAX, 0xffffffff, 1);
	ud_bad(U_AH_NEVER, own_num + 1000, 1);
	ud_bad(U_AH_FOREIGN, foreign_num, 1);
	ud_bad(U_QPN, own_num, 0x1000001);
	/* the AH is gone: its number must not reach the freed object */
	if (ibv_destroy_ah(own) || ibv_destroy_ah(foreign))
		fail("UD: AHs destroyed", "%s", strerror(errno));
	else
		pass("UD: AHs destroyed");
	ud_bad(U_AH_DESTROYED, own_num, 1);
}

/* ---- receive queue scenarios --------------------------------------------- */

enum rq_garbage { R_NUM_SGE, R_LEN_WRAP, R_LKEY, R_PROD, R_NR };

static const struct {
	const char *name;
	enum ibv_wc_status status;	/* the receiver's completion */
	bool srq;			/* again on an SRQ ("SRQ: ...") */
} rq_cases[R_NR] = {
	[R_NUM_SGE] = { "RQ: num_sge 0xffffffff", IBV_WC_LOC_QP_OP_ERR,
			true },
	[R_LEN_WRAP] = { "RQ: SGE lengths past 2^32",
			 IBV_WC_LOC_QP_OP_ERR, true },
	[R_LKEY] = { "RQ: lkey 0xdeadbeef", IBV_WC_LOC_PROT_ERR, true },
	[R_PROD] = { "RQ: producer index 0xfffffff1 over zeroed slots",
		     IBV_WC_LOC_LEN_ERR, false },
};

static void rq_fill(struct rxe_recv_wqe *w, __u64 wr_id)
{
	w->wr_id = wr_id;
	w->dma.num_sge = 1;
	w->dma.length = BUF_SIZE;
	w->dma.sge[0].addr = (uintptr_t)sb.buf;
	w->dma.sge[0].length = BUF_SIZE;
	w->dma.sge[0].lkey = sb.mr->lkey;
}

/*
 * A WQE that is wrong; fills it into @r at the producer and hands it over.
 * Returns the wr_id the receiver's completion carries.
 */
static __u64 rq_put_garbage(const struct ring *r, enum rq_garbage g)
{
	__u32 p = ring_prod(r), i;
	struct rxe_recv_wqe *w = ring_slot(r, p);

	memset(w, 0, ring_elem(r));
	rq_fill(w, 2000 + g);
	switch (g) {
	case R_NUM_SGE:
		w->dma.num_sge = 0xffffffff;
		break;
	case R_LEN_WRAP:
		w->dma.num_sge = 2;
		w->dma.sge[0].length = 0xffffffff;
		w->dma.sge[1] = w->dma.sge[0];
		break;
	case R_LKEY:
		w->dma.sge[0].lkey = 0xdeadbeef;
		break;
	case R_PROD:
		for (i = 0; i <= r->mask; i++)
			memset(ring_slot(r, i), 0, ring_elem(r));
		ring_set_prod(r, 0xfffffff1);
		return 0;
	case R_NR:
		break;
	}
	ring_set_prod(r, (p + 1) & r->mask);
	return 2000 + g;
}

static void rq_garbage_one(enum rq_garbage g, int srq)
{
	char name[128], what[PLAN_NAME];
	struct ibv_srq_init_attr sia = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 2 },
	};
	struct ibv_srq *s = NULL;
	struct ring sr = { 0 }, found[2];
	struct ibv_wc wc;
	struct pair pr;
	__u64 id;
	__u32 p;
	int err;

	snprintf(name, sizeof(name), "%s%s", srq ? "S" : "", rq_cases[g].name);
	if (srq) {
		new_rings(NULL, 0);
		s = ibv_create_srq(sb.pd, &sia);
		if (!s || new_rings(found, 2) != 1)
			die("ibv_create_srq");
		sr = found[0];
	}
	make_rc_pair(&pr, s);
	id = rq_put_garbage(srq ? &sr : &pr.b.rq, g);
	p = ring_prod(&pr.a.sq);
	swqe_send(&pr.a.sq, p, 99);
	err = post_one(&pr.a);
	if (err) {
		fail(name, "doorbell: %s", strerror(err));
	} else {
		expect_wc(name, &pr.b, id, rq_cases[g].status, 1);
		snprintf(what, sizeof(what), "%s: the sender fails too", name);
		if (!next_wc(pr.a.cq, &wc, 10))
			fail(what, "no completion within 10 s");
		else if (wc.wr_id != 99 || wc.status == IBV_WC_SUCCESS)
			fail(what, "wr_id %llu %s", (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
		else
			pass(what);
	}
	destroy_pair(name, &pr);
	if (s) {
		snprintf(what, sizeof(what), "%s: SRQ destroyed", name);
		if (ibv_destroy_srq(s))
			fail(what, "%s", strerror(errno));
		else
			pass(what);
	}
	new_rings(NULL, 0);
}

/* ---- CQ scenarios --------------------------------------------------------- */

/* the next async event of @ctx within @secs, or -1 */
static int next_async(struct ibv_context *ctx, struct ibv_async_event *ev,
		      int secs)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, secs * 1000) != 1)
		return -1;
	return ibv_get_async_event(ctx, ev);
}

/* consumer index garbage: how far past the producer, and the check */
static const struct {
	__u32 cons_delta;
	const char *name;
} cq_cases[] = {
	{ 1, "CQ: consumer index one past the producer (full)" },
	{ 0x80000001u, "CQ: consumer index out of range, full once masked" },
};

/*
 * The CQ's consumer index is userspace's: set so that the ring looks
 * full, the next completion overflows it and the CQ reports an error.
 */
static void cq_cons_garbage(__u32 cons_delta, const char *name)
{
	struct ibv_async_event ev;
	struct pair pr;
	__u32 p;
	int err, got = 0;

	make_rc_pair(&pr, NULL);
	post_recv_ok(&pr.b, 1);
	/* prod + 1 == cons: full; any value is masked by the kernel */
	p = ring_prod(&pr.a.cqr);
	ring_set_cons(&pr.a.cqr, p + cons_delta);
	p = ring_prod(&pr.a.sq);
	swqe_send(&pr.a.sq, p, 5);
	err = post_one(&pr.a);
	if (err) {
		fail(name, "doorbell: %s", strerror(err));
		destroy_pair(name, &pr);
		return;
	}
	while (next_async(sa.ctx, &ev, 5) == 0) {
		if (ev.event_type == IBV_EVENT_CQ_ERR &&
		    ev.element.cq == pr.a.cq)
			got = 1;
		else
			info("%s: async event %s", name,
			     ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		if (got)
			break;
	}
	if (!got)
		fail(name, "no IBV_EVENT_CQ_ERR within 5 s");
	else
		pass(name);
	destroy_pair(name, &pr);
}

/*
 * Resizing a CQ whose consumer index says it holds more than the new size:
 * refused, and the CQ still usable.
 */
static void cq_resize_garbage(void)
{
	const char *name = "CQ: resize below the count a garbage index claims";
	struct ring r;
	struct ibv_cq *cq = make_cq(&sa, &r);
	__u32 p = ring_prod(&r);
	int err;

	ring_set_cons(&r, p + 1);		/* mask entries "unread" */
	err = ibv_resize_cq(cq, 8);
	if (!err)
		fail(name, "resize succeeded");
	else if (err != EINVAL)
		fail(name, "failed with %s, wanted EINVAL", strerror(err));
	else
		pass(name);
	ring_set_cons(&r, p);
	err = ibv_resize_cq(cq, 8);
	if (err)
		fail("CQ: resize after the index is put right", "%s",
		     strerror(err));
	else
		pass("CQ: resize after the index is put right");
	if (ibv_destroy_cq(cq))
		fail("CQ: destroyed after resizes", "%s", strerror(errno));
	else
		pass("CQ: destroyed after resizes");
	new_rings(NULL, 0);
}

/* ---- calls the ABI does not allow ----------------------------------------- */

static void refused_calls(void)
{
	struct pair pr;
	int err;

	make_rc_pair(&pr, NULL);
	err = post_real_wr(pr.a.qp, 0);
	if (err == EINVAL)
		pass("uverbs post_send with a real WR: EINVAL");
	else
		fail("uverbs post_send with a real WR: EINVAL", "got %s",
		     err ? strerror(err) : "success");
	err = post_real_wr(pr.a.qp, 1);
	if (err == EOPNOTSUPP)
		pass("uverbs post_recv on a user QP: EOPNOTSUPP");
	else
		fail("uverbs post_recv on a user QP: EOPNOTSUPP", "got %s",
		     err ? strerror(err) : "success");
	destroy_pair("refused calls", &pr);
}

/* ---- racing the kernel ----------------------------------------------------- */

struct racer {
	struct pair *pr;
	atomic_int stop;
	unsigned int seed;
	unsigned long writes;
};

static __u32 rnd(unsigned int *s)
{
	return (__u32)rand_r(s) ^ ((__u32)rand_r(s) << 16);
}

/* plausible-looking WQE fields most of the time, so the kernel gets far */
static void scribble_swqe(struct rxe_send_wqe *w, unsigned int *s)
{
	__u32 r = rnd(s);

	w->wr.wr_id = r;
	w->wr.opcode = r & 1 ? IBV_WR_SEND : rnd(s) % 12;
	w->wr.send_flags = r & 2 ? IBV_SEND_SIGNALED : rnd(s);
	w->dma.num_sge = r & 4 ? 1 : rnd(s) % 40;
	w->dma.length = r & 8 ? MSG : rnd(s);
	w->dma.sge[0].addr = (uintptr_t)sa.buf + (r & 16 ? 0 : rnd(s));
	w->dma.sge[0].length = r & 32 ? MSG : rnd(s);
	w->dma.sge[0].lkey = r & 64 ? sa.mr->lkey : rnd(s);
	w->wr.wr.rdma.remote_addr = (uintptr_t)sb.buf + (r & 128 ? 0 : rnd(s));
	w->wr.wr.rdma.rkey = r & 256 ? sb.mr->rkey : rnd(s);
	if (r & 512)
		w->wr.send_flags |= IBV_SEND_INLINE;
}

static void *race_thread(void *arg)
{
	struct racer *rc = arg;
	struct pair *pr = rc->pr;
	unsigned int s = rc->seed;
	struct rxe_recv_wqe *rw;
	__u32 r;

	while (!atomic_load_explicit(&rc->stop, memory_order_relaxed)) {
		r = rnd(&s);
		scribble_swqe(ring_slot(&pr->a.sq, r >> 8), &s);
		rw = ring_slot(&pr->b.rq, r >> 12);
		rq_fill(rw, r);
		if (r & 1)
			rw->dma.num_sge = rnd(&s) % 40;
		if (r & 2)
			rw->dma.sge[0].length = rnd(&s);
		if (r & 4)
			rw->dma.sge[0].lkey = rnd(&s);
		switch (r % 16) {
		case 0:
			ring_set_prod(&pr->a.sq, rnd(&s));
			break;
		case 1:
			ring_set_prod(&pr->b.rq, rnd(&s));
			break;
		case 2:
			ring_set_cons(&pr->a.sq, rnd(&s));
			break;
		case 3:
			if (r & 0x100000)
				ring_set_cons(&pr->a.cqr, rnd(&s));
			break;
		case 4:
			ring_set_prod(&pr->a.sq, ring_prod(&pr->a.sq) + 1);
			break;
		case 5:
			ring_set_prod(&pr->b.rq, ring_prod(&pr->b.rq) + 1);
			break;
		default:
			break;
		}
		rc->writes++;
	}
	return NULL;
}

#define RACE_RESET	"%s: QPs moved to RESET under the writer"

/* rounds that move the QPs to ERR while the thread writes, and to RESET */
static bool race_to_err(int round)
{
	return round % 3 == 1;
}

static bool race_to_reset(int round)
{
	return round % 3 == 2;
}

/*
 * One round: garble A's SQ and CQ indices and B's RQ from a thread while
 * this one rings A's doorbell, modifies the QPs and polls.  Every call
 * must return, and everything must be destroyable afterwards.
 */
static void race_round(int round, double secs, unsigned int seed,
		       unsigned long *kicks, unsigned long *wcs,
		       unsigned long *writes, int *bad_kick)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct racer rc = { .seed = seed };
	struct ibv_wc wc[16];
	pthread_t t;
	struct pair pr;
	double end;
	char name[80], what[PLAN_NAME];
	int n, err;

	make_rc_pair(&pr, NULL);
	rc.pr = &pr;
	if (pthread_create(&t, NULL, race_thread, &rc))
		die("pthread_create");
	end = now_s() + secs;
	while (now_s() < end) {
		err = kick(pr.a.qp);
		(*kicks)++;
		if (err && err != EINVAL)
			*bad_kick = err;
		/* a garbled CQ ring: librxe's poll may read nonsense */
		n = ibv_poll_cq(pr.b.cq, 16, wc);
		if (n > 0)
			*wcs += n;
		if (race_to_err(round) && now_s() > end - secs / 2 &&
		    qp_state(pr.a.qp) != IBV_QPS_ERR)
			ibv_modify_qp(pr.a.qp, &qa, IBV_QP_STATE);
	}
	snprintf(name, sizeof(name), "race round %d", round);
	/* RESET with the thread still writing: the rings are emptied */
	if (race_to_reset(round)) {
		snprintf(what, sizeof(what), RACE_RESET, name);
		qa.qp_state = IBV_QPS_RESET;
		if (ibv_modify_qp(pr.a.qp, &qa, IBV_QP_STATE) ||
		    ibv_modify_qp(pr.b.qp, &qa, IBV_QP_STATE))
			fail(what, "%s", strerror(errno));
		else
			pass(what);
	}
	atomic_store(&rc.stop, 1);
	pthread_join(t, NULL);
	*writes += rc.writes;
	destroy_pair(name, &pr);
}

/* a clean pair of this process, made after the abuse, still works */
static void clean_traffic(const char *name)
{
	struct ibv_sge sge = { .addr = (uintptr_t)sa.buf, .length = 4096,
			       .lkey = sa.mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	struct pair pr;
	int i, ok = 0;

	make_rc_pair(&pr, NULL);
	for (i = 0; i < 100; i++) {
		post_recv_ok(&pr.b, i);
		wr.wr_id = i;
		if (ibv_post_send(pr.a.qp, &wr, &bad))
			break;
		if (!next_wc(pr.a.cq, &wc, 5) || wc.status != IBV_WC_SUCCESS)
			break;
		if (!next_wc(pr.b.cq, &wc, 5) || wc.status != IBV_WC_SUCCESS ||
		    wc.byte_len != 4096)
			break;
		ok++;
	}
	if (ok == 100)
		pass(name);
	else
		fail(name, "%d of 100 SENDs went through", ok);
	destroy_pair(name, &pr);
}

static const char *const clean[2] = {
	"clean traffic before the abuse",
	"clean traffic after the abuse",
};

#define TEARDOWN	"teardown: MRs, PDs and devices freed"

/* every check a run of @rounds race rounds reports, in the order of main() */
static void plan_checks(int rounds)
{
	char name[PLAN_NAME];
	size_t i;
	int r;

	plan_add("%s", clean[0]);
	plan_add(DESTROYED, clean[0]);
	plan_add("uverbs post_send with a real WR: EINVAL");
	plan_add("uverbs post_recv on a user QP: EOPNOTSUPP");
	plan_add(DESTROYED, "refused calls");
	for (i = 0; i < G_NR; i++) {
		plan_add("%s", sq_cases[i].name);
		if (i == G_OPCODE_UD_READ)
			plan_add(UD_DESTROYED, sq_cases[i].name);
		plan_add(DESTROYED, sq_cases[i].name);
	}
	plan_add("SQ: producer index 0xdeadbeef");
	plan_add(DESTROYED, "SQ: producer index 0xdeadbeef");
	plan_add("SQ: garbage in the kernel-owned consumer index");
	plan_add("SQ: the SEND after the garbage index arrives");
	plan_add("SQ: producer index moved backwards");
	plan_add("SQ: one completion for a WQE whose index went back");
	plan_add(DESTROYED, "SQ: kernel-owned indices");
	for (i = 0; i < ARRAY_SIZE(ud_legal); i++)
		plan_add("%s", ud_legal[i]);
	for (i = 0; i < ARRAY_SIZE(ud_cases); i++) {
		plan_add("%s", ud_cases[i].name);
		plan_add(UD_DESTROYED, ud_cases[i].name);
	}
	plan_add("UD: AHs destroyed");
	for (i = 0; i < R_NR; i++) {
		for (r = 0; r <= rq_cases[i].srq; r++) {
			snprintf(name, sizeof(name), "%s%s", r ? "S" : "",
				 rq_cases[i].name);
			plan_add("%s", name);
			plan_add("%s: the sender fails too", name);
			plan_add(DESTROYED, name);
			if (r)
				plan_add("%s: SRQ destroyed", name);
		}
	}
	for (i = 0; i < ARRAY_SIZE(cq_cases); i++) {
		plan_add("%s", cq_cases[i].name);
		plan_add(DESTROYED, cq_cases[i].name);
	}
	plan_add("CQ: resize below the count a garbage index claims");
	plan_add("CQ: resize after the index is put right");
	plan_add("CQ: destroyed after resizes");
	for (r = 0; r < rounds; r++) {
		snprintf(name, sizeof(name), "race round %d", r);
		if (race_to_reset(r))
			plan_add(RACE_RESET, name);
		plan_add(DESTROYED, name);
	}
	plan_add("race: doorbells return 0 or EINVAL");
	plan_add("%s", clean[1]);
	plan_add(DESTROYED, clean[1]);
	plan_add(TEARDOWN);
}

int main(int argc, char **argv)
{
	const char *da = NULL, *db = NULL;
	int ga = -1, gb = -1, rounds = 12, c, i, bad_kick = 0;
	unsigned long kicks = 0, wcs = 0, writes = 0;
	static const struct option longopts[] = {
		{ "plan", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int seed = time(NULL);
	const char *why = NULL;
	double secs = 1.0;
	int plan_only = 0;

	while ((c = getopt_long(argc, argv, "a:A:b:B:r:s:S:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'P':
			plan_only = 1;
			break;
		case 'a':
			da = optarg;
			break;
		case 'A':
			ga = atoi(optarg);
			break;
		case 'b':
			db = optarg;
			break;
		case 'B':
			gb = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'S':
			seed = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s %s\n", argv[0],
				"-a DEV -A GIDX -b DEV -B GIDX [-r ROUNDS] [-s SECS] [-S SEED] | --plan [-r ROUNDS]");
			return 2;
		}
	}
	plan_checks(rounds);
	if (plan_only) {
		printf("%d\n", plan_n);
		return 0;
	}
	if (!da || !db || ga < 0 || gb < 0) {
		fprintf(stderr, "%s: -a -A -b -B are required\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_side(&sa, da, ga);
	open_side(&sb, db, gb);

	clean_traffic(clean[0]);
	refused_calls();
	for (i = 0; i < G_NR; i++)
		sq_garbage_one(i);
	sq_prod_out_of_range();
	sq_cons_garbage();
	ud_scenarios();
	for (i = 0; i < R_NR; i++) {
		rq_garbage_one(i, 0);
		if (rq_cases[i].srq)
			rq_garbage_one(i, 1);
	}
	for (i = 0; i < (int)ARRAY_SIZE(cq_cases); i++)
		cq_cons_garbage(cq_cases[i].cons_delta, cq_cases[i].name);
	cq_resize_garbage();

	info("race: %d rounds of %.1f s, seed %u", rounds, secs, seed);
	for (i = 0; i < rounds; i++)
		race_round(i, secs, seed + i, &kicks, &wcs, &writes,
			   &bad_kick);
	info("race: %lu doorbells, %lu receive completions, %lu ring writes",
	     kicks, wcs, writes);
	if (bad_kick)
		fail("race: doorbells return 0 or EINVAL", "%s",
		     strerror(bad_kick));
	else
		pass("race: doorbells return 0 or EINVAL");
	clean_traffic(clean[1]);

	/* everything of this process goes */
	for (i = 0; i < 2; i++) {
		struct side *s = i ? &sb : &sa;

		if (!why && (ibv_dereg_mr(s->mr) || ibv_dereg_mr(s->mr2) ||
			     ibv_dealloc_pd(s->pd) || ibv_dealloc_pd(s->pd2) ||
			     ibv_close_device(s->ctx)))
			why = strerror(errno);
	}
	if (why)
		fail(TEARDOWN, "%s", why);
	else
		pass(TEARDOWN);
	failures += plan_finish("an earlier step failed");
	printf("%s: %d failed\n", argv[0], failures);
	return failures ? 1 : 0;
}
