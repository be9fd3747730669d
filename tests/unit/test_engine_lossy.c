/* SPDX-License-Identifier: MIT */
/*
 * 10,000 mixed messages (WRITE, WRITE_WITH_IMM, SEND, READ, FETCH_ADD)
 * through a link that loses 10 %, reorders 5 %, duplicates 2 % and
 * corrupts 1 % of the frames. Every completion must be successful and in
 * order, every byte where it belongs, every receive completed exactly once
 * and every FETCH_ADD executed exactly once (the counter proves it), in
 * bounded time. The engines run their reset state: loss recovery's
 * defaults (adaptive timer, tail-loss probes, the loss-adaptive window;
 * the probes counted prove it).
 */
#include "pair.h"

#define MSGS 10000
#define WINDOW 48
#define SLOT 8192               /* bytes per message slot */
#define SLOTS 256               /* slots per buffer region */

enum { OP_WRITE, OP_WRITE_IMM, OP_SEND, OP_READ, OP_FADD, OP_KINDS };

struct msg {
	uint8_t kind;
	uint32_t len, slot;
	uint32_t seed;
};

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)rng_state;
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 5));
}

/* Layout of each side's buffer */
#define SRC(s, slot)  ((s)->buf + (size_t)(slot) * SLOT)                    /* A: what A sends */
#define DST(s, slot)  ((s)->buf + (size_t)(SLOTS + (slot)) * SLOT)          /* B: WRITE/SEND target; A: READ target */
#define RSRC(s, slot) ((s)->buf + (size_t)(2 * SLOTS + (slot)) * SLOT)      /* B: what A reads */
#define COUNTER_OFF   ((size_t)3 * SLOTS * SLOT)
#define FADD_RES(s, slot) ((s)->buf + COUNTER_OFF + 64 + (size_t)(slot) * 8)

static void post_one(struct pair *p, struct msg *m, uint64_t id)
{
	struct pair_side *a = &p->a, *b = &p->b;
	struct roce_sge sge = { 0, m->len, a->mr->lkey };
	struct roce_send_wr wr = { 0 }, *bad;

	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.rdma.rkey = b->mr->rkey;
	switch (m->kind) {
	case OP_WRITE:
	case OP_WRITE_IMM:
	case OP_SEND:
		pattern(SRC(a, m->slot), m->len, m->seed);
		sge.addr = (uint64_t)(uintptr_t)SRC(a, m->slot);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)DST(b, m->slot);
		wr.opcode = m->kind == OP_WRITE ? ROCE_WR_RDMA_WRITE
			  : m->kind == OP_SEND ? ROCE_WR_SEND : ROCE_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = (uint32_t)id;
		if (m->kind != OP_WRITE) {
			struct roce_sge rs = { (uint64_t)(uintptr_t)DST(b, m->slot), SLOT, b->mr->lkey };
			struct roce_recv_wr rw = { .wr_id = id, .sg_list = &rs, .num_sge = 1 };

			assert_int_equal(roce_post_recv(b->qp, &rw, NULL), ROCE_OK);
		}
		break;
	case OP_READ:
		pattern(RSRC(b, m->slot), m->len, m->seed);
		sge.addr = (uint64_t)(uintptr_t)DST(a, m->slot);
		wr.opcode = ROCE_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)RSRC(b, m->slot);
		break;
	case OP_FADD:
		sge.addr = (uint64_t)(uintptr_t)FADD_RES(a, m->slot);
		sge.length = 8;
		wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)b->buf + COUNTER_OFF;
		wr.wr.atomic.rkey = b->mr->rkey;
		wr.wr.atomic.compare_add = 1;
		break;
	}
	assert_int_equal(roce_post_send(a->qp, &wr, &bad), ROCE_OK);
}

static void check_done(struct pair *p, struct msg *m, const struct roce_wc *wc,
		       uint64_t id)
{
	struct pair_side *a = &p->a, *b = &p->b;
	uint8_t want[SLOT];

	if (wc->status != ROCE_WC_SUCCESS)
		fail_msg("message %llu (kind %d, %u bytes): %s", (unsigned long long)id,
			 m->kind, m->len, roce_wc_status_str(wc->status));
	assert_int_equal(wc->wr_id, id);        /* in order */
	pattern(want, m->len, m->seed);
	switch (m->kind) {
	case OP_WRITE:
	case OP_WRITE_IMM:
	case OP_SEND:
		/* a later message may reuse the slot: check now, while B's
		 * copy is the one this message wrote */
		assert_memory_equal(DST(b, m->slot), want, m->len);
		break;
	case OP_READ:
		assert_memory_equal(DST(a, m->slot), want, m->len);
		break;
	}
}

