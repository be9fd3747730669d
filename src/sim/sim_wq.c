/* SPDX-License-Identifier: MIT */
/*
 * The host's queues of a simulated NIC: a send and a receive queue for
 * each QP the register file committed, and one CQ for them all. They stand
 * for the descriptor rings and doorbells a host would use; the register
 * map has none (docs/regmap.md), so the simulator calls these instead.
 * The WQE is filled as roce_post_send fills it (src/verbs/qp.c).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_priv.h"
#include "roce/status.h"
#include "roce/tables.h"

int sim_cq_init(struct roce_sim *s)
{
	s->cq.wc = calloc(SIM_CQ_DEPTH, sizeof(*s->cq.wc));
	if (!s->cq.wc)
		return ROCE_E_NOMEM;
	s->cq.ring.mask = SIM_CQ_DEPTH - 1;
	return ROCE_OK;
}

static void qp_free(struct eng_qp *qp)
{
	if (!qp)
		return;
	free(qp->swqe);
	free(qp->rwqe);
	free(qp);
}

void sim_wq_fini(struct roce_sim *s)
{
	for (uint32_t i = 0; s->qp && i < s->qp_count; i++)
		qp_free(s->qp[i]);
	free(s->cq.wc);
}

/* The first commit of a QPN gives it queues; the engine then follows its
 * context through the table as for any QP (src/engine/ctx.c). */
int sim_qp_attach(struct roce_sim *s, uint32_t qpn)
{
	struct eng_qp *qp;

	if (qpn >= s->qp_count || s->qp[qpn])
		return ROCE_OK;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return ROCE_E_NOMEM;
	qp->swqe = calloc(SIM_WQ_DEPTH, sizeof(*qp->swqe));
	qp->rwqe = calloc(SIM_WQ_DEPTH, sizeof(*qp->rwqe));
	if (!qp->swqe || !qp->rwqe) {
		qp_free(qp);
		return ROCE_E_NOMEM;
	}
	qp->qpn = qpn;
	qp->send_cq = qp->recv_cq = &s->cq;
	qp->sq.mask = qp->rq.mask = SIM_WQ_DEPTH - 1;
	qp->cfg.state = ROCE_QPS_RESET;
	atomic_init(&qp->host_state, ROCE_QPS_RESET);
	s->qp[qpn] = qp;
	engine_lock(&s->eng);
	engine_add_qp(&s->eng, qp);
	engine_unlock(&s->eng);
	return ROCE_OK;
}

static struct eng_qp *qp_get(struct roce_sim *s, unsigned int qpn)
{
	return qpn < s->qp_count ? s->qp[qpn] : NULL;
}

static int post_send(struct roce_sim *s, unsigned int qpn, int opcode,
		     unsigned long long wr_id, unsigned long long laddr,
		     unsigned int lkey, unsigned int len,
		     unsigned long long raddr, unsigned int rkey)
{
	struct eng_qp *qp = qp_get(s, qpn);
	struct roce_qp_cfg c;
	uint32_t prod;
	struct swqe *w;

	if (!qp)
		return ROCE_E_NOENT;
	if (opcode != ROCE_WR_RDMA_WRITE && opcode != ROCE_WR_SEND &&
	    opcode != ROCE_WR_RDMA_READ)
		return ROCE_E_INVAL;
	/* IBA 10.8.2: a send queue takes work from RTS on */
	roce_qp_table_lookup(s->eng.qpt, qpn, &c, NULL);
	if (c.state != ROCE_QPS_RTS)
		return ROCE_E_STATE;
	prod = atomic_load_explicit(&qp->sq.prod, memory_order_relaxed);
	if (prod - atomic_load_explicit(&qp->sq.cons, memory_order_acquire) > qp->sq.mask)
		return ROCE_E_FULL;
	w = &qp->swqe[prod & qp->sq.mask];
	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = (uint8_t)opcode;
	w->flags = ROCE_SEND_SIGNALED;
	w->num_sge = len ? 1 : 0;
	w->length = len;
	w->sge[0] = (struct roce_sge){ .addr = laddr, .length = len, .lkey = lkey };
	w->remote_addr = raddr;
	w->rkey = rkey;
	w->state = SWQE_POSTED;
	atomic_store_explicit(&qp->sq.prod, prod + 1, memory_order_release);
	engine_doorbell(&s->eng, qp);
	return ROCE_OK;
}

