/* SPDX-License-Identifier: MIT */
/*
 * The station's addresses on the data path. IPv4 is one address (IP_ADDR,
 * engine_config.ip); IPv6 is every IPv6 GID of the port's table (roce/gid.h:
 * the link-local GID made from the MAC and the interface's other IPv6
 * addresses). A frame is ours when its destination is one of them; a QP
 * whose peer is IPv6 sends from the GID its SGID_INDEX names, as a NIC
 * looks the source up in its GID table by the QP context's index.
 */
#include <string.h>

#include "engine/addr.h"

void addr_init(struct roce_engine *e, const struct roce_gid_table *gids)
{
	e->gids = *gids;
	e->n_ip6 = 0;
	for (unsigned i = 0; i < gids->n; i++)
		if (!roce_gid_is_v4mapped(gids->e[i].gid))
			memcpy(e->ip6[e->n_ip6++], gids->e[i].gid, ROCE_GID_LEN);
}

bool addr_ip6_ours(const struct roce_engine *e, const uint8_t addr[ROCE_GID_LEN])
{
	/* a handful of addresses: the hardware's CAM, in a loop */
	for (unsigned i = 0; i < e->n_ip6; i++)
		if (memcmp(e->ip6[i], addr, ROCE_GID_LEN) == 0)
			return true;
	return false;
}

const uint8_t *addr_sgid6(const struct roce_engine *e, unsigned sgid_index)
{
	static const uint8_t none[ROCE_GID_LEN];

	if (sgid_index < e->gids.n && !roce_gid_is_v4mapped(e->gids.e[sgid_index].gid))
		return e->gids.e[sgid_index].gid;
	/* entry 0 is the link-local GID of any table roce_gid_table_build
	 * made; an engine given no table has no IPv6 address at all */
	return e->gids.n ? e->gids.e[0].gid : none;
}
