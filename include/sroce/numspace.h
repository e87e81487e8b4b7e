/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device number spaces: memory keys (MRs and MWs share one) and the
 * address-handle numbers librxe puts into UD work requests.
 *
 * A memory key is index << 8 | key byte, and lkey == rkey.  The index
 * names the object in the device's key table and is drawn from a number
 * space (below), so a key tells nothing about the keys of other objects;
 * the byte is random when sroce picks it, and the consumer's to choose
 * in fast registrations and window binds, as the IBTA has it.  Every key
 * sroce hands out, re-registration included, takes a newly drawn index,
 * so a key handed out before names an empty slot or fails the byte check.
 *
 * QPNs come from a number space too: an off-path sender who would inject
 * into a connection or guess a key must search the 24-bit space rather
 * than count from the last number it saw.
 */
#ifndef SROCE_NUMSPACE_H
#define SROCE_NUMSPACE_H

#include <linux/atomic.h>
#include <linux/siphash.h>
#include <linux/types.h>

struct sroce_dev;

/*
 * A number space: draw n maps the n-th value of a cyclic counter through
 * a keyed permutation of the 24-bit numbers.  A number comes back only
 * after 2^24 draws, so a freed QPN or key index is not soon reused, and
 * without the secret the numbers seen tell nothing about the next ones.
 * Draws are lock-free; the caller reserves the number in its table and
 * draws again if it is taken (only once the counter has wrapped).
 */
#define SROCE_NUM_BITS		24
#define SROCE_NUM_MASK		((1u << SROCE_NUM_BITS) - 1)
/* draws before giving up: a table at its limit holds <= 1/64 of them */
#define SROCE_NUM_TRIES		64

struct sroce_numspace {
	hsiphash_key_t secret;
	atomic_t next;
};

void sroce_numspace_init(struct sroce_numspace *ns);
u32 sroce_num_permute(const hsiphash_key_t *secret, u32 x);

static inline u32 sroce_num_draw(struct sroce_numspace *ns)
{
	u32 n = (u32)atomic_inc_return(&ns->next);

	return sroce_num_permute(&ns->secret, n & SROCE_NUM_MASK);
}

int sroce_num_reserve(struct sroce_numspace *ns, bool (*usable)(u32 n),
		      int (*take)(void *table, u32 n), void *table, u32 *num);

#define SROCE_KEY_BYTE_BITS	8
#define SROCE_KEY_BYTE_MASK	0xffu
/* keys held at once; index 0 is never handed out (no key is 0..255) */
#define SROCE_MAX_KEYS		0x40000u
#define SROCE_MAX_AH		0x10000u

static inline u32 sroce_key_make(u32 index, u8 byte)
{
	return index << SROCE_KEY_BYTE_BITS | byte;
}

static inline u32 sroce_key_index(u32 key)
{
	return key >> SROCE_KEY_BYTE_BITS;
}

static inline u8 sroce_key_byte(u32 key)
{
	return key & SROCE_KEY_BYTE_MASK;
}

/* The device's key and AH number tables, empty; and their end */
int sroce_tables_init(struct sroce_dev *sdev);
void sroce_tables_fini(struct sroce_dev *sdev);

/* key table entries are tagged with what they are */
enum sroce_key_kind {
	SROCE_KEY_MR = 0,
	SROCE_KEY_MW = 1,
};

int sroce_key_reserve(struct sroce_dev *sdev, u32 *index);
int sroce_key_draw(struct sroce_dev *sdev, u32 *index);
void sroce_key_erase(struct sroce_dev *sdev, u32 index);
void sroce_key_publish(struct sroce_dev *sdev, u32 index, void *obj,
		       enum sroce_key_kind kind);
void *sroce_key_load_rcu(struct sroce_dev *sdev, u32 key,
			 enum sroce_key_kind kind);
void sroce_key_free(struct sroce_dev *sdev, u32 index);

#endif /* SROCE_NUMSPACE_H */
