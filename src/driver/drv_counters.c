/* SPDX-License-Identifier: MIT */
/*
 * Host driver, counters: 64-bit LOW/HIGH pairs in the STAT region, found in
 * the register map. Seed 000 section 6.2: counters first, logic analyser
 * second.
 */
#include <stdio.h>
#include <strings.h>

#include "roce/counters.h"
#include "roce/driver.h"
#include "roce/regmap.h"
#include "driver/drv_priv.h"

/*
 * Reading LOW latches HIGH in the device, so LOW-then-HIGH is consistent.
 * A raw window (mmap) has no latch: its contents may change between the two
 * reads. HIGH only changes when LOW wraps, so a second LOW that is not
 * smaller than the first proves the pair consistent; otherwise read again.
 */
int roce_drv_counter_read_at(struct roce_drv *drv, uint32_t low_off,
			     uint64_t *val)
{
	uint32_t lo, hi, lo2;
	int st;

	for (int tries = 0; tries < 4; tries++) {
		if ((st = roce_drv_read(drv, low_off, &lo)) != ROCE_OK ||
		    (st = roce_drv_read(drv, low_off + 4, &hi)) != ROCE_OK ||
		    (st = roce_drv_read(drv, low_off, &lo2)) != ROCE_OK)
			return st;
		if (lo2 >= lo)
			break;
	}
	*val = (uint64_t)hi << 32 | lo;
	return ROCE_OK;
}

/* "tx_pkts", "STAT_TX_PKTS" or "STAT_TX_PKTS_LOW". */
static const struct roce_reg *drv_counter_find(const char *name)
{
	const struct roce_reg *r;
	char buf[96];
	int id = roce_cnt_find(name);

	if (id >= 0)
		return roce_regmap_find_offset(ROCE_REG_STAT_CNT_LOW(id));
	r = roce_regmap_find(name);
	if (!r) {
		snprintf(buf, sizeof(buf), "%s_LOW", name);
		r = roce_regmap_find(buf);
	}
	return (r && r->counter >= 0 && !r->high) ? r : NULL;
}

int roce_drv_counter_read(struct roce_drv *drv, const char *name,
			  uint64_t *val)
{
	const struct roce_reg *r = drv_counter_find(name);

	if (!r)
		return roce_drv_fail(drv, ROCE_E_NOENT, "no counter named '%s'",
				     name);
	return roce_drv_counter_read_at(drv, r->offset, val);
}

int roce_drv_counters_read(struct roce_drv *drv,
			   struct roce_counter_value *out, size_t max,
			   size_t *n)
{
	const struct roce_reg *r;
	int st;

	*n = 0;
	for (size_t i = 0; (r = roce_regmap_at(i)) != NULL; i++) {
		if (r->counter < 0 || r->high)
			continue;
		if (*n >= max)
			return roce_drv_fail(drv, ROCE_E_FULL,
					     "more than %zu counters", max);
		out[*n].name = roce_cnt_name(r->counter);
		out[*n].low_off = r->offset;
		st = roce_drv_counter_read_at(drv, r->offset, &out[*n].value);
		if (st != ROCE_OK)
			return st;
		(*n)++;
	}
	return ROCE_OK;
}
