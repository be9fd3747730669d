/* SPDX-License-Identifier: MIT */
/* The rdma_cm-shaped API's insides (roce/cm.h), shared by rdma_cm.c (IDs,
   resolution, connect/accept) and rdma_cm_event.c (channels, events, the
   CM thread). */
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
	int fd;                    /* eventfd: its count is the events queued */
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

/* rdma_cm_event.c; the lock held */
void rcm_queue(struct roce_cm_event_channel *ch, struct roce_cm_id *id,
	       struct roce_cm_id *listen_id, enum roce_cm_event_type type, int status,
	       const uint8_t *priv, size_t len);
int rcm_thread_start(struct roce_cm *cm);
void rcm_thread_stop(struct roce_cm *cm);
/* rdma_cm.c; the lock held: the CM's event in the API's terms */
void rcm_cm_event(void *arg, const struct cm_event *ev);
int rcm_resolve_mac(void *arg, const uint8_t gid[16], uint8_t mac[6]);
void rcm_id_free(struct roce_cm_id *id);
uint32_t rcm_rnd(struct roce_cm *cm);
uint16_t rcm_sa_port(const struct sockaddr_storage *ss);
void rcm_sa_set_port(struct sockaddr_storage *ss, uint16_t port);
void rcm_gid_sa(const uint8_t gid[16], uint16_t port, struct sockaddr_storage *ss);
struct roce_cm_id *rcm_id_new(struct roce_cm_event_channel *ch, void *context);
/* rdma_cm's header (an ephemeral source port if none), then the user's
   private data, into priv; sgid: our GID it names */
void rcm_hdr(struct roce_cm_id *id, const struct roce_conn_param *param, uint8_t *priv,
	     uint8_t sgid[16]);
/* rdma_cm_ud.c: a UDP ID's QP, SIDR_REQ, SIDR_REP, events; the lock held
   (but rcm_ud_create_qp, which takes it) */
int rcm_ud_create_qp(struct roce_cm_id *id, struct roce_pd *pd,
		     struct roce_qp_init_attr *init_attr);
int rcm_ud_connect(struct roce_cm_id *id, const struct roce_conn_param *param);
int rcm_ud_accept(struct roce_cm_id *id, const struct roce_conn_param *param);
int rcm_ud_reject(struct roce_cm_id *id, const void *private_data, uint8_t len);
void rcm_ud_event(struct roce_cm *cm, const struct cm_event *ev);
/* rdma_cm_status.c: the status socket (the CM thread serves it; a CM
   without one, e.g. when the socket cannot be made, still works) */
int rcm_status_open(struct roce_cm *cm);
void rcm_status_serve(struct roce_cm *cm);
void rcm_status_close(struct roce_cm *cm);

#endif
