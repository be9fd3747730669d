/* SPDX-License-Identifier: MIT */
/*
 * UD against rxe's own frames (tests/vectors/captures/rxe_ud_pingpong.pcap:
 * ibv_ud_pingpong -s 512 between two rxe ports, 10.77.0.11 and .12, QPN
 * 0x21 each, Q_Key 0x11111111). One engine takes .11's place (its MAC,
 * address and QPN):
 *   - every datagram .12 sent is received as rxe received it: the GRH area
 *     20 zero bytes then the frame's IPv4 header byte for byte
 *     (build_rdma_network_hdr), the payload after it, byte_len 40 + 512,
 *     src_qp from the DETH, the GRH flag;
 *   - every datagram .11 sent, our engine sends the same: the same bytes
 *     but for the IP ID and header checksum and the ICRC, which covers the
 *     ID (rxe's UDP source port, TTL, DF, P_Key, no AckReq, DETH included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/memlink.h"
#include "roce/opcode.h"
#include "roce/packet.h"
#include "roce/pcap.h"
#include "roce/status.h"
#include "roce/verbs.h"

#define CAPTURE ROCE_SOURCE_DIR "/tests/vectors/captures/rxe_ud_pingpong.pcap"
#define QPN 0x21u
#define QKEY 0x11111111u
#define IP_11 0x0A4D000Bu
#define IP_12 0x0A4D000Cu
#define BUF 65536u

static const uint8_t mac_11[6] = { 0x52, 0x54, 0x0a, 0x4d, 0x00, 0x0b };
static const uint8_t mac_12[6] = { 0x52, 0x54, 0x0a, 0x4d, 0x00, 0x0c };

struct golden {
	struct roce_memlink *link;
	struct roce_port port, peer;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *rc[QPN - ROCE_FIRST_QPN];
	struct roce_qp *qp;
	struct roce_ah *ah;
	struct roce_mr *mr;
	uint8_t *buf;
};

/* The engine as .11, its UD QP numbered 0x21 as rxe's was (the QPNs
 * before it taken by idle RC QPs), RTS from sq_psn. */
