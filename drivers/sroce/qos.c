// SPDX-License-Identifier: GPL-2.0
/*
 * QoS policy: classification of packets and the text forms of the
 * configuration.  Pure functions; see qos.h.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include <sroce/qos.h>

/* The defaults of a RoCE NIC: SL = priority, DSCP's class selector bits */
void sroce_qos_cfg_default(struct sroce_qos_cfg *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->trust = SROCE_TRUST_PCP;
	for (i = 0; i < SROCE_NUM_DSCP; i++)
		c->dscp2prio[i] = sroce_qos_dscp_default_prio(i);
	/* equal shares, as near as whole percents allow */
	for (i = 0; i < SROCE_NUM_PRIO; i++) {
		c->tsa[i] = SROCE_TSA_ETS;
		c->weight[i] = i < 4 ? 13 : 12;
	}
	/*
	 * A RoCE NIC answers congestion marks on every priority unless told
	 * not to; without marks nothing is sent, so this costs nothing on a
	 * network that does not mark.
	 */
	c->np_en = GENMASK(SROCE_NUM_PRIO - 1, 0);
	c->cnp_dscp = SROCE_CNP_DSCP_DEFAULT;
	c->cnp_prio = SROCE_CNP_PRIO_DEFAULT;
	c->np_min_time_us = SROCE_NP_MIN_TIME_US_DEFAULT;
	/* a netdev with DCB of its own knows the fabric better than we do */
	c->dcb = true;
	/*
	 * The reaction point starts off: it slows QPs down, and claims ECN
	 * capability for their packets, which a switch then marks instead
	 * of dropping; on by default once it has shown it shares a
	 * congested link fairly.
	 */
	c->rp_en = 0;
	sroce_dcqcn_rp_params_default(&c->rp);
}

/**
 * sroce_qos_classify - the priority and traffic class of a packet
 * @c: the device's configuration
 * @t: its encapsulation
 * @sl: the service level of its path
 * @tclass: the traffic class of its path
 * @out: how it is sent
 */
void sroce_qos_classify(const struct sroce_qos_cfg *c, enum sroce_net_type t,
			u8 sl, u8 tclass, struct sroce_qos_class *out)
{
	u8 prio = sl & (SROCE_NUM_PRIO - 1);

	if (t != SROCE_NET_ROCE_V1) {
		tclass &= ~SROCE_ECN_MASK;
		if (c->trust == SROCE_TRUST_DSCP)
			prio = c->dscp2prio[tclass >> 2];
		/* ECN-capable only where CNPs are acted on (RFC 3168 6.1) */
		if (c->rp_en & BIT(prio))
			tclass |= SROCE_ECN_ECT0;
	}
	out->prio = prio;
	out->tclass = tclass;
	out->prio_tag = c->pfc_en & BIT(prio);
}

/**
 * sroce_qos_classify_cnp - the priority and traffic class of a CNP
 * @c: the device's configuration
 * @t: its encapsulation
 * @out: how it is sent
 *
 * CNPs travel on their own priority and DSCP, whatever the flow they
 * report on.  A RoCEv2 CNP is ECN-capable, ECT(0), as ConnectX NICs send
 * them (KUnit vector A): a switch short of room marks it rather than
 * dropping it, and a lost CNP is a reaction lost.
 */
void sroce_qos_classify_cnp(const struct sroce_qos_cfg *c,
			    enum sroce_net_type t, struct sroce_qos_class *out)
{
	out->prio = c->cnp_prio;
	out->tclass = c->cnp_dscp << 2;
	if (t != SROCE_NET_ROCE_V1)
		out->tclass |= SROCE_ECN_ECT0;
	out->prio_tag = c->pfc_en & BIT(out->prio);
}

/* --- Text forms ---------------------------------------------------------- */

/* Longest input any attribute takes: eight "strict," entries and a newline */
#define SROCE_QOS_BUF_LEN	80

/*
 * Split @buf at commas into exactly SROCE_NUM_PRIO entries, stripped of
 * blanks, in @copy (which they point into).
 */
static int sroce_qos_split8(const char *buf, char *copy,
			    char *ent[SROCE_NUM_PRIO], const char **why)
{
	char *s, *tok;
	int n = 0;

	if (strscpy(copy, buf, SROCE_QOS_BUF_LEN) < 0) {
		*why = "too long";
		return -EINVAL;
	}
	s = strim(copy);
	while ((tok = strsep(&s, ",")) != NULL) {
		if (n == SROCE_NUM_PRIO) {
			*why = "more than 8 entries, one per priority";
			return -EINVAL;
		}
		ent[n++] = strim(tok);
	}
	if (n != SROCE_NUM_PRIO) {
		*why = "fewer than 8 entries, one per priority";
		return -EINVAL;
	}
	return 0;
}

