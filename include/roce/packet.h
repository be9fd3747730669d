/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 frames: parse (bounds-checked, one reason per rejection) and build,
 * both driven by the opcode table.
 *
 * roce_parse() validates a frame and records where each header is; the
 * data path reads fields straight from the wire through the accessors of
 * the roce/wire/ headers. roce_decode() turns a parsed frame into struct roce_hdrs,
 * every field in host order, and roce_build() turns such a struct plus a
 * payload back into the exact bytes (tools, tests, control packets).
 */
#ifndef ROCE_PACKET_H
#define ROCE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/opcode.h"
#include "roce/wire/bth.h"
#include "roce/wire/eth.h"
#include "roce/wire/ext.h"
#include "roce/wire/ip.h"
#include "roce/wire/udp.h"

/* A parsed frame: offsets into the caller's buffer, nothing copied. */
struct roce_pkt {
	const uint8_t *frame;
	uint32_t frame_len;
	uint16_t l3_off;                /* IP header */
	uint16_t l4_off;                /* UDP header */
	uint16_t bth_off;               /* BTH */
	uint16_t ethertype;             /* inner EtherType (after VLAN) */
	bool vlan;
	bool ipv6;
	uint8_t opcode;
	uint8_t pad;                    /* BTH PadCnt */
	const struct roce_opcode_info *op;
	uint32_t payload_off;           /* after the extension headers */
	uint32_t payload_len;           /* without pad */
	uint32_t icrc_off;
	uint32_t trailer_len;           /* Ethernet padding after the IP packet */
	uint32_t icrc_wire;             /* as stored (little-endian read) */
};

static inline const struct roce_bth *roce_pkt_bth(const struct roce_pkt *p)
{
	return (const struct roce_bth *)(p->frame + p->bth_off);
}

/* Pointer to extension header h, or NULL when this opcode has none. */
static inline const uint8_t *roce_pkt_hdr(const struct roce_pkt *p, enum roce_hdr h)
{
	return roce_op_has(p->op, h) ? p->frame + p->bth_off + p->op->off[h] : NULL;
}

/* Typed extension headers of a parsed packet, NULL when its opcode has
 * none of that kind. */
static inline const struct roce_reth *roce_pkt_reth(const struct roce_pkt *p)
{
	return (const struct roce_reth *)roce_pkt_hdr(p, ROCE_HDR_RETH);
}

static inline const struct roce_aeth *roce_pkt_aeth(const struct roce_pkt *p)
{
	return (const struct roce_aeth *)roce_pkt_hdr(p, ROCE_HDR_AETH);
}

static inline const struct roce_atomiceth *roce_pkt_atomiceth(const struct roce_pkt *p)
{
	return (const struct roce_atomiceth *)roce_pkt_hdr(p, ROCE_HDR_ATMETH);
}

static inline const struct roce_atomicacketh *roce_pkt_atomicack(const struct roce_pkt *p)
{
	return (const struct roce_atomicacketh *)roce_pkt_hdr(p, ROCE_HDR_ATMACK);
}

static inline const struct roce_deth *roce_pkt_deth(const struct roce_pkt *p)
{
	return (const struct roce_deth *)roce_pkt_hdr(p, ROCE_HDR_DETH);
}

static inline const struct roce_immdt *roce_pkt_immdt(const struct roce_pkt *p)
{
	return (const struct roce_immdt *)roce_pkt_hdr(p, ROCE_HDR_IMMDT);
}

static inline const struct roce_ieth *roce_pkt_ieth(const struct roce_pkt *p)
{
	return (const struct roce_ieth *)roce_pkt_hdr(p, ROCE_HDR_IETH);
}

static inline const struct roce_ipv4_hdr *roce_pkt_ipv4(const struct roce_pkt *p)
{
	return p->ipv6 ? NULL : (const struct roce_ipv4_hdr *)(p->frame + p->l3_off);
}

/* The ICRC field read as a big-endian number, as Wireshark shows it
 * (icrc_wire is the same bytes read little-endian, as rxe stores it). */
static inline uint32_t roce_pkt_icrc_be(const struct roce_pkt *p)
{
	return roce_get_be32(p->frame + p->icrc_off);
}

static inline const uint8_t *roce_pkt_payload(const struct roce_pkt *p)
{
	return p->frame + p->payload_off;
}

enum roce_parse_flags {
	ROCE_PARSE_NO_ICRC = 1u << 0,   /* skip the ICRC check */
	ROCE_PARSE_ANY_PORT = 1u << 1,  /* accept any UDP destination port */
};

