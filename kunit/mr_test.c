// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for memory keys and checked MR access: key encoding, the
 * number space keys and QPNs are drawn from, range checks against hostile iova/length values,
 * copies across page boundaries of page-array MRs built here (no device
 * needed), and the alignment and bounds rules of 8-byte atomics.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sort.h>
#include <rdma/ib_umem.h>

#include <sroce/device.h>
#include <sroce/mr.h>
#include <sroce/numspace.h>
#include <sroce/verbs.h>

#define TEST_NPAGES	3

struct sroce_mr_test_ctx {
	struct sroce_mr mr;
	struct page *pages[TEST_NPAGES];
	u64 fr_pages[TEST_NPAGES];
};

static void sroce_mr_test_common(struct sroce_mr *mr, u64 iova, u64 length)
{
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->done);
	mr->state = SROCE_MR_VALID;
	mr->iova = iova;
	mr->length = length;
	mr->page_shift = PAGE_SHIFT;
}

static void sroce_mr_test_free(void *data)
{
	struct sroce_mr_test_ctx *ctx = data;
	int i;

	for (i = 0; i < TEST_NPAGES; i++)
		if (ctx->pages[i])
			__free_page(ctx->pages[i]);
}

/*
 * A user-type MR over TEST_NPAGES zeroed pages, as reg_user_mr builds it:
 * @iova shares its in-page offset with the first byte of the pages.
 */
static struct sroce_mr *sroce_mr_test_pages(struct kunit *test, u64 iova,
					    u64 length)
{
	struct sroce_mr_test_ctx *ctx;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	i = kunit_add_action_or_reset(test, sroce_mr_test_free, ctx);
	KUNIT_ASSERT_EQ(test, i, 0);
	for (i = 0; i < TEST_NPAGES; i++) {
		ctx->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, ctx->pages[i]);
	}
	sroce_mr_test_common(&ctx->mr, iova, length);
	ctx->mr.type = SROCE_MR_USER;
	ctx->mr.pages = ctx->pages;
	ctx->mr.page_off = offset_in_page(iova);
	ctx->mr.npages = TEST_NPAGES;
	ctx->mr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	return &ctx->mr;
}

static void sroce_mr_key_encode(struct kunit *test)
{
	u32 key = sroce_key_make(0x12345, 0xab);

	KUNIT_EXPECT_EQ(test, key, 0x012345ab);
	KUNIT_EXPECT_EQ(test, sroce_key_index(key), 0x12345);
	KUNIT_EXPECT_EQ(test, sroce_key_byte(key), 0xab);
	KUNIT_EXPECT_EQ(test, sroce_key_index(sroce_key_make(SROCE_MAX_KEYS - 1, 0)),
			SROCE_MAX_KEYS - 1);
	/* the whole 24-bit index survives */
	KUNIT_EXPECT_EQ(test, sroce_key_index(0xffffffff), 0xffffff);
	KUNIT_EXPECT_EQ(test, sroce_key_make(1, 0), 0x100);
}

/* what ib_inc_rkey() does for a consumer: the next key byte, same index */
static u32 sroce_mr_test_key_bump(u32 key)
{
	return sroce_key_make(sroce_key_index(key), sroce_key_byte(key) + 1);
}

static int sroce_mr_test_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

#define TEST_DRAWS	65536

/*
 * The number space: its draws are 24-bit numbers, none twice in a row of
 * TEST_DRAWS, with no constant step between them, and another secret
 * gives another sequence.
 */
