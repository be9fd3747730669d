/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 over IPv6 between two engines: every operation over the
 * link-local GIDs and over global ones, each frame on the wire checked
 * (IPv6 from the QP's SGID to its DGID, hop limit 64, traffic class and
 * flow label of the address vector, the UDP source port from the flow
 * label or the QPNs, UDP checksum 0 as rxe, a good ICRC); and the receive
 * checks over IPv6: a frame from another GID, to a GID not ours, to our
 * other GID, of the other family, with an extension header or a truncated
 * chain is dropped under its reason and executes nothing; and congestion
 * notification over IPv6: a CE mark in the traffic class draws a CNP of
 * IPv6's form, which the sender takes and slows down for.
 */
#include <stdio.h>
#include <unistd.h>

#include "pair.h"
#include "roce/cc.h"
#include "roce/gid.h"
#include "roce/icrc.h"
#include "roce/opcode.h"
#include "roce/packet.h"
#include "roce/pcap.h"

#define PSN_B 0x123457u         /* what A sends first = B's rq_psn (pair.h) */

struct wire {
	char path[64];
	unsigned frames;
};

static struct pair *open_v6(struct pair_opts *o, struct wire *w, bool global)
{
	static const uint8_t ip6_a[16] = { 0xfd, 0x91, [15] = 0x0a };
	static const uint8_t ip6_b[16] = { 0xfd, 0x91, [15] = 0x0b };
	int fd;

	o->virtual_time = true;
	o->ipv6 = true;
	if (global) {
		memcpy(o->ip6[0], ip6_a, 16);
		memcpy(o->ip6[1], ip6_b, 16);
	}
	if (w) {
		snprintf(w->path, sizeof(w->path), "/tmp/roce-ipv6-XXXXXX");
		fd = mkstemp(w->path);
		assert_true(fd >= 0);
		close(fd);
		o->link.pcap_path = w->path;
	}
	return pair_open(o);
}

/* Every RoCE frame of the capture from a port to the other: IPv6 with the
 * fields the QPs' address vectors give. */
static void check_wire(struct pair *p, const struct pair_opts *o, struct wire *w)
{
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;

	assert_int_equal(roce_memlink_flush_capture(p->link), ROCE_OK);
	assert_int_equal(roce_pcap_open_read(w->path, &r, NULL, 0), ROCE_OK);
	w->frames = 0;
	while (roce_pcap_next(r, &rec) == ROCE_OK) {
		struct roce_pkt pk;
		struct roce_hdrs h;
		bool from_a = rec.data[11] == p->a.port->mac[5];
		const struct pair_side *s = from_a ? &p->a : &p->b, *d = from_a ? &p->b : &p->a;
		uint16_t sport;

		assert_int_equal(roce_parse(rec.data, rec.caplen, 0, &pk), ROCE_OK);
		roce_decode(&pk, &h);
		assert_true(h.ip.v6);
		assert_int_equal(h.eth.type, ROCE_ETHERTYPE_IPV6);
		assert_memory_equal(h.ip.src, s->gid, 16);
		assert_memory_equal(h.ip.dst, d->gid, 16);
		assert_int_equal(h.ip.ttl, 64);
		assert_int_equal(h.ip.tos, o->tclass);
		assert_int_equal(h.ip.flow, o->flow_label);
		assert_int_equal(h.udp.check, 0);
		sport = o->flow_label ? roce_udp_sport_from_flow(o->flow_label)
				      : roce_udp_sport(roce_qp_num(s->qp), roce_qp_num(d->qp));
		assert_int_equal(h.udp.sport, sport);
		w->frames++;
	}
	roce_pcap_close_read(r);
	unlink(w->path);
}

static void post_recv(struct pair_side *s, uint64_t off, uint32_t len)
{
	struct roce_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 }, *bad;

	assert_int_equal(roce_post_recv(s->qp, &wr, &bad), ROCE_OK);
}

