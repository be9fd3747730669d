/* SPDX-License-Identifier: MIT */
/*
 * Every operation x sizes {0, 1, 255, MTU-1, MTU, MTU+1, 1 MiB} x path MTU
 * {256, 1024, 4096} over a clean link: exact memory contents (guard bytes
 * around every target untouched) and every completion checked.
 */
#include "pair.h"

#define GUARD 64
#define SRC_OFF 0
#define DST_OFF (1u << 21)      /* 2 MiB into each buffer */

static void check_guards(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < GUARD; i++) {
		assert_int_equal(buf[DST_OFF - GUARD + i], 0xEE);
		assert_int_equal(buf[DST_OFF + len + i], 0xEE);
	}
}

static void prep_dst(uint8_t *buf, size_t len)
{
	memset(buf + DST_OFF - GUARD, 0xEE, len + 2 * GUARD);
	memset(buf + DST_OFF, 0, len);
}

static void post_recv(struct pair_side *s, uint64_t id, size_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)s->buf + DST_OFF, (uint32_t)len, s->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(roce_post_recv(s->qp, &wr, NULL), ROCE_OK);
}

static void one_op(struct pair *p, enum roce_wr_opcode op, size_t size, uint32_t seed)
{
	struct pair_side *a = &p->a, *b = &p->b;
	struct roce_sge sge = { (uint64_t)(uintptr_t)a->buf + SRC_OFF, (uint32_t)size, a->mr->lkey };
	struct roce_send_wr wr = { 0 };
	struct roce_wc wc;
	bool recv = op == ROCE_WR_SEND || op == ROCE_WR_SEND_WITH_IMM ||
		    op == ROCE_WR_RDMA_WRITE_WITH_IMM;

	pair_pattern(a->buf + SRC_OFF, size, seed);
	if (op == ROCE_WR_RDMA_READ) {
		/* READ pulls B's bytes into A */
		pair_pattern(b->buf + SRC_OFF, size, seed + 1);
		prep_dst(a->buf, size);
		sge.addr = (uint64_t)(uintptr_t)a->buf + DST_OFF;
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf + SRC_OFF;
	} else {
		prep_dst(b->buf, size);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf + DST_OFF;
	}
	if (recv)
		post_recv(b, seed, op == ROCE_WR_RDMA_WRITE_WITH_IMM ? 0 : size + 16);
	wr.wr_id = seed;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.imm_data = seed ^ 0xA5A5A5A5u;
	wr.wr.rdma.rkey = b->mr->rkey;
	pair_post_wait(p, a, &wr, ROCE_WC_SUCCESS);

	if (op == ROCE_WR_RDMA_READ) {
		assert_memory_equal(a->buf + DST_OFF, b->buf + SRC_OFF, size);
		check_guards(a->buf, size);
	} else if (op != ROCE_WR_RDMA_WRITE_WITH_IMM || size) {
		/* (a zero-length WRITE_WITH_IMM writes nothing) */
		assert_memory_equal(b->buf + DST_OFF, a->buf + SRC_OFF, size);
		check_guards(b->buf, size);
	}
	if (recv) {
		assert_int_equal(pair_wait(p, b->rcq, &wc, 1, 5000), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		assert_int_equal(wc.wr_id, seed);
		assert_int_equal(wc.qp_num, roce_qp_num(b->qp));
		if (op == ROCE_WR_SEND) {
			assert_int_equal(wc.opcode, ROCE_WC_RECV);
			assert_int_equal(wc.byte_len, size);
			assert_false(wc.wc_flags & ROCE_WC_WITH_IMM);
		} else {
			assert_int_equal(wc.opcode, op == ROCE_WR_SEND_WITH_IMM
					 ? ROCE_WC_RECV : ROCE_WC_RECV_RDMA_WITH_IMM);
			assert_true(wc.wc_flags & ROCE_WC_WITH_IMM);
			assert_int_equal(wc.imm_data, seed ^ 0xA5A5A5A5u);
			if (op == ROCE_WR_SEND_WITH_IMM)
				assert_int_equal(wc.byte_len, size);
		}
	}
	/* nothing else completed anywhere */
	assert_int_equal(roce_poll_cq(a->scq, 1, &wc), 0);
	assert_int_equal(roce_poll_cq(b->rcq, 1, &wc), 0);
}

static void atomics(struct pair *p)
{
	struct pair_side *a = &p->a, *b = &p->b;
	struct roce_sge sge = { (uint64_t)(uintptr_t)a->buf + 64, 8, a->mr->lkey };
	struct roce_send_wr wr = { 0 };
	uint64_t v = 0xFFFFFFFFFFFFFFF0ull, got;

	memcpy(b->buf + 128, &v, 8);
	wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)b->buf + 128;
	wr.wr.atomic.rkey = b->mr->rkey;
	wr.wr.atomic.compare_add = 0x20;        /* wraps */
	pair_post_wait(p, a, &wr, ROCE_WC_SUCCESS);
	memcpy(&got, a->buf + 64, 8);
	assert_true(got == v);
	memcpy(&got, b->buf + 128, 8);
	assert_int_equal(got, 0x10);
	/* a CmpSwap that does not match leaves memory alone */
	wr.opcode = ROCE_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 0x11;
	wr.wr.atomic.swap = 99;
	pair_post_wait(p, a, &wr, ROCE_WC_SUCCESS);
	memcpy(&got, a->buf + 64, 8);
	assert_int_equal(got, 0x10);
	memcpy(&got, b->buf + 128, 8);
	assert_int_equal(got, 0x10);
	wr.wr.atomic.compare_add = 0x10;
	pair_post_wait(p, a, &wr, ROCE_WC_SUCCESS);
	memcpy(&got, b->buf + 128, 8);
	assert_int_equal(got, 99);
}

