/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device number spaces: memory keys (MRs and MWs share one) and the
 * address-handle numbers librxe puts into UD work requests.
 *
 * A memory key is index << 8 | key byte, and lkey == rkey.  The index
 * names the object in the device's key table; the byte changes on every
 * (re)registration so that a key handed out before still names the same
 * slot but no longer matches, and a stale remote access is refused.
 */
#ifndef SROCE_POOL_H
#define SROCE_POOL_H

#include <linux/types.h>

struct sroce_dev;

#define SROCE_KEY_BYTE_BITS	8
#define SROCE_KEY_BYTE_MASK	0xffu
/* index 0 is never handed out: no valid key is ever 0..255 */
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

/* the key a re-registration hands out: same slot, different byte */
static inline u32 sroce_key_next(u32 key)
{
	return sroce_key_make(sroce_key_index(key),
			      (u8)(sroce_key_byte(key) + 1));
}

void sroce_pool_init(struct sroce_dev *sdev);
void sroce_pool_fini(struct sroce_dev *sdev);

/* key table entries are tagged with what they are */
enum sroce_key_kind {
	SROCE_KEY_MR = 0,
	SROCE_KEY_MW = 1,
};

int sroce_key_reserve(struct sroce_dev *sdev, u32 *index);
void sroce_key_publish(struct sroce_dev *sdev, u32 index, void *obj,
		       enum sroce_key_kind kind);
void *sroce_key_load_rcu(struct sroce_dev *sdev, u32 key,
			 enum sroce_key_kind kind);
void sroce_key_free(struct sroce_dev *sdev, u32 index);

#endif /* SROCE_POOL_H */
