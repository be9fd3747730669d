/* SPDX-License-Identifier: MIT */
/*
 * The requester: seed 001's request state machine, one packet per step.
 *
 *   IDLE        take the next WQE; SEND -> SEND, READ -> READ,
 *               WRITE -> WRITE_HEAD, atomics -> ATOMIC; an invalid WQE
 *               stays in IDLE and raises an error completion
 *   SEND        one SEND packet; more to send -> SEND, else -> DONE
 *   READ        the READ request (remote VA, length, R_Key; no payload)
 *   WRITE_HEAD  choose FIRST/MIDDLE/LAST/ONLY, hand the local address and
 *               length to the DMA engine -> WRITE_DATA
 *   WRITE_DATA  take up to one MTU of data from DMA into the packet; more
 *               left -> WRITE_HEAD, done -> DONE; DMA timeout -> IDLE with
 *               an error completion
 *   ATOMIC      the CmpSwap / FetchAdd request (extension)
 *   DONE        the last frame is out; the WQE waits for its ACK -> IDLE
 *
 * A message that fits one packet (a WRITE or SEND of at most one MTU
 * left, the DMA not stalled) takes WRITE_HEAD/SEND, WRITE_DATA and DONE in
 * one step: the same packet and the same state (IDLE) at the end of the
 * poll as the steps one by one, without three trips round the loop.
 *
 * Packets are regenerated from the WQE when they must be sent again
 * (go-back-N from a NAK or a timeout), so nothing but the WQE is kept per
 * unacknowledged packet (docs/design.md, "Retransmission").
 */
#include <string.h>

#include "engine/cc.h"
#include "engine/flush.h"
#include "engine/recovery.h"
#include "engine/req.h"
#include "engine/sq.h"
#include "engine/tx.h"
#include "engine/uc.h"
#include "engine/ud.h"
#include "roce/psn.h"
#include "roce/status.h"

const char *const req_state_names[REQ_STATE_COUNT] = {
	[REQ_IDLE] = "IDLE",
	[REQ_SEND] = "SEND",
	[REQ_READ] = "READ",
	[REQ_WRITE_HEAD] = "WRITE_HEAD",
	[REQ_WRITE_DATA] = "WRITE_DATA",
	[REQ_ATOMIC] = "ATOMIC",
	[REQ_DONE] = "DONE",
};

/* Packets (PSNs) a message of len bytes takes: at least one. */
static uint32_t npackets(uint32_t len, uint32_t mtu)
{
	return len ? (len + mtu - 1) / mtu : 1;
}

void req_reset(struct eng_qp *qp)
{
	memset(&qp->req, 0, sizeof(qp->req));
	qp->req.cur = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
}

/* Local error while sending: the WQE completes with status, the QP goes to
 * the error state and the rest is flushed (IBA 10.8.3.1). */
static void req_fail(struct roce_engine *e, struct eng_qp *qp,
		     struct swqe *w, enum roce_wc_status status)
{
	w->status = (uint8_t)status;
	w->state = SWQE_DONE;
	qp->req.state = REQ_IDLE;
	qp_error(e, qp);
}

static void sent_one(struct roce_engine *e, struct eng_qp *qp, bool ackreq)
{
	cc_psn_sent(e, qp, qp->req.psn, qp->req.psn_max);
	/* read only before the first round-trip sample (recovery.c,
	   frto_go_on); a store per packet after it cost 15 % of the 64 B
	   WRITE on two cores */
	if (ackreq && qp->rec_rto && !qp->comp.rtt_min)
		frto_ackreq_sent(qp, qp->req.psn);
	if (roce_psn_cmp(qp->req.psn, qp->req.psn_max) < 0) {
		roce_cnt_inc(e->cnt, ROCE_CNT_RETRANSMISSIONS);
	} else {
		/* the oldest outstanding: IBA's detection time starts */
		if (qp->req.psn == qp->comp.una && qp->tr->acked)
			qp->comp.since = engine_now(e);
		/* round trips for the adaptive timer and window (RC) */
		if (ackreq && (qp->rec_rto || qp->rec_window))
			rto_sample_sent(e, qp, qp->req.psn);
		if (qp->rec_rto)
			probe_arm(e, qp);
	}
	qp->req.psn = roce_psn_add(qp->req.psn, 1);
	if (roce_psn_cmp(qp->req.psn, qp->req.psn_max) > 0)
		qp->req.psn_max = qp->req.psn;
	/* UC, UD: nothing is acknowledged, nothing is sent again (IBA 9.8);
	   an infinite timeout (0) has the adaptive timer only */
	if (!qp->comp.timer && (qp->cfg.timeout || qp->rec_rto) && qp->tr->acked)
		qp->comp.timer = engine_now(e) + rto_ns(e, qp);
}

