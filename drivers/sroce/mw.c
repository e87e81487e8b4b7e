// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (type 1 and 2): allocation, binding, invalidation, and
 * the lookup of an rkey that may name a window or an MR.
 */
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include <sroce/device.h>
#include <sroce/mr.h>
#include <sroce/numspace.h>
#include <sroce/verbs.h>

/*
 * Windows take keys from the MRs' key space, so an rkey names at most one
 * object.  ib_core frees a window as soon as dealloc_mw returns, without
 * a grace period, so dealloc waits for one itself: lookups find windows
 * under RCU and use them only under the window's lock, and a lookup never
 * hands a window out, only a reference on the MR behind it.
 */
static int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	spin_lock_init(&mw->lock);
	mw->state = SROCE_MR_FREE;
	err = sroce_key_reserve(sdev, &index);
	if (err)
		return err;
	ibmw->rkey = sroce_key_make(index, get_random_u8());
	sroce_key_publish(sdev, index, ibmw, SROCE_KEY_MW);
	return 0;
}

/* Unbind; the caller drops the MR with sroce_mw_release_mr() unlocked. */
static struct sroce_mr *sroce_mw_unbind_locked(struct sroce_mw *mw)
{
	struct sroce_mr *mr = mw->state == SROCE_MR_VALID ? mw->mr : NULL;

	mw->state = SROCE_MR_FREE;
	mw->mr = NULL;
	return mr;
}

static void sroce_mw_release_mr(struct sroce_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	mr->num_mw--;
	spin_unlock_irqrestore(&mr->lock, flags);
	sroce_mr_put(mr);
}

static int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_mw *mw = to_smw(ibmw);
	struct sroce_mr *mr;
	unsigned long flags;

	sroce_key_free(to_sdev(ibmw->device), sroce_key_index(ibmw->rkey));
	/* lookups that found the window before are done with it after this */
	synchronize_rcu();
	spin_lock_irqsave(&mw->lock, flags);
	mr = sroce_mw_unbind_locked(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	if (mr)
		sroce_mw_release_mr(mr);
	return 0;
}

#define SROCE_MW_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)

/**
 * sroce_mw_bind() - execute a bind (IB_WR_BIND_MW, or ibv_bind_mw for type 1)
 * @sdev: the device
 * @mw_rkey: the window's current rkey, from the work request
 * @new_rkey: its rkey once bound (same index, new key byte)
 * @pd: PD of the QP executing the bind
 * @qpn: that QP's number (a type 2 window serves only this QP)
 * @mr: the MR to bind to, found by its lkey in @pd and referenced; NULL
 *	for a zero-length bind of a type 1 window, which unbinds it
 * @addr: first byte of the window, in @mr's iova space
 * @length: bytes in the window
 * @access: IB_ACCESS_REMOTE_* the window grants
 *
 * Type 1 windows may be bound again (the old binding goes); type 2 windows
 * must be invalidated first.  The window takes its own reference on @mr.
 * A type 1 window unbound by a zero-length bind takes @new_rkey all the
 * same: librxe has moved its key on.
 * Return: 0, or -EINVAL for any violation of the above, a window or MR of
 * another PD, an MR without IB_ACCESS_MW_BIND, remote write or atomic
 * through an MR without local write, or a window outside the MR.
 */
