// SPDX-License-Identifier: GPL-2.0
/*
 * A test fixture, never loaded outside the guest tests: a kernel verbs
 * consumer that checks IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK, which no
 * userspace provider of the rxe ABI can ask for (librxe passes no create
 * flags).  Two UD QPs of one device join one group; A blocks its own
 * multicast loopback, B does not.  A datagram from A must reach B and not
 * A; one from B must reach A and B.  The module does all of it while it
 * loads, prints a TAP line per check to the kernel log ("mcast_lb: ok -
 * ..."), and loads only if it could run them; unload it afterwards.
 * spoil=1 makes it expect another payload than the one sent, to show that
 * its payload check catches a datagram that arrives changed; noblock=1
 * creates A without the flag, to show that the check on A fails then.
 */
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

static char *dev = "sroce0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to test");

static int gid_index = -1;
module_param(gid_index, int, 0444);
MODULE_PARM_DESC(gid_index, "index of a RoCE v2 IPv4 GID of port 1");

static char *group = "239.1.2.3";
module_param(group, charp, 0444);
MODULE_PARM_DESC(group, "the IPv4 multicast group");

static bool spoil;
module_param(spoil, bool, 0444);
MODULE_PARM_DESC(spoil, "self-test: expect a payload no datagram has");

static bool noblock;
module_param(noblock, bool, 0444);
MODULE_PARM_DESC(noblock, "self-test: create A without the flag");

#define LB_QKEY		0x11140000u
#define LB_RECVS	4
#define LB_PAYLOAD	64
#define LB_GRH		40
#define LB_BUF		(LB_GRH + LB_PAYLOAD)
#define LB_WAIT_MS	3000

struct lb_qp {
	const char *name;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u8 *bufs;		/* LB_RECVS receive buffers, then a send buffer */
	u64 dma;
	unsigned int recvd;	/* datagrams received with the right payload */
	unsigned int bad;	/* datagrams received with another payload */
	unsigned int sent;	/* successful send completions */
	bool attached;
};

struct lb_ctx {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_ah *ah;
	union ib_gid mgid;
	struct lb_qp a, b;
};

static void lb_report(bool ok, const char *what)
{
	pr_info("mcast_lb: %s - %s\n", ok ? "ok" : "not ok", what);
}

static void lb_cq_event(struct ib_cq *cq, void *ctx)
{
}

static int lb_qp_create(struct lb_ctx *c, struct lb_qp *q, bool block)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = LB_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	q->bufs = kzalloc((LB_RECVS + 1) * LB_BUF, GFP_KERNEL);
	if (!q->bufs)
		return -ENOMEM;
	q->dma = ib_dma_map_single(c->ibdev, q->bufs, (LB_RECVS + 1) * LB_BUF,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->ibdev, q->dma))
		return -ENOMEM;
	q->cq = ib_create_cq(c->ibdev, lb_cq_event, NULL, q,
			     &(struct ib_cq_init_attr){ .cqe = 16 });
	if (IS_ERR(q->cq)) {
		int err = PTR_ERR(q->cq);

		q->cq = NULL;
		return err;
	}
	init.send_cq = q->cq;
	init.recv_cq = q->cq;
	if (block)
		init.create_flags = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	q->qp = ib_create_qp(c->pd, &init);
	if (IS_ERR(q->qp)) {
		int err = PTR_ERR(q->qp);

		q->qp = NULL;
		return err;
	}
	return 0;
}

