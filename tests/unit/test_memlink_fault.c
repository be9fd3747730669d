/* SPDX-License-Identifier: MIT */
/*
 * In-memory link faults: each fault at 0 and 1.0 behaves exactly, rates at
 * intermediate probabilities over 100k frames, reproducibility from the
 * seed, and corruption: one bit, never in the Ethernet header, and always
 * caught by roce_parse() (every flippable bit of real RoCE frames tried).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "roce/memlink.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"
#include "link/memlink_fault.h"
#include "unit/memlink_test.h"

#define N_RATE 100000u
#define LEN 96u

/* A two-port link a -> b with an injected clock. */
struct pair {
	struct fake_clock clk;
	struct roce_memlink *l;
	struct roce_port a, b;
};

static void pair_open(struct pair *p, const struct roce_memlink_config *cfg)
{
	struct roce_memlink_config c = *cfg;

	p->clk.now = 0;
	c.now_ns = fake_now;
	c.clock_ctx = &p->clk;
	assert_int_equal(roce_memlink_create(&c, &p->l), ROCE_OK);
	assert_int_equal(roce_memlink_attach(p->l, mac_a, &p->a), ROCE_OK);
	assert_int_equal(roce_memlink_attach(p->l, mac_b, &p->b), ROCE_OK);
}

/* What b received: sequence number and corrupted bit (-1 = intact). */
struct trace {
	uint32_t n;
	uint32_t seq[2 * N_RATE + 8];
	int32_t bit[2 * N_RATE + 8];
};

static void collect(struct pair *p, struct trace *t)
{
	struct roce_frame f[32];
	uint8_t want[LEN];
	unsigned n;

	while ((n = roce_port_rx(&p->b, f, 32)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			uint32_t seq = frame_seq(f[i].data), first = 0;
			unsigned d;

			assert_true(t->n < 2 * N_RATE + 8);
			assert_int_equal(f[i].len, LEN);
			/* a flip may hit the sequence number: recover it by
			 * matching the rest of the frame */
			mk_frame(want, mac_b, mac_a, seq, LEN);
			d = bit_diff(f[i].data, want, LEN, &first);
			if (d > 1) {
				for (uint32_t k = 0; k < 32; k++) {
					mk_frame(want, mac_b, mac_a, seq ^ (1u << k), LEN);
					if (bit_diff(f[i].data, want, LEN, &first) == 1) {
						seq ^= 1u << k;
						break;
					}
				}
				d = bit_diff(f[i].data, want, LEN, &first);
			}
			assert_true(d <= 1);
			assert_true(d == 0 || first >= ROCE_ETH_HLEN * 8);
			t->seq[t->n] = seq;
			t->bit[t->n++] = d ? (int32_t)first : -1;
		}
		roce_port_rx_release(&p->b, n);
	}
}

/* Send count frames a -> b in bursts of 16, collecting as we go, then let
 * every hold expire and collect the rest. */
static void run(struct pair *p, uint32_t count, struct trace *t)
{
	static uint8_t buf[16][LEN];
	struct roce_frame f[16];

	t->n = 0;
	for (uint32_t s = 0; s < count; s += 16) {
		unsigned n = count - s < 16 ? count - s : 16;

		for (unsigned i = 0; i < n; i++)
			f[i] = (struct roce_frame){ buf[i],
				mk_frame(buf[i], mac_b, mac_a, s + i, LEN) };
		assert_int_equal(roce_port_tx(&p->a, f, n), n);
		collect(p, t);
	}
	fake_set(&p->clk, p->clk.now + 1000000000ull);
	collect(p, t);
}

static struct trace *trace_new(void)
{
	struct trace *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	return t;
}

static void run_cfg(const struct roce_memlink_config *c, uint32_t count,
		    struct trace *t, struct roce_memlink_stats *st)
{
	struct pair p;

	pair_open(&p, c);
	run(&p, count, t);
	roce_memlink_get_stats(p.l, st);
	assert_int_equal(st->sent, count);
	assert_int_equal(st->delivered, t->n);
	assert_int_equal(st->delivered, count - st->lost + st->duplicated);
	assert_int_equal(st->ring_full + st->no_route + st->bad_len, 0);
	roce_memlink_destroy(p.l);
}

/* ---- 0 and 1.0 ------------------------------------------------------------ */

static void test_no_faults(void **state)
{
	struct roce_memlink_config c = { .seed = 1 };
	struct roce_memlink_stats st;
	struct trace *t = trace_new();

	(void)state;
	run_cfg(&c, 10000, t, &st);
	assert_int_equal(t->n, 10000);
	for (uint32_t i = 0; i < t->n; i++) {
		assert_int_equal(t->seq[i], i);
		assert_int_equal(t->bit[i], -1);
	}
	assert_int_equal(st.lost + st.duplicated + st.reordered + st.corrupted, 0);
	free(t);
}

