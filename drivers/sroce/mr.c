// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains and memory regions; memory windows are mw.c's.
 *
 * An MR is found by key from the transport, often in the receive softirq,
 * so every MR sits in the device's key table (numspace.c), is looked up under
 * RCU with a reference, and is freed only after deregistration has seen
 * the last reference go and a grace period has passed.  Every access the
 * transport makes goes through the range checks here: none of the iova,
 * length or key values it passes on can be trusted, they come off the wire
 * or out of rings userspace writes.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include <sroce/compat.h>
#include <sroce/device.h>
#include <sroce/limits.h>
#include <sroce/mr.h>
#include <sroce/numspace.h>
#include <sroce/pktbuf.h>
#include <sroce/verbs.h>

/* ---- protection domains ------------------------------------------------ */

static int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);

	/* we report max_pd; make it true */
	if (atomic_inc_return(&sdev->num_pd) > SROCE_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_sdev(ibpd->device)->num_pd);
	return 0;
}

/* ---- access flags and ranges ------------------------------------------- */

#define SROCE_ACCESS_GRANTED	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND)
/* hints we may ignore: pinning makes huge pages and ordering moot */
#define SROCE_ACCESS_IGNORED	(IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)
#ifdef SROCE_HAVE_IB_FLUSH
#define SROCE_ACCESS_FLUSH	(IB_ACCESS_FLUSH_GLOBAL | \
				 IB_ACCESS_FLUSH_PERSISTENT)
#else
#define SROCE_ACCESS_FLUSH	0
#endif
#define SROCE_ACCESS_REFUSED	(IB_ZERO_BASED | IB_ACCESS_ON_DEMAND | \
				 SROCE_ACCESS_FLUSH)

/*
 * uverbs runs ib_check_mr_access() before reg_mr, but not before every
 * path that reaches us (get_dma_mr, rereg's kept flags, fast-reg WRs), so
 * the rules are applied here once for all of them.
 */
int sroce_mr_check_access(int access)
{
	if (access & SROCE_ACCESS_REFUSED)
		return -EOPNOTSUPP;
	if (access & ~(SROCE_ACCESS_GRANTED | SROCE_ACCESS_IGNORED))
		return -EINVAL;
	/* IBTA: remote write and atomics need local write */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/*
 * Is [iova, iova + len) inside [start, start + size)?  Written so that no
 * sum can wrap: only differences of values already known to be ordered.
 * A zero-length access is in range anywhere from the first byte to one
 * past the last.
 */
bool sroce_range_ok(u64 start, u64 size, u64 iova, u64 len)
{
	u64 off;

	if (iova < start)
		return false;
	off = iova - start;
	return off <= size && len <= size - off;
}

/* what a copy needs, read at once: a fast-reg MR may change under us */
struct sroce_mr_span {
	u64 iova;
	u64 length;
	u32 page_shift;
	u32 page_off;
	u32 npages;
};

static void sroce_mr_span(struct sroce_mr *mr, struct sroce_mr_span *sp)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	sp->iova = mr->iova;
	sp->length = mr->length;
	sp->page_shift = mr->page_shift;
	sp->page_off = mr->page_off;
	sp->npages = mr->npages;
	spin_unlock_irqrestore(&mr->lock, flags);
}

/**
 * sroce_mr_check_range() - is an access inside the registered range
 * @mr: the MR
 * @iova: first byte accessed
 * @len: bytes accessed
 *
 * Return: 0, or -EFAULT if any byte lies outside the MR (or the range
 * wraps around the end of the address space).
 */
int sroce_mr_check_range(const struct sroce_mr *mr, u64 iova, u64 len)
{
	return sroce_range_ok(READ_ONCE(mr->iova), READ_ONCE(mr->length),
			      iova, len) ? 0 : -EFAULT;
}

static bool sroce_mr_writable(const struct sroce_mr *mr)
{
	/* pages pinned without FOLL_WRITE may be shared: never write them */
	return !mr->umem || mr->umem->writable;
}

/*
 * Kernel address of byte @off (from the start of the first page) of a user
 * or fast-reg MR, with how many bytes follow it in the same page.  User
 * pages are mapped with kmap_local_page(); the caller unmaps with
 * sroce_mr_unmap().  NULL if @off is past the pages (a fast-reg MR being
 * changed under a stale reference).
 */
