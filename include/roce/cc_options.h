/* SPDX-License-Identifier: MIT */
/*
 * Loss recovery and congestion control as people ask for them: the
 * tools' options (--iba-strict, --cc, --cc-algo, --window, --adaptive-rto,
 * --rto-min-us) and roce-run's environment (ROCE_IBA_STRICT,
 * ROCE_CC_ALGO). Every tool and the drop-in read theirs through these, so
 * they take the same words, refuse the same things and ask the device for
 * the same config; the config itself is roce/cc.h's.
 *
 * Nothing asked, nothing written: the device keeps its defaults (after
 * reset: the adaptive window, the adaptive timer and tail-loss probes on,
 * ECN and the reaction point off; docs/cc.md, "Defaults").
 */
#ifndef ROCE_CC_OPTIONS_H
#define ROCE_CC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/cc.h"

struct roce_cc_options {
	bool iba_strict;        /* IBA's recovery alone: no adaptive window,
				   timer or probe (roce_cc_config_iba_strict) */
	bool ecn;               /* the NP and the RP on every priority */
	int algo;               /* enum roce_cc_algo (the RP on, as ecn);
				   -1: the device's */
	uint32_t window_kb;     /* a fixed bound on the window (0: none) */
	bool adaptive_rto;      /* the adaptive timer (on by default; with
				   iba_strict, the timer alone) */
	uint32_t rto_min_us;    /* the adaptive timer's floor (0: default) */
};

/* The environment roce-run's drop-in reads (docs/verbs.md). */
#define ROCE_CC_ENV_IBA_STRICT "ROCE_IBA_STRICT"        /* 1: --iba-strict */
#define ROCE_CC_ENV_ALGO       "ROCE_CC_ALGO"           /* dcqcn, swift */

/* Nothing asked (algo -1). */
void roce_cc_options_init(struct roce_cc_options *o);
/* Anything asked that the device's defaults do not give. */
bool roce_cc_options_any(const struct roce_cc_options *o);
/* The config o asks for: the defaults, then o's changes. */
void roce_cc_options_config(const struct roce_cc_options *o, struct roce_cc_config *c);
/* "dcqcn" or "swift" into o->algo; ROCE_E_INVAL with why (one line)
 * naming the choices. */
int roce_cc_options_algo(struct roce_cc_options *o, const char *name, char *why, size_t len);
/* o from the environment (nothing set: nothing asked); ROCE_E_INVAL with
 * why naming the variable that is wrong. */
int roce_cc_options_env(struct roce_cc_options *o, char *why, size_t len);

struct roce_context;
/* Write o's config to the context's device when anything is asked
 * (roce_context_set_cc); ROCE_OK and nothing written otherwise. */
int roce_cc_options_apply(struct roce_context *ctx, const struct roce_cc_options *o);

#endif