static void test_lossy_link(void **state)
{
	struct pair_opts o = {
		.mtu = ROCE_MTU_1024,
		.buf_len = 3 * SLOTS * SLOT + 64 + SLOTS * 8 + 4096,
		.timeout = 8,           /* ~1 ms: 1000 polls of virtual time */
		.virtual_time = true,
		.link = { .seed = 12345, .loss = 0.10, .reorder = 0.05,
			  .duplicate = 0.02, .corrupt = 0.01 },
	};
	static struct msg msgs[MSGS];
	uint64_t posted = 0, done = 0, recvs = 0, fadds = 0, end;
	uint32_t slot_busy_until[SLOTS] = { 0 };
	struct roce_memlink_stats st;
	struct pair *p;
	uint64_t counter;

	(void)state;
	p = pair_open(&o);
	for (uint32_t i = 0; i < MSGS; i++) {
		msgs[i].kind = (uint8_t)(rnd() % OP_KINDS);
		msgs[i].len = msgs[i].kind == OP_FADD ? 8 : rnd() % (SLOT + 1);
		msgs[i].seed = rnd();
	}
	end = pair_now_ms() + 120000;
	while (done < MSGS) {
		struct roce_wc wc[16];
		int n;

		assert_true(pair_now_ms() < end);
		/* keep WINDOW messages in flight; a slot is reused only once
		 * the message that used it completed (and was checked) */
		while (posted < MSGS && posted - done < WINDOW) {
			struct msg *m = &msgs[posted];

			m->slot = (uint32_t)(posted % SLOTS);
			if (slot_busy_until[m->slot] > done)
				break;
			slot_busy_until[m->slot] = (uint32_t)posted + 1;
			post_one(p, m, posted);
			posted++;
		}
		pair_poll(p);
		n = roce_poll_cq(p->a.scq, 16, wc);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++, done++) {
			check_done(p, &msgs[done], &wc[i], done);
			fadds += msgs[done].kind == OP_FADD;
		}
		n = roce_poll_cq(p->b.rcq, 16, wc);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++, recvs++) {
			struct msg *m = &msgs[wc[i].wr_id];

			assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
			assert_true(m->kind == OP_SEND || m->kind == OP_WRITE_IMM);
			if (m->kind == OP_SEND)
				assert_int_equal(wc[i].byte_len, m->len);
			else
				assert_int_equal(wc[i].imm_data, (uint32_t)wc[i].wr_id);
		}
	}
	/* the receives of the last messages may trail their ACKs */
	{
		uint64_t want = 0;
		struct roce_wc wc[16];

		for (uint32_t i = 0; i < MSGS; i++)
			want += msgs[i].kind == OP_SEND || msgs[i].kind == OP_WRITE_IMM;
		while (recvs < want && pair_now_ms() < end) {
			int n;

			pair_poll(p);
			n = roce_poll_cq(p->b.rcq, 16, wc);
			assert_true(n >= 0);
			recvs += (uint64_t)n;
		}
		assert_int_equal(recvs, want);
		for (int i = 0; i < 100; i++)
			pair_poll(p);
		assert_int_equal(roce_poll_cq(p->b.rcq, 16, wc), 0);   /* no duplicate */
	}
	/* every FETCH_ADD ran exactly once */
	memcpy(&counter, p->b.buf + COUNTER_OFF, 8);
	assert_int_equal(counter, fadds);
	/* the faults really happened and were recovered from */
	assert_true(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) > 0);
	assert_true(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_PSN_SEQ_ERR) > 0);
	assert_true(pair_cnt(&p->b, ROCE_CNT_DUP_REQUESTS) > 0);
	/* the defaults probe; IBA's recovery alone (ROCE_IBA_STRICT) never */
	if (pair_iba_strict())
		assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TAIL_PROBES), 0);
	else
		assert_true(pair_cnt(&p->a, ROCE_CNT_TAIL_PROBES) > 0);
	assert_true(pair_cnt(&p->a, ROCE_CNT_ICRC_ERRORS) + pair_cnt(&p->b, ROCE_CNT_ICRC_ERRORS) +
		    pair_cnt(&p->a, ROCE_CNT_DROP_IP_CSUM) + pair_cnt(&p->b, ROCE_CNT_DROP_IP_CSUM) > 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_ERROR_COMPLETIONS), 0);
	/* faults act on copies: the link never lent its ring */
	roce_memlink_get_stats(p->link, &st);
	assert_int_equal(st.zero_copy, 0);
	assert_true(st.lost > 0);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lossy_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
