/* SPDX-License-Identifier: MIT */
/*
 * The CM suites' fixture: two CM instances (A and B) back to back through
 * a fake transport (drops and duplicates on demand) on a virtual clock,
 * with fake QPs that record every modify and a consumer that answers a
 * connect request or a SIDR request as the side's `answer` says.
 */
#ifndef ROCE_TEST_CM_FAKE_H
#define ROCE_TEST_CM_FAKE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/status.h"
#include "cm/cm.h"
#include "cm/cma.h"

#define SERVICE CMA_SERVICE_ID(CMA_PS_TCP, 7174)
#define MAXQ 512

struct side;

struct net {
	uint64_t now_us;
	struct pkt { int to; uint8_t mad[MAD_SIZE]; } q[MAXQ];
	unsigned n;
	unsigned drop[2];          /* drop that side's next N MADs */
	uint32_t drop_attr_mask[2]; /* drop every MAD of these attributes */
	bool dup;                  /* deliver everything twice */
	struct side *s[2];
};

struct qp_rec { enum cm_qp_state state; struct cm_qp_attr attr[4]; unsigned modifies; };

struct ev {
	enum cm_event_type type;
	int conn;
	uint16_t reason;
	uint8_t priv0;
	uint8_t sidr_status;       /* SIDR_REPLY: the SIDR_REP's */
	uint32_t qpn, qkey;        /* SIDR_REPLY: the SIDR_REP's */
	uint64_t service_id;       /* SIDR_REQUEST: the SIDR_REQ's */
};

#define FAKE_QKEY 0x01234567u

struct side {
	int id;
	struct net *net;
	struct cm *cm;
	struct cm_addr addr;
	struct ev ev[256];
	unsigned nev;
	unsigned sent_attr[16];
	uint8_t last_sent[MAD_SIZE];
	struct qp_rec qp[4];       /* by qpn - 0x20 */
	enum { ANSWER_NONE, ANSWER_ACCEPT, ANSWER_REJECT, ANSWER_MRA, ANSWER_ACCEPT_USER_QP } answer;
	struct cm_qp_attr user_attr; /* ANSWER_ACCEPT_USER_QP: cm_passive_attr's */
	uint32_t qpn, psn;
};

static int fake_send(void *ctx, const struct cm_addr *to, const uint8_t mad[MAD_SIZE])
{
	struct side *s = ctx;
	struct net *n = s->net;
	struct mad_hdr h;

	(void)to;
	mad_hdr_parse(mad, &h);
	s->sent_attr[(h.attr_id - 0x10) & 15]++;
	memcpy(s->last_sent, mad, MAD_SIZE);
	if (n->drop[s->id]) {
		n->drop[s->id]--;
		return 0; /* lost on the wire: the sender cannot tell */
	}
	if (n->drop_attr_mask[s->id] & (1u << ((h.attr_id - 0x10) & 31)))
		return 0;
	for (int copies = n->dup ? 2 : 1; copies > 0; copies--) {
		assert_true(n->n < MAXQ);
		n->q[n->n].to = !s->id;
		memcpy(n->q[n->n].mad, mad, MAD_SIZE);
		n->n++;
	}
	return 0;
}

static uint64_t fake_now(void *ctx)
{
	return ((struct side *)ctx)->net->now_us;
}

static int fake_modify(void *ctx, uint32_t qpn, enum cm_qp_state st, const struct cm_qp_attr *a)
{
	struct side *s = ctx;
	struct qp_rec *q;

	assert_true(qpn >= 0x20 && qpn < 0x24);
	assert_non_null(a);
	q = &s->qp[qpn - 0x20];
	q->state = st;
	q->attr[st] = *a;
	q->modifies++;
	return 0;
}

