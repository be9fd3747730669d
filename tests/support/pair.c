/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roce/cc_options.h"
#include "roce/params.h"
#include "roce/status.h"
#include "support/pair.h"

#define ACCESS_ALL (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
		    ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

static uint64_t vclock(void *ctx)
{
	return *(const uint64_t *)ctx;
}

static int fail(struct pair *p, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	return rc;
}

static uint8_t opt(uint8_t v, uint8_t dflt)
{
	return v == PAIR_ZERO ? 0 : v ? v : dflt;
}

static char name(const struct pair *p, const struct pair_side *s)
{
	return s == &p->a ? 'A' : 'B';
}

/* The engine on s->port, its PD, CQs, QPs and registered buffer. */
static int side_open(struct pair *p, struct pair_side *s, uint32_t ip,
		     const struct pair_opts *o)
{
	struct roce_context_attr ca = { 0 };
	struct roce_qp_init_attr qa = { 0 };
	struct roce_cc_options cco;
	unsigned access = o->access ? o->access : ACCESS_ALL;
	int cqe = o->cq_depth ? o->cq_depth : 4096;
	char why[128];
	int rc;

	static const uint8_t none[16];
	const uint8_t *ip6 = o->ip6[s == &p->a ? 0 : 1];

	memcpy(ca.mac, s->port->mac, 6);
	ca.ip = s->ip = ip;
	ca.port = s->port;
	if (memcmp(ip6, none, 16)) {
		memcpy(ca.ip6[0], ip6, 16);
		ca.n_ip6 = 1;
	}
	ca.dev.mem_size = o->mem_size;
	ca.port_mtu = o->port_mtu;
	ca.trace = o->trace;
	ca.trace_nic = s == &p->a ? 0 : 1;
	if (p->virtual_time) {
		ca.now_ns = vclock;
		ca.clock_ctx = &p->vclock;
	}
	rc = roce_open(&ca, &s->ctx);
	if (rc != ROCE_OK)
		return fail(p, rc, "%c: roce_open: %s", name(p, s), roce_status_str(rc));
	/* the loss recovery roce-run's environment asks for (ROCE_IBA_STRICT:
	   the protocol tests run once with the defaults, once with IBA's
	   recovery alone; tests/CMakeLists.txt) */
	roce_cc_options_init(&cco);
	rc = roce_cc_options_env(&cco, why, sizeof(why));
	if (rc == ROCE_OK)
		rc = roce_cc_options_apply(s->ctx, &cco);
	if (rc != ROCE_OK)
		return fail(p, rc, "%c: loss recovery from the environment: %s", name(p, s),
			    rc == ROCE_E_INVAL ? why : roce_status_str(rc));
	/* the GID its QPs send from (roce/gid.h's table: 0 link-local, 1
	 * IPv4, 2 the IPv6 address) */
	s->sgid_index = !o->ipv6 ? 1 : ca.n_ip6 ? 2 : 0;
	rc = roce_query_gid(s->ctx, 1, s->sgid_index, s->gid);
	if (rc != ROCE_OK)
		return fail(p, rc, "%c: GID %d: %s", name(p, s), s->sgid_index,
			    roce_status_str(rc));
	s->pd = roce_alloc_pd(s->ctx);
	s->scq = roce_create_cq(s->ctx, cqe);
	s->rcq = roce_create_cq(s->ctx, cqe);
	if (!s->pd || !s->scq || !s->rcq)
		return fail(p, ROCE_E_NOMEM, "%c: cannot create a PD or CQ", name(p, s));
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	qa.qp_type = o->qp_type ? o->qp_type : ROCE_QPT_RC;
	qa.cap.max_recv_wr = o->rq_depth ? o->rq_depth : 256;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = o->max_sge ? o->max_sge : ROCE_WQE_SGE;
	qa.cap.max_inline_data = o->max_inline;
	s->qps = calloc(p->nqp, sizeof(*s->qps));
	if (!s->qps)
		return fail(p, ROCE_E_NOMEM, "%c: cannot allocate %u QP pointers", name(p, s),
			    p->nqp);
	s->nqp = p->nqp;
	for (unsigned i = 0; i < p->nqp; i++) {
		qa.cap.max_send_wr = i == 0 && o->sq_depth0 ? o->sq_depth0
				   : o->sq_depth ? o->sq_depth : 256;
		if (!(s->qps[i] = roce_create_qp(s->pd, &qa)))
			return fail(p, ROCE_E_NOMEM, "%c: cannot create QP %u", name(p, s), i);
	}
	s->qp = s->qps[0];
	s->buf_len = o->buf_len ? o->buf_len : 4u << 20;
	s->buf = roce_mem_alloc(s->ctx, s->buf_len, 4096);
	if (!s->buf)
		return fail(p, ROCE_E_NOMEM, "%c: cannot allocate %zu bytes of device memory",
			    name(p, s), s->buf_len);
	memset(s->buf, 0, s->buf_len);
	s->mr = roce_reg_mr(s->pd, s->buf, s->buf_len, access);
	if (!s->mr)
		return fail(p, ROCE_E_NOMEM, "%c: cannot register the buffer", name(p, s));
	return ROCE_OK;
}

