/* SPDX-License-Identifier: MIT */
/*
 * The responder: requests arriving on a QP, checked and executed in PSN
 * order; its replies (ACK, NAK, READ responses, atomic ACKs) queue in PSN
 * order and go out from resp_tx(), so the receive path never waits for
 * transmit room and a READ response is never overtaken by a later ACK.
 */
#include <string.h>

#include "engine/cc.h"
#include "engine/mover.h"
#include "engine/flush.h"
#include "engine/resp.h"
#include "engine/rq.h"
#include "engine/tx.h"
#include "roce/psn.h"
#include "roce/status.h"

void resp_reset(struct eng_qp *qp)
{
	struct resp_ctx *r = &qp->resp;
	struct reply *rep = r->replies;
	struct atomic_saved *at = r->atomics;
	uint32_t rc = r->rep_cap, ac = r->atomic_cap;

	/* the resources stay: only their contents go */
	memset(r, 0, sizeof(*r));
	r->replies = rep;
	r->rep_cap = rc;
	r->atomics = at;
	r->atomic_cap = ac;
	if (at)
		memset(at, 0, sizeof(*at) * ac);
}

int resp_size(struct eng_qp *qp, uint32_t max_dest_rd_atomic)
{
	struct resp_ctx *r = &qp->resp;
	uint32_t rc = ROCE_RESP_QUEUE(max_dest_rd_atomic);
	uint32_t ac = ROCE_ATOMIC_REPLAY(max_dest_rd_atomic);
	void *p;

	if (r->replies && rc == r->rep_cap && ac == r->atomic_cap)
		return ROCE_OK;
	/* only an idle responder changes size (entering RTR, or a later
	   change with nothing queued): a queued reply keeps its place */
	if (r->replies && r->rep_tail != r->rep_head)
		return ROCE_E_BUSY;
	p = calloc(1, sizeof(struct reply) * rc + sizeof(struct atomic_saved) * ac);
	if (!p)
		return ROCE_E_NOMEM;
	free(r->replies);
	r->replies = p;
	r->rep_cap = rc;
	r->atomics = (struct atomic_saved *)(r->replies + rc);
	r->atomic_cap = ac;
	r->rep_head = r->rep_tail = 0;
	r->atomic_next = 0;
	return ROCE_OK;
}

void resp_free(struct eng_qp *qp)
{
	free(qp->resp.replies);
	qp->resp.replies = NULL;
	qp->resp.atomics = NULL;
	qp->resp.rep_cap = qp->resp.atomic_cap = 0;
}

static uint32_t rep_count(const struct resp_ctx *r)
{
	return r->rep_tail - r->rep_head;
}

static struct reply *rep_push(struct resp_ctx *r)
{
	struct reply *x;

	if (rep_count(r) == r->rep_cap)
		return NULL;
	x = &r->replies[r->rep_tail++ % r->rep_cap];
	memset(x, 0, sizeof(*x));
	return x;
}

/* ACKs are cumulative: a new one replaces an ACK still waiting at the
 * tail (coalescing, IBA 9.7.5.1.1), without passing a READ response. */
static void queue_ack(struct roce_engine *e, struct eng_qp *qp, uint32_t psn)
{
	struct resp_ctx *r = &qp->resp;
	struct reply *x;

	if (rep_count(r)) {
		x = &r->replies[(r->rep_tail - 1) % r->rep_cap];
		if (x->kind == REPLY_ACK) {
			x->psn = psn;
			x->msn = r->msn;
			return;
		}
	}
	x = rep_push(r);
	if (!x) {
		roce_cnt_drop(e->cnt, ROCE_E_FULL);
		return;
	}
	x->kind = REPLY_ACK;
	x->psn = psn;
	x->msn = r->msn;
}

static void queue_nak(struct roce_engine *e, struct eng_qp *qp, uint32_t psn,
		      uint8_t syndrome)
{
	struct reply *x = rep_push(&qp->resp);

	if (!x) {
		roce_cnt_drop(e->cnt, ROCE_E_FULL);
		return;
	}
	x->kind = REPLY_NAK;
	x->syndrome = syndrome;
	x->psn = psn;
	x->msn = qp->resp.msn;
}

/* A request the responder refuses (IBA 9.9.2 class B/C errors): NAK it,
 * and enter the error state once the NAK is out. */
