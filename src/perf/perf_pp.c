/* SPDX-License-Identifier: MIT */
/*
 * The pingpong examples' GID: -g, --ip6, our GID, the route to the
 * peer's (perf_pp.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_pp.h"
#include "roce/gid.h"
#include "roce/status.h"

int perf_pp_gid_opt(struct perf_pp_gid *g, const char *val)
{
	char *end;
	unsigned long v = strtoul(val, &end, 0);

	if (end == val || *end || *val == '-' || v >= ROCE_MAX_GID)
		return ROCE_E_INVAL;
	g->gidx = (int)v;
	return ROCE_OK;
}

int perf_pp_ip6_opt(struct perf_pp_gid *g, const char *val)
{
	uint8_t a[16];

	if (g->n_ip6 == ROCE_MAX_IP6)
		return ROCE_E_FULL;
	if (roce_gid_parse(val, a) != ROCE_OK || !roce_gid_is_unicast(a) ||
	    roce_gid_is_v4mapped(a))
		return ROCE_E_INVAL;
	memcpy(g->ip6[g->n_ip6++], a, 16);
	return ROCE_OK;
}

void perf_pp_gid_config(const struct perf_pp_gid *g, struct perf_ep_config *c)
{
	memcpy(c->ip6, g->ip6, sizeof(c->ip6));
	c->n_ip6 = g->n_ip6;
}

int perf_pp_my_gid(const struct perf_pp_gid *g, struct perf_ep *ep, uint8_t gid[16])
{
	if (g->gidx < 0) {
		roce_gid_from_ipv4(ep->ip, gid);
		return ROCE_OK;
	}
	return perf_ep_gid(ep, g->gidx, gid);
}

int perf_pp_route(const struct perf_pp_gid *g, const uint8_t mine[16], const uint8_t rem[16],
		  uint32_t tcp_ip, struct perf_conn *c, char *err, size_t errlen)
{
	static const uint8_t zero[16];
	uint32_t ip = roce_gid_to_ipv4(rem);
	bool v6 = !ip && memcmp(rem, zero, 16) != 0;

	c->peer_ip = ip ? ip : tcp_ip;
	c->grh = false;
	/* pp_connect_ctx: a GRH when the peer sent a GID, from our GID -g;
	 * a peer without one (all zero) is reached over IPv4 */
	if (v6 && g->gidx < 0) {
		snprintf(err, errlen, "the peer's GID is IPv6: give -g with one of our "
			 "IPv6 GIDs (0 is the link-local one)");
		return ROCE_E_UNSUPPORTED;
	}
	if (g->gidx >= 0 && (v6 || ip) && roce_gid_is_v4mapped(mine) == v6) {
		/* one GRH cannot go from an IPv6 GID to an IPv4 one or back
		 * (perftest: "Found Incompatibility issue with GID types") */
		char a[64], b[64];

		snprintf(err, errlen, "our GID %s and the peer's %s are not both IPv4 "
			 "or both IPv6: give both sides -g of one kind",
			 roce_gid_str(mine, a, sizeof(a)), roce_gid_str(rem, b, sizeof(b)));
		return ROCE_E_UNSUPPORTED;
	}
	if (g->gidx >= 0 && (v6 || ip)) {
		c->grh = true;
		c->sgid_index = (uint8_t)g->gidx;
		memcpy(c->dgid, rem, 16);
	} else if (g->gidx >= 0 && !roce_gid_is_v4mapped(mine)) {
		snprintf(err, errlen, "our GID is IPv6 but the peer sent none: give it -g too");
		return ROCE_E_UNSUPPORTED;
	}
	return ROCE_OK;
}
