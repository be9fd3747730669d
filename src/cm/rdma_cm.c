/* SPDX-License-Identifier: MIT */
/*
 * The rdma_cm-shaped API (roce/cm.h) on the CM and its QP1 port: the CM
 * itself, opened on a context, driven by its own thread and closed.
 * Semantics follow librdmacm v44 (librdmacm/cma.c) and the kernel's
 * drivers/infiniband/core/cma.c: the REQ's private data starts with the
 * 36-byte rdma_cm header (cma.h), the service ID is the TCP port space's.
 *
 * The API's files are layers; each calls only the ones below it:
 *
 *   rdma_cm.c         open, close, the CM thread      (wires the rest)
 *   rdma_cm_conn.c    connect, listen, accept, reject, establish,
 *                     disconnect; the CM's events in the API's terms
 *   rdma_cm_ud.c      the same for UDP IDs: SIDR_REQ, SIDR_REP
 *   rdma_cm_qp.c      the QP an ID makes, and its attributes per step
 *   rdma_cm_id.c      IDs, addresses, address and route resolution
 *   rdma_cm_event.c   event channels, the queue of events, ID records
 *   rdma_cm_status.c  the status `rocectl cm` reads (beside the others)
 *
 * rdma_cm_priv.h holds the objects all of them share (the CM, an ID, a
 * channel); each file's header declares what the ones above it call.
 */
#include "common/clock.h"
#include "cm/rdma_cm_priv.h"

#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include "cm/rdma_cm_conn.h"
#include "cm/rdma_cm_id.h"
#include "cm/rdma_cm_status.h"
#include "roce/status.h"

/* rdma_cm's defaults (cma.c: CMA_IBOE_PACKET_LIFETIME, CMA_CM_RESPONSE_TIMEOUT,
   CMA_MAX_CM_RETRIES) */
#define RCM_PLT 16
#define RCM_RESP_TIMEOUT 20
#define RCM_RETRIES 15
/* how long roce_cm_close waits for DREQs still unanswered (linger) */
#define RCM_CLOSE_LINGER_MS 10000u
/* a MAD handed to the port: the time its queue takes to send it */
#define RCM_DRAIN_MS 20u

/* The thread that drives the CM: QP1's completions, the CM's timers
   (cm_qp1_poll) and the status socket's requests. */
static void *cm_thread(void *arg)
{
	struct roce_cm *cm = arg;
	const struct timespec nap = { 0, 200000 }, none = { 0, 0 };
	struct pollfd pfd = { .fd = cm->status_fd, .events = POLLIN };
	unsigned busy = 0;

	for (;;) {
		unsigned n;

		pthread_mutex_lock(&cm->lock);
		if (!cm->running) {
			pthread_mutex_unlock(&cm->lock);
			return NULL;
		}
		n = cm_qp1_poll(cm->port);
		pthread_mutex_unlock(&cm->lock);
		/* idle: 200 us naps (the CM's timers are milliseconds), woken
		   early by a status request; busy: a look every 64 rounds */
		if (n && ++busy % 64)
			continue;
		if (ppoll(&pfd, pfd.fd >= 0, n ? &none : &nap, NULL) > 0)
			rcm_status_serve(cm);
	}
}

static int thread_start(struct roce_cm *cm)
{
	cm->running = true;
	if (pthread_create(&cm->thread, NULL, cm_thread, cm) != 0) {
		cm->running = false;
		return ROCE_E_NOMEM;
	}
	return ROCE_OK;
}

static void thread_stop(struct roce_cm *cm)
{
	pthread_mutex_lock(&cm->lock);
	cm->running = false;
	pthread_mutex_unlock(&cm->lock);
	pthread_join(cm->thread, NULL);
}

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
		rc = thread_start(cm);
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
	uint64_t t0 = roce_now_ms();

	for (;;) {
		bool sending;
		unsigned n;

		pthread_mutex_lock(&cm->lock);
		n = cm_conns_in_state(cm_qp1_cm(cm->port), CM_DREQ_SENT);
		/* and a MAD still leaving: the DREP that answered a DREQ
		   just before the program, woken by its DISCONNECTED,
		   exits (qperf's server does; the kernel's CM sends it
		   whatever the process) */
		sending = cm_qp1_sending(cm->port, RCM_DRAIN_MS);
		pthread_mutex_unlock(&cm->lock);
		if ((!n && !sending) || roce_now_ms() - t0 >= ms)
			return;
		nanosleep(&nap, NULL);
	}
}

void roce_cm_exit(struct roce_cm *cm)
{
	if (!cm)
		return;
	pthread_mutex_lock(&cm->lock);
	cm_disconnect_all(cm_qp1_cm(cm->port));
	pthread_mutex_unlock(&cm->lock);
	linger(cm);
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
	thread_stop(cm);
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
