// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy transmit (include/sroce/txzc.h): payload pages as skb
 * fragments, a trailer fragment for the pad and the ICRC, and the ICRC
 * computed over all of it.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include <sroce/icrc.h>
#include <sroce/sroce.h>
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

/* The running ICRC over @len bytes of fragment @f, a page at a time */
static u32 sroce_txzc_frag_crc(u32 crc, const skb_frag_t *f, u32 len)
{
	u32 p_off, p_len, done;
	struct page *p;
	u8 *va;

	skb_frag_foreach_page(f, skb_frag_off(f), len, p, p_off, p_len, done) {
		va = kmap_local_page(p);
		crc = sroce_icrc_update(crc, va + p_off, p_len);
		kunmap_local(va);
	}
	return crc;
}

int sroce_txzc_put_icrc(struct sk_buff *skb, enum sroce_net_type t)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	u8 *nh = skb_network_header(skb);
	unsigned int lin = skb_tail_pointer(skb) - nh;
	unsigned int n = sroce_icrc_hdr_len(t, nh);
	const skb_frag_t *last;
	unsigned int i;
	u32 crc;

	if (!sh->nr_frags || skb_has_frag_list(skb) || !n || lin < n)
		return -EINVAL;
	last = &sh->frags[sh->nr_frags - 1];
	if (skb_frag_size(last) < SROCE_ICRC_LEN)
		return -EINVAL;

	crc = sroce_icrc_start(t, nh);
	crc = sroce_icrc_update(crc, nh + n, lin - n);
	for (i = 0; i + 1 < sh->nr_frags; i++)
		crc = sroce_txzc_frag_crc(crc, &sh->frags[i],
					  skb_frag_size(&sh->frags[i]));
	crc = sroce_txzc_frag_crc(crc, last,
				  skb_frag_size(last) - SROCE_ICRC_LEN);
	/* the trailer came from netdev_alloc_frag(): mapped memory */
	sroce_icrc_put((u8 *)skb_frag_address(last) + skb_frag_size(last) -
		       SROCE_ICRC_LEN, sroce_icrc_finish(crc));
	return 0;
}
