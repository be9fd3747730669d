/* SPDX-License-Identifier: MIT */
/* Inside the tools' endpoint: what perf_ep.c and perf_addr.c share. */
#ifndef ROCE_PERF_EP_PRIV_H
#define ROCE_PERF_EP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "perf/perf_ep.h"

/* ep->err gets the message (printf-like); returns st. */
int perf_ep_fail(struct perf_ep *ep, int st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* perf_addr.c: the peer's MAC, of an IPv4 address, of an IPv6 GID
 * (ep->err says why not). */
int perf_ep_resolve(struct perf_ep *ep, uint32_t ip, uint8_t mac[6]);
int perf_ep_resolve6(struct perf_ep *ep, const uint8_t gid[16], uint8_t mac[6]);
/* --link xdp with GID sgid_index: ROCE_E_INVAL when the interface does not
 * carry it (the kernel answers neighbour discovery there). */
int perf_ep_xdp_gid(struct perf_ep *ep, unsigned sgid_index);

#endif
