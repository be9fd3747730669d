/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues (src/verbs/srq.c, engine/rq.c, the responder's
 * WQE in resp.c): four RC QPs taking WQEs from one SRQ in posting order,
 * each completion on its QP's own receive CQ with its qp_num; multi-packet
 * messages of several QPs interleaved, each whole in its WQE; RNR NAK
 * while the SRQ is empty, then recovery; the limit event once per arm;
 * destroy refused while QPs use it; a QP in ERR flushes the WQE it held
 * and leaves the rest; two threads posting while the engines consume.
 */
#include <pthread.h>
#include <time.h>

#include "events.h"

#define NQ 4

struct srqt {
	struct pair *p;
	struct roce_srq *srq;
	struct roce_cq *rcq[2];         /* B's QPs 0, 1 -> rcq[0]; 2, 3 -> rcq[1] */
	struct roce_qp *qa[NQ], *qb[NQ];
};

static void srqt_open(struct srqt *t, const struct pair_opts *o, uint32_t max_wr,
		      bool one_cq)
{
	struct roce_srq_init_attr sa = { .attr = { .max_wr = max_wr, .max_sge = 1 } };

	t->p = pair_open(o);
	t->srq = roce_create_srq(t->p->b.pd, &sa);
	assert_non_null(t->srq);
	assert_true(sa.attr.max_wr >= max_wr);
	for (int i = 0; i < 2; i++) {
		t->rcq[i] = roce_create_cq(t->p->b.ctx, 8192);
		assert_non_null(t->rcq[i]);
	}
	for (int k = 0; k < NQ; k++) {
		t->qa[k] = ev_qp(&t->p->a, t->p->a.scq, t->p->a.rcq, NULL);
		t->qb[k] = ev_qp(&t->p->b, t->p->b.scq, t->rcq[one_cq ? 0 : k / 2], t->srq);
		ev_connect(t->p, t->qa[k], t->qb[k]);
	}
}

static void srqt_close(struct srqt *t)
{
	for (int k = 0; k < NQ; k++) {
		assert_int_equal(roce_destroy_qp(t->qa[k]), ROCE_OK);
		assert_int_equal(roce_destroy_qp(t->qb[k]), ROCE_OK);
	}
	assert_int_equal(roce_destroy_srq(t->srq), ROCE_OK);
	for (int i = 0; i < 2; i++)
		assert_int_equal(roce_destroy_cq(t->rcq[i]), ROCE_OK);
	pair_close(t->p);
}

/* WQE id into B's buffer at slot id (64 KiB slots). */
static void srq_post(struct srqt *t, uint64_t id)
{
	struct roce_sge sge;
	struct roce_recv_wr wr = ev_recv_wr(t->p, &sge, id, (uint32_t)(id % 48) << 16, 65536);

	assert_int_equal(roce_post_srq_recv(t->srq, &wr, NULL), ROCE_OK);
}

/* The message of QP k, round r: every byte tells both. */
static uint8_t pat(int k, int r, uint32_t i)
{
	return (uint8_t)(k * 61 + r * 17 + i * 7 + (i >> 9));
}

static void send_msg(struct srqt *t, int k, int r, uint32_t len)
{
	uint32_t off = (uint32_t)(k * 8 + r) << 16;

	for (uint32_t i = 0; i < len; i++)
		t->p->a.buf[off + i] = pat(k, r, i);
	ev_send(t->p, t->qa[k], (uint64_t)(k * 100 + r), off, len, false);
}

/* The receive completion in wc came from B's QP k: its CQ, its qp_num,
 * and its WQE's buffer holds message (k, r) whole. */
static void check_recv(struct srqt *t, const struct roce_wc *wc, int cq, int k, int r,
		       uint32_t len)
{
	const uint8_t *b = t->p->b.buf + ((wc->wr_id % 48) << 16);

	assert_int_equal(wc->status, ROCE_WC_SUCCESS);
	assert_int_equal(wc->opcode, ROCE_WC_RECV);
	assert_int_equal(wc->qp_num, roce_qp_num(t->qb[k]));
	assert_int_equal(wc->src_qp, roce_qp_num(t->qa[k]));
	assert_int_equal(cq, k / 2);
	assert_int_equal(wc->byte_len, len);
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != pat(k, r, i))
			fail_msg("WQE %llu (QP %d, round %d): byte %u is %u, not %u",
				 (unsigned long long)wc->wr_id, k, r, i, b[i], pat(k, r, i));
}

