/* SPDX-License-Identifier: MIT */
/*
 * The raw-Ethernet port's IPv6: for each of its addresses, either the
 * kernel carries it on the interface (it then answers neighbour discovery
 * for it, and would answer our RoCE frames to it with "ICMPv6 port
 * unreachable": the port holds [addr]:<udp_port> with a UDP socket, as it
 * holds its IPv4 address), or it does not (with answer_nd the port
 * answers solicitations for it, and joins its solicited-node group so
 * that a NIC that filters multicast lets them in).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "link/afpacket_filter.h"
#include "link/afpacket_priv.h"
#include "roce/gid.h"
#include "roce/status.h"

/* "eth0" and its labelled addresses "eth0:1" */
static bool same_if(const char *label, const char *ifname)
{
	size_t n = strlen(ifname);

	return !strncmp(label, ifname, n) && (label[n] == '\0' || label[n] == ':');
}

/* Calls fn for every IPv6 address of ifname until it returns true. */
static bool each_ipv6(const char *ifname, bool (*fn)(const uint8_t a[16], void *arg),
		      void *arg)
{
	struct ifaddrs *all, *i;
	bool stop = false;

	if (!ifname || getifaddrs(&all) < 0)
		return false;
	for (i = all; i && !stop; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET6 &&
		    same_if(i->ifa_name, ifname))
			stop = fn(((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr.s6_addr, arg);
	freeifaddrs(all);
	return stop;
}

static bool is_addr(const uint8_t a[16], void *arg)
{
	return memcmp(a, arg, 16) == 0;
}

bool roce_netdev_has_ipv6(const char *ifname, const uint8_t addr[16])
{
	return each_ipv6(ifname, is_addr, (void *)(uintptr_t)addr);
}

struct collect {
	uint8_t (*addrs)[16];
	unsigned n, max;
};

static bool collect(const uint8_t a[16], void *arg)
{
	struct collect *c = arg;

	/* the link-local ones: the GID table has the MAC's already */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return false;
	if (c->n < c->max)
		memcpy(c->addrs[c->n++], a, 16);
	return false;
}

unsigned roce_netdev_ipv6_addrs(const char *ifname, uint8_t (*addrs)[16], unsigned max)
{
	struct collect c = { addrs, 0, max };

	each_ipv6(ifname, collect, &c);
	return c.n;
}

/* Hold [addr]:<udp_port>: ROCE_OK also when the kernel turns out not to
 * carry it (nothing to hold). */
static int hold6(struct roce_afpacket *afp, const uint8_t addr[16], char *err,
		 size_t errlen)
{
	struct sock_filter prog[1];
	struct sock_fprog fp = { .filter = prog };
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(afp->udp_port),
	};
	int one = 1, small = 1;
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return afp_err(afp, err, errlen, 0, errno, "UDP/IPv6 socket");
	memcpy(sin6.sin6_addr.s6_addr, addr, 16);
	if (addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80)
		sin6.sin6_scope_id = (uint32_t)afp->ifindex;
	fp.len = (unsigned short)afp_filter_drop_all(prog);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) < 0) {
		int e = errno;

		close(fd);
		return afp_err(afp, err, errlen, 0, e, "UDP/IPv6 socket options");
	}
	if (bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)) < 0) {
		int e = errno;
		char a[INET6_ADDRSTRLEN];

		close(fd);
		if (e == EADDRNOTAVAIL)
			return ROCE_OK;
		inet_ntop(AF_INET6, addr, a, sizeof(a));
		return netdev_fail(err, errlen, netdev_errno_status(e),
			    "%s: cannot hold UDP [%s]:%u: %s%s", afp->ifname, a,
			    afp->udp_port, strerror(e), e == EADDRINUSE
			    ? " (another RoCE stack, e.g. rxe, owns the port)" : "");
	}
	afp->hold6_fd[afp->n_hold6++] = fd;
	return ROCE_OK;
}

/* Join addr's solicited-node group on the receive socket (RFC 4861 7.2.1:
 * a node joins it for each of its addresses). */
static int join_group(struct roce_afpacket *afp, const uint8_t addr[16], char *err,
		      size_t errlen)
{
	uint8_t group[16];
	struct packet_mreq mr = {
		.mr_ifindex = afp->ifindex,
		.mr_type = PACKET_MR_MULTICAST,
		.mr_alen = 6,
	};

	roce_nd_solicited_node(addr, group);
	roce_nd_mcast_mac(group, mr.mr_address);
	if (setsockopt(afp->rx_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0)
		return afp_err(afp, err, errlen, 0, errno,
			       "PACKET_ADD_MEMBERSHIP solicited-node group");
	return ROCE_OK;
}

int afp_ip6_setup(struct roce_afpacket *afp, const struct roce_afpacket_config *cfg,
		  char *err, size_t errlen)
{
	int st = ROCE_OK;

	if (cfg->ip6_link_local) {
		/* GID 0 of a port whose MAC is only known now (the
		 * interface's, by default) */
		if (cfg->n_ip6 >= ROCE_MAX_GID)
			return netdev_fail(err, errlen, ROCE_E_INVAL, "%s: %u IPv6 "
				    "addresses and the link-local one, at most %u",
				    afp->ifname, cfg->n_ip6, ROCE_MAX_GID);
		roce_gid_link_local(afp->port.mac, afp->ip6[0]);
		afp->n_ip6 = 1;
	}
	memcpy(afp->ip6 + afp->n_ip6, cfg->ip6, cfg->n_ip6 * 16u);
	afp->n_ip6 += cfg->n_ip6;
	for (unsigned i = 0; i < afp->n_ip6 && st == ROCE_OK; i++) {
		if (roce_netdev_has_ipv6(afp->ifname, afp->ip6[i])) {
			if (!cfg->no_hold_port)
				st = hold6(afp, afp->ip6[i], err, errlen);
		} else if (cfg->answer_nd) {
			memcpy(afp->nd_answer[afp->n_nd_answer++], afp->ip6[i], 16);
			st = join_group(afp, afp->ip6[i], err, errlen);
		}
	}
	return st;
}

void afp_ip6_close(struct roce_afpacket *afp)
{
	for (unsigned i = 0; i < afp->n_hold6; i++)
		close(afp->hold6_fd[i]);
	afp->n_hold6 = 0;
}

void afp_nd_input(struct roce_afpacket *afp, const uint8_t *data, uint32_t len)
{
	struct roce_nd nd;
	size_t rlen;

	afp_count(&afp->st.rx_nd, 1);
	if (!afp->n_nd_answer || roce_nd_parse(data, len, &nd) != ROCE_OK)
		return;
	rlen = roce_nd_answer(&nd, afp->port.mac, (const uint8_t (*)[16])afp->nd_answer,
			      afp->n_nd_answer, afp->nd_buf);
	if (!rlen)
		return;
	/* the port's own thread: the TX back end is ours to use */
	if (afp->tx->put(afp, afp->nd_buf, (uint32_t)rlen) && afp->tx->kick(afp, 1) == 1)
		afp_count(&afp->st.nd_replies, 1);
}
