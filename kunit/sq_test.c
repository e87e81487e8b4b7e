// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for a user QP's window of send WQE copies: doubling it keeps
 * every copy in use at the slot its index now maps to, whole with its
 * SGEs, across the ring's wrap, out of the QP's embedded first window;
 * it grows no further than its limit, and not while a requester runs.
 */
#include <kunit/test.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <sroce/device.h>
#include <sroce/stats.h>
#include <sroce/transport.h>

#define SROCE_UT_SGES		2
#define SROCE_UT_RING_MASK	255
#define SROCE_UT_FIRST_MASK	15

static void sroce_ut_stats_free(void *stats)
{
	free_percpu((struct sroce_stats __percpu *)stats);
}

/* Entries as sroce_qp_init_swqe() lays them out, each with its SGEs */
static void *sroce_ut_copies(struct kunit *test, struct sroce_qp *qp, u32 mask)
{
	void *copies = kcalloc(mask + 1, qp->swqe_stride, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copies);
	return copies;
}

/* A user QP of a 256-slot SQ whose window is 16 copies, none in use */
static struct sroce_qp *sroce_ut_qp(struct kunit *test)
{
	struct sroce_qp *qp = kunit_kzalloc(test, SROCE_QP_OBJ_SIZE, GFP_KERNEL);
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	sdev->stats = alloc_percpu(struct sroce_stats);
	KUNIT_ASSERT_NOT_NULL(test, sdev->stats);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sroce_ut_stats_free,
							(void __force *)sdev->stats), 0);
	qp->sdev = sdev;
	qp->user = true;
	spin_lock_init(&qp->sq_lock);
	qp->sq_mask = SROCE_UT_RING_MASK;
	qp->swqe_stride = ALIGN(sizeof(struct sroce_swqe) +
				SROCE_UT_SGES * sizeof(struct ib_sge),
				__alignof__(struct sroce_swqe));
	qp->swqe_mask = SROCE_UT_FIRST_MASK;
	qp->swqe_max_mask = SROCE_SQ_COPIES - 1;
	qp->swqe = sroce_ut_copies(test, qp, qp->swqe_mask);
	return qp;
}

/* Copies of slots @cons up to @fetch (and @fetch itself when @next) */
static void sroce_ut_fill(struct sroce_qp *qp, u32 cons, u32 fetch, bool next)
{
	u32 live = (fetch - cons) & qp->sq_mask, i, index;
	struct sroce_swqe *wqe;

	qp->sq_cons = cons & qp->sq_mask;
	qp->req.fetch_index = fetch & qp->sq_mask;
	qp->req.next_fetched = next;
	for (i = 0; i < live + next; i++) {
		index = (cons + i) & qp->sq_mask;
		wqe = sroce_sq_wqe(qp, index);
		wqe->wr_id = 0x1000 + index;
		wqe->num_sge = SROCE_UT_SGES;
		wqe->sge[0].addr = 0x10000 + index;
		wqe->sge[1].lkey = 0x20000 + index;
		wqe->fetched = true;
	}
}

/* Every copy of @cons..@fetch is where its index says, and whole */
static void sroce_ut_expect(struct kunit *test, struct sroce_qp *qp, u32 cons,
			    u32 fetch, bool next)
{
	u32 live = (fetch - cons) & qp->sq_mask, i, index;
	struct sroce_swqe *wqe;

	for (i = 0; i < live + next; i++) {
		index = (cons + i) & qp->sq_mask;
		wqe = sroce_sq_wqe(qp, index);
		KUNIT_EXPECT_EQ(test, wqe->wr_id, 0x1000ULL + index);
		KUNIT_EXPECT_EQ(test, wqe->num_sge, (u32)SROCE_UT_SGES);
		KUNIT_EXPECT_EQ(test, wqe->sge[0].addr, 0x10000ULL + index);
		KUNIT_EXPECT_EQ(test, wqe->sge[1].lkey, 0x20000U + index);
		KUNIT_EXPECT_TRUE(test, wqe->fetched);
	}
}

static void sroce_ut_free(struct sroce_qp *qp)
{
	kvfree(qp->swqe);
}

