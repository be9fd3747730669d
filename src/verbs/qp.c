/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: create, modify (through the register file), destroy, and
 * the lock-free post_send / post_recv side of the SQ and RQ rings.
 */
#include <stdlib.h>
#include <string.h>

#include "common/pow2.h"
#include "verbs/verbs_priv.h"
#include "roce/status.h"

/*
 * QPNs: a FIFO of the free numbers below the device's QP_COUNT, so create
 * and destroy cost O(1) whatever the table's size. A destroyed QP's number
 * joins the back of the queue and comes out again only after every other
 * free number: late packets for the old QP then meet a QP in RESET rather
 * than a new connection (the kernel's rxe also hands its indices out
 * cyclically, rxe_pool.c). The caller holds the engine's lock.
 */
_Static_assert((ROCE_MAX_QP & (ROCE_MAX_QP - 1)) == 0,
	       "the free-QPN ring indexes with a mask");

void qpn_pool_init(struct roce_context *ctx, uint32_t qp_count)
{
	ctx->qpn_head = ctx->qpn_tail = 0;
	for (uint32_t q = ROCE_FIRST_QPN; q < qp_count; q++)
		ctx->qpn_free[ctx->qpn_tail++ & (ROCE_MAX_QP - 1)] = q;
}

static int qpn_get(struct roce_context *ctx, uint32_t *qpn)
{
	if (ctx->qpn_head == ctx->qpn_tail)
		return ROCE_E_FULL;
	*qpn = ctx->qpn_free[ctx->qpn_head++ & (ROCE_MAX_QP - 1)];
	return ROCE_OK;
}

static void qpn_put(struct roce_context *ctx, uint32_t qpn)
{
	ctx->qpn_free[ctx->qpn_tail++ & (ROCE_MAX_QP - 1)] = qpn;
}

/* A QPN for a new QP: 1 for QP1 (one per port, never from the pool),
 * else the pool's next. */
static int qpn_take(struct roce_context *ctx, bool gsi, uint32_t *qpn)
{
	if (!gsi)
		return qpn_get(ctx, qpn);
	if (ctx->gsi_used)
		return ROCE_E_EXISTS;
	ctx->gsi_used = true;
	*qpn = ROCE_GSI_QPN;
	return ROCE_OK;
}

static void qpn_give(struct roce_context *ctx, uint32_t qpn)
{
	if (qpn == ROCE_GSI_QPN)
		ctx->gsi_used = false;
	else
		qpn_put(ctx, qpn);
}

static void free_qp_mem(struct roce_qp *qp)
{
	free(qp->eng.swqe);
	free(qp->eng.inl);
	free(qp->eng.sgl_s);
	free(qp->eng.sgl_r);
	free(qp->eng.rwqe);
	free(qp);
}

int roce_create_qp_status(struct roce_pd *pd, const struct roce_qp_init_attr *attr,
			  struct roce_qp **out)
{
	struct roce_context *ctx;
	struct roce_qp_ctx qc = { 0 };
	struct roce_qp *qp;
	uint32_t ns, nr;
	int rc;

