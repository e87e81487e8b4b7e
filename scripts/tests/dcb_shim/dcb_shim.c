// SPDX-License-Identifier: GPL-2.0
/*
 * A test fixture, never loaded outside the guest tests: gives one netdev
 * that has no DCB of its own (a veth) IEEE DCB operations kept in memory,
 * so that dcb(8) can set its PFC and ETS as on a NIC with DCB, and what
 * sroce does with them can be tested without one.  The netdev keeps the
 * operations until this module is unloaded or it is unregistered.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/dcbnl.h>

static char *ifname = "d0";
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "the netdev (initial namespace) to give DCB to");

/* under RTNL, as dcbnl calls its drivers */
static struct net_device *shim_dev;
static struct ieee_ets shim_ets;
static struct ieee_pfc shim_pfc;

static int shim_getets(struct net_device *dev, struct ieee_ets *ets)
{
	*ets = shim_ets;
	return 0;
}

static int shim_setets(struct net_device *dev, struct ieee_ets *ets)
{
	u8 cap = shim_ets.ets_cap;

	shim_ets = *ets;
	shim_ets.ets_cap = cap;
	return 0;
}

static int shim_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	*pfc = shim_pfc;
	return 0;
}

static int shim_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	shim_pfc.pfc_en = pfc->pfc_en;
	shim_pfc.mbc = pfc->mbc;
	shim_pfc.delay = pfc->delay;
	return 0;
}

static u8 shim_getdcbx(struct net_device *dev)
{
	return DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
}

static const struct dcbnl_rtnl_ops shim_ops = {
	.ieee_getets = shim_getets,
	.ieee_setets = shim_setets,
	.ieee_getpfc = shim_getpfc,
	.ieee_setpfc = shim_setpfc,
	.getdcbx = shim_getdcbx,
};

static void shim_release(void)
{
	if (shim_dev && shim_dev->dcbnl_ops == &shim_ops)
		shim_dev->dcbnl_ops = NULL;
	shim_dev = NULL;
}

static int shim_event(struct notifier_block *nb, unsigned long event,
		      void *ptr)
{
	if (event == NETDEV_UNREGISTER &&
	    netdev_notifier_info_to_dev(ptr) == shim_dev)
		shim_release();
	return NOTIFY_DONE;
}

static struct notifier_block shim_nb = {
	.notifier_call = shim_event,
};

static int __init shim_init(void)
{
	struct net_device *dev;
	int i, ret;

	/* as a NIC starts: eight classes of equal share, PFC off */
	shim_ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		shim_ets.prio_tc[i] = i;
		shim_ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		shim_ets.tc_tx_bw[i] = i < 4 ? 13 : 12;
	}
	shim_pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;

	ret = register_netdevice_notifier(&shim_nb);
	if (ret)
		return ret;
	rtnl_lock();
	dev = __dev_get_by_name(&init_net, ifname);
	if (!dev || dev->dcbnl_ops) {
		rtnl_unlock();
		unregister_netdevice_notifier(&shim_nb);
		return dev ? -EBUSY : -ENODEV;
	}
	shim_dev = dev;
	dev->dcbnl_ops = &shim_ops;
	rtnl_unlock();
	return 0;
}

static void __exit shim_exit(void)
{
	rtnl_lock();
	shim_release();
	rtnl_unlock();
	unregister_netdevice_notifier(&shim_nb);
}

module_init(shim_init);
module_exit(shim_exit);
MODULE_DESCRIPTION("sroce test fixture: IEEE DCB operations for a netdev without them");
MODULE_LICENSE("GPL");