/* WRITE of several packets, READ, SEND, FETCH_ADD from A to B. */
static void every_op(struct pair *p)
{
	struct roce_sge sge = { (uintptr_t)p->a.buf, 5000, p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct roce_wc wc;
	uint64_t *ctr = (uint64_t *)(p->b.buf + 65536);

	for (unsigned i = 0; i < 5000; i++)
		p->a.buf[i] = (uint8_t)(i * 13 + 1);
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_memory_equal(p->b.buf, p->a.buf, 5000);
	/* READ it back elsewhere */
	sge.addr = (uintptr_t)p->a.buf + 8192;
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_RDMA_READ;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_memory_equal(p->a.buf + 8192, p->b.buf, 5000);
	/* SEND into a receive */
	post_recv(&p->b, 16384, 5000);
	sge.addr = (uintptr_t)p->a.buf;
	wr.wr_id = 3;
	wr.opcode = ROCE_WR_SEND;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 5000);
	assert_memory_equal(p->b.buf + 16384, p->a.buf, 5000);
	/* FETCH_ADD */
	*ctr = 40;
	sge.addr = (uintptr_t)p->a.buf + 32768;
	sge.length = 8;
	wr.wr_id = 4;
	wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)ctr;
	wr.wr.atomic.rkey = p->b.mr->rkey;
	wr.wr.atomic.compare_add = 2;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_int_equal(*ctr, 42);
	assert_int_equal(*(uint64_t *)(p->a.buf + 32768), 40);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RETRANSMISSIONS), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RETRANSMISSIONS), 0);
}

static void test_ops_link_local(void **state)
{
	struct pair_opts o = { 0 };
	struct wire w;
	struct pair *p = open_v6(&o, &w, false);
	uint8_t ll[16];

	(void)state;
	/* GID 0: fe80:: and the MAC's EUI-64 */
	roce_gid_link_local(p->a.port->mac, ll);
	assert_memory_equal(p->a.gid, ll, 16);
	assert_int_equal(p->a.sgid_index, 0);
	every_op(p);
	check_wire(p, &o, &w);
	/* 5 WRITE packets, their ACK, 5 READ responses, ... */
	assert_true(w.frames >= 15);
	pair_close(p);
}

static void test_ops_global_flow_label(void **state)
{
	struct pair_opts o = { .flow_label = 0xABCDE, .tclass = 0x68 };
	struct wire w;
	struct pair *p = open_v6(&o, &w, true);

	(void)state;
	assert_int_equal(p->a.sgid_index, 2);
	assert_int_equal(p->a.gid[0], 0xfd);
	every_op(p);
	check_wire(p, &o, &w);
	assert_true(w.frames >= 15);
	pair_close(p);
}

/* ---- receive checks ----------------------------------------------------- */

/* An RC WRITE ONLY to QP dqpn of B with the PSN B's QP expects and a valid
 * R_Key, from a third port with the given source and destination (IPv6, or
 * IPv4 when v4 is set: the addresses' last 4 bytes) and traffic class. */
static void inject_tos(struct pair *p, struct roce_port *port, const uint8_t src[16],
		       const uint8_t dst[16], bool v4, uint32_t dqpn, uint8_t tos,
		       const uint8_t *payload, uint32_t len)
{
	struct roce_hdrs h;
	uint8_t buf[2048];
	size_t n;
	struct roce_frame f;

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, p->b.port->mac, 6);
	memcpy(h.eth.src, port->mac, 6);
	h.ip.v6 = !v4;
	h.ip.ttl = 64;
	h.ip.tos = tos;
	h.ip.frag = v4 ? ROCE_IPV4_DF : 0;
	memcpy(h.ip.src, v4 ? src + 12 : src, v4 ? 4 : 16);
	memcpy(h.ip.dst, v4 ? dst + 12 : dst, v4 ? 4 : 16);
	h.udp.sport = 0xC000;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_WRITE_ONLY;
	h.bth.pkey = 0xFFFF;
	h.bth.dqpn = dqpn;
	h.bth.ackreq = true;
	h.bth.psn = PSN_B;
	h.reth.va = (uint64_t)(uintptr_t)p->b.buf;
	h.reth.rkey = p->b.mr->rkey;
	h.reth.len = len;
	assert_int_equal(roce_build(&h, payload, len, 0, buf, sizeof(buf), &n), ROCE_OK);
	f.data = buf;
	f.len = (uint32_t)n;
	assert_int_equal(roce_port_tx(port, &f, 1), 1);
	for (int i = 0; i < 20; i++)
		pair_poll(p);
}

