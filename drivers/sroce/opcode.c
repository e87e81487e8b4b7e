// SPDX-License-Identifier: GPL-2.0
/*
 * The opcode table (IBA vol. 1 ch. 9.2 and RoCE annex A17 for the CNP).
 * Offsets follow the fixed wire order of the extended headers (see enum
 * sroce_ext_hdr); the sroce_opcode KUnit suite checks every entry's offsets
 * and length against its header flags.
 */
#include <sroce/hdr.h>
#include <sroce/opcode.h>

/* Flags common to the RC and UC forms of an operation. */
#define SROCE_SEND_F		(SROCE_OPF_SEND | SROCE_OPF_PAYLOAD | SROCE_OPF_RWQE)
#define SROCE_WRITE_F		(SROCE_OPF_WRITE | SROCE_OPF_PAYLOAD)

#define SROCE_RC_REQ		(SROCE_OPF_REQ | SROCE_OPF_NEEDS_ACK)
#define SROCE_UC_REQ		SROCE_OPF_REQ
#define SROCE_READ_RESP_F	(SROCE_OPF_RESP | SROCE_OPF_READ | SROCE_OPF_PAYLOAD)

const struct sroce_opcode_info sroce_opcode_table[256] = {
	[SROCE_OP_RC_SEND_FIRST] = {
		.name = "RC_SEND_FIRST",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_FIRST,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_RC_SEND_MIDDLE] = {
		.name = "RC_SEND_MIDDLE",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_MIDDLE,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_RC_SEND_LAST] = {
		.name = "RC_SEND_LAST",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_LAST,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_RC_SEND_LAST_IMM] = {
		.name = "RC_SEND_LAST_IMM",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_LAST | SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_SEND_ONLY] = {
		.name = "RC_SEND_ONLY",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_ONLY,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_RC_SEND_ONLY_IMM] = {
		.name = "RC_SEND_ONLY_IMM",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_ONLY | SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_WRITE_FIRST] = {
		.name = "RC_WRITE_FIRST",
		.flags = SROCE_RC_REQ | SROCE_WRITE_F | SROCE_OPF_FIRST | SROCE_OPF_RETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_WRITE_MIDDLE] = {
		.name = "RC_WRITE_MIDDLE",
		.flags = SROCE_RC_REQ | SROCE_WRITE_F | SROCE_OPF_MIDDLE,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_RC_WRITE_LAST] = {
		.name = "RC_WRITE_LAST",
		.flags = SROCE_RC_REQ | SROCE_WRITE_F | SROCE_OPF_LAST,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_RC_WRITE_LAST_IMM] = {
		.name = "RC_WRITE_LAST_IMM",
		.flags = SROCE_RC_REQ | SROCE_WRITE_F | SROCE_OPF_RWQE | SROCE_OPF_LAST |
			 SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_WRITE_ONLY] = {
		.name = "RC_WRITE_ONLY",
		.flags = SROCE_RC_REQ | SROCE_WRITE_F | SROCE_OPF_ONLY | SROCE_OPF_RETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_WRITE_ONLY_IMM] = {
		.name = "RC_WRITE_ONLY_IMM",
		.flags = SROCE_RC_REQ | SROCE_WRITE_F | SROCE_OPF_RWQE | SROCE_OPF_ONLY |
			 SROCE_OPF_RETH | SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN + SROCE_RETH_LEN,
		},
	},
	[SROCE_OP_RC_READ_REQ] = {
		.name = "RC_READ_REQ",
		.flags = SROCE_RC_REQ | SROCE_OPF_READ | SROCE_OPF_ONLY | SROCE_OPF_RETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_READ_RESP_FIRST] = {
		.name = "RC_READ_RESP_FIRST",
		.flags = SROCE_READ_RESP_F | SROCE_OPF_FIRST | SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_AETH_LEN,
		.off = {
			[SROCE_HDR_AETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_READ_RESP_MIDDLE] = {
		.name = "RC_READ_RESP_MIDDLE",
		.flags = SROCE_READ_RESP_F | SROCE_OPF_MIDDLE,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_RC_READ_RESP_LAST] = {
		.name = "RC_READ_RESP_LAST",
		.flags = SROCE_READ_RESP_F | SROCE_OPF_LAST | SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_AETH_LEN,
		.off = {
			[SROCE_HDR_AETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_READ_RESP_ONLY] = {
		.name = "RC_READ_RESP_ONLY",
		.flags = SROCE_READ_RESP_F | SROCE_OPF_ONLY | SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_AETH_LEN,
		.off = {
			[SROCE_HDR_AETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_ACK] = {
		.name = "RC_ACK",
		.flags = SROCE_OPF_RESP | SROCE_OPF_ACK | SROCE_OPF_ONLY | SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_AETH_LEN,
		.off = {
			[SROCE_HDR_AETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_ATOMIC_ACK] = {
		.name = "RC_ATOMIC_ACK",
		.flags = SROCE_OPF_RESP | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY | SROCE_OPF_AETH |
			 SROCE_OPF_ATMACK,
		.hdr_len = SROCE_BTH_LEN + SROCE_AETH_LEN + SROCE_ATMACK_LEN,
		.off = {
			[SROCE_HDR_AETH] = SROCE_BTH_LEN,
			[SROCE_HDR_ATMACK] = SROCE_BTH_LEN + SROCE_AETH_LEN,
		},
	},
	[SROCE_OP_RC_CMP_SWAP] = {
		.name = "RC_CMP_SWAP",
		.flags = SROCE_RC_REQ | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY | SROCE_OPF_ATMETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_ATMETH_LEN,
		.off = {
			[SROCE_HDR_ATMETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_FETCH_ADD] = {
		.name = "RC_FETCH_ADD",
		.flags = SROCE_RC_REQ | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY | SROCE_OPF_ATMETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_ATMETH_LEN,
		.off = {
			[SROCE_HDR_ATMETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_SEND_LAST_INV] = {
		.name = "RC_SEND_LAST_INV",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_LAST | SROCE_OPF_IETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_IETH_LEN,
		.off = {
			[SROCE_HDR_IETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_SEND_ONLY_INV] = {
		.name = "RC_SEND_ONLY_INV",
		.flags = SROCE_RC_REQ | SROCE_SEND_F | SROCE_OPF_ONLY | SROCE_OPF_IETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_IETH_LEN,
		.off = {
			[SROCE_HDR_IETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_RC_FLUSH] = {
		.name = "RC_FLUSH",
		.flags = SROCE_RC_REQ | SROCE_OPF_FLUSH | SROCE_OPF_ONLY | SROCE_OPF_FETH |
			 SROCE_OPF_RETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_FETH_LEN + SROCE_RETH_LEN,
		.off = {
			[SROCE_HDR_FETH] = SROCE_BTH_LEN,
			[SROCE_HDR_RETH] = SROCE_BTH_LEN + SROCE_FETH_LEN,
		},
	},
	/* The 8 bytes to write travel as payload, not in a header. */
	[SROCE_OP_RC_ATOMIC_WRITE] = {
		.name = "RC_ATOMIC_WRITE",
		.flags = SROCE_RC_REQ | SROCE_OPF_ATOMIC_WRITE | SROCE_OPF_PAYLOAD |
			 SROCE_OPF_ONLY | SROCE_OPF_RETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
		},
	},

	[SROCE_OP_UC_SEND_FIRST] = {
		.name = "UC_SEND_FIRST",
		.flags = SROCE_UC_REQ | SROCE_SEND_F | SROCE_OPF_FIRST,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_UC_SEND_MIDDLE] = {
		.name = "UC_SEND_MIDDLE",
		.flags = SROCE_UC_REQ | SROCE_SEND_F | SROCE_OPF_MIDDLE,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_UC_SEND_LAST] = {
		.name = "UC_SEND_LAST",
		.flags = SROCE_UC_REQ | SROCE_SEND_F | SROCE_OPF_LAST,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_UC_SEND_LAST_IMM] = {
		.name = "UC_SEND_LAST_IMM",
		.flags = SROCE_UC_REQ | SROCE_SEND_F | SROCE_OPF_LAST | SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_UC_SEND_ONLY] = {
		.name = "UC_SEND_ONLY",
		.flags = SROCE_UC_REQ | SROCE_SEND_F | SROCE_OPF_ONLY,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_UC_SEND_ONLY_IMM] = {
		.name = "UC_SEND_ONLY_IMM",
		.flags = SROCE_UC_REQ | SROCE_SEND_F | SROCE_OPF_ONLY | SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_UC_WRITE_FIRST] = {
		.name = "UC_WRITE_FIRST",
		.flags = SROCE_UC_REQ | SROCE_WRITE_F | SROCE_OPF_FIRST | SROCE_OPF_RETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_UC_WRITE_MIDDLE] = {
		.name = "UC_WRITE_MIDDLE",
		.flags = SROCE_UC_REQ | SROCE_WRITE_F | SROCE_OPF_MIDDLE,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_UC_WRITE_LAST] = {
		.name = "UC_WRITE_LAST",
		.flags = SROCE_UC_REQ | SROCE_WRITE_F | SROCE_OPF_LAST,
		.hdr_len = SROCE_BTH_LEN,
	},
	[SROCE_OP_UC_WRITE_LAST_IMM] = {
		.name = "UC_WRITE_LAST_IMM",
		.flags = SROCE_UC_REQ | SROCE_WRITE_F | SROCE_OPF_RWQE | SROCE_OPF_LAST |
			 SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_UC_WRITE_ONLY] = {
		.name = "UC_WRITE_ONLY",
		.flags = SROCE_UC_REQ | SROCE_WRITE_F | SROCE_OPF_ONLY | SROCE_OPF_RETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_UC_WRITE_ONLY_IMM] = {
		.name = "UC_WRITE_ONLY_IMM",
		.flags = SROCE_UC_REQ | SROCE_WRITE_F | SROCE_OPF_RWQE | SROCE_OPF_ONLY |
			 SROCE_OPF_RETH | SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_RETH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_RETH] = SROCE_BTH_LEN,
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN + SROCE_RETH_LEN,
		},
	},

	[SROCE_OP_UD_SEND_ONLY] = {
		.name = "UD_SEND_ONLY",
		.flags = SROCE_OPF_REQ | SROCE_SEND_F | SROCE_OPF_ONLY | SROCE_OPF_DETH,
		.hdr_len = SROCE_BTH_LEN + SROCE_DETH_LEN,
		.off = {
			[SROCE_HDR_DETH] = SROCE_BTH_LEN,
		},
	},
	[SROCE_OP_UD_SEND_ONLY_IMM] = {
		.name = "UD_SEND_ONLY_IMM",
		.flags = SROCE_OPF_REQ | SROCE_SEND_F | SROCE_OPF_ONLY | SROCE_OPF_DETH |
			 SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_LEN + SROCE_DETH_LEN + SROCE_IMMDT_LEN,
		.off = {
			[SROCE_HDR_DETH] = SROCE_BTH_LEN,
			[SROCE_HDR_IMMDT] = SROCE_BTH_LEN + SROCE_DETH_LEN,
		},
	},

	/* The 16 reserved bytes count as header, so no payload is allowed. */
	[SROCE_OP_CNP] = {
		.name = "CNP",
		.flags = SROCE_OPF_CNP,
		.hdr_len = SROCE_BTH_LEN + SROCE_CNP_RSVD_LEN,
	},
};

const char *sroce_opcode_name(u8 opcode)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);

	return info ? info->name : "RESERVED";
}
