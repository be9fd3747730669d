/* SPDX-License-Identifier: MIT */
/*
 * UC between two engines (pair.h with qp_type UC): SEND, SEND with
 * immediate, WRITE and WRITE with immediate of every size class at path
 * MTU 256, 1024 and 4096, exact memory and every completion checked; a
 * packet lost in the middle of a message (a relay between the two drops
 * it) loses that message and only that one; and through it all the
 * responder sends nothing at all.
 */
#include "pair.h"
#include "roce/packet.h"

#define DST_OFF (1u << 21)
#define GUARD 64

static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t mac_relay[6] = { 0x02, 0, 0, 0, 0, 0x03 };

static struct pair *uc_pair(enum roce_mtu mtu, bool relay)
{
	struct pair_opts o = { .qp_type = ROCE_QPT_UC, .mtu = mtu };

	if (relay) {
		memcpy(o.peer_mac[0], mac_relay, 6);
		memcpy(o.peer_mac[1], mac_relay, 6);
	}
	return pair_open(&o);
}

static void post_recv(struct pair_side *s, uint64_t id, size_t off, size_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)s->buf + off, (uint32_t)len, s->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(roce_post_recv(s->qp, &wr, NULL), ROCE_OK);
}

static void post_send(struct pair_side *a, struct pair_side *b, uint64_t id,
		      enum roce_wr_opcode op, size_t src, size_t len, size_t dst)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)a->buf + src, (uint32_t)len, a->mr->lkey };
	struct roce_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
				   .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *bad = NULL;

	wr.imm_data = (uint32_t)id ^ 0x5A5A5A5Au;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf + dst;
	wr.wr.rdma.rkey = b->mr->rkey;
	assert_int_equal(roce_post_send(a->qp, &wr, &bad), ROCE_OK);
}

/* Poll until dst holds the n bytes of src (a WRITE leaves no trace at
 * the responder but its data), bounded. */
static void wait_bytes(struct pair *p, const uint8_t *dst, const uint8_t *src, size_t n)
{
	for (int i = 0; i < 200000 && memcmp(dst, src, n) != 0; i++)
		pair_poll(p);
	assert_memory_equal(dst, src, n);
}

static void one_op(struct pair *p, enum roce_wr_opcode op, size_t len, uint32_t seed)
{
	struct pair_side *a = &p->a, *b = &p->b;
	bool recv = op != ROCE_WR_RDMA_WRITE;
	struct roce_wc wc;

	pair_pattern(a->buf, len, seed);
	memset(b->buf + DST_OFF - GUARD, 0xEE, len + 2 * GUARD);
	memset(b->buf + DST_OFF, 0, len);
	if (recv)
		post_recv(b, seed, DST_OFF, op == ROCE_WR_RDMA_WRITE_WITH_IMM ? 0 : len + 16);
	post_send(a, b, seed, op, 0, len, DST_OFF);
	/* the requester's completion needs nothing from the responder */
	assert_int_equal(pair_wait(p, a->scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, seed);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, len);
	assert_int_equal(wc.opcode, op == ROCE_WR_SEND || op == ROCE_WR_SEND_WITH_IMM
				    ? ROCE_WC_SEND : ROCE_WC_RDMA_WRITE);
	if (recv) {
		assert_int_equal(pair_wait(p, b->rcq, &wc, 1, 10000), 1);
		assert_int_equal(wc.wr_id, seed);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		if (op == ROCE_WR_RDMA_WRITE_WITH_IMM) {
			assert_int_equal(wc.opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
		} else {
			assert_int_equal(wc.opcode, ROCE_WC_RECV);
			assert_int_equal(wc.byte_len, len);
		}
		assert_int_equal(!!(wc.wc_flags & ROCE_WC_WITH_IMM), op != ROCE_WR_SEND);
		if (op != ROCE_WR_SEND)
			assert_int_equal(wc.imm_data, seed ^ 0x5A5A5A5Au);
	}
	wait_bytes(p, b->buf + DST_OFF, a->buf, len);
	for (size_t i = 0; i < GUARD; i++) {
		assert_int_equal(b->buf[DST_OFF - GUARD + i], 0xEE);
		assert_int_equal(b->buf[DST_OFF + len + i], 0xEE);
	}
}

static void ops_at(enum roce_mtu mtu)
{
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_SEND, ROCE_WR_SEND_WITH_IMM, ROCE_WR_RDMA_WRITE,
		ROCE_WR_RDMA_WRITE_WITH_IMM,
	};
	struct pair *p = uc_pair(mtu, false);
	size_t m = 128u << mtu;
	const size_t sizes[] = { 0, 1, m - 1, m, m + 1, 3 * m + 7, 65536 };
	uint32_t seed = 1;

	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			one_op(p, ops[o], sizes[s], seed++);
	/* no ACK, no NAK: the responder sent nothing, the requester got
	 * nothing */
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_TX_PKTS), 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RX_PKTS), 0);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS), 0);
	pair_close(p);
}

static void test_ops_mtu_256(void **state) { (void)state; ops_at(ROCE_MTU_256); }
static void test_ops_mtu_1024(void **state) { (void)state; ops_at(ROCE_MTU_1024); }
static void test_ops_mtu_4096(void **state) { (void)state; ops_at(ROCE_MTU_4096); }

/* ---- a relay that loses one packet ----------------------------------------------- */

