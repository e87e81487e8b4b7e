// SPDX-License-Identifier: GPL-2.0
/*
 * Packets in fragments (include/sroce/pktbuf.h): the ICRC over a linear
 * part and page fragments, and copies out of a received skb.
 */
#include <linux/highmem.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include <sroce/icrc.h>
#include <sroce/pktbuf.h>

/**
 * sroce_bytes_move() - copy @n bytes between @b and mapped memory
 * @b: the other end, advanced by @n on success
 * @va: the memory
 * @n: how many bytes
 * @to_va: from @b into @va; otherwise from @va into @b, which must then
 *	be a buffer
 *
 * Return: 0, or -EFAULT when @b is a packet without @n more bytes or
 * is asked to take bytes.
 */
int sroce_bytes_move(struct sroce_bytes *b, void *va, u32 n, bool to_va)
{
	if (b->skb) {
		if (!to_va || skb_copy_bits(b->skb, b->off, va, n))
			return -EFAULT;
		b->off += n;
		return 0;
	}
	if (to_va)
		memcpy(va, b->buf, n);
	else
		memcpy(b->buf, va, n);
	b->buf += n;
	return 0;
}

/* The running ICRC over the first @len bytes of fragment @f, a page at a time */
static u32 sroce_frag_crc(u32 crc, const skb_frag_t *f, u32 len)
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

/**
 * sroce_skb_icrc() - the ICRC of a packet whose bytes may be in fragments
 * @skb: the packet, its network header set; no frag_list
 * @t: its encapsulation
 * @len: the bytes it covers from the network header (up to the ICRC)
 * @icrc: set to the ICRC, as it goes on the wire
 *
 * The linear part must hold the headers the ICRC masks
 * (sroce_icrc_hdr_len()); the rest is read where it lies.
 *
 * Return: 0, or -EINVAL when the headers are not linear, the packet is
 * shorter than @len or has a frag_list.
 */
int sroce_skb_icrc(const struct sk_buff *skb, enum sroce_net_type t,
		   unsigned int len, u32 *icrc)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	const u8 *nh = skb_network_header(skb);
	unsigned int lin = skb_tail_pointer(skb) - nh;
	unsigned int n = sroce_icrc_hdr_len(t, nh);
	unsigned int i, k;
	u32 crc;

	if (skb_has_frag_list(skb) || !n || lin < n || len < n)
		return -EINVAL;
	crc = sroce_icrc_start(t, nh);
	k = min(lin, len) - n;
	crc = sroce_icrc_update(crc, nh + n, k);
	len -= n + k;
	for (i = 0; len && i < sh->nr_frags; i++) {
		k = min(len, skb_frag_size(&sh->frags[i]));
		crc = sroce_frag_crc(crc, &sh->frags[i], k);
		len -= k;
	}
	if (len)
		return -EINVAL;
	*icrc = sroce_icrc_finish(crc);
	return 0;
}

/**
 * sroce_skb_icrc_ok() - check a received packet's ICRC where it lies
 * @skb: the packet, its data at the network header, headers linear
 * @pkt: what sroce_pkt_parse() made of it
 *
 * Return: whether the ICRC carried matches the bytes.
 */
bool sroce_skb_icrc_ok(const struct sk_buff *skb, const struct sroce_pkt *pkt)
{
	u8 buf[SROCE_ICRC_LEN];
	const void *p;
	u32 icrc;

	p = skb_header_pointer(skb, pkt->icrc_off, sizeof(buf), buf);
	return p && !sroce_skb_icrc(skb, pkt->type, pkt->icrc_off, &icrc) &&
	       icrc == sroce_icrc_get(p);
}
