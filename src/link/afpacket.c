/* SPDX-License-Identifier: MIT */
/*
 * The raw-Ethernet port: configuration, the interface, the sockets, port
 * holding, and the clear error that says which interface and why. The data
 * path is afpacket_io.c and the mode back ends (afpacket_ring.c,
 * afpacket_v3.c, afpacket_mmsg.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "link/afpacket_filter.h"
#include "link/afpacket_priv.h"
#include "roce/status.h"

/* ---- errors --------------------------------------------------------------- */

int afp_errno_status(int errnum)
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
	case ENOPROTOOPT:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return ROCE_E_UNSUPPORTED;
	default:
		return ROCE_E_IO;
	}
}

static void verr(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(err, errlen, fmt, ap);
	va_end(ap);
	return status;
}

/* "<ifname>: <what>: <strerror>[ hint]"; status 0 = derived from errnum */
int afp_err(struct roce_afpacket *afp, char *err, size_t errlen, int status,
	    int errnum, const char *what)
{
	if (!status)
		status = afp_errno_status(errnum);
	return fail(err, errlen, status, "%s: %s: %s%s", afp->ifname, what,
		    strerror(errnum),
		    status == ROCE_E_PERM ? " (AF_PACKET needs CAP_NET_RAW)" : "");
}

/* ---- configuration and interface ---------------------------------------- */

static bool pow2_in(unsigned v, unsigned lo, unsigned hi, int *st)
{
	if (v && (v & (v - 1))) {
		*st = ROCE_E_INVAL;
		return false;
	}
	if (v && (v < lo || v > hi)) {
		*st = ROCE_E_RANGE;
		return false;
	}
	return true;
}

static int check_config(const struct roce_afpacket_config *c, char *err,
			size_t errlen)
{
	int st = ROCE_OK;

	if (!c->ifname || !c->ifname[0] || strlen(c->ifname) >= IF_NAMESIZE)
		return fail(err, errlen, ROCE_E_INVAL,
			    "interface name missing or longer than %d bytes",
			    IF_NAMESIZE - 1);
	if (c->mode > ROCE_AFP_MMSG)
		return fail(err, errlen, ROCE_E_INVAL, "%s: unknown mode %d",
			    c->ifname, (int)c->mode);
	if (!pow2_in(c->rx_frames, ROCE_AFP_FRAMES_MIN, ROCE_AFP_FRAMES_MAX, &st) ||
	    !pow2_in(c->tx_frames, ROCE_AFP_FRAMES_MIN, ROCE_AFP_FRAMES_MAX, &st))
		return fail(err, errlen, st, "%s: ring sizes must be powers of "
			    "two in %u..%u frames", c->ifname, ROCE_AFP_FRAMES_MIN,
			    ROCE_AFP_FRAMES_MAX);
	if (!(c->tx_loss >= 0.0 && c->tx_loss <= 1.0))
		return fail(err, errlen, ROCE_E_INVAL,
			    "%s: tx_loss must lie in [0, 1]", c->ifname);
	if (c->mac[0] & 1)
		return fail(err, errlen, ROCE_E_INVAL,
			    "%s: station MAC is a multicast address", c->ifname);
	return ROCE_OK;
}

/* IFF_RUNNING follows the carrier through the kernel's link watch, which
 * may lag a fresh "ip link set up" by up to a second: wait that long for
 * an interface that is up. */
static int wait_running(struct roce_afpacket *afp, int fd, struct ifreq *ifr,
			char *err, size_t errlen)
{
	for (unsigned ms = 0;; ms += 10) {
		struct timespec ts = { 0, 10 * 1000000L };

		if (ioctl(fd, SIOCGIFFLAGS, ifr) < 0)
			return afp_err(afp, err, errlen, 0, errno, "SIOCGIFFLAGS");
		if (!(ifr->ifr_flags & IFF_UP) || (ifr->ifr_flags & IFF_RUNNING) ||
		    ms >= ROCE_AFP_CARRIER_WAIT_MS)
			return ROCE_OK;
		nanosleep(&ts, NULL);
	}
}

