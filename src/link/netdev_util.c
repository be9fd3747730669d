/* SPDX-License-Identifier: MIT */
/* What the raw-Ethernet ports share: errno to status, the interface. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "link/netdev_util.h"
#include "roce/params.h"
#include "roce/status.h"

int netdev_errno_status(int errnum)
{
	switch (errnum) {
	case EPERM:
	case EACCES:
		return ROCE_E_PERM;
	case ENODEV:
	case ENXIO:
		return ROCE_E_NOENT;
	case ENETDOWN:
		return ROCE_E_LINK_DOWN;
	case ENOMEM:
	case ENOBUFS:
		return ROCE_E_NOMEM;
	case EADDRINUSE:
		return ROCE_E_EXISTS;
	case EOPNOTSUPP:
	case ENOPROTOOPT:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return ROCE_E_UNSUPPORTED;
	default:
		return ROCE_E_IO;
	}
}

int netdev_fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return status;
}

/* "<ifname>: <what>: <strerror>[ hint]" */
static int sys_fail(char *err, size_t errlen, const char *ifname, const char *what,
		    int errnum, const char *perm_hint)
{
	int st = netdev_errno_status(errnum);

	return netdev_fail(err, errlen, st, "%s: %s: %s%s", ifname, what, strerror(errnum),
		    st == ROCE_E_PERM ? perm_hint : "");
}

/*
 * The carrier itself, as the driver reports it (ETHTOOL_GLINK, no privilege
 * needed). IFF_RUNNING is the fallback for drivers without it: it follows
 * the operational state, which the kernel's link watch updates later (up
 * to a second after "ip link set up"), and which reads as "running" while
 * still unknown.
 */
static bool carrier(int fd, const struct ifreq *ifr, short flags)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_GLINK };
	struct ifreq q = *ifr;

	q.ifr_data = (char *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &q) == 0)
		return ev.data != 0;
	return (flags & IFF_RUNNING) != 0;
}

static int query(int fd, const char *ifname, const char *hint,
		 struct netdev_info *out, char *err, size_t errlen)
{
	struct ifreq ifr;
	bool link = false;
	short flags = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		return errno == ENODEV
			? netdev_fail(err, errlen, ROCE_E_NOENT, "%s: no such interface", ifname)
			: sys_fail(err, errlen, ifname, "SIOCGIFINDEX", errno, hint);
	out->ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		return sys_fail(err, errlen, ifname, "SIOCGIFHWADDR", errno, hint);
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		return netdev_fail(err, errlen, ROCE_E_UNSUPPORTED,
			    "%s: not an Ethernet interface (ARP hardware type %d)",
			    ifname, ifr.ifr_hwaddr.sa_family);
	memcpy(out->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0)
		return sys_fail(err, errlen, ifname, "SIOCGIFMTU", errno, hint);
	out->mtu = (unsigned)ifr.ifr_mtu;
	/* a link just brought up may take a moment to report its carrier */
	for (unsigned ms = 0;; ms += 10) {
		if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
			return sys_fail(err, errlen, ifname, "SIOCGIFFLAGS", errno, hint);
		flags = ifr.ifr_flags;
		link = (flags & IFF_UP) && carrier(fd, &ifr, flags);
		if (!(flags & IFF_UP) || link || ms >= ROCE_AFP_CARRIER_WAIT_MS)
			break;
		nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
	}
	if (!(flags & IFF_UP))
		return netdev_fail(err, errlen, ROCE_E_LINK_DOWN,
			    "%s: interface is down (ip link set %s up)", ifname, ifname);
	if (!link)
		return netdev_fail(err, errlen, ROCE_E_LINK_DOWN,
			    "%s: interface has no carrier (cable, or veth peer down)",
			    ifname);
	return ROCE_OK;
}

int netdev_query(const char *ifname, const char *perm_hint,
		 struct netdev_info *out, char *err, size_t errlen)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int st;

	if (fd < 0)
		return sys_fail(err, errlen, ifname, "socket", errno, perm_hint);
	st = query(fd, ifname, perm_hint, out, err, errlen);
	close(fd);
	return st;
}

int netdev_proto_socket(int ifindex, uint16_t ethertype, int *out)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ethertype),
		.sll_ifindex = ifindex,
	};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ethertype));

	if (fd < 0)
		return netdev_errno_status(errno);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int e = errno;

		close(fd);
		return netdev_errno_status(e);
	}
	*out = fd;
	return ROCE_OK;
}
