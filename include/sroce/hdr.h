/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IBA transport header codecs (BTH and the extended transport headers).
 *
 * Every accessor works on a byte pointer to the start of its header, with
 * big-endian unaligned loads and stores: headers sit right after a 14-byte
 * Ethernet header plus a variable-size network header, so no alignment can
 * be assumed.  Bit positions follow IBA vol. 1 ch. 9 and RoCE annex A17.
 */
#ifndef SROCE_HDR_H
#define SROCE_HDR_H

#include <linux/bits.h>
#include <linux/string.h>
#include <linux/types.h>

#include <sroce/compat.h>

#define SROCE_BTH_LEN		12
#define SROCE_RETH_LEN		16
#define SROCE_AETH_LEN		4
#define SROCE_DETH_LEN		8
#define SROCE_IMMDT_LEN		4
#define SROCE_IETH_LEN		4
#define SROCE_ATMETH_LEN	28
#define SROCE_ATMACK_LEN	8
#define SROCE_FETH_LEN		4
#define SROCE_ICRC_LEN		4
/* CNPs carry 16 reserved bytes after the BTH (RoCE annex A17.9.3). */
#define SROCE_CNP_RSVD_LEN	16

#define SROCE_QPN_MASK		0x00ffffffU
#define SROCE_MSN_MASK		0x00ffffffU
#define SROCE_DEFAULT_PKEY	0xffff
#define SROCE_GSI_QKEY		0x80010000U

/* --- BTH ------------------------------------------------------------- */

#define SROCE_BTH_SE		BIT(7)	/* byte 1 */
#define SROCE_BTH_MIG		BIT(6)	/* byte 1 */
#define SROCE_BTH_PAD_SHIFT	4	/* byte 1 */
#define SROCE_BTH_PAD_MASK	(3U << SROCE_BTH_PAD_SHIFT)
#define SROCE_BTH_TVER_MASK	0x0fU	/* byte 1 */
#define SROCE_BTH_FECN		BIT(7)	/* byte 4 */
#define SROCE_BTH_BECN		BIT(6)	/* byte 4 */
#define SROCE_BTH_ACKREQ	BIT(7)	/* byte 8 */
/* The only transport version defined so far. */
#define SROCE_BTH_TVER		0

static inline void sroce_bth_set_bit(void *bth, unsigned int byte, u8 bit, bool on)
{
	u8 *p = bth;

	if (on)
		p[byte] |= bit;
	else
		p[byte] &= ~bit;
}

static inline u8 sroce_bth_opcode(const void *bth)
{
	return ((const u8 *)bth)[0];
}

static inline void sroce_bth_set_opcode(void *bth, u8 opcode)
{
	((u8 *)bth)[0] = opcode;
}

static inline bool sroce_bth_se(const void *bth)
{
	return ((const u8 *)bth)[1] & SROCE_BTH_SE;
}

static inline void sroce_bth_set_se(void *bth, bool se)
{
	sroce_bth_set_bit(bth, 1, SROCE_BTH_SE, se);
}

static inline bool sroce_bth_mig(const void *bth)
{
	return ((const u8 *)bth)[1] & SROCE_BTH_MIG;
}

static inline void sroce_bth_set_mig(void *bth, bool mig)
{
	sroce_bth_set_bit(bth, 1, SROCE_BTH_MIG, mig);
}