static int query_iface(struct roce_afpacket *afp, char *err, size_t errlen)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int st = ROCE_OK;

	if (fd < 0)
		return afp_err(afp, err, errlen, 0, errno, "socket");
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, afp->ifname, sizeof(afp->ifname));
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		st = errno == ENODEV
			? fail(err, errlen, ROCE_E_NOENT, "%s: no such interface",
			       afp->ifname)
			: afp_err(afp, err, errlen, 0, errno, "SIOCGIFINDEX");
		goto out;
	}
	afp->ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		st = afp_err(afp, err, errlen, 0, errno, "SIOCGIFHWADDR");
		goto out;
	}
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		st = fail(err, errlen, ROCE_E_UNSUPPORTED,
			  "%s: not an Ethernet interface (ARP hardware type %d)",
			  afp->ifname, ifr.ifr_hwaddr.sa_family);
		goto out;
	}
	memcpy(afp->if_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0) {
		st = afp_err(afp, err, errlen, 0, errno, "SIOCGIFMTU");
		goto out;
	}
	afp->mtu = (unsigned)ifr.ifr_mtu;
	st = wait_running(afp, fd, &ifr, err, errlen);
	if (st)
		goto out;
	if (!(ifr.ifr_flags & IFF_UP))
		st = fail(err, errlen, ROCE_E_LINK_DOWN,
			  "%s: interface is down (ip link set %s up)",
			  afp->ifname, afp->ifname);
	else if (!(ifr.ifr_flags & IFF_RUNNING))
		st = fail(err, errlen, ROCE_E_LINK_DOWN,
			  "%s: interface has no carrier (cable, or veth peer down)",
			  afp->ifname);
out:
	close(fd);
	return st;
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
static int hold_port(struct roce_afpacket *afp, char *err, size_t errlen)
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
		return fail(err, errlen, afp_errno_status(e),
			    "%s: cannot hold UDP %s:%u: %s%s", afp->ifname, a,
			    afp->udp_port, strerror(e), e == EADDRINUSE
			    ? " (another RoCE stack, e.g. rxe, owns the port)" : "");
	}
	afp->hold_fd = fd;
	return ROCE_OK;
}

static void close_sockets(struct roce_afpacket *afp)
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

static int open_mode(struct roce_afpacket *afp, enum roce_afpacket_mode mode,
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
		close_sockets(afp);
	return st;
}

static void init_fault(struct roce_afpacket *afp, double loss, uint64_t seed)
{
	afp->loss_all = loss >= 1.0;
	afp->loss_thresh = (uint64_t)ldexp(loss, 64);
	if (loss > 0 && !afp->loss_thresh)
		afp->loss_thresh = 1;
	afp->prng = seed ? seed : 0x9E3779B97F4A7C15ull;
}

int roce_afpacket_open(const struct roce_afpacket_config *cfg,
		       struct roce_afpacket **out, char *err, size_t errlen)
{
	static const uint8_t zero[6];
	struct roce_afpacket *afp;
	int st;

	if (err && errlen)
		err[0] = '\0';
	if (!cfg || !out)
		return fail(err, errlen, ROCE_E_INVAL, "no config");
	st = check_config(cfg, err, errlen);
	if (st)
		return st;
	afp = calloc(1, sizeof(*afp));
	if (!afp)
		return fail(err, errlen, ROCE_E_NOMEM, "out of memory");
	afp->rx_fd = afp->tx_fd = afp->hold_fd = -1;
	strcpy(afp->ifname, cfg->ifname);
	afp->ip = cfg->ip;
	afp->udp_port = cfg->udp_port ? cfg->udp_port : ROCE_UDP_PORT;
	afp->answer_arp = cfg->answer_arp && cfg->ip;
	afp->qdisc_bypass = !cfg->no_qdisc_bypass;
	afp->rx_frames = cfg->rx_frames ? cfg->rx_frames : ROCE_AFP_RX_FRAMES_DEFAULT;
	afp->tx_frames = cfg->tx_frames ? cfg->tx_frames : ROCE_AFP_TX_FRAMES_DEFAULT;
	init_fault(afp, cfg->tx_loss, cfg->seed);
	st = query_iface(afp, err, errlen);
	if (st)
		goto fail;
	memcpy(afp->port.mac, memcmp(cfg->mac, zero, 6) ? cfg->mac : afp->if_mac, 6);
	afp->port.ops = &afp_port_ops;
	afp->port.ctx = afp;
	afp->max_tx = afp->mtu + ROCE_ETH_HLEN;
	afp->snap = afp->mtu + ROCE_ETH_HLEN + ROCE_VLAN_HLEN;
	if (afp->snap > ROCE_MAX_FRAME)
		afp->snap = ROCE_MAX_FRAME;
	if (cfg->mode == ROCE_AFP_AUTO) {
		st = open_mode(afp, ROCE_AFP_RING, err, errlen);
		/* no PACKET_MMAP (or no memory for it): plain socket calls */
		if (st && st != ROCE_E_PERM)
			st = open_mode(afp, ROCE_AFP_MMSG, err, errlen);
	} else {
		st = open_mode(afp, cfg->mode, err, errlen);
	}
	if (st)
		goto fail;
	if (cfg->ip && !cfg->no_hold_port) {
		st = hold_port(afp, err, errlen);
		if (st)
			goto fail;
	}
	*out = afp;
	return ROCE_OK;
fail:
	roce_afpacket_close(afp);
	return st;
}

