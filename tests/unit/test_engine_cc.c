/* SPDX-License-Identifier: MIT */
/*
 * Congestion control in the engine (src/engine/cc.c), one engine against
 * a scripted peer on the virtual clock (stage.h):
 *   - marking: data packets ECT(0) (or ECT(1)) once the QP's priority is
 *     a reaction point's, Not-ECT otherwise; ACKs likewise;
 *   - NP: a CE-marked request gets a CNP (opcode 0x81, BECN, the peer's
 *     QPN, PSN 0, 16 zero bytes, DSCP 48 and ECT(1)) besides its ACK, at
 *     most one per min_time_between_cnps; none with the NP off;
 *   - RP: a CNP cuts the QP's rate as DCQCN says (roce_qp_cc_state), and
 *     the arbiter then paces its packets to that rate on the virtual
 *     clock; the rate recovers to line rate and pacing ends; with the RP
 *     off the CNP counts as ignored and nothing changes;
 *   - the bounded window: no more than window_kb unacknowledged, an ACK
 *     opens it again;
 *   - adaptive retransmission: the timer follows the measured round trip
 *     (at least rto_min_us), backs off per timeout, never exceeds the QP's
 *     own timeout, and starts at 16 rto_min_us before the first sample
 *     (its tail-loss probes: test_engine_probe); a paced QP's timer
 *     allows for the time its pacer spreads the window over;
 *   - bad configurations are refused.
 */
#include "stage.h"
#include "roce/cc.h"
#include "roce/driver.h"

#define REMOTE_VA 0x10000ull
#define REMOTE_RKEY 0x4242u

static void set_cc(struct stage *st, uint8_t np, uint8_t rp, uint8_t ecn)
{
	struct roce_cc_config c;

	roce_cc_config_default(&c);
	c.np_prio_mask = np;
	c.rp_prio_mask = rp;
	if (ecn)
		c.ecn = ecn;
	assert_int_equal(roce_context_set_cc(st->ctx, &c), ROCE_OK);
}

static void post_write(struct stage *st, uint64_t wr_id, uint32_t len)
{
	stage_post_write(st, wr_id, len, REMOTE_VA, REMOTE_RKEY);
}

static void inject_cnp(struct stage *st)
{
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_CNP, 0, false);

	h.bth.resv8a = 0x40;
	h.ip.tos = 48 << 2 | 1;
	stage_inject(st, &h, NULL, 0);
}

static void test_marking(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	post_write(st, 1, 100);
	assert_int_equal(stage_run(st), 1);
	assert_int_equal(st->rx[0].h.ip.tos, 0);        /* CC off: Not-ECT */
	set_cc(st, 0, 0x01, 0);                         /* priority 0: ECT(0) */
	post_write(st, 2, 100);
	assert_int_equal(stage_run(st), 1);
	assert_int_equal(st->rx[0].h.ip.tos, 2);
	set_cc(st, 0, 0x01, 1);                         /* ECT(1) asked for */
	post_write(st, 3, 100);
	assert_int_equal(stage_run(st), 1);
	assert_int_equal(st->rx[0].h.ip.tos, 1);
	set_cc(st, 0, 0x02, 0);                         /* another priority only */
	post_write(st, 4, 100);
	assert_int_equal(stage_run(st), 1);
	assert_int_equal(st->rx[0].h.ip.tos, 0);
	stage_close(st);
}

/* A WRITE ONLY from the peer, CE-marked or not; the frames it drew. */
static unsigned inject_write(struct stage *st, uint32_t psn, bool ce)
{
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_RC_WRITE_ONLY, psn, true);
	uint8_t data[64] = { 1, 2, 3 };

	h.ip.tos = ce ? 3 : 2;
	h.reth.va = stage_va(st, 0);
	h.reth.rkey = st->mr->rkey;
	h.reth.len = sizeof(data);
	stage_inject(st, &h, data, sizeof(data));
	return stage_run(st);
}

static const struct stage_frame *find_op(struct stage *st, uint8_t opcode)
{
	for (unsigned i = 0; i < st->nrx; i++)
		if (st->rx[i].h.bth.opcode == opcode)
			return &st->rx[i];
	return NULL;
}

