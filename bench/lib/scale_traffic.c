/* SPDX-License-Identifier: MIT */
/*
 * The scale section's pairs and its traffic: 64-byte WRITEs on the first
 * nbusy QPs of a pair, each QP in its own region of the buffers. The
 * application works as an event-driven one would, in time independent of
 * the QP count: every QP is filled once, round robin, and afterwards a QP
 * is refilled only when one of its completions comes back (a walk over
 * all QPs per poll, as traffic.c makes over its 16, would measure the
 * benchmark rather than the engine at 16K QPs).
 */
#include <stdlib.h>
#include <string.h>

#include "common/pow2.h"
#include "lib/scale.h"
#include "roce/params.h"
#include "roce/status.h"

#define MSG       64u
#define WARM_NS   (50u * 1000000u)        /* every busy QP has sent by then */
#define DRAIN_NS  (20ull * 1000000000u)   /* a run that cannot finish is a bug */
#define REAP      64
#define SEQ_BITS  40

void scale_pair_open(struct scale_pair *sp, unsigned nqp)
{
	/* room for every signaled WR that can be outstanding */
	uint32_t cqe = pow2_at_least(nqp * (SCALE_DEPTH_MANY / SCALE_SIG_MANY) +
				     SCALE_DEPTH_ONE / SCALE_SIG_ONE);
	struct pair_opts o = {
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE,
		.nqp = nqp,
		.cq_depth = (int)(cqe < 4096 ? 4096 : cqe > ROCE_MAX_CQE ? ROCE_MAX_CQE : cqe),
		.sq_depth = SCALE_SQ_DEPTH,
		.sq_depth0 = SCALE_DEPTH_ONE,
		.rq_depth = 1,          /* WRITEs consume no receives */
		.max_sge = 1,
		.mtu = ROCE_MTU_4096,
		.psn = { 0x100000u, 0x200000u },
		.timeout = 17,          /* ~0.5 s, as the goodput matrix (pair.c) */
		.link = { .lossless = true },
	};
	uint64_t win = (uint64_t)nqp * SCALE_DEPTH_MANY * MSG;

	sp->win = (uint32_t)(win < BENCH_WINDOW ? BENCH_WINDOW : win);
	o.buf_len = 2u * (size_t)sp->win;
	if (pair_setup(&sp->p, &o) != ROCE_OK)
		bench_die("scale: %u QP pairs: %s", nqp, sp->p.err);
}

void scale_pair_close(struct scale_pair *sp)
{
	pair_teardown(&sp->p);
}

struct srun {
	struct scale_load *l;
	struct pair *p;
	uint8_t *src, *dst;             /* A's source window, B's destination */
	uint32_t slots;                 /* messages per region */
	uint64_t *posted, *done;
	uint32_t *refill;               /* QPs to refill, a ring of nbusy */
	uint8_t *queued;
	uint32_t rf_head, rf_n;
	uint64_t posted_total, done_total;
};

