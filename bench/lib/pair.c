/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "lib/pair.h"
#include "lib/util.h"
#include "roce/counters.h"
#include "roce/params.h"
#include "roce/status.h"

#define IP_A 0x0A000001u
#define IP_B 0x0A000002u
#define PSN_A 0x100000u
#define PSN_B 0x200000u

static void side_open(struct bench_side *s, struct roce_port *port, uint32_t ip,
		      unsigned nqp)
{
	struct roce_context_attr ca = { 0 };
	struct roce_qp_init_attr qa = { 0 };
	size_t len = 3u * BENCH_BUF_WIN;
	int rc;

	memcpy(ca.mac, port->mac, 6);
	ca.ip = ip;
	ca.port = port;
	rc = roce_open(&ca, &s->ctx);
	if (rc != ROCE_OK)
		bench_die("roce_open: %s", roce_status_str(rc));
	s->ip = ip;
	s->pd = roce_alloc_pd(s->ctx);
	s->scq = roce_create_cq(s->ctx, BENCH_CQ_DEPTH);
	s->rcq = roce_create_cq(s->ctx, BENCH_CQ_DEPTH);
	if (!s->pd || !s->scq || !s->rcq)
		bench_die("cannot create a PD or CQ");
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	qa.qp_type = ROCE_QPT_RC;
	qa.cap.max_send_wr = BENCH_SQ_DEPTH;
	qa.cap.max_recv_wr = BENCH_RQ_DEPTH;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	for (unsigned i = 0; i < nqp; i++)
		if (!(s->qp[i] = roce_create_qp(s->pd, &qa)))
			bench_die("cannot create QP %u", i);
	s->buf = roce_mem_alloc(s->ctx, len, 4096);
	if (!s->buf)
		bench_die("cannot allocate %zu bytes of device memory", len);
	memset(s->buf, 0, len);
	s->mr = roce_reg_mr(s->pd, s->buf, len, ROCE_ACCESS_LOCAL_WRITE |
			    ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ);
	if (!s->mr)
		bench_die("cannot register the buffer");
}

static void modify(struct roce_qp *qp, struct roce_qp_attr *at, unsigned mask)
{
	int rc = roce_modify_qp(qp, at, mask);

	if (rc != ROCE_OK)
		bench_die("modify_qp to state %d: %s", at->qp_state, roce_status_str(rc));
}

/* RESET -> INIT -> RTR -> RTS toward the peer's QP of the same index. */
static void side_connect(struct bench_pair *p, struct bench_side *s,
			 const struct bench_side *peer, uint32_t my_psn,
			 uint32_t peer_psn)
{
	for (unsigned i = 0; i < p->nqp; i++) {
		struct roce_qp_attr at = { 0 };

		at.qp_state = ROCE_QPS_INIT;
		at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
				     ROCE_ACCESS_REMOTE_READ;
		at.pkey = 0xFFFF;
		modify(s->qp[i], &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
		       ROCE_QP_PKEY_INDEX);
		at.qp_state = ROCE_QPS_RTR;
		at.path_mtu = p->mtu;
		at.dest_qp_num = roce_qp_num(peer->qp[i]);
		at.rq_psn = peer_psn + i;
		at.max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC;
		at.min_rnr_timer = 1;
		at.ah_attr.dest_ip = peer->ip;
		memcpy(at.ah_attr.dest_mac, s->peer_mac, 6);
		modify(s->qp[i], &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
		       ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
		       ROCE_QP_MIN_RNR_TIMER);
		at.qp_state = ROCE_QPS_RTS;
		at.sq_psn = my_psn + i;
		/* ~0.5 s (perftest's 14 is 67 ms): the kernel's RT throttling
		 * (--rt) or a loaded machine may stop an engine thread for
		 * 50 ms and more while thousands of frames wait in a paused
		 * link; a spurious timeout would measure the retry path
		 * instead of the data path */
		at.timeout = 17;
		at.retry_cnt = 7;
		at.rnr_retry = 7;
		at.max_rd_atomic = ROCE_MAX_RD_ATOMIC;
		modify(s->qp[i], &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
		       ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
	}
}

void pair_open_ports(struct bench_pair *p, struct roce_port *pa,
		     struct roce_port *pb, enum roce_mtu mtu, unsigned nqp)
{
	if (nqp < 1 || nqp > BENCH_MAX_QPS)
		bench_die("internal: %u QPs", nqp);
	p->nqp = nqp;
	p->mtu = mtu;
	p->b_cpu = -1;
	side_open(&p->a, pa, IP_A, nqp);
	side_open(&p->b, pb, IP_B, nqp);
	memcpy(p->a.peer_mac, pb->mac, 6);
	memcpy(p->b.peer_mac, pa->mac, 6);
	side_connect(p, &p->a, &p->b, PSN_A, PSN_B);
	side_connect(p, &p->b, &p->a, PSN_B, PSN_A);
}

void pair_open_memlink(struct bench_pair *p, enum roce_mtu mtu, unsigned nqp)
{
	static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0A };
	static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0B };
	struct roce_memlink_config lc = { 0 };
	int rc;

	/* a RoCE fabric is lossless (PFC): a full receive ring pauses the
	 * sender instead of dropping, so perftest's depth never overruns a
	 * responder that lost its core for a moment */
	lc.lossless = true;
	memset(p, 0, sizeof(*p));
	rc = roce_memlink_create(&lc, &p->link);
	if (rc == ROCE_OK)
		rc = roce_memlink_attach(p->link, mac_a, &p->ports[0]);
	if (rc == ROCE_OK)
		rc = roce_memlink_attach(p->link, mac_b, &p->ports[1]);
	if (rc != ROCE_OK)
		bench_die("in-memory link: %s", roce_status_str(rc));
	pair_open_ports(p, &p->ports[0], &p->ports[1], mtu, nqp);
}