static inline u8 sroce_bth_padcnt(const void *bth)
{
	return (((const u8 *)bth)[1] & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
}

static inline void sroce_bth_set_padcnt(void *bth, u8 padcnt)
{
	u8 *p = bth;

	p[1] = (p[1] & ~SROCE_BTH_PAD_MASK) |
	       ((padcnt << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK);
}

static inline u8 sroce_bth_tver(const void *bth)
{
	return ((const u8 *)bth)[1] & SROCE_BTH_TVER_MASK;
}

static inline void sroce_bth_set_tver(void *bth, u8 tver)
{
	u8 *p = bth;

	p[1] = (p[1] & ~SROCE_BTH_TVER_MASK) | (tver & SROCE_BTH_TVER_MASK);
}

static inline u16 sroce_bth_pkey(const void *bth)
{
	return get_unaligned_be16((const u8 *)bth + 2);
}

static inline void sroce_bth_set_pkey(void *bth, u16 pkey)
{
	put_unaligned_be16(pkey, (u8 *)bth + 2);
}

static inline bool sroce_bth_fecn(const void *bth)
{
	return ((const u8 *)bth)[4] & SROCE_BTH_FECN;
}

static inline void sroce_bth_set_fecn(void *bth, bool fecn)
{
	sroce_bth_set_bit(bth, 4, SROCE_BTH_FECN, fecn);
}

static inline bool sroce_bth_becn(const void *bth)
{
	return ((const u8 *)bth)[4] & SROCE_BTH_BECN;
}

static inline void sroce_bth_set_becn(void *bth, bool becn)
{
	sroce_bth_set_bit(bth, 4, SROCE_BTH_BECN, becn);
}

static inline u32 sroce_bth_dqpn(const void *bth)
{
	return get_unaligned_be24((const u8 *)bth + 5);
}

static inline void sroce_bth_set_dqpn(void *bth, u32 qpn)
{
	put_unaligned_be24(qpn & SROCE_QPN_MASK, (u8 *)bth + 5);
}

static inline bool sroce_bth_ackreq(const void *bth)
{
	return ((const u8 *)bth)[8] & SROCE_BTH_ACKREQ;
}

static inline void sroce_bth_set_ackreq(void *bth, bool ackreq)
{
	sroce_bth_set_bit(bth, 8, SROCE_BTH_ACKREQ, ackreq);
}

static inline u32 sroce_bth_psn(const void *bth)
{
	return get_unaligned_be24((const u8 *)bth + 9);
}

static inline void sroce_bth_set_psn(void *bth, u32 psn)
{
	put_unaligned_be24(psn & 0x00ffffffU, (u8 *)bth + 9);
}

/*
 * Start a BTH from scratch: every flag, the pad count, TVer and all reserved
 * bits are zero, which is what a requester sends unless it sets them later.
 */
static inline void sroce_bth_init(void *bth, u8 opcode, u16 pkey, u32 dqpn, u32 psn)
{
	memset(bth, 0, SROCE_BTH_LEN);
	sroce_bth_set_opcode(bth, opcode);
	sroce_bth_set_pkey(bth, pkey);
	sroce_bth_set_dqpn(bth, dqpn);
	sroce_bth_set_psn(bth, psn);
}

/* Pad bytes needed after a payload of @len bytes to reach a 4-byte multiple. */
static inline u8 sroce_padcnt(unsigned int len)
{
	return -len & 3;
}

/* --- RETH: VA 64 | R_Key 32 | DMA length 32 ---------------------------- */

static inline u64 sroce_reth_va(const void *reth)
{
	return get_unaligned_be64(reth);
}

static inline void sroce_reth_set_va(void *reth, u64 va)
{
	put_unaligned_be64(va, reth);
}

static inline u32 sroce_reth_rkey(const void *reth)
{
	return get_unaligned_be32((const u8 *)reth + 8);
}

static inline void sroce_reth_set_rkey(void *reth, u32 rkey)
{
	put_unaligned_be32(rkey, (u8 *)reth + 8);
}

static inline u32 sroce_reth_len(const void *reth)
{
	return get_unaligned_be32((const u8 *)reth + 12);
}

static inline void sroce_reth_set_len(void *reth, u32 len)
{
	put_unaligned_be32(len, (u8 *)reth + 12);
}

static inline void sroce_reth_put(void *reth, u64 va, u32 rkey, u32 len)
{
	sroce_reth_set_va(reth, va);
	sroce_reth_set_rkey(reth, rkey);
	sroce_reth_set_len(reth, len);
}

/* --- AETH: syndrome 8 | MSN 24 ----------------------------------------- */

#define SROCE_AETH_TYPE_SHIFT	5
#define SROCE_AETH_VALUE_MASK	0x1fU

/* Values of syndrome bits 7..5. */
enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0,
	SROCE_AETH_RNR_NAK	= 1,
	SROCE_AETH_RESERVED	= 2,
	SROCE_AETH_NAK		= 3,
};

/* Syndrome bits 4..0 when the type is SROCE_AETH_NAK. */
enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR	= 0,
	SROCE_NAK_INVALID_REQ	= 1,
	SROCE_NAK_REM_ACCESS	= 2,
	SROCE_NAK_REM_OP_ERR	= 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
};

