// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the SRQ verbs implementation */
#include <sroce/qp.h>

const struct ib_device_ops sroce_srq_ops = {};