static void test_each_fault_at_one(void **state)
{
	struct roce_memlink_config c = { .seed = 2 };
	struct roce_memlink_stats st;
	struct trace *t = trace_new();

	(void)state;
	c.loss = 1.0;
	run_cfg(&c, 5000, t, &st);
	assert_int_equal(t->n, 0);
	assert_int_equal(st.lost, 5000);

	c = (struct roce_memlink_config){ .seed = 2, .duplicate = 1.0 };
	run_cfg(&c, 5000, t, &st);
	assert_int_equal(t->n, 10000);
	for (uint32_t i = 0; i < t->n; i++)
		assert_int_equal(t->seq[i], i / 2);
	assert_int_equal(st.duplicated, 5000);

	c = (struct roce_memlink_config){ .seed = 2, .corrupt = 1.0 };
	run_cfg(&c, 5000, t, &st);
	assert_int_equal(t->n, 5000);
	for (uint32_t i = 0; i < t->n; i++) {
		assert_int_equal(t->seq[i], i);
		assert_true(t->bit[i] >= ROCE_ETH_HLEN * 8);
	}
	assert_int_equal(st.corrupted, 5000);

	/* every frame that finds no frame held is held: pairs swap */
	c = (struct roce_memlink_config){ .seed = 2, .reorder = 1.0 };
	run_cfg(&c, 5000, t, &st);
	assert_int_equal(t->n, 5000);
	for (uint32_t i = 0; i < t->n; i++)
		assert_int_equal(t->seq[i], i ^ 1);
	assert_int_equal(st.reordered, 2500);
	free(t);
}

/* ---- rates ---------------------------------------------------------------- */

static void assert_rate(uint64_t hits, uint64_t n, double p)
{
	double r = (double)hits / (double)n;

	/* > 10 standard deviations at 100k frames; the seed is fixed anyway */
	assert_true(r > p - 0.01 && r < p + 0.01);
}

static void test_rates(void **state)
{
	struct roce_memlink_config c = { .seed = 3, .loss = 0.1, .duplicate = 0.05,
					 .corrupt = 0.2, .reorder = 0.25 };
	struct roce_memlink_stats st;
	struct trace *t = trace_new();
	uint64_t corrupted = 0, out_of_order = 0;
	double kept;

	(void)state;
	run_cfg(&c, N_RATE, t, &st);
	assert_rate(st.lost, N_RATE, 0.1);
	kept = (double)(N_RATE - st.lost);
	/* the other faults are decided for the frames not lost */
	assert_rate(st.duplicated, (uint64_t)kept, 0.05);
	assert_rate(st.corrupted, (uint64_t)kept, 0.2);
	/* a frame is held only when none is held already: p / (1 + p) */
	assert_rate(st.reordered, (uint64_t)kept, 0.25 / 1.25);
	for (uint32_t i = 0; i < t->n; i++) {
		corrupted += t->bit[i] >= 0;
		out_of_order += i && t->seq[i] < t->seq[i - 1];
	}
	/* duplicates of a corrupted frame carry the same flip */
	assert_true(corrupted >= st.corrupted && corrupted <= 2 * st.corrupted);
	assert_true(out_of_order > 0 && out_of_order <= st.reordered);
	free(t);
}

/* ---- reproducibility -------------------------------------------------------- */

/* The same sequence numbers appear in both traces (duplicates aside). */
static void assert_seq_set_equal(const struct trace *a, const struct trace *b,
				 uint32_t count)
{
	uint8_t *in_a = calloc(count, 1), *in_b = calloc(count, 1);

	assert_non_null(in_a);
	assert_non_null(in_b);
	for (uint32_t i = 0; i < a->n; i++) {
		assert_true(a->seq[i] < count);
		in_a[a->seq[i]] = 1;
	}
	for (uint32_t i = 0; i < b->n; i++) {
		assert_true(b->seq[i] < count);
		in_b[b->seq[i]] = 1;
	}
	assert_memory_equal(in_a, in_b, count);
	free(in_a);
	free(in_b);
}

