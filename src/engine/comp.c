/* SPDX-License-Identifier: MIT */
/*
 * The completer: ACKs, NAKs, READ responses and atomic ACKs coming back to
 * the requester; the retransmit and RNR timers; completions in order.
 *
 * una is the oldest PSN not yet acknowledged. An ACK for PSN p
 * acknowledges every PSN up to p (IBA 9.7.5.1.1); READ responses and
 * atomic ACKs must arrive for una exactly, anything later means responses
 * were lost and the READ is asked again from una (IBA 9.7.7.1, "implied
 * NAK"). Releasing a WQE is a move of the SQ consumer index: it never
 * stalls the requester (SPEC: release work is queued, not done inline).
 */
#include <string.h>

#include "engine/cc.h"
#include "engine/comp.h"
#include "engine/mover.h"
#include "engine/flush.h"
#include "engine/recovery.h"
#include "engine/req.h"
#include "engine/sq.h"
#include "engine/window.h"
#include "roce/psn.h"
#include "roce/status.h"

/* IBA 9.7.5.2.8 table 45: RNR timer codes in units of 10 us. */
static const uint32_t rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

void comp_reset(struct eng_qp *qp)
{
	memset(&qp->comp, 0, sizeof(qp->comp));
}

static uint32_t last_psn(const struct swqe *w)
{
	return roce_psn_add(w->first_psn, w->npsn - 1);
}

/* The oldest WQE not done: where a response for una belongs. It may lie
 * beyond the requester's position, when a go-back rewound the requester
 * past WQEs it had already sent. */
static struct swqe *oldest_from(struct eng_qp *qp, uint32_t *idx)
{
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);

	for (; *idx != prod; (*idx)++) {
		struct swqe *w = sq_at(qp, *idx);

		if (w->state == SWQE_POSTED)
			return NULL;
		if (w->state != SWQE_DONE)
			return w;
	}
	return NULL;
}

static struct swqe *oldest(struct eng_qp *qp)
{
	uint32_t i = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);

	return oldest_from(qp, &i);
}

static void progress(struct roce_engine *e, struct eng_qp *qp, uint32_t new_una)
{
	uint32_t acked = roce_psn_dist(qp->comp.una, new_una);
	uint64_t rtt;

	qp->comp.una = new_una;
	qp->comp.go_back = false;
	if (qp->comp.frto) {
		bool spurious = frto_end(qp, &new_una);

		window_frto_done(qp, spurious);
		/* a late ACK of the first copies: on from where the timer
		   found the requester (recovery.c) */
		if (spurious && frto_go_on(e, qp, new_una))
			req_go_back(e, qp, qp->comp.frto_next);
	}
	/* a late ACK can overtake a requester rewound by a timeout: never
	 * send again what is acknowledged */
	if (roce_psn_cmp(new_una, qp->req.psn) > 0)
		req_go_back(e, qp, new_una);
	qp->comp.retry_left = qp->cfg.retry_cnt;
	qp->comp.rnr_left = qp->cfg.rnr_retry;
	/* the count is whole again: the response that made progress does
	 * not also excuse the next silent round, or a peer that answered
	 * and then vanished would get retry_cnt + 1 retries */
	qp->comp.alive = false;
	rtt = rto_sample_acked(e, qp, new_una);
	if (rtt && qp->rec_window)
		window_rtt(e, qp, rtt, roce_psn_dist(qp->comp.rtt_una, new_una));
	window_acked(qp, acked);
	cc_acked(e, qp, acked);
	if (qp->comp.timer)
		qp->comp.timer = engine_now(e) + rto_ns(e, qp);
	/* progress ends a stall: the next one may be probed again, later
	   if this one was (Karn's backoff, recovery.c) */
	if (qp->comp.probes && qp->comp.probe_backoff < PROBE_BACKOFF_MAX)
		qp->comp.probe_backoff++;
	qp->comp.probes = 0;
	qp->comp.nak_back = false;
	qp->comp.probe_at = 0;
	if (roce_psn_cmp(new_una, qp->req.psn_max) < 0) {
		/* IBA's detection time of what is still out counts from
		   here, as IBA's timer restarts here (recovery.c) */
		qp->comp.since = engine_now(e);
		if (qp->rec_rto)
			probe_arm(e, qp);
	}
}

