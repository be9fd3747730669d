/* SPDX-License-Identifier: MIT */
/*
 * The engine with every QP a device holds (PAIR_MAX_QPS pairs, 16K less
 * the reserved QPNs) connected between two engines:
 *   - every pair completes a WRITE, a READ and a SEND with its own bytes
 *     in its own buffer regions, every completion right and exactly once,
 *     and nothing times out on the lossless link;
 *   - a change committed to one QP or MR among them takes effect in the
 *     very next poll (the context cache follows the commits: ctx.c), not
 *     after a scan of the others.
 * Virtual time: a poll is 1 us however fast this machine runs, so a QP
 * the engine forgot shows as a retransmission timeout, which a lossless
 * link never needs. The two tests share one setup (most of the suite's
 * time goes into creating and connecting 32K QPs), the second runs after
 * the first.
 */
#include "scale.h"

#define NQP PAIR_MAX_QPS
#define SLOT 64u                /* bytes per QP per operation */
#define WINDOW 512u             /* QPs with work outstanding at a time */

enum { OP_WRITE, OP_READ, OP_SEND, OPS };

/* Where the bytes of an operation live, on both sides: WRITE source on A,
 * destination on B; READ destination on A, source on B; SEND source on A,
 * receive buffer on B. */
static uint8_t *slot(const struct pair_side *s, unsigned op, uint32_t i)
{
	return s->buf + ((size_t)op * NQP + i) * SLOT;
}

/* 4 .. SLOT bytes, different from QP to QP and op to op */
static uint32_t op_len(uint32_t i, unsigned op)
{
	return SCALE_TAG_LEN + (i * (7 + 4 * op) + op) % (SLOT - SCALE_TAG_LEN + 1);
}

static const enum roce_wc_opcode wc_op[OPS] = {
	[OP_WRITE] = ROCE_WC_RDMA_WRITE, [OP_READ] = ROCE_WC_RDMA_READ,
	[OP_SEND] = ROCE_WC_SEND,
};

static struct pair *P;

static int group_setup(void **state)
{
	struct pair_opts o = {
		.nqp = NQP, .virtual_time = true,
		/* small queues: 32K QPs stay a few tens of MB */
		.sq_depth = 4, .rq_depth = 1, .max_sge = 1,
		.cq_depth = 1024,       /* far fewer than the completions: polled as they come */
	};

	(void)state;
	P = pair_open(&o);
	assert_true((size_t)OPS * NQP * SLOT <= P->a.buf_len);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	pair_close(P);
	return 0;
}

static void post_qp(struct pair *p, uint32_t i)
{
	struct pair_side *a = &p->a, *b = &p->b;
	struct roce_sge ls[OPS], rs = { (uint64_t)(uintptr_t)slot(b, OP_SEND, i), SLOT,
					 b->mr->lkey };
	struct roce_recv_wr rw = { .wr_id = i, .sg_list = &rs, .num_sge = 1 };
	struct roce_send_wr wr[OPS], *bad = NULL;
	static const enum roce_wr_opcode wr_op[OPS] = {
		[OP_WRITE] = ROCE_WR_RDMA_WRITE, [OP_READ] = ROCE_WR_RDMA_READ,
		[OP_SEND] = ROCE_WR_SEND,
	};

	scale_fill(slot(a, OP_WRITE, i), op_len(i, OP_WRITE), i, OP_WRITE);
	scale_fill(slot(b, OP_READ, i), op_len(i, OP_READ), i, OP_READ);
	scale_fill(slot(a, OP_SEND, i), op_len(i, OP_SEND), i, OP_SEND);
	assert_int_equal(roce_post_recv(b->qps[i], &rw, NULL), ROCE_OK);
	/* one chain, one doorbell */
	for (unsigned op = 0; op < OPS; op++) {
		ls[op] = (struct roce_sge){ (uint64_t)(uintptr_t)slot(a, op, i), op_len(i, op),
					    a->mr->lkey };
		wr[op] = (struct roce_send_wr){
			.wr_id = (uint64_t)i * OPS + op, .next = op + 1 < OPS ? &wr[op + 1] : NULL,
			.sg_list = &ls[op], .num_sge = 1, .opcode = wr_op[op],
			.send_flags = ROCE_SEND_SIGNALED,
		};
		wr[op].wr.rdma.remote_addr = (uint64_t)(uintptr_t)slot(b, op, i);
		wr[op].wr.rdma.rkey = b->mr->rkey;
	}
	assert_int_equal(roce_post_send(a->qps[i], wr, &bad), ROCE_OK);
}

