/* SPDX-License-Identifier: MIT */
/*
 * afp_nd NSA IFA NSB IFB: IPv6 neighbour discovery of the raw-Ethernet
 * port between two namespaces (tests/scripts/afpacket_nd.sh sets them up:
 * A's kernel has fd92::1, B's fd92::2, both their link-local addresses).
 *
 * Port B2 on IFB has two IPv6 addresses: fd92::b, which B's kernel does
 * not carry (B2 answers solicitations for it), and B's link-local one (the
 * port adds it: ip6_link_local), which the kernel carries (the kernel
 * answers; B2 holds its UDP port).
 * From A: our solicitation finds fd92::b (B2's answer) and fd92::2 (B's
 * kernel's); A's kernel finds fd92::b too (its own solicitation, B2's
 * answer), so its neighbour table has it; a permanent entry is read from
 * that table without a solicitation; nobody at fd92::99 times out in
 * bounds. Exit 0 = every check passed.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "afp_helper.h"
#include "roce/gid.h"

struct side {
	struct roce_afpacket *afp;
	atomic_bool stop;
};

static void *poller(void *arg)
{
	struct side *s = arg;
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

static unsigned idles;

static unsigned idle_count(void *arg)
{
	(*(unsigned *)arg)++;
	return 0;
}

static void addr6(const char *s, uint8_t a[16])
{
	CHECK(roce_gid_parse(s, a) == ROCE_OK, "bad address %s", s);
}

static struct roce_afpacket *open6(const char *ifname, const uint8_t (*ip6)[16],
				   unsigned n, bool answer, bool link_local)
{
	struct roce_afpacket_config c = { .ifname = ifname, .answer_nd = answer,
					  .ip6_link_local = link_local };
	struct roce_afpacket *afp = NULL;
	char err[256];

	memcpy(c.ip6, ip6, n * 16);
	c.n_ip6 = n;
	CHECK(roce_afpacket_open(&c, &afp, err, sizeof(err)) == ROCE_OK, "open %s: %s",
	      ifname, err);
	return afp;
}

/* Whether [addr]:4791 is taken (the port holds it): a bind must fail. */
static bool port_taken(const uint8_t addr[16], const char *ifname)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6, .sin6_port = htons(4791),
				  .sin6_scope_id = if_nametoindex(ifname) };
	int fd = socket(AF_INET6, SOCK_DGRAM, 0), rc, e;

	CHECK(fd >= 0, "socket");
	memcpy(s.sin6_addr.s6_addr, addr, 16);
	rc = bind(fd, (struct sockaddr *)&s, sizeof(s));
	e = errno;
	close(fd);
	return rc < 0 && e == EADDRINUSE;
}

/* A datagram from A's kernel to addr: its own solicitation first. */
static void kernel_send(const uint8_t addr[16])
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);

	CHECK(fd >= 0, "socket");
	memcpy(s.sin6_addr.s6_addr, addr, 16);
	(void)!sendto(fd, "x", 1, 0, (struct sockaddr *)&s, sizeof(s));
	close(fd);
}

