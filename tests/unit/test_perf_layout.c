/* SPDX-License-Identifier: MIT */
/*
 * The tools' rights and buffers against the originals: for every test of
 * roce-perf (perftest 4.5-0.17) and for roce-pingpong (rdma-core 44
 * ibv_rc_pingpong), the MR and QP access rights, the buffer's size and
 * alignment and each QP's regions, with the values worked out by hand
 * from the originals' source; then the same rights in effect on two
 * engines: the device holds them in its tables, and a peer is refused
 * what the original would refuse it (and is served what it would serve).
 *
 * Where the values come from (perftest tag v4.5-0.17, rdma-core v44.0):
 *   MR rights      perftest_resources.c:1643 create_single_mr(): LOCAL_WRITE,
 *                  | REMOTE_WRITE (WRITE), REMOTE_READ (READ),
 *                  REMOTE_ATOMIC (ATOMIC), nothing more for SEND
 *   QP rights      perftest_resources.c:2538 ctx_modify_qp_to_init(): ATOMIC
 *                  REMOTE_ATOMIC, READ REMOTE_READ, WRITE REMOTE_WRITE, SEND
 *                  REMOTE_WRITE | LOCAL_WRITE
 *   buffer size    perftest_resources.c:1210 alloc_ctx(): INC(BUFF_SIZE(size,
 *                  cycle_buffer), cache_line) * 2 * num_of_qps (no UD line)
 *                  with perftest_resources.h:117 BUFF_SIZE = max(size,
 *                  cycle) and :128 INC = size rounded up to the cache line,
 *                  at least one line
 *   alignment      perftest_resources.c:1737 memalign(cycle_buffer, ...)
 *   send regions   perftest_resources.c:1824 buf[i] = buf[0] + i * BUFF_SIZE
 *   advertised     perftest_communication.c:851 vaddr = buf[0] +
 *                  (num_of_qps + i) * BUFF_SIZE
 *   receives       perftest_resources.c:3172 buf[0] + (num_of_qps + k) *
 *                  send_qp_buff_size (= buff_size / num_of_qps / 2 = INC)
 *   cycle, line    each side's larger (perftest_communication.c:1811
 *                  check_sys_data()); the page size and the L1 line
 *   rc_pingpong    rc_pingpong.c:337 IBV_ACCESS_LOCAL_WRITE, :347
 *                  memalign(page_size, size), :439 ibv_reg_mr(buf, size),
 *                  :536 qp_access_flags = 0
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "perf/perf.h"
#include "perf/perf_ep.h"
#include "perf/perf_layout.h"
#include "roce/driver.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/status.h"

#define LW ROCE_ACCESS_LOCAL_WRITE
#define RW ROCE_ACCESS_REMOTE_WRITE
#define RR ROCE_ACCESS_REMOTE_READ
#define RA ROCE_ACCESS_REMOTE_ATOMIC

/* The options as roce-perf parses them from a command line. */
static void opts(struct perf_opts *o, const char *line)
{
	char buf[256], *argv[16];
	int argc = 0;

	snprintf(buf, sizeof(buf), "roce-perf %s", line);
	for (char *t = strtok(buf, " "); t && argc < 15; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	assert_int_equal(perf_parse(argc, argv, o, stdout, stderr), 0);
}

struct want {
	const char *line;               /* roce-perf's command line */
	uint32_t cycle, cache_line;     /* as agreed with the peer */
	unsigned mr, qp;
	uint64_t len, align, buff, recv_stride;
	uint64_t local1, remote0, remote_last, recv0, recv_last;
};

static const struct want wants[] = {
	/* ib_write_bw: BUFF = 65536 = INC; 2 * 1 * 65536 */
	{ "write_bw", 4096, 64, LW | RW, RW, 131072, 4096, 65536, 65536,
	  65536, 65536, 65536, 65536, 65536 },
	/* ib_write_bw -s 64 -q 4: BUFF = the 4096 cycle; 2 * 4 * 4096;
	 * QP 3 advertises (4 + 3) * 4096 */
	{ "write_bw -s 64 -q 4", 4096, 64, LW | RW, RW, 32768, 4096, 4096, 4096,
	  4096, 16384, 28672, 16384, 28672 },
	/* ib_write_bw -s 64 -q 256: 2 * 256 * 4096; QP 255 advertises
	 * (256 + 255) * 4096 */
	{ "write_bw -s 64 -q 256", 4096, 64, LW | RW, RW, 2097152, 4096, 4096, 4096,
	  4096, 1048576, 2093056, 1048576, 2093056 },
	/* ib_send_bw -s 4097 -q 256: receives at (256 + k) * 4160, the
	 * advertised addresses at (256 + k) * 4097 */
	{ "send_bw -s 4097 -q 256", 4096, 64, LW, RW | LW, 2129920, 4096, 4097, 4160,
	  4097, 1048832, 2093567, 1064960, 2125760 },
	/* ib_write_bw -q 16384 (MAX_QP_NUM): 2 * 16384 * 65536 = 2 GiB, QP
	 * 16383's region the last 64 KiB */
	{ "write_bw -q 16384", 4096, 64, LW | RW, RW, 2147483648ull, 4096, 65536, 65536,
	  65536, 1073741824ull, 2147418112ull, 1073741824ull, 2147418112ull },
	/* ib_write_bw -a: the largest size, 2^23, sets the buffer */
	{ "write_bw -a", 4096, 64, LW | RW, RW, 16777216, 4096, 8388608, 8388608,
	  8388608, 8388608, 8388608, 8388608, 8388608 },
	/* ib_read_bw -s 4097: BUFF = 4097, INC = 65 lines = 4160, 2 * 4160;
	 * the advertised region starts at 4097, off the line as perftest's */
	{ "read_bw -s 4097", 4096, 64, LW | RR, RR, 8320, 4096, 4097, 4160,
	  4097, 4097, 4097, 4160, 4160 },
	/* ib_read_bw -q 3 against a host with 64 KiB pages and 128-byte
	 * lines: BUFF = 65536, aligned to 64 KiB */
	{ "read_bw -s 1000 -q 3", 65536, 128, LW | RR, RR, 393216, 65536, 65536,
	  65536, 65536, 196608, 327680, 196608, 327680 },
	/* ib_send_bw -s 4097 -q 2: no remote right on the MR; receives at
	 * (2 + k) * 4160, the advertised address at (2 + k) * 4097 */
	{ "send_bw -s 4097 -q 2", 4096, 64, LW, RW | LW, 16640, 4096, 4097, 4160,
	  4097, 8194, 12291, 8320, 12480 },
	/* ib_send_bw -s 5000 with 128-byte lines: INC = 40 lines = 5120 */
	{ "send_bw -s 5000", 4096, 128, LW, RW | LW, 10240, 4096, 5000, 5120,
	  5000, 5000, 5000, 5120, 5120 },
	/* ib_atomic_bw: 8 bytes, BUFF = the cycle buffer */
	{ "atomic_bw", 4096, 64, LW | RA, RA, 8192, 4096, 4096, 4096,
	  4096, 4096, 4096, 4096, 4096 },
	{ "atomic_bw -q 2 -A CMP_AND_SWAP", 65536, 64, LW | RA, RA, 262144, 65536,
	  65536, 65536, 65536, 131072, 196608, 131072, 196608 },
	/* the latency tests: one QP, 2 bytes, BUFF = 4096 */
	{ "write_lat", 4096, 64, LW | RW, RW, 8192, 4096, 4096, 4096,
	  4096, 4096, 4096, 4096, 4096 },
	{ "read_lat -s 65536", 4096, 64, LW | RR, RR, 131072, 4096, 65536, 65536,
	  65536, 65536, 65536, 65536, 65536 },
	{ "send_lat -s 100", 4096, 256, LW, RW | LW, 8192, 4096, 4096, 4096,
	  4096, 4096, 4096, 4096, 4096 },
	/* INC's other branch: a cycle buffer under the line takes a line */
	{ "send_lat", 32, 64, LW, RW | LW, 128, 32, 32, 64,
	  32, 32, 32, 64, 64 },
};

static void test_perftest_layouts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *w = &wants[i];
		struct perf_opts o;
		struct perf_layout l;
		unsigned last;

		opts(&o, w->line);
		perf_layout(&o, w->cycle, w->cache_line, &l);
		last = l.nqp - 1;
		printf("  %-32s len %-9llu MR %#x QP %#x\n", w->line,
		       (unsigned long long)l.len, l.mr_access, l.qp_access);
		assert_int_equal(l.mr_access, w->mr);
		assert_int_equal(l.qp_access, w->qp);
		assert_int_equal(l.len, w->len);
		assert_int_equal(l.align, w->align);
		assert_int_equal(l.buff, w->buff);
		assert_int_equal(l.recv_stride, w->recv_stride);
		assert_int_equal(perf_layout_local(&l, 0), 0);
		assert_int_equal(perf_layout_local(&l, 1), w->local1);
		assert_int_equal(perf_layout_remote(&l, 0), w->remote0);
		assert_int_equal(perf_layout_remote(&l, last), w->remote_last);
		assert_int_equal(perf_layout_recv(&l, 0), w->recv0);
		assert_int_equal(perf_layout_recv(&l, last), w->recv_last);
		/* every region of the largest message lies inside the MR */
		assert_true(perf_layout_remote(&l, last) + o.size <= l.len);
		assert_true(perf_layout_recv(&l, last) + o.size <= l.len);
	}
}

