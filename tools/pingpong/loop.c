/* SPDX-License-Identifier: MIT */
/*
 * The pingpong tools' timed part, the originals' main loop: poll, and for
 * every completion parse_single_wc()'s steps (count it, refill the
 * receives, check the data, send again on a QP whose send and receive
 * have both completed), until -n sends and -n receives have completed in
 * all; then the two result lines (and -t's). Every QP plays on its own:
 * with ibv_srq_pingpong's -q the counts are totals, not per QP.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "common/clock.h"
#include "pingpong/pingpong.h"
#include "roce/status.h"

/* pp_post_recv(): n receives into the buffer, on the SRQ when the QPs
 * share one; UD's take the GRH area, then the message (ud_pingpong.c) */
unsigned pp_post_recv(struct pp *p, unsigned n)
{
	struct roce_sge sge = { (uintptr_t)p->ep.buf, p->o.size + p->off, p->ep.mr->lkey };
	struct roce_recv_wr wr = { .wr_id = PP_RECV_WRID, .sg_list = &sge, .num_sge = 1 };
	struct roce_recv_wr *badwr;
	unsigned i;

	for (i = 0; i < n; i++)
		if ((p->ep.srq ? roce_post_srq_recv(p->ep.srq, &wr, &badwr) :
				 roce_post_recv(p->ep.qp[0], &wr, &badwr)) != ROCE_OK)
			break;
	return i;
}

/* pp_post_send(): the message on QP q; UD's to the peer's QP through
 * its address handle */
