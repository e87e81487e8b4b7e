// SPDX-License-Identifier: GPL-2.0
/*
 * The numbers an sroce device hands out, as an attacker on the wire would
 * want to guess them: QP numbers and MR keys, collected in the order they
 * were given (for sec_entropy.py to judge), and what a stale rkey still
 * reaches through a loopback RC pair on the same device.  Prints
 * "PASS name" / "FAIL name: why", one line for each check of plan_checks()
 * in that order whatever happens (check_plan.h), and "# " lines with
 * figures.
 *
 * Usage: sec_numbers DEV GID_INDEX OUTDIR
 *        sec_numbers --plan	print how many checks a run reports
 *
 * DEV is ACTIVE with a RoCE v2 GID at GID_INDEX; OUTDIR gets qpns.txt
 * (0x%06x) and rkeys.txt (0x%08x), one number a line in creation order.
 * SEC_CHURN in the environment sets the number of QPs of the churn
 * (20000 by default).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "check_plan.h"

#define BATCHES		10
#define BATCH		1000
#define NUMBERS		(BATCHES * BATCH)
#define CHURN_DEFAULT	20000
#define BUF_SIZE	4096
#define WRITE_LEN	64
#define FILL		0x5a	/* the target's bytes before each write */
#define WAIT_SECS	10.0

static int failed;

/* the checks, in the order a run reports them */
enum {
	C_QPNS,
	C_QPNS_DISTINCT,
	C_KEYS,
	C_KEYS_DISTINCT,
	C_LIVE,
	C_REREG,
	C_OLD_KEY,
	C_NEW_KEY,
	C_DEAD_KEY,
	C_RANGE,
	C_CHURN,
	C_COUNT
};

static const char *const checks[C_COUNT] = {
	[C_QPNS] = "10000 QPNs",
	[C_QPNS_DISTINCT] = "QPNs distinct, none reserved",
	[C_KEYS] = "10000 MR keys",
	[C_KEYS_DISTINCT] = "MR keys distinct",
	[C_LIVE] = "RDMA WRITE with a live rkey lands",
	[C_REREG] = "re-registered MR gets a new key",
	[C_OLD_KEY] = "old rkey after rereg draws a remote access error",
	[C_NEW_KEY] = "new rkey after rereg lands",
	[C_DEAD_KEY] = "deregistered rkey draws a remote access error",
	[C_RANGE] = "live rkey past the MR's end draws the same error",
	[C_CHURN] = "QP churn",
};

static void plan_checks(void)
{
	int i;

	for (i = 0; i < C_COUNT; i++)
		plan_add("%s", checks[i]);
}

static void pass(int check)
{
	failed += plan_report(checks[check], NULL);
}

static void __printf(2, 3) fail(int check, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	failed += plan_report(checks[check], why);
}

/* pass @check when @why is empty, else fail it with @why */
static void verdict(int check, const char *why)
{
	if (why[0])
		fail(check, "%s", why);
	else
		pass(check);
}

/* a reason, kept when one is there already: the first failure tells most */
static void __printf(3, 4) why_set(char *why, size_t len, const char *fmt,
				   ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct sec {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;	/* of the batches and the churn: never polled */
	int gid_index;
	union ibv_gid gid;
	const char *outdir;
};

static struct ibv_qp *make_rc_qp(struct sec *s, struct ibv_cq *cq, int wrs)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = wrs,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	return ibv_create_qp(s->pd, &attr);
}

