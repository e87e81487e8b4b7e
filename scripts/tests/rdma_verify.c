// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_verify: end-to-end data integrity over one RC QP between two hosts.
 *
 * The two sides meet over TCP (no rdma_cm), swap QPN, PSN, GID and the
 * address and rkey of their buffers, bring the QP to RTS and then walk the
 * same list of cases in lockstep, first with the client as requester, then
 * with the server.  Every source byte comes from a seeded generator and
 * every destination byte is checked, as are the guard bytes around it, the
 * completion's status, opcode, length and immediate.  The client prints one
 * TAP line per case:
 *
 *	ok - write 16777216 a->b ipv4
 *	not ok - send 4097 b->a ipv4 (responder: first mismatch at byte 12:
 *		got 0x00 want 0x5c; 1 bad bytes)
 *
 * (one line each; "requester:" or "responder:" says which side saw it).
 *
 * Usage:
 *	rdma_verify [options]          server: wait for one client
 *	rdma_verify [options] HOST     client: connect to the server at HOST
 *	rdma_verify [options] --plan   how many TAP lines a client with these
 *				       options prints, so a harness can plan
 *				       them before the run
 *
 * The client's -s, -n, -m, -P, -R and -f apply to both sides.  The exit
 * status is 0 only if every case passed; no wait is unbounded (-t), so a
 * dead peer ends the run with a failure instead of a hang.
 *
 * Faults (-f) replace the cases with one scenario whose failure is the
 * expected outcome, the client requesting:
 *
 *	peer-exit   the client streams WRITEs; once they flow, the server
 *		    destroys its QP and exits.  The stream must end in
 *		    IBV_WC_RETRY_EXC_ERR once the retry budget is spent.
 *	blackhole   the same, but the server runs -C CMD instead (say, netem
 *		    dropping every packet it sends) and stays.
 *	rnr-exc     the server posts no receive; a SEND must end in
 *		    IBV_WC_RNR_RETRY_EXC_ERR after -N RNR retries.
 *
 * In each, the QP must then be in the error state and flush what follows.
 *
 * With -W each side binds a type 1 memory window over each of its two
 * buffers once its QP is in RTS and hands the peer the windows' rkeys
 * instead of the MRs': every remote access of every case then goes
 * through a window.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* printf checking, under the name the kernel uses for it */
#define gcc_attribute	__attribute__
#define __printf(a, b)	gcc_attribute((format(printf, a, b)))

/* Bytes left untouched on either side of every destination and checked. */
#define GUARD		64
#define CANARY		0xa5
/* Offsets vary within 0..7 so both aligned and unaligned addresses occur. */
#define MAX_SKEW	8
/* The atomic target and the local landing words sit at this aligned offset. */
#define ATOMIC_OFF	GUARD
#define NUM_SGE		16
/* Room the scatter/gather cases need, whatever -m says. */
#define SGE_SPAN	65536
#define INLINE_WANT	64
#define LINE_MAX_LEN	512
#define DEFAULT_PORT	18600

struct options {
	const char *dev_name;
	const char *host;
	const char *label;
	const char *local_name;
	const char *peer_name;
	int gid_index;
	int ib_port;
	int tcp_port;
	__u64 seed;
	unsigned int iters;
	size_t max_size;
	unsigned int timeout;	/* seconds, per wait */
	long start_psn;		/* < 0: pick one near the 24-bit wrap */
	bool verbose;
	bool plan;		/* --plan: print the TAP line count, exit */
	bool corrupt;		/* self-test: spoil what arrives, then check */
	unsigned int rnr_delay;	/* ms the responder holds back its receives */
	const char *fault;	/* NULL, or a scenario of fault_names[] */
	const char *cut_cmd;	/* blackhole: run once the stream flows */
	unsigned int ack_timeout;	/* QP attributes of this side's QP */
	unsigned int retry_cnt;
	unsigned int rnr_retry;
	unsigned int stream_secs;	/* -S: stream for this long, no cases */
	const char *stream_op;		/* -o: write or read */
	unsigned int stream_depth;	/* -D: messages in flight */
	unsigned int progress_ms;	/* -I: the receiver's progress lines */
	bool windows;			/* -W: remote access through windows */
};

static struct options opt = {
	.local_name = NULL,
	.gid_index = -1,
	.ib_port = 1,
	.tcp_port = DEFAULT_PORT,
	.seed = 1,
	.iters = 1,
	.max_size = 16u << 20,
	.timeout = 30,
	.start_psn = -1,
	.label = "",
	.ack_timeout = 14,
	.retry_cnt = 7,
	.rnr_retry = 7,
	.stream_op = "write",
	.stream_depth = 4,
	.progress_ms = 200,
};

/* -S: see run_stream() */
#define STREAM_SLOTS	8
/* -D: messages in flight; READs beyond max_rd_atomic wait in the QP */
#define STREAM_MAX_DEPTH	256
#define STREAM_MAX_SLOTS	(2 * STREAM_MAX_DEPTH)
#define STREAM_MAX_MSG	(1024u * 1024)
/* WRs per ibv_post_send(): a deep stream posts them in lists */
#define STREAM_POST_LIST	64

/* The server's slots a WRITE stream cycles through: twice its depth */
static unsigned int stream_slots(void)
{
	return opt.stream_depth * 2 > STREAM_SLOTS ? opt.stream_depth * 2 :
						     STREAM_SLOTS;
}

static bool is_stream(void)
{
	return opt.stream_secs != 0;
}

static bool stream_reads(void)
{
	return !strcmp(opt.stream_op, "read");
}

static const char *const fault_names[] = { "peer-exit", "blackhole", "rnr-exc" };

/*
 * A fault scenario's client reports two checks: how the failing request
 * ended, then check_flushed().  One that breaks off early reports fewer,
 * which a harness holding it to --plan sees.
 */
#define FAULT_CHECKS	2

/* What one side tells the other about itself. */
struct peer_info {
	__u32 qpn;
	__u32 psn;
	__u16 lid;
	union ibv_gid gid;
	__u64 src_addr, dst_addr;
	__u32 src_rkey, dst_rkey;
};

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *src_mr, *dst_mr;
	struct ibv_mw *src_mw, *dst_mw;	/* -W */
	__u8 *src, *dst;
	size_t buf_len;
	__u32 max_inline;
	int num_sge;
	enum ibv_mtu mtu;
	bool atomics;
	int sock;
	struct peer_info me, peer;
	bool client;
};

/* ---------------------------------------------------------------- util */

static __printf(1, 2) void note(const char *fmt, ...);
static void note(const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", opt.host ? "client" : "server");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * Setup, protocol and timeout failures end the run; the client says so
 * as a failing TAP line, so a harness counting lines cannot miss it.
 */
static __printf(1, 2) noreturn void die(const char *fmt, ...);
static void die(const char *fmt, ...)
{
	char msg[LINE_MAX_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (opt.host)
		printf("not ok - rdma_verify%s%s aborted (%s)\n",
		       *opt.label ? " " : "", opt.label, msg);
	else
		printf("# server: fatal: %s\n", msg);
	fflush(stdout);
	exit(2);
}

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until @deadline, for poll(); 0 once it has passed. */
static int ms_left(__u64 deadline)
{
	__u64 now = now_ms();

	if (now >= deadline)
		return 0;
	return deadline - now > INT32_MAX ? INT32_MAX : (int)(deadline - now);
}

/* ------------------------------------------------------------- pattern */

static __u64 mix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * The expected contents of a message depend only on its tag (seed, case,
 * iteration, direction) and the offset within the message, so a scatter
 * list can be checked against a gather list laid out differently.
 */
static __u64 pattern_word(__u64 tag, __u64 word)
{
	return mix64(tag ^ mix64(word));
}

static __u8 pattern_byte(__u64 tag, __u64 off)
{
	return pattern_word(tag, off >> 3) >> ((off & 7) * 8);
}

static void pattern_fill(__u8 *p, size_t len, __u64 tag, __u64 off)
{
	size_t i = 0;
	__u64 w;

	while (i < len && ((off + i) & 7))
		p[i] = pattern_byte(tag, off + i), i++;
	for (; i + 8 <= len; i += 8) {
		w = pattern_word(tag, (off + i) >> 3);
		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = pattern_byte(tag, off + i);
}

/* A failed check: where, and how many bytes were wrong. */
struct mismatch {
	bool bad;
	size_t at;
	unsigned int got, want;
	size_t count;
	const char *what;
};

static void note_bad(struct mismatch *mm, const char *what, size_t at,
		     __u8 got, __u8 want)
{
	if (!mm->bad) {
		mm->bad = true;
		mm->at = at;
		mm->got = got;
		mm->want = want;
		mm->what = what;
	}
	mm->count++;
}

/* Compare @len bytes at @p with the message bytes from @off on. */
static void pattern_check(const __u8 *p, size_t len, __u64 tag,
			  __u64 off, struct mismatch *mm)
{
	__u64 w;
	size_t i = 0, j;

	while (i < len) {
		if (!((off + i) & 7) && i + 8 <= len) {
			w = pattern_word(tag, (off + i) >> 3);
			if (!memcmp(p + i, &w, 8)) {
				i += 8;
				continue;
			}
			for (j = 0; j < 8; j++, i++)
				if (p[i] != pattern_byte(tag, off + i))
					note_bad(mm, "data", off + i, p[i],
						 pattern_byte(tag, off + i));
			continue;
		}
		if (p[i] != pattern_byte(tag, off + i))
			note_bad(mm, "data", off + i, p[i],
				 pattern_byte(tag, off + i));
		i++;
	}
}

static void canary_check(const __u8 *p, size_t len, size_t base,
			 struct mismatch *mm)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != CANARY)
			note_bad(mm, "guard", base + i, p[i], CANARY);
}

/* -------------------------------------------------------- TCP control */

static int sock_write_all(int fd, const char *buf, size_t len, __u64 deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len) {
		if (poll(&pfd, 1, ms_left(deadline)) <= 0)
			return -ETIMEDOUT;
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		buf += n;
		len -= n;
	}
	return 0;
}

static __printf(2, 3) void ctl_send(struct ctx *c, const char *fmt, ...);
static void ctl_send(struct ctx *c, const char *fmt, ...)
{
	char line[LINE_MAX_LEN];
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		die("control line too long");
	line[n++] = '\n';
	ret = sock_write_all(c->sock, line, n, now_ms() + opt.timeout * 1000ull);
	if (ret)
		die("sending to the peer: %s", strerror(-ret));
}

/*
 * One line from the peer, without its newline.  Reads a byte at a time:
 * lines are few and short, and nothing is read past the newline.
 */
