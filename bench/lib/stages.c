/* SPDX-License-Identifier: MIT */
/*
 * WRITE and READ of 64 KB into and out of B's MR bound to each stage
 * chain (stages.h), and the bound each row is held to.
 *
 * B is the card whose DDR the stages guard: a WRITE places through its
 * chain on B's engine thread, a READ fetches through it there too, so the
 * primitives are measured on B's CPU. One engine thread a side: B on its
 * own thread on the second CPU, A driven by the application's thread on
 * the first (the engine matrix's "2 cores").
 *
 * Every repeat measures the primitives on B's CPU, then runs every chain
 * of an (operation, path MTU) in turn, no stage first, so a row's ratios
 * compare figures taken side by side (this host's speed moves by tens of
 * per cent from one minute to the next); the MR is bound before a run
 * and unbound after it (a fresh dedup volume, PI generated over the MR
 * at binding), outside the measured window.
 *
 * The bytes: messages rotate through a 1 MiB window, 16 of them in
 * flight (so a message's source is never rewritten while it is on the
 * wire), and every WRITE's 4 KiB blocks carry a stamp of the message
 * they belong to: 0 % duplicates is truly none, and 50 % pairs each
 * even block of a message with an identical odd one (identical within
 * the message, new to the volume). A READ's source is written once
 * before the run, shaped the same way. No stage runs the same traffic.
 */
#include <string.h>

#include "lib/pair.h"
#include "lib/report.h"
#include "lib/stages.h"
#include "lib/traffic.h"
#include "roce/device.h"
#include "roce/status.h"

#define MSG         65536u
#define DEPTH       (BENCH_BUF_WIN / MSG)
#define KEY_SLOT    0u
#define MAX_CASES   12

/* A chain as the rows name it; dup: percent of duplicate blocks. */
struct scase {
	const char *name;
	uint8_t chain[ROCE_STAGE_CHAIN_MAX];
	unsigned shift, dup;
};

static const struct scase all_cases[] = {
	{ "none", { 0 }, 12, 0 },
	{ "xts", { ROCE_STAGE_XTS }, 12, 0 },
	{ "xts", { ROCE_STAGE_XTS }, 9, 0 },
	{ "pi", { ROCE_STAGE_PI }, 12, 0 },
	{ "pi", { ROCE_STAGE_PI }, 9, 0 },
	{ "dedup 0%", { ROCE_STAGE_DEDUP }, 12, 0 },
	{ "dedup 50%", { ROCE_STAGE_DEDUP }, 12, 50 },
	{ "dedup+xts+pi 0%", { ROCE_STAGE_DEDUP, ROCE_STAGE_XTS, ROCE_STAGE_PI }, 12, 0 },
	{ "dedup+xts+pi 50%", { ROCE_STAGE_DEDUP, ROCE_STAGE_XTS, ROCE_STAGE_PI }, 12, 50 },
};
#define N_ALL_CASES (sizeof(all_cases) / sizeof(all_cases[0]))

struct bench_pair {
	struct pair p;
	uint64_t buf_pa;                /* B's buffer in its DDR */
	uint8_t *pi;                    /* B's PI area */
	uint64_t pi_pa;
};

/* ---- the bytes -------------------------------------------------------------- */

struct shape {
	unsigned dup;
	uint64_t seed;
};

/* Block j of a message holds the stamp of (seed, message, j), or with
 * duplicates of (seed, message, j / 2): a pair of blocks the same. */
static void stamp(void *arg, uint8_t *msg, uint32_t size, uint64_t seq)
{
	const struct shape *s = arg;

	for (uint32_t j = 0; j < size / ROCE_STAGE_BLOCK; j++) {
		uint64_t w[2] = { s->seed, seq << 16 | (s->dup ? j / 2 : j) };

		memcpy(msg + (size_t)j * ROCE_STAGE_BLOCK, w, sizeof(w));
	}
}

