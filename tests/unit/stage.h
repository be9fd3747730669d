/* SPDX-License-Identifier: MIT */
/*
 * Test fixture for one pipeline stage at a time: ONE engine with one RC QP
 * whose peer is scripted by the test. The peer is a bare port on the same
 * in-memory link: the test builds its frames by hand (roce_build) and sends
 * them through that port, and reads back, decoded, the exact frames the
 * engine sends. Work requests go through the verbs API. Engine and link run
 * on a virtual clock that only the test moves, so every timer (ACK timeout,
 * RNR wait) fires at a known instant. Header-only so each suite stays one
 * file; tests/unit/pair.h is the two-engine fixture.
 */
#ifndef ROCE_TEST_STAGE_H
#define ROCE_TEST_STAGE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/cc_options.h"
#include "roce/counters.h"
#include "roce/device.h"
#include "roce/memlink.h"
#include "roce/opcode.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/verbs.h"

#define STAGE_ENG_IP    0x0A000001u
#define STAGE_PEER_IP   0x0A000002u
#define STAGE_PEER_QPN  0x000123u
#define STAGE_SQ_PSN    0x100000u       /* the engine's first request PSN */
#define STAGE_RQ_PSN    0x200000u       /* the peer's first request PSN */
#define STAGE_MTU       256u            /* small: multi-packet messages stay short */
#define STAGE_BUF_LEN   65536u
#define STAGE_MAX_RX    64u
#define STAGE_ZERO      0xFF            /* an option's explicit 0 */

struct stage_opts {
	uint8_t timeout;                /* 0 = 14 (~67 ms: never fires unless asked) */
	uint8_t retry_cnt;              /* 0 = 7 */
	uint8_t rnr_retry;              /* 0 = 7 (infinite); STAGE_ZERO for 0 */
	uint8_t min_rnr_timer;          /* 0 = 4; the responder's RNR NAK code */
	uint8_t max_rd_atomic;          /* 0 = 16 */
	uint8_t max_dest_rd_atomic;     /* 0 = 16; STAGE_ZERO for 0 */
	uint32_t sq_psn;                /* 0 = STAGE_SQ_PSN */
	uint8_t qp_type;                /* 0 = ROCE_QPT_RC; ROCE_QPT_UC: the
					 * RC-only attributes are left out */
};

/* One frame the engine sent, decoded. */
struct stage_frame {
	struct roce_hdrs h;
	uint32_t len;                   /* payload bytes, pad excluded */
	uint8_t payload[ROCE_MAX_MTU];
};

struct stage {
	struct roce_memlink *link;
	struct roce_port eng_port, peer;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	uint8_t *buf;                   /* registered, all rights */
	struct roce_mr *mr;
	uint32_t sq_psn;
	uint64_t vclock;                /* ns; moved by the test only */
	struct stage_frame rx[STAGE_MAX_RX];
	unsigned nrx;                   /* frames of the last stage_run() */
};

static const uint8_t stage_eng_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t stage_peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static inline uint64_t stage_clock(void *ctx)
{
	return *(const uint64_t *)ctx;
}

static inline uint8_t stage_opt(uint8_t v, uint8_t dflt)
{
	return v == STAGE_ZERO ? 0 : v ? v : dflt;
}

static inline uint64_t stage_cnt(struct stage *st, enum roce_cnt id)
{
	return roce_cnt_read(roce_device_counters(roce_context_device(st->ctx)), id);
}

static inline enum roce_qp_state stage_qp_state(struct stage *st)
{
	struct roce_qp_attr at;

	assert_int_equal(roce_query_qp(st->qp, &at), ROCE_OK);
	return at.qp_state;
}

