// SPDX-License-Identifier: GPL-2.0
/* Workqueues whose items run in softirq context (6.9). */
#include <linux/workqueue.h>

struct workqueue_struct *sroce_probe(void);
struct workqueue_struct *sroce_probe(void)
{
	return system_bh_wq;
}