/* A's completion: the next operation of its QP, in order, exactly once,
 * with its bytes where they belong. Returns its QP. */
static uint32_t check_send_wc(struct pair *p, const struct roce_wc *wc, uint8_t *next_op)
{
	uint32_t i = (uint32_t)(wc->wr_id / OPS);
	unsigned op = (unsigned)(wc->wr_id % OPS);
	const uint8_t *data;

	assert_true(i < NQP);
	if (wc->status != ROCE_WC_SUCCESS)
		fail_msg("QP %u op %u: %s", i, op, roce_wc_status_str(wc->status));
	assert_int_equal(wc->qp_num, roce_qp_num(p->a.qps[i]));
	assert_int_equal(next_op[i], op);
	next_op[i]++;
	assert_int_equal(wc->opcode, wc_op[op]);
	assert_int_equal(wc->byte_len, op_len(i, op));
	/* a completion means the bytes are in place: on B for WRITE and
	 * SEND (B acknowledged them), on A for READ */
	data = op == OP_READ ? slot(&p->a, op, i) : slot(&p->b, op, i);
	assert_true(scale_check(data, op_len(i, op), i, op));
	return i;
}

static uint32_t check_recv_wc(struct pair *p, const struct roce_wc *wc, uint8_t *recvd)
{
	uint32_t i = (uint32_t)wc->wr_id;

	assert_true(i < NQP);
	if (wc->status != ROCE_WC_SUCCESS)
		fail_msg("QP %u receive: %s", i, roce_wc_status_str(wc->status));
	assert_int_equal(recvd[i], 0);
	recvd[i] = 1;
	assert_int_equal(wc->opcode, ROCE_WC_RECV);
	assert_int_equal(wc->byte_len, op_len(i, OP_SEND));
	assert_int_equal(wc->qp_num, roce_qp_num(p->b.qps[i]));
	assert_int_equal(wc->src_qp, roce_qp_num(p->a.qps[i]));
	return i;
}

static void test_every_qp_completes(void **state)
{
	static uint8_t next_op[NQP], recvd[NQP];
	struct pair *p = P;
	struct roce_wc wc[64];
	uint32_t posted = 0, finished = 0, polls = 0;
	int n;

	(void)state;
	while (finished < NQP) {
		/* a lost doorbell or a stuck QP ends here, not in a hang */
		assert_true(++polls < 200000);
		while (posted < NQP && posted - finished < WINDOW)
			post_qp(p, posted++);
		pair_poll(p);
		n = roce_poll_cq(p->a.scq, 64, wc);
		assert_true(n >= 0);            /* no CQ overrun */
		for (int k = 0; k < n; k++) {
			uint32_t i = check_send_wc(p, &wc[k], next_op);

			finished += next_op[i] == OPS && recvd[i];
		}
		n = roce_poll_cq(p->b.rcq, 64, wc);
		assert_true(n >= 0);
		for (int k = 0; k < n; k++) {
			uint32_t i = check_recv_wc(p, &wc[k], recvd);

			finished += next_op[i] == OPS;
		}
	}
	/* nothing more comes: every completion came exactly once */
	for (int k = 0; k < 100; k++)
		pair_poll(p);
	assert_int_equal(roce_poll_cq(p->a.scq, 64, wc), 0);
	assert_int_equal(roce_poll_cq(p->b.rcq, 64, wc), 0);
	assert_int_equal(roce_poll_cq(p->a.rcq, 64, wc), 0);
	assert_int_equal(roce_poll_cq(p->b.scq, 64, wc), 0);
	/* every byte where it belongs and no byte beyond */
	for (uint32_t i = 0; i < NQP; i++)
		for (unsigned op = 0; op < OPS; op++) {
			const uint8_t *dst = op == OP_READ ? slot(&p->a, op, i) : slot(&p->b, op, i);
			uint32_t len = op_len(i, op);

			if (!scale_check(dst, len, i, op) || !scale_zero(dst + len, SLOT - len))
				fail_msg("QP %u op %u: wrong bytes at the destination", i, op);
		}
	/* a lossless link: no timer ever had to fire (a QP the arbiter left
	 * behind would have waited for its retransmission timer) */
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_COMPLETIONS), (uint64_t)OPS * NQP);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_COMPLETIONS), NQP);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_ERROR_COMPLETIONS) +
			 pair_cnt(&p->b, ROCE_CNT_ERROR_COMPLETIONS), 0);
}

