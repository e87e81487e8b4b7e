// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs objects through Debian's unmodified librxe, one check per run:
 *   verbs_objects DEVICE CHECK
 * exits 0 when CHECK passed and prints why not otherwise.
 *   verbs_objects --list
 * prints "CHECK DESCRIPTION" for each check, for the script to run them
 * all and plan as many.  Built and run inside a guest by
 * scripts/tests/verbs-objects.sh.
 */
#include <errno.h>
#include <linux/types.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* the header of a ring, as <rdma/rdma_user_rxe.h> lays it out */
#define RING_LOG2_ELEM	0
#define RING_INDEX_MASK	4
#define RING_PRODUCER	128
#define RING_CONSUMER	256

static struct ibv_context *ctx;
static struct ibv_device_attr dattr;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Checks that failed; a check also stops early where going on is moot. */
static int failures;

static bool expect_at(int line, bool cond, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	if (cond)
		return true;
	failures++;
	fprintf(stderr, "line %d: ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (errno %d %s)\n", err, strerror(err));
	return false;
}

#define expect(cond, ...) expect_at(__LINE__, (cond), __VA_ARGS__)

static __u32 ring_get(void *ring, size_t off)
{
	return __atomic_load_n((__u32 *)((char *)ring + off), __ATOMIC_ACQUIRE);
}

static void ring_set(void *ring, size_t off, __u32 val)
{
	__atomic_store_n((__u32 *)((char *)ring + off), val, __ATOMIC_RELEASE);
}

static int check_query(void)
{
	expect(dattr.max_cq > 0, "max_cq %d", dattr.max_cq);
	expect(dattr.max_cqe >= 1024, "max_cqe %d", dattr.max_cqe);
	return failures;
}

static int check_cq_create(void)
{
	struct ibv_wc wc[4];
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	pd = ibv_alloc_pd(ctx);
	if (!expect(pd, "alloc_pd"))
		return 1;
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	if (!expect(cq, "create_cq(100)"))
		return 1;
	expect(cq->cqe >= 100, "cqe %d", cq->cqe);
	expect(ibv_poll_cq(cq, 4, wc) == 0, "poll of a new CQ");
	expect(ibv_destroy_cq(cq) == 0, "destroy_cq");
	expect(ibv_dealloc_pd(pd) == 0, "dealloc_pd");
	return failures;
}

static int check_cq_limits(void)
{
	struct ibv_cq *cq;

	cq = ibv_create_cq(ctx, dattr.max_cqe, NULL, NULL, 0);
	if (!expect(cq, "create_cq(max_cqe %d)", dattr.max_cqe))
		return 1;
	/* sroce reports the capacity, which at the limit is the limit */
	expect(cq->cqe == dattr.max_cqe, "cqe %d", cq->cqe);
	expect(ibv_destroy_cq(cq) == 0, "destroy_cq");

	errno = 0;
	cq = ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0);
	expect(!cq && errno == EINVAL, "create_cq(max_cqe + 1)");
	errno = 0;
	cq = ibv_create_cq(ctx, 0, NULL, NULL, 0);
	expect(!cq && errno == EINVAL, "create_cq(0)");
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, ctx->num_comp_vectors);
	expect(!cq && errno == EINVAL, "comp_vector %d of %d",
	       ctx->num_comp_vectors, ctx->num_comp_vectors);
	return failures;
}

static int check_cq_resize(void)
{
	struct ibv_wc wc;
	struct ibv_cq *cq;

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!expect(cq, "create_cq(16)"))
		return 1;
	expect(ibv_resize_cq(cq, 1000) == 0, "resize to 1000");
	expect(cq->cqe >= 1000, "cqe %d after growing", cq->cqe);
	expect(ibv_poll_cq(cq, 1, &wc) == 0, "poll after growing");
	expect(ibv_resize_cq(cq, 4) == 0, "resize to 4");
	expect(cq->cqe >= 4 && cq->cqe < 1000, "cqe %d after shrinking",
	       cq->cqe);
	expect(ibv_poll_cq(cq, 1, &wc) == 0, "poll after shrinking");
	errno = 0;
	expect(ibv_resize_cq(cq, dattr.max_cqe + 1) != 0, "resize past max");
	expect(ibv_poll_cq(cq, 1, &wc) == 0, "poll after a refused resize");
	expect(ibv_destroy_cq(cq) == 0, "destroy_cq");
	return failures;
}

static int check_cq_notify(void)
{
	struct ibv_comp_channel *ch;
	struct pollfd pfd;
	struct ibv_cq *cq;

	ch = ibv_create_comp_channel(ctx);
	if (!expect(ch, "create_comp_channel"))
		return 1;
	cq = ibv_create_cq(ctx, 32, NULL, ch, 0);
	if (!expect(cq, "create_cq with a channel"))
		return 1;
	expect(ibv_req_notify_cq(cq, 0) == 0, "arm for the next completion");
	expect(ibv_req_notify_cq(cq, 1) == 0, "arm for solicited only");
	expect(ibv_req_notify_cq(cq, 0) == 0, "arm again");
	/* nothing completed, so no event may be pending */
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	expect(poll(&pfd, 1, 100) == 0, "event without a completion");
	expect(ibv_destroy_cq(cq) == 0, "destroy_cq");
	expect(ibv_destroy_comp_channel(ch) == 0, "destroy_comp_channel");
	return failures;
}