	if (!out)
		return ROCE_E_INVAL;
	*out = NULL;
	if (!pd || !attr || !attr->send_cq || !attr->recv_cq ||
	    (attr->qp_type != ROCE_QPT_RC && attr->qp_type != ROCE_QPT_UC &&
	     attr->qp_type != ROCE_QPT_UD && attr->qp_type != ROCE_QPT_GSI) ||
	    attr->cap.max_send_wr > ROCE_MAX_WR || attr->cap.max_send_sge > ROCE_MAX_SGE ||
	    attr->cap.max_inline_data > ROCE_MAX_INLINE ||
	    (!attr->srq && (attr->cap.max_recv_wr > ROCE_MAX_WR ||
			    attr->cap.max_recv_sge > ROCE_MAX_SGE)) ||
	    (attr->srq && attr->srq->ctx != pd->ctx))
		return ROCE_E_INVAL;
	ctx = pd->ctx;
	ns = pow2_at_least(attr->cap.max_send_wr ? attr->cap.max_send_wr : 1);
	/* a QP on an SRQ has no receive queue of its own: one idle slot */
	nr = attr->srq ? 1 : pow2_at_least(attr->cap.max_recv_wr ? attr->cap.max_recv_wr : 1);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return ROCE_E_NOMEM;
	qp->eng.swqe = calloc(ns, sizeof(*qp->eng.swqe));
	qp->eng.rwqe = calloc(nr, sizeof(*qp->eng.rwqe));
	/* inline messages longer than the WQE's own room: an area of
	 * max_inline_data bytes per send WQE, for this QP only */
	if (attr->cap.max_inline_data > sizeof(qp->eng.swqe->inl)) {
		qp->eng.inl_len = attr->cap.max_inline_data;
		qp->eng.inl = malloc((size_t)ns * qp->eng.inl_len);
	}
	/* more SGEs than a WQE holds: a list area, for this QP only */
	if (attr->cap.max_send_sge > ROCE_WQE_SGE) {
		qp->eng.sgl_s_len = (uint8_t)attr->cap.max_send_sge;
		qp->eng.sgl_s = malloc(sizeof(struct roce_sge) * ns * qp->eng.sgl_s_len);
	}
	if (!attr->srq && attr->cap.max_recv_sge > ROCE_WQE_SGE) {
		qp->eng.sgl_r_len = (uint8_t)attr->cap.max_recv_sge;
		qp->eng.sgl_r = malloc(sizeof(struct roce_sge) * nr * qp->eng.sgl_r_len);
	}
	if (!qp->eng.swqe || !qp->eng.rwqe || (qp->eng.inl_len && !qp->eng.inl) ||
	    (qp->eng.sgl_s_len && !qp->eng.sgl_s) || (qp->eng.sgl_r_len && !qp->eng.sgl_r)) {
		free_qp_mem(qp);
		return ROCE_E_NOMEM;
	}
	qp->ctx = ctx;
	qp->pd = pd;
	qp->eng.send_cq = &attr->send_cq->eng;
	qp->eng.recv_cq = &attr->recv_cq->eng;
	qp->eng.sq_sig_all = attr->sq_sig_all;
	qp->srq = attr->srq;
	qp->eng.srq = attr->srq ? &attr->srq->eng : NULL;
	qp->max_send_sge = attr->cap.max_send_sge ? attr->cap.max_send_sge : 1;
	qp->max_recv_sge = attr->cap.max_recv_sge ? attr->cap.max_recv_sge : 1;
	qp->max_inline = attr->cap.max_inline_data;
	qp->eng.sq.mask = ns - 1;
	qp->eng.rq.mask = nr - 1;
	/* QP1 is a UD QP to the register file and the engine */
	qp->type = attr->qp_type == ROCE_QPT_GSI ? ROCE_QPT_UD : attr->qp_type;

	engine_lock(&ctx->eng);
	rc = qpn_take(ctx, attr->qp_type == ROCE_QPT_GSI, &qp->eng.qpn);
	if (rc != ROCE_OK)
		goto fail;
	/* the QP context starts in RESET with its type and PD; a UD QP's
	 * MTU is the port's (its messages' limit), and QP1's Q_Key the
	 * GSI one */
	qc.qpn = qp->eng.qpn;
	qc.state = ROCE_QPS_RESET;
	qc.type = (uint8_t)qp->type;
	qc.pkey = ROCE_DEFAULT_PKEY;
	qc.pd = pd->pdn;
	if (qp->type == ROCE_QPT_UD)
		qc.mtu = (uint8_t)ctx->port_mtu;
	if (qp->eng.qpn == ROCE_GSI_QPN)
		qc.qkey = ROCE_GSI_QKEY;
	rc = roce_drv_qp_write(&ctx->drv, &qc);
	if (rc != ROCE_OK) {
		qpn_give(ctx, qp->eng.qpn);
		goto fail;
	}
	qp->eng.cfg.state = ROCE_QPS_RESET;
	atomic_init(&qp->eng.host_state, ROCE_QPS_RESET);
	if (qp->srq)
		qp->srq->nqp++;
	engine_add_qp(&ctx->eng, &qp->eng);
	engine_unlock(&ctx->eng);
	*out = qp;
	return ROCE_OK;
fail:
	engine_unlock(&ctx->eng);
	free_qp_mem(qp);
	return rc;
}

