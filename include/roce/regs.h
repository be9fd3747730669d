/* SPDX-License-Identifier: MIT */
/*
 * The AXI-Lite register map: offsets and field masks.
 *
 * The seed's offsets (CTRL 0x00 .. PEER_UDP_PORT 0x20, QP_TABLE 0x40-0x7F,
 * MR_TABLE 0x80-0xFF, STAT_BASE 0x1000-0x1FFF) are kept exactly. Registers a
 * real device also needs (status, ID, version, sizes) sit in the gap at
 * 0x24-0x3C. The full description of every register -- access, fields,
 * reset value, text -- is the table in src/regs/regmap.c, from which
 * docs/regmap.md is generated; this header only names the offsets so C code
 * can use them.
 *
 * QP_TABLE and MR_TABLE are windows: an INDEX register selects an entry, the
 * data registers are shadow registers, and writing the COMMIT register
 * applies the whole shadow to the entry at once (or LOADs the entry into the
 * shadow for reading back). COMMIT reads back with BUSY (bit 31) set while a
 * command is in progress; the driver polls until BUSY clears and then reads
 * CMD_STATUS (0 = accepted, otherwise an enum roce_status code).
 * The in-process model completes commands at once; a device behind a BAR may
 * take time, so the driver always polls.
 */
#ifndef ROCE_REGS_H
#define ROCE_REGS_H

#include <stdint.h>

/* ---- seed registers ---------------------------------------------------- */
#define ROCE_REG_CTRL            0x000u
#define   ROCE_CTRL_SOFT_RESET     (1u << 0)
#define   ROCE_CTRL_ENGINE_EN      (1u << 1)
#define   ROCE_CTRL_LOOPBACK       (1u << 2)
#define ROCE_REG_MAC_LOW         0x004u
#define ROCE_REG_MAC_HIGH        0x008u   /* [15:0] */
#define ROCE_REG_IP_ADDR         0x00Cu
#define ROCE_REG_UDP_PORT        0x010u   /* [15:0], reset 4791 */
#define ROCE_REG_PEER_MAC_LOW    0x014u
#define ROCE_REG_PEER_MAC_HIGH   0x018u
#define ROCE_REG_PEER_IP         0x01Cu
#define ROCE_REG_PEER_UDP_PORT   0x020u   /* reset 4791 */

/* ---- device identity and status (in the seed's gap) --------------------- */
#define ROCE_REG_STATUS          0x024u   /* RO */
#define   ROCE_STATUS_LINK_READY   (1u << 0) /* all three below */
#define   ROCE_STATUS_GT_POWERGOOD (1u << 1)
#define   ROCE_STATUS_TX_RESET_DONE (1u << 2)
#define   ROCE_STATUS_RX_RESET_DONE (1u << 3)
#define   ROCE_STATUS_RUNNING      (1u << 4) /* enabled, out of reset */
#define   ROCE_STATUS_IN_RESET     (1u << 5)
#define ROCE_REG_DEV_ID          0x028u   /* RO */
#define   ROCE_DEV_ID_VALUE        0x52434532u /* "RCE2" */
#define ROCE_REG_VERSION         0x02Cu   /* RO: major[31:16] minor[15:8] patch[7:0] */
#define   ROCE_VERSION_MAJOR       0u  /* changes when the map changes incompatibly */
#define   ROCE_VERSION_MINOR       1u
#define   ROCE_VERSION_PATCH       0u
#define   ROCE_VERSION_VALUE       ((ROCE_VERSION_MAJOR << 16) | (ROCE_VERSION_MINOR << 8) | ROCE_VERSION_PATCH)
#define ROCE_REG_QP_COUNT        0x030u   /* RO: number of QP entries */
#define ROCE_REG_MR_COUNT        0x034u   /* RO: number of MR entries */
#define ROCE_REG_SCRATCH         0x038u   /* RW: bus test */
#define ROCE_REG_MEM_SIZE_KB     0x03Cu   /* RO: device memory size in KiB */

