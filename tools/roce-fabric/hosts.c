/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric's run: one engine per host on the fabric (roce/fabric.h),
 * all on its virtual clock and polled from this thread; an RC QP pair per
 * flow, connected by hand (no CM: nothing here needs one); each flow keeps
 * its send queue full of WRITEs from its start time to the end. Every
 * tick the engines are polled, the completions reposted and time moved
 * on; the bottleneck's queue is sampled every FAB_SAMPLE_NS and the bytes
 * each flow got through it binned every FAB_BIN_NS.
 */
#include <stdlib.h>
#include <string.h>

#include "roce-fabric/fabric.h"
#include "roce/counters.h"
#include "roce/pcap.h"
#include "roce/device.h"
#include "roce/status.h"
#include "roce/verbs.h"

#define TICK_NS 100u            /* engines polled every 100 ns of virtual time */
#define DEPTH 16u               /* WRITEs in flight per flow */
#define MAX_HOSTS (FAB_MAX_SENDERS + 2)

struct host {
	struct roce_port port;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *cq;
	uint8_t *buf;
	struct roce_mr *mr;
};

struct qp_pair {
	struct roce_qp *s, *d;          /* sender's, receiver's */
	unsigned posted;
};

static void host_mac(unsigned i, uint8_t mac[6])
{
	static const uint8_t base[6] = { 0x02, 0xFA, 0xB0, 0, 0, 0 };

	memcpy(mac, base, 6);
	mac[4] = (uint8_t)((i + 1) >> 8);       /* 258 hosts at most */
	mac[5] = (uint8_t)(i + 1);
}

static uint32_t host_ip(unsigned i)
{
	return 0x0A000001u + i;         /* 10.0.0.1 ... */
}

static int host_open(struct roce_fabric *f, unsigned i, const struct roce_cc_config *cc,
		     size_t buf_len, struct host *h)
{
	struct roce_context_attr ca;

	memset(&ca, 0, sizeof(ca));
	host_mac(i, ca.mac);
	ca.ip = host_ip(i);
	if (roce_fabric_attach(f, i, ca.mac, &h->port) != ROCE_OK)
		return -1;
	ca.port = &h->port;
	ca.now_ns = roce_fabric_clock;
	ca.clock_ctx = f;
	ca.dev.now_ns = roce_fabric_clock;
	ca.dev.clock_ctx = f;
	ca.dev.mem_size = buf_len + (1u << 20);
	if (roce_open(&ca, &h->ctx) != ROCE_OK)
		return -1;
	if (roce_context_set_cc(h->ctx, cc) != ROCE_OK)
		return -1;
	h->pd = roce_alloc_pd(h->ctx);
	h->cq = roce_create_cq(h->ctx, 4 * DEPTH * MAX_HOSTS);
	h->buf = roce_mem_alloc(h->ctx, buf_len, 4096);
	if (!h->pd || !h->cq || !h->buf)
		return -1;
	memset(h->buf, 0x5A, buf_len);
	h->mr = roce_reg_mr(h->pd, h->buf, buf_len,
			    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			    ROCE_ACCESS_REMOTE_READ);
	return h->mr ? 0 : -1;
}

static void host_close(struct host *h)
{
	if (!h->ctx)
		return;
	if (h->mr)
		roce_dereg_mr(h->mr);
	if (h->buf)
		roce_mem_free(h->ctx, h->buf);
	if (h->cq)
		roce_destroy_cq(h->cq);
	if (h->pd)
		roce_dealloc_pd(h->pd);
	roce_close(h->ctx);
}

static struct roce_qp *make_qp(struct host *h)
{
	struct roce_qp_init_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = h->cq;
	qa.recv_cq = h->cq;
	qa.qp_type = ROCE_QPT_RC;
	qa.cap.max_send_wr = DEPTH;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	return roce_create_qp(h->pd, &qa);
}