/*
 * Everything up to and including psn is acknowledged. SEND and WRITE
 * WQEs that end there are done; a READ or atomic met on the way had its
 * responses lost (the ACK proves the responder went past it): ask again.
 */
static void ack_upto(struct roce_engine *e, struct eng_qp *qp, uint32_t psn)
{
	uint32_t i = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
	struct swqe *w;

	/* one pass: WQEs it completes are not looked at again */
	while ((w = oldest_from(qp, &i)) && roce_psn_cmp(w->first_psn, psn) <= 0) {
		if (swqe_rd_atomic(w)) {
			if (roce_psn_cmp(qp->comp.una, w->first_psn) < 0)
				progress(e, qp, w->first_psn);
			/* inside its own range: a READ response acknowledging
			 * what came before it; the response itself is next */
			if (roce_psn_cmp(last_psn(w), psn) > 0)
				return;
			if (!qp->comp.go_back) {
				qp->comp.go_back = true;
				req_go_back(e, qp, qp->comp.una);
			}
			return;
		}
		if (roce_psn_cmp(last_psn(w), psn) > 0)
			break;          /* partly acknowledged */
		w->state = SWQE_DONE;
		w->status = ROCE_WC_SUCCESS;
	}
	if (roce_psn_cmp(roce_psn_add(psn, 1), qp->comp.una) > 0)
		progress(e, qp, roce_psn_add(psn, 1));
}

static void fail_at(struct roce_engine *e, struct eng_qp *qp,
		    enum roce_wc_status status)
{
	struct swqe *w = oldest(qp);

	if (w) {
		w->state = SWQE_DONE;
		w->status = (uint8_t)status;
	}
	qp_error(e, qp);
}

static void on_nak(struct roce_engine *e, struct eng_qp *qp, uint32_t psn,
		   uint8_t syndrome)
{
	uint8_t code = syndrome & ROCE_AETH_VALUE_MASK;

	if (qp->comp.frto)
		window_frto_done(qp, frto_end(qp, NULL));      /* a loss after all */
	if ((syndrome & ROCE_AETH_TYPE_MASK) == ROCE_AETH_RNR_NAK) {
		roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_RX_RNR);
		ack_upto(e, qp, roce_psn_add(psn, -1u));
		if (qp->comp.rnr_left == 0) {
			fail_at(e, qp, ROCE_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (qp->comp.rnr_left != 7)     /* 7 = retry forever (IBA 9.7.5.2.8) */
			qp->comp.rnr_left--;
		roce_cnt_inc(e->cnt, ROCE_CNT_RNR_RETRIES);
		qp->comp.rnr_until = engine_now(e) + (uint64_t)rnr_10us[code] * 10000u;
		req_go_back(e, qp, psn);
		/* the RNR wait times the retry, not the transport timer: a
		   timeout during it would spend a retry on a peer that
		   answered (IBA 9.7.5.2.8); the resend arms the timer again
		   (req.c) */
		qp->comp.timer = 0;
		return;
	}
	switch (code) {
	case ROCE_NAK_PSN_SEQ_ERR:
		roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_RX_PSN_SEQ_ERR);
		ack_upto(e, qp, roce_psn_add(psn, -1u));
		if (qp->comp.go_back)
			return;         /* a retry from here is already under way */
		/* the responder is alive and says where to resume: this
		 * costs no retry (the retry count is for a silent peer) */
		qp->comp.go_back = true;
		qp->comp.nak_back = true;       /* what a stall now means: recovery.c */
		window_cut(e, qp, true);           /* a loss: the window gives way */
		/* Karn: what is resent from psn may be acknowledged for
		   either copy (a sample from before psn is already done) */
		qp->comp.rtt_on = false;
		req_go_back(e, qp, psn);
		return;
	case ROCE_NAK_INVALID_REQ:
		roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_RX_INVALID_REQ);
		ack_upto(e, qp, roce_psn_add(psn, -1u));
		fail_at(e, qp, ROCE_WC_REM_INV_REQ_ERR);
		return;
	case ROCE_NAK_REMOTE_ACCESS:
		roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_RX_REMOTE_ACCESS);
		ack_upto(e, qp, roce_psn_add(psn, -1u));
		fail_at(e, qp, ROCE_WC_REM_ACCESS_ERR);
		return;
	default:
		roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_RX_REMOTE_OP);
		ack_upto(e, qp, roce_psn_add(psn, -1u));
		fail_at(e, qp, ROCE_WC_REM_OP_ERR);
		return;
	}
}