struct roce_qp *roce_create_qp(struct roce_pd *pd, const struct roce_qp_init_attr *attr)
{
	struct roce_qp *qp;

	return roce_create_qp_status(pd, attr, &qp) == ROCE_OK ? qp : NULL;
}

int roce_destroy_qp(struct roce_qp *qp)
{
	struct roce_context *ctx = qp->ctx;
	struct roce_qp_ctx qc;

	engine_lock(&ctx->eng);
	if (async_busy(ctx, &qp->async)) {
		engine_unlock(&ctx->eng);
		return ROCE_E_BUSY;
	}
	if (roce_drv_qp_read(&ctx->drv, qp->eng.qpn, &qc) == ROCE_OK) {
		qc.state = ROCE_QPS_RESET;
		roce_drv_qp_write(&ctx->drv, &qc);
	}
	engine_del_qp(&ctx->eng, &qp->eng);
	qpn_give(ctx, qp->eng.qpn);
	async_purge(ctx, &qp->eng);
	if (qp->srq)
		qp->srq->nqp--;
	engine_unlock(&ctx->eng);
	free_qp_mem(qp);
	return ROCE_OK;
}

uint32_t roce_qp_num(const struct roce_qp *qp)
{
	return qp->eng.qpn;
}

/*
 * The attributes a UC QP has no use for: no ACK timer, no retries, no
 * READs or atomics (IBA 11.2.5.3; ibv_modify_qp(3) lists none of them for
 * UC). The kernel refuses a mask that names one (ib_modify_qp_is_ok's
 * table), so ibv_uc_pingpong and perftest -c UC leave them out.
 */
#define UC_REFUSED_ATTRS (ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |  \
			  ROCE_QP_MAX_QP_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER |          \
			  ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_QKEY)
/* A UD QP has no path and no peer either: its destinations are the WRs'
 * (IBA 11.2.5.3 gives UD the P_Key and Q_Key at INIT, the SQ PSN at RTS;
 * ib_modify_qp_is_ok refuses the rest). The Q_Key is UD's only. */
#define UD_REFUSED_ATTRS ((UC_REFUSED_ATTRS & ~ROCE_QP_QKEY) | ROCE_QP_AV |       \
			  ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |     \
			  ROCE_QP_ACCESS_FLAGS)

static bool mask_allowed(const struct roce_qp *qp, const struct roce_qp_attr *a,
			 unsigned mask)
{
	switch (qp->type) {
	case ROCE_QPT_UC:
		return !(mask & UC_REFUSED_ATTRS);
	case ROCE_QPT_UD:
		/* QP1's Q_Key is the GSI one, whatever is asked */
		return !(mask & UD_REFUSED_ATTRS) &&
		       !(qp->eng.qpn == ROCE_GSI_QPN && (mask & ROCE_QP_QKEY) &&
			 a->qkey != ROCE_GSI_QKEY);
	default:
		return !(mask & ROCE_QP_QKEY);
	}
}

/*
 * An address vector into the context: the peer (IPv4 address, or GID), its
 * MAC, the GRH fields. On RoCE v2 the family is the SGID's (ib_core's
 * rdma_gid_attr_network_type): an IPv4-mapped SGID sends IPv4 to an
 * IPv4-mapped DGID, any other SGID sends IPv6 from itself to an IPv6 DGID
 * (rxe refuses the mix too). The hop limit is left to the device's
 * default, the route's 64, as ib_resolve_unicast_gid_dmac overwrites
 * the AV's for RoCE.
 */
int av_check(struct roce_context *ctx, const struct roce_ah_attr *ah)
{
	const struct roce_global_route *g = &ah->grh;

	if (!ah->is_global)
		return ROCE_OK;
	if (g->sgid_index >= ctx->gids.n || !roce_gid_is_unicast(g->dgid) ||
	    roce_gid_is_v4mapped(ctx->gids.e[g->sgid_index].gid) !=
		    roce_gid_is_v4mapped(g->dgid) ||
	    g->flow_label > ROCE_IPV6_FLOW_MASK)
		return ROCE_E_INVAL;
	return ROCE_OK;
}

