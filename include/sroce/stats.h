/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce counters, exported through rdma statistic (rdma_hw_stats).
 */
#ifndef SROCE_STATS_H
#define SROCE_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_BYTES,
	SROCE_CNT_RX_V1_PACKETS,
	SROCE_CNT_RX_V2_PACKETS,
	SROCE_CNT_RX_HDR_ERR,
	SROCE_CNT_RX_ICRC_ERR,
	SROCE_CNT_RX_NO_QP,
	SROCE_CNT_RX_NOMEM,
	SROCE_NUM_COUNTERS
};

struct sroce_stats {
	u64 cnt[SROCE_NUM_COUNTERS];
};

struct sroce_dev;

void sroce_stats_add(struct sroce_dev *sdev, enum sroce_counter c, u64 n);
u64 sroce_stats_read(struct sroce_dev *sdev, enum sroce_counter c);

static inline void sroce_stats_inc(struct sroce_dev *sdev, enum sroce_counter c)
{
	sroce_stats_add(sdev, c, 1);
}

#endif /* SROCE_STATS_H */