int sroce_mw_bind(struct sroce_dev *sdev, u32 mw_rkey, u32 new_rkey,
		  struct sroce_pd *pd, u32 qpn, struct sroce_mr *mr,
		  u64 addr, u64 length, int access)
{
	struct sroce_mr *old = NULL;
	struct sroce_mw *mw;
	struct ib_mw *ibmw;
	unsigned long flags;
	int err = -EINVAL;
	bool ok;

	if (sroce_key_index(new_rkey) != sroce_key_index(mw_rkey) ||
	    (access & ~SROCE_MW_ACCESS))
		return -EINVAL;

	rcu_read_lock();
	ibmw = sroce_key_load_rcu(sdev, mw_rkey, SROCE_KEY_MW);
	if (!ibmw)
		goto out_rcu;
	mw = to_smw(ibmw);
	spin_lock_irqsave(&mw->lock, flags);
	if (ibmw->rkey != mw_rkey || ibmw->pd != &pd->ibpd ||
	    (ibmw->type == IB_MW_TYPE_2 && mw->state != SROCE_MR_FREE))
		goto out_unlock;

	if (!mr) {
		if (ibmw->type != IB_MW_TYPE_1 || length)
			goto out_unlock;
		old = sroce_mw_unbind_locked(mw);
		ibmw->rkey = new_rkey;
		err = 0;
		goto out_unlock;
	}
	spin_lock(&mr->lock);
	ok = mr->state == SROCE_MR_VALID && mr->pd == pd &&
	     (mr->access & IB_ACCESS_MW_BIND) &&
	     (!(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
	      (mr->access & IB_ACCESS_LOCAL_WRITE)) &&
	     sroce_range_ok(mr->iova, mr->length, addr, length);
	if (ok) {
		mr->num_mw++;
		refcount_inc(&mr->ref);
	}
	spin_unlock(&mr->lock);
	if (!ok)
		goto out_unlock;

	old = sroce_mw_unbind_locked(mw);
	mw->mr = mr;
	mw->addr = addr;
	mw->length = length;
	mw->access = access;
	mw->qpn = qpn;
	ibmw->rkey = new_rkey;
	mw->state = SROCE_MR_VALID;
	err = 0;
out_unlock:
	spin_unlock_irqrestore(&mw->lock, flags);
out_rcu:
	rcu_read_unlock();
	if (old)
		sroce_mw_release_mr(old);
	return err;
}

static int sroce_mw_invalidate(struct sroce_dev *sdev, struct sroce_pd *pd,
			       u32 rkey)
{
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	struct ib_mw *ibmw;
	unsigned long flags;
	int err = -EINVAL;

	rcu_read_lock();
	ibmw = sroce_key_load_rcu(sdev, rkey, SROCE_KEY_MW);
	if (ibmw) {
		mw = to_smw(ibmw);
		spin_lock_irqsave(&mw->lock, flags);
		/* IBTA: type 1 windows are not invalidated by key */
		if (ibmw->type == IB_MW_TYPE_2 &&
		    mw->state == SROCE_MR_VALID && ibmw->rkey == rkey &&
		    ibmw->pd == &pd->ibpd) {
			mr = sroce_mw_unbind_locked(mw);
			err = 0;
		}
		spin_unlock_irqrestore(&mw->lock, flags);
	}
	rcu_read_unlock();
	if (mr)
		sroce_mw_release_mr(mr);
	return err;
}

/**
 * sroce_mr_invalidate() - local invalidate or send with invalidate
 * @pd: PD of the QP the request arrived on or was posted to
 * @rkey: the key to invalidate
 *
 * Fast-reg MRs and bound type 2 windows can be invalidated.  Return: 0, or
 * -EINVAL if @rkey names neither a valid fast-reg MR nor a bound type 2
 * window of @pd.
 */
int sroce_mr_invalidate(struct sroce_pd *pd, u32 rkey)
{
	struct sroce_mr *mr = sroce_mr_get(to_sdev(pd->ibpd.device), rkey);
	unsigned long flags;
	int err = -EINVAL;

	if (!mr)
		return sroce_mw_invalidate(to_sdev(pd->ibpd.device), pd, rkey);
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->type == SROCE_MR_FAST && mr->state == SROCE_MR_VALID &&
	    mr->ibmr.rkey == rkey && mr->pd == pd) {
		mr->state = SROCE_MR_FREE;
		err = 0;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	sroce_mr_put(mr);
	return err;
}

/* The MR behind a bound window, if the access fits the window. */
static struct sroce_mr *sroce_mw_get_mr(struct sroce_dev *sdev, u32 rkey,
					struct sroce_pd *pd, u32 qpn,
					int access, u64 iova, u64 len)
{
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	struct ib_mw *ibmw;
	unsigned long flags;

	rcu_read_lock();
	ibmw = sroce_key_load_rcu(sdev, rkey, SROCE_KEY_MW);
	if (ibmw) {
		mw = to_smw(ibmw);
		spin_lock_irqsave(&mw->lock, flags);
		if (mw->state == SROCE_MR_VALID && ibmw->rkey == rkey &&
		    ibmw->pd == &pd->ibpd &&
		    (ibmw->type == IB_MW_TYPE_1 || mw->qpn == qpn) &&
		    (mw->access & access) == access &&
		    sroce_range_ok(mw->addr, mw->length, iova, len) &&
		    READ_ONCE(mw->mr->state) == SROCE_MR_VALID) {
			/* the window's own reference keeps the MR alive */
			mr = mw->mr;
			refcount_inc(&mr->ref);
		}
		spin_unlock_irqrestore(&mw->lock, flags);
	}
	rcu_read_unlock();
	return mr;
}

/**
 * sroce_rkey_lookup() - resolve an rkey from a request packet
 * @sdev: the device
 * @rkey: the R_Key of a RETH or AtomicETH
 * @pd: PD of the QP the request arrived on
 * @qpn: that QP's number (type 2 windows serve one QP)
 * @access: IB_ACCESS_REMOTE_READ, _WRITE or _ATOMIC
 * @iova: first byte accessed
 * @len: bytes accessed
 *
 * For an MR's key, the MR's own range and rights; for a window's, the
 * window's.  Callable from softirq.  Return: the referenced MR to copy
 * through (sroce_mr_copy(), sroce_mr_put()), or NULL: NAK with a remote
 * access error.
 */
struct sroce_mr *sroce_rkey_lookup(struct sroce_dev *sdev, u32 rkey,
				   struct sroce_pd *pd, u32 qpn, int access,
				   u64 iova, u64 len)
{
	struct sroce_mr *mr = sroce_mr_lookup(sdev, rkey, pd, access, true);

	if (!mr)
		return sroce_mw_get_mr(sdev, rkey, pd, qpn, access, iova, len);
	if (sroce_mr_check_range(mr, iova, len)) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

const struct ib_device_ops sroce_mw_ops = {
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,
};
