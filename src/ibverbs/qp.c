/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: create, modify, query, destroy, and the two posting ops
 * the inline ibv_post_send / ibv_post_recv call. Work requests are
 * translated to the engine's (the same fields, ibverbs' values) in small
 * batches on the stack; an SGE is the same 16 bytes in both, so SGE lists
 * pass as they are, and so do the send flags (an inline WR's bytes are
 * copied by the engine's post). An address vector's MAC is found here
 * (ARP, neighbour discovery), as the kernel finds it for a RoCE device
 * (ib_resolve_unicast_gid_dmac). ibv_create_qp_ex and the ibv_wr_* ops
 * are qp_ex.c's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "roce/gid.h"
#include "roce/params.h"
#include "roce/status.h"

_Static_assert(sizeof(struct ibv_sge) == sizeof(struct roce_sge) &&
	       offsetof(struct ibv_sge, addr) == offsetof(struct roce_sge, addr) &&
	       offsetof(struct ibv_sge, length) == offsetof(struct roce_sge, length) &&
	       offsetof(struct ibv_sge, lkey) == offsetof(struct roce_sge, lkey),
	       "an SGE list passes to the engine as it is");
_Static_assert((int)IBV_SEND_FENCE == (int)ROCE_SEND_FENCE &&
	       (int)IBV_SEND_SIGNALED == (int)ROCE_SEND_SIGNALED &&
	       (int)IBV_SEND_SOLICITED == (int)ROCE_SEND_SOLICITED &&
	       (int)IBV_SEND_INLINE == (int)ROCE_SEND_INLINE,
	       "the send flags pass to the engine as they are");

#define RV_BATCH 16

/*
 * Inline data as rxe offers it (rxe_qp_chk_cap, rxe_qp_init_req): at most
 * RXE_MAX_INLINE_DATA, 512 bytes, else EINVAL; what the QP gets is the
 * larger of what was asked and its SGEs' room (16 bytes an SGE), so
 * max_inline_data comes back at least 16 even when 0 was asked. Up to
 * the WQE's own SGE room (ROCE_WQE_SGE SGEs) it costs the QP nothing;
 * beyond it the engine keeps that many bytes per send WQE.
 */
static int inline_cap(const struct ibv_qp_init_attr *a, struct roce_qp_cap *cap)
{
	uint32_t sge_room = cap->max_send_sge * (uint32_t)sizeof(struct ibv_sge);

	if (a->cap.max_inline_data > ROCE_MAX_INLINE) {
		/* said once: libfabric's verbs provider finds the largest by
		   asking more and less */
		static int said;

		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			fprintf(stderr, "libibverbs (roce-run): ibv_create_qp: max_inline_data "
				"%u over the device's %u (said once)\n",
				a->cap.max_inline_data, ROCE_MAX_INLINE);
		errno = EINVAL;
		return EINVAL;
	}
	cap->max_inline_data = a->cap.max_inline_data > sge_room ? a->cap.max_inline_data
								 : sge_room;
	return 0;
}

static struct rv_qp *qp_new(struct rv_context *c, struct ibv_pd *pd,
			    struct ibv_qp_init_attr *a)
{
	struct roce_qp_init_attr ra = { 0 };
	struct rv_qp *q;
	int st;

	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC && a->qp_type != IBV_QPT_UD) {
		rv_unsupported("ibv_create_qp of a QP type other than RC, UC or UD", EOPNOTSUPP);
		return NULL;
	}
	if (!a->send_cq || !a->recv_cq) {
		errno = EINVAL;
		return NULL;
	}
	ra.send_cq = RV_OF(rv_cq, a->send_cq)->cq;
	ra.recv_cq = RV_OF(rv_cq, a->recv_cq)->cq;
	ra.srq = a->srq ? RV_OF(rv_srq, a->srq)->srq : NULL;
	ra.qp_type = (enum roce_qp_type)a->qp_type;
	ra.sq_sig_all = a->sq_sig_all != 0;
	ra.cap.max_send_wr = a->cap.max_send_wr;
	ra.cap.max_recv_wr = a->cap.max_recv_wr;
	ra.cap.max_send_sge = a->cap.max_send_sge ? a->cap.max_send_sge : 1;
	ra.cap.max_recv_sge = a->cap.max_recv_sge ? a->cap.max_recv_sge : 1;
	if (inline_cap(a, &ra.cap) != 0)
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	st = roce_create_qp_status(RV_OF(rv_pd, pd)->pd, &ra, &q->qp);
	if (st) {
		free(q);
		errno = st == ROCE_E_FULL ? ENOMEM : rv_errno(st);
		return NULL;
	}
	a->cap.max_inline_data = ra.cap.max_inline_data;
	q->ibv.context = pd->context;
	q->ibv.qp_context = a->qp_context;
	q->ibv.pd = pd;
	q->ibv.send_cq = a->send_cq;
	q->ibv.recv_cq = a->recv_cq;
	q->ibv.srq = a->srq;
	q->ibv.qp_num = roce_qp_num(q->qp);
	q->ibv.handle = q->ibv.qp_num;
	q->ibv.state = IBV_QPS_RESET;
	q->ibv.qp_type = a->qp_type;
	pthread_mutex_init(&q->ibv.mutex, NULL);
	pthread_cond_init(&q->ibv.cond, NULL);
	q->cap = a->cap;
	q->sq_sig_all = a->sq_sig_all;
	if (q->ibv.qp_num < ROCE_MAX_QP)
		c->qp_by_num[q->ibv.qp_num] = q;
	return q;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct rv_context *c = pd ? rv_ctx(pd->context) : NULL;
	struct rv_qp *q;

	if (!c || !attr) {
		errno = EINVAL;
		return NULL;
	}
	q = qp_new(c, pd, attr);
	return q ? &q->ibv : NULL;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct rv_qp *q = RV_OF(rv_qp, qp);
	struct rv_context *c;
	int st;

	if (!qp)
		return EINVAL;
	c = rv_ctx(qp->context);
	st = roce_destroy_qp(q->qp);
	if (st)
		return rv_errno(st);
	if (qp->qp_num < ROCE_MAX_QP)
		c->qp_by_num[qp->qp_num] = NULL;
	pthread_mutex_destroy(&qp->mutex);
	pthread_cond_destroy(&qp->cond);
	rv_qp_ex_free(q);
	free(q);
	return 0;
}