static int av_to_ctx(struct roce_context *ctx, const struct roce_ah_attr *ah,
		     struct roce_qp_ctx *qc)
{
	const struct roce_global_route *g = &ah->grh;

	memcpy(qc->peer_mac, ah->dest_mac, 6);
	memset(qc->dgid_hi, 0, sizeof(qc->dgid_hi));
	qc->sgid_index = 0;
	qc->hop_limit = 0;
	qc->tclass = 0;
	qc->flow_label = 0;
	if (!ah->is_global) {
		qc->peer_ip = ah->dest_ip;
		return ROCE_OK;
	}
	if (av_check(ctx, ah) != ROCE_OK)
		return ROCE_E_INVAL;
	roce_qp_set_dgid(qc, g->dgid);
	qc->sgid_index = g->sgid_index;
	qc->tclass = g->traffic_class;
	qc->flow_label = g->flow_label;
	return ROCE_OK;
}

int roce_modify_qp(struct roce_qp *qp, const struct roce_qp_attr *a, unsigned mask)
{
	struct roce_context *ctx = qp->ctx;
	struct roce_qp_ctx qc;
	int rc;

	if (!a || !mask_allowed(qp, a, mask))
		return ROCE_E_INVAL;
	engine_lock(&ctx->eng);
	rc = roce_drv_qp_read(&ctx->drv, qp->eng.qpn, &qc);
	if (rc)
		goto out;
	if (mask & ROCE_QP_STATE)
		qc.state = a->qp_state;
	if (mask & ROCE_QP_ACCESS_FLAGS)
		qc.access = (uint8_t)a->qp_access_flags;
	if (mask & ROCE_QP_PKEY_INDEX)
		qc.pkey = a->pkey ? a->pkey : ROCE_DEFAULT_PKEY;
	if (mask & ROCE_QP_QKEY)
		qc.qkey = a->qkey;
	if ((mask & ROCE_QP_AV) && (rc = av_to_ctx(ctx, &a->ah_attr, &qc)) != ROCE_OK)
		goto out;
	if (mask & ROCE_QP_PATH_MTU)
		qc.mtu = (uint8_t)a->path_mtu;
	if (mask & ROCE_QP_TIMEOUT)
		qc.timeout = a->timeout;
	if (mask & ROCE_QP_RETRY_CNT)
		qc.retry_cnt = a->retry_cnt;
	if (mask & ROCE_QP_RNR_RETRY)
		qc.rnr_retry = a->rnr_retry;
	if (mask & ROCE_QP_RQ_PSN)
		qc.rq_psn = a->rq_psn & 0xFFFFFF;
	if (mask & ROCE_QP_MAX_QP_RD_ATOMIC)
		qc.max_rd_atomic = a->max_rd_atomic;
	if (mask & ROCE_QP_MIN_RNR_TIMER)
		qc.min_rnr_timer = a->min_rnr_timer;
	if (mask & ROCE_QP_SQ_PSN)
		qc.sq_psn = a->sq_psn & 0xFFFFFF;
	if (mask & ROCE_QP_MAX_DEST_RD_ATOMIC)
		qc.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & ROCE_QP_DEST_QPN)
		qc.dest_qpn = a->dest_qp_num & 0xFFFFFF;
	rc = roce_drv_qp_write(&ctx->drv, &qc);
	if (rc == ROCE_OK)      /* the table's state now, as posting will check it */
		atomic_store_explicit(&qp->eng.host_state, qc.state, memory_order_relaxed);
out:
	engine_unlock(&ctx->eng);
	if (rc == ROCE_OK)
		engine_wake(&ctx->eng);         /* the commit queued the change */
	return rc;
}

