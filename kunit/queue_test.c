// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the shared rings: geometry, full/empty/count, and what
 * happens when userspace writes hostile values into the index it owns
 * (out of range, equal to ours, wrapped, moving between two reads).
 * Every slot address must stay inside the buffer whatever it wrote.
 */
#include <kunit/test.h>
#include <linux/cache.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <sroce/queue.h>

static void sroce_queue_free_action(void *q)
{
	sroce_queue_free(q);
}

/* A queue freed when the test ends, however it ends. */
static struct sroce_queue *sroce_queue_new(struct kunit *test, u32 depth,
					   size_t elem_size,
					   enum sroce_queue_dir dir, bool user)
{
	struct sroce_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, sroce_queue_init(q, depth, elem_size, dir, user),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							sroce_queue_free_action,
							q), 0);
	return q;
}

/* The slot must lie wholly in the data area, on a slot boundary. */
static void sroce_expect_in_ring(struct kunit *test,
				 const struct sroce_queue *q, const void *p)
{
	const u8 *data = q->buf->data;
	size_t off = (const u8 *)p - data;

	KUNIT_EXPECT_TRUE(test, (const u8 *)p >= data);
	KUNIT_EXPECT_LE(test, off + sroce_queue_elem_size(q),
			q->buf_size - sizeof(struct sroce_queue_buf));
	KUNIT_EXPECT_EQ(test, off & (sroce_queue_elem_size(q) - 1), 0);
}

static void sroce_queue_geometry(struct kunit *test)
{
	struct sroce_queue *q;

	q = sroce_queue_new(test, 1, 1, SROCE_QUEUE_TO_CLIENT, false);
	KUNIT_EXPECT_EQ(test, q->index_mask, 1);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 1);
	KUNIT_EXPECT_EQ(test, sroce_queue_elem_size(q), SMP_CACHE_BYTES);

	/* a ring of 4 slots holds 3: depth 3 fits, depth 4 needs 8 slots */
	q = sroce_queue_new(test, 3, 48, SROCE_QUEUE_TO_CLIENT, true);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 3);
	q = sroce_queue_new(test, 4, 48, SROCE_QUEUE_TO_CLIENT, true);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 7);
	KUNIT_EXPECT_EQ(test, sroce_queue_elem_size(q),
			max(64, SMP_CACHE_BYTES));

	q = sroce_queue_new(test, 100, 200, SROCE_QUEUE_FROM_CLIENT, true);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 127);
	KUNIT_EXPECT_EQ(test, sroce_queue_elem_size(q), 256);
	KUNIT_EXPECT_EQ(test, q->buf_size, 384 + 128 * 256);
	/* what librxe reads from the header */
	KUNIT_EXPECT_EQ(test, q->buf->log2_elem_size, 8);
	KUNIT_EXPECT_EQ(test, q->buf->index_mask, 127);
	KUNIT_EXPECT_EQ(test, q->buf->producer_index, 0);
	KUNIT_EXPECT_EQ(test, q->buf->consumer_index, 0);
	KUNIT_EXPECT_TRUE(test, sroce_queue_empty(q));
}

static void sroce_queue_bad_sizes(struct kunit *test)
{
	struct sroce_queue q;

	KUNIT_EXPECT_EQ(test, sroce_queue_init(&q, 0, 64, SROCE_QUEUE_TO_CLIENT,
					       true), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&q, 8, 0, SROCE_QUEUE_TO_CLIENT,
					       true), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&q, U32_MAX, 64,
					       SROCE_QUEUE_TO_CLIENT, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&q, SROCE_QUEUE_MAX_SLOTS, 64,
					       SROCE_QUEUE_TO_CLIENT, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&q, 8, SROCE_QUEUE_MAX_ELEM + 1,
					       SROCE_QUEUE_TO_CLIENT, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&q, 8, SIZE_MAX,
					       SROCE_QUEUE_TO_CLIENT, true),
			-EINVAL);
	/* a failed init leaves nothing to free, and freeing is harmless */
	KUNIT_EXPECT_NULL(test, q.buf);
	sroce_queue_free(&q);
}

