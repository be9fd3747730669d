/* SPDX-License-Identifier: MIT */
/*
 * afx_engines NSA IFA NSB IFB MODE LOSS [THREADS]: two transport engines, each
 * on an AF_XDP port (XDP MODE: auto, native or generic) in its own network
 * namespace, find each other by ARP through the ports (the XDP program
 * takes everything off the queue, so the kernels cannot), complete RDMA
 * WRITE, READ and SEND of several sizes over the veth pair and leave
 * exactly the right bytes in memory; frames that are not RoCE for us are
 * dropped by the port, never lent. LOSS (0..0.5) drops that share of the
 * engines' transmitted frames in both ports, so the go-back-N
 * retransmission has to recover. Both engines run on this thread, or
 * with THREADS = 1 on engine threads of their own. Exit 0 = pass.
 *
 * afx_engines open NS IF MODE: open a port and close it; prints "ok MODE"
 * or the error; exit 0, 77 when AF_XDP is unsupported or not permitted,
 * 1 on any other error.
 */
#include "afp_helper.h"
#include "roce/afxdp.h"
#include "roce/counters.h"
#include "roce/verbs.h"

#define IP_A 0xC0000201u
#define IP_B 0xC0000202u
#define BUF  (4u << 20)

struct side {
	struct roce_afxdp *afx;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *buf;
	uint8_t peer_mac[6];
	const char *ns;
};

static struct side g_a, g_b;
static bool g_threads;

static double g_loss;

static struct roce_afxdp *port_open(const char *ns, const char *ifname,
				    enum roce_afxdp_mode mode, uint32_t ip, uint64_t seed)
{
	struct roce_afxdp_config c = { 0 };
	struct roce_afxdp *afx = NULL;
	char err[256];

	h_enter_ns(ns);
	c.ifname = ifname;
	c.mode = mode;
	c.ip = ip;
	c.answer_arp = true;
	c.tx_loss = g_loss;
	c.seed = seed;
	CHECK(roce_afxdp_open(&c, &afx, err, sizeof(err)) == ROCE_OK, "%s", err);
	return afx;
}

/* One side asks by ARP, both ports are polled (the other answers) until
 * the reply has been learned. */
static void resolve(struct side *s, struct side *peer, uint32_t ip)
{
	uint64_t end = h_now_ms() + 3000, next = 0;

	while (!roce_afxdp_neigh(s->afx, ip, s->peer_mac)) {
		CHECK(h_now_ms() < end, "no ARP reply for %08x", ip);
		if (h_now_ms() >= next) {
			CHECK_OK(roce_afxdp_arp_request(s->afx, ip));
			next = h_now_ms() + 200;
		}
		h_rx(roce_afxdp_port(peer->afx), 1, 1, NULL, NULL);
		h_rx(roce_afxdp_port(s->afx), 1, 1, NULL, NULL);
	}
	CHECK(!memcmp(s->peer_mac, roce_afxdp_port(peer->afx)->mac, 6),
	      "ARP gave another MAC");
}

/*
 * Frames the port must not lend: UDP to another port, RoCE to another
 * MAC, a tagged frame. Sent by A's port itself; B's must drop all three
 * and lend nothing, and count them.
 */
