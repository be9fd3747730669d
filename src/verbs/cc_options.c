/* SPDX-License-Identifier: MIT */
/*
 * Loss recovery and congestion control as the tools and roce-run's
 * drop-in take them (roce/cc_options.h): one reading of the words, one
 * config from them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/cc_options.h"
#include "roce/status.h"

void roce_cc_options_init(struct roce_cc_options *o)
{
	memset(o, 0, sizeof(*o));
	o->algo = -1;
}

bool roce_cc_options_any(const struct roce_cc_options *o)
{
	return o->iba_strict || o->ecn || o->algo >= 0 || o->window_kb || o->rto_min_us;
}

void roce_cc_options_config(const struct roce_cc_options *o, struct roce_cc_config *c)
{
	roce_cc_config_default(c);
	if (o->iba_strict)
		roce_cc_config_iba_strict(c);
	if (o->ecn || o->algo >= 0)
		c->np_prio_mask = c->rp_prio_mask = 0xFF;
	if (o->algo >= 0)
		c->algo = (uint8_t)o->algo;
	if (o->window_kb)
		c->window_kb = o->window_kb;
	if (o->adaptive_rto || o->rto_min_us)
		c->adaptive_rto = true;
	if (o->rto_min_us)
		c->rto_min_us = o->rto_min_us;
}

int roce_cc_options_algo(struct roce_cc_options *o, const char *name, char *why, size_t len)
{
	int a = roce_cc_algo_by_name(name);

	if (a < 0) {
		snprintf(why, len, "'%s' is not an algorithm (dcqcn, swift)", name ? name : "");
		return ROCE_E_INVAL;
	}
	o->algo = a;
	return ROCE_OK;
}

int roce_cc_options_env(struct roce_cc_options *o, char *why, size_t len)
{
	const char *strict = getenv(ROCE_CC_ENV_IBA_STRICT), *algo = getenv(ROCE_CC_ENV_ALGO);
	char inner[120];

	roce_cc_options_init(o);
	if (strict && *strict) {
		if (strcmp(strict, "0") && strcmp(strict, "1")) {
			snprintf(why, len, "%s=%s: 0 or 1", ROCE_CC_ENV_IBA_STRICT, strict);
			return ROCE_E_INVAL;
		}
		o->iba_strict = !strcmp(strict, "1");
	}
	if (algo && *algo && roce_cc_options_algo(o, algo, inner, sizeof(inner))) {
		snprintf(why, len, "%s=%s: %s", ROCE_CC_ENV_ALGO, algo, inner);
		return ROCE_E_INVAL;
	}
	return ROCE_OK;
}

int roce_cc_options_apply(struct roce_context *ctx, const struct roce_cc_options *o)
{
	struct roce_cc_config c;

	if (!roce_cc_options_any(o))
		return ROCE_OK;
	roce_cc_options_config(o, &c);
	return roce_context_set_cc(ctx, &c);
}
