/* SPDX-License-Identifier: MIT */
/*
 * The responder (src/engine/resp.c) alone: hand-built requests from a
 * scripted peer in, the exact replies (opcode, PSN, AETH syndrome and MSN,
 * payload) and receive completions out (stage.h). The rules are IBA's
 * (9.7.5 responder, 9.9.2 error classes) as rxe's rxe_resp.c applies them.
 */
#include "stage.h"

#define P STAGE_RQ_PSN
#define ACK_SYN (ROCE_AETH_ACK | ROCE_AETH_CREDIT_INVALID)      /* 0x1F */
#define NAK_SEQ (ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR)          /* 0x60 */
#define NAK_INV (ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ)          /* 0x61 */
#define NAK_ACC (ROCE_AETH_NAK | ROCE_NAK_REMOTE_ACCESS)        /* 0x62 */
#define NAK_OP (ROCE_AETH_NAK | ROCE_NAK_REMOTE_OP)             /* 0x63 */

/* A WRITE ONLY of len bytes of value v into buf[off..]. */
static void write_only(struct stage *st, uint32_t psn, bool ackreq, size_t off,
		       uint8_t v, uint32_t len)
{
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_RC_WRITE_ONLY, psn, ackreq);
	uint8_t data[STAGE_MTU];

	memset(data, v, len);
	h.reth.va = stage_va(st, off);
	h.reth.rkey = st->mr->rkey;
	h.reth.len = len;
	stage_inject(st, &h, data, len);
}

static void send_op(struct stage *st, uint8_t opcode, uint32_t psn, bool ackreq,
		    uint8_t v, uint32_t len)
{
	struct roce_hdrs h = stage_hdrs(st, opcode, psn, ackreq);
	uint8_t data[STAGE_MTU];

	memset(data, v, len);
	stage_inject(st, &h, data, len);
}

static void read_req(struct stage *st, uint32_t psn, uint64_t va, uint32_t rkey,
		     uint32_t len)
{
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_RC_READ_REQUEST, psn, true);

	h.reth.va = va;
	h.reth.rkey = rkey;
	h.reth.len = len;
	stage_inject(st, &h, NULL, 0);
}

static void atomic_req(struct stage *st, uint8_t opcode, uint32_t psn, size_t off,
		       uint64_t swap_add, uint64_t compare)
{
	struct roce_hdrs h = stage_hdrs(st, opcode, psn, true);

	h.atomic.va = stage_va(st, off);
	h.atomic.rkey = st->mr->rkey;
	h.atomic.swap_add = swap_add;
	h.atomic.compare = compare;
	stage_inject(st, &h, NULL, 0);
}

/* A WRITE ONLY with AckReq, taken: its ACK carries psn and msn. */
static void write_acked(struct stage *st, uint32_t psn, size_t off, uint8_t v, uint32_t len,
			uint32_t msn)
{
	write_only(st, psn, true, off, v, len);
	stage_run(st);
	stage_expect_ack(st, psn, ACK_SYN, msn);
}

/* ---- PSN classes ------------------------------------------------------------ */

/* In sequence: executed, ACKed with its own PSN and the MSN that counts it. */
static void test_new_request_executed_and_acked(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	write_acked(st, P, 0, 0xA1, 100, 1);
	stage_assert_filled(st->buf, 0xA1, 100);
	assert_int_equal(st->buf[100], 0);

	stage_post_recv(st, 7, 4096, 512, st->mr->lkey);
	send_op(st, ROCE_OP_RC_SEND_ONLY, P + 1, true, 0xB2, 200);
	stage_run(st);
	stage_expect_ack(st, P + 1, ACK_SYN, 2);
	stage_expect_wc(st->rcq, 7, ROCE_WC_SUCCESS, ROCE_WC_RECV, 200);
	stage_assert_filled(st->buf + 4096, 0xB2, 200);
	stage_close(st);
}