static int qp_index(struct srqt *t, uint32_t qpn)
{
	for (int k = 0; k < NQ; k++)
		if (roce_qp_num(t->qb[k]) == qpn)
			return k;
	fail_msg("completion for an unknown QPN %#x", qpn);
	return -1;
}

/* Every message of rounds 0..rounds-1 from the four QPs arrives once,
 * each in its own WQE, on its QP's CQ, rounds of a QP in order; the WQEs
 * used are the first ones posted. */
static void collect(struct srqt *t, int rounds, uint32_t len, uint64_t first_id)
{
	int next_round[NQ] = { 0 }, got = 0, want = rounds * NQ;
	bool used[64] = { false };
	uint64_t end = pair_now_ms() + 10000;

	while (got < want && pair_now_ms() < end) {
		struct roce_wc wc[16];

		pair_poll(t->p);
		for (int c = 0; c < 2; c++) {
			int n = roce_poll_cq(t->rcq[c], 16, wc);

			assert_true(n >= 0);
			for (int i = 0; i < n; i++) {
				int k = qp_index(t, wc[i].qp_num);

				check_recv(t, &wc[i], c, k, next_round[k]++, len);
				assert_true(wc[i].wr_id >= first_id &&
					    wc[i].wr_id < first_id + (uint64_t)want);
				assert_false(used[wc[i].wr_id - first_id]);
				used[wc[i].wr_id - first_id] = true;
				got++;
			}
		}
	}
	assert_int_equal(got, want);
}

static void test_shared_by_four(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct srqt t;
	struct roce_wc wc[16];

	(void)state;
	srqt_open(&t, &o, 64, false);
	for (uint64_t i = 0; i < 8; i++)
		srq_post(&t, i);
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < NQ; k++)
			send_msg(&t, k, r, 2000);
	collect(&t, 2, 2000, 0);
	assert_int_equal(pair_wait(t.p, t.p->a.scq, wc, 8, 5000), 8);
	/* a QP on an SRQ has no receive queue to post to */
	{
		struct roce_sge sge;
		struct roce_recv_wr wr = ev_recv_wr(t.p, &sge, 99, 0, 16);

		assert_int_equal(roce_post_recv(t.qb[0], &wr, NULL), ROCE_E_INVAL);
	}
	srqt_close(&t);
}

/* 40000-byte SENDs (40 packets at MTU 1024) from the four QPs at once:
 * the sender's arbiter interleaves them in bursts, and each message still
 * lands whole in the one WQE its first packet took. */
static void test_interleaved_messages(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct srqt t;
	struct roce_wc wc[16];

	(void)state;
	srqt_open(&t, &o, 64, false);
	for (uint64_t i = 0; i < 8; i++)
		srq_post(&t, 10 + i);
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < NQ; k++)
			send_msg(&t, k, r, 40000);
	collect(&t, 2, 40000, 10);
	assert_int_equal(pair_wait(t.p, t.p->a.scq, wc, 8, 5000), 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
	srqt_close(&t);
}

