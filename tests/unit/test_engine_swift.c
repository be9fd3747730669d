/* SPDX-License-Identifier: MIT */
/*
 * Swift in the engine (src/engine/cc.c, src/cc/swift_algo.c):
 *   - one engine against a scripted peer on the virtual clock (stage.h):
 *     the window Swift grants bounds the PSNs in flight; every ACK that
 *     moves una gives it the round trip of the newest PSN it acknowledges
 *     (from the virtual time that PSN went out), its hops from the ACK's
 *     TTL; an ACK after a resend gives none (Karn); a timeout halves the
 *     window; CNPs are ignored;
 *   - the per-QP choice (roce_qp_set_cc_algo, CC_QP_ALGO) reaches the
 *     engine and roce_qp_cc_state shows the algorithm it runs; -1 gives
 *     the device's again; outside rp_prio_mask no algorithm runs;
 *   - two engines on the in-memory link with a 20 us one-way delay, on
 *     the virtual clock: a Swift QP's window settles where the flow
 *     scaling's target meets the round trip, and 1 MiB of WRITEs arrive
 *     intact.
 */
#include "stage.h"
#include "pair.h"
#include "roce/cc.h"
#include "roce/driver.h"

#define REMOTE_VA 0x10000ull
#define REMOTE_RKEY 0x4242u

/* Swift with a round target: base 20 us, 2 us a hop (one assumed), no
   flow scaling; 4 packets to start. */
static void set_swift(struct roce_context *ctx, uint8_t rp_mask, uint8_t algo)
{
	struct roce_cc_config c;

	roce_cc_config_default(&c);
	c.rp_prio_mask = rp_mask;
	c.algo = algo;
	c.swift.base_target = 20000;
	c.swift.h = 2000;
	c.swift.hops = 1;
	c.swift.fs_range = 0;
	c.swift.init_cwnd = 4000;
	assert_int_equal(roce_context_set_cc(ctx, &c), ROCE_OK);
}

static struct roce_qp_cc state_of(struct roce_qp *qp)
{
	struct roce_qp_cc q;

	assert_int_equal(roce_qp_cc_state(qp, &q), ROCE_OK);
	return q;
}

/* An ACK of everything up to psn, its IP TTL ttl */
static void inject_ack_ttl(struct stage *st, uint32_t psn, uint32_t msn, uint8_t ttl)
{
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_RC_ACK, psn, false);

	h.aeth.msn = msn;
	h.ip.ttl = ttl;
	stage_inject(st, &h, NULL, 0);
}

/* A CNP from the peer (BECN), taken */
static void inject_cnp(struct stage *st)
{
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_CNP, 0, false);

	h.bth.resv8a = 0x40;
	stage_inject(st, &h, NULL, 0);
	stage_run(st);
}

