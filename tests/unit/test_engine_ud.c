/* SPDX-License-Identifier: MIT */
/*
 * UD between two engines (pair.h's contexts, with UD QPs made here):
 * SEND and SEND with immediate both ways over IPv4 and IPv6 address
 * handles, the GRH area, src_qp and byte_len of every receive checked,
 * and no ACK either way; the Q_Key (a mismatch dropped and counted, the
 * high bit standing for the QP's own); a message longer than the port's
 * MTU (LOC_LEN_ERR, nothing sent); longer than the receive buffer, or
 * with no receive WQE (dropped, counted, the QP unharmed); the
 * transports kept apart (a UD packet to an RC QP and an RC one to a UD
 * QP are drop_qp_type); QP1; a UD QP on an SRQ.
 */
#include "pair.h"
#include "roce/gid.h"
#include "roce/opcode.h"
#include "roce/packet.h"

#define QKEY 0x11111111u
#define RECV_OFF (1u << 20)

struct ud {
	struct roce_qp *qp;
	struct roce_ah *ah;             /* to the other side's UD QP */
};

static struct roce_qp *ud_qp_srq(struct pair_side *s, enum roce_qp_type type, uint32_t qkey,
				 struct roce_srq *srq)
{
	struct roce_qp_init_attr qa = {
		.send_cq = s->scq, .recv_cq = s->rcq, .qp_type = type, .srq = srq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 2,
			 .max_recv_sge = 2 },
	};
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF, .qkey = qkey };
	struct roce_qp *qp = roce_create_qp(s->pd, &qa);

	assert_non_null(qp);
	/* ibv_ud_pingpong's sequence: INIT with P_Key and Q_Key, RTR, RTS */
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
					(type == ROCE_QPT_GSI ? 0 : ROCE_QP_QKEY)), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE), ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = 0x42;
	assert_int_equal(roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN), ROCE_OK);
	return qp;
}

static struct roce_qp *ud_qp(struct pair_side *s, enum roce_qp_type type, uint32_t qkey)
{
	return ud_qp_srq(s, type, qkey, NULL);
}

/* An AH on s to d: d's IPv4 address, or with ipv6 d's GID from s's. */
static struct roce_ah *ah_to(struct pair_side *s, const struct pair_side *d, bool ipv6)
{
	struct roce_ah_attr aa = { 0 };
	struct roce_ah *ah;

	memcpy(aa.dest_mac, s->peer_mac, 6);
	if (ipv6) {
		aa.is_global = true;
		memcpy(aa.grh.dgid, d->gid, 16);
		aa.grh.sgid_index = (uint8_t)s->sgid_index;
		aa.grh.hop_limit = 1;   /* the route's 64 is used instead */
	} else {
		aa.dest_ip = d->ip;
	}
	ah = roce_create_ah(s->pd, &aa);
	assert_non_null(ah);
	return ah;
}

static void post_recv(struct pair_side *s, struct roce_qp *qp, uint64_t id, uint32_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)s->buf + RECV_OFF, len, s->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(roce_post_recv(qp, &wr, NULL), ROCE_OK);
}

static int post_send(struct pair_side *s, struct roce_qp *qp, struct roce_ah *ah,
		     uint32_t dqpn, uint32_t qkey, enum roce_wr_opcode op, uint64_t id,
		     uint32_t len)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)s->buf, len, s->mr->lkey };
	struct roce_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
				   .send_flags = ROCE_SEND_SIGNALED,
				   .imm_data = (uint32_t)id ^ 0xA5A5A5A5u };
	struct roce_send_wr *bad = NULL;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = qkey;
	return roce_post_send(qp, &wr, &bad);
}

static void expect_send_wc(struct pair *p, struct pair_side *s, uint64_t id,
			   enum roce_wc_status st)
{
	struct roce_wc wc;