static void test_np_cnp(void **state)
{
	static const uint8_t zero[16];
	struct stage *st = stage_open_default();
	const struct stage_frame *f;

	(void)state;
	set_cc(st, 0x01, 0, 0);
	assert_int_equal(inject_write(st, STAGE_RQ_PSN, true), 2);
	f = find_op(st, ROCE_OP_CNP);
	assert_non_null(f);
	assert_non_null(find_op(st, ROCE_OP_RC_ACK));   /* the request still answered */
	/* A17.9.3: BECN, PSN 0, A clear, the 16 reserved bytes zero; to the
	   QP whose packet was marked (stage_run checked the DestQP: the peer's) */
	assert_int_equal(f->h.bth.resv8a, 0x40);
	assert_int_equal(f->h.bth.psn, 0);
	assert_false(f->h.bth.ackreq);
	assert_memory_equal(f->h.cnp, zero, 16);
	assert_int_equal(f->len, 0);
	assert_int_equal(f->h.ip.tos, 48 << 2 | 1);     /* cnp_dscp 48, ECT(1) */
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_CNP_SENT), 1);
	/* 1 us later: within min_time_between_cnps (4 us): no CNP */
	st->vclock += 1000;
	assert_int_equal(inject_write(st, STAGE_RQ_PSN + 1, true), 1);
	assert_null(find_op(st, ROCE_OP_CNP));
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS), 2);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_CNP_SENT), 1);
	/* not marked: nothing */
	st->vclock += 10000;
	assert_int_equal(inject_write(st, STAGE_RQ_PSN + 2, false), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS), 2);
	/* 4 us after the first: the next CNP */
	assert_int_equal(inject_write(st, STAGE_RQ_PSN + 3, true), 2);
	assert_non_null(find_op(st, ROCE_OP_CNP));
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_CNP_SENT), 2);
	/* a marked ACK: counted, not answered (the data did not cross the
	   congestion) */
	{
		struct roce_hdrs h;

		post_write(st, 9, 64);
		assert_int_equal(stage_run(st), 1);
		st->vclock += 10000;
		h = stage_hdrs(st, ROCE_OP_RC_ACK, st->rx[0].h.bth.psn, false);
		h.aeth.syndrome = 0;
		h.aeth.msn = 1;
		h.ip.tos = 3;
		stage_inject(st, &h, NULL, 0);
		assert_int_equal(stage_run(st), 0);
		assert_int_equal(stage_cnt(st, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS), 4);
		assert_int_equal(stage_cnt(st, ROCE_CNT_NP_CNP_SENT), 2);
	}
	/* NP off for the QP's priority: counted, not answered */
	set_cc(st, 0x02, 0, 0);
	st->vclock += 10000;
	assert_int_equal(inject_write(st, STAGE_RQ_PSN + 4, true), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS), 5);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NP_CNP_SENT), 2);
	stage_close(st);
}

/* The frame length of a 256-byte WRITE MIDDLE: Ethernet 14, IPv4 20, UDP
   8, BTH 12, payload 256, ICRC 4 */
#define MIDDLE_LEN 314u

static void test_rp_pacing(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_qp_cc q;
	uint64_t gap, t0;
	unsigned n, total = 0;

	(void)state;
	set_cc(st, 0, 0x01, 0);
	inject_cnp(st);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RP_CNP_HANDLED), 1);
	assert_int_equal(roce_qp_cc_state(st->qp, &q), ROCE_OK);
	assert_true(q.limited);
	assert_int_equal(q.rate_kbps, 50048829);        /* test_dcqcn's first cut */
	assert_int_equal(q.cuts, 1);
	{
		/* the same through the register file's rate window */
		bool limited = false;
		uint32_t mbps = 0;

		assert_int_equal(roce_drv_cc_qp_rate(roce_context_driver(st->ctx),
						     roce_qp_num(st->qp), &limited, &mbps), ROCE_OK);
		assert_true(limited);
		assert_int_equal(mbps, 50048);
	}
	/* 64 packets of 256 bytes: the first goes at once, the next waits
	   its gap at ~50 Gbit/s */
	post_write(st, 1, 64 * 256);
	assert_int_equal(stage_run(st), 1);
	total = 1;
	gap = (uint64_t)MIDDLE_LEN * 8000000u / 50048829u;      /* 50 ns */
	assert_int_equal(gap, 50);
	/* not yet */
	assert_int_equal(stage_advance(st, gap / 2), 0);
	/* its time (the first was 330 bytes with its RETH: a longer gap) */
	t0 = st->vclock;
	for (n = 0; total < 64 && st->vclock - t0 < 100000; ) {
		n = stage_advance(st, gap);
		assert_true(n <= 1);    /* never a burst: one per gap */
		total += n;
	}
	assert_int_equal(total, 64);
	/* 63 gaps at 50 ns (and a few sub-gap steps for the first) */
	assert_in_range(st->vclock - t0, 62 * gap, 66 * gap);
	stage_close(st);
}

