/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <string.h>

#include "lib/report.h"
#include "lib/traffic.h"
#include "lib/util.h"
#include "roce/status.h"

#define SIGNAL_MAX  16u
#define WARM_NS     (20u * 1000000u)    /* before the measured window */
#define DRAIN_NS    (20ull * 1000000000u) /* a run that cannot finish is a bug */
#define REAP        64
/* one round trip that takes this long is a bug, not a busy machine (a
 * thread may wait a while for a core, never this long) */
#define LAT_STALL_NS (10ull * 1000000000u)

struct run {
	struct pair *p;
	enum roce_wr_opcode op;
	uint32_t size, slots;
	unsigned depth, sig;
	uint64_t posted[BENCH_MAX_QPS], done[BENCH_MAX_QPS];
	uint64_t rposted[BENCH_MAX_QPS], rdone[BENCH_MAX_QPS];
	uint64_t done_total;
	const struct traffic_staged *st;        /* NULL: B's MR plain */
};

const char *traffic_op_name(enum roce_wr_opcode op)
{
	switch (op) {
	case ROCE_WR_RDMA_WRITE: return "WRITE";
	case ROCE_WR_RDMA_READ: return "READ";
	case ROCE_WR_SEND: return "SEND";
	default: return "?";
	}
}

unsigned traffic_depth(uint32_t size)
{
	unsigned d = size <= 65536 ? 128 : 128u * 65536u / size;

	return d < 16 ? 16 : d;
}