/* @n numbers of @digits hex digits, one a line, to OUTDIR/@file */
static int write_numbers(struct sec *s, const char *file,
			 const unsigned int *v, int n, int digits)
{
	char path[4096];
	FILE *f;
	int i, err = 0;

	snprintf(path, sizeof(path), "%s/%s", s->outdir, file);
	f = fopen(path, "w");
	if (!f)
		return errno;
	for (i = 0; i < n; i++)
		if (fprintf(f, "0x%0*x\n", digits, v[i]) < 0)
			err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * How many of the @n numbers repeat an earlier one (0: all distinct); the
 * first repeated number goes to @dup.
 */
static int repeats(const unsigned int *v, int n, unsigned int *dup)
{
	unsigned int *sorted;
	int i, r = 0;

	sorted = malloc(n * sizeof(*v) + 1);
	if (!sorted)
		return -1;
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*v), cmp_u32);
	for (i = 1; i < n; i++) {
		if (sorted[i] != sorted[i - 1])
			continue;
		if (!r)
			*dup = sorted[i];
		r++;
	}
	free(sorted);
	return r;
}

static void show_first(const char *what, const unsigned int *v, int n,
		       int digits)
{
	int i;

	printf("# first %s:", what);
	for (i = 0; i < n && i < 8; i++)
		printf(" 0x%0*x", digits, v[i]);
	printf("\n");
}

/* 1, 2: QP numbers of BATCHES batches of BATCH RC QPs alive together */
static void test_qpns(struct sec *s)
{
	static unsigned int qpns[NUMBERS];
	static struct ibv_qp *qp[BATCH];
	char why[256] = "";
	int b, i, n = 0, made, err, reserved = 0, bad = -1, r;
	double t0 = now();
	unsigned int dup = 0;

	for (b = 0; b < BATCHES && !why[0]; b++) {
		for (made = 0; made < BATCH; made++) {
			qp[made] = make_rc_qp(s, s->cq, 1);
			if (!qp[made]) {
				why_set(why, sizeof(why),
					"create_qp %d of batch %d: errno %d (%s)",
					made, b, errno, strerror(errno));
				break;
			}
			qpns[n++] = qp[made]->qp_num;
		}
		for (i = 0; i < made; i++) {
			err = ibv_destroy_qp(qp[i]);
			if (err)
				why_set(why, sizeof(why),
					"destroy_qp %d of batch %d: errno %d (%s)",
					i, b, err, strerror(err));
		}
	}
	printf("# %d QPs created and destroyed in %.3f s\n", n, now() - t0);
	show_first("QPNs", qpns, n, 6);
	err = write_numbers(s, "qpns.txt", qpns, n, 6);
	if (err)
		why_set(why, sizeof(why), "writing %s/qpns.txt: %s", s->outdir,
			strerror(err));
	verdict(C_QPNS, why);

	why[0] = 0;
	for (i = 0; i < n; i++) {
		if (qpns[i] == 0 || qpns[i] == 1 || qpns[i] >= 0xffffff) {
			if (bad < 0)
				bad = i;
			reserved++;
		}
	}
	r = repeats(qpns, n, &dup);
	if (r < 0)
		why_set(why, sizeof(why), "no memory to sort them");
	if (r > 0)
		why_set(why, sizeof(why),
			"%d repeat an earlier one, first 0x%06x", r, dup);
	if (reserved)
		why_set(why, sizeof(why),
			"%d reserved or out of range, first 0x%x (QP %d)",
			reserved, qpns[bad], bad);
	if (n < NUMBERS)
		why_set(why, sizeof(why), "only %d of %d QPNs to compare", n,
			NUMBERS);
	verdict(C_QPNS_DISTINCT, why);
}

