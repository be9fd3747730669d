/* SPDX-License-Identifier: MIT */
/*
 * roce-perf -R: perftest 4.5's rdma_cm mode (perftest_communication.c,
 * perftest_resources.c of v4.5-0.17), through the RDMA CM of roce/cm.h.
 *
 * Two kinds of connection, both RC through REQ/REP/RTU on the -p port
 * (service ID 0x01060000 | port):
 *
 *  - the exchange's ("comm"): rdma_client_connect / rdma_server_connect.
 *    One QP whose SENDs carry perftest's messages (versions, sys data,
 *    MTU, keys as the binary struct pingpong_dest, reports) in place of
 *    the TCP socket: roce/oob.h's exchanges over a roce_oob_msg. The
 *    client connects without READ/atomic depths, retry count 7, RNR retry
 *    7; each side posts its receive before the connection, as
 *    post_one_recv_wqe does, so the first message finds it.
 *  - the test's QPs (create_rdma_cm_connection): after a sync, the client
 *    connects one ID per QP (responder resources and initiator depth =
 *    the outstanding reads on READ and atomic tests, else 0; retry and
 *    RNR retry 7; no private data), the server accepts each
 *    CONNECT_REQUEST, then another sync. Nobody exchanges QPNs or PSNs
 *    for them: the CM moved the QPs, the keys that follow carry only the
 *    R_Key and address the test needs.
 *
 * perftest's server destroys its listener once the comm connection is
 * accepted and listens again for the QPs after the first sync; a client
 * quicker than that gets REJ 8. This server keeps one listener from the
 * start to the last QP, so a client's REQ never finds the port closed.
 *
 * At the end each side disconnects what is still up (DREQ/DREP), the QPs
 * first, and waits for the connections' timewait so that the CM goes
 * with nothing in flight.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "perf/perf_cm_priv.h"
#include "perf/perf_ep_priv.h"
#include "roce/cm.h"
#include "roce/status.h"

/* ---- connections ------------------------------------------------------------- */

static int resolver(void *arg, int family, const uint8_t *addr, unsigned ms, uint8_t mac[6])
{
	uint32_t ip;

	(void)ms;
	if (family != AF_INET)
		return perf_ep_resolve6(arg, addr, mac);
	memcpy(&ip, addr, 4);
	return perf_ep_resolve(arg, ntohl(ip), mac);
}

/* Tears slot i's ID down: its QP, then the ID (which sends a DREQ or a
 * REJ for a connection still up). */
static void drop(struct perf_cm *p, int i)
{
	struct pcm_slot *s = &p->slot[i];

	if (!s->id || (s->flags & PCM_GONE))
		return;
	roce_cm_destroy_qp(s->id);
	if (roce_cm_destroy_id(s->id) == ROCE_OK)
		s->flags |= PCM_GONE;
}

/* A test QP as create_qp_main makes it: the test's transport, a send
 * queue of the test's depth, receives for SEND tests */
static struct roce_qp_init_attr test_qp_attr(const struct perf_run *r)
{
	return (struct roce_qp_init_attr){
		.send_cq = r->ep.scq, .recv_cq = r->ep.rcq,
		.qp_type = r->o->conn == ROCE_QPT_UD ? ROCE_QPT_UD : ROCE_QPT_RC,
		.cap = { r->o->tx_depth + 1, r->o->verb == PERF_SEND ? r->o->rx_depth + 1 : 1,
			 1, 1, 0 },
	};
}

/* Client: a new ID through address and route resolution to the server,
 * with a QP made by make (comm or test QP q), connected with cp. The
 * slot, or -1 with the failure in r->msg. */