static void resp_error(struct roce_engine *e, struct eng_qp *qp, uint32_t psn,
		       enum roce_nak_code code, int reason)
{
	static const enum roce_cnt cnt[] = {
		[ROCE_NAK_INVALID_REQ] = ROCE_CNT_NAKS_TX_INVALID_REQ,
		[ROCE_NAK_REMOTE_ACCESS] = ROCE_CNT_NAKS_TX_REMOTE_ACCESS,
		[ROCE_NAK_REMOTE_OP] = ROCE_CNT_NAKS_TX_REMOTE_OP,
	};

	roce_cnt_drop(e->cnt, reason);
	roce_cnt_inc(e->cnt, cnt[code]);
	queue_nak(e, qp, psn, (uint8_t)(ROCE_AETH_NAK | code));
	qp->resp.goto_err = true;
}

/*
 * The QP itself must enable the operation (its remote write / read /
 * atomic access flags, IBA 10.6.3.1). A request the QP does not enable is
 * an Invalid Request NAK, a responder class C error (IBA 9.9.2), not a
 * Remote Access Error, which is for the MR's key, rights and bounds.
 * rxe answers the same: check_op_valid -> RESPST_ERR_UNSUPPORTED_OPCODE ->
 * AETH_NAK_INVALID_REQ; the requester completes with REM_INV_REQ_ERR.
 */
/* READ and atomic requests need responder resources: a QP that offers
 * none (max_dest_rd_atomic 0) refuses them with an Invalid Request, as
 * rxe's check_resource does. A requester that sends more than it was
 * offered is not NAKed: the reply queue takes what it can (do_read). */
static bool has_rd_resources(struct roce_engine *e, struct eng_qp *qp, uint32_t psn)
{
	if (qp->cfg.max_dest_rd_atomic)
		return true;
	resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_FULL);
	return false;
}

static bool qp_enables(struct roce_engine *e, struct eng_qp *qp, uint32_t psn,
		       unsigned right)
{
	if (qp->cfg.access & right)
		return true;
	resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_ACCESS);
	return false;
}

/* RNR NAK: no receive WQE; the requester tries again after the timer. */
static void rnr(struct roce_engine *e, struct eng_qp *qp, uint32_t psn)
{
	roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_TX_RNR);
	queue_nak(e, qp, psn, (uint8_t)(ROCE_AETH_RNR_NAK |
					(qp->cfg.min_rnr_timer & ROCE_AETH_VALUE_MASK)));
}

/* Returns true when the packet was accepted (the ePSN moves on). */
static bool do_send(struct roce_engine *e, struct eng_qp *qp,
		    const struct roce_pkt *p, uint32_t psn)
{
	struct resp_ctx *r = &qp->resp;
	uint8_t pos = p->op->pos;
	struct rwqe *w;
	int rc;

	if (pos & ROCE_POS_FIRST) {
		if (r->in_send || r->in_write) {
			resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_OPCODE);
			return false;
		}
		if (!rwqe_take(e, qp)) {
			rnr(e, qp, psn);
			return false;
		}
		r->in_send = true;
		r->rcv_offset = 0;
	} else if (!r->in_send) {
		/* MIDDLE or LAST without a FIRST: an opcode out of sequence
		 * is an Invalid Request (IBA 9.9.2, responder errors; rxe
		 * check_op_seq) */
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_OPCODE);
		return false;
	}
	/* FIRST and MIDDLE carry exactly one path MTU, LAST 1 byte to one,
	 * ONLY at most one (segmentation, IBA 9.7; a wrong length is an
	 * Invalid Request, rxe check_length) */
	if (!(pos & ROCE_POS_LAST) ? p->payload_len != qp->mtu
				   : p->payload_len > qp->mtu ||
				     (!(pos & ROCE_POS_FIRST) && p->payload_len == 0)) {
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_HDR_LEN);
		return false;
	}
	w = rwqe_take(e, qp);
	if (r->rcv_offset + p->payload_len > w->length) {
		recv_complete(e, qp, ROCE_WC_LOC_LEN_ERR, ROCE_WC_RECV, 0, NULL);
		r->in_send = false;
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_RANGE);
		return false;
	}
	rc = mem_place_sge(e, qp->cfg.pd, &qp->stage_in[STAGE_IN_RESP], pos & ROCE_POS_LAST,
			   rwqe_sgl(qp, w), w->num_sge, r->rcv_offset, roce_pkt_payload(p),
			   p->payload_len);
	if (rc) {
		/* the receive buffer's key, bounds or stage: a remote
		   operational error (a stage places nothing of the packet) */
		recv_complete(e, qp, ROCE_WC_LOC_PROT_ERR, ROCE_WC_RECV, 0, NULL);
		r->in_send = false;
		resp_error(e, qp, psn, ROCE_NAK_REMOTE_OP, rc);
		return false;
	}
	r->rcv_offset += p->payload_len;
	if (pos & ROCE_POS_LAST) {
		recv_complete(e, qp, ROCE_WC_SUCCESS, ROCE_WC_RECV, r->rcv_offset, p);
		r->in_send = false;
		r->msn = roce_psn_add(r->msn, 1);
	}
	return true;
}