/* RESET -> INIT -> RTR -> RTS toward peer host j's QP. */
static int connect_qp(struct roce_qp *qp, unsigned j, struct roce_qp *peer)
{
	struct roce_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	at.pkey = 0xFFFF;
	if (roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS | ROCE_QP_PKEY_INDEX))
		return -1;
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_4096;
	at.dest_qp_num = roce_qp_num(peer);
	at.rq_psn = 0x1000;
	at.max_dest_rd_atomic = DEPTH;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = host_ip(j);
	host_mac(j, at.ah_attr.dest_mac);
	if (roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			   ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			   ROCE_QP_MIN_RNR_TIMER))
		return -1;
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = 0x1000;
	at.timeout = 12;        /* 16.8 ms: a lost tail costs that (no CC, drops) */
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = DEPTH;
	return roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
			      ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}

/* One message of the flow from s to d: a WRITE posted at s, or with
   --read a READ posted at d (s's QP then sends the data, as a responder). */
static int post_msg(struct host *s, struct host *d, struct qp_pair *q, uint32_t len, bool read)
{
	struct host *local = read ? d : s, *remote = read ? s : d;
	struct roce_sge sge = { (uint64_t)(uintptr_t)local->buf, len, local->mr->lkey };
	struct roce_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)(uintptr_t)q;
	wr.opcode = read ? ROCE_WR_RDMA_READ : ROCE_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)remote->buf;
	wr.wr.rdma.rkey = remote->mr->rkey;
	if (roce_post_send(read ? q->d : q->s, &wr, &bad))
		return -1;
	q->posted++;
	return 0;
}

static uint64_t cnt(struct host *h, enum roce_cnt id)
{
	return roce_cnt_read(roce_device_counters(roce_context_device(h->ctx)), id);
}

static uint64_t timeouts(struct host *h, unsigned nhosts)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < nhosts; i++)
		n += cnt(&h[i], ROCE_CNT_TIMEOUTS);
	return n;
}

static int setup_flows(struct fab_run *r)
{
	const struct fab_opts *o = &r->o;
	unsigned rx = o->senders;

	r->nflows = 0;
	for (unsigned i = 0; i < o->senders; i++) {
		struct fab_flow *fl = &r->flow[r->nflows++];

		fl->src = i;
		fl->dst = rx;
		fl->start_ns = o->late_ms > 0 && i == o->senders - 1 && o->senders > 1
				       ? (uint64_t)(o->late_ms * 1e6) : 0;
	}
	if (o->victim) {
		struct fab_flow *fl = &r->flow[r->nflows++];

		fl->src = 0;
		fl->dst = rx + 1;
		fl->start_ns = 0;
	}
	r->nbins = (unsigned)((uint64_t)o->duration_ms * 1000000u / FAB_BIN_NS);
	r->nsamples = (uint64_t)o->duration_ms * 1000000u / FAB_SAMPLE_NS;
	r->queue = calloc(r->nsamples, sizeof(*r->queue));
	r->wire = calloc(r->nbins, sizeof(*r->wire));
	r->drop_bin = calloc(r->nbins, sizeof(*r->drop_bin));
	r->timeout_bin = calloc(r->nbins, sizeof(*r->timeout_bin));
	if (!r->queue || !r->wire || !r->drop_bin || !r->timeout_bin)
		return -1;
	for (unsigned k = 0; k < r->nflows; k++)
		if (!(r->flow[k].bins = calloc(r->nbins, sizeof(uint64_t))))
			return -1;
	return 0;
}

static void fabric_config(const struct fab_opts *o, unsigned ports, struct roce_fabric_config *fc)
{
	roce_fabric_config_default(fc, ports);
	fc->link_mbps = o->link_gbps * 1000u;
	fc->kmin_bytes = o->kmin_kb << 10;
	fc->kmax_bytes = o->kmax_kb << 10;
	fc->pmax_ppm = (uint32_t)(o->pmax * 1e6 + 0.5);
	fc->buffer_bytes = o->buffer_kb << 10;
	fc->pfc = o->pfc;
	fc->pfc_xoff_bytes = o->xoff_kb << 10;
	fc->pfc_xon_bytes = o->xon_kb << 10;
	fc->seed = o->seed;
}

