/* SPDX-License-Identifier: MIT */
/*
 * The AF_XDP link: a roce/link.h port on one queue of a Linux network
 * interface through an AF_XDP socket (libxdp, copy mode), the faster
 * sibling of the AF_PACKET port (roce/afpacket.h) on the same wires.
 *
 * Memory: one UMEM of ROCE_AFX_CHUNK-byte frames, split once at open into
 * receive frames (owned by the fill and RX rings) and transmit frames
 * (owned by the TX and completion rings, or free). Nothing is allocated
 * per frame.
 *   rx_burst()   lends frames in place from the UMEM (RX ring);
 *                rx_release() gives the n oldest back to the fill ring, in
 *                order.
 *   tx_burst()   copies each frame into a free TX frame, submits them and
 *                kicks the kernel (one sendto() per 32 descriptors: copy
 *                mode's batch), after reaping the completion ring.
 *   tx_get()/tx_put()/tx_kick(): zero-copy; the engine builds the frame
 *                in a TX frame of the UMEM, tx_put() submits it, tx_kick()
 *                makes the system call once per burst.
 *
 * The XDP program (libxdp's default) gives the socket everything that
 * arrives on its queue: the kernel no longer sees ARP, nor the RoCE frames
 * (so it sends no "port unreachable" either, and the port holds nothing).
 * So the port does what the AF_PACKET port's BPF filter and the kernel did:
 * ARP frames are consumed (requests for our IP answered when answer_arp is
 * set, replies learned for roce_afxdp_resolve()), and everything that is
 * not UDP to the RoCE port for our MAC is dropped before it is lent, and
 * counted (rx_dropped).
 *
 * MTU: as the AF_PACKET port's (1500 -> path MTU 1024): frames longer than
 * MTU + 14 are refused by tx_burst (counted as tx_too_big). A frame must
 * fit one UMEM frame (less the kernel's XDP headroom): an interface whose
 * MTU would allow longer ones is refused at open (path MTU 4096 needs
 * multi-buffer AF_XDP, which this port does not do).
 *
 * Threads: one thread drives a port (all port operations, ARP answers,
 * roce_afxdp_resolve()); roce_afxdp_get_stats() may run on any thread.
 *
 * Privileges: root, or CAP_NET_ADMIN + CAP_NET_RAW + CAP_BPF (+
 * CAP_SYS_ADMIN to close a port from another network namespace).
 *
 * Without libxdp/libbpf at build time the functions exist but
 * roce_afxdp_open() returns ROCE_E_UNSUPPORTED and says so.
 */
#ifndef ROCE_AFXDP_H
#define ROCE_AFXDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/link.h"
#include "roce/regs.h"

#define ROCE_AFX_CHUNK          4096u   /* UMEM frame (larger needs HugeTLB) */
#define ROCE_AFX_HEADROOM       256u    /* XDP_PACKET_HEADROOM, kept by the kernel */
#define ROCE_AFX_MAX_FRAME      (ROCE_AFX_CHUNK - ROCE_AFX_HEADROOM)
#define ROCE_AFX_RX_FRAMES_DEFAULT 2048u
#define ROCE_AFX_TX_FRAMES_DEFAULT 1024u
#define ROCE_AFX_FRAMES_MIN     64u
#define ROCE_AFX_FRAMES_MAX     16384u
#define ROCE_AFX_KICK_BATCH     32u     /* descriptors a copy-mode sendto() sends */

struct roce_afxdp;

enum roce_afxdp_mode {
	ROCE_AFX_AUTO = 0,      /* native, else generic */
	ROCE_AFX_NATIVE,        /* XDP_FLAGS_DRV_MODE: the driver runs XDP */
	ROCE_AFX_GENERIC,       /* XDP_FLAGS_SKB_MODE: after the skb is built */
};

struct roce_afxdp_config {
	const char *ifname;             /* required */
	unsigned queue;                 /* RX/TX queue id (0 on veth) */
	enum roce_afxdp_mode mode;
	unsigned rx_frames;             /* UMEM frames for receive, power of
					 * two; 0 = ROCE_AFX_RX_FRAMES_DEFAULT */
	unsigned tx_frames;             /* for transmit; 0 = default */
	uint32_t ip;                    /* our IPv4, host order; 0 = none */
	uint16_t udp_port;              /* 0 = ROCE_UDP_PORT (4791) */
	bool answer_arp;                /* answer ARP requests for ip */
	/* Share the interface with the kernel's stack: the port's own XDP
	 * program hands the socket only IPv4 and IPv6 UDP frames to
	 * udp_port and passes everything else (ARP, IPv6 neighbour
	 * discovery, TCP) to the kernel, so an interface that carries ip
	 * keeps its ARP and its TCP connections (the tools' exchange). ARP
	 * and neighbour discovery then are the kernel's: the interface must
	 * carry the IPv6 addresses the engine uses; resolve with
	 * roce_neigh_lookup()/roce_arp_resolve() and roce_neigh6_lookup()/
	 * roce_nd_resolve() (roce/afpacket.h), not roce_afxdp_resolve(). */
	bool share_kernel;
	/* Test fault, as the AF_PACKET port's: drop each transmitted frame
	 * with this probability (0 = none), from a PRNG seeded with seed.
	 * Counted as tx_fault_drops. */
	double tx_loss;
	uint64_t seed;
};

