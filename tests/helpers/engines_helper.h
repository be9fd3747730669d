/* SPDX-License-Identifier: MIT */
/*
 * Two engines on raw-Ethernet ports, for the programs afp_engines
 * (AF_PACKET) and afx_engines (AF_XDP): the two-engine fixture
 * (tests/support/pair.h) on the programs' own ports, posting and waiting
 * for completions, and one round of WRITE, READ, SEND and WRITE back that
 * must leave exactly the right bytes in memory. Header-only, like
 * afp_helper.h.
 */
#ifndef ROCE_TEST_ENGINES_HELPER_H
#define ROCE_TEST_ENGINES_HELPER_H

#include "afp_helper.h"
#include "roce/counters.h"
#include "roce/verbs.h"
#include "support/pair.h"

#define H_BUF (4u << 20)

struct h_pair {
	struct pair p;
	uint8_t peer_mac[2][6]; /* A's peer, B's: as address resolution gave them */
	bool threads;           /* the engines run on threads of their own */
	void (*dump)(void);     /* both sides' port and engine counters */
};

/* An engine on each port (A on pa with address ip_a, B on pb): PD, CQs,
 * an RC QP, H_BUF of DDR registered for local write, remote write and
 * remote read; the QPs connected toward each other as perftest does, A
 * sending from PSN 0x100, B from 0x200. */
static inline void h_pair_open(struct h_pair *g, struct roce_port *pa, uint32_t ip_a,
			       struct roce_port *pb, uint32_t ip_b, enum roce_mtu mtu)
{
	struct pair_opts o = {
		.ports = { pa, pb }, .ip = { ip_a, ip_b },
		.buf_len = H_BUF, .cq_depth = 1024, .max_sge = 1,
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			  ROCE_ACCESS_REMOTE_READ,
		.mtu = mtu, .psn = { 0x100, 0x200 },
		/* ~16 ms: veth through two kernels on a loaded machine. Engine
		 * threads may wait for a core for long stretches (more so under
		 * sanitizers): perftest's 14 (~67 ms) then, so 8 silent rounds
		 * take half a second of starvation */
		.timeout = g->threads ? 14 : 12,
	};

	memcpy(o.peer_mac, g->peer_mac, sizeof(o.peer_mac));
	CHECK(pair_setup(&g->p, &o) == ROCE_OK, "%s", g->p.err);
}

/* The engine's non-zero counters, after a port's line the caller wrote. */
static inline void h_dump_counters(const struct pair_side *s)
{
	for (int id = 0; id < ROCE_CNT_COUNT; id++)
		if (pair_cnt(s, (enum roce_cnt)id))
			fprintf(stderr, " %s %llu", roce_cnt_name(id),
				(unsigned long long)pair_cnt(s, (enum roce_cnt)id));
	fputc('\n', stderr);
}

/*
 * With engine threads, this thread's writes to engine memory and the
 * engines' own are ordered through the kernel's packet rings, which
 * ThreadSanitizer cannot see: one poll of each engine takes its lock and
 * makes the order visible to it.
 */
static inline void h_order(struct h_pair *p)
{
	if (p->threads) {
		roce_engine_poll(p->p.a.ctx);
		roce_engine_poll(p->p.b.ctx);
	}
}

/* Poll both engines (unless they run on threads) until cq yields one
 * completion; it must succeed and carry wr_id. On failure, both sides'
 * counters go to stderr first. */
static inline struct roce_wc h_wait_wc(struct h_pair *p, struct roce_cq *cq,
				       uint64_t wr_id)
{
	struct roce_wc wc;
	int r = pair_wait_cq(&p->p, cq, &wc, 1, 20000);

	CHECK(r >= 0, "CQ overflow");
	if (r != 1 || wc.status != ROCE_WC_SUCCESS)
		p->dump();
	CHECK(r == 1, "no completion for wr %llu", (unsigned long long)wr_id);
	h_order(p);
	CHECK(wc.status == ROCE_WC_SUCCESS, "wr %llu: %s", (unsigned long long)wr_id,
	      roce_wc_status_str(wc.status));
	CHECK(wc.wr_id == wr_id, "wr_id %llu", (unsigned long long)wc.wr_id);
	return wc;
}

