// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for completion queues without a registered device: kernel
 * CQs made through sroce_cq_ops on a bare sroce_dev, and completions
 * added with sroce_cq_post().  Covers ordering, arming (next, solicited,
 * missed events), a handler that polls, re-arms and posts from inside,
 * overflow, resize, the user slot format and posting after destroy.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include <sroce/cq.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/queue.h>

struct sroce_cq_test {
	struct sroce_dev sdev;
	struct sroce_cq cq;
	struct kunit *test;
	int handler_calls;
	int handler_depth;
	int handler_max_depth;
	int events;
	enum ib_event_type last_event;
	/* what the handler does when called */
	int handler_posts;
	bool handler_rearms;
	int handler_polled;
};

static void sroce_test_comp(struct ib_cq *ibcq, void *ctx)
{
	struct sroce_cq_test *t = ctx;
	struct ib_wc wc = { .wr_id = 900, .status = IB_WC_SUCCESS };
	struct ib_wc out[8];
	int n;

	t->handler_calls++;
	t->handler_depth++;
	t->handler_max_depth = max(t->handler_max_depth, t->handler_depth);
	/* a consumer polls and re-arms from here: that must not deadlock */
	do {
		n = sroce_cq_ops.poll_cq(ibcq, ARRAY_SIZE(out), out);
		if (n > 0)
			t->handler_polled += n;
	} while (n > 0);
	if (t->handler_rearms)
		sroce_cq_ops.req_notify_cq(ibcq, IB_CQ_NEXT_COMP);
	if (t->handler_posts) {
		t->handler_posts--;
		KUNIT_EXPECT_EQ(t->test, sroce_cq_post(to_scq(ibcq), &wc, false),
				0);
	}
	t->handler_depth--;
}

static void sroce_test_event(struct ib_event *ev, void *ctx)
{
	struct sroce_cq_test *t = ctx;

	t->events++;
	t->last_event = ev->event;
}

static void sroce_test_destroy(void *data)
{
	struct sroce_cq_test *t = data;

	sroce_cq_ops.destroy_cq(&t->cq.ibcq, NULL);
}

static struct sroce_cq_test *sroce_test_cq(struct kunit *test, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct sroce_cq_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	t->sdev.ib_dev.num_comp_vectors = 1;
	t->cq.ibcq.device = &t->sdev.ib_dev;
	t->cq.ibcq.comp_handler = sroce_test_comp;
	t->cq.ibcq.event_handler = sroce_test_event;
	t->cq.ibcq.cq_context = t;
	KUNIT_ASSERT_EQ(test, sroce_cq_ops.create_cq(&t->cq.ibcq, &attr, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							sroce_test_destroy, t),
			0);
	return t;
}

static int sroce_post_id(struct sroce_cq_test *t, u64 id, bool solicited,
			 enum ib_wc_status status)
{
	struct ib_wc wc = { .wr_id = id, .status = status, .byte_len = 7 };

	return sroce_cq_post(&t->cq, &wc, solicited);
}

static int sroce_arm(struct sroce_cq_test *t, enum ib_cq_notify_flags flags)
{
	return sroce_cq_ops.req_notify_cq(&t->cq.ibcq, flags);
}

static int sroce_poll(struct sroce_cq_test *t, struct ib_wc *wc, int n)
{
	return sroce_cq_ops.poll_cq(&t->cq.ibcq, n, wc);
}

static void sroce_cq_create_limits(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 10);
	struct ib_cq_init_attr attr = { .cqe = 10 };
	struct sroce_cq cq = { .ibcq.device = &t->sdev.ib_dev };

	KUNIT_EXPECT_GE(test, t->cq.ibcq.cqe, 10);
	KUNIT_EXPECT_FALSE(test, t->cq.queue.user);
	/* the largest CQ reports a capacity within the advertised limit */
	t = sroce_test_cq(test, SROCE_MAX_CQE);
	KUNIT_EXPECT_EQ(test, t->cq.ibcq.cqe, SROCE_MAX_CQE);

	attr.cqe = 0;
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.create_cq(&cq.ibcq, &attr, NULL),
			-EINVAL);
	attr.cqe = SROCE_MAX_CQE + 1;
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.create_cq(&cq.ibcq, &attr, NULL),
			-EINVAL);
	attr.cqe = 10;
	attr.comp_vector = 1;
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.create_cq(&cq.ibcq, &attr, NULL),
			-EINVAL);
	attr.comp_vector = 0;
	attr.flags = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.create_cq(&cq.ibcq, &attr, NULL),
			-EOPNOTSUPP);
}