/* Many QPs: each QP's send region, advertised region and receive
 * region follow the previous QP's by one stride, the send regions do not
 * overlap the advertised ones, and every region of every QP lies in the
 * MR, whatever the size against the cycle buffer and the cache line. */
static void test_many_qp_regions(void **state)
{
	static const char *const lines[] = {
		"write_bw -s 64 -q 300", "send_bw -s 4097 -q 1000", "read_bw -s 65536 -q 77",
		"send_bw -s 1 -q 513", "atomic_bw -q 4096", "write_bw -s 100000 -q 129",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct perf_opts o;
		struct perf_layout l;

		opts(&o, lines[i]);
		perf_layout(&o, 4096, 64, &l);
		assert_int_equal(l.nqp, o.nqp);
		assert_int_equal(l.len, 2ull * o.nqp * l.recv_stride);
		for (unsigned q = 0; q < l.nqp; q++) {
			uint64_t loc = perf_layout_local(&l, q), rem = perf_layout_remote(&l, q);
			uint64_t rcv = perf_layout_recv(&l, q);

			assert_int_equal(loc, (uint64_t)q * l.buff);
			assert_int_equal(rem, (uint64_t)(o.nqp + q) * l.buff);
			assert_int_equal(rcv, (uint64_t)(o.nqp + q) * l.recv_stride);
			assert_true(loc + l.buff <= perf_layout_remote(&l, 0));
			assert_true(rem + l.buff <= l.len);
			assert_true(rcv + l.buff <= l.len);
			assert_true(rcv >= perf_layout_remote(&l, 0));
		}
	}
}

