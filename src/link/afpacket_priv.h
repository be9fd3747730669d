/* SPDX-License-Identifier: MIT */
/*
 * Inside the raw-Ethernet port: the sockets, the per-mode receive and
 * transmit back ends, the bookkeeping that lends received frames in place.
 *
 * Two packet sockets: rx_fd (ETH_P_ALL, the BPF filter, the RX ring or
 * buffers) and tx_fd (protocol 0, so it receives nothing; the TX ring,
 * PACKET_QDISC_BYPASS). Two, because a TPACKET_V3 RX ring and a V2 TX
 * ring cannot share a socket (the version is per socket), and because it
 * keeps each side's setup on its own.
 *
 * Lending (V2 ring and mmsg): slots are used in order; positions grow
 * without bound, slot = pos & mask.
 *   rel   oldest slot not yet given back
 *   next  next slot to look at (rx_burst)
 * Slots in [rel, next) are either lent to the engine (lent[slot] = 1) or
 * were consumed by the port itself (ARP, truncated: lent[slot] = 0).
 * rx_release(n) gives back slots from rel on, up to and including the n-th
 * lent one, and any consumed ones that follow: everything stays in order.
 */
#ifndef ROCE_LINK_AFPACKET_PRIV_H
#define ROCE_LINK_AFPACKET_PRIV_H

#include <net/if.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "roce/afpacket.h"
#include "roce/link.h"
#include "roce/params.h"
#include "link/arp.h"
#include "link/nd.h"
#include "link/netdev_util.h"

struct roce_afpacket;

/* Receive back end: lends frames, takes them back in order. */
struct afp_rx_ops {
	int (*setup)(struct roce_afpacket *afp, char *err, size_t errlen);
	void (*fini)(struct roce_afpacket *afp);
	unsigned (*burst)(struct roce_afpacket *afp, struct roce_frame *f,
			  unsigned max);
	void (*release)(struct roce_afpacket *afp, unsigned n);
};

/* Transmit back end: put() stages one frame (false: no room), kick()
 * hands the staged frames to the kernel, counts what it sent (tx_frames,
 * tx_bytes, tx_errors) and returns how many it took, in order. */
struct afp_tx_ops {
	int (*setup)(struct roce_afpacket *afp, char *err, size_t errlen);
	void (*fini)(struct roce_afpacket *afp);
	bool (*put)(struct roce_afpacket *afp, const uint8_t *data, uint32_t len);
	unsigned (*kick)(struct roce_afpacket *afp, unsigned staged);
};

extern const struct afp_rx_ops afp_ring_rx_ops, afp_v3_rx_ops, afp_mmsg_rx_ops;
extern const struct afp_tx_ops afp_ring_tx_ops, afp_mmsg_tx_ops;

/* A PACKET_MMAP ring (V2 frames, or V3 blocks). */
struct afp_ring {
	uint8_t *map;
	size_t map_len;
	uint32_t frame_size;    /* V2: bytes per frame slot */
	uint32_t frames;        /* V2: slots (a power of two) */
	uint32_t block_size;    /* V3: bytes per block */
	uint32_t blocks;        /* V3: blocks (a power of two) */
};

/* Slots lent in order (V2 ring, mmsg buffers). */
struct afp_lend {
	uint64_t rel, next;
	uint32_t mask;
	uint8_t *lent;          /* per slot: 1 = lent to the engine */
};

/* TPACKET_V3 receive position. */
struct afp_v3 {
	uint64_t rel;           /* oldest block not given back */
	uint64_t cur;           /* block being read (open or next to open) */
	bool open;
	uint32_t left;          /* packets left in the open block */
	uint8_t *pkt;           /* next packet in the open block */
	uint32_t *lent;         /* per block: frames lent, not yet released */
};

/* recvmmsg/sendmmsg state. */
struct afp_mmsg {
	uint8_t *rx_buf;        /* rx slots x slot_size */
	uint32_t slot_size;
	struct mmsghdr *rx_msg; /* one per slot, each with its own iovec */
	struct iovec *rx_iov;
	uint32_t *rx_len;       /* received length per slot */
	struct mmsghdr tx_msg[ROCE_AFP_TX_BATCH];
	struct iovec tx_iov[ROCE_AFP_TX_BATCH];
	unsigned tx_n;
};

/* Counters: written by the port's thread only (relaxed load + store, no
 * read-modify-write), read by anyone. */
