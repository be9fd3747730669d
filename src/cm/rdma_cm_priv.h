/* SPDX-License-Identifier: MIT */
/*
 * The rdma_cm-shaped API's objects (roce/cm.h): the CM, an ID, an event
 * channel and its queue, shared by every rdma_cm_*.c. What one file calls
 * of another is in that file's own header (rdma_cm_event.h, _id.h, _ud.h,
 * _conn.h, _status.h); rdma_cm.c says which layer each is.
 */
#ifndef ROCE_CM_RDMA_CM_PRIV_H
#define ROCE_CM_RDMA_CM_PRIV_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>

#include "cm/cm_qp1.h"
#include "roce/cm.h"

struct roce_cm_id {
	struct roce_cm *cm;
	struct roce_cm_event_channel *ch;
	void *context;
	bool destroyed;            /* by the user; freed when its slot is */
	int conn;                  /* CM connection, -1: none */
	int listener;              /* CM listener, -1: none */
	bool lo_listen;            /* listening on a loopback address: no
				      request from the wire is for it */
	enum roce_port_space ps;
	struct sockaddr_storage src, dst;
	uint8_t sgid_index;
	uint8_t dgid[16];
	uint8_t dmac[6];
	bool addr_resolved, route_resolved;
	enum roce_mtu mtu;
	struct roce_qp *qp;
	uint32_t user_qpn;         /* a QP the caller moves (conn_param.qp_num) */
	uint32_t psn;              /* passive: the REP's starting PSN */
	unsigned events_out;       /* returned and not acknowledged */
	struct roce_cm_id *next;   /* the CM's list */
};

struct cm_ev_node {
	struct roce_cm_event ev;
	uint8_t priv[ROCE_CM_REP_PRIVATE];
	struct cm_ev_node *next;
};

struct roce_cm_event_channel {
	struct roce_cm *cm;
	int fd;                    /* eventfd: readable (count 1) while events
				      are queued, 0 while none (rdma_cm_event.c) */
	bool ready;                /* fd's count is 1 */
	pthread_cond_t cond;       /* a blocking get waits on it (cm->lock) */
	unsigned waiters;          /* gets waiting on cond */
	bool destroyed;            /* freed by the last waiter, which never wakes */
	struct cm_ev_node *head, *tail;
	unsigned ids;
	struct roce_cm_event_channel *next;
};

struct roce_cm {
	struct roce_cm_attr attr;
	struct cm_qp1 *port;
	pthread_mutex_t lock;      /* everything below, the CM, the queues */
	pthread_t thread;
	bool running;
	struct roce_cm_id *ids;
	struct roce_cm_event_channel *chans;
	uint32_t rand;
	int status_fd;             /* rdma_cm_status.c's listener, -1: none */
	char status_name[40];
};

#endif