static void test_seed(void **state)
{
	struct roce_memlink_config c = { .seed = 42, .loss = 0.1, .duplicate = 0.1,
					 .corrupt = 0.1, .reorder = 0.1 };
	struct roce_memlink_stats st;
	struct trace *t1 = trace_new(), *t2 = trace_new();

	(void)state;
	run_cfg(&c, 5000, t1, &st);
	run_cfg(&c, 5000, t2, &st);
	assert_int_equal(t1->n, t2->n);
	assert_memory_equal(t1->seq, t2->seq, t1->n * sizeof(t1->seq[0]));
	assert_memory_equal(t1->bit, t2->bit, t1->n * sizeof(t1->bit[0]));

	c.seed = 43;
	run_cfg(&c, 5000, t2, &st);
	assert_true(t1->n != t2->n ||
		    memcmp(t1->seq, t2->seq, t1->n * sizeof(t1->seq[0])) ||
		    memcmp(t1->bit, t2->bit, t1->n * sizeof(t1->bit[0])));

	/* the loss pattern does not depend on the other faults' settings:
	 * the same frames survive with loss alone */
	c = (struct roce_memlink_config){ .seed = 42, .loss = 0.1 };
	run_cfg(&c, 5000, t2, &st);
	assert_seq_set_equal(t1, t2, 5000);
	free(t1);
	free(t2);
}

static void test_set_faults(void **state)
{
	struct roce_memlink_config c = { .seed = 5 };
	struct roce_memlink_stats st;
	struct trace *t = trace_new();
	struct pair p;

	(void)state;
	pair_open(&p, &c);
	run(&p, 100, t);
	assert_int_equal(t->n, 100);
	/* the peer vanishes, then comes back */
	assert_int_equal(roce_memlink_set_faults(p.l, 1.0, 0, 0, 0), ROCE_OK);
	run(&p, 100, t);
	assert_int_equal(t->n, 0);
	assert_int_equal(roce_memlink_set_faults(p.l, 2.0, 0, 0, 0), ROCE_E_RANGE);
	run(&p, 100, t);
	assert_int_equal(t->n, 0);
	assert_int_equal(roce_memlink_set_faults(p.l, 0, 0, 0, 0), ROCE_OK);
	run(&p, 100, t);
	assert_int_equal(t->n, 100);
	roce_memlink_get_stats(p.l, &st);
	assert_int_equal(st.lost, 200);
	roce_memlink_destroy(p.l);
	free(t);
}

/* ---- corruption of RoCE frames ----------------------------------------------- */

struct roce_case {
	uint8_t opcode;
	bool v6, vlan;
	unsigned flags;
	size_t payload;
};

static const struct roce_case roce_cases[] = {
	{ ROCE_OP_RC_SEND_ONLY, false, false, 0, 37 },
	{ ROCE_OP_RC_WRITE_FIRST, false, true, 0, 256 },
	{ ROCE_OP_RC_READ_REQUEST, false, false, ROCE_BUILD_UDP_CSUM, 0 },
	{ ROCE_OP_RC_SEND_ONLY, false, false, ROCE_BUILD_ETH_PAD, 0 },
	{ ROCE_OP_RC_SEND_ONLY_IMM, true, false, 0, 100 },
	{ ROCE_OP_RC_ACK, true, true, ROCE_BUILD_UDP_CSUM, 0 },
	{ ROCE_OP_RC_WRITE_MIDDLE, false, false, ROCE_BUILD_UDP_CSUM, 1024 },
};

static size_t build_case(const struct roce_case *rc, uint8_t *buf, size_t cap)
{
	static uint8_t payload[1024];
	struct roce_hdrs h;
	size_t len = 0;

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, mac_b, 6);
	memcpy(h.eth.src, mac_a, 6);
	h.eth.vlan = rc->vlan;
	h.eth.tci = 5;
	h.ip.v6 = rc->v6;
	h.ip.ttl = 64;
	h.ip.tos = 0x02;
	h.ip.src[0] = 10; h.ip.src[3] = 1;
	h.ip.dst[0] = 10; h.ip.dst[3] = 2;
	h.udp.sport = 0xC123;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = rc->opcode;
	h.bth.pkey = ROCE_DEFAULT_PKEY;
	h.bth.dqpn = 0x123456;
	h.bth.psn = 0xABCDEF;
	h.reth.va = 0x1000;
	h.reth.rkey = 0x77;
	h.reth.len = 4096;
	h.aeth.msn = 3;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13);
	assert_int_equal(roce_build(&h, payload, rc->payload, rc->flags, buf,
				    cap, &len), ROCE_OK);
	return len;
}

/* The bit the k-th of nbits equal steps of r picks. */
static int32_t pick_kth(const uint8_t *f, size_t len, uint32_t k, uint32_t nbits)
{
	uint32_t r = (uint32_t)((((uint64_t)k << 32) + nbits - 1) / nbits);

	return ml_corrupt_pick(f, (uint32_t)len, r);
}

/* Every bit a corruption can choose, each flipped in turn: all lie past
 * the Ethernet header and before any padding, only the variant fields no
 * check covers are left out, and roce_parse() rejects every flip. */
