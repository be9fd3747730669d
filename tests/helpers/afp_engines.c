/* SPDX-License-Identifier: MIT */
/*
 * afp_engines NSA IFA NSB IFB MODE LOSS [THREADS]: two transport engines,
 * each on a raw-Ethernet port in its own network namespace (192.0.2.1 in
 * NSA, 192.0.2.2 in NSB, owned by the kernels too, as with the tools),
 * complete RDMA WRITE, READ and SEND over the veth pair and leave exactly
 * the right bytes in memory. LOSS (0..0.5) drops that share of every
 * transmitted frame in both ports, so the go-back-N retransmission has
 * to recover. The peer's MAC comes from address resolution, as a tool
 * would get it. Both engines run on this thread, or with THREADS = 1 on
 * engine threads of their own. Exit 0 = pass.
 */
#include "afp_helper.h"
#include "roce/counters.h"
#include "roce/verbs.h"

#define IP_A 0xC0000201u
#define IP_B 0xC0000202u
#define BUF  (4u << 20)

struct side {
	struct roce_afpacket *afp;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *buf;
	uint8_t peer_mac[6];
};

static struct side g_a, g_b;
static bool g_threads;

static void side_open(struct side *s, const char *ns, const char *ifname,
		      enum roce_afpacket_mode mode, uint32_t ip, uint32_t peer,
		      double loss, uint64_t seed)
{
	struct roce_afpacket_config c = { 0 };
	struct roce_context_attr ca = { 0 };
	struct roce_qp_init_attr qa = { 0 };
	char err[256];

	h_enter_ns(ns);
	c.ifname = ifname;
	c.mode = mode;
	c.ip = ip;
	c.tx_loss = loss;
	c.seed = seed;
	CHECK(roce_afpacket_open(&c, &s->afp, err, sizeof(err)) == ROCE_OK,
	      "%s", err);
	/* the peer's kernel answers ARP for its address */
	CHECK_OK(roce_afpacket_resolve(s->afp, peer, 3000, s->peer_mac));
	memcpy(ca.mac, roce_afpacket_port(s->afp)->mac, 6);
	ca.ip = ip;
	ca.port = roce_afpacket_port(s->afp);
	CHECK_OK(roce_open(&ca, &s->ctx));
	s->pd = roce_alloc_pd(s->ctx);
	s->scq = roce_create_cq(s->ctx, 1024);
	s->rcq = roce_create_cq(s->ctx, 1024);
	CHECK(s->pd && s->scq && s->rcq, "pd/cq");
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	qa.qp_type = ROCE_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 256;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	s->qp = roce_create_qp(s->pd, &qa);
	s->buf = roce_mem_alloc(s->ctx, BUF, 4096);
	CHECK(s->qp && s->buf, "qp/buf");
	memset(s->buf, 0, BUF);
	s->mr = roce_reg_mr(s->pd, s->buf, BUF, ROCE_ACCESS_LOCAL_WRITE |
			    ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ);
	CHECK(s->mr, "mr");
}

/* RESET -> INIT -> RTR -> RTS toward peer, as perftest does. */
static void side_connect(struct side *s, struct side *peer, uint32_t peer_ip,
			 uint32_t my_psn, uint32_t peer_psn)
{
	struct roce_qp_attr at = { 0 };

	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			     ROCE_ACCESS_REMOTE_READ;
	at.pkey = 0xFFFF;
	CHECK_OK(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
				ROCE_QP_PKEY_INDEX));
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = roce_afpacket_path_mtu(s->afp);
	at.dest_qp_num = roce_qp_num(peer->qp);
	at.rq_psn = peer_psn;
	at.max_dest_rd_atomic = 16;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = peer_ip;
	memcpy(at.ah_attr.dest_mac, s->peer_mac, 6);
	CHECK_OK(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
				ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
				ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER));
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = my_psn;
	/* ~16 ms: veth through two kernels on a loaded machine. Engine
	 * threads spin and may wait for a core for long stretches (more so
	 * under sanitizers): perftest's 14 (~67 ms) then, so 8 silent
	 * rounds take half a second of starvation */
	at.timeout = g_threads ? 14 : 12;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 16;
	CHECK_OK(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
				ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				ROCE_QP_MAX_QP_RD_ATOMIC));
}

