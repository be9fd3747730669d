/* SPDX-License-Identifier: MIT */
/*
 * Inside the drop-in librdmacm.so.1 (docs/verbs.md, "librdmacm"): the
 * objects a program gets are rdma-core 44's own structures from
 * <rdma/rdma_cma.h> (the program reads their fields: id->verbs, id->qp,
 * id->route, event->param), each the first member of a wrapper that
 * holds the engine's CM object behind it (roce/cm.h, reached in the
 * drop-in libibverbs.so.1 through rv_cm.h). QPs and CQs are the drop-in
 * libibverbs' own, made and moved with the verbs as rdma-core's
 * librdmacm makes and moves them (its QP is the caller's: the CM is told
 * its number and hands out each step's attributes, rdma_init_qp_attr).
 */
#ifndef ROCE_RDMACM_RC_H
#define ROCE_RDMACM_RC_H

#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdbool.h>
#include <stddef.h>

#include "roce/cm.h"

#define RC_OF(type, p) ((struct type *)(void *)(p))

struct rc_channel {
	struct rdma_event_channel ch;   /* first: fd is the CM channel's eventfd */
	struct roce_cm_event_channel *rch;
};

struct rc_id {
	struct rdma_cm_id id;           /* first: the program's */
	struct roce_cm_id *rid;
	bool sync;                      /* made with no channel: calls wait for their event */
	bool connect_error;             /* CONNECT_ERROR given: its REJECTED and
					   DISCONNECTED are swallowed, as librdmacm does */
	uint8_t initiator_depth, responder_resources; /* what connect/accept asked */
	bool tos_set, ack_timeout_set;  /* rdma_set_option */
	uint8_t tos, ack_timeout;
	struct ibv_qp_init_attr *qp_init_attr; /* rdma_create_ep's listener: each request's QP */
	void *connect;                  /* rdma_getaddrinfo's ai_connect for rdma_connect */
	size_t connect_len;
	struct ibv_sa_path_rec path;    /* route.path_rec once resolved */
	struct rc_id *next;             /* the process's list (device.c) */
};

struct rc_event {
	struct rdma_cm_event ev;        /* first: the program's */
	struct roce_cm_event *inner;    /* acknowledged with it */
	uint8_t priv[256];             /* the largest private data, a REP's 196 */
};

/* device.c: the process's one device, opened at the first call (as
 * librdmacm's ucma_init), its PD for IDs that are given none, the CM. */
struct rc_device {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct roce_cm *cm;
	uint8_t max_initiator_depth, max_responder_resources;
};
/* The device, or NULL with errno set (said once on stderr) */
struct rc_device *rc_device(void);
/* -1 with errno err, as librdmacm's ERR() */
int rc_err(int err);
/* A ROCE_E_* status as -1 and errno (0 for ROCE_OK) */
int rc_status(int st);
/* Not offered: one line on stderr (what, why) and -1 with errno err */
int rc_refuse(const char *what, const char *why, int err);

/* IDs: a new wrapper over rid (in the process's list); the wrapper of an
 * engine ID (NULL for one not yet seen: a request's new ID); freed. */
struct rc_id *rc_id_new(struct rdma_event_channel *ch, struct roce_cm_id *rid, void *context,
			enum rdma_port_space ps);
struct rc_id *rc_id_find(const struct roce_cm_id *rid);
void rc_id_free(struct rc_id *r);
/* id->verbs, pd, port_num and route.addr from the engine's ID: an ID
 * bound to an address of ours, resolved, or made by a request */
void rc_id_bind_device(struct rc_id *r);
void rc_id_fill_addr(struct rc_id *r);
void rc_id_fill_route(struct rc_id *r);

/* qp.c: moving the ID's QP as librdmacm does (0 or -1 with errno) */
int rc_modify_qp_rtr(struct rc_id *r, uint8_t resp_res);
int rc_modify_qp_rts(struct rc_id *r, uint8_t init_depth);
int rc_modify_qp_err(struct rc_id *r);
/* an engine address vector as ibverbs' */
void rc_ah_to_ibv(const struct roce_ah_attr *in, struct ibv_ah_attr *out);

/* event.c: a synchronous ID's call waits for its event (ucma_complete) */
int rc_complete(struct rc_id *r);

#endif
