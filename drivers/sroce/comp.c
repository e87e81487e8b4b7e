// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the completer */
#include <sroce/qp.h>

void sroce_comp_init(struct sroce_qp *qp)
{
}

void sroce_comp_stop(struct sroce_qp *qp)
{
}

void sroce_comp_rcv(struct sroce_qp *qp, const void *nh,
		    const struct sroce_pkt *pkt)
{
}

void sroce_comp_arm(struct sroce_qp *qp)
{
}
