/* SPDX-License-Identifier: MIT */
/* Fault decisions of the in-memory link (see memlink_fault.h). */
#include <math.h>

#include "roce/params.h"
#include "roce/wire/bth.h"
#include "roce/wire/eth.h"
#include "roce/wire/ip.h"
#include "roce/wire/udp.h"
#include "link/memlink_fault.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void ml_prng_seed(struct ml_prng *p, uint64_t seed, unsigned stream)
{
	/* one stream per port: the seed plus the port's index, spread out */
	uint64_t x = seed + (uint64_t)stream * 0xD1B54A32D192ED03ull;

	for (unsigned i = 0; i < 4; i++)
		p->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ml_prng_next(struct ml_prng *p)
{
	uint64_t *s = p->s;
	uint64_t r = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

bool ml_prob_valid(double p)
{
	return !isnan(p) && p >= 0.0 && p <= 1.0;
}

uint64_t ml_fault_thresh(double p)
{
	if (!(p > 0.0))
		return 0;
	if (p >= 1.0)
		return ML_THRESH_ONE;
	return (uint64_t)(p * (double)ML_THRESH_ONE);
}

void ml_fault_decide(struct ml_prng *p, const uint64_t thresh[ML_NFAULTS],
		     const uint8_t *frame, uint32_t len, struct ml_verdict *v)
{
	uint64_t a = ml_prng_next(p), b = ml_prng_next(p), c = ml_prng_next(p);

	v->lost = (a & 0xFFFFFFFFu) < thresh[ML_LOSS];
	v->dup = (b & 0xFFFFFFFFu) < thresh[ML_DUP];
	v->hold = (b >> 32) < thresh[ML_REORDER];
	v->flip = -1;
	if ((a >> 32) < thresh[ML_CORRUPT])
		v->flip = ml_corrupt_pick(frame, len, (uint32_t)c);
}

/* ---- where a corruption may land ---------------------------------------- */

/* [start, end) minus sorted, disjoint excluded byte ranges. */
struct region {
	uint32_t start, end;
	uint32_t ex_off[3], ex_len[3];
	unsigned nex;
};

static void exclude(struct region *g, uint32_t off, uint32_t len)
{
	if (off >= g->start && off + len <= g->end) {
		g->ex_off[g->nex] = off;
		g->ex_len[g->nex++] = len;
	}
}

/* BTH resv8a (FECN/BECN) is masked out of the ICRC (IBA A17.8.1) and no
 * other check covers it: a flip there is a legal rewrite, not damage. */
static void exclude_bth_resv(struct region *g, const uint8_t *f, uint32_t udp)
{
	const struct roce_udp_hdr *u = (const void *)(f + udp);

	if (udp + ROCE_UDP_HLEN + ROCE_BTH_LEN <= g->end &&
	    roce_udp_dport(u) == ROCE_UDP_PORT)
		exclude(g, udp + ROCE_UDP_HLEN + 4, 1);
}

static void region_ipv4(struct region *g, const uint8_t *f)
{
	const struct roce_ipv4_hdr *ip = (const void *)(f + g->start);
	uint32_t tot, ihl;

	if (g->end - g->start < ROCE_IPV4_HLEN || roce_ipv4_version(ip) != 4)
		return;
	tot = roce_ipv4_tot_len(ip);
	ihl = roce_ipv4_hlen(ip);
	/* the header checksum covers TOS and TTL; Ethernet padding after
	 * the packet is covered by nothing but the FCS */
	if (tot >= ROCE_IPV4_HLEN && g->start + tot <= g->end)
		g->end = g->start + tot;
	if (ip->protocol == ROCE_IPPROTO_UDP && ihl >= ROCE_IPV4_HLEN)
		exclude_bth_resv(g, f, g->start + ihl);
}

static void region_ipv6(struct region *g, const uint8_t *f)
{
	const struct roce_ipv6_hdr *ip = (const void *)(f + g->start);
	uint32_t l3 = g->start, plen;

	if (g->end - l3 < ROCE_IPV6_HLEN || roce_ipv6_version(ip) != 6)
		return;
	plen = roce_ipv6_payload_len(ip);
	if (l3 + ROCE_IPV6_HLEN + plen <= g->end)
		g->end = l3 + ROCE_IPV6_HLEN + plen;
	/* version, traffic class, flow label; hop limit: masked in the ICRC
	 * and IPv6 has no header checksum */
	exclude(g, l3, 4);
	exclude(g, l3 + 7, 1);
	if (ip->next_hdr == ROCE_IPPROTO_UDP)
		exclude_bth_resv(g, f, l3 + ROCE_IPV6_HLEN);
}

static uint32_t region_of(const uint8_t *frame, uint32_t len, struct region *g)
{
	const struct roce_eth_hdr *eth = (const void *)frame;
	uint32_t bytes;
	uint16_t type;

	*g = (struct region){ .start = ROCE_ETH_HLEN, .end = len };
	if (len <= ROCE_ETH_HLEN)
		return 0;
	type = roce_eth_type(eth);
	if (type == ROCE_ETHERTYPE_VLAN) {
		if (len <= ROCE_ETH_HLEN + ROCE_VLAN_HLEN)
			return 0;
		type = roce_vlan_type((const struct roce_vlan_tag *)(frame + ROCE_ETH_HLEN));
		g->start += ROCE_VLAN_HLEN;
	}
	if (type == ROCE_ETHERTYPE_IPV4)
		region_ipv4(g, frame);
	else if (type == ROCE_ETHERTYPE_IPV6)
		region_ipv6(g, frame);
	bytes = g->end - g->start;
	for (unsigned i = 0; i < g->nex; i++)
		bytes -= g->ex_len[i];
	return bytes * 8;
}

uint32_t ml_corrupt_bits(const uint8_t *frame, uint32_t len)
{
	struct region g;

	return region_of(frame, len, &g);
}

int32_t ml_corrupt_pick(const uint8_t *frame, uint32_t len, uint32_t r)
{
	struct region g;
	uint32_t nbits = region_of(frame, len, &g), bit, off;

	if (!nbits)
		return -1;
	bit = (uint32_t)(((uint64_t)r * nbits) >> 32);
	off = g.start + bit / 8;
	for (unsigned i = 0; i < g.nex; i++)
		if (off >= g.ex_off[i])
			off += g.ex_len[i];
	return (int32_t)(off * 8 + bit % 8);
}
