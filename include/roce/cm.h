/* SPDX-License-Identifier: MIT */
/*
 * The RDMA connection manager in librdmacm's shape (rdma_cma.h): event
 * channels, IDs, address and route resolution, connect, listen, accept,
 * reject, disconnect; the event types and their values are librdmacm's,
 * so a program moves between the two with a rename. On the wire it is the
 * IB CM (src/cm/: REQ/REP/RTU, REJ, DREQ/DREP as MADs on QP1) with
 * rdma_cm's private-data header, so it talks to Linux's rdma_cm (rping,
 * ib_*_bw -R) as a peer.
 *
 * A roce_cm is one context's CM: QP1, the CM state machine and a thread
 * that takes QP1's completions, runs the CM's timers and queues events.
 * The engine must run on its own thread meanwhile (roce_engine_start),
 * as for completion channels. Calls on IDs may come from any thread.
 *
 * Addresses are struct sockaddr_in / sockaddr_in6. The GID of an address
 * is the IPv4-mapped one, or the IPv6 address itself (roce/gid.h); the
 * MAC comes from the caller's resolver (ARP, neighbour discovery, or the
 * in-memory link's table).
 *
 * Differences from librdmacm, each for a reason:
 *   - resolve_addr resolves before it returns (the resolver may block up
 *     to timeout_ms) and queues ADDR_RESOLVED or ADDR_ERROR;
 *   - one context per roce_cm: IDs are made on a channel of that CM;
 *   - a destroyed ID whose connection is still in timewait keeps its CM
 *     slot until the timewait ends (rdma_destroy_id waits instead).
 */
#ifndef ROCE_CM_API_H
#define ROCE_CM_API_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "roce/verbs.h"

/* librdmacm's enum rdma_cm_event_type, same values */
enum roce_cm_event_type {
	ROCE_CM_EVENT_ADDR_RESOLVED,
	ROCE_CM_EVENT_ADDR_ERROR,
	ROCE_CM_EVENT_ROUTE_RESOLVED,
	ROCE_CM_EVENT_ROUTE_ERROR,
	ROCE_CM_EVENT_CONNECT_REQUEST,
	ROCE_CM_EVENT_CONNECT_RESPONSE,
	ROCE_CM_EVENT_CONNECT_ERROR,
	ROCE_CM_EVENT_UNREACHABLE,
	ROCE_CM_EVENT_REJECTED,
	ROCE_CM_EVENT_ESTABLISHED,
	ROCE_CM_EVENT_DISCONNECTED,
	ROCE_CM_EVENT_DEVICE_REMOVAL,
	ROCE_CM_EVENT_MULTICAST_JOIN,
	ROCE_CM_EVENT_MULTICAST_ERROR,
	ROCE_CM_EVENT_ADDR_CHANGE,
	ROCE_CM_EVENT_TIMEWAIT_EXIT,
};
/* rdma_event_str's names ("RDMA_CM_EVENT_ESTABLISHED", ...) */
const char *roce_cm_event_str(enum roce_cm_event_type type);

/* Port spaces (rdma_cma.h's enum rdma_port_space): TCP for RC QPs the CM
   connects, UDP for UD QPs whose peer's QPN and Q_Key the CM resolves
   (SIDR, IBA 12.11) */
enum roce_port_space { ROCE_PS_TCP = 0x0106, ROCE_PS_UDP = 0x0111 };

/* The Q_Key of RDMA_PS_UDP QPs (rdma_cma.h's RDMA_UDP_QKEY) */
#define ROCE_UDP_QKEY 0x01234567u

/* The user's part of a REQ's private data: 56 bytes (92 less rdma_cm's
   36-byte header); of a REP's, REJ's and DREQ's their whole field. */
#define ROCE_CM_REQ_PRIVATE 56u
#define ROCE_CM_REP_PRIVATE 196u
#define ROCE_CM_REJ_PRIVATE 148u
/* UD: the user's part of a SIDR_REQ (216 less the header) and a SIDR_REP */
#define ROCE_CM_SIDR_REQ_PRIVATE 180u
#define ROCE_CM_SIDR_REP_PRIVATE 136u

struct roce_conn_param {
	const void *private_data;
	uint8_t private_data_len;
	uint8_t responder_resources;   /* READs/atomics we serve at once */
	uint8_t initiator_depth;       /* READs/atomics we have out at once */
	uint8_t flow_control;
	uint8_t retry_count;           /* ignored when accepting */
	uint8_t rnr_retry_count;
	/* connect/accept without roce_cm_create_qp: the number of a QP the
	   caller made and moves itself (roce_cm_init_qp_attr; the active side
	   then gets CONNECT_RESPONSE and calls roce_cm_establish), as
	   librdmacm's conn_param.qp_num; 0 with a QP of the ID's */
	uint32_t qp_num;
};

struct roce_cm_id;
struct roce_cm_event_channel;
struct roce_cm;