	assert_int_equal(pair_wait(p, s->scq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, id);
	if (wc.status != st)
		fail_msg("wr %llu: '%s', want '%s'", (unsigned long long)id,
			 roce_wc_status_str(wc.status), roce_wc_status_str(st));
	if (st == ROCE_WC_SUCCESS)
		assert_int_equal(wc.opcode, ROCE_WC_SEND);
}

/* The GRH area rxe writes (ud.c): IPv4, 20 zero bytes then an IPv4 header
 * from s to d; IPv6, an IPv6 header from s's GID to d's. */
static void check_grh(const uint8_t *g, const struct pair_side *s, const struct pair_side *d,
		      bool ipv6, uint32_t len, bool imm)
{
	static const uint8_t zero[20];
	/* UDP, BTH, DETH, ImmDt, the payload padded, ICRC */
	uint32_t l4 = ROCE_UDP_HLEN + ROCE_BTH_LEN + 8 + (imm ? 4 : 0) + (len + 3) / 4 * 4 +
		      ROCE_ICRC_LEN;

	if (ipv6) {
		assert_int_equal(g[0] >> 4, 6);
		assert_int_equal(roce_get_be16(g + 4), l4);
		assert_int_equal(g[6], 17);
		assert_int_equal(g[7], 64);
		assert_memory_equal(g + 8, s->gid, 16);
		assert_memory_equal(g + 24, d->gid, 16);
		return;
	}
	assert_memory_equal(g, zero, 20);
	assert_int_equal(g[20], 0x45);
	assert_int_equal(roce_get_be16(g + 22), 20 + l4);
	assert_int_equal(g[28], 64);
	assert_int_equal(g[29], 17);
	assert_int_equal(roce_get_be32(g + 32), s->ip);
	assert_int_equal(roce_get_be32(g + 36), d->ip);
}

/* One message from s's QP to d's, received and checked. */
static void one_way(struct pair *p, struct pair_side *s, struct ud *su, struct pair_side *d,
		    struct ud *du, bool ipv6, enum roce_wr_opcode op, uint32_t len, uint64_t id)
{
	bool imm = op == ROCE_WR_SEND_WITH_IMM;
	struct roce_wc wc;

	pair_pattern(s->buf, len, (uint32_t)id);
	memset(d->buf + RECV_OFF, 0xEE, ROCE_GRH_LEN + len + 64);
	post_recv(d, du->qp, id, ROCE_GRH_LEN + len);
	assert_int_equal(post_send(s, su->qp, su->ah, roce_qp_num(du->qp), QKEY, op, id, len),
			 ROCE_OK);
	expect_send_wc(p, s, id, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, d->rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, id);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.opcode, ROCE_WC_RECV);
	assert_int_equal(wc.byte_len, ROCE_GRH_LEN + len);      /* the GRH area counts */
	assert_int_equal(wc.src_qp, roce_qp_num(su->qp));
	assert_int_equal(wc.qp_num, roce_qp_num(du->qp));
	assert_true(wc.wc_flags & ROCE_WC_GRH);
	assert_int_equal(!!(wc.wc_flags & ROCE_WC_WITH_IMM), imm);
	if (imm)
		assert_int_equal(wc.imm_data, (uint32_t)id ^ 0xA5A5A5A5u);
	check_grh(d->buf + RECV_OFF, s, d, ipv6, len, imm);
	assert_memory_equal(d->buf + RECV_OFF + ROCE_GRH_LEN, s->buf, len);
	assert_int_equal(d->buf[RECV_OFF + ROCE_GRH_LEN + len], 0xEE);
}

static void both_ways(bool ipv6)
{
	struct pair_opts o = { .ipv6 = ipv6 };
	struct pair *p = pair_open(&o);
	struct ud a = { ud_qp(&p->a, ROCE_QPT_UD, QKEY), NULL };
	struct ud b = { ud_qp(&p->b, ROCE_QPT_UD, QKEY), NULL };
	const uint32_t sizes[] = { 0, 1, 255, 1024, 4095, 4096 };
	uint64_t id = 1;

	a.ah = ah_to(&p->a, &p->b, ipv6);
	b.ah = ah_to(&p->b, &p->a, ipv6);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		one_way(p, &p->a, &a, &p->b, &b, ipv6, ROCE_WR_SEND, sizes[i], id++);
		one_way(p, &p->b, &b, &p->a, &a, ipv6, ROCE_WR_SEND_WITH_IMM, sizes[i], id++);
	}
	/* unacknowledged: one frame per message, nothing back */
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TX_PKTS), 6);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_TX_PKTS), 6);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_ACKS_TX) + pair_cnt(&p->b, ROCE_CNT_ACKS_TX), 0);
	assert_int_equal(roce_destroy_ah(a.ah), ROCE_OK);
	assert_int_equal(roce_destroy_ah(b.ah), ROCE_OK);
	roce_destroy_qp(a.qp);
	roce_destroy_qp(b.qp);
	pair_close(p);
}

