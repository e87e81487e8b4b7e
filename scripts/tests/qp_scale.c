// SPDX-License-Identifier: GPL-2.0
/*
 * What RC QPs cost a driver, for `make bench`:
 *   qp_scale DEVICE GID_INDEX mem N
 * creates N RC QPs with perftest's default capabilities (128 send WRs,
 * 512 receive WRs, one SGE each, no inline data) on one PD and one CQ and
 * prints "slab_vmalloc_kib K": what /proc/meminfo's Slab and VmallocUsed
 * grew by, over N.  (Slab counts a kmalloc() too large for a slab cache
 * as well; MemFree would, but moves too much on its own to be read.)
 *   qp_scale DEVICE GID_INDEX memrts N
 * the same once the QPs are connected as below (RTS, max_dest_rd_atomic
 * 1 as perftest's ib_write_bw sets it): what a driver allocates on the
 * way, responder resources for one, counts too.
 *   qp_scale DEVICE GID_INDEX connect N
 * creates N such QPs and connects them in pairs through the device's own
 * GID (each QP's peer is its neighbour), INIT, RTR and RTS, and prints
 * "connect_qps_s S": the seconds from the first create to the last RTS.
 * Both destroy what they made.  Exits 0 when every verb succeeded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define SEND_WR		128
#define RECV_WR		512

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static int die(const char *what)
{
	fprintf(stderr, "qp_scale: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* /proc/meminfo's Slab plus VmallocUsed, in KiB */
static long kernel_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long v, sum = 0;

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &v) == 1 ||
		    sscanf(line, "VmallocUsed: %ld kB", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

static struct ibv_qp *create_qp(void)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = SEND_WR,
			.max_recv_wr = RECV_WR,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &attr);

	if (!qp)
		die("create_qp");
	return qp;
}

static void to_rts(struct ibv_qp *qp, unsigned int peer_qpn,
		   const union ibv_gid *gid, int gidx)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_qp **qps;
	union ibv_gid gid;
	int i, n, gidx;
	long before;
	double t0;

	if (argc != 5 || (strcmp(argv[3], "mem") && strcmp(argv[3], "memrts") &&
			  strcmp(argv[3], "connect"))) {
		fprintf(stderr, "usage: qp_scale DEVICE GID_INDEX mem|memrts|connect N\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	n = atoi(argv[4]);
	if (n < 2 || n % 2) {
		fprintf(stderr, "qp_scale: N must be even and at least 2\n");
		return 2;
	}
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die(argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4096, NULL, NULL, 0) : NULL;
	qps = calloc(n, sizeof(*qps));
	if (!cq || !qps || ibv_query_gid(ctx, 1, gidx, &gid))
		die("setup");

	/* the slab caches' first pages are not any one QP's */
	ibv_destroy_qp(create_qp());

	before = kernel_kib();
	t0 = now();
	for (i = 0; i < n; i++)
		qps[i] = create_qp();
	/* memrts and connect: connected; mem: as created */
	if (strcmp(argv[3], "mem"))
		for (i = 0; i < n; i++)
			to_rts(qps[i], qps[i ^ 1]->qp_num, &gid, gidx);
	if (!strcmp(argv[3], "connect"))
		printf("connect_qps_s %.3f\n", now() - t0);
	else
		printf("slab_vmalloc_kib %.1f\n",
		       (double)(kernel_kib() - before) / n);
	for (i = 0; i < n; i++)
		if (ibv_destroy_qp(qps[i]))
			die("destroy_qp");
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(qps);
	return 0;
}
