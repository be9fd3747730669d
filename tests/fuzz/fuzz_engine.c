/* SPDX-License-Identifier: MIT */
/*
 * Engine fuzz target: a hostile peer. Each input describes RoCE frames
 * (opcode, PSN offset, AckReq, RETH/AETH/AtomicETH fields, payload) that
 * are built with valid checksums and ICRC -- so they pass the receive
 * checks and reach the responder and the completer -- and sent at engine A,
 * whose QPs (an RC and a UC one) are in RTS with an MR registered. Bit
 * 0x20 of the opcode byte picks the RC or the UC opcode family, bit 0x40
 * the QP the frame goes to, so each QP also meets the other transport's
 * opcodes. The engine must never crash,
 * never read or write outside its memory (ASan), and never write device
 * memory outside the registered region.
 *
 * A frame may also be RoCE v2 over IPv6, to a second QP whose peer is an
 * IPv6 GID: from that peer or a stranger, to the QP's GID, to our other
 * GID (the link-local one) or to an address not ours, or with an IPv6
 * extension header of the input's choosing between IPv6 and UDP (whole,
 * cut short, a fragment, another next header).
 *
 * Bit 0x80 of the opcode byte sends the frame to a UD QP (over IPv4 or,
 * with the IPv6 bit, IPv6 from anyone): with 0x40 a UD opcode (0x64,
 * 0x65 by bit 0), without it an RC or UC one; an opcode byte of 0x3F
 * without 0x80 is a UD SEND to the RC (or, with 0x40, UC) QP. The DETH's
 * Q_Key is the UD QP's or the input's, its source QPN the input's.
 */
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
	struct roce_qp *qp, *qp6;       /* qp6: its peer is an IPv6 GID */
	struct roce_qp *uc;             /* a UC QP beside them */
	struct roce_qp *ud;             /* and a UD one */
	struct roce_cq *cq;
	uint8_t *buf;
	struct roce_mr *mr;
};

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

/* RESET -> RTS toward the fuzzer's port: IPv4 10.0.0.2, or (v6) the GID
 * fd00::2 from ours, fd00::1 */
