/* SPDX-License-Identifier: MIT */
/*
 * The transmit arbiter is fair (sched.c): QPs with something to send are
 * served round robin, each turn until the QP has nothing more or the
 * burst (ROCE_TX_BURST frames) is full, and a QP that filled the burst
 * goes to the tail of the queue.
 *   - Requester side: 64 QPs with deep queues of 64-byte WRITEs (a frame
 *     each) complete the same number of WRITEs within one burst.
 *   - Responder side: 32 QPs each READ 64 KiB (64 responses at MTU 1024,
 *     two bursts): B's QPs take turns, so no READ completes before every
 *     QP had its first turn, all complete within two rounds, and none
 *     waits for a retransmission timer (a QP the arbiter dropped after a
 *     full burst would wait for one: nothing else brings it back).
 * Virtual time.
 */
#include "scale.h"

#define NQ 64u
#define DEPTH 256u              /* send queue: never runs dry */
#define WLEN 64u
#define RLEN (64u << 10)
#define MTU_BYTES 1024u

static uint8_t *wslot(const struct pair_side *s, uint32_t i)
{
	return s->buf + (size_t)i * WLEN;
}

static uint8_t *rslot(const struct pair_side *s, uint32_t i)
{
	return s->buf + (size_t)NQ * WLEN + (size_t)i * RLEN;
}

/* Post n WRITEs on QP i in one chain. */
static void post_writes(struct pair *p, uint32_t i, uint32_t n)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)wslot(&p->a, i), WLEN, p->a.mr->lkey };
	static struct roce_send_wr wr[DEPTH];
	struct roce_send_wr *bad = NULL;

	for (uint32_t k = 0; k < n; k++) {
		wr[k] = (struct roce_send_wr){
			.wr_id = i, .next = k + 1 < n ? &wr[k + 1] : NULL, .sg_list = &sge,
			.num_sge = 1, .opcode = ROCE_WR_RDMA_WRITE,
			.send_flags = ROCE_SEND_SIGNALED,
		};
		wr[k].wr.rdma.remote_addr = (uint64_t)(uintptr_t)wslot(&p->b, i);
		wr[k].wr.rdma.rkey = p->b.mr->rkey;
	}
	if (n)
		assert_int_equal(roce_post_send(p->a.qps[i], wr, &bad), ROCE_OK);
}

/* Take A's completions: count them per QP; returns how many. */
static unsigned drain(struct pair *p, const int32_t *aidx, uint32_t *done,
		      enum roce_wc_opcode op)
{
	struct roce_wc wc[64];
	unsigned took = 0;
	int n;

	while ((n = roce_poll_cq(p->a.scq, 64, wc)) > 0)
		for (int k = 0; k < n; k++) {
			int32_t i = wc[k].qp_num < ROCE_MAX_QP ? aidx[wc[k].qp_num] : -1;

			assert_true(i >= 0);
			assert_int_equal(wc[k].wr_id, (uint64_t)i);
			assert_int_equal(wc[k].status, ROCE_WC_SUCCESS);
			assert_int_equal(wc[k].opcode, op);
			done[i]++;
			took++;
		}
	assert_int_equal(n, 0);
	return took;
}

/*
 * Every QP keeps DEPTH / 2 .. DEPTH WRITEs queued, so each turn it fills
 * the burst: one QP's ROCE_TX_BURST frames per poll, the next QP's the
 * poll after. After any number of polls the QPs have had the same number
 * of turns, give or take one, and the last served still has its burst in
 * flight (B acknowledges it in the same poll, A sees the ACK in the next):
 * completed counts lie within one burst of each other, so within
 * ROCE_TX_BURST of their mean.
 */