static void test_pingpong_layout(void **state)
{
	struct perf_layout l;

	(void)state;
	perf_layout_pingpong(4096, 4096, &l);
	assert_int_equal(l.mr_access, LW);
	assert_int_equal(l.qp_access, 0);
	assert_int_equal(l.len, 4096);
	assert_int_equal(l.align, 4096);
	assert_int_equal(perf_layout_remote(&l, 0), 0);  /* one region: all */
	assert_int_equal(perf_layout_recv(&l, 0), 0);
	perf_layout_pingpong(1025, 65536, &l);   /* the MR is size bytes, no more */
	assert_int_equal(l.len, 1025);
	assert_int_equal(l.align, 65536);
}

static void test_cache_line(void **state)
{
	uint32_t cl = perf_cache_line_size();

	(void)state;
	assert_true(cl >= 16 && cl <= PERF_MAX_CYCLE);
	assert_int_equal(cl & (cl - 1), 0);
}

/* ---- the endpoint's QPs: as many as -q asks, up to what the device
 * offers (QP_COUNT less the QPNs below ROCE_FIRST_QPN), and CQs that hold
 * every completion they may have to ---------------------------------- */

static int ep_open(struct perf_ep *ep, struct roce_memlink *ml, unsigned nqp,
		   uint32_t sq, uint32_t scq_per_qp)
{
	static uint32_t ip = 0x0A000010u;       /* a port (MAC) per endpoint */
	struct perf_ep_config c = { .memlink = ml, .ip = ip++, .nqp = nqp,
				    .sq_depth = sq, .rq_depth = 1,
				    .scq_per_qp = scq_per_qp, .max_buf = 1u << 16,
				    .timeout_ms = 1000 };

	return perf_ep_open(ep, &c);
}

