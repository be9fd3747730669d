/* SPDX-License-Identifier: MIT */
/*
 * The rdma_cm-shaped API (roce/cm.h) on the CM and its QP1 port: IDs,
 * address and route resolution, connect, listen, accept, reject and
 * disconnect, the CM's events turned into librdmacm's. Semantics follow
 * librdmacm v44 (librdmacm/cma.c) and the kernel's
 * drivers/infiniband/core/cma.c: the REQ's private data starts with the
 * 36-byte rdma_cm header (cma.h), the service ID is the TCP port space's.
 */
#include "cm/rdma_cm_priv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cm/cma.h"
#include "roce/gid.h"
#include "roce/status.h"

/* rdma_cm's defaults (cma.c: CMA_IBOE_PACKET_LIFETIME, CMA_CM_RESPONSE_TIMEOUT,
   CMA_MAX_CM_RETRIES), and the local ACK timeout rxe's REQs carry */
#define RCM_PLT 16
#define RCM_RESP_TIMEOUT 20
#define RCM_CLOSE_LINGER_MS 10000u
#define RCM_RETRIES 15
#define RCM_ACK_TIMEOUT 19
#define RCM_RESOLVE_MS 2000

uint32_t rcm_rnd(struct roce_cm *cm)
{
	uint32_t x = cm->rand;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return cm->rand = x;
}

/* ---- addresses ------------------------------------------------------------ */

static bool sa_ok(const struct sockaddr *sa)
{
	return sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6);
}

static size_t sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
					: sizeof(struct sockaddr_in6);
}

uint16_t rcm_sa_port(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? ntohs(((const struct sockaddr_in *)ss)->sin_port)
					: ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

void rcm_sa_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* The GID of an address: IPv4-mapped, or the IPv6 address */
static void sa_gid(const struct sockaddr_storage *ss, uint8_t gid[16])
{
	if (ss->ss_family == AF_INET)
		roce_gid_from_ipv4(ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr), gid);
	else
		memcpy(gid, ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr, 16);
}

void rcm_gid_sa(const uint8_t gid[16], uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (roce_gid_is_v4mapped(gid)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(roce_gid_to_ipv4(gid));
		s4->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(s6->sin6_addr.s6_addr, gid, 16);
		s6->sin6_port = htons(port);
	}
}

/* The GID table index of our address of the peer's family (cm_qp1's
   choice), or of src when given; -1: the context has no such address. */
static int our_gid(struct roce_cm *cm, const struct sockaddr_storage *src,
		   const uint8_t dgid[16])
{
	const struct roce_gid_table *t = roce_context_gids(cm->attr.ctx);
	uint8_t g[16];
	bool v4 = roce_gid_is_v4mapped(dgid);

	if (src && src->ss_family) {
		sa_gid(src, g);
		if (roce_gid_is_v4mapped(g) && !roce_gid_to_ipv4(g))
			goto any; /* INADDR_ANY */
		return roce_gid_table_find(t, g);
	}
any:
	if (!v4 && dgid[0] == 0xfe && (dgid[1] & 0xc0) == 0x80)
		return 0;
	for (unsigned i = 1; i < t->n; i++)
		if (roce_gid_is_v4mapped(t->e[i].gid) == v4)
			return (int)i;
	return -1;
}

static int resolve_gid(struct roce_cm *cm, const uint8_t gid[16], unsigned ms, uint8_t mac[6])
{
	int rc;

	if (!cm->attr.resolve)
		return ROCE_E_UNSUPPORTED;
	if (roce_gid_is_v4mapped(gid))
		rc = cm->attr.resolve(cm->attr.resolve_arg, AF_INET, gid + 12, ms, mac);
	else
		rc = cm->attr.resolve(cm->attr.resolve_arg, AF_INET6, gid, ms, mac);
	return rc < 0 ? -rc : rc; /* either sign of a status */
}

/* cm_qp1's resolver: an ID's resolved MAC, else the caller's resolver
   (the passive side learns only the GID from the REQ). */
int rcm_resolve_mac(void *arg, const uint8_t gid[16], uint8_t mac[6])
{
	struct roce_cm *cm = arg;

	for (struct roce_cm_id *id = cm->ids; id; id = id->next)
		if (id->addr_resolved && !memcmp(id->dgid, gid, 16)) {
			memcpy(mac, id->dmac, 6);
			return 0;
		}
	return resolve_gid(cm, gid, RCM_RESOLVE_MS, mac) == ROCE_OK ? 0 : -1;
}

