/* SPDX-License-Identifier: MIT */
/*
 * The requester (src/engine/req.c) alone: work requests in through the
 * verbs API, the exact request frames out (opcode, PSN, AckReq, RETH,
 * AtomicETH, ImmDt, payload), read by a scripted peer (stage.h). The rules
 * are IBA 9.7 (segmentation by path MTU, PSNs), 9.7.6.1.4 (AckReq),
 * 9.3 (which headers each opcode carries) and 10.8 (work requests).
 */
#include <arpa/inet.h>

#include "stage.h"

#define S STAGE_SQ_PSN
#define REMOTE_VA 0x7F0000001000ull
#define REMOTE_RKEY 0x4242u
#define ACK_SYN (ROCE_AETH_ACK | ROCE_AETH_CREDIT_INVALID)

static void post_rdma(struct stage *st, uint64_t wr_id, enum roce_wr_opcode op,
		      size_t off, uint32_t len, unsigned flags)
{
	struct roce_sge sge;
	struct roce_send_wr wr = stage_wr(st, &sge, wr_id, op, off, len);

	wr.send_flags = flags;
	wr.wr.rdma.remote_addr = REMOTE_VA;
	wr.wr.rdma.rkey = REMOTE_RKEY;
	stage_post(st, &wr);
}

static void post_atomic(struct stage *st, uint64_t wr_id, enum roce_wr_opcode op,
			size_t off, uint64_t compare_add, uint64_t swap)
{
	struct roce_sge sge;
	struct roce_send_wr wr = stage_wr(st, &sge, wr_id, op, off, 8);

	wr.wr.atomic.remote_addr = REMOTE_VA + 64;
	wr.wr.atomic.rkey = REMOTE_RKEY;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	stage_post(st, &wr);
}

/* Frame i of the last run: opcode, PSN, AckReq and payload bytes buf[off..]. */
static void assert_req(struct stage *st, unsigned i, uint8_t opcode, uint32_t psn,
		       bool ackreq, size_t off, uint32_t len)
{
	const struct stage_frame *f = &st->rx[i];

	assert_true(i < st->nrx);
	if (f->h.bth.opcode != opcode)
		fail_msg("frame %u: %s, want %s", i, roce_opcode_name(f->h.bth.opcode),
			 roce_opcode_name(opcode));
	assert_int_equal(f->h.bth.psn, psn & 0xFFFFFFu);
	assert_int_equal(f->h.bth.ackreq, ackreq);
	assert_int_equal(f->h.bth.pad, -len & 3u);
	assert_int_equal(f->len, len);
	assert_memory_equal(f->payload, st->buf + off, len);
}

/* The frame carries a RETH (only FIRST, ONLY and READ REQUEST do: IBA 9.3,
 * table 35) with these fields, or, reth_len ~0, none. */
static void assert_reth(struct stage *st, unsigned i, uint64_t va, uint32_t rkey,
			uint32_t len)
{
	const struct stage_frame *f = &st->rx[i];
	bool has = roce_op_has(roce_opcode_info(f->h.bth.opcode), ROCE_HDR_RETH);

	if (len == ~0u) {
		assert_false(has);
		return;
	}
	assert_true(has);
	assert_int_equal(f->h.reth.va, va);
	assert_int_equal(f->h.reth.rkey, rkey);
	assert_int_equal(f->h.reth.len, len);
}

/* ---- WRITE -------------------------------------------------------------------- */

/* 701 bytes at a 256-byte MTU: FIRST, MIDDLE, LAST at consecutive PSNs from
 * the QP's sq_psn; the RETH (the whole message's VA, R_Key, length) only
 * on FIRST; AckReq only on LAST, whose 189 bytes take 3 bytes of pad. A
 * message of at most one MTU is one ONLY with RETH and AckReq, at the next
 * PSN. The frames go to the peer's address with the QP's P_Key. */