int main(int argc, char **argv)
{
	const char *nsa, *ifa, *nsb, *ifb;
	uint8_t b2_addrs[2][16], a_ll[1][16], ours[16], bk[16], nb[16], nobody[16];
	uint8_t amac[6], bmac[6], mac[6];
	struct side b2 = { 0 };
	struct roce_afpacket *a;
	struct roce_afpacket_stats st;
	pthread_t th;
	uint64_t t0;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: afp_nd NSA IFA NSB IFB\n");
		return 2;
	}
	nsa = argv[1], ifa = argv[2], nsb = argv[3], ifb = argv[4];
	h_watchdog(60);
	addr6("fd92::b", ours);
	addr6("fd92::2", bk);
	addr6("fd92::50", nb);
	addr6("fd92::99", nobody);

	/* B: port B2 with fd92::b (the port's) and the link-local address
	 * (the kernel's) */
	h_enter_ns(nsb);
	b2.afp = open6(ifb, (const uint8_t (*)[16])b2_addrs, 0, true, false);
	memcpy(bmac, roce_afpacket_port(b2.afp)->mac, 6);
	roce_afpacket_close(b2.afp);
	memcpy(b2_addrs[0], ours, 16);
	roce_gid_link_local(bmac, b2_addrs[1]);
	CHECK(!roce_netdev_has_ipv6(ifb, ours), "B's kernel must not carry fd92::b");
	CHECK(roce_netdev_has_ipv6(ifb, b2_addrs[1]), "B's kernel carries its link-local");
	/* fd92::b given, the link-local one the port's own (GID 0) */
	b2.afp = open6(ifb, (const uint8_t (*)[16])b2_addrs, 1, true, true);
	CHECK(port_taken(b2_addrs[1], ifb), "the link-local UDP port is held");
	CHECK(pthread_create(&th, NULL, poller, &b2) == 0, "thread");

	/* A: solicitations from our own socket */
	h_enter_ns(nsa);
	a = open6(ifa, (const uint8_t (*)[16])a_ll, 0, false, false);
	memcpy(amac, roce_afpacket_port(a)->mac, 6);
	roce_afpacket_close(a);
	roce_gid_link_local(amac, a_ll[0]);
	memset(mac, 0, 6);
	CHECK_OK(roce_nd_resolve(ifa, amac, a_ll[0], ours, 3000, mac, NULL, NULL));
	CHECK(!memcmp(mac, bmac, 6), "B2's advertisement carries B's MAC");
	memset(mac, 0, 6);
	CHECK_OK(roce_nd_resolve(ifa, amac, a_ll[0], bk, 3000, mac, idle_count, &idles));
	CHECK(idles >= 1, "the idle hook ran while waiting");
	CHECK(!memcmp(mac, bmac, 6), "B's kernel's advertisement");
	/* through a port: the kernel's table does not have fd92::b yet */
	a = open6(ifa, (const uint8_t (*)[16])a_ll, 1, false, false);
	memset(mac, 0, 6);
	CHECK_OK(roce_afpacket_resolve6(a, ours, 3000, mac, NULL, NULL));
	CHECK(!memcmp(mac, bmac, 6), "resolve6 on the wire");
	/* the kernel's table: the script's permanent entry, no solicitation */
	CHECK_OK(roce_neigh6_lookup(ifa, nb, mac));
	CHECK(!memcmp(mac, ((const uint8_t[6]){ 2, 0, 0, 0, 0, 0x50 }), 6),
	      "neighbour table MAC");
	CHECK_OK(roce_afpacket_resolve6(a, nb, 100, mac, NULL, NULL));
	CHECK(roce_neigh6_lookup(ifa, nobody, mac) == ROCE_E_NOENT, "no entry for nobody");
	/* A's kernel asks for fd92::b itself: B2's answer fills its table */
	kernel_send(ours);
	t0 = h_now_ms();
	while ((rc = roce_neigh6_lookup(ifa, ours, mac)) != ROCE_OK && h_now_ms() - t0 < 3000)
		h_sleep_ms(20);
	CHECK(rc == ROCE_OK && !memcmp(mac, bmac, 6), "A's kernel learned fd92::b (%s)",
	      roce_status_name(rc));
	/* nobody answers: bounded by the timeout */
	t0 = h_now_ms();
	CHECK(roce_afpacket_resolve6(a, nobody, 300, mac, idle_count, &idles) ==
	      ROCE_E_TIMEOUT, "nobody");
	CHECK(h_now_ms() - t0 >= 250 && h_now_ms() - t0 < 10000, "timeout bound");
	CHECK(idles >= 100, "the idle hook ran through the wait (%u)", idles);
	CHECK(roce_nd_resolve("nosuch0", amac, a_ll[0], ours, 100, mac, NULL, NULL) ==
	      ROCE_E_NOENT, "missing interface");
	CHECK(roce_nd_resolve(ifa, amac, a_ll[0], (const uint8_t[16]){ 0xff, 2, [15] = 1 },
			      100, mac, NULL, NULL) == ROCE_E_INVAL, "multicast target");
	roce_afpacket_close(a);
	atomic_store(&b2.stop, true);
	pthread_join(th, NULL);
	roce_afpacket_get_stats(b2.afp, &st);
	/* our two solicitations, A's kernel's; never one for the
	 * link-local address, which B's kernel answers */
	CHECK(st.nd_replies >= 3, "B2 answered %llu solicitations",
	      (unsigned long long)st.nd_replies);
	CHECK(st.rx_nd >= st.nd_replies, "seen %llu", (unsigned long long)st.rx_nd);
	CHECK(st.rx_frames == 0, "nothing of ND lent to an engine");
	roce_afpacket_close(b2.afp);
	printf("afp_nd: B2 answered %llu of %llu neighbour discovery frames\n",
	       (unsigned long long)st.nd_replies, (unsigned long long)st.rx_nd);
	return 0;
}
