/* SPDX-License-Identifier: MIT */
/*
 * Run to completion (src/engine/thread.c): the caller's thread runs the
 * engine's turns (roce_engine_drive), the engine thread parks while the
 * caller spins (roce_engine_waiting) and takes over when it stops:
 *   - a program that posts, then stops polling for a second: meanwhile
 *     its peer's RDMA READs and WRITEs into it are served and ACKed, and
 *     its own WRITE, across a link that loses frames, is retransmitted
 *     and completes, all by the engine thread; the takeovers counted;
 *   - while the caller spins, the thread parks and runs no turn;
 *   - a release (a program about to block) hands over at once, and the
 *     drives it was released from do not park the thread again;
 *   - a program inside a long turn (its drive placing a WRITE that takes
 *     longer than the handoff) is driving: the thread does not take over;
 *   - two threads polling two CQs of one context, each driving: every
 *     completion arrives, no turn runs twice at once (TSan: labelled
 *     "tsan");
 *   - the thread parks real-time where it may, at normal priority where
 *     it may not (a child without CAP_SYS_NICE and RLIMIT_RTPRIO), and
 *     takes over either way;
 *   - the handoff's bounds.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/mover.h"
#include "unit/pair.h"
#include "verbs/verbs_priv.h"

static void sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000u, (long)(us % 1000000u) * 1000 };

	nanosleep(&ts, NULL);
}

static struct roce_send_wr rdma_wr(struct pair_side *from, struct pair_side *to,
				   enum roce_wr_opcode op, uint64_t id, uint64_t off,
				   uint32_t len, struct roce_sge *sge)
{
	struct roce_send_wr wr = {
		.wr_id = id, .sg_list = sge, .num_sge = 1, .opcode = op,
		.send_flags = ROCE_SEND_SIGNALED,
	};

	*sge = (struct roce_sge){ (uint64_t)(uintptr_t)from->buf + off, len, from->mr->lkey };
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)to->buf + off;
	wr.wr.rdma.rkey = to->mr->rkey;
	return wr;
}

/* The caller spins on A's send CQ as a polling program does: drive, poll,
   nothing found, say so; for ms milliseconds or until n completions. */
static int spin_a(struct pair *p, struct roce_wc *wc, int n, unsigned ms)
{
	uint64_t end = pair_now_ms() + ms;
	int got = 0;

	while (got < n && pair_now_ms() < end) {
		int k;

		roce_engine_drive(p->a.ctx);
		k = roce_poll_cq(p->a.scq, n - got, wc + got);
		assert_true(k >= 0);
		if (!k)
			roce_engine_waiting(p->a.ctx);
		got += k;
	}
	return got;
}

static struct pair *rtc_pair(double loss)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024, .timeout = PAIR_THREAD_TIMEOUT };
	struct pair *p;

	o.link.loss = loss;
	o.link.seed = 7;
	p = pair_open(&o);
	assert_int_equal(roce_engine_set_handoff(p->a.ctx, ROCE_RTC_HANDOFF_US), ROCE_OK);
	assert_int_equal(pair_start(&p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&p->b, -1), ROCE_OK);
	return p;
}

#define A_WRITE_OFF (1u << 20)
#define A_WRITE_LEN (256u << 10)