static int check_cq_ex(void)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cq;

	cq = ibv_create_cq_ex(ctx, &attr);
	if (!expect(cq, "create_cq_ex"))
		return 1;
	expect(ibv_start_poll(cq, &pattr) == ENOENT, "start_poll on empty");
	expect(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0, "destroy_cq");
	return failures;
}

static int check_cq_many(void)
{
	enum { N = 256 };
	struct ibv_cq *cq[N];
	int i;

	for (i = 0; i < N; i++) {
		cq[i] = ibv_create_cq(ctx, 1 + i * 7, NULL, NULL, 0);
		if (!expect(cq[i], "create_cq #%d", i))
			return 1;
	}
	for (i = 0; i < N; i += 2)
		expect(ibv_destroy_cq(cq[i]) == 0, "destroy_cq #%d", i);
	for (i = 1; i < N; i += 2)
		expect(ibv_resize_cq(cq[i], 64) == 0, "resize #%d", i);
	for (i = 1; i < N; i += 2)
		expect(ibv_destroy_cq(cq[i]) == 0, "destroy_cq #%d", i);
	return failures;
}

/* The one mapping of the uverbs device in this process: the CQ's ring. */
static int find_ring(void **addr, size_t *len, off_t *off)
{
	unsigned long start, end, offset;
	char line[512];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &offset) != 3)
			continue;
		*addr = (void *)start;
		*len = end - start;
		*off = offset;
		found++;
	}
	fclose(f);
	return found == 1 ? 0 : -1;
}

static int check_cq_mmap(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_cq *cq;
	__u32 log2, mask;
	void *ring, *p;
	size_t len;
	off_t off;

	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	if (!expect(cq, "create_cq(100)"))
		return 1;
	if (!expect(find_ring(&ring, &len, &off) == 0, "one ring mapping"))
		return 1;

	/* the ABI librxe reads: slots of at least a struct ibv_wc */
	log2 = ring_get(ring, RING_LOG2_ELEM);
	mask = ring_get(ring, RING_INDEX_MASK);
	expect(log2 < 16 && (1u << log2) >= sizeof(struct ibv_wc),
	       "log2_elem_size %u", log2);
	expect(!(mask & (mask + 1)) && mask >= 100, "index_mask %u", mask);
	expect(log2 < 16 && 384 + (((size_t)mask + 1) << log2) <= len,
	       "ring of %zu bytes", len);
	expect(!ring_get(ring, RING_PRODUCER) && !ring_get(ring, RING_CONSUMER),
	       "indices of a new ring");

	/* a second mapping of the same ring is allowed ... */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		 off);
	if (expect(p != MAP_FAILED, "second mapping")) {
		expect(ring_get(p, RING_INDEX_MASK) == mask,
		       "second mapping shows the ring");
		munmap(p, len);
	}
	/* ... but not a larger, private or unknown one */
	p = mmap(NULL, len + page, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->cmd_fd, off);
	expect(p == MAP_FAILED, "mapping larger than the ring");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, ctx->cmd_fd,
		 off);
	expect(p == MAP_FAILED, "private mapping");
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, ctx->cmd_fd,
		 off + 4096 * page);
	expect(p == MAP_FAILED, "mapping at an offset never handed out");

	/* garbage in every header field must not bother the kernel */
	ring_set(ring, RING_LOG2_ELEM, 31);
	ring_set(ring, RING_INDEX_MASK, 0xffffffff);
	ring_set(ring, RING_PRODUCER, 0x7fffffff);
	ring_set(ring, RING_CONSUMER, 0xfffffff3);
	expect(ibv_req_notify_cq(cq, 0) == 0, "arm with a garbled ring");
	/* the resize copies what the garbled indices claim; it must fit */
	expect(ibv_resize_cq(cq, 200) == 0, "resize with a garbled ring");
	expect(ibv_destroy_cq(cq) == 0, "destroy_cq");
	return failures;
}

/*
 * A QP connected to itself over sroce's own loopback, or with @pair to a
 * second QP of the same PD (@qp2, its own CQ), with one MR over @buf: what
 * the QP state, memory window and ATOMIC WRITE checks below drive.  A
 * request the responder refuses moves the responder's QP to ERR: only with
 * a second QP does the requester see the NAK's status rather than a flush.
 */
struct self_qp {
	struct ibv_pd *pd;
	struct ibv_cq *cq, *cq2;
	struct ibv_qp *qp, *qp2;
	struct ibv_mr *mr;
	int gid_index;
	bool pair;
	__u64 send_ops;		/* for ibv_create_qp_ex(), or 0 */
	char buf[8192];
};

