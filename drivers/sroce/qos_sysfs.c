// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs attributes of a device's QoS configuration, in
 * /sys/class/infiniband/<dev>/ports/1/qos/: trust, pfc, ets, dscp2prio,
 * dcb; and in .../ports/1/cc/ those of congestion control: the notification
 * point's np_enable, np_cnp_dscp, np_cnp_prio, np_min_time_between_cnps,
 * the reaction point's rp_enable and its parameters rp_* (dcqcn.h).
 *
 * ib_core asks new drivers for netlink rather than device sysfs files,
 * but the rdma netlink family has no QoS command, and the port groups
 * are where ib_core lets a driver put per-port attributes.  The names and
 * forms follow what RoCE NIC users know from their vendor's QoS tool and
 * congestion control parameters.
 *
 * Each store copies the configuration, changes the copy and puts it in
 * place (qos_cfg.c); a write that is refused changes nothing.
 */
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>

#include <sroce/config.h>
#include <sroce/dcb.h>
#include <sroce/device.h>
#include <sroce/qos.h>
#include <sroce/tx.h>

/*
 * How every store works: copy the configuration, let @parse change the
 * copy, and put it in place only if @parse accepted @buf.
 */
static ssize_t sroce_qos_store(struct ib_device *ibdev, const char *attr,
			       const char *buf, size_t count,
			       int (*parse)(struct sroce_dev *sdev,
					    struct sroce_qos_cfg *c,
					    const char *buf, const char **why))
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	const char *why = "refused";
	struct sroce_qos_cfg *c;
	int ret;

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	mutex_lock(&sdev->qos_lock);
	memcpy(c, sroce_qos_locked(sdev), sizeof(*c));
	ret = parse(sdev, c, buf, &why);
	if (!ret)
		sroce_qos_replace(sdev, c);
	mutex_unlock(&sdev->qos_lock);
	if (ret) {
		kfree(c);
		ibdev_info_ratelimited(ibdev, "%s: %s; nothing changed\n",
				       attr, why);
		return ret;
	}
	return count;
}

static ssize_t sroce_qos_show(struct ib_device *ibdev, char *buf,
			      int (*fmt)(const struct sroce_qos_cfg *c,
					 char *buf))
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int n;

	rcu_read_lock();
	n = fmt(rcu_dereference(sdev->qos), buf);
	rcu_read_unlock();
	return n;
}

/*
 * The show and store methods of attribute @name of directory @dir, from
 * its NAME_fmt() and NAME_parse() functions.
 */
#define SROCE_CFG_ATTR(dir, name)					\
static ssize_t name##_show(struct ib_device *ibdev, u32 port,		\
			   struct ib_port_attribute *attr, char *buf)	\
{									\
	return sroce_qos_show(ibdev, buf, name##_fmt);			\
}									\
									\
static ssize_t name##_store(struct ib_device *ibdev, u32 port,		\
			    struct ib_port_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	return sroce_qos_store(ibdev, #dir "/" #name, buf, count,	\
			       name##_parse);				\
}									\
									\
static IB_PORT_ATTR_RW(name)

/* --- the netdev's DCB ---------------------------------------------------- */

/*
 * pfc, ets, trust and dscp2prio are the netdev's while its DCB is
 * followed: a write to them would not last, so it is refused
 */
static int sroce_qos_dcb_refuse(struct sroce_dev *sdev,
				const struct sroce_qos_cfg *c, const char **why)
{
	if (!c->dcb || READ_ONCE(sdev->dcb_ret))
		return 0;
	*why = "the netdev's DCB settings are in force (qos/dcb is on)";
	return -EBUSY;
}

/* "on" (following), "none" (on, with nothing to follow) or "off" */
static ssize_t dcb_show(struct ib_device *ibdev, u32 port,
			struct ib_port_attribute *attr, char *buf)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	if (!sroce_qos_dcb_wanted(sdev))
		return sysfs_emit(buf, "off\n");
	return sysfs_emit(buf, "%s\n", READ_ONCE(sdev->dcb_ret) ? "none" : "on");
}

static int dcb_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
		     const char *buf, const char **why)
{
	return sroce_qos_parse_onoff(buf, &c->dcb, why);
}

