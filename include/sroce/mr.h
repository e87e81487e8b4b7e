/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions and windows (mr.c) as the transport sees them: keyed
 * lookups with a reference (callable from softirq), bounds-checked copies,
 * pages for zero-copy transmit, 8-byte atomics, and the state changes of
 * IB_WR_REG_MR and invalidation.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct page;
struct sroce_bytes;
struct sroce_dev;
struct sroce_pd;

enum sroce_mr_type {
	SROCE_MR_DMA,		/* iova is a kernel virtual address */
	SROCE_MR_USER,		/* pinned user pages */
	SROCE_MR_FAST,		/* kernel page list, valid after IB_WR_REG_MR */
};

enum sroce_mr_state {
	SROCE_MR_FREE,		/* fast-reg MR not registered or invalidated */
	SROCE_MR_VALID,
	SROCE_MR_DEAD,		/* being deregistered: no new windows */
};

/**
 * struct sroce_mr - a memory region
 * @ibmr: the ib_core object; ibmr.lkey == ibmr.rkey is the current key
 * @pd: the PD accesses are checked against (rereg may change it)
 * @type: DMA, user or fast-reg
 * @state: accesses are only granted while VALID
 * @access: IB_ACCESS_* flags granted
 * @iova: first byte of the registered range
 * @length: bytes in the registered range
 * @page_shift: log2 of the page size of @pages / @fr_pages
 * @page_off: offset of @iova in the first page
 * @npages: pages covering the registered range
 * @umem: pinned user memory (user MRs)
 * @pages: the pinned pages (user MRs)
 * @fr_pages: kernel virtual addresses of the pages (fast-reg MRs)
 * @fr_max: size of @fr_pages (alloc_mr's max_num_sg)
 * @fr_mapped: pages set by the last map_mr_sg
 * @fr_map_off: offset of the mapped iova in its page at map_mr_sg time
 * @lock: serialises state, key, access and PD changes
 * @num_mw: memory windows bound to the MR (each holds a reference)
 * @ref: one for the key table plus one per sroce_mr_lookup()
 * @done: completed when the last reference is dropped
 * @rcu: the MR is freed after a grace period: lookups run under RCU
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_pd *pd;
	enum sroce_mr_type type;
	enum sroce_mr_state state;
	int access;
	u64 iova;
	u64 length;
	u32 page_shift;
	u32 page_off;
	u32 npages;
	struct ib_umem *umem;
	struct page **pages;
	u64 *fr_pages;
	u32 fr_max;
	u32 fr_mapped;
	u32 fr_map_off;
	spinlock_t lock;	/* see @lock above */
	unsigned int num_mw;
	refcount_t ref;
	struct completion done;
	struct rcu_head rcu;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

/**
 * struct sroce_mw - a memory window (type 1 or 2)
 * @ibmw: the ib_core object (first, ib_core allocates it); ibmw.rkey is
 *	the current key
 * @lock: serialises binding, invalidation and lookups
 * @state: SROCE_MR_VALID while bound
 * @mr: the MR the window is bound to, referenced while bound
 * @addr: first byte of the window
 * @length: bytes in the window
 * @access: remote access the window grants
 * @qpn: the QP a type 2 window was bound through, the only one it serves
 */
struct sroce_mw {
	struct ib_mw ibmw;
	spinlock_t lock;	/* see @lock above */
	enum sroce_mr_state state;
	struct sroce_mr *mr;
	u64 addr;
	u64 length;
	int access;
	u32 qpn;
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

enum sroce_copy_dir {
	SROCE_COPY_TO_MR,	/* buf -> MR (receive, write, read response) */
	SROCE_COPY_FROM_MR,	/* MR -> buf (send, read request) */
};

enum sroce_atomic_op {
	SROCE_ATOMIC_CMP_SWAP,
	SROCE_ATOMIC_FETCH_ADD,
	SROCE_ATOMIC_WRITE,	/* IBTA 1.5 ATOMIC WRITE: one 8-byte store */
};

/* Access flags a registration may ask for; the rest are refused. */
int sroce_mr_check_access(int access);

struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key,
				 struct sroce_pd *pd, int access, bool is_rkey);
void sroce_mr_put(struct sroce_mr *mr);

int sroce_mr_check_range(const struct sroce_mr *mr, u64 iova, u64 len);
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir);
int sroce_mr_copy_bytes(struct sroce_mr *mr, u64 iova, struct sroce_bytes *b,
			u32 len, enum sroce_copy_dir dir);
struct page *sroce_mr_page(struct sroce_mr *mr, u64 iova, u32 *offset);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		    u64 compare_add, u64 swap, u64 *orig);

int sroce_mr_fast_reg(struct sroce_mr *mr, u32 key, int access);

extern const struct ib_device_ops sroce_mr_ops;

/* mr.c for mw.c: is [iova, iova + len) inside [start, start + size)? */
bool sroce_range_ok(u64 start, u64 size, u64 iova, u64 len);
/* The MR of @key with a reference, or NULL; any context */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key);

/* mw.c: memory windows, and the keys that name a window or an MR */
extern const struct ib_device_ops sroce_mw_ops;
int sroce_mr_invalidate(struct sroce_pd *pd, u32 rkey);

struct sroce_mr *sroce_rkey_lookup(struct sroce_dev *sdev, u32 rkey,
				   struct sroce_pd *pd, u32 qpn, int access,
				   u64 iova, u64 len);
int sroce_mw_bind(struct sroce_dev *sdev, u32 mw_rkey, u32 new_rkey,
		  struct sroce_pd *pd, u32 qpn, struct sroce_mr *mr,
		  u64 addr, u64 length, int access);

#endif /* SROCE_MR_H */