/* the index of the first GID of @type on port 1, or -1 */
static int find_gid_index(enum ibv_gid_type type)
{
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < 16; i++)
		if (!ibv_query_gid_ex(ctx, 1, i, &e, 0) && e.gid_type == type)
			return i;
	return -1;
}

static int qp_to(struct self_qp *s, struct ibv_qp *qp, __u32 dest,
		 enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };
	union ibv_gid gid;
	int mask = IBV_QP_STATE;

	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		if (ibv_query_gid(ctx, 1, s->gid_index, &gid))
			return errno;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = s->gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 1;
		a.rnr_retry = 1;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static int self_qp_to(struct self_qp *s, enum ibv_qp_state state)
{
	return qp_to(s, s->qp, s->qp2 ? s->qp2->qp_num : s->qp->qp_num,
		     state);
}

/* PD, CQ, MR of @access over s->buf and a RESET QP; 0 or -1 */
static int self_qp_open(struct self_qp *s, int gid_index, int access)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	s->gid_index = gid_index;
	s->pd = ibv_alloc_pd(ctx);
	s->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!expect(s->pd && s->cq, "alloc_pd, create_cq"))
		return -1;
	s->mr = ibv_reg_mr(s->pd, s->buf, sizeof(s->buf), access);
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	if (s->pair) {
		s->cq2 = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		if (!expect(s->cq2, "create_cq for the second QP"))
			return -1;
		init.send_cq = s->cq2;
		init.recv_cq = s->cq2;
		s->qp2 = ibv_create_qp(s->pd, &init);
		if (!expect(s->qp2, "create_qp for the second QP"))
			return -1;
		init.send_cq = s->cq;
		init.recv_cq = s->cq;
	}
	if (s->send_ops) {
		struct ibv_qp_init_attr_ex ex = {
			.qp_type = init.qp_type,
			.send_cq = s->cq,
			.recv_cq = s->cq,
			.cap = init.cap,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = s->pd,
			.send_ops_flags = s->send_ops,
		};

		s->qp = ibv_create_qp_ex(ctx, &ex);
	} else {
		s->qp = ibv_create_qp(s->pd, &init);
	}
	return expect(s->mr && s->qp, "reg_mr, create_qp") ? 0 : -1;
}

/* ... and on to RTS */
static int self_qp_rts(struct self_qp *s, int gid_index, int access)
{
	if (self_qp_open(s, gid_index, access))
		return -1;
	if (!expect(!self_qp_to(s, IBV_QPS_INIT) &&
		    !self_qp_to(s, IBV_QPS_RTR) &&
		    !self_qp_to(s, IBV_QPS_RTS), "modify to RTS (GID %d)",
		    gid_index))
		return -1;
	if (s->qp2 &&
	    !expect(!qp_to(s, s->qp2, s->qp->qp_num, IBV_QPS_INIT) &&
		    !qp_to(s, s->qp2, s->qp->qp_num, IBV_QPS_RTR) &&
		    !qp_to(s, s->qp2, s->qp->qp_num, IBV_QPS_RTS),
		    "second QP to RTS"))
		return -1;
	return 0;
}

static void self_qp_close(struct self_qp *s)
{
	expect(!s->qp2 || !ibv_destroy_qp(s->qp2), "destroy second QP");
	expect(!s->cq2 || !ibv_destroy_cq(s->cq2), "destroy second CQ");
	expect(!s->qp || !ibv_destroy_qp(s->qp), "destroy_qp");
	expect(!s->mr || !ibv_dereg_mr(s->mr), "dereg_mr");
	expect(!s->cq || !ibv_destroy_cq(s->cq), "destroy_cq");
	expect(!s->pd || !ibv_dealloc_pd(s->pd), "dealloc_pd");
}

/* one signaled WR with one SGE of s->buf, or none for @len 0 */
static int self_qp_post_wr(struct self_qp *s, struct ibv_send_wr *wr,
			   size_t off, __u32 len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + off,
		.length = len,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr *bad = NULL;

	wr->sg_list = len ? &sge : NULL;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags |= IBV_SEND_SIGNALED;
	return ibv_post_send(s->qp, wr, &bad);
}

static int self_qp_post(struct self_qp *s, __u64 id)
{
	struct ibv_send_wr wr = { .wr_id = id, .opcode = IBV_WR_SEND };

	return self_qp_post_wr(s, &wr, 0, 8);
}

static int self_qp_post_recv(struct self_qp *s, __u64 id, size_t off,
			     __u32 len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf + off,
			       .length = len, .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = 1 }, *bad = NULL;

	return ibv_post_recv(s->qp, &wr, &bad);
}

/* the next completion of @s's CQ within a few seconds, 0 or -1 */
static int self_qp_wc(struct self_qp *s, struct ibv_wc *wc)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (ibv_poll_cq(s->cq, 1, wc) == 1)
			return 0;
		usleep(1000);
	}
	return -1;
}

