/* SPDX-License-Identifier: MIT */
/*
 * Engine fuzz target: a hostile peer. Each input describes RoCE frames
 * (opcode, PSN offset, AckReq, SE, RETH/AETH/AtomicETH fields, payload)
 * that are built with valid checksums and ICRC -- so they pass the receive
 * checks and reach the responder and the completer -- and sent at engine
 * A, whose four QPs are in RTS with an MR registered: an RC QP, an RC QP
 * that takes its receive WQEs from an SRQ, an RC QP whose peer is an IPv6
 * GID, and a UC QP. The top two bits of the opcode byte pick the QP, bit
 * 0x20 the RC or the UC opcode family, so each QP also meets the other
 * transport's opcodes. The receive CQ is on a completion channel, armed
 * before every input, and the asynchronous events (QP fatal, SRQ limit,
 * CQ overrun) are read and acknowledged, so the event paths run too.
 *
 * Frames to the IPv6 QP are RoCE v2 over IPv6: from its peer or a
 * stranger, to the QP's GID, to our other GID (the link-local one) or to
 * an address not ours, or with an IPv6 extension header of the input's
 * choosing between IPv6 and UDP (whole, cut short, a fragment, another
 * next header), or IPv4 from the IPv4 peer.
 *
 * A fifth QP is a UD one. The opcode byte's low six bits 0x30..0x37 send
 * a UD SEND (0x64, or 0x65 for odd values) to the QP the top bits pick;
 * 0x38..0x3F go to the UD QP (over IPv6 when the top bits pick the IPv6
 * QP): 0x38 an RC SEND ONLY, 0x39 a UC one, the rest UD SENDs. The DETH's
 * Q_Key is the UD QP's or the input's, its source QPN the input's.
 *
 * The engine must never crash, never read or write outside its memory
 * (ASan), and never write device memory outside the registered region.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roce/memlink.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/verbs.h"

#define MR_LEN   65536u
#define UD_QKEY  0x11111111u
#define GUARD    4096u

struct side {
	struct roce_context *ctx;
	struct roce_port port;
	struct roce_qp *q[4];           /* the QPs of the QP_ indexes below */
	struct roce_cq *cq;
	struct roce_comp_channel *ch;
	struct roce_srq *srq;
	struct roce_qp *ud;             /* the UD QP (no peer: any station) */
	uint8_t *buf;
	struct roce_mr *mr;
};

enum { QP_RC, QP_SRQ, QP_V6, QP_UC, NQP };

/* the PSNs each QP expects (rq) and sends from (sq); its peer QPN */
static const uint32_t rq_psn[NQP] = { 1000, 2000, 3000, 4000 };
static const uint32_t sq_psn[NQP] = { 5000, 6000, 7000, 8000 };
static const uint32_t dest_qpn[NQP] = { 0x99, 0x9A, 0x9B, 0x9C };

static struct roce_memlink *link_;
static struct side a;
static struct roce_port peer;           /* the fuzzer's own port */
static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 1 }, mac_p[6] = { 2, 0, 0, 0, 0, 2 };
static uint8_t *guard_lo, *guard_hi;
/* GID 2 of A, its peer's, a stranger's, an address nobody has */
static const uint8_t gid_a[16] = { 0xfd, 0, [15] = 1 }, gid_p[16] = { 0xfd, 0, [15] = 2 };
static const uint8_t gid_x[16] = { 0xfd, 0, [15] = 3 }, gid_n[16] = { 0xfd, 0, [15] = 9 };
static uint8_t ll_a[16];

/* A failed property is a finding: libFuzzer reports the abort and the input. */
#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

/* RESET -> INIT -> RTR -> RTS toward the fuzzer's port for QP k: IPv4
 * 10.0.0.2, or (QP_V6) the GID fd00::2 from ours, fd00::1. The UC QP
 * takes no timeout, retry, RNR or READ/atomic attribute. */
static void connect_qp(struct roce_qp *qp, int k)
{
	const bool uc = k == QP_UC;
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
				   .qp_access_flags = ROCE_ACCESS_REMOTE_WRITE |
						      ROCE_ACCESS_REMOTE_READ |
						      ROCE_ACCESS_REMOTE_ATOMIC };

	CHECK(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_ACCESS_FLAGS) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_1024;
	at.dest_qp_num = dest_qpn[k];
	at.rq_psn = rq_psn[k];
	at.max_dest_rd_atomic = 4;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = 0x0A000002;
	memcpy(at.ah_attr.dest_mac, mac_p, 6);
	at.ah_attr.is_global = k == QP_V6;
	at.ah_attr.grh.sgid_index = 2;
	memcpy(at.ah_attr.grh.dgid, gid_p, 16);
	CHECK(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
			     (uc ? 0 : ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER)) ==
	      ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = sq_psn[k];
	at.timeout = 1;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 4;
	CHECK(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			     (uc ? 0 : ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					       ROCE_QP_MAX_QP_RD_ATOMIC)) == ROCE_OK);
}

