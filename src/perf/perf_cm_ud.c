/* SPDX-License-Identifier: MIT */
/*
 * roce-perf -R -c UD: perftest 4.5's UD QPs through the RDMA CM
 * (perftest_communication.c: rdma_cm_establish_ud_connection,
 * rdma_cm_request_ud_connection_parameters,
 * rdma_cm_initialize_ud_connection_parameters,
 * rdma_cm_send_ud_connection_parameters). SIDR tells the client the
 * server's QPN and Q_Key (RDMA_UDP_QKEY); the server learns the client's
 * QPN only from a first datagram, which is sent on the tests where the
 * server sends too (latency, and bandwidth with -b): a SEND with
 * immediate whose immediate is the client's QPN.
 */
#include <arpa/inet.h>

#include "perf/perf_cm_priv.h"
#include "roce/status.h"

static bool server_sends(const struct perf_opts *o)
{
	return o->tst == PERF_LAT || o->duplex;
}

static int make_ah(struct perf_run *r, unsigned q, const struct roce_ah_attr *aa)
{
	int st = roce_create_ah_status(r->ep.pd, aa, &r->ep.ah[q]);

	if (st != ROCE_OK)
		return perf_fail(r, st, "rdma_cm: QP %u: the peer's address handle: %s", q,
				 roce_status_str(st));
	return ROCE_OK;
}

int pcm_ud_client(struct perf_run *r, struct perf_cm *p, unsigned q)
{
	const struct pcm_slot *s = &p->slot[p->qp_slot[q]];
	struct roce_qp *qp = roce_cm_id_qp(s->id);
	struct roce_sge sge = { (uint64_t)(uintptr_t)r->ep.buf, 4, r->ep.mr->lkey };
	struct roce_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND_WITH_IMM,
				   .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *bad;
	struct roce_wc wc;
	int st;

	if ((st = make_ah(r, q, &s->ah_attr)) != ROCE_OK)
		return st;
	r->ep.ud_qpn[q] = s->ud_qpn;
	r->ep.ud_qkey = s->ud_qkey;
	if (!server_sends(r->o))
		return ROCE_OK;
	wr.imm_data = htonl(roce_qp_num(qp));
	wr.wr.ud.ah = r->ep.ah[q];
	wr.wr.ud.remote_qpn = s->ud_qpn;
	wr.wr.ud.remote_qkey = s->ud_qkey;
	if ((st = roce_post_send(qp, &wr, &bad)) != ROCE_OK ||
	    (st = pcm_poll_one(r->ep.scq, &wc, p->timeout_ms)) != ROCE_OK)
		return perf_fail(r, st, "rdma_cm: QP %u: sending our QP number: %s", q,
				 roce_status_str(st));
	if (wc.status != ROCE_WC_SUCCESS)
		return perf_fail(r, ROCE_E_IO, "rdma_cm: QP %u: sending our QP number: %s", q,
				 roce_wc_status_str(wc.status));
	return ROCE_OK;
}

int pcm_ud_server_before(struct perf_run *r, struct perf_cm *p, unsigned q)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)r->ep.buf, ROCE_GRH_LEN + 4,
				r->ep.mr->lkey };
	struct roce_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	int st;

	if (!server_sends(r->o))
		return ROCE_OK;
	st = roce_post_recv(roce_cm_id_qp(p->slot[p->qp_slot[q]].id), &wr, NULL);
	if (st != ROCE_OK)
		return perf_fail(r, st, "rdma_cm: QP %u: a receive for the client's QP number: "
				 "%s", q, roce_status_str(st));
	return ROCE_OK;
}

int pcm_ud_server_after(struct perf_run *r, struct perf_cm *p, unsigned q)
{
	const struct pcm_slot *s = &p->slot[p->qp_slot[q]];
	struct roce_wc wc;
	int st;

	r->ep.ud_qkey = ROCE_UDP_QKEY; /* its own QP's, as perftest queries it */
	if (!server_sends(r->o))
		return ROCE_OK;
	st = pcm_poll_one(r->ep.rcq, &wc, p->timeout_ms);
	if (st != ROCE_OK)
		return perf_fail(r, st, "rdma_cm: QP %u: no datagram from the client within %u ms",
				 q, p->timeout_ms);
	if (wc.status != ROCE_WC_SUCCESS || !(wc.wc_flags & ROCE_WC_WITH_IMM))
		return perf_fail(r, ROCE_E_IO, "rdma_cm: QP %u: the client's first datagram: %s",
				 q, wc.status != ROCE_WC_SUCCESS ? roce_wc_status_str(wc.status)
								 : "no immediate data");
	r->ep.ud_qpn[q] = ntohl(wc.imm_data);
	return make_ah(r, q, &s->ah_attr);
}
