/* SPDX-License-Identifier: MIT */
/*
 * perftest-style measurements, B -> A: a bandwidth table of WRITE, READ and
 * SEND at three sizes, and the latency of an 8-byte WRITE.
 */
#include <stdlib.h>

#include "roce-demo/demo.h"
#include "roce/status.h"

static uint64_t row_ns(const struct demo *d)
{
	return (d->o.quick ? ROCE_DEMO_ROW_MS / 10 : ROCE_DEMO_ROW_MS) * 1000000ull;
}

/*
 * perftest's peak is its best rate over runs of consecutive messages. Here:
 * the best rate over any stretch of at least a tenth of the messages,
 * measured between the ends of two CQ polls (completions reaped by one
 * poll share its timestamp; t[0] is the start), and never below the
 * average.
 */
static double peak_mbs(const uint64_t *t, uint32_t done, uint32_t bytes,
		       double avg)
{
	uint32_t w = done >= 10 ? done / 10 : 1, i = 0, k = 0;
	double best = avg, r;

	for (uint32_t j = w; j <= done; j++) {
		if (j < done && t[j + 1] == t[j])
			continue;       /* not the last of its poll */
		for (; k + w <= j; k++)
			if (k == 0 || t[k + 1] > t[k])
				i = k;
		r = mbs((uint64_t)(j - i) * bytes, t[j] - t[i]);
		if (t[j] > t[i] && r > best)
			best = r;
	}
	return best;
}

/* SEND rows: keep up to QP_DEPTH receives posted on A, as many as the row
 * still needs; receives left over by a row cut short serve the next. */
static bool refill_recv(struct demo *d, uint32_t needed, struct step *s)
{
	struct nic *a = &d->a;
	struct roce_sge sge = { (uint64_t)(uintptr_t)(a->buf + d->region_len),
				ROCE_DEMO_BW_MAX_MSG, a->mr[1]->lkey };
	struct roce_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };

	while (d->rq_out < QP_DEPTH && d->rq_out < needed) {
		if (roce_post_recv(a->qp, &wr, NULL) != ROCE_OK)
			return step_fail(s, "A's post_recv failed");
		d->rq_out++;
	}
	return true;
}

/* A bandwidth row in progress. */
struct row_run {
	struct roce_send_wr wr;
	struct roce_sge sge;
	bool send;
	uint32_t iters;
	uint32_t posted, done, rdone;   /* posted, completed on B, received on A */
	uint64_t stop;                  /* no more posts after this */
	char what[32];
};

/* Post on B up to ROCE_DEMO_BW_DEPTH in flight, until the row's cap. */
static bool post_burst(struct demo *d, struct row_run *r, struct step *s)
{
	struct roce_send_wr *bad;

	while (r->posted < r->iters && r->posted - r->done < ROCE_DEMO_BW_DEPTH &&
	       now_ns() < r->stop) {
		int st = roce_post_send(d->b.qp, &r->wr, &bad);

		if (st != ROCE_OK)
			return step_fail(s, "%s: post_send: %s", r->what,
					 roce_status_str(st));
		r->posted++;
	}
	return true;
}

/* One round of a row: receives, posts, the engines, the completions. */
static bool row_round(struct demo *d, struct row_run *r, uint64_t *t,
		      struct step *s)
{
	if (r->send && !refill_recv(d, r->iters - r->rdone, s))
		return false;
	if (!post_burst(d, r, s))
		return false;
	demo_kick(d);
	if (demo_reap(d->b.scq, t, &r->done, s, r->what) < 0)
		return false;
	if (r->send) {
		int got = demo_reap(d->a.rcq, NULL, &r->rdone, s, "A's receive");

		if (got < 0)
			return false;
		d->rq_out -= (uint32_t)got;
	} else {
		r->rdone = r->done;
	}
	return true;
}

/* One row: up to iters messages of bytes, ROCE_DEMO_BW_DEPTH in flight,
 * each signaled; stops posting at the row's time cap. */