int roce_query_qp(struct roce_qp *qp, struct roce_qp_attr *a)
{
	struct roce_context *ctx = qp->ctx;
	struct roce_qp_ctx qc;
	int rc;

	engine_lock(&ctx->eng);
	rc = roce_drv_qp_read(&ctx->drv, qp->eng.qpn, &qc);
	engine_unlock(&ctx->eng);
	if (rc)
		return rc;
	memset(a, 0, sizeof(*a));
	a->qp_state = qc.state;
	a->path_mtu = (enum roce_mtu)qc.mtu;
	a->qp_access_flags = qc.access;
	a->dest_qp_num = qc.dest_qpn;
	a->rq_psn = qc.rq_psn;
	a->sq_psn = qc.sq_psn;
	a->timeout = qc.timeout;
	a->retry_cnt = qc.retry_cnt;
	a->rnr_retry = qc.rnr_retry;
	a->min_rnr_timer = qc.min_rnr_timer;
	a->max_rd_atomic = qc.max_rd_atomic;
	a->max_dest_rd_atomic = qc.max_dest_rd_atomic;
	a->pkey = qc.pkey;
	a->qkey = qc.qkey;
	a->ah_attr.dest_ip = roce_qp_dgid_ipv6(&qc) ? 0 : qc.peer_ip;
	memcpy(a->ah_attr.dest_mac, qc.peer_mac, 6);
	/* the GRH as the context holds it (ibv_query_qp's is_global) */
	a->ah_attr.is_global = true;
	roce_qp_dgid(&qc, a->ah_attr.grh.dgid);
	a->ah_attr.grh.sgid_index = qc.sgid_index;
	a->ah_attr.grh.hop_limit = qc.hop_limit ? qc.hop_limit : ROCE_HOP_LIMIT;
	a->ah_attr.grh.traffic_class = qc.tclass;
	a->ah_attr.grh.flow_label = qc.flow_label;
	return ROCE_OK;
}

/* ---- posting ---------------------------------------------------------------- */

static uint8_t qp_state_now(struct roce_qp *qp)
{
	return atomic_load_explicit(&qp->eng.host_state, memory_order_relaxed);
}

static int check_send_wr(const struct roce_qp *qp, const struct roce_send_wr *wr,
			 uint64_t *len)
{
	uint64_t total = 0;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge ||
	    (wr->num_sge && !wr->sg_list))
		return ROCE_E_INVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > ROCE_MAX_MSG)
		return ROCE_E_RANGE;
	/* inline: a SEND's or WRITE's bytes (a READ's or an atomic's SGE is
	 * where its result goes), at most the QP's max_inline_data (rxe:
	 * EINVAL beyond its max_inline) */
	if ((wr->send_flags & ROCE_SEND_INLINE) &&
	    (total > qp->max_inline || wr->opcode == ROCE_WR_RDMA_READ ||
	     wr->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ||
	     wr->opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD))
		return ROCE_E_INVAL;
	if (qp->type == ROCE_QPT_UD) {
		/* UD: SENDs only (IBA 9.2.1), each to an AH of the QP's PD
		 * (an AH is a PD's object, as an MR is) */
		if ((wr->opcode != ROCE_WR_SEND && wr->opcode != ROCE_WR_SEND_WITH_IMM) ||
		    !wr->wr.ud.ah || wr->wr.ud.ah->pd != qp->pd)
			return ROCE_E_INVAL;
		*len = total;
		return ROCE_OK;
	}
	switch (wr->opcode) {
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
	case ROCE_WR_SEND:
	case ROCE_WR_SEND_WITH_IMM:
		break;
	case ROCE_WR_RDMA_READ:
		/* UC has no READ or atomic operations (IBA 9.2.1 gives UC
		 * only SEND and WRITE opcodes); rxe refuses them at post time
		 * (rxe_post_send_kernel: no opcode mask for the QP type) */
		if (qp->type == ROCE_QPT_UC)
			return ROCE_E_INVAL;
		break;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		if (qp->type == ROCE_QPT_UC)
			return ROCE_E_INVAL;
		/* the result lands in one 8-byte local buffer (IBA 10.8.3.2) */
		if (wr->num_sge != 1 || total != 8 || (wr->wr.atomic.remote_addr & 7))
			return ROCE_E_INVAL;
		break;
	default:
		return ROCE_E_INVAL;
	}
	*len = total;
	return ROCE_OK;
}

/* An inline WR's bytes into its WQE (or the WQE's slot of the inline
 * area): the caller's buffers are read here, once, and never again. */
