// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the responder resources of an RC QP: how large a ring a
 * max_dest_rd_atomic asks for, and that a larger ring put in place keeps
 * the responses remembered (oldest first, so the next new one is again
 * the slot after the newest) and those queued, in their order.
 */
#include <kunit/test.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <sroce/transport.h>

#define SROCE_UT_PSN0	100

static struct sroce_qp *sroce_ut_qp(struct kunit *test)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->type = IB_QPT_RC;
	mutex_init(&qp->mod_lock);
	spin_lock_init(&qp->resp.lock);
	INIT_LIST_HEAD(&qp->resp.tx_list);
	return qp;
}

/* sroce_resp_res_alloc() as modify_qp calls it, under mod_lock */
static struct sroce_rd_res *sroce_ut_alloc(struct sroce_qp *qp, u32 max_dest,
					   u32 *num)
{
	struct sroce_rd_res *ring;

	mutex_lock(&qp->mod_lock);
	ring = sroce_resp_res_alloc(qp, max_dest, num);
	mutex_unlock(&qp->mod_lock);
	return ring;
}

static void sroce_ut_swap(struct sroce_qp *qp, struct sroce_rd_res **ring,
			  u32 num)
{
	spin_lock_bh(&qp->resp.lock);
	sroce_resp_res_swap(qp, ring, num);
	spin_unlock_bh(&qp->resp.lock);
}

/* none for 0, max_dest_rd_atomic's worth, and never a smaller ring */
static void sroce_resp_res_sizes(struct kunit *test)
{
	struct sroce_qp *qp = sroce_ut_qp(test);
	struct sroce_rd_res *ring;
	u32 num;

	KUNIT_EXPECT_NULL(test, sroce_ut_alloc(qp, 0, &num));
	KUNIT_EXPECT_EQ(test, num, 0U);

	ring = sroce_ut_alloc(qp, 1, &num);
	KUNIT_EXPECT_FALSE(test, IS_ERR_OR_NULL(ring));
	KUNIT_EXPECT_EQ(test, num, 1U);
	if (!IS_ERR(ring))
		kfree(ring);

	qp->resp.rd_res_num = 20;
	KUNIT_EXPECT_NULL(test, sroce_ut_alloc(qp, 4, &num));
	KUNIT_EXPECT_NULL(test, sroce_ut_alloc(qp, 20, &num));
	ring = sroce_ut_alloc(qp, 21, &num);
	KUNIT_EXPECT_FALSE(test, IS_ERR_OR_NULL(ring));
	KUNIT_EXPECT_EQ(test, num, 21U);
	if (!IS_ERR(ring))
		kfree(ring);
}

/* a first ring: every entry free and off any list, nothing queued */
static void sroce_resp_res_first(struct kunit *test)
{
	struct sroce_qp *qp = sroce_ut_qp(test);
	struct sroce_rd_res *ring;
	u32 num, i;

	ring = sroce_ut_alloc(qp, 4, &num);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(ring));
	sroce_ut_swap(qp, &ring, num);
	KUNIT_EXPECT_NULL(test, ring);
	KUNIT_EXPECT_EQ(test, qp->resp.rd_res_num, 4U);
	KUNIT_EXPECT_EQ(test, qp->resp.rd_res_next, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->resp.tx_list));
	for (i = 0; i < num; i++) {
		KUNIT_EXPECT_FALSE(test, qp->resp.rd_res[i].valid);
		KUNIT_EXPECT_TRUE(test,
				  list_empty(&qp->resp.rd_res[i].tx_entry));
	}
	kfree(qp->resp.rd_res);
}

/*
 * A ring of 8 whose next slot is 3 grows to 16 with three responses
 * queued out of ring order: the new ring starts with the oldest (slot 3),
 * the next slot is 8, and the queue is the same three in the same order.
 */
static void sroce_resp_res_grow(struct kunit *test)
{
	static const u32 queued[] = { 5, 1, 3 };
	struct sroce_qp *qp = sroce_ut_qp(test);
	struct sroce_rd_res *old, *ring, *res;
	u32 num, i;

	old = kcalloc(8, sizeof(*old), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, old);
	for (i = 0; i < 8; i++) {
		old[i].valid = true;
		old[i].first_psn = SROCE_UT_PSN0 + i;
		INIT_LIST_HEAD(&old[i].tx_entry);
	}
	for (i = 0; i < ARRAY_SIZE(queued); i++) {
		old[queued[i]].queued = true;
		list_add_tail(&old[queued[i]].tx_entry, &qp->resp.tx_list);
	}
	qp->resp.rd_res = old;
	qp->resp.rd_res_num = 8;
	qp->resp.rd_res_next = 3;

	ring = sroce_ut_alloc(qp, 16, &num);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(ring));
	KUNIT_ASSERT_EQ(test, num, 16U);
	sroce_ut_swap(qp, &ring, num);
	KUNIT_EXPECT_PTR_EQ(test, ring, old);
	kfree(ring);

	res = qp->resp.rd_res;
	KUNIT_EXPECT_EQ(test, qp->resp.rd_res_num, 16U);
	KUNIT_EXPECT_EQ(test, qp->resp.rd_res_next, 8U);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_TRUE(test, res[i].valid);
		KUNIT_EXPECT_EQ(test, res[i].first_psn,
				SROCE_UT_PSN0 + (3 + i) % 8);
	}
	for (; i < 16; i++) {
		KUNIT_EXPECT_FALSE(test, res[i].valid);
		KUNIT_EXPECT_TRUE(test, list_empty(&res[i].tx_entry));
	}

	i = 0;
	list_for_each_entry(res, &qp->resp.tx_list, tx_entry) {
		KUNIT_ASSERT_LT(test, i, (u32)ARRAY_SIZE(queued));
		KUNIT_EXPECT_TRUE(test, res >= qp->resp.rd_res);
		KUNIT_EXPECT_TRUE(test, res < qp->resp.rd_res + 16);
		KUNIT_EXPECT_EQ(test, res->first_psn,
				SROCE_UT_PSN0 + queued[i]);
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, (u32)ARRAY_SIZE(queued));
	kfree(qp->resp.rd_res);
}

static struct kunit_case sroce_resp_test_cases[] = {
	KUNIT_CASE(sroce_resp_res_sizes),
	KUNIT_CASE(sroce_resp_res_first),
	KUNIT_CASE(sroce_resp_res_grow),
	{}
};

static struct kunit_suite sroce_resp_test_suite = {
	.name = "sroce_resp",
	.test_cases = sroce_resp_test_cases,
};

kunit_test_suites(&sroce_resp_test_suite);