static int modify(struct pair *p, struct pair_side *s, unsigned i,
		  struct roce_qp_attr *at, unsigned mask)
{
	int rc = roce_modify_qp(s->qps[i], at, mask);

	if (rc != ROCE_OK)
		return fail(p, rc, "%c: modify_qp of QP %u to state %d: %s", name(p, s), i,
			    at->qp_state, roce_status_str(rc));
	return ROCE_OK;
}

/* RESET -> INIT -> RTR -> RTS toward the peer's QP of the same index, as
 * perftest does (for UC without the timer, retry and READ/atomic
 * attributes, as perftest -c UC). */
static int side_connect(struct pair *p, struct pair_side *s, const struct pair_side *peer,
			uint32_t my_psn, uint32_t peer_psn, const struct pair_opts *o)
{
	/* 16 unless asked: the depth before the limit grew to 128, which
	   keeps the many-QP rows' responder resources where they were */
	uint8_t rd_atomic = opt(o->max_rd_atomic, ROCE_RESP_RD_MIN);
	bool rc_qp = o->qp_type != ROCE_QPT_UC;
	int rc = ROCE_OK;

	for (unsigned i = 0; i < p->nqp && rc == ROCE_OK; i++) {
		struct roce_qp_attr at = { 0 };

		at.qp_state = ROCE_QPS_INIT;
		at.qp_access_flags = o->access ? o->access : ACCESS_ALL;
		at.pkey = 0xFFFF;
		rc = modify(p, s, i, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
			    ROCE_QP_PKEY_INDEX);
		if (rc != ROCE_OK)
			break;
		at.qp_state = ROCE_QPS_RTR;
		at.path_mtu = p->mtu;
		at.dest_qp_num = roce_qp_num(peer->qps[i]);
		at.rq_psn = peer_psn + i;
		at.max_dest_rd_atomic = rd_atomic;
		at.min_rnr_timer = opt(o->min_rnr_timer, 1);
		at.ah_attr.dest_ip = peer->ip;
		memcpy(at.ah_attr.dest_mac, s->peer_mac, 6);
		if (o->ipv6) {
			at.ah_attr.is_global = true;
			at.ah_attr.grh.sgid_index = (uint8_t)s->sgid_index;
			memcpy(at.ah_attr.grh.dgid, peer->gid, 16);
			at.ah_attr.grh.flow_label = o->flow_label;
			at.ah_attr.grh.traffic_class = o->tclass;
		}
		rc = modify(p, s, i, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			    ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
			    (rc_qp ? ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER : 0));
		if (rc != ROCE_OK)
			break;
		at.qp_state = ROCE_QPS_RTS;
		at.sq_psn = my_psn + i;
		at.timeout = opt(o->timeout, 10);
		at.retry_cnt = opt(o->retry_cnt, 7);
		at.rnr_retry = opt(o->rnr_retry, 7);
		at.max_rd_atomic = rd_atomic;
		rc = modify(p, s, i, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			    (rc_qp ? ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				     ROCE_QP_MAX_QP_RD_ATOMIC : 0));
	}
	return rc;
}

/* A new in-memory link with a port for each side. */
static int link_open(struct pair *p, const struct pair_opts *o)
{
	struct roce_memlink_config lc = o->link;
	struct pair_side *sd[2] = { &p->a, &p->b };
	int rc;

	if (p->virtual_time) {
		lc.now_ns = vclock;
		lc.clock_ctx = &p->vclock;
	}
	rc = roce_memlink_create(&lc, &p->link);
	if (rc != ROCE_OK)
		return fail(p, rc, "in-memory link: %s", roce_status_str(rc));
	for (int i = 0; i < 2; i++) {
		const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) };

		rc = roce_memlink_attach(p->link, mac, &sd[i]->link_port);
		if (rc != ROCE_OK)
			return fail(p, rc, "in-memory link: port %d: %s", i,
				    roce_status_str(rc));
		sd[i]->port = &sd[i]->link_port;
	}
	return ROCE_OK;
}