/* the completion of the WR just posted: its status, or -1 for none */
static int self_qp_status(struct self_qp *s, __u64 id, int opcode)
{
	struct ibv_wc wc;

	if (!expect(!self_qp_wc(s, &wc), "no completion for wr %llu",
		    (unsigned long long)id))
		return -1;
	expect(wc.wr_id == id, "completion of wr %llu for %llu",
	       (unsigned long long)wc.wr_id, (unsigned long long)id);
	expect(wc.status != IBV_WC_SUCCESS || (int)wc.opcode == opcode,
	       "wr %llu: opcode %d, not %d", (unsigned long long)id,
	       wc.opcode, opcode);
	return wc.status;
}

/*
 * The send doorbell in each QP state (IBTA 10.3.1: a Post Send in the
 * RESET, INIT and RTR states is an immediate error; in ERR the WR
 * completes flushed): EINVAL before RTS, a completion in RTS, again
 * EINVAL once the QP went back to RESET, and a flush error in ERR.  The
 * refused WQEs librxe had written into the ring never run or complete.
 */
static int check_qp_post_state(void)
{
	static const enum ibv_qp_state before[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR,
	};
	struct self_qp s = {};
	struct ibv_wc wc;
	unsigned int i;
	int rc;

	if (self_qp_open(&s, 0, IBV_ACCESS_LOCAL_WRITE))
		return 1;
	for (i = 0; i < ARRAY_SIZE(before); i++) {
		if (i && !expect(!self_qp_to(&s, before[i]), "modify to %d",
				 before[i]))
			return 1;
		rc = self_qp_post(&s, i);
		expect(rc == EINVAL, "post_send in state %d returned %d",
		       before[i], rc);
	}
	expect(ibv_poll_cq(s.cq, 1, &wc) == 0,
	       "a refused post left no completion");

	if (!expect(!self_qp_to(&s, IBV_QPS_RTS), "modify to RTS"))
		return 1;
	expect(!self_qp_post_recv(&s, 100, 32, 32), "post_recv in RTS");
	rc = self_qp_post(&s, 101);
	expect(rc == 0, "post_send in RTS returned %d", rc);
	for (i = 0; i < 2 && !rc; i++)
		if (expect(!self_qp_wc(&s, &wc), "completion %u in RTS", i))
			expect(wc.status == IBV_WC_SUCCESS,
			       "wr %llu in RTS: status %d",
			       (unsigned long long)wc.wr_id, wc.status);

	if (!expect(!self_qp_to(&s, IBV_QPS_RESET), "modify RTS to RESET"))
		return 1;
	rc = self_qp_post(&s, 102);
	expect(rc == EINVAL, "post_send after RTS to RESET returned %d", rc);

	/* ib_core has no RESET to ERR: by way of INIT */
	if (!expect(!self_qp_to(&s, IBV_QPS_INIT) &&
		    !self_qp_to(&s, IBV_QPS_ERR), "modify RESET to INIT to ERR"))
		return 1;
	rc = self_qp_post(&s, 103);
	expect(rc == 0, "post_send in ERR returned %d", rc);
	if (!rc && expect(!self_qp_wc(&s, &wc), "completion in ERR"))
		expect(wc.wr_id == 103 && wc.status == IBV_WC_WR_FLUSH_ERR,
		       "in ERR: wr %llu status %d, not 103 flushed",
		       (unsigned long long)wc.wr_id, wc.status);
	/* the refused posts neither ran nor completed */
	usleep(100000);
	expect(ibv_poll_cq(s.cq, 1, &wc) == 0, "a completion for wr %llu",
	       (unsigned long long)wc.wr_id);
	self_qp_close(&s);
	return failures;
}

/* ---- memory windows, bound from user space ---------------------------- */

/* in s->buf: messages from [0, 4096), windows over [4096, 8192) */
#define MW_SRC		0
#define MW_BACK		2048
#define MW_WIN		(4096 + 512)
#define MW_LEN		1024
#define MW_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

static __u64 buf_addr(struct self_qp *s, size_t off)
{
	return (uintptr_t)s->buf + off;
}

/* an RDMA WRITE or READ of @len bytes at @off through @rkey; its status */
static int mw_rdma(struct self_qp *s, enum ibv_wr_opcode op, size_t off,
		   __u32 len, __u64 remote, __u32 rkey, __u64 id)
{
	struct ibv_send_wr wr = { .wr_id = id, .opcode = op };
	int rc;

	wr.wr.rdma.remote_addr = remote;
	wr.wr.rdma.rkey = rkey;
	rc = self_qp_post_wr(s, &wr, off, len);
	if (!expect(!rc, "post of wr %llu returned %d",
		    (unsigned long long)id, rc))
		return -1;
	return self_qp_status(s, id, op == IBV_WR_RDMA_READ ?
			      IBV_WC_RDMA_READ : IBV_WC_RDMA_WRITE);
}

/*
 * A type 2 bind through ibv_post_send: its completion status.  The kernel
 * names a window by its current key, as rdma_rxe does, and librxe leaves a
 * type 2 window's key to the application: it is updated here once bound.
 */