static void inline_copy(struct roce_qp *qp, struct swqe *w, const struct roce_send_wr *wr)
{
	uint8_t *to = swqe_inline(&qp->eng, w);

	for (int i = 0; i < wr->num_sge; i++) {
		/* an empty SGE may have no address (UCX's) */
		if (!wr->sg_list[i].length)
			continue;
		memcpy(to, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
		to += wr->sg_list[i].length;
	}
	w->num_sge = 0;
}

uint32_t roce_qp_sq_room(const struct roce_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->eng.sq.prod, memory_order_relaxed);
	uint32_t cons = atomic_load_explicit(&qp->eng.sq.cons, memory_order_acquire);

	return qp->eng.sq.mask + 1 - (prod - cons);
}

int roce_post_send(struct roce_qp *qp, struct roce_send_wr *wr,
		   struct roce_send_wr **bad_wr)
{
	uint32_t prod = atomic_load_explicit(&qp->eng.sq.prod, memory_order_relaxed);
	uint8_t state = qp_state_now(qp);
	int rc = ROCE_OK;

	/* IBA 10.8.2: a send queue takes work from RTS on (and in ERR, where
	 * it is flushed) */
	if (state == ROCE_QPS_RESET || state == ROCE_QPS_INIT || state == ROCE_QPS_RTR)
		rc = ROCE_E_STATE;
	for (; wr && rc == ROCE_OK; wr = wr->next) {
		uint32_t cons = atomic_load_explicit(&qp->eng.sq.cons, memory_order_acquire);
		struct swqe *w;
		uint64_t len;

		if (prod - cons > qp->eng.sq.mask) {
			rc = ROCE_E_FULL;
			break;
		}
		rc = check_send_wr(qp, wr, &len);
		if (rc)
			break;
		w = sq_at(&qp->eng, prod);
		/* field by field: a memset of the whole entry costs more than
		 * the fields (every field is written below) */
		w->wr_id = wr->wr_id;
		w->opcode = (uint8_t)wr->opcode;
		w->flags = (uint8_t)wr->send_flags;
		w->num_sge = (uint8_t)wr->num_sge;
		w->length = (uint32_t)len;
		if (wr->send_flags & ROCE_SEND_INLINE)
			inline_copy(qp, w, wr);
		else if (wr->num_sge)   /* none: a zero-length op (rsockets' credits) */
			memcpy((void *)swqe_sgl(&qp->eng, w), wr->sg_list,
			       sizeof(struct roce_sge) * (size_t)wr->num_sge);
		w->imm = wr->imm_data;
		if (qp->type == ROCE_QPT_UD) {
			/* the AH's address vector goes with the WQE */
			w->ud.av = wr->wr.ud.ah->av;
			w->ud.remote_qpn = wr->wr.ud.remote_qpn;
			w->ud.remote_qkey = wr->wr.ud.remote_qkey;
		} else if (wr->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ||
		    wr->opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
			w->remote_addr = wr->wr.atomic.remote_addr;
			w->rkey = wr->wr.atomic.rkey;
			w->compare_add = wr->wr.atomic.compare_add;
			w->swap = wr->wr.atomic.swap;
		} else {
			w->remote_addr = wr->wr.rdma.remote_addr;
			w->rkey = wr->wr.rdma.rkey;
			w->compare_add = w->swap = 0;
		}
		w->first_psn = w->npsn = 0;
		w->status = 0;
		w->state = SWQE_POSTED;
		prod++;
		/* the doorbell: the engine sees the WQE only once it is whole */
		atomic_store_explicit(&qp->eng.sq.prod, prod, memory_order_release);
	}
	engine_doorbell(&qp->ctx->eng, &qp->eng);
	if (rc && bad_wr)
		*bad_wr = wr;
	return rc;
}

/* A receive WQE from wr (the slot is the producer's until published);
 * more than ROCE_WQE_SGE SGEs go to ext, the slot's list (the QP's own
 * receive queue only: max_sge of an SRQ is ROCE_WQE_SGE at most). */