static void ctl_recv(struct ctx *c, char *line, size_t size, unsigned int secs)
{
	__u64 deadline = now_ms() + secs * 1000ull;
	struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
	size_t len = 0;
	ssize_t n;
	char ch;

	for (;;) {
		if (poll(&pfd, 1, ms_left(deadline)) <= 0)
			die("peer silent for %u s", secs);
		n = recv(c->sock, &ch, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("reading from the peer: %s", strerror(errno));
		if (n == 0)
			die("peer closed the connection");
		if (ch == '\n')
			break;
		if (len + 1 >= size)
			die("overlong line from the peer");
		line[len++] = ch;
	}
	line[len] = '\0';
}

/* Wait for a line starting with @word; returns what follows it. */
static const char *ctl_expect(struct ctx *c, char *line, size_t size,
			      const char *word, unsigned int secs)
{
	size_t wl = strlen(word);

	ctl_recv(c, line, size, secs);
	if (strncmp(line, word, wl) || (line[wl] != ' ' && line[wl] != '\0'))
		die("expected '%s' from the peer, got '%s'", word, line);
	return line[wl] ? line + wl + 1 : line + wl;
}

static int tcp_connect(const char *host, int port, unsigned int secs)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	__u64 deadline = now_ms() + secs * 1000ull;
	char service[16];
	int fd, ret;

	snprintf(service, sizeof(service), "%d", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret)
		die("%s: %s", host, gai_strerror(ret));
	/* The server may not listen yet: keep trying until the deadline. */
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
			if (fd < 0)
				continue;
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
				freeaddrinfo(res);
				return fd;
			}
			close(fd);
		}
		if (!ms_left(deadline))
			break;
		usleep(200 * 1000);
	}
	freeaddrinfo(res);
	die("cannot connect to %s port %d within %u s", host, port, secs);
}

static int tcp_accept(int port, unsigned int secs)
{
	struct sockaddr_in6 sa = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct pollfd pfd = { .events = POLLIN };
	int fd, conn, on = 1, off = 0;

	fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	/* Both families on one socket, so the client may use either. */
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1))
		die("listening on port %d: %s", port, strerror(errno));
	pfd.fd = fd;
	if (poll(&pfd, 1, secs * 1000) <= 0)
		die("no client within %u s", secs);
	conn = accept(fd, NULL, NULL);
	if (conn < 0)
		die("accept: %s", strerror(errno));
	close(fd);
	return conn;
}

/* ------------------------------------------------------------- verbs */

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list || !n)
		die("no RDMA devices");
	for (i = 0; i < n; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name)) {
			dev = list[i];
			break;
		}
	if (!dev)
		die("no RDMA device %s", name);
	ctx = ibv_open_device(dev);
	if (!ctx)
		die("cannot open %s: %s", ibv_get_device_name(dev), strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

/* Without -g: the first RoCE v2 GID that is an IPv4-mapped address. */
static int default_gid_index(struct ctx *c, int tbl_len)
{
	static const __u8 v4_prefix[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < tbl_len; i++) {
		if (ibv_query_gid_ex(c->ctx, opt.ib_port, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, v4_prefix, sizeof(v4_prefix)))
			return i;
	}
	die("no RoCE v2 IPv4 GID on port %d; give -g", opt.ib_port);
}

static __u8 *alloc_buf(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		die("cannot allocate %zu bytes", len);
	memset(p, CANARY, len);
	return p;
}

static void setup_verbs(struct ctx *c)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	int mr_access = access | (opt.windows ? IBV_ACCESS_MW_BIND : 0);
	struct ibv_qp_init_attr init = { 0 };
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_qp_attr attr;

	c->ctx = open_device(opt.dev_name);
	if (ibv_query_device(c->ctx, &dattr))
		die("ibv_query_device: %s", strerror(errno));
	if (ibv_query_port(c->ctx, opt.ib_port, &pattr))
		die("ibv_query_port: %s", strerror(errno));
	if (pattr.state != IBV_PORT_ACTIVE)
		die("port %d is not active (state %d)", opt.ib_port, pattr.state);
	c->mtu = pattr.active_mtu;
	c->atomics = dattr.atomic_cap != IBV_ATOMIC_NONE;
	c->num_sge = dattr.max_sge < NUM_SGE ? dattr.max_sge : NUM_SGE;
	if (opt.gid_index < 0)
		opt.gid_index = default_gid_index(c, pattr.gid_tbl_len);
	if (ibv_query_gid(c->ctx, opt.ib_port, opt.gid_index, &c->me.gid))
		die("ibv_query_gid %d: %s", opt.gid_index, strerror(errno));
	c->me.lid = pattr.lid;

	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	c->channel = ibv_create_comp_channel(c->ctx);
	if (!c->channel)
		die("ibv_create_comp_channel: %s", strerror(errno));
	c->scq = ibv_create_cq(c->ctx, 16 + opt.stream_depth, NULL, c->channel, 0);
	c->rcq = ibv_create_cq(c->ctx, 16 + stream_slots(), NULL, c->channel, 0);
	if (!c->scq || !c->rcq)
		die("ibv_create_cq: %s", strerror(errno));

	if (opt.stream_secs)
		c->buf_len = stream_slots() * opt.max_size + 2 * GUARD;
	else
		c->buf_len = (opt.max_size > SGE_SPAN ? opt.max_size : SGE_SPAN) +
			     2 * GUARD + MAX_SKEW;
	c->src = alloc_buf(c->buf_len);
	c->dst = alloc_buf(c->buf_len);
	c->src_mr = ibv_reg_mr(c->pd, c->src, c->buf_len, mr_access);
	c->dst_mr = ibv_reg_mr(c->pd, c->dst, c->buf_len, mr_access);
	if (!c->src_mr || !c->dst_mr)
		die("ibv_reg_mr of %zu bytes: %s", c->buf_len, strerror(errno));
	c->me.src_addr = (uintptr_t)c->src;
	c->me.dst_addr = (uintptr_t)c->dst;
	c->me.src_rkey = c->src_mr->rkey;
	c->me.dst_rkey = c->dst_mr->rkey;

	init.send_cq = c->scq;
	init.recv_cq = c->rcq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = opt.stream_depth > 8 ? opt.stream_depth : 8;
	init.cap.max_recv_wr = stream_slots();
	init.cap.max_send_sge = c->num_sge;
	init.cap.max_recv_sge = c->num_sge;
	init.cap.max_inline_data = INLINE_WANT;
	c->qp = ibv_create_qp(c->pd, &init);
	if (!c->qp)
		die("ibv_create_qp: %s", strerror(errno));
	/*
	 * The provider may round the inline limit up; use what it grants.
	 * It must grant what was asked, else the case list (and --plan)
	 * would depend on the device.
	 */
	c->max_inline = init.cap.max_inline_data;
	if (c->max_inline < INLINE_WANT)
		die("ibv_create_qp granted %u inline bytes, asked for %d",
		    c->max_inline, INLINE_WANT);
	c->me.qpn = c->qp->qp_num;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = opt.ib_port;
	attr.qp_access_flags = access & ~IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify QP to INIT: %s", strerror(errno));
}

static void connect_qp(struct ctx *c)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = c->mtu;
	attr.dest_qp_num = c->peer.qpn;
	attr.rq_psn = c->peer.psn;
	attr.max_dest_rd_atomic = 4;
	attr.min_rnr_timer = 12;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.dlid = c->peer.lid;
	attr.ah_attr.port_num = opt.ib_port;
	attr.ah_attr.grh.dgid = c->peer.gid;
	attr.ah_attr.grh.sgid_index = opt.gid_index;
	attr.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify QP to RTR: %s", strerror(errno));

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = c->me.psn;
	attr.timeout = opt.ack_timeout;
	attr.retry_cnt = opt.retry_cnt;
	attr.rnr_retry = opt.rnr_retry;
	attr.max_rd_atomic = 4;
	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify QP to RTS: %s", strerror(errno));
}

static void teardown(struct ctx *c)
{
	if (c->src_mw)
		ibv_dealloc_mw(c->src_mw);
	if (c->dst_mw)
		ibv_dealloc_mw(c->dst_mw);
	ibv_destroy_qp(c->qp);
	ibv_dereg_mr(c->src_mr);
	ibv_dereg_mr(c->dst_mr);
	ibv_destroy_cq(c->scq);
	ibv_destroy_cq(c->rcq);
	ibv_destroy_comp_channel(c->channel);
	ibv_dealloc_pd(c->pd);
	ibv_close_device(c->ctx);
	free(c->src);
	free(c->dst);
}

/*
 * Wait for one completion on @cq until @deadline.  Sleeps on the channel
 * between polls, but never for long: a lost event costs a few ms, never
 * the run.  Returns 0 with *wc filled, or -ETIMEDOUT.
 */
static int wait_wc(struct ctx *c, struct ibv_cq *cq, struct ibv_wc *wc,
		   __u64 deadline)
{
	struct pollfd pfd = { .fd = c->channel->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n, t;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n)
			return 0;
		if (ibv_req_notify_cq(cq, 0))
			return -EIO;
		/* A completion may have landed before the request was armed. */
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n)
			return 0;
		t = ms_left(deadline);
		if (!t)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, t < 20 ? t : 20) > 0 &&
		    !ibv_get_cq_event(c->channel, &ev_cq, &ev_ctx))
			ibv_ack_cq_events(ev_cq, 1);
	}
}

/* -W: a type 1 window over all of @mr, bound by this side's QP in RTS */
static struct ibv_mw *bind_window(struct ctx *c, struct ibv_mr *mr,
				  __u64 wr_id)
{
	struct ibv_mw_bind b = {
		.wr_id = wr_id,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = mr,
			.addr = (uintptr_t)mr->addr,
			.length = mr->length,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_ATOMIC,
		},
	};
	struct ibv_mw *mw = ibv_alloc_mw(c->pd, IBV_MW_TYPE_1);
	struct ibv_wc wc;
	int err;

	if (!mw)
		die("ibv_alloc_mw: %s", strerror(errno));
	err = ibv_bind_mw(c->qp, mw, &b);
	if (err)
		die("ibv_bind_mw: %s", strerror(err));
	if (wait_wc(c, c->scq, &wc, now_ms() + opt.timeout * 1000ULL))
		die("no completion for the window bind");
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_BIND_MW ||
	    wc.wr_id != wr_id)
		die("window bind: status %d opcode %d wr_id %llu", wc.status,
		    wc.opcode, (unsigned long long)wc.wr_id);
	return mw;
}

/* -W: bind both windows and trade their rkeys for the MRs' */
static void trade_windows(struct ctx *c)
{
	char line[LINE_MAX_LEN];
	const char *rest;

	c->src_mw = bind_window(c, c->src_mr, 1);
	c->dst_mw = bind_window(c, c->dst_mr, 2);
	ctl_send(c, "KEYS %x %x", c->src_mw->rkey, c->dst_mw->rkey);
	rest = ctl_expect(c, line, sizeof(line), "KEYS", opt.timeout * 4);
	if (sscanf(rest, "%x %x", &c->peer.src_rkey, &c->peer.dst_rkey) != 2)
		die("bad KEYS line from the peer: %s", line);
	note("windows: ours %#x %#x, the peer's %#x %#x", c->src_mw->rkey,
	     c->dst_mw->rkey, c->peer.src_rkey, c->peer.dst_rkey);
}

/* ------------------------------------------------------------- cases */

