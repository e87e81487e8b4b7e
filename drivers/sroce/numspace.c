// SPDX-License-Identifier: GPL-2.0
/*
 * The number spaces of a device.  MRs and MWs share one index space, as the
 * IBTA has them share the key space: an rkey arriving in a packet may name
 * either, and the tag on the table entry says which.
 *
 * Lookups come from the receive softirq under RCU only; changes come from
 * verbs calls in process context.  The key table is a hash table: its
 * indexes are drawn at random from 2^24 (below), and a radix tree would
 * spend a chain of nodes on nearly every key.
 */
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <sroce/device.h>
#include <sroce/numspace.h>

/*
 * What the key table holds for an index: the object, tagged with its
 * enum sroce_key_kind (xa_tag_pointer()), NULL while the index is only
 * reserved.  Freed a grace period after it leaves the table.
 */
struct sroce_key_entry {
	struct rhash_head node;
	u32 index;
	void __rcu *obj;
	struct rcu_head rcu;
};

static const struct rhashtable_params sroce_key_table_params = {
	.key_len = sizeof(u32),
	.key_offset = offsetof(struct sroce_key_entry, index),
	.head_offset = offsetof(struct sroce_key_entry, node),
	.automatic_shrinking = true,
};

/* The AH number table is in ah.c's hands; it is set up here with the rest. */
int sroce_tables_init(struct sroce_dev *sdev)
{
	int err = rhashtable_init(&sdev->keys, &sroce_key_table_params);

	if (err)
		return err;
	xa_init_flags(&sdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sroce_numspace_init(&sdev->key_ns);
	atomic_set(&sdev->num_keys, 0);
	sdev->ah_next = 1;
	atomic_set(&sdev->num_pd, 0);
	return 0;
}

/*
 * By the time ib_core deallocates the driver every object has been
 * destroyed, so the tables are empty; only their memory remains to free.
 */
void sroce_tables_fini(struct sroce_dev *sdev)
{
	WARN_ON_ONCE(atomic_read(&sdev->keys.nelems));
	rhashtable_destroy(&sdev->keys);
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

/* sroce_num_reserve()'s take(): enter @n, no object yet, if it is free */
struct sroce_key_draw_ctx {
	struct sroce_dev *sdev;
	struct sroce_key_entry *entry;
};

static int sroce_key_take(void *table, u32 index)
{
	struct sroce_key_draw_ctx *ctx = table;
	int err;

	ctx->entry->index = index;
	err = rhashtable_lookup_insert_fast(&ctx->sdev->keys, &ctx->entry->node,
					    sroce_key_table_params);
	return err == -EEXIST ? -EBUSY : err;
}

/*
 * Take an index without making it visible: the object is published once it
 * is complete, so a lookup never sees it half built.  Not counted:
 * sroce_key_reserve() counts, a re-registration swaps one index for
 * another.  The entry is charged to the caller's memory cgroup: userspace
 * decides how many keys there are.
 */
int sroce_key_draw(struct sroce_dev *sdev, u32 *index)
{
	struct sroce_key_draw_ctx ctx = { .sdev = sdev };
	int err;

	ctx.entry = kzalloc(sizeof(*ctx.entry), GFP_KERNEL_ACCOUNT);
	if (!ctx.entry)
		return -ENOMEM;
	err = sroce_num_reserve(&sdev->key_ns, sroce_key_index_usable,
				sroce_key_take, &ctx, index);
	if (err)
		kfree(ctx.entry);
	return err;
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

/* The entry of an index the caller holds: it cannot leave meanwhile */
static struct sroce_key_entry *sroce_key_entry(struct sroce_dev *sdev,
					       u32 index)
{
	struct sroce_key_entry *entry;

	entry = rhashtable_lookup_fast(&sdev->keys, &index,
				       sroce_key_table_params);
	WARN_ON_ONCE(!entry);
	return entry;
}

void sroce_key_publish(struct sroce_dev *sdev, u32 index, void *obj,
		       enum sroce_key_kind kind)
{
	struct sroce_key_entry *entry = sroce_key_entry(sdev, index);

	if (entry)
		rcu_assign_pointer(entry->obj, xa_tag_pointer(obj, kind));
}

/*
 * The object behind @key if it is of @kind; the key byte is not checked.
 * Under RCU.
 */
void *sroce_key_load_rcu(struct sroce_dev *sdev, u32 key,
			 enum sroce_key_kind kind)
{
	u32 index = sroce_key_index(key);
	struct sroce_key_entry *entry;
	void *obj;

	entry = rhashtable_lookup(&sdev->keys, &index, sroce_key_table_params);
	if (!entry)
		return NULL;
	obj = rcu_dereference(entry->obj);
	if (!obj || xa_pointer_tag(obj) != kind)
		return NULL;
	return xa_untag_pointer(obj);
}

/* Give back an index of sroce_key_draw() */
void sroce_key_erase(struct sroce_dev *sdev, u32 index)
{
	struct sroce_key_entry *entry = sroce_key_entry(sdev, index);

	if (!entry)
		return;
	rhashtable_remove_fast(&sdev->keys, &entry->node,
			       sroce_key_table_params);
	/* a lookup may still hold it */
	kfree_rcu(entry, rcu);
}

/* Give back an index of sroce_key_reserve() */
void sroce_key_free(struct sroce_dev *sdev, u32 index)
{
	sroce_key_erase(sdev, index);
	atomic_dec(&sdev->num_keys);
}