/* The kernel fills a CQ-like ring; the user's consumer index is honoured. */
static void sroce_queue_to_client_full_empty(struct kunit *test)
{
	struct sroce_queue *q;
	u32 i;

	q = sroce_queue_new(test, 7, 64, SROCE_QUEUE_TO_CLIENT, true);
	for (i = 0; i < 7; i++) {
		KUNIT_EXPECT_FALSE(test, sroce_queue_full(q));
		KUNIT_EXPECT_EQ(test, sroce_queue_count(q), i);
		*(u32 *)sroce_queue_producer_addr(q) = i;
		sroce_queue_advance_producer(q);
		KUNIT_EXPECT_EQ(test, q->buf->producer_index, i + 1);
	}
	KUNIT_EXPECT_TRUE(test, sroce_queue_full(q));
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 7);

	/* the user consumes two: room for two more, and the index wraps */
	WRITE_ONCE(q->buf->consumer_index, 2);
	KUNIT_EXPECT_FALSE(test, sroce_queue_full(q));
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 5);
	sroce_queue_advance_producer(q);
	sroce_queue_advance_producer(q);
	KUNIT_EXPECT_EQ(test, q->buf->producer_index, 1);
	KUNIT_EXPECT_TRUE(test, sroce_queue_full(q));

	/* the user consumes everything */
	WRITE_ONCE(q->buf->consumer_index, 1);
	KUNIT_EXPECT_TRUE(test, sroce_queue_empty(q));
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 0);
}

/* Whatever userspace writes, the kernel's view stays in range. */
static void sroce_queue_hostile_consumer(struct kunit *test)
{
	static const u32 bad[] = {
		8, 9, 15, 0x80000000, 0x80000003, 0xfffffff8, U32_MAX,
	};
	struct sroce_queue *q;
	unsigned int i;

	q = sroce_queue_new(test, 7, 64, SROCE_QUEUE_TO_CLIENT, true);
	sroce_queue_advance_producer(q);
	sroce_queue_advance_producer(q);
	sroce_queue_advance_producer(q);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		WRITE_ONCE(q->buf->consumer_index, bad[i]);
		KUNIT_EXPECT_EQ(test, sroce_queue_cons(q), bad[i] & 7);
		KUNIT_EXPECT_LE(test, sroce_queue_count(q), 7);
		KUNIT_EXPECT_EQ(test, sroce_queue_count(q),
				(3 - bad[i]) & 7);
		sroce_expect_in_ring(test, q, sroce_queue_producer_addr(q));
	}

	/* equal to the producer (modulo the ring): empty, not "full" */
	WRITE_ONCE(q->buf->consumer_index, 3 + 8 * 1000);
	KUNIT_EXPECT_TRUE(test, sroce_queue_empty(q));
	KUNIT_EXPECT_FALSE(test, sroce_queue_full(q));
	/* one ahead of the producer: full, so the kernel must not write */
	WRITE_ONCE(q->buf->consumer_index, 4 | 0x100);
	KUNIT_EXPECT_TRUE(test, sroce_queue_full(q));

	/* the kernel never takes its own index from the buffer */
	WRITE_ONCE(q->buf->producer_index, U32_MAX);
	KUNIT_EXPECT_EQ(test, sroce_queue_prod(q), 3);
	/* nor the geometry */
	WRITE_ONCE(q->buf->index_mask, U32_MAX);
	WRITE_ONCE(q->buf->log2_elem_size, 31);
	sroce_expect_in_ring(test, q, sroce_queue_producer_addr(q));
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 7);
}

/* The user fills an SQ-like ring; the kernel consumes. */
static void sroce_queue_from_client(struct kunit *test)
{
	static const u32 bad[] = { 16, 17, 0x40000005, U32_MAX };
	struct sroce_queue *q;
	unsigned int i;
	u32 n = 0;

	q = sroce_queue_new(test, 15, 64, SROCE_QUEUE_FROM_CLIENT, true);
	KUNIT_EXPECT_TRUE(test, sroce_queue_empty(q));

	for (i = 0; i < 5; i++)
		*(u32 *)sroce_queue_addr(q, i) = 100 + i;
	WRITE_ONCE(q->buf->producer_index, 5);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 5);
	while (!sroce_queue_empty(q)) {
		KUNIT_EXPECT_EQ(test, *(u32 *)sroce_queue_consumer_addr(q),
				100 + n);
		sroce_queue_advance_consumer(q);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, q->buf->consumer_index, 5);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		WRITE_ONCE(q->buf->producer_index, bad[i]);
		KUNIT_EXPECT_EQ(test, sroce_queue_prod(q), bad[i] & 15);
		KUNIT_EXPECT_EQ(test, sroce_queue_count(q),
				(bad[i] - 5) & 15);
		sroce_expect_in_ring(test, q, sroce_queue_consumer_addr(q));
	}

	/* a consumer index the user writes is ignored */
	WRITE_ONCE(q->buf->producer_index, 7);
	WRITE_ONCE(q->buf->consumer_index, 0xdead);
	KUNIT_EXPECT_EQ(test, sroce_queue_cons(q), 5);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 2);
}

