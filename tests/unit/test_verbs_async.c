/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events (src/verbs/async.c, engine/event.c): QP_FATAL when
 * the engine moves a QP to ERR (retries exhausted, a request it refused),
 * none for a host's own modify to ERR; CQ_ERR once on an overrun;
 * PORT_ERR / PORT_ACTIVE as the device's link goes down (soft reset held)
 * and comes back; the bounded queue's overflow; acknowledgement before
 * destroy; an event of a destroyed object never returned; the fd
 * readable while events wait, a blocking get woken.
 */
#include <pthread.h>
#include <unistd.h>

#include "events.h"
#include "roce/driver.h"
#include "roce/regs.h"

static int async_fd(struct pair_side *s)
{
	int fd = roce_async_fd(s->ctx);

	assert_true(fd >= 0);
	return fd;
}

/* The next event of s, without blocking (its fd made non-blocking). */
static int next_event(struct pair_side *s, struct roce_async_event *ev)
{
	ev_nonblock(async_fd(s));
	return roce_get_async_event(s->ctx, ev);
}

static void test_qp_fatal_retry(void **state)
{
	struct pair_opts o = { .virtual_time = true, .timeout = 5, .retry_cnt = 3 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 1000, p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_async_event ev;
	struct roce_wc wc;

	(void)state;
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	assert_false(ev_readable(async_fd(&p->a)));
	/* the peer vanishes: RETRY_EXC_ERR, the QP in ERR, QP_FATAL */
	assert_int_equal(roce_memlink_set_faults(p->link, 1.0, 0, 0, 0), ROCE_OK);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_RETRY_EXC_ERR);
	assert_true(ev_readable(async_fd(&p->a)));
	assert_int_equal(next_event(&p->a, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, p->a.qp);
	assert_string_equal(roce_event_type_str(ev.event_type),
			    "local work queue catastrophic error");
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	assert_false(ev_readable(async_fd(&p->a)));
	assert_int_equal(next_event(&p->b, &ev), ROCE_E_AGAIN);
	/* not acknowledged: the QP stays */
	ev.event_type = ROCE_EVENT_QP_FATAL;
	ev.element.qp = p->a.qp;
	assert_int_equal(roce_destroy_qp(p->a.qp), ROCE_E_BUSY);
	roce_ack_async_event(&ev);
	assert_int_equal(roce_destroy_qp(p->a.qp), ROCE_OK);
	p->a.qps[0] = p->a.qp = NULL;
	assert_int_equal(roce_async_events_lost(p->a.ctx), 0);
	pair_close(p);
}

/* A WRITE with a wrong R_Key: the responder NAKs it and enters ERR, the
 * requester completes in error and enters ERR: QP_FATAL on both sides.
 * The host's own modify to ERR raises nothing. */
static void test_qp_fatal_both_sides(void **state)
{
	struct pair_opts o = { .virtual_time = true, .nqp = 2 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 100, p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_RDMA_WRITE, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_ERR };
	struct roce_async_event ev;
	struct roce_wc wc[4];

	(void)state;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey ^ 0x100;
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, wc, 1, 5000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	ev_polls(p, 20);
	assert_int_equal(next_event(&p->a, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, p->a.qps[0]);
	roce_ack_async_event(&ev);
	assert_int_equal(next_event(&p->b, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, p->b.qps[0]);
	roce_ack_async_event(&ev);
	/* the application's own ERR: flushes, no event */
	assert_int_equal(roce_modify_qp(p->a.qps[1], &at, ROCE_QP_STATE), ROCE_OK);
	ev_polls(p, 20);
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	assert_int_equal(next_event(&p->b, &ev), ROCE_E_AGAIN);
	pair_close(p);
}

/* A CQ of one entry gets two completions: CQ_ERR once (the CQ stays in
 * error), not again for the third. */
static void test_cq_overrun(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct roce_cq *cq = roce_create_cq(p->b.ctx, 1);
	struct roce_qp *qa, *qb;
	struct roce_async_event ev;
	struct roce_wc wc[4];

	(void)state;
	assert_non_null(cq);
	qa = ev_qp(&p->a, p->a.scq, p->a.rcq, NULL);
	qb = ev_qp(&p->b, p->b.scq, cq, NULL);
	ev_connect(p, qa, qb);
	for (int i = 0; i < 3; i++) {
		ev_recv(p, qb, (uint64_t)i, 0, 4096);
		ev_send(p, qa, (uint64_t)i, 0, 10, false);
		assert_int_equal(pair_wait(p, p->a.scq, wc, 1, 5000), 1);
	}
	ev_polls(p, 20);
	assert_int_equal(next_event(&p->b, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, ROCE_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, cq);
	assert_int_equal(next_event(&p->b, &ev), ROCE_E_AGAIN);
	assert_int_equal(roce_poll_cq(cq, 4, wc), -ROCE_E_FULL);
	assert_int_equal(roce_destroy_qp(qb), ROCE_OK);
	ev.event_type = ROCE_EVENT_CQ_ERR;
	ev.element.cq = cq;
	assert_int_equal(roce_destroy_cq(cq), ROCE_E_BUSY);
	roce_ack_async_event(&ev);
	assert_int_equal(roce_destroy_cq(cq), ROCE_OK);
	assert_int_equal(roce_destroy_qp(qa), ROCE_OK);
	pair_close(p);
}

/* CTRL.SOFT_RESET held or released through the register file, then one
 * engine poll. */
static void soft_reset(struct pair_side *s, bool hold)
{
	struct roce_drv *drv = roce_context_driver(s->ctx);
	uint32_t ctrl;

	assert_int_equal(roce_drv_read(drv, ROCE_REG_CTRL, &ctrl), ROCE_OK);
	ctrl = hold ? ctrl | ROCE_CTRL_SOFT_RESET : ctrl & ~ROCE_CTRL_SOFT_RESET;
	assert_int_equal(roce_drv_write(drv, ROCE_REG_CTRL, ctrl), ROCE_OK);
	roce_engine_poll(s->ctx);
}

static void expect_port(struct pair_side *s, enum roce_event_type t)
{
	struct roce_async_event ev;

	assert_int_equal(next_event(s, &ev), ROCE_OK);
	assert_int_equal(ev.event_type, t);
	assert_int_equal(ev.element.port_num, 1);
	roce_ack_async_event(&ev);
}

static void test_port_down_up(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct roce_async_event ev;

	(void)state;
	/* up when the context opened: no event for that */
	roce_engine_poll(p->a.ctx);
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	soft_reset(&p->a, true);
	expect_port(&p->a, ROCE_EVENT_PORT_ERR);
	roce_engine_poll(p->a.ctx);     /* still down: nothing more */
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	soft_reset(&p->a, false);
	expect_port(&p->a, ROCE_EVENT_PORT_ACTIVE);
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	assert_string_equal(roce_event_type_str(ROCE_EVENT_PORT_ERR), "port error");
	assert_int_equal(next_event(&p->b, &ev), ROCE_E_AGAIN);
	pair_close(p);
}

/* More events than the queue holds, none read: the first
 * ROCE_ASYNC_QUEUE stay, in order, the rest are lost and counted. */
static void test_overflow(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct roce_async_event ev;
	unsigned cycles = ROCE_ASYNC_QUEUE / 2 + 10;

	(void)state;
	for (unsigned i = 0; i < cycles; i++) {
		soft_reset(&p->a, true);
		soft_reset(&p->a, false);
	}
	assert_int_equal(roce_async_events_lost(p->a.ctx), 2 * cycles - ROCE_ASYNC_QUEUE);
	for (unsigned i = 0; i < ROCE_ASYNC_QUEUE; i++)
		expect_port(&p->a, i % 2 ? ROCE_EVENT_PORT_ACTIVE : ROCE_EVENT_PORT_ERR);
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	assert_false(ev_readable(async_fd(&p->a)));
	/* room again: the next change is queued */
	soft_reset(&p->a, true);
	expect_port(&p->a, ROCE_EVENT_PORT_ERR);
	soft_reset(&p->a, false);
	expect_port(&p->a, ROCE_EVENT_PORT_ACTIVE);
	pair_close(p);
}

/* A QP's QP_FATAL queued and never read: destroying the QP drops it. */
static void test_destroyed_object(void **state)
{
	struct pair_opts o = { .virtual_time = true, .timeout = 5, .retry_cnt = 1 };
	struct pair *p = pair_open(&o);
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 10, p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_async_event ev;
	struct roce_wc wc;

	(void)state;
	assert_int_equal(roce_memlink_set_faults(p->link, 1.0, 0, 0, 0), ROCE_OK);
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 10000), 1);
	assert_true(ev_readable(async_fd(&p->a)));
	assert_int_equal(roce_destroy_qp(p->a.qp), ROCE_OK);
	p->a.qps[0] = p->a.qp = NULL;
	assert_int_equal(next_event(&p->a, &ev), ROCE_E_AGAIN);
	pair_close(p);
}

struct waiter {
	struct roce_context *ctx;
	struct roce_async_event ev;
	_Atomic int done;
	int rc;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->rc = roce_get_async_event(w->ctx, &w->ev);
	atomic_store(&w->done, 1);
	return NULL;
}

/* The fd blocking, as a context's starts: a thread sleeps in the get
 * until the engine thread sees the link go down. */
static void test_blocking_get(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct waiter w = { .ctx = p->a.ctx };
	pthread_t t;
	uint64_t end;

	(void)state;
	assert_int_equal(pair_start(&p->a, -1), ROCE_OK);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(20000);
	assert_int_equal(atomic_load(&w.done), 0);
	{
		struct roce_drv *drv = roce_context_driver(p->a.ctx);
		uint32_t ctrl;

		assert_int_equal(roce_drv_read(drv, ROCE_REG_CTRL, &ctrl), ROCE_OK);
		assert_int_equal(roce_drv_write(drv, ROCE_REG_CTRL, ctrl | ROCE_CTRL_SOFT_RESET),
				 ROCE_OK);
	}
	/* a sleeping engine thread looks again within ROCE_IDLE_SLEEP_MS */
	for (end = pair_now_ms() + 5000; !atomic_load(&w.done) && pair_now_ms() < end;)
		usleep(1000);
	assert_int_equal(atomic_load(&w.done), 1);
	pthread_join(t, NULL);
	assert_int_equal(w.rc, ROCE_OK);
	assert_int_equal(w.ev.event_type, ROCE_EVENT_PORT_ERR);
	pair_stop(&p->a);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_fatal_retry),
		cmocka_unit_test(test_qp_fatal_both_sides),
		cmocka_unit_test(test_cq_overrun),
		cmocka_unit_test(test_port_down_up),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_destroyed_object),
		cmocka_unit_test(test_blocking_get),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
