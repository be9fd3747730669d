/* SPDX-License-Identifier: MIT */
/*
 * The AF_XDP port: configuration, open and close, what callers may ask of
 * it (mode, MTU, path MTU, counters), and ARP through the port itself.
 * The interface and socket set-up is afxdp_sock.c, the data path
 * afxdp_io.c, the receive classification afxdp_class.c.
 */
#include <linux/if_xdp.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "common/clock.h"
#include "common/pow2.h"
#include "link/afxdp_priv.h"
#include "roce/afpacket.h"
#include "roce/params.h"
#include "roce/status.h"

static int check_config(const struct roce_afxdp_config *c, char *err, size_t errlen)
{
	int st = ROCE_OK;

	if (!c->ifname || !c->ifname[0] || strlen(c->ifname) >= IF_NAMESIZE)
		return netdev_fail(err, errlen, ROCE_E_INVAL,
				"interface name missing or longer than %d bytes",
				IF_NAMESIZE - 1);
	if ((unsigned)c->mode > ROCE_AFX_GENERIC)
		return netdev_fail(err, errlen, ROCE_E_INVAL, "%s: unknown XDP mode %d",
				c->ifname, (int)c->mode);
	if (!pow2_in(c->rx_frames, ROCE_AFX_FRAMES_MIN, ROCE_AFX_FRAMES_MAX, &st) ||
	    !pow2_in(c->tx_frames, ROCE_AFX_FRAMES_MIN, ROCE_AFX_FRAMES_MAX, &st))
		return netdev_fail(err, errlen, st, "%s: UMEM frame counts must be powers "
				"of two in %u..%u", c->ifname, ROCE_AFX_FRAMES_MIN,
				ROCE_AFX_FRAMES_MAX);
	if (!(c->tx_loss >= 0.0 && c->tx_loss <= 1.0))
		return netdev_fail(err, errlen, ROCE_E_INVAL,
				"%s: tx_loss must lie in [0, 1]", c->ifname);
	return ROCE_OK;
}

int roce_afxdp_open(const struct roce_afxdp_config *cfg, struct roce_afxdp **out,
		    char *err, size_t errlen)
{
	struct roce_afxdp *afx;
	int st;

	if (err && errlen)
		err[0] = '\0';
	if (!cfg || !out)
		return netdev_fail(err, errlen, ROCE_E_INVAL, "no config");
	st = check_config(cfg, err, errlen);
	if (st)
		return st;
	afx = calloc(1, sizeof(*afx));
	if (!afx)
		return netdev_fail(err, errlen, ROCE_E_NOMEM, "out of memory");
	afx->fd = afx->netns_fd = afx->prog_fd = afx->map_fd = -1;
	afx->share_kernel = cfg->share_kernel;
	strcpy(afx->ifname, cfg->ifname);
	afx->queue = cfg->queue;
	afx->ip = cfg->ip;
	afx->udp_port = cfg->udp_port ? cfg->udp_port : ROCE_UDP_PORT;
	afx->answer_arp = cfg->answer_arp && cfg->ip;
	afx->rx_n = cfg->rx_frames ? cfg->rx_frames : ROCE_AFX_RX_FRAMES_DEFAULT;
	afx->tx_n = cfg->tx_frames ? cfg->tx_frames : ROCE_AFX_TX_FRAMES_DEFAULT;
	afx->loss_all = cfg->tx_loss >= 1.0;
	afx->loss_thresh = (uint64_t)ldexp(cfg->tx_loss, 64);
	if (cfg->tx_loss > 0 && !afx->loss_thresh)
		afx->loss_thresh = 1;
	afx->prng = cfg->seed ? cfg->seed : 0x9E3779B97F4A7C15ull;
	afx->port.ops = &afx_port_ops;
	afx->port.ctx = afx;
	st = afx_query_iface(afx, err, errlen);
	if (st)
		goto fail;
	afx->max_tx = afx->mtu + ROCE_ETH_HLEN;
	/* a frame the interface may carry must fit one UMEM frame (what the
	 * kernel leaves after its XDP headroom): longer needs multi-buffer */
	if (afx->max_tx + ROCE_VLAN_HLEN > ROCE_AFX_MAX_FRAME) {
		st = netdev_fail(err, errlen, ROCE_E_RANGE,
			      "%s: MTU %u: frames up to %u bytes do not fit a %u-byte "
			      "UMEM frame (%u usable); path MTU 4096 over AF_XDP needs "
			      "multi-buffer, not supported: use an MTU up to %u, or the "
			      "AF_PACKET port", afx->ifname, afx->mtu,
			      afx->max_tx + ROCE_VLAN_HLEN, ROCE_AFX_CHUNK,
			      ROCE_AFX_MAX_FRAME,
			      ROCE_AFX_MAX_FRAME - ROCE_VLAN_HLEN - ROCE_ETH_HLEN);
		goto fail;
	}
	st = afx_open_socket(afx, cfg->mode, err, errlen);
	if (st)
		goto fail;
	*out = afx;
	return ROCE_OK;
fail:
	roce_afxdp_close(afx);
	return st;
}