/*
 * The user moves its producer index while the kernel drains the ring,
 * backwards and past the kernel's consumer: the kernel consumes at most
 * a ring's worth and never leaves the buffer.
 */
static void sroce_queue_producer_racing(struct kunit *test)
{
	static const u32 moves[] = { 3, 1, 0, 6, 2, 7, 4, 5, 0x1000, 2 };
	struct sroce_queue *q;
	unsigned int i, steps = 0;

	q = sroce_queue_new(test, 7, 64, SROCE_QUEUE_FROM_CLIENT, true);
	WRITE_ONCE(q->buf->producer_index, 6);
	for (i = 0; !sroce_queue_empty(q) && steps < 64; steps++) {
		KUNIT_EXPECT_LE(test, sroce_queue_count(q), 7);
		sroce_expect_in_ring(test, q, sroce_queue_consumer_addr(q));
		sroce_queue_advance_consumer(q);
		KUNIT_EXPECT_LE(test, q->cons, 7);
		if (i < ARRAY_SIZE(moves))
			WRITE_ONCE(q->buf->producer_index, moves[i++]);
	}
	KUNIT_EXPECT_LT(test, steps, 64);
	KUNIT_EXPECT_TRUE(test, sroce_queue_empty(q));
}

/* Every index a caller can hand in names a slot of the ring. */
static void sroce_queue_addr_in_bounds(struct kunit *test)
{
	struct sroce_queue *q;
	u32 i, index;

	q = sroce_queue_new(test, 31, 100, SROCE_QUEUE_FROM_CLIENT, true);
	for (i = 0; i < 64; i++) {
		sroce_expect_in_ring(test, q, sroce_queue_addr(q, i));
		sroce_expect_in_ring(test, q, sroce_queue_addr(q, U32_MAX - i));
		sroce_expect_in_ring(test, q, sroce_queue_addr(q, i << 26));
	}
	for (i = 0; i < 256; i++) {
		index = get_random_u32();
		sroce_expect_in_ring(test, q, sroce_queue_addr(q, index));
		KUNIT_EXPECT_PTR_EQ(test, sroce_queue_addr(q, index),
				    sroce_queue_addr(q, index & 31));
	}
	/* the last slot ends exactly at the end of the buffer */
	KUNIT_EXPECT_PTR_EQ(test, (u8 *)sroce_queue_addr(q, 31) + 128,
			    (u8 *)q->buf + q->buf_size);
}

/* A kernel CQ: both indices are the kernel's, the buffer is ignored. */
static void sroce_queue_kernel_only(struct kunit *test)
{
	struct sroce_queue *q;
	u32 i;

	q = sroce_queue_new(test, 3, 64, SROCE_QUEUE_TO_CLIENT, false);
	for (i = 0; i < 10; i++) {
		*(u32 *)sroce_queue_producer_addr(q) = i;
		sroce_queue_advance_producer(q);
		KUNIT_EXPECT_EQ(test, *(u32 *)sroce_queue_consumer_addr(q), i);
		sroce_queue_advance_consumer(q);
		KUNIT_EXPECT_TRUE(test, sroce_queue_empty(q));
	}
	q->buf->consumer_index = 3;
	q->buf->producer_index = 1;
	KUNIT_EXPECT_TRUE(test, sroce_queue_empty(q));
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 0);
}

/* Fill @q with @n elements numbered from @first, wrapping it first. */
static void sroce_fill(struct sroce_queue *q, u32 skip, u32 first, u32 n)
{
	u32 i;

	for (i = 0; i < skip; i++) {
		sroce_queue_advance_producer(q);
		sroce_queue_advance_consumer(q);
	}
	for (i = 0; i < n; i++) {
		*(u32 *)sroce_queue_producer_addr(q) = first + i;
		sroce_queue_advance_producer(q);
	}
}

