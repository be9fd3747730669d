/* SPDX-License-Identifier: MIT */
/*
 * Loss recovery of an RC QP's requests (docs/cc.md, "Loss recovery"): the
 * retransmission timer's length, the IBA timeout's or the adaptive one
 * from measured round trips, and the tail-loss probe.
 *
 * Who does what: the completer owns the retransmission timer and every
 * recovery decision (comp.c: restart, time out, go back, probe); the
 * requester reports what it sends (a new PSN, an AckReq) and offers only
 * its go-back entries (req_go_back, req_resend_last). This file keeps the
 * arithmetic and the probe's rules on the completer's state (struct
 * comp_ctx) and calls no stage: comp.c and req.c call it, it tells
 * comp.c what to send again, comp.c has the requester send it.
 */
#include "engine/cc.h"
#include "engine/recovery.h"
#include "roce/psn.h"

/* The adaptive timer before a QP's first round-trip sample: this many
   times rto_min_us (1.6 ms by default), as RFC 6298 starts from 1 s. */
#define RTO_INITIAL_MIN 16

uint64_t rto_iba_ns(const struct eng_qp *qp)
{
	/* IBA 9.7.6.1.3: 4.096 us * 2^timeout; 0 means infinite */
	return qp->cfg.timeout ? 4096ull << qp->cfg.timeout : 0;
}

uint64_t rto_ns(const struct roce_engine *e, const struct eng_qp *qp)
{
	uint64_t iba = rto_iba_ns(qp), rto;

	if (!qp->rec_rto)
		return iba;
	/* before the first sample (its packet may be the one lost):
	   RTO_INITIAL_MIN times the floor */
	rto = qp->comp.srtt ? qp->comp.srtt + 4 * qp->comp.rttvar
			    : (uint64_t)e->cc.rto_min_us * 1000 * RTO_INITIAL_MIN;
	if (rto < (uint64_t)e->cc.rto_min_us * 1000)
		rto = (uint64_t)e->cc.rto_min_us * 1000;
	/* a paced QP's window leaves over a while; its ACK after that */
	rto += cc_pace_hold_ns(qp);
	rto <<= qp->comp.backoff;
	return iba && rto > iba ? iba : rto;
}

/*
 * IBA 9.7.6.1.3's detection time: a requester that heard nothing declares
 * the path broken after retry_cnt + 1 waits of the QP's timeout, counted
 * here from when the oldest unacknowledged packet first went out (or una
 * last moved, where IBA's timer restarts too). The adaptive timer makes
 * the tries come sooner, never more of them: the wait after the last one
 * is stretched to that time, so that a peer descheduled for less than its
 * attributes allow still finds the QP alive. An infinite timeout (0)
 * spends no retry (comp.c). True: the timer was moved, nothing to do now.
 */
bool rto_stretch(struct roce_engine *e, struct eng_qp *qp)
{
	uint64_t iba = rto_iba_ns(qp), at;

	if (!qp->rec_rto || !iba || qp->comp.alive || qp->comp.retry_left)
		return false;
	at = qp->comp.since + iba * (qp->cfg.retry_cnt + 1u);
	if (engine_now(e) >= at)
		return false;
	qp->comp.timer = at;
	return true;
}

/* ---- a timeout's first resend (F-RTO, RFC 5682) --------------------------------- */