static void on_read_resp(struct roce_engine *e, struct eng_qp *qp,
			 const struct roce_pkt *p, uint32_t psn)
{
	struct swqe *w;
	uint32_t off, expect;
	int rc;

	/* a response acknowledges every request before it (IBA 9.7.5.1.2) */
	ack_upto(e, qp, roce_psn_add(psn, -1u));
	w = oldest(qp);
	if (!w || w->opcode != ROCE_WR_RDMA_READ || psn != qp->comp.una ||
	    roce_psn_dist(w->first_psn, psn) >= w->npsn) {
		/* later than una: responses were lost; ask again, once */
		if (w && roce_psn_cmp(psn, qp->comp.una) > 0 && !qp->comp.go_back) {
			qp->comp.go_back = true;
			req_go_back(e, qp, qp->comp.una);
		}
		roce_cnt_drop(e->cnt, ROCE_E_PSN);
		return;
	}
	off = roce_psn_dist(w->first_psn, psn) * qp->mtu;
	expect = w->length - off < qp->mtu ? w->length - off : qp->mtu;
	/* FIRST and MIDDLE carry exactly one MTU, LAST and ONLY the rest */
	if (p->payload_len != expect ||
	    ((p->op->pos & ROCE_POS_LAST) != 0) != (off + expect == w->length)) {
		fail_at(e, qp, ROCE_WC_BAD_RESP_ERR);
		return;
	}
	rc = mem_place_sge(e, qp->cfg.pd, &qp->stage_in[STAGE_IN_COMP], off + expect == w->length,
			   swqe_sgl(qp, w), w->num_sge, off, roce_pkt_payload(p), p->payload_len);
	if (rc) {
		/* the local buffer's key or bounds; a stage that cannot do
		   its work is an error of this QP's operation */
		fail_at(e, qp, rc == ROCE_E_PI || rc == ROCE_E_STAGE || rc == ROCE_E_STAGE_FULL
				       ? ROCE_WC_LOC_QP_OP_ERR : ROCE_WC_LOC_PROT_ERR);
		return;
	}
	if (psn == last_psn(w)) {
		w->state = SWQE_DONE;
		w->status = ROCE_WC_SUCCESS;
	}
	progress(e, qp, roce_psn_add(psn, 1));
}

static void on_atomic_ack(struct roce_engine *e, struct eng_qp *qp,
			  const struct roce_pkt *p, uint32_t psn)
{
	struct swqe *w;
	uint64_t v;

	ack_upto(e, qp, roce_psn_add(psn, -1u));
	w = oldest(qp);
	if (!w || psn != qp->comp.una || w->first_psn != psn ||
	    (w->opcode != ROCE_WR_ATOMIC_CMP_AND_SWP &&
	     w->opcode != ROCE_WR_ATOMIC_FETCH_AND_ADD)) {
		roce_cnt_drop(e->cnt, ROCE_E_PSN);
		return;
	}
	/* the original value lands in local memory in host byte order */
	v = roce_atomicack_orig(roce_pkt_atomicack(p));
	if (mem_place_sge(e, qp->cfg.pd, NULL, true, swqe_sgl(qp, w), w->num_sge, 0, (const uint8_t *)&v, 8) !=
	    ROCE_OK) {
		fail_at(e, qp, ROCE_WC_LOC_PROT_ERR);
		return;
	}
	w->state = SWQE_DONE;
	w->status = ROCE_WC_SUCCESS;
	progress(e, qp, roce_psn_add(psn, 1));
}