/* What the engine's modify takes: the same mask bits as ibverbs' for the
 * attributes it has. */
#define RV_QP_MASK (IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_QKEY | \
		    IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		    IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | \
		    IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | \
		    IBV_QP_DEST_QPN)
/* accepted and without effect: the one port, the current state */
#define RV_QP_IGNORED (IBV_QP_PORT | IBV_QP_CUR_STATE)

static int modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct rv_qp *q = RV_OF(rv_qp, qp);
	struct roce_qp_attr ra = { 0 };
	unsigned m = (unsigned)mask;
	int st, err;

	if (!qp || !attr)
		return EINVAL;
	if (m & ~(unsigned)(RV_QP_MASK | RV_QP_IGNORED)) {
		fprintf(stderr, "libibverbs (roce-run): ibv_modify_qp: attribute mask 0x%x "
			"not supported (alternate path, path migration, SQD, capabilities, "
			"rate limit)\n", m & ~(unsigned)(RV_QP_MASK | RV_QP_IGNORED));
		return EOPNOTSUPP;
	}
	if ((m & IBV_QP_PORT) && attr->port_num != 1)
		return EINVAL;
	if ((m & IBV_QP_PKEY_INDEX) && attr->pkey_index != 0)
		return EINVAL;
	ra.qp_state = (enum roce_qp_state)attr->qp_state;
	ra.path_mtu = (enum roce_mtu)attr->path_mtu;
	ra.qp_access_flags = attr->qp_access_flags;
	ra.dest_qp_num = attr->dest_qp_num;
	ra.rq_psn = attr->rq_psn;
	ra.sq_psn = attr->sq_psn;
	ra.timeout = attr->timeout;
	ra.retry_cnt = attr->retry_cnt;
	ra.rnr_retry = attr->rnr_retry;
	ra.min_rnr_timer = attr->min_rnr_timer;
	ra.max_rd_atomic = attr->max_rd_atomic;
	ra.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	ra.pkey = 0xffff;
	ra.qkey = attr->qkey;
	if ((m & IBV_QP_AV) && (err = rv_resolve(rv_ctx(qp->context), &attr->ah_attr,
						 &ra.ah_attr)) != 0)
		return err;
	st = roce_modify_qp(q->qp, &ra, m & RV_QP_MASK);
	if (st)
		return rv_errno(st);
	if (m & IBV_QP_STATE)
		qp->state = attr->qp_state;
	if (m & IBV_QP_AV)
		q->av = attr->ah_attr;
	return 0;
}

