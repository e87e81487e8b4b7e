/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loopback of packets a device sends to itself (loopback.c).
 */
#ifndef SROCE_LOOPBACK_H
#define SROCE_LOOPBACK_H

#include <linux/types.h>

struct sk_buff;
struct sroce_dev;
struct sroce_lo;

struct sroce_lo *sroce_lo_create(struct sroce_dev *sdev);
void sroce_lo_destroy(struct sroce_lo *lo);
bool sroce_lo_wants(const struct sroce_dev *sdev, const struct sk_buff *skb);
int sroce_lo_xmit(struct sroce_lo *lo, struct sk_buff *skb);

#endif /* SROCE_LOOPBACK_H */