static void dump_side(const char *name, struct side *s)
{
	struct roce_counters *c = roce_device_counters(roce_context_device(s->ctx));
	struct roce_afpacket_stats st;

	roce_afpacket_get_stats(s->afp, &st);
	fprintf(stderr, "%s: port tx %llu rx %llu lost %llu kernel drops %llu;",
		name, (unsigned long long)st.tx_frames,
		(unsigned long long)st.rx_frames,
		(unsigned long long)st.tx_fault_drops,
		(unsigned long long)st.rx_kernel_drops);
	for (int id = 0; id < ROCE_CNT_COUNT; id++)
		if (roce_cnt_read(c, (enum roce_cnt)id))
			fprintf(stderr, " %s %llu", roce_cnt_name(id),
				(unsigned long long)roce_cnt_read(c, (enum roce_cnt)id));
	fputc('\n', stderr);
}

/* Poll both engines (unless they run on threads) until cq yields one
 * completion; it must succeed and carry wr_id. On failure, both sides'
 * counters go to stderr first. */
static struct roce_wc wait_wc(struct roce_cq *cq, uint64_t wr_id)
{
	uint64_t end = h_now_ms() + 20000;
	struct roce_wc wc;
	int r = 0;

	while (h_now_ms() < end) {
		if (!g_threads) {
			roce_engine_poll(g_a.ctx);
			roce_engine_poll(g_b.ctx);
		}
		r = roce_poll_cq(cq, 1, &wc);
		CHECK(r >= 0, "CQ overflow");
		if (r)
			break;
		if (g_threads)
			h_sleep_us(20);         /* leave the cores to the engines */
	}
	if (r != 1 || wc.status != ROCE_WC_SUCCESS) {
		dump_side("A", &g_a);
		dump_side("B", &g_b);
	}
	CHECK(r == 1, "no completion for wr %llu", (unsigned long long)wr_id);
	if (g_threads) {
		/* the peer's engine thread wrote the memory this thread is
		 * about to compare before the completion came back, but the
		 * news travelled through the kernel's packet rings, which
		 * ThreadSanitizer cannot see: one poll of each engine takes
		 * its lock and makes the order visible to it */
		roce_engine_poll(g_a.ctx);
		roce_engine_poll(g_b.ctx);
	}
	CHECK(wc.status == ROCE_WC_SUCCESS, "wr %llu: %s", (unsigned long long)wr_id,
	      roce_wc_status_str(wc.status));
	CHECK(wc.wr_id == wr_id, "wr_id %llu", (unsigned long long)wc.wr_id);
	return wc;
}

static void post(struct side *s, enum roce_wr_opcode op, uint64_t id,
		 uint8_t *local, uint32_t len, uint8_t *remote, struct side *peer)
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
	wait_wc(s->scq, id);
}

static void fill(uint8_t *p, uint32_t n, unsigned seed)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = h_pat(seed, i);
}

/* One round: WRITE A->B, READ it back, SEND with a receive, WRITE B->A. */
static void round_trip(unsigned k)
{
	const uint32_t len = 256u * 1024 - 8 * k;       /* not a MTU multiple */
	uint8_t *src = g_a.buf, *dst = g_b.buf + 4096 + k;
	uint8_t *back = g_a.buf + (1u << 20);
	struct roce_sge rs = { (uint64_t)(uintptr_t)(g_b.buf + (2u << 20)), 8192,
			       g_b.mr->lkey };
	struct roce_recv_wr rwr = { .wr_id = 500 + k, .sg_list = &rs, .num_sge = 1 };
	struct roce_recv_wr *rbad = NULL;
	struct roce_wc wc;

	fill(src, len, k);
	post(&g_a, ROCE_WR_RDMA_WRITE, 100 + k, src, len, dst, &g_b);
	CHECK(!memcmp(dst, src, len), "round %u: WRITE data differs", k);
	CHECK(dst[-1] == 0 || k, "WRITE spilled before the target");
	post(&g_a, ROCE_WR_RDMA_READ, 200 + k, back, len, dst, &g_b);
	CHECK(!memcmp(back, src, len), "round %u: READ data differs", k);

	CHECK_OK(roce_post_recv(g_b.qp, &rwr, &rbad));
	fill(src, 3000 + k, 77 + k);
	post(&g_a, ROCE_WR_SEND, 300 + k, src, 3000 + k, NULL, NULL);
	wc = wait_wc(g_b.rcq, 500 + k);
	CHECK(wc.opcode == ROCE_WC_RECV && wc.byte_len == 3000 + k, "recv wc");
	CHECK(!memcmp(g_b.buf + (2u << 20), src, 3000 + k), "SEND data differs");

	fill(g_b.buf + (3u << 20), 70000, 900 + k);
	post(&g_b, ROCE_WR_RDMA_WRITE, 400 + k, g_b.buf + (3u << 20), 70000,
	     g_a.buf + (3u << 20), &g_a);
	CHECK(!memcmp(g_a.buf + (3u << 20), g_b.buf + (3u << 20), 70000),
	      "round %u: B->A WRITE differs", k);
}