static void test_stops_polling(void **state)
{
	struct pair *p = rtc_pair(0.02);
	struct roce_engine_rtc_stats s0, s1;
	struct roce_send_wr wr, *bad;
	struct roce_sge sge;
	struct roce_wc wc[4];
	uint64_t retx0, stopped;

	(void)state;
	for (size_t i = 0; i < 65536; i++) {
		p->a.buf[i] = (uint8_t)(i * 7);
		p->b.buf[65536 + i] = (uint8_t)(i * 13);
	}
	for (size_t i = 0; i < A_WRITE_LEN; i++)
		p->a.buf[A_WRITE_OFF + i] = (uint8_t)(i * 3 + 1);
	/* A spins: its thread parks (once it gets a core: 5 s at most) */
	for (int i = 0; i < 250; i++) {
		assert_int_equal(spin_a(p, wc, 1, 20), 0);
		roce_engine_rtc_stats(p->a.ctx, &s0);
		if (s0.parks)
			break;
	}
	assert_true(s0.driven > 0);
	assert_true(s0.parks >= 1);
	retx0 = pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS);
	/* A posts a 256 KB WRITE over the lossy link (apart from what B
	   reads and writes), then stops polling */
	wr = rdma_wr(&p->a, &p->b, ROCE_WR_RDMA_WRITE, 1, A_WRITE_OFF, A_WRITE_LEN, &sge);
	assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_OK);
	roce_engine_drive(p->a.ctx);
	stopped = pair_now_ms();
	/* meanwhile B READs from A and WRITEs into it */
	wr = rdma_wr(&p->b, &p->a, ROCE_WR_RDMA_READ, 2, 0, 65536, &sge);
	assert_int_equal(roce_post_send(p->b.qp, &wr, &bad), ROCE_OK);
	assert_int_equal(pair_wait_cq(p, p->b.scq, wc, 1, 900), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(p->b.buf, p->a.buf, 65536);
	wr = rdma_wr(&p->b, &p->a, ROCE_WR_RDMA_WRITE, 3, 65536, 65536, &sge);
	assert_int_equal(roce_post_send(p->b.qp, &wr, &bad), ROCE_OK);
	assert_int_equal(pair_wait_cq(p, p->b.scq, wc, 1, 900), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(p->a.buf + 65536, p->b.buf + 65536, 65536);
	/* the rest of the second without a poll of A's */
	while (pair_now_ms() < stopped + 1000)
		sleep_us(10000);
	/* A's WRITE is complete in its CQ: the thread recovered its losses */
	assert_int_equal(roce_poll_cq(p->a.scq, 1, wc), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].wr_id, 1);
	assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) > retx0);
	assert_memory_equal(p->b.buf + A_WRITE_OFF, p->a.buf + A_WRITE_OFF, A_WRITE_LEN);
	roce_engine_rtc_stats(p->a.ctx, &s1);
	assert_true(s1.takeovers >= 1);
	assert_true(s1.thread_turns > s0.thread_turns);
	assert_true(s1.takeover_p99_us >= s1.takeover_p50_us && s1.takeover_p50_us >= 1);
	assert_true(s1.takeover_max_ns > 0);
	pair_close(p);
}

/* While A's caller spins, its thread runs (almost) no turn; a release
   hands over without waiting for the handoff. */
static void test_parks_and_release(void **state)
{
	struct pair *p = rtc_pair(0);
	struct roce_engine_rtc_stats s0, s1, s2, s3;
	struct roce_wc wc;

	(void)state;
	assert_int_equal(roce_engine_set_handoff(p->a.ctx, 100000), ROCE_OK);   /* 100 ms */
	spin_a(p, &wc, 1, 20);
	roce_engine_rtc_stats(p->a.ctx, &s0);
	spin_a(p, &wc, 1, 50);
	roce_engine_rtc_stats(p->a.ctx, &s1);
	assert_true(s1.driven > s0.driven + 100);
	/* parked: no turn but at the deadline's looks, not thousands */
	assert_true(s1.thread_turns - s0.thread_turns < 200);
	assert_int_equal(s1.takeovers, s0.takeovers);
	/* released: the thread runs at once, not 100 ms on */
	roce_engine_release(p->a.ctx);
	sleep_us(30000);
	roce_engine_rtc_stats(p->a.ctx, &s2);
	assert_int_equal(s2.takeovers, s1.takeovers + 1);
	assert_true(s2.takeover_max_ns < 100000000u);
	assert_true(s2.thread_turns > s1.thread_turns);
	/* and stays running: the drives it was released from do not park it
	   again (it would, until the watchdog's look at the handoff's end,
	   100 ms after the last drive: a second, late takeover) */
	sleep_us(120000);
	roce_engine_rtc_stats(p->a.ctx, &s3);
	assert_int_equal(s3.parks, s2.parks);
	assert_int_equal(s3.takeovers, s2.takeovers);
	pair_close(p);
}

/* Two threads of A's program, each spinning on a CQ of its own and
   driving A's engine: one WRITEs on QP 0 and waits on the send CQ, the
   other takes B's SENDs on QP 1 in the receive CQ. */
struct poller {
	struct pair *p;
	bool receiver;
	int done;
};

#define POLLER_MSGS 200

