// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the QP verbs implementation */
#include <sroce/qp.h>
#include <sroce/sroce.h>

const struct ib_device_ops sroce_qp_ops = {};

struct sroce_qp *sroce_qp_get_rcu(struct sroce_dev *sdev, u32 qpn)
{
	return NULL;
}

void sroce_qp_put(struct sroce_qp *qp)
{
}

u32 sroce_sq_prod(struct sroce_qp *qp)
{
	return qp->sq_prod;
}

int sroce_sq_fetch(struct sroce_qp *qp, u32 index)
{
	return IB_WC_LOC_QP_OP_ERR;
}

void sroce_sq_retire(struct sroce_qp *qp)
{
}

int sroce_rq_take(struct sroce_qp *qp, struct sroce_rwqe *wqe)
{
	return -EAGAIN;
}

void sroce_qp_error(struct sroce_qp *qp, bool event)
{
}

bool sroce_sq_wc(const struct sroce_qp *qp, const struct sroce_swqe *wqe,
		 enum ib_wc_status status, struct ib_wc *wc)
{
	return false;
}
