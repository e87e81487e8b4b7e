// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.create_cq is handed the uverbs attribute bundle (6.11). */
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>

int (*sroce_probe)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs);

static_assert(__same_type(sroce_probe,
			  typeof_member(const struct ib_device_ops, create_cq)));
