/* SPDX-License-Identifier: MIT */
/*
 * Host driver, the STAGE block (roce/regs.h): an XTS key written into the
 * write-only key words, then loaded into a slot by STAGE_KEY_CMD, whose
 * result STAGE_KEY_STATUS gives; a slot cleared; the slots that hold a
 * key. The device wipes the key words after each command.
 */
#include "roce/driver.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "driver/drv_priv.h"

/* A key slot command on slot; its STAGE_KEY_STATUS as the result. */
static int key_command(struct roce_drv *drv, unsigned slot, uint32_t cmd)
{
	uint32_t st;
	int rc;

	if ((rc = roce_drv_write(drv, ROCE_REG_STAGE_KEY_CMD, cmd)) ||
	    (rc = roce_drv_read(drv, ROCE_REG_STAGE_KEY_STATUS, &st)))
		return rc;
	if (st != ROCE_OK)
		return roce_drv_fail(drv, (int)st < ROCE_STATUS_COUNT ? (int)st : ROCE_E_IO,
				     "key slot %u: %s refused: %s (%s)", slot,
				     cmd == ROCE_STAGE_KEY_CMD_LOAD ? "LOAD" : "CLEAR",
				     roce_status_name((int)st), roce_status_str((int)st));
	return ROCE_OK;
}

static int select_slot(struct roce_drv *drv, unsigned slot)
{
	if (slot >= ROCE_STAGE_KEY_SLOTS)
		return roce_drv_fail(drv, ROCE_E_NOENT, "key slot %u: the device has %u",
				     slot, ROCE_STAGE_KEY_SLOTS);
	return roce_drv_write(drv, ROCE_REG_STAGE_KEY_SLOT, slot);
}

int roce_drv_stage_key_load(struct roce_drv *drv, unsigned slot,
			    const uint8_t key[ROCE_STAGE_KEY_LEN])
{
	int rc;

	if (!drv || !key)
		return ROCE_E_INVAL;
	if ((rc = select_slot(drv, slot)))
		return rc;
	for (unsigned n = 0; n < ROCE_STAGE_KEY_LEN / 4; n++) {
		const uint8_t *b = key + 4 * n;         /* byte 4n in bits 7:0 */
		uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;

		if ((rc = roce_drv_write(drv, ROCE_REG_STAGE_KEY(n), w)))
			return rc;
	}
	return key_command(drv, slot, ROCE_STAGE_KEY_CMD_LOAD);
}

int roce_drv_stage_key_clear(struct roce_drv *drv, unsigned slot)
{
	int rc;

	if (!drv)
		return ROCE_E_INVAL;
	if ((rc = select_slot(drv, slot)))
		return rc;
	return key_command(drv, slot, ROCE_STAGE_KEY_CMD_CLEAR);
}

int roce_drv_stage_keys_loaded(struct roce_drv *drv, uint32_t *bits)
{
	if (!drv || !bits)
		return ROCE_E_INVAL;
	return roce_drv_read(drv, ROCE_REG_STAGE_KEY_LOADED, bits);
}
