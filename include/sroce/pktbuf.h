/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet in an skb whose bytes may sit in page fragments after the
 * linear part: a zero-copy request on transmit (txzc.h), and on receive
 * whatever the netdev built, read where it lies rather than copied into
 * one buffer first (rx.c).  The linear part always holds every header up
 * to the payload; the payload, pad and ICRC may be anywhere after it.
 *
 * struct sroce_bytes names the far end of a copy to or from memory
 * regions (mr.h): a kernel buffer, or the bytes of a received skb.
 */
#ifndef SROCE_PKTBUF_H
#define SROCE_PKTBUF_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include <sroce/frame.h>
#include <sroce/nethdr.h>

/**
 * struct sroce_bytes - where a copy takes bytes from or puts them
 * @skb: a received packet, whose bytes from @off are read (never
 *	written: it is only ever a source); NULL for @buf
 * @buf: a kernel buffer, read or written
 * @off: offset from @skb's data
 *
 * sroce_bytes_move() advances it past the bytes it moved, so one value
 * serves a run of copies through consecutive pieces of a message.
 */
struct sroce_bytes {
	const struct sk_buff *skb;
	u8 *buf;
	unsigned int off;
};

static inline struct sroce_bytes sroce_bytes_buf(void *buf)
{
	return (struct sroce_bytes){ .buf = buf };
}

/*
 * The payload of a packet the receive path accepted: in its skb (whose
 * data starts at the network header) or, parsed from a bare buffer, at @nh.
 */
static inline struct sroce_bytes sroce_pkt_payload_bytes(const void *nh,
							 const struct sroce_pkt *pkt)
{
	if (pkt->skb)
		return (struct sroce_bytes){ .skb = pkt->skb,
					     .off = pkt->payload_off };
	return sroce_bytes_buf((u8 *)nh + pkt->payload_off);
}

int sroce_bytes_move(struct sroce_bytes *b, void *va, u32 n, bool to_va);

int sroce_skb_icrc(const struct sk_buff *skb, enum sroce_net_type t,
		   unsigned int len, u32 *icrc);

bool sroce_skb_icrc_ok(const struct sk_buff *skb, const struct sroce_pkt *pkt);

#endif /* SROCE_PKTBUF_H */