static void sroce_mr_numspace_draws(struct kunit *test)
{
	struct sroce_numspace a, b;
	unsigned int steps = 0, same = 0, dups = 0, i;
	u32 *n;

	n = kunit_kmalloc_array(test, TEST_DRAWS, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	sroce_numspace_init(&a);
	sroce_numspace_init(&b);
	for (i = 0; i < TEST_DRAWS; i++) {
		n[i] = sroce_num_draw(&a);
		KUNIT_EXPECT_LE(test, n[i], SROCE_NUM_MASK);
		if (i >= 2 && n[i] - n[i - 1] == n[i - 1] - n[i - 2])
			steps++;
		if (n[i] == sroce_num_draw(&b))
			same++;
	}
	/* a constant step would repeat every time; chance gives ~0 */
	KUNIT_EXPECT_LT(test, steps, 4);
	KUNIT_EXPECT_LT(test, same, 4);

	sort(n, TEST_DRAWS, sizeof(*n), sroce_mr_test_cmp_u32, NULL);
	for (i = 1; i < TEST_DRAWS; i++)
		dups += n[i] == n[i - 1];
	KUNIT_EXPECT_EQ(test, dups, 0);
	/* drawn across the whole space, not from a corner of it */
	KUNIT_EXPECT_LT(test, n[0], 0x1000);
	KUNIT_EXPECT_GT(test, n[TEST_DRAWS - 1], SROCE_NUM_MASK - 0x1000);
}

/* The permutation itself is a fixed function of its secret and input */
static void sroce_mr_numspace_permute(struct kunit *test)
{
	hsiphash_key_t k1 = { .key = { 1, 2 } }, k2 = { .key = { 1, 3 } };
	unsigned int diff = 0;
	u32 x;

	for (x = 0; x < 256; x++) {
		KUNIT_EXPECT_EQ(test, sroce_num_permute(&k1, x),
				sroce_num_permute(&k1, x));
		diff += sroce_num_permute(&k1, x) != sroce_num_permute(&k2, x);
	}
	KUNIT_EXPECT_GT(test, diff, 250);
	/* only the low 24 bits of the input count, the output fits them */
	KUNIT_EXPECT_EQ(test, sroce_num_permute(&k1, 0x1000005),
			sroce_num_permute(&k1, 5));
	KUNIT_EXPECT_LE(test, sroce_num_permute(&k1, 0xffffff), SROCE_NUM_MASK);
}

static void sroce_mr_access_flags(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(IB_ACCESS_LOCAL_WRITE |
						     IB_ACCESS_REMOTE_WRITE |
						     IB_ACCESS_REMOTE_READ |
						     IB_ACCESS_REMOTE_ATOMIC |
						     IB_ACCESS_MW_BIND), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(IB_ACCESS_REMOTE_READ |
						     IB_ACCESS_RELAXED_ORDERING), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(IB_ACCESS_REMOTE_WRITE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(IB_ACCESS_REMOTE_ATOMIC),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(IB_ACCESS_ON_DEMAND),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(IB_ZERO_BASED), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(IB_ACCESS_FLUSH_GLOBAL),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(BIT(30)), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_access(-1), -EOPNOTSUPP);
}

static void sroce_mr_range_hostile(struct kunit *test)
{
	struct sroce_mr mr = {};

	sroce_mr_test_common(&mr, 0x1000, 0x3000);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x1000, 0x3000), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x3fff, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x1000, 0x3001), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x4000, 1), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0xfff, 1), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0xfff, 2), -EFAULT);
	/* zero length: anywhere from the first byte to one past the last */
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x1000, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x4000, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x4001, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0, 0), -EFAULT);
	/* lengths that would wrap iova + len back into the MR */
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x2000, U64_MAX), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x2000,
						   U64_MAX - 0x2000 + 0x1001),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, U64_MAX, 0x1002), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, U64_MAX, 1), -EFAULT);

	/* an MR ending at the top of the address space */
	sroce_mr_test_common(&mr, U64_MAX - 0xfff, 0x1000);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, U64_MAX, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, U64_MAX, 2), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, U64_MAX - 0xfff, 0x1000), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, U64_MAX - 0xfff, 0x1001),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0, 0x10), -EFAULT);

	/* the DMA MR's whole-address-space range still refuses wrapping */
	sroce_mr_test_common(&mr, 0, U64_MAX);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, U64_MAX - 3, 8), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x1000, U64_MAX), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_check_range(&mr, 0x1000, 0x1000), 0);
}