/* Credit code meaning "end-to-end credits do not apply" (e.g. with an SRQ). */
#define SROCE_AETH_CREDIT_INVALID	0x1f
#define SROCE_AETH_NUM_CODES		32

static inline u8 sroce_aeth_syn(const void *aeth)
{
	return ((const u8 *)aeth)[0];
}

static inline void sroce_aeth_set_syn(void *aeth, u8 syn)
{
	((u8 *)aeth)[0] = syn;
}

static inline u32 sroce_aeth_msn(const void *aeth)
{
	return get_unaligned_be24((const u8 *)aeth + 1);
}

static inline void sroce_aeth_set_msn(void *aeth, u32 msn)
{
	put_unaligned_be24(msn & SROCE_MSN_MASK, (u8 *)aeth + 1);
}

static inline void sroce_aeth_put(void *aeth, u8 syn, u32 msn)
{
	sroce_aeth_set_syn(aeth, syn);
	sroce_aeth_set_msn(aeth, msn);
}

static inline enum sroce_aeth_type sroce_aeth_syn_type(u8 syn)
{
	return syn >> SROCE_AETH_TYPE_SHIFT;
}

static inline u8 sroce_aeth_syn_value(u8 syn)
{
	return syn & SROCE_AETH_VALUE_MASK;
}