static uint64_t va(const uint8_t *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* Post on QP q while it has room; when closing, only up to the next
 * signaled WR, so every posted WR is eventually reported. */
static void post_some(struct srun *r, unsigned q, bool closing)
{
	const struct scale_load *l = r->l;
	struct pair_side *a = &r->p->a, *b = &r->p->b;

	while (r->posted[q] - r->done[q] < l->depth &&
	       !(closing && r->posted[q] % l->sig == 0)) {
		uint64_t seq = r->posted[q];
		size_t off = (size_t)q * l->region + (size_t)(seq % r->slots) * MSG;
		struct roce_sge sge = { va(r->src + off), MSG, a->mr->lkey };
		struct roce_send_wr wr = {
			.wr_id = (uint64_t)q << SEQ_BITS | (seq + 1),
			.sg_list = &sge, .num_sge = 1, .opcode = ROCE_WR_RDMA_WRITE,
			.send_flags = (seq + 1) % l->sig ? 0 : ROCE_SEND_SIGNALED,
		}, *bad;
		int rc;

		wr.wr.rdma.remote_addr = va(r->dst + off);
		wr.wr.rdma.rkey = b->mr->rkey;
		/* never full: the depth is within the send queue, and a WR's
		 * slot is free before its completion is reported */
		rc = roce_post_send(a->qps[q], &wr, &bad);
		if (rc != ROCE_OK)
			bench_die("scale: post_send on QP %u: %s", q, roce_status_str(rc));
		r->posted[q]++;
		r->posted_total++;
	}
}

static void reap(struct srun *r)
{
	struct roce_wc wc[REAP];
	int n = roce_poll_cq(r->p->a.scq, REAP, wc);

	if (n < 0)
		bench_die("scale: send CQ overflow");
	for (int i = 0; i < n; i++) {
		unsigned q = (unsigned)(wc[i].wr_id >> SEQ_BITS);
		uint64_t seq = wc[i].wr_id & ((1ull << SEQ_BITS) - 1);

		if (wc[i].status != ROCE_WC_SUCCESS)
			bench_die("scale: 64 B WRITE on QP %u, WR %llu: status '%s'", q,
				  (unsigned long long)seq, roce_wc_status_str(wc[i].status));
		if (q >= r->l->nbusy || seq <= r->done[q] || seq > r->posted[q])
			bench_die("scale: completion for a WR never posted or completed "
				  "twice (QP %u, WR %llu)", q, (unsigned long long)seq);
		r->done_total += seq - r->done[q];
		r->done[q] = seq;
		if (!r->queued[q]) {
			r->queued[q] = 1;
			r->refill[(r->rf_head + r->rf_n++) % r->l->nbusy] = q;
		}
	}
}

static void refill(struct srun *r, bool closing)
{
	while (r->rf_n) {
		unsigned q = r->refill[r->rf_head];

		r->rf_head = (r->rf_head + 1) % r->l->nbusy;
		r->rf_n--;
		r->queued[q] = 0;
		post_some(r, q, closing);
	}
}

static void step(struct srun *r, bool closing)
{
	pair_poll(r->p);
	reap(r);
	refill(r, closing);
}

/* Every slot a message landed in holds its source's bytes. */
static void check_data(const struct srun *r)
{
	for (unsigned q = 0; q < r->l->nbusy; q++) {
		uint64_t n = r->posted[q] < r->slots ? r->posted[q] : r->slots;
		size_t off = (size_t)q * r->l->region, len = (size_t)n * MSG;

		if (memcmp(r->src + off, r->dst + off, len)) {
			size_t i = 0;

			while (r->src[off + i] == r->dst[off + i])
				i++;
			bench_die("scale: QP %u: wrong data at byte %zu of its region "
				  "(0x%02x, want 0x%02x)", q, i, r->dst[off + i],
				  r->src[off + i]);
		}
	}
}

static void run_init(struct srun *r, struct scale_load *l)
{
	struct scale_pair *sp = l->sp;
	size_t used = (size_t)l->nbusy * l->region;

	if (!l->nbusy || l->nbusy > sp->p.nqp || l->region % MSG ||
	    l->region < l->depth * MSG || used > sp->win || l->depth % l->sig)
		bench_die("internal: scale load of %u QPs, region %u", l->nbusy, l->region);
	memset(r, 0, sizeof(*r));
	r->l = l;
	r->p = &sp->p;
	r->src = sp->p.a.buf;
	r->dst = sp->p.b.buf + sp->win;
	r->slots = l->region / MSG;
	r->posted = calloc(l->nbusy, sizeof(*r->posted));
	r->done = calloc(l->nbusy, sizeof(*r->done));
	r->refill = calloc(l->nbusy, sizeof(*r->refill));
	r->queued = calloc(l->nbusy, sizeof(*r->queued));
	if (!r->posted || !r->done || !r->refill || !r->queued)
		bench_die("out of memory");
	bench_fill(r->src, used, l->seed++);
	memset(r->dst, 0, used);
}

static void run_fini(struct srun *r)
{
	free(r->posted);
	free(r->done);
	free(r->refill);
	free(r->queued);
}

double scale_traffic(void *arg, double secs)
{
	struct scale_load *l = arg;
	struct srun r;
	struct pair_counts c0, c1;
	uint64_t t, t0 = 0, d0 = 0, cpu0 = 0, warm_end, end = UINT64_MAX;
	double rate, cpu_s;

	run_init(&r, l);
	pair_counts(r.p, &c0);
	warm_end = bench_now_ns() + WARM_NS;
	for (unsigned q = 0; q < l->nbusy; q++)
		post_some(&r, q, false);
	for (;;) {
		step(&r, false);
		t = bench_now_ns();
		if (!t0 && t >= warm_end) {
			t0 = t;
			d0 = r.done_total;
			cpu0 = bench_cpu_ns();
			end = t0 + (uint64_t)(secs * 1e9);
		}
		if (t >= end)
			break;
	}
	cpu_s = (double)(bench_cpu_ns() - cpu0) * 1e-9;
	rate = (double)(r.done_total - d0) / ((double)(t - t0) * 1e-9);
	l->cpu_rate = cpu_s > 0 ? (double)(r.done_total - d0) / cpu_s : 0;
	for (unsigned q = 0; q < l->nbusy; q++)
		post_some(&r, q, true);
	while (r.done_total != r.posted_total) {
		step(&r, true);
		if (bench_now_ns() - end > DRAIN_NS)
			bench_die("scale: 64 B WRITEs on %u QPs: %llu of %llu completed "
				  "%u s after the run", l->nbusy,
				  (unsigned long long)r.done_total,
				  (unsigned long long)r.posted_total,
				  (unsigned)(DRAIN_NS / 1000000000u));
	}
	check_data(&r);
	pair_counts(r.p, &c1);
	l->posted += r.posted_total;
	l->a_tx += c1.a_tx - c0.a_tx;
	l->b_tx += c1.b_tx - c0.b_tx;
	l->retx += c1.retx - c0.retx;
	run_fini(&r);
	return rate;
}
