/* SPDX-License-Identifier: MIT */
/*
 * The CM on QP1 (cm_qp1.h): MADs as UD SENDs to the peer's QP1, received
 * ones handed to the CM with the sender's GID, the CM's QP moves done with
 * roce_modify_qp. Linux splits the same between the MAD layer
 * (drivers/infiniband/core/mad.c: QP1's receive ring, one AH per send)
 * and cm.c's cm_init_qp_{init,rtr,rts}_attr.
 */
#include "common/clock.h"
#include "cm/cm_qp1.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roce/gid.h"
#include "roce/status.h"

#define RECV_LEN (ROCE_GRH_LEN + MAD_SIZE)

struct neigh {
	bool used;
	uint8_t gid[16];
	uint8_t mac[6];
};

struct cm_qp1 {
	struct cm_qp1_config cfg;
	struct cm *cm;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	uint8_t *buf;              /* receives, then send slots (device DDR) */
	struct roce_mr *mr;
	uint64_t sends_posted, sends_done;
	uint64_t last_done_ns;     /* when a send last completed */
	struct roce_qp *qps[CM_QP1_MAX_QPS];
	struct neigh neigh[CM_QP1_NEIGH];
	unsigned neigh_next;
	struct cm_qp1_stats st;
};

bool cm_qp1_sending(struct cm_qp1 *p, unsigned drain_ms)
{
	uint64_t now = cm_qp1_now_ns(p);

	return p->sends_done < p->sends_posted ||
	       (p->last_done_ns && now - p->last_done_ns < (uint64_t)drain_ms * 1000000u);
}

uint64_t cm_qp1_now_ns(struct cm_qp1 *p)
{
	return p->cfg.now_ns(p->cfg.clock_ctx);
}

static uint64_t op_now_us(void *ctx)
{
	return cm_qp1_now_ns(ctx) / 1000u;
}

/* The MAC of gid: the cache, else resolve_mac (then cached). */
static int neigh_mac(struct cm_qp1 *p, const uint8_t gid[16], uint8_t mac[6])
{
	struct neigh *n;

	for (unsigned i = 0; i < CM_QP1_NEIGH; i++)
		if (p->neigh[i].used && !memcmp(p->neigh[i].gid, gid, 16)) {
			memcpy(mac, p->neigh[i].mac, 6);
			return ROCE_OK;
		}
	if (!p->cfg.resolve_mac || p->cfg.resolve_mac(p->cfg.arg, gid, mac) != 0)
		return ROCE_E_NOENT;
	n = &p->neigh[p->neigh_next++ % CM_QP1_NEIGH];
	n->used = true;
	memcpy(n->gid, gid, 16);
	memcpy(n->mac, mac, 6);
	return ROCE_OK;
}

/* Our GID for a peer's: the IPv4 one for an IPv4-mapped GID; for IPv6
   the link-local one (entry 0) for a link-local peer, else the first
   other IPv6 address (entries 2..), as the kernel picks the source
   address of the route (roce/gid.h's table). */
static uint8_t sgid_for(struct cm_qp1 *p, const uint8_t dgid[16])
{
	const struct roce_gid_table *t = roce_context_gids(p->cfg.ctx);
	bool v4 = roce_gid_is_v4mapped(dgid);

	if (!v4 && dgid[0] == 0xfe && (dgid[1] & 0xc0) == 0x80)
		return 0;
	for (unsigned i = 1; i < t->n; i++)
		if (roce_gid_is_v4mapped(t->e[i].gid) == v4)
			return (uint8_t)i;
	return p->cfg.sgid_index;
}

static void ah_attr_for(struct cm_qp1 *p, const uint8_t gid[16], const uint8_t mac[6],
			struct roce_ah_attr *aa)
{
	memset(aa, 0, sizeof(*aa));
	memcpy(aa->dest_mac, mac, 6);
	aa->is_global = true;
	memcpy(aa->grh.dgid, gid, 16);
	aa->grh.sgid_index = sgid_for(p, gid);
}

int cm_qp1_ah_attr(struct cm_qp1 *p, const uint8_t gid[16], struct roce_ah_attr *aa)
{
	uint8_t mac[6];
	int rc = neigh_mac(p, gid, mac);

	if (rc == ROCE_OK)
		ah_attr_for(p, gid, mac, aa);
	return rc;
}