static void test_rnr_then_recovery(void **state)
{
	struct pair_opts o = { .virtual_time = true, .nqp = 1 };
	struct srqt t;
	struct roce_wc wc[4];

	(void)state;
	srqt_open(&t, &o, 16, false);
	send_msg(&t, 2, 0, 3000);
	ev_polls(t.p, 500);
	assert_int_equal(roce_poll_cq(t.p->a.scq, 4, wc), 0);   /* still trying */
	assert_true(pair_cnt(&t.p->b, ROCE_CNT_NAKS_TX_RNR) >= 2);
	assert_true(pair_cnt(&t.p->a, ROCE_CNT_RNR_RETRIES) >= 2);
	srq_post(&t, 5);
	assert_int_equal(pair_wait(t.p, t.p->a.scq, wc, 1, 5000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(t.p, t.rcq[1], wc, 1, 5000), 1);
	assert_int_equal(wc[0].wr_id, 5);
	check_recv(&t, &wc[0], 1, 2, 0, 3000);
	srqt_close(&t);
}

static int srq_event(struct srqt *t, struct roce_async_event *ev)
{
	ev_nonblock(roce_async_fd(t->p->b.ctx));
	return roce_get_async_event(t->p->b.ctx, ev);
}

/* One message from QP 0 into the SRQ, completed on both sides. */
static void one_message(struct srqt *t, int r)
{
	struct roce_wc wc;

	send_msg(t, 0, r, 100);
	assert_int_equal(pair_wait(t->p, t->p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(t->p, t->rcq[0], &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
}

static void test_limit_once(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct srqt t;
	struct roce_srq_attr a;
	struct roce_async_event ev;

	(void)state;
	srqt_open(&t, &o, 16, false);
	for (uint64_t i = 0; i < 10; i++)
		srq_post(&t, i);
	assert_int_equal(roce_query_srq(t.srq, &a), ROCE_OK);
	assert_int_equal(a.max_wr, 16);
	assert_int_equal(a.max_sge, 1);
	assert_int_equal(a.srq_limit, 0);
	/* limits it cannot take */
	a.srq_limit = 17;
	assert_int_equal(roce_modify_srq(t.srq, &a, ROCE_SRQ_LIMIT), ROCE_E_RANGE);
	a.max_wr = 32;
	assert_int_equal(roce_modify_srq(t.srq, &a, ROCE_SRQ_MAX_WR), ROCE_E_UNSUPPORTED);
	a.srq_limit = 4;
	assert_int_equal(roce_modify_srq(t.srq, &a, ROCE_SRQ_LIMIT), ROCE_OK);
	assert_int_equal(roce_query_srq(t.srq, &a), ROCE_OK);
	assert_int_equal(a.srq_limit, 4);
	/* 10 -> 4 WQEs: not below the limit yet */
	for (int r = 0; r < 6; r++)
		one_message(&t, r);
	assert_int_equal(srq_event(&t, &ev), ROCE_E_AGAIN);
	/* 3 left: below, the event, the limit disarmed */
	one_message(&t, 6);
	assert_int_equal(srq_event(&t, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_SRQ_LIMIT_REACHED);
	assert_ptr_equal(ev.element.srq, t.srq);
	assert_int_equal(roce_query_srq(t.srq, &a), ROCE_OK);
	assert_int_equal(a.srq_limit, 0);
	roce_ack_async_event(&ev);
	/* once: 2 left, no second event */
	one_message(&t, 7);
	assert_int_equal(srq_event(&t, &ev), ROCE_E_AGAIN);
	/* armed again while below: the next WQE taken fires it (rxe checks
	 * at the take, get_srq_wqe) */
	a.srq_limit = 5;
	assert_int_equal(roce_modify_srq(t.srq, &a, ROCE_SRQ_LIMIT), ROCE_OK);
	one_message(&t, 8);
	assert_int_equal(srq_event(&t, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_SRQ_LIMIT_REACHED);
	/* not acknowledged: the SRQ stays even with its QPs gone */
	for (int k = 0; k < NQ; k++) {
		assert_int_equal(roce_destroy_qp(t.qb[k]), ROCE_OK);
		t.qb[k] = ev_qp(&t.p->b, t.p->b.scq, t.rcq[0], NULL);
	}
	assert_int_equal(roce_destroy_srq(t.srq), ROCE_E_BUSY);
	roce_ack_async_event(&ev);
	assert_int_equal(roce_destroy_srq(t.srq), ROCE_OK);
	/* a limit given at creation is armed at once (as rxe) */
	{
		struct roce_srq_init_attr sa = { .attr = { .max_wr = 8, .srq_limit = 3 } };

		t.srq = roce_create_srq(t.p->b.pd, &sa);
		assert_non_null(t.srq);
		assert_int_equal(roce_query_srq(t.srq, &a), ROCE_OK);
		assert_int_equal(a.srq_limit, 3);
		sa.attr.srq_limit = 9;
		assert_null(roce_create_srq(t.p->b.pd, &sa));
		sa.attr = (struct roce_srq_attr){ .max_wr = 0 };
		assert_null(roce_create_srq(t.p->b.pd, &sa));
		sa.attr = (struct roce_srq_attr){ .max_wr = ROCE_MAX_WR + 1 };
		assert_null(roce_create_srq(t.p->b.pd, &sa));
		sa.attr = (struct roce_srq_attr){ .max_wr = 8, .max_sge = ROCE_MAX_SGE + 1 };
		assert_null(roce_create_srq(t.p->b.pd, &sa));
	}
	srqt_close(&t);
}

static void test_destroy_in_use(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct srqt t;

	(void)state;
	srqt_open(&t, &o, 16, false);
	assert_int_equal(roce_destroy_srq(t.srq), ROCE_E_BUSY);
	for (int k = 0; k < NQ; k++) {
		assert_int_equal(roce_destroy_qp(t.qb[k]), ROCE_OK);
		if (k < NQ - 1)
			assert_int_equal(roce_destroy_srq(t.srq), ROCE_E_BUSY);
		t.qb[k] = ev_qp(&t.p->b, t.p->b.scq, t.rcq[0], NULL);
	}
	srqt_close(&t);
}

/* B's QP 0 takes a WQE for a 64 KiB message and gets the first burst of
 * it; the application moves the QP to ERR: that WQE completes flushed,
 * and the SRQ's next WQE goes to the next message of another QP. */
static void test_flush_held(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct srqt t;
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_ERR };
	struct roce_async_event ev;
	struct roce_wc wc[4];

	(void)state;
	srqt_open(&t, &o, 16, false);
	srq_post(&t, 1);
	srq_post(&t, 2);
	send_msg(&t, 0, 0, 65536);
	pair_poll(t.p);                 /* A sends a burst, B takes WQE 1 */
	assert_int_equal(roce_poll_cq(t.rcq[0], 4, wc), 0);
	assert_int_equal(roce_modify_qp(t.qb[0], &at, ROCE_QP_STATE), ROCE_OK);
	assert_int_equal(pair_wait(t.p, t.rcq[0], wc, 1, 5000), 1);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[0].status, ROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(wc[0].qp_num, roce_qp_num(t.qb[0]));
	/* it takes no more WQEs: Last WQE Reached, once */
	assert_int_equal(srq_event(&t, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev.element.qp, t.qb[0]);
	assert_int_equal(roce_destroy_qp(t.qb[0]), ROCE_E_BUSY);
	roce_ack_async_event(&ev);
	/* a send posted in ERR is flushed too, and raises nothing more */
	{
		struct roce_sge sge = { (uint64_t)(uintptr_t)t.p->b.buf, 8, t.p->b.mr->lkey };
		struct roce_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
					   .opcode = ROCE_WR_SEND,
					   .send_flags = ROCE_SEND_SIGNALED };

		assert_int_equal(roce_post_send(t.qb[0], &wr, NULL), ROCE_OK);
		assert_int_equal(pair_wait(t.p, t.p->b.scq, wc, 1, 5000), 1);
		assert_int_equal(wc[0].status, ROCE_WC_WR_FLUSH_ERR);
	}
	ev_polls(t.p, 20);
	assert_int_equal(srq_event(&t, &ev), ROCE_E_AGAIN);
	send_msg(&t, 3, 0, 500);
	assert_int_equal(pair_wait(t.p, t.rcq[1], wc, 1, 5000), 1);
	assert_int_equal(wc[0].wr_id, 2);
	check_recv(&t, &wc[0], 1, 3, 0, 500);
	/* the engine moves QP 1 to ERR (a message longer than its WQE):
	 * QP_FATAL, then Last WQE Reached */
	{
		struct roce_sge sge;
		struct roce_recv_wr wr = ev_recv_wr(t.p, &sge, 3, 0, 16);

		assert_int_equal(roce_post_srq_recv(t.srq, &wr, NULL), ROCE_OK);
	}
	send_msg(&t, 1, 0, 100);
	assert_int_equal(pair_wait(t.p, t.rcq[0], wc, 1, 5000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_LOC_LEN_ERR);
	ev_polls(t.p, 20);
	assert_int_equal(srq_event(&t, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, t.qb[1]);
	roce_ack_async_event(&ev);
	assert_int_equal(srq_event(&t, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev.element.qp, t.qb[1]);
	roce_ack_async_event(&ev);
	assert_int_equal(srq_event(&t, &ev), ROCE_E_AGAIN);
	srqt_close(&t);
}

/* Two threads post to one SRQ at once while both engines, on their
 * threads, carry 20000 SENDs of the four QPs into it: every WQE is taken
 * once, each thread's in the order it posted them. */
#define POSTERS 2
#define PER_POSTER 10000u

struct poster {
	struct srqt *t;
	unsigned id;
	int rc;
};

static void *post_thread(void *arg)
{
	struct poster *ps = arg;
	uint64_t end = pair_now_ms() + 60000;

	for (uint32_t i = 0; i < PER_POSTER;) {
		struct roce_sge sge = { (uint64_t)(uintptr_t)ps->t->p->b.buf, 64,
					ps->t->p->b.mr->lkey };
		struct roce_recv_wr wr[8], *bad = NULL;
		uint32_t n = PER_POSTER - i < 8 ? PER_POSTER - i : 8;
		int rc;

		/* chains of 8, so the two posters' calls overlap */
		for (uint32_t k = 0; k < n; k++)
			wr[k] = (struct roce_recv_wr){ .wr_id = (uint64_t)ps->id << 32 | (i + k),
						       .sg_list = &sge, .num_sge = 1,
						       .next = k + 1 < n ? &wr[k + 1] : NULL };
		rc = roce_post_srq_recv(ps->t->srq, wr, &bad);
		if (rc == ROCE_E_FULL)
			i += (uint32_t)(bad - wr);      /* those before bad went in */
		if (rc == ROCE_OK) {
			i += n;
		} else if (rc == ROCE_E_FULL && pair_now_ms() < end) {
			/* full: let the engines run (a spinning poster would
			 * take their core on a small machine) */
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		} else {
			ps->rc = rc ? rc : ROCE_E_TIMEOUT;
			return NULL;
		}
	}
	return NULL;
}

static void test_two_posters(void **state)
{
	struct pair_opts o = { .sq_depth = 64 };
	struct srqt t;
	struct poster ps[POSTERS];
	pthread_t th[POSTERS];
	uint32_t next[POSTERS] = { 0 }, sent = 0, done = 0, recvd = 0;
	const uint32_t total = POSTERS * PER_POSTER;
	uint64_t end;

	(void)state;
	srqt_open(&t, &o, 256, true);
	assert_int_equal(pair_start(&t.p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&t.p->b, -1), ROCE_OK);
	for (unsigned i = 0; i < POSTERS; i++) {
		ps[i] = (struct poster){ .t = &t, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, post_thread, &ps[i]), 0);
	}
	for (end = pair_now_ms() + 60000; recvd < total && pair_now_ms() < end;) {
		struct roce_wc wc[32];
		int n;

		/* the four QPs in turn, at most 32 of A's sends in flight */
		while (sent < total && sent - done < 32) {
			struct roce_sge sge = { (uint64_t)(uintptr_t)t.p->a.buf, 8,
						t.p->a.mr->lkey };
			struct roce_send_wr wr = { .wr_id = sent, .sg_list = &sge, .num_sge = 1,
						   .opcode = ROCE_WR_SEND,
						   .send_flags = ROCE_SEND_SIGNALED };

			assert_int_equal(roce_post_send(t.qa[sent % NQ], &wr, NULL), ROCE_OK);
			sent++;
		}
		n = roce_poll_cq(t.p->a.scq, 32, wc);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		done += (uint32_t)n;
		n = roce_poll_cq(t.rcq[0], 32, wc);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++) {
			unsigned who = (unsigned)(wc[i].wr_id >> 32);

			assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
			assert_true(who < POSTERS);
			/* each poster's WQEs come out in its order, once */
			assert_int_equal(wc[i].wr_id & 0xFFFFFFFFu, next[who]);
			next[who]++;
			qp_index(&t, wc[i].qp_num);
		}
		recvd += (uint32_t)n;
		if (!n) {
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
	for (unsigned i = 0; i < POSTERS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(ps[i].rc, ROCE_OK);
		assert_int_equal(next[i], PER_POSTER);
	}
	assert_int_equal(recvd, total);
	pair_stop(&t.p->a);
	pair_stop(&t.p->b);
	srqt_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_by_four),
		cmocka_unit_test(test_interleaved_messages),
		cmocka_unit_test(test_rnr_then_recovery),
		cmocka_unit_test(test_limit_once),
		cmocka_unit_test(test_destroy_in_use),
		cmocka_unit_test(test_flush_held),
		cmocka_unit_test(test_two_posters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