void roce_afpacket_close(struct roce_afpacket *afp)
{
	if (!afp)
		return;
	close_sockets(afp);
	if (afp->hold_fd >= 0)
		close(afp->hold_fd);
	free(afp);
}

/* ---- accessors ---------------------------------------------------------- */

struct roce_port *roce_afpacket_port(struct roce_afpacket *afp)
{
	return &afp->port;
}

enum roce_afpacket_mode roce_afpacket_mode(const struct roce_afpacket *afp)
{
	return afp->mode;
}

static const char *const mode_names[] = {
	[ROCE_AFP_AUTO] = "auto",
	[ROCE_AFP_RING] = "ring",
	[ROCE_AFP_RING_V3] = "ring-v3",
	[ROCE_AFP_MMSG] = "mmsg",
};

const char *roce_afpacket_mode_name(enum roce_afpacket_mode mode)
{
	return (unsigned)mode <= ROCE_AFP_MMSG ? mode_names[mode] : "?";
}

int roce_afpacket_mode_parse(const char *s, enum roce_afpacket_mode *mode)
{
	for (unsigned i = 0; s && i <= ROCE_AFP_MMSG; i++)
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum roce_afpacket_mode)i;
			return ROCE_OK;
		}
	return ROCE_E_INVAL;
}

unsigned roce_afpacket_mtu(const struct roce_afpacket *afp)
{
	return afp->mtu;
}

enum roce_mtu roce_path_mtu_for_netdev(unsigned ifmtu)
{
	/* rxe (rxe_net.c, eth_mtu_int_to_enum): the largest IB MTU whose
	 * frame, with the longest RoCE headers, fits the Ethernet frame */
	for (int m = ROCE_MTU_4096; m >= ROCE_MTU_256; m--)
		if (roce_mtu_bytes((enum roce_mtu)m) + ROCE_AFP_MAX_ROCE_HDRS <=
		    (uint64_t)ifmtu + ROCE_ETH_HLEN)
			return (enum roce_mtu)m;
	return (enum roce_mtu)0;
}

enum roce_mtu roce_afpacket_path_mtu(const struct roce_afpacket *afp)
{
	return roce_path_mtu_for_netdev(afp->mtu);
}

bool roce_afpacket_wait(struct roce_afpacket *afp, unsigned timeout_us)
{
	struct pollfd p = { .fd = afp->rx_fd, .events = POLLIN };
	struct timespec ts = { timeout_us / 1000000u,
			       (long)(timeout_us % 1000000u) * 1000L };

	return ppoll(&p, 1, &ts, NULL) > 0;
}

bool roce_afpacket_port_held(const struct roce_afpacket *afp)
{
	return afp->hold_fd >= 0;
}

unsigned roce_afpacket_ifindex(const struct roce_afpacket *afp)
{
	return (unsigned)afp->ifindex;
}

void roce_afpacket_get_stats(struct roce_afpacket *afp,
			     struct roce_afpacket_stats *st)
{
	const struct afp_stats *s = &afp->st;
	struct tpacket_stats_v3 ks;
	socklen_t len = sizeof(ks);

#define LD(f) atomic_load_explicit(&s->f, memory_order_relaxed)
	st->tx_frames = LD(tx_frames);
	st->tx_bytes = LD(tx_bytes);
	st->tx_too_big = LD(tx_too_big);
	st->tx_too_short = LD(tx_too_short);
	st->tx_errors = LD(tx_errors);
	st->tx_fault_drops = LD(tx_fault_drops);
	st->rx_frames = LD(rx_frames);
	st->rx_bytes = LD(rx_bytes);
	st->rx_truncated = LD(rx_truncated);
	st->rx_arp = LD(rx_arp);
	st->arp_replies = LD(arp_replies);
#undef LD
	/* the kernel's count resets on each read: fold it into ours (the
	 * only counter written off the port's thread, hence the fetch_add) */
	memset(&ks, 0, sizeof(ks));
	if (getsockopt(afp->rx_fd, SOL_PACKET, PACKET_STATISTICS, &ks, &len) == 0)
		atomic_fetch_add_explicit(&afp->st.rx_kernel_drops,
					  ks.tp_drops, memory_order_relaxed);
	st->rx_kernel_drops = atomic_load_explicit(&s->rx_kernel_drops,
						   memory_order_relaxed);
}
