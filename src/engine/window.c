/* SPDX-License-Identifier: MIT */
/*
 * Go-back-N's window of an RC QP (docs/cc.md, "Defaults" and "Loss
 * recovery"). Three bounds, the smallest applies: the bounded window
 * (window_kb, or the QP's CC_QP_WINDOW_KB), the window of the QP's
 * algorithm (its grant), and, with ADAPTIVE_WINDOW, a window that adapts
 * to loss in place of the first.
 *
 * The adaptive window is IRN's bandwidth-delay-product cap (Mittal et
 * al., SIGCOMM 2018) made to give way where the receiver drops: cut on a
 * loss (a PSN sequence NAK; a retransmission timeout, once per window of
 * data as RFC 6582 cuts once per recovery), grown back by one packet per
 * window acknowledged (RFC 5681 3.1's congestion avoidance), never under
 * WINDOW_MIN_PKTS. A slow peer that drops then costs a fraction of a
 * window per loss, not everything in flight, and the window settles where
 * it stops dropping. A timeout halves it, and so does a NAK when the path
 * was queueing; a NAK on a path with no queue (a corrupted frame, a drop
 * of no congestion: queued() tells them apart) takes a fifth, as Veno
 * does: halving for a loss no smaller window avoids would only slow the
 * QP (at 5 % random loss 0.38 x the loss-free goodput halving, 0.49 x
 * with the fifth: docs/cc.md).
 *
 * Its cap: line_mbps x the QP's round trip, in packets of its MTU,
 * doubled (the ACK that opens a window is asked for by the packet that
 * closes it, req.c, when a message's AckReq does not come first: the
 * second half keeps the wire busy while that ACK comes back),
 * at least WINDOW_MIN_PKTS, at most the bounded window when one is set.
 * The round trip is the configured rtt_us (the fabric's base round trip),
 * or the smallest the QP has measured when that is longer (a longer
 * path). Not a smaller measured one: on a loopback or a back-to-back
 * link the smallest sample is one engine turn, and a cap from it (a few
 * packets) throttles a software peer that answers in batches (the
 * in-memory WRITE at 64 B to 1 MB lost 15-20 %). Not the smoothed one: a
 * sample includes the queue the QP's own window builds, and a cap that
 * grew with it would grow the queue (bufferbloat).
 *
 * A measured round trip longer than the configured one is a longer path
 * only if the path also carries the line's rate over it; a slow receiver
 * (a peer under emulation, its backlog milliseconds long) makes it long
 * too, at a fraction of the rate, and line x its round trip was a window
 * of 275,000 packets against rxe in a loaded guest, each loss resending
 * thousands. So beyond the configured round trip the cap is the path's
 * bandwidth-delay product as BBR estimates it (Cardwell et al., ACM Queue
 * 2016): the delivery rate x the smallest round trip, doubled as above, never above line x that round trip and
 * never under the configured cap. On a path that is longer at the line's
 * rate, a full window is delivered every round trip, so the cap doubles
 * each round trip until the line's rate bounds it (slow start's pace);
 * against a slow receiver it stays at twice what the receiver takes.
 * The delivery rate is the largest of the last 8 to 16 samples, each
 * the larger of two rates that both fall short of the path's, each
 * where the other does not: the packets acknowledged over the sample's
 * round trip (short where the peer answers in batches: two engines on
 * one core, 32 packets a turn, measured a third of the rate they moved)
 * and those acknowledged since the last sample's end (short across a
 * pause of the sender's own).
 *
 * Nothing here runs per packet: the requester compares its PSN with
 * una + qp->window, as for the bounded window alone; an ACK at the cap
 * costs one compare (window_acked).
 */
#include "engine/window.h"
#include "roce/psn.h"

/* Below this many packets a loss has no later packet behind it to draw
   the NAK: every loss becomes a tail loss, waited out by a probe or the
   timer (at 5 % loss, 0.38 x the loss-free goodput with a floor of one
   packet, 0.73 x with four: docs/cc.md). Neither the cap nor a cut goes
   under it, unless the bounded window is smaller */
