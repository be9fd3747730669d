/* SPDX-License-Identifier: MIT */
/*
 * STAGE block and stage binding fuzz target: a host driver gone wrong
 * with the inline stages' registers. Each input is a sequence of
 * accesses, 6 bytes each (what, register, value), to one device's STAGE
 * block (key slot, command, the write-only key words) and the MR
 * window's binding registers (MR_STAGE .. MR_POOL_BLOCKS, the entry's
 * range and index), with COMMITs, LOADs and soft resets between them.
 * After every access:
 *
 *   - a key word reads 0, whatever was written (no register reads a key);
 *   - STAGE_KEY_LOADED has no bit past the last slot, STAGE_KEY_STATUS is
 *     a status code, and a refused LOAD left LOADED as it was;
 *   - every valid MR entry as the data path reads it has a binding that
 *     roce_stage_binding_check accepts for its range and space: no COMMIT
 *     let a bad binding through.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roce/device.h"
#include "roce/params.h"
#include "roce/regs.h"
#include "roce/stage.h"
#include "roce/status.h"
#include "roce/tables.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define MEM_SIZE (1u << 20)
#define N_MR 4                  /* MR indices the input reaches */

static struct roce_device *dev;

/* The registers an access names, by its second byte. */
static const uint32_t regs[] = {
	ROCE_REG_STAGE_KEY_SLOT, ROCE_REG_STAGE_KEY_CMD, ROCE_REG_STAGE_KEY_STATUS,
	ROCE_REG_STAGE_KEY_LOADED, ROCE_REG_STAGE_KEY_SLOTS,
	ROCE_REG_MR_INDEX, ROCE_REG_MR_COMMIT, ROCE_REG_MR_CMD_STATUS, ROCE_REG_MR_ACCESS,
	ROCE_REG_MR_PA_LOW, ROCE_REG_MR_LEN_LOW, ROCE_REG_MR_RKEY, ROCE_REG_MR_LKEY,
	ROCE_REG_MR_STAGE, ROCE_REG_MR_STAGE_TAG, ROCE_REG_MR_DUN_LOW, ROCE_REG_MR_DUN_HIGH,
	ROCE_REG_MR_PI_PA_LOW, ROCE_REG_MR_PI_PA_HIGH, ROCE_REG_MR_POOL_PA_LOW,
	ROCE_REG_MR_POOL_PA_HIGH, ROCE_REG_MR_POOL_BLOCKS, ROCE_REG_CTRL,
};
#define N_REGS (sizeof(regs) / sizeof(regs[0]))

static uint32_t rd(uint32_t off)
{
	uint32_t v = 0;

	CHECK(roce_device_read32(dev, off, &v) == ROCE_OK);
	return v;
}

static void check_invariants(void)
{
	struct roce_mr_table *t = roce_device_mr_table(dev);

	for (unsigned n = 0; n < ROCE_STAGE_KEY_LEN / 4; n++)
		CHECK(rd(ROCE_REG_STAGE_KEY(n)) == 0);
	CHECK((rd(ROCE_REG_STAGE_KEY_LOADED) >> ROCE_STAGE_KEY_SLOTS) == 0);
	CHECK(rd(ROCE_REG_STAGE_KEY_STATUS) < ROCE_STATUS_COUNT);
	for (uint32_t i = 0; i < N_MR; i++) {
		struct roce_mr_entry e;

		CHECK(roce_mr_table_lookup(t, i, &e) == ROCE_OK);
		if (e.valid)
			CHECK(roce_stage_binding_check(&e.stage, e.len,
						       e.space == ROCE_MR_SPACE_HOST,
						       MEM_SIZE, NULL) == ROCE_OK);
	}
}

/* One access: d[0] what (low bits: write / read / key word write),
 * d[1] which register, d[2..5] the value. */
static void access(const uint8_t *d)
{
	uint32_t val = (uint32_t)d[2] | (uint32_t)d[3] << 8 | (uint32_t)d[4] << 16 |
		       (uint32_t)d[5] << 24;
	uint32_t before = rd(ROCE_REG_STAGE_KEY_LOADED);
	uint32_t off;
	int rc;

	switch (d[0] & 3) {
	case 0:                         /* a key word */
		off = ROCE_REG_STAGE_KEY(d[1] % (ROCE_STAGE_KEY_LEN / 4));
		CHECK(roce_device_write32(dev, off, val) == ROCE_OK);
		break;
	case 1:                         /* a read */
		(void)rd(regs[d[1] % N_REGS]);
		break;
	default:                        /* a write, small values more often */
		off = regs[d[1] % N_REGS];
		if (d[0] & 4)
			val &= 0xFF;
		if (off == ROCE_REG_MR_INDEX)
			val %= N_MR;
		if (off == ROCE_REG_MR_RKEY || off == ROCE_REG_MR_LKEY)
			val = rd(ROCE_REG_MR_INDEX) << 8 | (val & 0xFF);
		if (off == ROCE_REG_CTRL)
			val &= ROCE_CTRL_SOFT_RESET;
		rc = roce_device_write32(dev, off, val);
		CHECK(rc == ROCE_OK || rc == ROCE_E_SLVERR);
		if (off == ROCE_REG_STAGE_KEY_CMD && rc == ROCE_OK &&
		    rd(ROCE_REG_STAGE_KEY_STATUS) != ROCE_OK)
			CHECK(rd(ROCE_REG_STAGE_KEY_LOADED) == before);
		break;
	}
	check_invariants();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_device_config cfg = { .mem_size = MEM_SIZE };

	CHECK(roce_device_create(&cfg, &dev) == ROCE_OK);
	for (size_t i = 0; i + 6 <= size && i < 6 * 512; i += 6)
		access(data + i);
	roce_device_destroy(dev);
	dev = NULL;
	return 0;
}