/* 3, 4: the keys of BATCHES batches of BATCH MRs of one buffer */
static void test_keys(struct sec *s)
{
	static unsigned int keys[NUMBERS];
	static struct ibv_mr *mr[BATCH];
	char why[256] = "";
	int b, i, n = 0, made, err, r;
	double t0 = now();
	unsigned int dup = 0;
	void *buf;

	buf = aligned_alloc(BUF_SIZE, BUF_SIZE);
	if (!buf)
		why_set(why, sizeof(why), "no memory for the buffer");
	else
		memset(buf, 0, BUF_SIZE);
	for (b = 0; b < BATCHES && !why[0]; b++) {
		for (made = 0; made < BATCH; made++) {
			mr[made] = ibv_reg_mr(s->pd, buf, BUF_SIZE,
					      IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ);
			if (!mr[made]) {
				why_set(why, sizeof(why),
					"reg_mr %d of batch %d: errno %d (%s)",
					made, b, errno, strerror(errno));
				break;
			}
			keys[n++] = mr[made]->rkey;
		}
		for (i = 0; i < made; i++) {
			err = ibv_dereg_mr(mr[i]);
			if (err)
				why_set(why, sizeof(why),
					"dereg_mr %d of batch %d: errno %d (%s)",
					i, b, err, strerror(err));
		}
	}
	free(buf);
	printf("# %d MRs registered and deregistered in %.3f s\n", n,
	       now() - t0);
	show_first("rkeys", keys, n, 8);
	err = write_numbers(s, "rkeys.txt", keys, n, 8);
	if (err)
		why_set(why, sizeof(why), "writing %s/rkeys.txt: %s", s->outdir,
			strerror(err));
	verdict(C_KEYS, why);

	why[0] = 0;
	r = repeats(keys, n, &dup);
	if (r < 0)
		why_set(why, sizeof(why), "no memory to sort them");
	if (r > 0)
		why_set(why, sizeof(why),
			"%d repeat an earlier one, first 0x%08x", r, dup);
	if (n < NUMBERS)
		why_set(why, sizeof(why), "only %d of %d keys to compare", n,
			NUMBERS);
	verdict(C_KEYS_DISTINCT, why);
}

/* a loopback RC pair: a's writes go to b, on the same device and port */
struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
};

static void pair_free(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	memset(p, 0, sizeof(*p));
}

/* RESET -> INIT -> RTR -> RTS, talking to @dqpn at the device's own GID */
static int connect_qp(struct sec *s, struct ibv_qp *qp, unsigned int dqpn,
		      const char **step)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	*step = "to INIT";
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = s->gid;
	a.ah_attr.grh.sgid_index = s->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	*step = "to RTR";
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	*step = "to RTS";
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* a fresh pair, both QPs in RTS: 0, or an errno and @why says where */
static int pair_make(struct sec *s, struct pair *p, char *why, size_t len)
{
	const char *step = "";
	int err;

	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(s->ctx, 8, NULL, NULL, 0);
	if (!p->cq) {
		err = errno;
		snprintf(why, len, "pair: create_cq: %s", strerror(err));
		return err ? err : EIO;
	}
	p->a = make_rc_qp(s, p->cq, 4);
	p->b = p->a ? make_rc_qp(s, p->cq, 4) : NULL;
	if (!p->a || !p->b) {
		err = errno;
		snprintf(why, len, "pair: create_qp: %s", strerror(err));
		pair_free(p);
		return err ? err : EIO;
	}
	err = connect_qp(s, p->a, p->b->qp_num, &step);
	if (!err)
		err = connect_qp(s, p->b, p->a->qp_num, &step);
	if (err) {
		snprintf(why, len, "pair: modify_qp %s: %s", step,
			 strerror(err));
		pair_free(p);
	}
	return err;
}

/* one completion of @cq within @secs: 1, 0 on timeout, < 0 on error */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now() + secs;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		if (now() > end)
			return 0;
		usleep(1000);
	}
}

/* the buffers of the key tests: writes go from src to tgt */
struct bufs {
	unsigned char *src, *tgt;
	struct ibv_mr *src_mr;
};

static void pattern(unsigned char *p, int seed)
{
	int i;

	for (i = 0; i < WRITE_LEN; i++)
		p[i] = (unsigned char)(seed * 37 + i * 11 + 1);
	if (p[0] == FILL)
		p[0] ^= 0xff;
}

