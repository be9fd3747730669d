/* SPDX-License-Identifier: MIT */
/*
 * A libibverbs program of our own, built against rdma-core's header and
 * run under roce-run by tests/scripts/verbs_edges.sh: the drop-in's
 * answers at the edges the Debian programs do not reach. Refusals (the
 * errno and, for a verb not offered, the line on stderr that the script
 * checks), argument checks, queries after modify, the batch posting's
 * bad_wr, and a clean teardown. Usage: verbs_edges PEER_IPV4 (an address
 * on the link whose kernel answers ARP; nothing is sent to it but ARP and
 * frames it ignores).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_rts.h"

static int failed;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "verbs_edges:%d: %s\n", __LINE__, #c); \
			       failed = 1; } } while (0)

static void gid_v4(union ibv_gid *g, const char *ip)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = g->raw[11] = 0xff;
	inet_pton(AF_INET, ip, &g->raw[12]);
}

/* QP to RTS toward the peer's IPv4 GID (QPN 0x11: nothing answers) */
static int connect_qp(struct ibv_qp *qp, const char *peer)
{
	union ibv_gid g;

	gid_v4(&g, peer);
	return qp_to_rts(qp, 0x11, &g, IBV_ACCESS_REMOTE_WRITE);
}

static void posting(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_mr *mr, const char *peer)
{
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { 64, 64, 1, 1, 64 } };
	struct ibv_sge sge = { (uintptr_t)mr->addr, 64, mr->lkey };
	struct ibv_sge over = { (uintptr_t)mr->addr, 65, 0 };
	struct ibv_send_wr w[20], *bad = NULL;
	struct ibv_recv_wr r[3], *rbad = NULL;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	CHECK(qp && ia.cap.max_inline_data == 64);
	if (!qp)
		return;
	CHECK(ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_RESET);
	/* a send in RESET: refused, bad_wr the first */
	memset(w, 0, sizeof(w));
	w[0].opcode = IBV_WR_SEND;
	w[0].sg_list = &sge;
	w[0].num_sge = 1;
	CHECK(ibv_post_send(qp, w, &bad) != 0 && bad == &w[0]);
	CHECK(connect_qp(qp, peer) == 0);
	CHECK(ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV, &qi) == 0 &&
	      qa.qp_state == IBV_QPS_RTS && qa.dest_qp_num == 0x11 &&
	      qa.qp_access_flags == IBV_ACCESS_REMOTE_WRITE && qa.ah_attr.is_global &&
	      qa.ah_attr.grh.sgid_index == 1 && qi.cap.max_send_wr == 64 && qi.qp_type == IBV_QPT_RC);
	/* 20 WRs (more than one batch), the 18th of an opcode not offered */
	for (int i = 0; i < 20; i++) {
		w[i] = (struct ibv_send_wr){ .wr_id = (uint64_t)i, .next = i < 19 ? &w[i + 1] : NULL,
					     .sg_list = &sge, .num_sge = 1,
					     .opcode = IBV_WR_RDMA_WRITE };
		w[i].wr.rdma.remote_addr = 0x1000;
		w[i].wr.rdma.rkey = 1;
	}
	w[17].opcode = IBV_WR_LOCAL_INV;
	bad = NULL;
	CHECK(ibv_post_send(qp, w, &bad) == EINVAL && bad == &w[17]);
	/* inline data over the QP's max_inline_data (64) */
	w[0].next = NULL;
	w[0].send_flags = IBV_SEND_INLINE;
	w[0].sg_list = &over;
	bad = NULL;
	CHECK(ibv_post_send(qp, w, &bad) == EINVAL && bad == &w[0]);
	/* receives: the second asks more SGEs than the QP has */
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 3; i++) {
		r[i].sg_list = &sge;
		r[i].num_sge = i == 1 ? 3 : 1;
		r[i].next = i < 2 ? &r[i + 1] : NULL;
	}
	CHECK(ibv_post_recv(qp, r, &rbad) != 0 && rbad == &r[1]);
	/* options the engine has not */
	memset(&qa, 0, sizeof(qa));
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_ALT_PATH) == EOPNOTSUPP);
	/* a QP of ibv_create_qp has no ibv_wr_* ops (rdma-core's: NULL) */
	CHECK(ibv_qp_to_qp_ex(qp) == NULL);
	CHECK(ibv_destroy_qp(qp) == 0);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch;
	struct ibv_cq_init_attr_ex cqx = { .cqe = 4,
					   .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	struct ibv_gid_entry ge[16];
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr ia = { 0 };
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;
	struct ibv_ah_attr aa = { .port_num = 1 };
	struct ibv_ah *ah;
	char *buf;
	int n = -1;

	if (argc != 2) {
		fprintf(stderr, "usage: verbs_edges PEER_IPV4\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	CHECK(list && n == 1 && !strcmp(ibv_get_device_name(list[0]), "roce0"));
	if (!list || n != 1)
		return 1;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	CHECK(ctx);
	if (!ctx)
		return 1;
	CHECK(ibv_query_port(ctx, 1, &pa) == 0 && pa.state == IBV_PORT_ACTIVE &&
	      pa.link_layer == IBV_LINK_LAYER_ETHERNET);
	CHECK(ibv_query_port(ctx, 2, &pa) == EINVAL);
	CHECK(ibv_query_gid_ex(ctx, 1, 5, &ge[0], 0) == ENODATA);
	CHECK(ibv_query_gid_table(ctx, ge, 16, 0) == 2 && ge[1].gid_type == IBV_GID_TYPE_ROCE_V2 &&
	      ge[1].gid.raw[10] == 0xff && ge[1].gid_index == 1);
	/* a completion field not offered: NULL, EOPNOTSUPP, and why on stderr */
	CHECK(ibv_create_cq_ex(ctx, &cqx) == NULL && errno == EOPNOTSUPP);

	pd = ibv_alloc_pd(ctx);
	CHECK(pd);
	buf = calloc(1, 1 << 16);
	mr = ibv_reg_mr(pd, buf, 1 << 16, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr && mr->addr == buf && mr->length == 1 << 16 && mr->lkey && mr->rkey);
	CHECK(!ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE) && errno == EINVAL);
	CHECK(!ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND) &&
	      errno == EOPNOTSUPP);
	CHECK(!ibv_reg_mr_iova2(pd, buf, 4096, 0x1000, IBV_ACCESS_LOCAL_WRITE) &&
	      errno == EOPNOTSUPP);
	/* ibv_rereg_mr: rights and PD as rxe, keys kept; a new translation
	   refused (one line), bad input ERR_INPUT */
	if (mr) {
		struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
		uint32_t lkey = mr->lkey, rkey = mr->rkey;

		CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) == 0);
		CHECK(pd2 && ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0) == 0 &&
		      mr->pd == pd2);
		CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS, pd,
				   NULL, 0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) == 0 &&
		      mr->pd == pd && mr->lkey == lkey && mr->rkey == rkey);
		CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf, 4096, 0) ==
		      IBV_REREG_MR_ERR_CMD && errno == EOPNOTSUPP);
		CHECK(ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0) == IBV_REREG_MR_ERR_INPUT &&
		      errno == EINVAL);
		CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				   IBV_ACCESS_REMOTE_WRITE) == IBV_REREG_MR_ERR_INPUT);
		CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0, 0) ==
		      IBV_REREG_MR_ERR_INPUT && mr->pd == pd);
		CHECK(pd2 && ibv_dealloc_pd(pd2) == 0);
	}

	ch = ibv_create_comp_channel(ctx);
	CHECK(ch && ch->fd >= 0);
	CHECK(!ibv_create_cq(ctx, 0, NULL, ch, 0) && errno == EINVAL);
	cq = ibv_create_cq(ctx, 128, (void *)ctx, ch, 0);
	CHECK(cq && cq->cq_context == (void *)ctx && cq->channel == ch);
	if (!pd || !mr || !cq)
		return 1;
	CHECK(ibv_req_notify_cq(cq, 0) == 0);
	{
		struct ibv_wc wc;

		CHECK(ibv_poll_cq(cq, 1, &wc) == 0);
	}
	/* ibv_resize_cq: grows and shrinks (cqe as asked), bounds EINVAL, the
	   CQ as it was after a refusal */
	CHECK(ibv_resize_cq(cq, 1000) == 0 && cq->cqe == 1000);
	CHECK(ibv_resize_cq(cq, 0) == EINVAL && cq->cqe == 1000);
	CHECK(ibv_resize_cq(cq, 1 << 30) == EINVAL && cq->cqe == 1000);
	CHECK(ibv_resize_cq(cq, 128) == 0 && cq->cqe == 128);
	/* a QP type not offered; no CQ */
	ia.qp_type = IBV_QPT_XRC_SEND;
	ia.send_cq = ia.recv_cq = cq;
	CHECK(!ibv_create_qp(pd, &ia) && errno == EOPNOTSUPP);
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = NULL;
	CHECK(!ibv_create_qp(pd, &ia) && errno == EINVAL);
	posting(pd, cq, mr, argv[1]);

	srq = ibv_create_srq(pd, &si);
	CHECK(srq);
	if (srq) {
		sa.srq_limit = 4;
		CHECK(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT) == 0);
		CHECK(ibv_query_srq(srq, &sa) == 0 && sa.srq_limit == 4 && sa.max_wr >= 16);
		sa.max_wr = 64;
		CHECK(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR) == EOPNOTSUPP);
		CHECK(ibv_destroy_srq(srq) == 0);
	}
	/* an AH: without a GRH refused (RoCE has no LIDs); with one, the
	 * peer's MAC by ARP */
	CHECK(!ibv_create_ah(pd, &aa) && errno == EINVAL);
	aa.is_global = 1;
	aa.grh.sgid_index = 1;
	gid_v4(&aa.grh.dgid, argv[1]);
	ah = ibv_create_ah(pd, &aa);
	CHECK(ah);
	if (ah)
		CHECK(ibv_destroy_ah(ah) == 0);

	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_destroy_comp_channel(ch) == 0);
	CHECK(ibv_dereg_mr(mr) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
	CHECK(ibv_close_device(ctx) == 0);
	free(buf);
	if (!failed)
		printf("verbs_edges: ok\n");
	return failed;
}
