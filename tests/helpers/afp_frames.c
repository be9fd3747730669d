/* SPDX-License-Identifier: MIT */
/*
 * afp_frames NSA IFA NSB IFB MODE: the raw-Ethernet port between two
 * network namespaces joined by a veth pair (tests/scripts/afpacket_link.sh
 * sets them up). One process, one port per namespace (a socket belongs to
 * the namespace it was created in), MODE = ring | ring-v3 | mmsg | auto.
 *
 * Address plan (the script configures the kernel side):
 *   192.0.2.1   A's kernel and port A
 *   192.0.2.2   B's kernel and port B (the port holds UDP 4791)
 *   192.0.2.12  a second port on B that answers ARP (not on B's kernel)
 *   192.0.2.50  a permanent neighbour entry in A: 02:00:00:00:00:50
 *   192.0.2.99  nobody
 *
 * Checks: exact bytes and order over bursts, a burst larger than the TX
 * batch, the smallest rings (TX wrap, RX overflow counted), MTU refusal, the BPF filter (TCP, other ports, other MACs out;
 * ARP, IPv4 and IPv6 UDP/4791 in), no ICMP port unreachable while the
 * port is held (and one once it is not), ARP answer and resolution, the
 * kernel neighbour table. Exit 0 = pass.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "afp_helper.h"
#include "link/arp.h"
#include "roce/params.h"

#define IP_A   0xC0000201u
#define IP_B   0xC0000202u
#define IP_ARP 0xC000020Cu
#define IP_NB  0xC0000232u
#define IP_NOBODY 0xC0000263u

static enum roce_afpacket_mode g_mode;
static uint8_t g_rx[300][ROCE_MAX_FRAME];
static uint32_t g_rxlen[300];
static uint8_t g_tx[300][ROCE_MAX_FRAME];

struct two {
	const char *nsa, *ifa, *nsb, *ifb;
	struct roce_afpacket *a, *b;
	uint8_t amac[6], bmac[6];
};

static void send_all(struct roce_port *p, struct roce_frame *f, unsigned n)
{
	uint64_t end = h_now_ms() + 2000;
	unsigned done = 0;

	while (done < n && h_now_ms() < end)
		done += roce_port_tx(p, f + done, n - done);
	CHECK(done == n, "sent %u of %u frames", done, n);
}

/* n frames of growing sizes, from (a port on A's interface) -> B,
 * received exactly, in order. */
static void check_bytes(struct two *t, struct roce_afpacket *from, unsigned n,
			unsigned tag0)
{
	struct roce_frame f[300];
	uint32_t max = roce_afpacket_mtu(t->a) + ROCE_ETH_HLEN;
	uint32_t min = 60;

	for (unsigned i = 0; i < n; i++) {
		uint32_t len = min + (uint32_t)(((uint64_t)(max - min) * i) / (n - 1));

		h_frame(g_tx[i], len, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
			IP_A, IP_B, ROCE_UDP_PORT, tag0 + i);
		f[i].data = g_tx[i];
		f[i].len = len;
	}
	send_all(roce_afpacket_port(from), f, n);
	CHECK(h_rx(roce_afpacket_port(t->b), n, 3000, g_rx, g_rxlen) == n,
	      "B received fewer than %u frames", n);
	for (unsigned i = 0; i < n; i++) {
		CHECK(g_rxlen[i] == f[i].len, "frame %u: %u bytes, sent %u", i,
		      g_rxlen[i], f[i].len);
		CHECK(!memcmp(g_rx[i], g_tx[i], f[i].len), "frame %u differs", i);
	}
}

/*
 * The smallest rings: 200 frames wrap a 16-slot TX ring 12 times and still
 * arrive exactly; a 16-slot RX port that nobody polls meanwhile overflows,
 * and every frame is either received or counted as a kernel drop.
 */
