/* SPDX-License-Identifier: MIT */
/*
 * DCQCN behind the operations table (algo.h): the reaction point's
 * arithmetic (dcqcn.c) in a QP's state, its rate as the grant. Its timers
 * (alpha, rate increase) run lazily, when a CNP comes or a paced packet
 * goes or the rate's next change is due: nothing else reads the rate,
 * and the arithmetic gives the same result whenever it runs. It takes no
 * RTT and bounds no window: on_ack and on_loss are not needed.
 */
#include "cc/algo.h"
#include "cc/dcqcn.h"

_Static_assert(sizeof(struct dcqcn_rp) <= sizeof(struct cc_algo_priv),
	       "DCQCN's state fits a QP's cc_algo_priv");

static void grant(const void *priv, const struct roce_cc_config *c, struct cc_grant *g)
{
	const struct dcqcn_rp *rp = priv;

	*g = (struct cc_grant){
		.limited = rp->limited,
		.rate_kbps = dcqcn_rate(rp),
		.next = dcqcn_next_change(rp, &c->dcqcn),
	};
}

static void init(void *priv, const struct roce_cc_config *c, uint32_t mtu, struct cc_grant *g)
{
	(void)mtu;      /* a rate, not a window */
	dcqcn_init(priv, (uint64_t)c->line_mbps * 1000);
	grant(priv, c, g);
}

static void on_cnp(void *priv, const struct roce_cc_config *c, uint64_t now,
		   struct cc_grant *g)
{
	dcqcn_advance(priv, &c->dcqcn, now);    /* what was due before it */
	dcqcn_cnp(priv, &c->dcqcn, now);
	grant(priv, c, g);
}

static void on_sent(void *priv, const struct roce_cc_config *c, uint64_t now,
		    uint32_t bytes, struct cc_grant *g)
{
	dcqcn_sent(priv, &c->dcqcn, bytes);     /* the byte counter */
	dcqcn_advance(priv, &c->dcqcn, now);
	grant(priv, c, g);
}

static void on_timer(void *priv, const struct roce_cc_config *c, uint64_t now,
		     struct cc_grant *g)
{
	dcqcn_advance(priv, &c->dcqcn, now);
	grant(priv, c, g);
}

static void report(const void *priv, struct roce_qp_cc *out)
{
	const struct dcqcn_rp *rp = priv;

	*out = (struct roce_qp_cc){
		.algo = ROCE_CC_ALGO_DCQCN,
		.limited = rp->limited,
		.rate_kbps = dcqcn_rate(rp),
		.target_kbps = rp->rt,
		.alpha = rp->alpha,
		.cuts = rp->cuts,
		.increases = rp->increases,
	};
}

const struct cc_algo_ops cc_dcqcn_ops = {
	.name = "dcqcn",
	.init = init,
	.on_cnp = on_cnp,
	.on_sent = on_sent,
	.on_timer = on_timer,
	.grant = grant,
	.report = report,
};
