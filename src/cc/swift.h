/* SPDX-License-Identifier: MIT */
/*
 * Swift (Kumar et al., "Swift: Delay is Simple and Effective for
 * Congestion Control in the Datacenter", SIGCOMM 2020), one QP's
 * congestion window from the round trips its ACKs measure: Algorithm 1's
 * additive increase and multiplicative decrease against a target delay
 * that grows with the hops on the path and as the window shrinks (section
 * 3.5's flow scaling), and pacing when the window is below one packet.
 *
 * Pure arithmetic on integers, as DCQCN's (dcqcn.h): the caller gives the
 * time and the samples; the same inputs give the same window anywhere.
 * Units: windows in millionths of a packet (SWIFT_UPKT is one packet;
 * the knobs are thousandths), times in ns.
 */
#ifndef ROCE_CC_SWIFT_H
#define ROCE_CC_SWIFT_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/cc.h"

#define SWIFT_UPKT 1000000u     /* one packet, in the window's unit */

/* One QP's state. */
struct swift_qp {
	uint64_t cwnd;                  /* millionths of a packet */
	uint64_t rtt;                   /* the last delay sample, ns (0: none) */
	uint64_t target;                /* the target it was compared with */
	uint64_t t_last_decrease;       /* ns */
	uint64_t rtt0;                  /* the round trip pacing assumes before
					   a sample: base_target */
	uint64_t line_kbps;
	uint64_t cuts, increases;
	uint32_t mtu;                   /* bytes: what a packet of the window is */
	uint32_t retransmit_cnt;        /* timeouts in a row */
};

void swift_params_default(struct roce_swift_params *p);
/* NULL if p is valid, else the name of the first bad knob. */
const char *swift_params_check(const struct roce_swift_params *p);

void swift_init(struct swift_qp *s, const struct roce_swift_params *p, uint64_t line_kbps,
		uint32_t mtu);
/* Section 3.5: base_target + hops * h + the flow scaling of a window of
   cwnd; hops 0: none seen, the hops knob's. */
uint64_t swift_target(const struct roce_swift_params *p, uint64_t cwnd, unsigned hops);
/* An ACK of acked packets with a delay sample (ns) at now. */
void swift_ack(struct swift_qp *s, const struct roce_swift_params *p, uint64_t now,
	       uint64_t delay, uint32_t acked, unsigned hops);
/* The retransmission timer fired at now. */
void swift_timeout(struct swift_qp *s, const struct roce_swift_params *p, uint64_t now);
/* What the window allows: below one packet a rate (cwnd * mtu / rtt,
   kbit/s, at least 1) and one packet in flight; else floor(cwnd) packets
   at line rate. */
bool swift_paced(const struct swift_qp *s);
uint64_t swift_rate_kbps(const struct swift_qp *s);
uint32_t swift_window(const struct swift_qp *s);

#endif
