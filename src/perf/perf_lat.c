/* SPDX-License-Identifier: MIT */
/*
 * Latency runs, as perftest_resources.c runs them:
 *  - write_lat (run_iter_lat_write): both sides in lock step; each writes
 *    its message to the peer with the iteration number (mod 256) in the
 *    last byte, and waits for the peer's write of that number to land in
 *    its own buffer. The server writes first.
 *  - read_lat (run_iter_lat): the client READs, one at a time.
 *  - send_lat (run_iter_lat_send): SEND ping-pong; the client sends first.
 * The latency is the time between consecutive posts (half of it for the
 * ping-pong tests). Every wait is bounded by --timeout.
 */
#include <inttypes.h>
#include <string.h>

#include "common/clock.h"
#include "perf/perf_run.h"
#include "roce/status.h"

static uint64_t timeout_ns(const struct perf_run *r)
{
	return (uint64_t)r->o->timeout_s * 1000000000ull;
}

/* One completion from cq, or a failure; *end_early when -D ran out. */
static int wait_wc(struct perf_run *r, struct roce_cq *cq, struct roce_wc *wc,
		   const char *what, struct dur *d)
{
	uint64_t t0 = roce_now_ns();

	for (unsigned spin = 0;; spin++) {
		int n;

		perf_ep_progress(&r->ep);
		n = roce_poll_cq(cq, 1, wc);
		if (n < 0)
			return perf_fail(r, n, "poll CQ failed: %s", roce_status_str(-n));
		if (n == 1) {
			if (wc->status != ROCE_WC_SUCCESS)
				return perf_fail(r, ROCE_E_IO, "completion with error (%s): "
						 "status %s (%d)", what,
						 roce_wc_status_str(wc->status), (int)wc->status);
			return ROCE_OK;
		}
		if ((spin & 255) == 0 || r->ep.channel) {
			uint64_t now = roce_now_ns();
			int st;

			if (d && dur_step(d, r, now) == DUR_END)
				return ROCE_E_AGAIN;
			if (now - t0 > timeout_ns(r))
				return perf_fail(r, ROCE_E_TIMEOUT, "no %s completion for "
						 "%u s", what, r->o->timeout_s);
			if ((st = perf_ep_idle(&r->ep)) != ROCE_OK)
				return perf_fail(r, st, "%s", r->ep.err);
		}
	}
}

static int post(struct perf_run *r, enum roce_wr_opcode op, bool signaled)
{
	struct roce_sge sge = { (uintptr_t)perf_local(r, 0), (uint32_t)r->size,
				r->ep.mr->lkey };
	struct roce_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op,
				   .send_flags = signaled ? ROCE_SEND_SIGNALED : 0 }, *bad;
	int st;

	if (r->o->conn == ROCE_QPT_UD) {
		wr.wr.ud.ah = r->ep.ah[0];
		wr.wr.ud.remote_qpn = r->rem[0].qpn;
		wr.wr.ud.remote_qkey = r->ep.ud_qkey;
	} else {
		wr.wr.rdma.remote_addr = r->rem[0].vaddr;
		wr.wr.rdma.rkey = r->rem[0].rkey;
	}
	st = roce_post_send(r->ep.qp[0], &wr, &bad);
	return st ? perf_fail(r, st, "couldn't post send: %s", roce_status_str(st)) : ROCE_OK;
}

/* The peer's write number n has landed in our buffer. */
static int wait_byte(struct perf_run *r, volatile uint8_t *p, uint8_t n, struct dur *d)
{
	uint64_t t0 = roce_now_ns();

	for (unsigned spin = 0; __atomic_load_n(p, __ATOMIC_ACQUIRE) != n; spin++) {
		perf_ep_progress(&r->ep);
		if ((spin & 255) == 0) {
			uint64_t now = roce_now_ns();

			if (d && dur_step(d, r, now) == DUR_END)
				return ROCE_E_AGAIN;
			if (now - t0 > timeout_ns(r))
				return perf_fail(r, ROCE_E_TIMEOUT, "the peer's write %u did "
						 "not arrive within %u s", n, r->o->timeout_s);
		}
	}
	return ROCE_OK;
}

static int check_lat(struct perf_run *r, const uint8_t *p, uint64_t iter, uint64_t len)
{
	int64_t bad = perf_verify_lat(p, iter, len);

	if (bad >= 0)
		return perf_fail(r, ROCE_E_MISMATCH, "content check: message %" PRIu64
				 " differs at byte %" PRId64, iter, bad);
	return ROCE_OK;
}