#define WINDOW_MIN_PKTS 4
/* At most half the PSN space is outstanding anyway (IBA 9.7.1, req.c) */
#define WINDOW_MAX_PKTS (1u << 22)

void window_set(struct eng_qp *qp)
{
	const struct cc_grant *g = &qp->cc_grant;
	uint32_t w = qp->awnd ? qp->awnd : qp->window_cfg;

	if (qp->rp_on && qp->cc_algo && g->window && qp->tr->acked && (!w || g->window < w))
		w = g->window;
	if (qp->comp.frto)
		w = 1;                  /* a timeout's first resend: una's alone */
	qp->window = w;
}

/* Delivery-rate samples per epoch: the rate is the largest of this
   epoch's and the last one's */
#define DR_EPOCH 8

/* 2 x line_mbps x rtt (ns) in packets of the QP's MTU; Mbit/s x ns =
   10^-3 bit */
static uint64_t line_pkts(const struct roce_engine *e, const struct eng_qp *qp, uint64_t rtt)
{
	return 2 * ((uint64_t)e->cc.line_mbps * rtt / 8000) / qp->mtu;
}

static uint32_t cap_pkts(const struct roce_engine *e, const struct eng_qp *qp)
{
	uint64_t rtt = qp->comp.rtt_min, w = line_pkts(e, qp, (uint64_t)e->cc.rtt_us * 1000);

	if (rtt > (uint64_t)e->cc.rtt_us * 1000) {
		/* a longer path: its delivery rate x its round trip */
		uint64_t rate = qp->comp.dr_cur > qp->comp.dr_prev ? qp->comp.dr_cur
								    : qp->comp.dr_prev;
		uint64_t path = line_pkts(e, qp, rtt), bdp = 2 * rate * rtt / 1000000000u;

		if (bdp < path)
			path = bdp;
		if (path > w)
			w = path;
	}

	if (w < WINDOW_MIN_PKTS)
		w = WINDOW_MIN_PKTS;
	if (w > WINDOW_MAX_PKTS)
		w = WINDOW_MAX_PKTS;
	if (qp->window_cfg && w > qp->window_cfg)
		w = qp->window_cfg;
	return (uint32_t)w;
}

void window_sync(struct roce_engine *e, struct eng_qp *qp, bool fresh)
{
	uint32_t old_max = qp->awnd_max;

	if (!qp->rec_window) {
		qp->awnd = qp->awnd_max = 0;
	} else {
		qp->awnd_max = cap_pkts(e, qp);
		/* a new connection, or a window not cut since: at its cap
		   (IRN starts a flow at one BDP, no slow start) */
		if (fresh || !qp->awnd || qp->awnd == old_max || qp->awnd > qp->awnd_max)
			qp->awnd = qp->awnd_max;
		if (fresh) {
			qp->awnd_acked = 0;
			qp->awnd_hold = false;
			qp->comp.dr_cur = qp->comp.dr_prev = 0;
			qp->comp.dr_n = 0;
			qp->comp.dr_at = 0;
		}
	}
	window_set(qp);
}

void window_rtt(struct roce_engine *e, struct eng_qp *qp, uint64_t rtt_ns, uint32_t delivered)
{
	struct comp_ctx *c = &qp->comp;
	uint64_t rate, now = engine_now(e);

	if (!rtt_ns)
		return;
	c->rtt_last = rtt_ns;
	if (!c->rtt_min || rtt_ns < c->rtt_min)
		c->rtt_min = rtt_ns;
	/* packets a second; a round trip is at least a nanosecond and
	   delivered under 2^24, so no overflow */
	rate = (uint64_t)delivered * 1000000000u / rtt_ns;
	if (c->dr_at && now > c->dr_at) {
		uint64_t since = (uint64_t)roce_psn_dist(c->dr_una, c->una) * 1000000000u /
				 (now - c->dr_at);

		if (since > rate)
			rate = since;
	}
	c->dr_una = c->una;
	c->dr_at = now;
	if (++c->dr_n > DR_EPOCH) {
		c->dr_prev = c->dr_cur;
		c->dr_cur = 0;
		c->dr_n = 1;
	}
	if (rate > c->dr_cur)
		c->dr_cur = rate;
	/* the cap moves only beyond the configured round trip: below it,
	   one compare */
	if (qp->awnd && c->rtt_min > (uint64_t)e->cc.rtt_us * 1000)
		window_sync(e, qp, false);
}

