/* SPDX-License-Identifier: MIT */
/*
 * roce-pcap: decode the RoCE v2 packets of pcap files, one line each, or
 * verify them (--verify: exit 1 when any UDP/4791 packet is malformed or has
 * a bad ICRC).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/dlt.h>

#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/pcap.h"
#include "roce/params.h"
#include "roce/status.h"

enum mode { MODE_LIST, MODE_VERIFY, MODE_TSV };

struct opts {
	enum mode mode;
	bool all;               /* list non-RoCE frames too */
	unsigned port;
};

struct file_stats {
	uint64_t frames, roce, bad_icrc, malformed;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: roce-pcap [options] FILE...\n"
		"Decode RoCE v2 (UDP/4791) packets of pcap files, one line per packet.\n"
		"\n"
		"  -v, --verify     check every UDP/4791 packet (headers, lengths, ICRC);\n"
		"                   print each bad one, a summary per file, and\n"
		"                   exit 1 if there is any\n"
		"  -t, --tsv        tab-separated decimal fields: frame opcode dqpn psn\n"
		"                   pad pkey va rkey dmalen syndrome msn swap compare\n"
		"                   orig qkey sqpn icrc paylen icrc_ok (empty when the\n"
		"                   packet has no such header)\n"
		"  -a, --all        also list frames that are not RoCE\n"
		"  -p, --port N     RoCE UDP port (default 4791)\n"
		"  -h, --help       this text\n"
		"\n"
		"Exit status: 0 all good, 1 a bad packet (--verify only), 2 usage or file error.\n");
}

/* Is this frame addressed to the RoCE port? Decided from the raw bytes, so a
 * malformed RoCE packet is still recognised as one. */
static bool is_roce_port(const uint8_t *f, size_t len, unsigned port)
{
	size_t off = ROCE_ETH_HLEN, l4;
	uint16_t type;

	if (len < ROCE_ETH_HLEN)
		return false;
	type = roce_eth_type((const struct roce_eth_hdr *)f);
	if (type == ROCE_ETHERTYPE_VLAN && len >= ROCE_ETH_HLEN + ROCE_VLAN_HLEN) {
		type = roce_vlan_type((const struct roce_vlan_tag *)(f + ROCE_ETH_HLEN));
		off += ROCE_VLAN_HLEN;
	}
	if (type == ROCE_ETHERTYPE_IPV4) {
		const struct roce_ipv4_hdr *ip = (const void *)(f + off);

		if (len < off + ROCE_IPV4_HLEN || ip->protocol != ROCE_IPPROTO_UDP)
			return false;
		l4 = off + roce_ipv4_hlen(ip);
	} else if (type == ROCE_ETHERTYPE_IPV6) {
		const struct roce_ipv6_hdr *ip = (const void *)(f + off);

		if (len < off + ROCE_IPV6_HLEN || ip->next_hdr != ROCE_IPPROTO_UDP)
			return false;
		l4 = off + ROCE_IPV6_HLEN;
	} else {
		return false;
	}
	return len >= l4 + ROCE_UDP_HLEN &&
	       roce_udp_dport((const struct roce_udp_hdr *)(f + l4)) == port;
}

/* An address as a socket address is written: a.b.c.d, or the shortest
 * IPv6 form in brackets (so that ":port" after it reads as one). */
