/* SPDX-License-Identifier: MIT */
/*
 * The BTH opcode table (IBA 9.2.1 table 35 and 9.3): one const entry per
 * opcode says which extension headers follow the BTH and at which offsets,
 * the operation class, the position in a message, and whether a payload is
 * allowed. The parser and the builder consult it instead of switching on
 * opcodes (STYLE: one opcode table drives parse and build).
 */
#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

#include <stdbool.h>
#include <stdint.h>

/* Headers that may follow the BTH, in wire order (IBA 9.2 figure 35). */
enum roce_hdr {
	ROCE_HDR_BTH,
	ROCE_HDR_DETH,
	ROCE_HDR_RETH,
	ROCE_HDR_ATMETH,
	ROCE_HDR_AETH,
	ROCE_HDR_ATMACK,
	ROCE_HDR_IMMDT,
	ROCE_HDR_IETH,
	ROCE_HDR_CNP,
	ROCE_HDR_COUNT
};

#define ROCE_HDR_BIT(h) (1u << (h))

enum roce_transport {
	ROCE_TRANSPORT_RC,
	ROCE_TRANSPORT_UC,
	ROCE_TRANSPORT_UD,
	ROCE_TRANSPORT_CNP,
};

enum roce_op_class {
	ROCE_OPC_SEND,
	ROCE_OPC_WRITE,
	ROCE_OPC_READ_REQ,
	ROCE_OPC_READ_RESP,
	ROCE_OPC_ACK,
	ROCE_OPC_ATOMIC,
	ROCE_OPC_ATOMIC_ACK,
	ROCE_OPC_CNP,
};

/* Position of a packet in its message. ONLY is FIRST|LAST. */
enum roce_op_pos {
	ROCE_POS_FIRST = 1u << 0,
	ROCE_POS_MIDDLE = 1u << 1,
	ROCE_POS_LAST = 1u << 2,
	ROCE_POS_ONLY = ROCE_POS_FIRST | ROCE_POS_LAST,
};

/* Opcode values used by the engine by name (IBA table 35). */
enum roce_opcode {
	ROCE_OP_RC_SEND_FIRST = 0x00,
	ROCE_OP_RC_SEND_MIDDLE = 0x01,
	ROCE_OP_RC_SEND_LAST = 0x02,
	ROCE_OP_RC_SEND_LAST_IMM = 0x03,
	ROCE_OP_RC_SEND_ONLY = 0x04,
	ROCE_OP_RC_SEND_ONLY_IMM = 0x05,
	ROCE_OP_RC_WRITE_FIRST = 0x06,
	ROCE_OP_RC_WRITE_MIDDLE = 0x07,
	ROCE_OP_RC_WRITE_LAST = 0x08,
	ROCE_OP_RC_WRITE_LAST_IMM = 0x09,
	ROCE_OP_RC_WRITE_ONLY = 0x0A,
	ROCE_OP_RC_WRITE_ONLY_IMM = 0x0B,
	ROCE_OP_RC_READ_REQUEST = 0x0C,
	ROCE_OP_RC_READ_RESP_FIRST = 0x0D,
	ROCE_OP_RC_READ_RESP_MIDDLE = 0x0E,
	ROCE_OP_RC_READ_RESP_LAST = 0x0F,
	ROCE_OP_RC_READ_RESP_ONLY = 0x10,
	ROCE_OP_RC_ACK = 0x11,
	ROCE_OP_RC_ATOMIC_ACK = 0x12,
	ROCE_OP_RC_CMP_SWAP = 0x13,
	ROCE_OP_RC_FETCH_ADD = 0x14,
	ROCE_OP_RC_SEND_LAST_INV = 0x16,
	ROCE_OP_RC_SEND_ONLY_INV = 0x17,
	ROCE_OP_UC_SEND_FIRST = 0x20,
	ROCE_OP_UC_SEND_MIDDLE = 0x21,
	ROCE_OP_UC_SEND_LAST = 0x22,
	ROCE_OP_UC_SEND_LAST_IMM = 0x23,
	ROCE_OP_UC_SEND_ONLY = 0x24,
	ROCE_OP_UC_SEND_ONLY_IMM = 0x25,
	ROCE_OP_UC_WRITE_FIRST = 0x26,
	ROCE_OP_UC_WRITE_MIDDLE = 0x27,
	ROCE_OP_UC_WRITE_LAST = 0x28,
	ROCE_OP_UC_WRITE_LAST_IMM = 0x29,
	ROCE_OP_UC_WRITE_ONLY = 0x2A,
	ROCE_OP_UC_WRITE_ONLY_IMM = 0x2B,
	ROCE_OP_UD_SEND_ONLY = 0x64,
	ROCE_OP_UD_SEND_ONLY_IMM = 0x65,
	ROCE_OP_CNP = 0x81,
};

struct roce_opcode_info {
	const char *name;               /* "RC_SEND_FIRST"; NULL = unknown */
	uint16_t hdrs;                  /* ROCE_HDR_BIT() set */
	uint8_t transport;              /* enum roce_transport */
	uint8_t cls;                    /* enum roce_op_class */
	uint8_t pos;                    /* enum roce_op_pos */
	bool payload;                   /* a payload may follow the headers */
	bool request;                   /* sent by a requester (else a response) */
	uint8_t hdr_len;                /* BTH + extension headers, bytes */
	uint8_t off[ROCE_HDR_COUNT];    /* offset of each header from the BTH */
};

/* Table entry for an opcode, or NULL when the opcode is not supported. */
const struct roce_opcode_info *roce_opcode_info(uint8_t opcode);

/* Name of an opcode ("RC_SEND_FIRST"), or "UNKNOWN". */
const char *roce_opcode_name(uint8_t opcode);

/* Size of one header on the wire. */
unsigned roce_hdr_size(enum roce_hdr h);

static inline bool roce_op_has(const struct roce_opcode_info *op, enum roce_hdr h)
{
	return op->hdrs & ROCE_HDR_BIT(h);
}

#endif
