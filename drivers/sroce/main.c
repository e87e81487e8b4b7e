// SPDX-License-Identifier: GPL-2.0
/*
 * sroce module entry: receive hooks first, then the device registry,
 * then the client that flushes
 * user QPs at removal (unplug.c), then the link type, so that a link can
 * never be added before its packets have somewhere to go, nor removed
 * without its users' work completing.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include <sroce/device.h>
#include <sroce/icrc.h>
#include <sroce/limits.h>
#include <sroce/link.h>
#include <sroce/rx.h>
#include <sroce/tx.h>

static int __init sroce_init(void)
{
	int err;

	err = sroce_net_init();
	if (err)
		return err;

	err = sroce_registry_init();
	if (err)
		goto out_net;
	err = sroce_unplug_init();
	if (err)
		goto out_registry;
	err = sroce_link_init();
	if (err)
		goto out_unplug;
	return 0;

out_unplug:
	sroce_unplug_exit();
out_registry:
	sroce_registry_exit();
out_net:
	sroce_net_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	sroce_link_exit();
	sroce_tx_exit();
	sroce_unplug_exit();
	sroce_registry_exit();
	sroce_net_exit();
	sroce_icrc_accel_stop();
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_DESCRIPTION("Software RoCE (RoCEv1 and RoCEv2) driver");
MODULE_AUTHOR("The sroce developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK(SROCE_LINK_TYPE);