static void init(void *arg, uint8_t *win, uint32_t len, uint32_t size)
{
	const struct shape *s = arg;

	bench_fill(win, len, s->seed);
	if (s->dup)
		for (uint32_t b = 0; b + 1 < len / ROCE_STAGE_BLOCK; b += 2)
			memcpy(win + (size_t)(b + 1) * ROCE_STAGE_BLOCK,
			       win + (size_t)b * ROCE_STAGE_BLOCK, ROCE_STAGE_BLOCK);
	for (uint32_t m = 0; m < len / size; m++)
		stamp(arg, win + (size_t)m * size, size, m);
}

/* ---- a pair with a stage-capable responder --------------------------------- */

static void bp_open(struct bench_pair *bp, unsigned mtu)
{
	uint8_t key[ROCE_STAGE_KEY_LEN];
	size_t mem_size, pi_len;
	uint8_t *mem;
	int rc;

	pair_open_memlink(&bp->p, mtu == 4096 ? ROCE_MTU_4096 : ROCE_MTU_1024, 1);
	mem = roce_device_mem(roce_context_device(bp->p.b.ctx), &mem_size);
	bp->buf_pa = (uint64_t)(bp->p.b.buf - mem);
	/* 8 bytes per 512-byte unit of the MR: the most any chain needs */
	pi_len = bp->p.b.buf_len / 512 * ROCE_STAGE_PI_LEN;
	bp->pi = roce_mem_alloc(bp->p.b.ctx, pi_len, 4096);
	if (!bp->pi)
		bench_die("no DDR for a %zu-byte PI area", pi_len);
	bp->pi_pa = (uint64_t)(bp->pi - mem);
	/* two halves that differ (IEEE 1619) */
	for (unsigned i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(1 + i * 29);
	rc = roce_stage_key_load(bp->p.b.ctx, KEY_SLOT, key);
	if (rc != ROCE_OK)
		bench_die("key slot %u: %s", KEY_SLOT, roce_status_str(rc));
}

static void bp_close(struct bench_pair *bp)
{
	roce_mem_free(bp->p.b.ctx, bp->pi);
	pair_teardown(&bp->p);
}

/* B's MR bound to k (NULL: no stage), B's engine thread stopped; the
 * engine takes the entry at its next look. */
static void bp_bind(struct bench_pair *bp, const struct scase *k)
{
	struct roce_stage_binding b = { 0 };
	int rc;

	if (k && k->chain[0]) {
		memcpy(b.chain, k->chain, sizeof(b.chain));
		b.key_slot = KEY_SLOT;
		b.unit_shift = (uint8_t)k->shift;
		b.app_tag = 0x5354;
		if (roce_stage_has(&b, ROCE_STAGE_PI))
			b.pi_pa = bp->pi_pa;
		if (roce_stage_has(&b, ROCE_STAGE_DEDUP)) {
			/* the volume's blocks in the MR's own DDR */
			b.pool_pa = bp->buf_pa;
			b.pool_blocks = (uint32_t)(bp->p.b.buf_len / ROCE_STAGE_BLOCK);
		}
	}
	rc = roce_mr_set_stage(bp->p.b.mr, &b);
	if (rc != ROCE_OK)
		bench_die("binding %s: %s", k ? k->name : "none", roce_status_str(rc));
	for (int i = 0; i < 4; i++)
		pair_poll(&bp->p);
}

/* ---- the bounds ----------------------------------------------------------- */

/* Seconds per byte of k's primitives for op: their sum for a chain (a
 * READ through DEDUP costs a lookup, no primitive). */
static double prim_s_per_byte(const struct scase *k, bool write, const double gbs[PRIM_COUNT],
			      char *what, size_t n)
{
	bool u512 = k->shift == 9;
	double t = 0;
	size_t l = 0;

	if (n)
		what[0] = 0;
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX && k->chain[i]; i++) {
		enum stage_prim p;

		switch (k->chain[i]) {
		case ROCE_STAGE_XTS:
			p = write ? (u512 ? PRIM_XTS_ENC_512 : PRIM_XTS_ENC_4096)
				  : (u512 ? PRIM_XTS_DEC_512 : PRIM_XTS_DEC_4096);
			break;
		case ROCE_STAGE_PI:
			p = u512 ? PRIM_CRC16_512 : PRIM_CRC16_4096;
			break;
		default:
			if (!write)
				continue;
			p = PRIM_SHA256_4096;
			break;
		}
		t += 1e-9 / gbs[p];
		if (n)
			l += (size_t)snprintf(what + l, n > l ? n - l : 0, "%s%s %.2f",
					      l ? " + " : "", stage_prim_name(p), gbs[p]);
	}
	return t;
}