enum op {
	OP_SEND,
	OP_SEND_IMM,
	OP_SEND_INLINE,
	OP_WRITE,
	OP_WRITE_IMM,
	OP_READ,
	OP_SEND_SGE,
	OP_WRITE_SGE,
	OP_READ_SGE,
	OP_CMP_SWAP,
	OP_FETCH_ADD,
};

static const char *const op_names[] = {
	[OP_SEND] = "send",
	[OP_SEND_IMM] = "send_imm",
	[OP_SEND_INLINE] = "send_inline",
	[OP_WRITE] = "write",
	[OP_WRITE_IMM] = "write_imm",
	[OP_READ] = "read",
	[OP_SEND_SGE] = "send_sge16",
	[OP_WRITE_SGE] = "write_sge16",
	[OP_READ_SGE] = "read_sge16",
	[OP_CMP_SWAP] = "atomic_cmp_swap",
	[OP_FETCH_ADD] = "atomic_fetch_add",
};

struct test_case {
	enum op op;
	size_t len;
};

/*
 * Scatter/gather layouts: odd lengths, and a gap of odd size before each
 * element, so neither side's list lines up with the other's.
 */
static const __u32 gather_len[NUM_SGE] = {
	1, 3, 7, 4097, 31, 63, 127, 255, 511, 1023, 2047, 4095, 15, 9, 5, 2,
};

static const __u32 scatter_len[NUM_SGE] = {
	4099, 13, 1, 2048, 511, 3, 3001, 77, 1000, 5, 997, 2, 99, 33, 1, 4096,
};

static size_t sge_layout(const __u32 *lens, int n, size_t base,
			 struct ibv_sge *sge, __u64 addr, __u32 lkey)
{
	size_t pos = base, total = 0;
	int i;

	for (i = 0; i < n; i++) {
		pos += 1 + (i * 7) % 13;
		sge[i].addr = addr + pos;
		sge[i].length = lens[i];
		sge[i].lkey = lkey;
		pos += lens[i];
		total += lens[i];
	}
	return total;
}

/* Bytes a layout moves with @n elements: the gather list's sum. */
static size_t sge_total(int n)
{
	size_t total = 0;
	int i;

	for (i = 0; i < n; i++)
		total += gather_len[i];
	return total;
}

/*
 * Check a scattered message: each element holds the next stretch of the
 * message, the gaps and the part of the list beyond the message keep the
 * canary, and so do the bytes either side of the list.
 */
static void check_scatter(const struct ctx *c, const struct ibv_sge *sge,
			  int n, size_t msg_len, __u64 tag,
			  struct mismatch *mm)
{
	__u64 base = (uintptr_t)c->dst;
	size_t off = 0, take, prev_end, here, i;

	if (opt.corrupt && msg_len)
		c->dst[sge[n - 1].addr - base] ^= 0x01;

	prev_end = sge[0].addr - base - GUARD;
	for (i = 0; i < (size_t)n; i++) {
		here = sge[i].addr - base;
		canary_check(c->dst + prev_end, here - prev_end, prev_end, mm);
		take = msg_len - off < sge[i].length ? msg_len - off : sge[i].length;
		pattern_check(c->dst + here, take, tag, off, mm);
		canary_check(c->dst + here + take, sge[i].length - take,
			     here + take, mm);
		off += take;
		prev_end = here + sge[i].length;
	}
	canary_check(c->dst + prev_end, GUARD, prev_end, mm);
}

/* A message at dst[@at, @at + @len) with intact guards either side. */
static void check_contig(const struct ctx *c, size_t at, size_t len,
			 __u64 tag, struct mismatch *mm)
{
	if (opt.corrupt && len)
		c->dst[at + len / 2] ^= 0x80;
	canary_check(c->dst + at - GUARD, GUARD, at - GUARD, mm);
	pattern_check(c->dst + at, len, tag, 0, mm);
	canary_check(c->dst + at + len, GUARD, at + len, mm);
}

/* Every parameter of one run of one case, the same on both sides. */
struct run {
	const struct test_case *tc;
	unsigned int iter;
	bool client_requests;
	__u64 tag;
	size_t src_off, dst_off;
	__u32 imm;
	__u64 atomic_init, operand1, operand2;
};

static void plan_run(struct run *r, const struct test_case *tc,
		     unsigned int index, unsigned int iter, bool client_requests)
{
	r->tc = tc;
	r->iter = iter;
	r->client_requests = client_requests;
	r->tag = mix64(opt.seed ^ mix64(((__u64)index << 32) ^
					((__u64)client_requests << 31) ^ iter));
	r->src_off = GUARD + (iter * 3 + index) % MAX_SKEW;
	r->dst_off = GUARD + (iter * 5 + index * 3 + 1) % MAX_SKEW;
	r->imm = (__u32)mix64(r->tag + 1);
	r->atomic_init = mix64(r->tag + 2);
	r->operand1 = mix64(r->tag + 3);
	r->operand2 = mix64(r->tag + 4);
	/* Some fetch-and-adds must carry out of bit 63. */
	if (iter % 2)
		r->atomic_init |= 0xffffffff00000000ull;
}

static bool is_send(enum op op)
{
	return op == OP_SEND || op == OP_SEND_IMM || op == OP_SEND_INLINE ||
	       op == OP_SEND_SGE;
}

static bool is_atomic(enum op op)
{
	return op == OP_CMP_SWAP || op == OP_FETCH_ADD;
}

static __u64 case_deadline(const struct run *r)
{
	/* Generous for 16 MiB under emulation, still bounded. */
	return now_ms() + opt.timeout * 1000ull + (r->tc->len >> 18) * 1000;
}

/* Fill the bytes a case may touch on this side with the canary. */
static void reset_dst(struct ctx *c, const struct run *r)
{
	size_t len = r->tc->len + 2 * GUARD + MAX_SKEW;

	if (r->tc->op == OP_SEND_SGE || r->tc->op == OP_READ_SGE)
		len = SGE_SPAN;
	memset(c->dst, CANARY, len < c->buf_len ? len : c->buf_len);
}

/* Does the case consume a receive WQE on the responder? */
static bool needs_recv(enum op op)
{
	return is_send(op) || op == OP_WRITE_IMM;
}

/* Post the receive a SEND or WRITE with immediate consumes. */
static int responder_post_recv(struct ctx *c, const struct run *r,
			       struct ibv_sge *sge, char *why, size_t wl)
{
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = sge }, *bad;
	enum op op = r->tc->op;
	int ret;

	if (op == OP_SEND_SGE) {
		wr.num_sge = c->num_sge;
		sge_layout(scatter_len, c->num_sge, GUARD, sge,
			   (uintptr_t)c->dst, c->dst_mr->lkey);
	} else if (is_send(op)) {
		/* Room beyond the message, which must stay untouched. */
		sge[0].addr = (uintptr_t)c->dst + r->dst_off;
		sge[0].length = r->tc->len + GUARD;
		sge[0].lkey = c->dst_mr->lkey;
		wr.num_sge = 1;
	} else if (op == OP_WRITE_IMM) {
		wr.num_sge = 0;
	} else {
		return 0;
	}
	ret = ibv_post_recv(c->qp, &wr, &bad);
	if (ret)
		snprintf(why, wl, "ibv_post_recv: %s", strerror(ret));
	return ret ? -1 : 0;
}

/*
 * Responder's half, before the requester acts: post the receive (unless
 * -R holds it back), set the atomic target, or fill the buffer a READ
 * fetches.
 */
static int responder_prepare(struct ctx *c, const struct run *r,
			     struct ibv_sge *sge, char *why, size_t wl)
{
	enum op op = r->tc->op;
	__u64 v;

	reset_dst(c, r);
	if (op == OP_READ || op == OP_READ_SGE) {
		pattern_fill(c->src + r->src_off, r->tc->len, r->tag, 0);
		return 0;
	}
	if (is_atomic(op)) {
		v = r->atomic_init;
		memcpy(c->dst + ATOMIC_OFF, &v, 8);
		return 0;
	}
	if (opt.rnr_delay)
		return 0;
	return responder_post_recv(c, r, sge, why, wl);
}

static bool wc_ok(const struct ibv_wc *wc, enum ibv_wc_opcode want,
		  char *why, size_t wl)
{
	if (wc->status != IBV_WC_SUCCESS) {
		snprintf(why, wl, "completion status %s (%d), vendor_err 0x%x",
			 ibv_wc_status_str(wc->status), wc->status,
			 wc->vendor_err);
		return false;
	}
	if (wc->opcode != want) {
		snprintf(why, wl, "completion opcode %d, want %d",
			 wc->opcode, want);
		return false;
	}
	return true;
}

/* Data offsets count from the message's start, guard ones from the buffer's. */
static void mismatch_text(const struct mismatch *mm, char *why, size_t wl)
{
	if (!strcmp(mm->what, "data"))
		snprintf(why, wl,
			 "first mismatch at byte %zu: got 0x%02x want 0x%02x; %zu bad bytes",
			 mm->at, mm->got, mm->want, mm->count);
	else
		snprintf(why, wl,
			 "guard byte at buffer offset %zu overwritten: got 0x%02x want 0x%02x; %zu bad bytes",
			 mm->at, mm->got, mm->want, mm->count);
}

/*
 * Responder's half, after the requester's completion: the receive
 * completion and the bytes that landed here.  0 on success, -1 with
 * @why filled; *fatal says the QP can carry no more cases.
 */
static int responder_check(struct ctx *c, const struct run *r,
			   const struct ibv_sge *sge, char *why, size_t wl,
			   bool *fatal)
{
	struct mismatch mm = { 0 };
	enum op op = r->tc->op;
	struct ibv_wc wc;
	__u64 v, want;

	if (needs_recv(op)) {
		if (wait_wc(c, c->rcq, &wc, case_deadline(r))) {
			snprintf(why, wl, "no receive completion within the deadline");
			*fatal = true;
			return -1;
		}
		if (!wc_ok(&wc, op == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
			   IBV_WC_RECV, why, wl)) {
			*fatal = wc.status != IBV_WC_SUCCESS;
			return -1;
		}
		if (wc.byte_len != r->tc->len) {
			snprintf(why, wl, "receive byte_len %u, want %zu",
				 wc.byte_len, r->tc->len);
			return -1;
		}
		if (op == OP_SEND_IMM || op == OP_WRITE_IMM) {
			if (!(wc.wc_flags & IBV_WC_WITH_IMM)) {
				snprintf(why, wl, "no IBV_WC_WITH_IMM on the receive");
				return -1;
			}
			if (ntohl(wc.imm_data) != r->imm) {
				snprintf(why, wl, "immediate 0x%08x, want 0x%08x",
					 ntohl(wc.imm_data), r->imm);
				return -1;
			}
		} else if (wc.wc_flags & IBV_WC_WITH_IMM) {
			snprintf(why, wl, "IBV_WC_WITH_IMM on a plain send");
			return -1;
		}
	}

	switch (op) {
	case OP_SEND_SGE:
		check_scatter(c, sge, c->num_sge, r->tc->len, r->tag, &mm);
		break;
	case OP_READ:
	case OP_READ_SGE:
		/* A READ must not change the buffer it reads from. */
		pattern_check(c->src + r->src_off, r->tc->len, r->tag, 0, &mm);
		break;
	case OP_CMP_SWAP:
	case OP_FETCH_ADD:
		memcpy(&v, c->dst + ATOMIC_OFF, 8);
		want = op == OP_CMP_SWAP ? r->operand1 :
		       r->atomic_init + r->operand1 + r->operand2;
		if (v != want) {
			snprintf(why, wl, "remote word 0x%016llx afterwards, want 0x%016llx",
				 v, want);
			return -1;
		}
		canary_check(c->dst, ATOMIC_OFF, 0, &mm);
		canary_check(c->dst + ATOMIC_OFF + 8, GUARD, ATOMIC_OFF + 8, &mm);
		break;
	default:
		check_contig(c, r->dst_off, r->tc->len, r->tag, &mm);
		break;
	}
	if (mm.bad) {
		mismatch_text(&mm, why, wl);
		return -1;
	}
	return 0;
}