/* ---- QP_TABLE window 0x40-0x7F ----------------------------------------- */
/* The fields of the shadow registers (QP_STATE..QP_PD, MR_ACCESS..MR_POOL_BLOCKS)
 * are named, packed and unpacked in roce/layout.h. */
#define ROCE_REG_QP_INDEX        0x040u   /* RW: QPN selected */
#define ROCE_REG_QP_COMMIT       0x044u   /* W: command; R: BUSY bit */
#define ROCE_REG_QP_CMD_STATUS   0x048u   /* RO: result of the last command */
#define ROCE_REG_QP_STATE        0x04Cu
#define ROCE_REG_QP_TYPE_MTU     0x050u
#define ROCE_REG_QP_DEST_QPN     0x054u
#define ROCE_REG_QP_SQ_PSN       0x058u
#define ROCE_REG_QP_RQ_PSN       0x05Cu   /* expected receive PSN */
#define ROCE_REG_QP_PEER_IP      0x060u
#define ROCE_REG_QP_PEER_MAC_LOW 0x064u
#define ROCE_REG_QP_PEER_MAC_HIGH 0x068u
#define ROCE_REG_QP_PKEY         0x06Cu
#define ROCE_REG_QP_TIMERS       0x070u
#define ROCE_REG_QP_RD_ATOMIC    0x074u
#define ROCE_REG_QP_QKEY         0x078u
#define ROCE_REG_QP_PD           0x07Cu

/* ---- QP_TABLE window, continued 0x100-0x13F ----------------------------- */
/* The seed's 16 QP registers are all in use; the address vector of RoCE v2
 * over IPv6 continues the same shadow here (COMMIT and LOAD move these
 * with the others). The peer's GID is QP_DGID_0..2 then QP_PEER_IP: a
 * context that leaves QP_DGID_0..2 zero, or sets them to the IPv4-mapped
 * prefix ::ffff:0:0/96, has an IPv4 peer, QP_PEER_IP. */
#define ROCE_REG_QP_DGID_0       0x100u   /* peer GID bytes 0..3, byte 0 in 31:24 */
#define ROCE_REG_QP_DGID_1       0x104u   /* bytes 4..7 */
#define ROCE_REG_QP_DGID_2       0x108u   /* bytes 8..11 */
#define ROCE_REG_QP_GRH          0x10Cu   /* SGID index, hop limit, traffic class */
#define ROCE_REG_QP_FLOW_LABEL   0x110u

/* ---- CC block 0x200-0x2FF: congestion control (roce/cc.h, docs/cc.md) --- */
/* The configuration is written to these registers, then CC_COMMIT makes
 * the engine take all of it at once (CC_STATUS says whether it did); the
 * DCQCN knobs follow, one register each, in roce/cc.h's list order. */
#define ROCE_REG_CC_CTRL         0x200u
#define   ROCE_CC_NP_MASK_SHIFT    0      /* 8 bits: NP priorities */
#define   ROCE_CC_RP_MASK_SHIFT    8      /* 8 bits: RP priorities */
#define   ROCE_CC_ECN_SHIFT        16     /* 2 bits: 2 ECT(0), 1 ECT(1) */
#define   ROCE_CC_ADAPTIVE_RTO     (1u << 24)
#define   ROCE_CC_ADAPTIVE_WINDOW  (1u << 25)
#define ROCE_REG_CC_LINE_MBPS    0x204u
#define ROCE_REG_CC_WINDOW_KB    0x208u
#define ROCE_REG_CC_RTO_MIN_US   0x20Cu
#define ROCE_REG_CC_COMMIT       0x210u   /* write 1: apply the block */
#define ROCE_REG_CC_STATUS       0x214u   /* 0 applied, 1 refused */
#define ROCE_REG_CC_QP_SELECT    0x218u   /* QPN whose rate CC_QP_RATE shows */
#define ROCE_REG_CC_QP_RATE      0x21Cu   /* live: bit 31 limited, 30:0 Mbit/s */
#define   ROCE_CC_RATE_LIMITED     (1u << 31)
#define ROCE_REG_CC_QP_WINDOW_KB 0x220u   /* the selected QP's window, KB; 0: CC_WINDOW_KB */
#define ROCE_REG_CC_QP_RECOVERY  0x22Cu   /* the selected QP's recovery: */
#define   ROCE_CC_QP_REC_RTO       (1u << 0)      /* adaptive timer, probes */
#define   ROCE_CC_QP_REC_WINDOW    (1u << 1)      /* loss-adaptive window */
#define   ROCE_CC_QP_REC_OWN       (1u << 31)     /* 0: CC_CTRL's bits */
#define ROCE_REG_CC_RTT_US       0x230u   /* the window's RTT until measured */
#define ROCE_REG_CC_ALGO         0x224u   /* the device's algorithm (enum roce_cc_algo) */
#define ROCE_REG_CC_QP_ALGO      0x228u   /* the selected QP's: 0 CC_ALGO's, else
					     1 + enum roce_cc_algo */
