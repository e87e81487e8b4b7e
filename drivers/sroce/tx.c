// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the transmit layer */
#include <linux/skbuff.h>
#include <sroce/qp.h>
#include <sroce/sroce.h>

int sroce_tx_init(struct sroce_dev *sdev)
{
	return 0;
}

void sroce_tx_fini(struct sroce_dev *sdev)
{
}

struct sk_buff *sroce_tx_alloc(struct sroce_dev *sdev,
			       const struct sroce_av *av, u16 sport,
			       unsigned int tp_len, void **bth)
{
	return NULL;
}

int sroce_tx_send(struct sroce_dev *sdev, struct sk_buff *skb, u8 prio,
		  struct sroce_tx_waiter *w)
{
	kfree_skb(skb);
	return -ENODEV;
}

void sroce_tx_cancel_wait(struct sroce_dev *sdev, struct sroce_tx_waiter *w)
{
}
