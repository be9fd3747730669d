/* SPDX-License-Identifier: MIT */
/*
 * roce_link_open (roce/link_open.h): the one place where a kind and an
 * interface become a port. It decides what each port kind is told (who
 * answers ARP, which IPv6 addresses the port answers for, whether AF_XDP
 * shares the interface with the kernel), checks what the port cannot
 * check for itself (an address the kernel must carry, the room in the
 * GID table, an MTU too small for RoCE) and keeps the addresses the
 * engine needs, so that every program that opens a port does it the
 * same way and says the same thing when it cannot.
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/netdev_util.h"
#include "roce/gid.h"
#include "roce/link_open.h"
#include "roce/status.h"

struct roce_link {
	struct roce_link_info info;
	struct roce_afpacket *afp;      /* ROCE_LINK_PACKET */
	struct roce_afxdp *afx;         /* ROCE_LINK_XDP */
	bool xdp_shared;                /* the kernel keeps ARP and ND */
	struct roce_port mport;         /* ROCE_LINK_MEMLINK */
};

static const char *const kind_names[ROCE_LINK_KINDS] = {
	[ROCE_LINK_PACKET] = "packet",
	[ROCE_LINK_XDP] = "xdp",
	[ROCE_LINK_MEMLINK] = "memlink",
	[ROCE_LINK_NS3] = "ns3",
	[ROCE_LINK_SHARED] = "shared",
};

const char *roce_link_kind_name(enum roce_link_kind kind)
{
	return (unsigned)kind < ROCE_LINK_KINDS ? kind_names[kind] : "?";
}

int roce_link_kind_parse(const char *s, enum roce_link_kind *kind)
{
	if (s && !strcmp(s, "packet"))
		*kind = ROCE_LINK_PACKET;
	else if (s && !strcmp(s, "xdp"))
		*kind = ROCE_LINK_XDP;
	else
		return ROCE_E_INVAL;
	return ROCE_OK;
}

static void ip_str(uint32_t ip, char *s, size_t n)
{
	snprintf(s, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
		 ip & 255);
}

/* The in-memory link has no ARP: a port's MAC is made from its IPv4
 * address, so a peer's is known from its address. */
static void memlink_mac(uint32_t ip, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x00;
	mac[2] = (uint8_t)(ip >> 24);
	mac[3] = (uint8_t)(ip >> 16);
	mac[4] = (uint8_t)(ip >> 8);
	mac[5] = (uint8_t)ip;
}

/* The GID table's IPv6 addresses but the link-local one: the interface's
 * (as the kernel adds them for rxe), then the spec's. */
static int collect_ip6(struct roce_link_info *in, const struct roce_link_spec *s,
		       char *err, size_t errlen)
{
	if (s->kind != ROCE_LINK_MEMLINK && !s->no_netdev_ip6)
		in->n_ip6 = roce_netdev_ipv6_addrs(s->ifname, in->ip6, ROCE_LINK_MAX_IP6);
	for (unsigned i = 0; i < s->n_ip6; i++) {
		if (in->n_ip6 == ROCE_LINK_MAX_IP6)
			return netdev_fail(err, errlen, ROCE_E_FULL, "more than %u IPv6 "
					   "addresses (the GID table holds %u)",
					   ROCE_LINK_MAX_IP6, ROCE_MAX_GID);
		memcpy(in->ip6[in->n_ip6++], s->ip6[i], 16);
	}
	return ROCE_OK;
}

static int open_memlink(struct roce_link *l, const struct roce_link_spec *s,
			char *err, size_t errlen)
{
	static const uint8_t zero[6];
	int st;

	memcpy(l->info.mac, s->mac, 6);
	if (!memcmp(l->info.mac, zero, 6))
		memlink_mac(l->info.ip, l->info.mac);
	st = roce_memlink_attach(s->memlink, l->info.mac, &l->mport);
	if (st)
		return netdev_fail(err, errlen, st, "in-memory link: %s",
				   roce_status_str(st));
	l->info.path_mtu = ROCE_MTU_4096;
	return ROCE_OK;
}

/* Whether the port answers ARP for ip (spec->arp); ROCE_LINK_ARP_KERNEL
 * refuses an address the kernel does not carry, since nobody would. */
static int arp_answered(const struct roce_link_spec *s, uint32_t ip, bool *answer,
			char *err, size_t errlen)
{
	bool carried = roce_netdev_has_ipv4(s->ifname, ip);
	char a[16];

	switch (s->arp) {
	case ROCE_LINK_ARP_AUTO:
		*answer = !carried;
		return ROCE_OK;
	case ROCE_LINK_ARP_PORT:
		*answer = true;
		return ROCE_OK;
	case ROCE_LINK_ARP_NONE:
		*answer = false;
		return ROCE_OK;
	case ROCE_LINK_ARP_KERNEL:
		*answer = false;
		if (carried)
			return ROCE_OK;
		if (!if_nametoindex(s->ifname))
			return netdev_fail(err, errlen, ROCE_E_NOENT, "%s: no such interface",
					   s->ifname);
		ip_str(ip, a, sizeof(a));
		return netdev_fail(err, errlen, ROCE_E_INVAL, "%s must carry our address "
				   "(%s): the kernel answers ARP for it", s->ifname, a);
	}
	return netdev_fail(err, errlen, ROCE_E_INVAL, "ARP: %d is not a choice", (int)s->arp);
}

