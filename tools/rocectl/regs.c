/* SPDX-License-Identifier: MIT */
/*
 * read, write and dump: registers by name or offset, each shown with its
 * fields decoded from the register map.
 */
#include <inttypes.h>
#include <stdio.h>

#include "rocectl/ctl.h"
#include "roce/regmap.h"

/* REG name (any case) or a number; *r is NULL for an unmapped offset. */
static int resolve_reg(struct ctl *c, const char *s, uint32_t *off,
		       const struct roce_reg **r)
{
	uint64_t v;

	*r = roce_regmap_find(s);
	if (*r) {
		*off = (*r)->offset;
		return 0;
	}
	if (roce_parse_u64(s, false, &v) == ROCE_OK && v <= UINT32_MAX) {
		*off = (uint32_t)v;
		*r = roce_regmap_find_offset(*off);
		return 0;
	}
	return ctl_fail(c, EXIT_USAGE, "unknown register '%s' (rocectl dump lists "
			"the names; offsets are numbers like 0x04)", s);
}

static void print_reg(struct ctl *c, const struct roce_reg *r, uint32_t off,
		      uint32_t val, int st, int first)
{
	if (c->json) {
		printf("%s{\"name\":", first ? "" : ",");
		ctl_json_str(r ? r->name : "unmapped");
		printf(",\"offset\":%u,", off);
		if (st != ROCE_OK) {
			printf("\"error\":\"%s\"}", roce_status_name(st));
			return;
		}
		printf("\"value\":%u,\"fields\":{", val);
		for (unsigned i = 0; r && i < r->n_fields; i++)
			printf("%s\"%s\":%u", i ? "," : "", r->fields[i].name,
			       roce_reg_field_get(&r->fields[i], val));
		printf("}}");
		return;
	}
	printf("0x%04x %-32s ", off, r ? r->name : "unmapped");
	if (st != ROCE_OK) {
		printf("%s (%s)\n", roce_status_name(st), roce_status_str(st));
		return;
	}
	printf("0x%08x", val);
	for (unsigned i = 0; r && r->n_fields > 1 && i < r->n_fields; i++)
		printf(" %s=%u", r->fields[i].name,
		       roce_reg_field_get(&r->fields[i], val));
	printf("\n");
}

int cmd_read(struct ctl *c, int argc, char **argv)
{
	const struct roce_reg *r;
	uint32_t off = 0, val = 0;
	int st;

	if (argc != 1)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl read REG|OFFSET");
	if ((st = resolve_reg(c, argv[0], &off, &r)) != 0)
		return st;
	if ((st = roce_drv_read(&c->drv, off, &val)) != ROCE_OK)
		return ctl_drv_fail(c);
	print_reg(c, r, off, val, ROCE_OK, 1);
	if (c->json)
		printf("\n");
	return 0;
}

int cmd_write(struct ctl *c, int argc, char **argv)
{
	const struct roce_reg *r;
	uint32_t off = 0;
	uint64_t v;
	int st;

	if (argc != 2)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl write REG|OFFSET VALUE");
	if ((st = resolve_reg(c, argv[0], &off, &r)) != 0)
		return st;
	if (roce_parse_u64(argv[1], false, &v) != ROCE_OK || v > UINT32_MAX)
		return ctl_fail(c, EXIT_USAGE, "bad value '%s' (a 32-bit number, "
				"decimal or 0x hex)", argv[1]);
	if ((st = roce_drv_write(&c->drv, off, (uint32_t)v)) != ROCE_OK)
		return ctl_drv_fail(c);
	return 0;
}

int cmd_dump(struct ctl *c, int argc, char **argv)
{
	const struct roce_reg *r;

	(void)argv;
	if (argc != 0)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl dump");
	if (c->json)
		printf("{\"registers\":[");
	for (size_t i = 0; (r = roce_regmap_at(i)) != NULL; i++) {
		uint32_t val = 0;
		int st = roce_bus_read32(&c->bus, r->offset, &val);

		/* An error response is shown in place; a dead bus ends it. */
		if (st != ROCE_OK && st != ROCE_E_SLVERR && st != ROCE_E_DECERR) {
			if (c->json)
				printf("]}\n");
			return ctl_fail(c, EXIT_DEVICE, "read %s: %s", r->name,
					roce_status_str(st));
		}
		print_reg(c, r, r->offset, val, st, i == 0);
	}
	if (c->json)
		printf("]}\n");
	return 0;
}