static void test_window_and_rtt(void **state)
{
	const struct stage_opts o = { .timeout = 8 };   /* 1.05 ms */
	struct stage *st = stage_open(&o);
	struct roce_qp_cc q;
	uint32_t psn = STAGE_SQ_PSN;

	(void)state;
	set_swift(st->ctx, 0x01, ROCE_CC_ALGO_SWIFT);
	stage_run(st);
	q = state_of(st->qp);
	assert_int_equal(q.algo, ROCE_CC_ALGO_SWIFT);
	assert_int_equal(q.cwnd_upkts, 4000000);
	assert_int_equal(q.window, 4);
	/* 16 packets of 256 bytes: four go, the window is closed */
	stage_post_write(st, 1, 16 * 256, REMOTE_VA, REMOTE_RKEY);
	assert_int_equal(stage_run(st), 4);
	assert_int_equal(stage_run(st), 0);
	/* 10 us later two are acknowledged: a 10 us sample, below the 22 us
	   target: + 1 * 2 / 4 packets; two more go */
	st->vclock += 10000;
	inject_ack_ttl(st, psn + 1, 0, 64);
	assert_int_equal(stage_run(st), 2);
	q = state_of(st->qp);
	assert_int_equal(q.rtt_ns, 10000);
	assert_int_equal(q.target_ns, 22000);
	assert_int_equal(q.cwnd_upkts, 4500000);
	assert_int_equal(q.increases, 1);
	/* 30 us on, the next two (sent at the start: 40 us) with TTL 61: three
	   hops, target 26 us; 1 - 0.8 * 14 / 40 = 0.72: 3.24 packets */
	st->vclock += 30000;
	inject_ack_ttl(st, psn + 3, 0, 61);
	stage_run(st);
	q = state_of(st->qp);
	assert_int_equal(q.rtt_ns, 40000);
	assert_int_equal(q.target_ns, 26000);
	assert_int_equal(q.cwnd_upkts, 3240000);
	assert_int_equal(q.window, 3);
	assert_int_equal(q.cuts, 1);
	/* nothing more acknowledged: the timer (1.05 ms) fires, the window
	   halves (1.62 packets) and the QP goes back to una */
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	st->vclock += 2000000;
	assert_true(stage_run(st) >= 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 4);
	q = state_of(st->qp);
	assert_int_equal(q.cwnd_upkts, 1620000);
	assert_int_equal(q.window, 1);
	assert_int_equal(q.cuts, 2);
	/* its ACK answers a resend: no sample (Karn), nothing moves */
	st->vclock += 5000;
	inject_ack_ttl(st, psn + 4, 0, 64);
	stage_run(st);
	q = state_of(st->qp);
	assert_int_equal(q.rtt_ns, 40000);
	assert_int_equal(q.cwnd_upkts, 1620000);
	/* CNPs: ignored, counted so */
	inject_cnp(st);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RP_CNP_IGNORED), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RP_CNP_HANDLED), 0);
	stage_close(st);
}

/* The QP's own algorithm in place of the device's, and back */
static void test_qp_choice(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_drv *drv = roce_context_driver(st->ctx);
	int own = 7;

	(void)state;
	set_swift(st->ctx, 0x01, ROCE_CC_ALGO_DCQCN);
	stage_run(st);
	assert_int_equal(state_of(st->qp).algo, ROCE_CC_ALGO_DCQCN);
	assert_int_equal(roce_qp_set_cc_algo(st->qp, ROCE_CC_ALGO_SWIFT), ROCE_OK);
	assert_int_equal(roce_drv_cc_qp_algo(drv, roce_qp_num(st->qp), &own), ROCE_OK);
	assert_int_equal(own, ROCE_CC_ALGO_SWIFT);
	stage_run(st);                                  /* the engine takes it */
	assert_int_equal(state_of(st->qp).algo, ROCE_CC_ALGO_SWIFT);
	assert_int_equal(state_of(st->qp).window, 4);
	stage_post_write(st, 1, 16 * 256, REMOTE_VA, REMOTE_RKEY);
	assert_int_equal(stage_run(st), 4);             /* Swift's window */
	stage_inject_ack(st, STAGE_SQ_PSN + 15, 0, 1);
	stage_run(st);
	stage_run(st);
	/* -1: the device's DCQCN again, which takes the CNP */
	assert_int_equal(roce_qp_set_cc_algo(st->qp, -1), ROCE_OK);
	assert_int_equal(roce_drv_cc_qp_algo(drv, roce_qp_num(st->qp), &own), ROCE_OK);
	assert_int_equal(own, -1);
	stage_run(st);
	assert_int_equal(state_of(st->qp).algo, ROCE_CC_ALGO_DCQCN);
	inject_cnp(st);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RP_CNP_HANDLED), 1);
	assert_true(state_of(st->qp).limited);
	assert_int_equal(roce_qp_set_cc_algo(st->qp, ROCE_CC_ALGO_COUNT), ROCE_E_INVAL);
	assert_int_equal(roce_qp_set_cc_algo(st->qp, -2), ROCE_E_INVAL);
	assert_int_equal(roce_qp_set_cc_algo(NULL, 0), ROCE_E_INVAL);
	stage_close(st);
}

/* Outside rp_prio_mask no algorithm runs, whatever the QP chose: no
   window of Swift's, no sample taken */
