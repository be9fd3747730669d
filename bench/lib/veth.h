/* SPDX-License-Identifier: MIT */
/*
 * Over veth: two raw-Ethernet ports (roce/afpacket.h, PACKET_MMAP rings)
 * in two network namespaces joined by a veth pair that scripts/bench
 * creates. First the raw-frame rate of that path (frames blasted from A's
 * port, counted at B's port, at the sizes the engine sends), then the two
 * engines over the same ports, so the engine is compared with exactly the
 * path it runs on.
 */
#ifndef BENCH_VETH_H
#define BENCH_VETH_H

#include "lib/util.h"

struct veth_where {
	const char *ns_a, *if_a, *ns_b, *if_b;
};

/* Adds "veth" rows; returns false (with why) when the ports cannot be
 * opened, e.g. without CAP_NET_RAW. */
bool veth_run(const struct bench_cfg *cfg, const struct veth_where *w,
	      char *why, size_t whylen);

#endif
