/* SPDX-License-Identifier: MIT */
/*
 * The smallest program against the installed library: two engines, A and
 * B, on an in-memory link; B's QP does one RDMA WRITE of 64 KiB into A's
 * registered buffer, and the program checks the bytes that arrived.
 * Exit status 0 when they match, 1 on any failure (with the reason).
 *
 * Only the installed headers: built by `pkg-config --cflags --libs roce`
 * or by find_package(roce) (CMakeLists.txt here); docs/install.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/memlink.h>
#include <roce/status.h>
#include <roce/verbs.h>

#define LEN (64u * 1024u)
#define ACCESS (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE)

struct side {
	struct roce_port port;
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	uint8_t *buf;
	struct roce_mr *mr;
	uint32_t ip;
};

static int die(const char *what, int rc)
{
	fprintf(stderr, "write: %s: %s\n", what, roce_status_str(rc));
	exit(1);
}

/* The engine on its port, a PD, one CQ, an RC QP and a registered
 * buffer of device memory. */
static void side_open(struct side *s, uint32_t ip)
{
	struct roce_context_attr ca = { 0 };
	struct roce_qp_init_attr qa = { 0 };
	int rc;

	memcpy(ca.mac, s->port.mac, 6);
	ca.ip = s->ip = ip;
	ca.port = &s->port;
	if ((rc = roce_open(&ca, &s->ctx)) != ROCE_OK)
		die("roce_open", rc);
	s->pd = roce_alloc_pd(s->ctx);
	s->cq = roce_create_cq(s->ctx, 16);
	if (!s->pd || !s->cq)
		die("PD or CQ", ROCE_E_NOMEM);
	qa.send_cq = qa.recv_cq = s->cq;
	qa.qp_type = ROCE_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	s->buf = roce_mem_alloc(s->ctx, LEN, 4096);
	if (!(s->qp = roce_create_qp(s->pd, &qa)) || !s->buf)
		die("QP or buffer", ROCE_E_NOMEM);
	s->mr = roce_reg_mr(s->pd, s->buf, LEN, ACCESS);
	if (!s->mr)
		die("roce_reg_mr", ROCE_E_NOMEM);
}

/* RESET -> INIT -> RTR -> RTS toward the peer's QP, as ibv_rc_pingpong. */
static void side_connect(struct side *s, const struct side *peer)
{
	struct roce_qp_attr at = { 0 };
	int rc;

	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ACCESS;
	rc = roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
			    ROCE_QP_PKEY_INDEX);
	if (rc != ROCE_OK)
		die("INIT", rc);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_1024;
	at.dest_qp_num = roce_qp_num(peer->qp);
	at.rq_psn = 0x100;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = peer->ip;
	memcpy(at.ah_attr.dest_mac, peer->port.mac, 6);
	rc = roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			    ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			    ROCE_QP_MIN_RNR_TIMER);
	if (rc != ROCE_OK)
		die("RTR", rc);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = 0x100;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 1;
	rc = roce_modify_qp(s->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
			    ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
	if (rc != ROCE_OK)
		die("RTS", rc);
}

static void side_close(struct side *s)
{
	roce_destroy_qp(s->qp);
	roce_dereg_mr(s->mr);
	roce_mem_free(s->ctx, s->buf);
	roce_destroy_cq(s->cq);
	roce_dealloc_pd(s->pd);
	roce_close(s->ctx);
}

int main(void)
{
	static const uint8_t mac[2][6] = { { 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 } };
	struct roce_memlink_config lc = { 0 };
	struct roce_memlink *link;
	struct side a = { 0 }, b = { 0 };
	struct roce_sge sge;
	struct roce_send_wr wr = { 0 }, *bad;
	struct roce_wc wc;
	int rc, n = 0;

	if ((rc = roce_memlink_create(&lc, &link)) != ROCE_OK)
		die("roce_memlink_create", rc);
	if ((rc = roce_memlink_attach(link, mac[0], &a.port)) != ROCE_OK ||
	    (rc = roce_memlink_attach(link, mac[1], &b.port)) != ROCE_OK)
		die("roce_memlink_attach", rc);
	side_open(&a, 0x0A000001u);
	side_open(&b, 0x0A000002u);
	side_connect(&a, &b);
	side_connect(&b, &a);

	for (unsigned i = 0; i < LEN; i++)
		b.buf[i] = (uint8_t)(i * 7u + 3u);
	sge = (struct roce_sge){ (uint64_t)(uintptr_t)b.buf, LEN, b.mr->lkey };
	wr.wr_id = 42;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)a.buf;
	wr.wr.rdma.rkey = a.mr->rkey;
	if ((rc = roce_post_send(b.qp, &wr, &bad)) != ROCE_OK)
		die("roce_post_send", rc);
	/* both engines polled from this thread; a bound, not a timer */
	for (unsigned i = 0; i < 1000000 && n == 0; i++) {
		roce_engine_poll(a.ctx);
		roce_engine_poll(b.ctx);
		n = roce_poll_cq(b.cq, 1, &wc);
	}
	if (n != 1 || wc.status != ROCE_WC_SUCCESS || wc.wr_id != 42) {
		fprintf(stderr, "write: no successful completion (%d, %s)\n", n,
			n == 1 ? roce_wc_status_str(wc.status) : "none");
		return 1;
	}
	if (memcmp(a.buf, b.buf, LEN) != 0) {
		fprintf(stderr, "write: the data in A's buffer differ\n");
		return 1;
	}
	printf("write: %u bytes written from B into A and checked\n", LEN);
	side_close(&a);
	side_close(&b);
	roce_memlink_destroy(link);
	return 0;
}
