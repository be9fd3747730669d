/* SPDX-License-Identifier: MIT */
/*
 * cc.c: congestion control (docs/cc.md): ECN, CNPs, pacing; the QP's
 * algorithm behind src/cc/algo.h's table. The hot checks are inline: a
 * QP that is not paced costs a flag test per packet, nothing more.
 */
#ifndef ROCE_ENGINE_CC_H
#define ROCE_ENGINE_CC_H

#include "engine/state.h"
#include "roce/psn.h"

/* A CC_COMMIT in the register file since the last poll: the engine takes
 * the block; true when it did (every QP's CC state and header template,
 * which carries the ECN field, then follow: engine.c). */
bool cc_changes(struct roce_engine *e);
/* The QP's context changed (priority, state): its CC state follows. */
void cc_qp_sync(struct roce_engine *e, struct eng_qp *qp);
/* The IP TOS / traffic class of a QP's packets: its traffic class, with
 * the ECN field ECT when its priority is a reaction point's. */
uint8_t cc_tos(const struct roce_engine *e, uint8_t tclass);
/* NP: a packet (opcode op) for qp arrived with ECN CE: counted; true when
 * a CNP is due to its peer now (room: the transmit burst has a slot for
 * it; recv.c sends it, then calls cc_cnp_sent). */
bool cc_cnp_due(struct roce_engine *e, struct eng_qp *qp, const struct roce_opcode_info *op,
		bool room);
void cc_cnp_sent(struct roce_engine *e, struct eng_qp *qp);
/* RP: a CNP for qp arrived. */
void cc_rx_cnp(struct roce_engine *e, struct eng_qp *qp);
bool cc_pace_ok(struct roce_engine *e, struct eng_qp *qp);
/* A paced QP waiting to send: the algorithm's timer runs, next_tx
   follows the rate it leaves (sched.c, at the QP's timer). */
void cc_repace(struct roce_engine *e, struct eng_qp *qp);
/* When a waiting paced QP must look again (0: not waiting). */
static inline uint64_t cc_deadline(const struct roce_engine *e, const struct eng_qp *qp)
{
	uint64_t d;

	(void)e;
	if (!qp->pace_wait)
		return 0;
	d = qp->cc_grant.next;
	return d && d < qp->next_tx ? d : qp->next_tx;
}
void cc_paced_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t frame_len);
/* How long the QP's pacer spreads a window of its packets, ns (0: not
 * paced): the ACK the window's last packet asks for comes that much later
 * than at line rate, and the retransmission timer allows for it
 * (recovery.c). A QP paced at a few Gbit/s took longer to send its 64 KB
 * than the adaptive timer's 100 us and timed out at every window. */
static inline uint64_t cc_pace_hold_ns(const struct eng_qp *qp)
{
	if (!qp->paced || !qp->window)
		return 0;
	return (uint64_t)qp->window * qp->mtu * 8000000u / qp->cc_grant.rate_kbps;
}
/* A data packet of an RP's QP went out (tx.c): a paced one moves its
 * pacing on; at line rate nothing is counted */
static inline void cc_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t frame_len)
{
	if (qp->paced)
		cc_paced_sent(e, qp, frame_len);
}
void cc_ack(struct roce_engine *e, struct eng_qp *qp, uint32_t psns);
void cc_loss(struct roce_engine *e, struct eng_qp *qp);
/* An algorithm that takes ACKs wants an RTT from each (cc.c) */
static inline bool cc_wants_acks(const struct eng_qp *qp)
{
	return qp->rp_on && qp->cc_algo->on_ack;
}
/* An ACK moved una (already moved) by psns (comp.c): for an algorithm
 * that takes ACKs, with the round trip of the newest PSN it acknowledges */
static inline void cc_acked(struct roce_engine *e, struct eng_qp *qp, uint32_t psns)
{
	if (cc_wants_acks(qp))
		cc_ack(e, qp, psns);
}
/* The requester sent psn (req.c): its time kept for the sample of the
 * ACK that acknowledges it. A resend (psn before psn_max, the first PSN
 * never sent) makes every PSN before psn_max unfit for a sample (Karn):
 * an ACK of one may answer either copy, or have been drawn by the resend
 * long after the original went. */
#define CC_SENT_VALID (1u << 31)
static inline void cc_psn_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t psn,
			       uint32_t psn_max)
{
	if (!cc_wants_acks(qp))
		return;
	if (psn != psn_max) {
		qp->cc_karn = true;
		qp->cc_sample_from = psn_max;
	}
	qp->cc_sent_at[psn & (ROCE_CC_SEND_TIMES - 1)] = (struct cc_sent_at){
		.psn = psn | CC_SENT_VALID,
		.t = (uint32_t)engine_now(e),
	};
}
/* A response for qp arrived (recv.c): its IP TTL (IPv6 hop limit) is
 * kept for the hop count of the ACK's sample */
static inline void cc_rx_response(struct eng_qp *qp, const struct roce_pkt *p)
{
	if (cc_wants_acks(qp))
		qp->cc_ttl = p->frame[p->l3_off + (p->ipv6 ? 7 : 8)];
}
/* The retransmission timer fired (comp.c): for an algorithm that takes
 * losses */
static inline void cc_lost(struct roce_engine *e, struct eng_qp *qp)
{
	if (qp->rp_on && qp->cc_algo->on_loss)
		cc_loss(e, qp);
}
/* A QP's state as its algorithm reports it (roce_qp_cc_state, from the
 * host side under the engine lock). */
void cc_qp_state(const struct eng_qp *qp, struct roce_qp_cc *out);
/* May qp send a data packet now? (a paced QP that may not waits for
 * its timer) */
static inline bool cc_may_send(struct roce_engine *e, struct eng_qp *qp)
{
	return !qp->paced || cc_pace_ok(e, qp);
}
/* The ECN field of a received packet is CE (0b11) */
static inline bool pkt_ce(const struct roce_pkt *p)
{
	const uint8_t *ip = p->frame + p->l3_off;

	return p->ipv6 ? (ip[1] & 0x30) == 0x30 : (ip[1] & 3) == 3;
}

#endif
