/* SPDX-License-Identifier: MIT */
/*
 * init and verify: the seed's power-on sequence from a config file, and its
 * register regression check (read back every register the config sets).
 */
#include <stdio.h>
#include <stdlib.h>

#include "rocectl/ctl.h"

/* 0 with *out loaded, or the exit status after saying why. */
static int load_config(struct ctl *c, const char *path,
		       struct roce_config **out)
{
	struct roce_config *cfg = malloc(sizeof(*cfg));
	char err[512];
	int rc;

	if (!cfg)
		return ctl_fail(c, EXIT_DEVICE, "out of memory");
	if (roce_config_load(path, cfg, err, sizeof(err)) != ROCE_OK) {
		free(cfg);
		return ctl_fail(c, EXIT_USAGE, "%s", err);
	}
	/* a device of our own is built as the config describes it */
	if (c->local && cfg->qp_count &&
	    (rc = ctl_local_device(c, cfg->qp_count)) != 0) {
		free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

int cmd_init(struct ctl *c, int argc, char **argv)
{
	struct roce_config *cfg;
	int st;

	if (argc != 1)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl init CONFIG");
	if ((st = load_config(c, argv[0], &cfg)) != 0)
		return st;
	st = roce_drv_power_on(&c->drv, cfg);
	if (st == ROCE_OK && c->json)
		printf("{\"ok\":true,\"qps\":%u,\"mrs\":%u}\n", cfg->n_qp,
		       cfg->n_mr);
	else if (st == ROCE_OK)
		printf("init: %s: device up, %u QP(s), %u MR(s)\n", argv[0],
		       cfg->n_qp, cfg->n_mr);
	free(cfg);
	return st == ROCE_OK ? 0 : ctl_fail(c, EXIT_DEVICE, "init: %s", c->drv.err);
}

struct verify_out {
	struct ctl *c;
	unsigned n;
};

static void verify_print(const struct roce_verify_diff *d, void *arg)
{
	struct verify_out *o = arg;

	if (o->c->json) {
		printf("%s{\"register\":", o->n++ ? "," : "");
		ctl_json_str(d->reg);
		printf(",\"offset\":%u,\"expected\":%u,\"actual\":%u,"
		       "\"status\":\"%s\"}", d->off, d->expected, d->actual,
		       roce_status_name(d->status));
		return;
	}
	o->n++;
	if (d->status != ROCE_OK)
		printf("MISMATCH %-28s (0x%03x) expected 0x%08x, read failed: %s\n",
		       d->reg, d->off, d->expected, roce_status_name(d->status));
	else
		printf("MISMATCH %-28s (0x%03x) expected 0x%08x actual 0x%08x\n",
		       d->reg, d->off, d->expected, d->actual);
}

int cmd_verify(struct ctl *c, int argc, char **argv)
{
	struct verify_out o = { c, 0 };
	struct roce_config *cfg;
	unsigned ndiff = 0;
	int st;

	if (argc != 1)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl verify CONFIG");
	if ((st = load_config(c, argv[0], &cfg)) != 0)
		return st;
	if (c->json)
		printf("{\"diffs\":[");
	st = roce_drv_verify(&c->drv, cfg, verify_print, &o, &ndiff);
	free(cfg);
	if (c->json)
		printf("],\"ok\":%s}\n", st == ROCE_OK ? "true" : "false");
	if (st == ROCE_E_MISMATCH) {
		fprintf(stderr, "rocectl: verify: %u register(s) differ from %s\n",
			ndiff, argv[0]);
		return EXIT_DEVICE;
	}
	if (st != ROCE_OK) {
		fprintf(stderr, "rocectl: verify: %s\n", c->drv.err);
		return EXIT_DEVICE;
	}
	if (!c->json)
		printf("verify: %s: every register matches\n", argv[0]);
	return 0;
}
