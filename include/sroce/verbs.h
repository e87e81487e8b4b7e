/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce verbs objects.  Each embeds the ib_core object ib_core allocates
 * for us (INIT_RDMA_OBJ_SIZE) and grows as the transport lands.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include <rdma/ib_verbs.h>

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

struct sroce_ah {
	struct ib_ah ibah;
};

struct sroce_cq {
	struct ib_cq ibcq;
};

struct sroce_qp {
	struct ib_qp ibqp;
};

struct sroce_srq {
	struct ib_srq ibsrq;
};

struct sroce_mw {
	struct ib_mw ibmw;
};

extern const struct ib_device_ops sroce_verbs_ops;

#endif /* SROCE_VERBS_H */