static bool do_write(struct roce_engine *e, struct eng_qp *qp,
		     const struct roce_pkt *p, uint32_t psn)
{
	struct resp_ctx *r = &qp->resp;
	uint8_t pos = p->op->pos;
	bool imm = roce_op_has(p->op, ROCE_HDR_IMMDT);
	int rc;

	if (pos & ROCE_POS_FIRST) {
		const struct roce_reth *reth = roce_pkt_reth(p);
		uint64_t va = roce_reth_va(reth);
		struct mr_pos at;
		uint32_t rkey = roce_reth_rkey(reth), len = roce_reth_len(reth);

		if (r->in_send || r->in_write) {
			resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_OPCODE);
			return false;
		}
		if (!qp_enables(e, qp, psn, ROCE_ACCESS_REMOTE_WRITE))
			return false;
		/* the MR: key, rights and bounds before any byte lands */
		rc = mem_rkey(e, qp, rkey, va, len, ROCE_ACCESS_REMOTE_WRITE, &at);
		if (rc) {
			resp_error(e, qp, psn, ROCE_NAK_REMOTE_ACCESS, rc);
			return false;
		}
		r->in_write = true;
		r->write_at = at;
		r->write_resid = len;
	} else if (!r->in_write) {
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_OPCODE);
		return false;
	} else if (!qp_enables(e, qp, psn, ROCE_ACCESS_REMOTE_WRITE)) {
		r->in_write = false;    /* the right was taken away mid-message */
		return false;
	}
	if ((pos & ROCE_POS_LAST) ? p->payload_len != r->write_resid
				  : (p->payload_len != qp->mtu ||
				     p->payload_len >= r->write_resid)) {
		r->in_write = false;
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_HDR_LEN);
		return false;
	}
	/* WRITE with immediate consumes a receive WQE: check before writing */
	if ((pos & ROCE_POS_LAST) && imm && !rwqe_take(e, qp)) {
		if (pos & ROCE_POS_FIRST)
			r->in_write = false;
		rnr(e, qp, psn);
		return false;
	}
	/* checked at the FIRST packet; its window may have gone since. A
	 * stage that cannot do its work (PI, a full pool, no key) is a
	 * remote operational error, and places nothing of the packet */
	rc = mem_place_at(e, &qp->stage_in[STAGE_IN_RESP], pos & ROCE_POS_LAST, &r->write_at,
			  roce_pkt_payload(p), p->payload_len);
	if (rc) {
		r->in_write = false;
		resp_error(e, qp, psn, rc == ROCE_E_BOUNDS ? ROCE_NAK_REMOTE_ACCESS
							   : ROCE_NAK_REMOTE_OP, rc);
		return false;
	}
	r->write_resid -= p->payload_len;
	if (pos & ROCE_POS_LAST) {
		r->in_write = false;
		r->msn = roce_psn_add(r->msn, 1);
		if (imm)
			recv_complete(e, qp, ROCE_WC_SUCCESS, ROCE_WC_RECV_RDMA_WITH_IMM,
				      0, p);
	}
	return true;
}

/* READ: validate now, answer later from resp_tx(). Returns the PSNs it
 * takes (0 = refused). */
