/* SPDX-License-Identifier: MIT */
/*
 * The STAGE block (roce/regs.h, docs/stages.md): the XTS key slots of the
 * stage hardware (src/stage) behind the register file. A key is written
 * word by word into write-only registers, which this file holds only until
 * the command that takes them: LOAD hands the 64 bytes to the stage
 * hardware (which keeps cipher contexts, not the key) and both commands
 * wipe the words, so no register read, dump or trace of the bus can see a
 * key after it was loaded, and none can see it before (the words read 0).
 */
#include <string.h>

#include "roce/status.h"
#include "regs/device_priv.h"

/* Wiped through a volatile pointer: the compiler may not drop the stores
 * as dead (the words are read again only by the next LOAD). */
static void key_words_wipe(struct roce_device *dev)
{
	volatile uint32_t *w = dev->stage_key;

	for (unsigned i = 0; i < ROCE_STAGE_KEY_LEN / 4; i++)
		w[i] = 0;
}

static int key_command(struct roce_device *dev, uint32_t cmd)
{
	uint8_t key[ROCE_STAGE_KEY_LEN];
	volatile uint8_t *k = key;
	int rc;

	if (cmd == ROCE_STAGE_KEY_CMD_CLEAR)
		return stage_key_clear(dev->stage, dev->stage_slot);
	for (unsigned i = 0; i < ROCE_STAGE_KEY_LEN; i++)
		key[i] = (uint8_t)(dev->stage_key[i / 4] >> (8 * (i % 4)));
	rc = stage_key_load(dev->stage, dev->stage_slot, key);
	for (unsigned i = 0; i < ROCE_STAGE_KEY_LEN; i++)
		k[i] = 0;
	return rc;
}

uint32_t roce_stage_block_read(struct roce_device *dev, uint32_t off)
{
	switch (off) {
	case ROCE_REG_STAGE_KEY_SLOT:
		return dev->stage_slot;
	case ROCE_REG_STAGE_KEY_STATUS:
		return dev->stage_status;
	case ROCE_REG_STAGE_KEY_LOADED:
		return stage_keys_loaded(dev->stage);
	case ROCE_REG_STAGE_KEY_SLOTS:
		return ROCE_STAGE_KEY_SLOTS;
	default:
		return 0;       /* the command (never BUSY), the key words */
	}
}

void roce_stage_block_write(struct roce_device *dev, uint32_t off, uint32_t val)
{
	if (off == ROCE_REG_STAGE_KEY_SLOT) {
		dev->stage_slot = val;
	} else if (off == ROCE_REG_STAGE_KEY_CMD) {
		dev->stage_status = (uint32_t)key_command(dev, val);
		key_words_wipe(dev);
	} else if (off >= ROCE_REG_STAGE_KEY(0) &&
		   off <= ROCE_REG_STAGE_KEY(ROCE_STAGE_KEY_LEN / 4 - 1)) {
		dev->stage_key[(off - ROCE_REG_STAGE_KEY(0)) / 4] = val;
	}
}

void roce_stage_block_reset(struct roce_device *dev)
{
	for (unsigned i = 0; i < ROCE_STAGE_KEY_SLOTS; i++)
		stage_key_clear(dev->stage, i);
	key_words_wipe(dev);
	dev->stage_status = ROCE_OK;
}
