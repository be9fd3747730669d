/* SPDX-License-Identifier: MIT */
/*
 * The classic BPF program attached to the port's receive socket: it keeps
 * what the engine and the port need and drops the rest in the kernel,
 * before it costs a ring slot or a copy.
 */
#ifndef ROCE_LINK_AFPACKET_FILTER_H
#define ROCE_LINK_AFPACKET_FILTER_H

#include <stdint.h>
#include <linux/filter.h>

#define AFP_FILTER_MAX 40       /* instructions */

/*
 * Accept (the whole frame):
 *   - ARP, to anyone (requests are broadcast);
 *   - IPv6 neighbour solicitations and advertisements (ICMPv6 135, 136)
 *     right after the fixed header, to anyone (solicitations go to
 *     solicited-node groups);
 *   - frames to mac that carry IPv4 (not a non-first fragment) or IPv6,
 *     UDP, destination port udp_port;
 * never a frame the host itself sends (packet type OUTGOING), never one
 * that carried a VLAN tag (it is for the VLAN's interface). Returns the
 * number of instructions written to prog (at most AFP_FILTER_MAX).
 */
unsigned afp_filter_build(struct sock_filter *prog, const uint8_t mac[6],
			  uint16_t udp_port);

/* A program that drops everything (the UDP socket that holds the port). */
unsigned afp_filter_drop_all(struct sock_filter *prog);

#endif