/* AckReq on the last packet of a message and at least every N packets
 * (IBA 9.7.6.1.4 leaves the rate to the requester); never on UC or UD,
 * whose responders send no acknowledgement (rxe sets it on neither). */
static bool want_ack(struct eng_qp *qp, bool last)
{
	if (!qp->tr->acked)
		return false;
	/* the packet that closes the window asks for the ACK that opens
	   it: a window smaller than a message would otherwise wait for a
	   probe (an AckReq every half window, tried, doubled the ACKs and
	   cost roce-fabric's incast its timeouts and queue) */
	if (last || qp->req.probe || ++qp->req.noack >= ROCE_ACKREQ_EVERY ||
	    (qp->window && roce_psn_diff(roce_psn_add(qp->req.psn, 1), qp->comp.una) >=
				   (int32_t)qp->window)) {
		qp->req.probe = false;
		qp->req.noack = 0;
		return true;
	}
	return false;
}

static uint8_t pick_opcode(const struct swqe *w, bool first, bool last)
{
	bool send = w->opcode == ROCE_WR_SEND || w->opcode == ROCE_WR_SEND_WITH_IMM;
	bool imm = w->opcode == ROCE_WR_SEND_WITH_IMM ||
		   w->opcode == ROCE_WR_RDMA_WRITE_WITH_IMM;
	uint8_t base = send ? ROCE_OP_RC_SEND_FIRST : ROCE_OP_RC_WRITE_FIRST;

	/* FIRST +0, MIDDLE +1, LAST +2, LAST_IMM +3, ONLY +4, ONLY_IMM +5 */
	if (first && last)
		return (uint8_t)(base + (imm ? 5 : 4));
	if (first)
		return base;
	if (last)
		return (uint8_t)(base + (imm ? 3 : 2));
	return (uint8_t)(base + 1);
}

/* One SEND or WRITE packet from the current offset. */
static int emit_data(struct roce_engine *e, struct eng_qp *qp, struct swqe *w)
{
	uint32_t chunk = w->length - qp->req.offset;
	bool first = qp->req.offset == 0, last;
	struct roce_hdrs ext;
	struct tx_pkt p = { 0 };
	int rc;

	if (chunk > qp->mtu)
		chunk = qp->mtu;
	last = qp->req.offset + chunk == w->length;
	p.opcode = qp->tr->op_class | pick_opcode(w, first, last);
	p.psn = qp->req.psn;
	p.ackreq = want_ack(qp, last);
	p.se = last && (w->flags & ROCE_SEND_SOLICITED);
	p.sge = swqe_sgl(qp, w);
	p.nsge = w->num_sge;
	p.sge_off = qp->req.offset;
	if (w->flags & ROCE_SEND_INLINE)
		p.inl = swqe_inline(qp, w);
	p.len = chunk;
	/* only the fields of the headers the opcode carries are read (a UD
	 * WQE's remote_addr and rkey are its destination: not read) */
	ext.reth.va = w->remote_addr;
	ext.reth.rkey = w->rkey;
	ext.reth.len = w->length;
	ext.imm = roce_imm_from_net(w->imm);
	p.ext = &ext;
	if (!qp->tr->connected)
		ud_packet(e, qp, w, &ext, &p);  /* one packet: its opcode, DETH, peer */
	rc = tx_build(e, qp, &p);
	if (rc)
		return rc;
	qp->req.offset += chunk;
	sent_one(e, qp, p.ackreq);
	return ROCE_OK;
}

/* A READ or atomic request: one packet at the next PSN, AckReq set; a
 * request that cannot be built fails its WQE. */
static bool send_request(struct roce_engine *e, struct eng_qp *qp, struct swqe *w,
			 struct tx_pkt *p)
{
	p->psn = qp->req.psn;
	p->ackreq = true;
	if (tx_build(e, qp, p) != ROCE_OK) {
		req_fail(e, qp, w, ROCE_WC_LOC_QP_OP_ERR);
		return false;
	}
	sent_one(e, qp, true);
	return true;
}