/* One signaled work request from s, and its completion. */
static inline void h_post(struct h_pair *p, struct pair_side *s, enum roce_wr_opcode op,
			  uint64_t id, uint8_t *local, uint32_t len, uint8_t *remote,
			  const struct pair_side *peer)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)local, len, s->mr->lkey };
	struct roce_send_wr wr = { 0 }, *bad = NULL;

	wr.wr_id = id;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	if (remote) {
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)remote;
		wr.wr.rdma.rkey = peer->mr->rkey;
	}
	CHECK_OK(roce_post_send(s->qp, &wr, &bad));
	h_wait_wc(p, s->scq, id);
}

static inline void h_fill(uint8_t *b, uint32_t n, unsigned seed)
{
	for (uint32_t i = 0; i < n; i++)
		b[i] = h_pat(seed, i);
}

/* Round k of len bytes: WRITE A->B, READ it back, SEND (up to 8 KB) into
 * a posted receive, WRITE B->A; each leaves exactly its bytes, and
 * nothing before or after them. */
static inline void h_round(struct h_pair *p, unsigned k, uint32_t len)
{
	struct pair_side *a = &p->p.a, *b = &p->p.b;
	uint8_t *src = a->buf, *dst = b->buf + 4096 + k;
	uint8_t *back = a->buf + (1u << 20);
	uint32_t slen = len < 8192 ? len : 8192;
	struct roce_sge rs = { (uint64_t)(uintptr_t)(b->buf + (2u << 20)), 8192,
			       b->mr->lkey };
	struct roce_recv_wr rwr = { .wr_id = 500 + k, .sg_list = &rs, .num_sge = 1 };
	struct roce_recv_wr *rbad = NULL;
	struct roce_wc wc;

	memset(dst - 64, 0, len + 128);
	memset(back, 0, len + 64);
	h_fill(src, len, k);
	h_order(p);
	h_post(p, a, ROCE_WR_RDMA_WRITE, 100 + k, src, len, dst, b);
	CHECK(!memcmp(dst, src, len), "%u B: WRITE data differs", len);
	CHECK(dst[len] == 0 && dst[-1] == 0, "%u B: WRITE spilled", len);
	h_post(p, a, ROCE_WR_RDMA_READ, 200 + k, back, len, dst, b);
	CHECK(!memcmp(back, src, len), "%u B: READ data differs", len);
	CHECK(back[len] == 0, "%u B: READ spilled", len);

	memset(b->buf + (2u << 20), 0, 8192);
	h_order(p);
	CHECK_OK(roce_post_recv(b->qp, &rwr, &rbad));
	h_fill(src, slen, 77 + k);
	h_post(p, a, ROCE_WR_SEND, 300 + k, src, slen, NULL, NULL);
	wc = h_wait_wc(p, b->rcq, 500 + k);
	CHECK(wc.opcode == ROCE_WC_RECV && wc.byte_len == slen, "recv wc %u", wc.byte_len);
	CHECK(!memcmp(b->buf + (2u << 20), src, slen), "%u B: SEND data differs", slen);

	h_fill(b->buf + (3u << 20), len, 900 + k);
	h_order(p);
	h_post(p, b, ROCE_WR_RDMA_WRITE, 400 + k, b->buf + (3u << 20), len,
	       a->buf + (3u << 20), a);
	CHECK(!memcmp(a->buf + (3u << 20), b->buf + (3u << 20), len),
	      "%u B: B->A WRITE differs", len);
}

/* With the engines on threads: quiet, both threads sleep on their ports
 * (a minute at most); one more round must wake them, by the posts, the
 * frames and the ACKs, or it times out. */
static inline void h_round_after_sleep(struct h_pair *p, unsigned k, uint32_t len)
{
	struct pair_side *sd[2] = { &p->p.a, &p->p.b };
	uint64_t s0[2], w0[2], s1[2], w1[2];

	for (int i = 0; i < 2; i++)
		CHECK_OK(roce_engine_set_sleep(sd[i]->ctx, 60000));
	h_sleep_us(50000);
	for (int i = 0; i < 2; i++) {
		roce_engine_sleep_stats(sd[i]->ctx, &s0[i], &w0[i]);
		CHECK(s0[i] > 0, "engine %c's thread never slept", 'A' + i);
	}
	h_round(p, k, len);
	for (int i = 0; i < 2; i++) {
		roce_engine_sleep_stats(sd[i]->ctx, &s1[i], &w1[i]);
		CHECK(w1[i] > w0[i], "engine %c's thread was not woken", 'A' + i);
	}
}

#endif