struct roce_cm_event {
	struct roce_cm_id *id;
	struct roce_cm_id *listen_id;  /* CONNECT_REQUEST: the listener */
	enum roce_cm_event_type event;
	/* REJECTED: the REJ's reason (IBA Table 109: 8 no such service, 28
	   consumer); UNREACHABLE: -ETIMEDOUT; otherwise 0 */
	int status;
	struct roce_conn_param param;  /* the peer's, with its private data
					  (rdma_cm's header taken off a REQ's) */
	/* UD IDs (rdma_cm_event's param.ud): ESTABLISHED gives the address
	   of the peer's QP, its number and Q_Key (for roce_create_ah and
	   the sends' remote_qpn, remote_qkey); CONNECT_REQUEST the address of
	   the requester (not its QPN: that comes with its first datagram);
	   both the private data (the header taken off a SIDR_REQ's) */
	struct {
		const void *private_data;
		uint8_t private_data_len;
		struct roce_ah_attr ah_attr;
		uint32_t qp_num;
		uint32_t qkey;
	} ud;
};

struct roce_cm_attr {
	struct roce_context *ctx;
	struct roce_pd *pd;            /* QP1's; IDs' QPs may use others */
	/* The MAC of addr (family AF_INET: 4 bytes, network order; AF_INET6:
	   16) on the link, waiting up to timeout_ms; 0 or a negative status. */
	int (*resolve)(void *arg, int family, const uint8_t *addr, unsigned timeout_ms,
		       uint8_t mac[6]);
	void *resolve_arg;
	uint64_t ca_guid;              /* 0: from the MAC (EUI-64) */
	/* the CM's timing, IBA exponents (0: rdma_cm's 16, 20, and 15
	   retries): tests shorten them */
	uint8_t packet_life_time, cm_response_timeout, max_cm_retries;
	unsigned max_ids;              /* 0: 64 */
	/* roce_cm_close() keeps answering while a DREQ of ours is unanswered
	   (resent on its timeout, the peer's DREQ answered), at most this
	   long: the kernel's CM does it after the process is gone, ours goes
	   with the process. 0: 10000 (two resends at rdma_cm's 4.3 s). */
	unsigned close_linger_ms;
};

/* ROCE_E_INVAL, ROCE_E_EXISTS (the context has a QP1), ROCE_E_NOMEM. */
int roce_cm_open(const struct roce_cm_attr *attr, struct roce_cm **out);
/* ROCE_E_BUSY while IDs or channels remain. Waits (close_linger_ms at
   most) while a disconnect's DREQ is unanswered, so that the peer learns
   of it even when the first DREQ was lost. */
int roce_cm_close(struct roce_cm *cm);
/* The process ends with IDs still open (roce_cm_close said ROCE_E_BUSY):
   as the kernel's rdma_cm when the last file of the process closes,
   every connection still up is disconnected (a DREQ), and the CM waits,
   as roce_cm_close does, while a DREQ is unanswered. The CM stays. */
void roce_cm_exit(struct roce_cm *cm);

/* The CM's counters, one "cm_NAME VALUE" line each, the non-zero ones
   (all with all): MADs received and sent (cm_mads_rx, cm_req_tx, ...),
   resends (cm_resends), MADs dropped by reason (cm_dropped_*),
   cm_unknown_conn, cm_stale, duplicate REQs and REPs (cm_repeated_req,
   _rep), REJs sent and received, cm_backlog_full, cm_no_slot, retries run
   out (cm_expired). What a user reads to see why a connection is stuck.
   (The names avoid the engine's counter names, which scripts parse.) */
void roce_cm_print_counters(struct roce_cm *cm, FILE *f, int all);

/* rdma_create_event_channel: an fd readable while events wait. */
struct roce_cm_event_channel *roce_cm_create_event_channel(struct roce_cm *cm);
/* ROCE_E_BUSY while IDs use it. */
int roce_cm_destroy_event_channel(struct roce_cm_event_channel *ch);
int roce_cm_channel_fd(const struct roce_cm_event_channel *ch);

/* rdma_create_id: ROCE_E_UNSUPPORTED for a port space but TCP and UDP. */
int roce_cm_create_id(struct roce_cm_event_channel *ch, struct roce_cm_id **id,
		      void *context, enum roce_port_space ps);
/* ROCE_E_BUSY while its QP exists (roce_cm_destroy_qp first) or while
   events of it are not acknowledged. */
int roce_cm_destroy_id(struct roce_cm_id *id);
void *roce_cm_id_context(const struct roce_cm_id *id);
struct roce_qp *roce_cm_id_qp(const struct roce_cm_id *id);

/* Is addr a loopback address (127.0.0.0/8, ::1)? Such a bind takes no
   device, as the kernel's rdma_cm binds it. */
bool roce_cm_addr_is_loopback(const struct sockaddr *addr);
/* rdma_bind_addr: our address, the wildcard or a loopback one (no request
   from the wire reaches a listener there), for listen; port 0 takes an
   ephemeral port no other ID of the port space holds (ROCE_E_EXISTS when
   none is found). ROCE_E_INVAL for an address not the context's. */
int roce_cm_bind_addr(struct roce_cm_id *id, const struct sockaddr *addr);
/* rdma_resolve_addr: the peer's GID and MAC, our GID of the same family;
   ADDR_RESOLVED or ADDR_ERROR (status: the resolver's) on the channel. */