static void check_small_rings(struct two *t)
{
	struct roce_afpacket_config c = { .mode = g_mode, .tx_frames = 16,
					  .rx_frames = 16 };
	struct roce_afpacket *a2, *b2;
	struct roce_afpacket_stats st;
	char err[256];
	unsigned got;

	h_enter_ns(t->nsa);
	c.ifname = t->ifa;
	CHECK(roce_afpacket_open(&c, &a2, err, sizeof(err)) == ROCE_OK, "%s", err);
	h_enter_ns(t->nsb);
	c.ifname = t->ifb;
	CHECK(roce_afpacket_open(&c, &b2, err, sizeof(err)) == ROCE_OK, "%s", err);
	check_bytes(t, a2, 200, 2000);
	got = h_rx(roce_afpacket_port(b2), 200, 500, NULL, NULL);
	roce_afpacket_get_stats(b2, &st);
	CHECK(got + st.rx_kernel_drops == 200, "received %u + dropped %llu != 200",
	      got, (unsigned long long)st.rx_kernel_drops);
	/* V3 blocks hold them all; the V2 ring and the socket queue cannot */
	CHECK(roce_afpacket_mode(b2) == ROCE_AFP_RING_V3 || st.rx_kernel_drops > 0,
	      "a 16-slot RX ring held 200 frames");
	roce_afpacket_close(a2);
	roce_afpacket_close(b2);
}

static void check_mtu(struct two *t)
{
	struct roce_afpacket_stats s0, s1;
	uint32_t max = roce_afpacket_mtu(t->a) + ROCE_ETH_HLEN;
	struct roce_frame f[3];

	roce_afpacket_get_stats(t->a, &s0);
	h_frame(g_tx[0], max + 1, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_B, ROCE_UDP_PORT, 900);
	h_frame(g_tx[1], 10, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_B, ROCE_UDP_PORT, 901);
	h_frame(g_tx[2], max, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_B, ROCE_UDP_PORT, 902);
	for (int i = 0; i < 3; i++)
		f[i] = (struct roce_frame){ g_tx[i], i == 1 ? 10u : i ? max : max + 1 };
	/* refused frames are taken (and counted), never retried */
	CHECK(roce_port_tx(roce_afpacket_port(t->a), f, 3) == 3, "burst not taken");
	roce_afpacket_get_stats(t->a, &s1);
	CHECK(s1.tx_too_big == s0.tx_too_big + 1, "too_big %llu",
	      (unsigned long long)s1.tx_too_big);
	CHECK(s1.tx_too_short == s0.tx_too_short + 1, "too_short");
	CHECK(h_rx(roce_afpacket_port(t->b), 2, 1000, g_rx, g_rxlen) == 1,
	      "B must receive exactly the frame that fits");
	CHECK(g_rxlen[0] == max && !memcmp(g_rx[0], g_tx[2], max), "the MTU frame");
}

/* Frames the filter must stop, between two it must pass. */
static void check_filter(struct two *t)
{
	static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	struct roce_afpacket_stats s0, s1;
	static const uint32_t len[8] = { 100, 100, 100, 100, 60, 104, 120, 130 };
	struct roce_frame f[8];
	unsigned n = 0;

	roce_afpacket_get_stats(t->b, &s0);
	h_frame(g_tx[n++], 100, t->bmac, t->amac, false, 6 /* TCP */,
		IP_A, IP_NOBODY, ROCE_UDP_PORT, 1);
	h_frame(g_tx[n++], 100, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_NOBODY, ROCE_UDP_PORT + 1, 2);
	h_frame(g_tx[n++], 100, other, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_NOBODY, ROCE_UDP_PORT, 3);
	h_frame(g_tx[n++], 100, bcast, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_NOBODY, ROCE_UDP_PORT, 4);
	/* ARP for nobody: seen (counted), not answered, not lent */
	roce_arp_build_request(g_tx[n++], t->amac, IP_A, IP_NOBODY);
	/* RoCE to us, but in VLAN 5: for B's VLAN interface, not this port */
	h_frame(g_tx[n] + 4, 100, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_NOBODY, ROCE_UDP_PORT, 7);
	memmove(g_tx[n], g_tx[n] + 4, 12);
	roce_put_be16(g_tx[n] + 12, ROCE_ETHERTYPE_VLAN);
	roce_put_be16(g_tx[n] + 14, 5);
	n++;
	h_frame(g_tx[n++], 120, t->bmac, t->amac, true, ROCE_IPPROTO_UDP,
		0, 0, ROCE_UDP_PORT, 5);
	h_frame(g_tx[n++], 130, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
		IP_A, IP_NOBODY, ROCE_UDP_PORT, 6);
	for (unsigned i = 0; i < n; i++)
		f[i] = (struct roce_frame){ g_tx[i], len[i] };
	send_all(roce_afpacket_port(t->a), f, n);
	CHECK(h_rx(roce_afpacket_port(t->b), 3, 1000, g_rx, g_rxlen) == 2,
	      "B must receive exactly the IPv6 and IPv4 UDP/4791 frames");
	CHECK(g_rxlen[0] == 120 && !memcmp(g_rx[0], g_tx[6], 120), "IPv6 frame");
	CHECK(g_rxlen[1] == 130 && !memcmp(g_rx[1], g_tx[7], 130), "IPv4 frame");
	roce_afpacket_get_stats(t->b, &s1);
	CHECK(s1.rx_arp == s0.rx_arp + 1, "ARP seen %llu",
	      (unsigned long long)(s1.rx_arp - s0.rx_arp));
	CHECK(s1.arp_replies == s0.arp_replies, "answered an ARP for another IP");
}