static void test_write_segments(void **state)
{
	struct stage *st = stage_open_default();
	const struct stage_frame *f;

	(void)state;
	stage_fill(st->buf, 4096, 5, 13);
	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, 701, ROCE_SEND_SIGNALED);
	assert_int_equal(stage_run(st), 3);
	assert_req(st, 0, ROCE_OP_RC_WRITE_FIRST, S, false, 0, 256);
	assert_reth(st, 0, REMOTE_VA, REMOTE_RKEY, 701);
	assert_req(st, 1, ROCE_OP_RC_WRITE_MIDDLE, S + 1, false, 256, 256);
	assert_reth(st, 1, 0, 0, ~0u);
	assert_req(st, 2, ROCE_OP_RC_WRITE_LAST, S + 2, true, 512, 189);
	assert_reth(st, 2, 0, 0, ~0u);
	f = &st->rx[0];
	assert_int_equal(roce_get_be32(f->h.ip.src), STAGE_ENG_IP);
	assert_int_equal(roce_get_be32(f->h.ip.dst), STAGE_PEER_IP);
	assert_int_equal(f->h.udp.dport, ROCE_UDP_PORT);
	assert_false(f->h.bth.se);

	post_rdma(st, 2, ROCE_WR_RDMA_WRITE, 1024, 100, ROCE_SEND_SIGNALED);
	assert_int_equal(stage_run(st), 1);
	assert_req(st, 0, ROCE_OP_RC_WRITE_ONLY, S + 3, true, 1024, 100);
	assert_reth(st, 0, REMOTE_VA, REMOTE_RKEY, 100);
	stage_expect_no_wc(st->scq);    /* nothing is complete before its ACK */
	stage_close(st);
}

/* PSNs are 24 bits (IBA 9.7.1): a message that starts at 0xFFFFFF goes on
 * at 0 and 1, and the ACK of PSN 1 completes it. */
static void test_write_psn_wraps(void **state)
{
	struct stage_opts o = { .sq_psn = 0xFFFFFF };
	struct stage *st = stage_open(&o);

	(void)state;
	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, 600, ROCE_SEND_SIGNALED);
	assert_int_equal(stage_run(st), 3);
	assert_req(st, 0, ROCE_OP_RC_WRITE_FIRST, 0xFFFFFF, false, 0, 256);
	assert_req(st, 1, ROCE_OP_RC_WRITE_MIDDLE, 0, false, 256, 256);
	assert_req(st, 2, ROCE_OP_RC_WRITE_LAST, 1, true, 512, 88);
	stage_inject_ack(st, 1, ACK_SYN, 1);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 600);
	stage_close(st);
}

/* A long message asks for an ACK at least every ROCE_ACKREQ_EVERY packets
 * (IBA 9.7.6.1.4 leaves the rate to the requester), and on its last. */
static void test_long_write_ackreq_rate(void **state)
{
	struct stage *st = stage_open_default();
	const unsigned n = ROCE_ACKREQ_EVERY + 8;

	(void)state;
	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, n * STAGE_MTU, ROCE_SEND_SIGNALED);
	assert_int_equal(stage_run(st), n);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(st->rx[i].h.bth.psn, S + i);
		assert_int_equal(st->rx[i].h.bth.ackreq,
				 i == ROCE_ACKREQ_EVERY - 1 || i == n - 1);
	}
	stage_close(st);
}

/* ---- SEND ---------------------------------------------------------------------- */

/* SEND with immediate: the ImmDt rides on the ONLY (or the LAST) packet,
 * in the byte order the application gave it (network order, as ibverbs);
 * the solicited event bit on the last packet only. A SEND of exactly one
 * MTU is one ONLY. */