static int mw_bind2(struct self_qp *s, struct ibv_mw *mw, __u32 rkey,
		    __u64 addr, __u64 len, __u64 id)
{
	struct ibv_send_wr wr = { .wr_id = id, .opcode = IBV_WR_BIND_MW };
	int st;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = s->mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = MW_ACCESS;
	if (!expect(!self_qp_post_wr(s, &wr, 0, 0), "post of bind %llu",
		    (unsigned long long)id))
		return -1;
	st = self_qp_status(s, id, IBV_WC_BIND_MW);
	if (st == IBV_WC_SUCCESS)
		mw->rkey = rkey;
	return st;
}

/* a type 1 bind through ibv_bind_mw: its completion status */
static int mw_bind1(struct self_qp *s, struct ibv_mw *mw, __u64 addr,
		    __u64 len, int access, __u64 id)
{
	struct ibv_mw_bind b = {
		.wr_id = id,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = s->mr, .addr = addr, .length = len,
			       .mw_access_flags = access },
	};

	if (!expect(!ibv_bind_mw(s->qp, mw, &b), "ibv_bind_mw %llu",
		    (unsigned long long)id))
		return -1;
	return self_qp_status(s, id, IBV_WC_BIND_MW);
}

/*
 * A message written into the window and read back, compared byte for
 * byte; the bytes around the window must stay untouched, so that a
 * placement at the wrong offset fails as well.
 */
static void mw_traffic(struct self_qp *s, __u32 rkey, unsigned int seed)
{
	unsigned int i;
	int st;

	for (i = 0; i < MW_LEN; i++)
		s->buf[MW_SRC + i] = (char)(i * 7 + seed);
	memset(s->buf + 4096, 0, 4096);
	memset(s->buf + MW_BACK, 0, MW_LEN);
	st = mw_rdma(s, IBV_WR_RDMA_WRITE, MW_SRC, MW_LEN,
		     buf_addr(s, MW_WIN), rkey, 50 + seed);
	expect(st == IBV_WC_SUCCESS, "WRITE through window: status %d", st);
	expect(!memcmp(s->buf + MW_WIN, s->buf + MW_SRC, MW_LEN),
	       "WRITE through window: data differ");
	for (i = 4096; i < 8192; i++)
		if (i < MW_WIN || i >= MW_WIN + MW_LEN)
			if (!expect(!s->buf[i], "byte %u outside written", i))
				break;
	st = mw_rdma(s, IBV_WR_RDMA_READ, MW_BACK, MW_LEN,
		     buf_addr(s, MW_WIN), rkey, 60 + seed);
	expect(st == IBV_WC_SUCCESS, "READ through window: status %d", st);
	expect(!memcmp(s->buf + MW_BACK, s->buf + MW_SRC, MW_LEN),
	       "READ through window: data differ");
}

/*
 * Type 1: bound by ibv_bind_mw, written and read through; its MR cannot
 * be deregistered meanwhile (IBTA 10.6.7); bound again elsewhere, the
 * old rkey is refused with a remote access error.
 */
static int mw_type1(int gid_index)
{
	struct self_qp s = { .pair = true };
	struct ibv_mw *mw;
	__u32 old;
	int st;

	if (gid_index < 0 || self_qp_rts(&s, gid_index, IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_MW_BIND))
		return 1;
	mw = ibv_alloc_mw(s.pd, IBV_MW_TYPE_1);
	if (!expect(mw, "alloc_mw type 1"))
		return 1;
	st = mw_bind1(&s, mw, buf_addr(&s, MW_WIN), MW_LEN, MW_ACCESS, 1);
	if (!expect(st == IBV_WC_SUCCESS, "bind type 1: status %d", st))
		return 1;
	mw_traffic(&s, mw->rkey, 1);
	st = ibv_dereg_mr(s.mr);
	if (!st)
		s.mr = NULL;
	expect(st == EBUSY, "dereg of an MR with a window: %d", st);
	old = mw->rkey;
	st = mw_bind1(&s, mw, buf_addr(&s, 4096), 256, MW_ACCESS, 2);
	expect(st == IBV_WC_SUCCESS && mw->rkey != old,
	       "bind again: status %d, rkey %#x was %#x", st, mw->rkey, old);
	st = mw_rdma(&s, IBV_WR_RDMA_WRITE, MW_SRC, 64, buf_addr(&s, MW_WIN),
		     old, 3);
	expect(st == IBV_WC_REM_ACCESS_ERR, "WRITE with the old rkey: %d", st);
	expect(!ibv_dealloc_mw(mw), "dealloc_mw");
	self_qp_close(&s);
	return failures;
}

/*
 * Type 2: bound through ibv_post_send, written and read through,
 * invalidated by the peer's SEND with Invalidate (the receive completion
 * says so), bound again, invalidated locally, and a second local
 * invalidation of it fails.
 */