/* Turned on, the netdev's settings apply before the write returns */
static ssize_t dcb_store(struct ib_device *ibdev, u32 port,
			 struct ib_port_attribute *attr, const char *buf,
			 size_t count)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	ssize_t ret;

	ret = sroce_qos_store(ibdev, "qos/dcb", buf, count, dcb_parse);
	if (ret >= 0 && sroce_qos_dcb_wanted(sdev)) {
		sroce_dcb_kick(sdev);
		flush_delayed_work(&sdev->dcb_work);
	}
	return ret;
}

static IB_PORT_ATTR_RW(dcb);

/* How many transmit contexts the device drains its queues with (tx.c) */
static ssize_t tx_contexts_show(struct ib_device *ibdev, u32 port,
				struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", sroce_tx_contexts(to_sdev(ibdev)));
}
static IB_PORT_ATTR_RO(tx_contexts);

/* --- trust --------------------------------------------------------------- */

static int trust_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  c->trust == SROCE_TRUST_DSCP ? "dscp" : "pcp");
}

static int trust_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
		       const char *buf, const char **why)
{
	int ret = sroce_qos_dcb_refuse(sdev, c, why);

	return ret ?: sroce_qos_parse_trust(buf, &c->trust, why);
}

SROCE_CFG_ATTR(qos, trust);

/* --- pfc ----------------------------------------------------------------- */

/* "0,0,0,1,0,0,0,0": one entry per priority */
static int prio_mask_fmt(u8 mask, char *buf)
{
	int p, n = 0;

	for (p = 0; p < SROCE_NUM_PRIO; p++)
		n += sysfs_emit_at(buf, n, "%s%u", p ? "," : "",
				   !!(mask & BIT(p)));
	return n + sysfs_emit_at(buf, n, "\n");
}

static int pfc_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	return prio_mask_fmt(c->pfc_en, buf);
}

static int pfc_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
		     const char *buf, const char **why)
{
	u8 pfc_en;
	int ret;

	ret = sroce_qos_dcb_refuse(sdev, c, why);
	if (!ret)
		ret = sroce_qos_parse_prio_mask(buf, &pfc_en, why);
	if (!ret)
		sroce_qos_take_pfc(sdev, c, pfc_en);
	return ret;
}

SROCE_CFG_ATTR(qos, pfc);

/* --- ets ----------------------------------------------------------------- */

static int ets_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	return sroce_qos_format_ets(c->tsa, c->weight, buf, PAGE_SIZE);
}

static int ets_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
		     const char *buf, const char **why)
{
	u8 tsa[SROCE_NUM_PRIO], weight[SROCE_NUM_PRIO];
	int ret;

	ret = sroce_qos_dcb_refuse(sdev, c, why);
	if (!ret)
		ret = sroce_qos_parse_ets(buf, tsa, weight, why);
	if (ret)
		return ret;
	ret = sroce_qos_take_ets(sdev, c, tsa, weight);
	if (ret)
		*why = "the transmit scheduler refused it";
	return ret;
}

SROCE_CFG_ATTR(qos, ets);

/* --- dscp2prio ----------------------------------------------------------- */

/* The priority of each DSCP, DSCP 0 first */
static int dscp2prio_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	int d, n = 0;

	for (d = 0; d < SROCE_NUM_DSCP; d++)
		n += sysfs_emit_at(buf, n, "%s%u", d ? "," : "",
				   c->dscp2prio[d]);
	return n + sysfs_emit_at(buf, n, "\n");
}

static int dscp2prio_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
			   const char *buf, const char **why)
{
	u8 dscp, prio;
	int ret;

	ret = sroce_qos_dcb_refuse(sdev, c, why);
	if (!ret)
		ret = sroce_qos_parse_dscp2prio(buf, &dscp, &prio, why);
	if (!ret)
		c->dscp2prio[dscp] = prio;
	return ret;
}

SROCE_CFG_ATTR(qos, dscp2prio);

/* --- cc: the congestion notification point ------------------------------ */

static int np_enable_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	return prio_mask_fmt(c->np_en, buf);
}

static int np_enable_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
			   const char *buf, const char **why)
{
	return sroce_qos_parse_prio_mask(buf, &c->np_en, why);
}

SROCE_CFG_ATTR(cc, np_enable);

static int np_cnp_dscp_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	return sysfs_emit(buf, "%u\n", c->cnp_dscp);
}

