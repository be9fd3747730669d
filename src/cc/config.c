/* SPDX-License-Identifier: MIT */
/*
 * A congestion-control config (roce/cc.h): its defaults and its checks.
 * The control plane's: the register file takes a CC block through it
 * (src/regs), the driver, the tools and the engine's reset state start
 * from it. It calls nothing of the engine or the register file.
 */
#include <string.h>

#include "cc/dcqcn.h"
#include "cc/swift.h"

/*
 * Loss recovery is on by default (docs/cc.md, "Defaults"): nothing of it
 * reaches the wire but when and how much is resent, so IBA's protocol is
 * unchanged where a peer can see it, and without it one loss costs
 * everything in flight. ECN stays off: it needs the fabric's marking.
 * rtt_us 16: a data centre's base round trip at 100 Gbit/s (two NICs,
 * a few switch hops: 5-20 us), until the QP has measured its own.
 */
void roce_cc_config_default(struct roce_cc_config *c)
{
	*c = (struct roce_cc_config){ .ecn = 2, .line_mbps = 100000, .rto_min_us = 100,
				      .adaptive_rto = true, .adaptive_window = true,
				      .rtt_us = 16 };
	dcqcn_params_mlx5(&c->dcqcn);
	swift_params_default(&c->swift);
}

void roce_cc_config_iba_strict(struct roce_cc_config *c)
{
	c->adaptive_rto = false;
	c->adaptive_window = false;
	c->window_kb = 0;
}

void roce_cc_dcqcn_paper(struct roce_cc_config *c)
{
	dcqcn_params_paper(&c->dcqcn);
}

static const char *const algo_names[ROCE_CC_ALGO_COUNT] = {
	[ROCE_CC_ALGO_DCQCN] = "dcqcn",
	[ROCE_CC_ALGO_SWIFT] = "swift",
};

const char *roce_cc_algo_name(unsigned algo)
{
	return algo < ROCE_CC_ALGO_COUNT ? algo_names[algo] : NULL;
}

int roce_cc_algo_by_name(const char *name)
{
	for (unsigned i = 0; name && i < ROCE_CC_ALGO_COUNT; i++)
		if (!strcmp(name, algo_names[i]))
			return (int)i;
	return -1;
}

const char *roce_cc_config_check(const struct roce_cc_config *c)
{
	if (!c)
		return "config";
	if (c->ecn != 1 && c->ecn != 2)
		return "ecn";
	if (!c->line_mbps || c->line_mbps > 1600000)
		return "line_mbps";
	if (c->window_kb > (1u << 20))
		return "window_kb";
	if (c->algo >= ROCE_CC_ALGO_COUNT)
		return "algo";
	if (c->adaptive_rto && (!c->rto_min_us || c->rto_min_us > 10000000))
		return "rto_min_us";
	if (c->adaptive_window && (!c->rtt_us || c->rtt_us > 10000000))
		return "rtt_us";
	if (dcqcn_params_check(&c->dcqcn))
		return dcqcn_params_check(&c->dcqcn);
	return swift_params_check(&c->swift);
}