static void test_endpoint_qps(void **state)
{
	struct roce_memlink_config lc = { .seed = 3, .lossless = true };
	struct roce_memlink *ml;
	struct perf_ep ep;
	unsigned limit = perf_ep_qp_limit(NULL);
	char want[96];

	(void)state;
	assert_int_equal(limit, ROCE_MAX_QP - ROCE_FIRST_QPN);
	assert_int_equal(roce_memlink_create(&lc, &ml), ROCE_OK);

	/* 256 QPs, each its own QPN from 0x11 on; the device's own count */
	assert_int_equal(ep_open(&ep, ml, 256, 4, 0), ROCE_OK);
	assert_int_equal(ep.nqp, 256);
	assert_int_equal(perf_ep_qp_limit(&ep), limit);
	for (unsigned i = 0; i < ep.nqp; i++) {
		assert_true(roce_qp_num(ep.qp[i]) >= ROCE_FIRST_QPN);
		if (i > 0)
			assert_true(roce_qp_num(ep.qp[i]) != roce_qp_num(ep.qp[i - 1]));
		assert_int_equal(perf_ep_init(&ep, i), ROCE_OK);
	}
	perf_ep_close(&ep);
	assert_null(ep.qp);

	/* one more than the device offers: refused before any QP is made,
	 * naming the device's count; the endpoint is closed again */
	assert_int_equal(ep_open(&ep, ml, limit + 1, 4, 0), ROCE_E_RANGE);
	snprintf(want, sizeof(want), "Couldn't create %u QPs: the device offers %u",
		 limit + 1, limit);
	assert_non_null(strstr(ep.err, want));
	assert_null(ep.ctx);
	assert_null(ep.qp);
	assert_int_equal(ep_open(&ep, ml, 0, 4, 0), ROCE_E_RANGE);

	/* the send CQ holds every QP's completions: 256 x 256 fits the
	 * device's 65536 entries, 256 x 257 does not */
	assert_int_equal(ep_open(&ep, ml, 256, 257, 256), ROCE_OK);
	perf_ep_close(&ep);
	assert_int_equal(ep_open(&ep, ml, 256, 257, 0), ROCE_E_RANGE);
	assert_non_null(strstr(ep.err, "Couldn't create a send CQ: 256 QPs of 257 "
			       "completions need 65792 entries"));
	roce_memlink_destroy(ml);
}

/* ---- the rights in effect: our side as a test's server, a peer that
 * asks for more ------------------------------------------------------ */

struct duo {
	struct roce_memlink *ml;
	struct perf_ep srv, peer;
	struct perf_layout l;
	uint64_t vaddr;                 /* what the server advertises */
};

static uint32_t ip_of(const struct perf_ep *ep)
{
	return ep->ip;
}

static void connect_one(struct perf_ep *ep, const struct perf_ep *to)
{
	struct perf_conn c = {
		.dest_qpn = roce_qp_num(to->qp[0]), .rq_psn = 0x100, .sq_psn = 0x100,
		.peer_ip = ip_of(to), .mtu = ROCE_MTU_1024, .timeout = 14,
		.min_rnr_timer = 12, .max_rd_atomic = 1, .max_dest_rd_atomic = 1,
	};

	assert_int_equal(perf_ep_connect(ep, 0, &c), ROCE_OK);
}

