/* SPDX-License-Identifier: MIT */
/*
 * Timers at scale: 1K QP pairs, each busy with a window of WRITEs, SENDs
 * and READs, over a link that loses 5 % of the frames, in virtual time so
 * every timeout falls on a known poll.
 *   - Every message completes exactly once, in order, with its bytes where
 *     they belong; the losses cost timeouts and retransmissions.
 *   - Every frame either engine sends belongs to the QP it is addressed
 *     to: a tap on each port reads the QP index and message number every
 *     payload carries (scale.h) and checks them against the destination
 *     QPN, so a retransmission built from another QP's state would show.
 *   - A QP whose peer vanishes (B's QP destroyed) completes with
 *     RETRY_EXC_ERR after retry_cnt + 1 timeouts of 4.096 us * 2^timeout
 *     each (IBA 9.7.6.1.3), counted from its first transmission:
 *     no earlier, and no later than one poll per timeout; meanwhile every
 *     other QP keeps completing. That QP asks for IBA's recovery alone
 *     (CC_QP_RECOVERY): the exact times are IBA's timer's; the rest run
 *     the defaults (adaptive timer, probes, adaptive window), whose
 *     exhaustion test_engine_defaults times.
 */
#include "scale.h"
#include "roce/cc.h"

#define NQ 1024u                /* QP pairs */
#define WIN 4u                  /* messages outstanding per QP */
#define M1 12u                  /* messages per QP in the first part */
#define SLOTS 8u                /* message slots per QP (> WIN: reused once done) */
#define SLOT 256u
#define TIMEOUT 6u              /* 4.096 us * 2^6 = 262 us: 262 polls */
#define RETRY 7u
#define T_NS (4096ull << TIMEOUT)
#define POLL_NS 1000u           /* virtual time per pair_poll() */

/* A port between the engine and the link that checks every frame sent. */
struct tap {
	struct roce_port port;
	struct roce_port *inner;
	bool a;                         /* A's: requests; B's: responses */
};

static struct {
	struct pair p;
	struct roce_memlink *link;
	struct roce_port link_port[2];
	struct tap tap[2];
	int32_t *aidx, *bidx;           /* QPN -> QP index */
	uint32_t posted[NQ], done[NQ], recv_next[NQ];
	uint64_t recvs;                 /* receive completions, all QPs */
	uint32_t limit[NQ];             /* post while posted < limit */
	uint64_t bad;                   /* frames that broke a rule */
	char why[200];
	uint32_t vanished;              /* B's QPN that is gone (0: none) */
	uint64_t v_first;               /* vclock of its first frame */
	unsigned v_frames;
} S;

enum { OP_WRITE, OP_SEND, OP_READ };

static unsigned msg_op(uint32_t i, uint32_t m)
{
	return (i + m) % 3;
}

static uint32_t msg_len(uint32_t i, uint32_t m)
{
	return SCALE_TAG_LEN + (i * 31 + m * 17) % (SLOT - SCALE_TAG_LEN + 1);
}

static uint8_t *slot(const struct pair_side *s, uint32_t i, uint32_t m)
{
	return s->buf + ((size_t)i * SLOTS + m % SLOTS) * SLOT;
}

static void bad_frame(const char *what, uint32_t dqpn, uint32_t qp, uint32_t msg)
{
	if (!S.bad++)
		snprintf(S.why, sizeof(S.why), "%s: QPN %#x carries QP %u message %u", what,
			 dqpn, qp, msg);
}

/* Requests from A name their QP and an outstanding message of it; READ
 * responses from B name the QP they go to. */
