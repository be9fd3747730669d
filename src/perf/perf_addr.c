/* SPDX-License-Identifier: MIT */
/*
 * The endpoint's addresses: the interface's (IPv4, MAC, IPv6), the GID
 * table the context gets from them, and the peer's MAC for a QP's address
 * vector (ARP for an IPv4 peer, neighbour discovery for an IPv6 GID; the
 * in-memory link's MACs are made from the addresses instead).
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "perf/perf_ep.h"
#include "perf/perf_ep_priv.h"
#include "roce/gid.h"
#include "roce/status.h"
#ifdef ROCE_HAVE_AFPACKET
#include "roce/afpacket.h"
#endif

uint32_t perf_netdev_ip(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t ip = 0;

	if (fd < 0 || strlen(ifname) >= sizeof(ifr.ifr_name)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	ifr.ifr_addr.sa_family = AF_INET;
	if (ioctl(fd, SIOCGIFADDR, &ifr) == 0)
		ip = ntohl(((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr);
	close(fd);
	return ip;
}

/* The interface's MAC (the station address its port will have). */
bool perf_netdev_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0 || strlen(ifname) >= sizeof(ifr.ifr_name)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	ok = ioctl(fd, SIOCGIFHWADDR, &ifr) == 0;
	if (ok)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return ok;
}

/* The IPv6 addresses of the GID table beyond the link-local one: the
 * interface's (as the kernel adds them for rxe), then --ip6's. */
int perf_ep_collect_ip6(struct perf_ep *ep, const struct perf_ep_config *c)
{
#ifdef ROCE_HAVE_AFPACKET
	if (c->netdev)
		ep->n_ip6 = roce_netdev_ipv6_addrs(c->netdev, ep->ip6, ROCE_MAX_IP6);
#endif
	for (unsigned i = 0; i < c->n_ip6; i++) {
		if (ep->n_ip6 == ROCE_MAX_IP6)
			return perf_ep_fail(ep, ROCE_E_FULL, "more than %u IPv6 addresses "
				       "(the GID table holds %u)", ROCE_MAX_IP6,
				       ROCE_MAX_GID);
		memcpy(ep->ip6[ep->n_ip6++], c->ip6[i], 16);
	}
	return ROCE_OK;
}

/* The port's IPv6 addresses: the link-local GID of mac, then ep's. */
unsigned perf_ep_port_ip6(const struct perf_ep *ep, const uint8_t mac[6],
			 uint8_t (*out)[16])
{
	roce_gid_link_local(mac, out[0]);
	memcpy(out + 1, ep->ip6, ep->n_ip6 * 16u);
	return ep->n_ip6 + 1;
}

int perf_ep_gid(struct perf_ep *ep, int index, uint8_t gid[16])
{
	int st = roce_query_gid(ep->ctx, 1, index, gid);

	if (st)
		return perf_ep_fail(ep, st, "can't read sgid of index %d (the port has "
			       "GIDs 0..%u: 0 link-local, 1 IPv4, then IPv6)", index,
			       roce_context_gids(ep->ctx)->n - 1);
	return ROCE_OK;
}

/* In the self-test the MAC is derived from the IP, so no ARP is needed. */
void perf_memlink_mac(uint32_t ip, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x00;
	mac[2] = (uint8_t)(ip >> 24);
	mac[3] = (uint8_t)(ip >> 16);
	mac[4] = (uint8_t)(ip >> 8);
	mac[5] = (uint8_t)ip;
}

/* The AF_XDP port leaves neighbour discovery to the kernel: an IPv6 GID
 * of ours must be on the interface. */
int perf_ep_xdp_gid(struct perf_ep *ep, unsigned sgid_index)
{
#ifdef ROCE_HAVE_AFPACKET
	uint8_t g[16];
	char a[64];
	int st;

	if ((st = perf_ep_gid(ep, (int)sgid_index, g)) != ROCE_OK)
		return st;
	if (!roce_gid_is_v4mapped(g) && !roce_netdev_has_ipv6(ep->netdev, g))
		return perf_ep_fail(ep, ROCE_E_INVAL, "--link xdp: %s must carry our "
				    "GID %s: the kernel answers neighbour discovery "
				    "for it", ep->netdev, roce_gid_str(g, a, sizeof(a)));
#else
	(void)ep;
	(void)sgid_index;
#endif
	return ROCE_OK;
}

/* The peer's MAC for an IPv6 GID: the kernel's neighbour table, else a
 * solicitation (the AF_PACKET port's own, or from our link-local GID for
 * the AF_XDP port, whose interface carries it). */
int perf_ep_resolve6(struct perf_ep *ep, const uint8_t gid[16], uint8_t mac[6])
{
	char a[64];
#ifdef ROCE_HAVE_AFPACKET
	uint8_t ll[16];
	int st;
#endif

	if (ep->memlink) {
		/* no neighbour discovery on the in-memory link: a link-local
		 * GID carries its MAC (rdma_get_ll_mac undoes the EUI-64) */
		if (gid[0] != 0xfe || (gid[1] & 0xc0) != 0x80)
			return perf_ep_fail(ep, ROCE_E_UNSUPPORTED, "the in-memory link "
				       "resolves link-local GIDs only, not %s",
				       roce_gid_str(gid, a, sizeof(a)));
		mac[0] = gid[8] ^ 0x02;
		mac[1] = gid[9];
		mac[2] = gid[10];
		mac[3] = gid[13];
		mac[4] = gid[14];
		mac[5] = gid[15];
		return ROCE_OK;
	}
#ifdef ROCE_HAVE_AFPACKET
	if (ep->afx) {
		roce_gid_link_local(ep->mac, ll);
		st = roce_neigh6_lookup(ep->netdev, gid, mac) == ROCE_OK ? ROCE_OK :
		     roce_nd_resolve(ep->netdev, ep->mac, ll, gid, ep->timeout_ms, mac,
				     NULL, NULL);
	} else {
		/* the engine keeps running meanwhile: our port answers the
		 * peer, which may be resolving us at this very moment */
		st = roce_afpacket_resolve6(ep->afp, gid, ep->timeout_ms, mac,
					    perf_ep_progress, ep);
	}
	if (st)
		perf_ep_fail(ep, st, "no neighbour advertisement from %s on %s: %s",
			roce_gid_str(gid, a, sizeof(a)), ep->netdev, roce_status_str(st));
	return st;
#else
	return perf_ep_fail(ep, ROCE_E_UNSUPPORTED, "no AF_PACKET link");
#endif
}

int perf_ep_resolve(struct perf_ep *ep, uint32_t ip, uint8_t mac[6])
{
	if (ep->memlink) {
		perf_memlink_mac(ip, mac);
		return ROCE_OK;
	}
#ifdef ROCE_HAVE_AFPACKET
	{
		int st = ep->afx ?
			(roce_neigh_lookup(ep->netdev, ip, mac) == ROCE_OK ? ROCE_OK :
			 roce_arp_resolve(ep->netdev, ep->mac, ep->ip, ip,
					  ep->timeout_ms, mac)) :
			roce_afpacket_resolve(ep->afp, ip, ep->timeout_ms, mac);

		if (st)
			perf_ep_fail(ep, st, "no ARP answer from %u.%u.%u.%u on %s: %s",
				ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255,
				ep->netdev, roce_status_str(st));
		return st;
	}
#else
	return perf_ep_fail(ep, ROCE_E_UNSUPPORTED, "no AF_PACKET link");
#endif
}
