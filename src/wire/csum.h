/* SPDX-License-Identifier: MIT */
#ifndef ROCE_WIRE_CSUM_H
#define ROCE_WIRE_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* RFC 768 UDP checksum over the IPv4/IPv6 pseudo-header (l3 says which),
 * the UDP header (its checksum field skipped) and data; 0 maps to 0xFFFF. */
uint16_t roce_udp_csum(const uint8_t *l3, const uint8_t *udp, size_t udp_len);

#endif
