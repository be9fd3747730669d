/* SPDX-License-Identifier: MIT */
/*
 * The tail-loss probe of adaptive retransmission (src/engine/recovery.c), one
 * engine against a scripted peer on the virtual clock (stage.h), MTU 256,
 * a measured round trip of 10 us (srtt 10 us, so 2 srtt = 20 us; the
 * timer's floor is 100 us):
 *   - a lost tail: the message's last packet goes out again with AckReq
 *     at 2 srtt, its ACK completes the WRITE: no timeout;
 *   - after a NAK the stall is probed from the NAKed PSN (the resent
 *     packet may be lost again, and the responder drops what follows it
 *     in silence);
 *   - a lost probe: a second one, from una, at 4 srtt; then the timer;
 *   - a spurious probe (the round trip grew) doubles the next stall's
 *     wait until a round trip is measured again (Karn and Partridge);
 *   - probes spend no retry (IBA 9.7.6.1.3): a silent peer still ends the
 *     QP after retry_cnt timeouts, no sooner;
 *   - none with the IBA timer alone (adaptive retransmission off).
 */
#include "stage.h"
#include "roce/cc.h"

#define REMOTE_VA 0x10000ull
#define REMOTE_RKEY 0x4242u
#define NAK_SEQ (ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR)

static void set_rto(struct stage *st, bool adaptive)
{
	struct roce_cc_config c;

	roce_cc_config_default(&c);
	c.adaptive_rto = adaptive;
	assert_int_equal(roce_context_set_cc(st->ctx, &c), ROCE_OK);
}

static void post_write(struct stage *st, uint64_t wr_id, uint32_t len)
{
	stage_post_write(st, wr_id, len, REMOTE_VA, REMOTE_RKEY);
}

/* A stage whose QP has measured one 10 us round trip (srtt 10 us). */
static struct stage *measured(const struct stage_opts *o)
{
	struct stage *st = o ? stage_open(o) : stage_open_default();

	set_rto(st, true);
	post_write(st, 1, 64);
	assert_int_equal(stage_run(st), 1);
	st->vclock += 10000;
	stage_inject_ack(st, st->rx[0].h.bth.psn, 0, 1);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	return st;
}

/* A three-packet WRITE out; its first PSN. */
static uint32_t three(struct stage *st, uint64_t wr_id)
{
	post_write(st, wr_id, 3 * 256);
	assert_int_equal(stage_run(st), 3);
	assert_false(st->rx[1].h.bth.ackreq);
	assert_true(st->rx[2].h.bth.ackreq);
	return st->rx[0].h.bth.psn;
}

static void test_lost_tail(void **state)
{
	struct stage *st = measured(NULL);
	uint32_t psn;

	(void)state;
	psn = three(st, 2);                     /* the last packet is lost */
	assert_int_equal(stage_advance(st, 19000), 0);
	assert_int_equal(stage_advance(st, 1000), 1);   /* at 2 srtt, not 100 us */
	assert_int_equal(st->rx[0].h.bth.psn, psn + 2);
	assert_int_equal(st->rx[0].h.bth.opcode, ROCE_OP_RC_WRITE_LAST);
	assert_true(st->rx[0].h.bth.ackreq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 1);
	stage_inject_ack(st, psn + 2, 0, 2);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 3 * 256);
	/* nothing outstanding: no more probes, no timeout */
	assert_int_equal(stage_advance(st, 1000000), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 1);
	stage_close(st);
}

static void test_after_nak(void **state)
{
	struct stage *st = measured(NULL);
	uint32_t psn;

	(void)state;
	psn = three(st, 2);
	/* the first packet is lost: the responder NAKs it; the requester
	   goes back and resends all three */
	stage_inject_ack(st, psn, NAK_SEQ, 1);
	assert_int_equal(stage_run(st), 3);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	/* ... and the resent first packet is lost again: silence. The probe
	   goes back to the NAKed PSN, not to the last packet */
	assert_int_equal(stage_advance(st, 19000), 0);
	assert_int_equal(stage_advance(st, 1000), 3);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	assert_int_equal(st->rx[2].h.bth.psn, psn + 2);
	stage_inject_ack(st, psn + 2, 0, 2);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 3 * 256);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 1);
	stage_close(st);
}

