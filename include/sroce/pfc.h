/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Priority-based flow control as a receiver of pause frames (IEEE 802.1Q
 * clause 36, the MAC Control frame of IEEE 802.3 Annex 31D).
 *
 * A hardware NIC acts on PFC frames itself and software only sees a
 * transmit queue that stops.  Links made of veth, virtio, tap or bridges
 * pass them up the stack instead, so sroce acts on them: a frame names
 * the priorities it pauses (its class-enable vector) and for each a time
 * in quanta of 512 bit times at the link's speed; a time of 0 resumes the
 * priority at once (XON), a new frame replaces the running time.
 *
 * This is the pure part: the parser and the pause clock of one link, fed
 * with the time by the caller.  See tx.c for how it holds priorities back.
 */
#ifndef SROCE_PFC_H
#define SROCE_PFC_H

#include <linux/types.h>

#include <sroce/txsched.h>

#define SROCE_ETH_P_PAUSE	0x8808
#define SROCE_PFC_OPCODE	0x0101
#define SROCE_PAUSE_OPCODE	0x0001	/* 802.3x, the whole link: not ours */
/* opcode, class-enable vector, eight pause times */
#define SROCE_PFC_LEN		(2 + 2 + 2 * SROCE_NUM_PRIO)
/* the speed assumed for a link that reports none, in Mb/s */
#define SROCE_PFC_DEFAULT_SPEED	10000

/**
 * struct sroce_pfc_frame - what a PFC frame asks
 * @enable: bit p set if the frame speaks for priority p
 * @quanta: per enabled priority, its pause time; 0 is XON
 */
struct sroce_pfc_frame {
	u8 enable;
	u16 quanta[SROCE_NUM_PRIO];
};

/**
 * struct sroce_pfc_state - the pause clock of one link
 * @until: per priority, when its pause ends (ns); 0 when not paused
 * @since: per paused priority, when its pause began
 * @frames: per priority, frames that paused it (XON ones not counted)
 * @paused_ns: per priority, the length of its pauses that ended
 */
struct sroce_pfc_state {
	u64 until[SROCE_NUM_PRIO];
	u64 since[SROCE_NUM_PRIO];
	u64 frames[SROCE_NUM_PRIO];
	u64 paused_ns[SROCE_NUM_PRIO];
};

int sroce_pfc_parse(const u8 *data, unsigned int len,
		    struct sroce_pfc_frame *f);
u64 sroce_pfc_quanta_ns(u16 quanta, u32 speed_mbps);
void sroce_pfc_rx(struct sroce_pfc_state *s, const struct sroce_pfc_frame *f,
		  u32 speed_mbps, u64 now);
u8 sroce_pfc_paused(struct sroce_pfc_state *s, u64 now);
u64 sroce_pfc_next_end(const struct sroce_pfc_state *s);
u64 sroce_pfc_duration_ns(const struct sroce_pfc_state *s, int prio, u64 now);

#endif /* SROCE_PFC_H */
