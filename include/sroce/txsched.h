/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit scheduling policy across the eight priorities, as a pure state
 * machine: which priority sends its next packet.  The tx layer owns the
 * queues and the netdev; this only decides, so it can be tested alone.
 *
 * Like 802.1Qaz ETS: priorities marked strict are served first, highest
 * number first; the remaining ones share what is left by weight, with a
 * deficit round robin over bytes so that packet sizes do not skew shares.
 * A paused priority (PFC, or a stopped netdev queue) is skipped and keeps
 * its place; it neither blocks the others nor banks credit while paused.
 */
#ifndef SROCE_TXSCHED_H
#define SROCE_TXSCHED_H

#include <linux/types.h>

#define SROCE_NUM_PRIO		8
/* bytes of credit one unit of weight earns per round */
#define SROCE_TXSCHED_QUANTUM	1024
/* longer packets are charged as this long, which bounds a pick's work */
#define SROCE_TXSCHED_MAX_LEN	65536

enum sroce_tsa {
	SROCE_TSA_ETS,
	SROCE_TSA_STRICT,
};

/**
 * struct sroce_txsched - scheduler state for one device
 * @tsa: per priority, strict or ETS
 * @weight: per ETS priority, its share (any positive scale, e.g. percent)
 * @deficit: per priority, bytes it may still send in the current round
 * @next: the ETS priority whose turn it is
 * @in_turn: @next has already been credited for its current turn
 */
struct sroce_txsched {
	u8 tsa[SROCE_NUM_PRIO];
	u8 weight[SROCE_NUM_PRIO];
	s32 deficit[SROCE_NUM_PRIO];
	u8 next;
	bool in_turn;
};

void sroce_txsched_init(struct sroce_txsched *s);
int sroce_txsched_set(struct sroce_txsched *s, const u8 tsa[SROCE_NUM_PRIO],
		      const u8 weight[SROCE_NUM_PRIO]);
int sroce_txsched_pick(struct sroce_txsched *s, u8 ready, u8 paused,
		       const u32 head_len[SROCE_NUM_PRIO]);

#endif /* SROCE_TXSCHED_H */