static void test_send_with_immediate(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_sge sge;
	struct roce_send_wr wr;

	(void)state;
	stage_fill(st->buf, 4096, 9, 13);
	wr = stage_wr(st, &sge, 1, ROCE_WR_SEND_WITH_IMM, 0, 64);
	wr.imm_data = htonl(0xDEADBEEF);
	wr.send_flags |= ROCE_SEND_SOLICITED;
	stage_post(st, &wr);
	assert_int_equal(stage_run(st), 1);
	assert_req(st, 0, ROCE_OP_RC_SEND_ONLY_IMM, S, true, 0, 64);
	assert_int_equal(st->rx[0].h.imm, 0xDEADBEEF);
	assert_true(st->rx[0].h.bth.se);
	assert_reth(st, 0, 0, 0, ~0u);

	wr = stage_wr(st, &sge, 2, ROCE_WR_SEND_WITH_IMM, 1024, 300);
	wr.imm_data = htonl(0x01020304);
	wr.send_flags |= ROCE_SEND_SOLICITED;
	stage_post(st, &wr);
	wr = stage_wr(st, &sge, 3, ROCE_WR_SEND, 2048, STAGE_MTU);
	stage_post(st, &wr);
	assert_int_equal(stage_run(st), 3);
	assert_req(st, 0, ROCE_OP_RC_SEND_FIRST, S + 1, false, 1024, 256);
	assert_false(st->rx[0].h.bth.se);
	assert_false(roce_op_has(roce_opcode_info(st->rx[0].h.bth.opcode), ROCE_HDR_IMMDT));
	assert_req(st, 1, ROCE_OP_RC_SEND_LAST_IMM, S + 2, true, 1280, 44);
	assert_int_equal(st->rx[1].h.imm, 0x01020304);
	assert_true(st->rx[1].h.bth.se);
	assert_req(st, 2, ROCE_OP_RC_SEND_ONLY, S + 3, true, 2048, 256);
	assert_false(st->rx[2].h.bth.se);
	stage_close(st);
}

/* ---- READ and atomics ------------------------------------------------------------ */

/* A READ is one READ REQUEST: RETH with the remote VA, R_Key and length,
 * AckReq, no payload; its responses take the PSNs after it (IBA 9.7:
 * one per MTU), so the next request's PSN is 3 further on for 600 bytes. */
static void test_read_request(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	post_rdma(st, 1, ROCE_WR_RDMA_READ, 1024, 600, ROCE_SEND_SIGNALED);
	post_rdma(st, 2, ROCE_WR_RDMA_WRITE, 0, 16, ROCE_SEND_SIGNALED);
	assert_int_equal(stage_run(st), 2);
	assert_req(st, 0, ROCE_OP_RC_READ_REQUEST, S, true, 0, 0);
	assert_reth(st, 0, REMOTE_VA, REMOTE_RKEY, 600);
	assert_req(st, 1, ROCE_OP_RC_WRITE_ONLY, S + 3, true, 0, 16);
	stage_close(st);
}

/* CMP_SWAP and FETCH_ADD (IBA 9.3.4): the AtomicETH carries the remote VA,
 * R_Key, swap (or add) and compare values; one PSN each, AckReq. */
static void test_atomic_requests(void **state)
{
	struct stage *st = stage_open_default();
	const struct stage_frame *f;

	(void)state;
	post_atomic(st, 1, ROCE_WR_ATOMIC_CMP_AND_SWP, 0, 0x0505050505050505ull, 9);
	post_atomic(st, 2, ROCE_WR_ATOMIC_FETCH_AND_ADD, 8, 3, 0);
	assert_int_equal(stage_run(st), 2);
	f = &st->rx[0];
	assert_req(st, 0, ROCE_OP_RC_CMP_SWAP, S, true, 0, 0);
	assert_int_equal(f->h.atomic.va, REMOTE_VA + 64);
	assert_int_equal(f->h.atomic.rkey, REMOTE_RKEY);
	assert_int_equal(f->h.atomic.swap_add, 9);
	assert_int_equal(f->h.atomic.compare, 0x0505050505050505ull);
	f = &st->rx[1];
	assert_req(st, 1, ROCE_OP_RC_FETCH_ADD, S + 1, true, 0, 0);
	assert_int_equal(f->h.atomic.va, REMOTE_VA + 64);
	assert_int_equal(f->h.atomic.rkey, REMOTE_RKEY);
	assert_int_equal(f->h.atomic.swap_add, 3);
	assert_int_equal(f->h.atomic.compare, 0);
	stage_close(st);
}