static void sroce_queue_resize_keeps_order(struct kunit *test)
{
	struct sroce_queue *q, *big, *small, *tiny, *other;
	u32 i;

	q = sroce_queue_new(test, 7, 64, SROCE_QUEUE_TO_CLIENT, false);
	big = sroce_queue_new(test, 20, 64, SROCE_QUEUE_TO_CLIENT, false);
	small = sroce_queue_new(test, 5, 64, SROCE_QUEUE_TO_CLIENT, false);
	tiny = sroce_queue_new(test, 3, 64, SROCE_QUEUE_TO_CLIENT, false);

	/* five elements that straddle the end of the old ring */
	sroce_fill(q, 6, 500, 5);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 5);

	/* growing keeps them, oldest first, at the start of the new ring */
	KUNIT_ASSERT_EQ(test, sroce_queue_resize(q, big), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 31);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(big), 7);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 5);
	KUNIT_EXPECT_EQ(test, q->buf->producer_index, 5);
	KUNIT_EXPECT_EQ(test, q->buf->consumer_index, 0);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, *(u32 *)sroce_queue_addr(q, i), 500 + i);

	/* shrinking to a depth of 3 would lose six: refused, unchanged */
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(tiny), 3);
	sroce_fill(q, 0, 505, 4);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 9);
	KUNIT_EXPECT_EQ(test, sroce_queue_resize(q, tiny), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 31);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 9);

	/* consume six, then shrink: the three left move */
	for (i = 0; i < 6; i++)
		sroce_queue_advance_consumer(q);
	KUNIT_ASSERT_EQ(test, sroce_queue_resize(q, small), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_depth(q), 7);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 3);
	for (i = 0; !sroce_queue_empty(q); i++) {
		KUNIT_EXPECT_EQ(test, *(u32 *)sroce_queue_consumer_addr(q),
				506 + i);
		sroce_queue_advance_consumer(q);
	}
	KUNIT_EXPECT_EQ(test, i, 3);

	/* a ring of another kind is refused */
	other = sroce_queue_new(test, 8, 64, SROCE_QUEUE_TO_CLIENT, true);
	KUNIT_EXPECT_EQ(test, sroce_queue_resize(q, other), -EINVAL);
}

/* A user CQ is resized from where the user's consumer index says. */
static void sroce_queue_resize_user_consumer(struct kunit *test)
{
	struct sroce_queue *q, *new;
	u32 i;

	q = sroce_queue_new(test, 7, 64, SROCE_QUEUE_TO_CLIENT, true);
	new = sroce_queue_new(test, 15, 64, SROCE_QUEUE_TO_CLIENT, true);
	for (i = 0; i < 6; i++) {
		*(u32 *)sroce_queue_producer_addr(q) = 700 + i;
		sroce_queue_advance_producer(q);
	}
	/* the user has read two; its index carries junk high bits */
	WRITE_ONCE(q->buf->consumer_index, 2 | 0xfff00);
	KUNIT_ASSERT_EQ(test, sroce_queue_resize(q, new), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 4);
	KUNIT_EXPECT_EQ(test, q->buf->consumer_index, 0);
	KUNIT_EXPECT_EQ(test, q->buf->producer_index, 4);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, *(u32 *)sroce_queue_addr(q, i), 702 + i);
	/* the kernel goes on producing after them */
	sroce_queue_advance_producer(q);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 5);
}

static struct kunit_case sroce_queue_test_cases[] = {
	KUNIT_CASE(sroce_queue_geometry),
	KUNIT_CASE(sroce_queue_bad_sizes),
	KUNIT_CASE(sroce_queue_to_client_full_empty),
	KUNIT_CASE(sroce_queue_hostile_consumer),
	KUNIT_CASE(sroce_queue_from_client),
	KUNIT_CASE(sroce_queue_producer_racing),
	KUNIT_CASE(sroce_queue_addr_in_bounds),
	KUNIT_CASE(sroce_queue_kernel_only),
	KUNIT_CASE(sroce_queue_resize_keeps_order),
	KUNIT_CASE(sroce_queue_resize_user_consumer),
	{}
};

static struct kunit_suite sroce_queue_test_suite = {
	.name = "sroce_queue",
	.test_cases = sroce_queue_test_cases,
};

kunit_test_suites(&sroce_queue_test_suite);
