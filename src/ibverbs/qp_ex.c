/* SPDX-License-Identifier: MIT */
/*
 * The extended QP: ibv_create_qp_ex and the ibv_wr_* send API. In
 * <infiniband/verbs.h> (rdma-core 44) ibv_wr_send and the others are
 * inline functions that call the function pointers of the QP's struct
 * ibv_qp_ex: ours are filled here. A builder (ibv_wr_send,
 * ibv_wr_rdma_write, ...) opens a WR, a setter (ibv_wr_set_sge,
 * _set_inline_data, _set_ud_addr) fills the last one opened; the WRs
 * wait here from ibv_wr_start and go to the engine's post in one list at
 * ibv_wr_complete, or are dropped by ibv_wr_abort (rxe's provider writes
 * them into its ring and moves the producer at complete). Inline bytes
 * are copied when they are set, so the caller's buffer is free again at
 * once. An error met while building (the queue full, more SGEs than the
 * QP has, inline data over its max_inline_data) is kept, the later
 * builders and setters do nothing, and ibv_wr_complete returns it and
 * posts none of the batch, as rxe's provider does (ENOSPC).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "roce/params.h"
#include "roce/status.h"

/* One WR of the batch: the engine's, its SGEs, its inline bytes' place. */
struct rv_pending {
	struct roce_send_wr wr;
	struct roce_sge sge[ROCE_MAX_SGE];
	uint32_t inl_off;               /* inline: at bytes + inl_off */
	bool inl;
};

struct rv_wr_batch {
	pthread_mutex_t lock;           /* ibv_wr_start .. complete or abort
					 * (rxe's provider: its SQ lock) */
	struct rv_pending *w;           /* grown by doubling, kept */
	uint32_t n, cap;
	uint8_t *bytes;                 /* the batch's inline bytes */
	uint32_t nbytes, bytes_cap;
	uint32_t max_sge, max_inline;   /* the QP's, as made */
	bool ud;
	int err;                        /* the first error of the batch */
};

/* ---- building ------------------------------------------------------------- */

static struct rv_wr_batch *batch_of(struct ibv_qp_ex *x)
{
	return RV_OF(rv_qp, x)->batch;
}

static int batch_grow(struct rv_wr_batch *b)
{
	uint32_t cap = b->cap ? 2 * b->cap : 16;
	struct rv_pending *w = realloc(b->w, (size_t)cap * sizeof(*w));

	if (!w)
		return ENOMEM;
	b->w = w;
	b->cap = cap;
	return 0;
}

/* A builder's new WR, or NULL when the batch has failed (the error kept). */
static struct rv_pending *wr_open(struct ibv_qp_ex *x, enum roce_wr_opcode op)
{
	struct rv_qp *q = RV_OF(rv_qp, x);
	struct rv_wr_batch *b = q->batch;
	struct rv_pending *p;

	if (b->err)
		return NULL;
	/* inline is the setter's choice here, not a flag's */
	if (x->wr_flags & ~(unsigned)(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
				      IBV_SEND_INLINE)) {
		b->err = EINVAL;
		return NULL;
	}
	if (b->n >= roce_qp_sq_room(q->qp)) {
		b->err = ENOSPC;
		return NULL;
	}
	if (b->n == b->cap && (b->err = batch_grow(b)) != 0)
		return NULL;
	p = &b->w[b->n++];
	memset(p, 0, sizeof(*p));
	p->wr.wr_id = x->wr_id;
	p->wr.opcode = op;
	p->wr.send_flags = x->wr_flags & ~(unsigned)IBV_SEND_INLINE;
	return p;
}

/* The WR a setter fills: the last one opened (none: EINVAL). */
static struct rv_pending *wr_last(struct ibv_qp_ex *x)
{
	struct rv_wr_batch *b = batch_of(x);

	if (b->err)
		return NULL;
	if (!b->n) {
		b->err = EINVAL;
		return NULL;
	}
	return &b->w[b->n - 1];
}

