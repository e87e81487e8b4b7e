/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lower netdev's own Data Center Bridging configuration (IEEE
 * 802.1Qaz ETS, 802.1Qbb PFC), as its driver reports it through dcbnl.
 *
 * A NIC with DCB pauses the priorities its PFC configuration names and
 * shares the link by its ETS configuration, whoever set them (dcb(8),
 * an LLDP agent negotiating with the switch).  sroce follows them when
 * the port's qos/dcb is on: priority tags on the PFC priorities, pause
 * frames honoured on them, and the ETS shares in its own scheduler.
 * dcbnl tells no one in the kernel when PFC or ETS change, so they are
 * read again every SROCE_DCB_POLL_MS.
 *
 * sroce schedules priorities, not traffic classes: a traffic class's ETS
 * share is split evenly among the priorities mapped to it.
 *
 * The DSCP entries of the netdev's application priority table (IEEE
 * 802.1Q D.2.10.3, set with dcb-app(8)) are followed too: they are the
 * netdev's DSCP to priority map, and a DSCP without an entry keeps the
 * default priority, DSCP >> 3.  A netdev whose driver reports which
 * selectors it trusts (dcb-apptrust(8)) trusts DSCP when DSCP comes before
 * PCP in that list; for one that does not, as for a ConnectX NIC, having
 * a DSCP entry at all means trusting DSCP.
 */
#ifndef SROCE_DCB_H
#define SROCE_DCB_H

#include <linux/types.h>

#include <sroce/compat.h>
#include <sroce/qos.h>
#include <sroce/txsched.h>

#define SROCE_DCB_POLL_MS	1000
/* RTNL was busy: try again this soon */
#define SROCE_DCB_RETRY_MS	10

struct ieee_ets;
struct ieee_pfc;
struct net_device;
struct sroce_dev;

/**
 * struct sroce_dcb - what sroce takes from a netdev's DCB configuration
 * @pfc_en: bit p set if PFC is enabled for priority p
 * @tsa: per priority, enum sroce_tsa
 * @weight: per ETS priority, its share; 0 for strict ones
 * @trust: enum sroce_trust
 * @dscp2prio: the priority of each DSCP
 */
struct sroce_dcb {
	u8 pfc_en;
	u8 tsa[SROCE_NUM_PRIO];
	u8 weight[SROCE_NUM_PRIO];
	u8 trust;
	u8 dscp2prio[SROCE_NUM_DSCP];
};

/*
 * What the netdev's driver says of the selectors it trusts: nothing (no
 * dcbnl_getapptrust, or a kernel without it), or DSCP before PCP, or not
 */
enum sroce_dcb_apptrust {
	SROCE_APPTRUST_UNKNOWN,
	SROCE_APPTRUST_DSCP,
	SROCE_APPTRUST_OTHER,
};

int sroce_dcb_from_ieee(const struct ieee_pfc *pfc, const struct ieee_ets *ets,
			struct sroce_dcb *out, const char **why);
void sroce_dcb_from_app(const u8 dscp_prio_mask[SROCE_NUM_DSCP],
			enum sroce_dcb_apptrust apptrust, struct sroce_dcb *out);
#ifdef SROCE_HAVE_DCBNL_APPTRUST
enum sroce_dcb_apptrust sroce_dcb_apptrust_of(const u8 *sel, int n);
#endif
int sroce_dcb_read(struct net_device *ndev, struct sroce_dcb *out,
		   const char **why);

/* The device's reading of them: sroce_dcb_init() before the others */
void sroce_dcb_init(struct sroce_dev *sdev);
void sroce_dcb_kick(struct sroce_dev *sdev);
void sroce_dcb_stop(struct sroce_dev *sdev);

#endif /* SROCE_DCB_H */