static void inject_qpn(struct pair *p, struct roce_port *port, const uint8_t src[16],
		       const uint8_t dst[16], bool v4, uint32_t dqpn,
		       const uint8_t *payload, uint32_t len)
{
	inject_tos(p, port, src, dst, v4, dqpn, 0, payload, len);
}

static void inject(struct pair *p, struct roce_port *port, const uint8_t src[16],
		   const uint8_t dst[16], bool v4, const uint8_t *payload, uint32_t len)
{
	inject_qpn(p, port, src, dst, v4, roce_qp_num(p->b.qp), payload, len);
}

/* The same, with an 8-byte extension header of kind (its length byte
 * lenb) between IPv6 and UDP: the ICRC is computed over the frame as
 * built, so only the extension header is wrong with it. */
static void inject_ext(struct pair *p, struct roce_port *port, uint8_t kind, uint8_t lenb)
{
	struct roce_hdrs h;
	uint8_t buf[2048], out[2048];
	size_t n;
	struct roce_frame f;
	const size_t l4 = ROCE_ETH_HLEN + ROCE_IPV6_HLEN;

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, p->b.port->mac, 6);
	memcpy(h.eth.src, port->mac, 6);
	h.ip.v6 = true;
	h.ip.ttl = 64;
	memcpy(h.ip.src, p->a.gid, 16);
	memcpy(h.ip.dst, p->b.gid, 16);
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_WRITE_ONLY;
	h.bth.pkey = 0xFFFF;
	h.bth.dqpn = roce_qp_num(p->b.qp);
	h.bth.psn = PSN_B;
	h.reth.va = (uint64_t)(uintptr_t)p->b.buf;
	h.reth.rkey = p->b.mr->rkey;
	h.reth.len = 4;
	assert_int_equal(roce_build(&h, "EVIL", 4, 0, buf, sizeof(buf), &n), ROCE_OK);
	memcpy(out, buf, l4);
	memset(out + l4, 0, 8);
	out[l4] = ROCE_IPPROTO_UDP;
	out[l4 + 1] = lenb;
	memcpy(out + l4 + 8, buf + l4, n - l4);
	out[ROCE_ETH_HLEN + 6] = kind;
	roce_put_be16(out + ROCE_ETH_HLEN + 4, (uint16_t)(n - l4 + 8));
	f.data = out;
	f.len = (uint32_t)(n + 8);
	assert_int_equal(roce_port_tx(port, &f, 1), 1);
	for (int i = 0; i < 20; i++)
		pair_poll(p);
}

