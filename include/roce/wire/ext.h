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

/* ---- accessors: the only place the pipeline meets these headers' bytes --- */

static inline uint64_t roce_reth_va(const struct roce_reth *r)
{
	return roce_get_be64(r->va);
}

static inline uint32_t roce_reth_rkey(const struct roce_reth *r)
{
	return roce_get_be32(r->rkey);
}

static inline uint32_t roce_reth_len(const struct roce_reth *r)
{
	return roce_get_be32(r->dmalen);
}

static inline void roce_reth_put(struct roce_reth *r, uint64_t va, uint32_t rkey,
				 uint32_t len)
{
	roce_put_be64(r->va, va);
	roce_put_be32(r->rkey, rkey);
	roce_put_be32(r->dmalen, len);
}

static inline uint8_t roce_aeth_syndrome(const struct roce_aeth *a)
{
	return a->syndrome;
}

static inline uint32_t roce_aeth_msn(const struct roce_aeth *a)
{
	return roce_get_be24(a->msn);
}

static inline void roce_aeth_put(struct roce_aeth *a, uint8_t syndrome, uint32_t msn)
{
	a->syndrome = syndrome;
	roce_put_be24(a->msn, msn);
}

static inline uint64_t roce_atomiceth_va(const struct roce_atomiceth *a)
{
	return roce_get_be64(a->va);
}

static inline uint32_t roce_atomiceth_rkey(const struct roce_atomiceth *a)
{
	return roce_get_be32(a->rkey);
}

static inline uint64_t roce_atomiceth_swap_add(const struct roce_atomiceth *a)
{
	return roce_get_be64(a->swap_add);
}

static inline uint64_t roce_atomiceth_compare(const struct roce_atomiceth *a)
{
	return roce_get_be64(a->compare);
}

static inline void roce_atomiceth_put(struct roce_atomiceth *a, uint64_t va, uint32_t rkey,
				      uint64_t swap_add, uint64_t compare)
{
	roce_put_be64(a->va, va);
	roce_put_be32(a->rkey, rkey);
	roce_put_be64(a->swap_add, swap_add);
	roce_put_be64(a->compare, compare);
}

static inline uint64_t roce_atomicack_orig(const struct roce_atomicacketh *a)
{
	return roce_get_be64(a->orig);
}

static inline void roce_atomicack_put(struct roce_atomicacketh *a, uint64_t orig)
{
	roce_put_be64(a->orig, orig);
}

static inline uint32_t roce_deth_qkey(const struct roce_deth *d)
{
	return roce_get_be32(d->qkey);
}

static inline uint32_t roce_deth_sqpn(const struct roce_deth *d)
{
	return roce_get_be24(d->sqpn);
}

static inline void roce_deth_put(struct roce_deth *d, uint32_t qkey, uint8_t resv,
				 uint32_t sqpn)
{
	roce_put_be32(d->qkey, qkey);
	d->resv = resv;
	roce_put_be24(d->sqpn, sqpn);
}

/* ImmDt as a number (its bytes read big-endian), as roce_hdrs keeps it */
static inline uint32_t roce_immdt_value(const struct roce_immdt *i)
{
	return roce_get_be32(i->imm);
}

static inline void roce_immdt_put(struct roce_immdt *i, uint32_t value)
{
	roce_put_be32(i->imm, value);
}

/* ibverbs keeps imm_data in network order in a host uint32_t: its number */
static inline uint32_t roce_imm_from_net(uint32_t net)
{
	return roce_get_be32((const uint8_t *)&net);
}

static inline uint32_t roce_ieth_rkey(const struct roce_ieth *i)
{
	return roce_get_be32(i->rkey);
}

static inline void roce_ieth_put(struct roce_ieth *i, uint32_t rkey)
{
	roce_put_be32(i->rkey, rkey);
}

#endif
