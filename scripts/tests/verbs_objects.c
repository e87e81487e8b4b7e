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

static const struct {
	const char *name;
	int (*fn)(void);
	const char *what;	/* the check's name in the test's output */
} checks[] = {
	{ "query", check_query, "query_device reports CQ limits" },
	{ "cq-create", check_cq_create,
	  "CQ create, poll empty, destroy (with a PD)" },
	{ "cq-limits", check_cq_limits, "CQ size limits and comp_vector range" },
	{ "cq-resize", check_cq_resize,
	  "CQ resize up and down, refused past max" },
	{ "cq-notify", check_cq_notify, "CQ notify arming, no spurious event" },
	{ "cq-ex", check_cq_ex, "CQ through ibv_create_cq_ex" },
	{ "cq-many", check_cq_many, "256 CQs created, resized, destroyed" },
	{ "cq-mmap", check_cq_mmap,
	  "CQ ring mapping: ABI header, refused mappings, garbage indices" },
	{ "exit-cleanup", check_exit_cleanup,
	  "process exit with live CQs and mappings" },
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
		rc = checks[i].fn();
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