static int connect_one(struct perf_run *r, struct perf_cm *p, const struct roce_conn_param *cp,
		       int q, const char *what)
{
	struct roce_cm_id *id;
	bool ud = q >= 0 && r->o->conn == ROCE_QPT_UD;
	int i, st;

	if ((st = roce_cm_create_id(p->ch, &id, NULL, ud ? ROCE_PS_UDP : ROCE_PS_TCP)) !=
	    ROCE_OK) {
		perf_fail(r, st, "rdma_cm: %s: rdma_create_id: %s", what, roce_status_str(st));
		return -1;
	}
	if ((i = pcm_slot_add(p, id)) < 0) {
		roce_cm_destroy_id(id);
		perf_fail(r, ROCE_E_FULL, "rdma_cm: %s: too many IDs", what);
		return -1;
	}
	st = roce_cm_resolve_addr(id, NULL, (struct sockaddr *)&p->peer, 2000);
	if (st || !pcm_wait_flags(p, i, PCM_ADDR | PCM_FAIL, 3000) || (p->slot[i].flags & PCM_FAIL)) {
		perf_fail(r, st ? st : ROCE_E_NOENT, "rdma_cm: %s: the server's address "
			  "does not resolve (no ARP answer)", what);
		return -1;
	}
	if ((st = roce_cm_resolve_route(id, 2000)) != ROCE_OK ||
	    !pcm_wait_flags(p, i, PCM_ROUTE, 3000)) {
		perf_fail(r, st, "rdma_cm: %s: rdma_resolve_route failed", what);
		return -1;
	}
	if (q < 0) {
		if (pcm_make_comm_qp(r, p, i))
			return -1;
	} else {
		struct roce_qp_init_attr qa = test_qp_attr(r);

		if (ud)
			p->slot[i].flags |= PCM_UD;
		if ((st = roce_cm_create_qp(id, r->ep.pd, &qa)) != ROCE_OK) {
			perf_fail(r, st, "rdma_cm: QP %d: %s", q, roce_status_str(st));
			return -1;
		}
	}
	if ((st = roce_cm_connect(id, cp)) != ROCE_OK) {
		perf_fail(r, st, "rdma_cm: %s: rdma_connect: %s", what, roce_status_str(st));
		return -1;
	}
	return i;
}

/* The connection parameters of a test QP (rdma_cm_route_handler,
 * rdma_cm_connection_request_handler); reads: the outstanding READs or
 * atomics, 0 for other tests. */
static struct roce_conn_param qp_param(uint8_t reads)
{
	return (struct roce_conn_param){ .responder_resources = reads,
					 .initiator_depth = reads,
					 .retry_count = 7, .rnr_retry_count = 7 };
}

static const struct roce_conn_param comm_param = { .retry_count = 7, .rnr_retry_count = 7 };

/* Until the whole timeout passes, a REJ 8 (the server not listening yet)
 * is tried again after PCM_RETRY_MS: the TCP exchange's connect retries a
 * refused connection the same way. */
static int client_comm(struct perf_run *r, struct perf_cm *p)
{
	uint64_t end = roce_now_ms() + p->timeout_ms;

	for (;;) {
		int i = connect_one(r, p, &comm_param, -1, "the exchange's connection");

		if (i < 0)
			return ROCE_E_IO;
		if (!pcm_wait_flags(p, i, PCM_EST | PCM_FAIL, p->timeout_ms + 1000))
			return pcm_fail_of(r, p, i, "the exchange's connection");
		if (p->slot[i].flags & PCM_EST)
			return pcm_post_comm_rx(r, p);
		if (!(p->slot[i].fail == ROCE_CM_EVENT_REJECTED && p->slot[i].status == 8) ||
		    roce_now_ms() + PCM_RETRY_MS >= end)
			return pcm_fail_of(r, p, i, "the exchange's connection");
		drop(p, i);
		p->comm = -1;
		pcm_nap_us(PCM_RETRY_MS * 1000);
	}
}

/* The next CONNECT_REQUEST not taken yet, or -1 after ms */
static int next_request(struct perf_cm *p, unsigned ms)
{
	uint64_t end = roce_now_ms() + ms;

	for (;;) {
		for (unsigned i = 0; i < p->n_slot; i++)
			if (p->slot[i].id && !p->slot[i].taken && p->slot[i].id != p->listen &&
			    p->slot[i].id != p->listen_ud &&
			    !(p->slot[i].flags & (PCM_GONE | PCM_ADDR))) {
				p->slot[i].taken = true;
				return (int)i;
			}
		if (roce_now_ms() >= end)
			return -1;
		pcm_pump(p, 20);
	}
}

