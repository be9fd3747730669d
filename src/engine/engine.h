/* SPDX-License-Identifier: MIT */
/*
 * The transport engine: the device's data path. This header is its face
 * to the host side (src/verbs, src/sim): life, QPs, polling, the engine
 * thread, the doorbell. Nothing here knows the host (no driver, no bus,
 * no verbs objects): the engine is given a device, a port, its addresses
 * and a clock (struct engine_config), and it works on its own per-QP and
 * per-CQ state (engine/state.h), which the verbs objects embed.
 *
 * The stages, each a file with its header, call one way, down this
 * picture (scripts/layers engine draws it from the object files, and
 * tests/scripts/layers.sh fails on a call or include back up):
 *
 *   engine.c   the poll: contexts, doorbells, a receive burst, timers,
 *      |       the arbiter, the transmit burst (or CTRL.LOOPBACK), the
 *      |       CC block's commits
 *   recv.c     receive checks --> resp.c | uc.c | ud.c | comp.c; a CNP
 *      |       when cc.c says one is due (tx.c builds it)
 *   ctx.c      the register file's commits --> the stages' resets
 *   sched.c    arbiter and timers --> req.c, resp.c, comp.c
 *   comp.c     completer: ACKs, NAKs, READ responses, the retransmission
 *      |       timer and the recovery decisions --> req.c (go back to a
 *      |       PSN, resend the last), recovery.c, cc.c, window.c
 *   req.c      requester (seed 001 state machine) --> uc.c, ud.c
 *   resp.c uc.c ud.c     responders --> rq.c
 *   flush.c    a QP in ERR --> sq.c, rq.c
 *   sq.c rq.c  the queues' WQEs leave as completions --> cq.c
 *   tx.c       frames out (templates, the payload fetched with its ICRC)
 *   mover.c    place (wire -> MR) and fetch (MR -> frame): every byte
 *      |       into or out of an MR --> dma.c
 *   recovery.c the retransmission timer's length, IBA's detection time,
 *              the tail-loss probe's rules (req.c reports what it sends)
 *   cc.c       ECN, when a CNP is due, pacing at the rate the QP's
 *      |       algorithm grants (src/cc/algo.h: DCQCN behind an
 *      |       operations table) --> window.c
 *   window.c   go-back-N's window: the bound, the loss-adaptive one, the
 *              algorithm's, as one (comp.c: ACKs, NAKs, timeouts)
 *   dma.c      protection and translation --> iommu.c
 *   cq.c event.c addr.c timer.c iommu.c      the leaves
 *
 * No owner edges: nothing calls back up this picture.
 */
#ifndef ROCE_ENGINE_ENGINE_H
#define ROCE_ENGINE_ENGINE_H

#include "engine/state.h"

/* What the engine is given: the device it is the data path of (its QP and
 * MR tables, counters and DDR, through roce/device.h), the link port, the
 * station addresses and a clock. */
struct engine_config {
	struct roce_device *dev;
	struct roce_port *port;
	uint8_t mac[6];
	uint32_t ip;                    /* IPv4, host order */
	struct roce_gid_table gids;     /* the port's GIDs: the IPv6 ones are
					 * the addresses it sends from and
					 * accepts (addr.c) */
	uint64_t (*now_ns)(void *ctx);  /* timers; NULL = CLOCK_MONOTONIC */
	void *clock_ctx;
};

/* life and QPs; the caller holds the engine lock (engine_lock) around
 * add and del */
int engine_init(struct roce_engine *e, const struct engine_config *cfg);
void engine_fini(struct roce_engine *e);
void engine_add_qp(struct roce_engine *e, struct eng_qp *qp);
void engine_del_qp(struct roce_engine *e, struct eng_qp *qp);

/* engine.c: polling, the engine thread and its idle policy, the DMA fault
 * hook (the public roce_engine_* calls of roce/verbs.h are these, on the
 * context's engine) */
unsigned engine_poll(struct roce_engine *e);
/* One turn (engine.c), the engine lock held: follow the register file,
 * take the doorbells, receive, run timers, transmit. Frames moved. */
unsigned engine_turn(struct roce_engine *e);
/* thread.c: the engine thread, its idle policy, run to completion */
int engine_start(struct roce_engine *e, int cpu);
void engine_stop(struct roce_engine *e);
unsigned engine_drive(struct roce_engine *e);
void engine_waiting(struct roce_engine *e);
void engine_release(struct roce_engine *e);
int engine_set_handoff(struct roce_engine *e, uint32_t handoff_us);
void engine_rtc_stats(struct roce_engine *e, struct roce_engine_rtc_stats *s);
int engine_set_idle(struct roce_engine *e, uint32_t after_us, uint32_t nap_us);
int engine_set_sleep(struct roce_engine *e, uint32_t max_ms);
void engine_sleep_stats(struct roce_engine *e, uint64_t *sleeps, uint64_t *wakeups);
void engine_set_dma_stall(struct roce_engine *e, bool stall, uint32_t timeout_us);

/* The doorbell of a QP (any thread, after publishing a work request):
 * queue the QP for the engine (common/idxq.h says why nothing is lost),
 * and wake the engine thread if it sleeps: the fence pairs with the one
 * in engine_sleep, so either it sees the queued QP or we see it asleep. */
static inline void engine_doorbell(struct roce_engine *e, struct eng_qp *qp)
{
	idxq_push(&e->doorbells, qp->qpn);
	if (e->has_thread) {
		atomic_thread_fence(memory_order_seq_cst);
		roce_wake_if_asleep(&e->wake);
	}
}

/* Wake the engine thread for work that is not a QP's (e.g. stopping). */
static inline void engine_wake(struct roce_engine *e)
{
	if (!e->has_thread)
		return;
	atomic_thread_fence(memory_order_seq_cst);
	roce_wake_if_asleep(&e->wake);
}

#endif
