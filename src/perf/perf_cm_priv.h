/* SPDX-License-Identifier: MIT */
/* roce-perf -R's insides, shared by perf_cm.c (connections, RC QPs, the
   end), perf_cm_event.c (the CM's events per ID), perf_cm_comm.c (the
   exchange's QP) and perf_cm_ud.c (what UD QPs do after SIDR). */
#ifndef ROCE_PERF_CM_PRIV_H
#define ROCE_PERF_CM_PRIV_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "perf/perf_cm.h"
#include "perf/perf_ep_priv.h"
#include "roce/cm.h"
#include "roce/oob.h"

#define PCM_RX_SLOTS    4u      /* the comm QP's receives */
#define PCM_SLOT        64u     /* bytes per message slot (<= 56 travel) */
#define PCM_QP_RETRIES  10      /* rdma_cm_client_connection's max_retries */
#define PCM_RETRY_MS    100u    /* and its delay */
#define PCM_TEARDOWN_MS 4000u   /* DREQ/DREP and timewait (rxe's 2.1 s) */

/* What the events said of one ID */
enum {
	PCM_ADDR = 1u << 0, PCM_ROUTE = 1u << 1, PCM_EST = 1u << 2,
	PCM_DISC = 1u << 3, PCM_FAIL = 1u << 4, PCM_GONE = 1u << 5,
	PCM_UD = 1u << 6,               /* a UD QP's ID: nothing to disconnect */
};

struct pcm_slot {
	struct roce_cm_id *id;
	unsigned flags;
	int status;                     /* PCM_FAIL: the event's */
	enum roce_cm_event_type fail;   /* which event failed it */
	uint8_t peer_init_depth;        /* CONNECT_REQUEST: the REQ's */
	bool taken;                     /* a CONNECT_REQUEST the server took */
	/* UD: ESTABLISHED's peer QP (address, QPN, Q_Key); CONNECT_REQUEST's
	   requester address */
	struct roce_ah_attr ah_attr;
	uint32_t ud_qpn, ud_qkey;
};

struct perf_cm {
	struct roce_cm *cm;
	struct roce_cm_event_channel *ch;
	struct roce_cm_id *listen;
	struct roce_cm_id *listen_ud;   /* -c UD: the test QPs' (RDMA_PS_UDP) */
	struct pcm_slot *slot;          /* every ID of ours: comm, QPs, requests */
	unsigned n_slot, max_slot;
	int comm;                       /* its slot, -1 before */
	int *qp_slot;                   /* per test QP */
	/* the comm QP */
	struct roce_cq *scq, *rcq;
	uint8_t *buf;                   /* PCM_RX_SLOTS receive slots, a send slot */
	struct roce_mr *mr;
	unsigned rx_next;
	struct roce_oob_msg msg;
	struct sockaddr_in peer;        /* client: the server's -p port */
	unsigned timeout_ms;
};

/* perf_cm_comm.c */
void pcm_nap_us(long us);
/* One completion of cq within ms, sleeping briefly between empty polls */
int pcm_poll_one(struct roce_cq *cq, struct roce_wc *wc, unsigned ms);
/* The comm QP on slot i's ID; its receives; p->msg over it */
int pcm_make_comm_qp(struct perf_run *r, struct perf_cm *p, int i);
int pcm_post_comm_rx(struct perf_run *r, struct perf_cm *p);
void pcm_msg_init(struct perf_cm *p);

/* perf_cm_event.c. A slot for a new ID (-1 when all are taken); one event
   within ms into its ID's slot; until slot i has one of flags (true) or ms
   pass (false); the failure slot i's events explain, as perf_fail's. */
int pcm_slot_add(struct perf_cm *p, struct roce_cm_id *id);
void pcm_pump(struct perf_cm *p, unsigned ms);
bool pcm_wait_flags(struct perf_cm *p, int i, unsigned flags, unsigned ms);
int pcm_fail_of(struct perf_run *r, struct perf_cm *p, int i, const char *what);

/* perf_cm_ud.c. The client, once test QP q's SIDR is answered: its AH,
   the peer's QPN and Q_Key; on latency and duplex tests a SEND with
   immediate (our QPN) that tells the server where we are
   (rdma_cm_send_ud_connection_parameters). */
int pcm_ud_client(struct perf_run *r, struct perf_cm *p, unsigned q);
/* The server, before it accepts test QP q: on latency and duplex tests a
   receive for the client's first SEND (rdma_cm_request_ud_connection_
   parameters); after: that SEND's QPN and an AH to the requester
   (rdma_cm_initialize_ud_connection_parameters). */
int pcm_ud_server_before(struct perf_run *r, struct perf_cm *p, unsigned q);
int pcm_ud_server_after(struct perf_run *r, struct perf_cm *p, unsigned q);

#endif