/* RESET -> INIT -> RTR -> RTS toward the scripted peer. */
static inline void stage_connect(struct stage *st, const struct stage_opts *o)
{
	const unsigned all = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			     ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	bool uc = o->qp_type == ROCE_QPT_UC;
	struct roce_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = all;
	at.pkey = 0xFFFF;
	assert_int_equal(roce_modify_qp(st->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
					ROCE_QP_PKEY_INDEX), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_256;
	at.dest_qp_num = STAGE_PEER_QPN;
	at.rq_psn = STAGE_RQ_PSN;
	at.max_dest_rd_atomic = stage_opt(o->max_dest_rd_atomic, 16);
	at.min_rnr_timer = stage_opt(o->min_rnr_timer, 4);
	at.ah_attr.dest_ip = STAGE_PEER_IP;
	memcpy(at.ah_attr.dest_mac, stage_peer_mac, 6);
	assert_int_equal(roce_modify_qp(st->qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
					ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					(uc ? 0 : ROCE_QP_MAX_DEST_RD_ATOMIC |
						  ROCE_QP_MIN_RNR_TIMER)),
			 ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = st->sq_psn;
	at.timeout = stage_opt(o->timeout, 14);
	at.retry_cnt = stage_opt(o->retry_cnt, 7);
	at.rnr_retry = stage_opt(o->rnr_retry, 7);
	at.max_rd_atomic = stage_opt(o->max_rd_atomic, 16);
	assert_int_equal(roce_modify_qp(st->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
					(uc ? 0 : ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
						  ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC)),
			 ROCE_OK);
}

static inline struct stage *stage_open(const struct stage_opts *o)
{
	struct stage *st = calloc(1, sizeof(*st));
	struct roce_memlink_config lc;
	struct roce_context_attr ca;
	struct roce_qp_init_attr qa;
	struct roce_cc_options cco;
	char why[128];

	assert_non_null(st);
	st->vclock = 1000000;
	st->sq_psn = o->sq_psn ? o->sq_psn : STAGE_SQ_PSN;
	memset(&lc, 0, sizeof(lc));
	lc.now_ns = stage_clock;
	lc.clock_ctx = &st->vclock;
	assert_int_equal(roce_memlink_create(&lc, &st->link), ROCE_OK);
	assert_int_equal(roce_memlink_attach(st->link, stage_eng_mac, &st->eng_port), ROCE_OK);
	assert_int_equal(roce_memlink_attach(st->link, stage_peer_mac, &st->peer), ROCE_OK);

	memset(&ca, 0, sizeof(ca));
	memcpy(ca.mac, stage_eng_mac, 6);
	ca.ip = STAGE_ENG_IP;
	ca.port = &st->eng_port;
	ca.now_ns = stage_clock;
	ca.clock_ctx = &st->vclock;
	assert_int_equal(roce_open(&ca, &st->ctx), ROCE_OK);
	/* ROCE_IBA_STRICT as roce-run takes it: the protocol tests run once
	   with the defaults, once with IBA's recovery alone
	   (tests/CMakeLists.txt) */
	roce_cc_options_init(&cco);
	assert_int_equal(roce_cc_options_env(&cco, why, sizeof(why)), ROCE_OK);
	assert_int_equal(roce_cc_options_apply(st->ctx, &cco), ROCE_OK);
	st->pd = roce_alloc_pd(st->ctx);
	st->scq = roce_create_cq(st->ctx, 256);
	st->rcq = roce_create_cq(st->ctx, 256);
	assert_non_null(st->pd);
	assert_non_null(st->scq);
	assert_non_null(st->rcq);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = st->scq;
	qa.recv_cq = st->rcq;
	qa.qp_type = o->qp_type ? (enum roce_qp_type)o->qp_type : ROCE_QPT_RC;
	qa.cap.max_send_wr = 64;
	qa.cap.max_recv_wr = 64;
	qa.cap.max_send_sge = ROCE_MAX_SGE;
	qa.cap.max_recv_sge = ROCE_MAX_SGE;
	st->qp = roce_create_qp(st->pd, &qa);
	assert_non_null(st->qp);
	st->buf = roce_mem_alloc(st->ctx, STAGE_BUF_LEN, 4096);
	assert_non_null(st->buf);
	memset(st->buf, 0, STAGE_BUF_LEN);
	st->mr = roce_reg_mr(st->pd, st->buf, STAGE_BUF_LEN,
			     ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			     ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC);
	assert_non_null(st->mr);
	stage_connect(st, o);
	if (cco.iba_strict && qa.qp_type == ROCE_QPT_RC) {
		struct roce_qp_cc q;

		/* IBA's recovery alone: no go-back-N window at all, once the
		   engine took the CC block (at its next poll) */
		roce_engine_poll(st->ctx);
		assert_int_equal(roce_qp_cc_state(st->qp, &q), ROCE_OK);
		assert_int_equal(q.window, 0);
	}
	return st;
}

static inline struct stage *stage_open_default(void)
{
	const struct stage_opts o = { 0 };

	return stage_open(&o);
}

static inline void stage_close(struct stage *st)
{
	roce_destroy_qp(st->qp);
	roce_dereg_mr(st->mr);
	roce_mem_free(st->ctx, st->buf);
	roce_destroy_cq(st->scq);
	roce_destroy_cq(st->rcq);
	roce_dealloc_pd(st->pd);
	roce_close(st->ctx);
	roce_memlink_destroy(st->link);
	free(st);
}

static inline uint64_t stage_va(struct stage *st, size_t off)
{
	return (uint64_t)(uintptr_t)(st->buf + off);
}

/* ---- the scripted peer: frames in ----------------------------------------- */

/* Headers of a frame from the peer to the engine's QP; the caller adds the
 * extension headers its opcode carries. */
static inline struct roce_hdrs stage_hdrs(struct stage *st, uint8_t opcode, uint32_t psn,
					  bool ackreq)
{
	struct roce_hdrs h;

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, stage_eng_mac, 6);
	memcpy(h.eth.src, stage_peer_mac, 6);
	h.eth.type = 0x0800;
	h.ip.ttl = 64;
	h.ip.frag = ROCE_IPV4_DF;
	roce_put_be32(h.ip.src, STAGE_PEER_IP);
	roce_put_be32(h.ip.dst, STAGE_ENG_IP);
	h.udp.sport = 0xC123;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = opcode;
	h.bth.pkey = 0xFFFF;
	h.bth.dqpn = roce_qp_num(st->qp);
	h.bth.ackreq = ackreq;
	h.bth.psn = psn & 0xFFFFFFu;
	return h;
}

static inline void stage_inject(struct stage *st, const struct roce_hdrs *h,
				const void *payload, uint32_t len)
{
	uint8_t buf[ROCE_MAX_FRAME];
	struct roce_frame f;
	size_t n;

	assert_int_equal(roce_build(h, payload, len, 0, buf, sizeof(buf), &n), ROCE_OK);
	f.data = buf;
	f.len = (uint32_t)n;
	assert_int_equal(roce_port_tx(&st->peer, &f, 1), 1);
}

/* An ACK or NAK from the peer (the completer's input). */
static inline void stage_inject_ack(struct stage *st, uint32_t psn, uint8_t syndrome,
				   uint32_t msn)
{
	struct roce_hdrs h = stage_hdrs(st, ROCE_OP_RC_ACK, psn, false);

	h.aeth.syndrome = syndrome;
	h.aeth.msn = msn;
	stage_inject(st, &h, NULL, 0);
}

/* ---- the engine's frames out ----------------------------------------------- */

/* Poll the engine three times at the current virtual time (a poll sends at
 * most one burst) and collect, parsed (ICRC checked) and decoded, every
 * frame it sent to the peer into st->rx; returns how many. */
static inline unsigned stage_run(struct stage *st)
{
	struct roce_frame f[ROCE_RX_BURST];
	unsigned n;

	st->nrx = 0;
	for (int i = 0; i < 3; i++)
		roce_engine_poll(st->ctx);
	while ((n = roce_port_rx(&st->peer, f, ROCE_RX_BURST)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			struct stage_frame *x = &st->rx[st->nrx];
			struct roce_pkt p;

			assert_true(st->nrx < STAGE_MAX_RX);
			assert_int_equal(roce_parse(f[i].data, f[i].len, 0, &p), ROCE_OK);
			roce_decode(&p, &x->h);
			assert_memory_equal(x->h.eth.dst, stage_peer_mac, 6);
			assert_int_equal(x->h.bth.dqpn, STAGE_PEER_QPN);
			assert_int_equal(x->h.bth.pkey, 0xFFFF);
			x->len = p.payload_len;
			memcpy(x->payload, roce_pkt_payload(&p), p.payload_len);
			st->nrx++;
		}
		roce_port_rx_release(&st->peer, n);
	}
	return st->nrx;
}

/* Move the virtual clock on by ns, then stage_run(). */
static inline unsigned stage_advance(struct stage *st, uint64_t ns)
{
	st->vclock += ns;
	return stage_run(st);
}

/* Frame i of the last run is an ACK-class reply with these fields. */
static inline void stage_assert_aeth(const struct stage_frame *f, uint8_t opcode,
				     uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	assert_int_equal(f->h.bth.opcode, opcode);
	assert_int_equal(f->h.bth.psn, psn & 0xFFFFFFu);
	assert_int_equal(f->h.aeth.syndrome, syndrome);
	assert_int_equal(f->h.aeth.msn, msn);
}

/* The last run sent exactly one frame: an ACK/NAK with these fields. */
static inline void stage_expect_ack(struct stage *st, uint32_t psn, uint8_t syndrome,
				    uint32_t msn)
{
	assert_int_equal(st->nrx, 1);
	stage_assert_aeth(&st->rx[0], ROCE_OP_RC_ACK, psn, syndrome, msn);
	assert_int_equal(st->rx[0].len, 0);
}

/* ---- work requests and completions ---------------------------------------- */

static inline void stage_post(struct stage *st, struct roce_send_wr *wr)
{
	struct roce_send_wr *bad = NULL;

	assert_int_equal(roce_post_send(st->qp, wr, &bad), ROCE_OK);
}

/* A WR of one SGE over buf[off, off + len). */
static inline struct roce_send_wr stage_wr(struct stage *st, struct roce_sge *sge,
					   uint64_t wr_id, enum roce_wr_opcode op,
					   size_t off, uint32_t len)
{
	struct roce_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	sge->addr = stage_va(st, off);
	sge->length = len;
	sge->lkey = st->mr->lkey;
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	return wr;
}

/* A signaled WRITE of len bytes from offset 0 to (va, rkey) at the peer */
static inline void stage_post_write(struct stage *st, uint64_t wr_id, uint32_t len,
				    uint64_t va, uint32_t rkey)
{
	struct roce_sge sge;
	struct roce_send_wr wr = stage_wr(st, &sge, wr_id, ROCE_WR_RDMA_WRITE, 0, len);

	wr.wr.rdma.remote_addr = va;
	wr.wr.rdma.rkey = rkey;
	stage_post(st, &wr);
}

static inline void stage_post_recv(struct stage *st, uint64_t wr_id, size_t off,
				   uint32_t len, uint32_t lkey)
{
	struct roce_sge sge = { stage_va(st, off), len, lkey };
	struct roce_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct roce_recv_wr *bad = NULL;

	assert_int_equal(roce_post_recv(st->qp, &wr, &bad), ROCE_OK);
}

/* The next completion on cq has these fields (byte_len checked on success). */
static inline void stage_expect_wc(struct roce_cq *cq, uint64_t wr_id,
				   enum roce_wc_status status, enum roce_wc_opcode op,
				   uint32_t byte_len)
{
	struct roce_wc wc;

	assert_int_equal(roce_poll_cq(cq, 1, &wc), 1);
	assert_int_equal(wc.wr_id, wr_id);
	if (wc.status != status)
		fail_msg("wr %llu: status '%s', want '%s'", (unsigned long long)wr_id,
			 roce_wc_status_str(wc.status), roce_wc_status_str(status));
	if (status == ROCE_WC_SUCCESS) {
		assert_int_equal(wc.opcode, op);
		assert_int_equal(wc.byte_len, byte_len);
	}
}

static inline void stage_expect_no_wc(struct roce_cq *cq)
{
	struct roce_wc wc;

	assert_int_equal(roce_poll_cq(cq, 1, &wc), 0);
}

/* buf[0..n) = seed, seed + step, seed + 2 step, ... (mod 256) */
static inline void stage_fill(uint8_t *p, size_t n, uint8_t seed, uint8_t step)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * step);
}

static inline void stage_assert_filled(const uint8_t *p, uint8_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			fail_msg("byte %zu: 0x%02x, want 0x%02x", i, p[i], v);
}

/* The 64-bit word at buf[off], in host order (atomics operate on it). */
static inline uint64_t stage_word(struct stage *st, size_t off)
{
	uint64_t v;

	memcpy(&v, st->buf + off, 8);
	return v;
}

static inline void stage_set_word(struct stage *st, size_t off, uint64_t v)
{
	memcpy(st->buf + off, &v, 8);
}


#endif
