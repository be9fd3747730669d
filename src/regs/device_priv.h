/* SPDX-License-Identifier: MIT */
/*
 * Inside the device model: shared by device.c (lifecycle, bus decode,
 * CTRL), table_windows.c (QP/MR shadow + commit) and stat.c (STAT region).
 */
#ifndef ROCE_REGS_DEVICE_PRIV_H
#define ROCE_REGS_DEVICE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "roce/cc.h"
#include "roce/counters.h"
#include "roce/device.h"
#include "roce/regmap.h"
#include "roce/regs.h"
#include "roce/tables.h"
#include "regs/link_model.h"
#include "regs/device_stage.h"

/* Registers below this offset are stored words (through the QP window's
 * continuation at 0x100 and the CC block); the STAGE block and the STAT
 * region are live. */
#define ROCE_REG_STORE_END 0x300u

struct roce_device {
	pthread_mutex_t lock;   /* serialises bus accesses (one AXI master) */
	uint32_t regs[ROCE_REG_STORE_END / 4]; /* CTRL: atomic, see running() */
	uint32_t cnt_high[ROCE_CNT_COUNT];     /* STAT _HIGH latches */
	struct roce_counters cnt;
	struct roce_link_model link;
	struct roce_qp_table *qp;
	struct roce_mr_table *mr;
	uint8_t *mem;
	size_t mem_size;
	uint32_t qp_count;      /* QP_COUNT; fixed at create */
	/* the CC block as last committed (cc_block.c), under lock; its
	 * generation, which the engine polls; each QP's rate as the engine
	 * last published it (CC_QP_RATE's value) */
	struct roce_cc_config cc;
	_Atomic uint32_t cc_gen;
	_Atomic uint32_t *qp_rate;
	_Atomic uint32_t *qp_window;    /* CC_QP_WINDOW_KB per QP, 0: the device's */
	_Atomic uint32_t *qp_recovery;  /* CC_QP_RECOVERY per QP, 0: the device's */
	_Atomic uint32_t *qp_algo;      /* CC_QP_ALGO per QP, 0: the device's */
	struct stage_dev *stage;        /* the stage hardware (src/stage) */
	/* the STAGE block (stage_block.c): the command's slot and result,
	 * the key words until the next command wipes them */
	uint32_t stage_slot, stage_status;
	uint32_t stage_key[ROCE_STAGE_KEY_LEN / 4];
};

static inline uint32_t *dev_reg(struct roce_device *dev, uint32_t off)
{
	return &dev->regs[off / 4];
}

/* table_windows.c: a command written to QP_COMMIT / MR_COMMIT. The
 * result lands in the matching CMD_STATUS register. */
void roce_qp_window_command(struct roce_device *dev, uint32_t cmd);
void roce_mr_window_command(struct roce_device *dev, uint32_t cmd);

/* cc_block.c: CC_COMMIT; CC_QP_RATE's live value; the block at reset */
void roce_cc_commit(struct roce_device *dev);
uint32_t roce_cc_qp_rate_read(struct roce_device *dev);
uint32_t roce_cc_qp_window_read(struct roce_device *dev);
/* The lock is held. */
void roce_cc_qp_window_write(struct roce_device *dev, uint32_t kb);
uint32_t roce_cc_qp_recovery_read(struct roce_device *dev);
void roce_cc_qp_recovery_write(struct roce_device *dev, uint32_t v);
uint32_t roce_cc_qp_algo_read(struct roce_device *dev);
/* The lock is held. */
void roce_cc_qp_algo_write(struct roce_device *dev, uint32_t v);

/* stage_block.c: the STAGE block's registers (off in it); a soft reset
 * empties every key slot. */
uint32_t roce_stage_block_read(struct roce_device *dev, uint32_t off);
void roce_stage_block_write(struct roce_device *dev, uint32_t off, uint32_t val);
void roce_stage_block_reset(struct roce_device *dev);

/* stat.c: read a STAT register (r is in the STAT region). */
uint32_t roce_stat_read(struct roce_device *dev, const struct roce_reg *r);
void roce_stat_clear(struct roce_device *dev);

#endif