static int op_send(void *ctx, const struct cm_addr *to, const uint8_t mad[MAD_SIZE])
{
	struct cm_qp1 *p = ctx;
	struct roce_ah_attr aa;
	struct roce_ah *ah;
	uint8_t mac[6];
	uint8_t *slot;
	struct roce_sge sge;
	struct roce_send_wr wr = { 0 }, *bad = NULL;
	int rc;

	if (p->sends_posted - p->sends_done >= CM_QP1_SEND_DEPTH) {
		p->st.tx_full++;
		return ROCE_E_FULL;
	}
	if (neigh_mac(p, to->gid, mac) != ROCE_OK) {
		p->st.tx_no_mac++;
		return ROCE_E_NOENT;
	}
	ah_attr_for(p, to->gid, mac, &aa);
	rc = roce_create_ah_status(p->cfg.pd, &aa, &ah);
	if (rc != ROCE_OK) {
		p->st.tx_error++;
		return rc;
	}
	slot = p->buf + CM_QP1_RECV_DEPTH * RECV_LEN +
	       (p->sends_posted % CM_QP1_SEND_DEPTH) * MAD_SIZE;
	memcpy(slot, mad, MAD_SIZE);
	sge = (struct roce_sge){ (uint64_t)(uintptr_t)slot, MAD_SIZE, p->mr->lkey };
	wr.wr_id = p->sends_posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ROCE_GSI_QPN;
	/* the GSI Q_Key itself: its high bit also stands for QP1's own */
	wr.wr.ud.remote_qkey = ROCE_GSI_QKEY;
	rc = roce_post_send(p->qp, &wr, &bad);
	/* the WQE holds the address vector: the AH may go (verbs.h) */
	roce_destroy_ah(ah);
	if (rc != ROCE_OK) {
		p->st.tx_error++;
		return rc;
	}
	p->sends_posted++;
	p->st.tx_mads++;
	return ROCE_OK;
}

static struct roce_qp **qp_slot(struct cm_qp1 *p, uint32_t qpn)
{
	for (unsigned i = 0; i < CM_QP1_MAX_QPS; i++)
		if (p->qps[i] && roce_qp_num(p->qps[i]) == qpn)
			return &p->qps[i];
	return NULL;
}

/* The kernel's cm_init_qp_init_attr, cm_init_qp_rtr_attr and
   cm_init_qp_rts_attr, on the attributes the CM took from the REQ/REP. */
int cm_qp1_qp_attr(struct cm_qp1 *p, enum cm_qp_state state, const struct cm_qp_attr *a,
		   struct roce_qp_attr *at, unsigned *mask)
{
	uint8_t mac[6];

	memset(at, 0, sizeof(*at));
	*mask = ROCE_QP_STATE;
	switch (state) {
	case CM_QP_INIT:
		at->qp_state = ROCE_QPS_INIT;
		at->pkey = 0xFFFF;
		/* IB_ACCESS_REMOTE_WRITE, and READ and ATOMIC for a QP with
		   responder resources (rdma_cm always asks for some) */
		at->qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
				      ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
		*mask |= ROCE_QP_PKEY_INDEX | ROCE_QP_ACCESS_FLAGS;
		break;
	case CM_QP_RTR:
		if (neigh_mac(p, a->dgid, mac) != ROCE_OK)
			return ROCE_E_NOENT;
		at->qp_state = ROCE_QPS_RTR;
		at->path_mtu = (enum roce_mtu)a->path_mtu;
		at->dest_qp_num = a->dest_qpn;
		at->rq_psn = a->rq_psn;
		at->max_dest_rd_atomic = a->max_dest_rd_atomic;
		at->min_rnr_timer = 0; /* as cm_init_qp_rtr_attr: 655 ms */
		ah_attr_for(p, a->dgid, mac, &at->ah_attr);
		at->ah_attr.grh.flow_label = a->flow_label;
		at->ah_attr.grh.traffic_class = a->traffic_class;
		at->ah_attr.grh.hop_limit = a->hop_limit;
		*mask |= ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
			 ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
		break;
	case CM_QP_RTS:
		at->qp_state = ROCE_QPS_RTS;
		at->sq_psn = a->sq_psn;
		at->timeout = a->timeout;
		at->retry_cnt = a->retry_cnt;
		at->rnr_retry = a->rnr_retry;
		at->max_rd_atomic = a->max_rd_atomic;
		*mask |= ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
			 ROCE_QP_MAX_QP_RD_ATOMIC;
		break;
	case CM_QP_ERR:
	default:
		at->qp_state = ROCE_QPS_ERR;
		break;
	}
	return ROCE_OK;
}