struct relay {
	struct roce_port port;
	uint32_t drop_psn;              /* the packet from A to lose */
	bool dropped;
	unsigned from_b;                /* frames B sent */
	unsigned from_a;
};

/* Forward what reached the relay to its destination (by IP address),
 * except A's packet of PSN drop_psn, once. */
static void relay_step(struct pair *p, struct relay *r)
{
	struct roce_frame f[ROCE_RX_BURST];
	unsigned n = roce_port_rx(&r->port, f, ROCE_RX_BURST);

	for (unsigned i = 0; i < n; i++) {
		uint8_t copy[ROCE_MAX_FRAME];
		struct roce_frame out = { copy, f[i].len };
		struct roce_pkt pkt;
		bool to_b;

		assert_int_equal(roce_parse(f[i].data, f[i].len, 0, &pkt), ROCE_OK);
		to_b = roce_ipv4_daddr(roce_pkt_ipv4(&pkt)) == p->b.ip;
		if (!to_b) {
			r->from_b++;
			continue;       /* there must be none: counted, not passed */
		}
		r->from_a++;
		if (!r->dropped && roce_bth_psn(roce_pkt_bth(&pkt)) == r->drop_psn) {
			r->dropped = true;
			continue;
		}
		memcpy(copy, f[i].data, f[i].len);
		memcpy(copy, mac_b, 6);
		assert_int_equal(roce_port_tx(&r->port, &out, 1), 1);
	}
	if (n)
		roce_port_rx_release(&r->port, n);
}

static void relay_run(struct pair *p, struct relay *r, unsigned polls)
{
	for (unsigned i = 0; i < polls; i++) {
		pair_poll(p);
		relay_step(p, r);
	}
}

/* A SEND of 3 MTUs loses its MIDDLE: it completes at the requester (UC
 * knows nothing of the loss) and nowhere else; the SEND after it arrives
 * whole, into the receive WQE the broken one left; a WRITE that loses a
 * MIDDLE leaves the WRITE with immediate after it intact too. */
static void test_lost_middle(void **state)
{
	struct pair *p = uc_pair(ROCE_MTU_1024, true);
	struct pair_side *a = &p->a, *b = &p->b;
	struct relay r = { .drop_psn = 0x123457u + 1 };        /* A's first PSN + 1 */
	struct roce_wc wc[4];

	(void)state;
	assert_int_equal(roce_memlink_attach(p->link, mac_relay, &r.port), ROCE_OK);
	pair_pattern(a->buf, 3 * 1024, 1);
	pair_pattern(a->buf + 8192, 2 * 1024 + 5, 2);
	post_recv(b, 100, DST_OFF, 8192);
	post_recv(b, 101, DST_OFF + 8192, 8192);
	post_send(a, b, 1, ROCE_WR_SEND, 0, 3 * 1024, 0);
	post_send(a, b, 2, ROCE_WR_SEND, 8192, 2 * 1024 + 5, 0);
	relay_run(p, &r, 2000);
	assert_true(r.dropped);
	assert_int_equal(roce_poll_cq(a->scq, 4, wc), 2);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[1].status, ROCE_WC_SUCCESS);
	assert_int_equal(roce_poll_cq(b->rcq, 4, wc), 1);
	assert_int_equal(wc[0].wr_id, 100);     /* the first WQE, reused */
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, 2 * 1024 + 5);
	assert_memory_equal(b->buf + DST_OFF, a->buf + 8192, 2 * 1024 + 5);
	assert_int_equal(pair_cnt(b, ROCE_CNT_DROP_UC_GAP), 1);

	/* a WRITE of 3 MTUs (PSNs +6..+8) loses its MIDDLE; a WRITE with
	 * immediate follows into the second receive WQE */
	r.dropped = false;
	r.drop_psn = 0x123457u + 7;
	pair_pattern(a->buf, 3 * 1024, 3);
	pair_pattern(a->buf + 8192, 100, 4);
	post_send(a, b, 3, ROCE_WR_RDMA_WRITE, 0, 3 * 1024, 65536);
	post_send(a, b, 4, ROCE_WR_RDMA_WRITE_WITH_IMM, 8192, 100, 131072);
	relay_run(p, &r, 2000);
	assert_true(r.dropped);
	assert_int_equal(roce_poll_cq(a->scq, 4, wc), 2);
	assert_int_equal(roce_poll_cq(b->rcq, 4, wc), 1);
	assert_int_equal(wc[0].wr_id, 101);
	assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
	assert_memory_equal(b->buf + 131072, a->buf + 8192, 100);
	/* the broken WRITE's FIRST landed, nothing after the gap */
	assert_memory_equal(b->buf + 65536, a->buf, 1024);
	for (size_t i = 1024; i < 3 * 1024; i++)
		assert_int_equal(b->buf[65536 + i], 0);
	assert_int_equal(pair_cnt(b, ROCE_CNT_DROP_UC_GAP), 2);

	/* nothing ever came from B */
	assert_int_equal(r.from_b, 0);
	assert_int_equal(r.from_a, 10);
	assert_int_equal(pair_cnt(b, ROCE_CNT_TX_PKTS), 0);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_mtu_256),
		cmocka_unit_test(test_ops_mtu_1024),
		cmocka_unit_test(test_ops_mtu_4096),
		cmocka_unit_test(test_lost_middle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