/* ACKs are cumulative (IBA 9.7.5.1.1): requests without AckReq get none;
 * the one that asks is answered for all of them; several asks that arrive
 * together get one ACK with the newest PSN and MSN. */
static void test_ack_coalescing(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		write_only(st, P + i, false, 256 * i, (uint8_t)(0x10 + i), 64);
	assert_int_equal(stage_run(st), 0);
	stage_assert_filled(st->buf + 512, 0x12, 64);
	write_only(st, P + 3, true, 768, 0x13, 64);
	stage_run(st);
	stage_expect_ack(st, P + 3, ACK_SYN, 4);

	for (uint32_t i = 4; i < 7; i++)
		write_only(st, P + i, true, 256 * i, (uint8_t)(0x10 + i), 64);
	stage_run(st);
	stage_expect_ack(st, P + 6, ACK_SYN, 7);
	stage_assert_filled(st->buf + 1536, 0x16, 64);
	assert_int_equal(stage_cnt(st, ROCE_CNT_ACKS_TX), 2);
	stage_close(st);
}

/* A duplicate SEND or WRITE (IBA 9.9.2.2) is not executed again: memory
 * and the receive queue stay as they are; it is ACKed with the newest PSN
 * executed (ePSN - 1) and the current MSN, as rxe's duplicate_request. */
static void test_duplicate_write_and_send(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	stage_post_recv(st, 1, 4096, 256, st->mr->lkey);
	stage_post_recv(st, 2, 8192, 256, st->mr->lkey);
	write_only(st, P, true, 0, 0x11, 128);
	send_op(st, ROCE_OP_RC_SEND_ONLY, P + 1, true, 0x22, 100);
	stage_run(st);
	stage_expect_ack(st, P + 1, ACK_SYN, 2);
	stage_expect_wc(st->rcq, 1, ROCE_WC_SUCCESS, ROCE_WC_RECV, 100);

	write_only(st, P, true, 0, 0x99, 128);
	stage_run(st);
	stage_expect_ack(st, P + 1, ACK_SYN, 2);
	stage_assert_filled(st->buf, 0x11, 128);

	send_op(st, ROCE_OP_RC_SEND_ONLY, P + 1, true, 0x98, 100);
	stage_run(st);
	stage_expect_ack(st, P + 1, ACK_SYN, 2);
	stage_expect_no_wc(st->rcq);
	stage_assert_filled(st->buf + 4096, 0x22, 100);
	stage_assert_filled(st->buf + 8192, 0x00, 256);      /* the 2nd WQE is unused */
	assert_int_equal(stage_cnt(st, ROCE_CNT_DUP_REQUESTS), 2);

	/* the next new request still finds the ePSN where it was */
	write_only(st, P + 2, true, 0, 0x33, 8);
	stage_run(st);
	stage_expect_ack(st, P + 2, ACK_SYN, 3);
	stage_close(st);
}

/*
 * A duplicate SEND/WRITE without AckReq is answered too: rxe's
 * duplicate_request ACKs every duplicate SEND or WRITE, AckReq or not (its
 * comment cites C9-105), so a requester that resends the middle of a
 * message hears where the responder is.
 */
static void test_duplicate_without_ackreq_acked(void **state)
{
	struct stage *st;

	(void)state;
	st = stage_open_default();
	write_only(st, P, true, 0, 0x11, 64);
	stage_run(st);
	stage_expect_ack(st, P, ACK_SYN, 1);
	write_only(st, P, false, 0, 0x11, 64);
	stage_run(st);
	stage_expect_ack(st, P, ACK_SYN, 1);
	stage_close(st);
}

/* A gap (PSN ahead of the ePSN) is NAKed once, PSN sequence error with the
 * ePSN (IBA 9.7.5.2, rxe check_psn); further ones are dropped silently
 * until the ePSN arrives; after it, a new gap is NAKed again. */
