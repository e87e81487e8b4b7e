// SPDX-License-Identifier: GPL-2.0
/*
 * Tear verbs objects down with traffic in flight, over and over.
 *
 * Each cycle connects an RC QP on device A to one on device B, has both
 * post a burst of RDMA WRITEs, SENDs and READs at each other, waits a
 * random moment, and then destroys the QPs, MRs, CQs and PDs of both sides
 * in a random order while the burst is still on the wire.  ib_core refuses
 * (EBUSY) a CQ or PD still in use; those are retried after the rest, any
 * other failure ends the run.  Completions are not waited for: what the
 * kernel must survive is the teardown itself.
 *
 *   teardown_stress -a DEV_A -A GIDX_A -b DEV_B -B GIDX_B [-n CYCLES]
 *		     [-S SEED] [-c]
 *
 * -c runs until a verbs call fails (the harness deletes a link or a
 * netdev under it) and then exits 0, printing where it stopped; without
 * -c every cycle must succeed.
 */
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

#define BUF_LEN		(64 * 1024)
#define MSG_LEN		4096
#define BURST		12
#define DEPTH		64

struct side {
	struct ibv_context *dev;
	int gidx;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	unsigned char *buf;
};

static bool continuous;
static unsigned long cycles_done;

static void stop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (continuous) {
		printf("stopped after %lu cycles: ", cycles_done);
		vprintf(fmt, ap);
		putchar('\n');
		exit(0);
	}
	fprintf(stderr, "teardown_stress: cycle %lu: ", cycles_done);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(1);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *dev = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			dev = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!dev)
		stop("cannot open %s", name);
	return dev;
}

static void create_objects(struct side *s)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	s->pd = ibv_alloc_pd(s->dev);
	if (!s->pd)
		stop("alloc PD: %s", strerror(errno));
	s->cq = ibv_create_cq(s->dev, 2 * DEPTH, NULL, NULL, 0);
	if (!s->cq)
		stop("create CQ: %s", strerror(errno));
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		stop("reg MR: %s", strerror(errno));
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &init);
	if (!s->qp)
		stop("create QP: %s", strerror(errno));
}

static void connect_to(struct side *s, const struct side *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		stop("QP to INIT: %s", strerror(errno));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0xfffff0;	/* a burst crosses the PSN wrap */
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = s->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		stop("QP to RTR: %s", strerror(errno));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0xfffff0;
	a.timeout = 8;		/* about 1 ms: retries run out quickly */
	a.retry_cnt = 2;
	a.rnr_retry = 2;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		stop("QP to RTS: %s", strerror(errno));
}

/* Receives for the peer's SENDs, then WRITEs, SENDs and READs at it */
static void burst(struct side *s, const struct side *peer)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_SEND, IBV_WR_RDMA_READ,
		IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	struct ibv_send_wr swr, *bad_s;
	struct ibv_recv_wr rwr, *bad_r;
	struct ibv_sge sge;
	int i;

	for (i = 0; i < BURST; i++) {
		sge = (struct ibv_sge){
			.addr = (uintptr_t)s->buf + (i % 8) * MSG_LEN,
			.length = MSG_LEN,
			.lkey = s->mr->lkey,
		};
		rwr = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &sge,
					    .num_sge = 1 };
		if (ibv_post_recv(s->qp, &rwr, &bad_r))
			stop("post recv: %s", strerror(errno));
	}
	for (i = 0; i < BURST; i++) {
		sge = (struct ibv_sge){
			.addr = (uintptr_t)s->buf + 8 * MSG_LEN + (i % 8) * MSG_LEN,
			.length = MSG_LEN,
			.lkey = s->mr->lkey,
		};
		swr = (struct ibv_send_wr){
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = ops[i % 4],
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = {
				.remote_addr = (uintptr_t)peer->buf +
					       (i % 8) * MSG_LEN,
				.rkey = peer->mr->rkey,
			},
		};
		if (ibv_post_send(s->qp, &swr, &bad_s))
			stop("post send: %s", strerror(errno));
	}
}

/* Destroy everything of both sides in a random order, EBUSY retried */
static void teardown(struct side *s)
{
	void **obj[8] = {
		(void **)&s[0].qp, (void **)&s[1].qp,
		(void **)&s[0].mr, (void **)&s[1].mr,
		(void **)&s[0].cq, (void **)&s[1].cq,
		(void **)&s[0].pd, (void **)&s[1].pd,
	};
	int order[8], i, j, t, left = 8, pass;

	for (i = 0; i < 8; i++)
		order[i] = i;
	for (i = 7; i > 0; i--) {
		j = rand() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (pass = 0; left && pass < 8; pass++) {
		for (i = 0; i < 8; i++) {
			int k = order[i], err;
			void *o = *obj[k];

			if (!o)
				continue;
			switch (k / 2) {
			case 0:
				err = ibv_destroy_qp(o);
				break;
			case 1:
				err = ibv_dereg_mr(o);
				break;
			case 2:
				err = ibv_destroy_cq(o);
				break;
			default:
				err = ibv_dealloc_pd(o);
				break;
			}
			if (err == EBUSY)
				continue;	/* still used: after the rest */
			if (err)
				stop("destroy object %d: %s", k, strerror(err));
			*obj[k] = NULL;
			left--;
		}
	}
	if (left)
		stop("%d objects still busy after every other was gone", left);
}

int main(int argc, char **argv)
{
	struct side s[2] = { 0 };
	const char *name[2] = { NULL, NULL };
	unsigned long cycles = 100;
	unsigned int seed = 1;
	int opt, i;

	while ((opt = getopt(argc, argv, "a:A:b:B:n:S:c")) != -1) {
		switch (opt) {
		case 'a':
			name[0] = optarg;
			break;
		case 'A':
			s[0].gidx = atoi(optarg);
			break;
		case 'b':
			name[1] = optarg;
			break;
		case 'B':
			s[1].gidx = atoi(optarg);
			break;
		case 'n':
			cycles = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			continuous = true;
			break;
		default:
			stop("bad option");
		}
	}
	if (!name[0] || !name[1])
		stop("bad arguments; usage at the top of teardown_stress.c");
	srand(seed);
	printf("seed %u\n", seed);
	fflush(stdout);

	for (i = 0; i < 2; i++) {
		s[i].dev = open_dev(name[i]);
		if (ibv_query_gid(s[i].dev, 1, s[i].gidx, &s[i].gid))
			stop("query GID %d of %s", s[i].gidx, name[i]);
		s[i].buf = calloc(1, BUF_LEN);
		if (!s[i].buf)
			stop("no memory");
	}

	for (cycles_done = 0; continuous || cycles_done < cycles; cycles_done++) {
		create_objects(&s[0]);
		create_objects(&s[1]);
		connect_to(&s[0], &s[1]);
		connect_to(&s[1], &s[0]);
		burst(&s[0], &s[1]);
		burst(&s[1], &s[0]);
		usleep(rand() % 3000);
		teardown(s);
	}
	printf("%lu cycles\n", cycles_done);
	for (i = 0; i < 2; i++) {
		ibv_close_device(s[i].dev);
		free(s[i].buf);
	}
	return 0;
}
