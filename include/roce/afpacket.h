/* SPDX-License-Identifier: MIT */
/*
 * The raw-Ethernet link: a roce/link.h port on a Linux network interface
 * through an AF_PACKET socket, so an engine talks RoCE v2 to real NICs and
 * to Linux soft-RoCE (rxe). docs/link.md tells the whole story.
 *
 * Modes (how frames cross the kernel boundary):
 *   RING    PACKET_MMAP TPACKET_V2 rings for RX and TX: the RX ring lends
 *           frames in place, rx_release() hands the slots back to the
 *           kernel; TX copies into ring slots and kicks the kernel once per
 *           burst. Lowest latency; the default.
 *   RING_V3 TPACKET_V3 block ring for RX (TX stays a V2 ring): fewer
 *           wake-ups and cache misses per frame at high rates, but a block
 *           reaches user space only when full or after a 1 ms timeout, so
 *           a lone frame waits up to that long. For bulk benchmarks.
 *   MMSG    plain socket calls, recvmmsg()/sendmmsg() bursts into buffers
 *           the port owns (lent until rx_release()). For kernels or
 *           sandboxes without PACKET_MMAP.
 *   AUTO    RING, else MMSG when the rings cannot be set up.
 *
 * The socket sees only what the engine needs: a classic BPF filter passes
 * ARP, and IPv4/IPv6 UDP to the RoCE port addressed to our MAC, nothing the
 * host itself sends (the TCP of an out-of-band exchange never reaches the
 * engine) and nothing that came with a VLAN tag (open the port on the VLAN
 * interface instead). ARP frames are consumed by the port: requests for our IP are
 * answered when answer_arp is set, nothing ARP is lent to the engine. IPv6
 * neighbour discovery is to IPv6 what ARP is to IPv4: solicitations and
 * advertisements are consumed, and with answer_nd a solicitation for one
 * of the port's IPv6 addresses that the kernel does not carry is answered
 * (for those it carries the kernel answers; the port joins the solicited-
 * node groups of the others).
 *
 * The MTU is the interface's: tx_burst() refuses (counts and drops) a frame
 * longer than MTU + 14 bytes (or ROCE_MAX_FRAME). roce_afpacket_path_mtu() gives the largest IB
 * path MTU whose frames fit (1500 -> 1024, 9000 -> 4096, as rxe chooses).
 *
 * Port holding: when the kernel also carries our IPv4 on the interface (it
 * must, for the tools' TCP exchange), a RoCE frame would also reach the
 * kernel's UDP stack, which answers "ICMP port unreachable" when nothing
 * listens on 4791. The port binds a UDP socket to <ip>:<udp_port> (with a
 * filter that drops everything it receives) so the kernel stays silent;
 * and one to [addr]:<udp_port> for each of its IPv6 addresses the kernel
 * carries (an interface with IPv6 on has the link-local one).
 *
 * Threads: one thread drives a port (tx_burst, rx_burst, rx_release; ARP
 * answers go out from rx_burst). roce_afpacket_get_stats() and the
 * resolution functions may run on any thread.
 *
 * Privileges: CAP_NET_RAW (AF_PACKET sockets); nothing else.
 */
#ifndef ROCE_AFPACKET_H
#define ROCE_AFPACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/link.h"
#include "roce/params.h"
#include "roce/regs.h"

struct roce_afpacket;

enum roce_afpacket_mode {
	ROCE_AFP_AUTO = 0,
	ROCE_AFP_RING,          /* TPACKET_V2 RX and TX rings */
	ROCE_AFP_RING_V3,       /* TPACKET_V3 RX blocks, TPACKET_V2 TX ring */
	ROCE_AFP_MMSG,          /* recvmmsg/sendmmsg */
};

struct roce_afpacket_config {
	const char *ifname;             /* required */
	enum roce_afpacket_mode mode;
	unsigned rx_frames;             /* RX ring/buffer frames, power of two;
					 * 0 = ROCE_AFP_RX_FRAMES_DEFAULT */
	unsigned tx_frames;             /* TX ring frames, power of two;
					 * 0 = ROCE_AFP_TX_FRAMES_DEFAULT */
	uint8_t mac[6];                 /* station MAC; all zero = the
					 * interface's. Another MAC puts the
					 * interface in promiscuous mode. */
	uint32_t ip;                    /* our IPv4, host order; 0 = none (no
					 * ARP answers, no port holding) */
	uint16_t udp_port;              /* 0 = ROCE_UDP_PORT (4791) */
	bool answer_arp;                /* answer ARP requests for ip */
	/* the port's IPv6 addresses (the engine's IPv6 GIDs: roce/gid.h) */
	uint8_t ip6[ROCE_MAX_GID][16];
	unsigned n_ip6;
	bool ip6_link_local;            /* and, first, the link-local address
					 * of the station MAC (GID 0) */
	bool answer_nd;                 /* answer neighbour solicitations for
					 * those the kernel does not carry */
	bool no_hold_port;              /* do not bind <ip>:<udp_port> */
	bool no_qdisc_bypass;           /* keep the qdisc on the TX path */
	/* Test fault: drop each transmitted frame with this probability
	 * (0 = none), from a PRNG seeded with seed, so a lossy wire can be
	 * had without tc/netem. Counted as tx_fault_drops. */
	double tx_loss;
	uint64_t seed;
};

