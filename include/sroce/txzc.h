/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zero-copy transmit: a packet whose payload stays in the pages of the
 * memory region it comes from, attached to the skb as fragments, with the
 * pad and the ICRC in a small trailer fragment after them.  The linear
 * part holds the headers only (sroce_tx_alloc_frags()).
 *
 *	skb = sroce_tx_alloc_frags(sdev, av, sport, tp_len, frag_len, &bth);
 *	fill the headers at bth;
 *	sroce_tx_add_page(skb, page, off, len);	(for each payload piece)
 *	sroce_tx_add_trailer(skb, pad);
 *	sroce_tx_send(...);			(computes the ICRC over it all)
 *
 * Each fragment holds a reference on its page until the skb is freed, so
 * the payload outlives a memory region deregistered meanwhile.  The bytes
 * are read when the ICRC is computed and again when the netdev sends
 * them: an application that changes a buffer it posted sends a packet
 * whose ICRC fails, which the peer drops like a damaged one.
 */
#ifndef SROCE_TXZC_H
#define SROCE_TXZC_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include <sroce/nethdr.h>

struct sroce_dev;
struct sroce_av;

/*
 * Payloads shorter than this are copied: a copy of so few bytes costs
 * less than the page references and the trailer fragment.
 */
#define SROCE_TXZC_MIN		256

/* Can @sdev's netdev take fragments?  Without scatter-gather, copy. */
bool sroce_txzc_possible(const struct sroce_dev *sdev);

/*
 * sroce_tx_alloc() for a transport part of @tp_len bytes of which the
 * last @frag_len (payload and pad) will be fragments: the linear part
 * ends with the headers, and *@bth points at them.  NULL when out of
 * memory.
 */
struct sk_buff *sroce_tx_alloc_frags(struct sroce_dev *sdev,
				     const struct sroce_av *av, u16 sport,
				     unsigned int tp_len,
				     unsigned int frag_len, void **bth);

/*
 * Append @len bytes at @off of @page as a fragment, taking a page
 * reference.  -EMSGSIZE when the skb has no fragment left (one stays for
 * the trailer), -EFAULT for a page the network stack must not hold (a
 * slab page): the caller copies instead.
 */
int sroce_tx_add_page(struct sk_buff *skb, struct page *page,
		      unsigned int off, unsigned int len);

/* Append the trailer: @pad zero bytes and room for the ICRC; 0 or -errno */
int sroce_tx_add_trailer(struct sk_buff *skb, unsigned int pad);

/*
 * The ICRC of a packet built this way, over the headers from @nh to the
 * end of the linear part and every fragment but the ICRC's own 4 bytes,
 * written there.  0, or -EINVAL for a packet not built this way.
 */
int sroce_txzc_put_icrc(struct sk_buff *skb, enum sroce_net_type t);

#endif /* SROCE_TXZC_H */