static void wr_send(struct ibv_qp_ex *x)
{
	wr_open(x, ROCE_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	struct rv_pending *p = wr_open(x, ROCE_WR_SEND_WITH_IMM);

	if (p)
		p->wr.imm_data = imm;
}

static void rdma_open(struct ibv_qp_ex *x, enum roce_wr_opcode op, uint32_t rkey, uint64_t addr,
		      __be32 imm)
{
	struct rv_pending *p = wr_open(x, op);

	if (!p)
		return;
	p->wr.wr.rdma.remote_addr = addr;
	p->wr.wr.rdma.rkey = rkey;
	p->wr.imm_data = imm;
}

static void wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	rdma_open(x, ROCE_WR_RDMA_WRITE, rkey, addr, 0);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, __be32 imm)
{
	rdma_open(x, ROCE_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	rdma_open(x, ROCE_WR_RDMA_READ, rkey, addr, 0);
}

static void atomic_open(struct ibv_qp_ex *x, enum roce_wr_opcode op, uint32_t rkey,
			uint64_t addr, uint64_t compare_add, uint64_t swap)
{
	struct rv_pending *p = wr_open(x, op);

	if (!p)
		return;
	p->wr.wr.atomic.remote_addr = addr;
	p->wr.wr.atomic.rkey = rkey;
	p->wr.wr.atomic.compare_add = compare_add;
	p->wr.wr.atomic.swap = swap;
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
			      uint64_t compare, uint64_t swap)
{
	atomic_open(x, ROCE_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
				uint64_t add)
{
	atomic_open(x, ROCE_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

static void wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct rv_pending *p = wr_last(x);

	if (!p)
		return;
	p->inl = false;
	p->sge[0] = (struct roce_sge){ .addr = addr, .length = length, .lkey = lkey };
	p->wr.num_sge = length ? 1 : 0;
}

static void wr_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *list)
{
	struct rv_pending *p = wr_last(x);
	struct rv_wr_batch *b = batch_of(x);

	if (!p)
		return;
	if (n > b->max_sge) {
		b->err = ENOSPC;
		return;
	}
	p->inl = false;
	memcpy(p->sge, list, n * sizeof(*list));   /* the same 16 bytes (qp.c) */
	p->wr.num_sge = (int)n;
}

/* Room for len more inline bytes in the batch, or the error kept. */
static uint8_t *inline_room(struct rv_wr_batch *b, size_t len)
{
	if (b->nbytes + len > b->bytes_cap) {
		uint32_t cap = b->bytes_cap ? b->bytes_cap : 4096;
		uint8_t *nb;

		while (cap < b->nbytes + len)
			cap *= 2;
		nb = realloc(b->bytes, cap);
		if (!nb) {
			b->err = ENOMEM;
			return NULL;
		}
		b->bytes = nb;
		b->bytes_cap = cap;
	}
	return b->bytes + b->nbytes;
}

static void wr_set_inline_data_list(struct ibv_qp_ex *x, size_t n,
				    const struct ibv_data_buf *bufs)
{
	struct rv_pending *p = wr_last(x);
	struct rv_wr_batch *b = batch_of(x);
	size_t total = 0;
	uint8_t *to;

	if (!p)
		return;
	for (size_t i = 0; i < n; i++)
		total += bufs[i].length;
	/* a READ's or an atomic's SGE is where its result goes */
	if (p->wr.opcode == ROCE_WR_RDMA_READ || p->wr.opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ||
	    p->wr.opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
		b->err = EINVAL;
		return;
	}
	if (total > b->max_inline) {
		b->err = ENOSPC;
		return;
	}
	to = inline_room(b, total);
	if (!to)
		return;
	p->inl = true;
	p->inl_off = b->nbytes;
	for (size_t i = 0; i < n; i++) {
		memcpy(to, bufs[i].addr, bufs[i].length);
		to += bufs[i].length;
	}
	b->nbytes += (uint32_t)total;
	p->sge[0] = (struct roce_sge){ .length = (uint32_t)total };
	p->wr.num_sge = total ? 1 : 0;
}

static void wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t length)
{
	const struct ibv_data_buf one = { .addr = addr, .length = length };

	wr_set_inline_data_list(x, 1, &one);
}

static void wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t remote_qpn,
			   uint32_t remote_qkey)
{
	struct rv_pending *p = wr_last(x);
	struct rv_wr_batch *b = batch_of(x);

	if (!p)
		return;
	if (!b->ud || !ah) {
		b->err = EINVAL;
		return;
	}
	p->wr.wr.ud.ah = RV_OF(rv_ah, ah)->ah;
	p->wr.wr.ud.remote_qpn = remote_qpn;
	p->wr.wr.ud.remote_qkey = remote_qkey;
}

