/* SPDX-License-Identifier: MIT */
/*
 * The in-memory link: a switch inside the process that connects any number
 * of engines through roce/link.h ports, with fault injection and optional
 * pcap capture. It needs no privileges and is the default link of tests,
 * the demo and the benchmarks.
 *
 * Switching: a frame goes to the port whose MAC is its destination;
 * broadcast and multicast go to every other port; a unicast frame to an
 * unknown MAC (or back to its sender) is dropped and counted as no_route.
 *
 * Each port has a receive ring of ring_frames slots of max_frame bytes.
 * tx_burst() copies each frame once, straight into the receiver's ring, as
 * a wire would; the receiver's rx_burst() lends the frames in place until
 * rx_release(). tx_burst() never blocks and always takes every frame (it
 * returns n): like a real NIC queue, a full receive ring drops the frame
 * and counts ring_full, and never overwrites a lent frame. Frames shorter
 * than an Ethernet header or longer than max_frame are dropped (bad_len).
 *
 * Threads: one thread per port (its tx_burst, rx_burst and rx_release),
 * any number of ports on any number of threads. A receive ring has many
 * producers (the other ports) and one consumer; producers reserve slots
 * with one compare-and-swap per burst and destination, so no lock is taken
 * on the data path.
 *
 * Faults, decided per frame copy (a broadcast frame's copies independently)
 * in this order, from a PRNG per sending port seeded from seed and the
 * port's attach index, so a single-threaded run is exactly reproducible:
 *   loss       the copy is dropped.
 *   corrupt    one random bit is flipped in the copy the receiver gets,
 *              never in the Ethernet header (a real wire's FCS drops those
 *              frames; what this models is damage past the FCS, e.g. in a
 *              switch buffer, which only the ICRC and IP/UDP checksums can
 *              catch). For an IP frame the bit lies inside the IP packet
 *              and outside the fields IBA A17.8 masks out of the ICRC with
 *              no other check (IPv6 traffic class, flow label, hop limit;
 *              BTH resv8a/FECN/BECN), so every corruption of a RoCE frame
 *              is detectable; Ethernet padding is never touched.
 *   duplicate  the copy is delivered twice (both identical, corruption
 *              included).
 *   reorder    the copy is held back and delivered right after the next
 *              frame the same sender delivers to the same receiver, or,
 *              when no such frame comes, once reorder_hold_ns have passed
 *              (the receiver's rx_burst collects it, so a held frame never
 *              sticks when traffic stops). At most one frame is held per
 *              sender->receiver pair and ROCE_MEMLINK_HOLD_SLOTS per
 *              sender; a frame that finds no hold slot goes out in order.
 * delay_ns is a constant one-way latency: a frame becomes visible to
 * rx_burst delay_ns after it was sent (or released from hold); order is
 * kept. Frames in flight occupy receive-ring slots.
 *
 * Capture: with pcap_path set, every frame handed to tx_burst with a valid
 * length is written, as sent (before routing and faults), with wall-clock
 * timestamps.
 */
#ifndef ROCE_MEMLINK_H
#define ROCE_MEMLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/link.h"

struct roce_memlink;

struct roce_memlink_config {
	uint64_t seed;          /* same seed + same frames = same faults */
	double loss;            /* probabilities, each in [0, 1] */
	double reorder;
	double duplicate;
	double corrupt;
	uint32_t delay_ns;      /* constant one-way latency */
	uint32_t reorder_hold_ns; /* longest hold; 0 = ROCE_MEMLINK_HOLD_NS */
	unsigned ring_frames;   /* per-port RX ring, power of two;
				 * 0 = ROCE_MEMLINK_RING_DEFAULT */
	unsigned max_frame;     /* slot size; 0 = ROCE_MAX_FRAME */
	const char *pcap_path;  /* NULL = no capture */
	bool lossless;          /* a full receive ring pauses its senders
				 * (tx_burst takes fewer frames, as PFC
				 * pauses a lossless RoCE fabric) instead
				 * of dropping; injected loss still drops */
	uint64_t (*now_ns)(void *ctx); /* clock for delay and hold;
					* NULL = CLOCK_MONOTONIC */
	void *clock_ctx;
};

struct roce_memlink_stats {
	uint64_t sent;          /* frames tx_burst or tx_put took */
	uint64_t delivered;     /* copies written into a receive ring */
	uint64_t lost;          /* copies dropped by the loss fault */
	uint64_t duplicated;    /* copies delivered twice */
	uint64_t reordered;     /* copies held back */
	uint64_t corrupted;     /* copies with a flipped bit */
	uint64_t no_route;      /* unicast to an unknown MAC or to the sender */
	uint64_t ring_full;     /* copies dropped: receive ring full */
	uint64_t bad_len;       /* frames too short or longer than max_frame */
	uint64_t paused;        /* lossless: bursts cut short by a full ring */
	uint64_t zero_copy;     /* frames built in the receiver's ring (tx_get) */
};

/*
 * Validate cfg and create a link without ports. ROCE_E_INVAL for a NULL
 * argument or a ring size that is not a power of two, ROCE_E_RANGE for a
 * probability outside [0, 1] (or NaN) or a size out of bounds
 * (ROCE_MEMLINK_RING_MIN..MAX frames, ROCE_MEMLINK_MIN_FRAME..
 * ROCE_MEMLINK_MAX_FRAME bytes), ROCE_E_IO when the capture file cannot be
 * created, ROCE_E_NOMEM.
 */
int roce_memlink_create(const struct roce_memlink_config *cfg,
			struct roce_memlink **out);

/*
 * A new switch port with station address mac; *out is the engine's port,
 * valid until roce_memlink_destroy(). Safe while traffic flows.
 * ROCE_E_INVAL for a NULL argument or a multicast/broadcast MAC,
 * ROCE_E_EXISTS when another port has this MAC, ROCE_E_FULL beyond
 * ROCE_MEMLINK_MAX_PORTS, ROCE_E_NOMEM.
 */
int roce_memlink_attach(struct roce_memlink *l, const uint8_t mac[6],
			struct roce_port *out);

/* Frees the link, its ports and their rings, and closes the capture. No
 * port may be in use. NULL is ignored. */
void roce_memlink_destroy(struct roce_memlink *l);

/* Totals over all ports; each counter is exact once traffic has stopped. */
void roce_memlink_get_stats(const struct roce_memlink *l,
			    struct roce_memlink_stats *st);

/* Change the fault probabilities at run time, from any thread (e.g. loss
 * 1.0 makes the peer vanish). ROCE_E_RANGE (and nothing changes) when one
 * is outside [0, 1]. */
int roce_memlink_set_faults(struct roce_memlink *l, double loss,
			    double reorder, double duplicate, double corrupt);

/* Write buffered capture records to the file (a no-op without capture). */
int roce_memlink_flush_capture(struct roce_memlink *l);

#endif
