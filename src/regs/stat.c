/* SPDX-License-Identifier: MIT */
/*
 * The STAT region: link status and 64-bit counters as LOW/HIGH pairs.
 *
 * A 64-bit counter cannot be read in one 32-bit bus access, and it may
 * carry between two reads. Reading _LOW therefore snapshots the whole
 * counter, returns bits 31:0 and latches bits 63:32, which the next read of
 * _HIGH returns (the usual NIC statistics latch). Each counter has its own
 * latch; a reader that interleaves other registers between LOW and HIGH
 * still gets a consistent pair, as long as no other master reads the same
 * counter's LOW in between.
 */
#include <string.h>

#include "regs/device_priv.h"

uint32_t roce_stat_read(struct roce_device *dev, const struct roce_reg *r)
{
	uint64_t v;

	if (r->counter < 0) {
		if (r->offset == ROCE_REG_STAT_LINK_STATUS)
			return roce_link_bits(&dev->link);
		return r->reset;        /* constants: STAT_CNT_COUNT */
	}
	if (r->high)
		return dev->cnt_high[r->counter];
	v = roce_cnt_read(&dev->cnt, (enum roce_cnt)r->counter);
	dev->cnt_high[r->counter] = (uint32_t)(v >> 32);
	return (uint32_t)v;
}

void roce_stat_clear(struct roce_device *dev)
{
	roce_counters_clear(&dev->cnt);
	memset(dev->cnt_high, 0, sizeof(dev->cnt_high));
}
