/* SPDX-License-Identifier: MIT */
/*
 * The register map as data: one const table, sorted by offset, describes
 * every register of the device (offset, name, access, reset value, fields,
 * description). The register file decodes accesses by consulting it, the
 * driver and rocectl find registers by name in it, and docs/regmap.md is
 * generated from it (tools/roce-regmap-doc.c). Offsets match roce/regs.h.
 */
#ifndef ROCE_REGMAP_H
#define ROCE_REGMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum roce_reg_access {
	ROCE_ACC_RO,  /* read-only; writes answer SLVERR */
	ROCE_ACC_RW,  /* read/write; reads return what was written */
	ROCE_ACC_CMD, /* command: writes start a command, reads return BUSY */
	ROCE_ACC_WO,  /* write-only: reads return 0 (a key never reads back) */
};

struct roce_reg_field {
	const char *name;
	uint8_t lsb, width;
	uint32_t min, max;  /* legal values of a write; max 0 = full width */
	bool ro;            /* status bit inside a writable register: write 0 */
	const char *desc;
};

struct roce_reg_region {
	const char *name;   /* "QP_TABLE" */
	uint32_t base, end; /* inclusive */
	const char *desc;
};

struct roce_reg {
	uint32_t offset;
	const char *name;
	enum roce_reg_access access;
	uint32_t reset;     /* value after power-on (default memory size,
	                     * link not yet ready) */
	const struct roce_reg_field *fields;
	unsigned n_fields;
	const char *desc;
	int counter;        /* enum roce_cnt of a STAT counter register, else -1 */
	bool high;          /* counter register holding bits 63:32 */
};

size_t roce_regmap_count(void);
const struct roce_reg *roce_regmap_at(size_t i);          /* NULL past end */
const struct roce_reg *roce_regmap_find(const char *name); /* case-insensitive */
const struct roce_reg *roce_regmap_find_offset(uint32_t off); /* exact */

size_t roce_regmap_region_count(void);
const struct roce_reg_region *roce_regmap_region_at(size_t i);
const struct roce_reg_region *roce_regmap_region_of(uint32_t off);

const char *roce_reg_access_name(enum roce_reg_access a); /* "RO" */

/* Bits covered by fields a write may set (excludes ro fields). */
uint32_t roce_reg_write_mask(const struct roce_reg *r);

/*
 * Would writing val be legal? ROCE_OK, or ROCE_E_SLVERR for a read-only
 * register, a reserved or read-only bit set, or a field outside [min, max].
 */
int roce_reg_check_write(const struct roce_reg *r, uint32_t val);

/* Field value of val. */
static inline uint32_t roce_reg_field_get(const struct roce_reg_field *f,
					  uint32_t val)
{
	return f->width >= 32 ? val : (val >> f->lsb) & ((1u << f->width) - 1u);
}

#endif