static void test_out_of_sequence_nak_once(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	write_only(st, P + 2, true, 0, 0x55, 32);
	stage_run(st);
	stage_expect_ack(st, P, NAK_SEQ, 0);
	stage_assert_filled(st->buf, 0, 32);

	write_only(st, P + 3, true, 0, 0x55, 32);
	write_only(st, P + 2, true, 0, 0x55, 32);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_PSN_SEQ_ERR), 1);
	stage_assert_filled(st->buf, 0, 32);

	write_only(st, P, true, 0, 0x66, 32);
	stage_run(st);
	stage_expect_ack(st, P, ACK_SYN, 1);
	stage_assert_filled(st->buf, 0x66, 32);

	write_only(st, P + 2, true, 0, 0x55, 32);
	stage_run(st);
	stage_expect_ack(st, P + 1, NAK_SEQ, 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_PSN_SEQ_ERR), 2);
	stage_close(st);
}

/* ---- READ ------------------------------------------------------------------- */

/* The response packet i of a READ of buf[off..]: its opcode, PSN, AETH (on
 * FIRST, LAST and ONLY: IBA 9.3, table 35; none on MIDDLE) and bytes. */
static void assert_read_resp(struct stage *st, unsigned i, uint8_t opcode, uint32_t psn,
			     uint32_t msn, size_t off, uint32_t len)
{
	const struct stage_frame *f = &st->rx[i];

	assert_int_equal(f->h.bth.opcode, opcode);
	assert_int_equal(f->h.bth.psn, psn);
	assert_int_equal(f->len, len);
	assert_memory_equal(f->payload, st->buf + off, len);
	if (roce_op_has(roce_opcode_info(opcode), ROCE_HDR_AETH)) {
		assert_int_equal(f->h.aeth.syndrome, ACK_SYN);
		assert_int_equal(f->h.aeth.msn, msn);
	} else {
		assert_int_equal(opcode, ROCE_OP_RC_READ_RESP_MIDDLE);
	}
}

/* A READ of 712 bytes at a 256-byte MTU: FIRST, MIDDLE, LAST at the
 * request's PSN and the next two; the MSN counts the READ (C9-148); the
 * ePSN moves past all three. One MTU or less: ONLY. */
static void test_read_responses(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	stage_fill(st->buf, 4096, 3, 7);
	read_req(st, P, stage_va(st, 16), st->mr->rkey, 712);
	assert_int_equal(stage_run(st), 3);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_FIRST, P, 1, 16, 256);
	assert_read_resp(st, 1, ROCE_OP_RC_READ_RESP_MIDDLE, P + 1, 1, 272, 256);
	assert_read_resp(st, 2, ROCE_OP_RC_READ_RESP_LAST, P + 2, 1, 528, 200);

	read_req(st, P + 3, stage_va(st, 1000), st->mr->rkey, 256);
	assert_int_equal(stage_run(st), 1);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_ONLY, P + 3, 2, 1000, 256);

	/* C9-88: a zero-length READ checks no R_Key and returns ONLY, empty */
	read_req(st, P + 4, 0, 0xDEAD, 0);
	assert_int_equal(stage_run(st), 1);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_ONLY, P + 4, 3, 0, 0);

	write_only(st, P + 5, true, 8192, 0x44, 16);
	stage_run(st);
	stage_expect_ack(st, P + 5, ACK_SYN, 4);
	stage_close(st);
}

/* A duplicate READ is answered again from memory as it is now (IBA
 * 9.9.2.2: READs are re-executed), with the MSN unchanged; a duplicate
 * from inside the first range (the requester asks only for what it
 * lacks, IBA 9.7.7.1) is answered as a READ of its own range from its
 * PSN: ONLY here (rxe replays it as a LAST; its completer takes both). */