static void sroce_mr_copy_across_pages(struct kunit *test)
{
	u64 iova = 0x7f0000001000ULL + 100, len = TEST_NPAGES * PAGE_SIZE - 150;
	struct sroce_mr *mr = sroce_mr_test_pages(test, iova, len);
	u8 *buf, *back;
	u32 i;

	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	back = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, back);
	for (i = 0; i < len; i++)
		buf[i] = i * 7 + 3;

	KUNIT_ASSERT_EQ(test, sroce_mr_copy(mr, iova, buf, len,
					    SROCE_COPY_TO_MR), 0);
	/* byte i of the MR is byte 100 + i of the page run */
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(mr->pages[0]))[100], buf[0]);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(mr->pages[0]))[99], 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(mr->pages[1]))[0],
			buf[PAGE_SIZE - 100]);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(mr->pages[2]))[PAGE_SIZE - 51],
			buf[len - 1]);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(mr->pages[2]))[PAGE_SIZE - 50], 0);

	KUNIT_ASSERT_EQ(test, sroce_mr_copy(mr, iova, back, len,
					    SROCE_COPY_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf, back, len), 0);

	/* 8 bytes straddling the first page boundary */
	memset(back, 0, 8);
	KUNIT_ASSERT_EQ(test, sroce_mr_copy(mr, iova + PAGE_SIZE - 104, back, 8,
					    SROCE_COPY_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(back, buf + PAGE_SIZE - 104, 8), 0);

	/* out of bounds: nothing is copied */
	memset(back, 0x5a, 16);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, iova + len - 4, back, 8,
					    SROCE_COPY_FROM_MR), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, iova - 1, back, 8,
					    SROCE_COPY_TO_MR), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, U64_MAX, back, 2,
					    SROCE_COPY_TO_MR), -EFAULT);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(mr->pages[0]))[99], 0);
	KUNIT_EXPECT_EQ(test, back[0], 0x5a);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, iova + len, back, 0,
					    SROCE_COPY_TO_MR), 0);
}

static void sroce_mr_copy_read_only(struct kunit *test)
{
	struct sroce_mr *mr = sroce_mr_test_pages(test, 0x10000, PAGE_SIZE);
	struct ib_umem *umem;
	u8 b = 1;

	umem = kunit_kzalloc(test, sizeof(*umem), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, umem);
	/* pages pinned without write access are never written */
	mr->umem = umem;
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, 0x10000, &b, 1,
					    SROCE_COPY_TO_MR), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, 0x10000, &b, 1,
					    SROCE_COPY_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, b, 0);
	umem->writable = 1;
	b = 9;
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, 0x10000, &b, 1,
					    SROCE_COPY_TO_MR), 0);
	mr->umem = NULL;
}

static void sroce_mr_page_lookup(struct kunit *test)
{
	u64 iova = 0x5000 + 0x10;
	struct sroce_mr *mr = sroce_mr_test_pages(test, iova, 2 * PAGE_SIZE);
	u32 off = 0;

	KUNIT_EXPECT_PTR_EQ(test, sroce_mr_page(mr, iova, &off), mr->pages[0]);
	KUNIT_EXPECT_EQ(test, off, 0x10);
	KUNIT_EXPECT_PTR_EQ(test, sroce_mr_page(mr, iova + PAGE_SIZE - 0x10, &off),
			    mr->pages[1]);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_PTR_EQ(test, sroce_mr_page(mr, iova + 2 * PAGE_SIZE - 1, &off),
			    mr->pages[2]);
	KUNIT_EXPECT_EQ(test, off, 0xf);
	KUNIT_EXPECT_NULL(test, sroce_mr_page(mr, iova + 2 * PAGE_SIZE, &off));
	KUNIT_EXPECT_NULL(test, sroce_mr_page(mr, iova - 1, &off));
}

