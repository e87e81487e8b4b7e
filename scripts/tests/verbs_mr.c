// SPDX-License-Identifier: GPL-2.0
/*
 * PDs, MRs and AHs through Debian's libibverbs and librxe, as any
 * application would drive them: good calls must work, bad ones must fail
 * with the right errno (the kernel log is checked for splats by the
 * caller).  Prints "PASS name" / "FAIL name: why", one line for each
 * check of plan_checks() whatever happens (check_plan.h).
 *
 * Usage: verbs_mr DEV LOCAL_IPV4 PEER_IPV4 PEER_IPV6 PEER_LL_IPV6
 *        verbs_mr --plan	print how many checks a run reports
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "check_plan.h"

static int failed;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PASS(name)	(failed += plan_report(name, NULL))
#define FAIL(name, fmt, ...)	fail_line(name, fmt, ##__VA_ARGS__)

static void __printf(2, 3) fail_line(const char *name, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	failed += plan_report(name, why);
}

/* the access flags test_mrs() registers an MR with, one MR each */
static const int combos[] = {
	0,
	IBV_ACCESS_LOCAL_WRITE,
	IBV_ACCESS_REMOTE_READ,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING,
};

/* every check a run reports, in the order the tests below make them */
static void plan_checks(void)
{
	static const char *const mrs_bad[] = {
		"remote write without local write",
		"remote atomic without local write",
		"on-demand paging refused",
		"zero length refused",
		"iova + length overflowing refused",
		"unmapped address refused",
		"writable MR of read-only memory refused",
		"read-only MR of read-only memory",
		"reg_mr_iova at a high iova",
		"dereg high-iova MR",
	};
	static const char *const rereg[] = {
		"reg_mr for rereg",
		"rereg_mr access",
		"rereg_mr draws a new key, index too",
		"rereg_mr PD",
		"rereg_mr PD draws a new key, index too",
		"the MR's new PD cannot be freed",
		"rereg_mr translation",
		"rereg_mr to remote write without local write",
		"rereg_mr to on-demand paging",
		"rereg_mr to zero length",
		"rereg_mr onto read-only memory, read-only",
		"rereg_mr making read-only memory writable",
		"dereg re-registered MR",
	};
	static const char *const mws[] = {
		"reg_mr with MW_BIND",
		"alloc_mw type 1",
		"alloc_mw type 2",
		"windows and MRs have distinct key indexes",
		"alloc_mw of an unknown type",
		"PD with windows cannot be freed",
		"dealloc_mw type 1",
		"dealloc_mw type 2",
		"dereg MR after its windows",
	};
	static const char *const ahs[] = {
		"RoCE v2 GID of the local IPv4 address found",
		"create_ah RoCE v2 / IPv4",
		"second AH to the same peer",
		"destroy_ah",
		"create_ah mixing IPv4 source and IPv6 destination",
		"RoCE v1 GID at index 0",
		"create_ah RoCE v1 (link-local)",
		"destroy_ah v1",
		"create_ah with an empty GID index",
		"create_ah on port 2",
		"create_ah without GRH on RoCE",
		"destroy first AH",
	};
	size_t i;

	plan_add("open device");
	plan_add("alloc_pd");
	plan_add("alloc second pd");
	for (i = 0; i < ARRAY_SIZE(combos); i++) {
		plan_add("reg_mr access 0x%x", combos[i]);
		plan_add("lkey == rkey, not 0 (0x%x)", combos[i]);
	}
	plan_add("MRs get distinct key indexes");
	plan_add("PD with MRs cannot be freed");
	for (i = 0; i < ARRAY_SIZE(combos); i++)
		plan_add("dereg_mr access 0x%x", combos[i]);
	for (i = 0; i < ARRAY_SIZE(mrs_bad); i++)
		plan_add("%s", mrs_bad[i]);
	for (i = 0; i < ARRAY_SIZE(rereg); i++)
		plan_add("%s", rereg[i]);
	for (i = 0; i < ARRAY_SIZE(mws); i++)
		plan_add("%s", mws[i]);
	for (i = 0; i < ARRAY_SIZE(ahs); i++)
		plan_add("%s", ahs[i]);
	plan_add("dealloc_pd");
	plan_add("dealloc second pd");
	plan_add("close device");
}

static void expect_ok(const char *name, int ok, int err)
{
	if (ok)
		PASS(name);
	else
		FAIL(name, "errno %d (%s)", err, strerror(err));
}

/* the call returned NULL / non-zero: it must have set @want */
static void expect_errno(const char *name, int failed_call, int err, int want)
{
	if (!failed_call)
		FAIL(name, "succeeded, wanted errno %d", want);
	else if (err != want)
		FAIL(name, "errno %d (%s), wanted %d (%s)", err, strerror(err),
		     want, strerror(want));
	else
		PASS(name);
}

