/* SPDX-License-Identifier: MIT */
/*
 * The completer (src/engine/comp.c) alone: work requests posted through
 * the verbs API, hand-built ACKs, NAKs, READ responses and atomic ACKs from
 * a scripted peer in; completions, and the exact frames the requester
 * sends again, out (stage.h). The rules are IBA 9.7.5.1 (ACKs are
 * cumulative, responses acknowledge what precedes them), 9.7.5.2 (NAK
 * codes, RNR), 9.7.6.1.3 (ACK timeout and retry count) and 10.8.3
 * (completion order and statuses), as rxe's rxe_comp.c applies them.
 */
#include "stage.h"
#include "roce/cc.h"

#define S STAGE_SQ_PSN
#define REMOTE_VA 0x7F0000001000ull
#define REMOTE_RKEY 0x4242u
#define ACK_SYN (ROCE_AETH_ACK | ROCE_AETH_CREDIT_INVALID)
#define TIMEOUT_5_NS (4096ull << 5)     /* IBA 9.7.6.1.3: 4.096 us * 2^5 */

static void post_rdma(struct stage *st, uint64_t wr_id, enum roce_wr_opcode op,
		      size_t off, uint32_t len)
{
	struct roce_sge sge;
	struct roce_send_wr wr = stage_wr(st, &sge, wr_id, op, off, len);

	wr.wr.rdma.remote_addr = REMOTE_VA;
	wr.wr.rdma.rkey = REMOTE_RKEY;
	stage_post(st, &wr);
}

/* A READ response (or ATOMIC ACK) from the peer. */
static void inject_resp(struct stage *st, uint8_t opcode, uint32_t psn, uint32_t msn,
			const uint8_t *data, uint32_t len)
{
	struct roce_hdrs h = stage_hdrs(st, opcode, psn, false);

	h.aeth.syndrome = ACK_SYN;
	h.aeth.msn = msn;
	stage_inject(st, &h, data, len);
}

/* Frame a of the last run is frame b of an earlier one, byte for byte in
 * what IBA defines: regenerated from the WQE, a resent packet must be the
 * same packet (docs/design.md, "Retransmission"). */
static void assert_same_frame(const struct stage_frame *a, const struct stage_frame *b)
{
	assert_int_equal(a->h.bth.opcode, b->h.bth.opcode);
	assert_int_equal(a->h.bth.psn, b->h.bth.psn);
	assert_int_equal(a->h.bth.ackreq, b->h.bth.ackreq);
	assert_int_equal(a->h.bth.se, b->h.bth.se);
	assert_memory_equal(&a->h.reth, &b->h.reth, sizeof(a->h.reth));
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->payload, b->payload, a->len);
}

/* ---- ACKs ---------------------------------------------------------------------- */

/* An ACK of PSN p completes exactly the WRs that end at or before p, in
 * order; a WR only partly covered waits; an ACK for a PSN never sent, or
 * an old one, changes nothing. */
static void test_ack_completes_covered_wrs(void **state)
{
	struct stage *st = stage_open_default();

	(void)state;
	for (uint64_t i = 1; i <= 3; i++)
		post_rdma(st, i, ROCE_WR_RDMA_WRITE, 64 * i, 64);
	post_rdma(st, 4, ROCE_WR_RDMA_WRITE, 1024, 600);        /* S+3 .. S+5 */
	assert_int_equal(stage_run(st), 6);

	stage_inject_ack(st, S + 9, ACK_SYN, 9);                /* never sent */
	stage_run(st);
	stage_expect_no_wc(st->scq);

	stage_inject_ack(st, S + 1, ACK_SYN, 2);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	stage_expect_no_wc(st->scq);

	stage_inject_ack(st, S + 4, ACK_SYN, 3);                /* inside WR 4 */
	stage_run(st);
	stage_expect_wc(st->scq, 3, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	stage_expect_no_wc(st->scq);

	stage_inject_ack(st, S + 5, ACK_SYN, 4);
	stage_inject_ack(st, S + 2, ACK_SYN, 3);                /* stale */
	stage_run(st);
	stage_expect_wc(st->scq, 4, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 600);
	stage_expect_no_wc(st->scq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_ACKS_RX), 3);
	stage_close(st);
}

