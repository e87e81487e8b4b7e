// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast over plain verbs, without rdma_cm: ibv_attach_mcast() and an
 * AH towards the group.  mcast-pair.sh runs it where rdma_cm cannot go
 * (IPv6 groups over RoCE v2) and to show the device joins the group by
 * itself, with no rdma_cm to join IPv4 groups for it.
 *
 *   mcast_ud -d DEV -g GID_INDEX -m GROUP -r [-q QPS] [-n COUNT] [-t SECS]
 *	attach QPS UD QPs to GROUP (an IPv4 or IPv6 multicast address),
 *	print "ready", and expect COUNT datagrams on every QP, each with a
 *	GRH addressed to GROUP and its payload intact; every bad datagram
 *	is reported ("QP Q: datagram N ...")
 *   mcast_ud -d DEV -g GID_INDEX -m GROUP -s [-n COUNT]
 *	send COUNT datagrams to GROUP from GID_INDEX
 *
 * Self-test (-x N), to show the checks fail: the sender sends datagram N
 * with a wrong payload byte; the receiver spoils the group address in the
 * GRH of datagram N as it arrives, before checking it.
 *
 * Exit status 0 when everything arrived (or was sent) as expected.
 */
#include <arpa/inet.h>
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

#define QKEY		0x5e0ce001u
#define MCAST_QPN	0xffffffu
#define GRH_LEN		40
#define PAYLOAD		256
#define MAX_QPS		8
#define MAX_COUNT	1000

struct ctx {
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;
	struct ibv_qp *qp[MAX_QPS];
	int nqps;
	int count;
	int gidx;
	int spoil;	/* -x: the datagram to spoil, or -1 */
	union ibv_gid mgid;
	bool mgid_v4;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mcast_ud: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The GID of GROUP: an IPv6 address as is, an IPv4 one IPv4-mapped */
static void parse_group(const char *s, struct ctx *c)
{
	struct in_addr a4;

	if (inet_pton(AF_INET6, s, c->mgid.raw) == 1)
		return;
	if (inet_pton(AF_INET, s, &a4) != 1)
		die("%s is no IPv4 or IPv6 address", s);
	memset(c->mgid.raw, 0, sizeof(c->mgid.raw));
	c->mgid.raw[10] = 0xff;
	c->mgid.raw[11] = 0xff;
	memcpy(&c->mgid.raw[12], &a4, 4);
	c->mgid_v4 = true;
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
		die("cannot open %s", name);
	return dev;
}

static struct ibv_qp *ud_qp(struct ctx *c, int depth)
{
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };
	struct ibv_qp *qp = ibv_create_qp(c->pd, &init);

	if (!qp)
		die("create UD QP: %s", strerror(errno));
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("QP to INIT: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("QP to RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("QP to RTS: %s", strerror(errno));
	return qp;
}

static unsigned char *slot(struct ctx *c, int q, int i)
{
	return c->buf + ((size_t)q * c->count + i) * (GRH_LEN + PAYLOAD);
}

static void fill(unsigned char *p, int seq)
{
	int i;

	for (i = 0; i < PAYLOAD; i++)
		p[i] = (unsigned char)(seq * 7 + i);
}

static struct ibv_wc poll_one(struct ctx *c, time_t deadline)
{
	struct ibv_wc wc;
	int n;

	while (!(n = ibv_poll_cq(c->cq, 1, &wc)))
		if (time(NULL) > deadline)
			die("timed out waiting for a completion");
	if (n < 0)
		die("poll CQ failed");
	if (wc.status != IBV_WC_SUCCESS)
		die("completion %llu: %s", (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(wc.status));
	return wc;
}

/* The destination address in the receive buffer's 40-byte GRH area */
static unsigned char *grh_dst(const struct ctx *c, unsigned char *grh)
{
	/* RoCEv2/IPv4: the IPv4 header fills the last 20 bytes */
	return c->mgid_v4 ? grh + 20 + 16 : grh + 24;
}

static bool grh_to_group(const struct ctx *c, unsigned char *grh)
{
	if (c->mgid_v4)
		return !memcmp(grh_dst(c, grh), &c->mgid.raw[12], 4);
	return !memcmp(grh_dst(c, grh), c->mgid.raw, 16);
}

static int receive(struct ctx *c, int secs)
{
	int got[MAX_QPS] = { 0 };
	time_t deadline = time(NULL) + secs;
	int q, i, total, bad = 0;

	for (q = 0; q < c->nqps; q++) {
		c->qp[q] = ud_qp(c, c->count);
		for (i = 0; i < c->count; i++) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)slot(c, q, i),
				.length = GRH_LEN + PAYLOAD,
				.lkey = c->mr->lkey,
			};
			struct ibv_recv_wr wr = {
				.wr_id = (uint64_t)q << 32 | i,
				.sg_list = &sge,
				.num_sge = 1,
			}, *bad;

