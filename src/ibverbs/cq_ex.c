/* SPDX-License-Identifier: MIT */
/*
 * Extended CQs: ibv_create_cq_ex and the polling that <infiniband/verbs.h>
 * (rdma-core 44) makes of inline functions over struct ibv_cq_ex's
 * function pointers: ibv_start_poll, ibv_next_poll, ibv_end_poll and the
 * ibv_wc_read_* accessors. The CQ is an ordinary one of cq.c (ibv_poll_cq,
 * completion channels, ibv_req_notify_cq and ibv_destroy_cq work on it
 * through ibv_cq_ex_to_cq); the extended poll takes one completion at a
 * time from the engine's ring, so nothing is held back between
 * ibv_end_poll and a later ibv_poll_cq. As ibv_poll_cq, ibv_start_poll
 * first runs the engine's turn in the caller's thread, and one that finds
 * the CQ empty marks the engine as waited on (run to completion,
 * docs/verbs.md).
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "ibverbs/rv.h"
#include "roce/status.h"

/* What the accessors can read. A RoCE completion has no LIDs: slid and
 * dlid_path_bits read 0, as rxe's; sl a UD receive's RoCE packet type,
 * as a ConnectX reports it (cq.c). The completion's time
 * is taken when the poll takes it from the ring, from CLOCK_REALTIME
 * (the wall clock's IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK); the
 * device has no clock of its own for IBV_WC_EX_WITH_COMPLETION_TIMESTAMP
 * (hca_core_clock 0). */
#define WC_EX_OFFERED (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | \
		       IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |    \
		       IBV_WC_EX_WITH_DLID_PATH_BITS |                                      \
		       IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

static struct rv_cq *cq_of(struct ibv_cq_ex *x)
{
	return RV_OF(rv_cq, x);
}

/* The next completion into cur and the status and wr_id the program
 * reads from the ibv_cq_ex itself: 0, or ENOENT when the CQ is empty. */
static int take_one(struct rv_cq *q)
{
	struct roce_wc r;
	int k = roce_poll_cq(q->cq, 1, &r);

	if (k < 0)
		return EOVERFLOW;       /* an overrun CQ, as ibv_poll_cq's -1 */
	if (k == 0)
		return ENOENT;
	rv_wc_out(&r, &q->cur);
	q->ex.status = q->cur.status;
	q->ex.wr_id = q->cur.wr_id;
	if (q->wc_flags_ex & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		q->cur_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return 0;
}

static int cq_start_poll(struct ibv_cq_ex *x, struct ibv_poll_cq_attr *attr)
{
	struct rv_cq *q = cq_of(x);
	struct rv_context *c = rv_ctx(x->context);
	int err;

	if (attr && attr->comp_mask)
		return EINVAL;
	if (c->orphaned)
		return rv_orphaned(c, "ibv_start_poll");
	/* a polling program runs the engine: what it polls for comes now */
	rv_drive(c);
	err = take_one(q);
	/* it spins on this CQ: the engine thread may park meanwhile */
	if (err == ENOENT && c->rtc)
		roce_engine_waiting(c->ctx);
	return err;
}

static int cq_next_poll(struct ibv_cq_ex *x)
{
	return take_one(cq_of(x));
}

static void cq_end_poll(struct ibv_cq_ex *x)
{
	(void)x;        /* each completion left the ring when it was taken */
}

/* The accessors: the field of the completion the poll took */
#define WC_READ(name, type, field) \
	static type name(struct ibv_cq_ex *x) { return cq_of(x)->field; }
WC_READ(read_opcode, enum ibv_wc_opcode, cur.opcode)
WC_READ(read_vendor_err, uint32_t, cur.vendor_err)
WC_READ(read_byte_len, uint32_t, cur.byte_len)
WC_READ(read_imm_data, __be32, cur.imm_data)
WC_READ(read_qp_num, uint32_t, cur.qp_num)
WC_READ(read_src_qp, uint32_t, cur.src_qp)
WC_READ(read_wc_flags, unsigned int, cur.wc_flags)
WC_READ(read_slid, uint32_t, cur.slid)
WC_READ(read_sl, uint8_t, cur.sl)
WC_READ(read_dlid_path_bits, uint8_t, cur.dlid_path_bits)
WC_READ(read_wallclock_ns, uint64_t, cur_ns)

/* What create_cq_ex cannot make: one line and EOPNOTSUPP, else 0. */
static int cq_ex_refused(const struct ibv_cq_init_attr_ex *a)
{
	if (a->wc_flags & ~(uint64_t)WC_EX_OFFERED) {
		fprintf(stderr, "libibverbs (roce-run): ibv_create_cq_ex: wc_flags 0x%llx not "
			"supported (the device has no clock for COMPLETION_TIMESTAMP, use "
			"_WALLCLOCK; no CVLAN, flow tag or tag matching)\n",
			(unsigned long long)(a->wc_flags & ~(uint64_t)WC_EX_OFFERED));
		return errno = EOPNOTSUPP;
	}
	if (a->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		fprintf(stderr, "libibverbs (roce-run): ibv_create_cq_ex: comp_mask 0x%x not "
			"supported (parent domains)\n",
			a->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS);
		return errno = EOPNOTSUPP;
	}
	/* single-threaded is a hint that costs nothing to take; an
	   overrun is always reported */
	if ((a->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (a->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		fprintf(stderr, "libibverbs (roce-run): ibv_create_cq_ex: flags 0x%x not "
			"supported (ignoring overrun)\n",
			a->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
		return errno = EOPNOTSUPP;
	}
	return 0;
}

struct ibv_cq_ex *rv_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *a)
{
	struct ibv_cq *cq;
	struct rv_cq *q;

	if (!a) {
		errno = EINVAL;
		return NULL;
	}
	if (cq_ex_refused(a))
		return NULL;
	if (a->cqe > (uint32_t)INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	cq = ibv_create_cq(context, (int)a->cqe, a->cq_context, a->channel, (int)a->comp_vector);
	if (!cq)
		return NULL;
	q = RV_OF(rv_cq, cq);
	q->wc_flags_ex = a->wc_flags;
	q->ex.comp_mask = 0;
	q->ex.start_poll = cq_start_poll;
	q->ex.next_poll = cq_next_poll;
	q->ex.end_poll = cq_end_poll;
	/* every accessor is set, asked for or not: one not asked for
	   reads what the completion has rather than calling NULL */
	q->ex.read_opcode = read_opcode;
	q->ex.read_vendor_err = read_vendor_err;
	q->ex.read_wc_flags = read_wc_flags;
	q->ex.read_byte_len = read_byte_len;
	q->ex.read_imm_data = read_imm_data;
	q->ex.read_qp_num = read_qp_num;
	q->ex.read_src_qp = read_src_qp;
	q->ex.read_slid = read_slid;
	q->ex.read_sl = read_sl;
	q->ex.read_dlid_path_bits = read_dlid_path_bits;
	q->ex.read_completion_wallclock_ns = read_wallclock_ns;
	return &q->ex;
}
