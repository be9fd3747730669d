/* SPDX-License-Identifier: MIT */
/*
 * Address resolution for the tools: a peer's IPv4 -> its MAC, to fill a
 * QP's address vector. The kernel's neighbour table first (SIOCGARP);
 * else ARP on the wire from our own socket, so the port's thread keeps
 * running the data path meanwhile.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "link/afpacket_priv.h"
#include "link/arp.h"
#include "roce/status.h"

static bool ip_ok(uint32_t ip)
{
	return ip && ip != 0xFFFFFFFFu && (ip >> 28) != 0xE;   /* not multicast */
}

int roce_neigh_lookup(const char *ifname, uint32_t ip, uint8_t mac[6])
{
	struct arpreq req;
	struct sockaddr_in *sin = (struct sockaddr_in *)&req.arp_pa;
	int fd, rc;

	if (!ifname || strlen(ifname) >= sizeof(req.arp_dev) || !ip_ok(ip) || !mac)
		return ROCE_E_INVAL;
	memset(&req, 0, sizeof(req));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(ip);
	strcpy(req.arp_dev, ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ROCE_E_IO;
	rc = ioctl(fd, SIOCGARP, &req);
	close(fd);
	if (rc < 0)
		return errno == ENXIO || errno == ENODEV ? ROCE_E_NOENT : ROCE_E_IO;
	/* an incomplete entry (resolution in progress or failed) has no MAC */
	if (!(req.arp_flags & ATF_COM))
		return ROCE_E_NOENT;
	memcpy(mac, req.arp_ha.sa_data, 6);
	return ROCE_OK;
}

uint32_t roce_netdev_ipv4(const char *ifname)
{
	struct ifreq ifr;
	uint32_t ip = 0;
	int fd;

	if (!ifname || strlen(ifname) >= sizeof(ifr.ifr_name))
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	ifr.ifr_addr.sa_family = AF_INET;
	if (ioctl(fd, SIOCGIFADDR, &ifr) == 0)
		ip = ntohl(((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr);
	close(fd);
	return ip;
}

/* "eth0" and its labelled addresses "eth0:1" */
static bool same_if(const char *label, const char *ifname)
{
	size_t n = strlen(ifname);

	return !strncmp(label, ifname, n) && (label[n] == '\0' || label[n] == ':');
}

bool roce_netdev_has_ipv4(const char *ifname, uint32_t ip)
{
	struct ifaddrs *all, *i;
	bool found = false;

	if (!ifname || getifaddrs(&all) < 0)
		return false;
	for (i = all; i && !found; i = i->ifa_next)
		found = i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			same_if(i->ifa_name, ifname) &&
			ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr) == ip;
	freeifaddrs(all);
	return found;
}

/* Wait up to ms for a reply from ip; true with its MAC. */
static bool wait_reply(int fd, uint32_t ip, int ms, uint8_t mac[6])
{
	uint64_t end = roce_now_ms() + (uint64_t)ms;

	for (;;) {
		uint8_t buf[256];
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = roce_now_ms();
		struct roce_arp a;
		ssize_t n;

		if (now >= end || poll(&p, 1, (int)(end - now)) <= 0)
			return false;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			continue;
		/* a reply from ip, or its own request (it asks for us) */
		if (roce_arp_parse(buf, (size_t)n, &a) == ROCE_OK && a.spa == ip &&
		    !(a.sha[0] & 1)) {
			memcpy(mac, a.sha, 6);
			return true;
		}
	}
}

int roce_arp_resolve(const char *ifname, const uint8_t our_mac[6],
		     uint32_t our_ip, uint32_t ip, unsigned timeout_ms,
		     uint8_t mac[6])
{
	uint8_t req[ROCE_ARP_FRAME_LEN];
	uint64_t end;
	int ifindex, fd = -1, st;

	if (!ifname || !our_mac || !mac || !ip_ok(ip) || ip == our_ip)
		return ROCE_E_INVAL;
	ifindex = (int)if_nametoindex(ifname);
	if (!ifindex)
		return ROCE_E_NOENT;
	st = netdev_proto_socket(ifindex, ETH_P_ARP, &fd);
	if (st)
		return st;
	roce_arp_build_request(req, our_mac, our_ip, ip);
	st = ROCE_E_TIMEOUT;
	end = roce_now_ms() + timeout_ms;
	do {
		uint64_t left = end - roce_now_ms();
		int wait = left < ROCE_ARP_RETRY_MS ? (int)left : (int)ROCE_ARP_RETRY_MS;

		if (send(fd, req, sizeof(req), 0) < 0) {
			st = netdev_errno_status(errno);
			break;
		}
		if (wait_reply(fd, ip, wait, mac)) {
			st = ROCE_OK;
			break;
		}
	} while (roce_now_ms() < end);
	close(fd);
	return st;
}

int roce_afpacket_resolve(struct roce_afpacket *afp, uint32_t ip,
			  unsigned timeout_ms, uint8_t mac[6])
{
	if (!afp || !mac || !ip_ok(ip))
		return ROCE_E_INVAL;
	if (roce_neigh_lookup(afp->ifname, ip, mac) == ROCE_OK)
		return ROCE_OK;
	if (!afp->ip)
		return ROCE_E_INVAL;
	return roce_arp_resolve(afp->ifname, afp->port.mac, afp->ip, ip,
				timeout_ms, mac);
}