/* The UD QP: INIT with its Q_Key, RTR, RTS. */
static void connect_ud(struct roce_qp *qp)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF, .qkey = UD_QKEY };

	CHECK(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_QKEY) ==
	      ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	CHECK(roce_modify_qp(qp, &at, ROCE_QP_STATE) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	CHECK(roce_modify_qp(qp, &at, ROCE_QP_STATE) == ROCE_OK);
}

/* IPv6 addresses by the input's choice (variant 0..7 of the frame's
 * second byte): mostly right, else a stranger's source, an address not
 * ours, our link-local GID (ours, not the QP's) */
static void v6_addrs(struct roce_hdrs *h, unsigned variant)
{
	h->ip.v6 = true;
	memcpy(h->ip.src, variant == 5 ? gid_x : gid_p, 16);
	memcpy(h->ip.dst, variant == 4 ? gid_n : variant == 7 ? ll_a : gid_a, 16);
}

/* Variant 6: an 8-byte extension header of kind nh (its length byte lenb)
 * between IPv6 and UDP; returns the frame's new length. */
static size_t insert_ext(uint8_t *f, size_t len, uint8_t nh, uint8_t lenb)
{
	const size_t l3 = ROCE_ETH_HLEN, l4 = l3 + ROCE_IPV6_HLEN;

	if (len + 8 > ROCE_MAX_FRAME)
		return len;
	memmove(f + l4 + 8, f + l4, len - l4);
	memset(f + l4, 0, 8);
	f[l4] = f[l3 + 6];
	f[l4 + 1] = lenb;
	f[l3 + 6] = nh;
	roce_put_be16(f + l3 + 4, (uint16_t)(roce_get_be16(f + l3 + 4) + 8));
	return len + 8;
}

static void setup(void)
{
	struct roce_memlink_config lc = { .seed = 1 };
	struct roce_context_attr ca = { .ip = 0x0A000001 };
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC, .cap = { 64, 64, 1, 1, 0 } };
	struct roce_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1, .srq_limit = 2 } };
	struct roce_pd *pd;

	CHECK(roce_memlink_create(&lc, &link_) == ROCE_OK &&
	      roce_memlink_attach(link_, mac_a, &a.port) == ROCE_OK &&
	      roce_memlink_attach(link_, mac_p, &peer) == ROCE_OK);
	memcpy(ca.mac, mac_a, 6);
	memcpy(ca.ip6[0], gid_a, 16);
	ca.n_ip6 = 1;
	ca.port = &a.port;
	ca.dev.mem_size = 1u << 20;
	CHECK(roce_open(&ca, &a.ctx) == ROCE_OK);
	CHECK(roce_query_gid(a.ctx, 1, 0, ll_a) == ROCE_OK);
	pd = roce_alloc_pd(a.ctx);
	a.ch = roce_create_comp_channel(a.ctx);
	CHECK(a.ch && fcntl(roce_comp_channel_fd(a.ch), F_SETFL, O_NONBLOCK) == 0 &&
	      fcntl(roce_async_fd(a.ctx), F_SETFL, O_NONBLOCK) == 0);
	a.cq = roce_create_cq_channel(a.ctx, 256, NULL, a.ch);
	a.srq = roce_create_srq(pd, &sa);
	guard_lo = roce_mem_alloc(a.ctx, GUARD, 64);
	a.buf = roce_mem_alloc(a.ctx, MR_LEN, 4096);
	guard_hi = roce_mem_alloc(a.ctx, GUARD, 64);
	CHECK(pd && a.cq && a.srq && a.buf && guard_lo && guard_hi);
	memset(guard_lo, 0xA5, GUARD);
	memset(guard_hi, 0xA5, GUARD);
	a.mr = roce_reg_mr(pd, a.buf, MR_LEN, ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			   ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC);
	CHECK(a.mr);
	qa.send_cq = qa.recv_cq = a.cq;
	for (int k = 0; k < NQP; k++) {
		/* the UC QP takes its receive WQEs from the SRQ too */
		qa.qp_type = k == QP_UC ? ROCE_QPT_UC : ROCE_QPT_RC;
		qa.srq = k == QP_SRQ || k == QP_UC ? a.srq : NULL;
		a.q[k] = roce_create_qp(pd, &qa);
		CHECK(a.q[k] != NULL);
		connect_qp(a.q[k], k);
	}
	qa.qp_type = ROCE_QPT_UD;
	qa.srq = NULL;
	a.ud = roce_create_qp(pd, &qa);
	CHECK(a.ud != NULL);
	connect_ud(a.ud);
}

