// SPDX-License-Identifier: GPL-2.0
/* The unaligned accessors moved from <asm/unaligned.h> to here in 6.12. */
#include <linux/unaligned.h>

u32 sroce_probe(const void *p);
u32 sroce_probe(const void *p)
{
	return get_unaligned_be32(p);
}