static void test_corrupt_every_bit(void **state)
{
	uint8_t f[ROCE_MAX_FRAME];
	struct roce_pkt pkt;

	(void)state;
	for (size_t c = 0; c < sizeof(roce_cases) / sizeof(roce_cases[0]); c++) {
		const struct roce_case *rc = &roce_cases[c];
		size_t len = build_case(rc, f, sizeof(f));
		uint32_t l2 = rc->vlan ? 18 : 14, ip_end, nbits;
		/* IPv6: ver/TC/flow label and hop limit; both: BTH resv8a */
		uint32_t skipped = rc->v6 ? 5 * 8 + 8 : 8;
		int32_t prev = -1;

		assert_int_equal(roce_parse(f, len, 0, &pkt), ROCE_OK);
		ip_end = (uint32_t)(len - pkt.trailer_len);
		assert_true(rc->flags != ROCE_BUILD_ETH_PAD || pkt.trailer_len > 0);
		nbits = ml_corrupt_bits(f, (uint32_t)len);
		assert_int_equal(nbits, (ip_end - l2) * 8 - skipped);
		for (uint32_t k = 0; k < nbits; k++) {
			int32_t bit = pick_kth(f, len, k, nbits);

			assert_true(bit > prev);
			assert_true(bit >= (int32_t)l2 * 8 && bit < (int32_t)ip_end * 8);
			assert_int_not_equal(bit / 8, pkt.bth_off + 4);
			ml_flip(f, bit);
			assert_int_not_equal(roce_parse(f, len, 0, &pkt), ROCE_OK);
			ml_flip(f, bit);
			prev = bit;
		}
		assert_int_equal(roce_parse(f, len, 0, &pkt), ROCE_OK);
		/* the extremes of r stay inside */
		assert_int_equal(ml_corrupt_pick(f, (uint32_t)len, 0), l2 * 8 +
				 (rc->v6 ? 32 : 0));
		assert_int_equal(ml_corrupt_pick(f, (uint32_t)len, UINT32_MAX),
				 (int32_t)ip_end * 8 - 1);
	}
	/* nothing to flip in a bare Ethernet header */
	memset(f, 0, sizeof(f));
	assert_int_equal(ml_corrupt_bits(f, 14), 0);
	assert_int_equal(ml_corrupt_pick(f, 14, 123), -1);
	f[12] = 0x81;           /* VLAN tag and nothing after it */
	assert_int_equal(ml_corrupt_pick(f, 18, 123), -1);
}

/* The same through the link: corrupt 1.0, many RoCE frames; each arrives
 * with exactly one bit flipped past the Ethernet header, and each fails
 * roce_parse(), many on the ICRC. */
static void test_corrupt_through_link(void **state)
{
	struct roce_memlink_config c = { .seed = 9, .corrupt = 1.0 };
	const size_t ncases = sizeof(roce_cases) / sizeof(roce_cases[0]);
	uint8_t f[sizeof(roce_cases) / sizeof(roce_cases[0])][ROCE_MAX_FRAME];
	size_t len[sizeof(roce_cases) / sizeof(roce_cases[0])];
	struct roce_memlink_stats st;
	unsigned icrc = 0, total = 0;
	struct pair p;

	(void)state;
	for (size_t i = 0; i < ncases; i++)
		len[i] = build_case(&roce_cases[i], f[i], sizeof(f[i]));
	pair_open(&p, &c);
	for (unsigned round = 0; round < 3000; round++) {
		size_t i = round % ncases;
		struct roce_frame rx[2];
		struct roce_pkt pkt;
		uint32_t first = 0;

		assert_int_equal(send1(&p.a, f[i], (uint32_t)len[i]), 1);
		assert_int_equal(roce_port_rx(&p.b, rx, 2), 1);
		assert_int_equal(rx[0].len, len[i]);
		assert_int_equal(bit_diff(rx[0].data, f[i], rx[0].len, &first), 1);
		assert_true(first >= (roce_cases[i].vlan ? 18u : 14u) * 8);
		assert_int_not_equal(roce_parse(rx[0].data, rx[0].len, 0, &pkt),
				     ROCE_OK);
		icrc += roce_parse(rx[0].data, rx[0].len, 0, &pkt) == ROCE_E_ICRC;
		total++;
		roce_port_rx_release(&p.b, 1);
	}
	roce_memlink_get_stats(p.l, &st);
	assert_int_equal(st.corrupted, total);
	/* the rest fail earlier checks: IP or UDP checksum, lengths... */
	assert_true(icrc > total / 4);
	roce_memlink_destroy(p.l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_faults),
		cmocka_unit_test(test_each_fault_at_one),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_set_faults),
		cmocka_unit_test(test_corrupt_every_bit),
		cmocka_unit_test(test_corrupt_through_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
