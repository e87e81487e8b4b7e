/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BTH opcodes and what each one implies about the packet: which extended
 * headers follow the BTH and where, whether a payload may follow, and the
 * role of the packet in its message.
 */
#ifndef SROCE_OPCODE_H
#define SROCE_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>

/* Opcode bits 7..5: transport service. */
#define SROCE_TR_MASK		0xe0
#define SROCE_TR_RC		0x00
#define SROCE_TR_UC		0x20
#define SROCE_TR_RD		0x40
#define SROCE_TR_UD		0x60
#define SROCE_TR_CNP		0x80
#define SROCE_TR_XRC		0xa0

enum sroce_opcode {
	SROCE_OP_RC_SEND_FIRST			= 0x00,
	SROCE_OP_RC_SEND_MIDDLE			= 0x01,
	SROCE_OP_RC_SEND_LAST			= 0x02,
	SROCE_OP_RC_SEND_LAST_IMM		= 0x03,
	SROCE_OP_RC_SEND_ONLY			= 0x04,
	SROCE_OP_RC_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_RC_WRITE_FIRST			= 0x06,
	SROCE_OP_RC_WRITE_MIDDLE		= 0x07,
	SROCE_OP_RC_WRITE_LAST			= 0x08,
	SROCE_OP_RC_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_RC_WRITE_ONLY			= 0x0a,
	SROCE_OP_RC_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_RC_READ_REQ			= 0x0c,
	SROCE_OP_RC_READ_RESP_FIRST		= 0x0d,
	SROCE_OP_RC_READ_RESP_MIDDLE		= 0x0e,
	SROCE_OP_RC_READ_RESP_LAST		= 0x0f,
	SROCE_OP_RC_READ_RESP_ONLY		= 0x10,
	SROCE_OP_RC_ACK				= 0x11,
	SROCE_OP_RC_ATOMIC_ACK			= 0x12,
	SROCE_OP_RC_CMP_SWAP			= 0x13,
	SROCE_OP_RC_FETCH_ADD			= 0x14,
	SROCE_OP_RC_SEND_LAST_INV		= 0x16,
	SROCE_OP_RC_SEND_ONLY_INV		= 0x17,
	SROCE_OP_RC_FLUSH			= 0x1c,
	SROCE_OP_RC_ATOMIC_WRITE		= 0x1d,

	SROCE_OP_UC_SEND_FIRST			= 0x20,
	SROCE_OP_UC_SEND_MIDDLE			= 0x21,
	SROCE_OP_UC_SEND_LAST			= 0x22,
	SROCE_OP_UC_SEND_LAST_IMM		= 0x23,
	SROCE_OP_UC_SEND_ONLY			= 0x24,
	SROCE_OP_UC_SEND_ONLY_IMM		= 0x25,
	SROCE_OP_UC_WRITE_FIRST			= 0x26,
	SROCE_OP_UC_WRITE_MIDDLE		= 0x27,
	SROCE_OP_UC_WRITE_LAST			= 0x28,
	SROCE_OP_UC_WRITE_LAST_IMM		= 0x29,
	SROCE_OP_UC_WRITE_ONLY			= 0x2a,
	SROCE_OP_UC_WRITE_ONLY_IMM		= 0x2b,

	SROCE_OP_UD_SEND_ONLY			= 0x64,
	SROCE_OP_UD_SEND_ONLY_IMM		= 0x65,

	SROCE_OP_CNP				= 0x81,
};

/*
 * Extended transport headers, in the order they appear on the wire.  The
 * opcode table relies on this order to compute the offsets.
 */
enum sroce_ext_hdr {
	SROCE_HDR_DETH,
	SROCE_HDR_FETH,
	SROCE_HDR_RETH,
	SROCE_HDR_ATMETH,
	SROCE_HDR_AETH,
	SROCE_HDR_ATMACK,
	SROCE_HDR_IMMDT,
	SROCE_HDR_IETH,
	SROCE_HDR_NUM
};