static void sroce_mr_atomic_alignment(struct kunit *test)
{
	u64 iova = 0x20000, orig = 0, *word;
	struct sroce_mr *mr = sroce_mr_test_pages(test, iova, 2 * PAGE_SIZE);

	word = page_address(mr->pages[0]);
	word[1] = 40;

	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 8, SROCE_ATOMIC_FETCH_ADD,
					      2, 0, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 40);
	KUNIT_EXPECT_EQ(test, word[1], 42);

	/* compare fails: memory unchanged, original returned */
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 8, SROCE_ATOMIC_CMP_SWAP,
					      41, 7, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 42);
	KUNIT_EXPECT_EQ(test, word[1], 42);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 8, SROCE_ATOMIC_CMP_SWAP,
					      42, 7, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 42);
	KUNIT_EXPECT_EQ(test, word[1], 7);

	/* ATOMIC WRITE: the word replaced whole, its neighbours untouched */
	word[3] = 5;
	word[5] = 6;
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 32, SROCE_ATOMIC_WRITE,
					      0x0102030405060708ULL, 0, &orig),
			0);
	KUNIT_EXPECT_EQ(test, word[4], 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, word[3], 5);
	KUNIT_EXPECT_EQ(test, word[5], 6);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 36, SROCE_ATOMIC_WRITE,
					      1, 0, &orig), -EINVAL);
	KUNIT_EXPECT_EQ(test, word[4], 0x0102030405060708ULL);

	/* fetch-add wraps like the hardware's */
	word[2] = U64_MAX;
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 16, SROCE_ATOMIC_FETCH_ADD,
					      2, 0, &orig), 0);
	KUNIT_EXPECT_EQ(test, word[2], 1);

	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 4, SROCE_ATOMIC_FETCH_ADD,
					      1, 0, &orig), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + PAGE_SIZE - 1,
					      SROCE_ATOMIC_CMP_SWAP, 0, 1, &orig),
			-EINVAL);
	/* the last word is in, the one after it is not */
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 2 * PAGE_SIZE - 8,
					      SROCE_ATOMIC_FETCH_ADD, 1, 0, &orig),
			0);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova + 2 * PAGE_SIZE,
					      SROCE_ATOMIC_FETCH_ADD, 1, 0, &orig),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, iova - 8, SROCE_ATOMIC_FETCH_ADD,
					      1, 0, &orig), -EFAULT);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(mr, U64_MAX - 7,
					      SROCE_ATOMIC_FETCH_ADD, 1, 0, &orig),
			-EFAULT);
}

/* IB_WR_REG_MR over a staged page list, then copies through it */
static void sroce_mr_fast_reg_pages(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx;
	struct sroce_mr *mr;
	u8 in[16], out[16];
	u32 key;
	int i;

	mr = sroce_mr_test_pages(test, 0, 0);
	ctx = container_of(mr, struct sroce_mr_test_ctx, mr);
	for (i = 0; i < TEST_NPAGES; i++)
		ctx->fr_pages[i] = (uintptr_t)page_address(ctx->pages[i]);
	mr->type = SROCE_MR_FAST;
	mr->state = SROCE_MR_FREE;
	mr->pages = NULL;
	mr->npages = 0;
	mr->fr_pages = ctx->fr_pages;
	mr->fr_max = TEST_NPAGES;
	/* what map_mr_sg leaves behind for two pages from offset 0x20 */
	mr->fr_mapped = 2;
	mr->fr_map_off = 0x20;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->ibmr.iova = 0xffff888000000020ULL;
	mr->ibmr.length = 2 * PAGE_SIZE - 0x20;
	key = sroce_key_make(5, 1);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;

	/* the key may change its byte, not its index */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, sroce_key_make(6, 2), 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, sroce_key_make(5, 2),
						IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(mr, sroce_key_make(5, 2),
						IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, mr->ibmr.rkey, sroce_key_make(5, 2));
	KUNIT_EXPECT_EQ(test, mr->state, SROCE_MR_VALID);
	/* registering a valid MR again is refused */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, sroce_key_make(5, 3),
						IB_ACCESS_LOCAL_WRITE), -EINVAL);

	for (i = 0; i < 16; i++)
		in[i] = 0xa0 + i;
	KUNIT_ASSERT_EQ(test, sroce_mr_copy(mr, mr->iova + PAGE_SIZE - 0x28, in,
					    16, SROCE_COPY_TO_MR), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(ctx->pages[0]))[PAGE_SIZE - 8],
			0xa0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(ctx->pages[1]))[7], 0xaf);
	KUNIT_ASSERT_EQ(test, sroce_mr_copy(mr, mr->iova + PAGE_SIZE - 0x28, out,
					    16, SROCE_COPY_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, 16), 0);
	/* the third page was never mapped into the MR */
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(mr, mr->iova + 2 * PAGE_SIZE - 0x20,
					    out, 1, SROCE_COPY_FROM_MR), -EFAULT);

	/* a length beyond the mapped pages is refused at registration */
	mr->state = SROCE_MR_FREE;
	mr->ibmr.length = 2 * PAGE_SIZE - 0x1f;
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, sroce_key_make(5, 4),
						IB_ACCESS_LOCAL_WRITE), -EINVAL);
}

