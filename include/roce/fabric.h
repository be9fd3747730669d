/* SPDX-License-Identifier: MIT */
/*
 * A switched fabric on a virtual clock (docs/cc.md): hosts, each on a
 * link to one port of an output-queued switch. It is the in-memory link's
 * sibling for congestion experiments: every link carries frames at its
 * line rate in simulated time, a NIC's transmit queue is finite (the
 * engine feels backpressure, as from a real port), and each switch output
 * queue has a byte limit, RED-style ECN marking (Kmin, Kmax, Pmax) and
 * either tail drop or PFC-style pause of the ingress ports that fill it.
 * A frame's cost does not grow with the number of ports.
 *
 * Nothing runs by itself and nothing reads a wall clock: the caller
 * attaches engines (their clock is roce_fabric_clock), polls them, and
 * moves time with roce_fabric_advance(). Same configuration and seed,
 * same run, on any machine.
 */
#ifndef ROCE_FABRIC_H
#define ROCE_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/link.h"

/* Ports of one switch: per-packet work does not grow with them; memory
   does, by ports^2 x 8 bytes (each pair's byte count). */
#define ROCE_FABRIC_MAX_PORTS 1024u

struct roce_fabric_config {
	unsigned ports;                 /* hosts, one per switch port
					   (2..ROCE_FABRIC_MAX_PORTS) */
	uint32_t link_mbps;             /* every link's rate, both ways */
	uint32_t prop_ns;               /* one link's propagation delay */
	uint32_t buffer_bytes;          /* an output queue's limit (tail drop) */
	uint32_t kmin_bytes, kmax_bytes; /* RED marking of ECT packets */
	uint32_t pmax_ppm;              /* marking probability at Kmax (1e6 = 1) */
	bool pfc;                       /* lossless: pause instead of drop */
	uint32_t pfc_xoff_bytes;        /* an ingress port whose frames in the
					   switch's queues exceed this, or the
					   buffer's free space if that is less
					   (a dynamic threshold), is paused */
	uint32_t pfc_xon_bytes;         /* ... until they are down to this (or
					   its part of the lower XOFF); the
					   headroom, what is on the wire when
					   it stops, is not buffer_bytes' */
	uint32_t nic_queue_bytes;       /* a NIC's transmit queue */
	uint64_t seed;                  /* marking's random draws */
};

/* 100 Gbit/s, 1 us links, 1 MB queues, Kmin 100 KB, Kmax 400 KB, Pmax
   20 %, no PFC (xoff 256 KB, xon 128 KB when on), 64 KB NIC queues. */
void roce_fabric_config_default(struct roce_fabric_config *c, unsigned ports);
/* NULL, or the name of the first bad field. */
const char *roce_fabric_config_check(const struct roce_fabric_config *c);

struct roce_fabric;

int roce_fabric_create(const struct roce_fabric_config *c, struct roce_fabric **out);
void roce_fabric_destroy(struct roce_fabric *f);

/* The host side of switch port i, for a station with this MAC (frames to
   it are switched to port i); ROCE_E_INVAL out of range or a MAC twice. */
int roce_fabric_attach(struct roce_fabric *f, unsigned i, const uint8_t mac[6],
		       struct roce_port *out);

/* The virtual time (ns), and the same as a clock for engines and links. */
uint64_t roce_fabric_now(const struct roce_fabric *f);
uint64_t roce_fabric_clock(void *fabric);

/* Moves time to t (ns, not before now): frames serialised, switched,
   marked, dropped, paused and delivered in time order up to t. */
void roce_fabric_advance(struct roce_fabric *f, uint64_t t);

/* A tap on the switch: every frame as it arrives from port `in` (after
   the switch marked it CE, if it did), at virtual time t_ns; dropped when
   the output queue had no room. NULL fn: none. */
typedef void (*roce_fabric_tap_fn)(void *ctx, unsigned in, const uint8_t *frame,
				   uint32_t len, uint64_t t_ns, bool dropped);
void roce_fabric_set_tap(struct roce_fabric *f, roce_fabric_tap_fn fn, void *ctx);

struct roce_fabric_stats {
	/* the switch's output queue toward port i */
	uint64_t queue_bytes;           /* now */
	uint64_t queue_max_bytes;
	uint64_t tx_frames, tx_bytes;   /* sent to the host */
	uint64_t drops;                 /* tail drops */
	uint64_t marks;                 /* ECT packets marked CE */
	uint64_t unroutable;            /* frames from port i for no known MAC */
	/* port i's ingress */
	uint64_t pause_frames;          /* XOFFs sent to the host */
	bool paused;
};
void roce_fabric_stats(const struct roce_fabric *f, unsigned i, struct roce_fabric_stats *s);

/* Bytes of frames from port src that left the output queue toward port
   dst (whole frames): the flows' goodput at the bottleneck. */
uint64_t roce_fabric_bytes(const struct roce_fabric *f, unsigned dst, unsigned src);

#endif