static void *sroce_mr_map(struct sroce_mr *mr, const struct sroce_mr_span *sp,
			  u64 off, u32 *avail)
{
	u64 psize = 1ULL << sp->page_shift;
	u64 idx = off >> sp->page_shift;
	u32 in = off & (psize - 1);

	if (idx >= sp->npages)
		return NULL;
	*avail = psize - in;
	if (mr->type == SROCE_MR_USER)
		return kmap_local_page(mr->pages[idx]) + in;
	if (idx >= mr->fr_max)
		return NULL;
	return (void *)(uintptr_t)(READ_ONCE(mr->fr_pages[idx]) + in);
}

static void sroce_mr_unmap(struct sroce_mr *mr, void *va)
{
	if (mr->type == SROCE_MR_USER)
		kunmap_local(va);
}

/**
 * sroce_mr_copy_bytes() - copy between an MR and a buffer or a packet
 * @mr: a referenced MR (sroce_mr_lookup()), access flags already checked
 * @iova: first byte in the MR
 * @b: the other end (pktbuf.h), advanced past the bytes copied (on
 *	an error, past those copied before it); a packet only as a source
 *	(%SROCE_COPY_TO_MR)
 * @len: bytes to copy
 * @dir: SROCE_COPY_TO_MR or SROCE_COPY_FROM_MR
 *
 * Callable from softirq.  Return: 0, -EFAULT if the range is not inside the
 * MR (or @b has fewer bytes), -EACCES when writing to a user MR pinned
 * read-only.
 */
int sroce_mr_copy_bytes(struct sroce_mr *mr, u64 iova, struct sroce_bytes *b,
			u32 len, enum sroce_copy_dir dir)
{
	bool to_mr = dir == SROCE_COPY_TO_MR;
	struct sroce_mr_span sp;
	u64 off;

	sroce_mr_span(mr, &sp);
	if (!sroce_range_ok(sp.iova, sp.length, iova, len))
		return -EFAULT;
	if (to_mr && !sroce_mr_writable(mr))
		return -EACCES;
	if (!len)
		return 0;

	if (mr->type == SROCE_MR_DMA)
		return sroce_bytes_move(b, (void *)(uintptr_t)iova, len, to_mr);

	off = iova - sp.iova + sp.page_off;
	while (len) {
		u32 avail, n;
		void *va = sroce_mr_map(mr, &sp, off, &avail);
		int err;

		if (!va)
			return -EFAULT;
		n = min(len, avail);
		err = sroce_bytes_move(b, va, n, to_mr);
		sroce_mr_unmap(mr, va);
		if (err)
			return err;
		off += n;
		len -= n;
	}
	return 0;
}

/* sroce_mr_copy_bytes() with a kernel buffer */
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir)
{
	struct sroce_bytes b = sroce_bytes_buf(buf);

	return sroce_mr_copy_bytes(mr, iova, &b, len, dir);
}

/**
 * sroce_mr_page() - the page holding one byte of an MR, for skb fragments
 * @mr: a referenced MR
 * @iova: the byte
 * @offset: set to the offset of @iova in the returned page
 *
 * The bytes from @offset to the end of the page belong to the same page
 * (later bytes may not: ask again at the next page).  The page is only
 * guaranteed while the MR reference is held; take a page reference for an
 * skb that may outlive it.
 *
 * Return: the page, or NULL if @iova is outside the MR or has no struct
 * page (a DMA MR pointing at vmalloc memory); then copy instead.
 */
struct page *sroce_mr_page(struct sroce_mr *mr, u64 iova, u32 *offset)
{
	struct sroce_mr_span sp;
	unsigned long va;
	u64 off, idx;

	sroce_mr_span(mr, &sp);
	if (!sroce_range_ok(sp.iova, sp.length, iova, 1))
		return NULL;

	off = iova - sp.iova + sp.page_off;
	idx = off >> sp.page_shift;
	switch (mr->type) {
	case SROCE_MR_USER:
		if (idx >= sp.npages)
			return NULL;
		*offset = off & ~PAGE_MASK;
		return mr->pages[idx];
	case SROCE_MR_FAST:
		if (idx >= sp.npages || idx >= mr->fr_max)
			return NULL;
		va = READ_ONCE(mr->fr_pages[idx]) +
		     (off & ((1ULL << sp.page_shift) - 1));
		break;
	default:
		va = iova;
		break;
	}
	if (!virt_addr_valid((void *)va))
		return NULL;
	*offset = offset_in_page(va);
	return virt_to_page((void *)va);
}