static int op_modify_qp(void *ctx, uint32_t qpn, enum cm_qp_state state,
			const struct cm_qp_attr *a)
{
	struct cm_qp1 *p = ctx;
	struct roce_qp **qp = qp_slot(p, qpn);
	struct roce_qp_attr at;
	unsigned mask;
	int rc;

	if (!qp)
		return ROCE_E_NOENT;
	/* rdma_create_qp moves a QP to INIT at once (librdmacm's
	   ucma_init_conn_qp), so receives may be posted before the
	   connection: that QP stays as it is */
	if (state == CM_QP_INIT && roce_query_qp(*qp, &at) == ROCE_OK &&
	    at.qp_state == ROCE_QPS_INIT)
		return ROCE_OK;
	rc = cm_qp1_qp_attr(p, state, a, &at, &mask);
	if (rc == ROCE_OK)
		rc = roce_modify_qp(*qp, &at, mask);
	if (rc != ROCE_OK)
		p->st.modify_failed++;
	return rc;
}

static void op_event(void *ctx, const struct cm_event *ev)
{
	struct cm_qp1 *p = ctx;

	if (p->cfg.event)
		p->cfg.event(p->cfg.arg, ev);
}

static int post_recv_slot(struct cm_qp1 *p, unsigned i)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)(p->buf + i * RECV_LEN), RECV_LEN,
				p->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };

	return roce_post_recv(p->qp, &wr, NULL);
}

/* The sender's GID from the GRH area (ud.c's grh_area, as rxe fills it):
   IPv4, 20 zero bytes then the IP header; IPv6, the IP header. */
static bool grh_source(const uint8_t *g, uint8_t gid[16])
{
	static const uint8_t zero[20];

	if (!memcmp(g, zero, 20) && g[20] >> 4 == 4) {
		uint32_t ip = (uint32_t)g[32] << 24 | (uint32_t)g[33] << 16 |
			      (uint32_t)g[34] << 8 | g[35];
		roce_gid_from_ipv4(ip, gid);
		return true;
	}
	if (g[0] >> 4 == 6) {
		memcpy(gid, g + 8, 16);
		return true;
	}
	return false;
}

static void take_recv(struct cm_qp1 *p, const struct roce_wc *wc)
{
	unsigned i = (unsigned)wc->wr_id;
	const uint8_t *b = p->buf + i * RECV_LEN;
	struct cm_addr from;

	if (wc->status != ROCE_WC_SUCCESS) {
		p->st.rx_bad++;
		return; /* flushed: QP1 is going away */
	}
	if (wc->byte_len < ROCE_GRH_LEN || !grh_source(b, from.gid))
		p->st.rx_bad++;
	else {
		p->st.rx_mads++;
		/* a MAD of another length is counted by the CM (mad_check) */
		cm_recv(p->cm, &from, b + ROCE_GRH_LEN, wc->byte_len - ROCE_GRH_LEN);
	}
	if (post_recv_slot(p, i) != ROCE_OK)
		p->st.rx_bad++;
}