static void test_duplicate_read(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	stage_fill(st->buf, 1024, 1, 7);
	read_req(st, P, stage_va(st, 0), st->mr->rkey, 512);
	assert_int_equal(stage_run(st), 2);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_FIRST, P, 1, 0, 256);
	assert_read_resp(st, 1, ROCE_OP_RC_READ_RESP_LAST, P + 1, 1, 256, 256);

	stage_fill(st->buf, 1024, 0x80, 7);
	read_req(st, P, stage_va(st, 0), st->mr->rkey, 512);
	assert_int_equal(stage_run(st), 2);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_FIRST, P, 1, 0, 256);
	assert_read_resp(st, 1, ROCE_OP_RC_READ_RESP_LAST, P + 1, 1, 256, 256);
	assert_int_equal(st->rx[0].payload[0], 0x80);

	read_req(st, P + 1, stage_va(st, 256), st->mr->rkey, 256);
	assert_int_equal(stage_run(st), 1);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_ONLY, P + 1, 1, 256, 256);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DUP_REQUESTS), 2);

	write_only(st, P + 2, true, 4096, 0x44, 16);
	stage_run(st);
	stage_expect_ack(st, P + 2, ACK_SYN, 2);
	stage_close(st);
}

/* A duplicate SEND or WRITE is ACKed up to the last SEND or WRITE taken,
 * not to the ePSN when a READ came after it (rxe's ack_psn): rxe's
 * requester completes a READ whose PSN an ACK covers, data or not
 * (COMPST_COMP_ACK), and its response may be the packet that was lost.
 * The READ, resent, is answered by its replay. */
static void test_duplicate_ack_skips_read(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	write_acked(st, P, 0, 0x11, 16, 1);
	read_req(st, P + 1, stage_va(st, 0), st->mr->rkey, 16);
	assert_int_equal(stage_run(st), 1);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_ONLY, P + 1, 2, 0, 16);
	/* the WRITE's ACK was lost: the requester goes back to it */
	write_acked(st, P, 0, 0x11, 16, 2);
	read_req(st, P + 1, stage_va(st, 0), st->mr->rkey, 16);
	assert_int_equal(stage_run(st), 1);
	assert_read_resp(st, 0, ROCE_OP_RC_READ_RESP_ONLY, P + 1, 2, 0, 16);
	/* a SEND after the READ moves it on */
	stage_post_recv(st, 1, 1024, 64, st->mr->lkey);
	send_op(st, ROCE_OP_RC_SEND_ONLY, P + 2, true, 0x22, 8);
	stage_run(st);
	stage_expect_ack(st, P + 2, ACK_SYN, 3);
	send_op(st, ROCE_OP_RC_SEND_ONLY, P + 2, true, 0x22, 8);
	stage_run(st);
	stage_expect_ack(st, P + 2, ACK_SYN, 3);
	stage_close(st);
}

/* ---- atomics ---------------------------------------------------------------- */

static void expect_atomic_ack(struct stage *st, uint32_t psn, uint32_t msn, uint64_t orig)
{
	assert_int_equal(st->nrx, 1);
	stage_assert_aeth(&st->rx[0], ROCE_OP_RC_ATOMIC_ACK, psn, ACK_SYN, msn);
	assert_int_equal(st->rx[0].h.atomic_ack.orig, orig);
}

/* FETCH_ADD and CMP_SWAP (IBA 9.3.4, 9.3.6): the ATOMIC ACKNOWLEDGE carries the
 * value before the operation; a failed compare leaves memory alone. */
static void test_atomics(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	stage_set_word(st, 64, 100);
	atomic_req(st, ROCE_OP_RC_FETCH_ADD, P, 64, 5, 0);
	stage_run(st);
	expect_atomic_ack(st, P, 1, 100);
	assert_int_equal(stage_word(st, 64), 105);

	atomic_req(st, ROCE_OP_RC_CMP_SWAP, P + 1, 64, 7, 105);
	stage_run(st);
	expect_atomic_ack(st, P + 1, 2, 105);
	assert_int_equal(stage_word(st, 64), 7);

	atomic_req(st, ROCE_OP_RC_CMP_SWAP, P + 2, 64, 1, 999);
	stage_run(st);
	expect_atomic_ack(st, P + 2, 3, 7);
	assert_int_equal(stage_word(st, 64), 7);
	stage_close(st);
}