/* Build the requester's work request(s) for @r; returns how many. */
static int build_send_wr(struct ctx *c, const struct run *r,
			 struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	enum op op = r->tc->op;
	__u64 laddr_dst = (uintptr_t)c->dst;
	int n = 1;

	memset(wr, 0, 2 * sizeof(*wr));
	wr[0].wr_id = 1;
	wr[0].sg_list = sge;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	sge[0].addr = (uintptr_t)c->src + r->src_off;
	sge[0].length = r->tc->len;
	sge[0].lkey = c->src_mr->lkey;
	wr[0].num_sge = r->tc->len ? 1 : 0;

	switch (op) {
	case OP_SEND:
		wr[0].opcode = IBV_WR_SEND;
		break;
	case OP_SEND_IMM:
		wr[0].opcode = IBV_WR_SEND_WITH_IMM;
		wr[0].imm_data = htonl(r->imm);
		break;
	case OP_SEND_INLINE:
		wr[0].opcode = IBV_WR_SEND;
		wr[0].send_flags |= IBV_SEND_INLINE;
		break;
	case OP_SEND_SGE:
	case OP_WRITE_SGE:
		wr[0].num_sge = c->num_sge;
		sge_layout(gather_len, c->num_sge, GUARD, sge,
			   (uintptr_t)c->src, c->src_mr->lkey);
		wr[0].opcode = op == OP_SEND_SGE ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
		wr[0].wr.rdma.remote_addr = c->peer.dst_addr + r->dst_off;
		wr[0].wr.rdma.rkey = c->peer.dst_rkey;
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		wr[0].opcode = op == OP_WRITE ? IBV_WR_RDMA_WRITE :
			       IBV_WR_RDMA_WRITE_WITH_IMM;
		wr[0].imm_data = htonl(r->imm);
		wr[0].wr.rdma.remote_addr = c->peer.dst_addr + r->dst_off;
		wr[0].wr.rdma.rkey = c->peer.dst_rkey;
		break;
	case OP_READ:
	case OP_READ_SGE:
		wr[0].opcode = IBV_WR_RDMA_READ;
		wr[0].wr.rdma.remote_addr = c->peer.src_addr + r->src_off;
		wr[0].wr.rdma.rkey = c->peer.src_rkey;
		sge[0].addr = laddr_dst + r->dst_off;
		sge[0].lkey = c->dst_mr->lkey;
		/*
		 * A READ asks for as many bytes as its list holds, so the
		 * list must add up to the message: the gather lengths.
		 */
		if (op == OP_READ_SGE) {
			wr[0].num_sge = c->num_sge;
			sge_layout(gather_len, c->num_sge, GUARD, sge,
				   laddr_dst, c->dst_mr->lkey);
		}
		break;
	case OP_CMP_SWAP:
	case OP_FETCH_ADD:
		/*
		 * Two in a row: a CAS that matches then one that must not,
		 * or two adds; each returns the word as it found it.
		 */
		n = 2;
		wr[1] = wr[0];
		wr[0].next = &wr[1];
		wr[1].wr_id = 2;
		wr[1].sg_list = &sge[1];
		wr[0].num_sge = 1;
		wr[0].opcode = op == OP_CMP_SWAP ? IBV_WR_ATOMIC_CMP_AND_SWP :
			       IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr[0].wr.atomic.remote_addr = c->peer.dst_addr + ATOMIC_OFF;
		wr[0].wr.atomic.rkey = c->peer.dst_rkey;
		sge[0].addr = laddr_dst + ATOMIC_OFF;
		sge[0].length = 8;
		sge[0].lkey = c->dst_mr->lkey;
		wr[1].num_sge = 1;
		wr[1].opcode = wr[0].opcode;
		wr[1].wr.atomic = wr[0].wr.atomic;
		sge[1] = sge[0];
		sge[1].addr += 8;
		if (op == OP_CMP_SWAP) {
			wr[0].wr.atomic.compare_add = r->atomic_init;
			wr[0].wr.atomic.swap = r->operand1;
			/* The word now holds operand1: this compare fails. */
			wr[1].wr.atomic.compare_add = r->atomic_init;
			wr[1].wr.atomic.swap = r->operand2;
		} else {
			wr[0].wr.atomic.compare_add = r->operand1;
			wr[1].wr.atomic.compare_add = r->operand2;
		}
		break;
	}
	return n;
}

