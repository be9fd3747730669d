/* SPDX-License-Identifier: MIT */
/*
 * The UC transport (src/engine/uc.c, IBA 9.8) on one engine with a
 * scripted peer (stage.h): the requester's exact frames (UC opcodes, no
 * AckReq, nothing sent again) and its completions on send; the
 * responder's silent drops (PSN gap, missing FIRST, no receive WQE,
 * lengths, rights), each counted under its reason, its resynchronisation
 * on the next FIRST or ONLY, and no frame from it, ever; READs and
 * atomics refused at post time; UC and RC opcodes kept apart.
 */
#include <arpa/inet.h>

#include "stage.h"

#define P STAGE_RQ_PSN
#define S STAGE_SQ_PSN
#define MTU STAGE_MTU

static struct stage *uc_open(void)
{
	const struct stage_opts o = { .qp_type = ROCE_QPT_UC };

	return stage_open(&o);
}

/* A UC SEND packet of len bytes of value v. */
static void send_pkt(struct stage *st, uint8_t opcode, uint32_t psn, uint8_t v, uint32_t len)
{
	struct roce_hdrs h = stage_hdrs(st, opcode, psn, false);
	uint8_t data[MTU];

	memset(data, v, len);
	h.imm = 0xC0FFEE01u;
	stage_inject(st, &h, data, len);
}

/* A UC WRITE packet; the FIRST/ONLY carry a RETH for buf[off..off + total). */
static void write_pkt(struct stage *st, uint8_t opcode, uint32_t psn, size_t off,
		      uint32_t total, uint8_t v, uint32_t len)
{
	struct roce_hdrs h = stage_hdrs(st, opcode, psn, false);
	uint8_t data[MTU];

	memset(data, v, len);
	h.reth.va = stage_va(st, off);
	h.reth.rkey = st->mr->rkey;
	h.reth.len = total;
	h.imm = 0xC0FFEE02u;
	stage_inject(st, &h, data, len);
}

/* A 3-packet SEND (FIRST, MIDDLE, LAST of 100 bytes) from psn, bytes v;
 * skip: the index of a packet not sent (lost), or -1. */
static void send3(struct stage *st, uint32_t psn, uint8_t v, int skip)
{
	if (skip != 0)
		send_pkt(st, ROCE_OP_UC_SEND_FIRST, psn, v, MTU);
	if (skip != 1)
		send_pkt(st, ROCE_OP_UC_SEND_MIDDLE, psn + 1, v, MTU);
	if (skip != 2)
		send_pkt(st, ROCE_OP_UC_SEND_LAST, psn + 2, v, 100);
}

static uint64_t drops(struct stage *st, enum roce_cnt id)
{
	return stage_cnt(st, id);
}

/* ---- requester ---------------------------------------------------------------- */

/* SEND, SEND with immediate, WRITE, WRITE with immediate: UC opcodes
 * (IBA 9.2.1), segmented by the path MTU, consecutive PSNs, no AckReq;
 * each WQE completes once its last packet is out, with no response; and
 * nothing is ever sent again, however long the QP waits. */