static void test_lost_probe(void **state)
{
	struct stage *st = measured(NULL);
	uint32_t psn;

	(void)state;
	psn = three(st, 2);
	assert_int_equal(stage_advance(st, 20000), 1);  /* the last packet: lost */
	assert_int_equal(st->rx[0].h.bth.psn, psn + 2);
	/* no ACK two round trips on: once more, from una */
	assert_int_equal(stage_advance(st, 19000), 0);
	assert_int_equal(stage_advance(st, 1000), 3);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 2);
	/* lost as well: no third probe; the timer at 100 us (the floor),
	   counted from the last packet sent new, then its own probes; its
	   first resend is una's packet alone (F-RTO, recovery.c), with
	   AckReq */
	assert_int_equal(stage_advance(st, 59000), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(stage_advance(st, 1000), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	assert_true(st->rx[0].h.bth.ackreq);
	stage_inject_ack(st, psn + 2, 0, 2);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 3 * 256);
	stage_close(st);
}

/* The round trip grew past 2 srtt (a queue built up): the first stall's
   probe is spurious, its ACK gives no sample (Karn), and the next stall's
   probe waits twice as long (4 srtt): that window's ACK comes first and
   is a sample, which takes the backoff away again. Without the backoff
   every window would be probed and srtt never measured again. */
static void test_probe_backs_off(void **state)
{
	struct stage *st = measured(NULL);
	uint32_t psn;

	(void)state;
	psn = three(st, 2);
	assert_int_equal(stage_advance(st, 20000), 1);  /* 2 srtt: probed */
	assert_int_equal(st->rx[0].h.bth.psn, psn + 2);
	st->vclock += 5000;                             /* the ACK, 25 us on */
	stage_inject_ack(st, psn + 2, 0, 2);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 3 * 256);
	/* the next stall: no probe at 2 srtt, nor by its ACK at 30 us */
	psn = three(st, 3);
	assert_int_equal(stage_advance(st, 30000), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 1);
	stage_inject_ack(st, psn + 2, 0, 3);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 3, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 3 * 256);
	/* a sample of 30 us: srtt 7/8 x 10 + 1/8 x 30 = 12.5 us, no backoff:
	   a probe at 25 us */
	psn = three(st, 4);
	assert_int_equal(stage_advance(st, 24000), 0);
	assert_int_equal(stage_advance(st, 1000), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 2);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 2);
	stage_close(st);
}

/* retry_cnt 2 and a peer that went away: the QP fails at the third
   timeout, as without probes; the probes between spent nothing. The
   tries come at the adaptive timer's pace (100, 200, 400 us), the error
   no sooner than IBA's detection time: 3 x 67.1 ms from the first packet */
static void test_no_retry_spent(void **state)
{
	const struct stage_opts o = { .retry_cnt = 2 };
	struct stage *st = measured(&o);
	uint64_t t0;

	(void)state;
	three(st, 2);
	t0 = st->vclock;
	for (int i = 0; i < 200 && stage_qp_state(st) != ROCE_QPS_ERR; i++)
		stage_advance(st, 10000);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 2);
	/* two per stall: the first, and one after each of the two resends */
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 6);
	st->vclock = t0 + 3 * (4096ull << 14) - 1;
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	stage_advance(st, 1);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_ERR);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 3);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 6);
	stage_expect_wc(st->scq, 2, ROCE_WC_RETRY_EXC_ERR, ROCE_WC_RDMA_WRITE, 0);
	stage_close(st);
}

static void test_off_without_adaptive(void **state)
{
	const struct stage_opts o = { .timeout = 5 };   /* 131 us */
	struct stage *st = measured(&o);
	uint32_t psn;

	(void)state;
	set_rto(st, false);
	psn = three(st, 2);
	assert_int_equal(stage_advance(st, 131000), 0);
	assert_int_equal(stage_advance(st, 100), 3);    /* the IBA timer only */
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 0);
	stage_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_tail),
		cmocka_unit_test(test_after_nak),
		cmocka_unit_test(test_lost_probe),
		cmocka_unit_test(test_probe_backs_off),
		cmocka_unit_test(test_no_retry_spent),
		cmocka_unit_test(test_off_without_adaptive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
