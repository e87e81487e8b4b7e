// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_victim: the RC QPs fuzz-pair.sh aims malformed packets at.
 *
 * Both guests run it (-r a, -r b).  Each side creates -n RC QPs on one PD,
 * CQ and 64 KiB MR (every remote access), writes what the peer needs to
 * DIR/victim.ROLE and reads DIR/victim.PEER; QP i of a is connected to QP i
 * of b with path MTU 1024.  Guest b posts receives on every QP.
 *
 * Once DIR/fuzz.capture-ready exists, guest a sends one of each RC request
 * on QP 0 (SEND of 1 and 3 packets, SEND with immediate, WRITE of 3
 * packets, WRITE with immediate, READ of 3 packets, both atomics), checks
 * their completions and writes DIR/victim.traffic-done ("ok" or why not):
 * the fuzzer captures these packets as its templates.
 *
 * Then both sides poll their CQ (b reposts receives) until DIR/fuzz.stop
 * appears, and print how many completions they saw, with which status, and
 * how many of their QPs ended in the error state.  Exit status 0 unless
 * the setup or a's valid traffic failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_QP		128
#define MR_LEN		65536
#define RECV_LEN	4096
#define RECVS_PER_QP	8
/* receives land in the first half, the peer's WRITEs in the second */
#define TARGET_OFF	(MR_LEN / 2)

static const char *dev_name;
static const char *dir = "/shared";
static int gid_index = -1;
static int nqp = 16;
static unsigned int timeout = 600;
static char role;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static struct ibv_qp *qp[MAX_QP];
static __u8 *buf;

static struct {
	union ibv_gid gid;
	__u64 va;
	__u32 rkey;
	__u32 qpn[MAX_QP];
	__u32 psn[MAX_QP];
} peer;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz_victim %c: ", role ? role : '?');
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool exists(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

/* Write DIR/NAME atomically (a rename), so the reader never sees half */
static void put_file(const char *name, const char *text)
{
	char path[512], tmp[520];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path))
		die("cannot write %s: %s", path, strerror(errno));
}

static __u32 psn_of(char side, int i)
{
	return ((side == 'a' ? 0x5a0000u : 0x3c0000u) + 7919u * i) & 0xffffff;
}

static void setup(void)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_device **list;
	struct ibv_qp_init_attr init = { 0 };
	struct ibv_qp_attr attr;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("cannot open %s", dev_name);
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
	if (posix_memalign((void **)&buf, 4096, MR_LEN))
		die("no memory");
	memset(buf, 0x5c, MR_LEN);
	mr = pd ? ibv_reg_mr(pd, buf, MR_LEN, access) : NULL;
	if (!cq || !mr)
		die("PD, CQ or MR: %s", strerror(errno));

	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 16;
	init.cap.max_recv_wr = RECVS_PER_QP * 2;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	for (i = 0; i < nqp; i++) {
		qp[i] = ibv_create_qp(pd, &init);
		if (!qp[i])
			die("ibv_create_qp %d: %s", i, strerror(errno));
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_INIT;
		attr.port_num = 1;
		attr.qp_access_flags = access & ~IBV_ACCESS_LOCAL_WRITE;
		if (ibv_modify_qp(qp[i], &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			die("INIT: %s", strerror(errno));
	}
}

static void post_recv(int i, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + (slot % (TARGET_OFF / RECV_LEN)) * RECV_LEN,
		.length = RECV_LEN,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(qp[i], &wr, &bad))
		die("posting a receive on QP %d: %s", i, strerror(errno));
}