void comp_response(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p)
{
	uint32_t psn = roce_bth_psn(roce_pkt_bth(p));
	const struct roce_aeth *aeth = roce_pkt_aeth(p);
	uint8_t syn = aeth ? roce_aeth_syndrome(aeth) : 0;

	/* only PSNs in [una - 1, highest sent) mean anything; older ones
	 * are duplicates, newer ones were never sent: drop them silently */
	if (roce_psn_cmp(psn, qp->req.psn_max) >= 0 ||
	    roce_psn_cmp(psn, roce_psn_add(qp->comp.una, -1u)) < 0) {
		roce_cnt_drop(e->cnt, ROCE_E_PSN);
		return;
	}
	qp->comp.alive = true;
	switch (p->op->cls) {
	case ROCE_OPC_ACK:
		if ((syn & ROCE_AETH_TYPE_MASK) == ROCE_AETH_ACK) {
			roce_cnt_inc(e->cnt, ROCE_CNT_ACKS_RX);
			ack_upto(e, qp, psn);
		} else {
			on_nak(e, qp, psn, syn);
		}
		break;
	case ROCE_OPC_ATOMIC_ACK:
		roce_cnt_inc(e->cnt, ROCE_CNT_ACKS_RX);
		on_atomic_ack(e, qp, p, psn);
		break;
	case ROCE_OPC_READ_RESP:
		on_read_resp(e, qp, p, psn);
		break;
	default:
		roce_cnt_drop(e->cnt, ROCE_E_OPCODE);
		return;
	}
	sq_complete(e, qp);
}

/* The tail-loss probe's time came: recovery.c says what to send again,
 * the requester goes back to it. */
static void probe(struct roce_engine *e, struct eng_qp *qp)
{
	switch (probe_due(e, qp)) {
	case PROBE_FROM_UNA:
		/* as the timer goes back: stale responses to the copies
		   before are ignored */
		qp->comp.go_back = true;
		req_go_back(e, qp, qp->comp.una);
		break;
	case PROBE_LAST:
		if (!req_resend_last(e, qp))
			return;
		break;
	default:
		return;
	}
	probe_sent(e, qp);
}

void comp_timers(struct roce_engine *e, struct eng_qp *qp)
{
	if (qp->comp.probe_at && !qp->flushed && engine_now(e) >= qp->comp.probe_at)
		probe(e, qp);
	if (!qp->comp.timer || qp->flushed || engine_now(e) < qp->comp.timer)
		return;
	/* the last try waits until IBA's detection time (recovery.c) */
	if (rto_stretch(e, qp))
		return;
	roce_cnt_inc(e->cnt, ROCE_CNT_TIMEOUTS);
	if (roce_psn_cmp(qp->comp.una, qp->req.psn_max) >= 0) {
		qp->comp.timer = 0;     /* nothing outstanding after all */
		return;
	}
	/*
	 * IBA 9.7.6.1.3: after retry_cnt retries the path is declared
	 * broken. A round in which the responder answered, only not in
	 * order (its responses or our requests were lost again), proves the
	 * path works: it does not use up a retry. A vanished peer still
	 * exhausts the count after retry_cnt silent timeouts; with an
	 * infinite timeout (0, only the adaptive timer runs) never.
	 */
	if (qp->comp.alive) {
		qp->comp.alive = false;
	} else if (qp->cfg.timeout) {
		if (qp->comp.retry_left == 0) {
			fail_at(e, qp, ROCE_WC_RETRY_EXC_ERR);
			return;
		}
		qp->comp.retry_left--;
	}
	qp->comp.go_back = true;
	/* Karn: no sample across a resend; the adaptive timer backs off */
	qp->comp.rtt_on = false;
	/* the resend may be lost too: one probe from una, two round trips
	   on (recovery.c), before the backed-off timer */
	qp->comp.probes = 0;
	qp->comp.nak_back = true;
	qp->comp.probe_at = 0;
	if (qp->rec_rto)
		probe_arm(e, qp);
	if (qp->comp.backoff < 16)
		qp->comp.backoff++;
	qp->comp.timer = engine_now(e) + rto_ns(e, qp);
	frto_start(e, qp);
	window_cut(e, qp, false);
	cc_lost(e, qp);
	req_go_back(e, qp, qp->comp.una);
}