static void fmt_ip(char *buf, size_t n, const struct roce_hdrs *h, const uint8_t *a)
{
	char v6[INET6_ADDRSTRLEN];

	if (!h->ip.v6) {
		snprintf(buf, n, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		return;
	}
	inet_ntop(AF_INET6, a, v6, sizeof(v6));
	snprintf(buf, n, "[%s]", v6);
}

static const char *nak_name(unsigned code)
{
	static const char *const names[] = { "psn_seq_err", "invalid_req",
		"remote_access", "remote_op", "invalid_rd_req" };

	return code < 5 ? names[code] : "reserved";
}

static void print_aeth(const struct roce_hdrs *h)
{
	unsigned syn = h->aeth.syndrome, v = syn & ROCE_AETH_VALUE_MASK;

	switch (syn & ROCE_AETH_TYPE_MASK) {
	case ROCE_AETH_ACK:
		printf(" ACK(credits=%u)", v);
		break;
	case ROCE_AETH_RNR_NAK:
		printf(" RNR_NAK(timer=%u)", v);
		break;
	case ROCE_AETH_NAK:
		printf(" NAK(%s)", nak_name(v));
		break;
	default:
		printf(" AETH(reserved)");
	}
	printf(" syndrome=0x%02x msn=%u", syn, h->aeth.msn);
}

static void print_line(const struct roce_pcap_rec *rec, const struct roce_pkt *p,
		       const struct roce_hdrs *h, bool icrc_ok, uint32_t icrc_calc)
{
	char s[64], d[64];

	fmt_ip(s, sizeof(s), h, h->ip.src);
	fmt_ip(d, sizeof(d), h, h->ip.dst);
	printf("%" PRIu64 " %s:%u > %s %s dqpn=0x%06x psn=%u", rec->index, s,
	       h->udp.sport, d, p->op->name, h->bth.dqpn, h->bth.psn);
	if (h->bth.ackreq)
		printf(" A");
	if (h->bth.se)
		printf(" SE");
	if (h->bth.pad)
		printf(" pad=%u", h->bth.pad);
	if (roce_op_has(p->op, ROCE_HDR_DETH))
		printf(" qkey=0x%08x sqpn=0x%06x", h->deth.qkey, h->deth.sqpn);
	if (roce_op_has(p->op, ROCE_HDR_RETH))
		printf(" va=0x%" PRIx64 " rkey=0x%08x len=%u", h->reth.va, h->reth.rkey,
		       h->reth.len);
	if (roce_op_has(p->op, ROCE_HDR_ATMETH))
		printf(" va=0x%" PRIx64 " rkey=0x%08x swap_add=0x%" PRIx64
		       " compare=0x%" PRIx64, h->atomic.va, h->atomic.rkey,
		       h->atomic.swap_add, h->atomic.compare);
	if (roce_op_has(p->op, ROCE_HDR_AETH))
		print_aeth(h);
	if (roce_op_has(p->op, ROCE_HDR_ATMACK))
		printf(" orig=0x%" PRIx64, h->atomic_ack.orig);
	if (roce_op_has(p->op, ROCE_HDR_IMMDT))
		printf(" imm=0x%08x", h->imm);
	if (roce_op_has(p->op, ROCE_HDR_IETH))
		printf(" inv_rkey=0x%08x", h->ieth_rkey);
	printf(" paylen=%u", p->payload_len);
	if (icrc_ok)
		printf(" icrc=ok\n");
	else
		printf(" icrc=BAD(wire=%08x calc=%08x)\n", p->icrc_wire, icrc_calc);
}

static void print_tsv(const struct roce_pcap_rec *rec, const struct roce_pkt *p,
		      const struct roce_hdrs *h, bool icrc_ok)
{
	/* The columns of tests/vectors/tshark_fields.py, then ours; empty
	 * where the opcode has no such header, as tshark prints them. */
	printf("%" PRIu64 "\t%u\t%u\t%u\t%u\t%u\t", rec->index, h->bth.opcode,
	       h->bth.dqpn, h->bth.psn, h->bth.pad, h->bth.pkey);
	if (roce_op_has(p->op, ROCE_HDR_RETH))
		printf("%" PRIu64 "\t%u\t%u\t", h->reth.va, h->reth.rkey, h->reth.len);
	else if (roce_op_has(p->op, ROCE_HDR_ATMETH))
		printf("%" PRIu64 "\t%u\t\t", h->atomic.va, h->atomic.rkey);
	else
		printf("\t\t\t");
	if (roce_op_has(p->op, ROCE_HDR_AETH))
		printf("%u\t%u\t", h->aeth.syndrome, h->aeth.msn);
	else
		printf("\t\t");
	if (roce_op_has(p->op, ROCE_HDR_ATMETH))
		printf("%" PRIu64 "\t%" PRIu64 "\t", h->atomic.swap_add, h->atomic.compare);
	else
		printf("\t\t");
	if (roce_op_has(p->op, ROCE_HDR_ATMACK))
		printf("%" PRIu64 "\t", h->atomic_ack.orig);
	else
		printf("\t");
	if (roce_op_has(p->op, ROCE_HDR_DETH))
		printf("%u\t%u\t", h->deth.qkey, h->deth.sqpn);
	else
		printf("\t\t");
	/* Wireshark shows the ICRC bytes as a big-endian number */
	printf("%u\t%u\t%d\n", roce_pkt_icrc_be(p), p->payload_len, icrc_ok);
}

/* One frame: returns true when it is a good RoCE packet or not RoCE at all. */
static bool do_frame(const struct opts *o, const char *file,
		     const struct roce_pcap_rec *rec, struct file_stats *st)
{
	unsigned pflags = ROCE_PARSE_NO_ICRC | (o->port != ROCE_UDP_PORT ? ROCE_PARSE_ANY_PORT : 0);
	struct roce_pkt p;
	struct roce_hdrs h;
	uint32_t calc;
	bool icrc_ok;
	int rc;

	st->frames++;
	if (!is_roce_port(rec->data, rec->caplen, o->port)) {
		if (o->all && o->mode == MODE_LIST)
			printf("%" PRIu64 " (not RoCE, %u bytes)\n", rec->index, rec->caplen);
		return true;
	}
	st->roce++;
	rc = roce_parse(rec->data, rec->caplen, pflags, &p);
	if (rc == ROCE_OK && rec->caplen < rec->wirelen)
		rc = ROCE_E_TOO_SHORT;      /* snapped: cannot be checked */
	if (rc != ROCE_OK) {
		st->malformed++;
		if (o->mode == MODE_TSV)
			return false;
		printf("%s%s%" PRIu64 " MALFORMED: %s (%s)\n", o->mode == MODE_VERIFY ? file : "",
		       o->mode == MODE_VERIFY ? ": frame " : "", rec->index,
		       roce_status_name(rc), roce_status_str(rc));
		return false;
	}
	calc = roce_icrc(p.frame + p.l3_off, p.icrc_off - p.l3_off);
	icrc_ok = calc == p.icrc_wire;
	if (!icrc_ok)
		st->bad_icrc++;
	roce_decode(&p, &h);
	if (o->mode == MODE_TSV)
		print_tsv(rec, &p, &h, icrc_ok);
	else if (o->mode == MODE_LIST)
		print_line(rec, &p, &h, icrc_ok, calc);
	else if (!icrc_ok)
		printf("%s: frame %" PRIu64 " %s psn=%u: bad ICRC (wire %08x, computed %08x)\n",
		       file, rec->index, p.op->name, h.bth.psn, p.icrc_wire, calc);
	return icrc_ok;
}

/* Returns 0 all good, 1 a bad packet, 2 the file could not be read. */
static int do_file(const struct opts *o, const char *path)
{
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	struct file_stats st = { 0 };
	char err[256];
	int rc, bad = 0;

	rc = roce_pcap_open_read(path, &r, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "roce-pcap: %s: %s\n", path, err);
		return 2;
	}
	if (roce_pcap_linktype(r) != DLT_EN10MB) {
		fprintf(stderr, "roce-pcap: %s: link type %d is not Ethernet\n", path,
			roce_pcap_linktype(r));
		roce_pcap_close_read(r);
		return 2;
	}
	while ((rc = roce_pcap_next(r, &rec)) == ROCE_OK)
		if (!do_frame(o, path, &rec, &st))
			bad = 1;
	roce_pcap_close_read(r);
	if (rc != ROCE_E_EMPTY) {
		fprintf(stderr, "roce-pcap: %s: damaged capture after frame %" PRIu64 "\n",
			path, st.frames);
		return 2;
	}
	if (o->mode == MODE_VERIFY)
		printf("%s: %" PRIu64 " frames, %" PRIu64 " RoCE, %" PRIu64
		       " malformed, %" PRIu64 " bad ICRC: %s\n", path, st.frames, st.roce,
		       st.malformed, st.bad_icrc, bad ? "FAIL" : "ok");
	/* listings show bad packets in their lines; only --verify judges */
	return o->mode == MODE_VERIFY ? bad : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verify", no_argument, NULL, 'v' },
		{ "tsv", no_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .mode = MODE_LIST, .port = ROCE_UDP_PORT };
	int c, worst = 0;

	while ((c = getopt_long(argc, argv, "vtap:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'v': o.mode = MODE_VERIFY; break;
		case 't': o.mode = MODE_TSV; break;
		case 'a': o.all = true; break;
		case 'p': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 0);

			if (*optarg == '\0' || *end || v == 0 || v > 65535) {
				fprintf(stderr, "roce-pcap: bad port '%s' (1..65535)\n", optarg);
				return 2;
			}
			o.port = (unsigned)v;
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "roce-pcap: no capture file given (try --help)\n");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		int rc = do_file(&o, argv[i]);

		if (rc > worst)
			worst = rc;
	}
	return worst;
}
