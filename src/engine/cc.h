/* SPDX-License-Identifier: MIT */
/*
 * cc.c: congestion control (docs/cc.md). The hot checks are inline: a
 * QP that is not paced costs a flag test per packet, nothing more.
 */
#ifndef ROCE_ENGINE_CC_H
#define ROCE_ENGINE_CC_H

#include "engine/state.h"

/* A CC_COMMIT in the register file since the last poll: the engine takes
 * the block (every QP's ECN marking, window, reaction point). */
void cc_changes(struct roce_engine *e);
/* The QP's context changed (priority, state): its CC state follows. */
void cc_qp_sync(struct roce_engine *e, struct eng_qp *qp);
/* The IP TOS / traffic class of a QP's packets: its traffic class, with
 * the ECN field ECT when its priority is a reaction point's. */
uint8_t cc_tos(const struct roce_engine *e, uint8_t tclass);
/* NP: a packet (opcode op) for qp arrived with ECN CE. */
void cc_rx_ce(struct roce_engine *e, struct eng_qp *qp, const struct roce_opcode_info *op);
/* RP: a CNP for qp arrived. */
void cc_rx_cnp(struct roce_engine *e, struct eng_qp *qp);
bool cc_pace_ok(struct roce_engine *e, struct eng_qp *qp);
/* A paced QP waiting to send: DCQCN's timers run, next_tx follows the
   rate they leave (sched.c, at the QP's timer). */
void cc_repace(struct roce_engine *e, struct eng_qp *qp);
/* When a waiting paced QP must look again (0: not waiting). */
static inline uint64_t cc_deadline(const struct roce_engine *e, const struct eng_qp *qp)
{
	uint64_t d;

	if (!qp->pace_wait)
		return 0;
	d = dcqcn_next_change(&qp->rp, &e->cc.dcqcn);
	return d && d < qp->next_tx ? d : qp->next_tx;
}
void cc_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t frame_len);
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
