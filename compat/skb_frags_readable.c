// SPDX-License-Identifier: GPL-2.0
/* skbs whose fragments the CPU may not read, device memory TCP's (6.12). */
#include <linux/skbuff.h>

bool sroce_probe(const struct sk_buff *skb);
bool sroce_probe(const struct sk_buff *skb)
{
	return skb_frags_readable(skb);
}
