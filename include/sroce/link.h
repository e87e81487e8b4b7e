/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control layer: links made and removed (link.c), the ib_device
 * they register (device.c) and its removal while users hold it open
 * (unplug.c).  Process context; nothing on the data path calls it.
 */
#ifndef SROCE_LINK_H
#define SROCE_LINK_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct net_device;
struct sroce_dev;

/* link.c: rdma link add/delete, netdev events */
int sroce_link_init(void);
void sroce_link_exit(void);

/* device.c: the ib_device itself */
struct sroce_dev *sroce_dev_create(struct net_device *ndev);
int sroce_dev_register(struct sroce_dev *sdev, const char *name);
void sroce_dev_port_update(struct sroce_dev *sdev);
u32 sroce_dev_link_speed(struct net_device *ndev);

/* unplug.c: removal of a device that users hold open */
extern const struct ib_device_ops sroce_unplug_ops;
int sroce_unplug_init(void);
void sroce_unplug_exit(void);

#endif /* SROCE_LINK_H */
