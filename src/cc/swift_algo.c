/* SPDX-License-Identifier: MIT */
/*
 * Swift behind the operations table (algo.h): the window arithmetic
 * (swift.c) in a QP's state; a window of one packet or more is the
 * grant's window at line rate, one below a packet is paced at cwnd * mtu
 * / rtt with one packet in flight. It takes an RTT on every ACK and the
 * retransmission timeouts; it needs no timer of its own and ignores CNPs
 * (on_cnp is NULL: the engine counts them as ignored), so it runs the
 * same whether or not the fabric marks ECN.
 */
#include "cc/algo.h"
#include "cc/swift.h"

_Static_assert(sizeof(struct swift_qp) <= sizeof(struct cc_algo_priv),
	       "Swift's state fits a QP's cc_algo_priv");

static void grant(const void *priv, const struct roce_cc_config *c, struct cc_grant *g)
{
	const struct swift_qp *s = priv;

	(void)c;        /* the knobs enter at the next event */
	*g = (struct cc_grant){
		.limited = swift_paced(s),
		.rate_kbps = swift_rate_kbps(s),
		.window = swift_window(s),
	};
}

static void init(void *priv, const struct roce_cc_config *c, uint32_t mtu, struct cc_grant *g)
{
	swift_init(priv, &c->swift, (uint64_t)c->line_mbps * 1000, mtu);
	grant(priv, c, g);
}

static void on_ack(void *priv, const struct roce_cc_config *c, uint64_t now,
		   const struct cc_ack *a, struct cc_grant *g)
{
	swift_ack(priv, &c->swift, now, a->rtt_ns, a->psns, a->hops);
	grant(priv, c, g);
}

static void on_loss(void *priv, const struct roce_cc_config *c, uint64_t now,
		    struct cc_grant *g)
{
	swift_timeout(priv, &c->swift, now);
	grant(priv, c, g);
}

static void report(const void *priv, struct roce_qp_cc *out)
{
	const struct swift_qp *s = priv;
	bool paced = swift_paced(s);

	*out = (struct roce_qp_cc){
		.algo = ROCE_CC_ALGO_SWIFT,
		.limited = paced,
		.rate_kbps = swift_rate_kbps(s),
		.cuts = s->cuts,
		.increases = s->increases,
		.cwnd_upkts = s->cwnd,
		.window = paced ? 0 : swift_window(s),
		.rtt_ns = s->rtt,
		.target_ns = s->target,
	};
}

const struct cc_algo_ops cc_swift_ops = {
	.name = "swift",
	.init = init,
	.on_ack = on_ack,
	.on_loss = on_loss,
	.grant = grant,
	.report = report,
};
