/* SPDX-License-Identifier: MIT */
/*
 * The raw-Ethernet port: configuration, open and close, what callers may
 * ask of it (mode, MTU, path MTU, counters). Setting up the interface and
 * sockets is afpacket_sock.c, the data path afpacket_io.c and the mode
 * back ends (afpacket_ring.c, afpacket_v3.c, afpacket_mmsg.c).
 */
#include <linux/if_packet.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/pow2.h"
#include "link/afpacket_priv.h"
#include "roce/gid.h"
#include "roce/status.h"

/* ---- configuration ---------------------------------------------------- */

static int check_config(const struct roce_afpacket_config *c, char *err,
			size_t errlen)
{
	int st = ROCE_OK;

	if (!c->ifname || !c->ifname[0] || strlen(c->ifname) >= IF_NAMESIZE)
		return netdev_fail(err, errlen, ROCE_E_INVAL,
			    "interface name missing or longer than %d bytes",
			    IF_NAMESIZE - 1);
	if (c->mode > ROCE_AFP_MMSG)
		return netdev_fail(err, errlen, ROCE_E_INVAL, "%s: unknown mode %d",
			    c->ifname, (int)c->mode);
	if (!pow2_in(c->rx_frames, ROCE_AFP_FRAMES_MIN, ROCE_AFP_FRAMES_MAX, &st) ||
	    !pow2_in(c->tx_frames, ROCE_AFP_FRAMES_MIN, ROCE_AFP_FRAMES_MAX, &st))
		return netdev_fail(err, errlen, st, "%s: ring sizes must be powers of "
			    "two in %u..%u frames", c->ifname, ROCE_AFP_FRAMES_MIN,
			    ROCE_AFP_FRAMES_MAX);
	if (!(c->tx_loss >= 0.0 && c->tx_loss <= 1.0))
		return netdev_fail(err, errlen, ROCE_E_INVAL,
			    "%s: tx_loss must lie in [0, 1]", c->ifname);
	if (c->mac[0] & 1)
		return netdev_fail(err, errlen, ROCE_E_INVAL,
			    "%s: station MAC is a multicast address", c->ifname);
	if (c->n_ip6 > ROCE_MAX_GID)
		return netdev_fail(err, errlen, ROCE_E_INVAL, "%s: %u IPv6 addresses, "
			    "at most %u", c->ifname, c->n_ip6, ROCE_MAX_GID);
	for (unsigned i = 0; i < c->n_ip6; i++)
		if (!roce_gid_is_unicast(c->ip6[i]) || roce_gid_is_v4mapped(c->ip6[i]))
			return netdev_fail(err, errlen, ROCE_E_INVAL, "%s: IPv6 address "
				    "%u is not a unicast IPv6 address", c->ifname, i);
	return ROCE_OK;
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
		return netdev_fail(err, errlen, ROCE_E_INVAL, "no config");
	st = check_config(cfg, err, errlen);
	if (st)
		return st;
	afp = calloc(1, sizeof(*afp));
	if (!afp)
		return netdev_fail(err, errlen, ROCE_E_NOMEM, "out of memory");
	afp->rx_fd = afp->tx_fd = afp->hold_fd = -1;
	strcpy(afp->ifname, cfg->ifname);
	afp->ip = cfg->ip;
	afp->udp_port = cfg->udp_port ? cfg->udp_port : ROCE_UDP_PORT;
	afp->answer_arp = cfg->answer_arp && cfg->ip;
	afp->qdisc_bypass = !cfg->no_qdisc_bypass;
	afp->rx_frames = cfg->rx_frames ? cfg->rx_frames : ROCE_AFP_RX_FRAMES_DEFAULT;
	afp->tx_frames = cfg->tx_frames ? cfg->tx_frames : ROCE_AFP_TX_FRAMES_DEFAULT;
	init_fault(afp, cfg->tx_loss, cfg->seed);
	st = afp_query_iface(afp, err, errlen);
	if (st)
		goto fail;
	memcpy(afp->port.mac, memcmp(cfg->mac, zero, 6) ? cfg->mac : afp->if_mac, 6);
	afp->port.ops = &afp_port_ops;
	afp->port.ctx = afp;
	/* the engine builds nothing longer than ROCE_MAX_FRAME: no ring slot
	 * needs to be larger, even on a 64 KB-MTU interface */
	afp->max_tx = afp->mtu + ROCE_ETH_HLEN;
	if (afp->max_tx > ROCE_MAX_FRAME)
		afp->max_tx = ROCE_MAX_FRAME;
	afp->snap = afp->mtu + ROCE_ETH_HLEN + ROCE_VLAN_HLEN;
	if (afp->snap > ROCE_MAX_FRAME)
		afp->snap = ROCE_MAX_FRAME;
	if (cfg->mode == ROCE_AFP_AUTO) {
		st = afp_open_mode(afp, ROCE_AFP_RING, err, errlen);
		/* no PACKET_MMAP (or no memory for it): plain socket calls */
		if (st && st != ROCE_E_PERM)
			st = afp_open_mode(afp, ROCE_AFP_MMSG, err, errlen);
	} else {
		st = afp_open_mode(afp, cfg->mode, err, errlen);
	}
	if (st)
		goto fail;
	if (cfg->ip && !cfg->no_hold_port) {
		st = afp_hold_port(afp, err, errlen);
		if (st)
			goto fail;
	}
	st = afp_ip6_setup(afp, cfg, err, errlen);
	if (st)
		goto fail;
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
	afp_close_sockets(afp);
	if (afp->hold_fd >= 0)
		close(afp->hold_fd);
	afp_ip6_close(afp);
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
	st->rx_nd = LD(rx_nd);
	st->nd_replies = LD(nd_replies);
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