/* A duplicate atomic is never executed twice (IBA 9.9.2.2): it gets the
 * saved original value back, even after later atomics changed the word,
 * with the current MSN (rxe replays its responder resource the same way). */
static void test_duplicate_atomic_replayed(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	stage_set_word(st, 8, 100);
	atomic_req(st, ROCE_OP_RC_FETCH_ADD, P, 8, 5, 0);
	stage_run(st);
	expect_atomic_ack(st, P, 1, 100);

	atomic_req(st, ROCE_OP_RC_FETCH_ADD, P, 8, 5, 0);
	stage_run(st);
	expect_atomic_ack(st, P, 1, 100);
	assert_int_equal(stage_word(st, 8), 105);

	atomic_req(st, ROCE_OP_RC_FETCH_ADD, P + 1, 8, 5, 0);
	stage_run(st);
	expect_atomic_ack(st, P + 1, 2, 105);
	atomic_req(st, ROCE_OP_RC_FETCH_ADD, P, 8, 5, 0);
	stage_run(st);
	expect_atomic_ack(st, P, 2, 100);
	assert_int_equal(stage_word(st, 8), 110);
	assert_int_equal(stage_cnt(st, ROCE_CNT_DUP_REQUESTS), 2);
	stage_close(st);
}

/* ---- RNR ---------------------------------------------------------------------- */

/* No receive WQE: RNR NAK with the request's PSN and the QP's minimum RNR
 * timer (IBA 9.7.5.2.8, syndrome 0x20 | 4); nothing executed, the ePSN
 * stays, and the same request succeeds once a WQE is posted. A WRITE with
 * immediate needs a WQE too, and writes no byte without one. */
static void test_rnr_nak(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_hdrs h;
	uint8_t data[64];

	(void)state;
	send_op(st, ROCE_OP_RC_SEND_ONLY, P, true, 0x71, 64);
	stage_run(st);
	stage_expect_ack(st, P, ROCE_AETH_RNR_NAK | 4, 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_RNR), 1);

	stage_post_recv(st, 9, 4096, 256, st->mr->lkey);
	send_op(st, ROCE_OP_RC_SEND_ONLY, P, true, 0x71, 64);
	stage_run(st);
	stage_expect_ack(st, P, ACK_SYN, 1);
	stage_expect_wc(st->rcq, 9, ROCE_WC_SUCCESS, ROCE_WC_RECV, 64);

	h = stage_hdrs(st, ROCE_OP_RC_WRITE_ONLY_IMM, P + 1, true);
	h.reth.va = stage_va(st, 0);
	h.reth.rkey = st->mr->rkey;
	h.reth.len = sizeof(data);
	h.imm = 0x01020304;
	memset(data, 0x72, sizeof(data));
	stage_inject(st, &h, data, sizeof(data));
	stage_run(st);
	stage_expect_ack(st, P + 1, ROCE_AETH_RNR_NAK | 4, 1);
	stage_assert_filled(st->buf, 0, sizeof(data));
	stage_expect_no_wc(st->rcq);
	stage_close(st);
}

/* ---- NAK codes ---------------------------------------------------------------- */

/* After an error NAK the QP is in ERR (IBA 9.9.2 class C): its receive WQE
 * is flushed and a later request gets no answer. */
static void assert_error_state(struct stage *st, uint32_t next_psn)
{
	assert_int_equal(stage_qp_state(st), ROCE_QPS_ERR);
	stage_expect_wc(st->rcq, 99, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_RECV, 0);
	write_only(st, next_psn, true, 0, 0x5A, 8);
	assert_int_equal(stage_run(st), 0);
	stage_assert_filled(st->buf, 0, 8);
}

/* An opcode out of sequence (a MIDDLE or LAST with no FIRST, a FIRST inside
 * another message): NAK Invalid Request (IBA 9.9.2 class C; rxe
 * RESPST_ERR_MISSING_OPCODE_*). */
