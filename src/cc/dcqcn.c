/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's reaction point (dcqcn.h). The paper's Algorithm 1 and its
 * Figure 6 (fast recovery, additive and hyper increase), in the form the
 * firmware's knobs describe it: alpha updated once per dce_tcp_rtt
 * (raised if a CNP came in the period, decayed if not), at most one cut
 * per rate_reduce_monitor_period, the target rate clamped to the current
 * one only when clamp_tgt_rate says so.
 */
#include "cc/dcqcn.h"
#include "cc/knobs.h"

#define NS_PER_US 1000ull
#define KBPS_PER_MBPS 1000ull
/* A timer that is far behind (a QP idle for seconds) catches up at most
   this many steps; after them alpha is 0 and the rate at line anyway. */
#define CATCH_UP_MAX 4096u
/*
 * Alpha's average keeps this many bits below the 1024ths it is cut with.
 * Truncated to 1024ths at each update, alpha * g / 1024 loses up to
 * 1/1024 a period, as much as a CNP adds with ConnectX's g (1019: 5/1024)
 * and every period (1 us): under 205/1024 each update takes exactly 1,
 * so a CNP's 5/1024 is gone 5 us later instead of decaying by
 * (1019/1024)^n, and a QP whose CNPs come more than 5 us apart (at most
 * one per 4 us per QP, fewer at a few Gbit/s) is cut with alpha 0: not at
 * all. A 32:1 incast then held its queue at the buffer's edge with every
 * rate near line. With 10 more bits the loss is 2^-20 a period and alpha
 * follows the documented average; the cut and the report use its 1024ths.
 */
#define ALPHA_FRAC_BITS 10

void dcqcn_params_mlx5(struct roce_dcqcn_params *p)
{
	*p = (struct roce_dcqcn_params){
#define X(n, N, def, lo, hi, unit, what) .n = def,
		ROCE_DCQCN_KNOB_LIST(X)
#undef X
	};
}

void dcqcn_params_paper(struct roce_dcqcn_params *p)
{
	dcqcn_params_mlx5(p);
	p->rpg_time_reset = 55;                 /* T */
	p->rpg_byte_reset = (10u << 20) / 64;   /* B = 10 MB */
	p->rpg_threshold = 5;                   /* F */
	p->rpg_ai_rate = 40;
	p->rpg_hai_rate = 200;
	p->dce_tcp_g = 1024 - 4;                /* g = 4/1024 = 1/256 */
	p->dce_tcp_rtt = 55;                    /* K */
	p->rate_reduce_monitor_period = 0;      /* a cut per CNP ... */
	p->min_time_between_cnps = 50;          /* ... and a CNP per 50 us at most */
	p->clamp_tgt_rate = 1;                  /* R_T = R_C at every cut */
	p->initial_alpha_value = 1024;          /* alpha = 1 */
}

const char *dcqcn_params_check(const struct roce_dcqcn_params *p)
{
	unsigned n;
	const struct roce_cc_knob *k = roce_dcqcn_knobs(&n);

	return cc_knobs_check(k, n, p);
}

void dcqcn_init(struct dcqcn_rp *rp, uint64_t line_kbps)
{
	*rp = (struct dcqcn_rp){ .line = line_kbps, .rc = line_kbps, .rt = line_kbps };
}

static uint64_t max_rate(const struct dcqcn_rp *rp, const struct roce_dcqcn_params *p)
{
	uint64_t m = p->rpg_max_rate * KBPS_PER_MBPS;

	return m && m < rp->line ? m : rp->line;
}

/* The multiplicative decrease (Algorithm 1: R_T = R_C, R_C = R_C (1 -
   alpha/2)), and the increase stages start over. */
static void cut(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t now)
{
	uint64_t dec = rp->rc * rp->alpha >> p->rpg_gd;
	uint64_t most = rp->rc * p->rpg_min_dec_fac / 100;
	uint64_t floor = p->rpg_min_rate * KBPS_PER_MBPS;

	if (p->clamp_tgt_rate || (p->clamp_tgt_rate_after_time_inc && rp->timer_inc))
		rp->rt = rp->rc;
	rp->rc -= dec < most ? dec : most;
	if (rp->rc < floor)
		rp->rc = floor;
	rp->time_stage = rp->byte_stage = 0;
	rp->bytes = 0;
	rp->timer_inc = false;
	rp->t_inc = now + p->rpg_time_reset * NS_PER_US;
	rp->t_cut = now;
	rp->cut_once = true;
	rp->cut_pending = false;
	rp->cuts++;
}