/* ---- the CM and IDs ------------------------------------------------------- */

int roce_cm_open(const struct roce_cm_attr *attr, struct roce_cm **out)
{
	struct roce_cm *cm;
	struct cm_qp1_config qc = { 0 };
	const struct roce_gid_table *t;
	struct timespec ts;
	int rc;

	if (!attr || !out || !attr->ctx || !attr->pd || attr->max_cm_retries > 15 ||
	    attr->cm_response_timeout > 31 || attr->packet_life_time > 31)
		return ROCE_E_INVAL;
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return ROCE_E_NOMEM;
	cm->attr = *attr;
	clock_gettime(CLOCK_REALTIME, &ts);
	cm->rand = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec ^ (uint32_t)(uintptr_t)cm;
	if (!cm->rand)
		cm->rand = 1;
	pthread_mutex_init(&cm->lock, NULL);
	t = roce_context_gids(attr->ctx);
	qc.ctx = attr->ctx;
	qc.pd = attr->pd;
	qc.sgid_index = t->n > 1 ? 1 : 0;
	qc.cm.ca_guid = attr->ca_guid;
	if (!qc.cm.ca_guid) {
		/* the port's EUI-64, as the GUID of a RoCE device is */
		for (int i = 8; i < 16; i++)
			qc.cm.ca_guid = qc.cm.ca_guid << 8 | t->e[0].gid[i];
	}
	qc.cm.max_conns = attr->max_ids ? attr->max_ids : 64;
	qc.cm.max_listeners = qc.cm.max_conns;
	qc.cm.packet_life_time = attr->packet_life_time ? attr->packet_life_time : RCM_PLT;
	qc.cm.cm_response_timeout =
		attr->cm_response_timeout ? attr->cm_response_timeout : RCM_RESP_TIMEOUT;
	qc.cm.max_cm_retries = attr->max_cm_retries ? attr->max_cm_retries : RCM_RETRIES;
	qc.cm.comm_id_seed = rcm_rnd(cm);
	qc.resolve_mac = rcm_resolve_mac;
	qc.event = rcm_cm_event;
	qc.arg = cm;
	rc = cm_qp1_create(&qc, &cm->port);
	if (rc == ROCE_OK) {
		(void)rcm_status_open(cm); /* status is a convenience, not a must */
		rc = rcm_thread_start(cm);
	}
	if (rc != ROCE_OK) {
		rcm_status_close(cm);
		cm_qp1_destroy(cm->port);
		pthread_mutex_destroy(&cm->lock);
		free(cm);
		return rc;
	}
	*out = cm;
	return ROCE_OK;
}

/*
 * A DREQ still unanswered (lost, or its DREP lost) leaves the peer
 * connected until it learns otherwise: an rping whose DREQ was dropped
 * waits for ever for a disconnect that went with our process. The CM
 * thread goes on meanwhile: it resends the DREQ on its timeout and answers
 * a DREQ of the peer's (both ends disconnecting), either of which ends
 * the wait. Timewait alone is not waited for: it only holds IDs out of
 * use, and the process is about to give them up.
 */
static void linger(struct roce_cm *cm)
{
	unsigned ms = cm->attr.close_linger_ms ? cm->attr.close_linger_ms : RCM_CLOSE_LINGER_MS;
	const struct timespec nap = { 0, 1000000 };
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		unsigned n;

		pthread_mutex_lock(&cm->lock);
		n = cm_conns_in_state(cm_qp1_cm(cm->port), CM_DREQ_SENT);
		pthread_mutex_unlock(&cm->lock);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!n || (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= (long)ms)
			return;
		nanosleep(&nap, NULL);
	}
}

int roce_cm_close(struct roce_cm *cm)
{
	if (!cm)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&cm->lock);
	/* IDs destroyed but in timewait go with the CM */
	for (struct roce_cm_id *id = cm->ids; id; id = id->next)
		if (!id->destroyed || id->events_out) {
			pthread_mutex_unlock(&cm->lock);
			return ROCE_E_BUSY;
		}
	if (cm->chans) {
		pthread_mutex_unlock(&cm->lock);
		return ROCE_E_BUSY;
	}
	pthread_mutex_unlock(&cm->lock);
	linger(cm);
	rcm_thread_stop(cm);
	rcm_status_close(cm);
	while (cm->ids) {
		struct roce_cm_id *id = cm->ids;

		cm->ids = id->next;
		free(id);
	}
	cm_qp1_destroy(cm->port);
	pthread_mutex_destroy(&cm->lock);
	free(cm);
	return ROCE_OK;
}

