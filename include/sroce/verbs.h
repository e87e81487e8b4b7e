/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce verbs objects.  Each embeds the ib_core object ib_core allocates
 * for us (INIT_RDMA_OBJ_SIZE) and grows as the transport lands.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include <linux/completion.h>
#include <linux/if_ether.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include <sroce/nethdr.h>
#include <sroce/queue.h>

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

extern const struct ib_device_ops sroce_verbs_ops;

/**
 * struct sroce_res_attr - a driver attribute of rdma resource show -dd
 * @name: its name (the rdma tool prints it with "drv_" before it)
 * @value: its value
 * @hex: print @value in hex (PSNs)
 */
struct sroce_res_attr {
	const char *name;
	u32 value;
	bool hex;
};

int sroce_fill_res_attrs(struct sk_buff *msg, const struct sroce_res_attr *a,
			 unsigned int n);

#endif /* SROCE_VERBS_H */
