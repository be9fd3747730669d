/* SPDX-License-Identifier: MIT */
/*
 * Our frames against rxe's for the same exchange, RoCE v2 over IPv6: the
 * golden captures rxe_rc_pingpong_ipv6.pcap (global GIDs) and
 * rxe_rc_pingpong_ipv6_ll.pcap (link-local GIDs) hold ibv_rc_pingpong
 * between two rxe guests. Our engine takes the place of guest a, the
 * server: the same MAC, GID, QPN and PSNs (read from the capture), the
 * same QP attributes and work requests as ibv_rc_pingpong's server
 * (receive into its buffer, send that buffer back). Guest b's frames go
 * in as captured; every frame our engine sends must be, byte for byte,
 * the frame guest a sent at that point of the exchange: Ethernet, the
 * IPv6 header (traffic class, flow label, hop limit, addresses), UDP
 * (source port, zero checksum), BTH, AETH, payload and ICRC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/gid.h"
#include "roce/memlink.h"
#include "roce/packet.h"
#include "roce/pcap.h"
#include "roce/status.h"
#include "roce/verbs.h"

#define CAPTURES ROCE_SOURCE_DIR "/tests/vectors/captures/"
#define PP_SIZE 4096u           /* the runs' -s */
#define MAX_FRAMES 128

struct frame {
	uint8_t data[ROCE_MAX_FRAME];
	uint32_t len;
	bool from_a;
};

struct golden {
	struct frame f[MAX_FRAMES];
	unsigned n;
	uint8_t mac_a[6], mac_b[6], gid_a[16], gid_b[16];
	uint32_t qpn_a, qpn_b, psn_a, psn_b;    /* a's and b's first PSNs */
};

/* The RoCE frames of the capture, and what they say about each side. */
static void load(const char *name, struct golden *g)
{
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	bool seen_a = false, seen_b = false;

	memset(g, 0, sizeof(*g));
	assert_int_equal(roce_pcap_open_read(name, &r, NULL, 0), ROCE_OK);
	while (roce_pcap_next(r, &rec) == ROCE_OK) {
		struct roce_pkt p;
		struct roce_hdrs h;
		struct frame *f;

		if (roce_parse(rec.data, rec.caplen, 0, &p) != ROCE_OK)
			continue;       /* ARP, ND, the TCP exchange */
		roce_decode(&p, &h);
		assert_true(g->n < MAX_FRAMES);
		f = &g->f[g->n++];
		memcpy(f->data, rec.data, rec.caplen);
		f->len = rec.caplen;
		if (!seen_b) {
			/* b, the client, speaks first */
			seen_b = true;
			memcpy(g->mac_b, h.eth.src, 6);
			memcpy(g->mac_a, h.eth.dst, 6);
			memcpy(g->gid_b, h.ip.src, 16);
			memcpy(g->gid_a, h.ip.dst, 16);
			g->qpn_a = h.bth.dqpn;
			g->psn_b = h.bth.psn;
		}
		f->from_a = !memcmp(h.eth.src, g->mac_a, 6);
		if (f->from_a && !seen_a && h.bth.opcode != ROCE_OP_RC_ACK) {
			seen_a = true;
			g->qpn_b = h.bth.dqpn;
			g->psn_a = h.bth.psn;
		}
	}
	roce_pcap_close_read(r);
	assert_true(seen_a && seen_b);
	assert_true(g->n >= 40);
}

static uint64_t vclock(void *ctx)
{
	return *(const uint64_t *)ctx;
}

struct side {
	struct roce_memlink *link;
	struct roce_port port, peer;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *buf;
	uint64_t clock;
};