int roce_cm_resolve_addr(struct roce_cm_id *id, const struct sockaddr *src,
			 const struct sockaddr *dst, int timeout_ms);
/* rdma_resolve_route: the path MTU is the port's; ROUTE_RESOLVED. */
int roce_cm_resolve_route(struct roce_cm_id *id, int timeout_ms);
/* rdma_create_qp: on a TCP ID an RC QP (init_attr's qp_type must be
   ROCE_QPT_RC), in INIT at once as librdmacm leaves it (receives may be
   posted), that the CM moves to RTS on connect/accept and to ERR on
   disconnect; on a UDP ID a UD QP, in RTS at once with ROCE_UDP_QKEY (as
   librdmacm's ucma_init_ud_qp). */
int roce_cm_create_qp(struct roce_cm_id *id, struct roce_pd *pd,
		      struct roce_qp_init_attr *init_attr);
void roce_cm_destroy_qp(struct roce_cm_id *id);

/* rdma_connect: the REQ, after resolve_route and create_qp. A UDP ID's
   is a SIDR_REQ (no QP needed; only the private data counts, up to
   ROCE_CM_SIDR_REQ_PRIVATE): ESTABLISHED with event.ud filled, or
   UNREACHABLE (status: the SIDR_REP's, 1 no such service, 2 rejected;
   -ETIMEDOUT when none came). */
int roce_cm_connect(struct roce_cm_id *id, const struct roce_conn_param *param);
/* rdma_listen: REQs for the bound port become CONNECT_REQUESTs, each on
   a new ID (event.id; event.listen_id is this one). */
int roce_cm_listen(struct roce_cm_id *id, int backlog);
/* rdma_accept on a CONNECT_REQUEST's ID, after create_qp: the REP;
   ESTABLISHED follows at the RTU. A UDP ID's: the SIDR_REP with its QP's
   number (or param->qp_num, a UD QP the caller made and readied with
   ROCE_UDP_QKEY) and Q_Key (up to ROCE_CM_SIDR_REP_PRIVATE bytes), no
   event. */
int roce_cm_accept(struct roce_cm_id *id, const struct roce_conn_param *param);
/* rdma_reject: REJ reason 28 with the private data (a UDP ID's: a
   SIDR_REP of status 2). */
int roce_cm_reject(struct roce_cm_id *id, const void *private_data, uint8_t len);
/* rdma_init_qp_attr: the attributes (and mask) to move a QP the caller
   made to attr->qp_state (INIT, RTR or RTS) as the CM would: RTR and RTS
   on the passive side from CONNECT_REQUEST on (the REQ and the REP to
   come), on the active side from CONNECT_RESPONSE. ROCE_E_STATE before,
   ROCE_E_INVAL for another state, ROCE_E_NOENT when the peer's MAC does
   not resolve. */
int roce_cm_init_qp_attr(struct roce_cm_id *id, struct roce_qp_attr *attr, unsigned *mask);
/* rdma_establish: the active side's RTU after CONNECT_RESPONSE, once the
   caller's QP is in RTS. */
int roce_cm_establish(struct roce_cm_id *id);
/* rdma_disconnect: QP to ERR, DREQ; DISCONNECTED follows. A UDP ID's:
   QP to ERR only, no event (as the kernel's rdma_disconnect there). */
int roce_cm_disconnect(struct roce_cm_id *id);

/* rdma_get_cm_event: blocks unless the fd is O_NONBLOCK (ROCE_E_AGAIN
   then). Each event must be acknowledged (roce_cm_ack_cm_event). */
int roce_cm_get_cm_event(struct roce_cm_event_channel *ch, struct roce_cm_event **event);
int roce_cm_ack_cm_event(struct roce_cm_event *event);
/* rdma_migrate_id: the ID's events from now on, and those queued and not
   yet returned, come on ch (a channel of the same CM). */
int roce_cm_migrate_id(struct roce_cm_id *id, struct roce_cm_event_channel *ch);

/* The peer's and our address (rdma_get_peer_addr, rdma_get_local_addr). */
const struct sockaddr *roce_cm_peer_addr(const struct roce_cm_id *id);
const struct sockaddr *roce_cm_local_addr(const struct roce_cm_id *id);

/*
 * The CM's status: each ID (role, connection state, time in it, resends
 * of the last MAD, time to the next timeout, QPNs, addresses) and the
 * counters (MADs sent, received, resent, dropped by reason, REJs, ...);
 * text, or one JSON object per line with json. ROCE_E_IO if f fails.
 */
int roce_cm_print_status(struct roce_cm *cm, FILE *f, bool json);

/*
 * Every roce_cm also answers on an abstract unix socket named
 * ROCE_CM_STATUS_PREFIX "<pid>.<n>" in its network namespace: a client of
 * the CM's user (or root) sends "text" or "json" and reads the status to
 * the end. `rocectl cm` is that client.
 */
#define ROCE_CM_STATUS_PREFIX "roce-cm."

#endif
