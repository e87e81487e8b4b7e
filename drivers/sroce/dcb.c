// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the lower netdev's IEEE DCB configuration (dcb.h).
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>

#include <sroce/config.h>
#include <sroce/dcb.h>
#include <sroce/device.h>
#include <sroce/qos.h>

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
 * sroce_dcb_from_app - translate the DSCP entries of an application table
 * @dscp_prio_mask: per DSCP, the priorities its entries name, a bit each
 * @apptrust: what the driver says it trusts
 * @out: its @trust and @dscp2prio are set
 *
 * A DSCP named with several priorities takes the highest of them: an
 * application table may hold more than one entry per DSCP (IEEE 802.1Q
 * D.2.10.3), but a packet travels on one priority.
 */
void sroce_dcb_from_app(const u8 dscp_prio_mask[SROCE_NUM_DSCP],
			enum sroce_dcb_apptrust apptrust, struct sroce_dcb *out)
{
	bool any = false;
	int dscp;

	for (dscp = 0; dscp < SROCE_NUM_DSCP; dscp++) {
		u8 mask = dscp_prio_mask[dscp];

		any |= mask;
		out->dscp2prio[dscp] = mask ? fls(mask) - 1 :
				       sroce_qos_dscp_default_prio(dscp);
	}
	if (apptrust == SROCE_APPTRUST_UNKNOWN)
		out->trust = any ? SROCE_TRUST_DSCP : SROCE_TRUST_PCP;
	else
		out->trust = apptrust == SROCE_APPTRUST_DSCP ?
			     SROCE_TRUST_DSCP : SROCE_TRUST_PCP;
}

#ifdef SROCE_HAVE_DCBNL_APPTRUST
/**
 * sroce_dcb_apptrust_of - read a driver's list of trusted selectors
 * @sel: the selectors, the first the most trusted
 * @n: how many
 *
 * Return: SROCE_APPTRUST_DSCP if DSCP comes before PCP (or PCP is not
 * trusted at all), else SROCE_APPTRUST_OTHER.
 */
enum sroce_dcb_apptrust sroce_dcb_apptrust_of(const u8 *sel, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (sel[i] == IEEE_8021QAZ_APP_SEL_DSCP)
			return SROCE_APPTRUST_DSCP;
		if (sel[i] == DCB_APP_SEL_PCP)
			break;
	}
	return SROCE_APPTRUST_OTHER;
}
#endif

#if IS_ENABLED(CONFIG_DCB)
/* Context: RTNL held */
static enum sroce_dcb_apptrust sroce_dcb_read_apptrust(struct net_device *ndev)
{
#ifdef SROCE_HAVE_DCBNL_APPTRUST
	const struct dcbnl_rtnl_ops *ops = ndev->dcbnl_ops;
	u8 sel[IEEE_8021QAZ_APP_SEL_MAX + 1] = {};
	int n = 0;

	if (ops->dcbnl_getapptrust &&
	    !ops->dcbnl_getapptrust(ndev, sel, &n) && n >= 0 &&
	    n <= (int)ARRAY_SIZE(sel))
		return sroce_dcb_apptrust_of(sel, n);
#endif
	return SROCE_APPTRUST_UNKNOWN;
}

/* Context: RTNL held */
static void sroce_dcb_read_app(struct net_device *ndev, struct sroce_dcb *out)
{
	struct dcb_ieee_app_dscp_map map;

	dcb_ieee_getapp_dscp_prio_mask_map(ndev, &map);
	BUILD_BUG_ON(ARRAY_SIZE(map.map) != SROCE_NUM_DSCP);
	sroce_dcb_from_app(map.map, sroce_dcb_read_apptrust(ndev), out);
}
#endif

/**
 * sroce_dcb_read - read @ndev's PFC, ETS and DSCP configuration
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
			ret = sroce_dcb_from_ieee(&pfc, &ets, out, why);
		else
			*why = "the netdev's driver did not report its DCB";
		if (!ret)
			sroce_dcb_read_app(ndev, out);
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