static int np_cnp_dscp_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
			     const char *buf, const char **why)
{
	u32 v;
	int ret;

	ret = sroce_qos_parse_uint(buf, SROCE_NUM_DSCP - 1, &v, why);
	if (!ret)
		c->cnp_dscp = v;
	return ret;
}

SROCE_CFG_ATTR(cc, np_cnp_dscp);

static int np_cnp_prio_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	return sysfs_emit(buf, "%u\n", c->cnp_prio);
}

static int np_cnp_prio_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
			     const char *buf, const char **why)
{
	u32 v;
	int ret;

	ret = sroce_qos_parse_uint(buf, SROCE_NUM_PRIO - 1, &v, why);
	if (!ret)
		c->cnp_prio = v;
	return ret;
}

SROCE_CFG_ATTR(cc, np_cnp_prio);

/* In microseconds, as the NIC parameter of the same name */
static int np_min_time_between_cnps_fmt(const struct sroce_qos_cfg *c,
					char *buf)
{
	return sysfs_emit(buf, "%u\n", c->np_min_time_us);
}

static int np_min_time_between_cnps_parse(struct sroce_dev *sdev,
					  struct sroce_qos_cfg *c,
					  const char *buf, const char **why)
{
	return sroce_qos_parse_uint(buf, SROCE_NP_MIN_TIME_US_MAX,
				    &c->np_min_time_us, why);
}

SROCE_CFG_ATTR(cc, np_min_time_between_cnps);

/* --- cc: the reaction point ---------------------------------------------- */

static int rp_enable_fmt(const struct sroce_qos_cfg *c, char *buf)
{
	return prio_mask_fmt(c->rp_en, buf);
}

static int rp_enable_parse(struct sroce_dev *sdev, struct sroce_qos_cfg *c,
			   const char *buf, const char **why)
{
	return sroce_qos_parse_prio_mask(buf, &c->rp_en, why);
}

SROCE_CFG_ATTR(cc, rp_enable);

/* The reaction point's parameters by name, all u32 */
#define SROCE_RP_FIELD(f) { #f, offsetof(struct sroce_dcqcn_rp_params, f) }
static const struct {
	const char *name;
	size_t off;
} sroce_rp_fields[] = {
	SROCE_RP_FIELD(rp_clamp_tgt_rate),
	SROCE_RP_FIELD(rp_clamp_tgt_rate_ati),
	SROCE_RP_FIELD(rp_time_reset),
	SROCE_RP_FIELD(rp_byte_reset),
	SROCE_RP_FIELD(rp_threshold),
	SROCE_RP_FIELD(rp_ai_rate),
	SROCE_RP_FIELD(rp_hai_rate),
	SROCE_RP_FIELD(rp_max_rate),
	SROCE_RP_FIELD(rp_min_rate),
	SROCE_RP_FIELD(rp_min_dec_fac),
	SROCE_RP_FIELD(rp_rate_to_set_on_first_cnp),
	SROCE_RP_FIELD(rp_dce_tcp_g),
	SROCE_RP_FIELD(rp_dce_tcp_rtt),
	SROCE_RP_FIELD(rp_rate_reduce_monitor_period),
	SROCE_RP_FIELD(rp_initial_alpha_value),
};

/* Where parameter @name sits in struct sroce_dcqcn_rp_params */
static int rp_field_off(const char *name, size_t *off)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sroce_rp_fields); i++) {
		if (!strcmp(sroce_rp_fields[i].name, name)) {
			*off = sroce_rp_fields[i].off;
			return 0;
		}
	}
	return -EINVAL;
}

static int rp_param_fmt(const struct sroce_qos_cfg *c, const char *name,
			char *buf)
{
	size_t off;

	if (rp_field_off(name, &off))
		return -EINVAL;
	return sysfs_emit(buf, "%u\n",
			  *(const u32 *)((const u8 *)&c->rp + off));
}

/*
 * Set parameter @name of @c to the number in @buf, if the parameters
 * stay valid with it (sroce_dcqcn_rp_params_check()).
 */
