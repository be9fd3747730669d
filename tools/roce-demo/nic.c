/* SPDX-License-Identifier: MIT */
/*
 * The two NICs: each a whole device model on the in-memory link, powered
 * on by the driver's sequence (seed 000 section 3.3) in roce_open(), its
 * QP and MRs committed through the table windows, all of it read back
 * through the same driver; and, at the end, the counters from the STAT
 * registers.
 */
#include <string.h>

#include "roce-demo/demo.h"
#include "roce/cc.h"
#include "roce/status.h"
#include "roce/tables.h"

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

static bool nic_open(struct demo *d, struct nic *n, size_t len)
{
	struct step *s = &d->step[ST_SETUP];
	struct roce_context_attr ca = { .ip = n->ip, .port = &n->port };
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC };
	int st;

	/* the DDR: the buffers plus room for the allocator's alignment */
	ca.dev.mem_size = round_up(len + (1u << 20), 1u << 20);
	if (ca.dev.mem_size < ROCE_DEV_MEM_SIZE_DEFAULT)
		ca.dev.mem_size = ROCE_DEV_MEM_SIZE_DEFAULT;
	ca.dev.qp_count = d->o.qp_count;
	ca.trace = d->trace;
	ca.trace_nic = n == &d->b;
	if (d->o.virtual_time) {
		ca.now_ns = ca.dev.now_ns = demo_clock_read;
		ca.dev.mem_at = demo_ddr_at(d, n);
		ca.key_seed = d->o.seed * 2 + 1 + (n == &d->b);
	}
	memcpy(ca.mac, n->mac, 6);
	if ((st = roce_memlink_attach(d->link, n->mac, &n->port)) != ROCE_OK)
		return step_fail(s, "attach NIC %s to the link: %s", n->name,
				 roce_status_str(st));
	if ((st = roce_open(&ca, &n->ctx)) != ROCE_OK)
		return step_fail(s, "power-on of NIC %s: %s", n->name,
				 roce_status_str(st));
	/* loss recovery as asked (ECN and DCQCN stay off); nothing asked:
	 * the device's defaults */
	if ((st = roce_cc_options_apply(n->ctx, &d->o.cc)) != ROCE_OK)
		return step_fail(s, "NIC %s: loss recovery settings: %s", n->name,
				 roce_status_str(st));
	n->drv = roce_context_driver(n->ctx);
	n->pd = roce_alloc_pd(n->ctx);
	n->scq = roce_create_cq(n->ctx, 4 * QP_DEPTH);
	n->rcq = roce_create_cq(n->ctx, 4 * QP_DEPTH);
	if (!n->pd || !n->scq || !n->rcq)
		return step_fail(s, "NIC %s: PD or CQ: out of memory", n->name);
	qa.send_cq = n->scq;
	qa.recv_cq = n->rcq;
	qa.cap = (struct roce_qp_cap){ QP_DEPTH, QP_DEPTH, 1, 1, 0 };
	n->qp = roce_create_qp(n->pd, &qa);
	n->buf = roce_mem_alloc(n->ctx, len, PAGE);
	if (!n->qp || !n->buf)
		return step_fail(s, "NIC %s: QP or %zu bytes of DDR: failed",
				 n->name, len);
	n->len = len;
	memset(n->buf, 0, len);
	return true;
}

static bool nic_reg(struct demo *d, struct nic *n, size_t off, size_t len,
		    unsigned access)
{
	struct roce_mr *mr = roce_reg_mr(n->pd, n->buf + off, len, access);

	if (!mr)
		return step_fail(&d->step[ST_SETUP], "NIC %s: MR of %zu bytes: failed",
				 n->name, len);
	n->mr[n->n_mr++] = mr;
	return true;
}

/* RESET -> INIT -> RTR -> RTS toward the peer, as perftest does. */
static bool nic_connect(struct demo *d, struct nic *n, const struct nic *peer)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
				   .qp_access_flags = n->access };
	int st;

	st = roce_modify_qp(n->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
			    ROCE_QP_PKEY_INDEX);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = d->o.mtu;
	at.dest_qp_num = roce_qp_num(peer->qp);
	at.rq_psn = peer->sq_psn;
	at.max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = peer->ip;
	memcpy(at.ah_attr.dest_mac, peer->mac, 6);
	if (st == ROCE_OK)
		st = roce_modify_qp(n->qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
				    ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				    ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				    ROCE_QP_MIN_RNR_TIMER);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = n->sq_psn;
	/* 4.096 us * 2^10 = 4.2 ms. An engine on its own thread may wait for
	 * a core for tens of ms on a loaded machine while its peer's timer
	 * runs: 2^12 (16.8 ms) lets it miss 134 ms before retry_cnt runs out. */
	at.timeout = d->o.threads ? 12 : 10;
	at.retry_cnt = 7;
	at.rnr_retry = 7;               /* retry forever */
	at.max_rd_atomic = ROCE_MAX_RD_ATOMIC;
	if (st == ROCE_OK)
		st = roce_modify_qp(n->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
				    ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				    ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
	if (st != ROCE_OK)
		return step_fail(&d->step[ST_SETUP], "NIC %s: QP to %s: %s (%s)",
				 n->name, roce_qp_state_name(at.qp_state),
				 roce_status_str(st), n->drv->err);
	return true;
}

/* What the host driver reads back: identity, addresses, QP context, MRs. */
static bool nic_readback(struct demo *d, struct nic *n)
{
	struct roce_drv *drv = n->drv;
	int st = roce_drv_probe(drv, &n->dev);

	if (st == ROCE_OK)
		st = roce_drv_get_local(drv, &n->ep);
	if (st == ROCE_OK)
		st = roce_drv_qp_read(drv, roce_qp_num(n->qp), &n->qpc);
	for (int i = 0; i < n->n_mr && st == ROCE_OK; i++)
		st = roce_drv_mr_read(drv, n->mr[i]->index, &n->mrc[i]);
	if (st != ROCE_OK)
		return step_fail(&d->step[ST_SETUP], "NIC %s read-back: %s",
				 n->name, drv->err);
	return true;
}

