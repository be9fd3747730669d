/* SPDX-License-Identifier: MIT */
/*
 * InfiniBand Base Transport Header (IBA 9.2), as carried by RoCE v2.
 *
 *  byte 0     opcode
 *  byte 1     SE(7) M(6) PadCnt(5:4) TVer(3:0)
 *  bytes 2-3  P_Key
 *  byte 4     reserved; RoCE v2 uses bit 7 as FECN and bit 6 as BECN
 *             (A17.9.1). Masked to ones in the ICRC.
 *  bytes 5-7  destination QP
 *  byte 8     AckReq(7) reserved(6:0)
 *  bytes 9-11 PSN
 */
#ifndef ROCE_WIRE_BTH_H
#define ROCE_WIRE_BTH_H

#include <stdbool.h>
#include "roce/wire/byteorder.h"

#define ROCE_BTH_LEN        12
#define ROCE_ICRC_LEN       4
#define ROCE_BTH_SE         0x80u
#define ROCE_BTH_MIG        0x40u
#define ROCE_BTH_PAD_SHIFT  4
#define ROCE_BTH_PAD_MASK   0x30u
#define ROCE_BTH_TVER_MASK  0x0Fu
#define ROCE_BTH_FECN       0x80u
#define ROCE_BTH_BECN       0x40u
#define ROCE_BTH_ACKREQ     0x80u
#define ROCE_QPN_MASK       0xFFFFFFu
#define ROCE_DEFAULT_PKEY   0xFFFFu

struct roce_bth {
	uint8_t opcode;
	uint8_t flags;
	uint8_t pkey[2];
	uint8_t resv8a;
	uint8_t dqpn[3];
	uint8_t ack;
	uint8_t psn[3];
};

_Static_assert(sizeof(struct roce_bth) == ROCE_BTH_LEN, "bth size");

static inline unsigned roce_bth_pad(const struct roce_bth *b)
{
	return (b->flags & ROCE_BTH_PAD_MASK) >> ROCE_BTH_PAD_SHIFT;
}

static inline unsigned roce_bth_tver(const struct roce_bth *b)
{
	return b->flags & ROCE_BTH_TVER_MASK;
}

static inline uint16_t roce_bth_pkey(const struct roce_bth *b)
{
	return roce_get_be16(b->pkey);
}

static inline uint32_t roce_bth_dqpn(const struct roce_bth *b)
{
	return roce_get_be24(b->dqpn);
}

static inline uint32_t roce_bth_psn(const struct roce_bth *b)
{
	return roce_get_be24(b->psn);
}

static inline bool roce_bth_ackreq(const struct roce_bth *b)
{
	return b->ack & ROCE_BTH_ACKREQ;
}

static inline bool roce_bth_se(const struct roce_bth *b)
{
	return b->flags & ROCE_BTH_SE;
}

/* Every BTH field in host order. */
struct roce_bth_info {
	uint8_t opcode;
	bool se, mig;
	uint8_t pad, tver;
	uint16_t pkey;
	uint8_t resv8a;         /* FECN/BECN */
	uint32_t dqpn;
	bool ackreq;
	uint8_t resv7;
	uint32_t psn;
};

/* The one BTH writer (the builder's and the engine's transmit path). */
static inline void roce_bth_put(struct roce_bth *b, const struct roce_bth_info *i)
{
	b->opcode = i->opcode;
	b->flags = (uint8_t)((i->se ? ROCE_BTH_SE : 0) | (i->mig ? ROCE_BTH_MIG : 0) |
			     (i->pad & 3u) << ROCE_BTH_PAD_SHIFT |
			     (i->tver & ROCE_BTH_TVER_MASK));
	roce_put_be16(b->pkey, i->pkey);
	b->resv8a = i->resv8a;
	roce_put_be24(b->dqpn, i->dqpn);
	b->ack = (uint8_t)((i->ackreq ? ROCE_BTH_ACKREQ : 0) | (i->resv7 & 0x7Fu));
	roce_put_be24(b->psn, i->psn);
}

#endif