int sroce_qos_parse_trust(const char *buf, u8 *trust, const char **why)
{
	if (sysfs_streq(buf, "pcp")) {
		*trust = SROCE_TRUST_PCP;
		return 0;
	}
	if (sysfs_streq(buf, "dscp")) {
		*trust = SROCE_TRUST_DSCP;
		return 0;
	}
	*why = "trust is pcp or dscp";
	return -EINVAL;
}

int sroce_qos_parse_onoff(const char *buf, bool *on, const char **why)
{
	if (sysfs_streq(buf, "on")) {
		*on = true;
		return 0;
	}
	if (sysfs_streq(buf, "off")) {
		*on = false;
		return 0;
	}
	*why = "write on or off";
	return -EINVAL;
}

/* "0,0,0,1,0,0,0,0": off or on for each priority (PFC, the CNP NP) */
int sroce_qos_parse_prio_mask(const char *buf, u8 *mask, const char **why)
{
	char copy[SROCE_QOS_BUF_LEN], *ent[SROCE_NUM_PRIO];
	u8 en = 0;
	int p, ret;

	ret = sroce_qos_split8(buf, copy, ent, why);
	if (ret)
		return ret;
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (!strcmp(ent[p], "1")) {
			en |= BIT(p);
		} else if (strcmp(ent[p], "0")) {
			*why = "each priority's entry is 0 or 1";
			return -EINVAL;
		}
	}
	*mask = en;
	return 0;
}

/* A whole number from 0 to @max, decimal */
int sroce_qos_parse_uint(const char *buf, u32 max, u32 *val,
			 const char **why)
{
	u32 v;

	if (kstrtou32(buf, 10, &v)) {
		*why = "not a decimal number";
		return -EINVAL;
	}
	if (v > max) {
		*why = "out of range";
		return -EINVAL;
	}
	*val = v;
	return 0;
}

/*
 * "strict,strict,20,20,20,20,10,10": each entry is "strict" or the share
 * in percent of an ETS priority (IEEE 802.1Q 37.3), and the shares sum to
 * 100.  A share of 0 is refused: such a priority could starve for good.
 */
int sroce_qos_parse_ets(const char *buf, u8 tsa[SROCE_NUM_PRIO],
			u8 weight[SROCE_NUM_PRIO], const char **why)
{
	char copy[SROCE_QOS_BUF_LEN], *ent[SROCE_NUM_PRIO];
	u8 t[SROCE_NUM_PRIO], w[SROCE_NUM_PRIO];
	unsigned int sum = 0;
	bool any_ets = false;
	int p, ret;

	ret = sroce_qos_split8(buf, copy, ent, why);
	if (ret)
		return ret;
	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (!strcmp(ent[p], "strict")) {
			t[p] = SROCE_TSA_STRICT;
			w[p] = 0;
			continue;
		}
		if (kstrtou8(ent[p], 10, &w[p]) || !w[p] || w[p] > 100) {
			*why = "each entry is strict or a share from 1 to 100";
			return -EINVAL;
		}
		t[p] = SROCE_TSA_ETS;
		sum += w[p];
		any_ets = true;
	}
	if (any_ets && sum != 100) {
		*why = "the ETS shares do not sum to 100";
		return -EINVAL;
	}
	memcpy(tsa, t, sizeof(t));
	memcpy(weight, w, sizeof(w));
	return 0;
}

/* "26 3": DSCP 26 goes on priority 3 */
int sroce_qos_parse_dscp2prio(const char *buf, u8 *dscp, u8 *prio,
			      const char **why)
{
	char copy[SROCE_QOS_BUF_LEN], *s, *d, *p;
	u8 dv, pv;

	if (strscpy(copy, buf, sizeof(copy)) < 0) {
		*why = "too long";
		return -EINVAL;
	}
	s = strim(copy);
	d = strsep(&s, " \t");
	p = s ? strim(s) : NULL;
	if (!p || kstrtou8(d, 10, &dv) || kstrtou8(p, 10, &pv)) {
		*why = "write a DSCP and a priority: \"26 3\"";
		return -EINVAL;
	}
	if (dv >= SROCE_NUM_DSCP || pv >= SROCE_NUM_PRIO) {
		*why = "DSCP is 0 to 63, priority 0 to 7";
		return -EINVAL;
	}
	*dscp = dv;
	*prio = pv;
	return 0;
}

/* The form sroce_qos_parse_ets() reads, with a newline; returns its length */
int sroce_qos_format_ets(const u8 tsa[SROCE_NUM_PRIO],
			 const u8 weight[SROCE_NUM_PRIO], char *buf, size_t size)
{
	int p, n = 0;

	for (p = 0; p < SROCE_NUM_PRIO; p++) {
		if (tsa[p] == SROCE_TSA_STRICT)
			n += scnprintf(buf + n, size - n, "%sstrict",
				       p ? "," : "");
		else
			n += scnprintf(buf + n, size - n, "%s%u", p ? "," : "",
				       weight[p]);
	}
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}
