/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receive layer (net.c, rx.c): the per-namespace RoCEv2 UDP socket
 * and the RoCEv1 ethertype hook packets arrive by, and the validation
 * of every packet before it is handed to a QP, a multicast group or the
 * PFC and CNP handlers.
 */
#ifndef SROCE_RX_H
#define SROCE_RX_H

#include <linux/types.h>

struct net;
struct sk_buff;
struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;

/* net.c: per-netns RoCEv2 UDP socket and the RoCEv1 packet handler */
int sroce_net_init(void);
void sroce_net_exit(void);
int sroce_net_get(struct net *net);
void sroce_net_put(struct net *net);
void sroce_l2_hooks_add(struct sroce_dev *sdev);
void sroce_l2_hooks_del(struct sroce_dev *sdev);

/* rx.c: validation of every received RoCE packet */
void sroce_rx(struct sroce_dev *sdev, struct sk_buff *skb, int net_type);
/* The rule connected QPs receive by: did @pkt come from @qp's peer? */
bool sroce_pkt_from_peer(const struct sroce_qp *qp, const struct sroce_pkt *pkt);

#endif /* SROCE_RX_H */
