/* SPDX-License-Identifier: MIT */
/*
 * Congestion control in the data path (roce/cc.h, docs/cc.md): the
 * notification point answers CE-marked packets with CNPs, the reaction
 * point runs DCQCN (src/cc/dcqcn.c) on the CNPs it gets and paces its QP
 * in the transmit arbiter.
 *
 * Pacing: a paced QP may send a data packet (a SEND or WRITE packet, a
 * READ response) once the engine's time reaches next_tx; each one pushes
 * next_tx on by its length at the QP's rate. A QP that must wait leaves
 * the arbiter and its timer brings it back (sched.c's next_deadline),
 * so waiting costs nothing per poll. ACKs, NAKs and CNPs are never paced.
 * DCQCN's own timers (alpha, rate increase) are run lazily, when a CNP
 * comes or a paced packet goes: nothing else reads the rate, and the
 * arithmetic gives the same result whenever it runs.
 *
 * Loss recovery (the retransmission timer, the tail-loss probe) is
 * recovery.c's; the defaults and checks of a config are the control
 * plane's (src/cc/config.c).
 */
#include "engine/cc.h"
#include "engine/tx.h"
#include "roce/device.h"
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

/* The QP's rate as CC_QP_RATE shows it, when it changed. */
static void publish_rate(struct roce_engine *e, struct eng_qp *qp)
{
	uint32_t mbps = (uint32_t)(dcqcn_rate(&qp->rp) / 1000);

	if (mbps == qp->rate_pub && qp->rp.limited == qp->rate_pub_limited)
		return;
	qp->rate_pub = mbps;
	qp->rate_pub_limited = qp->rp.limited;
	roce_device_cc_rate(e->dev, qp->qpn, qp->rp.limited, mbps);
}

void cc_qp_sync(struct roce_engine *e, struct eng_qp *qp)
{
	bool on = prio_in(e->cc.rp_prio_mask, qp->cfg.tclass) && qp->tr->connected;

	if (on != qp->rp_on || qp->cfg.state <= ROCE_QPS_INIT) {
		/* a new connection, or the RP turned on or off: line rate */
		dcqcn_init(&qp->rp, (uint64_t)e->cc.line_mbps * 1000);
		qp->paced = qp->pace_wait = false;
		qp->cnp_once = false;
		publish_rate(e, qp);
	}
	qp->rp_on = on;
	/* the bounded window in packets of the QP's MTU, at least one: the
	   QP's own (CC_QP_WINDOW_KB), else the device's */
	uint32_t kb = roce_device_qp_window(e->dev, qp->qpn);

	if (!kb)
		kb = e->cc.window_kb;
	qp->window = 0;
	if (kb && qp->tr->acked) {
		uint32_t w = (uint32_t)(((uint64_t)kb << 10) / qp->mtu);

		qp->window = w ? w : 1;
	}
}

void cc_changes(struct roce_engine *e)
{
	struct roce_cc_config c;

	if (!roce_device_cc_changed(e->dev, &e->cc_gen, &c))
		return;
	e->cc = c;
	/* the templates carry the ECN field: make them again */
	for (uint32_t i = 0; i < e->n_active; i++) {
		struct eng_qp *qp = e->active[i];

		cc_qp_sync(e, qp);
		tx_template(e, qp);
	}
}


/* NP: one CNP per min_time_between_cnps per QP (mlx5 keeps it per QP
   too); the CNP goes to the QP's peer, the sender of the marked data: a
   request (SEND, WRITE, READ or atomic request) or a READ response. A
   marked ACK is counted and not answered: the data it acknowledges did
   not cross the congestion, its sender has nothing to slow down. */
void cc_rx_ce(struct roce_engine *e, struct eng_qp *qp, const struct roce_opcode_info *op)
{
	static const struct roce_hdrs none;
	uint64_t now;
	struct tx_pkt p = { .opcode = ROCE_OP_CNP, .ext = &none, .cnp = true };

	roce_cnt_inc(e->cnt, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS);
	if (!prio_in(e->cc.np_prio_mask, qp->cfg.tclass) || !qp->tr->connected || !tx_room(e) ||
	    (!op->request && op->cls != ROCE_OPC_READ_RESP))
		return;
	now = engine_now(e);
	if (qp->cnp_once &&
	    now - qp->last_cnp < (uint64_t)e->cc.dcqcn.min_time_between_cnps * 1000)
		return;
	if (tx_build(e, qp, &p) != ROCE_OK)
		return;
	qp->last_cnp = now;
	qp->cnp_once = true;
	roce_cnt_inc(e->cnt, ROCE_CNT_NP_CNP_SENT);
}

/* RP: DCQCN's cut; the QP is paced from now on until it recovers. */
void cc_rx_cnp(struct roce_engine *e, struct eng_qp *qp)
{
	uint64_t now;

	if (!qp->rp_on) {
		roce_cnt_inc(e->cnt, ROCE_CNT_RP_CNP_IGNORED);
		return;
	}
	roce_cnt_inc(e->cnt, ROCE_CNT_RP_CNP_HANDLED);
	now = engine_now(e);
	dcqcn_advance(&qp->rp, &e->cc.dcqcn, now);      /* what was due before it */
	dcqcn_cnp(&qp->rp, &e->cc.dcqcn, now);
	publish_rate(e, qp);
	if (!qp->paced) {
		qp->paced = true;
		qp->next_tx = qp->pace_t = now;
		qp->pace_len = 0;
	}
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
	return (uint64_t)len * 8000000u / dcqcn_rate(&qp->rp);   /* rate: kbit/s, >= 1000 */
}

void cc_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t frame_len)
{
	uint64_t now, gap, start;

	dcqcn_sent(&qp->rp, &e->cc.dcqcn, frame_len);
	if (!qp->paced)
		return;
	now = engine_now(e);
	dcqcn_advance(&qp->rp, &e->cc.dcqcn, now);
	publish_rate(e, qp);
	if (!qp->rp.limited) {
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
	dcqcn_advance(&qp->rp, &e->cc.dcqcn, engine_now(e));
	publish_rate(e, qp);
	if (!qp->rp.limited) {
		qp->paced = qp->pace_wait = false;
		return;
	}
	qp->next_tx = qp->pace_t + gap_ns(qp, qp->pace_len);
}