/* the first byte of tgt not as it should be, or -1 */
static int tgt_wrong(const struct bufs *k, int landed)
{
	int i;

	for (i = 0; i < BUF_SIZE; i++) {
		if (landed && i < WRITE_LEN) {
			if (k->tgt[i] != k->src[i])
				return i;
		} else if (k->tgt[i] != FILL) {
			return i;
		}
	}
	return -1;
}

/*
 * On a fresh pair, an RDMA WRITE of WRITE_LEN bytes of a pattern (@seed)
 * with @rkey to tgt + @off.  It must land (@land) or complete with
 * IBV_WC_REM_ACCESS_ERR and leave tgt untouched; @why says how it did not.
 */
static void wire_write(struct sec *s, struct bufs *k, unsigned int rkey,
		       size_t off, int seed, int land, char *why, size_t len)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct pair p;
	int err, n, at;

	why[0] = 0;
	memset(k->tgt, FILL, BUF_SIZE);
	pattern(k->src, seed);
	if (pair_make(s, &p, why, len))
		return;

	memset(&sge, 0, sizeof(sge));
	sge.addr = (uintptr_t)k->src;
	sge.length = WRITE_LEN;
	sge.lkey = k->src_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x5ec0000 + seed;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)k->tgt + off;
	wr.wr.rdma.rkey = rkey;
	err = ibv_post_send(p.a, &wr, &bad);
	if (err) {
		snprintf(why, len, "post_send: %s", strerror(err));
		goto out;
	}
	n = poll_one(p.cq, &wc, WAIT_SECS);
	if (n < 0) {
		snprintf(why, len, "poll_cq: %d", n);
		goto out;
	}
	if (n == 0) {
		snprintf(why, len, "no completion in %.0f s", WAIT_SECS);
		goto out;
	}
	printf("# write with rkey 0x%08x (QP 0x%06x -> 0x%06x): %s (%d), vendor_err %u\n",
	       rkey, p.a->qp_num, p.b->qp_num, ibv_wc_status_str(wc.status),
	       wc.status, wc.vendor_err);
	/* the pair's CQ has no other WR to complete */
	if (wc.wr_id != wr.wr_id) {
		snprintf(why, len, "completion of another WR (wr_id 0x%llx)",
			 (unsigned long long)wc.wr_id);
		goto out;
	}
	if (land && wc.status != IBV_WC_SUCCESS) {
		snprintf(why, len, "completed with %s (%d)",
			 ibv_wc_status_str(wc.status), wc.status);
		goto out;
	}
	if (!land && wc.status != IBV_WC_REM_ACCESS_ERR) {
		snprintf(why, len, "completed with %s (%d), wanted %s",
			 ibv_wc_status_str(wc.status), wc.status,
			 ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
		/* a write that got through says more than its status */
	}
	at = tgt_wrong(k, land);
	if (at >= 0)
		snprintf(why, len, land ?
			 "completed, but target byte %d is 0x%02x, not 0x%02x" :
			 "target byte %d is 0x%02x, not 0x%02x: the write landed",
			 at, k->tgt[at],
			 land && at < WRITE_LEN ? k->src[at] : FILL);
out:
	pair_free(&p);
}

/*
 * librxe has no rereg_mr of its own: when ibv_rereg_mr() refuses, the
 * uverbs command goes to the kernel straight from here.  0 and the new
 * rkey, or an errno.
 */
