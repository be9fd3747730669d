/* SPDX-License-Identifier: MIT */
/*
 * Congestion control in the data path (roce/cc.h, docs/cc.md): the
 * notification point answers CE-marked packets with CNPs; the reaction
 * point marks its QPs' packets ECN-capable, tells the QP's algorithm
 * (src/cc/algo.h; DCQCN, src/cc/dcqcn_algo.c) of the CNPs it gets and
 * paces the QP in the transmit arbiter at the rate the algorithm grants.
 *
 * Pacing: a paced QP may send a data packet (a SEND or WRITE packet, a
 * READ response) once the engine's time reaches next_tx; each one pushes
 * next_tx on by its length at the QP's rate. A QP that must wait leaves
 * the arbiter and its timer brings it back (sched.c's next_deadline),
 * so waiting costs nothing per poll. ACKs, NAKs and CNPs are never paced.
 * The algorithm is called on a CNP, on a paced packet and at its timer:
 * a QP at line rate costs a flag test per packet (cc.h's cc_sent and
 * cc_may_send), no call.
 *
 * The CC block itself (what the engine takes on a CC_COMMIT, the rate a
 * QP shows, its window) is the device's (roce/device.h); the defaults
 * and checks of a config are the control plane's (src/cc/config.c).
 */
#include "engine/cc.h"
#include "engine/window.h"
#include "roce/device.h"
#include "roce/regs.h"
#include "roce/status.h"

/* A paced QP may catch up at most this much time it lost waiting for its
   turn (two packets at its rate): no burst from credit hoarded idle. */
#define PACE_SLACK_PKTS 2

static bool prio_in(uint8_t mask, uint8_t tclass)
{
	return mask >> (tclass >> 5) & 1;
}

uint8_t cc_tos(const struct roce_engine *e, uint8_t tclass)
{
	if (!prio_in(e->cc.rp_prio_mask, tclass))
		return tclass;
	return (uint8_t)((tclass & 0xFC) | e->cc.ecn);
}

/* The QP's algorithm changed its grant: the rate CC_QP_RATE shows, when
   it changed, and the bounded window. */
static void granted(struct roce_engine *e, struct eng_qp *qp)
{
	const struct cc_grant *g = &qp->cc_grant;
	uint32_t mbps = (uint32_t)(g->rate_kbps / 1000);

	window_set(qp);         /* the algorithm's window, if smaller (RC) */
	if (mbps == qp->rate_pub && g->limited == qp->rate_pub_limited)
		return;
	qp->rate_pub = mbps;
	qp->rate_pub_limited = g->limited;
	roce_device_cc_rate(e->dev, qp->qpn, g->limited, mbps);
}

/* Loss recovery (RC): the QP's own bits (CC_QP_RECOVERY), else the
   device's (CC_CTRL) */
static void recovery_sync(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t rec = roce_device_qp_recovery(e->dev, qp->qpn);
	bool own = rec & ROCE_CC_QP_REC_OWN;

	qp->rec_rto = qp->tr->acked && (own ? rec & ROCE_CC_QP_REC_RTO : e->cc.adaptive_rto);
	qp->rec_window = qp->tr->acked &&
			 (own ? rec & ROCE_CC_QP_REC_WINDOW : e->cc.adaptive_window);
	if (!qp->rec_rto) {
		qp->comp.probe_at = 0;
		if (!qp->cfg.timeout)
			qp->comp.timer = 0;     /* infinite: IBA's has none */
	}
}

void cc_qp_sync(struct roce_engine *e, struct eng_qp *qp)
{
	bool on = prio_in(e->cc.rp_prio_mask, qp->cfg.tclass) && qp->tr->connected;
	/* the bounded window in packets of the QP's MTU, at least one: the
	   QP's own (CC_QP_WINDOW_KB), else the device's */
	uint32_t kb = roce_device_qp_window(e->dev, qp->qpn);

	recovery_sync(e, qp);

	if (!kb)
		kb = e->cc.window_kb;
	qp->window_cfg = 0;
	if (kb && qp->tr->acked) {
		uint32_t w = (uint32_t)(((uint64_t)kb << 10) / qp->mtu);

		qp->window_cfg = w ? w : 1;
	}
	if (on != qp->rp_on || qp->cfg.state <= ROCE_QPS_INIT) {
		/* a new connection, or the RP turned on or off: line rate;
		   DCQCN for every QP until a register chooses */
		qp->cc_algo = cc_algos[CC_ALGO_DCQCN];
		qp->cc_algo->init(&qp->cc_priv, &e->cc, &qp->cc_grant);
		qp->paced = qp->pace_wait = false;
		qp->cnp_once = false;
	} else if (qp->cc_algo) {
		/* the knobs may have changed (a CC_COMMIT) */
		qp->cc_algo->grant(&qp->cc_priv, &e->cc, &qp->cc_grant);
	}
	qp->rp_on = on;
	if (qp->cc_algo)
		granted(e, qp);
	window_sync(e, qp, qp->cfg.state <= ROCE_QPS_INIT);
}

bool cc_changes(struct roce_engine *e)
{
	struct roce_cc_config c;

	if (!roce_device_cc_changed(e->dev, &e->cc_gen, &c))
		return false;
	e->cc = c;
	return true;
}