struct roce_cm_id *rcm_id_new(struct roce_cm_event_channel *ch, void *context)
{
	struct roce_cm_id *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	id->cm = ch->cm;
	id->ch = ch;
	id->context = context;
	id->conn = -1;
	id->listener = -1;
	id->next = ch->cm->ids;
	ch->cm->ids = id;
	ch->ids++;
	return id;
}

void rcm_id_free(struct roce_cm_id *id)
{
	struct roce_cm_id **pp;

	for (pp = &id->cm->ids; *pp; pp = &(*pp)->next)
		if (*pp == id) {
			*pp = id->next;
			break;
		}
	if (id->ch)
		id->ch->ids--;
	free(id);
}

int roce_cm_create_id(struct roce_cm_event_channel *ch, struct roce_cm_id **id, void *context,
		      enum roce_port_space ps)
{
	if (!ch || !id)
		return ROCE_E_INVAL;
	if (ps != ROCE_PS_TCP && ps != ROCE_PS_UDP)
		return ROCE_E_UNSUPPORTED;
	pthread_mutex_lock(&ch->cm->lock);
	*id = rcm_id_new(ch, context);
	if (*id)
		(*id)->ps = ps;
	pthread_mutex_unlock(&ch->cm->lock);
	return *id ? ROCE_OK : ROCE_E_NOMEM;
}

int roce_cm_destroy_id(struct roce_cm_id *id)
{
	struct roce_cm *cm;
	struct cm *c;

	if (!id)
		return ROCE_E_INVAL;
	cm = id->cm;
	c = cm_qp1_cm(cm->port);
	pthread_mutex_lock(&cm->lock);
	if (id->qp || id->events_out) {
		pthread_mutex_unlock(&cm->lock);
		return ROCE_E_BUSY;
	}
	if (id->listener >= 0)
		cm_unlisten(c, id->listener);
	id->listener = -1;
	if (id->conn >= 0) {
		enum cm_state st = cm_conn_state(c, id->conn);

		/* as rdma_destroy_id: a connection still up goes down first
		   (cma_destroy_id -> ib_destroy_cm_id sends a DREQ or REJ) */
		if (st == CM_ESTABLISHED)
			cm_disconnect(c, id->conn);
		else if (st == CM_REQ_RCVD || st == CM_MRA_REQ_SENT)
			cm_reject(c, id->conn, NULL, 0);
		else if (st == CM_SIDR_REQ_RCVD)
			cm_sidr_rep(c, id->conn, CM_SIDR_REJECT, 0, 0, NULL, 0);
		if (cm_conn_state(c, id->conn) == CM_IDLE)
			id->conn = -1;
	}
	id->destroyed = true;
	/* a destroyed ID takes no more events: its channel may go while the
	   connection finishes (a DREQ out, timewait), as with rdma_cm, where
	   the kernel keeps that part after rdma_destroy_id returns */
	id->ch->ids--;
	id->ch = NULL;
	if (id->conn < 0)
		rcm_id_free(id);
	pthread_mutex_unlock(&cm->lock);
	return ROCE_OK;
}

void *roce_cm_id_context(const struct roce_cm_id *id)
{
	return id ? id->context : NULL;
}

struct roce_qp *roce_cm_id_qp(const struct roce_cm_id *id)
{
	return id ? id->qp : NULL;
}

const struct sockaddr *roce_cm_peer_addr(const struct roce_cm_id *id)
{
	return (const struct sockaddr *)&id->dst;
}

const struct sockaddr *roce_cm_local_addr(const struct roce_cm_id *id)
{
	return (const struct sockaddr *)&id->src;
}

