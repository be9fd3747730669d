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
 * cc_may_send), no call. One that takes ACKs (Swift) is called on every
 * ACK that moves una, with a round trip from the send time kept for the
 * newest PSN the ACK acknowledges (cc_psn_sent), and on a timeout.
 *
 * Which algorithm: the QP's own (CC_QP_ALGO), else the CC block's algo,
 * while the QP's priority is in rp_prio_mask; the mask turns the
 * reaction point on for both algorithms, and none runs outside it.
 *
 * The CC block itself (what the engine takes on a CC_COMMIT, the rate a
 * QP shows, its window) is the device's (roce/device.h); the defaults
 * and checks of a config are the control plane's (src/cc/config.c).
 */
#include <string.h>

#include "engine/cc.h"
#include "engine/window.h"
#include "roce/device.h"
#include "roce/psn.h"
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

/* The QP's algorithm: its own (CC_QP_ALGO: 0 the device's, else 1 +
   enum roce_cc_algo), else the CC block's. */
static const struct cc_algo_ops *algo_of(struct roce_engine *e, const struct eng_qp *qp)
{
	uint32_t own = roce_device_qp_algo(e->dev, qp->qpn);

	return cc_algos[own && own <= CC_ALGO_COUNT ? own - 1 : e->cc.algo];
}

void cc_qp_sync(struct roce_engine *e, struct eng_qp *qp)
{
	bool on = prio_in(e->cc.rp_prio_mask, qp->cfg.tclass) && qp->tr->connected;
	const struct cc_algo_ops *ops = algo_of(e, qp);
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
	if (on != qp->rp_on || qp->cfg.state <= ROCE_QPS_INIT || ops != qp->cc_algo ||
	    qp->mtu != qp->cc_mtu) {
		/* a new connection, the RP turned on or off, another
		   algorithm or MTU: line rate, nothing learnt */
		qp->cc_algo = ops;
		qp->cc_mtu = qp->mtu;
		qp->cc_karn = false;
		memset(qp->cc_sent_at, 0, sizeof(qp->cc_sent_at));
		qp->cc_algo->init(&qp->cc_priv, &e->cc, qp->mtu, &qp->cc_grant);
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

	if (!qp->rp_on || !qp->cc_algo->on_cnp) {
		/* no reaction point, or an algorithm that takes none (Swift) */
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

	if (qp->cc_algo->on_sent) {
		qp->cc_algo->on_sent(&qp->cc_priv, &e->cc, now, frame_len, &qp->cc_grant);
		granted(e, qp);
	}
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
	if (qp->cc_algo->on_timer) {
		qp->cc_algo->on_timer(&qp->cc_priv, &e->cc, engine_now(e), &qp->cc_grant);
		granted(e, qp);
	}
	if (!qp->cc_grant.limited) {
		qp->paced = qp->pace_wait = false;
		return;
	}
	qp->next_tx = qp->pace_t + gap_ns(qp, qp->pace_len);
}

/* The round trip of una - 1, the newest PSN the ACK acknowledges: from
   the time it went out (cc_psn_sent) to now; 0 when it went before the
   last resend (Karn, cc_psn_sent) or its time was overwritten by a PSN
   ROCE_CC_SEND_TIMES later. */
static uint64_t rtt_sample(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t psn = roce_psn_add(qp->comp.una, -1u);
	struct cc_sent_at *s = &qp->cc_sent_at[psn & (ROCE_CC_SEND_TIMES - 1)];

	if (qp->cc_karn) {
		if (roce_psn_cmp(psn, qp->cc_sample_from) < 0)
			return 0;
		qp->cc_karn = false;    /* everything before it is acknowledged */
	}
	if (s->psn != (psn | CC_SENT_VALID))
		return 0;
	s->psn = 0;                     /* one sample per send */
	return (uint32_t)((uint32_t)engine_now(e) - s->t);
}

/* Routers on the ACK's way back: the TTL the peer sent (Linux's and
   ours: ROCE_HOP_LIMIT) less the TTL seen; 0 when none decremented it
   (a layer-2 fabric, the fabric model) or the peer started elsewhere. */
static uint8_t hops_seen(const struct eng_qp *qp)
{
	return qp->cc_ttl && qp->cc_ttl < ROCE_HOP_LIMIT ? (uint8_t)(ROCE_HOP_LIMIT - qp->cc_ttl)
							 : 0;
}

/* An algorithm that takes ACKs or losses (DCQCN takes neither): its
   grant may limit the QP, free it, or move its window (an ACK kicks the
   QP, a timeout too). */
void cc_ack(struct roce_engine *e, struct eng_qp *qp, uint32_t psns)
{
	uint64_t now = engine_now(e);
	struct cc_ack a = { .rtt_ns = rtt_sample(e, qp), .psns = psns, .hops = hops_seen(qp) };

	qp->cc_algo->on_ack(&qp->cc_priv, &e->cc, now, &a, &qp->cc_grant);
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