static uint32_t do_read(struct roce_engine *e, struct eng_qp *qp,
			const struct roce_pkt *p, uint32_t psn, bool duplicate)
{
	const struct roce_reth *reth = roce_pkt_reth(p);
	uint64_t va = roce_reth_va(reth);
	uint32_t rkey = roce_reth_rkey(reth), len = roce_reth_len(reth);
	uint32_t n = len ? (len + qp->mtu - 1) / qp->mtu : 1;
	struct mr_pos at;
	struct reply *x;
	int rc;

	/*
	 * A requester keeps at most max_rd_atomic READs and atomics in flight,
	 * but replies replayed for its duplicates can still be queued when it
	 * already moved on. So, like rxe, never refuse a READ for want of
	 * resources: queue it while the reply queue has room, and otherwise
	 * drop it unanswered, as a lost packet: the requester's timer asks
	 * again (rxe NAKs no READ for want of resources either).
	 */
	if (rep_count(&qp->resp) + 1 >= qp->resp.rep_cap) {
		roce_cnt_drop(e->cnt, ROCE_E_FULL);
		return 0;
	}
	if (!qp_enables(e, qp, psn, ROCE_ACCESS_REMOTE_READ) ||
	    !has_rd_resources(e, qp, psn))
		return 0;
	rc = mem_rkey(e, qp, rkey, va, len, ROCE_ACCESS_REMOTE_READ, &at);
	if (rc) {
		resp_error(e, qp, psn, ROCE_NAK_REMOTE_ACCESS, rc);
		return 0;
	}
	x = rep_push(&qp->resp);
	if (!x)
		return 0;
	if (!duplicate)
		qp->resp.msn = roce_psn_add(qp->resp.msn, 1);
	x->kind = REPLY_READ;
	x->psn = x->first_psn = psn;
	x->last_psn = roce_psn_add(psn, n - 1);
	x->at = at;
	x->resid = len;
	x->msn = qp->resp.msn;
	qp->resp.rd_outstanding++;
	return n;
}

static bool do_atomic(struct roce_engine *e, struct eng_qp *qp,
		      const struct roce_pkt *p, uint32_t psn)
{
	const struct roce_atomiceth *a = roce_pkt_atomiceth(p);
	uint64_t va = roce_atomiceth_va(a), orig;
	uint32_t rkey = roce_atomiceth_rkey(a);
	struct atomic_saved *s;
	struct mr_pos at;
	struct reply *x;
	int rc;

	if (rep_count(&qp->resp) + 1 >= qp->resp.rep_cap) {
		roce_cnt_drop(e->cnt, ROCE_E_FULL);     /* as for READ: ask again */
		return false;
	}
	/* atomics address an aligned 64-bit word (IBA 9.4.5, atomic
	 * operations); a misaligned one is an Invalid Request (rxe
	 * RESPST_ERR_MISALIGNED_ATOMIC) */
	if (va & 7) {
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_ALIGN);
		return false;
	}
	if (!qp_enables(e, qp, psn, ROCE_ACCESS_REMOTE_ATOMIC) ||
	    !has_rd_resources(e, qp, psn))
		return false;
	rc = mem_rkey(e, qp, rkey, va, 8, ROCE_ACCESS_REMOTE_ATOMIC, &at);
	if (rc) {
		resp_error(e, qp, psn, ROCE_NAK_REMOTE_ACCESS, rc);
		return false;
	}
	/* a staged MR's words are not what the wire sees: no atomic on it
	 * (an invalid request, as for an operation the MR cannot do) */
	if (at.staged) {
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_STAGE);
		return false;
	}
	/* one engine thread owns the DDR: the read-modify-write is atomic
	 * with respect to every other request (in host memory too; against
	 * the host's own CPU accesses it is not, as IBV_ATOMIC_HCA says) */
	if (mem_atomic(e, &at, p->opcode == ROCE_OP_RC_CMP_SWAP, roce_atomiceth_compare(a),
		       roce_atomiceth_swap_add(a), &orig)) {
		resp_error(e, qp, psn, ROCE_NAK_REMOTE_ACCESS, ROCE_E_BOUNDS);
		return false;
	}

	/* kept for a duplicate request, which must not execute again */
	s = &qp->resp.atomics[qp->resp.atomic_next++ % qp->resp.atomic_cap];
	s->valid = true;
	s->psn = psn;
	s->orig = orig;
	qp->resp.msn = roce_psn_add(qp->resp.msn, 1);
	x = rep_push(&qp->resp);
	x->kind = REPLY_ATOMIC;
	x->psn = psn;
	x->orig = orig;
	x->msn = qp->resp.msn;
	qp->resp.rd_outstanding++;
	return true;
}

/*
 * A requester that asks again from psn will also ask again for everything
 * after it (go-back-N), so replies queued for psn and later are obsolete:
 * drop them, freeing their resources for the replays (IBA 9.9.2.2).
 */