void cc_qp_state(const struct eng_qp *qp, struct roce_qp_cc *out)
{
	if (qp->cc_algo)
		qp->cc_algo->report(&qp->cc_priv, out);
	else
		*out = (struct roce_qp_cc){ 0 };        /* never synced */
	out->window = qp->window;
}

/* NP: one CNP per min_time_between_cnps per QP (mlx5 keeps it per QP
   too); the CNP goes to the QP's peer, the sender of the marked data: a
   request (SEND, WRITE, READ or atomic request) or a READ response. A
   marked ACK is counted and not answered: the data it acknowledges did
   not cross the congestion, its sender has nothing to slow down. */
bool cc_cnp_due(struct roce_engine *e, struct eng_qp *qp, const struct roce_opcode_info *op,
		bool room)
{
	roce_cnt_inc(e->cnt, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS);
	if (!prio_in(e->cc.np_prio_mask, qp->cfg.tclass) || !qp->tr->connected || !room ||
	    (!op->request && op->cls != ROCE_OPC_READ_RESP))
		return false;
	return !qp->cnp_once ||
	       engine_now(e) - qp->last_cnp >= (uint64_t)e->cc.dcqcn.min_time_between_cnps * 1000;
}

void cc_cnp_sent(struct roce_engine *e, struct eng_qp *qp)
{
	qp->last_cnp = engine_now(e);
	qp->cnp_once = true;
	roce_cnt_inc(e->cnt, ROCE_CNT_NP_CNP_SENT);
}

/* Pacing follows the grant: a QP the algorithm limits is paced from now
   on, one it no longer limits is not. */
static void pace_follow(struct eng_qp *qp, uint64_t now)
{
	if (qp->cc_grant.limited && !qp->paced) {
		qp->paced = true;
		qp->next_tx = qp->pace_t = now;
		qp->pace_len = 0;
	} else if (!qp->cc_grant.limited && qp->paced) {
		qp->paced = qp->pace_wait = false;
	}
}

/* RP: the algorithm's cut; the QP is paced from now on while the
   algorithm limits it. */
void cc_rx_cnp(struct roce_engine *e, struct eng_qp *qp)
{
	uint64_t now;

	if (!qp->rp_on) {
		roce_cnt_inc(e->cnt, ROCE_CNT_RP_CNP_IGNORED);
		return;
	}
	roce_cnt_inc(e->cnt, ROCE_CNT_RP_CNP_HANDLED);
	now = engine_now(e);
	qp->cc_algo->on_cnp(&qp->cc_priv, &e->cc, now, &qp->cc_grant);
	granted(e, qp);
	pace_follow(qp, now);
}

bool cc_pace_ok(struct roce_engine *e, struct eng_qp *qp)
{
	uint64_t now = engine_now(e);

	if (now >= qp->next_tx) {
		qp->pace_wait = false;
		return true;
	}
	qp->pace_wait = true;   /* sched_settle arms its timer at next_tx */
	return false;
}

/* The gap after a frame of len bytes at the QP's rate, ns. */
static uint64_t gap_ns(const struct eng_qp *qp, uint32_t len)
{
	return (uint64_t)len * 8000000u / qp->cc_grant.rate_kbps;   /* kbit/s, >= 1000 */
}

void cc_paced_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t frame_len)
{
	uint64_t now = engine_now(e), gap, start;

	qp->cc_algo->on_sent(&qp->cc_priv, &e->cc, now, frame_len, &qp->cc_grant);
	granted(e, qp);
	if (!qp->cc_grant.limited) {
		qp->paced = false;      /* back at line rate */
		return;
	}
	/* it was due at next_tx; a turn that came late may catch up a
	   little, never more than PACE_SLACK_PKTS packets */
	gap = gap_ns(qp, frame_len);
	start = qp->next_tx;
	if (start + PACE_SLACK_PKTS * gap < now)
		start = now - PACE_SLACK_PKTS * gap;
	qp->pace_t = start;
	qp->pace_len = frame_len;
	qp->next_tx = start + gap;
}

void cc_repace(struct roce_engine *e, struct eng_qp *qp)
{
	qp->cc_algo->on_timer(&qp->cc_priv, &e->cc, engine_now(e), &qp->cc_grant);
	granted(e, qp);
	if (!qp->cc_grant.limited) {
		qp->paced = qp->pace_wait = false;
		return;
	}
	qp->next_tx = qp->pace_t + gap_ns(qp, qp->pace_len);
}

/* An algorithm that takes ACKs or losses (DCQCN takes neither): its
   grant may limit the QP, free it, or move its window (an ACK kicks the
   QP, a timeout too). */
void cc_ack(struct roce_engine *e, struct eng_qp *qp, uint64_t rtt_ns, uint32_t psns)
{
	uint64_t now = engine_now(e);

	qp->cc_algo->on_ack(&qp->cc_priv, &e->cc, now, rtt_ns, psns, &qp->cc_grant);
	granted(e, qp);
	pace_follow(qp, now);
}

void cc_loss(struct roce_engine *e, struct eng_qp *qp)
{
	uint64_t now = engine_now(e);

	qp->cc_algo->on_loss(&qp->cc_priv, &e->cc, now, &qp->cc_grant);
	granted(e, qp);
	pace_follow(qp, now);
}
