/* SPDX-License-Identifier: MIT */
/*
 * The engine's top level: it only wires the stages together (STYLE: the
 * top level wires, the stages work). One poll = receive a burst, follow the
 * QP contexts the register file changed, run timers, let every QP's
 * responder and requester fill the transmit burst, send it.
 */
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "roce/device.h"
#include "roce/psn.h"
#include "roce/status.h"

static uint64_t mono_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The engine takes from the device what a NIC's data path is wired to: its
 * tables, counters and DDR; the rest comes in cfg. */
int engine_init(struct roce_engine *e, const struct engine_config *cfg)
{
	size_t mem_size;

	e->dev = cfg->dev;
	e->cnt = roce_device_counters(cfg->dev);
	e->qpt = roce_device_qp_table(cfg->dev);
	e->mrt = roce_device_mr_table(cfg->dev);
	e->mem = roce_device_mem(cfg->dev, &mem_size);
	e->mem_size = mem_size;
	e->port = cfg->port;
	memcpy(e->mac, cfg->mac, 6);
	e->ip = cfg->ip;
	e->now_ns = cfg->now_ns ? cfg->now_ns : mono_ns;
	e->clock_ctx = cfg->clock_ctx;
	e->dma_timeout_us = ROCE_DMA_TIMEOUT_US;
	atomic_init(&e->idle_after_us, ROCE_IDLE_AFTER_US);
	atomic_init(&e->idle_nap_us, ROCE_IDLE_NAP_US);
	atomic_init(&e->idle_sleep_ms, ROCE_IDLE_SLEEP_MS);
	atomic_init(&e->wake.asleep, 0);
	e->wake.fd = e->wake.port_fd = -1;
	atomic_init(&e->sleeps, 0);
	atomic_init(&e->wakeups, 0);
	atomic_init(&e->has_thread, false);
	e->tx = calloc(ROCE_TX_BURST, sizeof(*e->tx));
	e->active = calloc(ROCE_MAX_QP, sizeof(*e->active));
	if (!e->tx || !e->active) {
		free(e->tx);
		free(e->active);
		return ROCE_E_NOMEM;
	}
	for (unsigned i = 0; i < ROCE_TX_BURST; i++)
		e->tx_frames[i].data = e->tx[i].data;
	for (unsigned i = 0; i < MR_CACHE; i++)
		e->mrc[i].gen = 1;      /* empty */
	pthread_mutex_init(&e->lock, NULL);
	return ROCE_OK;
}

void engine_fini(struct roce_engine *e)
{
	free(e->tx);
	free(e->active);
	pthread_mutex_destroy(&e->lock);
}

void engine_add_qp(struct roce_engine *e, struct eng_qp *qp)
{
	qp->active_idx = e->n_active;
	e->active[e->n_active++] = qp;
	e->qp_by_qpn[qp->qpn] = qp;
}

void engine_del_qp(struct roce_engine *e, struct eng_qp *qp)
{
	struct eng_qp *last = e->active[--e->n_active];

	e->active[qp->active_idx] = last;
	last->active_idx = qp->active_idx;
	e->qp_by_qpn[qp->qpn] = NULL;
}

void engine_cq_push(struct roce_engine *e, struct eng_cq *cq, const struct roce_wc *wc)
{
	uint32_t prod = atomic_load_explicit(&cq->ring.prod, memory_order_relaxed);
	uint32_t cons = atomic_load_explicit(&cq->ring.cons, memory_order_acquire);

	roce_cnt_inc(e->cnt, ROCE_CNT_COMPLETIONS);
	if (wc->status != ROCE_WC_SUCCESS)
		roce_cnt_inc(e->cnt, ROCE_CNT_ERROR_COMPLETIONS);
	if (prod - cons > cq->ring.mask) {
		/* CQ overrun (IBA 11.4.2.1): lost, and reported by poll_cq */
		atomic_store_explicit(&cq->overflow, true, memory_order_release);
		return;
	}
	cq->wc[prod & cq->ring.mask] = *wc;
	atomic_store_explicit(&cq->ring.prod, prod + 1, memory_order_release);
}

/* The engine moves a QP to ERR (IBA 10.3.1): the register file shows it,
 * the queues are flushed. */
void engine_qp_error(struct roce_engine *e, struct eng_qp *qp)
{
	roce_qp_table_set_state((struct roce_qp_table *)e->qpt, qp->qpn, ROCE_QPS_ERR);
	qp->cfg.state = ROCE_QPS_ERR;
	qp->resp.goto_err = false;
	comp_complete(e, qp);
	comp_flush(e, qp);
	qp->flushed = true;
}

