/* SPDX-License-Identifier: MIT */
/*
 * The communication manager (IBA 12.9): connection setup and teardown of
 * RC QPs by REQ/REP/RTU, REJ, MRA, DREQ/DREP and timewait, active and
 * passive, with the kernel CM's retries and timeouts
 * (drivers/infiniband/core/cm.c).
 *
 * It owns no I/O. Its owner gives it three things (struct cm_ops):
 *   - a transport: send(256-byte MAD, to address); received MADs come in
 *     through cm_recv() (on RoCE: UD SEND ONLY on QP1, Q_Key 0x80010000);
 *   - a clock (microseconds; a virtual one in tests) and cm_poll() when
 *     cm_next_deadline() is due;
 *   - the QP: modify(qpn, INIT/RTR/RTS/ERR, attributes from the REQ/REP)
 *     and an event callback (connect request, established, rejected,
 *     unreachable, disconnected, timewait over).
 * Everything it holds lives in fixed tables sized at cm_create(): nothing
 * is allocated per MAD.
 *
 * This header is the CM's API; its calls are defined, in layers that only
 * call down, by:
 *   cm_recv.c   cm_recv(): one handler per received message
 *   cm_call.c   connect, accept, reject, MRA, establish, disconnect
 *   cm_sidr.c   SIDR_REQ and SIDR_REP, sent and received
 *   cm_timer.c  cm_poll(), cm_next_deadline(): resends, timeouts, timewait
 *   cm_table.c  create, listen, the connection table and its queries, and
 *               the steps all of the above take (send, emit, QP to ERR)
 * No file is cm.c: every one of them includes this header for its types,
 * so its own file would sit both under and over them.
 */
#ifndef ROCE_CM_CM_H
#define ROCE_CM_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cm/cm_msg.h"

/* The peer's CM: on RoCE its GID (QP1 and the GSI Q_Key are implied). */
struct cm_addr {
	uint8_t gid[16];
};

/* QP states the CM moves a QP to (IBA 10.3, the QP state machine) */
enum cm_qp_state { CM_QP_INIT, CM_QP_RTR, CM_QP_RTS, CM_QP_ERR };

/* What a modify carries, from the REQ and the REP (the kernel's
   cm_init_qp_rtr_attr and cm_init_qp_rts_attr take the same). */
struct cm_qp_attr {
	uint32_t dest_qpn;
	uint32_t rq_psn;            /* RTR: the peer's starting PSN */
	uint32_t sq_psn;            /* RTS: ours */
	uint8_t path_mtu;           /* IBA enum (1 = 256 ... 5 = 4096) */
	uint8_t max_dest_rd_atomic; /* RTR: responder resources */
	uint8_t max_rd_atomic;      /* RTS: initiator depth */
	uint8_t timeout;            /* RTS: local ACK timeout (4.096 us * 2^t) */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t traffic_class, hop_limit;
};

/* Connection states (IBA 12.9's state diagrams, the kernel's enum ib_cm_state) */
#define CM_STATE_LIST(X)                   \
	X(CM_IDLE, "idle")                 \
	X(CM_REQ_SENT, "req_sent")         \
	X(CM_REQ_RCVD, "req_rcvd")         \
	X(CM_MRA_REQ_SENT, "mra_req_sent") \
	X(CM_MRA_REQ_RCVD, "mra_req_rcvd") \
	X(CM_REP_SENT, "rep_sent")         \
	X(CM_MRA_REP_RCVD, "mra_rep_rcvd") \
	X(CM_ESTABLISHED, "established")   \
	X(CM_DREQ_SENT, "dreq_sent")       \
	X(CM_TIMEWAIT, "timewait")         \
	X(CM_SIDR_REQ_SENT, "sidr_req_sent") \
	X(CM_SIDR_REQ_RCVD, "sidr_req_rcvd") \
	X(CM_SIDR_REP_SENT, "sidr_rep_sent") \
	X(CM_REP_RCVD, "rep_rcvd")

enum cm_state {
#define CM_X_ENUM(code, name) code,
	CM_STATE_LIST(CM_X_ENUM)
#undef CM_X_ENUM
	CM_STATE_COUNT
};
const char *cm_state_name(int state);

/* Reject reasons used here (IBA Table 109; ib_cm.h's enum ib_cm_rej_reason) */
enum cm_rej_reason {
	CM_REJ_NO_QP = 1,
	CM_REJ_NO_RESOURCES = 3,
	CM_REJ_TIMEOUT = 4,
	CM_REJ_INVALID_COMM_ID = 6,
	CM_REJ_INVALID_SERVICE_ID = 8,
	CM_REJ_INVALID_TRANSPORT_TYPE = 9,
	CM_REJ_STALE_CONN = 10,
	CM_REJ_CONSUMER = 28,
};