void dcqcn_cnp(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t now)
{
	if (!rp->limited) {
		/* the flow's first CNP (or the first since it got back to
		   line rate): alpha starts at its initial value */
		rp->limited = true;
		rp->alpha = p->initial_alpha_value;
		rp->alpha_frac = 0;
		rp->cnp_seen = false;
		rp->t_alpha = now + p->dce_tcp_rtt * NS_PER_US;
		rp->cut_once = false;
		if (p->rate_to_set_on_first_cnp) {
			uint64_t r = p->rate_to_set_on_first_cnp * KBPS_PER_MBPS;

			rp->rc = rp->rt = r < rp->line ? r : rp->line;
			rp->alpha = 0; /* the rate is set, not cut */
			cut(rp, p, now);
			rp->alpha = p->initial_alpha_value;
			return;
		}
	} else {
		rp->cnp_seen = true;
	}
	if (rp->cut_once && now - rp->t_cut < p->rate_reduce_monitor_period * NS_PER_US) {
		rp->cut_pending = true;
		return;
	}
	cut(rp, p, now);
}

/* One increase event (Figure 6): fast recovery while both stages are
   under F, hyper increase once both are past it, additive otherwise;
   then R_C halfway to R_T. Back within 1/1024 of line rate the flow is
   unlimited again (no pacing). */
static void increase(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, bool by_timer)
{
	uint32_t f = p->rpg_threshold;
	uint32_t hi = rp->time_stage > rp->byte_stage ? rp->time_stage : rp->byte_stage;
	uint32_t lo = rp->time_stage < rp->byte_stage ? rp->time_stage : rp->byte_stage;
	uint64_t top = max_rate(rp, p);

	if (hi < f)
		; /* fast recovery: towards the target as it is */
	else if (lo > f)
		rp->rt += (uint64_t)p->rpg_hai_rate * KBPS_PER_MBPS * (lo - f);
	else
		rp->rt += (uint64_t)p->rpg_ai_rate * KBPS_PER_MBPS;
	if (rp->rt > top)
		rp->rt = top;
	rp->rc = (rp->rt + rp->rc) / 2;
	rp->timer_inc = by_timer;
	rp->increases++;
	if (rp->rt >= rp->line && rp->rc >= rp->line - (rp->line >> 10)) {
		rp->rc = rp->rt = rp->line;
		rp->limited = false;
		rp->cut_pending = false;
	}
}

void dcqcn_sent(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint32_t bytes)
{
	uint64_t b = (uint64_t)p->rpg_byte_reset * 64;

	if (!rp->limited || !b)
		return;
	rp->bytes += bytes;
	if (rp->bytes >= b) {
		rp->bytes -= b;
		rp->byte_stage++;
		increase(rp, p, false);
	}
}

static uint64_t min_nz(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

uint64_t dcqcn_deadline(const struct dcqcn_rp *rp, const struct roce_dcqcn_params *p)
{
	if (!rp->limited)
		return 0;
	return min_nz(min_nz(rp->t_alpha, rp->t_inc),
		      rp->cut_pending ? rp->t_cut + p->rate_reduce_monitor_period * NS_PER_US : 0);
}

uint64_t dcqcn_next_change(const struct dcqcn_rp *rp, const struct roce_dcqcn_params *p)
{
	if (!rp->limited)
		return 0;
	return min_nz(rp->t_inc,
		      rp->cut_pending ? rp->t_cut + p->rate_reduce_monitor_period * NS_PER_US : 0);
}

uint64_t dcqcn_advance(struct dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t now)
{
	uint64_t k = p->dce_tcp_rtt * NS_PER_US, t = p->rpg_time_reset * NS_PER_US;
	uint64_t monitor = p->rate_reduce_monitor_period * NS_PER_US;
	unsigned n;

	if (!rp->limited)
		return 0;
	/* alpha: up if a CNP came in the period, down if not */
	for (n = 0; rp->t_alpha <= now && n < CATCH_UP_MAX; n++) {
		uint64_t a = (uint64_t)rp->alpha << ALPHA_FRAC_BITS | rp->alpha_frac;

		a = a * p->dce_tcp_g / 1024 +
		    (rp->cnp_seen ? (uint64_t)(1024 - p->dce_tcp_g) << ALPHA_FRAC_BITS : 0);
		rp->alpha = (uint32_t)(a >> ALPHA_FRAC_BITS);
		rp->alpha_frac = (uint32_t)(a & ((1u << ALPHA_FRAC_BITS) - 1));
		rp->cnp_seen = false;
		rp->t_alpha += k;
	}
	if (rp->t_alpha <= now)
		rp->t_alpha = now + k;
	if (rp->cut_pending && now >= rp->t_cut + monitor)
		cut(rp, p, now);
	for (n = 0; rp->limited && rp->t_inc <= now && n < CATCH_UP_MAX; n++) {
		rp->time_stage++;
		increase(rp, p, true);
		rp->t_inc += t;
	}
	if (rp->limited && rp->t_inc <= now)
		rp->t_inc = now + t;
	return dcqcn_deadline(rp, p);
}
