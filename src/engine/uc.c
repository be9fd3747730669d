/* SPDX-License-Identifier: MIT */
/*
 * The UC transport (IBA 9.8), where it differs from RC.
 *
 * Requester (req.c calls these): the messages are cut as RC's, with the
 * UC opcodes; no AckReq, no retransmission timer, no go-back; a WQE
 * completes as soon as its last packet is out. Nothing will ever tell the
 * requester whether it arrived (IBA 9.8, unreliable connected service;
 * rxe_xmit_packet marks a UC or UD WQE done when its last packet is sent).
 *
 * Responder: no ACK or NAK, ever (UC has no response opcodes: IBA 9.2.1,
 * the opcode table). A packet is taken only in PSN order and in opcode
 * sequence (FIRST, MIDDLE..., LAST, or ONLY). Whatever breaks a message --
 * a PSN gap, a MIDDLE or LAST without its FIRST, no receive WQE, a length
 * or R_Key error -- drops the rest of it silently, counted, and the
 * responder resynchronises on the next FIRST or ONLY, whatever its PSN
 * (IBA 9.8.3, and the silent drops of the class D and E errors of IBA
 * 9.9; rxe_resp.c check_psn and check_op_seq for UC). A SEND's receive
 * WQE is completed only by its LAST: a broken message leaves it where it
 * was, for the next message (rxe's do_class_d1e_error resets it to its
 * original state), and what a broken WRITE already placed stays in memory.
 *
 * One difference from rxe on purpose: a FIRST that arrives while a
 * message is in progress (its LAST was lost) starts the new message.
 * rxe drops that FIRST too (check_op_seq answers ERR_MISSING_OPCODE_LAST_D1E
 * and the packet is cleaned up), which loses the next message as well;
 * IBA asks the responder to begin again at any FIRST or ONLY.
 */
#include <string.h>

#include "engine/mover.h"
#include "engine/flush.h"
#include "engine/rq.h"
#include "engine/uc.h"
#include "roce/psn.h"
#include "roce/status.h"

/* ---- requester ------------------------------------------------------------ */

/* The last packet of w is out: w is done, and everything sent so far is
 * as acknowledged as it will ever be (so the PSN window stays open). */
void uc_sent(struct eng_qp *qp, struct swqe *w)
{
	w->state = SWQE_DONE;
	w->status = ROCE_WC_SUCCESS;
	qp->comp.una = roce_psn_add(w->first_psn, w->npsn);
}

/* ---- responder ------------------------------------------------------------ */

/* Give up the message in progress: nothing of it completes, its receive
 * WQE (still at the head of the RQ) takes the next message. */
static void abandon(struct resp_ctx *r)
{
	r->in_send = r->in_write = false;
	r->rcv_offset = 0;
}

/* Drop this packet and the rest of its message, counted under why. */
static bool drop(struct roce_engine *e, struct eng_qp *qp, int why)
{
	abandon(&qp->resp);
	roce_cnt_drop(e->cnt, why);
	return false;
}

/* Segmentation (IBA 9.7 and 9.8: UC cuts messages as RC does): FIRST and
 * MIDDLE carry exactly the path MTU, LAST 1 byte to it, ONLY at most it
 * (rxe check_length). */
static bool seg_len_ok(const struct eng_qp *qp, const struct roce_pkt *p)
{
	uint8_t pos = p->op->pos;

	if (!(pos & ROCE_POS_LAST))
		return p->payload_len == qp->mtu;
	return p->payload_len <= qp->mtu &&
	       ((pos & ROCE_POS_FIRST) || p->payload_len != 0);
}