static void inspect(const struct tap *t, const uint8_t *frame, uint32_t len)
{
	struct roce_pkt pkt;
	uint32_t dqpn, qp, msg;
	int32_t i;

	if (roce_parse(frame, len, 0, &pkt) != ROCE_OK) {
		bad_frame("unparsable", 0, 0, 0);
		return;
	}
	dqpn = roce_bth_dqpn(roce_pkt_bth(&pkt));
	i = (t->a ? S.bidx : S.aidx)[dqpn & (ROCE_MAX_QP - 1)];
	if (dqpn >= ROCE_MAX_QP || i < 0) {
		bad_frame("unknown QPN", dqpn, 0, 0);
		return;
	}
	if (t->a && dqpn == S.vanished && !S.v_frames++)
		S.v_first = S.p.vclock;
	switch (pkt.opcode) {
	case ROCE_OP_RC_WRITE_ONLY:
	case ROCE_OP_RC_SEND_ONLY:
	case ROCE_OP_RC_READ_RESP_ONLY:
		break;
	case ROCE_OP_RC_READ_REQUEST: {
		uint64_t va = roce_reth_va(roce_pkt_reth(&pkt));
		uint64_t lo = (uint64_t)(uintptr_t)slot(&S.p.b, (uint32_t)i, 0);

		if (va < lo || va >= lo + (uint64_t)SLOTS * SLOT)
			bad_frame("READ of another QP's region", dqpn, (uint32_t)i, 0);
		return;
	}
	default:
		return;                 /* ACKs and NAKs carry no payload */
	}
	if (pkt.payload_len < SCALE_TAG_LEN) {
		bad_frame("short payload", dqpn, (uint32_t)i, 0);
		return;
	}
	qp = roce_pkt_payload(&pkt)[0] | (uint32_t)roce_pkt_payload(&pkt)[1] << 8;
	msg = roce_pkt_payload(&pkt)[2] | (uint32_t)roce_pkt_payload(&pkt)[3] << 8;
	if (qp != (uint32_t)i)
		bad_frame("another QP's payload", dqpn, qp, msg);
	else if (t->a && (msg < S.done[i] || msg >= S.posted[i]))
		bad_frame("a message not outstanding", dqpn, qp, msg);
}

static unsigned tap_tx(void *ctx, const struct roce_frame *f, unsigned n)
{
	struct tap *t = ctx;

	for (unsigned k = 0; k < n; k++)
		inspect(t, f[k].data, f[k].len);
	return roce_port_tx(t->inner, f, n);
}

static unsigned tap_rx(void *ctx, struct roce_frame *f, unsigned max)
{
	return roce_port_rx(((struct tap *)ctx)->inner, f, max);
}

static void tap_release(void *ctx, unsigned n)
{
	roce_port_rx_release(((struct tap *)ctx)->inner, n);
}

/* No tx_get: every frame goes through tap_tx (faulty links copy anyway). */
static const struct roce_port_ops tap_ops = {
	.tx_burst = tap_tx, .rx_burst = tap_rx, .rx_release = tap_release,
};

static uint64_t vclock(void *ctx)
{
	return *(const uint64_t *)ctx;
}

static void setup(void)
{
	struct roce_memlink_config lc = {
		.seed = 2024, .loss = 0.05, .now_ns = vclock, .clock_ctx = &S.p.vclock,
	};
	struct pair_opts o = {
		.nqp = NQ, .virtual_time = true, .timeout = TIMEOUT, .retry_cnt = RETRY,
		.sq_depth = WIN, .rq_depth = WIN, .max_sge = 1,
		.buf_len = (size_t)NQ * SLOTS * SLOT,
	};

	memset(&S, 0, sizeof(S));
	assert_int_equal(roce_memlink_create(&lc, &S.link), ROCE_OK);
	for (int k = 0; k < 2; k++) {
		const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(k + 1) };

		assert_int_equal(roce_memlink_attach(S.link, mac, &S.link_port[k]), ROCE_OK);
		S.tap[k] = (struct tap){ .port = { .ops = &tap_ops, .ctx = &S.tap[k] },
					 .inner = &S.link_port[k], .a = k == 0 };
		memcpy(S.tap[k].port.mac, mac, 6);
		o.ports[k] = &S.tap[k].port;
	}
	if (pair_setup(&S.p, &o) != ROCE_OK)
		fail_msg("two engines: %s", S.p.err);
	S.aidx = scale_qpn_index(&S.p.a);
	S.bidx = scale_qpn_index(&S.p.b);
}