static void test_rp_recovers(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_qp_cc q;

	(void)state;
	set_cc(st, 0, 0x01, 0);
	inject_cnp(st);
	stage_run(st);
	/* 12 rate-increase periods (300 us) later the rate is back at line:
	   the next packet finds it unpaced */
	st->vclock += 12 * 300000;
	post_write(st, 1, 8 * 256);
	assert_int_equal(stage_run(st), 8);             /* all at once */
	assert_int_equal(roce_qp_cc_state(st->qp, &q), ROCE_OK);
	assert_false(q.limited);
	assert_int_equal(q.rate_kbps, 100000000);
	assert_true(q.increases >= 9);
	stage_close(st);
}

static void test_rp_off(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_qp_cc q;

	(void)state;
	set_cc(st, 0x01, 0x02, 0);      /* RP on another priority */
	inject_cnp(st);
	stage_run(st);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RP_CNP_IGNORED), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RP_CNP_HANDLED), 0);
	assert_int_equal(roce_qp_cc_state(st->qp, &q), ROCE_OK);
	assert_false(q.limited);
	post_write(st, 1, 8 * 256);
	assert_int_equal(stage_run(st), 8);
	stage_close(st);
}

static void set_loss_cfg(struct stage *st, uint32_t window_kb, bool adaptive, uint32_t min_us)
{
	struct roce_cc_config c;

	roce_cc_config_default(&c);
	c.window_kb = window_kb;
	c.adaptive_rto = adaptive;
	c.rto_min_us = min_us;
	assert_int_equal(roce_context_set_cc(st->ctx, &c), ROCE_OK);
}

/* 1 KB with a 256-byte MTU: four packets in flight at most */
static void test_window(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	set_loss_cfg(st, 1, false, 100);
	post_write(st, 1, 16 * 256);
	assert_int_equal(stage_run(st), 4);
	assert_int_equal(st->rx[3].h.bth.psn, STAGE_SQ_PSN + 3);
	assert_int_equal(stage_run(st), 0);             /* closed */
	stage_inject_ack(st, STAGE_SQ_PSN + 1, 0, 0);   /* two acknowledged */
	assert_int_equal(stage_run(st), 2);
	assert_int_equal(st->rx[1].h.bth.psn, STAGE_SQ_PSN + 5);
	/* no window: all the rest at once */
	set_loss_cfg(st, 0, false, 100);
	stage_inject_ack(st, STAGE_SQ_PSN + 5, 0, 0);
	assert_int_equal(stage_run(st), 10);
	stage_close(st);
}

/* A QP's own window (CC_QP_WINDOW_KB) in place of the device's, and back */
static void test_qp_window(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	set_loss_cfg(st, 0, false, 100);
	assert_int_equal(roce_qp_set_window_kb(st->qp, 2), ROCE_OK);   /* 8 packets */
	assert_int_equal(roce_qp_set_window_kb(st->qp, (1u << 20) + 1), ROCE_E_INVAL);
	post_write(st, 1, 32 * 256);
	assert_int_equal(stage_run(st), 8);
	assert_int_equal(stage_run(st), 0);             /* closed */
	/* its own window wins over the device's, both ways */
	set_loss_cfg(st, 1, false, 100);
	stage_inject_ack(st, STAGE_SQ_PSN + 7, 0, 0);
	assert_int_equal(stage_run(st), 8);
	/* 0: the device's 1 KB again, four packets */
	assert_int_equal(roce_qp_set_window_kb(st->qp, 0), ROCE_OK);
	stage_inject_ack(st, STAGE_SQ_PSN + 15, 0, 0);
	assert_int_equal(stage_run(st), 4);
	stage_close(st);
}

/* A WRITE ONLY; returns the PSN it went out with. */
static uint32_t one_write(struct stage *st, uint64_t wr_id)
{
	post_write(st, wr_id, 64);
	assert_int_equal(stage_run(st), 1);
	assert_true(st->rx[0].h.bth.ackreq);
	return st->rx[0].h.bth.psn;
}

static void test_adaptive_rto(void **state)
{
	const struct stage_opts o = { .timeout = 14 };  /* 67 ms */
	struct stage *st = stage_open(&o);
	uint32_t psn;

	(void)state;
	set_loss_cfg(st, 0, true, 100);
	/* before any sample: 16 * 100 us */
	psn = one_write(st, 1);
	assert_int_equal(stage_advance(st, 1599000), 0);
	assert_int_equal(stage_advance(st, 1000), 1);   /* resent at 1.6 ms */
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	stage_inject_ack(st, psn, 0, 1);                /* no sample: a resend (Karn) */
	stage_run(st);
	/* a sample: 10 us round trip, srtt 10 us, rttvar 5 us -> 30 us, held
	   to the 100 us floor */
	psn = one_write(st, 2);
	st->vclock += 10000;
	stage_inject_ack(st, psn, 0, 2);
	assert_int_equal(stage_run(st), 0);
	psn = one_write(st, 3);                         /* this one is lost */
	/* the clock jumps: the tail-loss probe due at 20 us goes at 99 us,
	   lost too (test_engine_probe times the probes) */
	assert_int_equal(stage_advance(st, 99000), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 1);
	assert_int_equal(stage_advance(st, 1000), 1);   /* at 100 us, not 67 ms */
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 2);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	/* again lost (and its probe): backed off to 200 us */
	assert_int_equal(stage_advance(st, 199000), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 2);
	assert_int_equal(stage_advance(st, 1000), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 3);
	stage_inject_ack(st, psn, 0, 3);
	stage_run(st);
	/* a floor above the QP's timeout: the QP's timeout (67.1 ms) wins */
	set_loss_cfg(st, 0, true, 1000000);
	psn = one_write(st, 4);
	assert_int_equal(stage_advance(st, 67108000), 1);       /* a probe */
	assert_int_equal(stage_advance(st, 1000), 1);
	stage_close(st);
}