static void fake_event(void *ctx, const struct cm_event *e)
{
	struct side *s = ctx;

	assert_true(s->nev < 256);
	s->ev[s->nev++] = (struct ev){ e->type, e->conn, e->rej_reason,
				       e->private_data && e->private_len ? e->private_data[0] : 0,
				       e->sidr_rep ? e->sidr_rep->status : 0,
				       e->sidr_rep ? e->sidr_rep->qpn : 0,
				       e->sidr_rep ? e->sidr_rep->qkey : 0,
				       e->sidr_req ? e->sidr_req->service_id : 0 };
	if (e->type == CM_EV_SIDR_REQUEST) {
		assert_non_null(e->sidr_req);
		assert_non_null(e->from);
		if (s->answer == ANSWER_ACCEPT)
			assert_int_equal(cm_sidr_rep(s->cm, e->conn, CM_SIDR_SUCCESS, s->qpn,
						     FAKE_QKEY, "rep", 3), ROCE_OK);
		else if (s->answer == ANSWER_REJECT)
			assert_int_equal(cm_sidr_rep(s->cm, e->conn, CM_SIDR_REJECT, 0, 0, "no", 2),
					 ROCE_OK);
		return;
	}
	if (e->type != CM_EV_CONNECT_REQUEST)
		return;
	assert_non_null(e->req);
	switch (s->answer) {
	case ANSWER_ACCEPT:
	case ANSWER_ACCEPT_USER_QP: {
		struct cm_accept_param p = {
			.qpn = s->qpn, .starting_psn = s->psn, .responder_resources = 4,
			.initiator_depth = 2, .rnr_retry_count = 6, .target_ack_delay = 15,
			.private_data = "rep", .private_len = 3,
			.user_qp = s->answer == ANSWER_ACCEPT_USER_QP,
		};
		if (p.user_qp)
			assert_int_equal(cm_passive_attr(s->cm, e->conn, &p, &s->user_attr),
					 ROCE_OK);
		assert_int_equal(cm_accept(s->cm, e->conn, &p), ROCE_OK);
		break;
	}
	case ANSWER_REJECT:
		assert_int_equal(cm_reject(s->cm, e->conn, "no", 2), ROCE_OK);
		break;
	case ANSWER_MRA:
		assert_int_equal(cm_mra(s->cm, e->conn, 24), ROCE_OK);
		break;
	default:
		break;
	}
}

static struct net *net;
static struct side A, B;

static void side_init(struct side *s, int id, unsigned max_conns)
{
	struct cm_config cfg = {
		.ca_guid = 0x50540afffe4d0000ull | (uint64_t)(id + 11),
		.max_conns = max_conns, .max_listeners = 4,
		.packet_life_time = 16, .cm_response_timeout = 20, .max_cm_retries = 3,
		.comm_id_seed = 0x1000u * (unsigned)(id + 1),
	};
	struct cm_ops ops = { s, fake_send, fake_now, fake_modify, fake_event };

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->net = net;
	s->addr.gid[10] = s->addr.gid[11] = 0xff;
	s->addr.gid[12] = 10, s->addr.gid[15] = (uint8_t)(11 + id);
	memcpy(cfg.local_gid, s->addr.gid, 16);
	s->cm = cm_create(&cfg, &ops);
	assert_non_null(s->cm);
	s->qpn = 0x20 + (uint32_t)id;
	s->psn = 0x100000u + (uint32_t)id;
	net->s[id] = s;
}

static int setup(void **state)
{
	(void)state;
	net = calloc(1, sizeof(*net));
	net->now_us = 1000000;
	side_init(&A, 0, 8);
	side_init(&B, 1, 8);
	B.answer = ANSWER_ACCEPT;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cm_destroy(A.cm);
	cm_destroy(B.cm);
	free(net);
	return 0;
}

/* Delivers what is in flight (and what that provokes), bounded. */
static void deliver(void)
{
	for (int rounds = 0; net->n && rounds < 1000; rounds++) {
		struct pkt p = net->q[0];
		struct side *to = net->s[p.to];

		memmove(net->q, net->q + 1, --net->n * sizeof(net->q[0]));
		cm_recv(to->cm, &net->s[!p.to]->addr, p.mad, MAD_SIZE);
	}
	assert_int_equal(net->n, 0);
}

/* Runs the virtual clock for ms, firing timers and delivering. */
static void run_ms(uint64_t ms)
{
	uint64_t end = net->now_us + ms * 1000;

	for (int steps = 0; steps < 10000; steps++) {
		uint64_t next;

		deliver();
		next = cm_next_deadline(A.cm);
		if (cm_next_deadline(B.cm) < next)
			next = cm_next_deadline(B.cm);
		if (next > end)
			break;
		if (next > net->now_us)
			net->now_us = next;
		cm_poll(A.cm);
		cm_poll(B.cm);
	}
	net->now_us = end;
}

static unsigned count_ev(const struct side *s, enum cm_event_type t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nev; i++)
		n += s->ev[i].type == t;
	return n;
}

static const struct ev *last_ev(const struct side *s)
{
	assert_true(s->nev > 0);
	return &s->ev[s->nev - 1];
}

#endif