static const uint8_t *or_mac(const uint8_t *mac, const uint8_t *dflt)
{
	static const uint8_t zero[6];

	return memcmp(mac, zero, 6) ? mac : dflt;
}

static int setup(struct pair *p, const struct pair_opts *o)
{
	uint32_t psn_a = o->psn[0] ? o->psn[0] : 0x123457u;
	uint32_t psn_b = o->psn[1] ? o->psn[1] : 0x123458u;
	int rc;

	if (p->nqp < 1 || p->nqp > PAIR_MAX_QPS)
		return fail(p, ROCE_E_RANGE, "%u QPs (1 to %u)", p->nqp, PAIR_MAX_QPS);
	if (!o->ports[0] != !o->ports[1])
		return fail(p, ROCE_E_INVAL, "one port given: both or neither");
	if (o->ports[0]) {
		p->a.port = o->ports[0];
		p->b.port = o->ports[1];
	} else if ((rc = link_open(p, o)) != ROCE_OK) {
		return rc;
	}
	memcpy(p->a.peer_mac, or_mac(o->peer_mac[0], p->b.port->mac), 6);
	memcpy(p->b.peer_mac, or_mac(o->peer_mac[1], p->a.port->mac), 6);
	rc = side_open(p, &p->a, o->ip[0] ? o->ip[0] : 0x0A000001u, o);
	if (rc == ROCE_OK)
		rc = side_open(p, &p->b, o->ip[1] ? o->ip[1] : 0x0A000002u, o);
	if (rc == ROCE_OK)
		rc = side_connect(p, &p->a, &p->b, psn_a, psn_b, o);
	if (rc == ROCE_OK)
		rc = side_connect(p, &p->b, &p->a, psn_b, psn_a, o);
	return rc;
}

int pair_setup(struct pair *p, const struct pair_opts *o)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->nqp = o->nqp ? o->nqp : 1;
	p->mtu = o->mtu ? o->mtu : ROCE_MTU_1024;
	p->virtual_time = o->virtual_time;
	p->vclock = 1000000;
	rc = setup(p, o);
	if (rc != ROCE_OK) {
		char err[sizeof(p->err)];

		memcpy(err, p->err, sizeof(err));
		pair_teardown(p);
		memcpy(p->err, err, sizeof(err));
	}
	return rc;
}

static void side_close(struct pair_side *s)
{
	pair_stop(s);
	for (unsigned i = 0; i < s->nqp; i++)
		if (s->qps[i])
			roce_destroy_qp(s->qps[i]);
	free(s->qps);
	if (s->mr)
		roce_dereg_mr(s->mr);
	if (s->buf)
		roce_mem_free(s->ctx, s->buf);
	if (s->scq)
		roce_destroy_cq(s->scq);
	if (s->rcq)
		roce_destroy_cq(s->rcq);
	if (s->pd)
		roce_dealloc_pd(s->pd);
	if (s->ctx)
		roce_close(s->ctx);
}

void pair_teardown(struct pair *p)
{
	side_close(&p->a);
	side_close(&p->b);
	if (p->link)
		roce_memlink_destroy(p->link);
	memset(p, 0, sizeof(*p));
}

int pair_start(struct pair_side *s, int cpu)
{
	int rc = roce_engine_start(s->ctx, cpu);

	if (rc == ROCE_OK)
		s->thread = true;
	return rc;
}

void pair_stop(struct pair_side *s)
{
	if (s->thread)
		roce_engine_stop(s->ctx);
	s->thread = false;
}

int pair_wait_cq(struct pair *p, struct roce_cq *cq, struct roce_wc *wc, int n,
		 unsigned timeout_ms)
{
	uint64_t end = pair_now_ms() + timeout_ms;
	int got = 0;

	while (got < n && pair_now_ms() < end) {
		int r;

		pair_poll(p);
		r = roce_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (!r && p->a.thread && p->b.thread) {
			/* leave the cores to the engines */
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
	return got;
}

uint64_t pair_cnt(const struct pair_side *s, enum roce_cnt id)
{
	return roce_cnt_read(roce_device_counters(roce_context_device(s->ctx)), id);
}

uint64_t pair_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool pair_iba_strict(void)
{
	struct roce_cc_options o;
	char why[128];

	roce_cc_options_init(&o);
	return roce_cc_options_env(&o, why, sizeof(why)) == ROCE_OK && o.iba_strict;
}