static void rep_truncate(struct resp_ctx *r, uint32_t psn)
{
	while (rep_count(r)) {
		struct reply *x = &r->replies[(r->rep_tail - 1) % r->rep_cap];
		uint32_t reach = x->kind == REPLY_READ ? x->last_psn : x->psn;

		if (roce_psn_cmp(reach, psn) < 0)
			break;
		if (x->kind == REPLY_READ || x->kind == REPLY_ATOMIC)
			r->rd_outstanding--;
		r->rep_tail--;
	}
}

/* A request already executed (IBA 9.9.2.2): answer again, never redo. */
static void duplicate(struct roce_engine *e, struct eng_qp *qp,
		      const struct roce_pkt *p, uint32_t psn)
{
	roce_cnt_inc(e->cnt, ROCE_CNT_DUP_REQUESTS);
	switch (p->op->cls) {
	case ROCE_OPC_READ_REQ:
		rep_truncate(&qp->resp, psn);
		do_read(e, qp, p, psn, true);
		break;
	case ROCE_OPC_ATOMIC:
		rep_truncate(&qp->resp, psn);
		for (unsigned i = 0; i < qp->resp.atomic_cap; i++) {
			struct atomic_saved *s = &qp->resp.atomics[i];
			struct reply *x;

			if (!s->valid || s->psn != psn)
				continue;
			x = rep_push(&qp->resp);
			if (!x)
				return;
			x->kind = REPLY_ATOMIC;
			x->psn = psn;
			x->orig = s->orig;
			x->msn = qp->resp.msn;
			qp->resp.rd_outstanding++;
			return;
		}
		break;
	default:
		/* SEND / WRITE: acknowledge what we have, AckReq or not: the
		 * requester went back and waits to hear where we are (rxe's
		 * duplicate_request ACKs every one; consecutive ACKs coalesce
		 * in the reply queue). Up to the last SEND or WRITE taken, not
		 * the ePSN: an ACK that covers a READ's PSN completes the
		 * READ at rxe's requester (COMPST_COMP_ACK) without its data,
		 * when its response was lost; the READ, resent, is answered
		 * by its replay (rxe keeps its ack_psn so) */
		queue_ack(e, qp, roce_psn_add(qp->resp.ack_psn, -1u));
		break;
	}
}

void resp_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p)
{
	struct resp_ctx *r = &qp->resp;
	uint32_t psn = roce_bth_psn(roce_pkt_bth(p));
	int32_t d = roce_psn_diff(psn, r->psn);
	uint32_t n = 1;
	bool ok;

	if (r->goto_err)
		return;                 /* an error NAK is on its way */
	if (d > 0) {
		/* a gap: NAK once with the PSN we expect, then drop new
		 * requests until it comes (IBA 9.7.5.1, PSN sequence
		 * error; rxe RESPST_ERR_PSN_OUT_OF_SEQ and its nak_sent) */
		roce_cnt_drop(e->cnt, ROCE_E_PSN);
		if (!r->nak_sent) {
			r->nak_sent = true;
			roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_TX_PSN_SEQ_ERR);
			queue_nak(e, qp, r->psn, ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR);
		}
		return;
	}
	if (d < 0) {
		duplicate(e, qp, p, psn);
		return;
	}
	switch (p->op->cls) {
	case ROCE_OPC_SEND:
		ok = do_send(e, qp, p, psn);
		break;
	case ROCE_OPC_WRITE:
		ok = do_write(e, qp, p, psn);
		break;
	case ROCE_OPC_READ_REQ:
		n = do_read(e, qp, p, psn, false);
		ok = n != 0;
		break;
	case ROCE_OPC_ATOMIC:
		ok = do_atomic(e, qp, p, psn);
		break;
	default:
		resp_error(e, qp, psn, ROCE_NAK_INVALID_REQ, ROCE_E_OPCODE);
		ok = false;
		break;
	}
	if (!ok)
		return;
	r->psn = roce_psn_add(r->psn, n);
	r->nak_sent = false;
	if (p->op->cls != ROCE_OPC_READ_REQ && p->op->cls != ROCE_OPC_ATOMIC) {
		r->ack_psn = r->psn;
		if (roce_bth_ackreq(roce_pkt_bth(p)))
			queue_ack(e, qp, psn);
	}
}

/* ---- replies ---------------------------------------------------------------- */

