/* SPDX-License-Identifier: MIT */
/*
 * The engine's top level: it only wires the stages together (STYLE: the
 * top level wires, the stages work). One poll = follow the contexts the
 * register file changed (ctx.c), take the doorbells, receive a burst, run
 * the timers that came due, let the arbiter's QPs fill the transmit burst
 * (sched.c), send it. No step walks the QPs that have nothing to do.
 */
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "engine/addr.h"
#include "engine/cc.h"
#include "engine/ctx.h"
#include "engine/dma.h"
#include "engine/engine.h"
#include "engine/event.h"
#include "engine/flush.h"
#include "engine/recv.h"
#include "engine/resp.h"
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
	e->rtc.watch_fd = -1;
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

/* A QP's stage streams and responder resources go with it
 * (engine_del_qp), or with the engine when its owner frees the QPs
 * without (the sim's). */
static void qp_streams_free(struct eng_qp *qp)
{
	for (unsigned i = 0; i < 2; i++) {
		stage_stream_free(qp->stage_in[i]);
		qp->stage_in[i] = NULL;
	}
	resp_free(qp);
}

void engine_fini(struct roce_engine *e)
{
	for (uint32_t i = 0; i < e->n_active; i++)
		qp_streams_free(e->active[i]);
	stage_dev_attach(e->stage, NULL, 0, NULL, NULL);
	stage_dev_observe(e->stage, NULL, NULL);
	free(e->tx);
	free(e->loop);
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

/* Frames to our own MAC (an address handle or a QP to one of our own
 * GIDs: a program talking to itself, UCX's and MPI's endpoints to their
 * own worker) stay inside, as a NIC loops them back (ConnectX's local
 * loopback, rxe's): out of the staged burst into the loop slots, whose
 * frames the next turn receives before the link's. The loop is empty
 * here (every turn drains it first), and at most a burst is staged. */
static void loop_out(struct roce_engine *e)
{
	uint32_t kept = 0;

	if (!e->loop && !(e->loop = calloc(ROCE_TX_BURST, sizeof(*e->loop)))) {
		e->tx_self = 0;         /* no memory: they go to the link */
		return;
	}
	for (uint32_t i = 0; i < e->tx_n; i++) {
		uint32_t len = e->tx_frames[i].len;
		bool to_self = e->tx_self & (1u << i);

		if (to_self && e->loop_n < ROCE_TX_BURST) {
			memcpy(e->loop[e->loop_n].data, e->tx[i].data, len);
			e->loop_len[e->loop_n++] = len;
			continue;
		}
		/* (a full loop, which a turn that drains it first never
		   sees, sends it to the link as a lack of memory does) */
		if (kept != i) {
			memcpy(e->tx[kept].data, e->tx[i].data, len);
			e->tx_frames[kept].len = len;
		}
		kept++;
	}
	e->tx_n = kept;
	e->tx_self = 0;
}

/* The frames looped back at the last turn, received as the link's are
 * (what they make is staged for this turn's burst, not looped over them) */
static unsigned loop_in(struct roce_engine *e)
{
	uint32_t n = e->loop_n;

	e->loop_n = 0;
	for (uint32_t i = 0; i < n; i++)
		recv_frame(e, e->loop[i].data, e->loop_len[i]);
	return n;
}

/* The transmit burst out: to the link, or with CTRL.LOOPBACK (seed 000
 * section 6.1, the first bring-up step) back to our own receive path,
 * never reaching the link (frames built in the link's buffers are out
 * already: tx_flush tells the port). */
static unsigned flush(struct roce_engine *e)
{
	uint32_t n;
	unsigned zc;

	if (!roce_device_loopback(e->dev)) {
		n = e->tx_self ? e->tx_n : 0;
		if (n)
			loop_out(e);
		n -= n ? e->tx_n : 0;   /* looped back */
		return tx_flush(e) + n;
	}
	n = e->tx_n;
	e->tx_self = 0;
	e->tx_n = 0;                    /* the staged burst is ours */
	zc = tx_flush(e);
	for (uint32_t i = 0; i < n; i++)
		recv_frame(e, e->tx[i].data, e->tx_frames[i].len);
	return zc + n;
}

unsigned engine_turn(struct roce_engine *e)
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

	moved = e->loop_n ? loop_in(e) : 0;
	n = roce_port_rx(e->port, rx, ROCE_RX_BURST);
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			recv_prefetch(e, rx[i + 1].data, rx[i + 1].len);
		recv_frame(e, rx[i].data, rx[i].len);
	}
	if (n)
		roce_port_rx_release(e->port, n);
	moved += n;

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
	moved = engine_turn(e);
	pthread_mutex_unlock(&e->lock);
	return moved;
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
