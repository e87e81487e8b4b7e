// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of published devices: what a received packet, a netdev
 * event or a packet looped between links of one host finds its device
 * through.  sroce_dev_list holds the devices in the order they were
 * published and sroce_ndev_hash the same devices by netdev, so that a
 * packet finds its device without walking every device of every
 * namespace.  Both are written under sroce_dev_list_lock (taken inside
 * RTNL and the link mutex) and read under RCU.  Each namespace counts the
 * devices listed in it, so that the transmit path can skip looking for a
 * local peer where there can be none.
 */
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include <sroce/device.h>

static LIST_HEAD(sroce_dev_list);
static DEFINE_HASHTABLE(sroce_ndev_hash, 6);
static DEFINE_SPINLOCK(sroce_dev_list_lock);

static unsigned int sroce_registry_net_id;

/* listed devices of one namespace, written under sroce_dev_list_lock */
struct sroce_registry_net {
	unsigned int listed;
};

static unsigned int *sroce_registry_listed(const struct net *net)
{
	struct sroce_registry_net *rn;

	rn = net_generic(net, sroce_registry_net_id);
	return &rn->listed;
}

struct sroce_dev *sroce_dev_from_ndev_rcu(const struct net_device *ndev)
{
	struct sroce_dev *sdev;

	hash_for_each_possible_rcu(sroce_ndev_hash, sdev, ndev_node,
				   (unsigned long)ndev)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

/**
 * sroce_dev_find_rcu() - the first listed device @match accepts
 * @match: the test, called under RCU for each device on the list
 * @arg: passed to @match
 *
 * Context: rcu_read_lock() held; the device stays valid until it is
 * released, and its loopback queue with it (sroce_dev_detach() in device.c).
 *
 * Return: the device, or NULL.
 */
struct sroce_dev *sroce_dev_find_rcu(bool (*match)(const struct sroce_dev *sdev,
						   const void *arg),
				     const void *arg)
{
	struct sroce_dev *sdev;

	list_for_each_entry_rcu(sdev, &sroce_dev_list, list)
		if (match(sdev, arg))
			return sdev;
	return NULL;
}

/**
 * sroce_dev_net_shared() - may @net hold more than one listed device?
 * @net: a namespace with a listed device of the caller's in it
 *
 * False means no other device of @net can be found: the transmit path
 * then skips looking for a neighbour to loop a packet to.  A device being
 * listed concurrently may be missed, as a packet sent just before it
 * would be.  Any context.
 */
bool sroce_dev_net_shared(const struct net *net)
{
	return READ_ONCE(*sroce_registry_listed(net)) > 1;
}

/* Make @sdev findable.  Process context, RTNL held. */
void sroce_dev_list_add(struct sroce_dev *sdev)
{
	unsigned int *listed = sroce_registry_listed(sdev->net);

	spin_lock_bh(&sroce_dev_list_lock);
	list_add_tail_rcu(&sdev->list, &sroce_dev_list);
	hash_add_rcu(sroce_ndev_hash, &sdev->ndev_node,
		     (unsigned long)sdev->ndev);
	WRITE_ONCE(*listed, *listed + 1);
	spin_unlock_bh(&sroce_dev_list_lock);
}

/* Unlist @sdev; lookups under RCU may still find it for a grace period. */
void sroce_dev_list_del(struct sroce_dev *sdev)
{
	unsigned int *listed = sroce_registry_listed(sdev->net);

	spin_lock_bh(&sroce_dev_list_lock);
	list_del_rcu(&sdev->list);
	hash_del_rcu(&sdev->ndev_node);
	WRITE_ONCE(*listed, *listed - 1);
	spin_unlock_bh(&sroce_dev_list_lock);
}

static void __net_exit sroce_registry_net_exit(struct net *net)
{
	WARN_ON_ONCE(*sroce_registry_listed(net));
}

static struct pernet_operations sroce_registry_net_ops = {
	.exit = sroce_registry_net_exit,
	.id = &sroce_registry_net_id,
	.size = sizeof(struct sroce_registry_net),
};

int sroce_registry_init(void)
{
	return register_pernet_subsys(&sroce_registry_net_ops);
}

void sroce_registry_exit(void)
{
	unregister_pernet_subsys(&sroce_registry_net_ops);
}
