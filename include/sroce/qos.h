/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QoS policy of a device: which of the eight priorities a packet
 * travels on, what its headers carry for the network to classify it by,
 * and how the priorities share the link.
 *
 * The model is that of a RoCE NIC's "trust" setting.  With trust pcp the
 * priority is the SL of the QP's or AH's path (IBTA Annex A16/A17 map SL to
 * the 802.1Q priority); with trust dscp it is looked up from the DSCP of
 * the traffic class, for RoCEv2, whose IP header a switch classifies by.
 * RoCEv1 has no IP header, so it always goes by the SL.  A RoCEv2 packet
 * carries the upper six bits of the traffic class as its DSCP; the two ECN
 * bits (RFC 3168) are the congestion control's, never the user's.
 *
 * The priority becomes skb->priority (mqprio maps it to a traffic class
 * and a netdev queue) and the PCP of the frame's 802.1Q tag.  An untagged
 * link gets a priority tag (VLAN ID 0, IEEE 802.1Q 6.9.1) on the
 * priorities PFC is enabled for, so that a switch can tell them apart.
 *
 * The configuration is read under RCU on the transmit path and replaced
 * whole by a writer: a packet sees either the old or the new one.
 */
#ifndef SROCE_QOS_H
#define SROCE_QOS_H

#include <linux/rcupdate.h>
#include <linux/types.h>

#include <sroce/dcqcn.h>
#include <sroce/nethdr.h>
#include <sroce/txsched.h>

#define SROCE_NUM_DSCP		64

/*
 * A DSCP's priority when nothing maps it: its class selector bits (RFC
 * 2474 4.2.2), as a RoCE NIC has it by default
 */
static inline u8 sroce_qos_dscp_default_prio(u8 dscp)
{
	return dscp >> 3;
}

enum sroce_trust {
	SROCE_TRUST_PCP,
	SROCE_TRUST_DSCP,
};

/**
 * struct sroce_qos_cfg - the QoS configuration of one device
 * @rcu: frees a replaced configuration
 * @trust: enum sroce_trust
 * @pfc_en: bit p set if PFC is enabled for priority p
 * @dscp2prio: with trust dscp, the priority of each DSCP
 * @tsa: per priority, enum sroce_tsa
 * @weight: per ETS priority, its share in percent (ETS ones sum to 100);
 *	0 for strict ones
 * @np_en: bit p set if a congestion-marked packet of a QP of priority p
 *	makes that QP send a CNP (the DCQCN notification point, cnp.h)
 * @cnp_dscp: the DSCP of the CNPs sent (RoCEv2)
 * @cnp_prio: the priority of the CNPs sent
 * @np_min_time_us: per QP, at least this many microseconds between CNPs
 * @rp_en: bit p set if QPs of priority p react to CNPs (the DCQCN reaction
 *	point, rp.h) and their RoCEv2 packets are ECN-capable, ECT(0)
 * @rp: the reaction point's parameters (dcqcn.h)
 * @dcb: follow the netdev's own DCB PFC and ETS settings when it has
 *	them (dcb.h); @pfc_en, @tsa and @weight are then copies of those
 */
struct sroce_qos_cfg {
	struct rcu_head rcu;
	u8 trust;
	u8 pfc_en;
	u8 dscp2prio[SROCE_NUM_DSCP];
	u8 tsa[SROCE_NUM_PRIO];
	u8 weight[SROCE_NUM_PRIO];
	u8 np_en;
	u8 cnp_dscp;
	u8 cnp_prio;
	u32 np_min_time_us;
	u8 rp_en;
	struct sroce_dcqcn_rp_params rp;
	bool dcb;
};

/*
 * CNP defaults.  DSCP 48 is what ConnectX NICs send CNPs with (a capture
 * of one is KUnit vector A).  Priority 6 keeps CNPs off the priorities
 * RoCE data usually travels on (3, or 0 untagged), so they do not queue
 * behind it in switches either.  50 us between CNPs of one QP is the
 * DCQCN paper's N (Zhu et al., SIGCOMM 2015): one CNP per window that saw
 * marks, at a cost bounded per QP whatever the marking rate.
 */
#define SROCE_CNP_DSCP_DEFAULT		48
#define SROCE_CNP_PRIO_DEFAULT		6
#define SROCE_NP_MIN_TIME_US_DEFAULT	50
/* np_min_time_between_cnps up to one second */
#define SROCE_NP_MIN_TIME_US_MAX	1000000

/**
 * struct sroce_qos_class - how one packet is sent
 * @prio: its priority: skb->priority and the PCP of its tag
 * @tclass: the GRH TClass or IP TOS / Traffic Class byte on the wire
 * @prio_tag: an untagged frame gets a priority tag (VLAN ID 0)
 */
struct sroce_qos_class {
	u8 prio;
	u8 tclass;
	bool prio_tag;
};

/* qos.c: the pure policy (KUnit: kunit/qos_test.c) */
void sroce_qos_cfg_default(struct sroce_qos_cfg *c);
void sroce_qos_classify(const struct sroce_qos_cfg *c, enum sroce_net_type t,
			u8 sl, u8 tclass, struct sroce_qos_class *out);
void sroce_qos_classify_cnp(const struct sroce_qos_cfg *c,
			    enum sroce_net_type t, struct sroce_qos_class *out);

/*
 * The text forms of the sysfs attributes (qos_sysfs.c).  A parser either
 * returns 0 and fills its output, or returns -EINVAL, leaves the output
 * alone, and points *@why at a reason for the log.
 */
int sroce_qos_parse_trust(const char *buf, u8 *trust, const char **why);
int sroce_qos_parse_onoff(const char *buf, bool *on, const char **why);
int sroce_qos_parse_prio_mask(const char *buf, u8 *mask, const char **why);
int sroce_qos_parse_uint(const char *buf, u32 max, u32 *val,
			 const char **why);
int sroce_qos_parse_ets(const char *buf, u8 tsa[SROCE_NUM_PRIO],
			u8 weight[SROCE_NUM_PRIO], const char **why);
int sroce_qos_parse_dscp2prio(const char *buf, u8 *dscp, u8 *prio,
			      const char **why);
int sroce_qos_format_ets(const u8 tsa[SROCE_NUM_PRIO],
			 const u8 weight[SROCE_NUM_PRIO], char *buf, size_t size);

#endif /* SROCE_QOS_H */
