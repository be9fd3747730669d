/* SPDX-License-Identifier: MIT */
/*
 * DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015), the reaction point (RP) of one QP: the
 * rate it may send at, cut on each congestion notification (CNP) and
 * recovered by its timer and byte counter, with the knobs under the
 * names, units and defaults ConnectX firmware gives them (mlx5's
 * /sys/kernel/debug/mlx5/<pci>/cc_params and NVIDIA's DCQCN parameter
 * tables) and the paper's own profile beside them.
 *
 * Pure arithmetic on integers: no clock read, no engine. The caller gives
 * the time (ns) and the bytes it sent, asks for the rate, and calls
 * dcqcn_advance() at the deadline it returns. The same inputs give the
 * same rates on any machine (an RTL's golden reference needs that).
 *
 * Units: rates in kbit/s (the knobs are Mbit/s), alpha in 1024ths as the
 * firmware's knobs give it (10 fraction bits; its average keeps 10 more,
 * dcqcn.c), times in ns (the knobs are us).
 */
#ifndef ROCE_CC_DCQCN_H
#define ROCE_CC_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/cc.h"


/* ConnectX's defaults (ConnectX-5 and later). */
void dcqcn_params_mlx5(struct roce_dcqcn_params *p);
/* The paper's: g = 1/256, K = T = 55 us, B = 10 MB, F = 5, R_AI =
   40 Mbit/s, R_HAI = 200 Mbit/s, a cut per CNP, CNPs 50 us apart. */
void dcqcn_params_paper(struct roce_dcqcn_params *p);
/* 0, or the name of the first knob out of range (for an error message). */
const char *dcqcn_params_check(const struct roce_dcqcn_params *p);

struct dcqcn_rp {
	uint64_t line;                  /* kbit/s: the port's rate */
	uint64_t rc, rt;                /* current and target rate, kbit/s */
	uint32_t alpha;                 /* 1024ths */
	uint32_t alpha_frac;            /* alpha's bits below 1/1024 (dcqcn.c) */
	bool limited;                   /* a CNP came and the rate is not back at line */
	bool cnp_seen;                  /* a CNP in this alpha period */
	bool cut_pending;               /* a CNP to act on at the monitor period's end */
	bool timer_inc;                 /* the last increase was the timer's */
	uint32_t time_stage, byte_stage;
	uint64_t bytes;                 /* sent since the last byte stage */
	uint64_t t_alpha, t_inc;        /* ns: next alpha update, next timer increase */
	uint64_t t_cut;                 /* ns: the last cut */
	bool cut_once;                  /* t_cut is valid */
	uint64_t cuts, increases;       /* for tests and status */
};

/* An RP at line rate (kbit/s), not limited. */
void dcqcn_init(struct dcqcn_rp *rp, uint64_t line_kbps);
/* A CNP for this QP at now: a cut now, or at the end of the monitor
   period when the last cut is more recent. */
void dcqcn_cnp(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t now);
/* bytes sent (the byte counter; an increase when it reaches B). */
void dcqcn_sent(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint32_t bytes);
/* Runs what is due at now (alpha update, timer increase, a pending cut);
   returns the next deadline, 0 when the RP is back at line rate. */
uint64_t dcqcn_advance(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t now);
/* When dcqcn_advance() has something to do next; 0: nothing (line rate). */
uint64_t dcqcn_deadline(const struct dcqcn_rp *rp, const struct roce_dcqcn_params *p);
/* When the rate may next change without a CNP (a timer increase or a
   pending cut; alpha's updates change no rate): a paced QP waiting to send
   looks again then. 0: not limited. */
uint64_t dcqcn_next_change(const struct dcqcn_rp *rp, const struct roce_dcqcn_params *p);
/* The rate to pace at, kbit/s (line rate when not limited). */
static inline uint64_t dcqcn_rate(const struct dcqcn_rp *rp)
{
	return rp->limited ? rp->rc : rp->line;
}

#endif