#define ROCE_REG_CC_KNOB_BASE    0x240u
#define ROCE_REG_CC_KNOB(id)     (ROCE_REG_CC_KNOB_BASE + 4u * (unsigned)(id))
#define ROCE_REG_CC_SWIFT_KNOB_BASE 0x2A0u /* Swift's knobs, one per register */
#define ROCE_REG_CC_SWIFT_KNOB(id) (ROCE_REG_CC_SWIFT_KNOB_BASE + 4u * (unsigned)(id))

/* ---- MR_TABLE window 0x80-0xFF ----------------------------------------- */
#define ROCE_REG_MR_INDEX        0x080u
#define ROCE_REG_MR_COMMIT       0x084u
#define ROCE_REG_MR_CMD_STATUS   0x088u
#define ROCE_REG_MR_ACCESS       0x08Cu   /* enum roce_access bits, bit8 SPACE, bit31 VALID */
#define   ROCE_MR_VALID            (1u << 31)
#define ROCE_REG_MR_VA_LOW       0x090u
#define ROCE_REG_MR_VA_HIGH      0x094u
#define ROCE_REG_MR_PA_LOW       0x098u
#define ROCE_REG_MR_PA_HIGH      0x09Cu
#define ROCE_REG_MR_LEN_LOW      0x0A0u
#define ROCE_REG_MR_LEN_HIGH     0x0A4u
#define ROCE_REG_MR_RKEY         0x0A8u
#define ROCE_REG_MR_LKEY         0x0ACu
#define ROCE_REG_MR_PD           0x0B0u
/* An MR's stage binding (roce/stage.h), part of the same shadow: COMMIT
 * checks it with the entry (roce_stage_binding_check) and LOAD reads it. */
#define ROCE_REG_MR_STAGE        0x0B4u   /* chain, key slot, unit */
#define ROCE_REG_MR_STAGE_TAG    0x0B8u   /* PI application tag */
#define ROCE_REG_MR_DUN_LOW      0x0BCu
#define ROCE_REG_MR_DUN_HIGH     0x0C0u
#define ROCE_REG_MR_PI_PA_LOW    0x0C4u
#define ROCE_REG_MR_PI_PA_HIGH   0x0C8u
#define ROCE_REG_MR_POOL_PA_LOW  0x0CCu
#define ROCE_REG_MR_POOL_PA_HIGH 0x0D0u
#define ROCE_REG_MR_POOL_BLOCKS  0x0D4u

/* ---- STAGE block 0x300-0x3FF: the inline stages' key slots ------------- */
/* A key is written to STAGE_KEY_0..15 (write-only: they read 0), then
 * STAGE_KEY_CMD acts on the slot STAGE_KEY_SLOT names and the key words
 * are wiped; STAGE_KEY_STATUS says how it went (docs/stages.md). Word n
 * holds key bytes 4n..4n+3, byte 4n in bits 7:0 (little-endian, as the
 * key lies in memory on the host that writes it). */