static int mw_type2(int gid_index)
{
	struct ibv_send_wr inv = { .wr_id = 4, .opcode = IBV_WR_SEND_WITH_INV };
	struct self_qp s = {};
	struct ibv_mw *mw;
	struct ibv_wc wc;
	__u32 rkey;
	int st, i;

	if (gid_index < 0 || self_qp_rts(&s, gid_index, IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_MW_BIND))
		return 1;
	mw = ibv_alloc_mw(s.pd, IBV_MW_TYPE_2);
	if (!expect(mw, "alloc_mw type 2"))
		return 1;
	rkey = ibv_inc_rkey(mw->rkey);
	st = mw_bind2(&s, mw, rkey, buf_addr(&s, MW_WIN), MW_LEN, 1);
	if (!expect(st == IBV_WC_SUCCESS, "bind type 2: status %d", st))
		return 1;
	mw_traffic(&s, rkey, 2);

	expect(!self_qp_post_recv(&s, 5, 3072, 64), "post_recv");
	inv.invalidate_rkey = rkey;
	expect(!self_qp_post_wr(&s, &inv, MW_SRC, 8), "post SEND with inv");
	for (i = 0; i < 2; i++) {
		if (!expect(!self_qp_wc(&s, &wc), "completion %d of 2", i))
			break;
		expect(wc.status == IBV_WC_SUCCESS, "wr %llu: status %d",
		       (unsigned long long)wc.wr_id, wc.status);
		/*
		 * librxe hands the kernel's flags through, in which
		 * IB_WC_WITH_INVALIDATE is bit 2, as with rdma_rxe
		 */
		if (wc.wr_id == 5)
			expect((wc.wc_flags & (1 << 2)) &&
			       wc.invalidated_rkey == rkey,
			       "receive: flags %#x, invalidated %#x not %#x",
			       wc.wc_flags, wc.invalidated_rkey, rkey);
	}
	/* type 2 is bound only while free: so the SEND freed it */
	rkey = ibv_inc_rkey(rkey);
	st = mw_bind2(&s, mw, rkey, buf_addr(&s, MW_WIN), MW_LEN, 6);
	expect(st == IBV_WC_SUCCESS, "bind after remote invalidate: %d", st);

	inv = (struct ibv_send_wr){ .wr_id = 7, .opcode = IBV_WR_LOCAL_INV,
				    .invalidate_rkey = rkey };
	expect(!self_qp_post_wr(&s, &inv, 0, 0), "post LOCAL_INV");
	st = self_qp_status(&s, 7, IBV_WC_LOCAL_INV);
	expect(st == IBV_WC_SUCCESS, "local invalidate: status %d", st);
	inv.wr_id = 8;
	expect(!self_qp_post_wr(&s, &inv, 0, 0), "post LOCAL_INV again");
	st = self_qp_status(&s, 8, IBV_WC_LOCAL_INV);
	expect(st == IBV_WC_LOC_PROT_ERR, "invalidated twice: status %d", st);
	expect(!ibv_dealloc_mw(mw), "dealloc_mw");
	self_qp_close(&s);
	return failures;
}

/*
 * Binds that must fail with a bind error, each on a QP of its own (the
 * error moves the QP to ERR): an MR registered without MW_BIND, a window
 * past the end of its MR, remote write through an MR without local
 * write, a type 2 window bound twice; and a window deallocated while
 * bound no longer grants access.
 */
static int mw_refused(int gid_index)
{
	static const struct {
		const char *what;
		int mr_access, win_access, type;
		size_t off, len;
	} c[] = {
		{ "MR without MW_BIND", IBV_ACCESS_LOCAL_WRITE, MW_ACCESS,
		  1, MW_WIN, MW_LEN },
		{ "window past its MR", IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_MW_BIND, MW_ACCESS, 1, 8192 - 512, MW_LEN },
		{ "remote write, MR without local write", IBV_ACCESS_MW_BIND,
		  IBV_ACCESS_REMOTE_WRITE, 1, MW_WIN, MW_LEN },
		{ "type 2 bound twice", IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_MW_BIND, MW_ACCESS, 2, MW_WIN, MW_LEN },
	};
	struct self_qp s;
	struct ibv_mw *mw;
	unsigned int i;
	__u32 rkey;
	int st;

	if (gid_index < 0)
		return 1;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		memset(&s, 0, sizeof(s));
		if (self_qp_rts(&s, gid_index, c[i].mr_access))
			return 1;
		mw = ibv_alloc_mw(s.pd, c[i].type == 1 ? IBV_MW_TYPE_1 :
				  IBV_MW_TYPE_2);
		if (!expect(mw, "alloc_mw for %s", c[i].what))
			return 1;
		if (c[i].type == 1) {
			st = mw_bind1(&s, mw, buf_addr(&s, c[i].off), c[i].len,
				      c[i].win_access, 1);
		} else {
			rkey = ibv_inc_rkey(mw->rkey);
			st = mw_bind2(&s, mw, rkey, buf_addr(&s, c[i].off),
				      c[i].len, 1);
			expect(st == IBV_WC_SUCCESS, "%s: first bind %d",
			       c[i].what, st);
			st = mw_bind2(&s, mw, ibv_inc_rkey(rkey),
				      buf_addr(&s, c[i].off), c[i].len, 2);
		}
		expect(st == IBV_WC_MW_BIND_ERR, "%s: status %d", c[i].what,
		       st);
		expect(!ibv_dealloc_mw(mw), "dealloc_mw");
		self_qp_close(&s);
	}

	memset(&s, 0, sizeof(s));
	s.pair = true;
	if (self_qp_rts(&s, gid_index, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_MW_BIND))
		return 1;
	mw = ibv_alloc_mw(s.pd, IBV_MW_TYPE_1);
	if (!expect(mw, "alloc_mw type 1"))
		return 1;
	st = mw_bind1(&s, mw, buf_addr(&s, MW_WIN), MW_LEN, MW_ACCESS, 1);
	rkey = mw->rkey;
	expect(st == IBV_WC_SUCCESS, "bind before dealloc: %d", st);
	expect(!ibv_dealloc_mw(mw), "dealloc_mw of a bound window");
	st = mw_rdma(&s, IBV_WR_RDMA_WRITE, MW_SRC, 64, buf_addr(&s, MW_WIN),
		     rkey, 3);
	expect(st == IBV_WC_REM_ACCESS_ERR, "WRITE after dealloc: %d", st);
	/* and its MR is free to go (self_qp_close() checks) */
	self_qp_close(&s);
	return failures;
}

