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
#include "engines_helper.h"

#define IP_A 0xC0000201u
#define IP_B 0xC0000202u

static struct h_pair g;
static struct roce_afpacket *g_afp[2];  /* A's port, B's */

static void port_open(int i, const char *ns, const char *ifname,
		      enum roce_afpacket_mode mode, uint32_t ip, uint32_t peer,
		      double loss, uint64_t seed)
{
	struct roce_afpacket_config c = { 0 };
	char err[256];

	h_enter_ns(ns);
	c.ifname = ifname;
	c.mode = mode;
	c.ip = ip;
	c.tx_loss = loss;
	c.seed = seed;
	CHECK(roce_afpacket_open(&c, &g_afp[i], err, sizeof(err)) == ROCE_OK,
	      "%s", err);
	/* the peer's kernel answers ARP for its address */
	CHECK_OK(roce_afpacket_resolve(g_afp[i], peer, 3000, g.peer_mac[i]));
}

static void dump(void)
{
	for (int i = 0; i < 2; i++) {
		struct roce_afpacket_stats st;

		roce_afpacket_get_stats(g_afp[i], &st);
		fprintf(stderr, "%s: port tx %llu rx %llu lost %llu kernel drops %llu;",
			i ? "B" : "A", (unsigned long long)st.tx_frames,
			(unsigned long long)st.rx_frames,
			(unsigned long long)st.tx_fault_drops,
			(unsigned long long)st.rx_kernel_drops);
		h_dump_counters(i ? &g.p.b : &g.p.a);
	}
}

int main(int argc, char **argv)
{
	enum roce_afpacket_mode mode;
	struct roce_afpacket_stats sa, sb;
	enum roce_mtu mtu;
	double loss;
	unsigned rounds;

	if ((argc != 7 && argc != 8) || roce_afpacket_mode_parse(argv[5], &mode) ||
	    sscanf(argv[6], "%lf", &loss) != 1 || loss < 0 || loss > 0.5) {
		fprintf(stderr, "usage: afp_engines NSA IFA NSB IFB MODE LOSS [THREADS]\n");
		return 2;
	}
	g.threads = argc == 8 && !strcmp(argv[7], "1");
	g.dump = dump;
	h_watchdog(240);
	port_open(0, argv[1], argv[2], mode, IP_A, IP_B, loss, 1);
	port_open(1, argv[3], argv[4], mode, IP_B, IP_A, loss, 2);
	mtu = roce_afpacket_path_mtu(g_afp[0]);
	CHECK(mtu == ROCE_MTU_1024, "path MTU");
	h_pair_open(&g, roce_afpacket_port(g_afp[0]), IP_A, roce_afpacket_port(g_afp[1]),
		    IP_B, mtu);
	if (g.threads) {
		CHECK_OK(pair_start(&g.p.a, -1));
		CHECK_OK(pair_start(&g.p.b, -1));
	}
	rounds = loss > 0 ? 8 : 3;
	for (unsigned k = 0; k < rounds; k++)
		h_round(&g, k, 256u * 1024 - 8 * k);    /* not a MTU multiple */
	/* the V3 ring hands a partial block over only on its timer: there
	 * the threads nap rather than sleep */
	if (g.threads && !loss && mode != ROCE_AFP_RING_V3)
		h_round_after_sleep(&g, rounds, 1000);
	pair_stop(&g.p.a);
	pair_stop(&g.p.b);
	roce_afpacket_get_stats(g_afp[0], &sa);
	roce_afpacket_get_stats(g_afp[1], &sb);
	CHECK(sa.tx_frames > 0 && sb.rx_frames > 0, "frames moved");
	CHECK(sa.tx_too_big == 0 && sb.tx_too_big == 0, "path MTU frames fit");
	if (loss > 0) {
		CHECK(sa.tx_fault_drops + sb.tx_fault_drops > 0, "no frame was lost");
		CHECK(pair_cnt(&g.p.a, ROCE_CNT_RETRANSMISSIONS) +
		      pair_cnt(&g.p.b, ROCE_CNT_RETRANSMISSIONS) > 0, "no retransmission");
	}
	printf("afp_engines %s loss %.2f%s: pass (A: tx %llu lost %llu, "
	       "retransmissions %llu, timeouts %llu)\n", argv[5], loss,
	       g.threads ? " threads" : "", (unsigned long long)sa.tx_frames,
	       (unsigned long long)sa.tx_fault_drops,
	       (unsigned long long)pair_cnt(&g.p.a, ROCE_CNT_RETRANSMISSIONS),
	       (unsigned long long)pair_cnt(&g.p.a, ROCE_CNT_TIMEOUTS));
	pair_teardown(&g.p);
	for (int i = 0; i < 2; i++)
		roce_afpacket_close(g_afp[i]);
	return 0;
}
