/* SPDX-License-Identifier: MIT */
/*
 * send_bw -b: both sides send and receive in one loop, as perftest's
 * run_iter_bi() (perftest_resources.c) does it. Each side posts its SENDs
 * within the tx_depth window, reposts a receive for each one consumed while
 * more messages are due, and is done when all its SENDs completed and all
 * the peer's arrived. The server sends nothing before the client's first
 * message has arrived ("before_first_rx": the server must not start before
 * the client does); with -D the client starts its clock at once and the
 * server at that first message, and the window counts both the SENDs that
 * complete and the messages that arrive in it.
 *
 * Peak timing counts SEND completions only (tposted/tcompleted); without a
 * peak the time runs from the start to the end of the loop, receives
 * included. The receives were posted before the sync (ctx_set_recv_wqes).
 */
#include <inttypes.h>
#include <string.h>

#include "common/clock.h"
#include "perf/perf_run.h"
#include "roce/status.h"

struct bi {
	uint64_t *scnt, *ccnt;          /* the session's, per QP */
	uint64_t tot_s, tot_c, tot_r;
	bool sending;                   /* !before_first_rx */
	bool clock;                     /* -D: the duration's clock runs */
	struct dur d;
};

static int on_recvs(struct perf_run *r, struct bi *b, const struct roce_wc *wc, int n)
{
	const struct perf_opts *o = r->o;
	int st;

	for (int i = 0; i < n; i++) {
		unsigned q = (unsigned)(wc[i].wr_id >> 32);

		if (wc[i].status != ROCE_WC_SUCCESS)
			return perf_wc_error(r, &wc[i], "receive", b->tot_r, b->tot_r);
		if (!b->sending) {
			b->sending = true;
			if (o->duration_mode) {
				dur_init(&b->d, o, roce_now_ns());
				b->clock = true;
			}
		}
		b->tot_r++;
		if (o->duration_mode && b->d.st == DUR_SAMPLE)
			r->iters_done++;
		if (o->check && (st = perf_check_recv(r, &wc[i])) != ROCE_OK)
			return st;
		if (q < r->ep.nqp && (o->duration_mode || r->rposted[q] + 1 <= o->iters) &&
		    (st = perf_post_recvs(r, r->rposted, 1, q)) != ROCE_OK)
			return st;
	}
	return ROCE_OK;
}

static int on_sends(struct perf_run *r, struct bi *b, const struct roce_wc *wc, int n,
		    uint64_t total)
{
	const struct perf_opts *o = r->o;

	for (int i = 0; i < n; i++) {
		unsigned q = (unsigned)(wc[i].wr_id >> 32);
		uint64_t m = wc[i].wr_id & 0xFFFFFFFFu, k;

		if (wc[i].status != ROCE_WC_SUCCESS)
			return perf_wc_error(r, &wc[i], "send", b->tot_s, b->tot_c);
		/* a completion covers its message and the unsignaled ones
		 * before it on that QP */
		if (q >= r->ep.nqp || m + 1 <= (b->ccnt[q] & 0xFFFFFFFFu))
			continue;
		k = m + 1 - (b->ccnt[q] & 0xFFFFFFFFu);
		b->ccnt[q] += k;
		b->tot_c += k;
		if (!o->no_peak)
			r->t_done[(b->tot_c > total ? total : b->tot_c) - 1] = roce_now_ns();
		if (o->duration_mode && b->d.st == DUR_SAMPLE)
			r->iters_done += k;
	}
	return ROCE_OK;
}

static bool more(struct perf_run *r, struct bi *b, uint64_t total)
{
	if (r->o->duration_mode)
		return !b->clock || dur_step(&b->d, r, roce_now_ns()) != DUR_END;
	return b->tot_c < total || b->tot_r < total;
}

int perf_bw_bi(struct perf_run *r, struct perf_bw_result *res)
{
	const struct perf_opts *o = r->o;
	uint64_t total = o->iters * r->ep.nqp;
	uint64_t start = roce_now_ns(), last = start;
	struct roce_wc wc[PERF_POLL_BATCH];
	struct bi b = { .scnt = r->scnt, .ccnt = r->ccnt, .sending = o->server != NULL,
			.d = { .st = DUR_START } };
	int st;

	memset(b.scnt, 0, r->ep.nqp * sizeof(*b.scnt));
	memset(b.ccnt, 0, r->ep.nqp * sizeof(*b.ccnt));
	r->iters_done = 0;
	if (b.sending && o->duration_mode) {
		dur_init(&b.d, o, start);
		b.clock = true;
	}
	while (more(r, &b, total)) {
		int nr, ns;

		if (b.sending && (!o->duration_mode || b.d.st != DUR_END) &&
		    (st = perf_post_window(r, b.scnt, b.ccnt, &b.tot_s, o->duration_mode)))
			return st;
		perf_ep_progress(&r->ep);
		nr = roce_poll_cq(r->ep.rcq, PERF_POLL_BATCH, wc);
		if (nr < 0)
			return perf_fail(r, nr, "poll CQ failed: %s", roce_status_str(-nr));
		if ((st = on_recvs(r, &b, wc, nr)) != ROCE_OK)
			return st;
		ns = roce_poll_cq(r->ep.scq, PERF_POLL_BATCH, wc);
		if (ns < 0)
			return perf_fail(r, ns, "poll CQ failed: %s", roce_status_str(-ns));
		if ((st = on_sends(r, &b, wc, ns, total)) != ROCE_OK)
			return st;
		if (nr > 0 || ns > 0)
			last = roce_now_ns();
		else if (perf_stalled(r, &last, roce_now_ns(), b.tot_s, b.tot_c + b.tot_r))
			return ROCE_E_TIMEOUT;
		else if ((st = perf_ep_idle(&r->ep)) != ROCE_OK)
			return perf_fail(r, st, "%s", r->ep.err);
	}
	r->posted = b.scnt[0];
	perf_bw_result_of(r, total, start, res);
	return ROCE_OK;
}