struct roce_afpacket_stats {
	uint64_t tx_frames, tx_bytes;   /* handed to the kernel */
	uint64_t tx_too_big;            /* refused: longer than MTU + 14 or
					 * ROCE_MAX_FRAME */
	uint64_t tx_too_short;          /* refused: shorter than 14 bytes */
	uint64_t tx_errors;             /* the kernel refused the frame */
	uint64_t tx_fault_drops;        /* dropped by the tx_loss fault */
	uint64_t rx_frames, rx_bytes;   /* lent to the engine */
	uint64_t rx_truncated;          /* longer than a ring slot: dropped */
	uint64_t rx_arp;                /* ARP frames seen (consumed) */
	uint64_t arp_replies;           /* ARP replies sent for our IP */
	uint64_t rx_nd;                 /* neighbour discovery frames seen
					 * (consumed) */
	uint64_t nd_replies;            /* advertisements sent for our IPv6
					 * addresses */
	uint64_t rx_kernel_drops;       /* the kernel found the ring full */
};

/*
 * Open a port on cfg->ifname. Returns ROCE_OK, or, with a message naming
 * the interface and the cause written to err (errlen bytes, may be NULL):
 *   ROCE_E_INVAL     bad config (NULL, empty or long name, sizes not powers
 *                    of two, loss outside [0, 1], multicast MAC, more
 *                    than ROCE_MAX_GID IPv6 addresses or one that is not
 *                    unicast)
 *   ROCE_E_RANGE     ring sizes out of bounds
 *   ROCE_E_NOENT     no such interface
 *   ROCE_E_PERM      no permission (AF_PACKET needs CAP_NET_RAW)
 *   ROCE_E_LINK_DOWN interface administratively down or without carrier
 *   ROCE_E_UNSUPPORTED not an Ethernet interface, or the forced mode is
 *                    not available
 *   ROCE_E_EXISTS    <ip>:<udp_port> held by another socket that does not
 *                    share it (e.g. rxe on the same host)
 *   ROCE_E_IO        another socket error (errno in the message)
 *   ROCE_E_NOMEM
 */
int roce_afpacket_open(const struct roce_afpacket_config *cfg,
		       struct roce_afpacket **out, char *err, size_t errlen);
/* Unmaps the rings, closes the sockets, leaves promiscuous mode. NULL is
 * ignored. The port must not be in use. */
void roce_afpacket_close(struct roce_afpacket *afp);

/* The engine's port (roce_context_attr.port); its mac is the station MAC. */
struct roce_port *roce_afpacket_port(struct roce_afpacket *afp);

/* The mode in use (never AUTO), and its name ("ring", "ring-v3", "mmsg"). */
enum roce_afpacket_mode roce_afpacket_mode(const struct roce_afpacket *afp);
const char *roce_afpacket_mode_name(enum roce_afpacket_mode mode);
/* "auto", "ring", "ring-v3", "mmsg" -> mode; ROCE_E_INVAL otherwise. */
int roce_afpacket_mode_parse(const char *s, enum roce_afpacket_mode *mode);

/* The interface MTU (IP bytes), and the path MTU to use over it
 * (0 when not even 256 fits). */
unsigned roce_afpacket_mtu(const struct roce_afpacket *afp);
enum roce_mtu roce_afpacket_path_mtu(const struct roce_afpacket *afp);
/* The rule itself: the largest IB MTU m with
 * m + ROCE_AFP_MAX_ROCE_HDRS <= ifmtu + 14 (rxe's choice); 0 if none. */
enum roce_mtu roce_path_mtu_for_netdev(unsigned ifmtu);

/* Sleep until a received frame may be waiting, or timeout_us pass: what a
 * polling loop calls after finding nothing to do for a while, so an idle
 * port does not spin a core. The port's thread only. Returns true when the
 * socket is readable. */