struct roce_afxdp_stats {
	uint64_t tx_frames, tx_bytes;   /* submitted to the kernel */
	uint64_t tx_zero_copy;          /* of those, built in place (tx_get) */
	uint64_t tx_too_big;            /* refused: longer than MTU + 14 */
	uint64_t tx_too_short;          /* refused: shorter than 14 bytes */
	uint64_t tx_errors;             /* a kick the kernel refused */
	uint64_t tx_fault_drops;        /* dropped by the tx_loss fault */
	uint64_t rx_frames, rx_bytes;   /* lent to the engine */
	uint64_t rx_dropped;            /* not RoCE for us: dropped */
	uint64_t rx_arp;                /* ARP frames seen (consumed) */
	uint64_t arp_replies;           /* ARP replies sent for our IP */
	uint64_t rx_kernel_drops;       /* the kernel's XDP_STATISTICS:
					 * no fill frame, RX ring full */
};

/*
 * Open a port on cfg->ifname, queue cfg->queue. Returns ROCE_OK, or, with
 * a message naming the interface and the cause written to err:
 *   ROCE_E_INVAL       bad config (name, sizes not powers of two, mode,
 *                      loss outside [0, 1])
 *   ROCE_E_RANGE       sizes out of bounds; an MTU whose frames do not fit
 *                      one UMEM frame (multi-buffer not supported)
 *   ROCE_E_NOENT       no such interface
 *   ROCE_E_LINK_DOWN   interface down
 *   ROCE_E_PERM        not root / missing capabilities
 *   ROCE_E_UNSUPPORTED no AF_XDP (kernel or build), or the forced XDP mode
 *                      refused by the driver
 *   ROCE_E_IO          another kernel refusal (errno text in the message)
 *   ROCE_E_NOMEM
 */
int roce_afxdp_open(const struct roce_afxdp_config *cfg,
		    struct roce_afxdp **out, char *err, size_t errlen);
/* Removes the socket (and libxdp's program with the last one), frees the
 * UMEM. NULL is ignored. The port must not be in use. */
void roce_afxdp_close(struct roce_afxdp *afx);

struct roce_port *roce_afxdp_port(struct roce_afxdp *afx);

/* The XDP mode in use (never AUTO), and mode names ("auto", "native",
 * "generic") both ways. */
enum roce_afxdp_mode roce_afxdp_mode(const struct roce_afxdp *afx);
const char *roce_afxdp_mode_name(enum roce_afxdp_mode mode);
int roce_afxdp_mode_parse(const char *s, enum roce_afxdp_mode *mode);

/* The interface MTU, and the path MTU to use over it (the AF_PACKET
 * port's rule, roce_path_mtu_for_netdev()). */
unsigned roce_afxdp_mtu(const struct roce_afxdp *afx);
enum roce_mtu roce_afxdp_path_mtu(const struct roce_afxdp *afx);

void roce_afxdp_get_stats(struct roce_afxdp *afx, struct roce_afxdp_stats *st);

/* Sleep until a received frame may be waiting, or timeout_us pass (what
 * an idle polling loop calls so it does not spin a core). The port's
 * thread only. True when the socket is readable. */
bool roce_afxdp_wait(struct roce_afxdp *afx, unsigned timeout_us);

/*
 * ARP through the port itself (the kernel sees nothing on this queue):
 * send a request for ip (host order) from our MAC and IP. The reply is
 * consumed by rx_burst() and remembered; roce_afxdp_neigh() looks it up.
 * roce_afxdp_resolve() does both, polling the port (frames that arrive
 * meanwhile are dropped) and repeating the request every
 * ROCE_ARP_RETRY_MS, until a reply or timeout_ms: ROCE_OK,
 * ROCE_E_TIMEOUT, ROCE_E_INVAL (no IP on the port, or ip 0), ROCE_E_FULL
 * (no free TX frame). The port's thread only.
 */
int roce_afxdp_arp_request(struct roce_afxdp *afx, uint32_t ip);
bool roce_afxdp_neigh(const struct roce_afxdp *afx, uint32_t ip, uint8_t mac[6]);
int roce_afxdp_resolve(struct roce_afxdp *afx, uint32_t ip, unsigned timeout_ms,
		       uint8_t mac[6]);

/* ---- what the port does with a received frame (no kernel needed) ------- */

enum roce_afx_class {
	ROCE_AFX_LEND = 0,      /* IPv4/IPv6 UDP to udp_port for mac: RoCE */
	ROCE_AFX_ARP,           /* ARP: the port consumes it */
	ROCE_AFX_DROP,          /* anything else */
};

/* The AF_PACKET port's filter, in C: RoCE is an untagged IPv4 frame (not a
 * non-first fragment) or IPv6 frame to mac carrying UDP to udp_port. */
enum roce_afx_class roce_afxdp_classify(const uint8_t *frame, uint32_t len,
					const uint8_t mac[6], uint16_t udp_port);

#endif