/*
 * Validate an Ethernet frame as RoCE v2, in the receive path's order:
 * Ethernet/VLAN, IP (version, IHL, lengths, checksum, no fragments), UDP
 * (protocol, port, length, checksum when non-zero), BTH (TVer, known opcode,
 * headers fit, pad), ICRC. Returns ROCE_OK and fills *pkt, or the status
 * code that names the first check that failed (pkt then holds whatever was
 * decoded before it, for diagnostics).
 */
int roce_parse(const uint8_t *frame, size_t len, unsigned flags,
	       struct roce_pkt *pkt);

/* Every header field in host order. */
struct roce_hdrs {
	struct {
		uint8_t dst[6], src[6];
		bool vlan;
		uint16_t tci;
		uint16_t type;          /* inner EtherType */
	} eth;
	struct {
		bool v6;
		uint8_t tos;            /* IPv4 TOS / IPv6 traffic class */
		uint16_t id;            /* IPv4 */
		uint16_t frag;          /* IPv4 flags + fragment offset (DF) */
		uint8_t ttl;            /* IPv4 TTL / IPv6 hop limit */
		uint32_t flow;          /* IPv6 flow label */
		uint8_t src[16], dst[16]; /* IPv4 uses the first 4 bytes */
	} ip;
	struct {
		uint16_t sport, dport;
		uint16_t check;         /* as seen; builder: see ROCE_BUILD_UDP_CSUM */
	} udp;
	struct roce_bth_info bth;
	struct { uint64_t va; uint32_t rkey, len; } reth;
	struct { uint8_t syndrome; uint32_t msn; } aeth;
	struct { uint64_t va; uint32_t rkey; uint64_t swap_add, compare; } atomic;
	struct { uint64_t orig; } atomic_ack;
	struct { uint32_t qkey; uint8_t resv; uint32_t sqpn; } deth;
	uint32_t imm;                   /* ImmDt, big-endian value */
	uint32_t ieth_rkey;
	uint8_t cnp[16];
};

/* Fill *h from a frame roce_parse() accepted. */
void roce_decode(const struct roce_pkt *pkt, struct roce_hdrs *h);

enum roce_build_flags {
	ROCE_BUILD_UDP_CSUM = 1u << 0,  /* compute the UDP checksum (else 0) */
	ROCE_BUILD_ETH_PAD = 1u << 1,   /* pad short frames to 60 bytes */
	ROCE_BUILD_NO_ICRC = 1u << 2,   /* leave the ICRC bytes zero */
};

/*
 * Write the frame for h with payload (payload_len bytes, may be NULL when
 * 0) into buf. h->bth.pad is ignored: the pad is derived from payload_len.
 * Lengths and checksums are computed. Returns ROCE_OK and the frame length
 * in *out_len, ROCE_E_OPCODE for an unknown opcode, ROCE_E_INVAL for a
 * payload on an opcode that takes none, ROCE_E_RANGE if buf is too small.
 */
int roce_build(const struct roce_hdrs *h, const void *payload,
	       size_t payload_len, unsigned flags, uint8_t *buf, size_t cap,
	       size_t *out_len);

/* Write only the headers (Ethernet .. extension headers) for a packet that
 * will carry payload_len bytes; returns their length, or 0 on error. The
 * caller places payload + pad after them and calls roce_finish(). */
size_t roce_build_hdrs(const struct roce_hdrs *h, size_t payload_len,
		       uint8_t *buf, size_t cap);

/* Write the extension headers op carries (and only those: other fields of
 * h are not read) after the BTH at bth, at the opcode table's offsets. */
void roce_build_ext(const struct roce_hdrs *h, const struct roce_opcode_info *op,
		    uint8_t *bth);

/* Zero the pad, then fill the IPv4 header checksum, the ICRC and (with
 * ROCE_BUILD_UDP_CSUM) the UDP checksum of a frame laid out by
 * roce_build_hdrs() whose payload is in place. l3_off is where the IP
 * header starts (14, or 18 with a VLAN tag); lengths come from its fields. */
void roce_finish(uint8_t *frame, size_t l3_off, unsigned flags);

/* The UDP source port a QP uses: real NICs spread flows over ECMP paths by
 * hashing the QP numbers into 0xC000..0xFFFF (IBA A17.5.3 leaves the value
 * to the sender). */
uint16_t roce_udp_sport(uint32_t src_qpn, uint32_t dst_qpn);
/* The two halves of it: the flow label of a QP pair (rdma_calc_flow_label)
 * and the source port of a flow label (rdma_flow_label_to_udp_sport),
 * which a QP with a flow label of its own uses instead. */
uint32_t roce_flow_label(uint32_t src_qpn, uint32_t dst_qpn);
uint16_t roce_udp_sport_from_flow(uint32_t flow_label);

#endif