enum cm_event_type {
	CM_EV_CONNECT_REQUEST, /* passive: a REQ for a listener; accept or reject */
	CM_EV_ESTABLISHED,     /* active: REP taken, RTU sent; passive: RTU taken */
	CM_EV_REJECTED,        /* a REJ ended the attempt (reason in the event) */
	CM_EV_UNREACHABLE,     /* retries ran out waiting for a REP or an RTU */
	CM_EV_DISCONNECTED,    /* DREQ taken, or our DREQ answered or timed out */
	CM_EV_TIMEWAIT_EXIT,   /* the connection's slot is free again */
	CM_EV_SIDR_REQUEST,    /* passive: a SIDR_REQ for a listener; answer it */
	CM_EV_SIDR_REPLY,      /* active: the SIDR_REP (its status says how) */
	CM_EV_CONNECT_RESPONSE, /* active, a QP its owner moves: REP taken;
				   cm_establish() sends the RTU */
};

/* SIDR_REP status (IBA Table 118; ib_cm.h's enum ib_cm_sidr_status) */
enum cm_sidr_status {
	CM_SIDR_SUCCESS = 0,
	CM_SIDR_UNSUPPORTED = 1,   /* no such service ID */
	CM_SIDR_REJECT = 2,        /* the consumer said no */
	CM_SIDR_NO_QP = 3,
	CM_SIDR_REDIRECT = 4,
	CM_SIDR_UNSUPPORTED_VERSION = 5,
};

struct cm_event {
	enum cm_event_type type;
	int conn;                  /* connection index */
	void *user;                /* the connection's (or the listener's) pointer */
	uint16_t rej_reason;
	const struct cm_req *req;  /* CONNECT_REQUEST: the REQ */
	const struct cm_sidr_req *sidr_req; /* SIDR_REQUEST: the SIDR_REQ */
	const struct cm_sidr_rep *sidr_rep; /* SIDR_REPLY: the SIDR_REP */
	const struct cm_addr *from;         /* SIDR_REQUEST: the requester */
	const uint8_t *private_data; /* of the REQ, REP, REJ, DREQ */
	size_t private_len;
};

struct cm_ops {
	void *ctx;
	/* Sends one 256-byte MAD to the peer's QP1; nonzero: not sent (a
	   retry covers it, as a lost MAD). */
	int (*send)(void *ctx, const struct cm_addr *to, const uint8_t mad[MAD_SIZE]);
	uint64_t (*now_us)(void *ctx);
	/* Moves local QP qpn to state; nonzero fails the connection step. */
	int (*modify_qp)(void *ctx, uint32_t qpn, enum cm_qp_state state,
			 const struct cm_qp_attr *attr);
	void (*event)(void *ctx, const struct cm_event *ev);
};

struct cm_config {
	uint64_t ca_guid;          /* ours, in REQ/REP and a timeout REJ's ARI */
	uint8_t local_gid[16];
	unsigned max_conns;        /* connection slots (timewait holds one) */
	unsigned max_listeners;
	uint8_t packet_life_time;  /* IBA exponent; rdma_cm uses 16 on RoCE */
	uint8_t cm_response_timeout; /* ours, in REQs (rdma_cm: 20) */
	uint8_t max_cm_retries;    /* in REQs (rdma_cm: 15) */
	uint32_t comm_id_seed;     /* first local communication ID */
};

/* Counters: what a user reads to see why a connection is stuck. */
struct cm_counters {
	uint64_t rx_mads, tx_mads, retries, tx_failed;
	uint64_t rx_dropped[MAD_ERR_COUNT];   /* by mad_err */
	uint64_t rx_attr[16], tx_attr[16];    /* by attribute ID - 0x10 */
	uint64_t rx_unknown_conn;   /* REP/RTU/MRA/DREP/REJ for no connection of ours */
	uint64_t rx_stale;          /* a message the connection's state does not take */
	uint64_t rx_dup_req, rx_dup_rep;
	uint64_t rej_sent, rej_rcvd;
	uint64_t backlog_full;      /* REQs refused: the listener's backlog full */
	uint64_t no_slot;           /* REQs refused: no free connection slot */
	uint64_t timeouts;
};

struct cm_connect_param {
	struct cm_addr peer;
	uint8_t local_gid[16];     /* the REQ's; all zero: the config's */
	uint64_t service_id;
	uint32_t qpn, starting_psn;
	uint8_t path_mtu;
	uint8_t responder_resources, initiator_depth;
	uint8_t retry_count, rnr_retry_count;
	uint8_t local_ack_timeout;
	uint16_t pkey;
	uint32_t flow_label;
	uint8_t traffic_class, hop_limit;
	const void *private_data;  /* up to CM_REQ_PRIVATE bytes */
	size_t private_len;
	void *user;
	/* the QP's owner moves it (cm_active_attr, cm_establish), as a
	   librdmacm consumer whose QP rdma_create_qp did not make */
	bool user_qp;
};

struct cm_accept_param {
	uint32_t qpn, starting_psn;
	uint8_t responder_resources, initiator_depth;
	uint8_t rnr_retry_count;
	uint8_t target_ack_delay;
	const void *private_data;  /* up to CM_REP_PRIVATE bytes */
	size_t private_len;
	void *user;
	bool user_qp;              /* moved by its owner (cm_passive_attr) */
};

/* Service ID resolution for UD QPs (IBA 12.11): one SIDR_REQ, resent on
   the response timeout until max_cm_retries run out (UNREACHABLE). */