static void test_opcode_out_of_sequence_invalid_request(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	stage_post_recv(st, 99, 4096, 1024, st->mr->lkey);
	send_op(st, ROCE_OP_RC_SEND_MIDDLE, P, false, 0x10, STAGE_MTU);
	stage_run(st);
	stage_expect_ack(st, P, NAK_INV, 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_INVALID_REQ), 1);
	assert_error_state(st, P + 1);
	stage_close(st);

	st = stage_open_default();
	stage_post_recv(st, 99, 4096, 1024, st->mr->lkey);
	send_op(st, ROCE_OP_RC_SEND_FIRST, P, false, 0x10, STAGE_MTU);
	write_only(st, P + 1, true, 0, 0x20, 16);
	stage_run(st);
	stage_expect_ack(st, P + 1, NAK_INV, 0);
	assert_error_state(st, P + 2);
	stage_close(st);
}

/* An operation the QP does not enable (IBA 10.6.3.1 access flags): NAK
 * Invalid Request, nothing written or read (rxe check_op_valid). */
static void test_operation_not_enabled_invalid_request(void **state)
{
	static const unsigned keep[2] = {
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ,
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE,
	};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct stage *st = stage_open_default();
		struct roce_qp_attr at = { .qp_state = ROCE_QPS_RTS, .qp_access_flags = keep[i] };

		assert_int_equal(roce_modify_qp(st->qp, &at,
						ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS), ROCE_OK);
		stage_post_recv(st, 99, 4096, 256, st->mr->lkey);
		if (i == 0)
			write_only(st, P, true, 0, 0x77, 32);
		else
			read_req(st, P, stage_va(st, 0), st->mr->rkey, 32);
		stage_run(st);
		stage_expect_ack(st, P, NAK_INV, 0);
		assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), 0);
		assert_error_state(st, P + 1);
		stage_close(st);
	}
}

/* The MR refuses (IBA 9.9.2 class C; rxe RESPST_ERR_RKEY_VIOLATION): a
 * wrong R_Key, a range past the MR's end, for a WRITE, a READ or an
 * atomic: NAK Remote Access Error (0x62), nothing moves. */
static void test_bad_rkey_and_bounds_remote_access(void **state)
{
	(void)state;
	for (int i = 0; i < 4; i++) {
		struct stage *st = stage_open_default();
		struct roce_hdrs h = stage_hdrs(st, ROCE_OP_RC_WRITE_ONLY, P, true);
		uint8_t data[100];

		memset(data, 0xE1, sizeof(data));
		stage_post_recv(st, 99, 4096, 256, st->mr->lkey);
		h.reth.va = stage_va(st, i == 1 ? STAGE_BUF_LEN - 10 : 0);
		h.reth.rkey = st->mr->rkey ^ (i == 0 ? 0x80u : 0u);
		h.reth.len = sizeof(data);
		if (i < 2)
			stage_inject(st, &h, data, sizeof(data));
		else if (i == 2)
			read_req(st, P, stage_va(st, 0), st->mr->rkey ^ 0x80u, 64);
		else    /* aligned, one word past the end */
			atomic_req(st, ROCE_OP_RC_FETCH_ADD, P, STAGE_BUF_LEN, 1, 0);
		stage_run(st);
		stage_expect_ack(st, P, NAK_ACC, 0);
		assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), 1);
		stage_assert_filled(st->buf, 0, sizeof(data));
		stage_assert_filled(st->buf + STAGE_BUF_LEN - 10, 0, 10);
		assert_error_state(st, P + 1);
		stage_close(st);
	}
}

/* Receive-side failures of a SEND: a receive buffer too small is an
 * Invalid Request NAK and a local length error on the WQE (IBA 9.9.2
 * class C, 10.8.3); a WQE whose L_Key is bad is a Remote Operational
 * Error NAK (0x63, class A) and a local protection error; an atomic on an
 * unaligned address is an Invalid Request (rxe ERR_MISALIGNED_ATOMIC). */
