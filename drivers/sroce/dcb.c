// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the lower netdev's IEEE DCB configuration (dcb.h).
 */
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>

#include <sroce/dcb.h>
#include <sroce/qos.h>
#include <sroce/sroce.h>

/**
 * sroce_dcb_from_ieee - translate IEEE PFC and ETS objects
 * @pfc: the PFC object
 * @ets: the ETS object: traffic classes, their algorithm and share, and
 *	the traffic class of each priority
 * @out: filled on success only
 * @why: on failure, set to a reason for the log
 *
 * Return: 0; -EINVAL for a priority mapped beyond the eight traffic
 * classes; -EOPNOTSUPP for a traffic class whose algorithm is neither
 * strict priority nor ETS (the credit-based shaper, a vendor's).
 */
int sroce_dcb_from_ieee(const struct ieee_pfc *pfc, const struct ieee_ets *ets,
			struct sroce_dcb *out, const char **why)
{
	u8 members[IEEE_8021QAZ_MAX_TCS] = {};
	struct sroce_dcb d = { .pfc_en = pfc->pfc_en };
	int p, tc;

	BUILD_BUG_ON(IEEE_8021QAZ_MAX_TCS != SROCE_NUM_PRIO);
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (ets->prio_tc[p] >= IEEE_8021QAZ_MAX_TCS) {
			*why = "a priority maps to a traffic class beyond 7";
			return -EINVAL;
		}
		members[ets->prio_tc[p]]++;
	}
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		tc = ets->prio_tc[p];
		switch (ets->tc_tsa[tc]) {
		case IEEE_8021QAZ_TSA_STRICT:
			d.tsa[p] = SROCE_TSA_STRICT;
			break;
		case IEEE_8021QAZ_TSA_ETS:
			/*
			 * A class of 0 % is served only when the others
			 * leave room (IEEE 802.1Q 37.3): the least share
			 */
			d.tsa[p] = SROCE_TSA_ETS;
			d.weight[p] = max(1, DIV_ROUND_CLOSEST(ets->tc_tx_bw[tc],
							       members[tc]));
			break;
		default:
			*why = "a traffic class has an algorithm other than strict priority or ETS";
			return -EOPNOTSUPP;
		}
	}
	*out = d;
	return 0;
}

/**
 * sroce_dcb_read - read @ndev's PFC and ETS configuration
 * @ndev: the netdev
 * @out: filled on success only
 * @why: on failure, set to a reason for the log
 *
 * Context: RTNL held, as dcbnl calls its drivers.
 *
 * Return: 0; -ENODEV when @ndev reports no IEEE DCB (always, in a kernel
 * without CONFIG_DCB); the driver's error, or sroce_dcb_from_ieee()'s.
 */
int sroce_dcb_read(struct net_device *ndev, struct sroce_dcb *out,
		   const char **why)
{
#if IS_ENABLED(CONFIG_DCB)
	const struct dcbnl_rtnl_ops *ops = ndev->dcbnl_ops;
	struct ieee_ets ets = {};
	struct ieee_pfc pfc = {};
	int ret;

	ASSERT_RTNL();
	if (ops && ops->ieee_getpfc && ops->ieee_getets) {
		ret = ops->ieee_getpfc(ndev, &pfc);
		if (!ret)
			ret = ops->ieee_getets(ndev, &ets);
		if (!ret)
			return sroce_dcb_from_ieee(&pfc, &ets, out, why);
		*why = "the netdev's driver did not report its DCB";
		return ret;
	}
#endif
	*why = "the netdev reports no IEEE DCB";
	return -ENODEV;
}

/* Log what changed in whether the netdev's DCB is followed */
static void sroce_dcb_note(struct sroce_dev *sdev, int ret, const char *why)
{
	int was = READ_ONCE(sdev->dcb_ret);

	if (ret == was)
		return;
	WRITE_ONCE(sdev->dcb_ret, ret);
	if (!ret)
		ibdev_info(&sdev->ib_dev, "qos: following the DCB settings of %s\n",
			   netdev_name(sdev->ndev));
	else if (!was || ret != -ENODEV)
		ibdev_info(&sdev->ib_dev, "qos: not following the DCB settings of %s: %s; pfc and ets stay as they are\n",
			   netdev_name(sdev->ndev), why);
}

static void sroce_dcb_work(struct work_struct *work)
{
	struct sroce_dev *sdev = container_of(to_delayed_work(work),
					      struct sroce_dev, dcb_work);
	const char *why = "";
	struct sroce_dcb d;
	int ret;

	if (!sroce_qos_dcb_wanted(sdev))
		return;
	/* never wait for RTNL in a work that a holder of RTNL may cancel */
	if (!rtnl_trylock()) {
		queue_delayed_work(system_wq, &sdev->dcb_work,
				   msecs_to_jiffies(SROCE_DCB_RETRY_MS));
		return;
	}
	ret = sroce_dcb_read(sdev->ndev, &d, &why);
	rtnl_unlock();
	sroce_dcb_note(sdev, ret, why);
	if (!ret)
		sroce_qos_dcb_apply(sdev, &d);
	queue_delayed_work(system_wq, &sdev->dcb_work,
			   msecs_to_jiffies(SROCE_DCB_POLL_MS));
}

void sroce_dcb_init(struct sroce_dev *sdev)
{
	INIT_DELAYED_WORK(&sdev->dcb_work, sroce_dcb_work);
	sdev->dcb_ret = -ENODEV;
}

/* Read the netdev's DCB now (the link is up, qos/dcb was turned on) */
void sroce_dcb_kick(struct sroce_dev *sdev)
{
	mod_delayed_work(system_wq, &sdev->dcb_work, 0);
}

/* Context: process, not holding RTNL.  Nothing kicks the work any more. */
void sroce_dcb_stop(struct sroce_dev *sdev)
{
	cancel_delayed_work_sync(&sdev->dcb_work);
}
