/* SPDX-License-Identifier: MIT */
/*
 * Completion channels (src/verbs/channel.c, engine/event.c): one event per
 * arm, solicited-only arms (the SE bit, errors), several CQs on a channel,
 * acknowledgement before destroy, the fd readable exactly while an event
 * waits (poll, epoll, a blocking get woken by the engine thread).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "events.h"

struct chan {
	struct pair *p;
	struct roce_comp_channel *ch;
	struct roce_cq *rcq;            /* B's receive CQ, on the channel */
	struct roce_qp *qa, *qb;        /* A's QP and B's, receiving into rcq */
	int cookie;
};

static void chan_open(struct chan *c, const struct pair_opts *o)
{
	c->p = pair_open(o);
	c->ch = roce_create_comp_channel(c->p->b.ctx);
	assert_non_null(c->ch);
	assert_true(roce_comp_channel_fd(c->ch) >= 0);
	c->rcq = roce_create_cq_channel(c->p->b.ctx, 64, &c->cookie, c->ch);
	assert_non_null(c->rcq);
	c->qa = ev_qp(&c->p->a, c->p->a.scq, c->p->a.rcq, NULL);
	c->qb = ev_qp(&c->p->b, c->p->b.scq, c->rcq, NULL);
	ev_connect(c->p, c->qa, c->qb);
	ev_nonblock(roce_comp_channel_fd(c->ch));
}

static void chan_close(struct chan *c)
{
	assert_int_equal(roce_destroy_qp(c->qa), ROCE_OK);
	assert_int_equal(roce_destroy_qp(c->qb), ROCE_OK);
	assert_int_equal(roce_destroy_cq(c->rcq), ROCE_OK);
	assert_int_equal(roce_destroy_comp_channel(c->ch), ROCE_OK);
	pair_close(c->p);
}

/* n messages from A to B, each landing (B's receives posted first) */
static void chan_messages(struct chan *c, uint64_t id, unsigned n, bool solicited)
{
	struct roce_wc wc[16];

	for (unsigned i = 0; i < n; i++) {
		ev_recv(c->p, c->qb, id + i, 0, 4096);
		ev_send(c->p, c->qa, id + i, 0, 100, solicited);
	}
	assert_int_equal(pair_wait(c->p, c->p->a.scq, wc, (int)n, 5000), (int)n);
	ev_polls(c->p, 50);     /* the last ACK has left; nothing more moves */
}

static int get_event(struct chan *c)
{
	struct roce_cq *cq = NULL;
	void *ctx = NULL;
	int rc = roce_get_cq_event(c->ch, &cq, &ctx);

	if (rc == ROCE_OK) {
		assert_ptr_equal(cq, c->rcq);
		assert_ptr_equal(ctx, &c->cookie);
	}
	return rc;
}

static void test_one_event_per_arm(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct chan c;
	struct roce_wc wc[16];

	(void)state;
	chan_open(&c, &o);
	/* not armed: completions, no event */
	chan_messages(&c, 1, 2, false);
	assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 2);
	assert_int_equal(get_event(&c), ROCE_E_AGAIN);
	assert_false(ev_readable(roce_comp_channel_fd(c.ch)));

	/* armed: three completions, one event */
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	chan_messages(&c, 10, 3, false);
	assert_true(ev_readable(roce_comp_channel_fd(c.ch)));
	assert_int_equal(get_event(&c), ROCE_OK);
	assert_int_equal(get_event(&c), ROCE_E_AGAIN);
	assert_false(ev_readable(roce_comp_channel_fd(c.ch)));
	assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 3);
	assert_int_equal(wc[0].wr_id, 10);
	assert_int_equal(wc[0].qp_num, roce_qp_num(c.qb));

	/* the arm was spent: more completions, no event until armed again */
	chan_messages(&c, 20, 2, false);
	assert_int_equal(get_event(&c), ROCE_E_AGAIN);
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	/* arming twice before the completion still makes one event */
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	chan_messages(&c, 30, 1, false);
	assert_int_equal(get_event(&c), ROCE_OK);
	assert_int_equal(get_event(&c), ROCE_E_AGAIN);
	assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 3);
	roce_ack_cq_events(c.rcq, 2);
	chan_close(&c);
}