static void side_close(struct bench_side *s, unsigned nqp)
{
	for (unsigned i = 0; i < nqp; i++)
		roce_destroy_qp(s->qp[i]);
	roce_dereg_mr(s->mr);
	roce_mem_free(s->ctx, s->buf);
	roce_destroy_cq(s->scq);
	roce_destroy_cq(s->rcq);
	roce_dealloc_pd(s->pd);
	roce_close(s->ctx);
}

void pair_close(struct bench_pair *p)
{
	pair_b_thread(p, -1);
	side_close(&p->a, p->nqp);
	side_close(&p->b, p->nqp);
	roce_memlink_destroy(p->link);
	p->link = NULL;
}

void pair_b_thread(struct bench_pair *p, int cpu)
{
	if (p->b_cpu >= 0) {
		roce_engine_stop(p->b.ctx);
		p->b_cpu = -1;
	}
	if (cpu >= 0) {
		int rc = roce_engine_start(p->b.ctx, cpu);

		if (rc != ROCE_OK)
			bench_die("engine thread: %s", roce_status_str(rc));
		p->b_cpu = cpu;
	}
}

static uint64_t cnt(const struct bench_side *s, enum roce_cnt id)
{
	return roce_cnt_read(roce_device_counters(roce_context_device(s->ctx)), id);
}

uint64_t pair_retransmissions(const struct bench_pair *p)
{
	return cnt(&p->a, ROCE_CNT_RETRANSMISSIONS) + cnt(&p->b, ROCE_CNT_RETRANSMISSIONS);
}

void pair_counts(const struct bench_pair *p, struct pair_counts *c)
{
	const struct bench_side *s[2] = { &p->a, &p->b };

	memset(c, 0, sizeof(*c));
	c->a_tx = cnt(&p->a, ROCE_CNT_TX_PKTS);
	c->b_tx = cnt(&p->b, ROCE_CNT_TX_PKTS);
	for (int i = 0; i < 2; i++) {
		c->retx += cnt(s[i], ROCE_CNT_RETRANSMISSIONS);
		c->timeouts += cnt(s[i], ROCE_CNT_TIMEOUTS);
		c->naks += cnt(s[i], ROCE_CNT_NAKS_RX_PSN_SEQ_ERR) +
			   cnt(s[i], ROCE_CNT_NAKS_RX_RNR);
	}
	if (p->link) {
		struct roce_memlink_stats st;

		roce_memlink_get_stats(p->link, &st);
		c->link_drops = st.ring_full;
		c->link_paused = st.paused;
	}
}