static bool uc_send(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p)
{
	struct resp_ctx *r = &qp->resp;
	uint8_t pos = p->op->pos;
	struct rwqe *w;
	int rc;

	if (pos & ROCE_POS_FIRST) {
		/* no receive WQE: the message is dropped, no RNR NAK on UC
		 * (a class D error; rxe RESPST_ERR_RNR for UC) */
		if (!rwqe_take(e, qp))
			return drop(e, qp, ROCE_E_NO_RWQE);
		r->in_send = true;
		r->rcv_offset = 0;
	}
	if (!seg_len_ok(qp, p))
		return drop(e, qp, ROCE_E_HDR_LEN);
	w = rwqe_take(e, qp);
	if (r->rcv_offset + p->payload_len > w->length)
		return drop(e, qp, ROCE_E_RECV_LEN);    /* class D: the WQE stays */
	rc = mem_place_sge(e, qp->cfg.pd, &qp->stage_in[STAGE_IN_RESP], pos & ROCE_POS_LAST,
			   rwqe_sgl(qp, w), w->num_sge, r->rcv_offset, roce_pkt_payload(p),
			   p->payload_len);
	if (rc) {
		/* the receive WQE's own buffer is bad: a local error of
		 * this QP, whatever the transport (rxe: ERR_MALFORMED_WQE,
		 * class A): the WQE completes in error, the QP fails */
		recv_complete(e, qp, ROCE_WC_LOC_PROT_ERR, ROCE_WC_RECV, 0, NULL);
		abandon(r);
		roce_cnt_drop(e->cnt, rc);
		qp_error(e, qp);
		return false;
	}
	r->rcv_offset += p->payload_len;
	if (pos & ROCE_POS_LAST) {
		recv_complete(e, qp, ROCE_WC_SUCCESS, ROCE_WC_RECV, r->rcv_offset, p);
		abandon(r);
	}
	return true;
}

static bool uc_write(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p)
{
	struct resp_ctx *r = &qp->resp;
	uint8_t pos = p->op->pos;
	bool imm = roce_op_has(p->op, ROCE_HDR_IMMDT);
	int rc;

	/* the QP must enable remote writes, for every packet (rxe
	 * check_op_valid drops the UC message otherwise) */
	if (!(qp->cfg.access & ROCE_ACCESS_REMOTE_WRITE))
		return drop(e, qp, ROCE_E_ACCESS);
	if (pos & ROCE_POS_FIRST) {
		const struct roce_reth *reth = roce_pkt_reth(p);
		struct mr_pos at;

		rc = mem_rkey(e, qp, roce_reth_rkey(reth), roce_reth_va(reth),
			      roce_reth_len(reth), ROCE_ACCESS_REMOTE_WRITE, &at);

		if (rc)         /* class E without an SRQ: silently dropped */
			return drop(e, qp, rc);
		r->in_write = true;
		r->write_at = at;
		r->write_resid = roce_reth_len(reth);
	}
	if ((pos & ROCE_POS_LAST) ? p->payload_len != r->write_resid
				  : (p->payload_len != qp->mtu ||
				     p->payload_len >= r->write_resid))
		return drop(e, qp, ROCE_E_HDR_LEN);
	/* WRITE with immediate consumes a receive WQE: none, and the LAST is
	 * dropped before it writes (what came before stays) */
	if ((pos & ROCE_POS_LAST) && imm && !rwqe_take(e, qp))
		return drop(e, qp, ROCE_E_NO_RWQE);
	/* checked at the FIRST packet; its window may have gone since */
	rc = mem_place_at(e, &qp->stage_in[STAGE_IN_RESP], pos & ROCE_POS_LAST, &r->write_at,
			  roce_pkt_payload(p), p->payload_len);
	if (rc)
		return drop(e, qp, rc);
	r->write_resid -= p->payload_len;
	if (pos & ROCE_POS_LAST) {
		abandon(r);
		if (imm)
			recv_complete(e, qp, ROCE_WC_SUCCESS, ROCE_WC_RECV_RDMA_WITH_IMM, 0, p);
	}
	return true;
}

/* A MIDDLE or LAST continues the message in progress only if it is the
 * next PSN and of the same operation. */
static bool continues(const struct resp_ctx *r, const struct roce_pkt *p, uint32_t psn)
{
	if (psn != r->psn)
		return false;
	return p->op->cls == ROCE_OPC_SEND ? r->in_send : r->in_write;
}

void uc_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p)
{
	struct resp_ctx *r = &qp->resp;
	uint32_t psn = roce_bth_psn(roce_pkt_bth(p));

	if (p->op->pos & ROCE_POS_FIRST) {
		/* resynchronise: a message still in progress lost its LAST */
		abandon(r);
	} else if (!continues(r, p, psn)) {
		/* a gap, or the rest of a message already broken */
		drop(e, qp, ROCE_E_UC_GAP);
		r->psn = roce_psn_add(psn, 1);
		return;
	}
	r->psn = roce_psn_add(psn, 1);
	if (p->op->cls == ROCE_OPC_SEND)
		uc_send(e, qp, p);
	else
		uc_write(e, qp, p);
}