static void open_golden(struct golden *g, uint32_t sq_psn)
{
	struct roce_memlink_config lc = { .seed = 1 };
	struct roce_context_attr ca = { .ip = IP_11, .port_mtu = ROCE_MTU_1024 };
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC,
					.cap = { .max_send_wr = 8, .max_recv_wr = 8,
						 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF, .qkey = QKEY };
	struct roce_ah_attr aa = { .dest_ip = IP_12 };

	memset(g, 0, sizeof(*g));
	assert_int_equal(roce_memlink_create(&lc, &g->link), ROCE_OK);
	assert_int_equal(roce_memlink_attach(g->link, mac_11, &g->port), ROCE_OK);
	assert_int_equal(roce_memlink_attach(g->link, mac_12, &g->peer), ROCE_OK);
	memcpy(ca.mac, mac_11, 6);
	ca.port = &g->port;
	assert_int_equal(roce_open(&ca, &g->ctx), ROCE_OK);
	g->pd = roce_alloc_pd(g->ctx);
	g->scq = roce_create_cq(g->ctx, 64);
	g->rcq = roce_create_cq(g->ctx, 64);
	assert_non_null(g->pd);
	qa.send_cq = g->scq;
	qa.recv_cq = g->rcq;
	for (unsigned i = 0; i < QPN - ROCE_FIRST_QPN; i++)
		assert_non_null(g->rc[i] = roce_create_qp(g->pd, &qa));
	qa.qp_type = ROCE_QPT_UD;
	g->qp = roce_create_qp(g->pd, &qa);
	assert_non_null(g->qp);
	assert_int_equal(roce_qp_num(g->qp), QPN);
	assert_int_equal(roce_modify_qp(g->qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
					ROCE_QP_QKEY), ROCE_OK);
	at.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_modify_qp(g->qp, &at, ROCE_QP_STATE), ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = sq_psn;
	assert_int_equal(roce_modify_qp(g->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN), ROCE_OK);
	memcpy(aa.dest_mac, mac_12, 6);
	g->ah = roce_create_ah(g->pd, &aa);
	assert_non_null(g->ah);
	g->buf = roce_mem_alloc(g->ctx, BUF, 4096);
	assert_non_null(g->buf);
	g->mr = roce_reg_mr(g->pd, g->buf, BUF, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(g->mr);
}

static void close_golden(struct golden *g)
{
	roce_destroy_ah(g->ah);
	roce_destroy_qp(g->qp);
	for (unsigned i = 0; i < QPN - ROCE_FIRST_QPN; i++)
		roce_destroy_qp(g->rc[i]);
	roce_dereg_mr(g->mr);
	roce_mem_free(g->ctx, g->buf);
	roce_destroy_cq(g->scq);
	roce_destroy_cq(g->rcq);
	roce_dealloc_pd(g->pd);
	roce_close(g->ctx);
	roce_memlink_destroy(g->link);
}

/* The capture's UD frames from src (IPv4, host order), in order; n of
 * them at most, each copied into f[i] (len[i] bytes). */
static unsigned ud_frames(uint32_t src, uint8_t f[][2048], uint32_t *len, unsigned n)
{
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	unsigned got = 0;

	assert_int_equal(roce_pcap_open_read(CAPTURE, &r, NULL, 0), ROCE_OK);
	while (got < n && roce_pcap_next(r, &rec) == ROCE_OK) {
		struct roce_pkt p;

		if (roce_parse(rec.data, rec.caplen, 0, &p) != ROCE_OK ||
		    p.op->transport != ROCE_TRANSPORT_UD ||
		    roce_ipv4_saddr(roce_pkt_ipv4(&p)) != src)
			continue;
		assert_true(rec.caplen <= 2048);
		memcpy(f[got], rec.data, rec.caplen);
		len[got++] = rec.caplen;
	}
	roce_pcap_close_read(r);
	return got;
}

static void poll_some(struct golden *g)
{
	for (int i = 0; i < 8; i++)
		roce_engine_poll(g->ctx);
}

static void test_receive(void **state)
{
	static uint8_t f[8][2048];
	uint32_t len[8];
	unsigned n = ud_frames(IP_12, f, len, 8);
	struct golden g;
	static const uint8_t zero[20];

	(void)state;
	assert_true(n >= 4);
	open_golden(&g, 0);
	for (unsigned i = 0; i < n; i++) {
		struct roce_sge sge = { (uintptr_t)g.buf, 512 + ROCE_GRH_LEN, g.mr->lkey };
		struct roce_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
		struct roce_frame fr = { .data = f[i], .len = len[i] };
		struct roce_pkt p;
		struct roce_wc wc;

		assert_int_equal(roce_parse(f[i], len[i], 0, &p), ROCE_OK);
		assert_int_equal(p.payload_len, 512);
		memset(g.buf, 0xEE, 1024);
		assert_int_equal(roce_post_recv(g.qp, &wr, NULL), ROCE_OK);
		assert_int_equal(roce_port_tx(&g.peer, &fr, 1), 1);
		poll_some(&g);
		assert_int_equal(roce_poll_cq(g.rcq, 1, &wc), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		assert_int_equal(wc.wr_id, i);
		assert_int_equal(wc.byte_len, ROCE_GRH_LEN + 512);
		assert_int_equal(wc.src_qp, QPN);
		assert_true(wc.wc_flags & ROCE_WC_GRH);
		/* rxe's GRH area: 20 zero bytes, the IPv4 header as received */
		assert_memory_equal(g.buf, zero, 20);
		assert_memory_equal(g.buf + 20, f[i] + ROCE_ETH_HLEN, ROCE_IPV4_HLEN);
		assert_memory_equal(g.buf + ROCE_GRH_LEN, roce_pkt_payload(&p), 512);
		assert_int_equal(g.buf[ROCE_GRH_LEN + 512], 0xEE);
	}
	close_golden(&g);
}

static void test_send(void **state)
{
	static uint8_t f[8][2048];
	uint32_t len[8];
	unsigned n = ud_frames(IP_11, f, len, 8);
	struct golden g;
	struct roce_pkt p0;

	(void)state;
	assert_true(n >= 4);
	assert_int_equal(roce_parse(f[0], len[0], 0, &p0), ROCE_OK);
	open_golden(&g, roce_bth_psn(roce_pkt_bth(&p0)));
	for (unsigned i = 0; i < n; i++) {
		struct roce_pkt p;
		struct roce_sge sge = { (uintptr_t)g.buf, 512, g.mr->lkey };
		struct roce_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
					   .opcode = ROCE_WR_SEND,
					   .send_flags = ROCE_SEND_SIGNALED };
		struct roce_frame out;
		struct roce_wc wc;
		uint32_t ic = len[i] - ROCE_ICRC_LEN;

		assert_int_equal(roce_parse(f[i], len[i], 0, &p), ROCE_OK);
		memcpy(g.buf, roce_pkt_payload(&p), 512);
		wr.wr.ud.ah = g.ah;
		wr.wr.ud.remote_qpn = QPN;
		wr.wr.ud.remote_qkey = QKEY;
		assert_int_equal(roce_post_send(g.qp, &wr, NULL), ROCE_OK);
		poll_some(&g);
		assert_int_equal(roce_poll_cq(g.scq, 1, &wc), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		assert_int_equal(roce_port_rx(&g.peer, &out, 1), 1);
		assert_int_equal(out.len, len[i]);
		/* Ethernet, IPv4 up to the ID; flags to the protocol;
		 * addresses, UDP, BTH, DETH, payload: rxe's bytes */
		assert_memory_equal(out.data, f[i], 18);
		assert_memory_equal(out.data + 20, f[i] + 20, 4);
		assert_memory_equal(out.data + 26, f[i] + 26, ic - 26);
		roce_port_rx_release(&g.peer, 1);
	}
	close_golden(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_receive),
		cmocka_unit_test(test_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