static void test_receive_errors_and_misaligned_atomic(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++) {
		struct stage *st = stage_open_default();

		switch (i) {
		case 0:
			stage_post_recv(st, 5, 4096, 100, st->mr->lkey);
			send_op(st, ROCE_OP_RC_SEND_ONLY, P, true, 0x31, 200);
			stage_run(st);
			stage_expect_ack(st, P, NAK_INV, 0);
			stage_expect_wc(st->rcq, 5, ROCE_WC_LOC_LEN_ERR, ROCE_WC_RECV, 0);
			break;
		case 1:
			stage_post_recv(st, 5, 4096, 256, st->mr->lkey ^ 0x80);
			send_op(st, ROCE_OP_RC_SEND_ONLY, P, true, 0x31, 200);
			stage_run(st);
			stage_expect_ack(st, P, NAK_OP, 0);
			stage_expect_wc(st->rcq, 5, ROCE_WC_LOC_PROT_ERR, ROCE_WC_RECV, 0);
			break;
		case 2:
			stage_set_word(st, 0, 1);
			atomic_req(st, ROCE_OP_RC_FETCH_ADD, P, 4, 1, 0);
			stage_run(st);
			stage_expect_ack(st, P, NAK_INV, 0);
			assert_int_equal(stage_word(st, 0), 1);
			break;
		}
		stage_assert_filled(st->buf + 4096, 0, 256);
		assert_int_equal(stage_qp_state(st), ROCE_QPS_ERR);
		stage_close(st);
	}
}

/*
 * A responder that offered no READ/atomic resources (max_dest_rd_atomic
 * = 0) refuses a READ: rxe's check_resource answers
 * RESPST_ERR_TOO_MANY_RDMA_ATM_REQ, an Invalid Request NAK (IBA 9.9.2
 * class C).
 */
static void test_read_without_responder_resources(void **state)
{
	struct stage_opts o = { .max_dest_rd_atomic = STAGE_ZERO };
	struct stage *st;

	(void)state;
	st = stage_open(&o);
	read_req(st, P, stage_va(st, 0), st->mr->rkey, 64);
	stage_run(st);
	stage_expect_ack(st, P, NAK_INV, 0);
	stage_close(st);
}

/*
 * An empty SEND LAST is refused. Every packet but an ONLY carries payload
 * (IBA 9.7: a LAST carries 1 to PMTU bytes; a message that is a multiple
 * of the PMTU ends with a full LAST); rxe's check_length NAKs an empty
 * LAST Invalid Request.
 */
static void test_empty_send_last_invalid_request(void **state)
{
	struct stage *st;

	(void)state;
	st = stage_open_default();
	stage_post_recv(st, 5, 4096, 1024, st->mr->lkey);
	send_op(st, ROCE_OP_RC_SEND_FIRST, P, false, 0x10, STAGE_MTU);
	send_op(st, ROCE_OP_RC_SEND_LAST, P + 1, true, 0, 0);
	stage_run(st);
	stage_expect_ack(st, P + 1, NAK_INV, 0);
	stage_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_request_executed_and_acked),
		cmocka_unit_test(test_ack_coalescing),
		cmocka_unit_test(test_duplicate_write_and_send),
		cmocka_unit_test(test_duplicate_without_ackreq_acked),
		cmocka_unit_test(test_out_of_sequence_nak_once),
		cmocka_unit_test(test_read_responses),
		cmocka_unit_test(test_duplicate_read),
		cmocka_unit_test(test_duplicate_ack_skips_read),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_duplicate_atomic_replayed),
		cmocka_unit_test(test_rnr_nak),
		cmocka_unit_test(test_opcode_out_of_sequence_invalid_request),
		cmocka_unit_test(test_operation_not_enabled_invalid_request),
		cmocka_unit_test(test_bad_rkey_and_bounds_remote_access),
		cmocka_unit_test(test_receive_errors_and_misaligned_atomic),
		cmocka_unit_test(test_read_without_responder_resources),
		cmocka_unit_test(test_empty_send_last_invalid_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