struct afp_stats {
	_Atomic uint64_t tx_frames, tx_bytes, tx_too_big, tx_too_short,
		tx_errors, tx_fault_drops, rx_frames, rx_bytes, rx_truncated,
		rx_arp, arp_replies, rx_kernel_drops, rx_nd, nd_replies;
};

static inline void afp_count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

struct roce_afpacket {
	struct roce_port port;
	enum roce_afpacket_mode mode;
	const struct afp_rx_ops *rx;
	const struct afp_tx_ops *tx;
	char ifname[IF_NAMESIZE];
	int ifindex;
	unsigned mtu;           /* interface MTU (IP bytes) */
	uint32_t max_tx;        /* longest frame we send: mtu + 14, at most
				 * ROCE_MAX_FRAME */
	uint32_t snap;          /* longest frame we keep: mtu + 18 (VLAN),
				 * at most ROCE_MAX_FRAME */
	uint8_t if_mac[6];
	bool promisc;           /* membership added (station MAC != if_mac) */
	uint32_t ip;
	uint16_t udp_port;
	bool answer_arp;
	bool qdisc_bypass;
	unsigned rx_frames, tx_frames;
	int rx_fd, tx_fd, hold_fd;
	/* test fault: drop a TX frame when prng < loss_thresh */
	bool loss_all;
	uint64_t loss_thresh, prng;
	struct afp_ring rx_ring, tx_ring;
	uint64_t tx_pos;        /* ring TX: next slot */
	uint64_t tx_staged_bytes; /* ring TX: put since the last kick */
	bool tx_pending;        /* ring TX: the last kick left frames queued */
	struct afp_lend lend;
	struct afp_v3 v3;
	struct afp_mmsg mm;
	uint8_t arp_buf[ROCE_ARP_FRAME_LEN];
	/* IPv6 (afpacket_nd.c): every address; those the port answers
	 * neighbour discovery for; UDP sockets holding the others' port */
	uint8_t ip6[ROCE_MAX_GID][16];
	unsigned n_ip6;
	uint8_t nd_answer[ROCE_MAX_GID][16];
	unsigned n_nd_answer;
	int hold6_fd[ROCE_MAX_GID];
	unsigned n_hold6;
	uint8_t nd_buf[ROCE_ND_FRAME_LEN];
	struct afp_stats st;
};

/* afpacket_io.c: the port operations the engine calls */
extern const struct roce_port_ops afp_port_ops;
/* A received frame: lend it (true), or the port consumed it (ARP). */
bool afp_rx_accept(struct roce_afpacket *afp, const uint8_t *data, uint32_t len);
/* Lend bookkeeping shared by the V2 ring and mmsg back ends. */
int afp_lend_init(struct afp_lend *l, uint32_t slots);
void afp_lend_fini(struct afp_lend *l);
/* Give back slots up to the n-th lent one; give_back(afp, slot) for each. */
void afp_lend_release(struct roce_afpacket *afp, struct afp_lend *l, unsigned n,
		      void (*give_back)(struct roce_afpacket *, uint32_t slot));

/* afpacket_sock.c: errors ("<ifname>: <what>: <strerror>"; status 0 =
 * derived from errnum), the interface, the sockets, port holding */
int afp_err(struct roce_afpacket *afp, char *err, size_t errlen, int status,
	    int errnum, const char *what);
int afp_query_iface(struct roce_afpacket *afp, char *err, size_t errlen);
int afp_open_mode(struct roce_afpacket *afp, enum roce_afpacket_mode mode,
		  char *err, size_t errlen);
void afp_close_sockets(struct roce_afpacket *afp);
int afp_hold_port(struct roce_afpacket *afp, char *err, size_t errlen);

/* afpacket_nd.c: the port's IPv6 addresses at open (which it answers
 * neighbour discovery for, joining their solicited-node groups; which the
 * kernel carries, holding their UDP port), its answers, and close */
int afp_ip6_setup(struct roce_afpacket *afp, const struct roce_afpacket_config *cfg,
		  char *err, size_t errlen);
void afp_nd_input(struct roce_afpacket *afp, const uint8_t *data, uint32_t len);
void afp_ip6_close(struct roce_afpacket *afp);

/* afpacket_ring.c: map a ring set up with PACKET_RX_RING/TX_RING */
int afp_ring_map(struct roce_afpacket *afp, int fd, struct afp_ring *r,
		 char *err, size_t errlen);
void afp_ring_unmap(struct afp_ring *r);

#endif
