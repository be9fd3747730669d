/* SPDX-License-Identifier: MIT */
/*
 * Address handles (ibv_create_ah): where a UD message goes. An AH is a
 * host object: its address vector is checked once here and copied into
 * every UD send WQE that names it (qp.c), so the engine finds the
 * destination in the descriptor it fetches, as a ConnectX reads the AV
 * from the WQE's datagram segment, and no table entry on the device is
 * spent per AH. The AH may go once its WRs are posted.
 */
#include <stdlib.h>
#include <string.h>

#include "verbs/verbs_priv.h"
#include "roce/status.h"

static bool mac_unicast(const uint8_t mac[6])
{
	static const uint8_t zero[6];

	return !(mac[0] & 1u) && memcmp(mac, zero, 6) != 0;
}

int roce_create_ah_status(struct roce_pd *pd, const struct roce_ah_attr *attr,
			  struct roce_ah **out)
{
	struct roce_ah *ah;

	if (!out)
		return ROCE_E_INVAL;
	*out = NULL;
	if (!pd || !attr || !mac_unicast(attr->dest_mac) ||
	    av_check(pd->ctx, attr) != ROCE_OK ||
	    (!attr->is_global && attr->dest_ip == 0))
		return ROCE_E_INVAL;
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return ROCE_E_NOMEM;
	ah->pd = pd;
	memcpy(ah->av.mac, attr->dest_mac, 6);
	if (attr->is_global) {
		memcpy(ah->av.dgid, attr->grh.dgid, ROCE_GID_LEN);
		ah->av.sgid_index = attr->grh.sgid_index;
		ah->av.tclass = attr->grh.traffic_class;
		ah->av.flow_label = attr->grh.flow_label;
	} else {
		/* RoCE v2 over IPv4: the IPv4-mapped GID of dest_ip */
		roce_gid_from_ipv4(attr->dest_ip, ah->av.dgid);
	}
	/* the hop limit is the route's (64), as for a QP's AV (qp.c) */
	*out = ah;
	return ROCE_OK;
}

struct roce_ah *roce_create_ah(struct roce_pd *pd, const struct roce_ah_attr *attr)
{
	struct roce_ah *ah;

	return roce_create_ah_status(pd, attr, &ah) == ROCE_OK ? ah : NULL;
}

int roce_destroy_ah(struct roce_ah *ah)
{
	if (!ah)
		return ROCE_E_INVAL;
	free(ah);
	return ROCE_OK;
}