int pp_post_send(struct pp *p, unsigned q)
{
	struct roce_sge sge = { (uintptr_t)p->ep.buf + p->off, p->o.size, p->ep.mr->lkey };
	struct roce_send_wr wr = { .wr_id = PP_SEND_WRID, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *badwr;
	int st;

	if (p->o.kind->qpt == ROCE_QPT_UD) {
		wr.wr.ud.ah = p->ep.ah[q];
		wr.wr.ud.remote_qpn = p->ep.ud_qpn[q];
		wr.wr.ud.remote_qkey = PERF_UD_QKEY;
	}
	st = roce_post_send(p->ep.qp[q], &wr, &badwr);

	return st ? pp_fail(p, st, "Couldn't post send: %s", roce_status_str(st)) : ROCE_OK;
}

/* -c: the server checks the first byte of every page (what the originals
 * check), the client, getting its own pattern back, every byte */
static int check(struct pp *p)
{
	const uint8_t *m = p->ep.buf + p->off;
	bool client = p->o.server != NULL;

	for (unsigned i = 0; i < p->o.size; i++) {
		if ((client || i % p->page == 0) && m[i] != p->o.kind->pattern(i, p->page)) {
			fprintf(p->out, "invalid data in page %u\n", i / p->page);
			return pp_fail(p, ROCE_E_MISMATCH, "content check: byte %u (page %u) "
				       "is 0x%02x, expected 0x%02x", i, i / p->page,
				       m[i], p->o.kind->pattern(i, p->page));
		}
	}
	return ROCE_OK;
}

static int find_qp(const struct pp *p, uint32_t qpn)
{
	for (unsigned i = 0; i < p->o.num_qp; i++)
		if (p->my[i].qpn == qpn)
			return (int)i;
	return -1;
}

/* -t: the time between receive completions (ns: no HCA clock here) */
static void ts_note(struct pp *p)
{
	uint64_t t = roce_now_ns();

	if (p->ts_prev) {
		uint64_t d = t - p->ts_prev;

		p->ts_max = d > p->ts_max ? d : p->ts_max;
		p->ts_min = !p->ts_n || d < p->ts_min ? d : p->ts_min;
		p->ts_sum += d;
		p->ts_n++;
	}
	p->ts_prev = t;
}

/* parse_single_wc(), and srq_pingpong's loop body */
static int one_wc(struct pp *p, const struct roce_wc *wc, unsigned *scnt, unsigned *rcnt)
{
	int q;

	if (wc->status != ROCE_WC_SUCCESS)
		return pp_fail(p, ROCE_E_IO, "Failed status %s (%d) for wr_id %d",
			       roce_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
	q = find_qp(p, wc->qp_num);
	if (q < 0)
		return pp_fail(p, ROCE_E_IO, "Couldn't find QPN %06x", wc->qp_num);
	if (wc->wr_id == PP_SEND_WRID) {
		++*scnt;
	} else if (wc->wr_id == PP_RECV_WRID) {
		/* refilled while every QP still has a receive to take */
		if (--p->routs <= p->o.num_qp) {
			p->routs += pp_post_recv(p, p->o.rx_depth - p->routs);
			if (p->routs < p->o.rx_depth)
				return pp_fail(p, ROCE_E_FULL, "Couldn't post receive (%u)", p->routs);
		}
		++*rcnt;
		if (p->o.ts)
			ts_note(p);
		if (p->o.chk && check(p) != ROCE_OK)
			return ROCE_E_MISMATCH;
	} else {
		return pp_fail(p, ROCE_E_IO, "Completion for unknown wr_id %d", (int)wc->wr_id);
	}
	p->pending[q] &= ~(unsigned)wc->wr_id;
	if (*scnt < p->o.iters && !p->pending[q]) {
		if (pp_post_send(p, (unsigned)q) != ROCE_OK)
			return ROCE_E_IO;
		p->pending[q] = PP_RECV_WRID | PP_SEND_WRID;
	}
	return ROCE_OK;
}

/* Up to p->wc_max completions: the send CQ's, then the receive CQ's when
 * that is another one (n is how many; a negative status) */
static int poll_cqs(struct pp *p, struct roce_wc *wc)
{
	int n = roce_poll_cq(p->ep.scq, (int)p->wc_max, wc), k;

	if (n < 0 || p->ep.rcq == p->ep.scq)
		return n;
	k = roce_poll_cq(p->ep.rcq, (int)p->wc_max - n, wc + n);
	return k < 0 ? k : n + k;
}

int pp_loop(struct pp *p)
{
	unsigned scnt = 0, rcnt = 0;
	uint64_t last = roce_now_ns(), limit = (uint64_t)p->o.net.timeout_s * 1000000000ull;
	struct roce_wc *wc = calloc(p->wc_max, sizeof(*wc));
	int st = ROCE_OK;

	if (!wc)
		return pp_fail(p, ROCE_E_NOMEM, "%u work completions: out of memory", p->wc_max);
	while (st == ROCE_OK && (rcnt < p->o.iters || scnt < p->o.iters)) {
		int n;

		/* -e: the loop starts with an event (ibv_get_cq_event, then
		 * the CQ armed again), the poll follows; perf_ep_idle waits
		 * for one within a bounded slice */
		if (p->o.events && (st = perf_ep_idle(&p->ep)) != ROCE_OK) {
			pp_fail(p, st, "%s", p->ep.err);
			break;
		}
		perf_ep_progress(&p->ep);
		n = poll_cqs(p, wc);
		if (n < 0) {
			st = pp_fail(p, n, "poll CQ failed %d", n);
			break;
		}
		for (int i = 0; i < n && st == ROCE_OK; i++)
			st = one_wc(p, &wc[i], &scnt, &rcnt);
		if (n)
			last = roce_now_ns();
		else if (roce_now_ns() - last > limit)
			st = pp_fail(p, ROCE_E_TIMEOUT, "no completion for %u s (%u sent, %u "
				     "received)", p->o.net.timeout_s, scnt, rcnt);
	}
	free(wc);
	return st;
}

void pp_results(struct pp *p, uint64_t ns)
{
	float usec = (float)(ns / 1000);
	long long bytes = (long long)p->o.size * p->o.iters * 2;

	fprintf(p->out, "%lld bytes in %.2f seconds = %.2f Mbit/sec\n",
		bytes, usec / 1000000., bytes * 8. / usec);
	fprintf(p->out, "%u iters in %.2f seconds = %.2f usec/iter\n",
		p->o.iters, usec / 1000000., usec / p->o.iters);
	if (p->o.ts && p->ts_n) {
		fprintf(p->out, "Max receive completion clock cycles = %" PRIu64 "\n", p->ts_max);
		fprintf(p->out, "Min receive completion clock cycles = %" PRIu64 "\n", p->ts_min);
		fprintf(p->out, "Average receive completion clock cycles = %f\n",
			(double)p->ts_sum / (double)p->ts_n);
	}
}