/*
 * A timeout is a loss, or an ACK later than the timer (a peer descheduled,
 * a paced sender's ACK held back by its pacing, a deep queue). Go-back-N
 * resends the whole window either way, and the window is cut. With the
 * adaptive timer the first resend is una's packet alone, with AckReq
 * (window.c holds the requester at one packet): the responder answers a
 * duplicate with an ACK of all it has (C9-105; ours and rxe's
 * duplicate_request alike), a packet it waits for by taking it. An ACK beyond una + 1 then covers packets not sent
 * again: their first copies arrived, the timeout was spurious, and the
 * window's cut is undone (F-RTO's response, RFC 5682 3.1 and RFC 4015);
 * an ACK of una alone, or a NAK, confirms a loss, and the go-back goes on
 * from there in the cut window.
 *
 * After a spurious timeout, where does the requester go on? The ACK
 * covers una .. new_una - 1; of what followed, up to where the timer
 * found the requester, nothing is known. If the ACK answers the resent
 * packet, the responder had nothing more (it answers a duplicate with
 * all it has, and the first copies went out long before): they were
 * lost, and the go-back goes on from new_una. If it is the late answer
 * to the first copies (a slow peer: rxe still draining a backlog), the
 * rest is on its way too, and the requester goes on where the timer
 * found it, as F-RTO goes on with new data; if some of it was lost after
 * all, the responder NAKs the next packet. An ACK is a late one for
 * certain when the resend has not left yet, and when it comes sooner
 * than the smallest round trip after the resend (frto_go_on). Before any
 * sample, where it ends tells: a peer acknowledges the packets that ask
 * for it (rxe only those), and a duplicate with all it has. An ACK of a
 * packet sent with AckReq is the late answer to that packet (rxe
 * draining a backlog, 35 ms behind a 1.6 ms timer: resending the rest
 * was 5-15 % of all frames sent); one that ends elsewhere answers the
 * resend (an incast's first burst lost its tails: going on there, a
 * NAK's round trip later, kept DCQCN's 32:1 in roce-fabric from
 * converging at 4 seeds of 5). Going on at every spurious timeout also
 * cost 7 % of the goodput at 10 % random loss. The retry count is spent as before: the
 * tries' number and time are IBA's, only what each resends at first is
 * smaller.
 */
void frto_start(struct roce_engine *e, struct eng_qp *qp)
{
	if (!qp->rec_rto)
		return;
	qp->comp.frto = true;
	qp->comp.frto_una = qp->comp.una;
	qp->comp.frto_awnd = qp->awnd;
	qp->comp.frto_next = qp->req.psn;
	qp->comp.frto_at = engine_now(e);
}

bool frto_go_on(struct roce_engine *e, const struct eng_qp *qp, uint32_t new_una)
{
	const struct comp_ctx *c = &qp->comp;

	if (roce_psn_cmp(c->frto_next, new_una) <= 0 || roce_psn_cmp(c->frto_next, qp->req.psn) <= 0)
		return false;
	/* the resend has not left yet: the ACK is a late one for certain */
	if (qp->req.psn == c->frto_una)
		return true;
	if (c->rtt_min)
		return engine_now(e) - c->frto_at < c->rtt_min;
	/* no round trip known: a peer acknowledges the packets that ask for
	   it (rxe only those), and a duplicate with all it has, wherever
	   that ends. An ACK of a packet sent with AckReq is the answer to
	   it; an ACK that ends elsewhere answers the resend */
	for (unsigned i = 0; i < COMP_ACKREQ_PSNS; i++)
		if (c->ackreq_psn[i] == roce_psn_add(new_una, -1u))
			return true;
	return false;
}

bool frto_end(struct eng_qp *qp, const uint32_t *new_una)
{
	if (!qp->comp.frto)
		return false;
	qp->comp.frto = false;
	return new_una && roce_psn_cmp(*new_una, roce_psn_add(qp->comp.frto_una, 1)) > 0;
}

/* ---- round-trip samples (RFC 6298) ----------------------------------------- */

void rto_sample_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t psn)
{
	if (qp->comp.rtt_on)
		return;
	qp->comp.rtt_on = true;
	qp->comp.rtt_psn = psn;
	qp->comp.rtt_una = qp->comp.una;
	qp->comp.rtt_sent = engine_now(e);
}

uint64_t rto_sample_acked(struct roce_engine *e, struct eng_qp *qp, uint32_t new_una)
{
	struct comp_ctx *c = &qp->comp;
	uint64_t r;

	if (!c->rtt_on || roce_psn_cmp(new_una, c->rtt_psn) <= 0)
		return 0;
	c->rtt_on = false;
	c->backoff = 0;
	c->probe_backoff = 0;
	r = engine_now(e) - c->rtt_sent;
	if (!c->srtt) {
		/* RFC 6298 2.2: the first sample */
		c->srtt = r;
		c->rttvar = r / 2;
		return r;
	}
	/* 2.3: rttvar = 3/4 rttvar + 1/4 |srtt - r|, srtt = 7/8 srtt + 1/8 r */
	c->rttvar = (3 * c->rttvar + (c->srtt > r ? c->srtt - r : r - c->srtt)) / 4;
	c->srtt = (7 * c->srtt + r) / 8;
	return r;
}

