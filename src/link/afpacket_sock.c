/* SPDX-License-Identifier: MIT */
/*
 * Setting the raw-Ethernet port up: the interface (index, MAC, MTU, up and
 * carrier), the two packet sockets with the filter and the mode's rings,
 * the UDP socket that holds the RoCE port, and errors that name the
 * interface and the cause.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "link/afpacket_filter.h"
#include "link/afpacket_priv.h"
#include "roce/status.h"

/* ---- errors --------------------------------------------------------------- */

/* "<ifname>: <what>: <strerror>[ hint]"; status 0 = derived from errnum */
int afp_err(struct roce_afpacket *afp, char *err, size_t errlen, int status,
	    int errnum, const char *what)
{
	if (!status)
		status = netdev_errno_status(errnum);
	return netdev_fail(err, errlen, status, "%s: %s: %s%s", afp->ifname, what,
		    strerror(errnum),
		    status == ROCE_E_PERM ? " (AF_PACKET needs CAP_NET_RAW)" : "");
}

/* ---- interface ---------------------------------------------------------- */

int afp_query_iface(struct roce_afpacket *afp, char *err, size_t errlen)
{
	struct netdev_info ni;
	int st = netdev_query(afp->ifname, " (AF_PACKET needs CAP_NET_RAW)", &ni,
			      err, errlen);

	if (st)
		return st;
	afp->ifindex = ni.ifindex;
	memcpy(afp->if_mac, ni.mac, 6);
	afp->mtu = ni.mtu;
	return ROCE_OK;
}

/* ---- sockets ---------------------------------------------------------------- */

static int packet_socket(struct roce_afpacket *afp, char *err, size_t errlen,
			 int *out)
{
	/* protocol 0: the socket receives nothing until bind() names one,
	 * so no frame slips in before the filter is attached */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return afp_err(afp, err, errlen, 0, errno, "AF_PACKET socket");
	*out = fd;
	return ROCE_OK;
}

static int bind_packet(struct roce_afpacket *afp, int fd, uint16_t proto,
		       char *err, size_t errlen)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = afp->ifindex,
	};

	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return afp_err(afp, err, errlen, 0, errno, "bind");
	return ROCE_OK;
}

static int open_rx(struct roce_afpacket *afp, char *err, size_t errlen)
{
	struct sock_filter prog[AFP_FILTER_MAX];
	struct sock_fprog fp = { .filter = prog };
	int one = 1, st;

	st = packet_socket(afp, err, errlen, &afp->rx_fd);
	if (st)
		return st;
	fp.len = (unsigned short)afp_filter_build(prog, afp->port.mac, afp->udp_port);
	if (setsockopt(afp->rx_fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0)
		return afp_err(afp, err, errlen, 0, errno, "SO_ATTACH_FILTER");
	/* best effort (Linux 4.20+); the filter drops OUTGOING anyway */
	(void)setsockopt(afp->rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
			 sizeof(one));
	st = afp->rx->setup(afp, err, errlen);
	if (st)
		return st;
	st = bind_packet(afp, afp->rx_fd, ETH_P_ALL, err, errlen);
	if (st)
		return st;
	if (memcmp(afp->port.mac, afp->if_mac, 6) != 0) {
		/* another station address: frames to it are OTHERHOST, seen
		 * only in promiscuous mode (dropped with the socket) */
		struct packet_mreq mr = {
			.mr_ifindex = afp->ifindex,
			.mr_type = PACKET_MR_PROMISC,
		};

		if (setsockopt(afp->rx_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP,
			       &mr, sizeof(mr)) < 0)
			return afp_err(afp, err, errlen, 0, errno,
				       "PACKET_ADD_MEMBERSHIP promiscuous");
		afp->promisc = true;
	}
	return ROCE_OK;
}

static int open_tx(struct roce_afpacket *afp, char *err, size_t errlen)
{
	int one = 1, st;

	st = packet_socket(afp, err, errlen, &afp->tx_fd);
	if (st)
		return st;
	/* straight to the driver: no qdisc queueing or its lock (the engine
	 * already paces itself; a full driver queue is backpressure) */
	if (afp->qdisc_bypass &&
	    setsockopt(afp->tx_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
		       sizeof(one)) < 0)
		afp->qdisc_bypass = false;
	st = afp->tx->setup(afp, err, errlen);
	if (st)
		return st;
	return bind_packet(afp, afp->tx_fd, 0, err, errlen);
}

/*
 * Port holding: a UDP socket on <ip>:<port> so the kernel, which also
 * sees our RoCE frames when it carries ip, finds a listener and does not
 * answer "ICMP port unreachable". The filter drops every datagram before
 * it is queued (the kernel counts them as Udp InErrors).
 */
int afp_hold_port(struct roce_afpacket *afp, char *err, size_t errlen)
{
	struct sock_filter prog[1];
	struct sock_fprog fp = { .filter = prog };
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(afp->udp_port),
		.sin_addr.s_addr = htonl(afp->ip),
	};
	int one = 1, small = 1;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return afp_err(afp, err, errlen, 0, errno, "UDP socket");
	fp.len = (unsigned short)afp_filter_drop_all(prog);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) < 0) {
		int e = errno;

		close(fd);
		return afp_err(afp, err, errlen, 0, e, "UDP socket options");
	}
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		int e = errno;
		char a[INET_ADDRSTRLEN];

		close(fd);
		/* the kernel does not carry ip: it does not answer for it
		 * either, nothing to hold */
		if (e == EADDRNOTAVAIL)
			return ROCE_OK;
		inet_ntop(AF_INET, &sin.sin_addr, a, sizeof(a));
		return netdev_fail(err, errlen, netdev_errno_status(e),
			    "%s: cannot hold UDP %s:%u: %s%s", afp->ifname, a,
			    afp->udp_port, strerror(e), e == EADDRINUSE
			    ? " (another RoCE stack, e.g. rxe, owns the port)" : "");
	}
	afp->hold_fd = fd;
	return ROCE_OK;
}

void afp_close_sockets(struct roce_afpacket *afp)
{
	if (afp->rx && afp->rx_fd >= 0)
		afp->rx->fini(afp);
	if (afp->tx && afp->tx_fd >= 0)
		afp->tx->fini(afp);
	if (afp->rx_fd >= 0)
		close(afp->rx_fd);
	if (afp->tx_fd >= 0)
		close(afp->tx_fd);
	afp->rx_fd = afp->tx_fd = -1;
}

int afp_open_mode(struct roce_afpacket *afp, enum roce_afpacket_mode mode,
		     char *err, size_t errlen)
{
	int st;

	afp->mode = mode;
	afp->rx = mode == ROCE_AFP_RING ? &afp_ring_rx_ops
		: mode == ROCE_AFP_RING_V3 ? &afp_v3_rx_ops : &afp_mmsg_rx_ops;
	afp->tx = mode == ROCE_AFP_MMSG ? &afp_mmsg_tx_ops : &afp_ring_tx_ops;
	st = open_tx(afp, err, errlen);
	if (!st)
		st = open_rx(afp, err, errlen);
	if (st)
		afp_close_sockets(afp);
	return st;
}