/* ---- ATOMIC WRITE ------------------------------------------------------- */

/* an ATOMIC WRITE of @value through the extended API: its status */
static int aw_post(struct self_qp *s, __u64 remote, __u32 rkey,
		   const __u8 value[8], __u64 id)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(s->qp);
	int rc;

	ibv_wr_start(qpx);
	qpx->wr_id = id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, rkey, remote, value);
	rc = ibv_wr_complete(qpx);
	if (!expect(!rc, "ibv_wr_complete of wr %llu: %d",
		    (unsigned long long)id, rc))
		return -1;
	return self_qp_status(s, id, IBV_WC_ATOMIC_WRITE);
}

/*
 * Two ATOMIC WRITEs to one aligned word: each leaves exactly its 8 bytes
 * there, in the order posted, and not a byte beside them changes.
 */
static int aw_ok(int gid_index)
{
	static const __u8 v1[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const __u8 v2[8] = { 0x80, 0, 0xff, 0x7f, 0x55, 0xaa, 0, 9 };
	struct self_qp s = { .send_ops = IBV_QP_EX_WITH_ATOMIC_WRITE };
	unsigned int i;
	int st;

	if (gid_index < 0 ||
	    self_qp_rts(&s, gid_index, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE))
		return 1;
	memset(s.buf + 4096, 0xee, 64);
	st = aw_post(&s, buf_addr(&s, 4096 + 8), s.mr->rkey, v1, 1);
	expect(st == IBV_WC_SUCCESS, "ATOMIC WRITE: status %d", st);
	expect(!memcmp(s.buf + 4096 + 8, v1, 8), "the word after the first");
	st = aw_post(&s, buf_addr(&s, 4096 + 8), s.mr->rkey, v2, 2);
	expect(st == IBV_WC_SUCCESS, "second ATOMIC WRITE: status %d", st);
	expect(!memcmp(s.buf + 4096 + 8, v2, 8), "the word after the second");
	for (i = 0; i < 64; i++)
		if ((i < 8 || i >= 16) &&
		    !expect((__u8)s.buf[4096 + i] == 0xee, "byte %u changed", i))
			break;
	self_qp_close(&s);
	return failures;
}

/*
 * ATOMIC WRITEs that must fail, each on a QP of its own: a misaligned
 * target (refused before it leaves, as for the other atomics), an
 * unknown rkey, and an MR without remote write (the peer's NAKs).
 */
static int aw_refused(int gid_index)
{
	static const __u8 v[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	static const struct {
		const char *what;
		int access;
		size_t off;
		bool bad_rkey;
		int status;
	} c[] = {
		{ "misaligned", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		  4096 + 4, false, IBV_WC_LOC_QP_OP_ERR },
		{ "unknown rkey", IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_REMOTE_WRITE, 4096, true, IBV_WC_REM_ACCESS_ERR },
		{ "MR without remote write", IBV_ACCESS_LOCAL_WRITE, 4096,
		  false, IBV_WC_REM_ACCESS_ERR },
	};
	struct self_qp s;
	unsigned int i;
	int st;

	if (gid_index < 0)
		return 1;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		memset(&s, 0, sizeof(s));
		s.send_ops = IBV_QP_EX_WITH_ATOMIC_WRITE;
		s.pair = true;
		if (self_qp_rts(&s, gid_index, c[i].access))
			return 1;
		memset(s.buf + 4096, 0xee, 16);
		st = aw_post(&s, buf_addr(&s, c[i].off),
			     c[i].bad_rkey ? s.mr->rkey ^ 0x5a5a00 :
			     s.mr->rkey, v, 1);
		expect(st == c[i].status, "%s: status %d, not %d", c[i].what,
		       st, c[i].status);
		expect(s.buf[4096] == (char)0xee && s.buf[4096 + 4] ==
		       (char)0xee && s.buf[4096 + 8] == (char)0xee,
		       "%s: memory changed", c[i].what);
		self_qp_close(&s);
	}
	return failures;
}

/* Leave objects and mappings behind for process exit to clean up. */
static int check_exit_cleanup(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	int i;

	ch = ibv_create_comp_channel(ctx);
	if (!expect(ch, "create_comp_channel"))
		return 1;
	for (i = 0; i < 8; i++) {
		cq = ibv_create_cq(ctx, 64, NULL, ch, 0);
		if (!expect(cq, "create_cq #%d", i))
			return 1;
		expect(ibv_req_notify_cq(cq, 0) == 0, "arm #%d", i);
	}
	if (!expect(ibv_alloc_pd(ctx), "alloc_pd"))
		return 1;
	_exit(0);
}

/*
 * A check is @fn, or @over run over the first GID of type @gid (the RoCE
 * version it tests; -1 for none on the port, which it reports).
 */
static const struct {
	const char *name;
	const char *what;	/* the check's name in the test's output */
	int (*fn)(void);
	int (*over)(int gid_index);
	enum ibv_gid_type gid;
} checks[] = {
	{ .name = "query", .fn = check_query,
	  .what = "query_device reports CQ limits" },
	{ .name = "cq-create", .fn = check_cq_create,
	  .what = "CQ create, poll empty, destroy (with a PD)" },
	{ .name = "cq-limits", .fn = check_cq_limits,
	  .what = "CQ size limits and comp_vector range" },
	{ .name = "cq-resize", .fn = check_cq_resize,
	  .what = "CQ resize up and down, refused past max" },
	{ .name = "cq-notify", .fn = check_cq_notify,
	  .what = "CQ notify arming, no spurious event" },
	{ .name = "cq-ex", .fn = check_cq_ex,
	  .what = "CQ through ibv_create_cq_ex" },
	{ .name = "cq-many", .fn = check_cq_many,
	  .what = "256 CQs created, resized, destroyed" },
	{ .name = "cq-mmap", .fn = check_cq_mmap,
	  .what = "CQ ring mapping: ABI header, refused mappings, garbage indices" },
	{ .name = "qp-post-state", .fn = check_qp_post_state,
	  .what = "send doorbell refused before RTS and after RESET, flushed in ERR" },
	{ .name = "mw1-v1", .over = mw_type1, .gid = IBV_GID_TYPE_ROCE_V1,
	  .what = "type 1 window over RoCE v1: bind, WRITE, READ, rebind, old rkey" },
	{ .name = "mw1-v2", .over = mw_type1, .gid = IBV_GID_TYPE_ROCE_V2,
	  .what = "type 1 window over RoCE v2: bind, WRITE, READ, rebind, old rkey" },
	{ .name = "mw2-v1", .over = mw_type2, .gid = IBV_GID_TYPE_ROCE_V1,
	  .what = "type 2 window over RoCE v1: bind, traffic, remote and local inv" },
	{ .name = "mw2-v2", .over = mw_type2, .gid = IBV_GID_TYPE_ROCE_V2,
	  .what = "type 2 window over RoCE v2: bind, traffic, remote and local inv" },
	{ .name = "mw-refused", .over = mw_refused, .gid = IBV_GID_TYPE_ROCE_V2,
	  .what = "window binds refused with bind errors; dealloc ends access" },
	{ .name = "aw-v1", .over = aw_ok, .gid = IBV_GID_TYPE_ROCE_V1,
	  .what = "ATOMIC WRITE over RoCE v1: two values, the word and its neighbours" },
	{ .name = "aw-v2", .over = aw_ok, .gid = IBV_GID_TYPE_ROCE_V2,
	  .what = "ATOMIC WRITE over RoCE v2: two values, the word and its neighbours" },
	{ .name = "aw-refused", .over = aw_refused, .gid = IBV_GID_TYPE_ROCE_V2,
	  .what = "ATOMIC WRITE misaligned, with an unknown rkey, without remote write" },
	{ .name = "exit-cleanup", .fn = check_exit_cleanup,
	  .what = "process exit with live CQs and mappings" },
};

int main(int argc, char **argv)
{
	struct ibv_device **list;
	unsigned int i;
	int n, rc;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < ARRAY_SIZE(checks); i++)
			printf("%s %s\n", checks[i].name, checks[i].what);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE CHECK | --list\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	while (n > 0 && strcmp(ibv_get_device_name(list[n - 1]), argv[1]))
		n--;
	if (!n) {
		fprintf(stderr, "no device %s\n", argv[1]);
		return 1;
	}
	ctx = ibv_open_device(list[n - 1]);
	if (!ctx || ibv_query_device(ctx, &dattr)) {
		perror("ibv_open_device/ibv_query_device");
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		if (strcmp(checks[i].name, argv[2]))
			continue;
		rc = checks[i].fn ? checks[i].fn() :
		     checks[i].over(find_gid_index(checks[i].gid));
		if (!rc && ibv_close_device(ctx)) {
			perror("ibv_close_device");
			rc = 1;
		}
		ibv_free_device_list(list);
		return rc;
	}
	fprintf(stderr, "unknown check %s\n", argv[2]);
	return 2;
}