/*
 * AF_PACKET: the port answers neighbour discovery for those of its IPv6
 * addresses the kernel does not carry (for the others the kernel does),
 * the link-local one of its MAC first; ARP as the spec says (two answers,
 * the kernel's and ours, would confuse a peer).
 */
static int open_packet(struct roce_link *l, const struct roce_link_spec *s,
		       char *err, size_t errlen)
{
	struct roce_afpacket_config ac = {
		.ifname = s->ifname, .mode = s->packet_mode, .ip = l->info.ip,
		.ip6_link_local = true, .answer_nd = true,
		.n_ip6 = l->info.n_ip6,
	};
	int st = arp_answered(s, l->info.ip, &ac.answer_arp, err, errlen);

	memcpy(ac.ip6, l->info.ip6, sizeof(l->info.ip6));
	if (st || (st = roce_afpacket_open(&ac, &l->afp, err, errlen)) != ROCE_OK)
		return st;
	l->info.arp_answered = ac.answer_arp;
	l->info.mtu = roce_afpacket_mtu(l->afp);
	l->info.path_mtu = roce_afpacket_path_mtu(l->afp);
	return ROCE_OK;
}

/*
 * AF_XDP: a port that answers ARP must see it, so it takes the whole
 * queue; otherwise it shares the interface with the kernel, which keeps
 * ARP, neighbour discovery and the program's TCP, and the port gets only
 * RoCE (roce_afxdp_config.share_kernel).
 */
static int open_xdp(struct roce_link *l, const struct roce_link_spec *s,
		    char *err, size_t errlen)
{
	struct roce_afxdp_config xc = {
		.ifname = s->ifname, .queue = s->queue, .mode = s->xdp_mode,
		.ip = l->info.ip,
	};
	int st = arp_answered(s, l->info.ip, &xc.answer_arp, err, errlen);

	xc.share_kernel = !xc.answer_arp;
	l->xdp_shared = xc.share_kernel;
	if (st || (st = roce_afxdp_open(&xc, &l->afx, err, errlen)) != ROCE_OK)
		return st;
	l->info.arp_answered = xc.answer_arp;
	l->info.mtu = roce_afxdp_mtu(l->afx);
	l->info.path_mtu = roce_afxdp_path_mtu(l->afx);
	return ROCE_OK;
}

/* What the kind needs before anything is opened. */
static int check_spec(const struct roce_link_spec *s, char *err, size_t errlen)
{
	if (s->n_ip6 > ROCE_LINK_MAX_IP6)
		return netdev_fail(err, errlen, ROCE_E_INVAL, "%u IPv6 addresses: at most "
				   "%u", s->n_ip6, ROCE_LINK_MAX_IP6);
	switch (s->kind) {
	case ROCE_LINK_PACKET:
	case ROCE_LINK_XDP:
		if (!s->ifname || !*s->ifname)
			return netdev_fail(err, errlen, ROCE_E_INVAL, "%s link: no interface",
					   kind_names[s->kind]);
		if (strlen(s->ifname) >= IFNAMSIZ)
			return netdev_fail(err, errlen, ROCE_E_INVAL, "%s: interface name "
					   "too long (at most %u characters)", s->ifname,
					   IFNAMSIZ - 1);
		return ROCE_OK;
	case ROCE_LINK_MEMLINK:
		if (!s->memlink)
			return netdev_fail(err, errlen, ROCE_E_INVAL, "in-memory link: no "
					   "link to attach to");
		return ROCE_OK;
	case ROCE_LINK_NS3:
	case ROCE_LINK_SHARED:
		return netdev_fail(err, errlen, ROCE_E_UNSUPPORTED, "the %s link is not "
				   "implemented yet", kind_names[s->kind]);
	case ROCE_LINK_KINDS:
		break;
	}
	return netdev_fail(err, errlen, ROCE_E_INVAL, "unknown link kind %d", (int)s->kind);
}