static void exchange(void)
{
	char text[8192], path[512], line[256], hex[40];
	size_t len = 0;
	double end = now() + 120;
	FILE *f;
	int i, k;

	len += snprintf(text + len, sizeof(text) - len, "gid ");
	if (ibv_query_gid(ctx, 1, gid_index, &peer.gid))
		die("ibv_query_gid %d", gid_index);
	for (k = 0; k < 16; k++)
		len += snprintf(text + len, sizeof(text) - len, "%02x",
				peer.gid.raw[k]);
	len += snprintf(text + len, sizeof(text) - len,
			"\nmr %llu %u %d %u\n",
			(unsigned long long)(uintptr_t)buf, mr->rkey, MR_LEN,
			TARGET_OFF);
	for (i = 0; i < nqp; i++)
		len += snprintf(text + len, sizeof(text) - len, "qp %d %u %u\n",
				i, qp[i]->qp_num, psn_of(role, i));
	snprintf(text + len, sizeof(text) - len, "end\n");
	snprintf(path, sizeof(path), "victim.%c", role);
	put_file(path, text);

	snprintf(path, sizeof(path), "%s/victim.%c", dir, role == 'a' ? 'b' : 'a');
	while (access(path, F_OK)) {
		if (now() > end)
			die("no %s", path);
		usleep(100000);
	}
	f = fopen(path, "r");
	if (!f)
		die("cannot read %s", path);
	memset(&peer, 0, sizeof(peer));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long va;
		unsigned int a, b;

		if (sscanf(line, "gid %32s", hex) == 1) {
			for (k = 0; k < 16; k++)
				if (sscanf(hex + 2 * k, "%2hhx", &peer.gid.raw[k]) != 1)
					die("bad GID in %s", path);
		} else if (sscanf(line, "mr %llu %u", &va, &a) == 2) {
			peer.va = va;
			peer.rkey = a;
		} else if (sscanf(line, "qp %d %u %u", &i, &a, &b) == 3 &&
			   i >= 0 && i < MAX_QP) {
			peer.qpn[i] = a;
			peer.psn[i] = b;
		}
	}
	fclose(f);
}