static uint64_t rd64(const uint8_t *d, size_t n, size_t *i)
{
	uint64_t v = 0;

	for (int k = 0; k < 8; k++)
		v = v << 8 | (*i < n ? d[(*i)++] : 0);
	return v;
}

/* Back to RTS after an error: the register file kept the rest of the
 * context. */
static void revive(struct roce_qp *qp)
{
	struct roce_qp_attr at;

	if (roce_query_qp(qp, &at) == ROCE_OK && at.qp_state == ROCE_QPS_ERR) {
		struct roce_qp_attr r = { .qp_state = ROCE_QPS_RESET };

		roce_modify_qp(qp, &r, ROCE_QP_STATE);
		roce_engine_poll(a.ctx);
		for (enum roce_qp_state s = ROCE_QPS_INIT; s <= ROCE_QPS_RTS; s++) {
			r.qp_state = s;
			CHECK(roce_modify_qp(qp, &r, ROCE_QP_STATE) == ROCE_OK);
		}
	}
}

/* Up to 4 receive WQEs of 4 KiB at buf + off, on qp's RQ or (qp NULL) the
 * SRQ. */
static void post_recvs(struct roce_qp *qp, size_t off)
{
	for (int i = 0; i < 4; i++) {
		struct roce_sge sge = { (uint64_t)(uintptr_t)a.buf + off + (size_t)i * 4096, 4096,
					a.mr->lkey };
		struct roce_recv_wr rw = { .sg_list = &sge, .num_sge = 1 };

		if ((qp ? roce_post_recv(qp, &rw, NULL) : roce_post_srq_recv(a.srq, &rw, NULL)) !=
		    ROCE_OK)
			break;
	}
}

/* Keep the QPs usable: completions and events taken, posted receives
 * (the QPs' own and the SRQ's), back to RTS after an error, the CQ armed
 * (solicited only every other input). */