/* A full window across the ring's wrap, doubled up to its limit */
static void sroce_sq_copies_grow_wrap(struct kunit *test)
{
	struct sroce_qp *qp = sroce_ut_qp(test);
	u32 cons = 250, fetch = cons + SROCE_UT_FIRST_MASK + 1;

	sroce_ut_fill(qp, cons, fetch, false);
	qp->req.copies_grow = true;
	sroce_sq_grow_copies(qp);
	KUNIT_EXPECT_EQ(test, qp->swqe_mask, 31U);
	KUNIT_EXPECT_FALSE(test, qp->req.copies_grow);
	KUNIT_EXPECT_EQ(test, sroce_stats_read(qp->sdev,
					       SROCE_CNT_SQ_COPIES_GROWN), 1ULL);
	sroce_ut_expect(test, qp, cons, fetch, false);

	sroce_sq_grow_copies(qp);
	sroce_sq_grow_copies(qp);
	KUNIT_EXPECT_EQ(test, qp->swqe_mask, (u32)SROCE_SQ_COPIES - 1);
	sroce_ut_expect(test, qp, cons, fetch, false);

	/* at the limit: nothing moves */
	sroce_sq_grow_copies(qp);
	KUNIT_EXPECT_EQ(test, qp->swqe_mask, (u32)SROCE_SQ_COPIES - 1);
	KUNIT_EXPECT_EQ(test, sroce_stats_read(qp->sdev,
					       SROCE_CNT_SQ_COPIES_GROWN), 3ULL);
	sroce_ut_free(qp);
}

/* The WQE at fetch_index, fetched and not yet begun, moves too */
static void sroce_sq_copies_grow_next(struct kunit *test)
{
	struct sroce_qp *qp = sroce_ut_qp(test);

	sroce_ut_fill(qp, 5, 12, true);
	sroce_sq_grow_copies(qp);
	KUNIT_EXPECT_EQ(test, qp->swqe_mask, 31U);
	sroce_ut_expect(test, qp, 5, 12, true);
	sroce_ut_free(qp);
}

/* Not under a requester that dropped sq_lock, nor on a dying QP */
static void sroce_sq_copies_grow_held(struct kunit *test)
{
	struct sroce_qp *qp = sroce_ut_qp(test);
	void *copies = qp->swqe;

	sroce_ut_fill(qp, 0, 16, false);
	qp->req.copies_grow = true;
	qp->req.running = true;
	sroce_sq_grow_copies(qp);
	KUNIT_EXPECT_EQ(test, qp->swqe_mask, (u32)SROCE_UT_FIRST_MASK);
	KUNIT_EXPECT_PTR_EQ(test, qp->swqe, copies);
	KUNIT_EXPECT_TRUE(test, qp->req.copies_grow);

	qp->req.running = false;
	qp->dead = true;
	sroce_sq_grow_copies(qp);
	KUNIT_EXPECT_EQ(test, qp->swqe_mask, (u32)SROCE_UT_FIRST_MASK);
	KUNIT_EXPECT_EQ(test, sroce_stats_read(qp->sdev,
					       SROCE_CNT_SQ_COPIES_GROWN), 0ULL);
	sroce_ut_expect(test, qp, 0, 16, false);
	sroce_ut_free(qp);
}

/*
 * The first window in the QP itself, two copies of two-SGE WQEs across
 * the ring's wrap: growing moves them out, and the QP's own bytes are
 * not freed (KASAN).
 */
static void sroce_sq_copies_grow_embedded(struct kunit *test)
{
	struct sroce_qp *qp = sroce_ut_qp(test);

	kvfree(qp->swqe);
	qp->swqe = qp->swqe_embed;
	KUNIT_ASSERT_GE(test, (size_t)SROCE_SQ_COPIES_EMBED, 2 * qp->swqe_stride);
	qp->swqe_mask = 1;
	sroce_ut_fill(qp, 255, 0, true);
	sroce_sq_grow_copies(qp);
	KUNIT_ASSERT_PTR_NE(test, qp->swqe, (void *)qp->swqe_embed);
	KUNIT_EXPECT_EQ(test, qp->swqe_mask, 3U);
	sroce_ut_expect(test, qp, 255, 0, true);
	sroce_ut_free(qp);
}

static struct kunit_case sroce_sq_test_cases[] = {
	KUNIT_CASE(sroce_sq_copies_grow_wrap),
	KUNIT_CASE(sroce_sq_copies_grow_next),
	KUNIT_CASE(sroce_sq_copies_grow_held),
	KUNIT_CASE(sroce_sq_copies_grow_embedded),
	{}
};

static struct kunit_suite sroce_sq_test_suite = {
	.name = "sroce_sq_copies",
	.test_cases = sroce_sq_test_cases,
};

kunit_test_suites(&sroce_sq_test_suite);
