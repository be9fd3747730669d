/* SPDX-License-Identifier: MIT */
/*
 * The CM's insides (cm_table.c): the connection slots, the listeners, the
 * CM object that holds them, and the steps every file of the CM takes on
 * a connection. The files above (cm_call.c, cm_timer.c, cm_sidr.c,
 * cm_recv.c) include this; it includes only the CM's API (cm.h) for the
 * types.
 */
#ifndef ROCE_CM_TABLE_H
#define ROCE_CM_TABLE_H

#include "cm/cm.h"

struct cm_conn {
	enum cm_state state;
	bool active;
	bool in_backlog;            /* passive, waiting for accept/reject */
	int listener;               /* passive: its listener, or -1 */
	uint32_t local_id, remote_id;
	uint64_t remote_ca_guid;
	uint64_t tid;               /* of REQ/REP/RTU/MRA/REJ: the REQ's */
	uint64_t own_tid;           /* of a DREQ: the sender's own (cm_form_tid) */
	struct cm_addr peer;
	uint32_t local_qpn, remote_qpn;
	uint32_t local_psn;
	uint8_t local_ack_timeout;  /* also the timewait's length */
	uint8_t retry_count;        /* ours (active) or the REQ's (passive) */
	struct cm_req req;          /* passive: the REQ, until the REP */
	bool user_qp;               /* its owner moves the QP */
	struct cm_qp_attr qa;       /* active, user_qp: from the REQ and REP */
	void *user;
	/* the last MAD sent: resent on timeout or on a duplicate */
	uint8_t mad[MAD_SIZE];
	bool timer_on;
	uint64_t deadline_us, timeout_us;
	unsigned retries_left, retries_armed;
	/* the connection's response timeout and retries, for its REP or
	   DREQ as for its REQ (the kernel's cm_id_priv->timeout_ms) */
	uint64_t resp_us;
	unsigned max_retries;
	uint64_t since_us;          /* when it entered its state */
};

struct cm_listener {
	bool used;
	uint64_t service_id;
	unsigned backlog, pending;
	void *user;
};

struct cm {
	struct cm_config cfg;
	struct cm_ops ops;
	struct cm_counters cnt;
	uint32_t next_id;
	struct cm_conn *conns;
	struct cm_listener *listeners;
};

uint64_t cm_now(struct cm *cm);
void cm_set_state(struct cm *cm, struct cm_conn *c, enum cm_state state);

/* the connection table */
struct cm_conn *cm_conn_alloc(struct cm *cm);
void cm_conn_free(struct cm *cm, struct cm_conn *c);
/* passive: the connection no longer counts against its listener's backlog */
void cm_backlog_release(struct cm *cm, struct cm_conn *c);
int cm_conn_index(const struct cm *cm, const struct cm_conn *c);
/* a live connection by its index (a caller's), NULL when idle or out of range */
struct cm_conn *cm_conn_get(struct cm *cm, int conn);
struct cm_conn *cm_conn_by_local_id(struct cm *cm, uint32_t local_id);

/* the listeners: the index of service_id's, or -1 */
int cm_find_listener(struct cm *cm, uint64_t service_id);

/* sending, and telling the owner */
void cm_send_msg(struct cm *cm, const struct cm_addr *to, const struct cm_msg *m,
		 uint8_t *keep);
void cm_resend(struct cm *cm, struct cm_conn *c);
void cm_send_rej(struct cm *cm, const struct cm_addr *to, uint64_t tid,
		 uint32_t local_id, uint32_t remote_id, uint8_t msg_rejected,
		 uint16_t reason, const void *ari, uint8_t ari_len,
		 const void *priv, size_t priv_len);
void cm_emit(struct cm *cm, enum cm_event_type type, struct cm_conn *c, void *user,
	     uint16_t reason, const struct cm_req *req, const uint8_t *priv, size_t len);
void cm_qp_error(struct cm *cm, struct cm_conn *c);

/* REJ's "message rejected" (Table 108) and MRA's "message
   MRAed" (Table 107) */
enum { CM_MSG_REQ = 0, CM_MSG_REP = 1, CM_MSG_OTHER = 2 };

#endif
