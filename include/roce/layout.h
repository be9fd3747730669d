/* SPDX-License-Identifier: MIT */
/*
 * The QP_TABLE and MR_TABLE entry layouts: one struct per entry, one codec
 * per layout (seed 000 section 3.2). The device's table windows
 * (src/regs/table_windows.c) and the host driver (src/driver/drv_table.c)
 * both pack and unpack with these functions, and the register map
 * (src/regs/regmap.c, from which docs/regmap.md is generated) builds its
 * field rows from the same constants, so the four descriptions of a field
 * cannot drift apart.
 *
 * Word i of an image is the shadow register at QP_STATE + 4 * i (QP) or
 * MR_ACCESS + 4 * i (MR); the word indices below are computed from the
 * offsets in roce/regs.h. A field is WORD, SHIFT (its lsb) and WIDTH bits.
 */
#ifndef ROCE_LAYOUT_H
#define ROCE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/stage.h"

#include "roce/regs.h"

/* A field's unshifted mask; width 32 is the whole word. */
#define ROCE_FIELD_MASK(width) \
	((width) >= 32 ? 0xFFFFFFFFu : (1u << (width)) - 1u)

/* ---- QP context -------------------------------------------------------- */

/*
 * One QP context, shared by the QP table (the data path's copy), the
 * register window and the host driver. qpn is the table index (QPN =
 * index): QP_INDEX on the bus, ignored by the table's commit.
 */
struct roce_qp_cfg {
	uint32_t qpn, dest_qpn, sq_psn, rq_psn, peer_ip, qkey, pd;
	/* the address vector's GRH (QP_DGID_0..2, QP_GRH, QP_FLOW_LABEL):
	 * the peer GID's bytes 0..11 as three big-endian words (its bytes
	 * 12..15 are peer_ip; roce_qp_dgid() reads the whole GID) */
	uint32_t dgid_hi[3];
	uint32_t flow_label;        /* 20 bits; 0 = none (the UDP source port
				     * then comes from the QPNs) */
	uint8_t sgid_index;         /* our GID (an IPv6 one) as source */
	uint8_t hop_limit;          /* IPv4 TTL / IPv6 hop limit; 0 = 64 */
	uint8_t tclass;             /* IPv4 TOS / IPv6 traffic class */
	uint8_t peer_mac[6];
	uint16_t pkey;
	uint8_t state;              /* enum roce_qp_state */
	uint8_t type;               /* enum roce_qp_type, 0 = unset */
	uint8_t mtu;                /* enum roce_mtu, 0 = unset */
	uint8_t access;             /* enum roce_access bits */
	uint8_t timeout;            /* 5 bits: 4.096 us * 2^timeout, 0 = infinite */
	uint8_t retry_cnt;          /* 3 bits */
	uint8_t rnr_retry;          /* 3 bits, 7 = infinite */
	uint8_t min_rnr_timer;      /* 5 bits, IBA table 45 encoding */
	uint8_t max_rd_atomic;      /* outstanding READ/atomic as requester */
	uint8_t max_dest_rd_atomic; /* ... as responder */
};

/* Word i of an image: QP_STATE..QP_PD, then QP_DGID_0..QP_FLOW_LABEL. */
#define ROCE_QP_BASE_NREGS (((ROCE_REG_QP_PD) - ROCE_REG_QP_STATE) / 4u + 1u)
#define ROCE_QP_WORD(reg)                                                     \
	((reg) >= ROCE_REG_QP_DGID_0                                          \
		 ? ROCE_QP_BASE_NREGS + ((reg) - ROCE_REG_QP_DGID_0) / 4u     \
		 : ((reg) - ROCE_REG_QP_STATE) / 4u)
#define ROCE_QP_NREGS (ROCE_QP_WORD(ROCE_REG_QP_FLOW_LABEL) + 1u)

/* The register that holds word i of a QP image. */
static inline uint32_t roce_qp_word_reg(unsigned i)
{
	return i < ROCE_QP_BASE_NREGS ? ROCE_REG_QP_STATE + 4u * i
				      : ROCE_REG_QP_DGID_0 + 4u * (i - ROCE_QP_BASE_NREGS);
}