/* 1 / (1/no_stage + 1/primitive), Gbit/s: the stage's time per byte
 * added to the engine's without it. */
static double bound_gbps(double none_gbps, double prim_s)
{
	double none_s = none_gbps > 0 ? 8e-9 / none_gbps : 0;

	return none_s + prim_s > 0 ? 8e-9 / (none_s + prim_s) : 0;
}

/* ---- the rows -------------------------------------------------------------- */

struct cell {
	const struct scase *k;
	double gbps[BENCH_MAX_REPS], vs_none[BENCH_MAX_REPS], vs_bound[BENCH_MAX_REPS];
	uint64_t saved, retx, msgs;
};

static double run_case(struct bench_pair *bp, const struct bench_cfg *cfg,
		       enum roce_wr_opcode op, double secs, struct cell *c, uint64_t seed)
{
	struct shape sh = { c->k->dup, seed };
	struct traffic_staged st = { DEPTH, init, stamp, &sh };
	struct traffic_result res;
	/* a level: what this run's volume saved, whatever others left */
	uint64_t saved0 = pair_cnt(&bp->p.b, ROCE_CNT_STAGE_DEDUP_SAVED);

	bp_bind(bp, c->k);
	pair_b_thread(&bp->p, cfg->cpu_b);
	traffic_bw_staged(&bp->p, op, MSG, secs, seed, &st, &res);
	pair_b_thread(&bp->p, -1);
	c->saved = pair_cnt(&bp->p.b, ROCE_CNT_STAGE_DEDUP_SAVED) - saved0;
	c->retx += res.retx;
	c->msgs += res.posted;
	bp_bind(bp, NULL);
	return res.gbps;
}

/* The row of cell c; its bound from the best figures of the run. */
static void add_row(const struct cell *c, const struct cell *none, enum roce_wr_opcode op,
		    unsigned mtu, unsigned reps, const struct bench_load *load,
		    const double gbs[PRIM_COUNT])
{
	struct bench_row *r = bench_row_add("stages", "goodput");
	struct bench_stat s;
	char what[80];
	double prim_s = prim_s_per_byte(c->k, op == ROCE_WR_RDMA_WRITE, gbs, what,
					sizeof(what));

	snprintf(r->op, sizeof(r->op), "%s", traffic_op_name(op));
	snprintf(r->cond, sizeof(r->cond), "%s", c->k->name);
	snprintf(r->unit, sizeof(r->unit), "Gbit/s");
	r->size = MSG;
	r->mtu = mtu;
	r->qps = 1;
	r->cores = 2;
	r->load = *load;
	r->retx = c->retx;
	r->msgs = c->msgs;
	bench_stat_of(c->gbps, reps, false, &r->st);
	if (c == none) {
		snprintf(r->note, sizeof(r->note), "%u in flight", DEPTH);
		return;
	}
	r->stage.dunit = 1u << c->k->shift;
	r->stage.saved = c->saved;
	bench_stat_of(c->vs_none, reps, false, &s);
	r->stage.vs_none = s.med;
	bench_stat_of(c->vs_bound, reps, false, &s);
	r->stage.vs_bound = s.med;
	bench_stat_of(none->gbps, reps, false, &s);
	r->stage.bound = bound_gbps(s.best, prim_s);
	snprintf(r->note, sizeof(r->note), "%s", what[0] ? what : "no primitive: a map lookup");
}

