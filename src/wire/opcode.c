/* SPDX-License-Identifier: MIT */
/*
 * The BTH opcode table (IBA 9.2.1 table 35; RoCE v2 CNP from A17.9.3).
 *
 * Each row lists the extension headers of its opcode; the offsets are worked
 * out at compile time from the fixed wire order (IBA 9.2 figure 35:
 * BTH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH), so a row
 * cannot disagree with the sizes in roce/wire/ext.h.
 */
#include <stddef.h>

#include "roce/opcode.h"
#include "roce/wire/bth.h"
#include "roce/wire/ext.h"

#define B(h) ROCE_HDR_BIT(ROCE_HDR_##h)
#define SZ(m, h, size) (((m) & B(h)) ? (size) : 0)

#define OFF_DETH(m)   ROCE_BTH_LEN
#define OFF_RETH(m)   (OFF_DETH(m) + SZ(m, DETH, sizeof(struct roce_deth)))
#define OFF_ATMETH(m) (OFF_RETH(m) + SZ(m, RETH, sizeof(struct roce_reth)))
#define OFF_AETH(m)   (OFF_ATMETH(m) + SZ(m, ATMETH, sizeof(struct roce_atomiceth)))
#define OFF_ATMACK(m) (OFF_AETH(m) + SZ(m, AETH, sizeof(struct roce_aeth)))
#define OFF_IMMDT(m)  (OFF_ATMACK(m) + SZ(m, ATMACK, sizeof(struct roce_atomicacketh)))
#define OFF_IETH(m)   (OFF_IMMDT(m) + SZ(m, IMMDT, sizeof(struct roce_immdt)))
#define OFF_CNP(m)    (OFF_IETH(m) + SZ(m, IETH, sizeof(struct roce_ieth)))
#define OFF_END(m)    (OFF_CNP(m) + SZ(m, CNP, sizeof(struct roce_cnp)))

#define OFF(m, h) (((m) & B(h)) ? OFF_##h(m) : 0)

#define OP(code, nm, tr, cl, ps, pay, req, m)                              \
	[code] = {                                                        \
		.name = nm,                                               \
		.hdrs = (m) | B(BTH),                                     \
		.transport = ROCE_TRANSPORT_##tr,                         \
		.cls = ROCE_OPC_##cl,                                     \
		.pos = ROCE_POS_##ps,                                     \
		.payload = pay,                                           \
		.request = req,                                           \
		.hdr_len = OFF_END(m),                                    \
		.off = {                                                  \
			[ROCE_HDR_BTH] = 0,                               \
			[ROCE_HDR_DETH] = OFF(m, DETH),                   \
			[ROCE_HDR_RETH] = OFF(m, RETH),                   \
			[ROCE_HDR_ATMETH] = OFF(m, ATMETH),               \
			[ROCE_HDR_AETH] = OFF(m, AETH),                   \
			[ROCE_HDR_ATMACK] = OFF(m, ATMACK),               \
			[ROCE_HDR_IMMDT] = OFF(m, IMMDT),                 \
			[ROCE_HDR_IETH] = OFF(m, IETH),                   \
			[ROCE_HDR_CNP] = OFF(m, CNP),                     \
		},                                                        \
	}

