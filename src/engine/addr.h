/* SPDX-License-Identifier: MIT */
/*
 * addr.c: the station's IPv6 addresses (the GID table's).
 */
#ifndef ROCE_ENGINE_ADDR_H
#define ROCE_ENGINE_ADDR_H

#include "engine/state.h"

void addr_init(struct roce_engine *e, const struct roce_gid_table *gids);
/* Whether a frame to addr is for this port (one of its IPv6 GIDs). */
bool addr_ip6_ours(const struct roce_engine *e, const uint8_t addr[ROCE_GID_LEN]);
/* The address an IPv6 QP sends from: GID sgid_index when that is an IPv6
 * one, else the link-local GID (entry 0). */
const uint8_t *addr_sgid6(const struct roce_engine *e, unsigned sgid_index);

#endif
