/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "lib/engine.h"
#include "lib/limits.h"
#include "lib/pair.h"
#include "lib/report.h"
#include "lib/traffic.h"

#define LAT_MAX_SAMPLES (4u << 20)   /* 32 MB of samples: 4 s at 1 us */

static enum roce_mtu mtu_enum(unsigned bytes)
{
	return bytes >= 4096 ? ROCE_MTU_4096 : bytes >= 2048 ? ROCE_MTU_2048
	     : bytes >= 1024 ? ROCE_MTU_1024 : bytes >= 512 ? ROCE_MTU_512
	     : ROCE_MTU_256;
}

bool engine_is_key(enum roce_wr_opcode op, uint32_t size, unsigned mtu,
		   unsigned qps)
{
	/* WRITE/READ 64 KB at 4 KB MTU (goodput, READ/WRITE) and 64 B WRITE
	 * (message rate) */
	return mtu == 4096 && qps == 1 &&
	       ((size == 65536 && op != ROCE_WR_SEND) ||
		(size == 64 && op == ROCE_WR_RDMA_WRITE));
}

static void cell(const struct bench_cfg *cfg, struct pair *p,
		 enum roce_wr_opcode op, uint32_t size, unsigned mtu,
		 unsigned cores, uint64_t seed)
{
	bool key = engine_is_key(op, size, mtu, p->nqp);
	struct bench_row *r = bench_row_add("engine", "goodput");

	r->mtu = mtu;
	r->qps = p->nqp;
	r->cores = cores;
	traffic_row(p, op, size, key ? cfg->reps_key : cfg->reps,
		    key ? cfg->secs_key : cfg->secs, seed, r);
}

void engine_matrix(const struct bench_cfg *cfg, const struct engine_plan *pl)
{
	uint64_t seed = 1;

	for (unsigned m = 0; m < pl->n_mtus; m++) {
		for (unsigned q = 0; q < pl->n_qps; q++) {
			struct pair p;

			pair_open_memlink(&p, mtu_enum(pl->mtus[m]), pl->qps[q]);
			for (unsigned c = 0; c < pl->n_cores; c++) {
				unsigned cores = pl->cores[c];

				if (cores == 2 && cfg->cpu_a == cfg->cpu_b)
					continue;
				pair_b_thread(&p, cores == 2 ? cfg->cpu_b : -1);
				bench_pin(cfg->cpu_a);
				for (unsigned o = 0; o < pl->n_ops; o++)
					for (unsigned s = 0; s < pl->n_sizes; s++)
						cell(cfg, &p, pl->ops[o], pl->sizes[s],
						     pl->mtus[m], cores, seed++ * 101);
				bench_pin(-1);
			}
			pair_teardown(&p);
		}
	}
}

void engine_latency(const struct bench_cfg *cfg, unsigned only_cores)
{
	uint64_t *t = malloc(LAT_MAX_SAMPLES * sizeof(*t));
	struct pair p;

	if (!t)
		bench_die("out of memory");
	pair_open_memlink(&p, ROCE_MTU_4096, 1);
	for (unsigned cores = 1; cores <= 2; cores++) {
		double p50[BENCH_MAX_REPS], p99[BENCH_MAX_REPS];
		struct bench_row *r50, *r99;
		struct bench_load_mark mark;
		size_t total = 0;

		if ((cores == 2 && cfg->cpu_a == cfg->cpu_b) ||
		    (only_cores && cores != only_cores))
			continue;
		pair_b_thread(&p, cores == 2 ? cfg->cpu_b : -1);
		bench_pin(cfg->cpu_a);
		bench_load_mark(&mark);
		for (unsigned i = 0; i < cfg->reps_key; i++) {
			size_t n = traffic_lat(&p, cfg->secs_key, t, LAT_MAX_SAMPLES);

			bench_sort_u64(t, n);
			p50[i] = (double)bench_pct(t, n, 50) * 1e-3;
			p99[i] = (double)bench_pct(t, n, 99) * 1e-3;
			total += n;
		}
		bench_pin(-1);
		r50 = bench_row_add("latency", "8 B WRITE round trip");
		r99 = bench_row_add("latency", "8 B WRITE round trip");
		bench_stat_of(p50, cfg->reps_key, true, &r50->st);
		bench_stat_of(p99, cfg->reps_key, true, &r99->st);
		bench_load_since(&mark, &r50->load);
		r99->load = r50->load;
		snprintf(r50->cond, sizeof(r50->cond), "p50");
		snprintf(r99->cond, sizeof(r99->cond), "p99");
		r50->size = r99->size = 8;
		r50->qps = r99->qps = 1;
		r50->cores = r99->cores = cores;
		snprintf(r50->unit, sizeof(r50->unit), "us");
		snprintf(r99->unit, sizeof(r99->unit), "us");
		snprintf(r50->note, sizeof(r50->note), "%zu round trips", total);
	}
	pair_teardown(&p);
	free(t);
}

static struct bench_row *ratio_row(const char *name, const char *op, unsigned cores)
{
	struct bench_row *r = bench_row_add("ratio", name);

	snprintf(r->op, sizeof(r->op), "%s", op);
	snprintf(r->unit, sizeof(r->unit), "x");
	r->size = 65536;
	r->mtu = 4096;
	r->qps = 1;
	r->cores = cores;
	return r;
}

void engine_ratios(const struct bench_cfg *cfg)
{
	struct pair p;

	pair_open_memlink(&p, ROCE_MTU_4096, 1);
	for (unsigned cores = 1; cores <= 2; cores++) {
		int b_cpu = cores == 2 ? cfg->cpu_b : -1;
		struct traffic_fn w = { &p, ROCE_WR_RDMA_WRITE, 65536, 7001, b_cpu, false };
		struct traffic_fn rd = { &p, ROCE_WR_RDMA_READ, 65536, 8001, b_cpu, false };
		struct bound *b;
		struct bench_stat se, sb;
		struct bench_row *r;

		if (cores == 2 && cfg->cpu_a == cfg->cpu_b)
			continue;
		b = bound_new(4096, cfg->cpu_b);
		bench_pin(cfg->cpu_a);
		r = ratio_row("WRITE / ICRC+copy bound", "WRITE", cores);
		bench_measure_pair(cfg->reps_key, cfg->secs_key, traffic_fn, &w,
				   cores == 1 ? bound_one_core : bound_two_cores, b,
				   &se, &sb, &r->st, &r->load);
		snprintf(r->note, sizeof(r->note), "medians: engine %.1f, bound %.1f Gbit/s",
			 se.med, sb.med);
		r = ratio_row("READ / WRITE", "READ", cores);
		bench_measure_pair(cfg->reps_key, cfg->secs_key, traffic_fn, &rd,
				   traffic_fn, &w, &se, &sb, &r->st, &r->load);
		snprintf(r->note, sizeof(r->note), "medians: READ %.1f, WRITE %.1f Gbit/s",
			 se.med, sb.med);
		bench_pin(-1);
		bound_free(b);
	}
	pair_teardown(&p);
}