static void test_ipv4(void **state)
{
	(void)state;
	both_ways(false);
}

static void test_ipv6(void **state)
{
	(void)state;
	both_ways(true);
}

/* Poll a while: whatever was going to arrive has. */
static void settle(struct pair *p)
{
	for (int i = 0; i < 200; i++)
		pair_poll(p);
}

static void expect_nothing(struct pair *p, struct roce_cq *cq)
{
	struct roce_wc wc;

	settle(p);
	assert_int_equal(roce_poll_cq(cq, 1, &wc), 0);
}

static void test_qkey(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct ud a = { ud_qp(&p->a, ROCE_QPT_UD, QKEY), NULL };
	struct ud b = { ud_qp(&p->b, ROCE_QPT_UD, QKEY), NULL };
	struct roce_qp_attr at;
	struct roce_wc wc;

	(void)state;
	a.ah = ah_to(&p->a, &p->b, false);
	assert_int_equal(roce_query_qp(b.qp, &at), ROCE_OK);
	assert_int_equal(at.qkey, QKEY);
	post_recv(&p->b, b.qp, 9, 256);
	/* a wrong Q_Key: sent (UD completes on send), dropped at B */
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY + 1,
				   ROCE_WR_SEND, 1, 16), ROCE_OK);
	expect_send_wc(p, &p->a, 1, ROCE_WC_SUCCESS);
	expect_nothing(p, p->b.rcq);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_QKEY), 1);
	/* the high bit: A's own Q_Key goes out, which is B's */
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), 0x80000000u,
				   ROCE_WR_SEND, 2, 16), ROCE_OK);
	expect_send_wc(p, &p->a, 2, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, 9);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_QKEY), 1);
	/* A's own Q_Key changed: the high bit follows it, and B drops */
	at.qkey = 0x22222222u;
	assert_int_equal(roce_modify_qp(a.qp, &at, ROCE_QP_QKEY), ROCE_OK);
	post_recv(&p->b, b.qp, 10, 256);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), 0xFFFFFFFFu,
				   ROCE_WR_SEND, 3, 16), ROCE_OK);
	expect_send_wc(p, &p->a, 3, ROCE_WC_SUCCESS);
	expect_nothing(p, p->b.rcq);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_QKEY), 2);
	/* an RC or UC QP has no Q_Key to set */
	assert_int_equal(roce_modify_qp(p->a.qp, &at, ROCE_QP_QKEY), ROCE_E_INVAL);
	roce_destroy_ah(a.ah);
	roce_destroy_qp(a.qp);
	roce_destroy_qp(b.qp);
	pair_close(p);
}