/* The server of a test (pingpong when test is NULL) as the tools set it
 * up, and a peer with every right, connected. */
static void duo_open(struct duo *d, const char *test)
{
	struct roce_memlink_config lc = { .seed = 7, .lossless = true };
	struct perf_ep_config c = { .nqp = 1, .sq_depth = 4, .rq_depth = 4,
				    .timeout_ms = 1000 };
	struct roce_qp_attr qa;
	struct roce_mr_ctx e;
	struct perf_opts o;

	memset(d, 0, sizeof(*d));
	if (test) {
		opts(&o, test);
		perf_layout(&o, 4096, 64, &d->l);
	} else {
		perf_layout_pingpong(4096, 4096, &d->l);
	}
	assert_int_equal(roce_memlink_create(&lc, &d->ml), ROCE_OK);
	c.memlink = d->ml;
	c.ip = 0x0A000001u;
	c.max_buf = d->l.len + d->l.align;
	c.qp_access = d->l.qp_access;
	assert_int_equal(perf_ep_open(&d->srv, &c), ROCE_OK);
	assert_int_equal(perf_ep_buffer(&d->srv, d->l.len, d->l.align, d->l.mr_access),
			 ROCE_OK);
	c.ip = 0x0A000002u;
	c.max_buf = 1u << 16;
	c.qp_access = LW | RW | RR | RA;
	assert_int_equal(perf_ep_open(&d->peer, &c), ROCE_OK);
	assert_int_equal(perf_ep_buffer(&d->peer, 1u << 16, 4096, LW | RW | RR | RA),
			 ROCE_OK);
	connect_one(&d->srv, &d->peer);
	connect_one(&d->peer, &d->srv);
	d->vaddr = (uintptr_t)d->srv.buf + perf_layout_remote(&d->l, 0);

	/* what the device holds, read back through the driver */
	assert_int_equal(roce_query_qp(d->srv.qp[0], &qa), ROCE_OK);
	assert_int_equal(qa.qp_access_flags, d->l.qp_access);
	assert_int_equal(roce_drv_mr_read(roce_context_driver(d->srv.ctx),
					  d->srv.mr->index, &e), ROCE_OK);
	assert_true(e.valid);
	assert_int_equal(e.access, d->l.mr_access);
	assert_int_equal(e.len, d->l.len);
	assert_int_equal(e.va, (uintptr_t)d->srv.buf);
	assert_int_equal(e.va % d->l.align, 0);
}

static void duo_close(struct duo *d)
{
	perf_ep_close(&d->peer);
	perf_ep_close(&d->srv);
	roce_memlink_destroy(d->ml);
}

/* The peer's one operation on the server's advertised region; its
 * completion status. */
static enum roce_wc_status ask(struct duo *d, enum roce_wr_opcode op)
{
	struct roce_sge sge = { (uintptr_t)d->peer.buf, op >= ROCE_WR_ATOMIC_CMP_AND_SWP ?
				8u : 64u, d->peer.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = op, .send_flags = ROCE_SEND_SIGNALED }, *bad;
	struct roce_sge rsge = { (uintptr_t)d->srv.buf + perf_layout_recv(&d->l, 0), 64,
				 d->srv.mr->lkey };
	struct roce_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct roce_wc wc;
	time_t end = time(NULL) + 10;

	memset(d->peer.buf, 0xEE, 64);
	if (op == ROCE_WR_SEND)
		assert_int_equal(roce_post_recv(d->srv.qp[0], &rwr, &rbad), ROCE_OK);
	if (op >= ROCE_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = d->vaddr;
		wr.wr.atomic.rkey = d->srv.mr->rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = d->vaddr;
		wr.wr.rdma.rkey = d->srv.mr->rkey;
	}
	assert_int_equal(roce_post_send(d->peer.qp[0], &wr, &bad), ROCE_OK);
	while (time(NULL) < end) {
		perf_ep_progress(&d->peer);
		perf_ep_progress(&d->srv);
		if (roce_poll_cq(d->peer.scq, 1, &wc) == 1)
			return wc.status;
	}
	fail_msg("no completion within 10 s");
	return ROCE_WC_GENERAL_ERR;
}