int demo_link_open(struct demo *d)
{
	struct roce_memlink_config lc = {
		.seed = d->o.seed, .loss = d->o.loss / 100,
		.reorder = d->o.reorder / 100, .duplicate = d->o.duplicate / 100,
		.corrupt = d->o.corrupt / 100, .pcap_path = d->o.pcap,
		/* a lossless fabric, as RoCE deployments run with PFC: a busy
		 * receiver pauses its sender; the faults above still drop */
		.lossless = true,
		.now_ns = d->o.virtual_time ? demo_clock_read : NULL,
	};
	int st = roce_memlink_create(&lc, &d->link);

	if (st != ROCE_OK)
		step_fail(&d->step[ST_SETUP], "in-memory link: %s",
			  roce_status_str(st));
	return st;
}

/* Where each buffer lies (see struct demo), and who A and B are. */
static void demo_layout(struct demo *d, unsigned remote)
{
	size_t exposed = d->o.size > ROCE_DEMO_BW_MAX_MSG ? d->o.size
							   : ROCE_DEMO_BW_MAX_MSG;

	d->size_r = round_up(d->o.size, PAGE);
	d->region_len = round_up(exposed, PAGE) + PAGE;
	d->b_back = d->size_r;
	d->b_result = 2 * d->size_r;
	d->b_adbuf = d->b_result + 64;
	d->b_bwsrc = d->b_result + PAGE;
	d->a = (struct nic){ .name = "A", .mac = { 0x02, 0, 0, 0, 0, 0x0a },
			     .ip = 0x0A000001u, .sq_psn = 0x00A001u, .access = remote };
	/* B starts near the top of the 24-bit PSN space, so the flow's WRITE
	 * and READ cross the wrap to 0 (IBA 9.7.1: PSNs are modulo 2^24) */
	d->b = (struct nic){ .name = "B", .mac = { 0x02, 0, 0, 0, 0, 0x0b },
			     .ip = 0x0A000002u, .sq_psn = 0xFFFF80u,
			     .access = ROCE_ACCESS_LOCAL_WRITE };
}

bool demo_open(struct demo *d)
{
	const unsigned remote = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
				ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	int st;

	demo_layout(d, remote);
	if (!nic_open(d, &d->a, d->region_len + ROCE_DEMO_BW_MAX_MSG) ||
	    !nic_open(d, &d->b, d->b_bwsrc + ROCE_DEMO_BW_MAX_MSG) ||
	    !nic_reg(d, &d->a, 0, d->region_len, remote) ||
	    !nic_reg(d, &d->a, d->region_len, ROCE_DEMO_BW_MAX_MSG,
		     ROCE_ACCESS_LOCAL_WRITE) ||
	    !nic_reg(d, &d->b, 0, d->b.len, ROCE_ACCESS_LOCAL_WRITE) ||
	    !demo_stage_bind(d, &d->step[ST_SETUP]) ||
	    !nic_connect(d, &d->a, &d->b) || !nic_connect(d, &d->b, &d->a))
		return false;
	if (d->o.threads && ((st = roce_engine_start(d->a.ctx, -1)) != ROCE_OK ||
			     (st = roce_engine_start(d->b.ctx, -1)) != ROCE_OK))
		return step_fail(&d->step[ST_SETUP], "engine thread: %s",
				 roce_status_str(st));
	if (!nic_readback(d, &d->a) || !nic_readback(d, &d->b))
		return false;
	return step_pass(&d->step[ST_SETUP], "NICs A and B powered on, QP 0x%06x "
			 "and QP 0x%06x in %s", d->a.qpc.qpn, d->b.qpc.qpn,
			 roce_qp_state_name(d->b.qpc.state));
}

static bool read_counters(struct demo *d, struct step *s)
{
	struct nic *n[2] = { &d->a, &d->b };

	for (int i = 0; i < 2; i++) {
		if (roce_drv_counters_read(n[i]->drv, n[i]->cnt, ROCE_CNT_COUNT,
					   &n[i]->n_cnt) != ROCE_OK)
			return step_fail(s, "NIC %s: %s", n[i]->name, n[i]->drv->err);
	}
	if (d->a.n_cnt != d->b.n_cnt)
		return step_fail(s, "the two register maps list different counters");
	return step_pass(s, "%zu counters each", d->a.n_cnt);
}

void demo_finish(struct demo *d)
{
	if (d->a.ctx && d->b.ctx) {
		roce_engine_stop(d->a.ctx);
		roce_engine_stop(d->b.ctx);
		read_counters(d, &d->step[ST_COUNTERS]);
	}
	if (d->link)
		roce_memlink_get_stats(d->link, &d->ls);
}

static void nic_close(struct nic *n)
{
	if (!n->ctx)
		return;
	roce_engine_stop(n->ctx);
	if (n->qp)
		roce_destroy_qp(n->qp);
	for (int i = 0; i < n->n_mr; i++)
		roce_dereg_mr(n->mr[i]);
	roce_mem_free(n->ctx, n->buf);
	if (n->scq)
		roce_destroy_cq(n->scq);
	if (n->rcq)
		roce_destroy_cq(n->rcq);
	if (n->pd)
		roce_dealloc_pd(n->pd);
	roce_close(n->ctx);
}

void demo_close(struct demo *d)
{
	if (d->a.ctx)
		demo_stage_close(d);
	nic_close(&d->a);
	nic_close(&d->b);
	roce_memlink_destroy(d->link);
}