static void test_solicited_only(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct chan c;
	struct roce_wc wc[16];

	(void)state;
	chan_open(&c, &o);
	/* solicited only: a message without SE raises nothing ... */
	assert_int_equal(roce_req_notify_cq(c.rcq, 1), ROCE_OK);
	chan_messages(&c, 1, 2, false);
	assert_int_equal(get_event(&c), ROCE_E_AGAIN);
	/* ... one with SE does (and the arm is spent) */
	chan_messages(&c, 3, 1, true);
	assert_int_equal(get_event(&c), ROCE_OK);
	chan_messages(&c, 4, 1, true);
	assert_int_equal(get_event(&c), ROCE_E_AGAIN);
	assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 4);

	/* solicited, then next: the next completion, solicited or not */
	assert_int_equal(roce_req_notify_cq(c.rcq, 1), ROCE_OK);
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	chan_messages(&c, 5, 1, false);
	assert_int_equal(get_event(&c), ROCE_OK);
	assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 1);

	/* an error completion is solicited too: a message longer than the
	 * receive buffer (LOC_LEN_ERR) */
	assert_int_equal(roce_req_notify_cq(c.rcq, 1), ROCE_OK);
	ev_recv(c.p, c.qb, 6, 0, 10);
	ev_send(c.p, c.qa, 6, 0, 100, false);
	assert_int_equal(pair_wait(c.p, c.p->a.scq, wc, 1, 5000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_INV_REQ_ERR);
	assert_int_equal(get_event(&c), ROCE_OK);
	assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 1);
	assert_int_equal(wc[0].status, ROCE_WC_LOC_LEN_ERR);
	roce_ack_cq_events(c.rcq, 3);
	chan_close(&c);
}

/* Two CQs on one channel: each event names its CQ, in the order raised;
 * a CQ armed again before its event was taken has two waiting. */
static void test_two_cqs(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct chan c;
	struct roce_cq *scq, *cq;
	struct roce_qp *qa2;
	struct roce_wc wc[16];
	void *ctx;
	int cookie2;

	(void)state;
	chan_open(&c, &o);
	/* a second receive CQ on B's channel, for a second pair of QPs */
	scq = roce_create_cq_channel(c.p->b.ctx, 64, &cookie2, c.ch);
	assert_non_null(scq);
	qa2 = ev_qp(&c.p->a, c.p->a.scq, c.p->a.rcq, NULL);
	{
		struct roce_qp *qb2 = ev_qp(&c.p->b, c.p->b.scq, scq, NULL);

		ev_connect(c.p, qa2, qb2);
		assert_int_equal(roce_req_notify_cq(scq, 0), ROCE_OK);
		assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
		/* scq's completion first, then rcq's */
		ev_recv(c.p, qb2, 1, 0, 4096);
		ev_send(c.p, qa2, 1, 0, 10, false);
		assert_int_equal(pair_wait(c.p, c.p->a.scq, wc, 1, 5000), 1);
		chan_messages(&c, 2, 1, false);
		/* scq armed again and a second completion: two events of scq */
		assert_int_equal(roce_req_notify_cq(scq, 0), ROCE_OK);
		ev_recv(c.p, qb2, 3, 0, 4096);
		ev_send(c.p, qa2, 3, 0, 10, false);
		assert_int_equal(pair_wait(c.p, c.p->a.scq, wc, 1, 5000), 1);
		ev_polls(c.p, 50);
		assert_int_equal(roce_get_cq_event(c.ch, &cq, &ctx), ROCE_OK);
		assert_ptr_equal(cq, scq);
		assert_ptr_equal(ctx, &cookie2);
		assert_int_equal(roce_get_cq_event(c.ch, &cq, &ctx), ROCE_OK);
		assert_ptr_equal(cq, c.rcq);
		assert_int_equal(roce_get_cq_event(c.ch, &cq, &ctx), ROCE_OK);
		assert_ptr_equal(cq, scq);
		assert_int_equal(roce_get_cq_event(c.ch, &cq, &ctx), ROCE_E_AGAIN);
		assert_int_equal(roce_poll_cq(scq, 16, wc), 2);
		assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 1);
		roce_ack_cq_events(scq, 2);
		roce_ack_cq_events(c.rcq, 1);
		assert_int_equal(roce_destroy_qp(qb2), ROCE_OK);
	}
	assert_int_equal(roce_destroy_qp(qa2), ROCE_OK);
	assert_int_equal(roce_destroy_cq(scq), ROCE_OK);
	chan_close(&c);
}