static void drop_check(void)
{
	static const uint8_t other[6] = { 2, 0, 0, 0, 0x77, 1 };
	struct roce_port *pa = roce_afxdp_port(g_a.afx), *pb = roce_afxdp_port(g_b.afx);
	static uint8_t f[3][128];
	struct roce_frame fr[3];
	struct roce_afxdp_stats s0, s1;
	unsigned got;

	h_frame(f[0], 128, pb->mac, pa->mac, false, 17, IP_A, IP_B, 9999, 1);
	h_frame(f[1], 128, other, pa->mac, false, 17, IP_A, IP_B, ROCE_UDP_PORT, 2);
	h_frame(f[2], 128, pb->mac, pa->mac, false, 17, IP_A, IP_B, ROCE_UDP_PORT, 3);
	roce_put_be16(f[2] + 12, ROCE_ETHERTYPE_VLAN);
	for (unsigned i = 0; i < 3; i++)
		fr[i] = (struct roce_frame){ f[i], 128 };
	roce_afxdp_get_stats(g_b.afx, &s0);
	CHECK(roce_port_tx(pa, fr, 3) == 3, "A took the frames");
	/* something arrived for B's socket: the wait says so */
	CHECK(roce_afxdp_wait(g_b.afx, 1000000), "B's socket never readable");
	got = h_rx(pb, 1, 300, NULL, NULL);
	roce_afxdp_get_stats(g_b.afx, &s1);
	CHECK(got == 0, "B lent %u frames that are not RoCE for it", got);
	/* the veth delivers all three; the kernel's own IPv6 chatter may
	 * add more drops, never fewer */
	CHECK(s1.rx_dropped - s0.rx_dropped >= 3, "B dropped %llu of 3",
	      (unsigned long long)(s1.rx_dropped - s0.rx_dropped));
	CHECK(s1.rx_frames == s0.rx_frames, "B lent frames");
}

static void side_engine(struct side *s, uint32_t ip)
{
	struct roce_context_attr ca = { 0 };
	struct roce_qp_init_attr qa = { 0 };

	memcpy(ca.mac, roce_afxdp_port(s->afx)->mac, 6);
	ca.ip = ip;
	ca.port = roce_afxdp_port(s->afx);
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
	at.path_mtu = roce_afxdp_path_mtu(s->afx);
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
	/* as afp_engines: spinning engine threads may wait long for a core */
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
	struct roce_afxdp_stats st;

	roce_afxdp_get_stats(s->afx, &st);
	fprintf(stderr, "%s: port tx %llu (zero-copy %llu) rx %llu dropped %llu "
		"kernel drops %llu;", name, (unsigned long long)st.tx_frames,
		(unsigned long long)st.tx_zero_copy, (unsigned long long)st.rx_frames,
		(unsigned long long)st.rx_dropped,
		(unsigned long long)st.rx_kernel_drops);
	for (int id = 0; id < ROCE_CNT_COUNT; id++)
		if (roce_cnt_read(c, (enum roce_cnt)id))
			fprintf(stderr, " %s %llu", roce_cnt_name(id),
				(unsigned long long)roce_cnt_read(c, (enum roce_cnt)id));
	fputc('\n', stderr);
}

/* Poll both engines (unless they run on threads) until cq yields one
 * completion; it must succeed and carry wr_id. */
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
			h_sleep_us(20);
	}
	if (r != 1 || wc.status != ROCE_WC_SUCCESS) {
		dump_side("A", &g_a);
		dump_side("B", &g_b);
	}
	CHECK(r == 1, "no completion for wr %llu", (unsigned long long)wr_id);
	if (g_threads) {
		/* make the peer engine's writes visible to ThreadSanitizer,
		 * which cannot see the kernel's rings (as afp_engines) */
		roce_engine_poll(g_a.ctx);
		roce_engine_poll(g_b.ctx);
	}
	CHECK(wc.status == ROCE_WC_SUCCESS, "wr %llu: %s", (unsigned long long)wr_id,
	      roce_wc_status_str(wc.status));
	CHECK(wc.wr_id == wr_id, "wr_id %llu", (unsigned long long)wc.wr_id);
	return wc;
}

/*
 * This thread wrote engine memory that the other engine's thread writes
 * next, ordered through the kernel's rings, which ThreadSanitizer cannot
 * see: one poll of each engine takes its lock and makes the order visible.
 */
