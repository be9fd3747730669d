/* SPDX-License-Identifier: MIT */
/*
 * One way to open a link port: a kind (the in-memory link, AF_PACKET or
 * AF_XDP on a network interface), the interface and queue, our addresses,
 * and roce_link_open() chooses and configures the port, resolves what the
 * interface has (its MAC, IPv4 and IPv6 addresses, MTU), answers ARP and
 * neighbour discovery as asked and says why, in words, when it cannot.
 * The tools, the drop-in libibverbs and roced all open their port here,
 * then hand roce_link_port() and roce_link_info()'s addresses to
 * roce_open() (roce/verbs.h).
 *
 * The kinds' own headers (roce/memlink.h, roce/afpacket.h, roce/afxdp.h)
 * stay the reference for what each port does; roce_link_afpacket() and
 * roce_link_afxdp() reach the port under a link for its counters and
 * modes.
 *
 * Threads: as the port's (one thread drives it). roce_link_resolve*() on
 * an AF_XDP port that answers ARP itself run on the port's thread; the
 * others may run on any thread (their own sockets).
 */
#ifndef ROCE_LINK_OPEN_H
#define ROCE_LINK_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/afpacket.h"
#include "roce/afxdp.h"
#include "roce/link.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/regs.h"

/* The IPv6 addresses beyond the link-local GID: GIDs 2.. of the table
 * (roce/gid.h; 0 is the link-local GID, 1 the IPv4 one), as many as
 * roce_context_attr.ip6 holds. */
#define ROCE_LINK_MAX_IP6 (ROCE_MAX_GID - 2u)

enum roce_link_kind {
	ROCE_LINK_PACKET = 0,   /* AF_PACKET on an interface (roce/afpacket.h);
				 * the default */
	ROCE_LINK_XDP,          /* AF_XDP on one queue of an interface
				 * (roce/afxdp.h) */
	ROCE_LINK_MEMLINK,      /* a port of an in-memory link (roce/memlink.h) */
	/* Kinds to come, named so that programs and messages can: opening
	 * them answers ROCE_E_UNSUPPORTED for now. */
	ROCE_LINK_NS3,          /* a port into an ns-3 simulation */
	ROCE_LINK_SHARED,       /* an interface's port shared by several
				 * processes */
	ROCE_LINK_KINDS
};

/* Who answers ARP requests for our IPv4 address. On AF_XDP the port that
 * answers takes the whole queue (the kernel sees nothing on it, the
 * program's TCP included); otherwise the port shares the interface with
 * the kernel's stack and receives only RoCE (roce_afxdp_config's
 * share_kernel). The in-memory link has no ARP (see roce_link_resolve). */
enum roce_link_arp {
	ROCE_LINK_ARP_AUTO = 0, /* the port, when the kernel does not carry the
				 * address on the interface */
	ROCE_LINK_ARP_PORT,     /* the port */
	ROCE_LINK_ARP_KERNEL,   /* the kernel: the interface must carry the
				 * address (refused otherwise) */
	ROCE_LINK_ARP_NONE,     /* nobody here: the peers know our MAC */
};

struct roce_link_spec {
	enum roce_link_kind kind;
	/* ROCE_LINK_PACKET, ROCE_LINK_XDP */
	const char *ifname;             /* the interface; required */
	unsigned queue;                 /* XDP: the RX/TX queue (0 on veth) */
	enum roce_afpacket_mode packet_mode; /* PACKET: 0 = auto */
	enum roce_afxdp_mode xdp_mode;  /* XDP: 0 = auto (native, else generic) */
	enum roce_link_arp arp;
	bool no_netdev_ip6;             /* leave the interface's own IPv6
					 * addresses out of the GID table */
	/* ROCE_LINK_MEMLINK */
	struct roce_memlink *memlink;   /* the link to attach a port to */
	uint8_t mac[6];                 /* the port's MAC; all zero:
					 * 02:00 and ip's four bytes */
	/* every kind */
	uint32_t ip;                    /* ours, host order; 0 = the
					 * interface's (none on the in-memory
					 * link, nor on an interface without
					 * one) */
	uint8_t ip6[ROCE_LINK_MAX_IP6][16]; /* IPv6 addresses of ours beyond
					 * those the interface carries */
	unsigned n_ip6;
};

