/* SPDX-License-Identifier: MIT */
/*
 * The CM's port: the state machine (cm.h) wired to QP1 of a context.
 *
 *   - QP1 (ROCE_QPT_GSI) is made and brought to RTS with recv_depth
 *     receives posted, each 40 bytes of GRH area and a 256-byte MAD (IBA
 *     13.4.6.2; ibv_post_recv on QP1 takes the same);
 *   - the CM's send is a UD SEND ONLY to the peer's QP1 with the Q_Key
 *     0x80010000 (IBA 13.5.3.1: the GSI Q_Key), through an address handle
 *     from the peer's GID and the MAC resolve_mac gives for it;
 *   - a received MAD goes to cm_recv() with the sender's GID, read from
 *     the GRH area (IPv4: the source address of the IP header in its last
 *     20 bytes; IPv6: the header's source address);
 *   - the CM moves the RC QPs registered here (cm_qp1_add_qp) through
 *     roce_modify_qp, their address vector built from the REQ/REP's GIDs;
 *   - the CM's clock is the engine's (now_ns, as roce_context_attr's).
 *
 * Everything is driven by cm_qp1_poll() from the owner's loop, on the
 * thread that runs the CM: the engine may run on its own thread.
 */
#ifndef ROCE_CM_QP1_H
#define ROCE_CM_QP1_H

#include <stdint.h>

#include "cm/cm.h"
#include "roce/verbs.h"

#define CM_QP1_RECV_DEPTH 64u  /* receives posted on QP1 */
#define CM_QP1_SEND_DEPTH 64u  /* MADs in flight */
#define CM_QP1_MAX_QPS 64u     /* RC QPs the CM may move */
#define CM_QP1_NEIGH 16u       /* GID -> MAC entries kept */

struct cm_qp1_config {
	struct roce_context *ctx;
	struct roce_pd *pd;
	uint8_t sgid_index;        /* our GID in REQs by default; the MADs' and
				      QPs' source GID follows the peer's family */
	struct cm_config cm;       /* local_gid is taken from sgid_index */
	/* The MAC of a GID on the link (ARP/ND, or the in-memory link's
	   table); nonzero: unknown (the MAD is not sent; a retry asks again). */
	int (*resolve_mac)(void *arg, const uint8_t gid[16], uint8_t mac[6]);
	void (*event)(void *arg, const struct cm_event *ev);
	void *arg;
	uint64_t (*now_ns)(void *clock_ctx); /* NULL = CLOCK_MONOTONIC */
	void *clock_ctx;
};

struct cm_qp1_stats {
	uint64_t rx_mads, tx_mads;
	uint64_t rx_bad;           /* a receive in error or of the wrong size */
	uint64_t tx_no_mac;        /* resolve_mac failed */
	uint64_t tx_full;          /* every send slot in flight */
	uint64_t tx_error;         /* post_send or its completion failed */
	uint64_t modify_failed;
};

struct cm_qp1;

/* ROCE_E_INVAL (bad config), ROCE_E_EXISTS (the context has a QP1), the
   verbs' errors. */
int cm_qp1_create(const struct cm_qp1_config *cfg, struct cm_qp1 **out);
void cm_qp1_destroy(struct cm_qp1 *p);

struct cm *cm_qp1_cm(struct cm_qp1 *p);
/* An RC QP the CM may move (connect and accept name it by QPN):
   ROCE_E_FULL past CM_QP1_MAX_QPS. */
int cm_qp1_add_qp(struct cm_qp1 *p, struct roce_qp *qp);
void cm_qp1_remove_qp(struct cm_qp1 *p, struct roce_qp *qp);
/* A QP to INIT as the CM's INIT step makes it (P_Key, remote write,
   read and atomic access); the CM's own INIT step then leaves it be. */
int cm_qp1_init_qp(struct cm_qp1 *p, struct roce_qp *qp);

/* The verbs attributes (and mask) of the CM's step to state with a:
   what modify_qp applies and roce_cm_init_qp_attr gives. */
int cm_qp1_qp_attr(struct cm_qp1 *p, enum cm_qp_state state, const struct cm_qp_attr *a,
		   struct roce_qp_attr *at, unsigned *mask);

/* The address vector to gid (its MAC from the cache or resolve_mac, our
   GID of its family): ROCE_E_NOENT when the MAC does not resolve. */
int cm_qp1_ah_attr(struct cm_qp1 *p, const uint8_t gid[16], struct roce_ah_attr *aa);

/* Takes the MADs QP1 received (to the CM), frees finished sends, runs
   cm_poll() when due. Returns how many completions it handled. */
unsigned cm_qp1_poll(struct cm_qp1 *p);
/* True while a MAD posted is not yet sent, or was sent less than
   drain_ms ago (the port's own queue, an AF_PACKET ring, may still hold
   it): a process about to exit waits on it for its last DREP. */
bool cm_qp1_sending(struct cm_qp1 *p, unsigned drain_ms);
/* Nanoseconds on its clock. */
uint64_t cm_qp1_now_ns(struct cm_qp1 *p);
const struct cm_qp1_stats *cm_qp1_stats(const struct cm_qp1 *p);

#endif