static void post_msg(uint32_t i, unsigned op)
{
	struct pair_side *a = &S.p.a, *b = &S.p.b;
	uint32_t m = S.posted[i], len = msg_len(i, m);
	uint64_t id = (uint64_t)i << 32 | m;
	struct roce_sge ls = { (uint64_t)(uintptr_t)slot(a, i, m), len, a->mr->lkey };
	struct roce_sge rs = { (uint64_t)(uintptr_t)slot(b, i, m), SLOT, b->mr->lkey };
	struct roce_recv_wr rw = { .wr_id = id, .sg_list = &rs, .num_sge = 1 };
	struct roce_send_wr wr = {
		.wr_id = id, .sg_list = &ls, .num_sge = 1, .send_flags = ROCE_SEND_SIGNALED,
		.opcode = op == OP_WRITE ? ROCE_WR_RDMA_WRITE
			: op == OP_SEND ? ROCE_WR_SEND : ROCE_WR_RDMA_READ,
	}, *bad = NULL;

	scale_fill(op == OP_READ ? slot(b, i, m) : slot(a, i, m), len, i, m);
	if (op == OP_SEND)
		assert_int_equal(roce_post_recv(b->qps[i], &rw, NULL), ROCE_OK);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)slot(b, i, m);
	wr.wr.rdma.rkey = b->mr->rkey;
	S.posted[i]++;                  /* before the doorbell: the tap may look */
	assert_int_equal(roce_post_send(a->qps[i], &wr, &bad), ROCE_OK);
}

static void refill(uint32_t i)
{
	while (S.posted[i] < S.limit[i] && S.posted[i] - S.done[i] < WIN)
		post_msg(i, msg_op(i, S.posted[i]));
}

/* A's completion of QP i's next message: in order, once, its bytes in
 * place. */
static void check_send_wc(const struct roce_wc *wc)
{
	uint32_t i = (uint32_t)(wc->wr_id >> 32), m = (uint32_t)wc->wr_id;
	static const enum roce_wc_opcode wc_op[] = {
		[OP_WRITE] = ROCE_WC_RDMA_WRITE, [OP_SEND] = ROCE_WC_SEND,
		[OP_READ] = ROCE_WC_RDMA_READ,
	};
	unsigned op = msg_op(i, m);

	assert_true(i < NQ);
	if (wc->status != ROCE_WC_SUCCESS)
		fail_msg("QP %u message %u: %s", i, m, roce_wc_status_str(wc->status));
	assert_int_equal(wc->qp_num, roce_qp_num(S.p.a.qps[i]));
	assert_int_equal(m, S.done[i]);
	assert_int_equal(wc->opcode, wc_op[op]);
	assert_int_equal(wc->byte_len, msg_len(i, m));
	assert_true(scale_check(op == OP_READ ? slot(&S.p.a, i, m) : slot(&S.p.b, i, m),
				msg_len(i, m), i, m));
	S.done[i]++;
}

static void check_recv_wc(const struct roce_wc *wc)
{
	uint32_t i = (uint32_t)(wc->wr_id >> 32), m = (uint32_t)wc->wr_id;

	assert_true(i < NQ);
	if (wc->status != ROCE_WC_SUCCESS)
		fail_msg("QP %u receive %u: %s", i, m, roce_wc_status_str(wc->status));
	assert_int_equal(msg_op(i, m), OP_SEND);
	assert_true(m >= S.recv_next[i]);       /* in order, once */
	S.recv_next[i] = m + 1;
	S.recvs++;
	assert_int_equal(wc->qp_num, roce_qp_num(S.p.b.qps[i]));
	assert_int_equal(wc->byte_len, msg_len(i, m));
}

/* One poll of both engines, completions checked and windows refilled.
 * Returns how many of A's completions it took; *odd gets one not for
 * check_send_wc (the vanished QP's) when there is one. */
static unsigned step(struct roce_wc *odd, bool *got_odd)
{
	struct roce_wc wc[64];
	unsigned took = 0;
	int n;

	pair_poll(&S.p);
	if (S.bad)
		fail_msg("%llu bad frames; the first: %s", (unsigned long long)S.bad, S.why);
	while ((n = roce_poll_cq(S.p.a.scq, 64, wc)) > 0)
		for (int k = 0; k < n; k++) {
			uint32_t i = (uint32_t)(wc[k].wr_id >> 32);

			if (S.vanished && i < NQ && S.p.b.qps[i] == NULL) {
				*odd = wc[k];
				*got_odd = true;
				continue;
			}
			check_send_wc(&wc[k]);
			refill(i);
			took++;
		}
	assert_true(n == 0);                    /* no CQ overrun */
	while ((n = roce_poll_cq(S.p.b.rcq, 64, wc)) > 0)
		for (int k = 0; k < n; k++)
			check_recv_wc(&wc[k]);
	assert_true(n == 0);
	return took;
}

/* Poll until every receive of the SENDs A completed has completed on B
 * too (an ACK may overtake the receive's completion by a poll), then a
 * while longer: no completion comes twice. */