bool roce_afpacket_wait(struct roce_afpacket *afp, unsigned timeout_us);

/* Whether the kernel socket holds <ip>:<udp_port> (see port holding). */
bool roce_afpacket_port_held(const struct roce_afpacket *afp);
unsigned roce_afpacket_ifindex(const struct roce_afpacket *afp);

/* Counters; exact once the port's thread is idle. */
void roce_afpacket_get_stats(struct roce_afpacket *afp,
			     struct roce_afpacket_stats *st);

/* ---- address resolution (ip is host order) ------------------------------ */

/*
 * The peer's MAC for ip: the kernel's neighbour table first (when the
 * kernel owns an address on the interface it has probably resolved it),
 * else an ARP request from our MAC and IP, repeated every
 * ROCE_ARP_RETRY_MS, until a reply arrives or timeout_ms pass.
 * ROCE_OK, ROCE_E_TIMEOUT, ROCE_E_INVAL (ip 0 or broadcast, or the port
 * has no IP), ROCE_E_IO. Thread-safe: it uses its own socket, so the
 * port's thread keeps running the data path meanwhile.
 */
int roce_afpacket_resolve(struct roce_afpacket *afp, uint32_t ip,
			  unsigned timeout_ms, uint8_t mac[6]);

/* The kernel's neighbour table only (SIOCGARP): ROCE_OK with a complete
 * entry, ROCE_E_NOENT without one, ROCE_E_IO on a socket error. */
int roce_neigh_lookup(const char *ifname, uint32_t ip, uint8_t mac[6]);

/* The interface's IPv4 address (host order; its primary one, SIOCGIFADDR),
 * 0 if it has none or does not exist. */
uint32_t roce_netdev_ipv4(const char *ifname);
/* Whether the kernel carries ip on ifname (then it answers ARP for it,
 * and the port holds the UDP port); false also when ifname is unknown. */
bool roce_netdev_has_ipv4(const char *ifname, uint32_t ip);
/* The same for an IPv6 address (it answers neighbour discovery for it). */
bool roce_netdev_has_ipv6(const char *ifname, const uint8_t addr[16]);
/* The interface's IPv6 addresses other than link-local ones (the GID
 * table's entries 2..): up to max of them into addrs; how many. */
unsigned roce_netdev_ipv6_addrs(const char *ifname, uint8_t (*addrs)[16],
				unsigned max);

/* ---- IPv6 neighbour resolution -------------------------------------------- */

/*
 * The peer's MAC for an IPv6 address: the kernel's neighbour table first
 * (roce_neigh6_lookup), else a neighbour solicitation from our MAC and
 * src (one of our addresses; its link-local one, as Linux asks), repeated
 * every ROCE_ARP_RETRY_MS, until an advertisement arrives or timeout_ms
 * pass. ROCE_OK, ROCE_E_TIMEOUT, ROCE_E_INVAL (addr not unicast),
 * ROCE_E_IO; roce_nd_resolve also ROCE_E_NOENT (no such interface),
 * ROCE_E_PERM. Thread-safe: its own socket. idle (may be NULL) runs every
 * millisecond of the wait: a program that drives its port from this
 * thread polls it there, so that its port answers the peer's
 * solicitations meanwhile (two such programs resolving each other at once
 * would otherwise both wait).
 */
int roce_afpacket_resolve6(struct roce_afpacket *afp, const uint8_t addr[16],
			   unsigned timeout_ms, uint8_t mac[6],
			   unsigned (*idle)(void *arg), void *arg);
int roce_nd_resolve(const char *ifname, const uint8_t our_mac[6],
		    const uint8_t src[16], const uint8_t addr[16],
		    unsigned timeout_ms, uint8_t mac[6],
		    unsigned (*idle)(void *arg), void *arg);
/* The kernel's IPv6 neighbour table (netlink): ROCE_OK with a usable entry
 * (reachable, stale, delay, probe, permanent), ROCE_E_NOENT without one,
 * ROCE_E_IO on a socket error. */
int roce_neigh6_lookup(const char *ifname, const uint8_t addr[16], uint8_t mac[6]);

/* ARP only, on ifname (by its own AF_PACKET socket), from our_mac and
 * our_ip (0 = an ARP probe, RFC 5227). Same returns as _resolve, plus
 * ROCE_E_NOENT (no such interface) and ROCE_E_PERM. */
int roce_arp_resolve(const char *ifname, const uint8_t our_mac[6],
		     uint32_t our_ip, uint32_t ip, unsigned timeout_ms,
		     uint8_t mac[6]);

#endif