int rwqe_fill(struct rwqe *r, struct roce_sge *ext, const struct roce_recv_wr *wr,
	      uint32_t max_sge)
{
	uint64_t total = 0;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge || (wr->num_sge && !wr->sg_list))
		return ROCE_E_INVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > ROCE_MAX_MSG)
		return ROCE_E_RANGE;
	r->wr_id = wr->wr_id;
	r->num_sge = (uint8_t)wr->num_sge;
	r->length = (uint32_t)total;
	/* none is a receive for a WRITE with immediate alone (rsockets') */
	if (wr->num_sge)
		memcpy(wr->num_sge <= (int)ROCE_WQE_SGE ? r->sge : ext, wr->sg_list,
		       sizeof(struct roce_sge) * (size_t)wr->num_sge);
	return ROCE_OK;
}

int roce_post_recv(struct roce_qp *qp, struct roce_recv_wr *wr,
		   struct roce_recv_wr **bad_wr)
{
	uint32_t prod = atomic_load_explicit(&qp->eng.rq.prod, memory_order_relaxed);
	int rc = ROCE_OK;

	if (qp->srq)
		rc = ROCE_E_INVAL;      /* its receives come from the SRQ */
	else if (qp_state_now(qp) == ROCE_QPS_RESET)
		rc = ROCE_E_STATE;
	for (; wr && rc == ROCE_OK; wr = wr->next) {
		uint32_t cons = atomic_load_explicit(&qp->eng.rq.cons, memory_order_acquire);
		struct rwqe *r;

		if (prod - cons > qp->eng.rq.mask) {
			rc = ROCE_E_FULL;
			break;
		}
		r = &qp->eng.rwqe[prod & qp->eng.rq.mask];
		rc = rwqe_fill(r, qp->eng.sgl_r ? qp->eng.sgl_r + (size_t)(prod & qp->eng.rq.mask) *
							    qp->eng.sgl_r_len : NULL,
			       wr, qp->max_recv_sge);
		if (rc)
			break;
		prod++;
		atomic_store_explicit(&qp->eng.rq.prod, prod, memory_order_release);
	}
	engine_doorbell(&qp->ctx->eng, &qp->eng);
	if (rc && bad_wr)
		*bad_wr = wr;
	return rc;
}

/* ---- names -------------------------------------------------------------------- */

const char *roce_wc_status_str(enum roce_wc_status s)
{
	switch (s) {
	case ROCE_WC_SUCCESS: return "success";
	case ROCE_WC_LOC_LEN_ERR: return "local length error";
	case ROCE_WC_LOC_QP_OP_ERR: return "local QP operation error";
	case ROCE_WC_LOC_PROT_ERR: return "local protection error";
	case ROCE_WC_WR_FLUSH_ERR: return "Work Request Flushed Error";
	case ROCE_WC_MW_BIND_ERR: return "memory bind operation error";
	case ROCE_WC_BAD_RESP_ERR: return "bad response error";
	case ROCE_WC_LOC_ACCESS_ERR: return "local access error";
	case ROCE_WC_REM_INV_REQ_ERR: return "remote invalid request error";
	case ROCE_WC_REM_ACCESS_ERR: return "remote access error";
	case ROCE_WC_REM_OP_ERR: return "remote operation error";
	case ROCE_WC_RETRY_EXC_ERR: return "transport retry counter exceeded";
	case ROCE_WC_RNR_RETRY_EXC_ERR: return "RNR retry counter exceeded";
	case ROCE_WC_FATAL_ERR: return "fatal error";
	case ROCE_WC_GENERAL_ERR: return "general error";
	}
	return "unknown";
}

const char *roce_wc_opcode_str(enum roce_wc_opcode op)
{
	switch (op) {
	case ROCE_WC_SEND: return "SEND";
	case ROCE_WC_RDMA_WRITE: return "RDMA_WRITE";
	case ROCE_WC_RDMA_READ: return "RDMA_READ";
	case ROCE_WC_COMP_SWAP: return "COMP_SWAP";
	case ROCE_WC_FETCH_ADD: return "FETCH_ADD";
	case ROCE_WC_RECV: return "RECV";
	case ROCE_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	}
	return "unknown";
}