/* The SEND and WRITE families are the same for RC and UC. */
#define SEND_FAMILY(base, T)                                                   \
	OP(base + 0x00, #T "_SEND_FIRST", T, SEND, FIRST, true, true, 0),          \
	OP(base + 0x01, #T "_SEND_MIDDLE", T, SEND, MIDDLE, true, true, 0),        \
	OP(base + 0x02, #T "_SEND_LAST", T, SEND, LAST, true, true, 0),            \
	OP(base + 0x03, #T "_SEND_LAST_IMM", T, SEND, LAST, true, true, B(IMMDT)), \
	OP(base + 0x04, #T "_SEND_ONLY", T, SEND, ONLY, true, true, 0),            \
	OP(base + 0x05, #T "_SEND_ONLY_IMM", T, SEND, ONLY, true, true, B(IMMDT))

#define WRITE_FAMILY(base, T)                                                  \
	OP(base + 0x06, #T "_WRITE_FIRST", T, WRITE, FIRST, true, true, B(RETH)),  \
	OP(base + 0x07, #T "_WRITE_MIDDLE", T, WRITE, MIDDLE, true, true, 0),      \
	OP(base + 0x08, #T "_WRITE_LAST", T, WRITE, LAST, true, true, 0),          \
	OP(base + 0x09, #T "_WRITE_LAST_IMM", T, WRITE, LAST, true, true, B(IMMDT)), \
	OP(base + 0x0A, #T "_WRITE_ONLY", T, WRITE, ONLY, true, true, B(RETH)),    \
	OP(base + 0x0B, #T "_WRITE_ONLY_IMM", T, WRITE, ONLY, true, true,          \
	   B(RETH) | B(IMMDT))

static const struct roce_opcode_info opcode_table[256] = {
	SEND_FAMILY(0x00, RC),
	WRITE_FAMILY(0x00, RC),
	OP(0x0C, "RC_READ_REQUEST", RC, READ_REQ, ONLY, false, true, B(RETH)),
	OP(0x0D, "RC_READ_RESP_FIRST", RC, READ_RESP, FIRST, true, false, B(AETH)),
	OP(0x0E, "RC_READ_RESP_MIDDLE", RC, READ_RESP, MIDDLE, true, false, 0),
	OP(0x0F, "RC_READ_RESP_LAST", RC, READ_RESP, LAST, true, false, B(AETH)),
	OP(0x10, "RC_READ_RESP_ONLY", RC, READ_RESP, ONLY, true, false, B(AETH)),
	OP(0x11, "RC_ACK", RC, ACK, ONLY, false, false, B(AETH)),
	OP(0x12, "RC_ATOMIC_ACK", RC, ATOMIC_ACK, ONLY, false, false,
	   B(AETH) | B(ATMACK)),
	OP(0x13, "RC_CMP_SWAP", RC, ATOMIC, ONLY, false, true, B(ATMETH)),
	OP(0x14, "RC_FETCH_ADD", RC, ATOMIC, ONLY, false, true, B(ATMETH)),
	OP(0x16, "RC_SEND_LAST_INV", RC, SEND, LAST, true, true, B(IETH)),
	OP(0x17, "RC_SEND_ONLY_INV", RC, SEND, ONLY, true, true, B(IETH)),
	SEND_FAMILY(0x20, UC),
	WRITE_FAMILY(0x20, UC),
	OP(0x64, "UD_SEND_ONLY", UD, SEND, ONLY, true, true, B(DETH)),
	OP(0x65, "UD_SEND_ONLY_IMM", UD, SEND, ONLY, true, true,
	   B(DETH) | B(IMMDT)),
	OP(0x81, "CNP", CNP, CNP, ONLY, false, true, B(CNP)),
};

static const unsigned hdr_sizes[ROCE_HDR_COUNT] = {
	[ROCE_HDR_BTH] = sizeof(struct roce_bth),
	[ROCE_HDR_DETH] = sizeof(struct roce_deth),
	[ROCE_HDR_RETH] = sizeof(struct roce_reth),
	[ROCE_HDR_ATMETH] = sizeof(struct roce_atomiceth),
	[ROCE_HDR_AETH] = sizeof(struct roce_aeth),
	[ROCE_HDR_ATMACK] = sizeof(struct roce_atomicacketh),
	[ROCE_HDR_IMMDT] = sizeof(struct roce_immdt),
	[ROCE_HDR_IETH] = sizeof(struct roce_ieth),
	[ROCE_HDR_CNP] = sizeof(struct roce_cnp),
};

const struct roce_opcode_info *roce_opcode_info(uint8_t opcode)
{
	const struct roce_opcode_info *op = &opcode_table[opcode];

	return op->name ? op : NULL;
}

const char *roce_opcode_name(uint8_t opcode)
{
	const struct roce_opcode_info *op = roce_opcode_info(opcode);

	return op ? op->name : "UNKNOWN";
}

unsigned roce_hdr_size(enum roce_hdr h)
{
	return (unsigned)h < ROCE_HDR_COUNT ? hdr_sizes[h] : 0;
}