static enum ibv_wc_opcode send_wc_opcode(enum op op)
{
	switch (op) {
	case OP_WRITE:
	case OP_WRITE_IMM:
	case OP_WRITE_SGE:
		return IBV_WC_RDMA_WRITE;
	case OP_READ:
	case OP_READ_SGE:
		return IBV_WC_RDMA_READ;
	case OP_CMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

/* Requester's half: post, complete, and check what landed locally. */
static int requester_act(struct ctx *c, const struct run *r, char *why,
			 size_t wl, bool *fatal)
{
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge sge[NUM_SGE];
	struct mismatch mm = { 0 };
	enum op op = r->tc->op;
	__u64 deadline, got[2], want[2];
	struct ibv_wc wc;
	int i, n, ret;

	reset_dst(c, r);
	if (op == OP_SEND_SGE || op == OP_WRITE_SGE) {
		/* Fill the gather list's elements as one message. */
		size_t off = 0;

		sge_layout(gather_len, c->num_sge, GUARD, sge,
			   (uintptr_t)c->src, c->src_mr->lkey);
		for (i = 0; i < c->num_sge; i++) {
			pattern_fill((__u8 *)(uintptr_t)sge[i].addr,
				     sge[i].length, r->tag, off);
			off += sge[i].length;
		}
	} else if (!is_atomic(op) && op != OP_READ && op != OP_READ_SGE) {
		pattern_fill(c->src + r->src_off, r->tc->len, r->tag, 0);
	}

	n = build_send_wr(c, r, wr, sge);
	ret = ibv_post_send(c->qp, wr, &bad);
	if (ret) {
		snprintf(why, wl, "ibv_post_send: %s", strerror(ret));
		/* A receive the peer posted for this case is left over. */
		*fatal = needs_recv(op);
		return -1;
	}
	/* Inline data is the provider's copy from now on: spoil ours. */
	if (op == OP_SEND_INLINE)
		memset(c->src + r->src_off, 0, r->tc->len);

	deadline = case_deadline(r);
	for (i = 0; i < n; i++) {
		if (wait_wc(c, c->scq, &wc, deadline)) {
			snprintf(why, wl, "no send completion within the deadline");
			*fatal = true;
			return -1;
		}
		if (!wc_ok(&wc, send_wc_opcode(op), why, wl)) {
			*fatal = true;
			return -1;
		}
		if (wc.wr_id != (__u64)i + 1) {
			snprintf(why, wl, "completion wr_id %llu, want %d",
				 (__u64)wc.wr_id, i + 1);
			*fatal = true;
			return -1;
		}
	}

	switch (op) {
	case OP_READ:
		check_contig(c, r->dst_off, r->tc->len, r->tag, &mm);
		break;
	case OP_READ_SGE:
		check_scatter(c, sge, c->num_sge, r->tc->len, r->tag, &mm);
		break;
	case OP_CMP_SWAP:
	case OP_FETCH_ADD:
		memcpy(got, c->dst + ATOMIC_OFF, 16);
		want[0] = r->atomic_init;
		want[1] = op == OP_CMP_SWAP ? r->operand1 :
			  r->atomic_init + r->operand1;
		for (i = 0; i < 2; i++)
			if (got[i] != want[i]) {
				snprintf(why, wl, "atomic %d returned 0x%016llx, want 0x%016llx",
					 i + 1, got[i], want[i]);
				return -1;
			}
		break;
	default:
		break;
	}
	if (mm.bad) {
		mismatch_text(&mm, why, wl);
		return -1;
	}
	return 0;
}

/*
 * The cases, in order; sizes over -m are left out, on both sides alike.
 * How many there are depends on the options alone: c->max_inline is at
 * least INLINE_WANT (setup_verbs()), over 33, and c->num_sge changes a
 * length, not the count.  --plan relies on that.
 */
static size_t build_cases(const struct ctx *c, struct test_case *tc, size_t cap)
{
	static const size_t sizes[] = {
		0, 1, 4096, 4097, 65536, 1u << 20, 16u << 20,
	};
	static const enum op sized_ops[] = {
		OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ,
	};
	size_t n = 0, i, j;
	__u32 inl[] = { 1, 33, c->max_inline };

#define ADD(o, l)	do { if (n < cap) tc[n++] = (struct test_case){ o, l }; } while (0)
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		for (j = 0; j < ARRAY_SIZE(sized_ops); j++)
			if (sizes[i] <= opt.max_size)
				ADD(sized_ops[j], sizes[i]);
	for (i = 0; i < ARRAY_SIZE(inl); i++)
		ADD(OP_SEND_INLINE, inl[i]);
	ADD(OP_SEND_SGE, sge_total(c->num_sge));
	ADD(OP_WRITE_SGE, sge_total(c->num_sge));
	ADD(OP_READ_SGE, sge_total(c->num_sge));
	ADD(OP_CMP_SWAP, 8);
	ADD(OP_FETCH_ADD, 8);
#undef ADD
	return n;
}

/* One side's word on a step of a case. */
struct verdict {
	bool failed;
	bool fatal;	/* the QP cannot be trusted for further cases */
	char why[256];
};

static void send_verdict(struct ctx *c, const char *word, const struct verdict *v)
{
	ctl_send(c, "%s %s %d %s", word, v->failed ? "fail" : "ok", v->fatal,
		 v->why);
}

static void recv_verdict(struct ctx *c, const char *word, unsigned int secs,
			 struct verdict *v)
{
	char line[LINE_MAX_LEN], res[8];
	const char *rest;
	int fatal, n = 0;

	rest = ctl_expect(c, line, sizeof(line), word, secs);
	if (sscanf(rest, "%7s %d %n", res, &fatal, &n) < 2 || !n)
		die("bad %s line from the peer: %s", word, line);
	v->failed = strcmp(res, "ok") != 0;
	v->fatal = fatal != 0;
	snprintf(v->why, sizeof(v->why), "%s", rest + n);
}

/* How one run of a case went, as both sides saw it. */
struct outcome {
	bool requester;		/* this side was the requester */
	struct verdict me, peer;
};

static bool outcome_ok(const struct outcome *o)
{
	return !o->me.failed && !o->peer.failed;
}

static void print_tap(const struct test_case *tc, bool client_requests,
		      const struct outcome *o, const char *extra)
{
	const struct verdict *req = o->requester ? &o->me : &o->peer;
	const struct verdict *resp = o->requester ? &o->peer : &o->me;
	const char *from = client_requests ? opt.local_name : opt.peer_name;
	const char *to = client_requests ? opt.peer_name : opt.local_name;
	const char *sep = *opt.label ? " " : "";

	if (outcome_ok(o)) {
		printf("ok - %s %zu %s->%s%s%s\n", op_names[tc->op], tc->len,
		       from, to, sep, opt.label);
		return;
	}
	printf("not ok - %s %zu %s->%s%s%s (%s%s%s%s%s%s)\n",
	       op_names[tc->op], tc->len, from, to, sep, opt.label,
	       req->failed ? "requester: " : "", req->failed ? req->why : "",
	       req->failed && resp->failed ? "; " : "",
	       resp->failed ? "responder: " : "", resp->failed ? resp->why : "",
	       extra);
}

/*
 * Run one case in lockstep with the peer:
 *   responder: prepare, "READY v"     requester: act, "DONE v"
 *   responder: check, "CHECKED v"     (only if READY was ok)
 * Both sides end up with both verdicts, so they agree on whether to go
 * on; the client prints the TAP line.  Returns false once the QP cannot
 * be trusted for further cases.
 */
static bool run_case(struct ctx *c, const struct run *r, struct outcome *o)
{
	bool requester = r->client_requests == c->client;
	unsigned int wait = opt.timeout * 2 + (r->tc->len >> 18) + 30;
	struct verdict *me = &o->me, *peer = &o->peer;
	struct ibv_sge rsge[NUM_SGE];

	memset(o, 0, sizeof(*o));
	o->requester = requester;
	if (requester) {
		recv_verdict(c, "READY", wait, peer);
		if (peer->failed) {
			snprintf(me->why, sizeof(me->why), "not attempted");
		} else if (!c->atomics && is_atomic(r->tc->op)) {
			me->failed = true;
			snprintf(me->why, sizeof(me->why), "device reports no atomics");
		} else if (requester_act(c, r, me->why, sizeof(me->why), &me->fatal)) {
			me->failed = true;
		}
		send_verdict(c, "DONE", me);
		if (!peer->failed)
			recv_verdict(c, "CHECKED", wait, peer);
	} else {
		if (responder_prepare(c, r, rsge, me->why, sizeof(me->why)))
			me->failed = true;
		send_verdict(c, "READY", me);
		/*
		 * -R: the requester starts now, and its request finds no
		 * receive until this one is posted: RNR NAKs, then retries.
		 */
		if (opt.rnr_delay && !me->failed && needs_recv(r->tc->op)) {
			usleep(opt.rnr_delay * 1000u);
			if (responder_post_recv(c, r, rsge, me->why,
						sizeof(me->why))) {
				me->failed = true;
				me->fatal = true;
			}
		}
		recv_verdict(c, "DONE", wait, peer);
		if (!me->failed) {
			/* Without a request nothing arrives to be checked. */
			if (!peer->failed &&
			    responder_check(c, r, rsge, me->why, sizeof(me->why),
					    &me->fatal))
				me->failed = true;
			send_verdict(c, "CHECKED", me);
		}
	}
	if (me->failed)
		note("%s %zu iteration %u: %s", op_names[r->tc->op], r->tc->len,
		     r->iter, me->why);
	return !me->fatal && !peer->fatal;
}

/* Counts over the whole run. */
struct tally {
	unsigned int passed, failed, not_run;
};

/*
 * All iterations of one case in one direction, then its TAP line (on the
 * client).  Returns false once the QP cannot be trusted any more.
 */
static bool run_iterations(struct ctx *c, const struct test_case *tc,
			   unsigned int index, bool client_requests,
			   struct tally *t)
{
	struct outcome o;
	char extra[64] = "";
	unsigned int iter;
	bool usable = true;
	struct run r;

	for (iter = 0; iter < opt.iters; iter++) {
		plan_run(&r, tc, index, iter, client_requests);
		if (opt.verbose)
			note("%s %zu iteration %u, %s requests", op_names[tc->op],
			     tc->len, iter, client_requests ? "client" : "server");
		usable = run_case(c, &r, &o);
		if (!outcome_ok(&o))
			break;
	}
	if (outcome_ok(&o)) {
		t->passed++;
	} else {
		t->failed++;
		if (opt.iters > 1)
			snprintf(extra, sizeof(extra), "; iteration %u of %u",
				 iter + 1, opt.iters);
	}
	if (c->client)
		print_tap(tc, client_requests, &o, extra);
	return usable;
}

static void print_not_run(const struct test_case *tc, bool client_requests)
{
	const char *from = client_requests ? opt.local_name : opt.peer_name;
	const char *to = client_requests ? opt.peer_name : opt.local_name;

	printf("not ok - %s %zu %s->%s%s%s (not run: an earlier case broke the QP)\n",
	       op_names[tc->op], tc->len, from, to, *opt.label ? " " : "",
	       opt.label);
}

/* Each case runs once each way: first the client requests, then the server. */
static const bool requester_is_client[] = { true, false };

static struct test_case cases[128];

/* Every case with the client requesting, then with the server. */
static bool run_all(struct ctx *c, struct tally *t)
{
	bool usable = true;
	size_t ncases, i, dir;

	ncases = build_cases(c, cases, ARRAY_SIZE(cases));
	for (dir = 0; dir < ARRAY_SIZE(requester_is_client); dir++)
		for (i = 0; i < ncases; i++) {
			if (usable) {
				usable = run_iterations(c, &cases[i], i,
							requester_is_client[dir], t);
				continue;
			}
			t->not_run++;
			if (c->client)
				print_not_run(&cases[i], requester_is_client[dir]);
		}
	return usable;
}

/*
 * --plan: the TAP lines a client with these options prints, one per case
 * and direction (or a fault scenario's checks), from the same case list.
 * Any device gives the count of this stand-in (see build_cases()).
 */
static size_t planned_lines(void)
{
	struct ctx c = { .max_inline = INLINE_WANT, .num_sge = NUM_SGE };

	if (opt.fault)
		return FAULT_CHECKS;
	if (is_stream())
		return 1;
	return ARRAY_SIZE(requester_is_client) *
	       build_cases(&c, cases, ARRAY_SIZE(cases));
}

/* ------------------------------------------------------------- faults */

static void tap(bool ok, const char *name, const char *why)
{
	printf("%s - %s%s%s%s%s%s\n", ok ? "ok" : "not ok", opt.fault, name,
	       *opt.label ? " " : "", opt.label, ok ? "" : " ", ok ? "" : why);
}

/*
 * The local ACK timeout in ms (4.096 us * 2^timeout), and the least time
 * a request can take to spend its retry budget: the first try and every
 * retry each wait for at least one timeout (the IBTA allows up to four).
 * Timers may fire up to a tick early against the clock read here, hence
 * the slack.
 */
static double ack_timeout_ms(void)
{
	return (double)(4096ull << opt.ack_timeout) / 1e6;
}

static double retry_budget_ms(void)
{
	return (opt.retry_cnt + 1) * ack_timeout_ms() * 0.8;
}

static void post_write(struct ctx *c, __u64 wr_id, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->src + GUARD,
		.length = len,
		.lkey = c->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	wr.wr.rdma.remote_addr = c->peer.dst_addr + GUARD;
	wr.wr.rdma.rkey = c->peer.dst_rkey;
	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret)
		die("ibv_post_send: %s", strerror(ret));
}

static void post_send(struct ctx *c, __u64 wr_id, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->src + GUARD,
		.length = len,
		.lkey = c->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret)
		die("ibv_post_send: %s", strerror(ret));
}

/*
 * After the error completion: the QP must be in the error state, and a
 * new work request must complete with IBV_WC_WR_FLUSH_ERR, not hang.
 */
static bool check_flushed(struct ctx *c, unsigned int inflight)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	char why[LINE_MAX_LEN];
	struct ibv_wc wc;
	__u64 deadline = now_ms() + opt.timeout * 1000ull;
	bool ok = true;

	/* what was queued behind the failed request is flushed */
	while (inflight--) {
		if (wait_wc(c, c->scq, &wc, deadline)) {
			snprintf(why, sizeof(why), "(queued work request never completed)");
			ok = false;
			break;
		}
		if (wc.status != IBV_WC_WR_FLUSH_ERR) {
			snprintf(why, sizeof(why), "(queued work request completed with %s)",
				 ibv_wc_status_str(wc.status));
			ok = false;
			break;
		}
	}
	if (ok && (ibv_query_qp(c->qp, &attr, IBV_QP_STATE, &init) ||
		   attr.qp_state != IBV_QPS_ERR)) {
		snprintf(why, sizeof(why), "(QP state %d, not IBV_QPS_ERR)",
			 attr.qp_state);
		ok = false;
	}
	if (ok) {
		post_write(c, 99, 64);
		if (wait_wc(c, c->scq, &wc, deadline)) {
			snprintf(why, sizeof(why), "(a new work request never completed)");
			ok = false;
		} else if (wc.status != IBV_WC_WR_FLUSH_ERR) {
			snprintf(why, sizeof(why), "(a new work request completed with %s)",
				 ibv_wc_status_str(wc.status));
			ok = false;
		}
	}
	tap(ok, ": the QP is in error and flushes what follows", why);
	return ok;
}

/*
 * peer-exit and blackhole, client: keep two WRITEs in flight until one
 * fails.  The first to fail must say IBV_WC_RETRY_EXC_ERR, after a run of
 * successful ones (the peer vanished mid-transfer) and no sooner after the
 * last of them than the retry budget allows.
 */