static void settle_receives(uint64_t *polls, uint64_t max_polls)
{
	uint64_t want = 0;
	struct roce_wc odd;
	bool got = false;

	for (uint32_t i = 0; i < NQ; i++)
		for (uint32_t m = 0; m < S.done[i]; m++)
			want += msg_op(i, m) == OP_SEND;
	while (S.recvs < want) {
		assert_true(++*polls < max_polls);
		assert_int_equal(step(&odd, &got), 0);
	}
	for (int k = 0; k < 100; k++)
		assert_int_equal(step(&odd, &got), 0);
	assert_false(got);
	assert_int_equal(S.recvs, want);
}

static void test_timers_at_scale(void **state)
{
	static uint32_t at_first[NQ];
	const uint32_t v = NQ / 3;
	struct roce_memlink_stats st;
	uint64_t polls = 0, total = 0, t_done, el;
	struct roce_wc odd;
	bool got = false, snap = false;

	(void)state;
	setup();
	/* every QP busy with M1 messages, WIN at a time */
	for (uint32_t i = 0; i < NQ; i++) {
		S.limit[i] = M1;
		refill(i);
	}
	while (total < (uint64_t)NQ * M1) {
		/* a timer that never fires ends here: the loss needs them */
		assert_true(++polls < 40000);
		total += step(&odd, &got);
	}
	settle_receives(&polls, 60000);
	assert_true(pair_cnt(&S.p.a, ROCE_CNT_TIMEOUTS) > 0);
	assert_true(pair_cnt(&S.p.a, ROCE_CNT_RETRANSMISSIONS) > 0);
	assert_int_equal(pair_cnt(&S.p.a, ROCE_CNT_ERROR_COMPLETIONS), 0);
	roce_memlink_get_stats(S.link, &st);
	assert_true(st.lost > 0);

	/* QP v's peer vanishes; every other QP keeps sending */
	assert_int_equal(roce_qp_set_recovery(S.p.a.qps[v], ROCE_RECOVERY_OWN), ROCE_OK);
	S.vanished = roce_qp_num(S.p.b.qps[v]);
	assert_int_equal(roce_destroy_qp(S.p.b.qps[v]), ROCE_OK);
	S.p.b.qps[v] = NULL;
	S.limit[v] = S.posted[v] + 1;
	post_msg(v, OP_WRITE);
	for (uint32_t i = 0; i < NQ; i++)
		if (i != v) {
			S.limit[i] = UINT32_MAX;
			refill(i);
		}
	while (!got) {
		assert_true(++polls < 60000);
		step(&odd, &got);
		if (S.v_frames && !snap) {
			memcpy(at_first, S.done, sizeof(at_first));
			snap = true;
		}
	}
	t_done = S.p.vclock - POLL_NS;          /* the poll it came in */
	assert_int_equal(odd.wr_id, (uint64_t)v << 32 | M1);
	assert_int_equal(odd.qp_num, roce_qp_num(S.p.a.qps[v]));
	assert_int_equal(odd.status, ROCE_WC_RETRY_EXC_ERR);
	/* sent once, then again after each timeout but the last */
	assert_int_equal(S.v_frames, RETRY + 1);
	el = t_done - S.v_first;
	if (el < (RETRY + 1) * T_NS || el >= (RETRY + 1) * (T_NS + POLL_NS))
		fail_msg("RETRY_EXC_ERR %llu ns after the first frame; IBA: %llu, "
			 "+ at most a poll per timeout", (unsigned long long)el,
			 (unsigned long long)((RETRY + 1) * T_NS));
	/* meanwhile every other QP completed messages */
	for (uint32_t i = 0; i < NQ; i++)
		if (i != v && S.done[i] <= at_first[i])
			fail_msg("QP %u completed nothing while QP %u timed out", i, v);
	/* stop posting; everything posted completes */
	for (uint32_t i = 0; i < NQ; i++)
		S.limit[i] = S.posted[i];
	for (uint32_t i = 0; i < NQ; i++)
		while (i != v && S.done[i] < S.posted[i]) {
			assert_true(++polls < 100000);
			step(&odd, &got);
		}
	settle_receives(&polls, 110000);
	assert_int_equal(pair_cnt(&S.p.a, ROCE_CNT_ERROR_COMPLETIONS), 1);
	pair_teardown(&S.p);
	roce_memlink_destroy(S.link);
	free(S.aidx);
	free(S.bidx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers_at_scale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