/* ---- NAKs ---------------------------------------------------------------------- */

/* NAK PSN sequence error at p (IBA 9.7.5.2, NAK codes): everything before p is
 * acknowledged, and the requester goes back to p: the packets from p on
 * are sent again, the same packets. */
static void test_nak_sequence_go_back_n(void **state)
{
	struct stage *st = stage_open_default();
	struct stage_frame *first = malloc(4 * sizeof(*first));

	(void)state;
	assert_non_null(first);
	stage_fill(st->buf, 2048, 0, 11);
	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, 600);           /* S .. S+2 */
	post_rdma(st, 2, ROCE_WR_RDMA_WRITE, 1024, 100);        /* S+3 */
	assert_int_equal(stage_run(st), 4);
	memcpy(first, st->rx, 4 * sizeof(*first));

	stage_inject_ack(st, S + 1, ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR, 0);
	assert_int_equal(stage_run(st), 3);
	for (unsigned i = 0; i < 3; i++)
		assert_same_frame(&st->rx[i], &first[i + 1]);
	assert_int_equal(st->rx[0].h.bth.psn, S + 1);
	stage_expect_no_wc(st->scq);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RETRANSMISSIONS), 3);
	assert_int_equal(stage_cnt(st, ROCE_CNT_NAKS_RX_PSN_SEQ_ERR), 1);

	stage_inject_ack(st, S + 3, ACK_SYN, 2);
	assert_int_equal(stage_run(st), 0);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 600);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 100);
	free(first);
	stage_close(st);
}

/* RNR NAK (IBA 9.7.5.2.8): wait the time its timer code says (table 45:
 * code 3 = 30 us), not a nanosecond less, then send the request again.
 * With no RNR retry left, the WR completes RNR_RETRY_EXC_ERR instead. */
static void test_rnr_nak_retry_after_timer(void **state)
{
	struct stage_opts o = { .rnr_retry = STAGE_ZERO };
	struct stage *st = stage_open_default();
	struct roce_sge sge;
	struct roce_send_wr wr = stage_wr(st, &sge, 1, ROCE_WR_SEND, 0, 64);
	struct stage_frame sent;

	(void)state;
	memset(st->buf, 0x5E, 64);
	stage_post(st, &wr);
	assert_int_equal(stage_run(st), 1);
	sent = st->rx[0];
	stage_inject_ack(st, S, ROCE_AETH_RNR_NAK | 3, 0);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(stage_advance(st, 30000 - 1), 0);
	assert_int_equal(stage_advance(st, 1), 1);
	assert_same_frame(&st->rx[0], &sent);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RNR_RETRIES), 1);
	stage_inject_ack(st, S, ACK_SYN, 1);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_SEND, 64);
	stage_close(st);

	st = stage_open(&o);
	wr = stage_wr(st, &sge, 1, ROCE_WR_SEND, 0, 64);
	stage_post(st, &wr);
	assert_int_equal(stage_run(st), 1);
	stage_inject_ack(st, S, ROCE_AETH_RNR_NAK | 3, 0);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_RNR_RETRY_EXC_ERR, ROCE_WC_SEND, 0);
	assert_int_equal(stage_advance(st, 1000000), 0);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_ERR);
	stage_close(st);
}

/* An RNR wait longer than the retransmission timer spends no retry: the
 * RNR NAK is the peer's answer, its wait (code 0: 655.36 ms) times the
 * resend, and the transport timer (timeout 10, 4.19 ms; retry_cnt 1)
 * runs again only from that resend. A timer left running through the
 * wait exhausted the count within 13 ms. */