static void sroce_cq_post_poll_order(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 7);
	struct ib_wc wc[4];
	int i, n, seen = 0;

	KUNIT_EXPECT_EQ(test, sroce_poll(t, wc, 4), 0);
	for (i = 0; i < 7; i++)
		KUNIT_EXPECT_EQ(test, sroce_post_id(t, i, false,
						    IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.peek_cq(&t->cq.ibcq, 100), 7);
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.peek_cq(&t->cq.ibcq, 3), 3);
	while ((n = sroce_poll(t, wc, 4)) > 0) {
		for (i = 0; i < n; i++, seen++) {
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, seen);
			KUNIT_EXPECT_EQ(test, wc[i].byte_len, 7);
		}
	}
	KUNIT_EXPECT_EQ(test, seen, 7);
	/* nothing armed: no handler call */
	KUNIT_EXPECT_EQ(test, t->handler_calls, 0);
}

static void sroce_cq_arming(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 15);

	KUNIT_EXPECT_EQ(test, sroce_arm(t, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS),
			0);
	sroce_post_id(t, 1, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 1);
	/* one-shot: the next completion does not call again */
	sroce_post_id(t, 2, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 1);

	/* queued completions are reported to whoever asks */
	KUNIT_EXPECT_EQ(test, sroce_arm(t, IB_CQ_SOLICITED | IB_CQ_REPORT_MISSED_EVENTS),
			1);
	/* solicited-only: plain completions pass, solicited ones fire */
	sroce_post_id(t, 3, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 1);
	sroce_post_id(t, 4, true, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 2);
	/* and so do unsuccessful ones */
	sroce_arm(t, IB_CQ_SOLICITED);
	sroce_post_id(t, 5, false, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 3);

	/* NEXT_COMP is not narrowed by a later SOLICITED */
	sroce_arm(t, IB_CQ_NEXT_COMP);
	sroce_arm(t, IB_CQ_SOLICITED);
	sroce_post_id(t, 6, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 4);
	/* the handler drained the CQ each time */
	KUNIT_EXPECT_EQ(test, sroce_arm(t, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS),
			0);
	KUNIT_EXPECT_EQ(test, t->handler_polled, 6);
}

/*
 * A handler that re-arms and posts a completion to its own CQ is called
 * again after it returns, never from inside itself.
 */
static void sroce_cq_handler_reentry(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 15);

	t->handler_rearms = true;
	t->handler_posts = 3;
	sroce_cq_ops.req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP);
	sroce_post_id(t, 1, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 4);
	KUNIT_EXPECT_EQ(test, t->handler_max_depth, 1);
	KUNIT_EXPECT_EQ(test, t->handler_polled, 4);
	KUNIT_EXPECT_FALSE(test, t->cq.in_handler);
	KUNIT_EXPECT_EQ(test, t->cq.callbacks, 0);
}

static void sroce_cq_overflow(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 3);
	struct ib_wc wc[4];
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, sroce_post_id(t, i, false,
						    IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, t->events, 0);
	KUNIT_EXPECT_EQ(test, sroce_post_id(t, 3, false, IB_WC_SUCCESS),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, t->events, 1);
	KUNIT_EXPECT_EQ(test, t->last_event, IB_EVENT_CQ_ERR);
	/* in error: refused, reported once */
	KUNIT_EXPECT_EQ(test, sroce_post_id(t, 4, false, IB_WC_SUCCESS),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, t->events, 1);
	/* nothing was overwritten */
	KUNIT_EXPECT_EQ(test, sroce_poll(t, wc, 4), 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, i);
}

static void sroce_cq_resize_kernel(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 7);
	struct ib_cq *ibcq = &t->cq.ibcq;
	struct ib_wc wc[16];
	int i, n;

	for (i = 0; i < 7; i++)
		sroce_post_id(t, i, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, sroce_poll(t, wc, 2), 2);
	/* five left: a CQ of three is refused, the CQ keeps working */
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.resize_cq(ibcq, 3, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 7);
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.resize_cq(ibcq, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.resize_cq(ibcq, SROCE_MAX_CQE + 1,
						     NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.resize_cq(ibcq, 12, NULL), 0);
	KUNIT_EXPECT_GE(test, ibcq->cqe, 12);
	for (i = 7; i < 15; i++)
		KUNIT_EXPECT_EQ(test, sroce_post_id(t, i, false,
						    IB_WC_SUCCESS), 0);
	n = sroce_poll(t, wc, ARRAY_SIZE(wc));
	KUNIT_EXPECT_EQ(test, n, 13);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, i + 2);
	/* empty now: shrinking is fine */
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.resize_cq(ibcq, 1, NULL), 0);
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 1);
}