static void test_receive_checks(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = open_v6(&o, NULL, true);
	const uint8_t mac3[6] = { 0x02, 0, 0, 0, 0, 3 };
	static const uint8_t stranger[16] = { 0xfd, 0x91, [15] = 0x0c };
	static const uint8_t elsewhere[16] = { 0xfd, 0x91, [15] = 0x0d };
	uint8_t a_ll[16], b_ll[16], a_v4[16], b_v4[16], evil[64], *zero = calloc(1, 4096);
	struct roce_port port3;
	uint64_t drops;

	(void)state;
	assert_non_null(zero);
	assert_int_equal(roce_memlink_attach(p->link, mac3, &port3), ROCE_OK);
	assert_int_equal(roce_query_gid(p->a.ctx, 1, 0, a_ll), ROCE_OK);
	assert_int_equal(roce_query_gid(p->b.ctx, 1, 0, b_ll), ROCE_OK);
	assert_int_equal(roce_query_gid(p->a.ctx, 1, 1, a_v4), ROCE_OK);
	assert_int_equal(roce_query_gid(p->b.ctx, 1, 1, b_v4), ROCE_OK);
	memset(evil, 0xEE, sizeof(evil));

	/* from a GID that is not the QP's peer */
	inject(p, &port3, stranger, p->b.gid, false, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 1);
	/* from the peer's other GID (its link-local one) */
	inject(p, &port3, a_ll, p->b.gid, false, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 2);
	/* IPv4 from the peer's IPv4 address to an IPv6 QP, and from the
	 * IPv4 address that is the peer GID's last 4 bytes (0.0.0.10) */
	inject(p, &port3, a_v4, b_v4, true, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 3);
	inject(p, &port3, p->a.gid, b_v4, true, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 4);
	/* to an address that is none of B's GIDs */
	inject(p, &port3, p->a.gid, elsewhere, false, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_IP6_ADDR), 1);
	/* ... checked before the QP is looked up: no QP needed */
	inject_qpn(p, &port3, p->a.gid, elsewhere, false, 0x3FFF, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_IP6_ADDR), 2);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_QPN), 0);
	/* to B's link-local GID: B's, but not the GID of this QP */
	inject(p, &port3, p->a.gid, b_ll, false, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_IP6_ADDR), 3);
	/* an extension header before UDP, and a chain cut short */
	inject_ext(p, &port3, 60 /* destination options */, 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_IP6_NEXT_HDR), 1);
	inject_ext(p, &port3, 60, 100);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_IP6_EXT_LEN), 1);
	/* nothing was executed, nothing answered */
	assert_memory_equal(p->b.buf, zero, 4096);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 0);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_ACKS_TX), 0);
	drops = pair_cnt(&p->b, ROCE_CNT_DROP_OTHER);
	assert_int_equal(drops, 0);

	/* the control: the same frame from the peer's GID to the QP's */
	inject(p, &port3, p->a.gid, p->b.gid, false, evil, sizeof(evil));
	assert_memory_equal(p->b.buf, evil, sizeof(evil));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 1);
	free(zero);
	pair_close(p);
}

/* An IPv4 QP refuses IPv6 from its peer's IPv6 GID, and the reverse pair
 * still talks IPv4: the family is the address vector's. */
static void test_ipv4_qp_refuses_ipv6(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	const uint8_t mac3[6] = { 0x02, 0, 0, 0, 0, 3 };
	struct roce_port port3;
	uint8_t a_ll[16], b_ll[16], data[32];

	(void)state;
	assert_int_equal(roce_memlink_attach(p->link, mac3, &port3), ROCE_OK);
	assert_int_equal(roce_query_gid(p->a.ctx, 1, 0, a_ll), ROCE_OK);
	assert_int_equal(roce_query_gid(p->b.ctx, 1, 0, b_ll), ROCE_OK);
	memset(data, 0x11, sizeof(data));
	inject(p, &port3, a_ll, b_ll, false, data, sizeof(data));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_SRC_ADDR), 1);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 0);
	/* IPv4 from its peer still goes in */
	inject(p, &port3, p->a.gid, p->b.gid, true, data, sizeof(data));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 1);
	assert_memory_equal(p->b.buf, data, sizeof(data));
	pair_close(p);
}

/* ---- congestion notification over IPv6 --------------------------------- */

/* A CE-marked WRITE to B (ECN in the traffic class's low bits, IPv6's
 * place for it) draws B's CNP: IPv6 from B's GID to A's, traffic class
 * cnp_dscp and ECT(1) instead of the QP's class, the QP's flow label and
 * UDP source port, BTH opcode 0x81 with BECN to A's QP, PSN 0, 16 zero
 * bytes, a good ICRC. A takes it (ICRC, source and destination checks)
 * and cuts its QP's rate; B's ACK goes in the QP's class, ECT(0). */
