// SPDX-License-Identifier: GPL-2.0
/*
 * PFC frames and the pause clock of a link; see pfc.h.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include <sroce/compat.h>
#include <sroce/pfc.h>

/**
 * sroce_pfc_parse - read a PFC frame
 * @data: the frame after its EtherType (0x8808)
 * @len: bytes at @data
 * @f: what it asks, filled in on success
 *
 * The upper octet of the class-enable vector is reserved: ignored, as
 * IEEE 802.1Q 36.1.3 asks of a receiver, and so are the times of the
 * priorities the vector does not enable.
 *
 * Return: 0; -EINVAL for a frame too short to be one; -EOPNOTSUPP for
 * another MAC Control opcode (the link-wide PAUSE of 802.3x among them).
 */
int sroce_pfc_parse(const u8 *data, unsigned int len,
		    struct sroce_pfc_frame *f)
{
	int p;

	if (len < SROCE_PFC_LEN)
		return -EINVAL;
	if (get_unaligned_be16(data) != SROCE_PFC_OPCODE)
		return -EOPNOTSUPP;
	f->enable = get_unaligned_be16(data + 2) & 0xff;
	for (p = 0; p < SROCE_NUM_PRIO; p++)
		f->quanta[p] = get_unaligned_be16(data + 4 + 2 * p);
	return 0;
}

/* A quantum is 512 bit times (IEEE 802.3 31B.2) */
u64 sroce_pfc_quanta_ns(u16 quanta, u32 speed_mbps)
{
	if (!speed_mbps)
		speed_mbps = SROCE_PFC_DEFAULT_SPEED;
	return div_u64((u64)quanta * 512 * 1000, speed_mbps);
}

/* Account for the pause of @p that ended at @end */
static void sroce_pfc_end(struct sroce_pfc_state *s, int p, u64 end)
{
	s->paused_ns[p] += end - s->since[p];
	s->until[p] = 0;
}

/**
 * sroce_pfc_rx - apply a received PFC frame
 * @s: the link's pause clock
 * @f: the frame
 * @speed_mbps: the link's speed, 0 if unknown
 * @now: the time, in ns
 */
void sroce_pfc_rx(struct sroce_pfc_state *s, const struct sroce_pfc_frame *f,
		  u32 speed_mbps, u64 now)
{
	int p;

	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (!(f->enable & BIT(p)))
			continue;
		if (s->until[p] && s->until[p] <= now)
			sroce_pfc_end(s, p, s->until[p]);
		if (!f->quanta[p]) {
			if (s->until[p])
				sroce_pfc_end(s, p, now);
			continue;
		}
		if (!s->until[p])
			s->since[p] = now;
		/* a refresh replaces the time left, shorter or longer */
		s->until[p] = now + max_t(u64, 1,
					  sroce_pfc_quanta_ns(f->quanta[p],
							      speed_mbps));
		s->frames[p]++;
	}
}

/* The priorities paused at @now; pauses that ended by then are closed */
u8 sroce_pfc_paused(struct sroce_pfc_state *s, u64 now)
{
	u8 paused = 0;
	int p;

	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (s->until[p] && s->until[p] <= now)
			sroce_pfc_end(s, p, s->until[p]);
		if (s->until[p])
			paused |= BIT(p);
	}
	return paused;
}

/* When the first running pause ends; 0 if none runs */
u64 sroce_pfc_next_end(const struct sroce_pfc_state *s)
{
	u64 end = 0;
	int p;

	for (p = 0; p < SROCE_NUM_PRIO; p++)
		if (s->until[p] && (!end || s->until[p] < end))
			end = s->until[p];
	return end;
}

/* How long @prio has been paused in all, up to @now */
u64 sroce_pfc_duration_ns(const struct sroce_pfc_state *s, int prio, u64 now)
{
	u64 d = s->paused_ns[prio];

	if (s->until[prio])
		d += min(now, s->until[prio]) - s->since[prio];
	return d;
}