/* Which extended headers follow the BTH. */
#define SROCE_OPF_DETH		BIT(SROCE_HDR_DETH)
#define SROCE_OPF_FETH		BIT(SROCE_HDR_FETH)
#define SROCE_OPF_RETH		BIT(SROCE_HDR_RETH)
#define SROCE_OPF_ATMETH	BIT(SROCE_HDR_ATMETH)
#define SROCE_OPF_AETH		BIT(SROCE_HDR_AETH)
#define SROCE_OPF_ATMACK	BIT(SROCE_HDR_ATMACK)
#define SROCE_OPF_IMMDT		BIT(SROCE_HDR_IMMDT)
#define SROCE_OPF_IETH		BIT(SROCE_HDR_IETH)
#define SROCE_OPF_HDR_MASK	(BIT(SROCE_HDR_NUM) - 1)
/* Payload may follow the headers; otherwise the ICRC comes right after them. */
#define SROCE_OPF_PAYLOAD	BIT(8)
/* Position of the packet in its message; single-packet operations are ONLY. */
#define SROCE_OPF_FIRST		BIT(9)
#define SROCE_OPF_MIDDLE	BIT(10)
#define SROCE_OPF_LAST		BIT(11)
#define SROCE_OPF_ONLY		BIT(12)
/* Direction: requester to responder, or responder back to requester. */
#define SROCE_OPF_REQ		BIT(13)
#define SROCE_OPF_RESP		BIT(14)
/* Operation family. */
#define SROCE_OPF_SEND		BIT(15)
#define SROCE_OPF_WRITE		BIT(16)
#define SROCE_OPF_READ		BIT(17)	/* READ request and READ responses */
#define SROCE_OPF_ATOMIC	BIT(18)	/* CMP_SWAP, FETCH_ADD and ATOMIC_ACK */
#define SROCE_OPF_FLUSH		BIT(19)
#define SROCE_OPF_ATOMIC_WRITE	BIT(20)
#define SROCE_OPF_ACK		BIT(21)	/* ACKNOWLEDGE: ACK, RNR NAK or NAK */
/* RC requests: the responder owes an ACK or a response for each PSN. */
#define SROCE_OPF_NEEDS_ACK	BIT(22)
/* The message consumes a receive WQE at the responder. */
#define SROCE_OPF_RWQE		BIT(23)
#define SROCE_OPF_CNP		BIT(24)

#define SROCE_OPF_START		(SROCE_OPF_FIRST | SROCE_OPF_ONLY)
#define SROCE_OPF_END		(SROCE_OPF_LAST | SROCE_OPF_ONLY)

/* Largest BTH + extended headers of any opcode (RC atomics). */
#define SROCE_MAX_TP_HDR_LEN	40

struct sroce_opcode_info {
	const char *name;		/* NULL for reserved opcodes */
	u32 flags;			/* SROCE_OPF_* */
	u8 hdr_len;			/* BTH + extended headers */
	u8 off[SROCE_HDR_NUM];		/* from the BTH start; 0 if absent */
};

extern const struct sroce_opcode_info sroce_opcode_table[256];

/* NULL for every opcode sroce does not implement (RD, XRC, reserved). */
static inline const struct sroce_opcode_info *sroce_opcode_info(u8 opcode)
{
	const struct sroce_opcode_info *info = &sroce_opcode_table[opcode];

	return info->name ? info : NULL;
}

static inline bool sroce_opcode_has(const struct sroce_opcode_info *info, u32 flags)
{
	return info->flags & flags;
}

/* Offset of extended header @h from the BTH start, 0 if the opcode lacks it. */
static inline unsigned int sroce_opcode_hdr_off(const struct sroce_opcode_info *info,
						enum sroce_ext_hdr h)
{
	return info->off[h];
}

static inline u8 sroce_opcode_transport(u8 opcode)
{
	return opcode & SROCE_TR_MASK;
}

const char *sroce_opcode_name(u8 opcode);

#endif /* SROCE_OPCODE_H */
