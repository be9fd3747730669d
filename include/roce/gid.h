/* SPDX-License-Identifier: MIT */
/*
 * GIDs and the port's GID table. A RoCE v2 GID is the port's IP address as
 * an IPv6 address (IBA Annex A17, RoCE v2): an IPv4 address as
 * ::ffff:a.b.c.d, an IPv6 address as itself. The table is built the way Linux builds it for
 * rxe and mlx5 (drivers/infiniband/core/roce_gid_mgmt.c) from the
 * interface's addresses:
 *
 *   0      the default GID: fe80::/64 and the modified EUI-64 of the MAC
 *          (make_default_gid, RFC 4291 appendix A), whether or not the
 *          interface carries that link-local address
 *   1      the IPv4 address, IPv4-mapped (when the port has one)
 *   2 ...  the interface's other IPv6 addresses, in the order given
 *
 * every entry of type RoCE v2 (rxe's only type; a ConnectX port lists each
 * address twice, RoCE v1 and v2). The verbs context holds the table
 * (roce_query_gid); the engine gets it too, to send from a QP's SGID and
 * to accept frames to its addresses.
 */
#ifndef ROCE_GID_H
#define ROCE_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/params.h"

#define ROCE_GID_LEN 16

/* ibverbs' enum ibv_gid_type values */
enum roce_gid_type {
	ROCE_GID_TYPE_IB = 0,
	ROCE_GID_TYPE_ROCE_V1 = 1,
	ROCE_GID_TYPE_ROCE_V2 = 2,
};

struct roce_gid_entry {
	uint8_t gid[ROCE_GID_LEN];
	uint8_t type;                   /* enum roce_gid_type */
};

struct roce_gid_table {
	struct roce_gid_entry e[ROCE_MAX_GID];
	unsigned n;                     /* entries 0..n-1 are valid */
};

/* fe80::/64 + the modified EUI-64 of mac: the MAC's first three bytes
 * with the universal/local bit inverted, ff:fe, its last three. */
void roce_gid_link_local(const uint8_t mac[6], uint8_t gid[ROCE_GID_LEN]);
/* ::ffff:a.b.c.d, the RoCE v2 GID of an IPv4 address (host order). */
void roce_gid_from_ipv4(uint32_t ip, uint8_t gid[ROCE_GID_LEN]);
/* The IPv4 address of an IPv4-mapped GID, 0 otherwise. */
uint32_t roce_gid_to_ipv4(const uint8_t gid[ROCE_GID_LEN]);
/* Whether the GID is ::ffff:0:0/96 (an IPv4 address). */
bool roce_gid_is_v4mapped(const uint8_t gid[ROCE_GID_LEN]);
/* Whether the GID may be a unicast RoCE v2 address: not ::, not
 * multicast (ff00::/8), not the loopback ::1. */
bool roce_gid_is_unicast(const uint8_t gid[ROCE_GID_LEN]);

/*
 * Build the table of a port with station address mac, IPv4 address ip (0
 * = none) and n6 IPv6 addresses ip6 (may be NULL when 0). An IPv6 address
 * equal to an entry already there is skipped (the interface's own
 * link-local address is usually the default GID), as ib_cache_gid_add
 * skips a GID it holds. ROCE_OK; ROCE_E_INVAL for an IPv6 address that
 * cannot be a GID (not unicast, or IPv4-mapped); ROCE_E_FULL for more
 * entries than ROCE_MAX_GID. On failure the table is left empty.
 */
int roce_gid_table_build(struct roce_gid_table *t, const uint8_t mac[6], uint32_t ip,
			 const uint8_t (*ip6)[ROCE_GID_LEN], unsigned n6);

/* The index of gid in the table, or -1. */
int roce_gid_table_find(const struct roce_gid_table *t, const uint8_t gid[ROCE_GID_LEN]);

/* "fe80::5054:ff:fe5b:b" (INET6_ADDRSTRLEN bytes are enough); an IPv4-
 * mapped GID reads "::ffff:10.0.0.1", as Linux prints it. */
const char *roce_gid_str(const uint8_t gid[ROCE_GID_LEN], char *buf, size_t n);
/* An IPv6 address in text (any form inet_pton takes) into gid: ROCE_OK or
 * ROCE_E_FORMAT. */
int roce_gid_parse(const char *s, uint8_t gid[ROCE_GID_LEN]);

#endif