static void test_requester_frames_and_completions(void **state)
{
	struct stage *st = uc_open();
	struct roce_sge sge[4];
	struct roce_send_wr wr[4];
	static const uint8_t want[] = {
		ROCE_OP_UC_SEND_FIRST, ROCE_OP_UC_SEND_MIDDLE, ROCE_OP_UC_SEND_LAST,
		ROCE_OP_UC_SEND_ONLY_IMM,
		ROCE_OP_UC_WRITE_FIRST, ROCE_OP_UC_WRITE_MIDDLE, ROCE_OP_UC_WRITE_LAST,
		ROCE_OP_UC_WRITE_FIRST, ROCE_OP_UC_WRITE_LAST_IMM,
	};
	static const uint32_t lens[] = { MTU, MTU, 88, 40, MTU, MTU, 1, MTU, 44 };

	(void)state;
	stage_fill(st->buf, 4096, 1, 3);
	wr[0] = stage_wr(st, &sge[0], 10, ROCE_WR_SEND, 0, 2 * MTU + 88);
	wr[1] = stage_wr(st, &sge[1], 11, ROCE_WR_SEND_WITH_IMM, 1000, 40);
	wr[2] = stage_wr(st, &sge[2], 12, ROCE_WR_RDMA_WRITE, 2000, 2 * MTU + 1);
	wr[3] = stage_wr(st, &sge[3], 13, ROCE_WR_RDMA_WRITE_WITH_IMM, 3000, MTU + 44);
	wr[1].imm_data = htonl(0x11223344u);    /* network order, as ibverbs */
	wr[3].imm_data = htonl(0x55667788u);
	for (int i = 2; i < 4; i++) {
		wr[i].wr.rdma.remote_addr = 0x1000000ull * (unsigned)i;
		wr[i].wr.rdma.rkey = 0xABC00 + (unsigned)i;
	}
	for (int i = 0; i < 4; i++)
		stage_post(st, &wr[i]);
	assert_int_equal(stage_run(st), 9);
	for (unsigned i = 0; i < 9; i++) {
		const struct stage_frame *f = &st->rx[i];

		assert_int_equal(f->h.bth.opcode, want[i]);
		assert_int_equal(f->h.bth.psn, S + i);
		assert_false(f->h.bth.ackreq);
		assert_int_equal(f->len, lens[i]);
	}
	/* payloads are the posted bytes */
	assert_memory_equal(st->rx[1].payload, st->buf + MTU, MTU);
	assert_memory_equal(st->rx[3].payload, st->buf + 1000, 40);
	assert_memory_equal(st->rx[6].payload, st->buf + 2000 + 2 * MTU, 1);
	assert_memory_equal(st->rx[8].payload, st->buf + 3000 + MTU, 44);
	/* the immediates and the RETHs */
	assert_int_equal(st->rx[3].h.imm, 0x11223344u);
	assert_int_equal(st->rx[8].h.imm, 0x55667788u);
	assert_int_equal(st->rx[4].h.reth.va, 0x2000000ull);
	assert_int_equal(st->rx[4].h.reth.rkey, 0xABC02);
	assert_int_equal(st->rx[4].h.reth.len, 2 * MTU + 1);
	assert_int_equal(st->rx[7].h.reth.len, MTU + 44);

	/* every WQE completed, in order, without a response */
	stage_expect_wc(st->scq, 10, ROCE_WC_SUCCESS, ROCE_WC_SEND, 2 * MTU + 88);
	stage_expect_wc(st->scq, 11, ROCE_WC_SUCCESS, ROCE_WC_SEND, 40);
	stage_expect_wc(st->scq, 12, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 2 * MTU + 1);
	stage_expect_wc(st->scq, 13, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, MTU + 44);
	stage_expect_no_wc(st->scq);

	/* no timer: ten seconds on, nothing more */
	assert_int_equal(stage_advance(st, 10000000000ull), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RETRANSMISSIONS), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);

	/* and the next message takes the next PSN */
	wr[0] = stage_wr(st, &sge[0], 14, ROCE_WR_SEND, 0, 0);
	stage_post(st, &wr[0]);
	assert_int_equal(stage_run(st), 1);
	assert_int_equal(st->rx[0].h.bth.opcode, ROCE_OP_UC_SEND_ONLY);
	assert_int_equal(st->rx[0].h.bth.psn, S + 9);
	stage_expect_wc(st->scq, 14, ROCE_WC_SUCCESS, ROCE_WC_SEND, 0);
	stage_close(st);
}

/* An ACK or NAK for a UC QP (there is no such thing) changes nothing: it
 * is dropped as an opcode of another transport. */
static void test_requester_ignores_acks(void **state)
{
	struct stage *st = uc_open();
	struct roce_sge sge;
	struct roce_send_wr wr = stage_wr(st, &sge, 1, ROCE_WR_SEND, 0, 10);

	(void)state;
	stage_post(st, &wr);
	assert_int_equal(stage_run(st), 1);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_SEND, 10);
	stage_inject_ack(st, S, ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR, 0);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_QP_TYPE), 1);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	stage_expect_no_wc(st->scq);
	stage_close(st);
}

/* READ and atomics have no UC opcode: post_send refuses them (rxe's
 * rxe_post_send_kernel: EINVAL), names the WR, and nothing is sent; the
 * QP stays usable. modify_qp refuses the RC-only attributes. */
