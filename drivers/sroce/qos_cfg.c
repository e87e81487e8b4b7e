// SPDX-License-Identifier: GPL-2.0
/*
 * A device's QoS and congestion-control configuration at run time: set
 * up with the device, replaced whole by a writer (its sysfs attributes,
 * or the netdev's DCB settings while qos/dcb is on), read under RCU by
 * the transmit path.  New ETS shares and PFC settings reach the
 * scheduler before the configuration shows them.
 *
 * Locking: sdev->qos is replaced under sdev->qos_lock (process context,
 * may sleep) and read under RCU.
 */
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <sroce/config.h>
#include <sroce/dcb.h>
#include <sroce/device.h>
#include <sroce/qos.h>
#include <sroce/tx.h>

/* Before sroce_tx_init(), which takes its ETS shares from here */
int sroce_qos_init(struct sroce_dev *sdev)
{
	struct sroce_qos_cfg *c;

	mutex_init(&sdev->qos_lock);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	sroce_qos_cfg_default(c);
	RCU_INIT_POINTER(sdev->qos, c);
	return 0;
}

/* At dealloc, or when sroce_qos_init() failed: nothing sends any more */
void sroce_qos_fini(struct sroce_dev *sdev)
{
	kfree(rcu_dereference_protected(sdev->qos, true));
	RCU_INIT_POINTER(sdev->qos, NULL);
	mutex_destroy(&sdev->qos_lock);
}

struct sroce_qos_cfg *sroce_qos_locked(struct sroce_dev *sdev)
{
	return rcu_dereference_protected(sdev->qos,
					 lockdep_is_held(&sdev->qos_lock));
}

/* Under qos_lock: put @c in place of the current configuration */
void sroce_qos_replace(struct sroce_dev *sdev, struct sroce_qos_cfg *c)
{
	struct sroce_qos_cfg *old = sroce_qos_locked(sdev);

	rcu_assign_pointer(sdev->qos, c);
	kfree_rcu(old, rcu);
}

/*
 * Under qos_lock, into the copy @c that is to replace the configuration.
 * The scheduler takes new ETS shares before the configuration shows them.
 */
int sroce_qos_take_ets(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
		       const u8 tsa[SROCE_NUM_PRIO],
		       const u8 weight[SROCE_NUM_PRIO])
{
	int ret = sroce_tx_set_ets(sdev, tsa, weight);

	if (ret)
		return ret;
	memcpy(c->tsa, tsa, sizeof(c->tsa));
	memcpy(c->weight, weight, sizeof(c->weight));
	return 0;
}

/*
 * The same for PFC.  A priority PFC is turned off for ignores pause frames
 * from now on, its XON among them: end its pause.  Before the new
 * configuration is in place, a frame may still pause it again; that pause
 * ends on its time.
 */
void sroce_qos_take_pfc(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
			u8 pfc_en)
{
	u8 off = c->pfc_en & ~pfc_en;

	c->pfc_en = pfc_en;
	if (off)
		sroce_tx_pfc_off(sdev, off);
}

/* Is qos/dcb on?  The DCB work stops when it is not. */
bool sroce_qos_dcb_wanted(struct sroce_dev *sdev)
{
	bool on;

	rcu_read_lock();
	on = rcu_dereference(sdev->qos)->dcb;
	rcu_read_unlock();
	return on;
}

static bool sroce_qos_dcb_same(const struct sroce_qos_cfg *c,
			       const struct sroce_dcb *d)
{
	return c->pfc_en == d->pfc_en && c->trust == d->trust &&
	       !memcmp(c->tsa, d->tsa, sizeof(c->tsa)) &&
	       !memcmp(c->weight, d->weight, sizeof(c->weight)) &&
	       !memcmp(c->dscp2prio, d->dscp2prio, sizeof(c->dscp2prio));
}

/**
 * sroce_qos_dcb_apply - put the netdev's DCB settings in force
 * @sdev: the device
 * @d: its netdev's PFC, ETS and DSCP map, as sroce_dcb_read() gave them
 *
 * Unless qos/dcb was turned off meanwhile.  As writes of pfc, ets, trust
 * and dscp2prio would: the scheduler takes the shares before they are
 * shown, and the priorities PFC is turned off for leave their pauses.
 * Context: process.
 */
void sroce_qos_dcb_apply(struct sroce_dev *sdev, const struct sroce_dcb *d)
{
	struct sroce_qos_cfg *c, *cur;

	mutex_lock(&sdev->qos_lock);
	cur = sroce_qos_locked(sdev);
	if (!cur->dcb || sroce_qos_dcb_same(cur, d))
		goto out;
	c = kmemdup(cur, sizeof(*c), GFP_KERNEL);
	if (!c)
		goto out;
	if (sroce_qos_take_ets(sdev, c, d->tsa, d->weight)) {
		kfree(c);
		goto out;
	}
	sroce_qos_take_pfc(sdev, c, d->pfc_en);
	c->trust = d->trust;
	memcpy(c->dscp2prio, d->dscp2prio, sizeof(c->dscp2prio));
	sroce_qos_replace(sdev, c);
out:
	mutex_unlock(&sdev->qos_lock);
}