int roce_link_open(const struct roce_link_spec *spec, struct roce_link **out,
		   char *err, size_t errlen)
{
	struct roce_link *l;
	int st;

	if (out)
		*out = NULL;
	if (!spec || !out)
		return netdev_fail(err, errlen, ROCE_E_INVAL, "link: no spec or no handle");
	if ((st = check_spec(spec, err, errlen)) != ROCE_OK)
		return st;
	l = calloc(1, sizeof(*l));
	if (!l)
		return netdev_fail(err, errlen, ROCE_E_NOMEM, "link: out of memory");
	l->info.kind = spec->kind;
	l->info.ip = spec->ip;
	if (spec->kind != ROCE_LINK_MEMLINK) {
		snprintf(l->info.ifname, sizeof(l->info.ifname), "%s", spec->ifname);
		if (!l->info.ip)
			l->info.ip = roce_netdev_ipv4(spec->ifname);
	}
	st = collect_ip6(&l->info, spec, err, errlen);
	if (st == ROCE_OK)
		st = spec->kind == ROCE_LINK_MEMLINK ? open_memlink(l, spec, err, errlen) :
		     spec->kind == ROCE_LINK_XDP ? open_xdp(l, spec, err, errlen) :
		     open_packet(l, spec, err, errlen);
	if (st == ROCE_OK)      /* the station MAC: the interface's, or the spec's */
		memcpy(l->info.mac, roce_link_port(l)->mac, 6);
	if (st == ROCE_OK && !l->info.path_mtu)
		st = netdev_fail(err, errlen, ROCE_E_RANGE, "%s: MTU %u is too small for "
				 "RoCE", l->info.ifname, l->info.mtu);
	if (st) {
		roce_link_close(l);
		return st;
	}
	*out = l;
	return ROCE_OK;
}

void roce_link_close(struct roce_link *l)
{
	if (!l)
		return;
	roce_afpacket_close(l->afp);
	roce_afxdp_close(l->afx);
	free(l);
}

struct roce_port *roce_link_port(struct roce_link *l)
{
	return l->afp ? roce_afpacket_port(l->afp) :
	       l->afx ? roce_afxdp_port(l->afx) : &l->mport;
}

const struct roce_link_info *roce_link_info(const struct roce_link *l)
{
	return &l->info;
}

struct roce_afpacket *roce_link_afpacket(struct roce_link *l)
{
	return l->afp;
}

struct roce_afxdp *roce_link_afxdp(struct roce_link *l)
{
	return l->afx;
}

const char *roce_link_mode_name(const struct roce_link *l)
{
	return l->afp ? roce_afpacket_mode_name(roce_afpacket_mode(l->afp)) :
	       l->afx ? roce_afxdp_mode_name(roce_afxdp_mode(l->afx)) :
	       kind_names[l->info.kind];
}

bool roce_link_wait(struct roce_link *l, unsigned timeout_us)
{
	return l->afp ? roce_afpacket_wait(l->afp, timeout_us) :
	       l->afx ? roce_afxdp_wait(l->afx, timeout_us) : false;
}

int roce_link_resolve(struct roce_link *l, uint32_t ip, unsigned timeout_ms,
		      uint8_t mac[6])
{
	if (l->afp)
		return roce_afpacket_resolve(l->afp, ip, timeout_ms, mac);
	if (l->afx && !l->xdp_shared)
		return roce_afxdp_resolve(l->afx, ip, timeout_ms, mac);
	if (l->afx)
		return roce_neigh_lookup(l->info.ifname, ip, mac) == ROCE_OK ? ROCE_OK :
		       roce_arp_resolve(l->info.ifname, l->info.mac, l->info.ip, ip,
					timeout_ms, mac);
	memlink_mac(ip, mac);
	return ROCE_OK;
}

int roce_link_resolve6(struct roce_link *l, const uint8_t gid[16],
		       unsigned timeout_ms, uint8_t mac[6],
		       unsigned (*idle)(void *arg), void *arg)
{
	uint8_t ll[16];

	if (l->afp)
		return roce_afpacket_resolve6(l->afp, gid, timeout_ms, mac, idle, arg);
	if (l->afx && !l->xdp_shared)
		return ROCE_E_UNSUPPORTED;      /* the port drops neighbour discovery */
	if (l->afx) {
		/* the kernel answers for us; we ask from our link-local
		 * address, which the interface carries */
		roce_gid_link_local(l->info.mac, ll);
		return roce_neigh6_lookup(l->info.ifname, gid, mac) == ROCE_OK ? ROCE_OK :
		       roce_nd_resolve(l->info.ifname, l->info.mac, ll, gid, timeout_ms, mac,
				       idle, arg);
	}
	/* no neighbour discovery on the in-memory link: a link-local GID
	 * carries its MAC (rdma_get_ll_mac undoes the EUI-64) */
	if (gid[0] != 0xfe || (gid[1] & 0xc0) != 0x80)
		return ROCE_E_UNSUPPORTED;
	mac[0] = gid[8] ^ 0x02;
	mac[1] = gid[9];
	mac[2] = gid[10];
	mac[3] = gid[13];
	mac[4] = gid[14];
	mac[5] = gid[15];
	return ROCE_OK;
}