static void test_rnr_wait_outlasts_timer(void **state)
{
	const struct stage_opts o = { .timeout = 10, .retry_cnt = 1 };
	struct stage *st = stage_open(&o);
	struct roce_sge sge;
	struct roce_send_wr wr = stage_wr(st, &sge, 1, ROCE_WR_SEND, 0, 64);

	(void)state;
	stage_post(st, &wr);
	assert_int_equal(stage_run(st), 1);
	stage_inject_ack(st, S, ROCE_AETH_RNR_NAK | 0, 0);
	assert_int_equal(stage_run(st), 0);
	for (int ms = 0; ms < 655; ms += 5)
		assert_int_equal(stage_advance(st, 5000000), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	stage_expect_no_wc(st->scq);
	assert_int_equal(stage_advance(st, 360000), 1);         /* 655.36 ms */
	assert_int_equal(st->rx[0].h.bth.psn, S);
	stage_inject_ack(st, S, ACK_SYN, 1);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_SEND, 64);
	stage_close(st);
}

/* NAK Invalid Request / Remote Access / Remote Operational at p (IBA
 * 9.7.5.2.2-4, 10.8.3.1): the WRs before p complete successfully, the WR
 * at p with the matching error, the rest are flushed, the QP is in ERR
 * and sends nothing more. */
static void test_nak_error_completions(void **state)
{
	static const struct {
		uint8_t code;
		enum roce_wc_status status;
	} cases[] = {
		{ ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR },
		{ ROCE_NAK_REMOTE_ACCESS, ROCE_WC_REM_ACCESS_ERR },
		{ ROCE_NAK_REMOTE_OP, ROCE_WC_REM_OP_ERR },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct stage *st = stage_open_default();

		for (uint64_t i = 1; i <= 3; i++)
			post_rdma(st, i, ROCE_WR_RDMA_WRITE, 64 * i, 64);
		assert_int_equal(stage_run(st), 3);
		stage_inject_ack(st, S + 1, (uint8_t)(ROCE_AETH_NAK | cases[c].code), 1);
		assert_int_equal(stage_run(st), 0);
		stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
		stage_expect_wc(st->scq, 2, cases[c].status, ROCE_WC_RDMA_WRITE, 0);
		stage_expect_wc(st->scq, 3, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_RDMA_WRITE, 0);
		stage_expect_no_wc(st->scq);
		assert_int_equal(stage_qp_state(st), ROCE_QPS_ERR);
		assert_int_equal(stage_advance(st, 100000000), 0);
		stage_close(st);
	}
}

/* ---- READ responses and atomic ACKs ------------------------------------------------ */

/* READ responses land in the WR's buffer at their offset (PSN - first PSN)
 * x MTU; the WR completes on the LAST, with the READ's length; nothing
 * outside the buffer moves. An ATOMIC ACK's original value lands in the
 * WR's 8-byte buffer. */
static void test_read_and_atomic_responses_land(void **state)
{
	struct stage *st = stage_open_default();
	uint8_t data[600];
	struct roce_sge sge;
	struct roce_send_wr wr;
	struct roce_hdrs h;
	uint64_t v;

	(void)state;
	stage_fill(data, sizeof(data), 1, 3);
	post_rdma(st, 1, ROCE_WR_RDMA_READ, 100, 600);
	assert_int_equal(stage_run(st), 1);
	inject_resp(st, ROCE_OP_RC_READ_RESP_FIRST, S, 1, data, 256);
	h = stage_hdrs(st, ROCE_OP_RC_READ_RESP_MIDDLE, S + 1, false);
	stage_inject(st, &h, data + 256, 256);
	stage_run(st);
	stage_expect_no_wc(st->scq);
	inject_resp(st, ROCE_OP_RC_READ_RESP_LAST, S + 2, 1, data + 512, 88);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_READ, 600);
	assert_memory_equal(st->buf + 100, data, 600);
	assert_int_equal(st->buf[99], 0);
	assert_int_equal(st->buf[700], 0);

	wr = stage_wr(st, &sge, 2, ROCE_WR_ATOMIC_FETCH_AND_ADD, 1024, 8);
	wr.wr.atomic.remote_addr = REMOTE_VA;
	wr.wr.atomic.rkey = REMOTE_RKEY;
	wr.wr.atomic.compare_add = 1;
	stage_post(st, &wr);
	assert_int_equal(stage_run(st), 1);
	assert_int_equal(st->rx[0].h.bth.psn, S + 3);
	h = stage_hdrs(st, ROCE_OP_RC_ATOMIC_ACK, S + 3, false);
	h.aeth.syndrome = ACK_SYN;
	h.aeth.msn = 2;
	h.atomic_ack.orig = 0x1122334455667788ull;
	stage_inject(st, &h, NULL, 0);
	stage_run(st);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_FETCH_ADD, 8);
	memcpy(&v, st->buf + 1024, 8);
	assert_int_equal(v, 0x1122334455667788ull);
	stage_close(st);
}

