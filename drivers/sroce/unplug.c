// SPDX-License-Identifier: GPL-2.0
/*
 * Taking a device from users who still hold it open: rdma link delete,
 * removal of the netdev or its namespace, and module unload finish at
 * once instead of waiting for every process to close its verbs file.
 *
 * ib_core does most of it once a driver offers disassociate_ucontext:
 * unregistration destroys each open file's objects (RDMA_REMOVE_DRIVER_REMOVE),
 * answers the process's later commands with EIO, delivers
 * IB_EVENT_DEVICE_FATAL on its async file, and no longer pins the driver
 * module for open files.  Two things are ours:
 *
 * - The rings.  They are vmalloc_user() pages inserted into the process
 *   with remap_vmalloc_range(), so each mapped page holds a reference of
 *   its own: the process keeps reading and writing memory that is still
 *   its, never freed memory, until it unmaps it, whenever the buffer is
 *   vfree()d.  ib_core's zap of device mappings concerns VM_PFNMAP I/O
 *   memory and does not apply; there is nothing to revoke.
 *
 * - The posted work.  Before ib_core destroys the objects, an ib_client
 *   whose remove runs ahead of ib_uverbs's moves the device's user QPs to
 *   ERR, so that every WQE they hold completes with IB_WC_WR_FLUSH_ERR in
 *   the CQ rings the process still has mapped (IBTA 10.3.1: the work of a
 *   QP in the Error state is completed in error).  Clients are removed in
 *   the reverse order of their registration; ours registers at module
 *   load, after asking for ib_uverbs (not a soft dependency: modprobe -r
 *   would then try to unload ib_uverbs with us, and fail while it is in
 *   use).
 */
#include <linux/kconfig.h>
#include <linux/kmod.h>
#include <rdma/ib_verbs.h>

#include <sroce/device.h>
#include <sroce/link.h>
#include <sroce/transport.h>

/*
 * Nothing to revoke (see above); the op itself is what tells ib_core that
 * sroce lets go of its users at removal.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

const struct ib_device_ops sroce_unplug_ops = {
	.disassociate_ucontext = sroce_disassociate_ucontext,
};

static void sroce_unplug_remove(struct ib_device *ib_dev, void *client_data)
{
	/* every RDMA device passes here; only ours are for us */
	if (ib_dev->ops.disassociate_ucontext != sroce_disassociate_ucontext)
		return;
	sroce_qps_flush_user(to_sdev(ib_dev));
}

static struct ib_client sroce_unplug_client = {
	.name = "sroce_unplug",
	.remove = sroce_unplug_remove,
};

int sroce_unplug_init(void)
{
	/*
	 * Best effort: without ib_uverbs there are no user QPs to flush, and
	 * if it is reloaded later, its client goes first and the user
	 * objects are destroyed before any flush (documented).
	 */
	if (IS_MODULE(CONFIG_INFINIBAND_USER_ACCESS))
		request_module("ib_uverbs");
	return ib_register_client(&sroce_unplug_client);
}

void sroce_unplug_exit(void)
{
	ib_unregister_client(&sroce_unplug_client);
}