/**
 * sroce_mr_atomic() - 8-byte compare-and-swap, fetch-and-add or store in an MR
 * @mr: a referenced MR, IB_ACCESS_REMOTE_ATOMIC (IB_ACCESS_REMOTE_WRITE
 *	for SROCE_ATOMIC_WRITE) already checked
 * @iova: the aligned 8-byte target
 * @op: SROCE_ATOMIC_CMP_SWAP, SROCE_ATOMIC_FETCH_ADD or SROCE_ATOMIC_WRITE
 * @compare_add: value compared (CMP_SWAP), added (FETCH_ADD) or stored
 *	(WRITE)
 * @swap: value stored if the compare matched (CMP_SWAP)
 * @orig: set to the value found before the operation
 *
 * Values are in CPU byte order, as they are in memory; the wire's big-endian
 * values are the caller's business.  The operation is atomic against the
 * CPU too, not only against other RDMA atomics.
 *
 * Return: 0, -EINVAL if misaligned, -EFAULT if outside the MR, -EACCES if
 * the memory is read-only.
 */
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		    u64 compare_add, u64 swap, u64 *orig)
{
	struct sroce_mr_span sp;
	u32 avail;
	u64 *p, old;

	if (iova & (sizeof(u64) - 1))
		return -EINVAL;
	sroce_mr_span(mr, &sp);
	if (!sroce_range_ok(sp.iova, sp.length, iova, sizeof(u64)))
		return -EFAULT;
	if (!sroce_mr_writable(mr))
		return -EACCES;

	if (mr->type == SROCE_MR_DMA) {
		p = (u64 *)(uintptr_t)iova;
	} else {
		p = sroce_mr_map(mr, &sp, iova - sp.iova + sp.page_off, &avail);
		if (!p)
			return -EFAULT;
	}
	/* a page list need not keep iova and address congruent */
	if ((uintptr_t)p & (sizeof(u64) - 1)) {
		if (mr->type != SROCE_MR_DMA)
			sroce_mr_unmap(mr, p);
		return -EINVAL;
	}

	if (op == SROCE_ATOMIC_CMP_SWAP) {
		old = cmpxchg64(p, compare_add, swap);
	} else if (op == SROCE_ATOMIC_WRITE) {
		/* ordered after every earlier write to the MR (IBTA A19.4.2) */
		old = xchg(p, compare_add);
	} else {
		u64 sum;

		old = READ_ONCE(*p);
		do {
			sum = old + compare_add;
		} while (!try_cmpxchg64(p, &old, sum));
	}
	*orig = old;
	if (mr->type != SROCE_MR_DMA)
		sroce_mr_unmap(mr, p);
	return 0;
}

/* ---- lookup and lifetime ------------------------------------------------ */

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = sroce_key_load_rcu(sdev, key, SROCE_KEY_MR);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->done);
}

/**
 * sroce_mr_lookup() - find a valid MR by key and take a reference
 * @sdev: the device
 * @key: lkey from an SGE or rkey from a packet
 * @pd: the PD of the QP making the access
 * @access: IB_ACCESS_* flags the access needs (0 for a local read)
 * @is_rkey: compare @key with the rkey rather than the lkey
 *
 * Callable from softirq.  Return: the MR, to be released with
 * sroce_mr_put(), or NULL if the key is unknown or stale, the MR is not
 * valid (fast-reg MR not registered or invalidated), belongs to another PD
 * or does not grant @access.
 */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key,
				 struct sroce_pd *pd, int access, bool is_rkey)
{
	struct sroce_mr *mr = sroce_mr_get(sdev, key);
	unsigned long flags;
	bool ok;

	if (!mr)
		return NULL;
	spin_lock_irqsave(&mr->lock, flags);
	ok = mr->state == SROCE_MR_VALID &&
	     (is_rkey ? mr->ibmr.rkey : mr->ibmr.lkey) == key &&
	     mr->pd == pd && (mr->access & access) == access;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (!ok) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

static struct sroce_mr *sroce_mr_alloc(struct sroce_pd *pd,
				       enum sroce_mr_type type, int access)
{
	struct sroce_dev *sdev = to_sdev(pd->ibpd.device);
	struct sroce_mr *mr;
	u32 index, key;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = sroce_key_reserve(sdev, &index);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	/* a random first byte: keys of a recycled index differ too */
	key = sroce_key_make(index, get_random_u8());
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->pd = pd;
	mr->type = type;
	mr->state = type == SROCE_MR_FAST ? SROCE_MR_FREE : SROCE_MR_VALID;
	mr->access = access;
	mr->page_shift = PAGE_SHIFT;
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->done);
	return mr;
}