#define ROCE_QP_STATE_WORD          ROCE_QP_WORD(ROCE_REG_QP_STATE)
#define ROCE_QP_STATE_SHIFT         0
#define ROCE_QP_STATE_WIDTH         3
#define ROCE_QP_TYPE_WORD           ROCE_QP_WORD(ROCE_REG_QP_TYPE_MTU)
#define ROCE_QP_TYPE_SHIFT          0
#define ROCE_QP_TYPE_WIDTH          8
#define ROCE_QP_MTU_WORD            ROCE_QP_WORD(ROCE_REG_QP_TYPE_MTU)
#define ROCE_QP_MTU_SHIFT           8
#define ROCE_QP_MTU_WIDTH           8
#define ROCE_QP_ACCESS_WORD         ROCE_QP_WORD(ROCE_REG_QP_TYPE_MTU)
#define ROCE_QP_ACCESS_SHIFT        16
#define ROCE_QP_ACCESS_WIDTH        8
#define ROCE_QP_DEST_QPN_WORD       ROCE_QP_WORD(ROCE_REG_QP_DEST_QPN)
#define ROCE_QP_SQ_PSN_WORD         ROCE_QP_WORD(ROCE_REG_QP_SQ_PSN)
#define ROCE_QP_RQ_PSN_WORD         ROCE_QP_WORD(ROCE_REG_QP_RQ_PSN)
#define ROCE_QP_QPN_SHIFT           0   /* DEST_QPN */
#define ROCE_QP_QPN_WIDTH           24
#define ROCE_QP_PSN_SHIFT           0   /* SQ_PSN, RQ_PSN */
#define ROCE_QP_PSN_WIDTH           24
#define ROCE_QP_PEER_IP_WORD        ROCE_QP_WORD(ROCE_REG_QP_PEER_IP)
#define ROCE_QP_PEER_MAC_LOW_WORD   ROCE_QP_WORD(ROCE_REG_QP_PEER_MAC_LOW)
#define ROCE_QP_PEER_MAC_HIGH_WORD  ROCE_QP_WORD(ROCE_REG_QP_PEER_MAC_HIGH)
#define ROCE_QP_PKEY_WORD           ROCE_QP_WORD(ROCE_REG_QP_PKEY)
#define ROCE_QP_PKEY_SHIFT          0
#define ROCE_QP_PKEY_WIDTH          16
#define ROCE_QP_TIMEOUT_WORD        ROCE_QP_WORD(ROCE_REG_QP_TIMERS)
#define ROCE_QP_TIMEOUT_SHIFT       0
#define ROCE_QP_TIMEOUT_WIDTH       5
#define ROCE_QP_RETRY_CNT_WORD      ROCE_QP_WORD(ROCE_REG_QP_TIMERS)
#define ROCE_QP_RETRY_CNT_SHIFT     8
#define ROCE_QP_RETRY_CNT_WIDTH     3
#define ROCE_QP_RNR_RETRY_WORD      ROCE_QP_WORD(ROCE_REG_QP_TIMERS)
#define ROCE_QP_RNR_RETRY_SHIFT     16
#define ROCE_QP_RNR_RETRY_WIDTH     3
#define ROCE_QP_MIN_RNR_TIMER_WORD  ROCE_QP_WORD(ROCE_REG_QP_TIMERS)
#define ROCE_QP_MIN_RNR_TIMER_SHIFT 24
#define ROCE_QP_MIN_RNR_TIMER_WIDTH 5
#define ROCE_QP_MAX_RD_ATOMIC_WORD  ROCE_QP_WORD(ROCE_REG_QP_RD_ATOMIC)
#define ROCE_QP_MAX_RD_ATOMIC_SHIFT 0
#define ROCE_QP_MAX_RD_ATOMIC_WIDTH 8
#define ROCE_QP_MAX_DEST_RD_ATOMIC_WORD  ROCE_QP_WORD(ROCE_REG_QP_RD_ATOMIC)
#define ROCE_QP_MAX_DEST_RD_ATOMIC_SHIFT 8
#define ROCE_QP_MAX_DEST_RD_ATOMIC_WIDTH 8
#define ROCE_QP_QKEY_WORD           ROCE_QP_WORD(ROCE_REG_QP_QKEY)
#define ROCE_QP_PD_WORD             ROCE_QP_WORD(ROCE_REG_QP_PD)
#define ROCE_QP_DGID_0_WORD         ROCE_QP_WORD(ROCE_REG_QP_DGID_0)
#define ROCE_QP_SGID_INDEX_WORD     ROCE_QP_WORD(ROCE_REG_QP_GRH)
#define ROCE_QP_SGID_INDEX_SHIFT    0
#define ROCE_QP_SGID_INDEX_WIDTH    8
#define ROCE_QP_HOP_LIMIT_WORD      ROCE_QP_WORD(ROCE_REG_QP_GRH)
#define ROCE_QP_HOP_LIMIT_SHIFT     8
#define ROCE_QP_HOP_LIMIT_WIDTH     8
#define ROCE_QP_TCLASS_WORD         ROCE_QP_WORD(ROCE_REG_QP_GRH)
#define ROCE_QP_TCLASS_SHIFT        16
#define ROCE_QP_TCLASS_WIDTH        8
#define ROCE_QP_FLOW_LABEL_WORD     ROCE_QP_WORD(ROCE_REG_QP_FLOW_LABEL)
#define ROCE_QP_FLOW_LABEL_SHIFT    0
#define ROCE_QP_FLOW_LABEL_WIDTH    20