/*
 * For bad input whose errno depends on whether librxe or the kernel
 * refuses it first: it must fail, and say why.
 */
static void expect_fail(const char *name, int failed_call, int err)
{
	if (!failed_call)
		FAIL(name, "succeeded");
	else if (!err)
		FAIL(name, "failed without an errno");
	else
		PASS(name);
}

static int find_gid(struct ibv_context *ctx, enum ibv_gid_type type,
		    const union ibv_gid *want)
{
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < 256; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (e.gid_type == type && !memcmp(&e.gid, want, sizeof(*want)))
			return i;
	}
	return -1;
}

static void v4_gid(union ibv_gid *gid, const char *ip)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	inet_pton(AF_INET, ip, &gid->raw[12]);
}

static struct ibv_ah *make_ah(struct ibv_pd *pd, int sgid_index,
			      const union ibv_gid *dgid, int port, int global)
{
	struct ibv_ah_attr attr = {
		.is_global = global,
		.port_num = port,
		.sl = 0,
		.grh = {
			.dgid = *dgid,
			.sgid_index = sgid_index,
			.hop_limit = 64,
			.traffic_class = 0x20,
			.flow_label = 0x1234,
		},
	};

	return ibv_create_ah(pd, &attr);
}

/*
 * librxe has no rereg_mr, so ibv_rereg_mr() never reaches the kernel: send
 * the uverbs write command ourselves on the context's command fd.  Returns
 * 0 and the new keys, or -1 with errno.
 */
static int raw_rereg(struct ibv_context *ctx, struct ibv_mr *mr, int flags,
		     struct ibv_pd *pd, void *addr, size_t len, int access,
		     unsigned int *lkey, unsigned int *rkey)
{
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
	} req = {};

	req.hdr.command = IB_USER_VERBS_CMD_REREG_MR;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.mr_handle = mr->handle;
	req.cmd.flags = flags;
	req.cmd.start = (uintptr_t)addr;
	req.cmd.length = len;
	req.cmd.hca_va = (uintptr_t)addr;
	req.cmd.pd_handle = pd ? pd->handle : 0;
	req.cmd.access_flags = access;
	if (write(ctx->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return -1;
	*lkey = resp.lkey;
	*rkey = resp.rkey;
	return 0;
}

static void test_rereg(struct ibv_pd *pd, struct ibv_pd *pd2, char *buf,
		       char *buf2)
{
	struct ibv_context *ctx = pd->context;
	unsigned int lkey, rkey, old;
	struct ibv_mr *mr;
	char *ro;
	int ret;

	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	expect_ok("reg_mr for rereg", !!mr, errno);
	if (!mr)
		return;
	old = mr->lkey;

	ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			&lkey, &rkey);
	expect_ok("rereg_mr access", ret == 0, errno);
	expect_ok("rereg_mr draws a new key, index too",
		  !ret && lkey == rkey && lkey != old && lkey >> 8 != old >> 8, 0);
	old = lkey;

	ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0,
			&lkey, &rkey);
	expect_ok("rereg_mr PD", ret == 0, errno);
	expect_ok("rereg_mr PD draws a new key, index too",
		  !ret && lkey != old && lkey >> 8 != old >> 8, 0);
	ret = ibv_dealloc_pd(pd2);
	expect_errno("the MR's new PD cannot be freed", ret != 0, ret, EBUSY);

	ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf2,
			4096, 0, &lkey, &rkey);
	expect_ok("rereg_mr translation", ret == 0, errno);

	ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			IBV_ACCESS_REMOTE_WRITE, &lkey, &rkey);
	expect_errno("rereg_mr to remote write without local write", ret != 0,
		     errno, EINVAL);
	ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE,
			&lkey, &rkey);
	expect_errno("rereg_mr to on-demand paging", ret != 0, errno,
		     EOPNOTSUPP);
	ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf2,
			0, 0, &lkey, &rkey);
	expect_errno("rereg_mr to zero length", ret != 0, errno, EINVAL);

	/* granting write to pages pinned read-only needs a new pinning */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro != MAP_FAILED) {
		ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				IBV_REREG_MR_CHANGE_ACCESS, NULL, ro, 4096,
				IBV_ACCESS_REMOTE_READ, &lkey, &rkey);
		expect_ok("rereg_mr onto read-only memory, read-only", ret == 0,
			  errno);
		ret = raw_rereg(ctx, mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				0, IBV_ACCESS_LOCAL_WRITE, &lkey, &rkey);
		expect_errno("rereg_mr making read-only memory writable",
			     ret != 0, errno, EFAULT);
		munmap(ro, 4096);
	}

	ret = ibv_dereg_mr(mr);
	expect_ok("dereg re-registered MR", ret == 0, ret);
}