static void test_read_and_atomics_refused(void **state)
{
	struct stage *st = uc_open();
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_RDMA_READ, ROCE_WR_ATOMIC_CMP_AND_SWP, ROCE_WR_ATOMIC_FETCH_AND_ADD,
	};
	static const unsigned rc_only[] = {
		ROCE_QP_TIMEOUT, ROCE_QP_RETRY_CNT, ROCE_QP_RNR_RETRY,
		ROCE_QP_MAX_QP_RD_ATOMIC, ROCE_QP_MIN_RNR_TIMER, ROCE_QP_MAX_DEST_RD_ATOMIC,
	};
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_RTS };

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct roce_sge sge, sge2;
		struct roce_send_wr ok = stage_wr(st, &sge2, 1, ROCE_WR_SEND, 64, 8);
		struct roce_send_wr wr = stage_wr(st, &sge, 2, ops[i], 0, 8);
		struct roce_send_wr *bad = NULL;

		wr.wr.atomic.remote_addr = 0x1000;
		ok.next = &wr;
		assert_int_equal(roce_post_send(st->qp, &ok, &bad), ROCE_E_INVAL);
		assert_ptr_equal(bad, &wr);
		/* the SEND before it went out; the refused WR did not */
		assert_int_equal(stage_run(st), 1);
		assert_int_equal(st->rx[0].h.bth.opcode, ROCE_OP_UC_SEND_ONLY);
		stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_SEND, 8);
		stage_expect_no_wc(st->scq);
	}
	for (size_t i = 0; i < sizeof(rc_only) / sizeof(rc_only[0]); i++)
		assert_int_equal(roce_modify_qp(st->qp, &at, ROCE_QP_STATE | rc_only[i]),
				 ROCE_E_INVAL);
	assert_int_equal(roce_modify_qp(st->qp, &at, ROCE_QP_STATE), ROCE_OK);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	stage_close(st);
}

/* ---- responder ----------------------------------------------------------------- */

/* SEND, SEND with immediate, WRITE and WRITE with immediate land and
 * complete as on RC; the responder answers none of them. */
static void test_responder_executes_silently(void **state)
{
	struct stage *st = uc_open();

	(void)state;
	stage_post_recv(st, 1, 8192, 1024, st->mr->lkey);
	stage_post_recv(st, 2, 12288, 1024, st->mr->lkey);
	stage_post_recv(st, 3, 16384, 16, st->mr->lkey);
	send3(st, P, 0xA1, -1);
	send_pkt(st, ROCE_OP_UC_SEND_ONLY_IMM, P + 3, 0xB2, 77);
	write_pkt(st, ROCE_OP_UC_WRITE_FIRST, P + 4, 0, MTU + 5, 0xC3, MTU);
	write_pkt(st, ROCE_OP_UC_WRITE_LAST, P + 5, 0, 0, 0xC3, 5);
	write_pkt(st, ROCE_OP_UC_WRITE_ONLY_IMM, P + 6, 1024, 9, 0xD4, 9);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 2 * MTU + 100);
	stage_assert_filled(st->buf + 8192, 0xA1, 2 * MTU + 100);
	assert_int_equal(st->buf[8192 + 2 * MTU + 100], 0);
	{
		struct roce_wc wc;

		assert_int_equal(roce_poll_cq(st->rcq, 1, &wc), 1);
		assert_int_equal(wc.wr_id, 2);
		assert_int_equal(wc.byte_len, 77);
		assert_true(wc.wc_flags & ROCE_WC_WITH_IMM);
		assert_int_equal(wc.imm_data, 0x01EEFFC0u);     /* network order */
		assert_int_equal(roce_poll_cq(st->rcq, 1, &wc), 1);
		assert_int_equal(wc.wr_id, 3);
		assert_int_equal(wc.opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
		assert_true(wc.wc_flags & ROCE_WC_WITH_IMM);
	}
	stage_assert_filled(st->buf + 12288, 0xB2, 77);
	stage_assert_filled(st->buf, 0xC3, MTU + 5);
	assert_int_equal(st->buf[MTU + 5], 0);
	stage_assert_filled(st->buf + 1024, 0xD4, 9);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TX_PKTS), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_ACKS_TX), 0);
	stage_close(st);
}

/* A MIDDLE lost: the LAST after the gap is dropped (counted), the
 * receive WQE is not completed; the next message, whose FIRST comes after
 * the gap, is taken whole into the same receive WQE. */
static void test_gap_drops_message_next_arrives(void **state)
{
	struct stage *st = uc_open();

	(void)state;
	stage_post_recv(st, 1, 8192, 1024, st->mr->lkey);
	send3(st, P, 0x11, 1);
	assert_int_equal(stage_run(st), 0);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(drops(st, ROCE_CNT_DROP_UC_GAP), 1);
	send3(st, P + 3, 0x22, -1);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 2 * MTU + 100);
	stage_assert_filled(st->buf + 8192, 0x22, 2 * MTU + 100);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(drops(st, ROCE_CNT_DROP_UC_GAP), 1);
	assert_int_equal(drops(st, ROCE_CNT_DROP_PSN), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TX_PKTS), 0);
	stage_close(st);
}