static int server_comm(struct perf_run *r, struct perf_cm *p)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(r->o->port) };
	int i, st;

	if ((st = roce_cm_create_id(p->ch, &p->listen, NULL, ROCE_PS_TCP)) != ROCE_OK ||
	    (st = roce_cm_bind_addr(p->listen, (struct sockaddr *)&sin)) != ROCE_OK ||
	    (st = roce_cm_listen(p->listen, (int)r->o->nqp + 2)) != ROCE_OK)
		return perf_fail(r, st, "rdma_cm: cannot listen on port %u: %s", r->o->port,
				 roce_status_str(st));
	/* UD test QPs come through SIDR, in the UDP port space on the same
	   port (create_rdma_cm_connection's RDMA_PS_UDP listener) */
	if (r->o->conn == ROCE_QPT_UD &&
	    ((st = roce_cm_create_id(p->ch, &p->listen_ud, NULL, ROCE_PS_UDP)) != ROCE_OK ||
	     (st = roce_cm_bind_addr(p->listen_ud, (struct sockaddr *)&sin)) != ROCE_OK ||
	     (st = roce_cm_listen(p->listen_ud, (int)r->o->nqp + 2)) != ROCE_OK))
		return perf_fail(r, st, "rdma_cm: cannot listen for UD on port %u: %s",
				 r->o->port, roce_status_str(st));
	if ((i = next_request(p, p->timeout_ms)) < 0)
		return perf_fail(r, ROCE_E_TIMEOUT, "rdma_cm: no client connected within %u ms",
				 p->timeout_ms);
	if ((st = pcm_make_comm_qp(r, p, i)) != ROCE_OK || (st = pcm_post_comm_rx(r, p)) != ROCE_OK)
		return st;
	if ((st = roce_cm_accept(p->slot[i].id, &comm_param)) != ROCE_OK)
		return perf_fail(r, st, "rdma_cm: rdma_accept: %s", roce_status_str(st));
	return ROCE_OK;
}

int perf_cm_open(struct perf_run *r)
{
	struct perf_cm *p = calloc(1, sizeof(*p));
	struct roce_cm_attr ca = { .ctx = r->ep.ctx, .pd = r->ep.pd, .resolve = resolver,
				   .resolve_arg = &r->ep };
	int st;

	if (!p)
		return perf_fail(r, ROCE_E_NOMEM, "rdma_cm: out of memory");
	r->cm = p;
	p->comm = -1;
	p->timeout_ms = r->o->timeout_s * 1000u;
	/* the comm ID, the QPs' (with a failed try's each), the requests */
	p->max_slot = 3u * r->o->nqp + 2u * PCM_QP_RETRIES + 8u;
	p->slot = calloc(p->max_slot, sizeof(*p->slot));
	p->qp_slot = calloc(r->o->nqp, sizeof(*p->qp_slot));
	if (!p->slot || !p->qp_slot)
		return perf_fail(r, ROCE_E_NOMEM, "rdma_cm: out of memory");
	for (unsigned q = 0; q < r->o->nqp; q++)
		p->qp_slot[q] = -1;
	if ((st = roce_cm_open(&ca, &p->cm)) != ROCE_OK)
		return perf_fail(r, st, "rdma_cm: the CM: %s", roce_status_str(st));
	p->ch = roce_cm_create_event_channel(p->cm);
	if (!p->ch || fcntl(roce_cm_channel_fd(p->ch), F_SETFL, O_NONBLOCK) != 0)
		return perf_fail(r, ROCE_E_NOMEM, "rdma_cm: rdma_create_event_channel failed");
	p->scq = roce_create_cq(r->ep.ctx, 4);
	p->rcq = roce_create_cq(r->ep.ctx, PCM_RX_SLOTS);
	p->buf = roce_mem_alloc(r->ep.ctx, (PCM_RX_SLOTS + 1u) * PCM_SLOT, PCM_SLOT);
	p->mr = p->buf ? roce_reg_mr(r->ep.pd, p->buf, (PCM_RX_SLOTS + 1u) * PCM_SLOT,
				     ROCE_ACCESS_LOCAL_WRITE) : NULL;
	if (!p->scq || !p->rcq || !p->mr)
		return perf_fail(r, ROCE_E_NOMEM, "rdma_cm: the exchange's CQs or buffer");
	pcm_msg_init(p);
	if (r->o->server) {
		struct addrinfo hints = { .ai_family = AF_INET }, *res = NULL;
		int g = getaddrinfo(r->o->server, NULL, &hints, &res);

		if (g || !res)
			return perf_fail(r, ROCE_E_NOENT, "rdma_cm: %s: %s", r->o->server,
					 gai_strerror(g));
		memcpy(&p->peer, res->ai_addr, sizeof(p->peer));
		freeaddrinfo(res);
		p->peer.sin_port = htons(r->o->port);
		st = client_comm(r, p);
	} else {
		p->peer.sin_port = htons(r->o->port);
		st = server_comm(r, p);
	}
	if (st)
		return st;
	r->oob.fd = -1;
	r->oob.client = r->o->server != NULL;
	r->oob.timeout_ms = p->timeout_ms;
	r->oob.msg = &p->msg;
	return ROCE_OK;
}