static void test_mrs(struct ibv_pd *pd, struct ibv_pd *pd2)
{
	struct ibv_mr *mrs[ARRAY_SIZE(combos)], *mr;
	size_t len = 3 * 4096 + 100, n = ARRAY_SIZE(combos);
	char name[96], *buf, *ro, *buf2;
	size_t i, j;
	int ret;

	buf = aligned_alloc(4096, 4 * 4096);
	buf2 = aligned_alloc(4096, 4096);
	if (!buf || !buf2) {
		/* its checks are failed as not reached */
		printf("no memory for the MR buffers\n");
		return;
	}
	memset(buf, 0, 4 * 4096);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "reg_mr access 0x%x", combos[i]);
		/* odd start and length: pages partly covered at both ends */
		mrs[i] = ibv_reg_mr(pd, buf + 10, len, combos[i]);
		expect_ok(name, !!mrs[i], errno);
		if (!mrs[i])
			continue;
		snprintf(name, sizeof(name), "lkey == rkey, not 0 (0x%x)", combos[i]);
		expect_ok(name, mrs[i]->lkey == mrs[i]->rkey && mrs[i]->lkey > 0xff, 0);
	}
	ret = 1;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (mrs[i] && mrs[j] && mrs[i]->lkey >> 8 == mrs[j]->lkey >> 8)
				ret = 0;
	expect_ok("MRs get distinct key indexes", ret, 0);

	ret = ibv_dealloc_pd(pd);
	expect_errno("PD with MRs cannot be freed", ret != 0, ret, EBUSY);

	for (i = 0; i < n; i++) {
		if (!mrs[i])
			continue;
		snprintf(name, sizeof(name), "dereg_mr access 0x%x", combos[i]);
		ret = ibv_dereg_mr(mrs[i]);
		expect_ok(name, ret == 0, ret);
	}

	/* bad input: each must fail with the errno the verbs promise */
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE);
	expect_errno("remote write without local write", !mr, errno, EINVAL);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_ATOMIC);
	expect_errno("remote atomic without local write", !mr, errno, EINVAL);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_ON_DEMAND);
	expect_errno("on-demand paging refused", !mr, errno, EOPNOTSUPP);
	mr = ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE);
	expect_errno("zero length refused", !mr, errno, EINVAL);
	mr = ibv_reg_mr_iova(pd, buf, 2 * 4096, UINT64_MAX & ~4095ULL,
			     IBV_ACCESS_LOCAL_WRITE);
	expect_errno("iova + length overflowing refused", !mr, errno, EINVAL);
	mr = ibv_reg_mr(pd, NULL, 4096, IBV_ACCESS_LOCAL_WRITE);
	expect_errno("unmapped address refused", !mr, errno, EFAULT);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro != MAP_FAILED) {
		mr = ibv_reg_mr(pd, ro, 4096, IBV_ACCESS_LOCAL_WRITE);
		expect_errno("writable MR of read-only memory refused", !mr,
			     errno, EFAULT);
		mr = ibv_reg_mr(pd, ro, 4096, IBV_ACCESS_REMOTE_READ);
		expect_ok("read-only MR of read-only memory", !!mr, errno);
		if (mr)
			ibv_dereg_mr(mr);
	}

	/* a huge iova, unrelated to the address, is fine if it does not wrap */
	mr = ibv_reg_mr_iova(pd, buf, 4096, 0xffffffff00000000ULL,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	expect_ok("reg_mr_iova at a high iova", !!mr, errno);
	if (!mr)
		goto out;

	ret = ibv_dereg_mr(mr);
	expect_ok("dereg high-iova MR", ret == 0, ret);
	test_rereg(pd, pd2, buf, buf2);
out:
	free(buf);
	free(buf2);
}

/* windows share the MRs' key space; binding needs the transport */
static void test_mws(struct ibv_pd *pd)
{
	struct ibv_mw *mw1, *mw2, *bad;
	struct ibv_mr *mr;
	char *buf;
	int ret;

	buf = aligned_alloc(4096, 4096);
	if (!buf)
		return;
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_MW_BIND);
	expect_ok("reg_mr with MW_BIND", !!mr, errno);
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	expect_ok("alloc_mw type 1", !!mw1, errno);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	expect_ok("alloc_mw type 2", !!mw2, errno);
	if (mr && mw1 && mw2)
		expect_ok("windows and MRs have distinct key indexes",
			  mw1->rkey >> 8 != mr->rkey >> 8 &&
			  mw2->rkey >> 8 != mr->rkey >> 8 &&
			  mw1->rkey >> 8 != mw2->rkey >> 8 &&
			  mw1->rkey > 0xff && mw2->rkey > 0xff, 0);
	errno = 0;
	bad = ibv_alloc_mw(pd, (enum ibv_mw_type)7);
	expect_fail("alloc_mw of an unknown type", !bad, errno);
	ret = ibv_dealloc_pd(pd);
	expect_errno("PD with windows cannot be freed", ret != 0, ret, EBUSY);
	if (mw1)
		expect_ok("dealloc_mw type 1", ibv_dealloc_mw(mw1) == 0, errno);
	if (mw2)
		expect_ok("dealloc_mw type 2", ibv_dealloc_mw(mw2) == 0, errno);
	if (mr)
		expect_ok("dereg MR after its windows", ibv_dereg_mr(mr) == 0,
			  errno);
	free(buf);
}