static bool spin_cq(struct pair *p, struct roce_cq *cq, struct roce_wc *wc, uint64_t end)
{
	int k = 0;

	while (!k && pair_now_ms() < end) {
		roce_engine_drive(p->a.ctx);
		k = roce_poll_cq(cq, 1, wc);
		if (!k)
			roce_engine_waiting(p->a.ctx);
	}
	return k == 1 && wc->status == ROCE_WC_SUCCESS;
}

static void *poller(void *arg)
{
	struct poller *t = arg;
	struct pair *p = t->p;
	uint64_t end = pair_now_ms() + 20000;

	for (int i = 0; i < POLLER_MSGS; i++) {
		struct roce_sge sge, rsge;
		struct roce_send_wr wr, *bad;
		struct roce_recv_wr rwr = { .wr_id = (uint64_t)i, .sg_list = &rsge, .num_sge = 1 },
				    *rbad;
		struct roce_wc wc;

		if (!t->receiver) {
			wr = rdma_wr(&p->a, &p->b, ROCE_WR_RDMA_WRITE, (uint64_t)i, 0, 4096, &sge);
			if (roce_post_send(p->a.qps[0], &wr, &bad) != ROCE_OK ||
			    !spin_cq(p, p->a.scq, &wc, end) || wc.wr_id != (uint64_t)i)
				break;
		} else {
			rsge = (struct roce_sge){ (uint64_t)(uintptr_t)p->a.buf + 65536, 4096,
						  p->a.mr->lkey };
			wr = rdma_wr(&p->b, &p->a, ROCE_WR_SEND, (uint64_t)i, 65536, 4096, &sge);
			wr.send_flags = 0;
			if (roce_post_recv(p->a.qps[1], &rwr, &rbad) != ROCE_OK ||
			    roce_post_send(p->b.qps[1], &wr, &bad) != ROCE_OK ||
			    !spin_cq(p, p->a.rcq, &wc, end) || wc.wr_id != (uint64_t)i ||
			    wc.byte_len != 4096)
				break;
		}
		t->done++;
	}
	return NULL;
}

static void test_two_pollers(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024, .timeout = PAIR_THREAD_TIMEOUT, .nqp = 2 };
	struct pair *p = pair_open(&o);
	struct poller t[2] = { { p, false, 0 }, { p, true, 0 } };
	struct roce_engine_rtc_stats s;
	pthread_t th[2];

	(void)state;
	assert_int_equal(roce_engine_set_handoff(p->a.ctx, ROCE_RTC_HANDOFF_US), ROCE_OK);
	assert_int_equal(pair_start(&p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&p->b, -1), ROCE_OK);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, poller, &t[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(t[0].done, POLLER_MSGS);
	assert_int_equal(t[1].done, POLLER_MSGS);
	roce_engine_rtc_stats(p->a.ctx, &s);
	assert_true(s.driven > 0);
	pair_close(p);
}

/* The thread parks real-time where it may (so its deadline preempts a
   program that computes on a full machine), at normal priority where it
   may not; either way a stop of the polls hands over. */
static bool parks_and_takes_over(bool *realtime)
{
	struct pair *p = rtc_pair(0);
	struct roce_engine_rtc_stats s;
	struct roce_wc wc;
	bool ok;

	/* A spins: its thread parks (once it gets a core: 5 s at most) */
	for (int i = 0; i < 250; i++) {
		spin_a(p, &wc, 1, 20);
		roce_engine_rtc_stats(p->a.ctx, &s);
		if (s.parks)
			break;
	}
	/* the polls stop: a takeover (2 s at most) */
	for (int i = 0; i < 100; i++) {
		sleep_us(20000);
		roce_engine_rtc_stats(p->a.ctx, &s);
		if (s.takeovers)
			break;
	}
	ok = s.parks >= 1 && s.takeovers >= 1;
	*realtime = s.parks_realtime;
	pair_close(p);
	return ok;
}