static int rereg_access(struct ibv_mr *mr, int access, unsigned int *rkey)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
	} req;
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   access);
	if (!ret) {
		*rkey = mr->rkey;
		return 0;
	}
	printf("# ibv_rereg_mr: %d, errno %d (%s); the uverbs command instead\n",
	       ret, errno, strerror(errno));

	memset(&resp, 0, sizeof(resp));
	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_REREG_MR;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.mr_handle = mr->handle;
	req.cmd.flags = IBV_REREG_MR_CHANGE_ACCESS;
	req.cmd.access_flags = access;
	if (write(mr->context->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno ? errno : EIO;
	*rkey = resp.rkey;
	return 0;
}

/* 5: what old, new and dead rkeys reach, through the wire */
static void test_wire(struct sec *s, int have_gid)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_mr *m = NULL, *m2 = NULL;
	char setup[160] = "", why[256];
	unsigned int old_key = 0, new_key = 0, last_key;
	struct bufs k = { 0 };
	int err, rereg_ok = 0;

	if (!have_gid)
		snprintf(setup, sizeof(setup), "no GID at index %d",
			 s->gid_index);
	if (!setup[0]) {
		k.src = aligned_alloc(BUF_SIZE, BUF_SIZE);
		k.tgt = aligned_alloc(BUF_SIZE, BUF_SIZE);
		if (!k.src || !k.tgt)
			snprintf(setup, sizeof(setup), "no memory for buffers");
	}
	if (!setup[0]) {
		memset(k.src, 0, BUF_SIZE);
		memset(k.tgt, FILL, BUF_SIZE);
		k.src_mr = ibv_reg_mr(s->pd, k.src, BUF_SIZE,
				      IBV_ACCESS_LOCAL_WRITE);
		if (!k.src_mr)
			snprintf(setup, sizeof(setup),
				 "reg_mr of the source: %s", strerror(errno));
	}
	if (!setup[0]) {
		m = ibv_reg_mr(s->pd, k.tgt, BUF_SIZE, access);
		if (!m)
			snprintf(setup, sizeof(setup),
				 "reg_mr of the target: %s", strerror(errno));
	}
	if (setup[0]) {
		fail(C_LIVE, "%s", setup);
		fail(C_REREG, "%s", setup);
		fail(C_OLD_KEY, "%s", setup);
		fail(C_NEW_KEY, "%s", setup);
		fail(C_DEAD_KEY, "%s", setup);
		fail(C_RANGE, "%s", setup);
		goto out;
	}

	old_key = m->rkey;
	wire_write(s, &k, old_key, 0, 1, 1, why, sizeof(why));
	verdict(C_LIVE, why);

	err = rereg_access(m, access | IBV_ACCESS_REMOTE_READ, &new_key);
	if (err) {
		fail(C_REREG, "rereg_mr: errno %d (%s)", err, strerror(err));
	} else {
		rereg_ok = 1;
		printf("# rereg: rkey 0x%08x -> 0x%08x\n", old_key, new_key);
		if (new_key == old_key)
			fail(C_REREG, "rkey 0x%08x kept", old_key);
		else
			pass(C_REREG);
	}
	if (rereg_ok) {
		wire_write(s, &k, old_key, 0, 2, 0, why, sizeof(why));
		verdict(C_OLD_KEY, why);
		wire_write(s, &k, new_key, 0, 3, 1, why, sizeof(why));
		verdict(C_NEW_KEY, why);
	} else {
		fail(C_OLD_KEY, "rereg failed");
		fail(C_NEW_KEY, "rereg failed");
	}

	/* the memory stays registered, under m2's key, when m's dies */
	last_key = rereg_ok ? new_key : old_key;
	m2 = ibv_reg_mr(s->pd, k.tgt, BUF_SIZE, access);
	if (!m2) {
		fail(C_DEAD_KEY, "reg_mr of the second MR: %s",
		     strerror(errno));
		fail(C_RANGE, "no second MR");
		goto out;
	}
	err = ibv_dereg_mr(m);
	if (err) {
		fail(C_DEAD_KEY, "dereg_mr: %s", strerror(err));
		fail(C_RANGE, "dereg_mr failed");
		goto out;
	}
	m = NULL;
	printf("# dead rkey 0x%08x, the buffer's live one 0x%08x\n", last_key,
	       m2->rkey);
	wire_write(s, &k, last_key, 0, 4, 0, why, sizeof(why));
	verdict(C_DEAD_KEY, why);
	/* the NAK must not tell a key that exists from one that does not */
	wire_write(s, &k, m2->rkey, BUF_SIZE - WRITE_LEN / 2, 5, 0, why,
		   sizeof(why));
	verdict(C_RANGE, why);
out:
	if (m2)
		ibv_dereg_mr(m2);
	if (m)
		ibv_dereg_mr(m);
	if (k.src_mr)
		ibv_dereg_mr(k.src_mr);
	free(k.src);
	free(k.tgt);
}