/* One tick: engines until quiet (bounded), completions reposted. */
static void tick(struct fab_run *r, struct host *h, unsigned nhosts, struct qp_pair *q,
		 uint64_t now)
{
	for (unsigned i = 0; i < nhosts; i++) {
		struct roce_wc wc[4 * DEPTH];
		int n;

		for (int k = 0; k < 4 && roce_engine_poll(h[i].ctx); k++)
			;
		/* completions of the messages the host posted (WRITEs at a
		   sender, READs at a receiver): each names its flow */
		while ((n = roce_poll_cq(h[i].cq, 4 * DEPTH, wc)) > 0)
			for (int j = 0; j < n; j++)
				((struct qp_pair *)(uintptr_t)wc[j].wr_id)->posted--;
	}
	for (unsigned k = 0; k < r->nflows; k++) {
		struct fab_flow *fl = &r->flow[k];

		if (now < fl->start_ns)
			continue;
		while (q[k].posted < DEPTH &&
		       post_msg(&h[fl->src], &h[fl->dst], &q[k], r->o.msg_kb << 10, r->o.read) == 0)
			;
	}
}

/* --pcap: what enters the switch, at virtual time (from 1970-01-01
   00:00:01, pcap's ts 0 meaning "now"); the dropped ones too */
static void tap(void *ctx, unsigned in, const uint8_t *frame, uint32_t len, uint64_t t_ns,
		bool dropped)
{
	(void)in;
	(void)dropped;
	roce_pcap_write(ctx, frame, len, 1000000000ull + t_ns);
}