/*
 * Image of a context, QP_STATE..QP_PD and QP_DGID_0..QP_FLOW_LABEL: every
 * field masked to its width and shifted into its word (qpn is not part of
 * the image).
 */
void roce_qp_to_regs(const struct roce_qp_cfg *qp,
		     uint32_t regs[ROCE_QP_NREGS]);
/* The context of an image; qpn is the index the image belongs to. */
void roce_qp_from_regs(uint32_t qpn, const uint32_t regs[ROCE_QP_NREGS],
		       struct roce_qp_cfg *qp);

/*
 * The peer's GID of a context (RoCE v2: its IP address as an IPv6
 * address): QP_DGID_0..2 then QP_PEER_IP. Bytes 0..11 all zero (a context
 * programmed through the seed's registers only) read as the IPv4-mapped
 * GID ::ffff:PEER_IP, which is also what set_dgid stores for an IPv4 peer.
 */
void roce_qp_dgid(const struct roce_qp_cfg *qp, uint8_t gid[16]);
void roce_qp_set_dgid(struct roce_qp_cfg *qp, const uint8_t gid[16]);
/* Whether the peer is an IPv6 address (frames go out as IPv6). */
bool roce_qp_dgid_ipv6(const struct roce_qp_cfg *qp);

/* ---- MR entry ---------------------------------------------------------- */

/*
 * The address space an MR entry's pa is in (MR_ACCESS.SPACE): the board's
 * DDR, or host memory reached over PCIe through the IOMMU, whose windows
 * only the host programs (src/engine/iommu.h; docs/design.md, "Host
 * memory"). A HOST pa is an I/O virtual address: the data path translates
 * it through the windows on every access and refuses it outside them.
 */
enum roce_mr_space {
	ROCE_MR_SPACE_DDR = 0,
	ROCE_MR_SPACE_HOST = 1,
};
/* A HOST entry's [pa, pa + len) lies below this (I/O virtual addresses
 * have 63 bits; the table refuses others). */
#define ROCE_MR_HOST_PA_LIMIT (1ull << 63)

/*
 * One MR entry, shared by the MR table, the register window and the host
 * driver. index is MR_INDEX on the bus (the table is indexed by it).
 * Keys: bits 31:8 = MR index, bits 7:0 = key byte.
 */
struct roce_mr_entry {
	uint64_t va, pa, len;       /* pa: an address in space */
	uint32_t index, rkey, lkey, pd;
	uint32_t access;            /* enum roce_access bits */
	bool valid;
	uint8_t space;              /* enum roce_mr_space; 0 = DDR */
	struct roce_stage_binding stage; /* its stage chain (roce/stage.h);
					    zero: none */
};

#define ROCE_MR_WORD(reg) (((reg) - ROCE_REG_MR_ACCESS) / 4u)
#define ROCE_MR_NREGS (ROCE_MR_WORD(ROCE_REG_MR_POOL_BLOCKS) + 1u)

/* MR_ACCESS: the access bits (the register accepts only the enum
 * roce_access bits; any other bit answers SLVERR), SPACE above them and
 * VALID on top. */
#define ROCE_MR_ACCESS_WORD   ROCE_MR_WORD(ROCE_REG_MR_ACCESS)
#define ROCE_MR_ACCESS_SHIFT  0
#define ROCE_MR_ACCESS_WIDTH  8
#define ROCE_MR_SPACE_WORD    ROCE_MR_WORD(ROCE_REG_MR_ACCESS)
#define ROCE_MR_SPACE_SHIFT   8
#define ROCE_MR_SPACE_WIDTH   1
#define ROCE_MR_VALID_WORD    ROCE_MR_WORD(ROCE_REG_MR_ACCESS)
#define ROCE_MR_VALID_SHIFT   31
#define ROCE_MR_VALID_WIDTH   1
/* 64-bit values as a LOW word and the HIGH word after it. */
#define ROCE_MR_VA_LOW_WORD   ROCE_MR_WORD(ROCE_REG_MR_VA_LOW)
#define ROCE_MR_PA_LOW_WORD   ROCE_MR_WORD(ROCE_REG_MR_PA_LOW)
#define ROCE_MR_LEN_LOW_WORD  ROCE_MR_WORD(ROCE_REG_MR_LEN_LOW)
#define ROCE_MR_RKEY_WORD     ROCE_MR_WORD(ROCE_REG_MR_RKEY)
#define ROCE_MR_LKEY_WORD     ROCE_MR_WORD(ROCE_REG_MR_LKEY)
#define ROCE_MR_PD_WORD       ROCE_MR_WORD(ROCE_REG_MR_PD)
/* The stage binding (roce/stage.h). MR_STAGE: the chain's three stage
 * ids, wire side first, the key slot, and the unit (0: 512 bytes, 1:
 * 4096 bytes, the binding's unit_shift 9 or 12). */