/* READ: one READ REQUEST; the responses take the PSNs after it. */
static enum req_state step_read(struct roce_engine *e, struct eng_qp *qp)
{
	struct swqe *w = sq_at(qp, qp->req.cur);
	uint32_t done = qp->req.offset, left = w->length - done;
	uint32_t n = npackets(left, qp->mtu);
	struct roce_hdrs ext;
	struct tx_pkt p = { 0 };

	/* a retried READ asks only for what is still missing (IBA 9.7.7.1) */
	/* only the fields of the headers the opcode carries are read */
	ext.reth.va = w->remote_addr + done;
	ext.reth.rkey = w->rkey;
	ext.reth.len = left;
	p.opcode = ROCE_OP_RC_READ_REQUEST;
	p.ext = &ext;
	if (!send_request(e, qp, w, &p))
		return REQ_IDLE;
	/* the responses take the following PSNs */
	qp->req.psn = roce_psn_add(qp->req.psn, n - 1);
	if (roce_psn_cmp(qp->req.psn, qp->req.psn_max) > 0)
		qp->req.psn_max = qp->req.psn;
	qp->req.offset = w->length;
	return REQ_DONE;
}

/* ATOMIC: one CmpSwap or FetchAdd request. */
static enum req_state step_atomic(struct roce_engine *e, struct eng_qp *qp)
{
	struct swqe *w = sq_at(qp, qp->req.cur);
	struct roce_hdrs ext;
	struct tx_pkt p = { 0 };

	/* only the fields of the headers the opcode carries are read */
	ext.atomic.va = w->remote_addr;
	ext.atomic.rkey = w->rkey;
	ext.atomic.swap_add = w->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ? w->swap
								       : w->compare_add;
	ext.atomic.compare = w->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ? w->compare_add : 0;
	p.opcode = w->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ? ROCE_OP_RC_CMP_SWAP
							   : ROCE_OP_RC_FETCH_ADD;
	p.ext = &ext;
	if (!send_request(e, qp, w, &p))
		return REQ_IDLE;
	qp->req.offset = 8;
	return REQ_DONE;
}

/* IDLE: take the next WQE, or stay when there is none or it must wait. */
static enum req_state step_idle(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);
	struct swqe *w;

	/* finished already (met again after a go-back, its response having
	 * overtaken the resend): skip it and its PSNs, release it */
	if (qp->req.cur != prod && sq_at(qp, qp->req.cur)->state == SWQE_DONE) {
		do {
			w = sq_at(qp, qp->req.cur);
			qp->req.psn = roce_psn_add(w->first_psn, w->npsn);
			qp->req.cur++;
			qp->req.offset = 0;
		} while (qp->req.cur != prod && sq_at(qp, qp->req.cur)->state == SWQE_DONE);
		if (roce_psn_cmp(qp->req.psn, qp->req.psn_max) > 0)
			qp->req.psn_max = qp->req.psn;
		sq_complete(e, qp);
	}
	if (qp->req.cur == prod)
		return REQ_IDLE;
	w = sq_at(qp, qp->req.cur);
	/* UC and UD have no READ or atomic opcode: such a WQE (post_send
	 * refuses them) fails as rxe's requester fails it (next_opcode_uc,
	 * next_opcode) */
	if (!qp->tr->rd_atomic && swqe_rd_atomic(w)) {
		req_fail(e, qp, w, ROCE_WC_LOC_QP_OP_ERR);
		return REQ_IDLE;
	}
	/* UD: SENDs of one packet only; anything else is not sent (ud.c) */
	if (!qp->tr->connected && w->state == SWQE_POSTED) {
		enum roce_wc_status st = ud_wqe_check(qp, w);

		if (st != ROCE_WC_SUCCESS) {
			req_fail(e, qp, w, st);
			return REQ_IDLE;
		}
	}
	if (w->state == SWQE_POSTED) {
		/* fence: wait for earlier READs and atomics (IBA 10.8.3.3) */
		if ((w->flags & ROCE_SEND_FENCE) && qp->req.rd_atomic)
			return REQ_IDLE;
		if (swqe_rd_atomic(w) && qp->req.rd_atomic >= qp->cfg.max_rd_atomic)
			return REQ_IDLE;
		/* keep the PSN window within half the PSN space (IBA 9.7.1) */
		if (roce_psn_diff(qp->req.psn, qp->comp.una) >= (int32_t)ROCE_MAX_INFLIGHT_PSN)
			return REQ_IDLE;
		w->first_psn = qp->req.psn;
		w->npsn = swqe_rd_atomic(w) && w->opcode != ROCE_WR_RDMA_READ
				  ? 1 : npackets(w->length, qp->mtu);
		w->state = SWQE_SENDING;
		if (swqe_rd_atomic(w))
			qp->req.rd_atomic++;
		qp->req.offset = 0;
	}
	switch (w->opcode) {
	case ROCE_WR_SEND:
	case ROCE_WR_SEND_WITH_IMM:
		return REQ_SEND;
	case ROCE_WR_RDMA_READ:
		return REQ_READ;
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
		return REQ_WRITE_HEAD;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		return REQ_ATOMIC;
	default:
		/* seed 001: an invalid request type reports an error */
		req_fail(e, qp, w, ROCE_WC_LOC_QP_OP_ERR);
		return REQ_IDLE;
	}
}

