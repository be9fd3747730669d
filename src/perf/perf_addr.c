/* SPDX-License-Identifier: MIT */
/*
 * The endpoint's addresses: its GIDs, and the peer's MAC for a QP's
 * address vector (ARP for an IPv4 peer, neighbour discovery for an IPv6
 * GID, as the link resolves them: roce/link_open.h), with the tools'
 * words when they fail.
 */
#include "perf/perf_ep.h"
#include "perf/perf_ep_priv.h"
#include "roce/gid.h"
#include "roce/status.h"

int perf_ep_gid(struct perf_ep *ep, int index, uint8_t gid[16])
{
	int st = roce_query_gid(ep->ctx, 1, index, gid);

	if (st)
		return perf_ep_fail(ep, st, "can't read sgid of index %d (the port has "
			       "GIDs 0..%u: 0 link-local, 1 IPv4, then IPv6)", index,
			       roce_context_gids(ep->ctx)->n - 1);
	return ROCE_OK;
}

/* The AF_XDP port leaves neighbour discovery to the kernel: an IPv6 GID
 * of ours must be on the interface. */
int perf_ep_xdp_gid(struct perf_ep *ep, unsigned sgid_index)
{
	uint8_t g[16];
	char a[64];
	int st;

	if ((st = perf_ep_gid(ep, (int)sgid_index, g)) != ROCE_OK)
		return st;
	if (!roce_gid_is_v4mapped(g) &&
	    !roce_netdev_has_ipv6(roce_link_info(ep->link)->ifname, g))
		return perf_ep_fail(ep, ROCE_E_INVAL, "--link xdp: %s must carry our "
				    "GID %s: the kernel answers neighbour discovery "
				    "for it", roce_link_info(ep->link)->ifname,
				    roce_gid_str(g, a, sizeof(a)));
	return ROCE_OK;
}

/* The peer's MAC for an IPv6 GID: neighbour discovery as the link does
 * it (roce_link_resolve6). The engine keeps running meanwhile: our port
 * answers the peer, which may be resolving us at this very moment. */
int perf_ep_resolve6(struct perf_ep *ep, const uint8_t gid[16], uint8_t mac[6])
{
	const struct roce_link_info *li = roce_link_info(ep->link);
	int st = roce_link_resolve6(ep->link, gid, ep->timeout_ms, mac,
				    perf_ep_progress, ep);
	char a[64];

	roce_gid_str(gid, a, sizeof(a));
	if (st && li->kind == ROCE_LINK_MEMLINK)
		return perf_ep_fail(ep, st, "the in-memory link resolves link-local "
				    "GIDs only, not %s", a);
	if (st)
		return perf_ep_fail(ep, st, "no neighbour advertisement from %s on %s: %s",
				    a, li->ifname, roce_status_str(st));
	return ROCE_OK;
}

/* The peer's MAC for an IPv4 address: ARP as the link does it (the
 * in-memory link makes it from the address). */
int perf_ep_resolve(struct perf_ep *ep, uint32_t ip, uint8_t mac[6])
{
	int st = roce_link_resolve(ep->link, ip, ep->timeout_ms, mac);

	if (st)
		return perf_ep_fail(ep, st, "no ARP answer from %u.%u.%u.%u on %s: %s",
				    ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255,
				    roce_link_info(ep->link)->ifname, roce_status_str(st));
	return ROCE_OK;
}