/* n UDP/4791 frames A -> B's kernel address (and B's port). */
static void send_to_b_ip(struct two *t, unsigned n, unsigned tag)
{
	struct roce_frame f[32];

	for (unsigned i = 0; i < n; i++) {
		h_frame(g_tx[i], 100, t->bmac, t->amac, false, ROCE_IPPROTO_UDP,
			IP_A, IP_B, ROCE_UDP_PORT, tag + i);
		f[i] = (struct roce_frame){ g_tx[i], 100 };
	}
	send_all(roce_afpacket_port(t->a), f, n);
}

/*
 * B's kernel owns 192.0.2.2 and sees every RoCE frame too: while port B
 * holds UDP 4791 it must stay silent (and discard them: Udp InErrors),
 * once the port is closed it answers ICMP port unreachable again (which
 * shows the frames did reach it, so the silence is not an accident).
 * Leaves this thread in B's namespace; closes port B.
 */
static void check_icmp(struct two *t)
{
	long unreach0, inerr0, v = 0;
	uint64_t end;

	h_enter_ns(t->nsb);
	unreach0 = h_snmp("Icmp", "OutDestUnreachs");
	inerr0 = h_snmp("Udp", "InErrors");
	send_to_b_ip(t, 20, 300);
	CHECK(h_rx(roce_afpacket_port(t->b), 20, 2000, NULL, NULL) == 20,
	      "port B missed frames");
	/* the kernel handles each frame as it arrives on the veth; wait
	 * until it has discarded all 20 */
	end = h_now_ms() + 2000;
	while (h_snmp("Udp", "InErrors") < inerr0 + 20 && h_now_ms() < end)
		h_sleep_ms(10);
	CHECK(h_snmp("Udp", "InErrors") >= inerr0 + 20,
	      "B's kernel did not see the RoCE frames");
	CHECK(h_snmp("Icmp", "OutDestUnreachs") == unreach0,
	      "ICMP port unreachable sent while the port is held");
	roce_afpacket_close(t->b);
	t->b = NULL;
	send_to_b_ip(t, 3, 400);
	end = h_now_ms() + 2000;
	while ((v = h_snmp("Icmp", "OutDestUnreachs")) == unreach0 &&
	       h_now_ms() < end)
		h_sleep_ms(10);
	CHECK(v > unreach0, "no ICMP after the port was released: the check "
	      "above proves nothing");
}

/* Port B2 answers ARP for IP_ARP (B's kernel does not own it) on a
 * thread of its own while this one resolves. */
struct arp_side {
	struct roce_afpacket *afp;
	atomic_bool stop;
};

static void *arp_poller(void *arg)
{
	struct arp_side *s = arg;
	uint64_t end = h_now_ms() + 20000;

	while (!atomic_load(&s->stop) && h_now_ms() < end) {
		struct roce_frame f[32];
		unsigned n = roce_port_rx(roce_afpacket_port(s->afp), f, 32);

		if (n)
			roce_port_rx_release(roce_afpacket_port(s->afp), n);
		else
			h_sleep_ms(1);
	}
	return NULL;
}