static enum req_state step_send(struct roce_engine *e, struct eng_qp *qp)
{
	struct swqe *w = sq_at(qp, qp->req.cur);
	int rc = emit_data(e, qp, w);

	if (rc) {
		req_fail(e, qp, w, ROCE_WC_LOC_PROT_ERR);
		return REQ_IDLE;
	}
	return qp->req.offset < w->length ? REQ_SEND : REQ_DONE;
}

static enum req_state step_write_head(struct eng_qp *qp)
{
	/* hand the local range to the DMA engine; its clock starts when
	 * the data is first found missing (no clock read per WRITE) */
	qp->req.dma_deadline = 0;
	return REQ_WRITE_DATA;
}

static enum req_state step_write_data(struct roce_engine *e, struct eng_qp *qp)
{
	struct swqe *w = sq_at(qp, qp->req.cur);

	if (e->dma_stall) {
		if (!qp->req.dma_deadline)
			qp->req.dma_deadline = engine_now(e) +
					       (uint64_t)e->dma_timeout_us * 1000u;
		if (engine_now(e) < qp->req.dma_deadline)
			return REQ_WRITE_DATA;          /* still waiting for data */
		req_fail(e, qp, w, ROCE_WC_GENERAL_ERR);
		return REQ_IDLE;
	}
	qp->req.dma_deadline = 0;               /* the data is there */
	if (emit_data(e, qp, w)) {
		req_fail(e, qp, w, ROCE_WC_LOC_PROT_ERR);
		return REQ_IDLE;
	}
	return qp->req.offset < w->length ? REQ_WRITE_HEAD : REQ_DONE;
}

static enum req_state step_done(struct roce_engine *e, struct eng_qp *qp)
{
	struct swqe *w = sq_at(qp, qp->req.cur);

	if (!qp->tr->acked)
		uc_sent(qp, w);         /* UC, UD: complete on send (IBA 9.8) */
	else if (w->state == SWQE_SENDING)
		w->state = SWQE_SENT;
	qp->req.cur++;
	qp->req.offset = 0;
	/* its ACK may have overtaken this step: complete it now */
	if (w->state == SWQE_DONE)
		sq_complete(e, qp);
	return REQ_IDLE;
}

/* The one-packet fast path (see the top of this file), after IDLE took a
 * WRITE or a SEND; next is what IDLE chose. */
static enum req_state step_one_packet(struct roce_engine *e, struct eng_qp *qp,
				      enum req_state next)
{
	struct swqe *w = sq_at(qp, qp->req.cur);

	if (w->length - qp->req.offset > qp->mtu ||
	    (next == REQ_WRITE_HEAD && e->dma_stall))
		return next;
	qp->req.dma_deadline = 0;
	if (emit_data(e, qp, w)) {
		req_fail(e, qp, w, ROCE_WC_LOC_PROT_ERR);
		return REQ_IDLE;
	}
	return step_done(e, qp);
}

