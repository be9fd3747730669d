/* SPDX-License-Identifier: MIT */
/* What the raw-Ethernet ports (AF_PACKET, AF_XDP) share (internal). */
#ifndef ROCE_LINK_NETDEV_UTIL_H
#define ROCE_LINK_NETDEV_UTIL_H

#include <stdint.h>

/* A system call's errno as a project status: rights, a missing or down
 * interface, memory, a port in use, what the kernel does not support;
 * ROCE_E_IO for anything else. */
int netdev_errno_status(int errnum);

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
