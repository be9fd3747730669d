/* SPDX-License-Identifier: MIT */
/*
 * For the suites of completion channels, asynchronous events and SRQs:
 * more QPs on the two engines of the fixture (tests/unit/pair.h), on CQs
 * and SRQs a test makes, connected to each other as the fixture connects
 * its own; sends and receives over them; reading an event fd without
 * blocking.
 */
#ifndef ROCE_TEST_EVENTS_H
#define ROCE_TEST_EVENTS_H

#include <fcntl.h>
#include <poll.h>

#include "pair.h"

/* An RC QP of side s on the given CQs (and SRQ, or NULL). */
static inline struct roce_qp *ev_qp(struct pair_side *s, struct roce_cq *scq,
				    struct roce_cq *rcq, struct roce_srq *srq)
{
	struct roce_qp_init_attr qa = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = ROCE_QPT_RC, .srq = srq,
		.cap = { .max_send_wr = 256, .max_recv_wr = 256, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct roce_qp *qp = roce_create_qp(s->pd, &qa);

	assert_non_null(qp);
	return qp;
}

/* qp of side s: RESET -> INIT -> RTR -> RTS toward the peer's QP peer_qpn. */
static inline void ev_connect_one(struct pair *p, struct pair_side *s, struct pair_side *peer,
				  struct roce_qp *qp, uint32_t peer_qpn)
{
	struct roce_qp_attr at = { 0 };

	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			     ROCE_ACCESS_REMOTE_READ;
	at.pkey = 0xFFFF;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
					ROCE_QP_PKEY_INDEX), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = p->mtu;
	at.dest_qp_num = peer_qpn;
	at.rq_psn = 0x1000 + peer_qpn;
	at.max_dest_rd_atomic = 4;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = peer->ip;
	memcpy(at.ah_attr.dest_mac, s->peer_mac, 6);
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
					ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER),
			 ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = 0x1000 + roce_qp_num(qp);
	at.timeout = 14;        /* 67 ms: engine threads on a loaded machine */
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 4;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
					ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					ROCE_QP_MAX_QP_RD_ATOMIC), ROCE_OK);
}

/* A's qa and B's qb connected to each other. */
static inline void ev_connect(struct pair *p, struct roce_qp *qa, struct roce_qp *qb)
{
	ev_connect_one(p, &p->a, &p->b, qa, roce_qp_num(qb));
	ev_connect_one(p, &p->b, &p->a, qb, roce_qp_num(qa));
}

/* A SEND of len bytes from A's buffer at off (signaled, SE bit as asked). */
static inline void ev_send(struct pair *p, struct roce_qp *qp, uint64_t id, uint32_t off,
			   uint32_t len, bool solicited)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf + off, len, p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };

	if (solicited)
		wr.send_flags |= ROCE_SEND_SOLICITED;
	assert_int_equal(roce_post_send(qp, &wr, NULL), ROCE_OK);
}

/* A receive into B's buffer at off. */
static inline struct roce_recv_wr ev_recv_wr(struct pair *p, struct roce_sge *sge, uint64_t id,
					     uint32_t off, uint32_t len)
{
	struct roce_recv_wr wr = { .wr_id = id, .sg_list = sge, .num_sge = 1 };

	*sge = (struct roce_sge){ (uint64_t)(uintptr_t)p->b.buf + off, len, p->b.mr->lkey };
	return wr;
}

static inline void ev_recv(struct pair *p, struct roce_qp *qp, uint64_t id, uint32_t off,
			   uint32_t len)
{
	struct roce_sge sge;
	struct roce_recv_wr wr = ev_recv_wr(p, &sge, id, off, len);

	assert_int_equal(roce_post_recv(qp, &wr, NULL), ROCE_OK);
}

/* Both engines, n polls (virtual time moves 1 us a poll). */
static inline void ev_polls(struct pair *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pair_poll(p);
}

static inline void ev_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	assert_true(fl >= 0);
	assert_int_equal(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

/* Is fd readable now? */
static inline bool ev_readable(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };

	return poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN);
}

#endif