/* Follow the register file: a commit changed the QP context. */
static void sync_cfg(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t gen = roce_qp_table_generation(e->qpt, qp->qpn);
	struct roce_qp_cfg c;
	uint8_t old;

	if (gen == qp->cfg_gen)
		goto flush;
	old = qp->cfg.state;
	roce_qp_table_lookup(e->qpt, qp->qpn, &c, &qp->cfg_gen);
	qp->cfg = c;
	qp->mtu = roce_mtu_bytes((enum roce_mtu)c.mtu);
	if (!qp->mtu)
		qp->mtu = ROCE_MIN_MTU;
	qp->sport = roce_udp_sport(qp->qpn, c.dest_qpn);
	tx_template(e, qp);
	if (c.state == old)
		goto flush;
	if (c.state == ROCE_QPS_RESET) {
		/* RESET empties both queues without completions (IBA 10.3.1) */
		atomic_store_explicit(&qp->sq.cons,
				      atomic_load_explicit(&qp->sq.prod, memory_order_acquire),
				      memory_order_release);
		atomic_store_explicit(&qp->rq.cons,
				      atomic_load_explicit(&qp->rq.prod, memory_order_acquire),
				      memory_order_release);
	}
	if (c.state <= ROCE_QPS_INIT) {
		req_reset(qp);
		comp_reset(qp);
		resp_reset(qp);
		qp->flushed = false;
	}
	/* The application may climb several steps between two polls: what
	 * matters is which thresholds the QP crossed. Entering RTR (or
	 * beyond) from below starts the responder at rq_psn ... */
	if (old <= ROCE_QPS_INIT && c.state >= ROCE_QPS_RTR && c.state <= ROCE_QPS_SQE) {
		resp_reset(qp);
		qp->resp.psn = c.rq_psn;
	}
	/* ... entering RTS (or beyond) from below starts the requester */
	if (old <= ROCE_QPS_RTR && c.state >= ROCE_QPS_RTS && c.state <= ROCE_QPS_SQE) {
		req_reset(qp);
		comp_reset(qp);
		qp->req.psn = qp->req.psn_max = qp->comp.una = c.sq_psn;
		qp->comp.retry_left = c.retry_cnt;
		qp->comp.rnr_left = c.rnr_retry;
	}
flush:
	/* ERR flushes whatever is posted, now and later (IBA 10.3.1) */
	if (qp->cfg.state == ROCE_QPS_ERR) {
		comp_flush(e, qp);
		qp->flushed = true;
	}
}

static unsigned poll_once(struct roce_engine *e)
{
	struct roce_frame rx[ROCE_RX_BURST];
	unsigned n, moved, i;

	e->now_valid = false;
	for (i = 0; i < e->n_active; i++)
		sync_cfg(e, e->active[i]);

	n = roce_port_rx(e->port, rx, ROCE_RX_BURST);
	for (i = 0; i < n; i++)
		recv_frame(e, rx[i].data, rx[i].len);
	if (n)
		roce_port_rx_release(e->port, n);
	moved = n;

	for (i = 0; i < e->n_active; i++)
		comp_timers(e, e->active[i]);
	/* replies first (they free the peer's window), then new requests;
	 * a rotating start keeps one busy QP from starving the others */
	for (i = 0; i < e->n_active && tx_room(e); i++) {
		struct eng_qp *qp = e->active[(e->rr + i) % e->n_active];

		resp_tx(e, qp);
		req_tx(e, qp);
	}
	if (e->n_active)
		e->rr = (e->rr + 1) % e->n_active;
	moved += tx_flush(e);
	return moved;
}

unsigned engine_poll(struct roce_engine *e)
{
	unsigned moved;

	pthread_mutex_lock(&e->lock);
	moved = poll_once(e);
	pthread_mutex_unlock(&e->lock);
	return moved;
}

/* A spin-wait hint after an empty poll: the next poll rereads the ring
 * slots the peer is writing, and a tight loop would take their lines away
 * from it (DPDK's rte_pause). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Empty polls between two looks at the clock while spinning. */
#define IDLE_CHECK_POLLS 256

/* Nothing can start again but through a doorbell or a frame: no timer
 * runs (retransmission, RNR wait, DMA), nothing is posted and unsent or
 * staged, no reply is queued, and the port rings us for every frame. */
static bool engine_may_sleep(struct roce_engine *e)
{
	if (e->dma_stall || e->tx_n || !roce_port_can_sleep(e->port))
		return false;
	for (unsigned i = 0; i < e->n_active; i++) {
		const struct eng_qp *qp = e->active[i];

		if (qp->comp.timer || qp->comp.rnr_until || qp->req.dma_deadline ||
		    qp->req.cur != atomic_load_explicit(&qp->sq.prod, memory_order_acquire) ||
		    qp->resp.rep_head != qp->resp.rep_tail)
			return false;
	}
	return true;
}