/* One signaled WR of len bytes between local and remote. */
static void post1(struct roce_qp *qp, uint64_t id, enum roce_wr_opcode op, void *local,
		  uint32_t len, uint32_t lkey, void *remote, uint32_t rkey)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)local, len, lkey };
	struct roce_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = ROCE_SEND_SIGNALED,
	}, *bad = NULL;

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)remote;
	wr.wr.rdma.rkey = rkey;
	assert_int_equal(roce_post_send(qp, &wr, &bad), ROCE_OK);
}

/* The next completion on cq: it is wr_id id of QPN qpn, with status. */
static void expect_wc(struct pair *p, struct roce_cq *cq, uint64_t id, uint32_t qpn,
		      enum roce_wc_status status)
{
	struct roce_wc wc;

	assert_int_equal(pair_wait(p, cq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, id);
	assert_int_equal(wc.qp_num, qpn);
	if (wc.status != status)
		fail_msg("wr %#llx: '%s', want '%s'", (unsigned long long)id,
			 roce_wc_status_str(wc.status), roce_wc_status_str(status));
}

static void modify(struct roce_qp *qp, struct roce_qp_attr *at, unsigned mask)
{
	assert_int_equal(roce_modify_qp(qp, at, mask), ROCE_OK);
}

/* QP k of A moved to ERR among 16K: the next poll flushes what was
 * posted before (the commit reached the context cache), and the poll after
 * a post flushes that too (its doorbell found the QP); nothing is sent. */
static void err_within_one_poll(struct pair *p, uint32_t k)
{
	struct pair_side *a = &p->a, *b = &p->b;
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_ERR };
	uint64_t tx = pair_cnt(a, ROCE_CNT_TX_PKTS);
	uint32_t qpn = roce_qp_num(a->qps[k]);
	struct roce_wc wc[4];

	for (uint64_t id = 0xE1; id <= 0xE2; id++) {
		if (id == 0xE2)
			modify(a->qps[k], &at, ROCE_QP_STATE);
		post1(a->qps[k], id, ROCE_WR_RDMA_WRITE, slot(a, OP_WRITE, k), 8, a->mr->lkey,
		      slot(b, OP_WRITE, k), b->mr->rkey);
		if (id == 0xE1)
			modify(a->qps[k], &at, ROCE_QP_STATE);
		roce_engine_poll(a->ctx);
		assert_int_equal(roce_poll_cq(a->scq, 4, wc), 1);
		assert_int_equal(wc[0].wr_id, id);
		assert_int_equal(wc[0].qp_num, qpn);
		assert_int_equal(wc[0].status, ROCE_WC_WR_FLUSH_ERR);
		assert_int_equal(pair_cnt(a, ROCE_CNT_TX_PKTS), tx);
	}
}

/* QP k of A gets another P_Key and destination QP: the frame of the next
 * poll carries both (read off B's port before B's engine sees it). */
static void path_within_one_poll(struct pair *p, uint32_t k, uint32_t other)
{
	struct pair_side *a = &p->a, *b = &p->b;
	struct roce_qp_attr at = { .pkey = 0x8123, .dest_qp_num = roce_qp_num(b->qps[other]) };
	struct roce_frame f[4];
	struct roce_pkt pkt;
	unsigned n;

	modify(a->qps[k], &at, ROCE_QP_PKEY_INDEX | ROCE_QP_DEST_QPN);
	post1(a->qps[k], 0xF1, ROCE_WR_RDMA_WRITE, slot(a, OP_WRITE, k), 8, a->mr->lkey,
	      slot(b, OP_WRITE, k), b->mr->rkey);
	roce_engine_poll(a->ctx);
	n = roce_port_rx(b->port, f, 4);
	assert_int_equal(n, 1);
	assert_int_equal(roce_parse(f[0].data, f[0].len, 0, &pkt), ROCE_OK);
	assert_int_equal(pkt.opcode, ROCE_OP_RC_WRITE_ONLY);
	assert_int_equal(roce_bth_dqpn(roce_pkt_bth(&pkt)), at.dest_qp_num);
	assert_int_equal(roce_bth_pkey(roce_pkt_bth(&pkt)), 0x8123);
	roce_port_rx_release(b->port, n);
	/* the WRITE never arrives: put the QP away */
	at.qp_state = ROCE_QPS_ERR;
	modify(a->qps[k], &at, ROCE_QP_STATE);
	expect_wc(p, a->scq, 0xF1, roce_qp_num(a->qps[k]), ROCE_WC_WR_FLUSH_ERR);
}