static void order_writes(void)
{
	if (g_threads) {
		roce_engine_poll(g_a.ctx);
		roce_engine_poll(g_b.ctx);
	}
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

/* One size: WRITE A->B, READ it back, SEND with a receive, WRITE B->A;
 * each leaves exactly len bytes, and nothing after them. */
static void round_trip(unsigned k, uint32_t len)
{
	uint8_t *src = g_a.buf, *dst = g_b.buf + 4096 + k;
	uint8_t *back = g_a.buf + (1u << 20);
	uint32_t slen = len < 8192 ? len : 8192;
	struct roce_sge rs = { (uint64_t)(uintptr_t)(g_b.buf + (2u << 20)), 8192,
			       g_b.mr->lkey };
	struct roce_recv_wr rwr = { .wr_id = 500 + k, .sg_list = &rs, .num_sge = 1 };
	struct roce_recv_wr *rbad = NULL;
	struct roce_wc wc;

	memset(dst - 64, 0, len + 128);
	memset(back, 0, len + 64);
	fill(src, len, k);
	order_writes();
	post(&g_a, ROCE_WR_RDMA_WRITE, 100 + k, src, len, dst, &g_b);
	CHECK(!memcmp(dst, src, len), "%u B: WRITE data differs", len);
	CHECK(dst[len] == 0 && dst[-1] == 0, "%u B: WRITE spilled", len);
	post(&g_a, ROCE_WR_RDMA_READ, 200 + k, back, len, dst, &g_b);
	CHECK(!memcmp(back, src, len), "%u B: READ data differs", len);
	CHECK(back[len] == 0, "%u B: READ spilled", len);

	memset(g_b.buf + (2u << 20), 0, 8192);
	order_writes();
	CHECK_OK(roce_post_recv(g_b.qp, &rwr, &rbad));
	fill(src, slen, 77 + k);
	post(&g_a, ROCE_WR_SEND, 300 + k, src, slen, NULL, NULL);
	wc = wait_wc(g_b.rcq, 500 + k);
	CHECK(wc.opcode == ROCE_WC_RECV && wc.byte_len == slen, "recv wc %u", wc.byte_len);
	CHECK(!memcmp(g_b.buf + (2u << 20), src, slen), "%u B: SEND data differs", slen);

	fill(g_b.buf + (3u << 20), len, 900 + k);
	post(&g_b, ROCE_WR_RDMA_WRITE, 400 + k, g_b.buf + (3u << 20), len,
	     g_a.buf + (3u << 20), &g_a);
	CHECK(!memcmp(g_a.buf + (3u << 20), g_b.buf + (3u << 20), len),
	      "%u B: B->A WRITE differs", len);
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
	roce_afxdp_close(s->afx);
}

static int open_only(const char *ns, const char *ifname, const char *m)
{
	struct roce_afxdp_config c = { 0 };
	enum roce_afxdp_mode mode;
	struct roce_afxdp *afx = NULL;
	char err[512];
	int st;

	CHECK(roce_afxdp_mode_parse(m, &mode) == ROCE_OK, "mode '%s'", m);
	h_enter_ns(ns);
	c.ifname = ifname;
	c.mode = mode;
	st = roce_afxdp_open(&c, &afx, err, sizeof(err));
	if (st != ROCE_OK) {
		CHECK(err[0], "error %s without a message", roce_status_str(st));
		fprintf(stderr, "afx_engines: %s (%s)\n", err, roce_status_str(st));
		return st == ROCE_E_UNSUPPORTED || st == ROCE_E_PERM ? 77 : 1;
	}
	printf("ok %s path-mtu %u\n", roce_afxdp_mode_name(roce_afxdp_mode(afx)),
	       roce_mtu_bytes(roce_afxdp_path_mtu(afx)));
	roce_afxdp_close(afx);
	return 0;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 1, 64, 1024, 1500, 65536, 256u * 1024 - 8 };
	struct roce_afxdp_stats sa, sb;
	enum roce_afxdp_mode mode;

	h_watchdog(240);
	if (argc == 5 && !strcmp(argv[1], "open"))
		return open_only(argv[2], argv[3], argv[4]);
	if ((argc != 7 && argc != 8) || roce_afxdp_mode_parse(argv[5], &mode) ||
	    sscanf(argv[6], "%lf", &g_loss) != 1 || g_loss < 0 || g_loss > 0.5) {
		fprintf(stderr, "usage: afx_engines NSA IFA NSB IFB MODE LOSS [THREADS]\n"
			"       afx_engines open NS IF MODE\n");
		return 2;
	}
	g_threads = argc == 8 && !strcmp(argv[7], "1");
	g_a.afx = port_open(argv[1], argv[2], mode, IP_A, 1);
	g_b.afx = port_open(argv[3], argv[4], mode, IP_B, 2);
	CHECK(roce_afxdp_path_mtu(g_a.afx) == ROCE_MTU_1024, "path MTU %d",
	      (int)roce_afxdp_path_mtu(g_a.afx));
	resolve(&g_a, &g_b, IP_B);
	resolve(&g_b, &g_a, IP_A);
	if (!g_loss)
		drop_check();   /* its own frames must all arrive */
	side_engine(&g_a, IP_A);
	side_engine(&g_b, IP_B);
	side_connect(&g_a, &g_b, IP_B, 0x100, 0x200);
	side_connect(&g_b, &g_a, IP_A, 0x200, 0x100);
	if (g_threads) {
		CHECK_OK(roce_engine_start(g_a.ctx, -1));
		CHECK_OK(roce_engine_start(g_b.ctx, -1));
	}
	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		round_trip(k, sizes[k]);
	if (g_threads) {
		roce_engine_stop(g_a.ctx);
		roce_engine_stop(g_b.ctx);
	}
	roce_afxdp_get_stats(g_a.afx, &sa);
	roce_afxdp_get_stats(g_b.afx, &sb);
	CHECK(sa.tx_frames > 0 && sb.rx_frames > 0, "frames moved");
	CHECK(sa.tx_zero_copy > 0 && sb.tx_zero_copy > 0, "no frame built in the UMEM");
	CHECK(sa.tx_too_big == 0 && sb.tx_too_big == 0, "path MTU frames fit");
	/* B answered A's request; A's request also told B A's address */
	CHECK(sb.arp_replies >= 1 && sa.rx_arp >= 1, "ARP answered");
	CHECK(sa.tx_errors == 0 && sb.tx_errors == 0, "kernel refused a kick");
	if (g_loss > 0) {
		CHECK(sa.tx_fault_drops + sb.tx_fault_drops > 0, "no frame was lost");
		CHECK(roce_cnt_read(roce_device_counters(roce_context_device(g_a.ctx)),
				    ROCE_CNT_RETRANSMISSIONS) +
		      roce_cnt_read(roce_device_counters(roce_context_device(g_b.ctx)),
				    ROCE_CNT_RETRANSMISSIONS) > 0, "no retransmission");
	} else {
		CHECK(sa.tx_fault_drops == 0 && sb.tx_fault_drops == 0, "lost frames");
	}
	printf("afx_engines %s loss %.2f%s: pass (XDP %s; A: tx %llu, zero-copy %llu, "
	       "lost %llu, rx %llu, dropped %llu, retransmissions %llu)\n", argv[5], g_loss,
	       g_threads ? " threads" : "", roce_afxdp_mode_name(roce_afxdp_mode(g_a.afx)),
	       (unsigned long long)sa.tx_frames, (unsigned long long)sa.tx_zero_copy,
	       (unsigned long long)sa.tx_fault_drops,
	       (unsigned long long)sa.rx_frames, (unsigned long long)sa.rx_dropped,
	       (unsigned long long)roce_cnt_read(roce_device_counters(
			roce_context_device(g_a.ctx)), ROCE_CNT_RETRANSMISSIONS));
	/* each port is closed in its own namespace by the port itself */
	side_close(&g_a);
	side_close(&g_b);
	return 0;
}