int fab_simulate(struct fab_run *r)
{
	const struct fab_opts *o = &r->o;
	unsigned nhosts = o->senders + 1 + (o->victim ? 1 : 0), rx = o->senders;
	struct host h[MAX_HOSTS];
	struct qp_pair q[FAB_MAX_SENDERS + 1];
	struct roce_fabric_config fc;
	struct roce_cc_config cc;
	struct roce_fabric *f = NULL;
	struct roce_pcap_writer *pw = NULL;
	uint64_t end, last_bytes[FAB_MAX_SENDERS + 1] = { 0 }, last_wire = 0, last_frames = 0;
	uint64_t last_drops = 0, last_timeouts = 0;
	int rc = -1;

	memset(h, 0, sizeof(h));
	memset(q, 0, sizeof(q));
	if (setup_flows(r))
		return -1;
	fabric_config(o, nhosts, &fc);
	if (roce_fabric_create(&fc, &f) != ROCE_OK)
		return -1;
	if (o->pcap) {
		char err[256] = "";

		if (roce_pcap_open_write(o->pcap, &pw, err, sizeof(err)) != ROCE_OK) {
			fprintf(stderr, "roce-fabric: %s: %s\n", o->pcap, err);
			roce_fabric_destroy(f);
			return -1;
		}
		roce_fabric_set_tap(f, tap, pw);
	}
	roce_cc_config_default(&cc);
	cc.line_mbps = o->link_gbps * 1000u;
	cc.window_kb = o->window_kb;
	cc.adaptive_rto = !o->fixed_rto;
	if (o->paper)
		roce_cc_dcqcn_paper(&cc);
	for (unsigned i = 0; i < o->nsets; i++)
		roce_dcqcn_set(&cc.dcqcn, o->set_name[i], o->set_val[i]); /* checked */
	/* none: the hosts neither mark ECT nor send CNPs; DCQCN and Swift
	   both have the notification and reaction points on every priority
	   (Swift reads RTTs, and CNPs are the algorithm's to use or not) */
	if (o->cc != FAB_CC_NONE)
		cc.np_prio_mask = cc.rp_prio_mask = 0xFF;
	cc.algo = o->cc == FAB_CC_SWIFT ? ROCE_CC_ALGO_SWIFT : ROCE_CC_ALGO_DCQCN;
	for (unsigned i = 0; i < nhosts; i++)
		if (host_open(f, i, &cc, (size_t)o->msg_kb << 10, &h[i]))
			goto out;
	for (unsigned k = 0; k < r->nflows; k++) {
		struct fab_flow *fl = &r->flow[k];

		q[k].s = make_qp(&h[fl->src]);
		q[k].d = make_qp(&h[fl->dst]);
		if (!q[k].s || !q[k].d || connect_qp(q[k].s, fl->dst, q[k].d) ||
		    connect_qp(q[k].d, fl->src, q[k].s))
			goto out;
	}
	end = (uint64_t)o->duration_ms * 1000000u;
	for (uint64_t t = 0; t < end; t += TICK_NS) {
		struct roce_fabric_stats s;

		tick(r, h, nhosts, q, t);
		roce_fabric_advance(f, t + TICK_NS);
		if ((t + TICK_NS) % FAB_SAMPLE_NS == 0) {
			roce_fabric_stats(f, rx, &s);
			r->queue[(t + TICK_NS) / FAB_SAMPLE_NS - 1] = (uint32_t)s.queue_bytes;
		}
		if ((t + TICK_NS) % FAB_BIN_NS == 0) {
			unsigned b = (unsigned)((t + TICK_NS) / FAB_BIN_NS - 1);

			roce_fabric_stats(f, rx, &s);
			for (unsigned k = 0; k < r->nflows; k++) {
				uint64_t v = roce_fabric_bytes(f, r->flow[k].dst, r->flow[k].src);

				r->flow[k].bins[b] = v - last_bytes[k];
				last_bytes[k] = v;
			}
			/* on the wire: frames plus preamble, FCS and gap */
			r->wire[b] = s.tx_bytes - last_wire + 24 * (s.tx_frames - last_frames);
			last_wire = s.tx_bytes;
			last_frames = s.tx_frames;
			r->drop_bin[b] = (uint32_t)(s.drops - last_drops);
			last_drops = s.drops;
			r->timeout_bin[b] = (uint32_t)(timeouts(h, nhosts) - last_timeouts);
			last_timeouts += r->timeout_bin[b];
			if (!o->quiet && b % 50 == 49)
				fprintf(stderr, "\rroce-fabric: %s, %.1f of %u ms simulated",
					fab_cc_name(o), (double)(t + TICK_NS) / 1e6,
					o->duration_ms);
		}
	}
	if (!o->quiet)
		fputc('\n', stderr);
	for (unsigned i = 0; i < nhosts; i++) {
		struct roce_fabric_stats s;

		roce_fabric_stats(f, i, &s);
		r->drops += s.drops;
		r->marks += s.marks;
		r->pauses += s.pause_frames;
		if (i == rx)
			r->queue_max = s.queue_max_bytes;
		r->cnp_sent += cnt(&h[i], ROCE_CNT_NP_CNP_SENT);
		r->cnp_handled += cnt(&h[i], ROCE_CNT_RP_CNP_HANDLED);
		r->timeouts += cnt(&h[i], ROCE_CNT_TIMEOUTS);
		r->retrans += cnt(&h[i], ROCE_CNT_RETRANSMISSIONS);
	}
	for (unsigned k = 0; k < r->nflows; k++)
		roce_qp_cc_state(q[k].s, &r->flow[k].cc);
	rc = 0;
out:
	for (unsigned k = 0; k < r->nflows; k++) {
		if (q[k].s)
			roce_destroy_qp(q[k].s);
		if (q[k].d)
			roce_destroy_qp(q[k].d);
	}
	for (unsigned i = 0; i < nhosts; i++)
		host_close(&h[i]);
	roce_fabric_destroy(f);
	if (pw)
		roce_pcap_close_write(pw);
	return rc;
}

void fab_free(struct fab_run *r)
{
	for (unsigned k = 0; k < r->nflows; k++)
		free(r->flow[k].bins);
	free(r->queue);
	free(r->wire);
	free(r->drop_bin);
	free(r->timeout_bin);
}
