/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "lib/pair.h"
#include "lib/util.h"
#include "roce/counters.h"
#include "roce/status.h"

void pair_open_ports(struct pair *p, struct roce_port *pa, struct roce_port *pb,
		     enum roce_mtu mtu, unsigned nqp)
{
	struct pair_opts o = {
		.ports = { pa, pb },
		.buf_len = 3u * BENCH_BUF_WIN,
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			  ROCE_ACCESS_REMOTE_READ,
		.nqp = nqp,
		.cq_depth = BENCH_CQ_DEPTH,
		.sq_depth = BENCH_SQ_DEPTH,
		.rq_depth = BENCH_RQ_DEPTH,
		.max_sge = 1,
		.mtu = mtu,
		.psn = { 0x100000u, 0x200000u },
		/* ~0.5 s (perftest's 14 is 67 ms): the kernel's RT throttling
		 * (--rt) or a loaded machine may stop an engine thread for
		 * 50 ms and more while thousands of frames wait in a paused
		 * link; a spurious timeout would measure the retry path
		 * instead of the data path */
		.timeout = 17,
		/* the in-memory link, when pa and pb are NULL: a RoCE fabric
		 * is lossless (PFC), a full receive ring pauses the sender
		 * instead of dropping, so perftest's depth never overruns a
		 * responder that lost its core for a moment */
		.link = { .lossless = true },
	};

	if (pair_setup(p, &o) != ROCE_OK)
		bench_die("%s", p->err);
}

void pair_open_memlink(struct pair *p, enum roce_mtu mtu, unsigned nqp)
{
	pair_open_ports(p, NULL, NULL, mtu, nqp);
}

void pair_b_thread(struct pair *p, int cpu)
{
	pair_stop(&p->b);
	if (cpu >= 0) {
		int rc = pair_start(&p->b, cpu);

		if (rc != ROCE_OK)
			bench_die("engine thread: %s", roce_status_str(rc));
	}
}

uint64_t pair_retransmissions(const struct pair *p)
{
	return pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) +
	       pair_cnt(&p->b, ROCE_CNT_RETRANSMISSIONS);
}

void pair_counts(const struct pair *p, struct pair_counts *c)
{
	const struct pair_side *s[2] = { &p->a, &p->b };

	memset(c, 0, sizeof(*c));
	c->a_tx = pair_cnt(&p->a, ROCE_CNT_TX_PKTS);
	c->b_tx = pair_cnt(&p->b, ROCE_CNT_TX_PKTS);
	for (int i = 0; i < 2; i++) {
		c->retx += pair_cnt(s[i], ROCE_CNT_RETRANSMISSIONS);
		c->timeouts += pair_cnt(s[i], ROCE_CNT_TIMEOUTS);
		c->naks += pair_cnt(s[i], ROCE_CNT_NAKS_RX_PSN_SEQ_ERR) +
			   pair_cnt(s[i], ROCE_CNT_NAKS_RX_RNR);
	}
	if (p->link) {
		struct roce_memlink_stats st;

		roce_memlink_get_stats(p->link, &st);
		c->link_drops = st.ring_full;
		c->link_paused = st.paused;
	}
}
