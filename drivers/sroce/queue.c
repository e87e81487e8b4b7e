// SPDX-License-Identifier: GPL-2.0
/*
 * Ring buffers shared with librxe: allocation, resize and the export to
 * userspace through ib_core's mmap entries.  The index helpers the data
 * path uses are inline in <sroce/queue.h>.
 */
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include <sroce/queue.h>

/**
 * struct sroce_queue_mmap - an exported buffer
 * @rdma: ib_core's entry; its reference count decides when @buf goes
 * @buf: the vmalloc_user() buffer
 * @size: bytes at @buf
 *
 * The entry, not the queue, frees the buffer: an mmap() racing with the
 * destruction of the queue holds a reference on the entry while it maps
 * the pages, so the buffer must outlive the queue until that is done.
 * Pages already mapped hold their own references and survive vfree().
 */
struct sroce_queue_mmap {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	size_t size;
};

/**
 * sroce_queue_init() - allocate an empty ring
 * @q: the queue to set up
 * @depth: elements it must hold at least
 * @elem_size: bytes per element
 * @dir: which side produces
 * @user: the client is userspace (the buffer will be mapped there)
 *
 * Slots are a power of two of at least a cache line, the slot count the
 * next power of two above @depth, both as librxe assumes.
 *
 * Return: 0, -EINVAL for sizes out of range, or -ENOMEM.
 */
int sroce_queue_init(struct sroce_queue *q, u32 depth, size_t elem_size,
		     enum sroce_queue_dir dir, bool user)
{
	size_t slots, size;

	memset(q, 0, sizeof(*q));
	if (!depth || depth >= SROCE_QUEUE_MAX_SLOTS || !elem_size ||
	    elem_size > SROCE_QUEUE_MAX_ELEM)
		return -EINVAL;

	elem_size = roundup_pow_of_two(max_t(size_t, elem_size,
					     SMP_CACHE_BYTES));
	slots = roundup_pow_of_two((size_t)depth + 1);
	size = sizeof(struct sroce_queue_buf) + slots * elem_size;
	/* mminfo carries the size as a u32 */
	if (size > U32_MAX)
		return -EINVAL;

	q->buf = user ? vmalloc_user(size) : kvzalloc(size, GFP_KERNEL);
	if (!q->buf)
		return -ENOMEM;
	q->buf_size = size;
	q->index_mask = slots - 1;
	q->log2_elem_size = ilog2(elem_size);
	q->dir = dir;
	q->user = user;
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;
	return 0;
}

static void sroce_queue_buf_free(void *buf, bool user)
{
	if (user)
		vfree(buf);
	else
		kvfree(buf);
}

/**
 * sroce_queue_free() - release a ring
 * @q: the queue; may be one sroce_queue_init() failed on, or zeroed
 *
 * An exported buffer stays until no mmap() is in progress on it; mappings
 * userspace still has keep their pages.
 */
void sroce_queue_free(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else if (q->buf)
		sroce_queue_buf_free(q->buf, q->user);
	q->mmap = NULL;
	q->buf = NULL;
}

/**
 * sroce_queue_export() - make a user ring mappable
 * @q: a queue set up with @user true
 * @uctx: the user context whose command fd will map it
 * @mi: filled with the offset and size to pass to mmap()
 *
 * Return: 0, -EINVAL for a kernel queue, or -ENOMEM.
 */
int sroce_queue_export(struct sroce_queue *q, struct ib_ucontext *uctx,
		       struct mminfo *mi)
{
	struct sroce_queue_mmap *m;
	int err;

	if (!q->user || q->mmap)
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->buf = q->buf;
	m->size = q->buf_size;
	err = rdma_user_mmap_entry_insert(uctx, &m->rdma, m->size);
	if (err) {
		kfree(m);
		return err;
	}
	q->mmap = m;
	mi->offset = rdma_user_mmap_get_offset(&m->rdma);
	mi->size = m->size;
	mi->pad = 0;
	return 0;
}

/**
 * sroce_queue_mmap() - ib_device_ops.mmap: map an exported ring
 * @uctx: the user context the mapping is made through
 * @vma: the mapping; its offset is the one sroce_queue_export() gave out
 *
 * Return: 0, or -EINVAL for an unknown offset or a size other than the
 * ring's.
 */
int sroce_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct sroce_queue_mmap *m;
	int err;

	/* ib_core checks the offset, VM_SHARED and the exact page count */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	m = container_of(entry, struct sroce_queue_mmap, rdma);
	/* and so does remap_vmalloc_range(); we refuse before it is asked */
	if (vma->vm_end - vma->vm_start > PAGE_ALIGN(m->size))
		err = -EINVAL;
	else
		err = remap_vmalloc_range(vma, m->buf, 0);
	rdma_user_mmap_entry_put(entry);
	return err;
}

/* ib_device_ops.mmap_free: the last reference on an entry is gone. */
void sroce_queue_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_queue_mmap *m =
		container_of(entry, struct sroce_queue_mmap, rdma);

	vfree(m->buf);
	kfree(m);
}

/**
 * sroce_queue_resize() - move the live elements of a ring to a new one
 * @q: the ring in use
 * @new: an empty ring from sroce_queue_init() (and sroce_queue_export()),
 *	same direction and client
 *
 * Copies the elements between consumer and producer, oldest first, to the
 * start of @new, then swaps the two so that @q is the new ring and @new
 * the old one, for the caller to free once its lock is dropped.  The
 * caller holds the lock that serialises @q.  A user-owned index is read
 * once, so a client moving it meanwhile only garbles its own ring.
 *
 * Return: 0, or -EINVAL if @new cannot hold the elements (or does not
 * match @q); nothing changes then.
 */
int sroce_queue_resize(struct sroce_queue *q, struct sroce_queue *new)
{
	u32 prod = sroce_queue_prod(q);
	u32 cons = sroce_queue_cons(q);
	u32 count = (prod - cons) & q->index_mask;
	size_t len = min(sroce_queue_elem_size(q), sroce_queue_elem_size(new));
	struct sroce_queue tmp;
	u32 i;

	if (new->dir != q->dir || new->user != q->user ||
	    count > sroce_queue_depth(new))
		return -EINVAL;

	for (i = 0; i < count; i++)
		memcpy(sroce_queue_addr(new, i), sroce_queue_addr(q, cons + i),
		       len);
	new->prod = count;
	new->cons = 0;
	new->buf->consumer_index = 0;
	/* the slots above must be visible before the index that covers them */
	smp_store_release(&new->buf->producer_index, count);

	tmp = *q;
	*q = *new;
	*new = tmp;
	return 0;
}