			if (ibv_post_recv(c->qp[q], &wr, &bad))
				die("post recv: %s", strerror(errno));
		}
		if (ibv_attach_mcast(c->qp[q], &c->mgid, 0))
			die("attach QP %u: %s", c->qp[q]->qp_num, strerror(errno));
	}
	printf("ready: %d QPs attached\n", c->nqps);
	fflush(stdout);

	for (total = 0; total < c->nqps * c->count; total++) {
		struct ibv_wc wc = poll_one(c, deadline);
		unsigned char want[PAYLOAD], *p;

		q = wc.wr_id >> 32;
		i = wc.wr_id & 0xffffffff;
		p = slot(c, q, i);
		if (wc.opcode != IBV_WC_RECV || !(wc.wc_flags & IBV_WC_GRH) ||
		    wc.byte_len != GRH_LEN + PAYLOAD)
			die("QP %d: odd completion (opcode %d flags %#x len %u)",
			    q, wc.opcode, wc.wc_flags, wc.byte_len);
		if (got[q] == c->spoil)
			grh_dst(c, p)[c->mgid_v4 ? 3 : 15] ^= 0x40;
		if (!grh_to_group(c, p)) {
			fprintf(stderr, "mcast_ud: QP %d: datagram %d not addressed to the group\n",
				q, got[q]);
			bad++;
		}
		/* datagrams of one sender arrive in order on each QP */
		fill(want, got[q]);
		if (memcmp(p + GRH_LEN, want, PAYLOAD)) {
			fprintf(stderr, "mcast_ud: QP %d: datagram %d corrupted or out of order\n",
				q, got[q]);
			bad++;
		}
		got[q]++;
	}
	for (q = 0; q < c->nqps; q++) {
		if (ibv_detach_mcast(c->qp[q], &c->mgid, 0))
			die("detach: %s", strerror(errno));
		printf("QP %u: %d datagrams\n", c->qp[q]->qp_num, got[q]);
	}
	if (bad)
		die("%d bad datagrams", bad);
	return 0;
}

static int send_all(struct ctx *c, int secs)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = c->mgid, .sgid_index = c->gidx,
			 .hop_limit = 64 },
		.port_num = 1,
	};
	time_t deadline = time(NULL) + secs;
	struct ibv_ah *ah;
	int i;

	c->qp[0] = ud_qp(c, c->count);
	ah = ibv_create_ah(c->pd, &aa);
	if (!ah)
		die("create AH to the group: %s", strerror(errno));
	for (i = 0; i < c->count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)slot(c, 0, i),
			.length = PAYLOAD,
			.lkey = c->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = MCAST_QPN,
				   .remote_qkey = QKEY },
		}, *bad;

		fill(slot(c, 0, i), i);
		if (i == c->spoil)
			slot(c, 0, i)[PAYLOAD / 2] ^= 0x01;
		if (ibv_post_send(c->qp[0], &wr, &bad))
			die("post send: %s", strerror(errno));
		poll_one(c, deadline);
	}
	printf("sent %d datagrams\n", c->count);
	ibv_destroy_ah(ah);
	return 0;
}

int main(int argc, char **argv)
{
	struct ctx c = { .nqps = 1, .count = 20, .spoil = -1 };
	const char *dev = NULL, *group = NULL;
	int opt, secs = 30, mode = 0, q;
	size_t len;

	while ((opt = getopt(argc, argv, "d:g:m:rsq:n:t:x:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			c.gidx = atoi(optarg);
			break;
		case 'm':
			group = optarg;
			break;
		case 'r':
		case 's':
			mode = opt;
			break;
		case 'q':
			c.nqps = atoi(optarg);
			break;
		case 'n':
			c.count = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'x':
			c.spoil = atoi(optarg);
			break;
		default:
			die("bad option");
		}
	}
	if (!dev || !group || !mode || c.nqps < 1 || c.nqps > MAX_QPS ||
	    c.count < 1 || c.count > MAX_COUNT)
		die("bad arguments; usage at the top of mcast_ud.c");
	parse_group(group, &c);

	c.dev = open_dev(dev);
	c.pd = ibv_alloc_pd(c.dev);
	c.cq = c.pd ? ibv_create_cq(c.dev, c.nqps * c.count * 2, NULL, NULL, 0) : NULL;
	len = (size_t)c.nqps * c.count * (GRH_LEN + PAYLOAD);
	c.buf = calloc(1, len);
	if (!c.cq || !c.buf)
		die("PD/CQ/buffer");
	c.mr = ibv_reg_mr(c.pd, c.buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!c.mr)
		die("reg MR: %s", strerror(errno));

	if (mode == 'r')
		receive(&c, secs);
	else
		send_all(&c, secs);

	for (q = 0; q < MAX_QPS; q++)
		if (c.qp[q])
			ibv_destroy_qp(c.qp[q]);
	ibv_dereg_mr(c.mr);
	ibv_destroy_cq(c.cq);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.dev);
	free(c.buf);
	return 0;
}
