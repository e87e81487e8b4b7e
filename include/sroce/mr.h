/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions and address handles as the transport sees them: keyed
 * lookups with a reference (callable from softirq), bounds-checked copies,
 * pages for zero-copy transmit, 8-byte atomics, and the state changes of
 * IB_WR_REG_MR and invalidation.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct page;
struct rdma_ah_attr;
struct sroce_ah;
struct sroce_av;
struct sroce_bytes;
struct sroce_dev;
struct sroce_mr;
struct sroce_pd;

enum sroce_copy_dir {
	SROCE_COPY_TO_MR,	/* buf -> MR (receive, write, read response) */
	SROCE_COPY_FROM_MR,	/* MR -> buf (send, read request) */
};

enum sroce_atomic_op {
	SROCE_ATOMIC_CMP_SWAP,
	SROCE_ATOMIC_FETCH_ADD,
};

/* Fast-reg page lists and what we report as max_fast_reg_page_list_len */
#define SROCE_MAX_FAST_REG_PAGES	512

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
int sroce_mr_invalidate(struct sroce_pd *pd, u32 rkey);

struct sroce_mr *sroce_rkey_lookup(struct sroce_dev *sdev, u32 rkey,
				   struct sroce_pd *pd, u32 qpn, int access,
				   u64 iova, u64 len);
int sroce_mw_bind(struct sroce_dev *sdev, u32 mw_rkey, u32 new_rkey,
		  struct sroce_pd *pd, u32 qpn, struct sroce_mr *mr,
		  u64 addr, u64 length, int access);

int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr);
struct sroce_ah *sroce_ah_get(struct sroce_dev *sdev, u32 ah_num);
void sroce_ah_put(struct sroce_ah *ah);

extern const struct ib_device_ops sroce_mr_ops;
extern const struct ib_device_ops sroce_ah_ops;

#endif /* SROCE_MR_H */