static bool zero(const uint8_t *p)
{
	for (int i = 0; i < 64; i++)
		if (p[i])
			return false;
	return true;
}

/* What the peer asks of a test's server, and whether it is served. */
struct ask_case {
	const char *test;               /* NULL: roce-pingpong */
	enum roce_wr_opcode op;
	bool served;
	bool qp_refuses;                /* the QP lacks the right (else the MR) */
};

static const struct ask_case asks[] = {
	{ "write_bw", ROCE_WR_RDMA_WRITE, true, false },
	{ "write_bw", ROCE_WR_RDMA_READ, false, true },  /* a write test's QP cannot be READ */
	{ "write_bw", ROCE_WR_ATOMIC_FETCH_AND_ADD, false, true },
	{ "write_lat", ROCE_WR_RDMA_READ, false, true },
	{ "read_bw", ROCE_WR_RDMA_READ, true, false },
	{ "read_bw", ROCE_WR_RDMA_WRITE, false, true },
	{ "read_lat", ROCE_WR_ATOMIC_CMP_AND_SWP, false, true },
	{ "atomic_bw", ROCE_WR_ATOMIC_FETCH_AND_ADD, true, false },
	{ "atomic_bw", ROCE_WR_RDMA_WRITE, false, true },
	{ "atomic_bw", ROCE_WR_RDMA_READ, false, true },
	{ "send_bw", ROCE_WR_SEND, true, false },
	{ "send_bw", ROCE_WR_RDMA_WRITE, false, false }, /* the QP allows it, the MR not */
	{ "send_bw", ROCE_WR_RDMA_READ, false, true },
	{ "send_lat", ROCE_WR_ATOMIC_FETCH_AND_ADD, false, true },
	{ NULL, ROCE_WR_SEND, true, false },             /* ibv_rc_pingpong's QP */
	{ NULL, ROCE_WR_RDMA_WRITE, false, true },
	{ NULL, ROCE_WR_RDMA_READ, false, true },
};

static void test_rights_in_effect(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
		const struct ask_case *a = &asks[i];
		struct duo d;
		enum roce_wc_status st;

		duo_open(&d, a->test);
		st = ask(&d, a->op);
		printf("  %-10s op %d: %s\n", a->test ? a->test : "pingpong", (int)a->op,
		       roce_wc_status_str(st));
		if (a->served) {
			assert_int_equal(st, ROCE_WC_SUCCESS);
		} else if (a->qp_refuses) {
			/* an operation the QP does not enable is an Invalid
			 * Request (SPEC.md, Memory; rxe check_op_valid),
			 * checked before the MR, which lacks the right too */
			assert_int_equal(st, ROCE_WC_REM_INV_REQ_ERR);
		} else {
			assert_int_equal(st, ROCE_WC_REM_ACCESS_ERR);
		}
		/* what a refused request would have changed is unchanged */
		if (a->op == ROCE_WR_SEND)
			assert_false(zero(d.srv.buf + perf_layout_recv(&d.l, 0)));
		else if (a->served && a->op != ROCE_WR_RDMA_READ)
			assert_false(zero(d.srv.buf + perf_layout_remote(&d.l, 0)));
		else
			assert_true(zero(d.srv.buf + perf_layout_remote(&d.l, 0)));
		if (a->op == ROCE_WR_RDMA_READ)         /* served: the zeros came */
			assert_true(zero(d.peer.buf) == a->served);
		duo_close(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perftest_layouts),
		cmocka_unit_test(test_many_qp_regions),
		cmocka_unit_test(test_pingpong_layout),
		cmocka_unit_test(test_cache_line),
		cmocka_unit_test(test_endpoint_qps),
		cmocka_unit_test(test_rights_in_effect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
