// SPDX-License-Identifier: GPL-2.0
/*
 * A verbs user that holds a device while the harness takes it away.
 *
 *   live_user -d DEV -g GIDX [-t SECONDS] [-w FILE]
 *
 * Connects two RC QPs of DEV to each other (loopback) and leaves work
 * pending on them: RECVS receives on QP a that nothing will consume, and
 * SENDS sends from a to b, which has no receive posted and answers each
 * with an RNR NAK, retried for ever (rnr_retry 7).  It checks that none of
 * it has completed, prints "ready", and waits up to SECONDS (default 120)
 * for IBV_EVENT_DEVICE_FATAL on its async file.  Then, without ever
 * closing anything first:
 *
 *   flushed N of M   completions read from the CQ ring it still has
 *                    mapped, each IBV_WC_WR_FLUSH_ERR of a pending WQE
 *   holding          with -w, printed before it waits (as long as it
 *                    waited for the event) for FILE to exist: the harness
 *                    sees that the removal ended while the device was
 *                    still open
 *   post refused: E  a send posted after the removal fails (E the error)
 *   destroyed        every object destroyed, the device closed, each call
 *                    answered 0 (libibverbs takes EIO from a
 *                    disassociated device as "already gone")
 *
 * and exits 0 only if the event came, all M WQEs were flushed once each,
 * and every step above held.  Anything else is printed and exits 1.  A
 * crash on a ring that was freed under it would end the process with a
 * signal, which the harness reads from the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define RECVS		8
#define SENDS		4
#define MSG_LEN		4096
#define BUF_LEN		((RECVS + SENDS) * MSG_LEN)
#define WR_RECV		0x1000	/* wr_id tag of receives; sends are 0..SENDS-1 */

static struct ibv_context *dev;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static struct ibv_qp *qa, *qb;
static unsigned char *buf;
static int gidx;
static const char *hold_file;

static void die(const char *what, int err)
{
	printf("FAIL %s: %s\n", what, strerror(err));
	exit(1);
}

static void open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			dev = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!dev)
		die("open the device", errno ? errno : ENODEV);
}

static struct ibv_qp *create_qp(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = SENDS, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		die("create a QP", errno);
	return qp;
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *what)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		die(what, err);
}

static void connect_qp(struct ibv_qp *qp, const struct ibv_qp *peer,
		       const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "QP to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp_num;
	a.min_rnr_timer = 14;	/* 1 ms between RNR retries */
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "QP to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* for ever: the sends stay pending */
	modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "QP to RTS");
}

static int post_send(uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + (RECVS + id % SENDS) * MSG_LEN,
		.length = MSG_LEN,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(qa, &wr, &bad);
}

static void post_work(void)
{
	struct ibv_recv_wr rwr, *bad_r;
	struct ibv_sge sge;
	int i, err;

	for (i = 0; i < RECVS; i++) {
		sge.addr = (uintptr_t)buf + i * MSG_LEN;
		sge.length = MSG_LEN;
		sge.lkey = mr->lkey;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = WR_RECV + i;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		err = ibv_post_recv(qa, &rwr, &bad_r);
		if (err)
			die("post a receive", err);
	}
	for (i = 0; i < SENDS; i++) {
		err = post_send(i);
		if (err)
			die("post a send", err);
	}
}

