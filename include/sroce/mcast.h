/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast groups (mcast.c): attach and detach, and delivery of a
 * received UD packet to every member QP.
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <linux/types.h>

struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;

extern const struct ib_device_ops sroce_mcast_ops;

void sroce_mcast_init(struct sroce_dev *sdev);
/* At dealloc, after the last QP is gone; may sleep */
void sroce_mcast_fini(struct sroce_dev *sdev);
/* At destroy of a UD QP, before its QPN is freed; may sleep */
void sroce_mcast_detach_qp(struct sroce_qp *qp);
/* A UD request to SROCE_MCAST_QPN (softirq) */
void sroce_mcast_rcv(struct sroce_dev *sdev, const u8 *nh,
		     const struct sroce_pkt *pkt);

#endif /* SROCE_MCAST_H */