/* ---- the test's QPs -------------------------------------------------------- */

static int client_qps(struct perf_run *r, struct perf_cm *p, const struct roce_conn_param *cp)
{
	/* perftest's server listens for these only once the sync is done
	 * (rdma_cm_server_connection after create_rdma_cm_connection's first
	 * ctx_hand_shake), and its client takes a while for its resources
	 * before the first REQ; ours would beat that listener and get REJ 8 */
	pcm_nap_us(PCM_RETRY_MS * 1000);
	for (int tries = 0;; tries++) {
		bool rej8 = false;
		int st = ROCE_OK;

		for (unsigned q = 0; q < r->o->nqp; q++)
			p->qp_slot[q] = -1;
		for (unsigned q = 0; q < r->o->nqp && !st; q++) {
			char what[32];

			snprintf(what, sizeof(what), "QP %u", q);
			p->qp_slot[q] = connect_one(r, p, cp, (int)q, what);
			st = p->qp_slot[q] < 0 ? ROCE_E_IO : ROCE_OK;
		}
		for (unsigned q = 0; q < r->o->nqp && !st; q++) {
			int i = p->qp_slot[q];

			if (!pcm_wait_flags(p, i, PCM_EST | PCM_FAIL, p->timeout_ms + 1000) ||
			    (p->slot[i].flags & PCM_FAIL)) {
				/* REJ 8, or for UD a SIDR_REP of status 1: the
				   server does not listen yet */
				rej8 = (p->slot[i].fail == ROCE_CM_EVENT_REJECTED &&
					p->slot[i].status == 8) ||
				       (p->slot[i].fail == ROCE_CM_EVENT_UNREACHABLE &&
					p->slot[i].status == 1);
				st = pcm_fail_of(r, p, i, "a test QP's connection");
			}
		}
		if (!st)
			return ROCE_OK;
		if (!rej8 || tries + 1 >= PCM_QP_RETRIES)
			return st;
		/* rdma_cm_client_connection: all again after 100 ms */
		for (unsigned q = 0; q < r->o->nqp; q++)
			if (p->qp_slot[q] >= 0)
				drop(p, p->qp_slot[q]);
		pcm_nap_us(PCM_RETRY_MS * 1000);
	}
}

static int server_qps(struct perf_run *r, struct perf_cm *p, uint8_t reads)
{
	bool ud = r->o->conn == ROCE_QPT_UD;

	for (unsigned q = 0; q < r->o->nqp; q++) {
		struct roce_qp_init_attr qa = test_qp_attr(r);
		int i = next_request(p, p->timeout_ms), st;
		struct roce_conn_param cp = qp_param(reads);

		if (i < 0)
			return perf_fail(r, ROCE_E_TIMEOUT, "rdma_cm: QP %u of %u: no connection "
					 "request within %u ms", q, r->o->nqp, p->timeout_ms);
		p->qp_slot[q] = i;
		if (ud)
			p->slot[i].flags |= PCM_UD;
		if ((st = roce_cm_create_qp(p->slot[i].id, r->ep.pd, &qa)) != ROCE_OK)
			return perf_fail(r, st, "rdma_cm: QP %u: %s", q, roce_status_str(st));
		if (ud && (st = pcm_ud_server_before(r, p, q)) != ROCE_OK)
			return st;
		if ((st = roce_cm_accept(p->slot[i].id, &cp)) != ROCE_OK)
			return perf_fail(r, st, "rdma_cm: QP %u: rdma_accept: %s", q,
					 roce_status_str(st));
		if (ud) {
			/* no ESTABLISHED comes for a UD ID */
			p->slot[i].flags |= PCM_EST;
			if ((st = pcm_ud_server_after(r, p, q)) != ROCE_OK)
				return st;
		} else {
			/* rdma_cm_connection_request_handler: the RC QP's
			   min_rnr_timer to perftest's MIN_RNR_TIMER after the
			   accept (its result unchecked there too) */
			struct roce_qp_attr at = { .min_rnr_timer = 12 };

			(void)roce_modify_qp(roce_cm_id_qp(p->slot[i].id), &at,
					     ROCE_QP_MIN_RNR_TIMER);
		}
	}
	return ROCE_OK;
}

