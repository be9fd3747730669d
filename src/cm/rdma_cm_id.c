/* SPDX-License-Identifier: MIT */
/*
 * IDs of the rdma_cm-shaped API (roce/cm.h) and their addresses: create
 * and destroy, bind, address resolution (our GID of the peer's family,
 * the peer's MAC through the caller's resolver, as the kernel's
 * rdma_resolve_addr through ARP/ND) and route resolution (RoCE: one hop,
 * the port's MTU, cma_resolve_iboe_route); and what the connecting files
 * above take from an ID's addresses: the rdma_cm header of a REQ or
 * SIDR_REQ (cma.h) and the CM's random numbers.
 */
#include "cm/rdma_cm_id.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cma.h"
#include "cm/rdma_cm_event.h"
#include "roce/gid.h"
#include "roce/status.h"

/* how long cm_qp1's resolver waits for the MAC of a GID no ID resolved */
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

bool roce_cm_addr_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return sa->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

bool rcm_sa_loopback(const struct sockaddr_storage *ss)
{
	return roce_cm_addr_is_loopback((const struct sockaddr *)ss);
}

static void sa_set_port(struct sockaddr_storage *ss, uint16_t port)
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

/* ---- IDs ------------------------------------------------------------------ */

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
	rcm_drop_events(id->ch, id);
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

/* An ephemeral port of the local range no other live ID of ps holds, as
 * the kernel's cma_alloc_any_port picks for a bind to port 0 (0 if 64
 * tries found none: the caller's EADDRINUSE). */
static uint16_t free_port(struct roce_cm *cm, enum roce_port_space ps)
{
	for (int tries = 0; tries < 64; tries++) {
		uint16_t port = (uint16_t)(32768 + rcm_rnd(cm) % 28232);
		const struct roce_cm_id *o;

		for (o = cm->ids; o; o = o->next)
			if (!o->destroyed && o->ps == ps && o->src.ss_family &&
			    rcm_sa_port(&o->src) == port)
				break;
		if (!o)
			return port;
	}
	return 0;
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
	/* the wildcard address, one of ours, or a loopback address (the
	 * kernel's rdma_cm binds one with no device: libfabric's verbs
	 * provider binds "localhost" to learn the devices; a listener on
	 * it meets no request from the wire) */
	if ((roce_gid_is_v4mapped(g) && !roce_gid_to_ipv4(g)) || !memcmp(g, any6, 16) ||
	    roce_gid_table_find(roce_context_gids(id->cm->attr.ctx), g) >= 0 ||
	    rcm_sa_loopback(&ss)) {
		/* port 0: one is taken now (rdma_get_src_port reads it) */
		if (!rcm_sa_port(&ss)) {
			uint16_t port = free_port(id->cm, id->ps);

			if (port)
				sa_set_port(&ss, port);
			else
				rc = ROCE_E_EXISTS;
		}
		if (rc == ROCE_OK)
			id->src = ss;
	} else {
		rc = ROCE_E_INVAL;
	}
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

/* ---- what a REQ says of its ID --------------------------------------------- */

void rcm_hdr(struct roce_cm_id *id, const struct roce_conn_param *param, uint8_t *priv,
	     uint8_t sgid[16])
{
	struct roce_cm *cm = id->cm;
	struct cma_hdr h = { 0 };

	/* an unbound ID's source port: an ephemeral one, as the kernel's
	   cma_alloc_any_port picks from the local port range */
	if (!rcm_sa_port(&id->src))
		sa_set_port(&id->src, (uint16_t)(32768 + rcm_rnd(cm) % 28232));
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