/* What the link resolved: the engine's addresses for roce_open(). */
struct roce_link_info {
	enum roce_link_kind kind;
	char ifname[16];                /* "" on the in-memory link */
	uint8_t mac[6];                 /* the station MAC */
	uint32_t ip;                    /* host order; 0 = none */
	/* the GID table's IPv6 addresses but the link-local one: the
	 * interface's (unless no_netdev_ip6), then the spec's */
	uint8_t ip6[ROCE_LINK_MAX_IP6][16];
	unsigned n_ip6;
	unsigned mtu;                   /* the interface's (IP bytes); 0 on the
					 * in-memory link */
	enum roce_mtu path_mtu;         /* the largest the link carries (the
					 * port's active MTU) */
	bool arp_answered;              /* the port answers ARP for ip */
};

struct roce_link;

/*
 * Open the port spec asks for. ROCE_OK, or a status with a message
 * (naming the interface and the cause) in err (errlen bytes; may be NULL):
 *   ROCE_E_INVAL       no spec or out, an unknown kind, no interface or
 *                      no memlink for the kind, a name too long, n_ip6
 *                      beyond the array; with
 *                      ROCE_LINK_ARP_KERNEL an address the interface does
 *                      not carry
 *   ROCE_E_FULL        more IPv6 addresses than the GID table holds
 *   ROCE_E_RANGE       an interface MTU too small for RoCE, or one whose
 *                      frames an AF_XDP UMEM frame cannot hold
 *   ROCE_E_UNSUPPORTED a kind not implemented (ns-3, shared), a build
 *                      without AF_XDP, a forced mode the kernel lacks
 *   and the port's own: ROCE_E_NOENT (no such interface), ROCE_E_PERM
 *   (missing capability: CAP_NET_RAW, or root for AF_XDP),
 *   ROCE_E_LINK_DOWN, ROCE_E_EXISTS, ROCE_E_IO, ROCE_E_NOMEM.
 */
int roce_link_open(const struct roce_link_spec *spec, struct roce_link **out,
		   char *err, size_t errlen);
/* Closes the port. NULL is ignored. No engine may be using it. A port of
 * an in-memory link stays on it (with its MAC) until
 * roce_memlink_destroy(): the in-memory link has no detach. */
void roce_link_close(struct roce_link *link);

/* The engine's port (roce_context_attr.port). */
struct roce_port *roce_link_port(struct roce_link *link);
const struct roce_link_info *roce_link_info(const struct roce_link *link);
/* The port under the link, NULL for another kind. */
struct roce_afpacket *roce_link_afpacket(struct roce_link *link);
struct roce_afxdp *roce_link_afxdp(struct roce_link *link);
/* The port's mode: "ring", "ring-v3", "mmsg" (AF_PACKET), "native",
 * "generic" (AF_XDP), "memlink". */
const char *roce_link_mode_name(const struct roce_link *link);

/* Sleep until a frame may be waiting or timeout_us pass (an idle polling
 * loop's nap, on the port's thread); true when one may be. The in-memory
 * link does not wait: false at once. */
bool roce_link_wait(struct roce_link *link, unsigned timeout_us);

/*
 * The peer's MAC for an IPv4 address (host order), as the link finds it:
 * AF_PACKET, the kernel's neighbour table or the port's ARP
 * (roce_afpacket_resolve); AF_XDP sharing the interface, the kernel's
 * table or ARP from our own socket; AF_XDP answering ARP itself, the
 * port's (roce_afxdp_resolve, its thread only); the in-memory link, the
 * MAC a port gets from its address (02:00 and the four bytes). ROCE_OK,
 * ROCE_E_TIMEOUT, ROCE_E_INVAL, ROCE_E_IO, ...
 */
int roce_link_resolve(struct roce_link *link, uint32_t ip, unsigned timeout_ms,
		      uint8_t mac[6]);
/* The same for an IPv6 GID: neighbour discovery (roce_afpacket_resolve6,
 * or the kernel's table and roce_nd_resolve() from our link-local
 * address); idle (may be NULL) runs every millisecond of a wait. The
 * in-memory link resolves link-local GIDs only (their MAC is in them):
 * ROCE_E_UNSUPPORTED for another. */
int roce_link_resolve6(struct roce_link *link, const uint8_t gid[16],
		       unsigned timeout_ms, uint8_t mac[6],
		       unsigned (*idle)(void *arg), void *arg);

/* Kind names: "packet", "xdp", "memlink", "ns3", "shared" ("?" for
 * another value). */
const char *roce_link_kind_name(enum roce_link_kind kind);
/* The tools' --link: "packet" or "xdp" (the kinds opened on an interface
 * by name) -> kind; ROCE_E_INVAL for anything else. */
int roce_link_kind_parse(const char *s, enum roce_link_kind *kind);

#endif