static void test_lengths(void **state)
{
	struct pair_opts o = { .port_mtu = ROCE_MTU_1024 };
	struct pair *p = pair_open(&o);
	struct ud a = { ud_qp(&p->a, ROCE_QPT_UD, QKEY), NULL };
	struct ud b = { ud_qp(&p->b, ROCE_QPT_UD, QKEY), NULL };
	uint64_t tx;
	struct roce_wc wc;

	(void)state;
	a.ah = ah_to(&p->a, &p->b, false);
	assert_int_equal(roce_context_port_mtu(p->a.ctx), ROCE_MTU_1024);
	/* no receive WQE: dropped and counted, never an RNR NAK */
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND, 1, 64), ROCE_OK);
	expect_send_wc(p, &p->a, 1, ROCE_WC_SUCCESS);
	expect_nothing(p, p->b.rcq);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_NO_RWQE), 1);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_RNR), 0);
	/* the buffer holds the GRH area and 63 bytes: a 64-byte message is
	 * dropped and counted, the WQE stays for the next one */
	post_recv(&p->b, b.qp, 7, ROCE_GRH_LEN + 63);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND, 2, 64), ROCE_OK);
	expect_send_wc(p, &p->a, 2, ROCE_WC_SUCCESS);
	expect_nothing(p, p->b.rcq);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_RECV_LEN), 1);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND, 3, 63), ROCE_OK);
	expect_send_wc(p, &p->a, 3, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, 7);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, ROCE_GRH_LEN + 63);
	/* the port's MTU exactly: sent; one byte more: not sent, a local
	 * length error, and the QP fails as for any local error */
	post_recv(&p->b, b.qp, 8, ROCE_GRH_LEN + 1024);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND, 4, 1024), ROCE_OK);
	expect_send_wc(p, &p->a, 4, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.byte_len, ROCE_GRH_LEN + 1024);
	tx = pair_cnt(&p->a, ROCE_CNT_TX_PKTS);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND, 5, 1025), ROCE_OK);
	expect_send_wc(p, &p->a, 5, ROCE_WC_LOC_LEN_ERR);
	settle(p);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_TX_PKTS), tx);
	/* B's QP took all that and is still fine */
	b.ah = ah_to(&p->b, &p->a, false);
	post_recv(&p->b, b.qp, 11, 64);
	assert_int_equal(post_send(&p->b, b.qp, b.ah, roce_qp_num(a.qp), QKEY, ROCE_WR_SEND,
				   6, 8), ROCE_OK);
	expect_send_wc(p, &p->b, 6, ROCE_WC_SUCCESS);
	roce_destroy_ah(a.ah);
	roce_destroy_ah(b.ah);
	roce_destroy_qp(a.qp);
	roce_destroy_qp(b.qp);
	pair_close(p);
}

/* The transports are kept apart: A's RC QP sends to B's UD QP (its RC
 * QP's peer number rewritten), B's UD QP to A's RC QP. */
static void test_qp_type(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct ud b = { ud_qp(&p->b, ROCE_QPT_UD, QKEY), NULL };
	struct roce_qp_attr at = { .dest_qp_num = 0 };
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->a.buf, 16, p->a.mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND };
	struct roce_recv_wr rw = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };

	(void)state;
	post_recv(&p->b, b.qp, 3, 256);
	assert_int_equal(roce_post_recv(p->a.qp, &rw, NULL), ROCE_OK);
	/* UD opcode to an RC QP */
	b.ah = ah_to(&p->b, &p->a, false);
	assert_int_equal(post_send(&p->b, b.qp, b.ah, roce_qp_num(p->a.qp), QKEY,
				   ROCE_WR_SEND, 4, 16), ROCE_OK);
	expect_send_wc(p, &p->b, 4, ROCE_WC_SUCCESS);
	expect_nothing(p, p->a.rcq);
	assert_int_equal(pair_cnt(&p->a, ROCE_CNT_DROP_QP_TYPE), 1);
	/* RC opcode to a UD QP: A's RC QP aimed at B's UD QP; A retries
	 * (nothing answers) until its QP is torn down */
	at.dest_qp_num = roce_qp_num(b.qp);
	assert_int_equal(roce_modify_qp(p->a.qp, &at, ROCE_QP_DEST_QPN), ROCE_OK);
	assert_int_equal(roce_post_send(p->a.qp, &wr, NULL), ROCE_OK);
	expect_nothing(p, p->b.rcq);
	assert_true(pair_cnt(&p->b, ROCE_CNT_DROP_QP_TYPE) >= 1);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_RX_PKTS), 0);
	roce_destroy_ah(b.ah);
	roce_destroy_qp(b.qp);
	pair_close(p);
}