void window_grow(struct eng_qp *qp, uint32_t psns)
{
	qp->awnd_acked += psns;
	if (qp->awnd_acked < qp->awnd)
		return;
	/* one packet per window acknowledged, whatever the ACKs' sizes */
	qp->awnd_acked = 0;
	qp->awnd++;
	window_set(qp);
}

/*
 * Was the loss the path's queue overflowing, or a loss on a path with
 * none (a bit error, a drop of no congestion)? Veno's discrimination (Fu
 * and Liew, IEEE JSAC 2003): the packets the QP keeps queued in the path,
 * from how much its latest round trip exceeds the smallest, at most
 * VENO_BETA packets for a random loss. The QP's own window serialised at
 * its line rate is no queue of the path's: a window sent back to back
 * makes its last packet's round trip (the sampled one, with AckReq) that
 * much longer at every rate. What a queue adds beyond it is the path's.
 */
#define VENO_BETA 3
static bool queued(const struct roce_engine *e, const struct eng_qp *qp)
{
	uint64_t r = qp->comp.rtt_last, m = qp->comp.rtt_min, own, bits;

	if (!r || !m)
		return true;                    /* nothing to tell them apart */
	/* bits on a line of line_mbps take bits * 1000 / line_mbps ns */
	own = (uint64_t)(qp->awnd - 1) * qp->mtu * 8 * 1000 / e->cc.line_mbps;
	if (r <= m + own)
		return false;
	bits = (r - m - own) * e->cc.line_mbps / 1000;
	return bits >= (uint64_t)VENO_BETA * qp->mtu * 8;
}

void window_cut(struct roce_engine *e, struct eng_qp *qp, bool nak)
{
	uint32_t w;

	if (!qp->awnd)
		return;
	/* every NAK cuts: the responder NAKs a sequence error once (IBA
	   9.7.5.1) and drops what follows in silence, so a NAK after a
	   go-back is a loss of a packet sent after the cut, a recovery of
	   its own. Holding the window until the old window's end, as RFC
	   6582 does for a sender that resends only the holes, left a
	   window of a large measured round trip (a slow peer: rxe in a
	   loaded guest) uncut while each NAK resent all of it: 90 % of the
	   frames resent against 1 % cutting per NAK. A timeout's resends
	   are held until the old window's end (the window it resends may
	   draw its NAKs) */
	if (nak && qp->awnd_hold && roce_psn_cmp(qp->comp.una, qp->awnd_recover) < 0)
		return;
	w = nak && !queued(e, qp) ? qp->awnd - qp->awnd / 5 : qp->awnd / 2;
	qp->awnd = w > WINDOW_MIN_PKTS ? w : WINDOW_MIN_PKTS;
	if (qp->awnd > qp->awnd_max)
		qp->awnd = qp->awnd_max;        /* a bounded window under 4 */
	qp->awnd_acked = 0;
	qp->awnd_hold = true;
	qp->awnd_recover = nak ? qp->comp.una : qp->req.psn_max;
	window_set(qp);
}

void window_frto_done(struct eng_qp *qp, bool spurious)
{
	if (spurious && qp->awnd && qp->comp.frto_awnd > qp->awnd) {
		qp->awnd = qp->comp.frto_awnd < qp->awnd_max ? qp->comp.frto_awnd : qp->awnd_max;
		qp->awnd_hold = false;
	}
	window_set(qp);
}
