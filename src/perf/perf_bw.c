/* SPDX-License-Identifier: MIT */
/*
 * Bandwidth runs, as perftest_resources.c runs them (run_iter_bw,
 * run_iter_bw_server, ctx_set_recv_wqes): up to tx_depth messages in
 * flight per QP, a completion asked for every cq_mod-th message and the
 * last, local and remote addresses stepping one slot (a cache-line-rounded
 * message) per message through a cycle buffer. -D runs a warm-up margin,
 * the sampling window and a cool-down margin, counting only completions
 * inside the window. The engine runs from these loops.
 */
#include <inttypes.h>
#include <string.h>

#include "common/clock.h"
#include "perf/perf_run.h"
#include "roce/status.h"

static void wr_build(struct perf_run *r, unsigned q, uint64_t m, bool signaled,
		     struct roce_send_wr *wr, struct roce_sge *sge)
{
	const struct perf_opts *o = r->o;
	uint64_t off = (m % perf_slots(r)) * perf_slot(r);

	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)(perf_local(r, q) + off);
	sge->length = (uint32_t)r->size;
	sge->lkey = r->ep.mr->lkey;
	wr->wr_id = (uint64_t)q << 32 | (m & 0xFFFFFFFFu);
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = signaled ? ROCE_SEND_SIGNALED : 0;
	switch (o->verb) {
	case PERF_SEND:
		wr->opcode = ROCE_WR_SEND;
		if (o->conn == ROCE_QPT_UD) {
			/* ctx_set_send_reg_wqes: the AH, the peer's QPN,
			 * DEF_QKEY */
			wr->wr.ud.ah = r->ep.ah[q];
			wr->wr.ud.remote_qpn = r->rem[q].qpn;
			wr->wr.ud.remote_qkey = r->ep.ud_qkey;
		}
		return;
	case PERF_WRITE:
	case PERF_READ:
		wr->opcode = o->verb == PERF_WRITE ? ROCE_WR_RDMA_WRITE : ROCE_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = r->rem[q].vaddr + off;
		wr->wr.rdma.rkey = r->rem[q].rkey;
		return;
	case PERF_ATOMIC:
		wr->opcode = o->atomic == PERF_FETCH_AND_ADD ?
			     ROCE_WR_ATOMIC_FETCH_AND_ADD : ROCE_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.remote_addr = r->rem[q].vaddr + off;
		wr->wr.atomic.rkey = r->rem[q].rkey;
		wr->wr.atomic.compare_add = o->atomic == PERF_FETCH_AND_ADD ?
					    PERF_ATOMIC_ADD : 0;
		wr->wr.atomic.swap = 0;         /* ATOMIC_SWAP_VALUE */
		return;
	}
}

int perf_wc_error(struct perf_run *r, const struct roce_wc *wc, const char *side,
		  uint64_t a, uint64_t b)
{
	return perf_fail(r, ROCE_E_IO, "completion with error at %s: status %s (%d), "
			 "QP %u message %u (%" PRIu64 "/%" PRIu64 ")", side,
			 roce_wc_status_str(wc->status), (int)wc->status,
			 (unsigned)(wc->wr_id >> 32), (unsigned)wc->wr_id, a, b);
}

/* A READ's data, checked as it completes (--check). */
static int check_read(struct perf_run *r, uint64_t wr_id)
{
	unsigned q = (unsigned)(wr_id >> 32);
	uint64_t off = ((wr_id & 0xFFFFFFFFu) % perf_slots(r)) * perf_slot(r);
	int64_t bad = perf_verify_bw(perf_local(r, q) + off, q, off, r->size);

	if (bad >= 0)
		return perf_fail(r, ROCE_E_MISMATCH, "content check: READ %u of QP %u "
				 "differs at byte %" PRId64, (unsigned)wr_id, q, bad);
	return ROCE_OK;
}

bool perf_stalled(struct perf_run *r, uint64_t *last, uint64_t now,
		  uint64_t posted, uint64_t done)
{
	if (now - *last < (uint64_t)r->o->timeout_s * 1000000000ull)
		return false;
	perf_fail(r, ROCE_E_TIMEOUT, "no completion for %u s (%" PRIu64 " posted, %"
		  PRIu64 " completed)", r->o->timeout_s, posted, done);
	return true;
}

int perf_post_window(struct perf_run *r, uint64_t *scnt, const uint64_t *ccnt,
		     uint64_t *tot_s, bool open_ended)
{
	const struct perf_opts *o = r->o;
	unsigned cq_mod = o->check && o->verb == PERF_READ ? 1 : o->cq_mod;

	for (unsigned q = 0; q < r->ep.nqp; q++) {
		while ((open_ended || scnt[q] < o->iters) &&
		       scnt[q] - ccnt[q] + 1 <= o->tx_depth) {
			struct roce_send_wr wr, *bad;
			struct roce_sge sge;
			uint64_t m = scnt[q];
			bool sig = m % cq_mod == cq_mod - 1 ||
				   (!open_ended && m == o->iters - 1);
			int st;

			wr_build(r, q, m, sig, &wr, &sge);
			if (!o->no_peak)
				r->t_post[*tot_s] = roce_now_ns();
			if ((st = roce_post_send(r->ep.qp[q], &wr, &bad)) != ROCE_OK)
				return perf_fail(r, st, "couldn't post send: QP %u "
						 "scnt=%" PRIu64 ": %s", q, m,
						 roce_status_str(st));
			scnt[q]++;
			++*tot_s;
		}
	}
	return ROCE_OK;
}

