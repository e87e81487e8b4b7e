// SPDX-License-Identifier: GPL-2.0
/*
 * The number spaces of a device.  MRs and MWs share one index space, as the
 * IBTA has them share the key space: an rkey arriving in a packet may name
 * either, and the tag on the table entry says which.
 *
 * Lookups come from the receive softirq under RCU only; changes come from
 * verbs calls in process context and take the table lock with BH off, so a
 * softirq on the same CPU never spins on a lock its own CPU holds.
 */
#include <linux/xarray.h>

#include <sroce/pool.h>
#include <sroce/sroce.h>

/* The AH number table is in ah.c's hands; it is set up here with the rest. */
void sroce_pool_init(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->keys, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sdev->key_next = 1;
	sdev->ah_next = 1;
	atomic_set(&sdev->num_pd, 0);
}

/*
 * By the time ib_core deallocates the driver every object has been
 * destroyed, so the tables are empty; only their nodes remain to free.
 */
void sroce_pool_fini(struct sroce_dev *sdev)
{
	xa_destroy(&sdev->keys);
	xa_destroy(&sdev->ahs);
}

/*
 * Take an index without making it visible: the object is published once it
 * is complete, so a lookup never sees it half built.  Indexes are handed
 * out cyclically so that a freed slot is not reused at once, which makes a
 * stale key hit an empty slot rather than a newer object.
 */
int sroce_key_reserve(struct sroce_dev *sdev, u32 *index)
{
	int ret;

	ret = xa_alloc_cyclic_bh(&sdev->keys, index, NULL,
				 XA_LIMIT(1, SROCE_MAX_KEYS - 1),
				 &sdev->key_next, GFP_KERNEL);
	if (ret == -EBUSY)
		return -ENOMEM;
	return ret < 0 ? ret : 0;
}

void sroce_key_publish(struct sroce_dev *sdev, u32 index, void *obj,
		       enum sroce_key_kind kind)
{
	/* the slot exists already, so storing into it cannot fail */
	xa_store_bh(&sdev->keys, index, xa_tag_pointer(obj, kind), GFP_KERNEL);
}

/* The object behind @key if it is of @kind; the key byte is not checked. */
void *sroce_key_load_rcu(struct sroce_dev *sdev, u32 key,
			 enum sroce_key_kind kind)
{
	void *entry = xa_load(&sdev->keys, sroce_key_index(key));

	if (!entry || xa_pointer_tag(entry) != kind)
		return NULL;
	return xa_untag_pointer(entry);
}

void sroce_key_free(struct sroce_dev *sdev, u32 index)
{
	xa_erase_bh(&sdev->keys, index);
}