int perf_cm_connect_qps(struct perf_run *r, uint8_t reads)
{
	struct perf_cm *p = r->cm;
	struct roce_conn_param cp = qp_param(reads);
	int st = r->o->server ? client_qps(r, p, &cp) : server_qps(r, p, reads);

	if (st)
		return st;
	for (unsigned q = 0; q < r->o->nqp && r->o->server && r->o->conn == ROCE_QPT_UD; q++)
		if ((st = pcm_ud_client(r, p, q)) != ROCE_OK)
			return st;
	for (unsigned q = 0; q < r->o->nqp; q++)
		r->ep.qp[q] = roce_cm_id_qp(p->slot[p->qp_slot[q]].id);
	r->ep.nqp = r->o->nqp;
	return ROCE_OK;
}

/* ---- the end ------------------------------------------------------------------- */

/* Disconnect slot i if it is up, and wait (up to end) for DISCONNECTED */
static void disconnect(struct perf_cm *p, int i, uint64_t end)
{
	struct pcm_slot *s = &p->slot[i];

	if (!s->id || (s->flags & PCM_GONE) || !(s->flags & PCM_EST))
		return;
	if (s->flags & PCM_UD) {
		/* the QP to ERR; no DREQ, no DISCONNECTED for a UD ID */
		roce_cm_disconnect(s->id);
		return;
	}
	if (!(s->flags & PCM_DISC))
		roce_cm_disconnect(s->id);
	while (!(s->flags & PCM_DISC) && roce_now_ms() < end)
		pcm_pump(p, 20);
}

void perf_cm_close(struct perf_run *r)
{
	struct perf_cm *p = r->cm;
	uint64_t end = roce_now_ms() + PCM_TEARDOWN_MS;

	if (!p)
		return;
	r->cm = NULL;
	if (p->ch) {
		/* the QPs leave the endpoint: their IDs take them down */
		for (unsigned q = 0; q < r->ep.nqp && r->ep.qp; q++)
			r->ep.qp[q] = NULL;
		/* a server's ESTABLISHED may still be on its way */
		for (unsigned i = 0; i < p->n_slot; i++)
			if (p->slot[i].taken || (int)i == p->comm)
				for (int k = 0; k < 10 && !(p->slot[i].flags & (PCM_EST | PCM_FAIL)); k++)
					pcm_pump(p, 10);
		for (unsigned i = 0; i < p->n_slot; i++)
			if ((int)i != p->comm)
				disconnect(p, (int)i, end);
		if (p->comm >= 0)
			disconnect(p, p->comm, end);
		for (unsigned i = 0; i < p->n_slot; i++)
			drop(p, (int)i);
		if (p->listen)
			roce_cm_destroy_id(p->listen);
		if (p->listen_ud)
			roce_cm_destroy_id(p->listen_ud);
		/* IDs in timewait hold the channel until it ends */
		while (roce_cm_destroy_event_channel(p->ch) == ROCE_E_BUSY && roce_now_ms() < end)
			pcm_pump(p, 20);
	}
	/* --counters: the CM's beside the engine's, at the end of every run,
	 * the teardown included */
	if (p->cm && r->o->counters) {
		fprintf(r->out, "rdma_cm counters:\n");
		roce_cm_print_counters(p->cm, r->out, 0);
		fflush(r->out);
	}
	if (p->cm && roce_cm_close(p->cm) != ROCE_OK)
		fprintf(r->err, "roce-perf: rdma_cm: connections still in timewait at exit\n");
	if (p->mr)
		roce_dereg_mr(p->mr);
	if (p->buf)
		roce_mem_free(r->ep.ctx, p->buf);
	if (p->scq)
		roce_destroy_cq(p->scq);
	if (p->rcq)
		roce_destroy_cq(p->rcq);
	free(p->slot);
	free(p->qp_slot);
	free(p);
}
