/* SPDX-License-Identifier: MIT */
/*
 * The device, event channels and IDs of the drop-in librdmacm.so.1. As
 * librdmacm's ucma_init, the first call opens the device (the drop-in
 * libibverbs' one, roce0: ibv_open_device shares the process's context,
 * so id->verbs is the very context the program's own opens get) and a
 * PD for IDs that are given none; here it also opens the engine's CM on
 * that context (rv_cm_open), which the kernel's rdma_ucm is for
 * librdmacm. At exit the CM is closed if the program left nothing open,
 * so that a DREQ still unanswered is resent (roce_cm_close lingers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibverbs/rv_cm.h"
#include "rdmacm/rc.h"
#include "roce/status.h"

static struct rc_device the_device;
static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static int device_err;                  /* the first open's errno, 0: open */
static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rc_id *ids;

int rc_err(int err)
{
	errno = err;
	return -1;
}

int rc_status(int st)
{
	switch (st) {
	case ROCE_OK: return 0;
	case ROCE_E_NOMEM: case ROCE_E_FULL: return rc_err(ENOMEM);
	case ROCE_E_BUSY: return rc_err(EBUSY);
	case ROCE_E_AGAIN: return rc_err(EAGAIN);
	case ROCE_E_TIMEOUT: return rc_err(ETIMEDOUT);
	case ROCE_E_UNSUPPORTED: return rc_err(EOPNOTSUPP);
	case ROCE_E_NOENT: return rc_err(ENOENT);
	case ROCE_E_EXISTS: return rc_err(EADDRINUSE);
	case ROCE_E_IO: return rc_err(EIO);
	default: return rc_err(EINVAL);
	}
}

int rc_refuse(const char *what, const char *why, int err)
{
	fprintf(stderr, "librdmacm (roce-run): %s: %s\n", what, why);
	return rc_err(err);
}

static void device_open(void)
{
	struct rc_device *d = &the_device;
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr a;
	int err;

	if (!list || !list[0]) {
		/* libibverbs said why (no ROCE_RUN_NETDEV: not under roce-run) */
		ibv_free_device_list(list);
		device_err = ENODEV;
		return;
	}
	d->verbs = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!d->verbs) {
		device_err = errno ? errno : ENODEV;
		return;
	}
	if (ibv_query_device(d->verbs, &a) == 0) {
		d->max_initiator_depth = (uint8_t)(a.max_qp_init_rd_atom > 255 ? 255 : a.max_qp_init_rd_atom);
		d->max_responder_resources = (uint8_t)(a.max_qp_rd_atom > 255 ? 255 : a.max_qp_rd_atom);
	}
	d->pd = ibv_alloc_pd(d->verbs);
	err = d->pd ? rv_cm_open(d->verbs, &d->cm) : ENOMEM;
	if (err) {
		if (d->pd)
			ibv_dealloc_pd(d->pd);
		ibv_close_device(d->verbs);
		memset(d, 0, sizeof(*d));
		device_err = err;
	}
}

struct rc_device *rc_device(void)
{
	pthread_once(&device_once, device_open);
	if (device_err)
		return errno = device_err, NULL;
	return &the_device;
}

/* At exit, before libibverbs' own: the CM lingers while a DREQ of ours is
 * unanswered. A program that left IDs or channels open (rstream's
 * listener) keeps them, but its connections still up are disconnected
 * and their DREQs waited for, as the kernel's rdma_cm does when the
 * process's last file closes. */
__attribute__((destructor)) static void device_close(void)
{
	struct rc_device *d = &the_device;

	if (!d->cm)
		return;
	if (rv_cm_close(d->cm)) {
		roce_cm_exit(d->cm);
		return;
	}
	ibv_dealloc_pd(d->pd);
	ibv_close_device(d->verbs);
	memset(d, 0, sizeof(*d));
}

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct rc_device *d = rc_device();
	struct ibv_context **list = d ? calloc(2, sizeof(*list)) : NULL;

	if (list)
		list[0] = d->verbs;
	if (num_devices)
		*num_devices = list ? 1 : 0;
	return list;
}

void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

/* ---- event channels -------------------------------------------------------- */

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rc_device *d = rc_device();
	struct rc_channel *c;

	if (!d)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return errno = ENOMEM, NULL;
	c->rch = roce_cm_create_event_channel(d->cm);
	if (!c->rch) {
		free(c);
		return errno = ENOMEM, NULL;
	}
	c->ch.fd = roce_cm_channel_fd(c->rch);
	return &c->ch;
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct rc_channel *c = RC_OF(rc_channel, channel);

	if (!channel)
		return;
	/* librdmacm closes the fd whatever its IDs: here the queue must stay
	   while IDs use it */
	if (roce_cm_destroy_event_channel(c->rch) != ROCE_OK) {
		fprintf(stderr, "librdmacm (roce-run): rdma_destroy_event_channel: IDs still "
			"use it (rdma_destroy_id them first): kept\n");
		return;
	}
	free(c);
}

/* ---- IDs --------------------------------------------------------------------- */

struct rc_id *rc_id_new(struct rdma_event_channel *ch, struct roce_cm_id *rid, void *context,
			enum rdma_port_space ps)
{
	struct rc_id *r = calloc(1, sizeof(*r));

