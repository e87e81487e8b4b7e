// SPDX-License-Identifier: GPL-2.0
/* ib_core knows RDMA FLUSH (IBTA 1.5, 6.2): its MR access flags. */
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>

static_assert(IB_ACCESS_FLUSH_GLOBAL != IB_ACCESS_FLUSH_PERSISTENT);