/* The FIRST lost: its MIDDLE and LAST are dropped (two counted); a
 * LAST lost: the next message's FIRST starts a new message at once. */
static void test_first_lost_and_last_lost(void **state)
{
	struct stage *st = uc_open();

	(void)state;
	stage_post_recv(st, 1, 8192, 1024, st->mr->lkey);
	stage_post_recv(st, 2, 12288, 1024, st->mr->lkey);
	send3(st, P, 0x11, 0);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_UC_GAP), 2);
	stage_expect_no_wc(st->rcq);

	send3(st, P + 3, 0x22, 2);              /* LAST lost */
	send3(st, P + 6, 0x33, -1);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 2 * MTU + 100);
	stage_assert_filled(st->buf + 8192, 0x33, 2 * MTU + 100);
	stage_expect_no_wc(st->rcq);
	assert_int_equal(drops(st, ROCE_CNT_DROP_UC_GAP), 2);

	/* an ONLY after any gap is a message of its own */
	send_pkt(st, ROCE_OP_UC_SEND_ONLY, P + 100, 0x44, 10);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->rcq, 2, ROCE_WC_SUCCESS, ROCE_WC_RECV, 10);
	stage_close(st);
}

/* A MIDDLE of another operation than the message in progress (a WRITE
 * MIDDLE inside a SEND) breaks the message. */
static void test_opcode_out_of_sequence(void **state)
{
	struct stage *st = uc_open();

	(void)state;
	stage_post_recv(st, 1, 8192, 1024, st->mr->lkey);
	send_pkt(st, ROCE_OP_UC_SEND_FIRST, P, 0x11, MTU);
	write_pkt(st, ROCE_OP_UC_WRITE_MIDDLE, P + 1, 0, 0, 0x99, MTU);
	send_pkt(st, ROCE_OP_UC_SEND_LAST, P + 2, 0x11, 10);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_UC_GAP), 2);
	stage_expect_no_wc(st->rcq);
	stage_assert_filled(st->buf, 0, 2 * MTU);
	send_pkt(st, ROCE_OP_UC_SEND_ONLY, P + 3, 0x55, 20);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 20);
	stage_close(st);
}

/* No receive WQE: the message is dropped silently (no RNR NAK on UC),
 * its FIRST counted as no_rwqe and the rest as a broken message; once a
 * WQE is posted the next message takes it. */
static void test_no_rwqe_dropped_without_rnr(void **state)
{
	struct stage *st = uc_open();

	(void)state;
	send3(st, P, 0x11, -1);
	send_pkt(st, ROCE_OP_UC_SEND_ONLY, P + 3, 0x12, 5);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_NO_RWQE), 2);
	assert_int_equal(drops(st, ROCE_CNT_DROP_UC_GAP), 2);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_RNR), 0);
	stage_post_recv(st, 7, 8192, 1024, st->mr->lkey);
	send3(st, P + 4, 0x13, -1);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->rcq, 7, ROCE_WC_SUCCESS, ROCE_WC_RECV, 2 * MTU + 100);
	stage_assert_filled(st->buf + 8192, 0x13, 2 * MTU + 100);
	stage_close(st);
}

/* A message longer than its receive WQE is dropped, the WQE kept (not
 * completed) for the next message; a packet of the wrong length too. */
static void test_lengths(void **state)
{
	struct stage *st = uc_open();

	(void)state;
	stage_post_recv(st, 1, 8192, 2 * MTU, st->mr->lkey);
	send3(st, P, 0x11, -1);                 /* 2 MTU + 100 > 2 MTU */
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_RECV_LEN), 1);
	stage_expect_no_wc(st->rcq);
	send_pkt(st, ROCE_OP_UC_SEND_FIRST, P + 3, 0x22, MTU - 1);      /* short FIRST */
	send_pkt(st, ROCE_OP_UC_SEND_LAST, P + 4, 0x22, 1);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_HDR_LEN), 1);
	assert_int_equal(drops(st, ROCE_CNT_DROP_UC_GAP), 1);
	stage_expect_no_wc(st->rcq);
	send_pkt(st, ROCE_OP_UC_SEND_ONLY, P + 5, 0x33, MTU);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, MTU);
	stage_assert_filled(st->buf + 8192, 0x33, MTU);
	stage_close(st);
}