/* Wait for DEVICE_FATAL; other async events are printed and acked */
static bool wait_fatal(int secs)
{
	time_t end = time(NULL) + secs;
	struct ibv_async_event ev;
	struct pollfd p = { .fd = dev->async_fd, .events = POLLIN };
	bool fatal = false;

	if (fcntl(dev->async_fd, F_SETFL,
		  fcntl(dev->async_fd, F_GETFL) | O_NONBLOCK))
		die("make the async file non-blocking", errno);
	while (!fatal && time(NULL) < end) {
		if (poll(&p, 1, 1000) <= 0)
			continue;
		if (ibv_get_async_event(dev, &ev))
			continue;
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			fatal = true;
		else
			printf("event %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return fatal;
}

/* Read the CQ ring dry; true if it held each pending WQE once, flushed */
static bool count_flushed(void)
{
	bool seen[RECVS + SENDS] = { false };
	bool good = true;
	struct ibv_wc wc;
	int n = 0, i;

	while (ibv_poll_cq(cq, 1, &wc) == 1) {
		if (wc.wr_id >= WR_RECV && wc.wr_id < WR_RECV + RECVS)
			i = SENDS + wc.wr_id - WR_RECV;
		else if (wc.wr_id < SENDS)
			i = wc.wr_id;
		else
			i = -1;
		if (i < 0 || seen[i] || wc.status != IBV_WC_WR_FLUSH_ERR) {
			printf("unexpected completion: wr_id 0x%llx, %s\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
			good = false;
			continue;
		}
		seen[i] = true;
		n++;
	}
	printf("flushed %d of %d\n", n, RECVS + SENDS);
	return good && n == RECVS + SENDS;
}

/* With -w: keep everything open until the harness says so */
static void hold(int secs)
{
	time_t end = time(NULL) + secs;

	if (!hold_file)
		return;
	printf("holding\n");
	while (access(hold_file, F_OK) && time(NULL) < end)
		usleep(100000);
}

/* Every destroy after the removal must be answered 0 */
static bool destroy_all(void)
{
	int err[6], i;
	bool good = true;

	err[0] = ibv_destroy_qp(qa);
	err[1] = ibv_destroy_qp(qb);
	err[2] = ibv_dereg_mr(mr);
	err[3] = ibv_destroy_cq(cq);
	err[4] = ibv_dealloc_pd(pd);
	err[5] = ibv_close_device(dev);
	for (i = 0; i < 6; i++) {
		if (err[i]) {
			printf("destroy step %d: %s\n", i, strerror(err[i]));
			good = false;
		}
	}
	if (good)
		printf("destroyed\n");
	return good;
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	union ibv_gid gid;
	struct ibv_wc wc;
	int secs = 120, opt, err;
	bool good = true;

	while ((opt = getopt(argc, argv, "d:g:t:w:")) != -1) {
		switch (opt) {
		case 'd':
			name = optarg;
			break;
		case 'g':
			gidx = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'w':
			hold_file = optarg;
			break;
		default:
			name = NULL;
			optind = argc;
		}
	}
	if (!name) {
		fprintf(stderr,
			"usage: live_user -d DEV -g GIDX [-t SECONDS] [-w FILE]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_dev(name);
	if (ibv_query_gid(dev, 1, gidx, &gid))
		die("query the GID", errno);
	buf = calloc(1, BUF_LEN);
	pd = ibv_alloc_pd(dev);
	if (!buf || !pd)
		die("allocate a PD", errno);
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	cq = ibv_create_cq(dev, 2 * (RECVS + SENDS), NULL, NULL, 0);
	if (!mr || !cq)
		die("register the MR or create the CQ", errno);
	qa = create_qp();
	qb = create_qp();
	connect_qp(qa, qb, &gid);
	connect_qp(qb, qa, &gid);
	post_work();

	/* the work must really be pending: the flush is what completes it */
	usleep(300000);
	if (ibv_poll_cq(cq, 1, &wc)) {
		printf("FAIL a completion before the removal: wr_id 0x%llx, %s\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
		return 1;
	}
	printf("ready\n");

	if (!wait_fatal(secs)) {
		printf("FAIL no IBV_EVENT_DEVICE_FATAL in %d s\n", secs);
		return 1;
	}
	printf("event DEVICE_FATAL\n");
	good &= count_flushed();
	hold(secs);
	/* the process's own memory, under its MR, is still its own */
	memset(buf, 0x5a, BUF_LEN);
	err = post_send(SENDS);
	if (err)
		printf("post refused: %s\n", strerror(err));
	else
		printf("FAIL a send was accepted after the removal\n");
	good &= err != 0;
	good &= ibv_poll_cq(cq, 1, &wc) == 0;
	good &= destroy_all();
	free(buf);
	return good ? 0 : 1;
}