static int send_ack(struct roce_engine *e, struct eng_qp *qp, const struct reply *x)
{
	struct roce_hdrs ext;
	struct tx_pkt p = { 0 };

	/* only the fields of the headers the opcode carries are read */
	/* credits: "invalid" (no end-to-end flow control), as rxe sends */
	ext.aeth.syndrome = x->kind == REPLY_ACK
				    ? ROCE_AETH_ACK | ROCE_AETH_CREDIT_INVALID : x->syndrome;
	ext.aeth.msn = x->msn;
	p.opcode = ROCE_OP_RC_ACK;
	p.psn = x->psn;
	p.ext = &ext;
	return tx_build(e, qp, &p);
}

static int send_atomic_ack(struct roce_engine *e, struct eng_qp *qp,
			   const struct reply *x)
{
	struct roce_hdrs ext;
	struct tx_pkt p = { 0 };

	/* only the fields of the headers the opcode carries are read */
	ext.aeth.syndrome = ROCE_AETH_ACK | ROCE_AETH_CREDIT_INVALID;
	ext.aeth.msn = x->msn;
	ext.atomic_ack.orig = x->orig;
	p.opcode = ROCE_OP_RC_ATOMIC_ACK;
	p.psn = x->psn;
	p.ext = &ext;
	return tx_build(e, qp, &p);
}

/* One READ response packet; returns true when the READ is answered (or
 * cannot be: a response that cannot be built is abandoned, the requester
 * will ask again). */
static bool send_read(struct roce_engine *e, struct eng_qp *qp, struct reply *x)
{
	bool first = x->psn == x->first_psn, last = x->psn == x->last_psn;
	uint32_t len = x->resid < qp->mtu ? x->resid : qp->mtu;
	struct roce_hdrs ext;
	struct tx_pkt p = { 0 };
	int rc;

	/* only the fields of the headers the opcode carries are read */
	ext.aeth.syndrome = ROCE_AETH_ACK | ROCE_AETH_CREDIT_INVALID;
	ext.aeth.msn = x->msn;
	p.opcode = first && last ? ROCE_OP_RC_READ_RESP_ONLY
		 : first ? ROCE_OP_RC_READ_RESP_FIRST
		 : last ? ROCE_OP_RC_READ_RESP_LAST : ROCE_OP_RC_READ_RESP_MIDDLE;
	p.psn = x->psn;
	p.ext = &ext;
	p.at = &x->at;
	p.len = len;
	rc = tx_build(e, qp, &p);
	if (rc == ROCE_E_PI || rc == ROCE_E_STAGE || rc == ROCE_E_STAGE_FULL) {
		/* a stage failed on the data (its PI does not match): the bad
		 * bytes never go out; the response stops here and this PSN
		 * carries a remote operational error NAK instead */
		x->kind = REPLY_NAK;
		x->syndrome = ROCE_AETH_NAK | ROCE_NAK_REMOTE_OP;
		qp->resp.rd_outstanding--;
		qp->resp.goto_err = true;
		roce_cnt_drop(e->cnt, rc);
		roce_cnt_inc(e->cnt, ROCE_CNT_NAKS_TX_REMOTE_OP);
		return false;
	}
	if (rc != ROCE_OK)
		return true;
	mr_pos_advance(&x->at, len);
	x->resid -= len;
	x->psn = roce_psn_add(x->psn, 1);
	return last;
}

void resp_tx(struct roce_engine *e, struct eng_qp *qp)
{
	struct resp_ctx *r = &qp->resp;

	while (tx_room(e) && rep_count(r)) {
		struct reply *x = &r->replies[r->rep_head % r->rep_cap];
		bool done = true;

		switch (x->kind) {
		case REPLY_ACK:
			roce_cnt_inc(e->cnt, ROCE_CNT_ACKS_TX);
			send_ack(e, qp, x);
			break;
		case REPLY_NAK:
			send_ack(e, qp, x);
			break;
		case REPLY_ATOMIC:
			send_atomic_ack(e, qp, x);
			r->rd_outstanding--;
			break;
		case REPLY_READ:
			/* READ responses are the responder's data: paced
			   (cc.c), the replies behind them wait in order */
			if (!cc_may_send(e, qp))
				return;
			done = send_read(e, qp, x);
			if (done)
				r->rd_outstanding--;
			break;
		}
		if (done)
			r->rep_head++;
	}
	if (r->goto_err && !rep_count(r))
		qp_error(e, qp);
}