void roce_afxdp_close(struct roce_afxdp *afx)
{
	if (!afx)
		return;
	afx_close_socket(afx);
	free(afx);
}

struct roce_port *roce_afxdp_port(struct roce_afxdp *afx)
{
	return &afx->port;
}

enum roce_afxdp_mode roce_afxdp_mode(const struct roce_afxdp *afx)
{
	return afx->mode;
}

unsigned roce_afxdp_mtu(const struct roce_afxdp *afx)
{
	return afx->mtu;
}

enum roce_mtu roce_afxdp_path_mtu(const struct roce_afxdp *afx)
{
	return roce_path_mtu_for_netdev(afx->mtu);
}

void roce_afxdp_get_stats(struct roce_afxdp *afx, struct roce_afxdp_stats *st)
{
	const struct afx_stats *s = &afx->st;
	struct xdp_statistics ks;
	socklen_t len = sizeof(ks);

#define LD(f) atomic_load_explicit(&s->f, memory_order_relaxed)
	st->tx_frames = LD(tx_frames);
	st->tx_bytes = LD(tx_bytes);
	st->tx_zero_copy = LD(tx_zero_copy);
	st->tx_too_big = LD(tx_too_big);
	st->tx_too_short = LD(tx_too_short);
	st->tx_errors = LD(tx_errors);
	st->tx_fault_drops = LD(tx_fault_drops);
	st->rx_frames = LD(rx_frames);
	st->rx_bytes = LD(rx_bytes);
	st->rx_dropped = LD(rx_dropped);
	st->rx_arp = LD(rx_arp);
	st->arp_replies = LD(arp_replies);
#undef LD
	/* the kernel's counters are totals since the socket was bound */
	memset(&ks, 0, sizeof(ks));
	st->rx_kernel_drops = 0;
	if (afx->fd >= 0 &&
	    getsockopt(afx->fd, SOL_XDP, XDP_STATISTICS, &ks, &len) == 0)
		st->rx_kernel_drops = ks.rx_dropped + ks.rx_ring_full;
}

bool roce_afxdp_wait(struct roce_afxdp *afx, unsigned timeout_us)
{
	struct pollfd p = { .fd = afx->fd, .events = POLLIN };
	struct timespec ts = { timeout_us / 1000000u,
			       (long)(timeout_us % 1000000u) * 1000L };

	return ppoll(&p, 1, &ts, NULL) > 0;
}

/* ---- ARP through the port ------------------------------------------------- */

int roce_afxdp_arp_request(struct roce_afxdp *afx, uint32_t ip)
{
	size_t len;

	if (!afx->ip || !ip || ip == 0xFFFFFFFFu)
		return ROCE_E_INVAL;
	len = roce_arp_build_request(afx->arp_buf, afx->port.mac, afx->ip, ip);
	if (!afx_tx_copy(afx, afx->arp_buf, (uint32_t)len))
		return ROCE_E_FULL;
	afx_kick(afx);
	return ROCE_OK;
}

bool roce_afxdp_neigh(const struct roce_afxdp *afx, uint32_t ip, uint8_t mac[6])
{
	for (unsigned i = 0; ip && i < AFX_NEIGH; i++)
		if (afx->neigh[i].ip == ip) {
			memcpy(mac, afx->neigh[i].mac, 6);
			return true;
		}
	return false;
}

int roce_afxdp_resolve(struct roce_afxdp *afx, uint32_t ip, unsigned timeout_ms,
		       uint8_t mac[6])
{
	uint64_t t = roce_now_ms(), end = t + timeout_ms, next = t;

	if (!afx->ip || !ip || ip == 0xFFFFFFFFu)
		return ROCE_E_INVAL;
	while (!roce_afxdp_neigh(afx, ip, mac)) {
		struct roce_frame f[ROCE_RX_BURST];
		unsigned n;

		t = roce_now_ms();
		if (t >= end)
			return ROCE_E_TIMEOUT;
		if (t >= next) {
			int st = roce_afxdp_arp_request(afx, ip);

			if (st)
				return st;
			next = t + ROCE_ARP_RETRY_MS;
		}
		/* the reply is consumed (and learned) by the receive path;
		 * anything else that comes meanwhile is given back unread */
		n = roce_port_rx(&afx->port, f, ROCE_RX_BURST);
		if (n)
			roce_port_rx_release(&afx->port, n);
		else
			nanosleep(&(struct timespec){ 0, 100000L }, NULL);
	}
	return ROCE_OK;
}