static void sroce_mr_test_tables_fini(void *data)
{
	sroce_tables_fini(data);
}

/*
 * The key table and sroce_mr_lookup() on a bare sroce_dev: no ib_device is
 * registered, the table and the checks do not need one.
 */
static void sroce_mr_lookup_checks(struct kunit *test)
{
	struct sroce_pd *pd, *pd2;
	struct sroce_dev *sdev;
	struct sroce_mr *mr, *got;
	u32 index, index2, key;
	int dummy_mw;

	sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	pd2 = kunit_kzalloc(test, sizeof(*pd2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, pd2);
	KUNIT_ASSERT_EQ(test, sroce_tables_init(sdev), 0);
	index = kunit_add_action_or_reset(test, sroce_mr_test_tables_fini, sdev);
	KUNIT_ASSERT_EQ(test, index, 0);
	pd->ibpd.device = &sdev->ib_dev;
	pd2->ibpd.device = &sdev->ib_dev;

	mr = sroce_mr_test_pages(test, 0x1000, PAGE_SIZE);
	mr->pd = pd;
	mr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, sroce_key_reserve(sdev, &index), 0);
	KUNIT_EXPECT_NE(test, index, 0);
	key = sroce_key_make(index, 0x42);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	/* reserved but not yet published: invisible */
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, key, pd, 0, false));
	sroce_key_publish(sdev, index, mr, SROCE_KEY_MR);

	got = sroce_mr_lookup(sdev, key, pd, IB_ACCESS_REMOTE_READ, true);
	KUNIT_EXPECT_PTR_EQ(test, got, mr);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 2);
	if (got)
		sroce_mr_put(got);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1);

	/* each check on its own refuses, and leaves no reference behind */
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, key ^ 1, pd, 0, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, key, pd2, 0, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, key, pd,
						IB_ACCESS_REMOTE_WRITE, true));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, 0, pd, 0, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, 0xff, pd, 0, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, U32_MAX, pd, 0, false));
	mr->state = SROCE_MR_FREE;
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, key, pd, 0, false));
	mr->state = SROCE_MR_VALID;
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1);

	/* a window's key is never taken for an MR's */
	KUNIT_ASSERT_EQ(test, sroce_key_reserve(sdev, &index2), 0);
	KUNIT_EXPECT_NE(test, index2, index);
	sroce_key_publish(sdev, index2, &dummy_mw, SROCE_KEY_MW);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, sroce_key_make(index2, 0),
						pd, 0, false));
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, sroce_key_load_rcu(sdev, sroce_key_make(index2, 7),
						     SROCE_KEY_MW), (void *)&dummy_mw);
	rcu_read_unlock();

	/* only fast-reg MRs of the right PD and key can be invalidated */
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, key), -EINVAL);
	mr->type = SROCE_MR_FAST;
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd2, key), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, key + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, key), 0);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(sdev, key, pd, 0, false));
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, key), -EINVAL);
	mr->type = SROCE_MR_USER;

	/* after free the key misses, and the index is not handed out again */
	sroce_key_free(sdev, index);
	sroce_key_free(sdev, index2);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, sroce_key_load_rcu(sdev, key, SROCE_KEY_MR));
	rcu_read_unlock();
	KUNIT_ASSERT_EQ(test, sroce_key_reserve(sdev, &index2), 0);
	KUNIT_EXPECT_NE(test, index2, index);
	sroce_key_free(sdev, index2);

	/* the last key below the limit, then none, and the count stays */
	atomic_set(&sdev->num_keys, SROCE_MAX_KEYS - 2);
	KUNIT_ASSERT_EQ(test, sroce_key_reserve(sdev, &index2), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&sdev->num_keys), SROCE_MAX_KEYS - 1);
	KUNIT_EXPECT_EQ(test, sroce_key_reserve(sdev, &index), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_read(&sdev->num_keys), SROCE_MAX_KEYS - 1);
	/* a re-registration's swap is not counted, so it works at the limit */
	KUNIT_ASSERT_EQ(test, sroce_key_draw(sdev, &index), 0);
	KUNIT_EXPECT_NE(test, index, index2);
	sroce_key_erase(sdev, index2);
	KUNIT_EXPECT_EQ(test, atomic_read(&sdev->num_keys), SROCE_MAX_KEYS - 1);
	sroce_key_free(sdev, index);
	KUNIT_EXPECT_EQ(test, atomic_read(&sdev->num_keys), SROCE_MAX_KEYS - 2);
	atomic_set(&sdev->num_keys, 0);
}