/* The primitives once more, on B's CPU (the run's best kept in best[]). */
static void prims_now(const struct bench_cfg *cfg, struct stage_prims *sp,
		      double now[PRIM_COUNT], double best[PRIM_COUNT])
{
	bench_pin(cfg->cpu_b);
	for (unsigned p = 0; p < PRIM_COUNT; p++) {
		now[p] = stage_prim_measure(sp, (enum stage_prim)p, cfg->secs / 2);
		if (now[p] > best[p])
			best[p] = now[p];
	}
	bench_pin(cfg->cpu_a);
}

/* Every chain of one (operation, path MTU), side by side, reps times. */
static void stages_block(const struct bench_cfg *cfg, const struct stages_plan *pl,
			 struct stage_prims *sp, enum roce_wr_opcode op, unsigned mtu,
			 double gbs[PRIM_COUNT])
{
	struct cell cells[MAX_CASES];
	unsigned n = 0, reps = cfg->reps_key < BENCH_MAX_REPS ? cfg->reps_key : BENCH_MAX_REPS;
	struct bench_load_mark mark;
	struct bench_load load;
	struct bench_pair bp;
	uint64_t seed = (uint64_t)op << 32 | mtu;

	for (unsigned i = 0; i < N_ALL_CASES && n < MAX_CASES; i++) {
		const struct scase *k = &all_cases[i];

		if (i && ((cfg->quick && k->shift != 12) ||
			  (pl->chain && strcmp(pl->chain, k->name)) ||
			  (pl->unit && pl->unit != 1u << k->shift)))
			continue;
		memset(&cells[n], 0, sizeof(cells[n]));
		cells[n].k = k;
		n++;
	}
	if ((pl->chain || pl->unit) && n == 1)
		bench_die("--stage '%s' --unit %u: no such row (the rows' chains: none, xts, pi, "
			  "'dedup 0%%', 'dedup 50%%', 'dedup+xts+pi 0%%', 'dedup+xts+pi 50%%'; "
			  "--quick: unit 4096 only)", pl->chain ? pl->chain : "any", pl->unit);
	bp_open(&bp, mtu);
	bench_pin(cfg->cpu_a);
	bench_load_mark(&mark);
	for (unsigned rep = 0; rep < reps; rep++) {
		double now[PRIM_COUNT];

		prims_now(cfg, sp, now, gbs);
		for (unsigned i = 0; i < n; i++) {
			struct cell *c = &cells[i];
			double none;

			c->gbps[rep] = run_case(&bp, cfg, op, cfg->secs_key, c, seed++);
			none = cells[0].gbps[rep];
			c->vs_none[rep] = i && none > 0 ? c->gbps[rep] / none : 1;
			c->vs_bound[rep] = none > 0 ? c->gbps[rep] /
				bound_gbps(none, prim_s_per_byte(c->k, op == ROCE_WR_RDMA_WRITE,
								 now, NULL, 0)) : 0;
		}
	}
	bench_load_since(&mark, &load);
	bench_pin(-1);
	bp_close(&bp);
	for (unsigned i = 0; i < n; i++)
		add_row(&cells[i], &cells[0], op, mtu, reps, &load, gbs);
}

void stages_run(const struct bench_cfg *cfg, const struct stages_plan *pl)
{
	static const unsigned full_mtus[] = { 4096, 1024 }, quick_mtus[] = { 4096 };
	static const enum roce_wr_opcode ops[] = { ROCE_WR_RDMA_WRITE, ROCE_WR_RDMA_READ };
	double gbs[PRIM_COUNT];
	struct stage_prims *sp;

	if (cfg->cpu_a == cfg->cpu_b) {
		printf("stages: not measured: one engine thread a side needs two CPUs\n");
		return;
	}
	sp = stage_prims_new();
	stage_prims_run(cfg, sp, cfg->cpu_b, gbs);
	for (unsigned o = 0; o < 2; o++) {
		for (unsigned m = 0; m < (cfg->quick ? 1u : 2u); m++) {
			unsigned mtu = cfg->quick ? quick_mtus[m] : full_mtus[m];

			if ((pl->op < 0 || pl->op == (int)ops[o]) && (!pl->mtu || pl->mtu == mtu))
				stages_block(cfg, pl, sp, ops[o], mtu, gbs);
		}
	}
	stage_prims_free(sp);
}