int roce_cm_bind_addr(struct roce_cm_id *id, const struct sockaddr *addr)
{
	static const uint8_t any6[16];
	struct sockaddr_storage ss = { 0 };
	uint8_t g[16];
	int rc = ROCE_OK;

	if (!id || !sa_ok(addr))
		return ROCE_E_INVAL;
	memcpy(&ss, addr, sa_len(addr));
	sa_gid(&ss, g);
	pthread_mutex_lock(&id->cm->lock);
	/* the wildcard address, or one of ours */
	if ((roce_gid_is_v4mapped(g) && !roce_gid_to_ipv4(g)) || !memcmp(g, any6, 16) ||
	    roce_gid_table_find(roce_context_gids(id->cm->attr.ctx), g) >= 0)
		id->src = ss;
	else
		rc = ROCE_E_INVAL;
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_resolve_addr(struct roce_cm_id *id, const struct sockaddr *src,
			 const struct sockaddr *dst, int timeout_ms)
{
	struct roce_cm *cm;
	struct sockaddr_storage s = { 0 };
	int idx, rc;
	uint8_t mac[6];

	if (!id || !sa_ok(dst) || (src && !sa_ok(src)) || timeout_ms < 0)
		return ROCE_E_INVAL;
	cm = id->cm;
	if (src)
		memcpy(&s, src, sa_len(src));
	else if (id->src.ss_family)
		s = id->src;
	pthread_mutex_lock(&cm->lock);
	memcpy(&id->dst, dst, sa_len(dst));
	sa_gid(&id->dst, id->dgid);
	idx = our_gid(cm, &s, id->dgid);
	pthread_mutex_unlock(&cm->lock);
	if (idx < 0 || roce_gid_is_v4mapped(roce_context_gids(cm->attr.ctx)->e[idx].gid) !=
			       roce_gid_is_v4mapped(id->dgid))
		return ROCE_E_INVAL;
	/* the resolver may wait for ARP/ND: not under the lock */
	rc = resolve_gid(cm, id->dgid, (unsigned)timeout_ms, mac);
	pthread_mutex_lock(&cm->lock);
	if (rc == ROCE_OK) {
		uint16_t port = rcm_sa_port(&s);

		id->sgid_index = (uint8_t)idx;
		memcpy(id->dmac, mac, 6);
		id->addr_resolved = true;
		rcm_gid_sa(roce_context_gids(cm->attr.ctx)->e[idx].gid, port, &id->src);
		rcm_queue(id->ch, id, NULL, ROCE_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0);
	} else {
		rcm_queue(id->ch, id, NULL, ROCE_CM_EVENT_ADDR_ERROR,
			  rc == ROCE_E_TIMEOUT ? -ETIMEDOUT : -EHOSTUNREACH, NULL, 0);
	}
	pthread_mutex_unlock(&cm->lock);
	return ROCE_OK;
}

int roce_cm_resolve_route(struct roce_cm_id *id, int timeout_ms)
{
	if (!id || timeout_ms < 0)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (!id->addr_resolved) {
		pthread_mutex_unlock(&id->cm->lock);
		return ROCE_E_STATE;
	}
	/* RoCE: one hop on the link; the path MTU is the port's, as the
	   kernel's cma_resolve_iboe_route takes the netdev's */
	id->mtu = roce_context_port_mtu(id->cm->attr.ctx);
	id->route_resolved = true;
	rcm_queue(id->ch, id, NULL, ROCE_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0);
	pthread_mutex_unlock(&id->cm->lock);
	return ROCE_OK;
}

int roce_cm_create_qp(struct roce_cm_id *id, struct roce_pd *pd,
		      struct roce_qp_init_attr *init_attr)
{
	struct roce_qp *qp;
	int rc;

	if (id && id->ps == ROCE_PS_UDP)
		return rcm_ud_create_qp(id, pd, init_attr);
	if (!id || !pd || !init_attr || init_attr->qp_type != ROCE_QPT_RC)
		return ROCE_E_INVAL;
	if (id->qp)
		return ROCE_E_EXISTS;
	rc = roce_create_qp_status(pd, init_attr, &qp);
	if (rc != ROCE_OK)
		return rc;
	pthread_mutex_lock(&id->cm->lock);
	/* INIT at once, as librdmacm's rdma_create_qp: receives may be
	   posted before the connection */
	rc = cm_qp1_init_qp(id->cm->port, qp);
	if (rc == ROCE_OK)
		rc = cm_qp1_add_qp(id->cm->port, qp);
	if (rc == ROCE_OK)
		id->qp = qp;
	pthread_mutex_unlock(&id->cm->lock);
	if (rc != ROCE_OK)
		roce_destroy_qp(qp);
	return rc;
}

void roce_cm_destroy_qp(struct roce_cm_id *id)
{
	if (!id || !id->qp)
		return;
	pthread_mutex_lock(&id->cm->lock);
	cm_qp1_remove_qp(id->cm->port, id->qp);
	pthread_mutex_unlock(&id->cm->lock);
	roce_destroy_qp(id->qp);
	id->qp = NULL;
}

/* ---- connections ---------------------------------------------------------- */

void rcm_hdr(struct roce_cm_id *id, const struct roce_conn_param *param, uint8_t *priv,
	     uint8_t sgid[16])
{
	struct roce_cm *cm = id->cm;
	struct cma_hdr h = { 0 };

	/* an unbound ID's source port: an ephemeral one, as the kernel's
	   cma_alloc_any_port picks from the local port range */
	if (!rcm_sa_port(&id->src))
		rcm_sa_set_port(&id->src, (uint16_t)(32768 + rcm_rnd(cm) % 28232));
	memcpy(sgid, roce_context_gids(cm->attr.ctx)->e[id->sgid_index].gid, 16);
	h.version = CMA_VERSION;
	h.ip_version = id->dst.ss_family == AF_INET ? 4 : 6;
	h.src_port = rcm_sa_port(&id->src);
	memcpy(h.src_addr, sgid, 16);
	memcpy(h.dst_addr, id->dgid, 16);
	if (h.ip_version == 4) {
		memset(h.src_addr, 0, 12);
		memset(h.dst_addr, 0, 12);
	}
	cma_hdr_pack(&h, priv);
	if (param->private_data_len)
		memcpy(priv + CMA_HDR_SIZE, param->private_data, param->private_data_len);
}

int roce_cm_connect(struct roce_cm_id *id, const struct roce_conn_param *param)
{
	struct roce_cm *cm;
	struct cm_connect_param p = { 0 };
	uint8_t priv[CMA_HDR_SIZE + ROCE_CM_REQ_PRIVATE];
	uint8_t sgid[16];
	int rc;

	if (id && param && id->ps == ROCE_PS_UDP) {
		pthread_mutex_lock(&id->cm->lock);
		rc = rcm_ud_connect(id, param);
		pthread_mutex_unlock(&id->cm->lock);
		return rc;
	}
	if (!id || !param || param->private_data_len > ROCE_CM_REQ_PRIVATE ||
	    (param->private_data_len && !param->private_data) || param->retry_count > 7 ||
	    param->rnr_retry_count > 7)
		return ROCE_E_INVAL;
	cm = id->cm;
	pthread_mutex_lock(&cm->lock);
	if (!id->route_resolved || (!id->qp && !param->qp_num) || id->conn >= 0 ||
	    id->listener >= 0) {
		pthread_mutex_unlock(&cm->lock);
		return ROCE_E_STATE;
	}
	rcm_hdr(id, param, priv, sgid);
	memcpy(p.peer.gid, id->dgid, 16);
	memcpy(p.local_gid, sgid, 16);
	p.service_id = CMA_SERVICE_ID(CMA_PS_TCP, rcm_sa_port(&id->dst));
	p.qpn = id->qp ? roce_qp_num(id->qp) : param->qp_num;
	p.user_qp = !id->qp;
	id->user_qpn = p.user_qp ? p.qpn : 0;
	p.starting_psn = rcm_rnd(cm) & 0xFFFFFF;
	p.path_mtu = (uint8_t)id->mtu;
	p.responder_resources = param->responder_resources;
	p.initiator_depth = param->initiator_depth;
	p.retry_count = param->retry_count;
	p.rnr_retry_count = param->rnr_retry_count;
	p.local_ack_timeout = RCM_ACK_TIMEOUT;
	p.hop_limit = 64;
	p.private_data = priv;
	p.private_len = CMA_HDR_SIZE + param->private_data_len;
	p.user = id;
	rc = cm_connect(cm_qp1_cm(cm->port), &p);
	if (rc >= 0) {
		id->conn = rc;
		rc = ROCE_OK;
	} else {
		rc = -rc;
	}
	pthread_mutex_unlock(&cm->lock);
	return rc;
}

int roce_cm_listen(struct roce_cm_id *id, int backlog)
{
	int rc;

	if (!id || backlog < 0)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (!id->src.ss_family || id->listener >= 0 || id->conn >= 0) {
		pthread_mutex_unlock(&id->cm->lock);
		return ROCE_E_STATE;
	}
	rc = cm_listen(cm_qp1_cm(id->cm->port), CMA_SERVICE_ID(id->ps, rcm_sa_port(&id->src)),
		       backlog ? (unsigned)backlog : 1024u, id);
	if (rc >= 0) {
		id->listener = rc;
		rc = ROCE_OK;
	} else {
		rc = -rc;
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_accept(struct roce_cm_id *id, const struct roce_conn_param *param)
{
	struct cm_accept_param p = { 0 };
	int rc;

	if (!id || !param || (param->private_data_len && !param->private_data) ||
	    param->rnr_retry_count > 7)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->ps == ROCE_PS_UDP) {
		rc = rcm_ud_accept(id, param);
		pthread_mutex_unlock(&id->cm->lock);
		return rc;
	}
	if (id->conn < 0 || (!id->qp && !param->qp_num)) {
		pthread_mutex_unlock(&id->cm->lock);
		return ROCE_E_STATE;
	}
	p.qpn = id->qp ? roce_qp_num(id->qp) : param->qp_num;
	p.user_qp = !id->qp;
	id->user_qpn = p.user_qp ? p.qpn : 0;
	p.starting_psn = id->psn; /* chosen at the request: init_qp_attr's too */
	p.responder_resources = param->responder_resources;
	p.initiator_depth = param->initiator_depth;
	p.rnr_retry_count = param->rnr_retry_count;
	p.target_ack_delay = 15; /* rxe's REPs */
	p.private_data = param->private_data;
	p.private_len = param->private_data_len;
	p.user = id;
	rc = -cm_accept(cm_qp1_cm(id->cm->port), id->conn, &p);
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_reject(struct roce_cm_id *id, const void *private_data, uint8_t len)
{
	int rc;

	if (!id || (len && !private_data) || len > ROCE_CM_REJ_PRIVATE)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->ps == ROCE_PS_UDP)
		rc = rcm_ud_reject(id, private_data, len);
	else
		rc = id->conn < 0 ? ROCE_E_STATE
				  : -cm_reject(cm_qp1_cm(id->cm->port), id->conn, private_data,
					       len);
	if (rc == ROCE_OK)
		id->conn = -1;
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

/* The REQ's depths turned round, as the kernel's cm_req_handler keeps
   them for a passive side's cm_init_qp_*_attr */
static struct cm_accept_param passive_param(struct roce_cm_id *id, struct cm *c)
{
	struct cm_accept_param p = { .qpn = id->user_qpn, .starting_psn = id->psn };
	const struct cm_req *q = cm_conn_req(c, id->conn);

	if (q) {
		p.responder_resources = q->initiator_depth;
		p.initiator_depth = q->responder_resources;
	}
	return p;
}

int roce_cm_init_qp_attr(struct roce_cm_id *id, struct roce_qp_attr *attr, unsigned *mask)
{
	struct cm_qp_attr a = { 0 };
	enum cm_qp_state st;
	struct cm *c;
	int rc;

	if (!id || !attr || !mask)
		return ROCE_E_INVAL;
	switch (attr->qp_state) {
	case ROCE_QPS_INIT: st = CM_QP_INIT; break;
	case ROCE_QPS_RTR: st = CM_QP_RTR; break;
	case ROCE_QPS_RTS: st = CM_QP_RTS; break;
	default: return ROCE_E_INVAL;
	}
	pthread_mutex_lock(&id->cm->lock);
	c = cm_qp1_cm(id->cm->port);
	if (st == CM_QP_INIT) {
		rc = ROCE_OK;
	} else if (id->conn < 0) {
		rc = ROCE_E_STATE;
	} else if (cm_conn_state(c, id->conn) == CM_REP_RCVD) {
		rc = -cm_active_attr(c, id->conn, &a);
	} else {
		struct cm_accept_param p = passive_param(id, c);

		rc = -cm_passive_attr(c, id->conn, &p, &a);
	}
	if (rc == ROCE_OK)
		rc = cm_qp1_qp_attr(id->cm->port, st, &a, attr, mask);
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_establish(struct roce_cm_id *id)
{
	int rc;

	if (!id)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	rc = id->conn < 0 ? ROCE_E_STATE : -cm_establish(cm_qp1_cm(id->cm->port), id->conn);
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int roce_cm_disconnect(struct roce_cm_id *id)
{
	int rc;

	if (!id)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->ps == ROCE_PS_UDP) {
		/* no connection to end: the QP goes to ERR (rdma_disconnect's
		   cma_modify_qp_err), the ib_cm's DREQ fails unseen */
		struct roce_qp_attr at = { .qp_state = ROCE_QPS_ERR };

		rc = id->qp ? roce_modify_qp(id->qp, &at, ROCE_QP_STATE) : ROCE_E_STATE;
	} else {
		rc = id->conn < 0 ? ROCE_E_STATE
				  : -cm_disconnect(cm_qp1_cm(id->cm->port), id->conn);
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

/* ---- the CM's events ------------------------------------------------------ */

static void connect_request(struct roce_cm *cm, const struct cm_event *ev)
{
	struct roce_cm_id *lid = ev->user, *id;
	struct cma_hdr h;
	struct cm *c = cm_qp1_cm(cm->port);

	if (!lid || lid->destroyed || !ev->req ||
	    cma_hdr_parse(ev->private_data, ev->private_len, &h) != MAD_OK) {
		/* no rdma_cm header: not for rdma_cm (cma_check_req_qp_type) */
		cm_reject(c, ev->conn, NULL, 0);
		return;
	}
	id = rcm_id_new(lid->ch, lid->context);
	if (!id) {
		cm_reject(c, ev->conn, NULL, 0);
		return;
	}
	id->conn = ev->conn;
	rcm_gid_sa(ev->req->primary.local_gid, h.src_port, &id->dst);
	rcm_gid_sa(ev->req->primary.remote_gid, rcm_sa_port(&lid->src), &id->src);
	memcpy(id->dgid, ev->req->primary.local_gid, 16);
	id->mtu = (enum roce_mtu)ev->req->path_mtu;
	id->psn = rcm_rnd(cm) & 0xFFFFFF;
	rcm_queue(id->ch, id, lid, ROCE_CM_EVENT_CONNECT_REQUEST, 0,
		  ev->private_data + CMA_HDR_SIZE, ev->private_len - CMA_HDR_SIZE);
	/* the peer's READ/atomic depths, as librdmacm reports them */
	id->ch->tail->ev.param.responder_resources = ev->req->responder_resources;
	id->ch->tail->ev.param.initiator_depth = ev->req->initiator_depth;
	id->ch->tail->ev.param.retry_count = ev->req->retry_count;
	id->ch->tail->ev.param.rnr_retry_count = ev->req->rnr_retry_count;
}

void rcm_cm_event(void *arg, const struct cm_event *ev)
{
	struct roce_cm *cm = arg;
	struct roce_cm_id *id = ev->user;
	enum roce_cm_event_type t;
	int status = 0;

	if (ev->type == CM_EV_CONNECT_REQUEST) {
		connect_request(cm, ev);
		return;
	}
	if (ev->type == CM_EV_SIDR_REQUEST || ev->type == CM_EV_SIDR_REPLY) {
		rcm_ud_event(cm, ev);
		return;
	}
	if (!id)
		return;
	switch (ev->type) {
	case CM_EV_ESTABLISHED:
		t = ROCE_CM_EVENT_ESTABLISHED;
		break;
	case CM_EV_CONNECT_RESPONSE:
		t = ROCE_CM_EVENT_CONNECT_RESPONSE;
		break;
	case CM_EV_REJECTED:
		t = ROCE_CM_EVENT_REJECTED;
		status = ev->rej_reason;
		break;
	case CM_EV_UNREACHABLE:
		t = ROCE_CM_EVENT_UNREACHABLE;
		status = -ETIMEDOUT;
		break;
	case CM_EV_DISCONNECTED:
		t = ROCE_CM_EVENT_DISCONNECTED;
		break;
	case CM_EV_TIMEWAIT_EXIT:
		t = ROCE_CM_EVENT_TIMEWAIT_EXIT;
		break;
	default:
		return;
	}
	/* the CM frees a slot before it tells (REJ taken, REQ timed out,
	   timewait over): the ID has no connection from then on */
	if (cm_conn_state(cm_qp1_cm(cm->port), ev->conn) == CM_IDLE)
		id->conn = -1;
	if (id->destroyed) {
		if (id->conn < 0 && !id->events_out)
			rcm_id_free(id);
		return;
	}
	rcm_queue(id->ch, id, NULL, t, status, ev->private_data, ev->private_len);
}