static bool fault_stream_client(struct ctx *c)
{
	size_t len = opt.max_size < (1u << 20) ? opt.max_size : (1u << 20);
	unsigned int done = 0, inflight = 0;
	__u64 posted = 0, t_ok = 0, t_err, limit;
	char why[LINE_MAX_LEN];
	struct ibv_wc wc;
	bool ok;

	if (len < 4096)
		len = 4096;
	t_ok = now_ms();
	/* the peer has this long to vanish once told the stream flows */
	limit = t_ok + opt.timeout * 1000ull * 4;
	for (;;) {
		while (inflight < 2) {
			post_write(c, ++posted, len);
			inflight++;
		}
		if (wait_wc(c, c->scq, &wc, t_ok + opt.timeout * 1000ull)) {
			snprintf(why, sizeof(why),
				 "(no completion for %u s after %u WRITEs: a hang)",
				 opt.timeout, done);
			tap(false, ": WRITE stream ends in IBV_WC_RETRY_EXC_ERR", why);
			return false;
		}
		inflight--;
		if (wc.status != IBV_WC_SUCCESS)
			break;
		t_ok = now_ms();
		if (++done == 1) {
			note("streaming %zu B WRITEs", len);
			ctl_send(c, "STREAMING");
		}
		if (t_ok > limit) {
			tap(false, ": WRITE stream ends in IBV_WC_RETRY_EXC_ERR",
			    "(the peer never went away)");
			return false;
		}
	}
	t_err = now_ms();
	note("%u WRITEs of %zu B done; WRITE %llu failed with %s %llu ms after the last success",
	     done, len, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
	     (unsigned long long)(t_err - t_ok));
	ok = wc.status == IBV_WC_RETRY_EXC_ERR && done > 0 &&
	     wc.wr_id == (__u64)done + 1 && t_err - t_ok >= retry_budget_ms();
	snprintf(why, sizeof(why),
		 "(WRITE %llu of %llu after %u successes: %s after %llu ms; want WRITE %u, IBV_WC_RETRY_EXC_ERR, after at least %.0f ms)",
		 (unsigned long long)wc.wr_id, (unsigned long long)posted, done,
		 ibv_wc_status_str(wc.status), (unsigned long long)(t_err - t_ok),
		 done + 1, retry_budget_ms());
	tap(ok, ": WRITE stream ends in IBV_WC_RETRY_EXC_ERR", why);
	ok = check_flushed(c, inflight) && ok;
	/*
	 * The server may be gone, or unable to answer: say goodbye if the
	 * socket still takes it, and wait for nothing.
	 */
	sock_write_all(c->sock, "BYE\n", 4, now_ms() + 1000);
	return ok;
}

/* rnr-exc, client: a SEND that never finds a receive */
static bool fault_rnr_client(struct ctx *c)
{
	char why[LINE_MAX_LEN], line[LINE_MAX_LEN];
	__u64 t0 = now_ms();
	struct ibv_wc wc;
	bool ok;

	post_send(c, 1, 64);
	if (wait_wc(c, c->scq, &wc, t0 + opt.timeout * 1000ull)) {
		snprintf(why, sizeof(why), "(no completion within %u s)", opt.timeout);
		tap(false, ": SEND ends in IBV_WC_RNR_RETRY_EXC_ERR", why);
		return false;
	}
	note("SEND completed with %s after %llu ms (rnr_retry %u)",
	     ibv_wc_status_str(wc.status), (unsigned long long)(now_ms() - t0),
	     opt.rnr_retry);
	snprintf(why, sizeof(why), "(%s)", ibv_wc_status_str(wc.status));
	ok = wc.status == IBV_WC_RNR_RETRY_EXC_ERR;
	tap(ok, ": SEND ends in IBV_WC_RNR_RETRY_EXC_ERR", why);
	ok = check_flushed(c, 0) && ok;
	ctl_send(c, "BYE");
	ctl_expect(c, line, sizeof(line), "BYE", opt.timeout * 2);
	return ok;
}

/* The server's part: vanish, cut the wire, or just post no receive */
static bool fault_server(struct ctx *c)
{
	char line[LINE_MAX_LEN];
	struct ibv_wc wc;
	int ret;

	if (strcmp(opt.fault, "rnr-exc")) {
		ctl_expect(c, line, sizeof(line), "STREAMING", opt.timeout * 4);
		if (!strcmp(opt.fault, "peer-exit")) {
			/* what process exit does first: the QP goes */
			if (ibv_destroy_qp(c->qp))
				die("ibv_destroy_qp: %s", strerror(errno));
			note("QP destroyed mid-transfer; exiting");
			exit(0);
		}
		note("running: %s", opt.cut_cmd);
		ret = system(opt.cut_cmd);
		if (ret)
			die("'%s' failed (status %d)", opt.cut_cmd, ret);
	}
	ctl_expect(c, line, sizeof(line), "BYE", opt.timeout * 8);
	if (!strcmp(opt.fault, "rnr-exc")) {
		/* nothing may have arrived without a receive */
		if (ibv_poll_cq(c->rcq, 1, &wc))
			die("a receive completion without a receive posted");
		ctl_send(c, "BYE");
	}
	return true;
}

static bool run_fault(struct ctx *c)
{
	if (!c->client)
		return fault_server(c);
	if (!strcmp(opt.fault, "rnr-exc"))
		return fault_rnr_client(c);
	return fault_stream_client(c);
}

/* ------------------------------------------------------------- stream */

/*
 * -S SECS: instead of the cases, one long one-way stream of -m byte
 * messages from the client's host to the server's, every byte checked
 * where it lands.  The server is the receiving end in both directions of
 * initiative, so that a bottleneck in front of it sees the same traffic:
 *
 *  write  the client WRITEs with immediate into the slots of the server's
 *	   buffer (stream_slots()) in turn, message n carrying n as immediate and
 *	   bytes of its own tag; the server checks each as its completion
 *	   arrives and hands the slot back ("C n" over TCP, n messages
 *	   checked), so no slot is written again before it was checked.
 *  read   the server READs the client's slots in turn, each slot of the
 *	   source holding its own tag, into a destination slot it has
 *	   filled with the canary first, so a read that lands nowhere fails.
 *
 * -D N keeps N messages in flight (posted in lists, STREAM_POST_LIST at a
 * time, as a requester in the poster's context sees them together).
 *
 * The server prints "# server: progress MS BYTES" (MS: CLOCK_REALTIME in
 * ms; BYTES: checked so far) every -I ms and at both ends, for a harness
 * to line several streams up; the client prints the one TAP line.
 */

static __u64 stream_tag(__u64 n)
{
	return mix64(opt.seed ^ mix64(n ^ 0x73747265616dull));
}

static __u64 realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct stream {
	__u64 posted, done;	/* messages posted, completed */
	__u64 checked;		/* messages checked by the server */
	__u64 credit;		/* client: messages the server has checked */
	__u64 bytes;
	__u64 last_ms;		/* monotonic time of the last progress */
	__u64 report_ms;	/* monotonic time of the last progress line */
	__u64 end;		/* write, server: messages the client posted */
	bool ended;		/* write, server: the client said END */
	struct mismatch mm;
	char why[LINE_MAX_LEN];
};

static __u8 *stream_slot(__u8 *buf, __u64 n)
{
	return buf + GUARD + (n % stream_slots()) * opt.max_size;
}

static void stream_progress(struct stream *s, bool force)
{
	__u64 now = now_ms();

	if (!force && now - s->report_ms < opt.progress_ms)
		return;
	s->report_ms = now;
	note("progress %llu %llu", (unsigned long long)realtime_ms(),
	     (unsigned long long)s->bytes);
}

/*
 * Wait up to 20 ms for completions on @cq or a line on the socket; the
 * completion channel is armed first, so none is missed.  Returns how many
 * completions were polled into @wc, -1 on a polling error.
 */
static int stream_poll(struct ctx *c, struct ibv_cq *cq, struct ibv_wc *wc,
		       int max, bool *sock_ready)
{
	struct pollfd pfd[2] = {
		{ .fd = c->channel->fd, .events = POLLIN },
		{ .fd = c->sock, .events = POLLIN },
	};
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	*sock_ready = false;
	n = ibv_poll_cq(cq, max, wc);
	if (n)
		goto out;
	if (ibv_req_notify_cq(cq, 0))
		return -1;
	n = ibv_poll_cq(cq, max, wc);
	if (n)
		goto out;
	if (poll(pfd, 2, 20) > 0 && (pfd[0].revents & POLLIN) &&
	    !ibv_get_cq_event(c->channel, &ev_cq, &ev_ctx))
		ibv_ack_cq_events(ev_cq, 1);
	n = ibv_poll_cq(cq, max, wc);
out:
	if (n >= 0) {
		pfd[1].revents = 0;
		*sock_ready = poll(&pfd[1], 1, 0) > 0;
	}
	return n;
}

static bool stream_stalled(const struct stream *s)
{
	return now_ms() - s->last_ms > opt.timeout * 1000ull;
}

/* WRs stream_post() gathered, for stream_post_flush() to post as a list */
static struct ibv_send_wr stream_wrs[STREAM_POST_LIST];
static struct ibv_sge stream_sges[STREAM_POST_LIST];
static int stream_pending;

static void stream_post_flush(struct ctx *c)
{
	struct ibv_send_wr *bad;
	int i, ret;

	if (!stream_pending)
		return;
	for (i = 0; i < stream_pending; i++)
		stream_wrs[i].next = i + 1 < stream_pending ? &stream_wrs[i + 1] :
							      NULL;
	ret = ibv_post_send(c->qp, stream_wrs, &bad);
	if (ret)
		die("ibv_post_send: %s", strerror(ret));
	stream_pending = 0;
}

static void stream_post(struct ctx *c, enum ibv_wr_opcode op, __u8 *local,
			__u32 lkey, __u64 remote, __u32 rkey, __u64 n)
{
	struct ibv_sge *sge = &stream_sges[stream_pending];
	struct ibv_send_wr *wr = &stream_wrs[stream_pending];

	*sge = (struct ibv_sge){
		.addr = (uintptr_t)local,
		.length = opt.max_size,
		.lkey = lkey,
	};
	*wr = (struct ibv_send_wr){
		.wr_id = n,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl((__u32)n),
	};
	wr->wr.rdma.remote_addr = remote;
	wr->wr.rdma.rkey = rkey;
	if (++stream_pending == STREAM_POST_LIST)
		stream_post_flush(c);
}

static void stream_post_recv(struct ctx *c, __u64 n)
{
	struct ibv_recv_wr wr = { .wr_id = n }, *bad;
	int ret;

	ret = ibv_post_recv(c->qp, &wr, &bad);
	if (ret)
		die("ibv_post_recv: %s", strerror(ret));
}

/* Check message @n where it landed; false with s->why set if it is bad. */
static bool stream_check(struct ctx *c, struct stream *s, __u64 n, __u64 tag)
{
	__u8 *p = stream_slot(c->dst, n);

	if (opt.corrupt)
		p[(n * 7919) % opt.max_size] ^= 0x20;
	memset(&s->mm, 0, sizeof(s->mm));
	pattern_check(p, opt.max_size, tag, 0, &s->mm);
	if (!s->mm.bad)
		return true;
	snprintf(s->why, sizeof(s->why),
		 "message %llu: first mismatch at byte %zu: got 0x%02x want 0x%02x; %zu bad bytes",
		 (unsigned long long)n, s->mm.at, s->mm.got, s->mm.want,
		 s->mm.count);
	return false;
}