int perf_bw_client(struct perf_run *r, struct perf_bw_result *res)
{
	const struct perf_opts *o = r->o;
	uint64_t *scnt = r->scnt, *ccnt = r->ccnt;
	uint64_t total = o->iters * r->ep.nqp, tot_s = 0, tot_c = 0;
	uint64_t start = roce_now_ns(), last = start;
	struct dur d;
	struct roce_wc wc[PERF_POLL_BATCH];
	bool dm = o->duration_mode;
	int st;

	memset(scnt, 0, r->ep.nqp * sizeof(*scnt));
	memset(ccnt, 0, r->ep.nqp * sizeof(*ccnt));
	dur_init(&d, o, start);
	r->iters_done = 0;
	while (dm ? dur_step(&d, r, roce_now_ns()) != DUR_END : tot_c < total) {
		int n;

		if ((!dm || d.st != DUR_END) &&
		    (st = perf_post_window(r, scnt, ccnt, &tot_s, dm)) != ROCE_OK)
			return st;
		perf_ep_progress(&r->ep);
		n = roce_poll_cq(r->ep.scq, PERF_POLL_BATCH, wc);
		if (n < 0)
			return perf_fail(r, n, "poll CQ failed: %s", roce_status_str(-n));
		for (int i = 0; i < n; i++) {
			unsigned q = (unsigned)(wc[i].wr_id >> 32);
			uint64_t m = wc[i].wr_id & 0xFFFFFFFFu, k;

			if (wc[i].status != ROCE_WC_SUCCESS)
				return perf_wc_error(r, &wc[i], "client", tot_s, tot_c);
			if (q >= r->ep.nqp || m + 1 <= (ccnt[q] & 0xFFFFFFFFu))
				continue;
			k = m + 1 - (ccnt[q] & 0xFFFFFFFFu);
			ccnt[q] += k;
			tot_c += k;
			if (!o->no_peak)
				r->t_done[(tot_c > total ? total : tot_c) - 1] = roce_now_ns();
			if (dm && d.st == DUR_SAMPLE)
				r->iters_done += k;
			if (o->check && o->verb == PERF_READ &&
			    (st = check_read(r, wc[i].wr_id)) != ROCE_OK)
				return st;
		}
		if (n > 0)
			last = roce_now_ns();
		else if (perf_stalled(r, &last, roce_now_ns(), tot_s, tot_c))
			return ROCE_E_TIMEOUT;
		else if ((st = perf_ep_idle(&r->ep)) != ROCE_OK)
			return perf_fail(r, st, "%s", r->ep.err);
	}
	r->posted = scnt[0];
	perf_bw_result_of(r, total, start, res);
	return ROCE_OK;
}

void perf_bw_result_of(struct perf_run *r, uint64_t total, uint64_t start,
		       struct perf_bw_result *res)
{
	const struct perf_opts *o = r->o;

	if (o->duration_mode) {
		perf_bw_compute(r->size, r->iters_done, &r->t_begin, &r->t_end, 1, false,
				o->report_fmt, res);
		return;
	}
	if (o->no_peak) {
		r->t_post[0] = start;
		r->t_done[0] = roce_now_ns();
	}
	perf_bw_compute(r->size, total, r->t_post, r->t_done, o->cq_mod, !o->no_peak,
			o->report_fmt, res);
}

/* ctx_set_recv_wqes(): rx_depth receives per QP, slot after slot. */
int perf_post_recvs(struct perf_run *r, uint64_t *posted, uint64_t count, unsigned q)
{
	bool cycle = r->o->tst == PERF_BW;

	for (uint64_t i = 0; i < count; i++) {
		uint64_t n = posted[q], off = cycle ? (n % perf_slots(r)) * perf_slot(r) : 0;
		struct roce_sge sge = { (uintptr_t)(perf_recv_region(r, q) + off),
					(uint32_t)(r->size + perf_grh(r)), r->ep.mr->lkey };
		struct roce_recv_wr wr = { .wr_id = (uint64_t)q << 32 | (n & 0xFFFFFFFFu),
					   .sg_list = &sge, .num_sge = 1 }, *bad;
		int st = roce_post_recv(r->ep.qp[q], &wr, &bad);

		if (st)
			return perf_fail(r, st, "couldn't post receive %" PRIu64 " on QP %u: %s",
					 n, q, roce_status_str(st));
		posted[q]++;
	}
	return ROCE_OK;
}