static int write_lat(struct perf_run *r, struct dur *d)
{
	const struct perf_opts *o = r->o;
	uint8_t *post_buf = perf_local(r, 0) + r->size - 1;
	uint8_t *mine = perf_remote_region(r, 0);
	uint64_t scnt = 0, rcnt = 0, iters = o->iters;
	bool server = !o->server;
	struct roce_wc wc;
	int st;

	while (d ? d->st != DUR_END : scnt < iters || rcnt < iters) {
		if ((d || rcnt < iters) && !(scnt < 1 && server)) {
			rcnt++;
			if ((st = wait_byte(r, mine + r->size - 1, (uint8_t)rcnt, d)) != ROCE_OK)
				return st;
			if (o->check && (st = check_lat(r, mine, rcnt, r->size - 1)) != ROCE_OK)
				return st;
		}
		if (d || scnt < iters) {
			if (!d)
				r->t_post[scnt] = roce_now_ns();
			if (o->check)
				perf_fill_lat(perf_local(r, 0), scnt + 1, r->size - 1);
			*post_buf = (uint8_t)++scnt;
			if ((st = post(r, ROCE_WR_RDMA_WRITE, true)) != ROCE_OK)
				return st;
			if ((st = wait_wc(r, r->ep.scq, &wc, "WRITE", d)) != ROCE_OK)
				return st;
			if (d && d->st == DUR_SAMPLE)
				r->iters_done++;
		}
	}
	return ROCE_OK;
}

static int read_lat(struct perf_run *r, struct dur *d)
{
	const struct perf_opts *o = r->o;
	struct roce_wc wc;
	int st;

	for (uint64_t scnt = 0; d ? d->st != DUR_END : scnt < o->iters; scnt++) {
		if (!d)
			r->t_post[scnt] = roce_now_ns();
		if ((st = post(r, ROCE_WR_RDMA_READ, true)) != ROCE_OK ||
		    (st = wait_wc(r, r->ep.scq, &wc, "READ", d)) != ROCE_OK)
			return st;
		if (d && d->st == DUR_SAMPLE)
			r->iters_done++;
		if (o->check && perf_verify_bw(perf_local(r, 0), 0, 0, r->size) >= 0)
			return perf_fail(r, ROCE_E_MISMATCH, "content check: READ %" PRIu64
					 " differs from the server's pattern", scnt);
	}
	return ROCE_OK;
}

static int send_lat(struct perf_run *r, struct dur *d)
{
	const struct perf_opts *o = r->o;
	uint64_t scnt = 0, rcnt = 0, iters = o->iters;
	bool client = o->server != NULL;
	struct roce_wc wc;
	int st;

	while (d ? d->st != DUR_END : scnt < iters || rcnt < iters) {
		if ((d || rcnt < iters) && !(scnt < 1 && client)) {
			if ((st = wait_wc(r, r->ep.rcq, &wc, "receive", d)) != ROCE_OK)
				return st;
			rcnt++;
			if (d && d->st == DUR_SAMPLE)
				r->iters_done++;
			if (o->check && wc.byte_len != r->size + perf_grh(r))
				return perf_fail(r, ROCE_E_MISMATCH, "content check: message "
						 "%" PRIu64 " has %u bytes", rcnt, wc.byte_len);
			if (o->check && (st = check_lat(r, perf_recv_region(r, 0) + perf_grh(r),
							 rcnt, r->size)) != ROCE_OK)
				return st;
			if ((d || rcnt + o->rx_depth <= iters) &&
			    (st = perf_post_recvs(r, r->rposted, 1, 0)) != ROCE_OK)
				return st;
		}
		if (d || scnt < iters) {
			if (!d)
				r->t_post[scnt] = roce_now_ns();
			scnt++;
			if (o->check)
				perf_fill_lat(perf_local(r, 0), scnt, r->size);
			if ((st = post(r, ROCE_WR_SEND, true)) != ROCE_OK ||
			    (st = wait_wc(r, r->ep.scq, &wc, "SEND", d)) != ROCE_OK)
				return st;
		}
	}
	return ROCE_OK;
}

int perf_lat_run(struct perf_run *r, struct perf_lat_result *res, double *tps)
{
	const struct perf_opts *o = r->o;
	unsigned rtt = o->verb == PERF_READ || o->verb == PERF_ATOMIC ? 1 : 2;
	struct dur dd, *d = o->duration_mode ? &dd : NULL;
	int st;

	r->iters_done = 0;
	if (d)
		dur_init(d, o, roce_now_ns());
	st = o->verb == PERF_WRITE ? write_lat(r, d) :
	     o->verb == PERF_READ ? read_lat(r, d) : send_lat(r, d);
	if (st == ROCE_E_AGAIN && d)
		st = ROCE_OK;           /* the duration ran out while waiting */
	if (st)
		return st;
	if (d) {
		double us = (double)(r->t_end - r->t_begin) / 1000.0;

		memset(res, 0, sizeof(*res));
		res->size = r->size;
		res->iters = r->iters_done;
		res->t_avg = r->iters_done ? us / rtt / (double)r->iters_done : 0;
		*tps = us > 0 ? (double)r->iters_done / (us / 1e6) : 0;
		return ROCE_OK;
	}
	st = perf_lat_compute(r->size, o->iters, r->t_post, rtt, res);
	return st ? perf_fail(r, st, "latency report: %s", roce_status_str(st)) : ROCE_OK;
}