/* max_rd_atomic = 2 (the QP attribute of IBA 11.2.5.3: READs and atomics
 * outstanding): two READ REQUESTs go out, the atomic after them waits, and
 * so does the WRITE behind it (a send queue is processed in order); the
 * first READ's response frees a slot and both follow. */
static void test_max_rd_atomic(void **state)
{
	struct stage_opts o = { .max_rd_atomic = 2 };
	struct stage *st = stage_open(&o);
	struct roce_hdrs h;
	uint8_t data[64];

	(void)state;
	post_rdma(st, 1, ROCE_WR_RDMA_READ, 0, 64, ROCE_SEND_SIGNALED);
	post_rdma(st, 2, ROCE_WR_RDMA_READ, 64, 64, ROCE_SEND_SIGNALED);
	post_atomic(st, 3, ROCE_WR_ATOMIC_FETCH_AND_ADD, 128, 1, 0);
	post_rdma(st, 4, ROCE_WR_RDMA_WRITE, 256, 32, ROCE_SEND_SIGNALED);
	assert_int_equal(stage_run(st), 2);
	assert_req(st, 0, ROCE_OP_RC_READ_REQUEST, S, true, 0, 0);
	assert_req(st, 1, ROCE_OP_RC_READ_REQUEST, S + 1, true, 0, 0);
	assert_int_equal(stage_advance(st, 1000), 0);   /* still waiting */

	h = stage_hdrs(st, ROCE_OP_RC_READ_RESP_ONLY, S, false);
	h.aeth.syndrome = ACK_SYN;
	h.aeth.msn = 1;
	memset(data, 0x3C, sizeof(data));
	stage_inject(st, &h, data, sizeof(data));
	assert_int_equal(stage_run(st), 2);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_READ, 64);
	assert_req(st, 0, ROCE_OP_RC_FETCH_ADD, S + 2, true, 0, 0);
	assert_req(st, 1, ROCE_OP_RC_WRITE_ONLY, S + 3, true, 256, 32);
	stage_close(st);
}

/* Unsignaled WRs (IBA 10.8.3.1, sq_sig_all off) complete without a
 * completion; the signaled one between them raises exactly one. */
static void test_unsignaled_no_completion(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, 32, 0);
	post_rdma(st, 2, ROCE_WR_RDMA_WRITE, 32, 32, ROCE_SEND_SIGNALED);
	post_rdma(st, 3, ROCE_WR_RDMA_WRITE, 64, 32, 0);
	assert_int_equal(stage_run(st), 3);
	assert_req(st, 2, ROCE_OP_RC_WRITE_ONLY, S + 2, true, 64, 32);
	stage_inject_ack(st, S + 2, ACK_SYN, 3);
	stage_run(st);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 32);
	stage_expect_no_wc(st->scq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_COMPLETIONS), 1);

	/* the unsignaled WRs are released all the same: the next WR is
	 * completed on its own ACK, alone */
	post_rdma(st, 4, ROCE_WR_RDMA_WRITE, 0, 8, ROCE_SEND_SIGNALED);
	assert_int_equal(stage_run(st), 1);
	assert_req(st, 0, ROCE_OP_RC_WRITE_ONLY, S + 3, true, 0, 8);
	stage_inject_ack(st, S + 3, ACK_SYN, 4);
	stage_run(st);
	stage_expect_wc(st->scq, 4, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 8);
	stage_expect_no_wc(st->scq);
	stage_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_segments),
		cmocka_unit_test(test_write_psn_wraps),
		cmocka_unit_test(test_long_write_ackreq_rate),
		cmocka_unit_test(test_send_with_immediate),
		cmocka_unit_test(test_read_request),
		cmocka_unit_test(test_atomic_requests),
		cmocka_unit_test(test_max_rd_atomic),
		cmocka_unit_test(test_unsignaled_no_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
