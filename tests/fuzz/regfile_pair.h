/* SPDX-License-Identifier: MIT */
/*
 * fuzz_regfile's fixture: engines A and B on the in-memory link, one RC QP
 * pair connected, a registered buffer each, on virtual time. Building it
 * costs two power-on sequences, each a soft reset over every table entry:
 * too slow to repeat per input. It is built once, saved, and put back
 * before each input (restore_fixture). Header-only: one target uses it.
 */
#ifndef ROCE_FUZZ_REGFILE_PAIR_H
#define ROCE_FUZZ_REGFILE_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/driver.h"
#include "roce/memlink.h"
#include "roce/verbs.h"
#include "regfile_model.h"

#define MEM_SIZE  (1u << 20)
#define BUF_LEN   (64u << 10)
#define STORE_END 0x140u        /* registers below are stored words */
#define MAX_OPS   1024

struct side {
	struct roce_context *ctx;
	struct roce_port port;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	uint8_t *buf;
	struct roce_mr *mr;
};

static struct roce_memlink *link_;
static struct side a, b;
static uint64_t vclock;
static struct roce_device *dev;         /* A's: the one under fuzz */

static uint64_t now_ns(void *ctx)
{
	(void)ctx;
	return vclock;
}

static void side_open(struct side *s, uint8_t id)
{
	struct roce_context_attr ca = { .ip = 0x0A000000u | id, .now_ns = now_ns };
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC, .cap = { 64, 64, 1, 1, 0 } };
	struct roce_mr_ctx e;

	ca.mac[0] = 2;
	ca.mac[5] = id;
	ca.dev.mem_size = MEM_SIZE;
	ca.dev.now_ns = now_ns;
	CHECK(roce_memlink_attach(link_, ca.mac, &s->port) == ROCE_OK);
	ca.port = &s->port;
	CHECK(roce_open(&ca, &s->ctx) == ROCE_OK);
	s->pd = roce_alloc_pd(s->ctx);
	s->cq = roce_create_cq(s->ctx, 256);
	s->buf = roce_mem_alloc(s->ctx, BUF_LEN, 4096);
	CHECK(s->pd && s->cq && s->buf);
	qa.send_cq = qa.recv_cq = s->cq;
	s->qp = roce_create_qp(s->pd, &qa);
	s->mr = roce_reg_mr(s->pd, s->buf, BUF_LEN, ROCE_ACCESS_LOCAL_WRITE |
			    ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ);
	CHECK(s->qp && s->mr);
	/* a fixed key byte instead of a random one: inputs replay */
	CHECK(roce_drv_mr_read(roce_context_driver(s->ctx), s->mr->index, &e) == ROCE_OK);
	e.lkey = e.rkey = ROCE_MR_KEY(s->mr->index, 0x5A);
	CHECK(roce_drv_mr_write(roce_context_driver(s->ctx), &e) == ROCE_OK);
	s->mr->lkey = s->mr->rkey = e.rkey;
}

static void side_connect(struct side *s, const struct side *peer, uint8_t peer_id)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
				   .qp_access_flags = ROCE_ACCESS_LOCAL_WRITE |
						      ROCE_ACCESS_REMOTE_WRITE };

	CHECK(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
			     ROCE_QP_PKEY_INDEX) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_1024;
	at.dest_qp_num = roce_qp_num(peer->qp);
	at.rq_psn = 100u * peer_id;
	at.max_dest_rd_atomic = 4;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = 0x0A000000u | peer_id;
	at.ah_attr.dest_mac[0] = 2;
	at.ah_attr.dest_mac[5] = peer_id;
	CHECK(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			     ROCE_QP_MIN_RNR_TIMER) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = peer_id == 1 ? 200 : 100;
	at.timeout = 8;
	at.retry_cnt = 3;
	at.rnr_retry = 3;
	at.max_rd_atomic = 4;
	CHECK(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
			     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
			     ROCE_QP_MAX_QP_RD_ATOMIC) == ROCE_OK);
}

static void pair_open(void)
{
	struct roce_memlink_config lc = { .seed = 1, .ring_frames = 64, .now_ns = now_ns };

	vclock = 1000000;
	CHECK(roce_memlink_create(&lc, &link_) == ROCE_OK);
	side_open(&a, 1);
	side_open(&b, 2);
	side_connect(&a, &b, 2);
	side_connect(&b, &a, 1);
	dev = roce_context_device(a.ctx);
}