/* What librxe reads: a struct ib_uverbs_wc per slot. */
static void sroce_cq_user_slot_format(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 3);
	struct ib_qp qp = { .qp_num = 0x123456 };
	struct ib_wc wc = {
		.wr_id = 0x1122334455667788ull,
		.status = IB_WC_REM_ACCESS_ERR,
		.opcode = IB_WC_RECV,
		.vendor_err = 9,
		.byte_len = 4096,
		.qp = &qp,
		.ex.imm_data = cpu_to_be32(0xabcdef01),
		.src_qp = 77,
		.slid = 0x1234,
		.wc_flags = IB_WC_WITH_IMM | IB_WC_GRH,
		.pkey_index = 3,
		.sl = 5,
		.dlid_path_bits = 2,
		.port_num = 1,
	};
	struct sroce_queue user, kern;
	struct ib_uverbs_wc *uwc;

	/* swap the kernel ring for a user one, as create_cq would make it */
	KUNIT_ASSERT_EQ(test, sroce_queue_init(&user, 3,
					       sizeof(struct ib_uverbs_wc),
					       SROCE_QUEUE_TO_CLIENT, true), 0);
	kern = t->cq.queue;
	t->cq.queue = user;

	memset(t->cq.queue.buf->data, 0xa5, sroce_queue_elem_size(&user));
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&t->cq, &wc, false), 0);
	uwc = (struct ib_uverbs_wc *)t->cq.queue.buf->data;
	KUNIT_EXPECT_EQ(test, uwc->wr_id, wc.wr_id);
	KUNIT_EXPECT_EQ(test, uwc->status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, uwc->opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, uwc->vendor_err, 9);
	KUNIT_EXPECT_EQ(test, uwc->byte_len, 4096);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(uwc->ex.imm_data), 0xabcdef01);
	KUNIT_EXPECT_EQ(test, uwc->qp_num, 0x123456);
	KUNIT_EXPECT_EQ(test, uwc->src_qp, 77);
	KUNIT_EXPECT_EQ(test, uwc->wc_flags, IB_WC_WITH_IMM | IB_WC_GRH);
	KUNIT_EXPECT_EQ(test, uwc->pkey_index, 3);
	KUNIT_EXPECT_EQ(test, uwc->slid, 0x1234);
	KUNIT_EXPECT_EQ(test, uwc->sl, 5);
	KUNIT_EXPECT_EQ(test, uwc->dlid_path_bits, 2);
	KUNIT_EXPECT_EQ(test, uwc->port_num, 1);
	/* no stale kernel bytes in the padding userspace can read */
	KUNIT_EXPECT_EQ(test, uwc->reserved, 0);
	KUNIT_EXPECT_EQ(test, t->cq.queue.buf->producer_index, 1);

	/* three fit; once the user has read one, one more, then no more */
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&t->cq, &wc, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&t->cq, &wc, false), 0);
	WRITE_ONCE(t->cq.queue.buf->consumer_index, 1);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&t->cq, &wc, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&t->cq, &wc, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, t->events, 1);

	t->cq.queue = kern;
	sroce_queue_free(&user);
}

static void sroce_cq_post_after_destroy(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 3);

	sroce_cq_ops.req_notify_cq(&t->cq.ibcq, IB_CQ_NEXT_COMP);
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.destroy_cq(&t->cq.ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, sroce_post_id(t, 1, false, IB_WC_SUCCESS),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t->handler_calls, 0);
	/* the test's cleanup destroys it again, which finds nothing to free */
	KUNIT_EXPECT_NULL(test, t->cq.queue.buf);
}

/* create_cq holds the device to max_cq and gives the slot back on destroy */
static void sroce_cq_count_limit(struct kunit *test)
{
	struct sroce_cq_test *t = sroce_test_cq(test, 4);
	struct ib_cq_init_attr attr = { .cqe = 4 };
	struct sroce_cq cq = { .ibcq.device = &t->sdev.ib_dev };
	struct sroce_cq over = { .ibcq.device = &t->sdev.ib_dev };

	KUNIT_EXPECT_EQ(test, atomic_read(&t->sdev.num_cq), 1);
	KUNIT_ASSERT_EQ(test, sroce_cq_ops.create_cq(&cq.ibcq, &attr, NULL), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->sdev.num_cq), 2);
	sroce_cq_ops.destroy_cq(&cq.ibcq, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->sdev.num_cq), 1);

	atomic_set(&t->sdev.num_cq, SROCE_MAX_CQ);
	KUNIT_EXPECT_EQ(test, sroce_cq_ops.create_cq(&over.ibcq, &attr, NULL),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->sdev.num_cq), SROCE_MAX_CQ);
	atomic_set(&t->sdev.num_cq, 1);
}

static struct kunit_case sroce_cq_test_cases[] = {
	KUNIT_CASE(sroce_cq_create_limits),
	KUNIT_CASE(sroce_cq_count_limit),
	KUNIT_CASE(sroce_cq_post_poll_order),
	KUNIT_CASE(sroce_cq_arming),
	KUNIT_CASE(sroce_cq_handler_reentry),
	KUNIT_CASE(sroce_cq_overflow),
	KUNIT_CASE(sroce_cq_resize_kernel),
	KUNIT_CASE(sroce_cq_user_slot_format),
	KUNIT_CASE(sroce_cq_post_after_destroy),
	{}
};

static struct kunit_suite sroce_cq_test_suite = {
	.name = "sroce_cq",
	.test_cases = sroce_cq_test_cases,
};

kunit_test_suites(&sroce_cq_test_suite);