int roce_sim_post_send(struct roce_sim *s, unsigned int qpn, int opcode,
		       unsigned long long wr_id, unsigned long long laddr,
		       unsigned int lkey, unsigned int len,
		       unsigned long long raddr, unsigned int rkey)
{
	struct trace_rec r = { .kind = TR_POST_SEND, .qpn = qpn, .op = (uint32_t)opcode,
			       .wr_id = wr_id, .addr = laddr, .lkey = lkey, .len = len,
			       .raddr = raddr, .rkey = rkey };
	int rc = post_send(s, qpn, opcode, wr_id, laddr, lkey, len, raddr, rkey);

	/* recorded after the post took effect, before the engine runs it: a
	 * replay posts, then sees the DMA reads and frames follow */
	r.resp = rc;
	sim_boundary(s, &r);
	if (rc == ROCE_OK)
		sim_run(s);
	return rc;
}

static int post_recv(struct roce_sim *s, unsigned int qpn, unsigned long long wr_id,
		     unsigned long long laddr, unsigned int lkey, unsigned int len)
{
	struct eng_qp *qp = qp_get(s, qpn);
	uint32_t prod;
	struct rwqe *r;

	if (!qp)
		return ROCE_E_NOENT;
	prod = atomic_load_explicit(&qp->rq.prod, memory_order_relaxed);
	if (prod - atomic_load_explicit(&qp->rq.cons, memory_order_acquire) > qp->rq.mask)
		return ROCE_E_FULL;
	r = &qp->rwqe[prod & qp->rq.mask];
	r->wr_id = wr_id;
	r->num_sge = len ? 1 : 0;
	r->length = len;
	r->sge[0] = (struct roce_sge){ .addr = laddr, .length = len, .lkey = lkey };
	atomic_store_explicit(&qp->rq.prod, prod + 1, memory_order_release);
	engine_doorbell(&s->eng, qp);
	return ROCE_OK;
}

int roce_sim_post_recv(struct roce_sim *s, unsigned int qpn, unsigned long long wr_id,
		       unsigned long long laddr, unsigned int lkey, unsigned int len)
{
	struct trace_rec r = { .kind = TR_POST_RECV, .qpn = qpn, .wr_id = wr_id,
			       .addr = laddr, .lkey = lkey, .len = len };

	r.resp = post_recv(s, qpn, wr_id, laddr, lkey, len);
	sim_boundary(s, &r);
	return r.resp;
}

int roce_sim_poll_cq(struct roce_sim *s, unsigned long long *wr_id, int *status,
		     int *opcode, unsigned int *qpn, unsigned int *byte_len)
{
	struct eng_cq *q = &s->cq;
	uint32_t cons = atomic_load_explicit(&q->ring.cons, memory_order_relaxed);
	struct trace_rec r = { .kind = TR_CQE };
	const struct roce_wc *wc;

	sim_run(s);
	if (cons == atomic_load_explicit(&q->ring.prod, memory_order_acquire))
		return 0;
	wc = &q->wc[cons & q->ring.mask];
	*wr_id = wc->wr_id;
	*status = (int)wc->status;
	*opcode = (int)wc->opcode;
	*qpn = wc->qp_num;
	*byte_len = wc->byte_len;
	r.wr_id = wc->wr_id;
	r.qpn = wc->qp_num;
	r.resp = (int)wc->status;
	r.op = (uint32_t)wc->opcode;
	r.len = wc->byte_len;
	atomic_store_explicit(&q->ring.cons, cons + 1, memory_order_release);
	sim_boundary(s, &r);
	return 1;
}