static void test_ack_before_destroy(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct chan c;
	struct roce_comp_channel *ch2;
	struct roce_cq *cq2;
	struct roce_wc wc[16];

	(void)state;
	chan_open(&c, &o);
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	chan_messages(&c, 1, 1, false);
	assert_int_equal(get_event(&c), ROCE_OK);
	assert_int_equal(roce_poll_cq(c.rcq, 16, wc), 1);
	assert_int_equal(roce_destroy_qp(c.qb), ROCE_OK);
	c.qb = ev_qp(&c.p->b, c.p->b.scq, c.p->b.rcq, NULL);   /* for chan_close */
	/* the event is not acknowledged: the CQ stays */
	assert_int_equal(roce_destroy_cq(c.rcq), ROCE_E_BUSY);
	/* the channel is in use by the CQ */
	assert_int_equal(roce_destroy_comp_channel(c.ch), ROCE_E_BUSY);
	roce_ack_cq_events(c.rcq, 1);

	/* a CQ with an event raised and never taken goes, and the event with
	 * it: the channel holds none afterwards */
	ch2 = roce_create_comp_channel(c.p->b.ctx);
	assert_non_null(ch2);
	ev_nonblock(roce_comp_channel_fd(ch2));
	cq2 = roce_create_cq_channel(c.p->b.ctx, 8, NULL, ch2);
	assert_non_null(cq2);
	{
		struct roce_qp *qa2 = ev_qp(&c.p->a, c.p->a.scq, c.p->a.rcq, NULL);
		struct roce_qp *qb2 = ev_qp(&c.p->b, c.p->b.scq, cq2, NULL);
		struct roce_cq *got;

		ev_connect(c.p, qa2, qb2);
		assert_int_equal(roce_req_notify_cq(cq2, 0), ROCE_OK);
		ev_recv(c.p, qb2, 1, 0, 4096);
		ev_send(c.p, qa2, 1, 0, 10, false);
		assert_int_equal(pair_wait(c.p, c.p->a.scq, wc, 1, 5000), 1);
		ev_polls(c.p, 50);
		assert_true(ev_readable(roce_comp_channel_fd(ch2)));
		assert_int_equal(roce_destroy_qp(qb2), ROCE_OK);
		assert_int_equal(roce_destroy_qp(qa2), ROCE_OK);
		assert_int_equal(roce_destroy_cq(cq2), ROCE_OK);
		assert_int_equal(roce_get_cq_event(ch2, &got, NULL), ROCE_E_AGAIN);
	}
	assert_int_equal(roce_destroy_comp_channel(ch2), ROCE_OK);
	/* a CQ without a channel cannot be armed */
	assert_int_equal(roce_req_notify_cq(c.p->a.scq, 0), ROCE_E_INVAL);
	chan_close(&c);
}

/* The fd as an application waits on it: epoll says when an event is
 * there, and a blocking get on another thread sleeps until the engine
 * thread raises one. */
struct waiter {
	struct roce_comp_channel *ch;
	struct roce_cq *cq;
	_Atomic int done;
	int rc;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->rc = roce_get_cq_event(w->ch, &w->cq, NULL);
	atomic_store(&w->done, 1);
	return NULL;
}