unsigned cm_qp1_poll(struct cm_qp1 *p)
{
	struct roce_wc wc[16];
	unsigned done = 0;
	int n;

	while ((n = roce_poll_cq(p->scq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++)
			if (wc[i].status != ROCE_WC_SUCCESS)
				p->st.tx_error++;
		p->sends_done += (unsigned)n;
		p->last_done_ns = cm_qp1_now_ns(p);
		done += (unsigned)n;
	}
	while ((n = roce_poll_cq(p->rcq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++)
			take_recv(p, &wc[i]);
		done += (unsigned)n;
	}
	if (cm_next_deadline(p->cm) <= cm_qp1_now_ns(p) / 1000u)
		cm_poll(p->cm);
	return done;
}

static int qp1_up(struct cm_qp1 *p)
{
	struct roce_qp_init_attr qa = {
		.send_cq = p->scq, .recv_cq = p->rcq, .qp_type = ROCE_QPT_GSI,
		.sq_sig_all = true,
		.cap = { .max_send_wr = CM_QP1_SEND_DEPTH, .max_recv_wr = CM_QP1_RECV_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF };
	int rc = roce_create_qp_status(p->cfg.pd, &qa, &p->qp);

	if (rc != ROCE_OK)
		return rc;
	rc = roce_modify_qp(p->qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX);
	for (unsigned i = 0; rc == ROCE_OK && i < CM_QP1_RECV_DEPTH; i++)
		rc = post_recv_slot(p, i);
	if (rc == ROCE_OK) {
		at.qp_state = ROCE_QPS_RTR;
		rc = roce_modify_qp(p->qp, &at, ROCE_QP_STATE);
	}
	if (rc == ROCE_OK) {
		at.qp_state = ROCE_QPS_RTS;
		at.sq_psn = 0;
		rc = roce_modify_qp(p->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN);
	}
	return rc;
}

int cm_qp1_create(const struct cm_qp1_config *cfg, struct cm_qp1 **out)
{
	size_t len = CM_QP1_RECV_DEPTH * RECV_LEN + CM_QP1_SEND_DEPTH * MAD_SIZE;
	struct cm_ops ops;
	struct cm_config cc;
	struct cm_qp1 *p;
	int rc;

	if (!cfg || !out || !cfg->ctx || !cfg->pd)
		return ROCE_E_INVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return ROCE_E_NOMEM;
	p->cfg = *cfg;
	if (!p->cfg.now_ns)
		p->cfg.now_ns = roce_clock_ns;
	cc = cfg->cm;
	rc = roce_query_gid(cfg->ctx, 1, cfg->sgid_index, cc.local_gid);
	if (rc != ROCE_OK)
		goto fail;
	rc = ROCE_E_NOMEM;
	p->scq = roce_create_cq(cfg->ctx, (int)CM_QP1_SEND_DEPTH);
	p->rcq = roce_create_cq(cfg->ctx, (int)CM_QP1_RECV_DEPTH);
	p->buf = roce_mem_alloc(cfg->ctx, len, 64);
	if (!p->scq || !p->rcq || !p->buf)
		goto fail;
	p->mr = roce_reg_mr(cfg->pd, p->buf, len, ROCE_ACCESS_LOCAL_WRITE);
	if (!p->mr)
		goto fail;
	rc = qp1_up(p);
	if (rc != ROCE_OK)
		goto fail;
	ops = (struct cm_ops){ .ctx = p, .send = op_send, .now_us = op_now_us,
			       .modify_qp = op_modify_qp, .event = op_event };
	p->cm = cm_create(&cc, &ops);
	if (!p->cm) {
		rc = ROCE_E_INVAL;
		goto fail;
	}
	*out = p;
	return ROCE_OK;
fail:
	cm_qp1_destroy(p);
	return rc;
}

void cm_qp1_destroy(struct cm_qp1 *p)
{
	if (!p)
		return;
	/* the last MADs out first (a DREP, a REJ): the engine thread sends
	   them while we look, for 200 ms at most */
	for (int i = 0; i < 2000 && p->qp && p->sends_done < p->sends_posted; i++) {
		struct roce_wc wc[16];
		int n = roce_poll_cq(p->scq, 16, wc);
		const struct timespec nap = { 0, 100000 };

		if (n > 0)
			p->sends_done += (unsigned)n;
		else
			nanosleep(&nap, NULL);
	}
	/* a UD send completes once the engine handed its frame to the port,
	   whose own queue (an AF_PACKET ring) may still hold it; the owner
	   stops the engine and closes the port next: 20 ms for a last DREP
	   to leave (an rping server answering the client's DREQ lost it) */
	if (p->qp && p->sends_posted) {
		const struct timespec linger = { 0, 20000000 };

		nanosleep(&linger, NULL);
	}
	cm_destroy(p->cm);
	if (p->qp)
		roce_destroy_qp(p->qp);
	if (p->mr)
		roce_dereg_mr(p->mr);
	if (p->buf)
		roce_mem_free(p->cfg.ctx, p->buf);
	if (p->scq)
		roce_destroy_cq(p->scq);
	if (p->rcq)
		roce_destroy_cq(p->rcq);
	free(p);
}

struct cm *cm_qp1_cm(struct cm_qp1 *p)
{
	return p->cm;
}

/* INIT as the CM would move it (P_Key, access flags) */
int cm_qp1_init_qp(struct cm_qp1 *p, struct roce_qp *qp)
{
	struct roce_qp_attr at;
	unsigned mask;

	cm_qp1_qp_attr(p, CM_QP_INIT, NULL, &at, &mask);
	return roce_modify_qp(qp, &at, mask);
}

int cm_qp1_add_qp(struct cm_qp1 *p, struct roce_qp *qp)
{
	for (unsigned i = 0; i < CM_QP1_MAX_QPS; i++)
		if (!p->qps[i]) {
			p->qps[i] = qp;
			return ROCE_OK;
		}
	return ROCE_E_FULL;
}

void cm_qp1_remove_qp(struct cm_qp1 *p, struct roce_qp *qp)
{
	for (unsigned i = 0; i < CM_QP1_MAX_QPS; i++)
		if (p->qps[i] == qp)
			p->qps[i] = NULL;
}

const struct cm_qp1_stats *cm_qp1_stats(const struct cm_qp1 *p)
{
	return &p->st;
}
