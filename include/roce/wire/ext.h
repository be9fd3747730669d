/* SPDX-License-Identifier: MIT */
/*
 * InfiniBand extended transport headers (IBA 9.3): which of them follow the
 * BTH, and where, is said by the opcode table (roce/opcode.h).
 */
#ifndef ROCE_WIRE_EXT_H
#define ROCE_WIRE_EXT_H

#include "roce/wire/byteorder.h"

/* RDMA ETH (IBA 9.3.3): WRITE FIRST/ONLY and READ REQUEST */
struct roce_reth {
	uint8_t va[8];
	uint8_t rkey[4];
	uint8_t dmalen[4];
};

/* ACK ETH (IBA 9.3.5): syndrome(8) MSN(24) */
struct roce_aeth {
	uint8_t syndrome;
	uint8_t msn[3];
};

/* Atomic ETH (IBA 9.3.4): CmpSwap and FetchAdd requests */
struct roce_atomiceth {
	uint8_t va[8];
	uint8_t rkey[4];
	uint8_t swap_add[8];
	uint8_t compare[8];
};

/* Atomic ACK ETH (IBA 9.3.6): original remote data */
struct roce_atomicacketh {
	uint8_t orig[8];
};

/* Datagram ETH (IBA 9.3.2): UD */
struct roce_deth {
	uint8_t qkey[4];
	uint8_t resv;
	uint8_t sqpn[3];
};

/* Immediate data (IBA 9.3.7): opaque 4 bytes, kept in wire order */
struct roce_immdt {
	uint8_t imm[4];
};

/* Invalidate ETH (IBA 9.3.8) */
struct roce_ieth {
	uint8_t rkey[4];
};

/* Congestion Notification Packet payload (A17.9.3): 16 reserved bytes */
struct roce_cnp {
	uint8_t resv[16];
};

_Static_assert(sizeof(struct roce_reth) == 16, "reth size");
_Static_assert(sizeof(struct roce_aeth) == 4, "aeth size");
_Static_assert(sizeof(struct roce_atomiceth) == 28, "atomiceth size");
_Static_assert(sizeof(struct roce_atomicacketh) == 8, "atomicacketh size");
_Static_assert(sizeof(struct roce_deth) == 8, "deth size");
_Static_assert(sizeof(struct roce_immdt) == 4, "immdt size");
_Static_assert(sizeof(struct roce_ieth) == 4, "ieth size");
_Static_assert(sizeof(struct roce_cnp) == 16, "cnp size");

/*
 * AETH syndrome (IBA 9.7.5.1.1, table 43):
 *   0b000xxxxx ACK, xxxxx = credit count
 *   0b001xxxxx RNR NAK, xxxxx = RNR timer code
 *   0b011xxxxx NAK, xxxxx = NAK code
 */
#define ROCE_AETH_TYPE_MASK   0xE0u
#define ROCE_AETH_VALUE_MASK  0x1Fu
#define ROCE_AETH_ACK         0x00u
#define ROCE_AETH_RNR_NAK     0x20u
#define ROCE_AETH_NAK         0x60u
#define ROCE_AETH_CREDIT_INVALID 0x1Fu  /* "no credit information" */

enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,
	ROCE_NAK_INVALID_REQ = 1,
	ROCE_NAK_REMOTE_ACCESS = 2,
	ROCE_NAK_REMOTE_OP = 3,
	ROCE_NAK_INVALID_RD_REQ = 4,
};

static inline uint32_t roce_aeth_msn(const struct roce_aeth *a)
{
	return roce_get_be24(a->msn);
}

#endif