static void test_fd_wait(void **state)
{
	struct pair_opts o = { 0 };
	struct chan c;
	struct roce_wc wc[4];
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct waiter w = { 0 };
	pthread_t t;
	int ep, fl;
	uint64_t end;

	(void)state;
	chan_open(&c, &o);
	ep = epoll_create1(EPOLL_CLOEXEC);
	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, roce_comp_channel_fd(c.ch), &ev), 0);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	chan_messages(&c, 1, 1, false);
	assert_int_equal(epoll_wait(ep, &out, 1, 1000), 1);
	assert_int_equal(get_event(&c), ROCE_OK);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	assert_int_equal(roce_poll_cq(c.rcq, 4, wc), 1);
	close(ep);

	/* blocking: the fd back to blocking, both engines on threads */
	fl = fcntl(roce_comp_channel_fd(c.ch), F_GETFL);
	assert_int_equal(fcntl(roce_comp_channel_fd(c.ch), F_SETFL, fl & ~O_NONBLOCK), 0);
	assert_int_equal(pair_start(&c.p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&c.p->b, -1), ROCE_OK);
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	w.ch = c.ch;
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(20000);
	assert_int_equal(atomic_load(&w.done), 0);      /* asleep: nothing came */
	ev_recv(c.p, c.qb, 2, 0, 4096);
	ev_send(c.p, c.qa, 2, 0, 100, false);
	for (end = pair_now_ms() + 5000; !atomic_load(&w.done) && pair_now_ms() < end;)
		usleep(1000);
	assert_int_equal(atomic_load(&w.done), 1);
	pthread_join(t, NULL);
	assert_int_equal(w.rc, ROCE_OK);
	assert_ptr_equal(w.cq, c.rcq);
	assert_int_equal(pair_wait(c.p, c.rcq, wc, 1, 5000), 1);
	assert_int_equal(wc[0].wr_id, 2);
	roce_ack_cq_events(c.rcq, 2);
	pair_stop(&c.p->a);
	pair_stop(&c.p->b);
	chan_close(&c);
}

static void on_signal(int sig)
{
	(void)sig;
}

/* A signal during a blocking wait: without SA_RESTART the wait ends with
 * ROCE_E_INTR (the drop-in's ibv_get_cq_event: -1, EINTR), as read(2) on
 * the kernel's fd does; with SA_RESTART it goes on and returns the event
 * that comes after. */
static void test_signal_interrupts_wait(void **state)
{
	struct pair_opts o = { 0 };
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct chan c;
	struct roce_wc wc[4];
	struct waiter w = { 0 };
	pthread_t t;
	uint64_t end;
	int fl;

	(void)state;
	chan_open(&c, &o);
	fl = fcntl(roce_comp_channel_fd(c.ch), F_GETFL);
	assert_int_equal(fcntl(roce_comp_channel_fd(c.ch), F_SETFL, fl & ~O_NONBLOCK), 0);
	assert_int_equal(pair_start(&c.p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&c.p->b, -1), ROCE_OK);
	assert_int_equal(roce_req_notify_cq(c.rcq, 0), ROCE_OK);
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);

	/* no SA_RESTART: the wait ends */
	w.ch = c.ch;
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(20000);
	assert_int_equal(atomic_load(&w.done), 0);
	assert_int_equal(pthread_kill(t, SIGUSR1), 0);
	for (end = pair_now_ms() + 5000; !atomic_load(&w.done) && pair_now_ms() < end;)
		usleep(1000);
	assert_int_equal(atomic_load(&w.done), 1);
	pthread_join(t, NULL);
	assert_int_equal(w.rc, ROCE_E_INTR);

	/* SA_RESTART: it goes on, and the event comes */
	sa.sa_flags = SA_RESTART;
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	memset(&w, 0, sizeof(w));
	w.ch = c.ch;
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(20000);
	assert_int_equal(pthread_kill(t, SIGUSR1), 0);
	usleep(20000);
	assert_int_equal(atomic_load(&w.done), 0);
	ev_recv(c.p, c.qb, 3, 0, 4096);
	ev_send(c.p, c.qa, 3, 0, 100, false);
	for (end = pair_now_ms() + 5000; !atomic_load(&w.done) && pair_now_ms() < end;)
		usleep(1000);
	assert_int_equal(atomic_load(&w.done), 1);
	pthread_join(t, NULL);
	assert_int_equal(w.rc, ROCE_OK);
	assert_int_equal(pair_wait(c.p, c.rcq, wc, 1, 5000), 1);
	roce_ack_cq_events(c.rcq, 1);
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
	pair_stop(&c.p->a);
	pair_stop(&c.p->b);
	chan_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_event_per_arm),
		cmocka_unit_test(test_solicited_only),
		cmocka_unit_test(test_two_cqs),
		cmocka_unit_test(test_ack_before_destroy),
		cmocka_unit_test(test_fd_wait),
		cmocka_unit_test(test_signal_interrupts_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
