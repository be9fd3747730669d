/* SPDX-License-Identifier: MIT */
/*
 * Messages whose PSNs cross the 24-bit wrap (0xFFFFFF -> 0), on a link
 * that loses, reorders and duplicates frames: READs (several in flight,
 * each resent from the PSN its responses stopped at) and WRITEs land
 * byte for byte where they belong, whichever side of the wrap the lost
 * packet was on. The PSN where perftest's random initial PSN puts the
 * wrap is anywhere in a run, so every placement by PSN meets it.
 */
#include "pair.h"

#define MSG     (96u * 1024u)   /* 96 packets at MTU 1024 */
#define INFLIGHT 4u

/* A's READs (or WRITEs) of MSG bytes, INFLIGHT at a time, n in all, the
 * first PSN `first`, the link losing `loss` of the frames. */
static void run(uint32_t first, double loss, uint64_t seed, enum roce_wr_opcode op,
		unsigned n)
{
	struct pair_opts o = { .virtual_time = true, .psn = { first, 0 } };
	struct pair *p;
	uint8_t *want = malloc(MSG);
	unsigned posted = 0, done = 0;

	o.link.loss = loss;
	o.link.reorder = loss / 2;
	o.link.duplicate = loss / 2;
	o.link.seed = seed;
	assert_non_null(want);
	p = pair_open(&o);
	while (done < n) {
		struct roce_wc wc;

		while (posted < n && posted - done < INFLIGHT) {
			uint8_t *local = p->a.buf + (size_t)(posted % INFLIGHT) * MSG;
			uint8_t *remote = p->b.buf + (size_t)(posted % INFLIGHT) * MSG;
			struct roce_sge sge = { (uintptr_t)local, MSG, p->a.mr->lkey };
			struct roce_send_wr wr = { .wr_id = posted, .sg_list = &sge, .num_sge = 1,
						   .opcode = op, .send_flags = ROCE_SEND_SIGNALED };
			struct roce_send_wr *bad;

			/* a pattern of this message's own on the sending side, the
			 * other side's bytes cleared */
			pair_pattern(op == ROCE_WR_RDMA_READ ? remote : local, MSG, posted + 1);
			memset(op == ROCE_WR_RDMA_READ ? local : remote, 0, MSG);
			wr.wr.rdma.remote_addr = (uintptr_t)remote;
			wr.wr.rdma.rkey = p->b.mr->rkey;
			assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_OK);
			posted++;
		}
		assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 60000), 1);
		if (wc.status != ROCE_WC_SUCCESS)
			fail_msg("message %llu: %s", (unsigned long long)wc.wr_id,
				 roce_wc_status_str(wc.status));
		assert_int_equal(wc.wr_id, done);
		pair_pattern(want, MSG, done + 1);
		{
			size_t slot = (size_t)(done % INFLIGHT) * MSG;
			const uint8_t *got = (op == ROCE_WR_RDMA_READ ? p->a.buf : p->b.buf) + slot;

			for (size_t i = 0; i < MSG; i++)
				if (got[i] != want[i])
					fail_msg("message %u differs at byte %zu (packet %zu, PSN "
						 "0x%06x)", done, i, i / 1024,
						 (first + done * (MSG / 1024) + (unsigned)(i / 1024)) &
							 0xFFFFFFu);
		}
		done++;
	}
	if (loss > 0)
		assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) > 0 ||
			    pair_cnt(&p->b, ROCE_CNT_DUP_REQUESTS) > 0);
	pair_close(p);
	free(want);
}

/* the wrap in the second READ's middle, no loss, then under loss with
 * several seeds */
static void test_read(void **state)
{
	(void)state;
	run(0xFFFFFFu - MSG / 1024 - 40, 0, 1, ROCE_WR_RDMA_READ, 4);
	for (uint64_t seed = 1; seed <= 6; seed++)
		run(0xFFFFFFu - MSG / 1024 - 40 - (uint32_t)seed * 7, 0.02, seed,
		    ROCE_WR_RDMA_READ, 8);
}

static void test_write(void **state)
{
	(void)state;
	run(0xFFFFFFu - 30, 0, 1, ROCE_WR_RDMA_WRITE, 4);
	for (uint64_t seed = 1; seed <= 6; seed++)
		run(0xFFFFFFu - 30 - (uint32_t)seed * 11, 0.02, seed, ROCE_WR_RDMA_WRITE, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