static void add_relaxed(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * Sleep until the port or a doorbell rings, or max_ms pass (the driver
 * may change a QP through the register file, which rings nothing).
 * Returns false when sleeping was not possible (then the caller naps).
 * The order closes the race with a frame or a work request published
 * meanwhile (roce/link.h): asleep is set and fenced, then one more poll.
 */
static bool engine_sleep(struct roce_engine *e, uint32_t max_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = e->wake.fd, .events = POLLIN },
		{ .fd = e->wake.port_fd, .events = POLLIN },
	};
	uint64_t count;
	unsigned moved;
	bool may, broken = false;

	pthread_mutex_lock(&e->lock);
	may = engine_may_sleep(e);
	pthread_mutex_unlock(&e->lock);
	if (!may)
		return false;
	atomic_store(&e->wake.asleep, 1);
	/* pairs with the producers' fence: either they see asleep or the
	 * poll below sees their work */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load(&e->running)) {        /* stopping: see engine_stop */
		atomic_store(&e->wake.asleep, 0);
		return true;
	}
	pthread_mutex_lock(&e->lock);
	moved = poll_once(e);
	pthread_mutex_unlock(&e->lock);
	if (!moved) {
		add_relaxed(&e->sleeps);
		if (poll(pfd, e->wake.port_fd >= 0 ? 2 : 1, (int)max_ms) > 0)
			add_relaxed(&e->wakeups);
		/* a socket in error stays ready: nap instead of spinning */
		broken = pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL);
	}
	atomic_store_explicit(&e->wake.asleep, 0, memory_order_relaxed);
	/* empty the counter (non-blocking): rings while awake are spent */
	if (read(e->wake.fd, &count, sizeof(count)) < 0)
		count = 0;
	return !broken;
}

static void *engine_thread(void *arg)
{
	struct roce_engine *e = arg;
	uint64_t idle_since = 0;
	unsigned empty = 0;
	bool napping = false;

	while (atomic_load_explicit(&e->running, memory_order_acquire)) {
		uint32_t after_us, nap_us, sleep_ms;
		struct timespec nap;
		uint64_t now;
		unsigned moved;

		pthread_mutex_lock(&e->lock);
		moved = poll_once(e);
		pthread_mutex_unlock(&e->lock);
		if (moved) {
			idle_since = 0;
			empty = 0;
			napping = false;
			continue;
		}
		cpu_relax();
		after_us = atomic_load_explicit(&e->idle_after_us, memory_order_relaxed);
		if (!after_us)
			continue;
		if (!napping) {
			/* spinning: a look at the clock every so many empty
			 * polls; quiet for after_us, start napping */
			if (++empty < IDLE_CHECK_POLLS)
				continue;
			empty = 0;
			now = mono_ns(NULL);
			if (!idle_since)
				idle_since = now;
			if (now - idle_since < (uint64_t)after_us * 1000u)
				continue;
			napping = true;
		}
		sleep_ms = atomic_load_explicit(&e->idle_sleep_ms, memory_order_relaxed);
		if (sleep_ms && engine_sleep(e, sleep_ms))
			continue;
		nap_us = atomic_load_explicit(&e->idle_nap_us, memory_order_relaxed);
		nap.tv_sec = nap_us / 1000000u;
		nap.tv_nsec = (long)(nap_us % 1000000u) * 1000;
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int engine_set_idle(struct roce_engine *e, uint32_t after_us, uint32_t nap_us)
{
	if (nap_us == 0 || nap_us > 100000u)
		return ROCE_E_RANGE;
	atomic_store_explicit(&e->idle_nap_us, nap_us, memory_order_relaxed);
	atomic_store_explicit(&e->idle_after_us, after_us, memory_order_relaxed);
	return ROCE_OK;
}

int engine_set_sleep(struct roce_engine *e, uint32_t max_ms)
{
	if (max_ms > 3600000u)
		return ROCE_E_RANGE;
	atomic_store_explicit(&e->idle_sleep_ms, max_ms, memory_order_relaxed);
	return ROCE_OK;
}

void engine_sleep_stats(struct roce_engine *e, uint64_t *sleeps, uint64_t *wakeups)
{
	*sleeps = atomic_load_explicit(&e->sleeps, memory_order_relaxed);
	*wakeups = atomic_load_explicit(&e->wakeups, memory_order_relaxed);
}

int engine_start(struct roce_engine *e, int cpu)
{
	if (e->has_thread)
		return ROCE_E_STATE;
	e->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (e->wake.fd < 0)
		return ROCE_E_NOMEM;
	/* from now on post_send rings it: before the thread can sleep */
	atomic_store(&e->has_thread, true);
	roce_port_set_wake(e->port, &e->wake);
	atomic_store(&e->running, true);
	if (pthread_create(&e->thread, NULL, engine_thread, e) != 0) {
		atomic_store(&e->running, false);
		roce_port_set_wake(e->port, NULL);
		atomic_store(&e->has_thread, false);
		close(e->wake.fd);
		e->wake.fd = e->wake.port_fd = -1;
		return ROCE_E_NOMEM;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_setaffinity_np(e->thread, sizeof(set), &set);
	}
	return ROCE_OK;
}

void engine_stop(struct roce_engine *e)
{
	if (!e->has_thread)
		return;
	atomic_store(&e->running, false);
	engine_doorbell(e);             /* out of its sleep, to see it stop */
	pthread_join(e->thread, NULL);
	roce_port_set_wake(e->port, NULL);
	atomic_store(&e->has_thread, false);
	close(e->wake.fd);
	e->wake.fd = e->wake.port_fd = -1;
}

void engine_set_dma_stall(struct roce_engine *e, bool stall, uint32_t timeout_us)
{
	pthread_mutex_lock(&e->lock);
	e->dma_stall = stall;
	e->dma_timeout_us = timeout_us ? timeout_us : ROCE_DMA_TIMEOUT_US;
	pthread_mutex_unlock(&e->lock);
}
