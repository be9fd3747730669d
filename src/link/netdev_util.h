/* SPDX-License-Identifier: MIT */
/* What the raw-Ethernet ports (AF_PACKET, AF_XDP) share (internal). */
#ifndef ROCE_LINK_NETDEV_UTIL_H
#define ROCE_LINK_NETDEV_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Write the message (printf-like) into err (errlen bytes, may be 0) and
 * return status: the ports' error path. */
int netdev_fail(char *err, size_t errlen, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* What a raw-Ethernet port needs to know of its interface. */
struct netdev_info {
	int ifindex;
	uint8_t mac[6];
	unsigned mtu;           /* interface MTU (IP bytes) */
};

/*
 * Index, MAC and MTU of an Ethernet interface that is up with a carrier
 * (waiting up to ROCE_AFP_CARRIER_WAIT_MS for a link just brought up).
 * Errors name the interface and the cause; perm_hint is added to a
 * permission error ("" for none).
 */
int netdev_query(const char *ifname, const char *perm_hint,
		 struct netdev_info *out, char *err, size_t errlen);

/* A system call's errno as a project status: rights, a missing or down
 * interface, memory, a port in use, what the kernel does not support;
 * ROCE_E_IO for anything else. */
int netdev_errno_status(int errnum);

/* A raw socket that sees frames of one EtherType (host order) on ifindex
 * only: ARP and neighbour resolution read their answers on it. */
int netdev_proto_socket(int ifindex, uint16_t ethertype, int *out);

/* xorshift64*: the test loss fault's dice (one stream per port). */
static inline uint64_t netdev_prng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

#endif
