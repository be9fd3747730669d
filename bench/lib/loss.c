/* SPDX-License-Identifier: MIT */
/*
 * The loss curve on a virtual clock: the figures are those of engines that
 * never wait on a CPU, on a 100 Gbit/s wire, so they are the same on any
 * machine (and the same every run: one seed). The clock moves as
 * roce-demo --virtual-time moves it (tools/roce-demo/vtime.c): after each
 * poll of both engines, by the time the busier one's bytes take on the
 * wire, or by a poll period when neither sent anything.
 */
#include <stdio.h>
#include <string.h>

#include "lib/loss.h"
#include "lib/report.h"
#include "lib/pair.h"
#include "roce/cc.h"

#define LOSS_MSG      65536u
#define LOSS_INFLIGHT 128u      /* roce-demo's and perftest's tx depth */
#define LOSS_WIRE_GBPS 100u
#define LOSS_POLL_NS  100u
#define LOSS_SEED     7u

/* The loss points, in millionths: 0.01, 0.1, 1, 2, 5, 10 % */
static const uint32_t loss_ppm[] = { 100, 1000, 10000, 20000, 50000, 100000 };
#define LOSS_POINTS (sizeof(loss_ppm) / sizeof(loss_ppm[0]))

static void die_pair(const struct pair *p, const char *what)
{
	bench_die("loss: %s: %s", what, p->err[0] ? p->err : "failed");
}

/* The loss recovery both sides run: the device's defaults (adaptive
   window, adaptive timer, tail-loss probes), IBA's alone (--iba-strict),
   and the fixed 64 KB window with the adaptive timer that was the
   recommended configuration before the defaults had it. */
enum loss_mode { LOSS_DEFAULT, LOSS_IBA, LOSS_FIXED, LOSS_MODES };
static const char *const mode_cond[LOSS_MODES] = { "default", "iba", "cc" };
static const char *const mode_what[LOSS_MODES] = {
	"the defaults", "go-back-N as IBA says", "window 64 KB + adaptive RTO",
};

/* Goodput in Gbit/s of msgs 64 KB WRITEs A -> B at loss ppm, in virtual
   time, both sides recovering as mode says. */
static double one_run(uint32_t ppm, enum loss_mode mode, unsigned msgs, uint64_t *retx)
{
	struct pair_opts o = {
		.virtual_time = true, .mtu = ROCE_MTU_4096,
		.link = { .seed = LOSS_SEED, .loss = ppm / 1e6 },
		.sq_depth = 2 * LOSS_INFLIGHT, .buf_len = 2 * LOSS_MSG,
	};
	struct pair p;
	struct roce_wc wc[32];
	unsigned posted = 0, done = 0, inflight = 0;
	uint64_t t0, tx_a = 0, tx_b = 0;

	if (pair_setup(&p, &o) != ROCE_OK)
		die_pair(&p, "setup");
	{
		/* each mode's config written, the defaults' too: the pair
		   set-up takes ROCE_IBA_STRICT from the environment */
		struct roce_cc_config c;

		roce_cc_config_default(&c);
		if (mode != LOSS_DEFAULT)
			roce_cc_config_iba_strict(&c);
		if (mode == LOSS_FIXED) {
			c.window_kb = 64;
			c.adaptive_rto = true;
		}
		if (roce_context_set_cc(p.a.ctx, &c) != ROCE_OK ||
		    roce_context_set_cc(p.b.ctx, &c) != ROCE_OK)
			bench_die("loss: roce_context_set_cc refused the config");
	}
	t0 = p.vclock;
	while (done < msgs) {
		uint64_t a, b, bytes, ns;
		int n;

		while (posted < msgs && inflight < LOSS_INFLIGHT) {
			struct roce_sge sge = { .addr = (uintptr_t)p.a.buf, .length = LOSS_MSG,
						.lkey = p.a.mr->lkey };
			struct roce_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED,
			}, *bad;

			wr.wr.rdma.remote_addr = (uintptr_t)p.b.buf;
			wr.wr.rdma.rkey = p.b.mr->rkey;
			if (roce_post_send(p.a.qp, &wr, &bad) != ROCE_OK)
				bench_die("loss: post_send refused");
			posted++;
			inflight++;
		}
		roce_engine_poll(p.a.ctx);
		roce_engine_poll(p.b.ctx);
		while ((n = roce_poll_cq(p.a.scq, 32, wc)) > 0) {
			for (int i = 0; i < n; i++)
				if (wc[i].status != ROCE_WC_SUCCESS)
					bench_die("loss: WRITE %llu at %u ppm: %s",
						  (unsigned long long)wc[i].wr_id, ppm,
						  roce_wc_status_str(wc[i].status));
			done += (unsigned)n;
			inflight -= (unsigned)n;
		}
		/* the clock: the busier side's bytes on the wire */
		a = pair_cnt(&p.a, ROCE_CNT_TX_BYTES) - tx_a;
		b = pair_cnt(&p.b, ROCE_CNT_TX_BYTES) - tx_b;
		tx_a += a;
		tx_b += b;
		bytes = a > b ? a : b;
		ns = (bytes * 8 + LOSS_WIRE_GBPS - 1) / LOSS_WIRE_GBPS;
		p.vclock += ns > LOSS_POLL_NS ? ns : LOSS_POLL_NS;
		if (p.vclock - t0 > 60000000000ull)
			bench_die("loss: %u ppm: no progress in 60 s of virtual time", ppm);
	}
	*retx = pair_cnt(&p.a, ROCE_CNT_RETRANSMISSIONS);
	{
		double gbps = (double)msgs * LOSS_MSG * 8 / (double)(p.vclock - t0);

		pair_teardown(&p);
		return gbps;
	}
}

void loss_run(const struct bench_cfg *cfg)
{
	unsigned msgs = cfg->quick ? 1000 : 5000;

	for (unsigned m = 0; m < LOSS_MODES; m++) {
		double base = 0;

		for (unsigned i = 0; i < LOSS_POINTS; i++) {
			struct bench_row *r = bench_row_add("loss", LOSS_ROW_GOODPUT);
			double v;

			v = one_run(loss_ppm[i], m, msgs, &r->retx);
			snprintf(r->op, sizeof(r->op), "WRITE");
			snprintf(r->cond, sizeof(r->cond), "%s", mode_cond[m]);
			r->size = LOSS_MSG;
			r->mtu = 4096;
			r->qps = loss_ppm[i];   /* the loss point, ppm */
			r->cores = 0;
			snprintf(r->unit, sizeof(r->unit), "Gbit/s");
			bench_stat_of(&v, 1, false, &r->st);
			r->msgs = msgs;
			snprintf(r->note, sizeof(r->note), "%g %% loss, %s, virtual time, %llu resent",
				 loss_ppm[i] / 1e4, mode_what[m], (unsigned long long)r->retx);
			if (i == 0)
				base = v;
			r = bench_row_add("loss", LOSS_ROW_RATIO);
			snprintf(r->op, sizeof(r->op), "WRITE");
			snprintf(r->cond, sizeof(r->cond), "%s", mode_cond[m]);
			r->size = LOSS_MSG;
			r->qps = loss_ppm[i];
			snprintf(r->unit, sizeof(r->unit), "x");
			v = base > 0 ? v / base : 0;
			bench_stat_of(&v, 1, false, &r->st);
			snprintf(r->note, sizeof(r->note), "%g %% loss / 0.01 %%, %s",
				 loss_ppm[i] / 1e4, mode_cond[m]);
		}
	}
}