static inline u8 sroce_aeth_syn_make(enum sroce_aeth_type type, u8 value)
{
	return (type << SROCE_AETH_TYPE_SHIFT) | (value & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_aeth_syn_ack(u8 credit_code)
{
	return sroce_aeth_syn_make(SROCE_AETH_ACK, credit_code);
}

static inline u8 sroce_aeth_syn_rnr(u8 timer_code)
{
	return sroce_aeth_syn_make(SROCE_AETH_RNR_NAK, timer_code);
}

static inline u8 sroce_aeth_syn_nak(enum sroce_nak_code code)
{
	return sroce_aeth_syn_make(SROCE_AETH_NAK, code);
}

/* Tables in hdr.c.  Codes are taken modulo 32, so any u8 is a safe input. */
u32 sroce_rnr_timer_us(u8 timer_code);
u64 sroce_rnr_timer_ns(u8 timer_code);
u8 sroce_rnr_timer_code(u32 min_us);
/* Returns the advertised WQE count, or U32_MAX for SROCE_AETH_CREDIT_INVALID. */
u32 sroce_aeth_credits(u8 credit_code);
u8 sroce_aeth_credit_code(u32 nwqe);

/* --- DETH: Q_Key 32 | reserved 8 | source QP 24 ------------------------- */

static inline u32 sroce_deth_qkey(const void *deth)
{
	return get_unaligned_be32(deth);
}

static inline void sroce_deth_set_qkey(void *deth, u32 qkey)
{
	put_unaligned_be32(qkey, deth);
}

static inline u32 sroce_deth_sqpn(const void *deth)
{
	return get_unaligned_be24((const u8 *)deth + 5);
}

static inline void sroce_deth_set_sqpn(void *deth, u32 sqpn)
{
	put_unaligned_be24(sqpn & SROCE_QPN_MASK, (u8 *)deth + 5);
}

static inline void sroce_deth_put(void *deth, u32 qkey, u32 sqpn)
{
	sroce_deth_set_qkey(deth, qkey);
	((u8 *)deth)[4] = 0;
	sroce_deth_set_sqpn(deth, sqpn);
}

/*
 * --- ImmDt -------------------------------------------------------------
 * Immediate data is opaque to the transport and handed to the consumer in
 * network order (ib_wc.ex.imm_data is __be32), hence no byte swapping.
 */

static inline __be32 sroce_immdt(const void *immdt)
{
	return get_unaligned((const __be32 *)immdt);
}

static inline void sroce_immdt_set(void *immdt, __be32 imm)
{
	put_unaligned(imm, (__be32 *)immdt);
}

/* --- IETH: R_Key to invalidate ------------------------------------------ */

static inline u32 sroce_ieth_rkey(const void *ieth)
{
	return get_unaligned_be32(ieth);
}

static inline void sroce_ieth_set_rkey(void *ieth, u32 rkey)
{
	put_unaligned_be32(rkey, ieth);
}

/* --- AtomicETH: VA 64 | R_Key 32 | swap/add 64 | compare 64 ------------ */

static inline u64 sroce_atmeth_va(const void *h)
{
	return get_unaligned_be64(h);
}

static inline void sroce_atmeth_set_va(void *h, u64 va)
{
	put_unaligned_be64(va, h);
}

static inline u32 sroce_atmeth_rkey(const void *h)
{
	return get_unaligned_be32((const u8 *)h + 8);
}

static inline void sroce_atmeth_set_rkey(void *h, u32 rkey)
{
	put_unaligned_be32(rkey, (u8 *)h + 8);
}

static inline u64 sroce_atmeth_swap_add(const void *h)
{
	return get_unaligned_be64((const u8 *)h + 12);
}

static inline void sroce_atmeth_set_swap_add(void *h, u64 v)
{
	put_unaligned_be64(v, (u8 *)h + 12);
}

static inline u64 sroce_atmeth_compare(const void *h)
{
	return get_unaligned_be64((const u8 *)h + 20);
}

static inline void sroce_atmeth_set_compare(void *h, u64 v)
{
	put_unaligned_be64(v, (u8 *)h + 20);
}

static inline void sroce_atmeth_put(void *h, u64 va, u32 rkey, u64 swap_add, u64 compare)
{
	sroce_atmeth_set_va(h, va);
	sroce_atmeth_set_rkey(h, rkey);
	sroce_atmeth_set_swap_add(h, swap_add);
	sroce_atmeth_set_compare(h, compare);
}

/* --- AtomicAckETH: original remote data 64 ------------------------------ */

static inline u64 sroce_atmack_orig(const void *h)
{
	return get_unaligned_be64(h);
}

static inline void sroce_atmack_set_orig(void *h, u64 orig)
{
	put_unaligned_be64(orig, h);
}

/*
 * --- FETH (IBTA 1.5 FLUSH): 26 reserved bits, selectivity level 2,
 * placement type 4, so both fields live in the last byte.
 */
#define SROCE_FETH_SEL_SHIFT	4
#define SROCE_FETH_SEL_MASK	(3U << SROCE_FETH_SEL_SHIFT)
#define SROCE_FETH_PLT_MASK	0x0fU

static inline u8 sroce_feth_sel(const void *feth)
{
	return (((const u8 *)feth)[3] & SROCE_FETH_SEL_MASK) >> SROCE_FETH_SEL_SHIFT;
}

static inline u8 sroce_feth_plt(const void *feth)
{
	return ((const u8 *)feth)[3] & SROCE_FETH_PLT_MASK;
}

static inline void sroce_feth_put(void *feth, u8 sel, u8 plt)
{
	u8 *p = feth;

	p[0] = 0;
	p[1] = 0;
	p[2] = 0;
	p[3] = ((sel << SROCE_FETH_SEL_SHIFT) & SROCE_FETH_SEL_MASK) |
	       (plt & SROCE_FETH_PLT_MASK);
}

#endif /* SROCE_HDR_H */