/* WRITEs: a bad R_Key and a QP without remote write are dropped, memory
 * untouched, no NAK, the QP stays; a WRITE with immediate and no receive
 * WQE loses its LAST (what came before stays). */
static void test_write_errors(void **state)
{
	struct stage *st = uc_open();
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_UC_WRITE_ONLY, P, false);
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_RTS };
	uint8_t data[16];

	(void)state;
	memset(data, 0x77, sizeof(data));
	h.reth.va = stage_va(st, 0);
	h.reth.rkey = st->mr->rkey ^ 0x80;
	h.reth.len = 16;
	stage_inject(st, &h, data, 16);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_RKEY), 1);
	stage_assert_filled(st->buf, 0, 16);

	write_pkt(st, ROCE_OP_UC_WRITE_FIRST, P + 1, 0, MTU + 3, 0x66, MTU);
	write_pkt(st, ROCE_OP_UC_WRITE_LAST_IMM, P + 2, 0, 0, 0x66, 3);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_NO_RWQE), 1);
	stage_assert_filled(st->buf, 0x66, MTU);
	stage_assert_filled(st->buf + MTU, 0, 3);
	stage_expect_no_wc(st->rcq);

	at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE;
	assert_int_equal(roce_modify_qp(st->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS),
			 ROCE_OK);
	write_pkt(st, ROCE_OP_UC_WRITE_ONLY, P + 3, 4096, 8, 0x55, 8);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(drops(st, ROCE_CNT_DROP_ACCESS), 1);
	stage_assert_filled(st->buf + 4096, 0, 8);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TX_PKTS), 0);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	stage_close(st);
}

/* RC opcodes to a UC QP and UC opcodes to an RC QP are dropped under
 * their own reason, executed nowhere, answered by nobody. */
static void test_transport_mismatch(void **state)
{
	struct stage *uc = uc_open();
	struct stage *rc = stage_open_default();
	struct roce_hdrs h;

	(void)state;
	stage_post_recv(uc, 1, 8192, 1024, uc->mr->lkey);
	h = stage_hdrs(uc, ROCE_OP_RC_SEND_ONLY, P, true);
	stage_inject(uc, &h, "abcd", 4);
	h = stage_hdrs(uc, ROCE_OP_RC_WRITE_ONLY, P + 1, true);
	h.reth.va = stage_va(uc, 0);
	h.reth.rkey = uc->mr->rkey;
	h.reth.len = 4;
	stage_inject(uc, &h, "efgh", 4);
	assert_int_equal(stage_run(uc), 0);
	assert_int_equal(drops(uc, ROCE_CNT_DROP_QP_TYPE), 2);
	stage_expect_no_wc(uc->rcq);
	stage_assert_filled(uc->buf, 0, 4);

	stage_post_recv(rc, 1, 8192, 1024, rc->mr->lkey);
	h = stage_hdrs(rc, ROCE_OP_UC_SEND_ONLY, P, false);
	stage_inject(rc, &h, "abcd", 4);
	h = stage_hdrs(rc, ROCE_OP_UC_WRITE_ONLY, P, false);
	h.reth.va = stage_va(rc, 0);
	h.reth.rkey = rc->mr->rkey;
	h.reth.len = 4;
	stage_inject(rc, &h, "efgh", 4);
	assert_int_equal(stage_run(rc), 0);    /* no NAK either */
	assert_int_equal(drops(rc, ROCE_CNT_DROP_QP_TYPE), 2);
	assert_int_equal(drops(rc, ROCE_CNT_DROP_OPCODE), 0);
	stage_expect_no_wc(rc->rcq);
	stage_assert_filled(rc->buf, 0, 4);
	/* the RC QP still expects P: its own opcodes are taken */
	h = stage_hdrs(rc, ROCE_OP_RC_SEND_ONLY, P, true);
	stage_inject(rc, &h, "ijkl", 4);
	assert_int_equal(stage_run(rc), 1);
	stage_expect_wc(rc->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 4);
	stage_close(uc);
	stage_close(rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requester_frames_and_completions),
		cmocka_unit_test(test_requester_ignores_acks),
		cmocka_unit_test(test_read_and_atomics_refused),
		cmocka_unit_test(test_responder_executes_silently),
		cmocka_unit_test(test_gap_drops_message_next_arrives),
		cmocka_unit_test(test_first_lost_and_last_lost),
		cmocka_unit_test(test_opcode_out_of_sequence),
		cmocka_unit_test(test_no_rwqe_dropped_without_rnr),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_transport_mismatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