	if (!r)
		return errno = ENOMEM, NULL;
	r->id.channel = ch;
	r->id.context = context;
	r->id.ps = ps;
	r->id.qp_type = ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	r->rid = rid;
	r->initiator_depth = r->responder_resources = RDMA_MAX_INIT_DEPTH;
	pthread_mutex_lock(&ids_lock);
	r->next = ids;
	ids = r;
	pthread_mutex_unlock(&ids_lock);
	return r;
}

struct rc_id *rc_id_find(const struct roce_cm_id *rid)
{
	struct rc_id *r;

	pthread_mutex_lock(&ids_lock);
	for (r = ids; r && r->rid != rid; r = r->next)
		;
	pthread_mutex_unlock(&ids_lock);
	return r;
}

void rc_id_free(struct rc_id *r)
{
	pthread_mutex_lock(&ids_lock);
	for (struct rc_id **pp = &ids; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	pthread_mutex_unlock(&ids_lock);
	free(r->qp_init_attr);
	free(r->connect);
	free(r);
}

void rc_id_bind_device(struct rc_id *r)
{
	struct rc_device *d = rc_device();

	if (!d || r->id.verbs)
		return;
	r->id.verbs = d->verbs;
	if (!r->id.pd)
		r->id.pd = d->pd;
	r->id.port_num = 1;
}

static size_t sa_size(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

void rc_id_fill_addr(struct rc_id *r)
{
	const struct sockaddr *s = roce_cm_local_addr(r->rid), *p = roce_cm_peer_addr(r->rid);
	struct rdma_addr *a = &r->id.route.addr;

	if (s->sa_family)
		memcpy(&a->src_storage, s, sa_size(s));
	if (p->sa_family)
		memcpy(&a->dst_storage, p, sa_size(p));
	/* the GIDs of the addresses: IPv4-mapped, or the IPv6 address */
	for (int i = 0; i < 2; i++) {
		const struct sockaddr *sa = i ? p : s;
		union ibv_gid *g = i ? &a->addr.ibaddr.dgid : &a->addr.ibaddr.sgid;

		memset(g, 0, sizeof(*g));
		if (sa->sa_family == AF_INET) {
			g->raw[10] = g->raw[11] = 0xff;
			memcpy(g->raw + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		} else if (sa->sa_family == AF_INET6) {
			memcpy(g->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		}
	}
	a->addr.ibaddr.pkey = htobe16(0xffff);
}

void rc_id_fill_route(struct rc_id *r)
{
	struct ibv_sa_path_rec *p = &r->path;
	struct ibv_port_attr pa;

	rc_id_fill_addr(r);
	memset(p, 0, sizeof(*p));
	p->dgid = r->id.route.addr.addr.ibaddr.dgid;
	p->sgid = r->id.route.addr.addr.ibaddr.sgid;
	p->pkey = htobe16(0xffff);
	p->hop_limit = 64;
	p->traffic_class = r->tos;
	p->reversible = 1;
	p->numb_path = 1;
	p->mtu_selector = p->rate_selector = p->packet_life_time_selector = 2; /* exactly */
	if (r->id.verbs && ibv_query_port(r->id.verbs, 1, &pa) == 0)
		p->mtu = (uint8_t)pa.active_mtu;
	p->packet_life_time = 16;
	r->id.route.path_rec = p;
	r->id.route.num_paths = 1;
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	struct rc_device *d = rc_device();
	struct rdma_event_channel *ch = channel;
	struct roce_cm_id *rid;
	struct rc_id *r;
	int st;

	if (!d)
		return -1;
	if (!id)
		return rc_err(EINVAL);
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_UDP)
		return rc_refuse("rdma_create_id", "port spaces other than RDMA_PS_TCP and "
				 "RDMA_PS_UDP are not supported (no IPoIB or IB on RoCE)",
				 EOPNOTSUPP);
	if (!ch && !(ch = rdma_create_event_channel()))
		return -1;
	r = rc_id_new(ch, NULL, context, ps);
	st = r ? roce_cm_create_id(RC_OF(rc_channel, ch)->rch, &rid, r,
				   ps == RDMA_PS_UDP ? ROCE_PS_UDP : ROCE_PS_TCP) : ROCE_E_NOMEM;
	if (st != ROCE_OK) {
		if (r)
			rc_id_free(r);
		if (!channel)
			rdma_destroy_event_channel(ch);
		return rc_status(st);
	}
	r->rid = rid;
	r->sync = !channel;
	*id = &r->id;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rc_id *r = RC_OF(rc_id, id);
	const struct timespec nap = { 0, 1000000 };
	int st;

	if (!id)
		return rc_err(EINVAL);
	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	/* as librdmacm: wait until every event of the ID given out is
	   acknowledged (another thread's rdma_ack_cm_event) */
	while ((st = roce_cm_destroy_id(r->rid)) == ROCE_E_BUSY)
		nanosleep(&nap, NULL);
	if (st != ROCE_OK)
		return rc_status(st);
	if (r->sync)
		rdma_destroy_event_channel(id->channel);
	rc_id_free(r);
	return 0;
}
