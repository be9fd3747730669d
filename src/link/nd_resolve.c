/* SPDX-License-Identifier: MIT */
/*
 * IPv6 neighbour resolution for the tools: a peer's IPv6 address -> its
 * MAC, to fill a QP's address vector, as afpacket_resolve.c does it for
 * IPv4. The kernel's neighbour table first (over netlink: SIOCGARP knows
 * IPv4 only); else a neighbour solicitation on the wire from our own
 * socket, so the port's thread keeps running the data path meanwhile.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "link/afpacket_priv.h"
#include "link/nd.h"
#include "roce/gid.h"
#include "roce/status.h"

/* ---- the kernel's table --------------------------------------------------- */

/* The states whose link-layer address may be used (RFC 4861 7.3.2: a
 * stale entry is used while it is being confirmed). */
#define NUD_USABLE (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | \
		    NUD_PERMANENT | NUD_NOARP)

/* One RTM_NEWNEIGH: true with the MAC when it is addr on ifindex. */
static bool neigh_match(const struct nlmsghdr *h, int ifindex, const uint8_t addr[16],
			uint8_t mac[6])
{
	const struct ndmsg *nd = NLMSG_DATA(h);
	const struct rtattr *a = (const struct rtattr *)((const char *)nd +
							 NLMSG_ALIGN(sizeof(*nd)));
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*nd));
	bool dst_ok = false, have_mac = false;

	if (h->nlmsg_type != RTM_NEWNEIGH || len < 0 || nd->ndm_family != AF_INET6 ||
	    nd->ndm_ifindex != ifindex || !(nd->ndm_state & NUD_USABLE))
		return false;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == 16)
			dst_ok = memcmp(RTA_DATA(a), addr, 16) == 0;
		else if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6) {
			memcpy(mac, RTA_DATA(a), 6);
			have_mac = true;
		}
	}
	return dst_ok && have_mac;
}

int roce_neigh6_lookup(const char *ifname, const uint8_t addr[16], uint8_t mac[6])
{
	struct {
		struct nlmsghdr h;
		struct ndmsg nd;
	} req = {
		.h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
		       .nlmsg_type = RTM_GETNEIGH,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.nd = { .ndm_family = AF_INET6 },
	};
	char buf[8192] __attribute__((aligned(4)));
	int ifindex, fd, st = ROCE_E_NOENT;
	bool done = false;

	if (!ifname || !addr || !mac || !roce_gid_is_unicast(addr))
		return ROCE_E_INVAL;
	ifindex = (int)if_nametoindex(ifname);
	if (!ifindex)
		return ROCE_E_NOENT;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return ROCE_E_IO;
	req.nd.ndm_ifindex = ifindex;
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0) {
		close(fd);
		return ROCE_E_IO;
	}
	/* the dump, to its end (a match does not end the read: the rest of
	 * the reply must not be left for nobody) */
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		unsigned left = n > 0 ? (unsigned)n : 0;

		if (n <= 0) {
			st = ROCE_E_IO;
			break;
		}
		for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			if (st != ROCE_OK && neigh_match(h, ifindex, addr, mac))
				st = ROCE_OK;
		}
	}
	close(fd);
	return st;
}

/* ---- on the wire ------------------------------------------------------------ */

struct idle {
	unsigned (*fn)(void *arg);
	void *arg;
};

/* Wait up to ms for an advertisement of addr; true with its MAC (the
 * target link-layer option, else the frame's source). With an idle hook,
 * in slices of a millisecond, the hook run after each. */
static bool wait_advert(int fd, const uint8_t addr[16], int ms, uint8_t mac[6],
			const struct idle *idle)
{
	uint64_t end = roce_now_ms() + (uint64_t)ms;

	for (;;) {
		uint8_t buf[512];
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = roce_now_ms();
		struct roce_nd nd;
		ssize_t n;
		int r;

		if (now >= end)
			return false;
		r = poll(&p, 1, idle->fn ? 1 : (int)(end - now));
		if (idle->fn)
			idle->fn(idle->arg);
		if (r < 0 || (r == 0 && !idle->fn))
			return false;
		if (r == 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			continue;
		if (roce_nd_parse(buf, (size_t)n, &nd) != ROCE_OK || nd.type != ROCE_ND_NA ||
		    memcmp(nd.target, addr, 16) != 0)
			continue;
		memcpy(mac, nd.has_lla ? nd.lla : nd.eth_src, 6);
		if (!(mac[0] & 1))
			return true;
	}
}

int roce_nd_resolve(const char *ifname, const uint8_t our_mac[6], const uint8_t src[16],
		    const uint8_t addr[16], unsigned timeout_ms, uint8_t mac[6],
		    unsigned (*idle_fn)(void *arg), void *arg)
{
	const struct idle idle = { idle_fn, arg };
	uint8_t ns[ROCE_ND_FRAME_LEN];
	uint64_t end;
	int ifindex, fd = -1, st;

	if (!ifname || !our_mac || !src || !addr || !mac || !roce_gid_is_unicast(addr) ||
	    roce_gid_is_v4mapped(addr) || !memcmp(src, addr, 16))
		return ROCE_E_INVAL;
	ifindex = (int)if_nametoindex(ifname);
	if (!ifindex)
		return ROCE_E_NOENT;
	st = netdev_proto_socket(ifindex, ETH_P_IPV6, &fd);
	if (st)
		return st;
	roce_nd_build_ns(ns, our_mac, src, addr);
	st = ROCE_E_TIMEOUT;
	end = roce_now_ms() + timeout_ms;
	do {
		uint64_t left = end - roce_now_ms();
		int wait = left < ROCE_ARP_RETRY_MS ? (int)left : (int)ROCE_ARP_RETRY_MS;

		if (send(fd, ns, sizeof(ns), 0) < 0) {
			st = netdev_errno_status(errno);
			break;
		}
		if (wait_advert(fd, addr, wait, mac, &idle)) {
			st = ROCE_OK;
			break;
		}
	} while (roce_now_ms() < end);
	close(fd);
	return st;
}

int roce_afpacket_resolve6(struct roce_afpacket *afp, const uint8_t addr[16],
			   unsigned timeout_ms, uint8_t mac[6],
			   unsigned (*idle)(void *arg), void *arg)
{
	const uint8_t *src = NULL;

	if (!afp || !addr || !mac || !roce_gid_is_unicast(addr))
		return ROCE_E_INVAL;
	if (roce_neigh6_lookup(afp->ifname, addr, mac) == ROCE_OK)
		return ROCE_OK;
	/* ask from our link-local address, as Linux does */
	for (unsigned i = 0; i < afp->n_ip6 && !src; i++)
		if (afp->ip6[i][0] == 0xfe && (afp->ip6[i][1] & 0xc0) == 0x80)
			src = afp->ip6[i];
	if (!src && afp->n_ip6)
		src = afp->ip6[0];
	if (!src)
		return ROCE_E_INVAL;
	return roce_nd_resolve(afp->ifname, afp->port.mac, src, addr, timeout_ms, mac,
			       idle, arg);
}
