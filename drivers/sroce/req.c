// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the requester */
#include <sroce/qp.h>

void sroce_req_kick(struct sroce_qp *qp)
{
}

void sroce_req_work(struct work_struct *work)
{
}

void sroce_req_init(struct sroce_qp *qp)
{
}

void sroce_req_rewind(struct sroce_qp *qp)
{
}
