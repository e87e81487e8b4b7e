/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loopback of packets a device sends to itself or to another device of
 * the same host (loopback.c).
 */
#ifndef SROCE_LOOPBACK_H
#define SROCE_LOOPBACK_H

#include <linux/types.h>

struct sk_buff;
struct sroce_dev;
struct sroce_lo;

struct sroce_lo *sroce_lo_create(struct sroce_dev *sdev);
void sroce_lo_destroy(struct sroce_lo *lo);
int sroce_lo_local(struct sroce_dev *sdev, struct sk_buff *skb);
int sroce_lo_mcast(struct sroce_lo *lo, const struct sk_buff *skb);

#endif /* SROCE_LOOPBACK_H */