int perf_check_recv(struct perf_run *r, const struct roce_wc *wc)
{
	unsigned q = (unsigned)(wc->wr_id >> 32);
	uint64_t off = ((wc->wr_id & 0xFFFFFFFFu) % perf_slots(r)) * perf_slot(r);
	uint64_t len = r->size;
	int64_t bad;

	if (wc->byte_len != r->size + perf_grh(r))
		return perf_fail(r, ROCE_E_MISMATCH, "content check: message %u of QP %u "
				 "has %u bytes, not %" PRIu64, (unsigned)wc->wr_id, q,
				 wc->byte_len, r->size + perf_grh(r));
	/* UD: perftest's receive slots overlap by the GRH area (a slot's
	 * area is the previous slot's last 40 bytes when the message fills
	 * its slot), so only what no later datagram overwrites is checked */
	if (perf_grh(r) && perf_slots(r) > 1 && len + perf_grh(r) > perf_slot(r))
		len = perf_slot(r) - perf_grh(r);
	bad = perf_verify_bw(perf_recv_region(r, q) + off + perf_grh(r), q, off, len);
	if (bad >= 0)
		return perf_fail(r, ROCE_E_MISMATCH, "content check: message %u of QP %u "
				 "differs at byte %" PRId64, (unsigned)wc->wr_id, q, bad);
	return ROCE_OK;
}

/* run_iter_bw_server(): receive iters messages per QP (the receives were
 * posted before the sync), reposting while more are due. */
int perf_bw_server(struct perf_run *r, struct perf_bw_result *res)
{
	const struct perf_opts *o = r->o;
	uint64_t total = o->iters * r->ep.nqp, rcnt = 0, first = 0, last;
	struct roce_wc wc[PERF_POLL_BATCH];
	struct dur d = { .st = DUR_START };
	bool dm = o->duration_mode, started = false;
	int st;

	r->iters_done = 0;
	last = roce_now_ns();
	while (dm ? !started || dur_step(&d, r, roce_now_ns()) != DUR_END : rcnt < total) {
		int n;

		perf_ep_progress(&r->ep);
		n = roce_poll_cq(r->ep.rcq, PERF_POLL_BATCH, wc);
		if (n < 0)
			return perf_fail(r, n, "poll CQ failed: %s", roce_status_str(-n));
		for (int i = 0; i < n; i++) {
			unsigned q = (unsigned)(wc[i].wr_id >> 32);

			if (wc[i].status != ROCE_WC_SUCCESS)
				return perf_wc_error(r, &wc[i], "server", rcnt, rcnt);
			if (!started) {         /* set_on_first_rx_packet() */
				started = true;
				first = roce_now_ns();
				dur_init(&d, o, first);
			}
			rcnt++;
			if (dm && d.st == DUR_SAMPLE)
				r->iters_done++;
			if (o->check && (st = perf_check_recv(r, &wc[i])) != ROCE_OK)
				return st;
			if (q < r->ep.nqp && (dm || r->rposted[q] + 1 <= o->iters) &&
			    (st = perf_post_recvs(r, r->rposted, 1, q)) != ROCE_OK)
				return st;
		}
		if (n > 0)
			last = roce_now_ns();
		else if (perf_stalled(r, &last, roce_now_ns(), total, rcnt))
			return ROCE_E_TIMEOUT;
		else if ((st = perf_ep_idle(&r->ep)) != ROCE_OK)
			return perf_fail(r, st, "%s", r->ep.err);
	}
	if (dm) {
		perf_bw_compute(r->size, r->iters_done, &r->t_begin, &r->t_end, 1, false,
				o->report_fmt, res);
		return ROCE_OK;
	}
	r->t_post[0] = first;
	r->t_done[0] = roce_now_ns();
	perf_bw_compute(r->size, total, r->t_post, r->t_done, o->cq_mod, false,
			o->report_fmt, res);
	return ROCE_OK;
}

/* write_bw/atomic_bw --check on the server, once the client is done: each
 * slot the client wrote holds the pattern (write), or the sum of the adds
 * that hit it (fetch-and-add; compare-and-swap with 0/0 leaves 0). */
int perf_check_region(struct perf_run *r, uint64_t total_iters)
{
	uint64_t slots = perf_slots(r), inc = perf_slot(r);
	uint64_t iters = total_iters / r->ep.nqp;
	uint64_t used = iters < slots ? iters : slots;

	for (unsigned q = 0; q < r->ep.nqp; q++) {
		uint8_t *reg = perf_remote_region(r, q);

		for (uint64_t s = 0; s < used; s++) {
			uint64_t off = s * inc, want, got;
			int64_t bad;

			if (r->o->verb == PERF_WRITE) {
				bad = perf_verify_bw(reg + off, q, off, r->size);
				if (bad >= 0)
					return perf_fail(r, ROCE_E_MISMATCH, "content check: "
							 "QP %u slot %" PRIu64 " differs at byte "
							 "%" PRId64, q, s, bad);
				continue;
			}
			want = r->o->atomic == PERF_FETCH_AND_ADD ?
			       (iters / slots + (s < iters % slots)) * PERF_ATOMIC_ADD : 0;
			memcpy(&got, reg + off, sizeof(got));
			if (got != want)
				return perf_fail(r, ROCE_E_MISMATCH, "content check: QP %u "
						 "slot %" PRIu64 " holds %" PRIu64 ", expected %"
						 PRIu64, q, s, got, want);
		}
	}
	return ROCE_OK;
}