static uint64_t va(const uint8_t *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* SEND: the receive for message seq, posted just before it, so no receive
 * outlives the run (a later run's larger messages would not fit it). */
static void post_recv(struct run *r, unsigned q, uint64_t seq)
{
	struct pair_side *b = &r->p->b;
	struct roce_sge sge = {
		va(side_win(b, WIN_RCV) + (size_t)(seq % r->slots) * r->size),
		r->size, b->mr->lkey
	};
	struct roce_recv_wr wr = { .wr_id = (uint64_t)q << 48 | (seq + 1),
				   .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc = roce_post_recv(b->qps[q], &wr, &bad);

	if (rc != ROCE_OK)
		bench_die("post_recv: %s", roce_status_str(rc));
	r->rposted[q]++;
}

/* Post on QP q while it has room; when closing, only up to the next
 * signaled WR, so every posted WR is eventually reported. */
static void post_some(struct run *r, unsigned q, bool closing)
{
	struct pair_side *a = &r->p->a, *b = &r->p->b;
	const bool read = r->op == ROCE_WR_RDMA_READ;

	while (r->posted[q] - r->done[q] < r->depth &&
	       !(closing && r->posted[q] % r->sig == 0)) {
		uint64_t seq = r->posted[q];
		size_t off = (size_t)(seq % r->slots) * r->size;
		struct roce_sge sge = {
			va(side_win(a, read ? WIN_DST : WIN_SRC) + off), r->size, a->mr->lkey
		};
		struct roce_send_wr wr = {
			.wr_id = (uint64_t)q << 48 | (seq + 1),
			.sg_list = &sge, .num_sge = 1, .opcode = r->op,
			.send_flags = (seq + 1) % r->sig ? 0 : ROCE_SEND_SIGNALED,
		}, *bad;
		int rc;

		if (r->op == ROCE_WR_SEND) {
			if (r->rposted[q] == seq)
				post_recv(r, q, seq);
		} else {
			if (!read && r->st && r->st->stamp)
				r->st->stamp(r->st->arg, side_win(a, WIN_SRC) + off,
					     r->size, seq);
			wr.wr.rdma.remote_addr = va(side_win(b, read ? WIN_SRC : WIN_DST) + off);
			wr.wr.rdma.rkey = b->mr->rkey;
		}
		rc = roce_post_send(a->qps[q], &wr, &bad);
		if (rc == ROCE_E_FULL)
			return;
		if (rc != ROCE_OK)
			bench_die("post_send: %s", roce_status_str(rc));
		r->posted[q]++;
	}
}

static void check_wc(const struct run *r, const struct roce_wc *wc, const char *what)
{
	if (wc->status != ROCE_WC_SUCCESS)
		bench_die("%s %u B: %s completion %llu: status '%s'",
			  traffic_op_name(r->op), r->size, what,
			  (unsigned long long)(wc->wr_id & 0xFFFFFFFFFFFFull),
			  roce_wc_status_str(wc->status));
}

static void reap(struct run *r)
{
	struct roce_wc wc[REAP];
	int n = roce_poll_cq(r->p->a.scq, REAP, wc);

	if (n < 0)
		bench_die("send CQ overflow");
	for (int i = 0; i < n; i++) {
		unsigned q = (unsigned)(wc[i].wr_id >> 48);
		uint64_t seq = wc[i].wr_id & 0xFFFFFFFFFFFFull;

		check_wc(r, &wc[i], "send");
		if (q >= r->p->nqp || seq <= r->done[q] || seq > r->posted[q])
			bench_die("completion for a WR never posted or completed twice "
				  "(QP %u, WR %llu)", q, (unsigned long long)seq);
		r->done_total += seq - r->done[q];
		r->done[q] = seq;
	}
	if (r->op != ROCE_WR_SEND)
		return;
	n = roce_poll_cq(r->p->b.rcq, REAP, wc);
	if (n < 0)
		bench_die("receive CQ overflow");
	for (int i = 0; i < n; i++) {
		unsigned q = (unsigned)(wc[i].wr_id >> 48);

		check_wc(r, &wc[i], "receive");
		if (wc[i].byte_len != r->size || q >= r->p->nqp ||
		    (wc[i].wr_id & 0xFFFFFFFFFFFFull) != r->rdone[q] + 1)
			bench_die("SEND %u B: receive completion of %u bytes, WR %llu, "
				  "out of order", r->size, wc[i].byte_len,
				  (unsigned long long)(wc[i].wr_id & 0xFFFFFFFFFFFFull));
		r->rdone[q]++;
	}
}

static void step(struct run *r, bool closing)
{
	for (unsigned q = 0; q < r->p->nqp; q++)
		post_some(r, q, closing);
	pair_poll(r->p);
	reap(r);
}

static bool drained(const struct run *r)
{
	for (unsigned q = 0; q < r->p->nqp; q++)
		if (r->done[q] != r->posted[q] ||
		    (r->op == ROCE_WR_SEND && r->rdone[q] != r->posted[q]))
			return false;
	return true;
}

/* One signaled WRITE or READ of len bytes between A's window aw and B's
 * window bw at off, waited for: a staged run's fill and read-back. */
static void xfer_wait(struct pair *p, enum roce_wr_opcode op, enum bench_win aw,
		      enum bench_win bw, size_t off, uint32_t len)
{
	struct roce_sge sge = { va(side_win(&p->a, aw) + off), len, p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = op, .send_flags = ROCE_SEND_SIGNALED }, *bad;
	struct roce_wc wc;
	uint64_t t0 = bench_now_ns();
	int rc, got;

	wr.wr.rdma.remote_addr = va(side_win(&p->b, bw) + off);
	wr.wr.rdma.rkey = p->b.mr->rkey;
	rc = roce_post_send(p->a.qp, &wr, &bad);
	if (rc != ROCE_OK)
		bench_die("post_send: %s", roce_status_str(rc));
	do {
		pair_poll(p);
		got = roce_poll_cq(p->a.scq, 1, &wc);
		if (!got && bench_now_ns() - t0 > DRAIN_NS)
			bench_die("%s of %u B to a staged MR: no completion",
				  traffic_op_name(op), len);
	} while (!got);
	if (got < 0 || wc.status != ROCE_WC_SUCCESS)
		bench_die("%s of %u B to a staged MR: status '%s'", traffic_op_name(op),
			  len, got < 0 ? "CQ overflow" : roce_wc_status_str(wc.status));
}

/* Every slot a message landed in holds its source's bytes. A staged
 * run compares through the engine: what a WRITE left in B is read back
 * into A's destination window, and a READ's source in B was written
 * from A's source window (prepare). */
static void check_data(const struct run *r)
{
	const struct pair_side *a = &r->p->a, *b = &r->p->b;
	const uint8_t *src, *dst;
	uint64_t most = 0;

	if (r->st) {
		if (r->op == ROCE_WR_RDMA_WRITE)
			xfer_wait(r->p, ROCE_WR_RDMA_READ, WIN_DST, WIN_DST, 0,
				  r->slots * r->size);
		src = side_win(a, WIN_SRC);
		dst = side_win(a, WIN_DST);
	} else switch (r->op) {
	case ROCE_WR_RDMA_READ:
		src = side_win(b, WIN_SRC);
		dst = side_win(a, WIN_DST);
		break;
	case ROCE_WR_SEND:
		src = side_win(a, WIN_SRC);
		dst = side_win(b, WIN_RCV);
		break;
	default:
		src = side_win(a, WIN_SRC);
		dst = side_win(b, WIN_DST);
		break;
	}
	for (unsigned q = 0; q < r->p->nqp; q++)
		if (r->posted[q] > most)
			most = r->posted[q];
	for (uint64_t s = 0; s < most && s < r->slots; s++) {
		size_t off = (size_t)s * r->size;

		if (memcmp(src + off, dst + off, r->size)) {
			size_t i = 0;

			while (src[off + i] == dst[off + i])
				i++;
			bench_die("%s %u B: wrong data in slot %llu at byte %zu "
				  "(0x%02x, want 0x%02x)", traffic_op_name(r->op),
				  r->size, (unsigned long long)s, i, dst[off + i],
				  src[off + i]);
		}
	}
}

static void prepare(struct pair *p, uint32_t size, uint64_t seed)
{
	bench_fill(side_win(&p->a, WIN_SRC), BENCH_BUF_WIN, seed);
	bench_fill(side_win(&p->b, WIN_SRC), BENCH_BUF_WIN, seed + 1);
	memset(side_win(&p->a, WIN_DST), 0, BENCH_BUF_WIN);
	memset(side_win(&p->b, WIN_DST), 0, BENCH_BUF_WIN);
	memset(side_win(&p->b, WIN_RCV), 0, BENCH_BUF_WIN);
	(void)size;
}

/* A staged run's bytes: A's source window as st makes it; B's memory only
 * through the engine (a READ's source written there now). */
static void prepare_staged(const struct run *r, uint64_t seed)
{
	const struct traffic_staged *st = r->st;
	uint8_t *src = side_win(&r->p->a, WIN_SRC);
	uint32_t len = r->slots * r->size;

	if (st->init)
		st->init(st->arg, src, len, r->size);
	else
		bench_fill(src, len, seed);
	memset(side_win(&r->p->a, WIN_DST), 0, BENCH_BUF_WIN);
	if (r->op == ROCE_WR_RDMA_READ)
		xfer_wait(r->p, ROCE_WR_RDMA_WRITE, WIN_SRC, WIN_SRC, 0, len);
}

static void run_bw(struct pair *p, enum roce_wr_opcode op, uint32_t size,
		   double secs, uint64_t seed, const struct traffic_staged *st,
		   struct traffic_result *res)
{
	struct run r;
	struct pair_counts c0, c1;
	uint64_t t, t0 = 0, t1, d0 = 0, start, warm_end, end, retx0, cpu0 = 0;
	double cpu_s;
	uint32_t window = size > BENCH_WINDOW ? size : BENCH_WINDOW;

	if (size == 0 || size > BENCH_MAX_MSG)
		bench_die("internal: message size %u", size);
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.op = op;
	r.size = size;
	r.slots = window / size;
	r.depth = traffic_depth(size);
	r.st = st;
	if (st) {
		r.slots = BENCH_BUF_WIN / size;
		r.depth = st->depth;
		if (op == ROCE_WR_SEND || r.depth < 1 || r.depth > r.slots)
			bench_die("internal: staged %s %u B, %u in flight", traffic_op_name(op),
				  size, r.depth);
	}
	r.sig = r.depth / 4 < SIGNAL_MAX ? r.depth / 4 : SIGNAL_MAX;
	if (r.sig < 1)
		r.sig = 1;
	if (st)
		prepare_staged(&r, seed);
	else
		prepare(p, size, seed);
	retx0 = pair_retransmissions(p);
	pair_counts(p, &c0);
	start = bench_now_ns();
	warm_end = start + WARM_NS;
	end = UINT64_MAX;
	for (;;) {
		step(&r, false);
		t = bench_now_ns();
		if (!t0 && t >= warm_end) {
			/* the window starts at a reap, and lasts secs whatever
			 * the warm-up took on a loaded machine */
			t0 = t;
			d0 = r.done_total;
			cpu0 = bench_cpu_ns();
			end = t0 + (uint64_t)(secs * 1e9);
		}
		if (t >= end)
			break;
	}
	t1 = t;
	cpu_s = (double)(bench_cpu_ns() - cpu0) * 1e-9;
	res->msgs = r.done_total - d0;
	res->msgs_per_s = (double)res->msgs / ((double)(t1 - t0) * 1e-9);
	res->gbps = res->msgs_per_s * size * 8 * 1e-9;
	res->msgs_per_s_norm = cpu_s > 0 ? (double)res->msgs * traffic_cores(p) / cpu_s : 0;
	res->gbps_norm = res->msgs_per_s_norm * size * 8 * 1e-9;
	while (!drained(&r)) {
		step(&r, true);
		if (bench_now_ns() - end > DRAIN_NS)
			bench_die("%s %u B on %u QPs: %llu of %llu messages completed "
				  "%u s after the run (retransmissions %llu)",
				  traffic_op_name(op), size, p->nqp,
				  (unsigned long long)r.done_total,
				  (unsigned long long)r.posted[0] * p->nqp,
				  (unsigned)(DRAIN_NS / 1000000000u),
				  (unsigned long long)(pair_retransmissions(p) - retx0));
	}
	res->retx = pair_retransmissions(p) - retx0;
	pair_counts(p, &c1);
	res->moved = (struct pair_counts){ c1.a_tx - c0.a_tx, c1.b_tx - c0.b_tx,
		c1.retx - c0.retx, c1.timeouts - c0.timeouts, c1.naks - c0.naks,
		c1.link_drops - c0.link_drops, c1.link_paused - c0.link_paused };
	res->posted = 0;
	for (unsigned q = 0; q < p->nqp; q++)
		res->posted += r.posted[q];
	check_data(&r);
}

void traffic_bw(struct pair *p, enum roce_wr_opcode op, uint32_t size,
		double secs, uint64_t seed, struct traffic_result *res)
{
	run_bw(p, op, size, secs, seed, NULL, res);
}

void traffic_bw_staged(struct pair *p, enum roce_wr_opcode op, uint32_t size,
		       double secs, uint64_t seed, const struct traffic_staged *st,
		       struct traffic_result *res)
{
	run_bw(p, op, size, secs, seed, st, res);
}

struct cell {
	struct pair *p;
	enum roce_wr_opcode op;
	uint32_t size;
	uint64_t seed;
	unsigned rep;
	double rate[BENCH_MAX_REPS], gbps_norm[BENCH_MAX_REPS], rate_norm[BENCH_MAX_REPS];
	struct pair_counts moved;       /* summed over the repeats */
	uint64_t posted;
};

static double cell_once(void *arg, double secs)
{
	struct cell *c = arg;
	struct traffic_result res;

	traffic_bw(c->p, c->op, c->size, secs, c->seed++, &res);
	c->posted += res.posted;
	c->moved.a_tx += res.moved.a_tx;
	c->moved.b_tx += res.moved.b_tx;
	c->moved.retx += res.moved.retx;
	c->moved.timeouts += res.moved.timeouts;
	c->moved.naks += res.moved.naks;
	c->moved.link_drops += res.moved.link_drops;
	c->moved.link_paused += res.moved.link_paused;
	if (c->rep < BENCH_MAX_REPS) {
		c->rate[c->rep] = res.msgs_per_s;
		c->gbps_norm[c->rep] = res.gbps_norm;
		c->rate_norm[c->rep] = res.msgs_per_s_norm;
		c->rep++;
	}
	return res.gbps;
}

void traffic_row(struct pair *p, enum roce_wr_opcode op, uint32_t size,
		 unsigned reps, double secs, uint64_t seed, struct bench_row *r)
{
	struct cell c = { .p = p, .op = op, .size = size, .seed = seed };
	struct bench_stat s;

	snprintf(r->op, sizeof(r->op), "%s", traffic_op_name(op));
	snprintf(r->unit, sizeof(r->unit), "Gbit/s");
	r->size = size;
	bench_measure(reps, secs, false, cell_once, &c, &r->st, &r->load);
	bench_stat_of(c.rate, c.rep, false, &s);
	r->rate = s.best;
	bench_stat_of(c.gbps_norm, c.rep, false, &r->norm);
	bench_stat_of(c.rate_norm, c.rep, false, &s);
	r->rate_norm = s.best;
	r->retx = c.moved.retx;
	r->msgs = c.posted;
	/* per message: frames each way, and what went wrong */
	snprintf(r->note, sizeof(r->note), "frames/msg A %.2f B %.2f; timeouts %llu "
		 "naks %llu link drops %llu pauses %llu",
		 (double)c.moved.a_tx / (double)c.posted,
		 (double)c.moved.b_tx / (double)c.posted,
		 (unsigned long long)c.moved.timeouts, (unsigned long long)c.moved.naks,
		 (unsigned long long)c.moved.link_drops,
		 (unsigned long long)c.moved.link_paused);
}

double traffic_fn(void *arg, double secs)
{
	struct traffic_fn *f = arg;
	struct traffic_result res;

	if (f->b_cpu >= 0)
		pair_b_thread(f->p, f->b_cpu);
	traffic_bw(f->p, f->op, f->size, secs, f->seed++, &res);
	if (f->b_cpu >= 0)
		pair_b_thread(f->p, -1);
	return f->rate ? res.msgs_per_s : res.gbps;
}

size_t traffic_lat(struct pair *p, double secs, uint64_t *samples, size_t max)
{
	struct pair_side *a = &p->a, *b = &p->b;
	struct roce_sge sge = { va(side_win(a, WIN_SRC)), 8, a->mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_RDMA_WRITE,
				   .send_flags = ROCE_SEND_SIGNALED }, *bad;
	uint64_t end = 0;
	size_t n = 0;
	const unsigned warm = 1000;

	wr.wr.rdma.remote_addr = va(side_win(b, WIN_DST));
	wr.wr.rdma.rkey = b->mr->rkey;
	for (unsigned i = 0; n < max; i++) {
		struct roce_wc wc;
		uint64_t t0 = bench_now_ns(), t;
		int rc = roce_post_send(a->qp, &wr, &bad), got;
		unsigned spins = 0;

		if (rc != ROCE_OK)
			bench_die("post_send: %s", roce_status_str(rc));
		/* the clock only now and then while spinning: a read costs
		 * tens of ns here, which would add to every sample */
		do {
			pair_poll(p);
			got = roce_poll_cq(a->scq, 1, &wc);
			if (!got && ++spins % 256 == 0 &&
			    bench_now_ns() - t0 > LAT_STALL_NS) {
				struct pair_counts c;

				pair_counts(p, &c);
				bench_die("8-byte WRITE %u on %u core(s): no completion "
					  "within %u s (frames A %llu B %llu, retransmissions "
					  "%llu, timeouts %llu, link drops %llu)", i,
					  traffic_cores(p), (unsigned)(LAT_STALL_NS / 1000000000u), (unsigned long long)c.a_tx,
					  (unsigned long long)c.b_tx,
					  (unsigned long long)c.retx,
					  (unsigned long long)c.timeouts,
					  (unsigned long long)c.link_drops);
			}
		} while (got == 0);
		t = bench_now_ns();
		if (got < 0 || wc.status != ROCE_WC_SUCCESS)
			bench_die("8-byte WRITE: status '%s'",
				  got < 0 ? "CQ overflow" : roce_wc_status_str(wc.status));
		if (i == warm)
			end = t + (uint64_t)(secs * 1e9);
		if (i >= warm) {
			samples[n++] = t - t0;
			if (t >= end)
				break;
		}
	}
	return n;
}
