// SPDX-License-Identifier: GPL-2.0
/*
 * dcbnl can tell which APP selectors a driver trusts, PCP among them
 * (6.2): the ops, the PCP selector and the bound on a trust list.
 */
#include <linux/build_bug.h>
#include <net/dcbnl.h>

static_assert(sizeof(((struct dcbnl_rtnl_ops *)0)->dcbnl_getapptrust));
static_assert(DCB_APP_SEL_PCP != IEEE_8021QAZ_APP_SEL_DSCP);
static_assert(IEEE_8021QAZ_APP_SEL_MAX > 0);
