/* SPDX-License-Identifier: MIT */
/*
 * The engine's top level: it only wires the stages together (STYLE: the
 * top level wires, the stages work). One poll = follow the contexts the
 * register file changed (ctx.c), take the doorbells, receive a burst, run
 * the timers that came due, let the arbiter's QPs fill the transmit burst
 * (sched.c), send it. No step walks the QPs that have nothing to do.
 */
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "engine/addr.h"
#include "engine/cc.h"
#include "engine/ctx.h"
#include "engine/dma.h"
#include "engine/engine.h"
#include "engine/event.h"
#include "engine/flush.h"
#include "engine/recv.h"
#include "engine/sched.h"
#include "engine/sq.h"
#include "engine/tx.h"
#include "regs/device_stage.h"
#include "tables/changes.h"
#include "roce/device.h"
#include "roce/psn.h"
#include "roce/status.h"

static uint8_t *stage_resolve(void *arg, uint64_t addr, uint64_t len)
{
	return dma_ptr(arg, addr, len);
}

/* The engine takes from the device what a NIC's data path is wired to: its
 * tables, counters and DDR; the rest comes in cfg. */
int engine_init(struct roce_engine *e, const struct engine_config *cfg)
{
	size_t mem_size;

	e->async.fd = -1;
	e->dev = cfg->dev;
	e->cnt = roce_device_counters(cfg->dev);
	e->qpt = roce_device_qp_table(cfg->dev);
	e->mrt = roce_device_mr_table(cfg->dev);
	e->qp_changes = roce_qp_table_change_queue(e->qpt);
	e->mr_changes = roce_mr_table_change_queue(e->mrt);
	e->mem = roce_device_mem(cfg->dev, &mem_size);
	e->mem_size = mem_size;
	e->stage = roce_device_stage(cfg->dev);
	e->port = cfg->port;
	memcpy(e->mac, cfg->mac, 6);
	e->ip = cfg->ip;
	addr_init(e, &cfg->gids);
	e->now_ns = cfg->now_ns ? cfg->now_ns : roce_clock_ns;
	e->clock_ctx = cfg->clock_ctx;
	e->dma_timeout_us = ROCE_DMA_TIMEOUT_US;
	roce_cc_config_default(&e->cc);        /* as the CC block's reset values */
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
	if (!e->tx || !e->active || !idxq_init(&e->doorbells, ROCE_MAX_QP) ||
	    event_init(e) != ROCE_OK) {
		free(e->tx);
		free(e->active);
		idxq_fini(&e->doorbells);
		return ROCE_E_NOMEM;
	}
	for (unsigned i = 0; i < ROCE_TX_BURST; i++)
		e->tx_frames[i].data = e->tx[i].data;
	for (unsigned i = 0; i < MR_CACHE; i++)
		e->mrc[i].gen = 1;      /* empty */
	/* the stages reach memory as the engine does (dma_ptr), and take
	   the MRs committed before the engine came */
	stage_dev_attach(e->stage, e->mem, e->mem_size, stage_resolve, e);
	for (uint32_t i = 0; i < ROCE_MAX_MR; i++) {
		struct roce_mr_entry mr;

		if (roce_mr_table_lookup(e->mrt, i, &mr) == ROCE_OK && mr.valid &&
		    roce_stage_bound(&mr.stage))
			ctx_stage_sync(e, &mr);
	}
	pthread_mutex_init(&e->lock, NULL);
	return ROCE_OK;
}

/* A QP's stage streams go with it (engine_del_qp), or with the engine
 * when its owner frees the QPs without (the sim's). */
static void qp_streams_free(struct eng_qp *qp)
{
	for (unsigned i = 0; i < 2; i++) {
		stage_stream_free(qp->stage_in[i]);
		qp->stage_in[i] = NULL;
	}
}

void engine_fini(struct roce_engine *e)
{
	for (uint32_t i = 0; i < e->n_active; i++)
		qp_streams_free(e->active[i]);
	stage_dev_attach(e->stage, NULL, 0, NULL, NULL);
	stage_dev_observe(e->stage, NULL, NULL);
	free(e->tx);
	free(e->active);
	idxq_fini(&e->doorbells);
	event_fini(e);
	pthread_mutex_destroy(&e->lock);
}

/* The caller holds the engine lock (engine_lock), as for del. */
void engine_add_qp(struct roce_engine *e, struct eng_qp *qp)
{
	qp->active_idx = e->n_active;
	e->active[e->n_active++] = qp;
	e->qp_by_qpn[qp->qpn] = qp;
	ctx_sync_qp(e, qp);             /* its context as the table has it */
}

void engine_del_qp(struct roce_engine *e, struct eng_qp *qp)
{
	struct eng_qp *last = e->active[--e->n_active];

	/* out of the arbiter and the wheel; a doorbell or a change still
	 * queued for its QPN finds no QP and is dropped */
	sched_remove(e, qp);
	tw_cancel(&e->timers, &qp->timer);

	qp_streams_free(qp);
	e->active[qp->active_idx] = last;
	last->active_idx = qp->active_idx;
	e->qp_by_qpn[qp->qpn] = NULL;
}

/* The CC block changed: every QP's congestion control follows, and its
 * header template, which carries the ECN field. */
static void cc_follow(struct roce_engine *e)
{
	for (uint32_t i = 0; i < e->n_active; i++) {
		struct eng_qp *qp = e->active[i];

		cc_qp_sync(e, qp);
		tx_template(e, qp);
	}
}

/* The transmit burst out: to the link, or with CTRL.LOOPBACK (seed 000
 * section 6.1, the first bring-up step) back to our own receive path,
 * never reaching the link (frames built in the link's buffers are out
 * already: tx_flush tells the port). */
static unsigned flush(struct roce_engine *e)
{
	uint32_t n = e->tx_n;
	unsigned zc;

	if (!roce_device_loopback(e->dev))
		return tx_flush(e);
	e->tx_n = 0;                    /* the staged burst is ours */
	zc = tx_flush(e);
	for (uint32_t i = 0; i < n; i++)
		recv_frame(e, e->tx[i].data, e->tx_frames[i].len);
	return zc + n;
}

static unsigned poll_once(struct roce_engine *e)
{
	struct roce_frame rx[ROCE_RX_BURST];
	unsigned n, moved, i;

	e->now_valid = false;
	event_link(e);
	/* two loads each when nothing changed and nothing was posted */
	if (engine_changes_pending(e))
		ctx_changes(e);
	if (cc_changes(e))      /* the CC block's commits: one load if none */
		cc_follow(e);
	if (idxq_pending(&e->doorbells))
		sched_doorbells(e);

	n = roce_port_rx(e->port, rx, ROCE_RX_BURST);
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			recv_prefetch(e, rx[i + 1].data, rx[i + 1].len);
		recv_frame(e, rx[i].data, rx[i].len);
	}
	if (n)
		roce_port_rx_release(e->port, n);
	moved = n;

	if (e->timers.armed)
		sched_timers(e);
	if (e->n_run)
		sched_arbiter(e);
	moved += flush(e);
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
	may = sched_idle(e);
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
			now = roce_now_ns();
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
	engine_wake(e);                 /* out of its sleep, to see it stop */
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
	/* the data came back: every QP waiting for it may go on (a fault
	 * hook of the model, not a per-packet path: a walk is fine) */
	if (!stall)
		for (uint32_t i = 0; i < e->n_active; i++)
			sched_kick(e, e->active[i]);
	pthread_mutex_unlock(&e->lock);
}