static void writes_share_the_link(struct pair *p, const int32_t *aidx)
{
	static uint32_t posted[NQ], done[NQ];
	const unsigned polls = 16 * NQ + NQ / 3;        /* not a whole number of rounds */
	uint64_t total = 0;
	double mean;

	for (uint32_t i = 0; i < NQ; i++) {
		post_writes(p, i, DEPTH);
		posted[i] = DEPTH;
	}
	for (unsigned t = 0; t < polls; t++) {
		pair_poll(p);
		total += drain(p, aidx, done, ROCE_WC_RDMA_WRITE);
		for (uint32_t i = 0; i < NQ; i++)
			if (posted[i] - done[i] < DEPTH / 2) {
				post_writes(p, i, DEPTH - (posted[i] - done[i]));
				posted[i] = done[i] + DEPTH;
			}
	}
	mean = (double)total / NQ;
	for (uint32_t i = 0; i < NQ; i++) {
		if (done[i] > mean + ROCE_TX_BURST || done[i] + ROCE_TX_BURST < mean)
			fail_msg("QP %u completed %u WRITEs, the mean is %.1f (+-%u)", i, done[i],
				 mean, ROCE_TX_BURST);
	}
	/* and the link never idled: a full burst every poll but the first */
	assert_true(total >= (uint64_t)(polls - 2) * ROCE_TX_BURST);
	/* the rest completes */
	for (uint32_t i = 0, t = 0; i < NQ; i++)
		while (done[i] < posted[i]) {
			assert_true(++t < 4 * DEPTH * NQ / ROCE_TX_BURST);
			pair_poll(p);
			drain(p, aidx, done, ROCE_WC_RDMA_WRITE);
		}
	for (uint32_t i = 0; i < NQ; i++)
		assert_memory_equal(wslot(&p->b, i), wslot(&p->a, i), WLEN);
}

/*
 * READs of NR QPs, as many as one receive burst brings to B at once, so
 * B's queue starts with all of them. Each READ takes RLEN / MTU
 * responses, TURNS bursts of B's arbiter. Round robin, no READ completes
 * before every QP had TURNS - 1 turns ((TURNS - 1) * NR polls: one full
 * burst per poll), and all complete within TURNS rounds and the polls the
 * request and the last response travel (2). A queue served to completion
 * one QP at a time would finish the first READ after TURNS polls.
 */
#define NR ROCE_RX_BURST
#define TURNS (RLEN / MTU_BYTES / ROCE_TX_BURST)

static void reads_share_the_link(struct pair *p, const int32_t *aidx)
{
	uint32_t done[NQ] = { 0 }, all = 0;
	unsigned first = 0, t;

	for (uint32_t i = 0; i < NR; i++) {
		struct roce_sge sge = { (uint64_t)(uintptr_t)rslot(&p->a, i), RLEN, p->a.mr->lkey };
		struct roce_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = ROCE_WR_RDMA_READ,
			.send_flags = ROCE_SEND_SIGNALED,
		}, *bad = NULL;

		scale_fill(rslot(&p->b, i), RLEN, i, 1);
		memset(rslot(&p->a, i), 0, RLEN);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)rslot(&p->b, i);
		wr.wr.rdma.rkey = p->b.mr->rkey;
		assert_int_equal(roce_post_send(p->a.qps[i], &wr, &bad), ROCE_OK);
	}
	for (t = 1; all < NR; t++) {
		unsigned n;

		if (t > TURNS * NR + 2)
			fail_msg("%u of %u READs complete after %u polls", all, NR, t - 1);
		pair_poll(p);
		n = drain(p, aidx, done, ROCE_WC_RDMA_READ);
		if (n && !first)
			first = t;
		all += n;
	}
	if (first <= (TURNS - 1) * NR)
		fail_msg("a READ completed at poll %u: before every QP's turn", first);
	for (uint32_t i = 0; i < NR; i++) {
		assert_int_equal(done[i], 1);
		assert_true(scale_check(rslot(&p->a, i), RLEN, i, 1));
	}
}

static void test_arbiter_is_fair(void **state)
{
	struct pair_opts o = {
		.nqp = NQ, .virtual_time = true, .mtu = ROCE_MTU_1024,
		.timeout = 14,          /* 67 ms: no timer rescues a forgotten QP here */
		.sq_depth = DEPTH, .rq_depth = 1, .max_sge = 1,
		.buf_len = (size_t)NQ * (WLEN + RLEN),
	};
	struct pair *p = pair_open(&o);
	int32_t *aidx = scale_qpn_index(&p->a);

	(void)state;
	for (uint32_t i = 0; i < NQ; i++)
		scale_fill(wslot(&p->a, i), WLEN, i, 0);
	writes_share_the_link(p, aidx);
	reads_share_the_link(p, aidx);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TIMEOUTS), 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS), 0);
	free(aidx);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arbiter_is_fair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