/* ---- put back before each input ---------------------------------------------
 * Each input starts from the same state: the entries the last input
 * committed back to their power-on values, both QPs through RESET (which
 * empties their queues and the engines' state, IBA 10.3.1) and up again
 * to their saved contexts, A's registers to their saved image. Only the
 * counters, the generations and the clock keep going; no check depends on
 * their values. */

static struct roce_qp_ctx saved_qp[2];
static struct roce_mr_ctx saved_mr;
static uint32_t saved_reg[STORE_END / 4];
static bool saved_mapped[STORE_END / 4];
/* entries the input committed (QP_INDEX / MR_INDEX at the COMMIT) */
static uint32_t touched_qp[MAX_OPS], touched_mr[MAX_OPS], n_tqp, n_tmr;

static void save_fixture(void)
{
	struct roce_drv *drv = roce_context_driver(a.ctx);

	CHECK(roce_drv_qp_read(drv, roce_qp_num(a.qp), &saved_qp[0]) == ROCE_OK);
	CHECK(roce_drv_qp_read(roce_context_driver(b.ctx), roce_qp_num(b.qp),
			       &saved_qp[1]) == ROCE_OK);
	CHECK(roce_drv_mr_read(drv, a.mr->index, &saved_mr) == ROCE_OK);
	for (size_t i = 0; i < roce_regmap_count(); i++) {
		const struct roce_reg *r = roce_regmap_at(i);

		if (r->offset < STORE_END && r->access == ROCE_ACC_RW &&
		    r->offset != ROCE_REG_CTRL) {
			CHECK(roce_device_read32(dev, r->offset,
						 &saved_reg[r->offset / 4]) == ROCE_OK);
			saved_mapped[r->offset / 4] = true;
		}
	}
}

static void climb(struct side *s, const struct roce_qp_ctx *saved)
{
	struct roce_qp_ctx q = *saved;

	for (enum roce_qp_state st = ROCE_QPS_INIT; st <= ROCE_QPS_RTS; st++) {
		q.state = st;
		CHECK(roce_drv_qp_write(roce_context_driver(s->ctx), &q) == ROCE_OK);
	}
}

static void restore_fixture(void)
{
	struct roce_drv *drv = roce_context_driver(a.ctx);
	struct roce_qp_ctx q = saved_qp[0];
	struct roce_wc wc[64];

	CHECK(roce_device_write32(dev, ROCE_REG_CTRL, 0) == ROCE_OK);
	CHECK(roce_device_write32(dev, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN) == ROCE_OK);
	for (uint32_t i = 0; i < n_tqp; i++) {
		struct roce_qp_ctx blank = { .qpn = touched_qp[i], .pkey = 0xFFFF };

		CHECK(roce_drv_qp_write(drv, &blank) == ROCE_OK);
	}
	for (uint32_t i = 0; i < n_tmr; i++) {
		struct roce_mr_ctx none = { .index = touched_mr[i] };

		CHECK(roce_drv_mr_write(drv, &none) == ROCE_OK);
	}
	n_tqp = n_tmr = 0;
	CHECK(roce_drv_mr_write(drv, &saved_mr) == ROCE_OK);
	q.state = ROCE_QPS_RESET;
	CHECK(roce_drv_qp_write(drv, &q) == ROCE_OK);
	q = saved_qp[1];
	q.state = ROCE_QPS_RESET;
	CHECK(roce_drv_qp_write(roce_context_driver(b.ctx), &q) == ROCE_OK);
	/* the engines see both QPs in RESET and drop what is still in flight */
	for (int i = 0; i < 4; i++) {
		roce_engine_poll(a.ctx);
		roce_engine_poll(b.ctx);
		vclock += 50000;
	}
	while (roce_poll_cq(a.cq, 64, wc) > 0 || roce_poll_cq(b.cq, 64, wc) > 0)
		;
	climb(&a, &saved_qp[0]);
	climb(&b, &saved_qp[1]);
	CHECK(roce_device_write32(dev, ROCE_REG_QP_COMMIT, ROCE_TBL_CMD_LOAD) == ROCE_OK);
	CHECK(roce_device_write32(dev, ROCE_REG_MR_COMMIT, ROCE_TBL_CMD_LOAD) == ROCE_OK);
	for (uint32_t i = 0; i < STORE_END / 4; i++)
		if (saved_mapped[i])
			CHECK(roce_device_write32(dev, 4 * i, saved_reg[i]) == ROCE_OK);
}

#endif
