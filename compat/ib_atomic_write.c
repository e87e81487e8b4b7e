// SPDX-License-Identifier: GPL-2.0
/* ib_core knows RDMA ATOMIC WRITE (IBTA 1.5, 6.2): WR, WC, capability. */
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>

static_assert(IB_WR_ATOMIC_WRITE != IB_WR_RDMA_WRITE);
static_assert(IB_WC_ATOMIC_WRITE != IB_WC_RDMA_WRITE);
static_assert(IB_DEVICE_ATOMIC_WRITE != 0);