/* Binding, using and invalidating windows, on a bare sroce_dev. */
static void sroce_mr_window_bind(struct kunit *test)
{
	const int rw = IB_ACCESS_REMOTE_WRITE;
	struct sroce_mr *mr, *plain, *got;
	struct sroce_pd *pd, *pd2;
	struct sroce_dev *sdev;
	struct sroce_mw *mw;
	u32 index, key, wkey, wkey2;
	int ret;

	sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	pd2 = kunit_kzalloc(test, sizeof(*pd2), GFP_KERNEL);
	mw = kunit_kzalloc(test, sizeof(*mw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, pd2);
	KUNIT_ASSERT_NOT_NULL(test, mw);
	KUNIT_ASSERT_EQ(test, sroce_tables_init(sdev), 0);
	ret = kunit_add_action_or_reset(test, sroce_mr_test_tables_fini, sdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	pd->ibpd.device = &sdev->ib_dev;
	pd2->ibpd.device = &sdev->ib_dev;

	/* an MR that allows windows, one that does not */
	mr = sroce_mr_test_pages(test, 0x10000, 2 * PAGE_SIZE);
	mr->pd = pd;
	mr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND;
	KUNIT_ASSERT_EQ(test, sroce_key_reserve(sdev, &index), 0);
	key = sroce_key_make(index, 1);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	sroce_key_publish(sdev, index, mr, SROCE_KEY_MR);
	plain = sroce_mr_test_pages(test, 0x10000, PAGE_SIZE);
	plain->pd = pd;
	plain->access = IB_ACCESS_LOCAL_WRITE;

	/* a type 2 window, as alloc_mw leaves it */
	spin_lock_init(&mw->lock);
	mw->ibmw.type = IB_MW_TYPE_2;
	mw->ibmw.pd = &pd->ibpd;
	KUNIT_ASSERT_EQ(test, sroce_key_reserve(sdev, &index), 0);
	wkey = sroce_key_make(index, 9);
	mw->ibmw.rkey = wkey;
	sroce_key_publish(sdev, index, &mw->ibmw, SROCE_KEY_MW);
	wkey2 = sroce_mr_test_key_bump(wkey);

	/* refusals: key index, PD, MR rights, range, rights asked */
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey, key, pd, 7, mr,
					    0x10000, 16, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd2, 7, mr,
					    0x10000, 16, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd, 7, plain,
					    0x10000, 16, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd, 7, mr,
					    0x10000 + 2 * PAGE_SIZE - 8, 16, rw),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd, 7, mr,
					    0x10000, U64_MAX, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd, 7, mr,
					    0x10000, 16, IB_ACCESS_MW_BIND),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey2, wkey2, pd, 7, mr,
					    0x10000, 16, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, mr->num_mw, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1);

	KUNIT_ASSERT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd, 7, mr,
					    0x10100, 0x100, rw), 0);
	KUNIT_EXPECT_EQ(test, mr->num_mw, 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 2);
	/* a bound type 2 window is not bound again */
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey2, sroce_mr_test_key_bump(wkey2),
					    pd, 7, mr, 0x10000, 16, rw), -EINVAL);

	/* access through the window: its range, rights, QP and key only */
	got = sroce_rkey_lookup(sdev, wkey2, pd, 7, rw, 0x10100, 0x100);
	KUNIT_EXPECT_PTR_EQ(test, got, mr);
	if (got)
		sroce_mr_put(got);
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey2, pd, 7, rw,
						  0x100ff, 2));
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey2, pd, 7, rw,
						  0x10100, 0x101));
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey2, pd, 8, rw,
						  0x10100, 8));
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey2, pd2, 7, rw,
						  0x10100, 8));
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey2, pd, 7,
						  IB_ACCESS_REMOTE_READ,
						  0x10100, 8));
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey, pd, 7, rw,
						  0x10100, 8));
	/* the MR's own key grants no remote access it lacks */
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, key, pd, 7, rw,
						  0x10100, 8));
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 2);

	/* invalidation by key unbinds and lets go of the MR */
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd2, wkey2), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, wkey), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, wkey2), 0);
	KUNIT_EXPECT_EQ(test, mr->num_mw, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1);
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey2, pd, 7, rw,
						  0x10100, 8));
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, wkey2), -EINVAL);

	/* type 1: bound again in place, never invalidated by key */
	mw->ibmw.type = IB_MW_TYPE_1;
	KUNIT_ASSERT_EQ(test, sroce_mw_bind(sdev, wkey2, wkey, pd, 7, mr,
					    0x10000, 8, IB_ACCESS_REMOTE_READ), 0);
	KUNIT_ASSERT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd, 7, mr,
					    0x10008, 8, IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, mr->num_mw, 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 2);
	got = sroce_rkey_lookup(sdev, wkey2, pd, 99, IB_ACCESS_REMOTE_READ,
				0x10008, 8);
	KUNIT_EXPECT_PTR_EQ(test, got, mr);
	if (got)
		sroce_mr_put(got);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, wkey2), -EINVAL);

	/* a zero-length type 1 bind unbinds, and the key still moves on */
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey2, wkey, pd, 7, NULL,
					    0x10000, 8, IB_ACCESS_REMOTE_READ),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, sroce_mw_bind(sdev, wkey2, wkey, pd, 7, NULL,
					    0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, mr->num_mw, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1);
	KUNIT_EXPECT_EQ(test, mw->ibmw.rkey, wkey);
	KUNIT_EXPECT_NULL(test, sroce_rkey_lookup(sdev, wkey, pd, 7,
						  IB_ACCESS_REMOTE_READ,
						  0x10008, 8));
	KUNIT_ASSERT_EQ(test, sroce_mw_bind(sdev, wkey, wkey2, pd, 7, mr,
					    0x10008, 8, IB_ACCESS_REMOTE_READ), 0);

	/* a type 2 window is never bound to nothing */
	mw->ibmw.type = IB_MW_TYPE_2;
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, wkey2), 0);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind(sdev, wkey2, wkey, pd, 7, NULL,
					    0, 0, 0), -EINVAL);

	/* dealloc_mw's unbinding, done by hand on this bare window */
	KUNIT_ASSERT_EQ(test, sroce_mw_bind(sdev, wkey2, wkey, pd, 7, mr,
					    0x10008, 8, IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(pd, wkey), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1);
	sroce_key_free(sdev, sroce_key_index(key));
	sroce_key_free(sdev, index);
}

static struct kunit_case sroce_mr_test_cases[] = {
	KUNIT_CASE(sroce_mr_key_encode),
	KUNIT_CASE(sroce_mr_numspace_draws),
	KUNIT_CASE(sroce_mr_numspace_permute),
	KUNIT_CASE(sroce_mr_access_flags),
	KUNIT_CASE(sroce_mr_range_hostile),
	KUNIT_CASE(sroce_mr_copy_across_pages),
	KUNIT_CASE(sroce_mr_copy_read_only),
	KUNIT_CASE(sroce_mr_page_lookup),
	KUNIT_CASE(sroce_mr_atomic_alignment),
	KUNIT_CASE(sroce_mr_fast_reg_pages),
	KUNIT_CASE(sroce_mr_lookup_checks),
	KUNIT_CASE(sroce_mr_window_bind),
	{}
};

static struct kunit_suite sroce_mr_test_suite = {
	.name = "sroce_mr",
	.test_cases = sroce_mr_test_cases,
};

kunit_test_suites(&sroce_mr_test_suite);