static void post_recv(struct side *s)
{
	struct roce_sge sge = { (uintptr_t)s->buf, PP_SIZE, s->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

	assert_int_equal(roce_post_recv(s->qp, &wr, &bad), ROCE_OK);
}

/* Guest a as ibv_rc_pingpong's server makes it (rc_pingpong.c:
 * pp_init_ctx, pp_connect_ctx), with our engine: its MAC, its GID (index
 * 2 its global address, or 0 the link-local one from its MAC), its QPN. */
static void open_a(struct side *s, const struct golden *g)
{
	struct roce_memlink_config lc = { .now_ns = vclock };
	struct roce_context_attr ca = { .ip = 0x0A5B000Bu, .now_ns = vclock };
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC,
					.cap = { 1, 500, 1, 1, 0 } };
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF };
	bool ll = g->gid_a[0] == 0xfe;
	struct roce_qp *spare[4];
	unsigned nspare = 0;

	memset(s, 0, sizeof(*s));
	s->clock = 1000000;
	lc.clock_ctx = ca.clock_ctx = &s->clock;
	assert_int_equal(roce_memlink_create(&lc, &s->link), ROCE_OK);
	assert_int_equal(roce_memlink_attach(s->link, g->mac_a, &s->port), ROCE_OK);
	assert_int_equal(roce_memlink_attach(s->link, g->mac_b, &s->peer), ROCE_OK);
	memcpy(ca.mac, g->mac_a, 6);
	ca.port = &s->port;
	if (!ll) {
		memcpy(ca.ip6[0], g->gid_a, 16);
		ca.n_ip6 = 1;
	}
	assert_int_equal(roce_open(&ca, &s->ctx), ROCE_OK);
	s->pd = roce_alloc_pd(s->ctx);
	s->cq = roce_create_cq(s->ctx, 1024);
	qa.send_cq = qa.recv_cq = s->cq;
	/* the QPN guest a had (a QP number is handed out in order) */
	for (;;) {
		s->qp = roce_create_qp(s->pd, &qa);
		assert_non_null(s->qp);
		if (roce_qp_num(s->qp) == g->qpn_a)
			break;
		assert_true(nspare < 4);
		spare[nspare++] = s->qp;
	}
	while (nspare)
		roce_destroy_qp(spare[--nspare]);
	s->buf = roce_mem_alloc(s->ctx, PP_SIZE, 4096);
	s->mr = roce_reg_mr(s->pd, s->buf, PP_SIZE, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(s->mr);
	/* rc_pingpong: no QP rights, P_Key index 0 */
	assert_int_equal(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
					ROCE_QP_ACCESS_FLAGS), ROCE_OK);
	for (int i = 0; i < 16; i++)
		post_recv(s);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_1024;
	at.dest_qp_num = g->qpn_b;
	at.rq_psn = g->psn_b;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 12;
	memcpy(at.ah_attr.dest_mac, g->mac_b, 6);
	at.ah_attr.is_global = true;
	at.ah_attr.grh.hop_limit = 1;
	at.ah_attr.grh.sgid_index = ll ? 0 : 2;
	memcpy(at.ah_attr.grh.dgid, g->gid_b, 16);
	assert_int_equal(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
					ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
					ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
					ROCE_QP_MIN_RNR_TIMER), ROCE_OK);
	at.qp_state = ROCE_QPS_RTS;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.sq_psn = g->psn_a;
	at.max_rd_atomic = 1;
	assert_int_equal(roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_TIMEOUT |
					ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					ROCE_QP_SQ_PSN | ROCE_QP_MAX_QP_RD_ATOMIC), ROCE_OK);
}

static void close_a(struct side *s)
{
	roce_destroy_qp(s->qp);
	roce_dereg_mr(s->mr);
	roce_mem_free(s->ctx, s->buf);
	roce_destroy_cq(s->cq);
	roce_dealloc_pd(s->pd);
	roce_close(s->ctx);
	roce_memlink_destroy(s->link);
}

/* One poll of the engine, then the server's part of rc_pingpong: a
 * message received is sent back from the same buffer. */
static void step(struct side *s)
{
	struct roce_wc wc[4];
	int n;

	roce_engine_poll(s->ctx);
	s->clock += 1000;
	n = roce_poll_cq(s->cq, 4, wc);
	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		if (wc[i].opcode == ROCE_WC_RECV) {
			struct roce_sge sge = { (uintptr_t)s->buf, PP_SIZE, s->mr->lkey };
			struct roce_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
						   .opcode = ROCE_WR_SEND,
						   .send_flags = ROCE_SEND_SIGNALED }, *bad;

			assert_int_equal(wc[i].byte_len, PP_SIZE);
			post_recv(s);
			assert_int_equal(roce_post_send(s->qp, &wr, &bad), ROCE_OK);
		}
	}
}

static void replay(const char *name)
{
	static struct golden g;
	struct side a;
	unsigned ours = 0;

	load(name, &g);
	open_a(&a, &g);
	for (unsigned i = 0; i < g.n; i++) {
		const struct frame *f = &g.f[i];

		if (!f->from_a) {
			struct roce_frame out = { (uint8_t *)f->data, f->len };

			assert_int_equal(roce_port_tx(&a.peer, &out, 1), 1);
			continue;
		}
		/* the frame guest a sent here: ours must come, and be it */
		for (int k = 0;; k++) {
			struct roce_frame in;

			step(&a);
			if (roce_port_rx(&a.peer, &in, 1) == 1) {
				if (in.len != f->len || memcmp(in.data, f->data, f->len)) {
					struct roce_pkt p;
					struct roce_hdrs h;

					assert_int_equal(roce_parse(in.data, in.len, 0, &p), ROCE_OK);
					roce_decode(&p, &h);
					fail_msg("%s: frame %u of the exchange differs: ours %s "
						 "psn %u, %u bytes; rxe's %u bytes", name, i,
						 roce_opcode_name(h.bth.opcode), h.bth.psn,
						 in.len, f->len);
				}
				roce_port_rx_release(&a.peer, 1);
				ours++;
				break;
			}
			if (k == 1000)
				fail_msg("%s: frame %u of the exchange never came", name, i);
		}
	}
	/* and nothing more than guest a sent */
	for (int k = 0; k < 100; k++) {
		struct roce_frame in;

		step(&a);
		assert_int_equal(roce_port_rx(&a.peer, &in, 1), 0);
	}
	assert_true(ours >= 20);
	close_a(&a);
}

static void test_global_gids(void **state)
{
	(void)state;
	replay(CAPTURES "rxe_rc_pingpong_ipv6.pcap");
}

static void test_link_local_gids(void **state)
{
	(void)state;
	replay(CAPTURES "rxe_rc_pingpong_ipv6_ll.pcap");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_gids),
		cmocka_unit_test(test_link_local_gids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