/* ---- the batch ------------------------------------------------------------ */

static void wr_start(struct ibv_qp_ex *x)
{
	struct rv_wr_batch *b = batch_of(x);

	pthread_mutex_lock(&b->lock);
	b->n = 0;
	b->nbytes = 0;
	b->err = 0;
}

static void wr_abort(struct ibv_qp_ex *x)
{
	struct rv_wr_batch *b = batch_of(x);

	b->n = 0;
	pthread_mutex_unlock(&b->lock);
}

/* The batch as the engine's WR list: SGE lists and inline bytes in
 * place now that neither array grows any more. */
static void batch_link(struct rv_wr_batch *b)
{
	for (uint32_t i = 0; i < b->n; i++) {
		struct rv_pending *p = &b->w[i];

		p->wr.sg_list = p->sge;
		if (p->inl) {
			p->sge[0].addr = (uintptr_t)(b->bytes + p->inl_off);
			p->wr.send_flags |= ROCE_SEND_INLINE;
		}
		p->wr.next = i + 1 < b->n ? &b->w[i + 1].wr : NULL;
	}
}

static int wr_complete(struct ibv_qp_ex *x)
{
	struct rv_qp *q = RV_OF(rv_qp, x);
	struct rv_context *c = rv_ctx(x->qp_base.context);
	struct rv_wr_batch *b = q->batch;
	struct roce_send_wr *bad = NULL;
	int err = b->err, st;

	if (!err && b->n && c->orphaned)
		err = rv_orphaned(c, "ibv_wr_complete");
	if (!err && b->n) {
		batch_link(b);
		/* the room was taken WR by WR (wr_open): a refusal here is
		 * the engine's check of a WR (an atomic without its one
		 * 8-byte SGE, an AH of another PD), and the WRs before it
		 * are posted */
		st = roce_post_send(q->qp, &b->w[0].wr, &bad);
		if (st)
			err = st == ROCE_E_FULL ? ENOSPC : rv_errno(st);
	}
	b->n = 0;
	pthread_mutex_unlock(&b->lock);
	return err;
}

/* ---- what is not offered ---------------------------------------------------- */

/* the ops' parameters are rdma-core's, and unused by a refusal */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define WR_REFUSED(name, verb, ...)                                         \
	static void name(struct ibv_qp_ex *x, __VA_ARGS__)                  \
	{                                                                   \
		struct rv_wr_batch *b = batch_of(x);                        \
		if (!b->err)                                                \
			b->err = rv_unsupported(verb, EOPNOTSUPP);          \
	}
WR_REFUSED(wr_bind_mw, "ibv_wr_bind_mw", struct ibv_mw *mw, uint32_t rkey,
	   const struct ibv_mw_bind_info *info)
WR_REFUSED(wr_local_inv, "ibv_wr_local_inv", uint32_t rkey)
WR_REFUSED(wr_send_inv, "ibv_wr_send_inv", uint32_t rkey)
WR_REFUSED(wr_send_tso, "ibv_wr_send_tso", void *hdr, uint16_t hdr_sz, uint16_t mss)
WR_REFUSED(wr_set_xrc_srqn, "ibv_wr_set_xrc_srqn", uint32_t srqn)
WR_REFUSED(wr_atomic_write, "ibv_wr_atomic_write", uint32_t rkey, uint64_t addr,
	   const void *wr)
#pragma GCC diagnostic pop

/* ---- the QP ---------------------------------------------------------------- */

