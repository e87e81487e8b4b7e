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
 */
#ifndef SROCE_DCB_H
#define SROCE_DCB_H

#include <linux/types.h>

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
 */
struct sroce_dcb {
	u8 pfc_en;
	u8 tsa[SROCE_NUM_PRIO];
	u8 weight[SROCE_NUM_PRIO];
};

int sroce_dcb_from_ieee(const struct ieee_pfc *pfc, const struct ieee_ets *ets,
			struct sroce_dcb *out, const char **why);
int sroce_dcb_read(struct net_device *ndev, struct sroce_dcb *out,
		   const char **why);

/* The device's reading of them: sroce_dcb_init() before the others */
void sroce_dcb_init(struct sroce_dev *sdev);
void sroce_dcb_kick(struct sroce_dev *sdev);
void sroce_dcb_stop(struct sroce_dev *sdev);

#endif /* SROCE_DCB_H */