static void connect_all(void)
{
	struct ibv_qp_attr attr;
	int i;

	for (i = 0; i < nqp; i++) {
		if (!peer.qpn[i])
			die("the peer has no QP %d", i);
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTR;
		attr.path_mtu = IBV_MTU_1024;
		attr.dest_qp_num = peer.qpn[i];
		attr.rq_psn = peer.psn[i];
		attr.max_dest_rd_atomic = 4;
		attr.min_rnr_timer = 12;
		attr.ah_attr.is_global = 1;
		attr.ah_attr.port_num = 1;
		attr.ah_attr.grh.dgid = peer.gid;
		attr.ah_attr.grh.sgid_index = gid_index;
		attr.ah_attr.grh.hop_limit = 64;
		if (ibv_modify_qp(qp[i], &attr, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
			die("RTR: %s", strerror(errno));
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTS;
		attr.sq_psn = psn_of(role, i);
		attr.timeout = 14;
		attr.retry_cnt = 7;
		attr.rnr_retry = 7;
		attr.max_rd_atomic = 4;
		if (ibv_modify_qp(qp[i], &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
				  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
			die("RTS: %s", strerror(errno));
	}
}

/* One request on QP 0 and its completion; NULL or why it failed */
static const char *one_request(enum ibv_wr_opcode op, __u32 len,
			       __u64 remote_off, char *why, size_t wl)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + TARGET_OFF + 8192,
		.length = len,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1000 + op,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	double end = now() + 60;
	int n;

	wr.imm_data = htobe32(0x12345678);
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = peer.va + TARGET_OFF + remote_off;
		wr.wr.atomic.rkey = peer.rkey;
		wr.wr.atomic.compare_add = 0x5c5c5c5c5c5c5c5cull;
		wr.wr.atomic.swap = 7;
	} else {
		wr.wr.rdma.remote_addr = peer.va + TARGET_OFF + remote_off;
		wr.wr.rdma.rkey = peer.rkey;
	}
	if (ibv_post_send(qp[0], &wr, &bad)) {
		snprintf(why, wl, "post_send opcode %d: %s", op, strerror(errno));
		return why;
	}
	do {
		n = ibv_poll_cq(cq, 1, &wc);
		if (!n && now() > end) {
			snprintf(why, wl, "opcode %d: no completion in 60 s", op);
			return why;
		}
	} while (n == 0);
	if (n < 0 || wc.status != IBV_WC_SUCCESS || wc.wr_id != wr.wr_id) {
		snprintf(why, wl, "opcode %d: status %s wr_id %llu", op,
			 ibv_wc_status_str(wc.status),
			 (unsigned long long)wc.wr_id);
		return why;
	}
	return NULL;
}

static void valid_traffic(void)
{
	static const struct {
		enum ibv_wr_opcode op;
		__u32 len;
		__u64 off;
	} reqs[] = {
		{ IBV_WR_SEND, 100, 0 },
		{ IBV_WR_SEND, 3000, 0 },
		{ IBV_WR_SEND_WITH_IMM, 8, 0 },
		{ IBV_WR_RDMA_WRITE, 3000, 0 },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, 500, 4096 },
		{ IBV_WR_RDMA_READ, 3000, 0 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 8, 8192 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 8200 },
	};
	double end = now() + timeout;
	const char *err = NULL;
	char why[256];
	size_t i;

	while (!exists("fuzz.capture-ready") || !exists("victim.ready.b")) {
		if (now() > end)
			die("the fuzzer never got ready to capture");
		usleep(100000);
	}
	for (i = 0; i < ARRAY_SIZE(reqs) && !err; i++)
		err = one_request(reqs[i].op, reqs[i].len, reqs[i].off, why,
				  sizeof(why));
	if (err) {
		char text[300];

		snprintf(text, sizeof(text), "fail %s\n", err);
		put_file("victim.traffic-done", text);
		die("%s", err);
	}
	put_file("victim.traffic-done", "ok\n");
}

static void idle_until_stop(void)
{
	double end = now() + timeout;
	unsigned long total = 0, bad = 0;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_wc wc[32];
	int i, n, in_error = 0;

	while (!exists("fuzz.stop") && now() < end) {
		n = ibv_poll_cq(cq, 32, wc);
		if (n < 0)
			die("ibv_poll_cq");
		for (i = 0; i < n; i++) {
			total++;
			if (wc[i].status != IBV_WC_SUCCESS) {
				bad++;
				if (bad <= 20)
					printf("# %c: QP %u completion: %s\n", role,
					       wc[i].qp_num,
					       ibv_wc_status_str(wc[i].status));
			} else if (role == 'b' && (wc[i].opcode & IBV_WC_RECV)) {
				post_recv(wc[i].wr_id, total);
			}
		}
		if (!n)
			usleep(20000);
	}
	for (i = 0; i < nqp; i++)
		if (!ibv_query_qp(qp[i], &attr, IBV_QP_STATE, &init) &&
		    attr.qp_state == IBV_QPS_ERR)
			in_error++;
	printf("# %c: %lu completions after setup, %lu in error; %d of %d QPs in the error state\n",
	       role, total, bad, in_error, nqp);
	for (i = 0; i < nqp; i++)
		ibv_destroy_qp(qp[i]);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	/*
	 * QPs destroyed under a fuzzer still at work turn its later checks
	 * into "moved by 0": say so, rather than look like a clean end.
	 */
	if (!exists("fuzz.stop"))
		die("gave up after %u s before the fuzzer said stop", timeout);
}

int main(int argc, char **argv)
{
	int ch, i, k;

	while ((ch = getopt(argc, argv, "d:g:n:r:D:t:")) != -1) {
		switch (ch) {
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'n':
			nqp = atoi(optarg);
			break;
		case 'r':
			role = optarg[0];
			break;
		case 'D':
			dir = optarg;
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s -d DEV -g GIDX -r a|b [-n QPS] [-D DIR] [-t SECS]\n",
				argv[0]);
			return 2;
		}
	}
	if (!dev_name || gid_index < 0 || (role != 'a' && role != 'b') ||
	    nqp < 1 || nqp > MAX_QP)
		die("need -d, -g, -r a|b and 1 <= -n <= %d", MAX_QP);
	setvbuf(stdout, NULL, _IOLBF, 0);
	setup();
	if (role == 'b')
		for (i = 0; i < nqp; i++)
			for (k = 0; k < RECVS_PER_QP; k++)
				post_recv(i, i * RECVS_PER_QP + k);
	exchange();
	connect_all();
	printf("# %c: %d QPs connected\n", role, nqp);
	put_file(role == 'a' ? "victim.ready.a" : "victim.ready.b", "ok\n");
	if (role == 'a')
		valid_traffic();
	idle_until_stop();
	return 0;
}