static bool stream_wc_bad(struct stream *s, const struct ibv_wc *wc,
			  enum ibv_wc_opcode want)
{
	if (wc->status == IBV_WC_SUCCESS && wc->opcode == want)
		return false;
	snprintf(s->why, sizeof(s->why), "message %llu: %s, opcode %d",
		 (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
		 wc->opcode);
	return true;
}

/*
 * A line from the peer while this side sends: a WRITE stream's credit, or
 * the server's verdict if it gave up (false, with s->why set).  A READ
 * stream's client says nothing until the end.
 */
static bool stream_sender_line(struct ctx *c, struct stream *s)
{
	const char *peer = c->client ? "server" : "client";
	char line[LINE_MAX_LEN];
	unsigned long long n;

	ctl_recv(c, line, sizeof(line), opt.timeout);
	if (c->client && sscanf(line, "C %llu", &n) == 1 && n <= s->posted) {
		s->credit = n;
		return true;
	}
	if (!c->client || strncmp(line, "RESULT fail ", 12))
		die("unexpected line from the %s: %s", peer, line);
	snprintf(s->why, sizeof(s->why), "server: %.400s", line + 12);
	return false;
}

/* Room for one more message: in flight, and (WRITE) in the server's slots. */
static bool stream_room(const struct stream *s)
{
	if (s->posted - s->done >= opt.stream_depth)
		return false;
	return stream_reads() || s->posted < s->credit + stream_slots();
}

/* Post the next message: a slot filled and written, or canaried and read. */
static void stream_post_next(struct ctx *c, struct stream *s)
{
	__u8 *src = stream_slot(c->src, s->posted);
	__u8 *dst = stream_slot(c->dst, s->posted);

	if (stream_reads()) {
		memset(dst, CANARY, opt.max_size);
		stream_post(c, IBV_WR_RDMA_READ, dst, c->dst_mr->lkey,
			    c->peer.src_addr + (dst - c->dst),
			    c->peer.src_rkey, s->posted);
	} else {
		pattern_fill(src, opt.max_size, stream_tag(s->posted), 0);
		stream_post(c, IBV_WR_RDMA_WRITE_WITH_IMM, src, c->src_mr->lkey,
			    c->peer.dst_addr + (src - c->src),
			    c->peer.dst_rkey, s->posted);
	}
	s->posted++;
}

/* The sender's completion of message s->done; false with s->why if bad. */
static bool stream_completed(struct ctx *c, struct stream *s,
			     const struct ibv_wc *wc)
{
	if (stream_wc_bad(s, wc, stream_reads() ? IBV_WC_RDMA_READ :
						  IBV_WC_RDMA_WRITE))
		return false;
	/* a READ's data is checked where it landed: the slot's tag */
	if (stream_reads()) {
		if (!stream_check(c, s, s->done,
				  stream_tag(s->done % stream_slots())))
			return false;
		s->checked++;
	}
	s->bytes += opt.max_size;
	s->last_ms = now_ms();
	return true;
}

/*
 * The sending side, a WRITE stream's client or a READ stream's server:
 * messages for opt.stream_secs, then until all have completed; false with
 * s->why set on failure.
 */
static bool stream_send(struct ctx *c, struct stream *s)
{
	__u64 stop = now_ms() + opt.stream_secs * 1000ull;
	struct ibv_wc wc[STREAM_MAX_DEPTH];
	bool ready;
	int i, got;

	for (;;) {
		while (now_ms() < stop && stream_room(s))
			stream_post_next(c, s);
		stream_post_flush(c);
		if (s->posted == s->done && now_ms() >= stop)
			return true;
		got = stream_poll(c, c->scq, wc, opt.stream_depth, &ready);
		if (got < 0)
			die("ibv_poll_cq failed");
		for (i = 0; i < got; i++, s->done++)
			if (!stream_completed(c, s, &wc[i]))
				return false;
		/* the server reports how far it got */
		if (!c->client)
			stream_progress(s, false);
		if (ready && !stream_sender_line(c, s))
			return false;
		if (stream_stalled(s)) {
			snprintf(s->why, sizeof(s->why),
				 "no completion for %u s (%llu posted, %llu done)",
				 opt.timeout, (unsigned long long)s->posted,
				 (unsigned long long)s->done);
			return false;
		}
	}
}

/* The server's side of a WRITE stream. */
static bool stream_write_server(struct ctx *c, struct stream *s)
{
	char line[LINE_MAX_LEN];
	struct ibv_wc wc[STREAM_MAX_SLOTS];
	unsigned long long n;
	__u64 told = 0;
	bool ready;
	int i, got;

	while (!s->ended || s->checked < s->end) {
		got = stream_poll(c, c->rcq, wc, stream_slots(), &ready);
		if (got < 0)
			die("ibv_poll_cq failed");
		for (i = 0; i < got; i++) {
			if (stream_wc_bad(s, &wc[i], IBV_WC_RECV_RDMA_WITH_IMM))
				return false;
			if (ntohl(wc[i].imm_data) != (__u32)s->checked) {
				snprintf(s->why, sizeof(s->why),
					 "message %llu arrived with immediate %u",
					 (unsigned long long)s->checked,
					 ntohl(wc[i].imm_data));
				return false;
			}
			if (!stream_check(c, s, s->checked, stream_tag(s->checked)))
				return false;
			s->checked++;
			s->bytes += opt.max_size;
			s->last_ms = now_ms();
			stream_post_recv(c, s->checked + stream_slots() - 1);
		}
		if (s->checked - told >= stream_slots() / 4) {
			ctl_send(c, "C %llu", (unsigned long long)s->checked);
			told = s->checked;
		}
		stream_progress(s, false);
		if (ready) {
			ctl_recv(c, line, sizeof(line), opt.timeout);
			if (sscanf(line, "END %llu", &n) != 1)
				die("unexpected line from the client: %s", line);
			s->end = n;
			s->ended = true;
		}
		if (stream_stalled(s)) {
			snprintf(s->why, sizeof(s->why),
				 "nothing arrived for %u s (%llu checked%s)",
				 opt.timeout, (unsigned long long)s->checked,
				 s->ended ? ", the client has ended" : "");
			return false;
		}
	}
	if (s->checked != s->end) {
		snprintf(s->why, sizeof(s->why), "%llu messages checked, the client sent %llu",
			 (unsigned long long)s->checked, (unsigned long long)s->end);
		return false;
	}
	return true;
}

static void stream_tap(bool ok, const char *why)
{
	printf("%s - stream %s%s%s%s%s\n", ok ? "ok" : "not ok", opt.stream_op,
	       *opt.label ? " " : "", opt.label, ok ? "" : " ", ok ? "" : why);
}

/* The client's wait for the server's verdict, past any last credits. */
static bool stream_result(struct ctx *c, char *why, size_t wl)
{
	unsigned long long bytes, ms;
	char line[LINE_MAX_LEN];

	do
		ctl_recv(c, line, sizeof(line), opt.stream_secs + opt.timeout * 2);
	while (line[0] == 'C' && line[1] == ' ');
	if (sscanf(line, "RESULT ok %llu %llu", &bytes, &ms) == 2) {
		note("%s stream: %llu bytes checked in %llu ms (%.2f MB/s)",
		     opt.stream_op, bytes, ms, ms ? bytes / 1e3 / ms : 0.0);
		return true;
	}
	if (!strncmp(line, "RESULT fail ", 12))
		snprintf(why, wl, "(server: %s)", line + 12);
	else
		snprintf(why, wl, "(unexpected line from the server: %.400s)", line);
	return false;
}

/*
 * Run the stream; the server tells the client "RESULT ok BYTES MS" or
 * "RESULT fail WHY", and the client prints the TAP line.
 */
static bool run_stream(struct ctx *c)
{
	struct stream s = { .last_ms = now_ms() };
	char line[LINE_MAX_LEN], why[LINE_MAX_LEN + 16];
	__u64 start;
	bool ok;
	int i;

	if (c->client && stream_reads())
		for (i = 0; i < (int)stream_slots(); i++)
			pattern_fill(stream_slot(c->src, i), opt.max_size,
				     stream_tag(i), 0);
	/* a WRITE stream's receives are there before the client may start */
	if (!c->client && !stream_reads())
		for (i = 0; i < (int)stream_slots(); i++)
			stream_post_recv(c, i);
	ctl_send(c, "GO");
	ctl_expect(c, line, sizeof(line), "GO", opt.timeout * 4);
	start = now_ms();
	s.last_ms = start;
	if (!c->client) {
		stream_progress(&s, true);
		ok = stream_reads() ? stream_send(c, &s) :
				      stream_write_server(c, &s);
		stream_progress(&s, true);
		if (ok)
			ctl_send(c, "RESULT ok %llu %llu", (unsigned long long)s.bytes,
				 (unsigned long long)(now_ms() - start));
		else
			ctl_send(c, "RESULT fail %s", s.why);
		note("%s", ok ? "stream checked" : s.why);
		return ok;
	}
	if (!stream_reads()) {
		if (!stream_send(c, &s)) {
			/* the server's verdict says whose it is */
			snprintf(why, sizeof(why), "(%s%s)",
				 strncmp(s.why, "server: ", 8) ? "client: " : "",
				 s.why);
			stream_tap(false, why);
			return false;
		}
		ctl_send(c, "END %llu", (unsigned long long)s.posted);
	}
	ok = stream_result(c, why, sizeof(why));
	stream_tap(ok, why);
	return ok;
}

/* ----------------------------------------------------------- exchange */

static void send_info(struct ctx *c)
{
	const struct peer_info *m = &c->me;
	char gid[33];
	int i;

	for (i = 0; i < 16; i++)
		sprintf(gid + 2 * i, "%02x", m->gid.raw[i]);
	ctl_send(c, "QP %u %u %u %s %llx %x %llx %x %u %u",
		 m->qpn, m->psn, m->lid, gid, m->src_addr, m->src_rkey,
		 m->dst_addr, m->dst_rkey, c->max_inline, c->num_sge);
}

static void recv_info(struct ctx *c)
{
	struct peer_info *p = &c->peer;
	unsigned int qpn, psn, lid, inl, nsge;
	char line[LINE_MAX_LEN], gid[33];
	const char *rest;
	int i;

	rest = ctl_expect(c, line, sizeof(line), "QP", opt.timeout * 4);
	if (sscanf(rest, "%u %u %u %32s %llx %x %llx %x %u %u",
		   &qpn, &psn, &lid, gid, &p->src_addr, &p->src_rkey,
		   &p->dst_addr, &p->dst_rkey, &inl, &nsge) != 10 ||
	    strlen(gid) != 32)
		die("bad QP line from the peer: %s", line);
	p->qpn = qpn;
	p->psn = psn;
	p->lid = lid;
	for (i = 0; i < 16; i++) {
		char byte[3] = { gid[2 * i], gid[2 * i + 1], '\0' };
		char *end;

		p->gid.raw[i] = strtoul(byte, &end, 16);
		if (*end)
			die("bad GID from the peer: %s", gid);
	}
	/* Both sides must agree on the case list: take the smaller limits. */
	if (inl < c->max_inline)
		c->max_inline = inl;
	if ((int)nsge < c->num_sge)
		c->num_sge = nsge;
}

static void print_usage(const char *prog)
{
	printf("usage: %s [options] [HOST]\n"
	       "  -d DEV      RDMA device (default: the first)\n"
	       "  -i PORT     device port (default 1)\n"
	       "  -g INDEX    GID index (default: first RoCE v2 IPv4 GID)\n"
	       "  -p PORT     TCP port (default %d)\n"
	       "  -s SEED     pattern seed (default 1)\n"
	       "  -n ITERS    runs of each case per direction (default 1)\n"
	       "  -m BYTES    largest message (default 16777216)\n"
	       "  -t SECS     per-step timeout (default 30)\n"
	       "  -P PSN      first PSN (default: near the 24-bit wrap)\n"
	       "  -l LABEL    appended to each TAP line's name\n"
	       "  -r ME:PEER  names of the sides in TAP lines (default client:server)\n"
	       "  -v          note each case as it starts\n"
	       "  -x          self-test: flip a byte of each message that arrives\n"
	       "              here before checking it (those cases must fail)\n"
	       "  -R MS       the responder posts each receive MS ms after the\n"
	       "              requester starts (RNR NAKs, then recovery)\n"
	       "  -f FAULT    instead of the cases: peer-exit, blackhole or rnr-exc\n"
	       "              (see the top of the source)\n"
	       "  -C CMD      blackhole: the server runs CMD once WRITEs flow\n"
	       "  -T EXP      local ACK timeout, 4.096 us * 2^EXP (default 14)\n"
	       "  -c N        retry_cnt (default 7)\n"
	       "  -N N        rnr_retry (default 7, for ever)\n"
	       "  -S SECS     instead of the cases: stream -m byte messages (default\n"
	       "              65536) to the server for SECS s, each checked\n"
	       "  -o OP       the stream's operation: write (default) or read\n"
	       "  -D N        the stream's messages in flight (default 4, at most %d),\n"
	       "              posted up to %d in one call\n"
	       "  -I MS       the server's progress lines, every MS ms (default 200)\n"
	       "  -W          remote access through type 1 memory windows\n"
	       "  --plan      print how many TAP lines a client with these\n"
	       "              options prints, and exit\n"
	       "Without HOST: serve one client.  Client's -s -n -m -P -R -f -S -o -D -W apply to\n"
	       "both; -T -c -N set this side's QP.\n",
	       prog, DEFAULT_PORT, STREAM_MAX_DEPTH, STREAM_POST_LIST);
}

static unsigned long long parse_num(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad %s '%s'", what, s);
	return v;
}

/* -f names a known scenario; blackhole needs its -C on the server */
static void check_fault(void)
{
	size_t i;

	if (!opt.fault)
		return;
	for (i = 0; i < ARRAY_SIZE(fault_names); i++)
		if (!strcmp(opt.fault, fault_names[i]))
			break;
	if (i == ARRAY_SIZE(fault_names))
		die("unknown fault '%s'", opt.fault);
	if (!opt.host && !strcmp(opt.fault, "blackhole") && !opt.cut_cmd)
		die("-f blackhole wants -C CMD on the server");
}

/* -S: a known operation, messages that fit the slots, no fault */
static void check_stream(void)
{
	if (strcmp(opt.stream_op, "write") && strcmp(opt.stream_op, "read"))
		die("-o takes write or read, not '%s'", opt.stream_op);
	if (!opt.stream_secs)
		return;
	if (opt.fault)
		die("-S and -f exclude each other");
	if (opt.max_size < 64 || opt.max_size > STREAM_MAX_MSG ||
	    opt.stream_secs > 86400 || !opt.progress_ms ||
	    !opt.stream_depth || opt.stream_depth > STREAM_MAX_DEPTH)
		die("-S wants -m from 64 to %u, at most 86400 s, -I above 0 and -D from 1 to %u",
		    STREAM_MAX_MSG, STREAM_MAX_DEPTH);
}

static void parse_args(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "plan", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char names[128];
	bool size_set = false;
	char *colon;
	int ch;

	while ((ch = getopt_long(argc, argv, "d:i:g:p:s:n:m:t:P:l:r:vxR:f:C:T:c:N:S:D:o:I:Wh",
				 long_opts, NULL)) != -1) {
		switch (ch) {
		case 'L':
			opt.plan = true;
			break;
		case 'd':
			opt.dev_name = optarg;
			break;
		case 'i':
			opt.ib_port = parse_num(optarg, "port");
			break;
		case 'g':
			opt.gid_index = parse_num(optarg, "GID index");
			break;
		case 'p':
			opt.tcp_port = parse_num(optarg, "TCP port");
			break;
		case 's':
			opt.seed = parse_num(optarg, "seed");
			break;
		case 'n':
			opt.iters = parse_num(optarg, "iteration count");
			break;
		case 'm':
			opt.max_size = parse_num(optarg, "size");
			size_set = true;
			break;
		case 't':
			opt.timeout = parse_num(optarg, "timeout");
			break;
		case 'P':
			opt.start_psn = parse_num(optarg, "PSN") & 0xffffff;
			break;
		case 'l':
			opt.label = optarg;
			break;
		case 'r':
			snprintf(names, sizeof(names), "%s", optarg);
			colon = strchr(names, ':');
			if (!colon || colon == names || !colon[1])
				die("-r wants ME:PEER");
			*colon = '\0';
			opt.local_name = names;
			opt.peer_name = colon + 1;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'x':
			opt.corrupt = true;
			break;
		case 'R':
			opt.rnr_delay = parse_num(optarg, "RNR delay");
			break;
		case 'f':
			opt.fault = optarg;
			break;
		case 'C':
			opt.cut_cmd = optarg;
			break;
		case 'T':
			opt.ack_timeout = parse_num(optarg, "ACK timeout");
			break;
		case 'c':
			opt.retry_cnt = parse_num(optarg, "retry count");
			break;
		case 'N':
			opt.rnr_retry = parse_num(optarg, "RNR retry count");
			break;
		case 'S':
			opt.stream_secs = parse_num(optarg, "stream time");
			break;
		case 'D':
			opt.stream_depth = parse_num(optarg, "stream depth");
			break;
		case 'o':
			opt.stream_op = optarg;
			break;
		case 'I':
			opt.progress_ms = parse_num(optarg, "progress interval");
			break;
		case 'W':
			opt.windows = true;
			break;
		case 'h':
			print_usage(argv[0]);
			exit(0);
		default:
			print_usage(argv[0]);
			exit(2);
		}
	}
	if (optind < argc)
		opt.host = argv[optind++];
	if (optind < argc) {
		print_usage(argv[0]);
		exit(2);
	}
	if (!opt.local_name) {
		opt.local_name = opt.host ? "client" : "server";
		opt.peer_name = opt.host ? "server" : "client";
	}
	if (!opt.iters || !opt.timeout || opt.max_size > (1u << 30))
		die("-n and -t must be positive, -m at most 1 GiB");
	if (opt.ack_timeout < 1 || opt.ack_timeout > 31 || opt.retry_cnt > 7 ||
	    opt.rnr_retry > 7 || opt.rnr_delay > 60000)
		die("-T takes 1 to 31, -c and -N 0 to 7, -R at most 60000");
	/* a stream's messages default to 64 KiB */
	if (opt.stream_secs && !size_set)
		opt.max_size = 65536;
	check_fault();
	check_stream();
}

/* Client's run parameters to the server, which takes them as its own. */
static void agree_params(struct ctx *c)
{
	char line[LINE_MAX_LEN];
	static char fault[32], op[8];
	unsigned long long seed, max;
	unsigned int iters, rnr_delay, secs, depth, windows;
	long psn;
	const char *rest;

	if (c->client) {
		ctl_send(c, "HELLO rdma_verify-5 %llu %u %zu %ld %u %s %u %s %u %u",
			 opt.seed, opt.iters, opt.max_size, opt.start_psn,
			 opt.rnr_delay, opt.fault ? opt.fault : "-",
			 opt.stream_secs, opt.stream_op, opt.stream_depth,
			 opt.windows);
		ctl_expect(c, line, sizeof(line), "WELCOME", opt.timeout * 4);
		return;
	}
	rest = ctl_expect(c, line, sizeof(line), "HELLO", opt.timeout);
	if (sscanf(rest, "rdma_verify-5 %llu %u %llu %ld %u %31s %u %7s %u %u",
		   &seed, &iters, &max, &psn, &rnr_delay, fault, &secs, op,
		   &depth, &windows) != 10 || !iters ||
	    max > (1u << 30) || rnr_delay > 60000 || windows > 1)
		die("bad HELLO from the client: %s", line);
	opt.seed = seed;
	opt.iters = iters;
	opt.max_size = max;
	opt.start_psn = psn;
	opt.rnr_delay = rnr_delay;
	opt.fault = strcmp(fault, "-") ? fault : NULL;
	opt.stream_secs = secs;
	opt.stream_op = op;
	opt.stream_depth = depth;
	opt.windows = windows;
	check_fault();
	check_stream();
	ctl_send(c, "WELCOME");
}

int main(int argc, char **argv)
{
	struct tally t = { 0 };
	struct ctx c = { 0 };
	char line[LINE_MAX_LEN];

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	parse_args(argc, argv);
	if (opt.plan) {
		printf("%zu\n", planned_lines());
		return 0;
	}
	c.client = opt.host;

	/* The server waits for its client however long the setup takes. */
	c.sock = c.client ? tcp_connect(opt.host, opt.tcp_port, opt.timeout * 4) :
			    tcp_accept(opt.tcp_port, opt.timeout * 10);
	agree_params(&c);
	setup_verbs(&c);
	/* Close to 2^24 by default, so the long messages cross the wrap. */
	if (opt.start_psn >= 0)
		c.me.psn = (opt.start_psn + !c.client) & 0xffffff;
	else
		c.me.psn = 0xffffff - (mix64(opt.seed + c.client) & 0x3ff);
	send_info(&c);
	recv_info(&c);
	connect_qp(&c);
	ctl_send(&c, "RTS");
	ctl_expect(&c, line, sizeof(line), "RTS", opt.timeout * 4);
	if (opt.windows)
		trade_windows(&c);
	note("%s gid %d mtu %d inline %u sge %d psn 0x%06x peer qpn %u psn 0x%06x",
	     ibv_get_device_name(c.ctx->device), opt.gid_index,
	     128 << c.mtu, c.max_inline, c.num_sge, c.me.psn, c.peer.qpn,
	     c.peer.psn);

	if (opt.fault || is_stream()) {
		bool ok = opt.fault ? run_fault(&c) : run_stream(&c);

		teardown(&c);
		close(c.sock);
		return ok ? 0 : 1;
	}
	if (run_all(&c, &t)) {
		ctl_send(&c, "BYE");
		ctl_expect(&c, line, sizeof(line), "BYE", opt.timeout * 2);
	}
	note("%u passed, %u failed, %u not run", t.passed, t.failed, t.not_run);
	teardown(&c);
	close(c.sock);
	return t.failed || t.not_run ? 1 : 0;
}