static void sroce_mr_release(struct sroce_mr *mr)
{
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->fr_pages);
	/* a lookup may still be reading it under RCU */
	kfree_rcu(mr, rcu);
}

/* for MRs that never were published */
static void sroce_mr_abort(struct sroce_mr *mr)
{
	sroce_key_free(to_sdev(mr->pd->ibpd.device),
		       sroce_key_index(mr->ibmr.lkey));
	sroce_mr_release(mr);
}

static void sroce_mr_publish(struct sroce_mr *mr)
{
	sroce_key_publish(to_sdev(mr->pd->ibpd.device),
			  sroce_key_index(mr->ibmr.lkey), mr, SROCE_KEY_MR);
}

/*
 * Kernel DMA MR.  We are a virtual-DMA device: ib_core hands ULPs kernel
 * virtual addresses as DMA addresses, so the MR maps iova 1:1 onto the
 * kernel's address space.  Only kernel ULPs can get one.
 */
static struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	mr = sroce_mr_alloc(to_spd(ibpd), SROCE_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;
	sroce_mr_publish(mr);
	return &mr->ibmr;
}

static struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sg_page_iter piter;
	struct ib_umem *umem;
	struct sroce_mr *mr;
	size_t npages, i = 0;
	u64 end;
	int err;

	err = sroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	if (!length || check_add_overflow(iova, length, &end) ||
	    check_add_overflow(start, length, &end) ||
	    offset_in_page(start) != offset_in_page(iova))
		return ERR_PTR(-EINVAL);

	mr = sroce_mr_alloc(to_spd(ibpd), SROCE_MR_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	umem = ib_umem_get(&sdev->ib_dev, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_abort;
	}
	mr->umem = umem;

	npages = ib_umem_num_pages(umem);
	err = -ENOMEM;
	if (npages > U32_MAX)
		goto err_abort;
	mr->pages = kvcalloc(npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		goto err_abort;
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (i == npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&piter);
	}
	err = -EFAULT;
	if (i != npages)
		goto err_abort;

	mr->iova = iova;
	mr->length = length;
	mr->page_off = ib_umem_offset(umem);
	mr->npages = npages;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	sroce_mr_publish(mr);
	return &mr->ibmr;

err_abort:
	sroce_mr_abort(mr);
	return ERR_PTR(err);
}

/*
 * Changing PD or access keeps the pages and only gives the MR a new key.  New
 * pages (IB_MR_REREG_TRANS), or write access to pages pinned read-only,
 * need a new pinning: that is a new MR, which ib_core swaps in for the old
 * one and then deregisters the old one.
 */
static struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags,
					 u64 start, u64 length, u64 iova,
					 int access, struct ib_pd *ibpd,
					 struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_pd *pd = mr->pd;
	unsigned long irqflags;
	u32 key, index, old;
	int err;

	if (mr->type != SROCE_MR_USER)
		return ERR_PTR(-EINVAL);
	if (READ_ONCE(mr->num_mw))
		return ERR_PTR(-EBUSY);
	if (flags & IB_MR_REREG_PD)
		pd = to_spd(ibpd);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	err = sroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);

	if (flags & IB_MR_REREG_TRANS)
		return sroce_reg_user_mr(&pd->ibpd, start, length, iova,
					 access, udata);
	if (ib_access_writable(access) && !mr->umem->writable)
		return sroce_reg_user_mr(&pd->ibpd, mr->umem->address,
					 mr->length, mr->iova, access, udata);

	/*
	 * A new key, from a new index: keys handed out before name an empty
	 * slot, and the new one cannot be told from the old.  The MR is
	 * found at both until the old index is given back, but only by its
	 * current key.  The number of keys stays, so it is not counted.
	 */
	err = sroce_key_draw(sdev, &index);
	if (err)
		return ERR_PTR(err);
	key = sroce_key_make(index, get_random_u8());
	sroce_key_publish(sdev, index, mr, SROCE_KEY_MR);
	spin_lock_irqsave(&mr->lock, irqflags);
	/* a window bound meanwhile: refused, as when one was bound before */
	if (mr->num_mw) {
		spin_unlock_irqrestore(&mr->lock, irqflags);
		sroce_key_erase(sdev, index);
		return ERR_PTR(-EBUSY);
	}
	old = sroce_key_index(mr->ibmr.lkey);
	mr->pd = pd;
	mr->access = access;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	spin_unlock_irqrestore(&mr->lock, irqflags);
	sroce_key_erase(sdev, old);
	return NULL;
}