static bool bw_row(struct demo *d, enum roce_wr_opcode op, uint32_t bytes,
		   uint64_t *t, struct bw_row *row, struct step *s)
{
	struct row_run r = { .send = op == ROCE_WR_SEND, .iters = d->o.iters,
			     .stop = now_ns() + row_ns(d) };
	uint64_t give_up = r.stop + ROCE_DEMO_STEP_MS * 1000000ull;
	uint32_t done;

	snprintf(r.what, sizeof(r.what), "%s %u B", row->op, bytes);
	demo_wr_to_ad(d, &r.wr, &r.sge, op, d->b_bwsrc, bytes);
	t[0] = now_ns();
	while (r.done < r.posted || r.rdone < r.done ||
	       (r.posted < r.iters && now_ns() < r.stop)) {
		if (!row_round(d, &r, t, s))
			return false;
		if (now_ns() > give_up)
			return step_fail(s, "%s: %u of %u messages completed "
					 "within %u ms", r.what, r.done, r.posted,
					 ROCE_DEMO_STEP_MS);
	}
	done = r.done;
	row->bytes = bytes;
	row->iters = done;
	row->avg = mbs((uint64_t)done * bytes, t[done] - t[0]);
	row->peak = peak_mbs(t, done, bytes, row->avg);
	row->mpps = t[done] > t[0] ? done / ((double)(t[done] - t[0]) / 1e9) / 1e6 : 0;
	return true;
}

/* WRITE, READ and SEND at three sizes; rows are printed as they finish. */
bool demo_run_bandwidth(struct demo *d, struct step *s)
{
	static const struct { enum roce_wr_opcode op; const char *name; } ops[] = {
		{ ROCE_WR_RDMA_WRITE, "WRITE" }, { ROCE_WR_RDMA_READ, "READ" },
		{ ROCE_WR_SEND, "SEND" },
	};
	static const uint32_t sizes[] = { 64, 4096, ROCE_DEMO_BW_MAX_MSG };
	uint64_t *t = malloc(((size_t)d->o.iters + 1) * sizeof(*t));
	bool ok = t != NULL;

	if (!ok)
		return step_fail(s, "out of memory");
	if (!d->o.json)
		demo_print_bw_head(d);
	for (size_t i = 0; ok && i < 3; i++) {
		for (size_t j = 0; ok && j < 3; j++) {
			struct bw_row *r = &d->bw[d->n_bw];

			r->op = ops[i].name;
			ok = bw_row(d, ops[i].op, sizes[j], t, r, s);
			if (ok && !d->o.json)
				demo_print_bw_row(r);
			d->n_bw += ok;
		}
	}
	free(t);
	return ok && step_pass(s, "%d rows", d->n_bw);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* perftest's write_lat halves a ping-pong of WRITEs; this is the requester's
 * view instead: post one signaled 8-byte WRITE, spin until it completes
 * (the request out, the ACK back). */
bool demo_run_latency(struct demo *d, struct lat *l, struct step *s)
{
	uint64_t *t = malloc((size_t)d->o.iters * sizeof(*t));
	uint64_t stop = now_ns() + row_ns(d), sum = 0;
	struct roce_send_wr wr;
	struct roce_sge sge;
	bool ok = t != NULL;
	uint32_t n = 0;

	demo_wr_to_ad(d, &wr, &sge, ROCE_WR_RDMA_WRITE, d->b_bwsrc, 8);
	while (ok && n < d->o.iters && (n == 0 || now_ns() < stop)) {
		uint64_t t0 = now_ns();

		ok = demo_post_wait(d, &d->b, &wr, s, "8-byte WRITE");
		t[n] = now_ns() - t0;
		sum += t[n++];
	}
	if (ok) {
		qsort(t, n, sizeof(*t), cmp_u64);
		*l = (struct lat){ n, t[0] / 1e3, t[n / 2] / 1e3, sum / 1e3 / n,
				   t[((size_t)n * 99 + 99) / 100 - 1] / 1e3,
				   t[n - 1] / 1e3 };
		step_pass(s, "%u samples", n);
	}
	free(t);
	return ok;
}
