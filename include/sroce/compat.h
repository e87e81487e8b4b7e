/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels sroce builds for, each difference
 * written once and named for what it provides.  SROCE_HAVE_<PROBE> comes
 * from compat/<probe>.c compiling against the target kernel's headers
 * (compat/probe.sh, run by Kbuild); compat/expected says what each
 * supported kernel has.  A fallback here goes when the oldest supported
 * kernel has what it stands in for.
 *
 * Where a kernel lacks a facility altogether (RDMA ATOMIC WRITE and FLUSH
 * before ib_core had them), the code that uses it is left out under the
 * same macro and the feature is not advertised.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <sroce_probes.h>

#ifdef SROCE_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * For TP_fast_assign(): copy a __string() field from its source, which
 * the one-argument form takes from __string() itself (only named here)
 */
#ifdef SROCE_HAVE_ASSIGN_STR_ONE_ARG
#define sroce_assign_str(field, src)		\
	do {					\
		__assign_str(field);		\
		(void)sizeof(src);		\
	} while (0)
#else
#define sroce_assign_str(field, src)	__assign_str(field, src)
#endif

#ifndef SROCE_HAVE_SKB_FRAGS_READABLE
#include <linux/skbuff.h>

/* Without device memory TCP, every fragment is in host memory. */
static inline bool skb_frags_readable(const struct sk_buff *skb)
{
	return true;
}
#endif

#ifndef SROCE_HAVE_IB_VIRT_DMA_TO_PTR
#include <linux/types.h>

/* Kernel consumers hand software devices virtual addresses as DMA ones. */
static inline void *ib_virt_dma_to_ptr(u64 dma_addr)
{
	return (void *)(uintptr_t)dma_addr;
}
#endif

/*
 * Work that must run as a softirq would: on a BH workqueue where there is
 * one; elsewhere in process context with bottom halves off, which gives
 * the receive path the same guarantees (no sleeping, no softirq racing on
 * this CPU) one scheduling hop later.
 */
#include <linux/bottom_half.h>
#include <linux/workqueue.h>

#ifdef SROCE_HAVE_SYSTEM_BH_WQ
static inline bool sroce_queue_bh_work(struct work_struct *work)
{
	return queue_work(system_bh_wq, work);
}

static inline void sroce_bh_work_begin(void)
{
}

static inline void sroce_bh_work_end(void)
{
}
#else
static inline bool sroce_queue_bh_work(struct work_struct *work)
{
	return queue_work(system_highpri_wq, work);
}

static inline void sroce_bh_work_begin(void)
{
	local_bh_disable();
}

static inline void sroce_bh_work_end(void)
{
	local_bh_enable();
}
#endif

#endif /* SROCE_COMPAT_H */