#define ROCE_REG_STAGE_KEY_SLOT   0x300u  /* RW: the slot a command acts on */
#define ROCE_REG_STAGE_KEY_CMD    0x304u  /* CMD: LOAD or CLEAR */
#define   ROCE_STAGE_KEY_CMD_LOAD   1u
#define   ROCE_STAGE_KEY_CMD_CLEAR  2u
#define ROCE_REG_STAGE_KEY_STATUS 0x308u  /* RO: result of the last command */
#define ROCE_REG_STAGE_KEY_LOADED 0x30Cu  /* RO: bit per slot holding a key */
#define ROCE_REG_STAGE_KEY_SLOTS  0x310u  /* RO: number of slots */
#define ROCE_REG_STAGE_KEY_BASE   0x340u  /* WO: 16 words of key */
#define ROCE_REG_STAGE_KEY(n)     (ROCE_REG_STAGE_KEY_BASE + 4u * (unsigned)(n))
#define ROCE_REG_STAGE_END        0x3FFu

/* Table commands, written to QP_COMMIT / MR_COMMIT */
#define ROCE_TBL_CMD_COMMIT      1u       /* shadow -> entry (atomic) */
#define ROCE_TBL_CMD_LOAD        2u       /* entry -> shadow */
#define ROCE_TBL_BUSY            (1u << 31)

/* ---- STAT region 0x1000-0x1FFF (read-only) ----------------------------- */
#define ROCE_REG_STAT_BASE       0x1000u
#define ROCE_REG_STAT_END        0x1FFFu
#define ROCE_REG_STAT_LINK_STATUS 0x1000u /* RO: STATUS[3:0] mirror */
#define ROCE_REG_STAT_CNT_COUNT  0x1004u  /* RO: number of counters */
/* Counter id (enum roce_cnt) as a LOW/HIGH pair: reading LOW returns bits
 * 31:0 and latches bits 63:32, which the next read of HIGH returns, so a
 * LOW-then-HIGH read is one consistent 64-bit value. */
#define ROCE_REG_STAT_CNT_BASE   0x1008u
#define ROCE_REG_STAT_CNT_LOW(id)  (ROCE_REG_STAT_CNT_BASE + 8u * (uint32_t)(id))
#define ROCE_REG_STAT_CNT_HIGH(id) (ROCE_REG_STAT_CNT_LOW(id) + 4u)
#define ROCE_REG_STAT_CNT_MAX    ((ROCE_REG_STAT_END + 1u - ROCE_REG_STAT_CNT_BASE) / 8u)

/* QP states as stored in QP_STATE (IBA 10.3.1) */
enum roce_qp_state {
	ROCE_QPS_RESET = 0,
	ROCE_QPS_INIT = 1,
	ROCE_QPS_RTR = 2,
	ROCE_QPS_RTS = 3,
	ROCE_QPS_SQD = 4,
	ROCE_QPS_SQE = 5,
	ROCE_QPS_ERR = 6,
};

/* QP transport types in QP_TYPE_MTU[7:0] (ibverbs' values) */
enum roce_qp_type {
	ROCE_QPT_RC = 2,
	ROCE_QPT_UC = 3,
	ROCE_QPT_UD = 4,
};

/* Access rights (ibverbs' IBV_ACCESS_* values), MR_ACCESS and QP access */
enum roce_access {
	ROCE_ACCESS_LOCAL_WRITE = 1u << 0,
	ROCE_ACCESS_REMOTE_WRITE = 1u << 1,
	ROCE_ACCESS_REMOTE_READ = 1u << 2,
	ROCE_ACCESS_REMOTE_ATOMIC = 1u << 3,
};

/* Path MTU encoding (IBA 9.7 / ibverbs IBV_MTU_*) */
enum roce_mtu {
	ROCE_MTU_256 = 1,
	ROCE_MTU_512 = 2,
	ROCE_MTU_1024 = 3,
	ROCE_MTU_2048 = 4,
	ROCE_MTU_4096 = 5,
};

static inline uint32_t roce_mtu_bytes(enum roce_mtu m)
{
	return (m >= ROCE_MTU_256 && m <= ROCE_MTU_4096) ? 128u << m : 0;
}

#endif