/* 6: RC QPs created and destroyed one at a time */
static void test_churn(struct sec *s)
{
	const char *env = getenv("SEC_CHURN");
	long i, n = CHURN_DEFAULT;
	struct ibv_qp *qp;
	char *end;
	double t0, t;
	int err;

	if (env) {
		errno = 0;
		n = strtol(env, &end, 0);
		if (errno || end == env || *end || n <= 0) {
			fail(C_CHURN, "SEC_CHURN=%s is not a positive number",
			     env);
			return;
		}
	}
	t0 = now();
	for (i = 0; i < n; i++) {
		qp = make_rc_qp(s, s->cq, 1);
		if (!qp) {
			fail(C_CHURN, "create_qp %ld: errno %d (%s)", i, errno,
			     strerror(errno));
			return;
		}
		err = ibv_destroy_qp(qp);
		if (err) {
			fail(C_CHURN, "destroy_qp %ld: errno %d (%s)", i, err,
			     strerror(err));
			return;
		}
	}
	t = now() - t0;
	printf("# churn %ld qps in %.3f s (%.1f us/qp)\n", n, t, t * 1e6 / n);
	pass(C_CHURN);
}

int main(int argc, char **argv)
{
	static const union ibv_gid zero_gid;
	struct ibv_device **list;
	struct ibv_port_attr port;
	struct sec s = { 0 };
	char gid_text[INET6_ADDRSTRLEN], *end;
	int i, n, have_gid = 0;

	plan_checks();
	if (argc == 2 && !strcmp(argv[1], "--plan")) {
		printf("%d\n", plan_n);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s DEV GID_INDEX OUTDIR\n       %s --plan\n",
			argv[0], argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	s.gid_index = strtol(argv[2], &end, 0);
	if (end == argv[2] || *end || s.gid_index < 0) {
		fprintf(stderr, "%s: GID_INDEX %s is not a number\n", argv[0],
			argv[2]);
		return 2;
	}
	s.outdir = argv[3];

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			s.ctx = ibv_open_device(list[i]);
	if (!s.ctx) {
		failed += plan_finish("device not opened");
		goto out;
	}
	s.pd = ibv_alloc_pd(s.ctx);
	s.cq = s.pd ? ibv_create_cq(s.ctx, 16, NULL, NULL, 0) : NULL;
	if (!s.pd || !s.cq) {
		printf("# alloc_pd / create_cq: %s\n", strerror(errno));
		failed += plan_finish("no PD or CQ");
		goto out_close;
	}
	if (!ibv_query_port(s.ctx, 1, &port))
		printf("# %s port 1: %s, active MTU %d\n", argv[1],
		       ibv_port_state_str(port.state),
		       128 << port.active_mtu);
	if (!ibv_query_gid(s.ctx, 1, s.gid_index, &s.gid) &&
	    memcmp(&s.gid, &zero_gid, sizeof(s.gid))) {
		have_gid = 1;
		inet_ntop(AF_INET6, s.gid.raw, gid_text, sizeof(gid_text));
		printf("# GID %d: %s\n", s.gid_index, gid_text);
	}

	test_qpns(&s);
	test_keys(&s);
	test_wire(&s, have_gid);
	test_churn(&s);
	failed += plan_finish("an earlier step failed");
out_close:
	if (s.cq)
		ibv_destroy_cq(s.cq);
	if (s.pd)
		ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ctx);
out:
	if (list)
		ibv_free_device_list(list);
	return failed ? 1 : 0;
}