static void test_rp_off(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_qp_cc q;

	(void)state;
	set_swift(st->ctx, 0x02, ROCE_CC_ALGO_SWIFT);
	assert_int_equal(roce_qp_set_cc_algo(st->qp, ROCE_CC_ALGO_SWIFT), ROCE_OK);
	stage_run(st);
	stage_post_write(st, 1, 16 * 256, REMOTE_VA, REMOTE_RKEY);
	assert_int_equal(stage_run(st), 16);
	st->vclock += 10000;
	stage_inject_ack(st, STAGE_SQ_PSN + 15, 0, 1);
	stage_run(st);
	q = state_of(st->qp);
	assert_int_equal(q.rtt_ns, 0);
	assert_int_equal(q.increases, 0);
	stage_close(st);
}

/* ---- two engines, a 20 us link ------------------------------------------ */

static uint64_t cnt(struct roce_context *ctx, enum roce_cnt id)
{
	return roce_cnt_read(roce_device_counters(roce_context_device(ctx)), id);
}

#define CHUNK (64u << 10)
#define CHUNKS 16u              /* 1 MiB */

static void test_settles_on_delay(void **state)
{
	struct pair_opts o = {
		.mtu = ROCE_MTU_1024,
		.buf_len = 2 * CHUNKS * CHUNK,
		.virtual_time = true,
		.link = { .delay_ns = 20000 },
	};
	struct roce_cc_config c;
	struct pair *p;
	uint64_t lo = UINT64_MAX, hi = 0, polls = 0;
	unsigned posted = 0, done = 0;
	struct roce_qp_cc q;

	(void)state;
	p = pair_open(&o);
	roce_cc_config_default(&c);             /* Swift's defaults */
	c.rp_prio_mask = 0x01;
	c.algo = ROCE_CC_ALGO_SWIFT;
	assert_int_equal(roce_context_set_cc(p->a.ctx, &c), ROCE_OK);
	pair_pattern(p->a.buf, CHUNKS * CHUNK, 29);
	while (done < CHUNKS) {
		struct roce_wc wc[4];
		int n;

		while (posted < CHUNKS && posted - done < 4) {
			struct roce_sge sge = { .addr = (uintptr_t)p->a.buf + posted * CHUNK,
						.length = CHUNK, .lkey = p->a.mr->lkey };
			struct roce_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED,
				.wr.rdma = { .remote_addr = (uintptr_t)p->b.buf +
							    (CHUNKS + posted) * CHUNK,
					     .rkey = p->b.mr->rkey },
			};
			struct roce_send_wr *bad = NULL;

			assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_OK);
			posted++;
		}
		pair_poll(p);
		++polls;
		assert_true(polls < 200000);            /* 200 ms of virtual time */
		n = roce_poll_cq(p->a.scq, 4, wc);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++, done++) {
			assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
			assert_int_equal(wc[i].wr_id, done);
		}
		/* the second half: the window settled */
		if (done >= CHUNKS / 2 && polls % 100 == 0) {
			q = state_of(p->a.qp);
			lo = q.cwnd_upkts < lo ? q.cwnd_upkts : lo;
			hi = q.cwnd_upkts > hi ? q.cwnd_upkts : hi;
		}
	}
	assert_memory_equal(p->b.buf + CHUNKS * CHUNK, p->a.buf, CHUNKS * CHUNK);
	q = state_of(p->a.qp);
	assert_int_equal(q.algo, ROCE_CC_ALGO_SWIFT);
	/* from 32 packets down to where base 25 + 1 hop * 1 + the flow
	   scaling meets the 40 us round trip: 125 * sqrt(0.1) * (10 -
	   sqrt(w)) / (sqrt(w) * (10 - sqrt(0.1))) = 14 us at sqrt(w) = 2.257,
	   w = 5.09 packets; and it stays there, a few millionths either side
	   (a delay equal to the target is a decrease of nothing) */
	assert_int_equal(q.rtt_ns, 40000);         /* two 20 us crossings */
	assert_true(q.cuts > 0);
	assert_in_range(lo, 5000000, 5200000);
	assert_in_range(hi, 5000000, 5200000);
	assert_true(hi - lo < 10000);                   /* settled: 1 % of a packet */
	assert_int_equal(cnt(p->a.ctx, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(cnt(p->a.ctx, ROCE_CNT_RETRANSMISSIONS), 0);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_and_rtt),
		cmocka_unit_test(test_qp_choice),
		cmocka_unit_test(test_rp_off),
		cmocka_unit_test(test_settles_on_delay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
