/* SPDX-License-Identifier: MIT */
/*
 * roce-srq-pingpong: ibv_srq_pingpong on this engine (rdma-core v44.0
 * libibverbs/examples/srq_pingpong.c). Same options, same out-of-band
 * exchange on TCP port 18515 (one line for each of 256 slots, roce/oob.h),
 * same output, so it runs against the original as client or as server:
 *
 *   roce-srq-pingpong --netdev eth1 -q 4 -s 4096 -n 1000            # server
 *   roce-srq-pingpong --netdev eth1 -q 4 -s 4096 -n 1000 10.0.0.1   # client
 *
 * -q RC QPs (default 16) share one SRQ of -r receives (default 500) and
 * one CQ; each QP plays ping-pong on its own: the client sends on every
 * QP, a QP sends again once its send and a receive have completed, until
 * -n sends and -n receives have completed in all (the original's loop:
 * its counts are totals, not per QP). -e sleeps on the completion channel.
 * -c: the client's buffer carries a pattern whose first byte of every
 * page is 0 (what the original writes); the server checks those bytes of
 * every message it receives, the client, getting its pattern back, every
 * byte. A failed check makes the exit status 1.
 *
 * -g N chooses our GID as roce-pingpong's -g does (perf_pp.h: 0 the
 * link-local IPv6 GID, 1 the IPv4 one, then the interface's IPv6 addresses
 * and --ip6's); every QP has that GID, the exchange carries it in each
 * slot, and the QPs talk RoCE v2 over IPv6 to the peer's IPv6 GID (its
 * first slot's, as srq_pingpong.c's pp_connect_ctx takes dest->gid for
 * all). Without -g our GID is the IPv4 one.
 *
 * --memlink-selftest runs a server and a client inside this process over
 * the in-memory link and a loopback TCP exchange.
 *
 * Exit status: 0 success, 1 failure, 2 bad command line.
 *
 * The program is the pingpong tools' skeleton (tools/pingpong/); this
 * file gives its kind (struct pp_kind: options, defaults and
 * help lines, the QPs on one SRQ and one CQ, the 256-slot exchange).
 */
#include "pingpong/pingpong.h"
#include "roce/status.h"

_Static_assert(PP_MAX_QP - 1 == 255, "the help's -q line says 255");

static uint8_t pattern(unsigned i, unsigned page)
{
	return i % page == 0 ? 0 : (uint8_t)(i * 13u ^ (i >> 8) ^ 0xa5u);
}

/* pp_init_ctx(): -q QPs, one send in flight each, the SRQ rx_depth
 * deep, one CQ of rx_depth + num_qp */
static int open_qps(struct pp *p, struct perf_ep_config *c, const struct perf_layout *l)
{
	int st;

	c->sq_depth = 1;
	c->rq_depth = 1;
	c->srq_depth = p->o.rx_depth;
	c->one_cq = p->o.rx_depth + p->o.num_qp;
	if ((st = perf_ep_open(&p->ep, c)) != ROCE_OK ||
	    (st = perf_ep_buffer(&p->ep, l->len, l->align, l->mr_access)) != ROCE_OK)
		return pp_fail(p, st, "%s", p->ep.err);
	for (unsigned i = 0; i < p->o.num_qp; i++)
		if ((st = perf_ep_init(&p->ep, i)) != ROCE_OK)
			return pp_fail(p, st, "Failed to modify QP[%u] to INIT: %s", i, p->ep.err);
	p->wc_max = c->one_cq;          /* its wc[num_qp + rx_depth] */
	return ROCE_OK;
}

/* one line for each of the 256 slots (roce/oob.h) */
static int exchange(struct pp *p)
{
	return roce_pp_exchange_srq(&p->oob, p->my, p->rem, p->o.num_qp, pp_connect, p);
}

static const struct pp_kind srq = {
	.prog = "roce-srq-pingpong", .orig = "srq", .qpt = ROCE_QPT_RC,
	.optstring = ":p:d:i:s:m:q:r:n:l:eog:ch", .qp_index = true,
	.size = 4096, .num_qp = 16,
	.help_size =
"  -s, --size=<size>      size of message to exchange (default 4096)\n"
"  -m, --mtu=<size>       path MTU (default 1024)\n",
	.help_qp =
"  -q, --num-qp=<num>     number of QPs to use (default 16, at most 255)\n",
	.help_iters = ", in all",
	.help_pre_chk =
"  -o, --odp              on-demand paging: not supported\n",
	.pattern = pattern, .open = open_qps, .exchange = exchange,
};

int main(int argc, char **argv)
{
	return pp_main(&srq, argc, argv);
}