/* The error is also in errno, as the kernel's write leaves it: UCX
 * prints its %m */
int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int err = modify_qp(qp, attr, mask);

	if (err)
		errno = err;
	return err;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct rv_qp *q = RV_OF(rv_qp, qp);
	struct roce_qp_attr ra;
	int st;

	(void)mask;     /* everything is filled in, as providers do */
	if (!qp || !attr || !init)
		return EINVAL;
	st = roce_query_qp(q->qp, &ra);
	if (st)
		return rv_errno(st);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)ra.qp_state;
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = (enum ibv_mtu)ra.path_mtu;
	attr->qp_access_flags = ra.qp_access_flags;
	attr->dest_qp_num = ra.dest_qp_num;
	attr->rq_psn = ra.rq_psn;
	attr->sq_psn = ra.sq_psn;
	attr->timeout = ra.timeout;
	attr->retry_cnt = ra.retry_cnt;
	attr->rnr_retry = ra.rnr_retry;
	attr->min_rnr_timer = ra.min_rnr_timer;
	attr->max_rd_atomic = ra.max_rd_atomic;
	attr->max_dest_rd_atomic = ra.max_dest_rd_atomic;
	attr->qkey = ra.qkey;
	attr->port_num = 1;
	attr->cap = q->cap;
	attr->ah_attr = q->av;
	attr->ah_attr.port_num = 1;
	memset(init, 0, sizeof(*init));
	init->qp_context = qp->qp_context;
	init->send_cq = qp->send_cq;
	init->recv_cq = qp->recv_cq;
	init->srq = qp->srq;
	init->cap = q->cap;
	init->qp_type = qp->qp_type;
	init->sq_sig_all = q->sq_sig_all;
	return 0;
}

/* ---- posting -------------------------------------------------------------- */

static int send_wr_in(const struct ibv_send_wr *w, struct roce_send_wr *r)
{
	memset(r, 0, sizeof(*r));
	if ((unsigned)w->opcode > IBV_WR_ATOMIC_FETCH_AND_ADD)
		return EINVAL;  /* LOCAL_INV, BIND_MW, SEND_WITH_INV, TSO, ... */
	/* the flags have the engine's values; inline bytes are copied by
	   the engine's post, from the SGEs' addresses (no checksum offload:
	   IBV_SEND_IP_CSUM is for raw packet QPs) */
	if (w->send_flags & ~(unsigned)(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
					IBV_SEND_SOLICITED | IBV_SEND_INLINE))
		return EINVAL;
	r->wr_id = w->wr_id;
	r->sg_list = (struct roce_sge *)(void *)w->sg_list;
	r->num_sge = w->num_sge;
	r->opcode = (enum roce_wr_opcode)w->opcode;
	r->send_flags = w->send_flags;
	r->imm_data = w->imm_data;
	switch (w->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		r->wr.atomic.remote_addr = w->wr.atomic.remote_addr;
		r->wr.atomic.compare_add = w->wr.atomic.compare_add;
		r->wr.atomic.swap = w->wr.atomic.swap;
		r->wr.atomic.rkey = w->wr.atomic.rkey;
		break;
	default:
		r->wr.rdma.remote_addr = w->wr.rdma.remote_addr;
		r->wr.rdma.rkey = w->wr.rdma.rkey;
		break;
	}
	return 0;
}

