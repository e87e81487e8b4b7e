/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rings shared with userspace in the layout librxe expects (struct
 * rxe_queue_buf of <rdma/rdma_user_rxe.h>; Documentation/design.rst, "rxe
 * userspace ABI"), also used for kernel-only queues so the transport has
 * one code path.
 *
 * A ring of 2^n slots holds at most 2^n - 1 elements: producer == consumer
 * means empty, producer + 1 == consumer (mod 2^n) means full.  Both indices
 * are kept already reduced to [0, 2^n - 1] in the buffer.
 *
 * Of the two indices the kernel owns one (both for kernel-only queues) and
 * keeps it in a private copy that is the only truth; the buffer copy is
 * published for the other side.  An index userspace owns is read from the
 * buffer on every use, with acquire ordering (so the slot contents it
 * covers are seen) and masked, because userspace can write any value into
 * it at any time.  Header fields in the buffer are never read back either.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/**
 * struct sroce_queue_buf - the start of a ring buffer, as userspace sees it
 * @log2_elem_size: log2 of the slot size in bytes (written once)
 * @index_mask: number of slots - 1 (written once)
 * @pad_1: keeps @producer_index on a cache line of its own
 * @producer_index: next slot the producer fills, masked
 * @pad_2: keeps @consumer_index on a cache line of its own
 * @consumer_index: next slot the consumer reads, masked
 * @pad_3: pads the header to 384 bytes
 * @data: the slots, slot i at @data + (i << @log2_elem_size)
 */
struct sroce_queue_buf {
	u32 log2_elem_size;
	u32 index_mask;
	u32 pad_1[30];
	u32 producer_index;
	u32 pad_2[31];
	u32 consumer_index;
	u32 pad_3[31];
	u8 data[];
};

/* librxe maps our buffer as its own struct: the offsets are ABI */
static_assert(offsetof(struct sroce_queue_buf, log2_elem_size) == 0);
static_assert(offsetof(struct sroce_queue_buf, index_mask) == 4);
static_assert(offsetof(struct sroce_queue_buf, producer_index) == 128);
static_assert(offsetof(struct sroce_queue_buf, consumer_index) == 256);
static_assert(offsetof(struct sroce_queue_buf, data) == 384);
static_assert(sizeof(struct sroce_queue_buf) == 384);
static_assert(offsetof(struct sroce_queue_buf, producer_index) ==
	      offsetof(struct rxe_queue_buf, producer_index));
static_assert(offsetof(struct sroce_queue_buf, consumer_index) ==
	      offsetof(struct rxe_queue_buf, consumer_index));
static_assert(offsetof(struct sroce_queue_buf, data) ==
	      offsetof(struct rxe_queue_buf, data));

/* Largest ring: keeps every size computation far from overflow. */
#define SROCE_QUEUE_MAX_SLOTS	BIT(20)
#define SROCE_QUEUE_MAX_ELEM	BIT(16)

/**
 * enum sroce_queue_dir - who produces into a ring
 * @SROCE_QUEUE_TO_CLIENT: the driver produces, the client consumes (CQ)
 * @SROCE_QUEUE_FROM_CLIENT: the client produces, the driver consumes
 *	(SQ, RQ, SRQ)
 */
enum sroce_queue_dir {
	SROCE_QUEUE_TO_CLIENT,
	SROCE_QUEUE_FROM_CLIENT,
};

struct sroce_queue_mmap;

/**
 * struct sroce_queue - the kernel's handle on one ring
 * @buf: the shared buffer; only its indices are read back, never its header
 * @buf_size: bytes allocated at @buf (header and slots)
 * @index_mask: number of slots - 1
 * @log2_elem_size: log2 of the slot size
 * @prod: producer index, authoritative when the kernel produces
 * @cons: consumer index, authoritative when the kernel consumes
 * @dir: which side produces
 * @user: the client is userspace; its index is untrusted
 * @mmap: the mmap entry once exported; it then owns @buf
 *
 * Callers serialise all calls on one queue with their own lock.
 */
struct sroce_queue {
	struct sroce_queue_buf *buf;
	size_t buf_size;
	u32 index_mask;
	u32 log2_elem_size;
	u32 prod;
	u32 cons;
	enum sroce_queue_dir dir;
	bool user;
	struct sroce_queue_mmap *mmap;
};

int sroce_queue_init(struct sroce_queue *q, u32 depth, size_t elem_size,
		     enum sroce_queue_dir dir, bool user);
void sroce_queue_free(struct sroce_queue *q);
int sroce_queue_export(struct sroce_queue *q, struct ib_ucontext *uctx,
		       struct mminfo *mi);
int sroce_queue_resize(struct sroce_queue *q, struct sroce_queue *new);
int sroce_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_queue_mmap_free(struct rdma_user_mmap_entry *entry);

/* Number of elements the ring can hold. */
static inline u32 sroce_queue_depth(const struct sroce_queue *q)
{
	return q->index_mask;
}

static inline size_t sroce_queue_elem_size(const struct sroce_queue *q)
{
	return (size_t)1 << q->log2_elem_size;
}

/* The producer index, in range whoever wrote it. */
static inline u32 sroce_queue_prod(const struct sroce_queue *q)
{
	if (!q->user || q->dir != SROCE_QUEUE_FROM_CLIENT)
		return q->prod;
	/* pairs with the client's release: its slot writes come first */
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

/* The consumer index, in range whoever wrote it. */
static inline u32 sroce_queue_cons(const struct sroce_queue *q)
{
	if (!q->user || q->dir != SROCE_QUEUE_TO_CLIENT)
		return q->cons;
	/* pairs with the client's release: it is done reading the slots */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

static inline u32 sroce_queue_count(const struct sroce_queue *q)
{
	return (sroce_queue_prod(q) - sroce_queue_cons(q)) & q->index_mask;
}

static inline bool sroce_queue_empty(const struct sroce_queue *q)
{
	return sroce_queue_prod(q) == sroce_queue_cons(q);
}

static inline bool sroce_queue_full(const struct sroce_queue *q)
{
	return ((sroce_queue_prod(q) + 1) & q->index_mask) ==
	       sroce_queue_cons(q);
}

/* Slot @index (any value: it is reduced to the ring first). */
static inline void *sroce_queue_addr(const struct sroce_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_elem_size);
}

/*
 * Producer side, for whoever owns the producer index: the kernel for
 * TO_CLIENT queues, and a kernel client of a FROM_CLIENT kernel queue.
 * Check sroce_queue_full() first, fill the slot, then advance: the release
 * store makes the slot contents visible before the new index.
 */
static inline void *sroce_queue_producer_addr(const struct sroce_queue *q)
{
	return sroce_queue_addr(q, q->prod);
}

static inline void sroce_queue_advance_producer(struct sroce_queue *q)
{
	q->prod = (q->prod + 1) & q->index_mask;
	/* the filled slot is visible before the index that hands it over */
	smp_store_release(&q->buf->producer_index, q->prod);
}

/*
 * Consumer side, for whoever owns the consumer index: the kernel for
 * FROM_CLIENT queues, and a kernel client (poll_cq) of a TO_CLIENT kernel
 * queue.  Check sroce_queue_empty() first (its acquire load orders the
 * slot reads after it), read the slot, then advance.  Slots of a user
 * queue stay user-writable: copy before validating.
 */
static inline void *sroce_queue_consumer_addr(const struct sroce_queue *q)
{
	return sroce_queue_addr(q, q->cons);
}

static inline void sroce_queue_advance_consumer(struct sroce_queue *q)
{
	q->cons = (q->cons + 1) & q->index_mask;
	/* the slot is read before the producer may reuse it */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

#endif /* SROCE_QUEUE_H */