#define ROCE_MR_STAGE_WORD          ROCE_MR_WORD(ROCE_REG_MR_STAGE)
#define ROCE_MR_STAGE_CHAIN_SHIFT(i) (4 * (i))  /* i = 0..2, 4 bits each */
#define ROCE_MR_STAGE_CHAIN_WIDTH   4
#define ROCE_MR_STAGE_KEY_SLOT_SHIFT 16
#define ROCE_MR_STAGE_KEY_SLOT_WIDTH 4
#define ROCE_MR_STAGE_UNIT_SHIFT    24
#define ROCE_MR_STAGE_UNIT_WIDTH    1
#define ROCE_MR_STAGE_TAG_WORD      ROCE_MR_WORD(ROCE_REG_MR_STAGE_TAG)
#define ROCE_MR_STAGE_TAG_SHIFT     0
#define ROCE_MR_STAGE_TAG_WIDTH     16
#define ROCE_MR_DUN_LOW_WORD        ROCE_MR_WORD(ROCE_REG_MR_DUN_LOW)
#define ROCE_MR_PI_PA_LOW_WORD      ROCE_MR_WORD(ROCE_REG_MR_PI_PA_LOW)
#define ROCE_MR_POOL_PA_LOW_WORD    ROCE_MR_WORD(ROCE_REG_MR_POOL_PA_LOW)
#define ROCE_MR_POOL_BLOCKS_WORD    ROCE_MR_WORD(ROCE_REG_MR_POOL_BLOCKS)
/* MR_RKEY / MR_LKEY fields */
#define ROCE_MR_KEY_BYTE_SHIFT  0
#define ROCE_MR_KEY_BYTE_WIDTH  8
#define ROCE_MR_KEY_INDEX_SHIFT 8
#define ROCE_MR_KEY_INDEX_WIDTH 24

_Static_assert(ROCE_MR_VALID == 1u << ROCE_MR_VALID_SHIFT,
	       "MR_ACCESS.VALID moved");

_Static_assert(ROCE_STAGE_ID_COUNT <= 1u << ROCE_MR_STAGE_CHAIN_WIDTH &&
	       ROCE_STAGE_KEY_SLOTS <= 1u << ROCE_MR_STAGE_KEY_SLOT_WIDTH,
	       "MR_STAGE's fields must hold every stage id and key slot");

/* Image of an entry, MR_ACCESS..MR_POOL_BLOCKS (index is not part of the image). */
void roce_mr_to_regs(const struct roce_mr_entry *mr,
		     uint32_t regs[ROCE_MR_NREGS]);
/* Whether MR_STAGE can hold a binding's chain ids, key slot and unit (a
 * unit other than 512 or 4096 bytes, a slot above 15 cannot be said: the
 * driver refuses it rather than write another binding). */
bool roce_mr_stage_fits(const struct roce_stage_binding *b);
/* The entry of an image; index is the index the image belongs to. */
void roce_mr_from_regs(uint32_t index, const uint32_t regs[ROCE_MR_NREGS],
		       struct roce_mr_entry *mr);

/* ---- MAC address in a register pair ------------------------------------ */

/*
 * MAC_HIGH[15:8] = byte 0 (first on the wire), MAC_HIGH[7:0] = byte 1,
 * MAC_LOW[31:24] = byte 2 ... MAC_LOW[7:0] = byte 5. Used for the port's
 * own and peer MAC and for QP_PEER_MAC_LOW/HIGH alike.
 */
uint32_t roce_mac_low(const uint8_t mac[6]);
uint32_t roce_mac_high(const uint8_t mac[6]);
void roce_mac_from_regs(uint32_t low, uint32_t high, uint8_t mac[6]);

#endif