static bool can_send(struct roce_engine *e, struct eng_qp *qp)
{
	if (qp->cfg.state != ROCE_QPS_RTS || qp->flushed)
		return false;
	/* an RNR wait ends at rnr_until; then it is cleared (no clock read
	 * while none is running) */
	if (qp->comp.rnr_until) {
		if (engine_now(e) < qp->comp.rnr_until)
			return false;
		qp->comp.rnr_until = 0;
	}
	/* the bounded window (cc.c): an ACK opens it and kicks the QP */
	if (qp->window && roce_psn_diff(qp->req.psn, qp->comp.una) >= (int32_t)qp->window)
		return false;
	return cc_may_send(e, qp);      /* DCQCN's pacing */
}

void req_tx(struct roce_engine *e, struct eng_qp *qp)
{
	while (tx_room(e) && can_send(e, qp)) {
		enum req_state prev = qp->req.state, next;
		unsigned built = e->tx_built;

		switch (prev) {
		case REQ_IDLE:
			next = step_idle(e, qp);
			if (next == REQ_WRITE_HEAD || next == REQ_SEND)
				next = step_one_packet(e, qp, next);
			break;
		case REQ_SEND: next = step_send(e, qp); break;
		case REQ_READ: next = step_read(e, qp); break;
		case REQ_WRITE_HEAD: next = step_write_head(qp); break;
		case REQ_WRITE_DATA: next = step_write_data(e, qp); break;
		case REQ_ATOMIC: next = step_atomic(e, qp); break;
		case REQ_DONE: next = step_done(e, qp); break;
		default: next = REQ_IDLE; break;
		}
		if (qp->flushed || qp->cfg.state != ROCE_QPS_RTS)
			return;
		qp->req.state = next;
		/* idle with nothing to do (no one-packet message went out),
		 * or waiting on DMA: stop */
		if ((next == REQ_IDLE && prev == REQ_IDLE && e->tx_built == built) ||
		    (next == REQ_WRITE_DATA && prev == REQ_WRITE_DATA))
			return;
	}
}

/* The sent, not yet completed WQE whose PSNs hold psn: its index, or
 * prod when there is none. */
static uint32_t sq_holding(struct eng_qp *qp, uint32_t psn, uint32_t prod)
{
	uint32_t i = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);

	for (; i != prod; i++) {
		const struct swqe *w = sq_at(qp, i);

		if (w->state != SWQE_POSTED && w->state != SWQE_DONE &&
		    roce_psn_dist(w->first_psn, psn) < w->npsn)
			return i;
	}
	return prod;
}

/* The requester resumes at psn, inside WQE i. */
static void go_back_at(struct eng_qp *qp, uint32_t i, uint32_t psn)
{
	struct swqe *w = sq_at(qp, i);

	qp->req.cur = i;
	qp->req.psn = psn;
	qp->req.offset = roce_psn_dist(w->first_psn, psn) * qp->mtu;
	if (qp->req.offset > w->length)
		qp->req.offset = w->length;
	qp->req.state = REQ_IDLE;
	qp->req.noack = 0;
}

bool req_resend_last(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t last = roce_psn_add(qp->req.psn_max, -1u);
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);
	uint32_t i = sq_holding(qp, last, prod);

	(void)e;
	/* a READ or atomic request is resent whole by the timer: its
	   responses are the acknowledgement */
	if (i == prod || swqe_rd_atomic(sq_at(qp, i)))
		return false;
	go_back_at(qp, i, last);
	qp->req.probe = true;
	return true;
}

/*
 * Go back N: send again from psn, which lies in a WQE already (partly)
 * sent. Later WQEs keep their PSNs: segmentation is deterministic, so
 * regenerating gives the same packets. Also moves forward, when a late
 * ACK acknowledges more than a rewound requester would send; when it
 * acknowledges everything sent (psn_max: a spurious timeout's go-back
 * overtaken), no WQE holds psn and the requester resumes with the first
 * WQE not yet started, instead of resending the rest of an acknowledged
 * one.
 */
void req_go_back(struct roce_engine *e, struct eng_qp *qp, uint32_t psn)
{
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);
	uint32_t i = sq_holding(qp, psn, prod);

	(void)e;
	if (i != prod) {
		go_back_at(qp, i, psn);
		return;
	}
	if (psn != qp->req.psn_max)
		return;
	for (i = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
	     i != prod && sq_at(qp, i)->state != SWQE_POSTED; i++)
		;
	qp->req.cur = i;
	qp->req.psn = psn;
	qp->req.offset = 0;
	qp->req.state = REQ_IDLE;
	qp->req.noack = 0;
}