static void test_realtime_park(void **state)
{
	struct rlimit none = { 0, 0 };
	bool realtime;
	pid_t pid;
	int status;

	(void)state;
	assert_true(parks_and_takes_over(&realtime));
	/* root (CAP_SYS_NICE) may; another user may with RLIMIT_RTPRIO */
	if (geteuid() == 0)
		assert_true(realtime);
	/* a user without either: refused, at normal priority */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setrlimit(RLIMIT_RTPRIO, &none) != 0 ||
		    (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)))
			_exit(2);
		_exit(parks_and_takes_over(&realtime) && !realtime ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A's engine, when armed, stalls its first placement of B's data for
   SLOW_TURN_US, noting whose thread it was in */
#define SLOW_TURN_US 80000u
/* and its thread then waits for a core this long: several of the parked
   thread's backstop looks (RTC_BACKSTOP_US) */
#define LOST_CORE_US 5000u
struct slow_turn {
	_Atomic int armed, stalls;
	pthread_t in;
};

static void stall_once(void *arg, bool write, uint64_t pa, const uint8_t *data, uint32_t len)
{
	struct slow_turn *t = arg;

	(void)pa, (void)data, (void)len;
	if (write && atomic_exchange(&t->armed, 0)) {
		t->in = pthread_self();
		sleep_us(SLOW_TURN_US);
		atomic_fetch_add(&t->stalls, 1);
	}
}

static void test_long_turn_is_driving(void **state)
{
	struct pair *p = rtc_pair(0);
	struct roce_engine_rtc_stats s0, s1;
	struct slow_turn t = { 0 };
	struct roce_send_wr wr, *bad;
	struct roce_sge sge;
	struct roce_wc wc;
	uint64_t end;

	(void)state;
	/* a handoff of 20 ms: shorter than the turn (80 ms), far longer
	   than the gaps between the drives of a program that spins, even
	   on a loaded machine */
	assert_int_equal(roce_engine_set_handoff(p->a.ctx, 20000), ROCE_OK);
	engine_set_dma_observer(&p->a.ctx->eng, stall_once, &t);
	spin_a(p, &wc, 1, 30);                 /* the thread parks */
	roce_engine_rtc_stats(p->a.ctx, &s0);
	atomic_store(&t.armed, 1);
	wr = rdma_wr(&p->b, &p->a, ROCE_WR_RDMA_WRITE, 1, 0, 4096, &sge);
	assert_int_equal(roce_post_send(p->b.qps[0], &wr, &bad), ROCE_OK);
	end = pair_now_ms() + 2000;
	while (!atomic_load(&t.stalls) && pair_now_ms() < end) {
		int k;

		roce_engine_drive(p->a.ctx);
		/* the turn that stalled: this thread loses its core right
		   after it, before its next poll (a loaded machine) */
		if (atomic_load(&t.stalls))
			sleep_us(LOST_CORE_US);
		k = roce_poll_cq(p->a.scq, 1, &wc);
		assert_true(k >= 0);
		if (!k)
			roce_engine_waiting(p->a.ctx);
	}
	spin_a(p, &wc, 1, 30);                 /* past the turn, still spinning */
	roce_engine_rtc_stats(p->a.ctx, &s1);
	engine_set_dma_observer(&p->a.ctx->eng, NULL, NULL);
	assert_int_equal(atomic_load(&t.stalls), 1);
	/* the stall was in this thread's drive, and the engine thread, parked
	   all along, never took over: a drive in progress is recent */
	assert_true(pthread_equal(t.in, pthread_self()));
	assert_int_equal(s1.takeovers, s0.takeovers);
	assert_int_equal(s1.thread_turns, s0.thread_turns);
	pair_close(p);
}

static void test_bounds(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024 };
	struct pair *p = pair_open(&o);
	struct roce_engine_rtc_stats s;

	(void)state;
	assert_int_equal(roce_engine_set_handoff(p->a.ctx, ROCE_RTC_HANDOFF_MAX_US + 1),
			 ROCE_E_RANGE);
	assert_int_equal(roce_engine_set_handoff(NULL, 1), ROCE_E_RANGE);
	assert_int_equal(roce_engine_set_handoff(p->a.ctx, 0), ROCE_OK);
	/* no thread: a drive is a poll; waiting and release change nothing */
	roce_engine_drive(p->a.ctx);
	roce_engine_waiting(p->a.ctx);
	roce_engine_release(p->a.ctx);
	roce_engine_rtc_stats(p->a.ctx, &s);
	assert_int_equal(s.driven, 1);
	assert_int_equal(s.thread_turns, 0);
	assert_int_equal(s.takeovers, 0);
	assert_int_equal(s.handoff_us, 0);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stops_polling),
		cmocka_unit_test(test_parks_and_release),
		cmocka_unit_test(test_two_pollers),
		cmocka_unit_test(test_long_turn_is_driving),
		cmocka_unit_test(test_realtime_park),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