/* "Implied NAK" (IBA 9.7.5.1.2 and 9.7.7.1): an ACK past a READ whose
 * responses are not all in proves they were lost; the READ is asked again
 * for what is missing only (VA and length moved on by the responses that
 * came), from the first missing PSN, and what follows it is resent. */
static void test_implied_nak_reasks_read(void **state)
{
	struct stage *st = stage_open_default();
	uint8_t data[600];

	(void)state;
	stage_fill(data, sizeof(data), 2, 5);
	post_rdma(st, 1, ROCE_WR_RDMA_READ, 0, 600);            /* S .. S+2 */
	post_rdma(st, 2, ROCE_WR_RDMA_WRITE, 1024, 32);         /* S+3 */
	assert_int_equal(stage_run(st), 2);
	inject_resp(st, ROCE_OP_RC_READ_RESP_FIRST, S, 1, data, 256);
	assert_int_equal(stage_run(st), 0);

	stage_inject_ack(st, S + 3, ACK_SYN, 2);
	assert_int_equal(stage_run(st), 2);
	assert_int_equal(st->rx[0].h.bth.opcode, ROCE_OP_RC_READ_REQUEST);
	assert_int_equal(st->rx[0].h.bth.psn, S + 1);
	assert_int_equal(st->rx[0].h.reth.va, REMOTE_VA + 256);
	assert_int_equal(st->rx[0].h.reth.rkey, REMOTE_RKEY);
	assert_int_equal(st->rx[0].h.reth.len, 344);
	assert_int_equal(st->rx[1].h.bth.opcode, ROCE_OP_RC_WRITE_ONLY);
	assert_int_equal(st->rx[1].h.bth.psn, S + 3);
	stage_expect_no_wc(st->scq);

	inject_resp(st, ROCE_OP_RC_READ_RESP_FIRST, S + 1, 1, data + 256, 256);
	inject_resp(st, ROCE_OP_RC_READ_RESP_LAST, S + 2, 1, data + 512, 88);
	stage_inject_ack(st, S + 3, ACK_SYN, 2);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_READ, 600);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 32);
	assert_memory_equal(st->buf, data, 600);
	stage_close(st);
}

/* ---- timeouts --------------------------------------------------------------------- */

/* The QP's loss recovery for a timeout test: IBA's alone (the QP's own
 * CC_QP_RECOVERY, no bit), or the defaults' (the QP's own bits for the
 * adaptive timer, probes and window, whatever the device's), where a timeout's first resend is una's packet alone
 * (recovery.c, F-RTO): how many packets a timeout sends again. */
static unsigned timeout_recovery(struct stage *st, bool iba, unsigned outstanding)
{
	assert_int_equal(roce_qp_set_recovery(st->qp, iba ? ROCE_RECOVERY_OWN
						      : ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_RTO |
							ROCE_RECOVERY_ADAPTIVE_WINDOW),
			 ROCE_OK);
	return iba ? outstanding : 1;
}

/* No response: after the local ACK timeout (4.096 us x 2^timeout, IBA
 * 9.7.6.1.3), exactly then and not before, the packets are sent again
 * from the oldest: every unacknowledged one as IBA says, una's alone with
 * the defaults until an ACK tells a loss from a late ACK. */