/* What create_ah, post_send and modify refuse on UD. */
static void test_verbs(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_qp *a = ud_qp(&p->a, ROCE_QPT_UD, QKEY);
	struct roce_ah_attr bad = { .dest_ip = 0x0A000002u };
	struct roce_ah *ah = ah_to(&p->a, &p->b, false), *ah2;
	struct roce_pd *pd2 = roce_alloc_pd(p->a.ctx);
	struct roce_qp_attr at = { .path_mtu = ROCE_MTU_1024 };

	(void)state;
	/* an AH needs a unicast MAC, a peer, a DGID of its SGID's family */
	assert_null(roce_create_ah(p->a.pd, &bad));
	memcpy(bad.dest_mac, p->a.peer_mac, 6);
	bad.dest_ip = 0;
	assert_null(roce_create_ah(p->a.pd, &bad));
	bad.is_global = true;           /* an IPv6 DGID from the IPv4 GID */
	bad.grh.sgid_index = 1;
	bad.grh.dgid[0] = 0xfe;
	bad.grh.dgid[1] = 0x80;
	bad.grh.dgid[15] = 1;
	assert_null(roce_create_ah(p->a.pd, &bad));
	bad.grh.sgid_index = 9;         /* no such GID */
	assert_null(roce_create_ah(p->a.pd, &bad));
	/* UD: SENDs only, each to an AH of the QP's PD */
	assert_int_equal(post_send(&p->a, a, ah, 0x11, QKEY, ROCE_WR_RDMA_WRITE, 1, 8),
			 ROCE_E_INVAL);
	assert_int_equal(post_send(&p->a, a, NULL, 0x11, QKEY, ROCE_WR_SEND, 1, 8),
			 ROCE_E_INVAL);
	assert_non_null(pd2);
	memcpy(bad.dest_mac, p->a.peer_mac, 6);
	bad.is_global = false;
	bad.dest_ip = p->b.ip;
	ah2 = roce_create_ah(pd2, &bad);
	assert_non_null(ah2);
	assert_int_equal(post_send(&p->a, a, ah2, 0x11, QKEY, ROCE_WR_SEND, 1, 8),
			 ROCE_E_INVAL);
	/* a UD QP has no path, peer or RDMA rights */
	assert_int_equal(roce_modify_qp(a, &at, ROCE_QP_PATH_MTU), ROCE_E_INVAL);
	assert_int_equal(roce_modify_qp(a, &at, ROCE_QP_AV), ROCE_E_INVAL);
	assert_int_equal(roce_modify_qp(a, &at, ROCE_QP_DEST_QPN), ROCE_E_INVAL);
	assert_int_equal(roce_modify_qp(a, &at, ROCE_QP_ACCESS_FLAGS), ROCE_E_INVAL);
	assert_int_equal(roce_modify_qp(a, &at, ROCE_QP_TIMEOUT), ROCE_E_INVAL);
	assert_int_equal(roce_destroy_ah(ah2), ROCE_OK);
	assert_int_equal(roce_destroy_ah(ah), ROCE_OK);
	roce_destroy_qp(a);
	roce_dealloc_pd(pd2);
	pair_close(p);
}

/* QP1: QPN 1, the GSI Q_Key, one per port; two QP1s talk with the
 * controlled Q_Key through the high bit, as the CM's MADs will. */