/* Kicks the engines gave the ports: the memlink needs none, so a wrapper
 * adds one that counts. */
static unsigned long kicks;
static struct roce_port_ops kick_ops;

static void count_kick(void *ctx)
{
	(void)ctx;
	kicks++;
}

static void add_kick(struct roce_port *port)
{
	kick_ops = *port->ops;
	kick_ops.tx_kick = count_kick;
	port->ops = &kick_ops;
}

static void run_mtu(enum roce_mtu mtu)
{
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_RDMA_WRITE, ROCE_WR_RDMA_WRITE_WITH_IMM, ROCE_WR_SEND,
		ROCE_WR_SEND_WITH_IMM, ROCE_WR_RDMA_READ,
	};
	uint32_t m = roce_mtu_bytes(mtu);
	const size_t sizes[] = { 0, 1, 255, m - 1, m, m + 1, 1u << 20 };
	struct pair_opts o = { .mtu = mtu };
	struct pair *p = pair_open(&o);
	struct roce_memlink_stats st;
	uint32_t seed = mtu * 1000;

	add_kick(p->a.port);
	p->b.port->ops = &kick_ops;
	kicks = 0;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			one_op(p, ops[k], sizes[s], seed++);
	atomics(p);
	/* a clean link: no NAK, no retransmission, no drop */
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_PSN_SEQ_ERR), 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_ERROR_COMPLETIONS), 0);
	/* a fault-free link lends its ring: every frame was built in place */
	roce_memlink_get_stats(p->link, &st);
	assert_int_equal(st.zero_copy, st.sent);
	assert_int_equal(st.sent, pair_cnt(&p->a, ROCE_CNT_TX_PKTS) +
			 pair_cnt(&p->b, ROCE_CNT_TX_PKTS));
	/* one kick per poll that built frames in place: at least one, and
	 * fewer than the frames (a 1 MiB WRITE goes out in bursts) */
	assert_true(kicks > 0);
	assert_true(kicks < st.zero_copy);
	pair_close(p);
}

static void test_mtu_256(void **state) { (void)state; run_mtu(ROCE_MTU_256); }
static void test_mtu_1024(void **state) { (void)state; run_mtu(ROCE_MTU_1024); }
static void test_mtu_4096(void **state) { (void)state; run_mtu(ROCE_MTU_4096); }

/* One-packet messages go out in one step each (req.c's fast path): one
 * poll of the requester sends a whole burst of them, with a three-packet
 * WRITE between them, in order; every byte lands and every completion
 * comes back in order. */
static void test_one_packet_burst(void **state)
{
	struct pair_opts o = { .mtu = ROCE_MTU_1024 };
	struct pair *p = pair_open(&o);
	const uint32_t m = 1024;
	static const uint32_t len[] = { 0, 1, 8, 100, 1024, 3 * 1024, 512, 64, 1023, 4 };
	struct roce_send_wr wr[ROCE_TX_BURST], *bad = NULL;
	struct roce_sge sge[ROCE_TX_BURST];
	struct roce_wc wc[ROCE_TX_BURST];
	unsigned n = 0, frames = 0, got = 0;
	uint64_t off = 0;

	(void)state;
	for (size_t i = 0; i < 64 * 1024; i++)
		p->a.buf[i] = (uint8_t)(i * 7 + 3);
	memset(p->b.buf, 0, 64 * 1024);
	for (n = 0; n < 12; n++) {
		uint32_t l = len[n % (sizeof(len) / sizeof(len[0]))];

		sge[n] = (struct roce_sge){ (uint64_t)(uintptr_t)p->a.buf + off, l,
					    p->a.mr->lkey };
		memset(&wr[n], 0, sizeof(wr[n]));
		wr[n].wr_id = n;
		wr[n].opcode = ROCE_WR_RDMA_WRITE;
		wr[n].send_flags = ROCE_SEND_SIGNALED;
		wr[n].sg_list = &sge[n];
		wr[n].num_sge = 1;
		wr[n].wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf + off;
		wr[n].wr.rdma.rkey = p->b.mr->rkey;
		assert_int_equal(roce_post_send(p->a.qp, &wr[n], &bad), ROCE_OK);
		frames += l ? (l + m - 1) / m : 1;
		off += l + 16;
	}
	assert_true(frames <= ROCE_TX_BURST);
	roce_engine_poll(p->a.ctx);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TX_PKTS), frames);
	for (; got < n; got++) {
		assert_int_equal(pair_wait(p, p->a.scq, wc + got, 1, 10000), 1);
		assert_int_equal(wc[got].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[got].wr_id, got);
	}
	/* each message where it belongs, the 16-byte gaps untouched */
	for (unsigned i = 0; i < n; i++) {
		size_t at = (size_t)(sge[i].addr - (uint64_t)(uintptr_t)p->a.buf);

		assert_memory_equal(p->b.buf + at, p->a.buf + at, sge[i].length);
		for (size_t g = 0; g < 16; g++)
			assert_int_equal(p->b.buf[at + sge[i].length + g], 0);
	}
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS), 0);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtu_256),
		cmocka_unit_test(test_mtu_1024),
		cmocka_unit_test(test_mtu_4096),
		cmocka_unit_test(test_one_packet_burst),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
