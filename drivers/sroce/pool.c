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
#include <linux/random.h>
#include <linux/xarray.h>

#include <sroce/pool.h>
#include <sroce/sroce.h>

/* The AH number table is in ah.c's hands; it is set up here with the rest. */
void sroce_pool_init(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->keys, XA_FLAGS_LOCK_BH);
	xa_init_flags(&sdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sroce_numspace_init(&sdev->key_ns);
	atomic_set(&sdev->num_keys, 0);
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

void sroce_numspace_init(struct sroce_numspace *ns)
{
	get_random_bytes(&ns->secret, sizeof(ns->secret));
	atomic_set(&ns->next, 0);
}

#define SROCE_NUM_HALF_BITS	(SROCE_NUM_BITS / 2)
#define SROCE_NUM_HALF_MASK	((1u << SROCE_NUM_HALF_BITS) - 1)
#define SROCE_NUM_ROUNDS	4

/*
 * Luby and Rackoff's construction: Feistel rounds over two 12-bit halves,
 * each mixing in a keyed hash of the other half.  It is a bijection
 * whatever the round function, so no two counter values share a number.
 * Four rounds of a pseudorandom function make a pseudorandom permutation;
 * a 24-bit block is small, so this stops guessing, not cryptanalysis by
 * someone who sees many numbers (Documentation/security.rst).  HalfSipHash
 * is the kernel's cheap keyed hash for exactly such short inputs.
 */
u32 sroce_num_permute(const hsiphash_key_t *secret, u32 x)
{
	u32 l = (x >> SROCE_NUM_HALF_BITS) & SROCE_NUM_HALF_MASK;
	u32 r = x & SROCE_NUM_HALF_MASK;
	u32 round, t;

	for (round = 0; round < SROCE_NUM_ROUNDS; round++) {
		t = l ^ (hsiphash_2u32(r, round, secret) & SROCE_NUM_HALF_MASK);
		l = r;
		r = t;
	}
	return l << SROCE_NUM_HALF_BITS | r;
}

/*
 * Reserve @n in the xarray @table (an empty slot: lookups find nothing
 * there), under the lock the table was set up with.  The nodes are
 * charged to the caller's memory cgroup: userspace decides how many
 * objects there are.
 */
static int sroce_num_insert(void *table, u32 n)
{
	struct xarray *xa = table;

	if (xa->xa_flags & XA_FLAGS_LOCK_IRQ)
		return xa_insert_irq(xa, n, NULL, GFP_KERNEL_ACCOUNT);
	if (xa->xa_flags & XA_FLAGS_LOCK_BH)
		return xa_insert_bh(xa, n, NULL, GFP_KERNEL_ACCOUNT);
	return xa_insert(xa, n, NULL, GFP_KERNEL_ACCOUNT);
}

/**
 * sroce_num_reserve() - draw a number and reserve it in a table
 * @ns: the number space to draw from
 * @usable: the numbers that may be handed out
 * @take: reserves a number in @table: 0, -EBUSY if it is in use, or an
 *	error
 * @table: the table the object will be published in
 * @num: the number drawn
 *
 * A number still in use (the counter has wrapped) is drawn again, up to
 * SROCE_NUM_TRIES times.  Context: process.
 *
 * Return: 0, -ENOMEM when no free number turned up, or @take's error.
 */
int sroce_num_reserve(struct sroce_numspace *ns, bool (*usable)(u32 n),
		      int (*take)(void *table, u32 n), void *table, u32 *num)
{
	int ret = -ENOMEM, tries;
	u32 n;

	for (tries = 0; tries < SROCE_NUM_TRIES; tries++) {
		n = sroce_num_draw(ns);
		if (!usable(n))
			continue;
		ret = take(table, n);
		if (!ret) {
			*num = n;
			return 0;
		}
		if (ret != -EBUSY)
			return ret;
		ret = -ENOMEM;
	}
	return ret;
}

/* No key is 0..255: index 0 is never handed out */
static bool sroce_key_index_usable(u32 index)
{
	return index != 0;
}

/*
 * Take an index without making it visible: the object is published once it
 * is complete, so a lookup never sees it half built.  Not counted:
 * sroce_key_reserve() counts, a re-registration swaps one index for
 * another.
 */
int sroce_key_draw(struct sroce_dev *sdev, u32 *index)
{
	return sroce_num_reserve(&sdev->key_ns, sroce_key_index_usable,
				 sroce_num_insert, &sdev->keys, index);
}

/* An index for a new key, within the device's limit of keys */
int sroce_key_reserve(struct sroce_dev *sdev, u32 *index)
{
	int ret = -ENOMEM;

	if (atomic_inc_return(&sdev->num_keys) < SROCE_MAX_KEYS) {
		ret = sroce_key_draw(sdev, index);
		if (!ret)
			return 0;
	}
	atomic_dec(&sdev->num_keys);
	return ret;
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

/* Give back an index of sroce_key_draw() */
void sroce_key_erase(struct sroce_dev *sdev, u32 index)
{
	xa_erase_bh(&sdev->keys, index);
}

/* Give back an index of sroce_key_reserve() */
void sroce_key_free(struct sroce_dev *sdev, u32 index)
{
	sroce_key_erase(sdev, index);
	atomic_dec(&sdev->num_keys);
}