static int lb_qp_ready(struct lb_ctx *c, struct lb_qp *q)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = LB_QKEY,
	};
	int err, i;

	err = ib_modify_qp(q->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(q->qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	err = ib_modify_qp(q->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	if (err)
		return err;
	for (i = 0; i < LB_RECVS; i++) {
		struct ib_sge sge = {
			.addr = q->dma + i * LB_BUF, .length = LB_BUF,
			.lkey = c->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					 .num_sge = 1 };

		err = ib_post_recv(q->qp, &wr, NULL);
		if (err)
			return err;
	}
	err = ib_attach_mcast(q->qp, &c->mgid, 0);
	q->attached = !err;
	return err;
}

/* The payload of a datagram from @q: its QPN, repeated. */
static void lb_fill(const struct lb_qp *q, u8 *p)
{
	int i;

	for (i = 0; i < LB_PAYLOAD; i++)
		p[i] = (q->qp->qp_num >> (8 * (i % 3))) + i;
}

static int lb_send(struct lb_ctx *c, struct lb_qp *q)
{
	u8 *p = q->bufs + LB_RECVS * LB_BUF;
	struct ib_sge sge = {
		.addr = q->dma + LB_RECVS * LB_BUF, .length = LB_PAYLOAD,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = { .wr_id = LB_RECVS, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		.ah = c->ah, .remote_qpn = 0xffffff, .remote_qkey = LB_QKEY,
	};

	lb_fill(q, p);
	return ib_post_send(q->qp, &wr.wr, NULL);
}

/* Take what completed on @q; a datagram counts when it came from @from. */
static void lb_poll(struct lb_qp *q, const struct lb_qp *from)
{
	u8 want[LB_PAYLOAD];
	struct ib_wc wc;

	lb_fill(from, want);
	want[LB_PAYLOAD / 2] ^= spoil;
	while (ib_poll_cq(q->cq, 1, &wc) > 0) {
		if (wc.status != IB_WC_SUCCESS) {
			pr_info("mcast_lb: %s: completion status %d\n",
				q->name, wc.status);
			continue;
		}
		if (wc.opcode == IB_WC_SEND) {
			q->sent++;
		} else if (wc.byte_len == LB_BUF &&
			   !memcmp(q->bufs + wc.wr_id * LB_BUF + LB_GRH, want,
				   LB_PAYLOAD)) {
			q->recvd++;
		} else {
			q->bad++;
		}
	}
}

/*
 * Send from @from and wait until @want receivers hold it.  Every copy is
 * delivered in one pass over the group's QPs, so once the expected ones
 * have it, a blocked one would have it too; a short grace covers the rest.
 */
static void lb_round(struct lb_ctx *c, struct lb_qp *from, unsigned int want)
{
	unsigned int waited;

	c->a.recvd = 0;
	c->a.bad = 0;
	c->b.recvd = 0;
	c->b.bad = 0;
	if (lb_send(c, from)) {
		pr_info("mcast_lb: %s: post_send failed\n", from->name);
		return;
	}
	for (waited = 0; waited < LB_WAIT_MS; waited += 20) {
		lb_poll(&c->a, from);
		lb_poll(&c->b, from);
		if (c->a.recvd + c->b.recvd >= want && from->sent)
			break;
		msleep(20);
	}
	msleep(200);
	lb_poll(&c->a, from);
	lb_poll(&c->b, from);
}

static int lb_ah_create(struct lb_ctx *c)
{
	struct rdma_ah_attr attr = {};
	__be32 addr;

	attr.type = rdma_ah_find_type(c->ibdev, 1);
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &c->mgid, 0, gid_index, 64, 0);
	in4_pton(group, -1, (u8 *)&addr, -1, NULL);
	ip_eth_mc_map(addr, (char *)attr.roce.dmac);
	c->ah = rdma_create_ah(c->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(c->ah)) {
		int err = PTR_ERR(c->ah);

		c->ah = NULL;
		return err;
	}
	return 0;
}

/* A connected QP has no multicast to block: the flag is refused there. */
static void lb_rc_refused(struct lb_ctx *c)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .send_cq = c->a.cq, .recv_cq = c->a.cq,
		.create_flags = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *qp = ib_create_qp(c->pd, &init);
	char what[96];

	snprintf(what, sizeof(what),
		 "an RC QP with the flag is refused (%ld)",
		 IS_ERR(qp) ? PTR_ERR(qp) : 0L);
	lb_report(IS_ERR(qp) && PTR_ERR(qp) == -EOPNOTSUPP, what);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
}

static void lb_checks(struct lb_ctx *c)
{
	char what[128];

	lb_rc_refused(c);

	lb_round(c, &c->a, 1);
	lb_report(c->a.sent == 1, "A's datagram to the group completes");
	snprintf(what, sizeof(what), "B receives A's datagram (%u, %u bad)",
		 c->b.recvd, c->b.bad);
	lb_report(c->b.recvd == 1 && !c->b.bad, what);
	snprintf(what, sizeof(what),
		 "A, which blocks its multicast loopback, does not (%u, %u bad)",
		 c->a.recvd, c->a.bad);
	lb_report(!c->a.recvd && !c->a.bad, what);

	lb_round(c, &c->b, 2);
	snprintf(what, sizeof(what), "A receives B's datagram (%u, %u bad)",
		 c->a.recvd, c->a.bad);
	lb_report(c->a.recvd == 1 && !c->a.bad, what);
	snprintf(what, sizeof(what),
		 "B, which does not block it, receives its own (%u, %u bad)",
		 c->b.recvd, c->b.bad);
	lb_report(c->b.recvd == 1 && !c->b.bad, what);
}

static void lb_qp_destroy(struct lb_ctx *c, struct lb_qp *q)
{
	if (q->attached)
		ib_detach_mcast(q->qp, &c->mgid, 0);
	if (q->qp)
		ib_destroy_qp(q->qp);
	if (q->cq)
		ib_destroy_cq(q->cq);
	if (q->bufs && !ib_dma_mapping_error(c->ibdev, q->dma))
		ib_dma_unmap_single(c->ibdev, q->dma, (LB_RECVS + 1) * LB_BUF,
				    DMA_BIDIRECTIONAL);
	kfree(q->bufs);
}

static int lb_run(struct lb_ctx *c)
{
	__be32 addr;
	int err;

	if (gid_index < 0 || !in4_pton(group, -1, (u8 *)&addr, -1, NULL) ||
	    !ipv4_is_multicast(addr)) {
		pr_err("mcast_lb: gid_index= and an IPv4 multicast group= are needed\n");
		return -EINVAL;
	}
	ipv6_addr_set_v4mapped(addr, (struct in6_addr *)c->mgid.raw);
	c->pd = ib_alloc_pd(c->ibdev, 0);
	if (IS_ERR(c->pd)) {
		err = PTR_ERR(c->pd);
		c->pd = NULL;
		return err;
	}
	c->a.name = "A";
	c->b.name = "B";
	err = lb_qp_create(c, &c->a, !noblock);
	if (!err)
		err = lb_qp_create(c, &c->b, false);
	if (!err)
		err = lb_ah_create(c);
	if (!err)
		err = lb_qp_ready(c, &c->a);
	if (!err)
		err = lb_qp_ready(c, &c->b);
	if (err) {
		pr_err("mcast_lb: setting up on %s failed: %d\n", dev, err);
		return err;
	}
	lb_checks(c);
	return 0;
}

static int __init mcast_lb_init(void)
{
	struct lb_ctx *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!c->ibdev) {
		pr_err("mcast_lb: no RDMA device %s\n", dev);
		kfree(c);
		return -ENODEV;
	}
	err = lb_run(c);
	lb_qp_destroy(c, &c->a);
	lb_qp_destroy(c, &c->b);
	if (c->ah)
		rdma_destroy_ah(c->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	ib_device_put(c->ibdev);
	kfree(c);
	return err;
}

static void __exit mcast_lb_exit(void)
{
}

module_init(mcast_lb_init);
module_exit(mcast_lb_exit);
MODULE_DESCRIPTION("sroce test fixture: multicast loopback blocking of UD QPs");
MODULE_LICENSE("GPL");