static void timeout_retransmits(bool iba)
{
	struct stage_opts o = { .timeout = 5 };
	struct stage *st = stage_open(&o);
	struct stage_frame sent[2];
	unsigned n = timeout_recovery(st, iba, 2);

	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, 300);           /* S, S+1 */
	assert_int_equal(stage_run(st), 2);
	memcpy(sent, st->rx, sizeof(sent));
	assert_int_equal(stage_advance(st, TIMEOUT_5_NS - 1), 0);
	assert_int_equal(stage_advance(st, 1), n);
	/* una's packet alone asks for the ACK that tells (AckReq) */
	if (!iba)
		sent[0].h.bth.ackreq = true;
	for (unsigned i = 0; i < n; i++)
		assert_same_frame(&st->rx[i], &sent[i]);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 1);

	stage_inject_ack(st, S + 1, ACK_SYN, 1);
	assert_int_equal(stage_run(st), 0);             /* nothing more to send */
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 300);
	assert_int_equal(stage_advance(st, 10 * TIMEOUT_5_NS), 0);  /* timer off */
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 1);
	stage_close(st);
}

static void test_timeout_retransmits(void **state)
{
	(void)state;
	timeout_retransmits(true);
	timeout_retransmits(false);
}

/* retry_cnt = 2: two resends after two timeouts, and the third timeout
 * ends the WR with RETRY_EXC_ERR; the one behind it is flushed. The same
 * count with the defaults, whose resends are una's packet alone. */
static void retry_count_exceeded(bool iba)
{
	struct stage_opts o = { .timeout = 5, .retry_cnt = 2 };
	struct stage *st = stage_open(&o);
	unsigned n = timeout_recovery(st, iba, 2);

	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, 16);
	post_rdma(st, 2, ROCE_WR_RDMA_WRITE, 16, 16);
	assert_int_equal(stage_run(st), 2);
	for (int retry = 0; retry < 2; retry++) {
		assert_int_equal(stage_advance(st, TIMEOUT_5_NS), n);
		for (unsigned i = 0; i < n; i++)
			assert_int_equal(st->rx[i].h.bth.psn, S + i);
		stage_expect_no_wc(st->scq);
	}
	assert_int_equal(stage_advance(st, TIMEOUT_5_NS), 0);
	stage_expect_wc(st->scq, 1, ROCE_WC_RETRY_EXC_ERR, ROCE_WC_RDMA_WRITE, 0);
	stage_expect_wc(st->scq, 2, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_RDMA_WRITE, 0);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_ERR);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 3);
	stage_close(st);
}

static void test_retry_count_exceeded(void **state)
{
	(void)state;
	retry_count_exceeded(true);
	retry_count_exceeded(false);
}

/* The same after the peer answered: an ACK that made progress restores
 * the count, and no more. The peer then vanishes: still two resends and
 * RETRY_EXC_ERR at the third timeout (a peer that answered once must not
 * earn one more retry). */
static void test_retry_count_after_progress(void **state)
{
	struct stage_opts o = { .timeout = 5, .retry_cnt = 2 };
	struct stage *st = stage_open(&o);

	(void)state;
	post_rdma(st, 1, ROCE_WR_RDMA_WRITE, 0, 16);
	assert_int_equal(stage_run(st), 1);
	stage_inject_ack(st, S, ACK_SYN, 1);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 16);
	post_rdma(st, 2, ROCE_WR_RDMA_WRITE, 16, 16);
	assert_int_equal(stage_run(st), 1);
	for (int retry = 0; retry < 2; retry++) {
		assert_int_equal(stage_advance(st, TIMEOUT_5_NS), 1);
		assert_int_equal(st->rx[0].h.bth.psn, S + 1);
		stage_expect_no_wc(st->scq);
	}
	assert_int_equal(stage_advance(st, TIMEOUT_5_NS), 0);
	stage_expect_wc(st->scq, 2, ROCE_WC_RETRY_EXC_ERR, ROCE_WC_RDMA_WRITE, 0);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_ERR);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 3);
	stage_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ack_completes_covered_wrs),
		cmocka_unit_test(test_nak_sequence_go_back_n),
		cmocka_unit_test(test_rnr_nak_retry_after_timer),
		cmocka_unit_test(test_rnr_wait_outlasts_timer),
		cmocka_unit_test(test_nak_error_completions),
		cmocka_unit_test(test_read_and_atomic_responses_land),
		cmocka_unit_test(test_implied_nak_reasks_read),
		cmocka_unit_test(test_timeout_retransmits),
		cmocka_unit_test(test_retry_count_exceeded),
		cmocka_unit_test(test_retry_count_after_progress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
