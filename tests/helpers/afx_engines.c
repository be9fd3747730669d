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
#include "engines_helper.h"
#include "roce/afxdp.h"

#define IP_A 0xC0000201u
#define IP_B 0xC0000202u

static struct h_pair g;
static struct roce_afxdp *g_afx[2];     /* A's port, B's */
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
static void resolve(int me, uint32_t ip)
{
	uint64_t end = h_now_ms() + 3000, next = 0;

	while (!roce_afxdp_neigh(g_afx[me], ip, g.peer_mac[me])) {
		CHECK(h_now_ms() < end, "no ARP reply for %08x", ip);
		if (h_now_ms() >= next) {
			CHECK_OK(roce_afxdp_arp_request(g_afx[me], ip));
			next = h_now_ms() + 200;
		}
		h_rx(roce_afxdp_port(g_afx[!me]), 1, 1, NULL, NULL);
		h_rx(roce_afxdp_port(g_afx[me]), 1, 1, NULL, NULL);
	}
	CHECK(!memcmp(g.peer_mac[me], roce_afxdp_port(g_afx[!me])->mac, 6),
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
	struct roce_port *pa = roce_afxdp_port(g_afx[0]), *pb = roce_afxdp_port(g_afx[1]);
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
	roce_afxdp_get_stats(g_afx[1], &s0);
	CHECK(roce_port_tx(pa, fr, 3) == 3, "A took the frames");
	/* something arrived for B's socket: the wait says so */
	CHECK(roce_afxdp_wait(g_afx[1], 1000000), "B's socket never readable");
	got = h_rx(pb, 1, 300, NULL, NULL);
	roce_afxdp_get_stats(g_afx[1], &s1);
	CHECK(got == 0, "B lent %u frames that are not RoCE for it", got);
	/* the veth delivers all three; the kernel's own IPv6 chatter may
	 * add more drops, never fewer */
	CHECK(s1.rx_dropped - s0.rx_dropped >= 3, "B dropped %llu of 3",
	      (unsigned long long)(s1.rx_dropped - s0.rx_dropped));
	CHECK(s1.rx_frames == s0.rx_frames, "B lent frames");
}

static void dump(void)
{
	for (int i = 0; i < 2; i++) {
		struct roce_afxdp_stats st;

		roce_afxdp_get_stats(g_afx[i], &st);
		fprintf(stderr, "%s: port tx %llu (zero-copy %llu) rx %llu dropped %llu "
			"kernel drops %llu;", i ? "B" : "A",
			(unsigned long long)st.tx_frames,
			(unsigned long long)st.tx_zero_copy,
			(unsigned long long)st.rx_frames,
			(unsigned long long)st.rx_dropped,
			(unsigned long long)st.rx_kernel_drops);
		h_dump_counters(i ? &g.p.b : &g.p.a);
	}
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
	enum roce_mtu mtu;

	h_watchdog(240);
	if (argc == 5 && !strcmp(argv[1], "open"))
		return open_only(argv[2], argv[3], argv[4]);
	if ((argc != 7 && argc != 8) || roce_afxdp_mode_parse(argv[5], &mode) ||
	    sscanf(argv[6], "%lf", &g_loss) != 1 || g_loss < 0 || g_loss > 0.5) {
		fprintf(stderr, "usage: afx_engines NSA IFA NSB IFB MODE LOSS [THREADS]\n"
			"       afx_engines open NS IF MODE\n");
		return 2;
	}
	g.threads = argc == 8 && !strcmp(argv[7], "1");
	g.dump = dump;
	g_afx[0] = port_open(argv[1], argv[2], mode, IP_A, 1);
	g_afx[1] = port_open(argv[3], argv[4], mode, IP_B, 2);
	mtu = roce_afxdp_path_mtu(g_afx[0]);
	CHECK(mtu == ROCE_MTU_1024, "path MTU %d", (int)mtu);
	resolve(0, IP_B);
	resolve(1, IP_A);
	if (!g_loss)
		drop_check();   /* its own frames must all arrive */
	h_pair_open(&g, roce_afxdp_port(g_afx[0]), IP_A, roce_afxdp_port(g_afx[1]), IP_B,
		    mtu);
	if (g.threads) {
		CHECK_OK(pair_start(&g.p.a, -1));
		CHECK_OK(pair_start(&g.p.b, -1));
	}
	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		h_round(&g, k, sizes[k]);
	if (g.threads && !g_loss)
		h_round_after_sleep(&g, 1, sizes[1]);
	pair_stop(&g.p.a);
	pair_stop(&g.p.b);
	roce_afxdp_get_stats(g_afx[0], &sa);
	roce_afxdp_get_stats(g_afx[1], &sb);
	CHECK(sa.tx_frames > 0 && sb.rx_frames > 0, "frames moved");
	CHECK(sa.tx_zero_copy > 0 && sb.tx_zero_copy > 0, "no frame built in the UMEM");
	CHECK(sa.tx_too_big == 0 && sb.tx_too_big == 0, "path MTU frames fit");
	/* B answered A's request; A's request also told B A's address */
	CHECK(sb.arp_replies >= 1 && sa.rx_arp >= 1, "ARP answered");
	CHECK(sa.tx_errors == 0 && sb.tx_errors == 0, "kernel refused a kick");
	if (g_loss > 0) {
		CHECK(sa.tx_fault_drops + sb.tx_fault_drops > 0, "no frame was lost");
		CHECK(pair_cnt(&g.p.a, ROCE_CNT_RETRANSMISSIONS) +
		      pair_cnt(&g.p.b, ROCE_CNT_RETRANSMISSIONS) > 0, "no retransmission");
	} else {
		CHECK(sa.tx_fault_drops == 0 && sb.tx_fault_drops == 0, "lost frames");
	}
	printf("afx_engines %s loss %.2f%s: pass (XDP %s; A: tx %llu, zero-copy %llu, "
	       "lost %llu, rx %llu, dropped %llu, retransmissions %llu)\n", argv[5], g_loss,
	       g.threads ? " threads" : "", roce_afxdp_mode_name(roce_afxdp_mode(g_afx[0])),
	       (unsigned long long)sa.tx_frames, (unsigned long long)sa.tx_zero_copy,
	       (unsigned long long)sa.tx_fault_drops,
	       (unsigned long long)sa.rx_frames, (unsigned long long)sa.rx_dropped,
	       (unsigned long long)pair_cnt(&g.p.a, ROCE_CNT_RETRANSMISSIONS));
	pair_teardown(&g.p);
	/* each port is closed in its own namespace by the port itself */
	for (int i = 0; i < 2; i++)
		roce_afxdp_close(g_afx[i]);
	return 0;
}