static int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	unsigned long flags;

	/* bound windows hold references; IBTA has dereg fail meanwhile */
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->num_mw) {
		spin_unlock_irqrestore(&mr->lock, flags);
		return -EBUSY;
	}
	mr->state = SROCE_MR_DEAD;
	spin_unlock_irqrestore(&mr->lock, flags);

	sroce_key_free(to_sdev(ibmr->device), sroce_key_index(mr->ibmr.lkey));
	/*
	 * Now no new lookup finds it; the transport may still be copying
	 * through references taken before, in softirq.  Wait for those.
	 */
	sroce_mr_put(mr);
	wait_for_completion(&mr->done);
	sroce_mr_release(mr);
	return 0;
}

/* ---- fast registration ------------------------------------------------- */

static struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct sroce_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_alloc(to_spd(ibpd), SROCE_MR_FAST, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->fr_pages = kcalloc(max_num_sg, sizeof(*mr->fr_pages), GFP_KERNEL);
	if (!mr->fr_pages) {
		sroce_mr_abort(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->fr_max = max_num_sg;
	sroce_mr_publish(mr);
	return &mr->ibmr;
}

static int sroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->fr_mapped >= mr->fr_max)
		return -ENOMEM;
	mr->fr_pages[mr->fr_mapped++] = addr;
	return 0;
}

/*
 * The page list is only staged here; IB_WR_REG_MR (sroce_mr_fast_reg())
 * makes it the MR's translation.
 */
static int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);
	int n;

	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_512)
		return -EINVAL;
	mr->fr_mapped = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_set_page);
	mr->fr_map_off = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/**
 * sroce_mr_fast_reg() - execute IB_WR_REG_MR
 * @mr: reg_wr(wr)->mr; the caller checked it belongs to the QP's PD
 * @key: reg_wr(wr)->key, the new lkey and rkey (only its low byte may
 *	differ from the MR's key)
 * @access: reg_wr(wr)->access
 *
 * Takes the page list of the last map_mr_sg and the MR's current iova and
 * length.  Return: 0, or -EINVAL if the MR is not a free fast-reg MR or the
 * key, access or mapping is bad.
 */
int sroce_mr_fast_reg(struct sroce_mr *mr, u32 key, int access)
{
	unsigned long flags;
	u32 shift, npages;
	int err = -EINVAL;

	if (mr->type != SROCE_MR_FAST ||
	    sroce_key_index(key) != sroce_key_index(mr->ibmr.lkey) ||
	    sroce_mr_check_access(access))
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != SROCE_MR_FREE ||
	    !is_power_of_2(mr->ibmr.page_size))
		goto out;
	shift = ilog2(mr->ibmr.page_size);
	npages = min(mr->fr_mapped, mr->fr_max);
	/* npages << shift is at least a page, so more than fr_map_off */
	if (!npages || mr->ibmr.length >
		       ((u64)npages << shift) - mr->fr_map_off)
		goto out;
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	mr->page_shift = shift;
	mr->page_off = mr->fr_map_off;
	mr->npages = npages;
	mr->access = access;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->state = SROCE_MR_VALID;
	err = 0;
out:
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/*
 * rdma resource show mr -dd: whether the MR grants access now (a fast-reg
 * MR between registrations does not), the pages it pins or maps, and the
 * windows bound to it
 */
static int sroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_res_attr a[] = {
		{ .name = "valid" },
		{ .name = "pages" },
		{ .name = "page_size" },
		{ .name = "windows" },
	};
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	a[0].value = mr->state == SROCE_MR_VALID;
	a[1].value = mr->type == SROCE_MR_FAST ? mr->fr_mapped : mr->npages;
	a[2].value = mr->type == SROCE_MR_DMA ? 0 : 1U << mr->page_shift;
	a[3].value = mr->num_mw;
	spin_unlock_irqrestore(&mr->lock, flags);
	return sroce_fill_res_attrs(msg, a, ARRAY_SIZE(a));
}

const struct ib_device_ops sroce_mr_ops = {
	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,
	.get_dma_mr = sroce_get_dma_mr,
	.reg_user_mr = sroce_reg_user_mr,
	.rereg_user_mr = sroce_rereg_user_mr,
	.dereg_mr = sroce_dereg_mr,
	.alloc_mr = sroce_alloc_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.fill_res_mr_entry = sroce_fill_res_mr_entry,
};