static void check_arp(struct two *t)
{
	static const uint8_t nb_mac[6] = { 0x02, 0, 0, 0, 0, 0x50 };
	struct arp_side b2 = { 0 };
	struct roce_afpacket_stats st;
	uint8_t mac[6];
	pthread_t th;
	uint64_t t0;

	/* B's namespace: check_icmp left this thread there */
	b2.afp = h_open(t->ifb, g_mode, IP_ARP, true);
	CHECK(!memcmp(roce_afpacket_port(b2.afp)->mac, t->bmac, 6), "B2 MAC");
	CHECK(!roce_afpacket_port_held(b2.afp), "B's kernel has no 192.0.2.12");
	CHECK(pthread_create(&th, NULL, arp_poller, &b2) == 0, "thread");
	h_enter_ns(t->nsa);
	/* on the wire, from A's port */
	memset(mac, 0, 6);
	CHECK_OK(roce_arp_resolve(t->ifa, t->amac, IP_A, IP_ARP, 3000, mac));
	CHECK(!memcmp(mac, t->bmac, 6), "ARP answer carries B's MAC");
	/* through the port: not in the kernel's table, so ARP again */
	memset(mac, 0, 6);
	CHECK_OK(roce_afpacket_resolve(t->a, IP_ARP, 3000, mac));
	CHECK(!memcmp(mac, t->bmac, 6), "resolve via the port");
	/* the kernel's table (the script's permanent entry), no ARP */
	CHECK_OK(roce_neigh_lookup(t->ifa, IP_NB, mac));
	CHECK(!memcmp(mac, nb_mac, 6), "neighbour table MAC");
	CHECK_OK(roce_afpacket_resolve(t->a, IP_NB, 100, mac));
	CHECK(!memcmp(mac, nb_mac, 6), "resolve from the neighbour table");
	CHECK(roce_neigh_lookup(t->ifa, IP_NOBODY, mac) == ROCE_E_NOENT,
	      "no neighbour entry for nobody");
	/* nobody answers: bounded by the timeout */
	t0 = h_now_ms();
	CHECK(roce_afpacket_resolve(t->a, IP_NOBODY, 300, mac) == ROCE_E_TIMEOUT,
	      "resolve of nobody");
	CHECK(h_now_ms() - t0 >= 250 && h_now_ms() - t0 < 10000, "timeout bound");
	CHECK(roce_arp_resolve("nosuch0", t->amac, IP_A, IP_ARP, 100, mac) ==
	      ROCE_E_NOENT, "missing interface");
	atomic_store(&b2.stop, true);
	pthread_join(th, NULL);
	roce_afpacket_get_stats(b2.afp, &st);
	CHECK(st.arp_replies >= 2, "B2 answered %llu requests",
	      (unsigned long long)st.arp_replies);
	roce_afpacket_close(b2.afp);
}

int main(int argc, char **argv)
{
	struct two t;

	if (argc != 6 || roce_afpacket_mode_parse(argv[5], &g_mode)) {
		fprintf(stderr, "usage: afp_frames NSA IFA NSB IFB MODE\n");
		return 2;
	}
	h_watchdog(60);
	t.nsa = argv[1];
	t.ifa = argv[2];
	t.nsb = argv[3];
	t.ifb = argv[4];
	h_enter_ns(t.nsa);
	t.a = h_open(t.ifa, g_mode, IP_A, false);
	h_enter_ns(t.nsb);
	t.b = h_open(t.ifb, g_mode, IP_B, false);
	memcpy(t.amac, roce_afpacket_port(t.a)->mac, 6);
	memcpy(t.bmac, roce_afpacket_port(t.b)->mac, 6);
	CHECK(g_mode == ROCE_AFP_AUTO || roce_afpacket_mode(t.a) == g_mode, "mode");
	CHECK(roce_afpacket_port_held(t.b), "B does not hold UDP 4791");
	CHECK(roce_afpacket_path_mtu(t.a) == ROCE_MTU_1024, "path MTU over 1500");
	check_bytes(&t, t.a, 32, 0);
	check_bytes(&t, t.a, 200, 1000); /* more than one TX batch per call */
	check_small_rings(&t);
	check_mtu(&t);
	check_filter(&t);
	check_icmp(&t);
	check_arp(&t);
	roce_afpacket_close(t.a);
	printf("afp_frames %s: pass\n", argv[5]);
	return 0;
}
