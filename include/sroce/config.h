/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration layer (qos_cfg.c, qos_sysfs.c): a device's QoS and
 * congestion-control settings at run time and the sysfs attributes that
 * show and change them.  Process context; the transmit path only reads
 * sdev->qos under RCU.
 */
#ifndef SROCE_CONFIG_H
#define SROCE_CONFIG_H

#include <linux/types.h>

#include <sroce/txsched.h>

struct attribute_group;
struct sroce_dcb;
struct sroce_dev;
struct sroce_qos_cfg;

/* qos_cfg.c: before sroce_tx_init(), which takes its ETS shares from here */
int sroce_qos_init(struct sroce_dev *sdev);
void sroce_qos_fini(struct sroce_dev *sdev);
/* The configuration in force; qos_lock held */
struct sroce_qos_cfg *sroce_qos_locked(struct sroce_dev *sdev);
/* Put @c in place of the configuration in force; qos_lock held */
void sroce_qos_replace(struct sroce_dev *sdev, struct sroce_qos_cfg *c);
/* Into @c, the copy that is to replace the configuration; qos_lock held */
int sroce_qos_take_ets(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
		       const u8 tsa[SROCE_NUM_PRIO],
		       const u8 weight[SROCE_NUM_PRIO]);
void sroce_qos_take_pfc(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
			u8 pfc_en);
/* Is qos/dcb on?  The DCB work stops when it is not. */
bool sroce_qos_dcb_wanted(struct sroce_dev *sdev);
void sroce_qos_dcb_apply(struct sroce_dev *sdev, const struct sroce_dcb *d);

/* qos_sysfs.c: the port groups qos/ and cc/ */
extern const struct attribute_group *sroce_qos_port_groups[];

#endif /* SROCE_CONFIG_H */
