// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy transmit (include/sroce/txzc.h): payload pages as skb
 * fragments, a trailer fragment for the pad and the ICRC, and the ICRC
 * computed over all of it.
 */
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include <sroce/device.h>
#include <sroce/icrc.h>
#include <sroce/pktbuf.h>
#include <sroce/txzc.h>

bool sroce_txzc_possible(const struct sroce_dev *sdev)
{
	return READ_ONCE(sdev->ndev->features) & NETIF_F_SG;
}

static void sroce_txzc_grow(struct sk_buff *skb, unsigned int len)
{
	skb->len += len;
	skb->data_len += len;
	skb->truesize += len;
}

int sroce_tx_add_page(struct sk_buff *skb, struct page *page,
		      unsigned int off, unsigned int len)
{
	unsigned int i = skb_shinfo(skb)->nr_frags;

	if (i >= MAX_SKB_FRAGS - 1)
		return -EMSGSIZE;
	/* what the stack may hold a reference on: not slab memory */
	if (!sendpage_ok(page))
		return -EFAULT;
	get_page(page);
	skb_fill_page_desc(skb, i, page, off, len);
	sroce_txzc_grow(skb, len);
	return 0;
}

int sroce_tx_add_trailer(struct sk_buff *skb, unsigned int pad)
{
	unsigned int len = pad + SROCE_ICRC_LEN;
	unsigned int i = skb_shinfo(skb)->nr_frags;
	struct page *page;
	u8 *va;

	if (i >= MAX_SKB_FRAGS)
		return -EMSGSIZE;
	/* its page reference passes to the fragment */
	va = netdev_alloc_frag(len);
	if (!va)
		return -ENOMEM;
	memset(va, 0, len);
	page = virt_to_head_page(va);
	skb_fill_page_desc(skb, i, page, va - (u8 *)page_address(page), len);
	sroce_txzc_grow(skb, len);
	return 0;
}

int sroce_txzc_put_icrc(struct sk_buff *skb, enum sroce_net_type t)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int len = skb_tail_pointer(skb) - skb_network_header(skb) +
			   skb->data_len;
	const skb_frag_t *last;
	u32 icrc;

	if (!sh->nr_frags)
		return -EINVAL;
	last = &sh->frags[sh->nr_frags - 1];
	if (skb_frag_size(last) < SROCE_ICRC_LEN ||
	    sroce_skb_icrc(skb, t, len - SROCE_ICRC_LEN, &icrc))
		return -EINVAL;
	/* the trailer came from netdev_alloc_frag(): mapped memory */
	sroce_icrc_put((u8 *)skb_frag_address(last) + skb_frag_size(last) -
		       SROCE_ICRC_LEN, icrc);
	return 0;
}