static void test_qp1(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_qp_init_attr qa = { .send_cq = p->a.scq, .recv_cq = p->a.rcq,
					.qp_type = ROCE_QPT_GSI };
	struct ud a = { ud_qp(&p->a, ROCE_QPT_GSI, 0), NULL };
	struct ud b = { ud_qp(&p->b, ROCE_QPT_GSI, 0), NULL };
	struct roce_qp_attr at;
	struct roce_qp *other = ud_qp(&p->a, ROCE_QPT_UD, QKEY), *q;
	struct roce_wc wc;

	(void)state;
	assert_int_equal(roce_qp_num(a.qp), ROCE_GSI_QPN);
	assert_int_equal(roce_qp_num(b.qp), ROCE_GSI_QPN);
	assert_int_not_equal(roce_qp_num(other), ROCE_GSI_QPN);
	assert_int_equal(roce_query_qp(a.qp, &at), ROCE_OK);
	assert_int_equal(at.qkey, ROCE_GSI_QKEY);
	assert_int_equal(roce_create_qp_status(p->a.pd, &qa, &q), ROCE_E_EXISTS);
	at.qkey = QKEY;
	assert_int_equal(roce_modify_qp(a.qp, &at, ROCE_QP_QKEY), ROCE_E_INVAL);
	at.qkey = ROCE_GSI_QKEY;
	assert_int_equal(roce_modify_qp(a.qp, &at, ROCE_QP_QKEY), ROCE_OK);
	a.ah = ah_to(&p->a, &p->b, false);
	post_recv(&p->b, b.qp, 5, 256 + ROCE_GRH_LEN);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, ROCE_GSI_QPN, 0x80000000u,
				   ROCE_WR_SEND, 1, 256), ROCE_OK);
	expect_send_wc(p, &p->a, 1, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.src_qp, ROCE_GSI_QPN);
	assert_int_equal(wc.qp_num, ROCE_GSI_QPN);
	/* an ordinary UD QP's Q_Key does not reach QP1 */
	assert_int_equal(post_send(&p->a, other, a.ah, ROCE_GSI_QPN, 0x80000000u,
				   ROCE_WR_SEND, 2, 16), ROCE_OK);
	expect_send_wc(p, &p->a, 2, ROCE_WC_SUCCESS);
	expect_nothing(p, p->b.rcq);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_QKEY), 1);
	/* destroyed, QP1 can be made again */
	roce_destroy_qp(a.qp);
	assert_int_equal(roce_create_qp_status(p->a.pd, &qa, &q), ROCE_OK);
	assert_int_equal(roce_qp_num(q), ROCE_GSI_QPN);
	roce_destroy_qp(q);
	roce_destroy_qp(other);
	roce_destroy_qp(b.qp);
	roce_destroy_ah(a.ah);
	pair_close(p);
}

/* A UD QP on an SRQ: the datagram lands in the SRQ's WQE; one too long
 * for the WQE is dropped and the WQE, taken by the QP, serves the next. */
static void test_srq(void **state)
{
	struct pair_opts o = { 0 };
	struct pair *p = pair_open(&o);
	struct roce_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct roce_srq *srq = roce_create_srq(p->b.pd, &sa);
	struct ud a = { ud_qp(&p->a, ROCE_QPT_UD, QKEY), NULL };
	struct ud b = { NULL, NULL };
	struct roce_sge sge = { (uint64_t)(uintptr_t)p->b.buf + RECV_OFF, ROCE_GRH_LEN + 16,
				p->b.mr->lkey };
	struct roce_recv_wr rw = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 };
	struct roce_wc wc;

	(void)state;
	assert_non_null(srq);
	b.qp = ud_qp_srq(&p->b, ROCE_QPT_UD, QKEY, srq);
	a.ah = ah_to(&p->a, &p->b, false);
	assert_int_equal(roce_post_srq_recv(srq, &rw, NULL), ROCE_OK);
	pair_pattern(p->a.buf, 64, 5);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND, 1, 64), ROCE_OK);
	expect_send_wc(p, &p->a, 1, ROCE_WC_SUCCESS);
	expect_nothing(p, p->b.rcq);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_RECV_LEN), 1);
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND_WITH_IMM, 2, 16), ROCE_OK);
	expect_send_wc(p, &p->a, 2, ROCE_WC_SUCCESS);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, ROCE_GRH_LEN + 16);
	assert_int_equal(wc.src_qp, roce_qp_num(a.qp));
	assert_true(wc.wc_flags & ROCE_WC_GRH);
	assert_memory_equal(p->b.buf + RECV_OFF + ROCE_GRH_LEN, p->a.buf, 16);
	/* the SRQ is empty now: the next datagram has no WQE */
	assert_int_equal(post_send(&p->a, a.qp, a.ah, roce_qp_num(b.qp), QKEY,
				   ROCE_WR_SEND, 3, 16), ROCE_OK);
	expect_send_wc(p, &p->a, 3, ROCE_WC_SUCCESS);
	expect_nothing(p, p->b.rcq);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_DROP_NO_RWQE), 1);
	roce_destroy_ah(a.ah);
	roce_destroy_qp(a.qp);
	roce_destroy_qp(b.qp);
	assert_int_equal(roce_destroy_srq(srq), ROCE_OK);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_qkey),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_qp_type),
		cmocka_unit_test(test_verbs),
		cmocka_unit_test(test_qp1),
		cmocka_unit_test(test_srq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