static void test_ahs(struct ibv_context *ctx, struct ibv_pd *pd,
		     const char *lip4, const char *pip4, const char *pip6,
		     const char *pll6)
{
	union ibv_gid sgid, dgid;
	struct ibv_ah *ah, *ah2;
	int idx, idx1;

	v4_gid(&sgid, lip4);
	idx = find_gid(ctx, IBV_GID_TYPE_ROCE_V2, &sgid);
	expect_ok("RoCE v2 GID of the local IPv4 address found", idx >= 0, 0);
	if (idx < 0)
		return;

	v4_gid(&dgid, pip4);
	ah = make_ah(pd, idx, &dgid, 1, 1);
	expect_ok("create_ah RoCE v2 / IPv4", !!ah, errno);
	ah2 = make_ah(pd, idx, &dgid, 1, 1);
	expect_ok("second AH to the same peer", !!ah2, errno);
	if (ah2)
		expect_ok("destroy_ah", ibv_destroy_ah(ah2) == 0, errno);

	inet_pton(AF_INET6, pip6, &dgid);
	errno = 0;
	ah2 = make_ah(pd, idx, &dgid, 1, 1);
	/* the IPv4 source GID cannot reach an IPv6 destination */
	expect_fail("create_ah mixing IPv4 source and IPv6 destination",
		    !ah2, errno);
	if (ah2)
		ibv_destroy_ah(ah2);

	/* RoCE v1: the default GID (link-local, EUI-64) at index 0 */
	inet_pton(AF_INET6, pll6, &dgid);
	idx1 = -1;
	{
		struct ibv_gid_entry e;

		if (!ibv_query_gid_ex(ctx, 1, 0, &e, 0) &&
		    e.gid_type == IBV_GID_TYPE_ROCE_V1)
			idx1 = 0;
	}
	expect_ok("RoCE v1 GID at index 0", idx1 == 0, 0);
	if (idx1 == 0) {
		ah2 = make_ah(pd, idx1, &dgid, 1, 1);
		expect_ok("create_ah RoCE v1 (link-local)", !!ah2, errno);
		if (ah2)
			expect_ok("destroy_ah v1", ibv_destroy_ah(ah2) == 0, errno);
	}

	v4_gid(&dgid, pip4);
	errno = 0;
	ah2 = make_ah(pd, 250, &dgid, 1, 1);
	expect_fail("create_ah with an empty GID index", !ah2, errno);
	errno = 0;
	ah2 = make_ah(pd, idx, &dgid, 2, 1);
	expect_fail("create_ah on port 2", !ah2, errno);
	errno = 0;
	ah2 = make_ah(pd, idx, &dgid, 1, 0);
	expect_fail("create_ah without GRH on RoCE", !ah2, errno);

	if (ah)
		expect_ok("destroy first AH", ibv_destroy_ah(ah) == 0, errno);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd, *pd2;
	int i, n;

	plan_checks();
	if (argc == 2 && !strcmp(argv[1], "--plan")) {
		printf("%d\n", plan_n);
		return 0;
	}
	if (argc != 6) {
		fprintf(stderr, "usage: %s DEV LOCAL_IPV4 PEER_IPV4 PEER_IPV6 PEER_LL_IPV6\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	expect_ok("open device", !!ctx, errno);
	if (!ctx)
		goto out;

	pd = ibv_alloc_pd(ctx);
	expect_ok("alloc_pd", !!pd, errno);
	pd2 = ibv_alloc_pd(ctx);
	expect_ok("alloc second pd", !!pd2, errno);
	if (!pd || !pd2)
		goto out;

	test_mrs(pd, pd2);
	test_mws(pd);
	test_ahs(ctx, pd, argv[2], argv[3], argv[4], argv[5]);

	expect_ok("dealloc_pd", ibv_dealloc_pd(pd) == 0, errno);
	expect_ok("dealloc second pd", ibv_dealloc_pd(pd2) == 0, errno);
	expect_ok("close device", ibv_close_device(ctx) == 0, errno);
out:
	failed += plan_finish("an earlier step failed");
	if (list)
		ibv_free_device_list(list);
	return failed ? 1 : 0;
}