struct cm_sidr_param {
	struct cm_addr peer;
	uint64_t service_id;
	uint16_t pkey;
	const void *private_data;  /* up to CM_SIDR_REQ_PRIVATE bytes */
	size_t private_len;
	void *user;
};

struct cm;

/* NULL on a bad config or no memory. */
struct cm *cm_create(const struct cm_config *cfg, const struct cm_ops *ops);
void cm_destroy(struct cm *cm);

/* Listens on service_id; at most backlog connections wait for an answer.
   Returns the listener index, or -ROCE_E_* (exists, full, inval). */
int cm_listen(struct cm *cm, uint64_t service_id, unsigned backlog, void *user);
int cm_unlisten(struct cm *cm, int listener);

/* Active side: moves the QP to INIT, sends the REQ. Returns the
   connection index or -ROCE_E_*. */
int cm_connect(struct cm *cm, const struct cm_connect_param *p);
/* Passive side, after CM_EV_CONNECT_REQUEST: INIT, RTR, RTS, then the REP. */
int cm_accept(struct cm *cm, int conn, const struct cm_accept_param *p);
/* Passive side: REJ with reason 28 (consumer), and the slot freed. */
int cm_reject(struct cm *cm, int conn, const void *private_data, size_t len);
/* Passive side: MRA for the REQ (Table 107), service_timeout an IBA exponent. */
int cm_mra(struct cm *cm, int conn, uint8_t service_timeout);
/*
 * Passive side: the QP took its first packet while the RTU is still out
 * (the verbs' IBV_EVENT_COMM_EST): established now, as the kernel's
 * ib_cm_notify does; a late RTU is then a stale copy.
 */
int cm_notify_established(struct cm *cm, int conn);
/* Active: sends a SIDR_REQ. Returns the slot's index or -ROCE_E_*. */
int cm_sidr_req(struct cm *cm, const struct cm_sidr_param *p);
/* Passive, after CM_EV_SIDR_REQUEST: the SIDR_REP (qpn and qkey with
   CM_SIDR_SUCCESS), and the slot freed. */
int cm_sidr_rep(struct cm *cm, int conn, enum cm_sidr_status status, uint32_t qpn,
		uint32_t qkey, const void *private_data, size_t len);
/* Active, after CM_EV_CONNECT_RESPONSE: the RTU (rdma_establish). */
int cm_establish(struct cm *cm, int conn);
/* The attributes the CM would move a QP with, for its owner to move it
   (rdma_init_qp_attr): active, from the REQ and the REP (after
   CM_EV_CONNECT_RESPONSE); passive, from the REQ and what the REP is to
   say (p: as cm_accept will be called). ROCE_E_STATE before that. */
int cm_active_attr(struct cm *cm, int conn, struct cm_qp_attr *out);
int cm_passive_attr(struct cm *cm, int conn, const struct cm_accept_param *p,
		    struct cm_qp_attr *out);
/* Either side, established: QP to ERR, DREQ, then timewait. */
int cm_disconnect(struct cm *cm, int conn);

/* A received MAD from `from`; bad ones are counted, never an error. */
void cm_recv(struct cm *cm, const struct cm_addr *from, const uint8_t *mad, size_t len);
/* Resends, timeouts and timewait ends that are due. */
void cm_poll(struct cm *cm);
/* When cm_poll() has something to do next (UINT64_MAX: nothing). */
uint64_t cm_next_deadline(const struct cm *cm);

enum cm_state cm_conn_state(const struct cm *cm, int conn);
/* The REQ of a live connection (sent or received), NULL otherwise. */
const struct cm_req *cm_conn_req(const struct cm *cm, int conn);

/* One connection as a user debugging it wants to see it: where it is,
   since when, and what it waits for. */
struct cm_conn_info {
	enum cm_state state;
	bool active;                /* we sent the REQ */
	uint32_t local_id, remote_id;
	uint32_t local_qpn, remote_qpn;
	uint64_t service_id;
	uint8_t peer_gid[16];
	uint64_t in_state_us;
	bool timer_on;              /* waiting for an answer, or timewait */
	uint64_t next_timeout_us;   /* until the next resend or timeout */
	unsigned retries, max_retries; /* resends of the last MAD so far */
};
/* ROCE_E_NOENT for an idle slot, ROCE_E_INVAL out of range. */
int cm_conn_info(struct cm *cm, int conn, struct cm_conn_info *out);
unsigned cm_max_conns(const struct cm *cm);
/* Connections in use (any state but idle): what must be 0 after teardown. */
unsigned cm_conns_in_use(const struct cm *cm);
/* Connections in state st. */
unsigned cm_conns_in_state(const struct cm *cm, enum cm_state st);
/* Every established connection disconnected (a DREQ each): the process
   ends with them (roce_cm_exit). */
void cm_disconnect_all(struct cm *cm);
const struct cm_counters *cm_counters(const struct cm *cm);

/* IBA's time exponents in milliseconds as the kernel's cm_convert_to_ms
   does it: 4.096 us * 2^t, rounded to 2^(t-8) ms, at least 1. */
uint64_t cm_time_ms(uint8_t iba_time);

#endif