static void test_cnp(void **state)
{
	struct pair_opts o = { .flow_label = 0xABCDE, .tclass = 0x68 };
	struct wire w;
	struct pair *p = open_v6(&o, &w, true);
	const uint8_t mac3[6] = { 0x02, 0, 0, 0, 0, 3 };
	static const uint8_t zero[16];
	struct roce_port port3;
	struct roce_cc_config c;
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	struct roce_qp_cc qc;
	uint8_t data[64];
	unsigned cnps = 0, acks = 0;

	(void)state;
	roce_cc_config_default(&c);
	c.np_prio_mask = c.rp_prio_mask = 0xFF;
	assert_int_equal(roce_context_set_cc(p->a.ctx, &c), ROCE_OK);
	assert_int_equal(roce_context_set_cc(p->b.ctx, &c), ROCE_OK);
	assert_int_equal(roce_memlink_attach(p->link, mac3, &port3), ROCE_OK);
	memset(data, 0x5C, sizeof(data));
	inject_tos(p, &port3, p->a.gid, p->b.gid, false, roce_qp_num(p->b.qp),
		   0x68 | 3 /* CE */, data, sizeof(data));
	assert_memory_equal(p->b.buf, data, sizeof(data));
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NP_ECN_MARKED_ROCE_PACKETS), 1);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NP_CNP_SENT), 1);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_RP_CNP_HANDLED), 1);
	assert_int_equal(roce_qp_cc_state(p->a.qp, &qc), ROCE_OK);
	assert_int_equal(qc.cuts, 1);
	assert_true(qc.limited);

	assert_int_equal(roce_memlink_flush_capture(p->link), ROCE_OK);
	assert_int_equal(roce_pcap_open_read(w.path, &r, NULL, 0), ROCE_OK);
	while (roce_pcap_next(r, &rec) == ROCE_OK) {
		struct roce_pkt pk;
		struct roce_hdrs h;
		uint32_t icrc;

		if (rec.data[11] != p->b.port->mac[5])
			continue;               /* B's frames only */
		assert_int_equal(roce_parse(rec.data, rec.caplen, 0, &pk), ROCE_OK);
		roce_decode(&pk, &h);
		assert_true(h.ip.v6);
		assert_memory_equal(h.ip.src, p->b.gid, 16);
		assert_memory_equal(h.ip.dst, p->a.gid, 16);
		assert_int_equal(h.ip.flow, o.flow_label);
		assert_int_equal(h.udp.sport, roce_udp_sport_from_flow(o.flow_label));
		assert_int_equal(h.bth.dqpn, roce_qp_num(p->a.qp));
		icrc = roce_icrc(rec.data + ROCE_ETH_HLEN, pk.icrc_off - ROCE_ETH_HLEN);
		assert_int_equal(pk.icrc_wire, icrc);
		if (h.bth.opcode == ROCE_OP_CNP) {
			assert_int_equal(h.ip.tos, c.dcqcn.cnp_dscp << 2 | 1);
			assert_int_equal(h.bth.resv8a, 0x40);   /* BECN */
			assert_int_equal(h.bth.psn, 0);
			assert_memory_equal(h.cnp, zero, 16);
			cnps++;
		} else {
			assert_int_equal(h.bth.opcode, ROCE_OP_RC_ACK);
			assert_int_equal(h.ip.tos, 0x68 | 2);   /* the QP's class, ECT(0) */
			acks++;
		}
	}
	roce_pcap_close_read(r);
	unlink(w.path);
	assert_int_equal(cnps, 1);
	assert_int_equal(acks, 1);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_link_local),
		cmocka_unit_test(test_ops_global_flow_label),
		cmocka_unit_test(test_receive_checks),
		cmocka_unit_test(test_ipv4_qp_refuses_ipv6),
		cmocka_unit_test(test_cnp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
