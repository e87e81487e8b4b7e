// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the responder */
#include <sroce/qp.h>

void sroce_resp_init(struct sroce_qp *qp)
{
}

void sroce_resp_cleanup(struct sroce_qp *qp)
{
}

void sroce_resp_rcv(struct sroce_qp *qp, const void *nh,
		    const struct sroce_pkt *pkt)
{
}