static uint64_t cnt(struct side *s, enum roce_cnt id)
{
	return roce_cnt_read(roce_device_counters(roce_context_device(s->ctx)), id);
}

static void side_close(struct side *s)
{
	roce_destroy_qp(s->qp);
	roce_dereg_mr(s->mr);
	roce_mem_free(s->ctx, s->buf);
	roce_destroy_cq(s->scq);
	roce_destroy_cq(s->rcq);
	roce_dealloc_pd(s->pd);
	roce_close(s->ctx);
	roce_afpacket_close(s->afp);
}

int main(int argc, char **argv)
{
	enum roce_afpacket_mode mode;
	struct roce_afpacket_stats sa, sb;
	double loss;
	unsigned rounds;

	if ((argc != 7 && argc != 8) || roce_afpacket_mode_parse(argv[5], &mode) ||
	    sscanf(argv[6], "%lf", &loss) != 1 || loss < 0 || loss > 0.5) {
		fprintf(stderr, "usage: afp_engines NSA IFA NSB IFB MODE LOSS [THREADS]\n");
		return 2;
	}
	g_threads = argc == 8 && !strcmp(argv[7], "1");
	h_watchdog(240);
	side_open(&g_a, argv[1], argv[2], mode, IP_A, IP_B, loss, 1);
	side_open(&g_b, argv[3], argv[4], mode, IP_B, IP_A, loss, 2);
	CHECK(roce_afpacket_path_mtu(g_a.afp) == ROCE_MTU_1024, "path MTU");
	side_connect(&g_a, &g_b, IP_B, 0x100, 0x200);
	side_connect(&g_b, &g_a, IP_A, 0x200, 0x100);
	if (g_threads) {
		CHECK_OK(roce_engine_start(g_a.ctx, -1));
		CHECK_OK(roce_engine_start(g_b.ctx, -1));
	}
	rounds = loss > 0 ? 8 : 3;
	for (unsigned k = 0; k < rounds; k++)
		round_trip(k);
	if (g_threads) {
		roce_engine_stop(g_a.ctx);
		roce_engine_stop(g_b.ctx);
	}
	roce_afpacket_get_stats(g_a.afp, &sa);
	roce_afpacket_get_stats(g_b.afp, &sb);
	CHECK(sa.tx_frames > 0 && sb.rx_frames > 0, "frames moved");
	CHECK(sa.tx_too_big == 0 && sb.tx_too_big == 0, "path MTU frames fit");
	if (loss > 0) {
		CHECK(sa.tx_fault_drops + sb.tx_fault_drops > 0, "no frame was lost");
		CHECK(cnt(&g_a, ROCE_CNT_RETRANSMISSIONS) +
		      cnt(&g_b, ROCE_CNT_RETRANSMISSIONS) > 0, "no retransmission");
	}
	printf("afp_engines %s loss %.2f%s: pass (A: tx %llu lost %llu, "
	       "retransmissions %llu, timeouts %llu)\n", argv[5], loss,
	       g_threads ? " threads" : "", (unsigned long long)sa.tx_frames,
	       (unsigned long long)sa.tx_fault_drops,
	       (unsigned long long)cnt(&g_a, ROCE_CNT_RETRANSMISSIONS),
	       (unsigned long long)cnt(&g_a, ROCE_CNT_TIMEOUTS));
	side_close(&g_a);
	side_close(&g_b);
	return 0;
}