static void keep_alive(void)
{
	static unsigned round;
	struct roce_wc wc[64];
	struct roce_async_event ev;
	struct roce_cq *cq;

	while (roce_poll_cq(a.cq, 64, wc) > 0)
		;
	while (roce_get_cq_event(a.ch, &cq, NULL) == ROCE_OK) {
		CHECK(cq == a.cq);
		roce_ack_cq_events(cq, 1);
	}
	while (roce_get_async_event(a.ctx, &ev) == ROCE_OK) {
		bool ours = false;

		for (int k = 0; k < NQP; k++)
			ours |= ev.element.qp == a.q[k];
		ours |= ev.element.qp == a.ud;
		CHECK(ev.event_type != ROCE_EVENT_QP_FATAL || ours);
		CHECK(ev.event_type != ROCE_EVENT_SRQ_LIMIT_REACHED || ev.element.srq == a.srq);
		roce_ack_async_event(&ev);
	}
	for (int k = 0; k < NQP; k++)
		revive(a.q[k]);
	revive(a.ud);
	post_recvs(a.ud, 12 * 4096);
	post_recvs(a.q[QP_RC], 0);
	post_recvs(a.q[QP_V6], 4 * 4096);
	post_recvs(NULL, 8 * 4096);
	if (round++ % 8 == 0) {         /* the limit armed again now and then */
		struct roce_srq_attr sa = { .srq_limit = 3 };

		CHECK(roce_modify_srq(a.srq, &sa, ROCE_SRQ_LIMIT) == ROCE_OK);
	}
	CHECK(roce_req_notify_cq(a.cq, (int)(round & 1)) == ROCE_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static int ready;
	static uint8_t frame[ROCE_MAX_FRAME];
	struct roce_frame f = { frame, 0 };
	struct roce_frame rx[32];
	size_t i = 0;

	if (!ready) {
		setup();
		ready = 1;
	}
	keep_alive();
	while (i + 4 <= n) {
		struct roce_hdrs h;
		const struct roce_opcode_info *op;
		size_t len, paylen;
		uint64_t r;
		bool v6;
		unsigned variant;
		int k;
		struct roce_qp *to;

		memset(&h, 0, sizeof(h));
		memcpy(h.eth.dst, mac_a, 6);
		memcpy(h.eth.src, mac_p, 6);
		h.ip.ttl = 64;
		h.ip.src[0] = 10; h.ip.src[3] = 2;
		h.ip.dst[0] = 10; h.ip.dst[3] = 1;
		h.udp.sport = 0xC000;
		h.udp.dport = ROCE_UDP_PORT;
		/* the RC opcodes, or with 0x20 the UC ones; the top bits the QP */
		k = d[i] >> 6;
		h.bth.opcode = d[i++] & 0x3F;
		to = a.q[k];
		if (h.bth.opcode >= 0x30) {
			/* UD: a UD SEND to QP k, or anything to the UD QP */
			if (h.bth.opcode >= 0x38)
				to = a.ud;
			h.bth.opcode = h.bth.opcode == 0x38 ? ROCE_OP_RC_SEND_ONLY :
				       h.bth.opcode == 0x39 ? ROCE_OP_UC_SEND_ONLY :
				       ROCE_OP_UD_SEND_ONLY + (h.bth.opcode & 1);
		}
		op = roce_opcode_info(h.bth.opcode);
		h.bth.pkey = 0xFFFF;
		/* to the IPv6 QP: bits 5..7 the IPv6 variant (3: IPv4) */
		variant = d[i] >> 5;
		v6 = k == QP_V6 && variant != 3;
		if (v6)
			v6_addrs(&h, variant);
		h.bth.dqpn = roce_qp_num(to);
		h.bth.ackreq = d[i] & 1;
		h.bth.se = (d[i] & 0x10) != 0;
		/* PSN near what either side expects, sometimes anywhere */
		h.bth.psn = (d[i] & 2) ? (uint32_t)(rq_psn[k] + (int8_t)d[i + 1])
				       : (uint32_t)(sq_psn[k] + (int8_t)d[i + 1]);
		if ((d[i] & 0xC) == 0xC)
			h.bth.psn = (uint32_t)d[i + 1] << 16 | (uint32_t)d[i] << 8;
		h.bth.psn &= 0xFFFFFF;
		paylen = d[i + 2] % 3 == 0 ? 0 : (size_t)d[i + 2] * 8;
		i += 3;
		r = rd64(d, n, &i);
		/* remote addresses around the MR, keys right or wrong */
		h.reth.va = (uint64_t)(uintptr_t)a.buf + (int64_t)(int16_t)(r >> 48) * 4;
		h.reth.rkey = (r & 1) ? a.mr->rkey : (uint32_t)(r >> 8);
		h.reth.len = (uint32_t)(r >> 16) & 0x3FFFF;
		h.atomic.va = h.reth.va;
		h.atomic.rkey = h.reth.rkey;
		h.atomic.swap_add = rd64(d, n, &i);
		h.atomic.compare = r;
		h.aeth.syndrome = (uint8_t)r;
		h.aeth.msn = (uint32_t)(r >> 24) & 0xFFFFFF;
		h.deth.qkey = (r & 2) ? UD_QKEY : (uint32_t)(r >> 32);
		h.deth.sqpn = (uint32_t)(r >> 8) & 0xFFFFFF;
		if (!op || !op->payload || paylen > ROCE_MAX_MTU)
			paylen = 0;
		if (roce_build(&h, d + (i < n ? i : 0), i + paylen <= n ? paylen : 0, 0, frame,
			       sizeof(frame), &len) != 0)
			continue;
		if (v6 && variant == 6)
			len = insert_ext(frame, len, (uint8_t)(r >> 40), (uint8_t)(r >> 32));
		f.len = (uint32_t)len;
		roce_port_tx(&peer, &f, 1);
		roce_engine_poll(a.ctx);
		/* swallow what the engine answers */
		for (unsigned m = roce_port_rx(&peer, rx, 32); m; m = roce_port_rx(&peer, rx, 32))
			roce_port_rx_release(&peer, m);
	}
	for (int k = 0; k < 4; k++)
		roce_engine_poll(a.ctx);
	for (unsigned k = roce_port_rx(&peer, rx, 32); k; k = roce_port_rx(&peer, rx, 32))
		roce_port_rx_release(&peer, k);
	/* nothing outside the registered region ever changes */
	for (size_t k = 0; k < GUARD; k++)
		CHECK(guard_lo[k] == 0xA5 && guard_hi[k] == 0xA5);
	return 0;
}