/* ---- the tail-loss probe ------------------------------------------------------ */

/*
 * Tail-loss probe (TCP's, RFC 8985 section 7): when a QP has had nothing
 * acknowledged and sent nothing new for two smoothed round trips while
 * PSNs are outstanding, the last packet it sent goes out again, with
 * AckReq. A lost tail (the message's last packet, whose AckReq was to
 * draw the ACK; or that ACK) is then recovered after about 2 srtt instead
 * of the retransmission timer: the responder takes the packet it missed
 * (or answers the duplicate with an ACK of everything).
 *
 * After a NAK the stall has another likely cause: the resent packet the
 * responder waits for was lost again, and having NAKed once (IBA 9.7.5.1,
 * rxe's nak_sent) it drops everything after it in silence, the last
 * packet too. A stall that follows a NAK's go-back therefore resends from
 * the oldest unacknowledged PSN, as the timer would, but two round trips
 * after the NAK instead of the timer's floor later. A loss is certain
 * there, so the resent window is hardly ever spurious.
 *
 * The NAK itself may have been lost, so a stall that a last-packet probe
 * did not end (two more round trips without an ACK) is probed once more,
 * from una.
 *
 * A probe's ACK may answer either copy, so a stall that was probed gives
 * no round-trip sample (Karn), and the probe's delay backs off as the
 * timer's does (Karn and Partridge): doubled for every probed stall until
 * a sample. Else a round trip that grew past 2 srtt (a queue that built
 * up) would draw a probe every window, every probe would void the
 * window's sample, and srtt, stale, would never catch up: an algorithm
 * that takes its round trips from the ACKs (Swift) would not hear the
 * queue at all.
 *
 * So at most PROBES_PER_STALL per stall (until an ACK moves una; a
 * timeout starts a stall of its own, whose resend may be lost as well):
 * no retry is spent, the timer neither restarts nor backs off; what the
 * probes do not recover the timer still does. To any go-back-N responder
 * (rxe's too) a probe is a duplicate or the packet it waits for.
 */
#define PROBES_PER_STALL 2

void probe_arm(struct roce_engine *e, struct eng_qp *qp)
{
	if (!qp->comp.srtt || qp->comp.probes >= PROBES_PER_STALL)
		return;
	qp->comp.probe_at = engine_now(e) + (2 * qp->comp.srtt << qp->comp.probe_backoff);
}

enum probe_kind probe_due(struct roce_engine *e, struct eng_qp *qp)
{
	qp->comp.probe_at = 0;
	/* a stall only: PSNs outstanding, no resend under way, not held
	   by an RNR wait or the congestion control's pacing, and before
	   the timer */
	if (qp->comp.probes >= PROBES_PER_STALL || roce_psn_cmp(qp->comp.una, qp->req.psn) >= 0 ||
	    qp->comp.rnr_until || qp->pace_wait ||
	    (qp->comp.timer && engine_now(e) >= qp->comp.timer))
		return PROBE_NONE;
	/* a timeout's first resend (una's alone) is a stall once it went:
	   probed from una, as after a NAK */
	if (qp->req.psn != qp->req.psn_max &&
	    !(qp->comp.frto && qp->req.psn == roce_psn_add(qp->comp.una, 1))) {
		probe_arm(e, qp);       /* a resend is still going out */
		return PROBE_NONE;
	}
	return qp->comp.nak_back || qp->comp.probes > 0 ? PROBE_FROM_UNA : PROBE_LAST;
}

void probe_sent(struct roce_engine *e, struct eng_qp *qp)
{
	qp->comp.probes++;
	qp->comp.rtt_on = false;        /* Karn: the ACK may answer either copy */
	roce_cnt_inc(e->cnt, ROCE_CNT_TAIL_PROBES);
	probe_arm(e, qp);               /* the next, if this one is lost */
}
