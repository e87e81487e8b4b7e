/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an sroce device reports and enforces: its identity towards
 * userspace and the limits query_device returns, in one place.
 */
#ifndef SROCE_LIMITS_H
#define SROCE_LIMITS_H

#define SROCE_DRV_NAME		"rdma_sroce"
#define SROCE_LINK_TYPE		"sroce"

/* Everything userspace sees of the device; see Documentation/admin-guide.rst */
#define SROCE_VENDOR_ID		0x5e0ce0	/* no IEEE OUI: software device */
#define SROCE_VENDOR_PART_ID	0x0001
/* librxe accepts ABI versions 1 and 2 of rdma_user_rxe.h; we speak 2 */
#define SROCE_UVERBS_ABI_VERSION	2
#define SROCE_PORT		1
#define SROCE_GID_TABLE_LEN	256
#define SROCE_MAX_MSG_SIZE	0x80000000u	/* 2 GiB, as IBTA allows */
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_CQ		0x10000
/*
 * 2^15 - 1: the ring of 2^15 slots this needs holds exactly that many, so
 * the cqe a CQ reports back (its real capacity) never exceeds max_cqe.
 */
#define SROCE_MAX_CQE		0x7fff
#define SROCE_MAX_MCAST_GRP	256
#define SROCE_MAX_MCAST_QP_ATTACH	32
#define SROCE_MCAST_QPN		0xffffff	/* BTH DestQP of multicast */

/* Limits reported by query_device and enforced by create_qp/create_srq */
#define SROCE_MAX_QP		0x10000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_SGE		32
#define SROCE_MAX_INLINE	256
#define SROCE_MAX_RD_ATOMIC	128	/* initiator and responder depth */
#define SROCE_MAX_SRQ		0x10000
#define SROCE_MAX_SRQ_WR	0x4000
#define SROCE_MIN_QPN		0x11	/* below: reserved (0, 1 = GSI) */

/* Fast-reg page lists and what we report as max_fast_reg_page_list_len */
#define SROCE_MAX_FAST_REG_PAGES	512

#endif /* SROCE_LIMITS_H */