/* One request from A's QP k, and B's engine's next poll: B's counter cnt
 * grows by want (a NAK sent, a response sent). */
static void one_poll_each(struct pair *p, enum roce_cnt cnt, uint64_t want)
{
	uint64_t before;

	roce_engine_poll(p->a.ctx);
	before = pair_cnt(&p->b, cnt);
	roce_engine_poll(p->b.ctx);
	assert_int_equal(pair_cnt(&p->b, cnt) - before, want);
}

/* An MR of B deregistered, then registered again with other rights: the
 * packet B's engine receives in its next poll meets the new entry, not
 * the copy its MR cache held (ctx.c drops it on the commit). */
static void mr_within_one_poll(struct pair *p, uint32_t k, uint32_t k2)
{
	struct pair_side *a = &p->a, *b = &p->b;
	uint8_t *region = b->buf + (((size_t)OPS * NQP * SLOT + 4095) & ~(size_t)4095);
	uint8_t *src = slot(a, OP_WRITE, k), *dst = slot(a, OP_READ, k2);
	struct roce_mr *mr;
	uint64_t naks;
	uint32_t rkey;

	assert_true(region + 4096 <= b->buf + b->buf_len);
	mr = roce_reg_mr(b->pd, region, 4096, ROCE_ACCESS_LOCAL_WRITE |
			 ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ);
	assert_non_null(mr);
	/* a WRITE through it: B's MR cache now holds the entry */
	scale_fill(src, SLOT, k, 10);
	post1(a->qps[k], 0xA1, ROCE_WR_RDMA_WRITE, src, SLOT, a->mr->lkey, region, mr->rkey);
	expect_wc(p, a->scq, 0xA1, roce_qp_num(a->qps[k]), ROCE_WC_SUCCESS);
	assert_true(scale_check(region, SLOT, k, 10));
	/* deregistered: the next WRITE with its key is refused */
	rkey = mr->rkey;
	assert_int_equal(roce_dereg_mr(mr), ROCE_OK);
	scale_fill(src, SLOT, k, 11);
	post1(a->qps[k], 0xA2, ROCE_WR_RDMA_WRITE, src, SLOT, a->mr->lkey, region, rkey);
	naks = pair_cnt(b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS);
	one_poll_each(p, ROCE_CNT_DROP_RKEY, 1);
	assert_int_equal(pair_cnt(b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), naks + 1);
	assert_true(scale_check(region, SLOT, k, 10));
	expect_wc(p, a->scq, 0xA2, roce_qp_num(a->qps[k]), ROCE_WC_REM_ACCESS_ERR);
	/* registered again, read-only: a READ with the new key is answered
	 * in the next poll, a WRITE refused */
	mr = roce_reg_mr(b->pd, region, 4096, ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ);
	assert_non_null(mr);
	memset(dst, 0, SLOT);
	post1(a->qps[k2], 0xB1, ROCE_WR_RDMA_READ, dst, SLOT, a->mr->lkey, region, mr->rkey);
	naks = pair_cnt(b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS);
	one_poll_each(p, ROCE_CNT_TX_PKTS, 1);
	assert_int_equal(pair_cnt(b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), naks);
	expect_wc(p, a->scq, 0xB1, roce_qp_num(a->qps[k2]), ROCE_WC_SUCCESS);
	assert_true(scale_check(dst, SLOT, k, 10));
	post1(a->qps[k2], 0xB2, ROCE_WR_RDMA_WRITE, src, SLOT, a->mr->lkey, region, mr->rkey);
	one_poll_each(p, ROCE_CNT_DROP_ACCESS, 1);
	assert_int_equal(pair_cnt(b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), naks + 1);
	assert_true(scale_check(region, SLOT, k, 10));
	expect_wc(p, a->scq, 0xB2, roce_qp_num(a->qps[k2]), ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(roce_dereg_mr(mr), ROCE_OK);
}

static void test_change_within_one_poll(void **state)
{
	(void)state;
	err_within_one_poll(P, NQP / 2 + 7);
	path_within_one_poll(P, NQP - 1, 5);
	mr_within_one_poll(P, 12345 % NQP, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_qp_completes),
		cmocka_unit_test(test_change_within_one_poll),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