static void connect_qp(struct roce_qp *qp, struct roce_qp_attr *at, bool v6)
{
	at->qp_state = ROCE_QPS_INIT;
	CHECK(roce_modify_qp(qp, at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_ACCESS_FLAGS) == ROCE_OK);
	at->qp_state = ROCE_QPS_RTR;
	at->path_mtu = ROCE_MTU_1024;
	at->dest_qp_num = 0x99;
	at->rq_psn = 1000;
	at->max_dest_rd_atomic = 4;
	at->min_rnr_timer = 1;
	at->ah_attr.dest_ip = 0x0A000002;
	memcpy(at->ah_attr.dest_mac, mac_p, 6);
	at->ah_attr.is_global = v6;
	at->ah_attr.grh.sgid_index = 2;
	memcpy(at->ah_attr.grh.dgid, gid_p, 16);
	CHECK(roce_modify_qp(qp, at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			     ROCE_QP_MIN_RNR_TIMER) == ROCE_OK);
	at->qp_state = ROCE_QPS_RTS;
	at->sq_psn = 5000;
	at->timeout = 1;
	at->retry_cnt = 7;
	at->rnr_retry = 7;
	at->max_rd_atomic = 4;
	CHECK(roce_modify_qp(qp, at, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
			     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
			     ROCE_QP_MAX_QP_RD_ATOMIC) == ROCE_OK);
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
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC, .cap = { 64, 64, 1, 1 } };
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
				   .qp_access_flags = ROCE_ACCESS_REMOTE_WRITE |
						      ROCE_ACCESS_REMOTE_READ |
						      ROCE_ACCESS_REMOTE_ATOMIC };
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
	a.cq = roce_create_cq(a.ctx, 256);
	guard_lo = roce_mem_alloc(a.ctx, GUARD, 64);
	a.buf = roce_mem_alloc(a.ctx, MR_LEN, 4096);
	guard_hi = roce_mem_alloc(a.ctx, GUARD, 64);
	CHECK(pd && a.cq && a.buf && guard_lo && guard_hi);
	memset(guard_lo, 0xA5, GUARD);
	memset(guard_hi, 0xA5, GUARD);
	a.mr = roce_reg_mr(pd, a.buf, MR_LEN, ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			   ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC);
	qa.send_cq = qa.recv_cq = a.cq;
	a.qp = roce_create_qp(pd, &qa);
	a.qp6 = roce_create_qp(pd, &qa);
	CHECK(a.mr && a.qp && a.qp6);
	connect_qp(a.qp, &at, false);
	connect_qp(a.qp6, &at, true);
	/* the UC QP: the IPv4 peer, its own QPN there, same PSNs */
	qa.qp_type = ROCE_QPT_UC;
	a.uc = roce_create_qp(pd, &qa);
	CHECK(a.uc != NULL);
	at.qp_state = ROCE_QPS_INIT;
	CHECK(roce_modify_qp(a.uc, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_ACCESS_FLAGS) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	at.dest_qp_num = 0x9A;
	at.ah_attr.is_global = false;
	CHECK(roce_modify_qp(a.uc, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	CHECK(roce_modify_qp(a.uc, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN) == ROCE_OK);
	/* the UD QP: no peer, its Q_Key */
	qa.qp_type = ROCE_QPT_UD;
	a.ud = roce_create_qp(pd, &qa);
	CHECK(a.ud != NULL);
	at.qp_state = ROCE_QPS_INIT;
	at.qkey = UD_QKEY;
	CHECK(roce_modify_qp(a.ud, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_QKEY) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	CHECK(roce_modify_qp(a.ud, &at, ROCE_QP_STATE) == ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	CHECK(roce_modify_qp(a.ud, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN) == ROCE_OK);
}

static uint64_t rd64(const uint8_t *d, size_t n, size_t *i)
{
	uint64_t v = 0;

	for (int k = 0; k < 8; k++)
		v = v << 8 | (*i < n ? d[(*i)++] : 0);
	return v;
}

/* Keep a QP usable: posted receives (at buf + off), and back to RTS
 * after an error. */
static void keep_qp(struct roce_qp *qp, size_t off)
{
	struct roce_qp_attr at;

	if (roce_query_qp(qp, &at) == ROCE_OK && at.qp_state == ROCE_QPS_ERR) {
		struct roce_qp_attr r = { .qp_state = ROCE_QPS_RESET };

		/* the register file kept the rest of the context: climb back */
		roce_modify_qp(qp, &r, ROCE_QP_STATE);
		roce_engine_poll(a.ctx);
		for (enum roce_qp_state s = ROCE_QPS_INIT; s <= ROCE_QPS_RTS; s++) {
			r.qp_state = s;
			CHECK(roce_modify_qp(qp, &r, ROCE_QP_STATE) == ROCE_OK);
		}
	}
	for (int i = 0; i < 4; i++) {
		struct roce_sge sge = { (uint64_t)(uintptr_t)a.buf + off + (size_t)i * 4096, 4096,
					a.mr->lkey };
		struct roce_recv_wr rw = { .sg_list = &sge, .num_sge = 1 };

		if (roce_post_recv(qp, &rw, NULL) != ROCE_OK)
			break;
	}
}

static void keep_alive(void)
{
	struct roce_wc wc[64];

	while (roce_poll_cq(a.cq, 64, wc) > 0)
		;
	keep_qp(a.qp, 0);
	keep_qp(a.qp6, 4 * 4096);
	keep_qp(a.uc, 8 * 4096);
	keep_qp(a.ud, 12 * 4096);
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
		bool v6, uc, ud;
		unsigned variant;

		memset(&h, 0, sizeof(h));
		memcpy(h.eth.dst, mac_a, 6);
		memcpy(h.eth.src, mac_p, 6);
		h.ip.ttl = 64;
		h.ip.src[0] = 10; h.ip.src[3] = 2;
		h.ip.dst[0] = 10; h.ip.dst[3] = 1;
		h.udp.sport = 0xC000;
		h.udp.dport = ROCE_UDP_PORT;
		/* the RC opcodes, or with 0x20 the UC ones; 0x40 the QP */
		h.bth.opcode = d[i] & 0x3F;
		uc = d[i] & 0x40;
		ud = d[i] & 0x80;
		if (ud && uc)
			h.bth.opcode = ROCE_OP_UD_SEND_ONLY + (d[i] & 1);
		else if (!ud && h.bth.opcode == 0x3F)
			h.bth.opcode = ROCE_OP_UD_SEND_ONLY;
		op = roce_opcode_info(h.bth.opcode);
		h.bth.pkey = 0xFFFF;
		i++;
		/* bit 4: IPv6 (to the second QP unless UC); bits 5..7 its variant */
		v6 = d[i] & 0x10;
		variant = d[i] >> 5;
		if (v6)
			v6_addrs(&h, variant);
		h.bth.dqpn = roce_qp_num(ud ? a.ud : uc ? a.uc : v6 ? a.qp6 : a.qp);
		h.bth.ackreq = d[i] & 1;
		/* PSN near what either side expects, sometimes anywhere */
		h.bth.psn = (d[i] & 2) ? (uint32_t)(1000 + (int8_t)d[i + 1])
				       : (uint32_t)(5000 + (int8_t)d[i + 1]);
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
		for (unsigned k = roce_port_rx(&peer, rx, 32); k; k = roce_port_rx(&peer, rx, 32))
			roce_port_rx_release(&peer, k);
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