/* A QP DCQCN paces at 10 Mbit/s sends its window of four 256-byte
   packets over ~0.8 ms, and the ACK its last one asks for comes after
   that: the timer (100 us from the round trip) allows for the 819 us
   (4 * 256 * 8 / 10 Mbit/s) its pacer holds them, and nothing times out.
   Without it every window timed out once (roce-fabric's 32:1 incast:
   ~70 spurious timeouts a millisecond). A window lost is still resent. */
static void test_paced_rto(void **state)
{
	const struct stage_opts o = { .timeout = 14 };  /* 67 ms */
	struct stage *st = stage_open(&o);
	struct roce_cc_config c;
	uint32_t psn;
	unsigned sent = 0;
	bool resent = false;

	(void)state;
	roce_cc_config_default(&c);
	c.rp_prio_mask = 0x01;
	c.window_kb = 1;                                /* 4 packets */
	c.dcqcn.rate_to_set_on_first_cnp = 10;          /* Mbit/s */
	assert_int_equal(roce_context_set_cc(st->ctx, &c), ROCE_OK);
	/* a 10 us round trip at line rate: the timer at its 100 us floor */
	psn = one_write(st, 1);
	st->vclock += 10000;
	stage_inject_ack(st, psn, 0, 1);
	assert_int_equal(stage_run(st), 0);
	inject_cnp(st);
	stage_run(st);
	post_write(st, 2, 4 * 256);
	for (unsigned t = 0; t < 900 && sent < 4; t += 10)
		sent += stage_advance(st, 10000);
	assert_int_equal(sent, 4);
	assert_true(st->rx[0].h.bth.ackreq);            /* the window's last */
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	psn = st->rx[0].h.bth.psn;
	stage_inject_ack(st, psn, 0, 2);
	assert_int_equal(stage_advance(st, 2000000), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	/* the next window lost: still resent (probe or timer), from its first */
	post_write(st, 3, 4 * 256);
	assert_true(stage_run(st) >= 1);
	psn = st->rx[0].h.bth.psn;
	for (unsigned t = 0, n; t < 2000 && !resent; t += 10)
		for (n = stage_advance(st, 10000); n--; )
			resent |= st->rx[n].h.bth.psn == psn;
	assert_true(resent);
	stage_close(st);
}

static void test_bad_config(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_cc_config c;

	(void)state;
	roce_cc_config_default(&c);
	c.ecn = 3;                      /* CE is the switch's to set */
	assert_string_equal(roce_cc_config_check(&c), "ecn");
	assert_int_equal(roce_context_set_cc(st->ctx, &c), ROCE_E_INVAL);
	roce_cc_config_default(&c);
	c.line_mbps = 0;
	assert_string_equal(roce_cc_config_check(&c), "line_mbps");
	roce_cc_config_default(&c);
	c.dcqcn.rpg_gd = 16;
	assert_string_equal(roce_cc_config_check(&c), "rpg_gd");
	roce_cc_config_default(&c);
	c.adaptive_rto = true;
	c.rto_min_us = 0;
	assert_string_equal(roce_cc_config_check(&c), "rto_min_us");
	assert_int_equal(roce_context_set_cc(NULL, &c), ROCE_E_INVAL);
	assert_int_equal(roce_context_set_cc(st->ctx, NULL), ROCE_E_INVAL);
	roce_cc_config_default(&c);
	roce_cc_dcqcn_paper(&c);
	assert_null(roce_cc_config_check(&c));
	stage_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marking),
		cmocka_unit_test(test_np_cnp),
		cmocka_unit_test(test_rp_pacing),
		cmocka_unit_test(test_rp_recovers),
		cmocka_unit_test(test_rp_off),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_qp_window),
		cmocka_unit_test(test_adaptive_rto),
		cmocka_unit_test(test_paced_rto),
		cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
