/* SPDX-License-Identifier: MIT */
/*
 * Config-file fuzz target: what `rocectl init` and `rocectl verify` read
 * (src/driver/config.c, the files in examples/). Arbitrary bytes either
 * parse or are refused with a message that names the file and line
 * ("fuzz.conf:LINE: ..."). An accepted config holds only what the format
 * allows (sizes, indices, keys that carry their index), parses the same
 * way twice, and goes through the power-on sequence on an in-process
 * device (roce_drv_power_on) without a crash; when the device takes it,
 * the regression check (roce_drv_verify, `rocectl verify`) finds every
 * register as the config says. There is no printer of configs, so no
 * round trip through text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "roce/params.h"
#include "roce/status.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

static struct roce_device *dev;
static struct roce_bus bus;
static struct roce_drv drv;
static struct roce_config cfg, again;

/* "fuzz.conf:LINE: message", LINE a positive number, message not empty. */
static void check_message(const char *err, size_t cap)
{
	const char *p = err + strlen("fuzz.conf:");
	char *end;
	unsigned long line;

	CHECK(memchr(err, '\0', cap) != NULL);
	CHECK(strncmp(err, "fuzz.conf:", strlen("fuzz.conf:")) == 0);
	line = strtoul(p, &end, 10);
	CHECK(end > p && line >= 1 && end[0] == ':' && end[1] == ' ' && end[2] != '\0');
}

/* What the format guarantees of an accepted config (driver.h, config.c). */
static void check_config(const struct roce_config *c)
{
	CHECK(c->n_qp <= ROCE_CFG_MAX_QP && c->n_mr <= ROCE_CFG_MAX_MR);
	CHECK(c->local.udp_port >= 1 && c->peer.udp_port >= 1 &&
	      c->link_timeout_ms <= 3600000);
	CHECK(c->qp_count == 0 ||
	      (c->qp_count > ROCE_FIRST_QPN && c->qp_count <= ROCE_MAX_QP));
	for (uint32_t i = 0; i < c->n_qp; i++) {
		const struct roce_qp_ctx *q = &c->qp[i];

		CHECK(q->qpn < ROCE_MAX_QP && q->state <= ROCE_QPS_ERR);
		CHECK(c->qp_count == 0 || q->qpn < c->qp_count);
		CHECK(q->dest_qpn <= 0xFFFFFF && q->sq_psn <= 0xFFFFFF && q->rq_psn <= 0xFFFFFF);
		CHECK(q->mtu >= ROCE_MTU_256 && q->mtu <= ROCE_MTU_4096 && !(q->access & ~0xFu));
		CHECK(q->type == ROCE_QPT_RC || q->type == ROCE_QPT_UC || q->type == ROCE_QPT_UD);
		CHECK(q->timeout <= 31 && q->retry_cnt <= 7 && q->rnr_retry <= 7 &&
		      q->min_rnr_timer <= 31 && q->max_rd_atomic <= ROCE_MAX_RD_ATOMIC &&
		      q->max_dest_rd_atomic <= ROCE_MAX_RD_ATOMIC);
		for (uint32_t j = 0; j < i; j++)
			CHECK(c->qp[j].qpn != q->qpn);
	}
	for (uint32_t i = 0; i < c->n_mr; i++) {
		const struct roce_mr_ctx *m = &c->mr[i];

		CHECK(m->index < ROCE_MAX_MR && m->rkey >> 8 == m->index &&
		      m->lkey >> 8 == m->index && !(m->access & ~0xFu));
		for (uint32_t j = 0; j < i; j++)
			CHECK(c->mr[j].index != m->index);
	}
}

static void trace_diff(const struct roce_verify_diff *df, void *arg)
{
	(void)arg;
	fprintf(stderr, "  %s (0x%03x): expected 0x%08x, read 0x%08x (%s)\n", df->reg,
		df->off, df->expected, df->actual, roce_status_name(df->status));
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char err[512], err2[512];
	unsigned ndiff = 0;
	int st, st2;

	if (!dev) {
		CHECK(roce_device_create(NULL, &dev) == ROCE_OK);
		CHECK(roce_bus_open_local(&bus, dev) == ROCE_OK);
		roce_drv_init(&drv, &bus);
	}
	memset(err, 0x55, sizeof(err));
	st = roce_config_parse((const char *)d, n, "fuzz.conf", &cfg, err, sizeof(err));
	st2 = roce_config_parse((const char *)d, n, "fuzz.conf", &again, err2, sizeof(err2));
	CHECK(st == st2);
	if (st != ROCE_OK) {
		CHECK(st == ROCE_E_FORMAT || st == ROCE_E_RANGE || st == ROCE_E_FULL ||
		      st == ROCE_E_EXISTS);
		check_message(err, sizeof(err));
		CHECK(strcmp(err, err2) == 0);
		return 0;
	}
	CHECK(memcmp(&cfg, &again, sizeof(cfg)) == 0);
	check_config(&cfg);
	/* rocectl init: the link comes up at once here, so no wait is long */
	cfg.link_timeout_ms = 1000;
	drv.err[0] = '\0';
	st = roce_drv_power_on(&drv, &cfg);
	if (getenv("FUZZ_TRACE"))
		fprintf(stderr, "power-on: %s %s\n", roce_status_name(st), drv.err);
	if (st != ROCE_OK) {
		CHECK(drv.err[0] != '\0');
		return 0;
	}
	/* rocectl verify right after init: nothing differs */
	st = roce_drv_verify(&drv, &cfg, getenv("FUZZ_TRACE") ? trace_diff : NULL, NULL,
			     &ndiff);
	if (st != ROCE_OK && getenv("FUZZ_TRACE"))
		fprintf(stderr, "verify: %s, %u difference(s)\n", roce_status_name(st), ndiff);
	CHECK(st == ROCE_OK && ndiff == 0);
	return 0;
}