/* The send ops each QP type has (rxe's provider offers the same, and
 * memory windows, invalidation and atomic write besides) */
#define OPS_UD (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define OPS_UC (OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define OPS_RC (OPS_UC | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define QP_EX_MASK (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | \
		    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* What create_qp_ex cannot make: one line and EOPNOTSUPP, else 0. */
static int qp_ex_refused(const struct ibv_qp_init_attr_ex *a)
{
	uint64_t ops = a->qp_type == IBV_QPT_RC ? OPS_RC :
		       a->qp_type == IBV_QPT_UC ? OPS_UC : OPS_UD;

	if (a->comp_mask & ~(uint32_t)QP_EX_MASK) {
		fprintf(stderr, "libibverbs (roce-run): ibv_create_qp_ex: comp_mask 0x%x not "
			"supported (XRC, RSS, source QPN, ...)\n",
			a->comp_mask & ~(uint32_t)QP_EX_MASK);
		return errno = EOPNOTSUPP;
	}
	/* no create flag is offered; the bit with none is (rdma-core's
	   providers accept it) */
	if ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && a->create_flags) {
		fprintf(stderr, "libibverbs (roce-run): ibv_create_qp_ex: create_flags 0x%x "
			"not supported\n", a->create_flags);
		return errno = EOPNOTSUPP;
	}
	if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && (a->send_ops_flags & ~ops)) {
		fprintf(stderr, "libibverbs (roce-run): ibv_create_qp_ex: send_ops_flags 0x%llx "
			"not supported on this QP type (memory windows, invalidation, TSO, "
			"atomic write; on UC no READ or atomic, on UD only SEND)\n",
			(unsigned long long)(a->send_ops_flags & ~ops));
		return errno = EOPNOTSUPP;
	}
	return 0;
}

static void qp_ex_ops(struct ibv_qp_ex *x)
{
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = wr_atomic_fetch_add;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	/* set all the same: a program that calls one it did not ask for
	   gets the one line, not a NULL call */
	x->wr_bind_mw = wr_bind_mw;
	x->wr_local_inv = wr_local_inv;
	x->wr_send_inv = wr_send_inv;
	x->wr_send_tso = wr_send_tso;
	x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_atomic_write = wr_atomic_write;
}

/* The verbs_context's create_qp_ex: what ibv_create_qp takes, the PD in
 * the attributes, and the ibv_wr_* send ops (every QP it makes has
 * them, as rxe's provider marks each one extended). */
struct ibv_qp *rv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *a)
{
	struct ibv_qp_init_attr ia;
	struct rv_wr_batch *b;
	struct ibv_qp *qp;
	struct rv_qp *q;

	(void)context;
	if (!a || !(a->comp_mask & IBV_QP_INIT_ATTR_PD) || !a->pd) {
		errno = EINVAL;
		return NULL;
	}
	if (qp_ex_refused(a))
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	ia = (struct ibv_qp_init_attr){ .qp_context = a->qp_context, .send_cq = a->send_cq,
					.recv_cq = a->recv_cq, .srq = a->srq, .cap = a->cap,
					.qp_type = a->qp_type, .sq_sig_all = a->sq_sig_all };
	qp = ibv_create_qp(a->pd, &ia);
	if (!qp) {
		free(b);
		return NULL;
	}
	a->cap = ia.cap;
	q = RV_OF(rv_qp, qp);
	pthread_mutex_init(&b->lock, NULL);
	b->max_sge = ia.cap.max_send_sge ? ia.cap.max_send_sge : 1;
	b->max_inline = ia.cap.max_inline_data;
	b->ud = a->qp_type == IBV_QPT_UD;
	q->batch = b;
	qp_ex_ops(&q->ex);
	return qp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct rv_qp *q = RV_OF(rv_qp, qp);

	return q && q->batch ? &q->ex : NULL;
}

void rv_qp_ex_free(struct rv_qp *q)
{
	if (!q->batch)
		return;
	pthread_mutex_destroy(&q->batch->lock);
	free(q->batch->w);
	free(q->batch->bytes);
	free(q->batch);
}
