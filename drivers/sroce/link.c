// SPDX-License-Identifier: GPL-2.0
/*
 * The link side of sroce: `rdma link add NAME type sroce netdev DEV`, the
 * netdev notifier that keeps the port in step with its netdev, and the
 * teardown of a namespace's links when it goes.
 *
 * Lock order: sroce_link_mutex, then RTNL, then the registry's lock
 * (registry.c).  sroce_all_list (link mutex) holds every registered
 * device until its unregistration is known to be complete.
 */
#include <linux/hashtable.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include <sroce/dcb.h>
#include <sroce/device.h>
#include <sroce/icrc.h>
#include <sroce/limits.h>
#include <sroce/link.h>
#include <sroce/rx.h>

static DEFINE_MUTEX(sroce_link_mutex);
static LIST_HEAD(sroce_all_list);

static bool sroce_ndev_linked(const struct net_device *ndev)
{
	bool linked;

	rcu_read_lock();
	linked = sroce_dev_from_ndev_rcu(ndev);
	rcu_read_unlock();
	return linked;
}

/*
 * Why each refusal is logged: in 6.12 rdma_link_ops.newlink() gets no
 * netlink_ext_ack, so the kernel log is the only place a reason can go.
 */
static int sroce_link_check(const char *name, struct net_device *ndev)
{
	struct ib_device *other;

	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN ||
	    (ndev->flags & IFF_LOOPBACK)) {
		pr_warn_ratelimited("%s: %s is not an Ethernet device\n",
				    SROCE_DRV_NAME, netdev_name(ndev));
		return -EINVAL;
	}
	if (sroce_ndev_linked(ndev)) {
		pr_warn_ratelimited("%s: %s already carries an sroce link\n",
				    SROCE_DRV_NAME, netdev_name(ndev));
		return -EEXIST;
	}
	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_warn_ratelimited("%s: an RDMA device named %s already exists\n",
				    SROCE_DRV_NAME, name);
		return -EEXIST;
	}
	return 0;
}

/*
 * Every registered device stays on sroce_all_list, with a reference on its
 * struct device, until ib_unregister_device() has returned for it here.
 * That call waits on ib_core's unregistration lock, which whoever is
 * unregistering the device holds until our dealloc_driver has returned, so
 * module unload and namespace exit never race a dealloc still running our
 * code (ib_unregister_driver() would give the same fence, but it would also
 * take down rdma_rxe's devices, which share our driver id).
 */
static void sroce_forget(struct sroce_dev *sdev)
{
	ib_unregister_device(&sdev->ib_dev);
	list_del(&sdev->all_entry);
	put_device(&sdev->ib_dev.dev);
}

/* Drop the devices whose unregistration has completed.  Link mutex held. */
static void sroce_reap_dead(void)
{
	struct sroce_dev *sdev, *tmp;

	list_for_each_entry_safe(sdev, tmp, &sroce_all_list, all_entry)
		if (READ_ONCE(sdev->dead))
			sroce_forget(sdev);
}

/* Unregister every device of @net, or all of them if @net is NULL. */
static void sroce_unregister_net_devices(const struct net *net)
{
	struct sroce_dev *sdev, *tmp;

	mutex_lock(&sroce_link_mutex);
	list_for_each_entry_safe(sdev, tmp, &sroce_all_list, all_entry)
		if (!net || sdev->net == net)
			sroce_forget(sdev);
	mutex_unlock(&sroce_link_mutex);
}

/*
 * Publish a registered device to the notifier and the receive path.  Done
 * under RTNL so that a NETDEV_UNREGISTER racing with the link add either
 * sees the device on the list or has already marked the netdev dead here.
 */
static int sroce_link_publish(struct sroce_dev *sdev)
{
	rtnl_lock();
	if (sdev->ndev->reg_state != NETREG_REGISTERED) {
		rtnl_unlock();
		return -ENODEV;
	}
	sroce_dev_list_add(sdev);
	sdev->listed = true;
	WRITE_ONCE(sdev->speed_mbps, sroce_dev_link_speed(sdev->ndev));
	sroce_l2_hooks_add(sdev);
	sroce_dev_port_update(sdev);
	sroce_dcb_kick(sdev);
	rtnl_unlock();
	return 0;
}

static int sroce_newlink(const char *name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	mutex_lock(&sroce_link_mutex);
	sroce_icrc_accel_start();
	sroce_reap_dead();
	err = sroce_link_check(name, ndev);
	if (err)
		goto out;

	sdev = sroce_dev_create(ndev);
	if (IS_ERR(sdev)) {
		err = PTR_ERR(sdev);
		goto out;
	}

	err = sroce_net_get(sdev->net);
	if (err) {
		if (err == -EADDRINUSE)
			pr_warn_ratelimited("%s: UDP port 4791 is owned by another driver (rdma_rxe?) in the namespace of %s\n",
					    SROCE_DRV_NAME, netdev_name(ndev));
		ib_dealloc_device(&sdev->ib_dev);
		goto out;
	}
	sdev->net_ref = true;

	err = sroce_dev_register(sdev, name);
	if (err) {
		ib_dealloc_device(&sdev->ib_dev);
		goto out;
	}

	get_device(&sdev->ib_dev.dev);
	list_add_tail(&sdev->all_entry, &sroce_all_list);

	err = sroce_link_publish(sdev);
	if (err)
		sroce_forget(sdev);
out:
	mutex_unlock(&sroce_link_mutex);
	return err;
}

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;
	u32 speed = 0;

	/* ethtool may sleep: ask it before the RCU section, if it is ours */
	if (event == NETDEV_UP || event == NETDEV_CHANGE) {
		rcu_read_lock();
		sdev = sroce_dev_from_ndev_rcu(ndev);
		rcu_read_unlock();
		if (sdev)
			speed = sroce_dev_link_speed(ndev);
	}

	rcu_read_lock();
	sdev = sroce_dev_from_ndev_rcu(ndev);
	if (!sdev)
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Also seen when the netdev moves to another namespace.  A
		 * device whose refcount is already zero is being unregistered
		 * by someone else, and queueing it again would WARN.
		 */
		if (ib_device_try_get(&sdev->ib_dev)) {
			ib_unregister_device_queued(&sdev->ib_dev);
			ib_device_put(&sdev->ib_dev);
		}
		break;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		WRITE_ONCE(sdev->speed_mbps, speed);
		fallthrough;
	case NETDEV_DOWN:
		sroce_dev_port_update(sdev);
		break;
	default:
		break;
	}
out:
	rcu_read_unlock();
	return NOTIFY_OK;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_LINK_TYPE,
	.newlink = sroce_newlink,
};

/*
 * Registered after the receive layer's namespace state, so this exit runs
 * before that one, while the namespace's netdevs and our socket in it are
 * still whole: its links go down first.
 */
static void __net_exit sroce_link_net_exit(struct net *net)
{
	sroce_unregister_net_devices(net);
}

static struct pernet_operations sroce_link_net_ops = {
	.exit = sroce_link_net_exit,
};

int sroce_link_init(void)
{
	int err;

	err = register_pernet_subsys(&sroce_link_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&sroce_netdev_nb);
	if (err) {
		unregister_pernet_subsys(&sroce_link_net_ops);
		return err;
	}
	rdma_link_register(&sroce_link_ops);
	return 0;
}

void sroce_link_exit(void)
{
	/* no new links, then no new queued unregistrations, then the rest */
	rdma_link_unregister(&sroce_link_ops);
	unregister_netdevice_notifier(&sroce_netdev_nb);
	sroce_unregister_net_devices(NULL);
	unregister_pernet_subsys(&sroce_link_net_ops);
}
