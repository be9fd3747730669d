/* SPDX-License-Identifier: MIT */
/*
 * Inside the AF_XDP port: the UMEM and its four rings, the frames lent to
 * the engine, the free transmit frames, the learned ARP replies.
 *
 * UMEM layout: frames [0, rx_n) are receive frames, always either in the
 * fill ring, in the RX ring, lent to the engine (lent fifo) or waiting to
 * go back to the fill ring (back fifo); frames [rx_n, rx_n + tx_n) are
 * transmit frames, either free (free fifo), taken by tx_get() (at most
 * one), or in the TX ring / in flight until the completion ring gives
 * them back.
 *
 * A ring's room is what its consumer has published, and the kernel
 * publishes what it took from the fill and TX rings in batches, when its
 * own cache of entries runs dry: a frame can reach the RX ring (or the
 * completion ring) while its fill (TX) entry still counts as occupied.
 * So a reservation can fail even though every frame is accounted for;
 * writing past a failed one put stale addresses before the kernel, which
 * then filled frames the engine was still reading (READ data changed
 * under its ICRC check). The rings are twice the frames they carry, which
 * makes a failure rare, and a frame that finds no room waits in back (a
 * receive frame) or stays free (a transmit frame) for the next call.
 */
#ifndef ROCE_LINK_AFXDP_PRIV_H
#define ROCE_LINK_AFXDP_PRIV_H

#include <net/if.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <xdp/xsk.h>

#include "roce/afxdp.h"
#include "roce/link.h"
#include "link/afxdp_fifo.h"
#include "link/arp.h"
#include "link/netdev_util.h"

#define AFX_NEIGH 8             /* ARP replies remembered */

struct afx_stats {
	_Atomic uint64_t tx_frames, tx_bytes, tx_zero_copy, tx_too_big,
		tx_too_short, tx_errors, tx_fault_drops, rx_frames, rx_bytes, rx_dropped, rx_arp,
		arp_replies;
};

/* Written by the port's thread only; read by anyone. */
static inline void afx_count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

struct afx_neigh {
	uint32_t ip;            /* 0 = empty */
	uint8_t mac[6];
};

struct roce_afxdp {
	struct roce_port port;
	enum roce_afxdp_mode mode;
	char ifname[IF_NAMESIZE];
	int ifindex;
	unsigned queue;
	unsigned mtu;
	uint32_t max_tx;        /* mtu + 14 */
	uint32_t ip;
	uint16_t udp_port;
	bool answer_arp;
	/* test fault: drop a TX frame when prng < loss_thresh */
	bool loss_all;
	uint64_t loss_thresh, prng;
	int netns_fd;           /* the namespace libxdp attached in */
	bool share_kernel;      /* our own XDP program: RoCE only */
	int prog_fd, map_fd;    /* its program and XSKMAP, -1 = none */
	uint32_t xdp_flags;     /* the mode it is attached in, 0 = not */
	int fd;                 /* the socket's */
	uint32_t rx_n, tx_n;
	uint8_t *area;          /* the UMEM */
	size_t area_len;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	struct afx_fifo lent;   /* RX frames lent, oldest first */
	struct afx_fifo back;   /* RX frames the fill ring had no room for */
	struct afx_fifo free;   /* TX frames free */
	uint64_t get_addr;      /* tx_get()'s frame, until tx_put() */
	uint32_t get_len;
	uint32_t unkicked;      /* submitted since the last kick */
	bool tx_pending;        /* the last kick left descriptors queued */
	struct afx_neigh neigh[AFX_NEIGH];
	unsigned neigh_next;
	uint8_t arp_buf[ROCE_ARP_FRAME_LEN];
	struct afx_stats st;
};

/* afxdp_io.c */
extern const struct roce_port_ops afx_port_ops;
/* Copy one frame into a free TX frame and submit it (no kick): false
 * when no frame is free. */
bool afx_tx_copy(struct roce_afxdp *afx, const uint8_t *data, uint32_t len);
/* Whether the test loss fault drops the next frame (counted). */
bool afx_lose(struct roce_afxdp *afx);
/* The system call that makes the kernel send what the TX ring holds. */
void afx_kick(struct roce_afxdp *afx);

/* afxdp_sock.c: interface, UMEM and socket */
int afx_query_iface(struct roce_afxdp *afx, char *err, size_t errlen);
int afx_open_socket(struct roce_afxdp *afx, enum roce_afxdp_mode mode,
		    char *err, size_t errlen);
void afx_close_socket(struct roce_afxdp *afx);

#endif