static int post_send(struct roce_qp *rq, bool ud, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad)
{
	while (wr) {
		struct roce_send_wr r[RV_BATCH], *rbad = NULL;
		struct ibv_send_wr *w[RV_BATCH];
		int n = 0, st;

		for (; wr && n < RV_BATCH; wr = wr->next, n++) {
			w[n] = wr;
			if (send_wr_in(wr, &r[n]) != 0 || (ud && !wr->wr.ud.ah)) {
				*bad = wr;
				/* post what came before it, then fail */
				n = -n - 1;
				break;
			}
			if (ud) {
				r[n].wr.ud.ah = RV_OF(rv_ah, wr->wr.ud.ah)->ah;
				r[n].wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
				r[n].wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
			}
			if (n)
				r[n - 1].next = &r[n];
		}
		if (n < 0) {
			int k = -n - 1;

			if (k && (st = roce_post_send(rq, r, &rbad)) != ROCE_OK) {
				*bad = w[rbad ? rbad - r : 0];
				return rv_errno(st);
			}
			return EINVAL;
		}
		st = roce_post_send(rq, r, &rbad);
		if (st) {
			*bad = w[rbad ? rbad - r : 0];
			return st == ROCE_E_FULL ? ENOMEM : rv_errno(st);
		}
	}
	return 0;
}

int rv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct roce_qp *rq = RV_OF(rv_qp, qp)->qp;
	struct rv_context *c = rv_ctx(qp->context);
	bool ud = qp->qp_type == IBV_QPT_UD;

	if (c->orphaned) {
		*bad = wr;
		return rv_orphaned(c, "ibv_post_send");
	}
	/* the doorbell rings, the turn comes with the next poll (the
	   program's, or the engine thread's if it runs): a burst of posts
	   then leaves in one turn, one system call, as a NIC's doorbells
	   coalesce; a turn per post took ib_write_bw's 64 B rate from 0.43
	   to 0.15 M/s */
	return post_send(rq, ud, wr, bad);
}

/* Receive WRs for the engine, a batch. */
static void recv_batch(struct ibv_recv_wr **wr, struct roce_recv_wr *r, struct ibv_recv_wr **w,
		      int *n)
{
	for (*n = 0; *wr && *n < RV_BATCH; *wr = (*wr)->next, (*n)++) {
		w[*n] = *wr;
		memset(&r[*n], 0, sizeof(r[*n]));
		r[*n].wr_id = (*wr)->wr_id;
		r[*n].sg_list = (struct roce_sge *)(void *)(*wr)->sg_list;
		r[*n].num_sge = (*wr)->num_sge;
		if (*n)
			r[*n - 1].next = &r[*n];
	}
}

/* Receive WRs posted a batch at a time to q (a QP's receive queue or an
   SRQ) by post: *bad, and ENOMEM for a full queue, as ibv_post_recv. */
static int post_recv_batches(void *q, int (*post)(void *, struct roce_recv_wr *,
						   struct roce_recv_wr **),
			     struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	while (wr) {
		struct roce_recv_wr r[RV_BATCH], *rbad = NULL;
		struct ibv_recv_wr *w[RV_BATCH];
		int n, st;

		recv_batch(&wr, r, w, &n);
		st = post(q, r, &rbad);
		if (st) {
			*bad = w[rbad ? rbad - r : 0];
			return st == ROCE_E_FULL ? ENOMEM : rv_errno(st);
		}
	}
	return 0;
}

static int post_qp(void *q, struct roce_recv_wr *r, struct roce_recv_wr **bad)
{
	return roce_post_recv(q, r, bad);
}

static int post_srq(void *q, struct roce_recv_wr *r, struct roce_recv_wr **bad)
{
	return roce_post_srq_recv(q, r, bad);
}

int rv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return post_recv_batches(RV_OF(rv_qp, qp)->qp, post_qp, wr, bad);
}

int rv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return post_recv_batches(RV_OF(rv_srq, srq)->srq, post_srq, wr, bad);
}