static int rp_param_parse(struct sroce_qos_cfg *c, const char *name,
			  const char *buf, const char **why)
{
	const char *bad;
	u32 v, old, *field;
	size_t off;
	int ret;

	if (rp_field_off(name, &off))
		return -EINVAL;
	field = (u32 *)((u8 *)&c->rp + off);
	ret = sroce_qos_parse_uint(buf, U32_MAX, &v, why);
	if (ret)
		return ret;
	old = *field;
	*field = v;
	if (!sroce_dcqcn_rp_params_check(&c->rp, &bad))
		return 0;
	*field = old;
	/* the one rule across parameters: rp_min_rate <= rp_max_rate */
	if (strcmp(bad, name))
		*why = "rp_min_rate would exceed rp_max_rate";
	else if (field == &c->rp.rp_min_rate)
		*why = "out of range, or above rp_max_rate";
	else
		*why = "out of range";
	return -EINVAL;
}

/* The attribute of reaction point parameter @field, in decimal */
#define SROCE_RP_ATTR(field)						\
static int field##_fmt(const struct sroce_qos_cfg *c, char *buf)	\
{									\
	return rp_param_fmt(c, #field, buf);				\
}									\
									\
static int field##_parse(struct sroce_dev *sdev,			\
			 struct sroce_qos_cfg *c, const char *buf,	\
			 const char **why)				\
{									\
	return rp_param_parse(c, #field, buf, why);			\
}									\
									\
SROCE_CFG_ATTR(cc, field)

SROCE_RP_ATTR(rp_clamp_tgt_rate);
SROCE_RP_ATTR(rp_clamp_tgt_rate_ati);
SROCE_RP_ATTR(rp_time_reset);
SROCE_RP_ATTR(rp_byte_reset);
SROCE_RP_ATTR(rp_threshold);
SROCE_RP_ATTR(rp_ai_rate);
SROCE_RP_ATTR(rp_hai_rate);
SROCE_RP_ATTR(rp_max_rate);
SROCE_RP_ATTR(rp_min_rate);
SROCE_RP_ATTR(rp_min_dec_fac);
SROCE_RP_ATTR(rp_rate_to_set_on_first_cnp);
SROCE_RP_ATTR(rp_dce_tcp_g);
SROCE_RP_ATTR(rp_dce_tcp_rtt);
SROCE_RP_ATTR(rp_rate_reduce_monitor_period);
SROCE_RP_ATTR(rp_initial_alpha_value);

static struct attribute *sroce_cc_attrs[] = {
	&ib_port_attr_np_enable.attr,
	&ib_port_attr_np_cnp_dscp.attr,
	&ib_port_attr_np_cnp_prio.attr,
	&ib_port_attr_np_min_time_between_cnps.attr,
	&ib_port_attr_rp_enable.attr,
	&ib_port_attr_rp_clamp_tgt_rate.attr,
	&ib_port_attr_rp_clamp_tgt_rate_ati.attr,
	&ib_port_attr_rp_time_reset.attr,
	&ib_port_attr_rp_byte_reset.attr,
	&ib_port_attr_rp_threshold.attr,
	&ib_port_attr_rp_ai_rate.attr,
	&ib_port_attr_rp_hai_rate.attr,
	&ib_port_attr_rp_max_rate.attr,
	&ib_port_attr_rp_min_rate.attr,
	&ib_port_attr_rp_min_dec_fac.attr,
	&ib_port_attr_rp_rate_to_set_on_first_cnp.attr,
	&ib_port_attr_rp_dce_tcp_g.attr,
	&ib_port_attr_rp_dce_tcp_rtt.attr,
	&ib_port_attr_rp_rate_reduce_monitor_period.attr,
	&ib_port_attr_rp_initial_alpha_value.attr,
	NULL,
};

static const struct attribute_group sroce_cc_group = {
	.name = "cc",
	.attrs = sroce_cc_attrs,
};

static struct attribute *sroce_qos_attrs[] = {
	&ib_port_attr_trust.attr,
	&ib_port_attr_pfc.attr,
	&ib_port_attr_ets.attr,
	&ib_port_attr_dscp2prio.attr,
	&ib_port_attr_dcb.attr,
	&ib_port_attr_tx_contexts.attr,
	NULL,
};

static const struct attribute_group sroce_qos_group = {
	.name = "qos",
	.attrs = sroce_qos_attrs,
};

const struct attribute_group *sroce_qos_port_groups[] = {
	&sroce_qos_group,
	&sroce_cc_group,
	NULL,
};
