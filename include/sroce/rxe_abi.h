/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rxe userspace ABI as librxe (rdma-core) lays it out, pinned: what
 * the kernel's <rdma/rdma_user_rxe.h> says may change from kernel to
 * kernel (members come and go), but sroce speaks librxe's layout on every
 * kernel it builds for (Documentation/design.rst, "rxe userspace ABI").
 * Sizes and offsets are librxe's, member by member of what the two share:
 * a kernel whose header moved one fails to build, instead of corrupting
 * user rings.
 */
#ifndef SROCE_RXE_ABI_H
#define SROCE_RXE_ABI_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <rdma/rdma_user_rxe.h>

static_assert(sizeof(struct rxe_sge) == 16);
static_assert(offsetof(struct rxe_sge, addr) == 0);
static_assert(offsetof(struct rxe_sge, length) == 8);
static_assert(offsetof(struct rxe_sge, lkey) == 12);

static_assert(sizeof(struct rxe_av) == 88);
static_assert(offsetof(struct rxe_av, port_num) == 0);
static_assert(offsetof(struct rxe_av, network_type) == 1);
static_assert(offsetof(struct rxe_av, dmac) == 2);
static_assert(offsetof(struct rxe_av, grh) == 8);
static_assert(offsetof(struct rxe_av, sgid_addr) == 32);
static_assert(offsetof(struct rxe_av, dgid_addr) == 60);

static_assert(sizeof(struct rxe_send_wr) == 144);
static_assert(offsetof(struct rxe_send_wr, wr_id) == 0);
static_assert(offsetof(struct rxe_send_wr, opcode) == 12);
static_assert(offsetof(struct rxe_send_wr, send_flags) == 16);
static_assert(offsetof(struct rxe_send_wr, ex.imm_data) == 20);
static_assert(offsetof(struct rxe_send_wr, wr.rdma.remote_addr) == 24);
static_assert(offsetof(struct rxe_send_wr, wr.rdma.rkey) == 32);
static_assert(offsetof(struct rxe_send_wr, wr.atomic.remote_addr) == 24);
static_assert(offsetof(struct rxe_send_wr, wr.atomic.compare_add) == 32);
static_assert(offsetof(struct rxe_send_wr, wr.atomic.swap) == 40);
static_assert(offsetof(struct rxe_send_wr, wr.atomic.rkey) == 48);
static_assert(offsetof(struct rxe_send_wr, wr.ud.remote_qpn) == 24);
static_assert(offsetof(struct rxe_send_wr, wr.ud.remote_qkey) == 28);
static_assert(offsetof(struct rxe_send_wr, wr.ud.pkey_index) == 32);
static_assert(offsetof(struct rxe_send_wr, wr.ud.ah_num) == 36);
static_assert(offsetof(struct rxe_send_wr, wr.ud.av) == 56);
static_assert(offsetof(struct rxe_send_wr, wr.mw.addr) == 24);
static_assert(offsetof(struct rxe_send_wr, wr.mw.length) == 32);
static_assert(offsetof(struct rxe_send_wr, wr.mw.mr_lkey) == 40);
static_assert(offsetof(struct rxe_send_wr, wr.mw.mw_rkey) == 44);
static_assert(offsetof(struct rxe_send_wr, wr.mw.rkey) == 48);
static_assert(offsetof(struct rxe_send_wr, wr.mw.access) == 52);

static_assert(sizeof(struct rxe_dma_info) == 24);
static_assert(offsetof(struct rxe_dma_info, length) == 0);
static_assert(offsetof(struct rxe_dma_info, resid) == 4);
static_assert(offsetof(struct rxe_dma_info, cur_sge) == 8);
static_assert(offsetof(struct rxe_dma_info, num_sge) == 12);
static_assert(offsetof(struct rxe_dma_info, sge_offset) == 16);
static_assert(offsetof(struct rxe_dma_info, inline_data) == 24);
static_assert(offsetof(struct rxe_dma_info, sge) == 24);

static_assert(sizeof(struct rxe_send_wqe) == 208);
static_assert(offsetof(struct rxe_send_wqe, wr) == 0);
static_assert(offsetof(struct rxe_send_wqe, status) == 144);
static_assert(offsetof(struct rxe_send_wqe, state) == 148);
static_assert(offsetof(struct rxe_send_wqe, iova) == 152);
static_assert(offsetof(struct rxe_send_wqe, mask) == 160);
static_assert(offsetof(struct rxe_send_wqe, first_psn) == 164);
static_assert(offsetof(struct rxe_send_wqe, last_psn) == 168);
static_assert(offsetof(struct rxe_send_wqe, ack_length) == 172);
static_assert(offsetof(struct rxe_send_wqe, ssn) == 176);
static_assert(offsetof(struct rxe_send_wqe, has_rd_atomic) == 180);
static_assert(offsetof(struct rxe_send_wqe, dma) == 184);

static_assert(sizeof(struct rxe_recv_wqe) == 40);
static_assert(offsetof(struct rxe_recv_wqe, wr_id) == 0);
static_assert(offsetof(struct rxe_recv_wqe, dma) == 16);

static_assert(sizeof(struct mminfo) == 16);
static_assert(offsetof(struct mminfo, offset) == 0);
static_assert(offsetof(struct mminfo, size) == 8);

static_assert(sizeof(struct rxe_create_ah_resp) == 8);
static_assert(offsetof(struct rxe_create_ah_resp, ah_num) == 0);

static_assert(sizeof(struct rxe_create_cq_resp) == 16);

static_assert(sizeof(struct rxe_resize_cq_resp) == 16);

static_assert(sizeof(struct rxe_create_qp_resp) == 32);
static_assert(offsetof(struct rxe_create_qp_resp, rq_mi) == 0);
static_assert(offsetof(struct rxe_create_qp_resp, sq_mi) == 16);

static_assert(sizeof(struct rxe_create_srq_resp) == 24);
static_assert(offsetof(struct rxe_create_srq_resp, mi) == 0);
static_assert(offsetof(struct rxe_create_srq_resp, srq_num) == 16);

static_assert(sizeof(struct rxe_modify_srq_cmd) == 8);
static_assert(offsetof(struct rxe_modify_srq_cmd, mmap_info_addr) == 0);

#endif /* SROCE_RXE_ABI_H */
