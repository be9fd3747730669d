/* SPDX-License-Identifier: MIT */
/*
 * Shared by the raw-Ethernet test programs (tests/scripts/afpacket_*.sh
 * runs them): checks that exit non-zero, network-namespace switching, a
 * watchdog, and frame builders. Header-only so each program stays one file.
 */
#ifndef ROCE_TEST_AFP_HELPER_H
#define ROCE_TEST_AFP_HELPER_H

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "roce/afpacket.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/wire/eth.h"
#include "roce/wire/ip.h"
#include "roce/wire/udp.h"

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			exit(1);                                               \
		}                                                              \
	} while (0)

#define CHECK_OK(expr)                                                         \
	do {                                                                   \
		int rc_ = (expr);                                              \
		CHECK(rc_ == ROCE_OK, "%s", roce_status_str(rc_));             \
	} while (0)

static inline uint64_t h_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline void h_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline void h_sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

static void h_watchdog_fired(int sig)
{
	static const char msg[] = "watchdog: test took too long\n";

	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(3);
}

/* Kill the whole program after secs: every test is bounded in time. */
static inline void h_watchdog(unsigned secs)
{
	signal(SIGALRM, h_watchdog_fired);
	alarm(secs);
}

/* Move this thread into the named namespace (ip netns add NAME). */
static inline void h_enter_ns(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "cannot open %s", path);
	CHECK(setns(fd, CLONE_NEWNET) == 0, "setns %s", name);
	close(fd);
}

static inline uint32_t h_ip(const char *s)
{
	unsigned a, b, c, d;

	CHECK(sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d) == 4, "bad IP '%s'", s);
	return a << 24 | b << 16 | c << 8 | d;
}

static inline struct roce_afpacket *h_open(const char *ifname,
					   enum roce_afpacket_mode mode,
					   uint32_t ip, bool answer_arp)
{
	struct roce_afpacket_config c = { 0 };
	struct roce_afpacket *afp = NULL;
	char err[256];
	int st;

	c.ifname = ifname;
	c.mode = mode;
	c.ip = ip;
	c.answer_arp = answer_arp;
	st = roce_afpacket_open(&c, &afp, err, sizeof(err));
	CHECK(st == ROCE_OK, "open %s: %s", ifname, err);
	return afp;
}

/* A byte pattern that differs per frame and per position. */
static inline uint8_t h_pat(unsigned frame, unsigned i)
{
	return (uint8_t)(i * 7u + frame * 31u + (i >> 8));
}

/*
 * An Ethernet + IPv4 (or IPv6) + UDP frame of exactly len bytes, payload
 * from h_pat(tag, ...). proto lets a test make a TCP look-alike (no valid
 * TCP header needed: the filter looks at the protocol field only).
 */
static inline void h_frame(uint8_t *f, uint32_t len, const uint8_t dst[6],
			   const uint8_t src[6], bool v6, uint8_t proto,
			   uint32_t sip, uint32_t dip, uint16_t dport, unsigned tag)
{
	uint32_t l3 = ROCE_ETH_HLEN, l4;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	roce_put_be16(f + 12, v6 ? ROCE_ETHERTYPE_IPV6 : ROCE_ETHERTYPE_IPV4);
	if (v6) {
		struct roce_ipv6_hdr *h = (void *)(f + l3);

		memset(h, 0, sizeof(*h));
		h->ver_tc_flow[0] = 0x60;
		roce_put_be16(h->payload_len, (uint16_t)(len - l3 - ROCE_IPV6_HLEN));
		h->next_hdr = proto;
		h->hop_limit = 64;
		h->saddr[15] = 1;
		h->daddr[15] = 2;
		l4 = l3 + ROCE_IPV6_HLEN;
	} else {
		struct roce_ipv4_hdr *h = (void *)(f + l3);

		memset(h, 0, sizeof(*h));
		h->ver_ihl = 0x45;
		roce_put_be16(h->tot_len, (uint16_t)(len - l3));
		roce_put_be16(h->frag_off, ROCE_IPV4_DF);
		h->ttl = 64;
		h->protocol = proto;
		roce_put_be32(h->saddr, sip);
		roce_put_be32(h->daddr, dip);
		roce_put_be16(h->check, roce_ipv4_csum(h, ROCE_IPV4_HLEN));
		l4 = l3 + ROCE_IPV4_HLEN;
	}
	roce_put_be16(f + l4, 50000);
	roce_put_be16(f + l4 + 2, dport);
	roce_put_be16(f + l4 + 4, (uint16_t)(len - l4));
	roce_put_be16(f + l4 + 6, 0);   /* no UDP checksum, as RoCE NICs send */
	for (uint32_t i = l4 + ROCE_UDP_HLEN; i < len; i++)
		f[i] = h_pat(tag, i);
}

/* Receive on p (releasing at once) until want frames arrived or ms pass;
 * copies each into bufs[k] (when bufs) and its length into lens[k]. */
static inline unsigned h_rx(struct roce_port *p, unsigned want, unsigned ms,
			    uint8_t (*bufs)[ROCE_MAX_FRAME], uint32_t *lens)
{
	uint64_t end = h_now_ms() + ms;
	unsigned got = 0;

	while (got < want && h_now_ms() < end) {
		struct roce_frame f[32];
		unsigned n = roce_port_rx(p, f, 32);

		for (unsigned i = 0; i < n; i++, got++) {
			if (got >= want)
				continue;       /* extra frames: counted only */
			if (bufs) {
				CHECK(f[i].len <= ROCE_MAX_FRAME, "frame too long");
				memcpy(bufs[got], f[i].data, f[i].len);
			}
			if (lens)
				lens[got] = f[i].len;
		}
		if (n)
			roce_port_rx_release(p, n);
		else
			h_sleep_ms(0);
	}
	return got;
}

/* A /proc/net/snmp counter ("Icmp", "OutDestUnreachs") of this thread's
 * network namespace. */
static inline long h_snmp(const char *group, const char *name)
{
	char hdr[2048], val[2048];
	FILE *fp = fopen("/proc/thread-self/net/snmp", "r");
	long v = -1;

	CHECK(fp, "cannot read /proc/thread-self/net/snmp");
	while (fgets(hdr, sizeof(hdr), fp) && fgets(val, sizeof(val), fp)) {
		char *hs, *vs, *h, *x;
		size_t gl = strlen(group);

		if (strncmp(hdr, group, gl) || hdr[gl] != ':')
			continue;
		h = strtok_r(hdr + gl + 1, " \n", &hs);
		x = strtok_r(val + gl + 1, " \n", &vs);
		while (h && x) {
			if (!strcmp(h, name))
				v = atol(x);
			h = strtok_r(NULL, " \n", &hs);
			x = strtok_r(NULL, " \n", &vs);
		}
	}
	fclose(fp);
	CHECK(v >= 0, "no %s %s in /proc/net/snmp", group, name);
	return v;
}

#endif
