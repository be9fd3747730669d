/* SPDX-License-Identifier: MIT */
/*
 * A congestion-control algorithm behind one operations table, as the
 * kernel keeps TCP's behind struct tcp_congestion_ops: the engine's glue
 * (src/engine/cc.c: ECN marking, CNPs as the notification point, pacing)
 * tells the reaction point's algorithm what happened to a QP and reads
 * back what it grants; the algorithm sees its own per-QP state, the CC
 * block's knobs and the time the engine gives it, never the engine.
 *
 * The engine calls a hook on an event of a QP whose priority is a
 * reaction point's (a CNP, a packet sent while paced, an ACK, its timer,
 * a retransmission timeout): one indirect call per event, none on a
 * packet of a QP at line rate. Every hook leaves the grant it changed in
 * *g, so the transmit path reads the rate without a call.
 *
 * A new algorithm is a new file with its table (dcqcn_algo.c is DCQCN's,
 * swift_algo.c Swift's), a line in enum roce_cc_algo (roce/cc.h, its name
 * in config.c), enum cc_algo_id and cc_algos[] (registry.c), and its
 * knobs as a list in roce/cc.h (docs/cc.md, "The algorithm interface").
 */
#ifndef ROCE_CC_ALGO_H
#define ROCE_CC_ALGO_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/cc.h"

/* What an algorithm allows a QP, as of its last event. */
struct cc_grant {
	bool limited;                   /* below line rate: the engine paces it */
	uint64_t rate_kbps;             /* the rate to pace at (the line's when
					   not limited) */
	uint32_t window;                /* most PSNs unacknowledged; 0: no
					   bound of its own (the CC block's
					   window still applies) */
	uint64_t next;                  /* ns: when the rate may next change
					   with no event (the engine calls
					   on_timer then); 0: not before one */
};

/* An algorithm's state of one QP: room for any algorithm's, 8-byte
   aligned (each checks that its own fits, as the kernel's
   ICSK_CA_PRIV_SIZE). */
#define CC_ALGO_PRIV_WORDS 16
struct cc_algo_priv {
	uint64_t w[CC_ALGO_PRIV_WORDS];
};

/* What an ACK that moved una tells the algorithm. */
struct cc_ack {
	uint64_t rtt_ns;                /* from when the newest PSN it
					   acknowledges went out to its arrival
					   (0: none: that PSN was sent again,
					   Karn, or its send time is gone) */
	uint32_t psns;                  /* PSNs it acknowledged */
	uint8_t hops;                   /* routers on the way back, from its
					   TTL (0: none seen) */
};

/*
 * The table. priv is the QP's struct cc_algo_priv, c the CC block the
 * engine took last (the line rate, the knobs), now the engine's clock
 * (ns). A hook the algorithm has no use for is NULL (on_cnp: the CNP
 * is counted as ignored; on_sent, on_ack, on_timer, on_loss); init,
 * grant and report are always there.
 */
struct cc_algo_ops {
	const char *name;
	/* A new connection, or its priority became a reaction point's:
	   the line rate, nothing learnt. mtu: the QP's path MTU, bytes (what
	   a window's packet is; a new MTU starts the algorithm again). */
	void (*init)(void *priv, const struct roce_cc_config *c, uint32_t mtu,
		     struct cc_grant *g);
	/* A CNP for the QP at now. */
	void (*on_cnp)(void *priv, const struct roce_cc_config *c, uint64_t now,
		       struct cc_grant *g);
	/* A data packet of bytes went out at now (a paced QP's only: at line
	   rate nothing is counted, as nothing limits it). */
	void (*on_sent)(void *priv, const struct roce_cc_config *c, uint64_t now,
			uint32_t bytes, struct cc_grant *g);
	/* An ACK moved una at now (a). */
	void (*on_ack)(void *priv, const struct roce_cc_config *c, uint64_t now,
		       const struct cc_ack *a, struct cc_grant *g);
	/* g->next came (or later). */
	void (*on_timer)(void *priv, const struct roce_cc_config *c, uint64_t now,
			 struct cc_grant *g);
	/* The retransmission timer fired: the QP lost a packet or its ACK. */
	void (*on_loss)(void *priv, const struct roce_cc_config *c, uint64_t now,
			struct cc_grant *g);
	/* The grant as the state and c say now (c changed: a CC_COMMIT). */
	void (*grant)(const void *priv, const struct roce_cc_config *c, struct cc_grant *g);
	/* The state as roce_qp_cc_state shows it. */
	void (*report)(const void *priv, struct roce_qp_cc *out);
};

/* In enum roce_cc_algo's order: what the register file names. */
enum cc_algo_id {
	CC_ALGO_DCQCN = ROCE_CC_ALGO_DCQCN, /* Zhu et al., SIGCOMM 2015 (dcqcn_algo.c) */
	CC_ALGO_SWIFT = ROCE_CC_ALGO_SWIFT, /* Kumar et al., SIGCOMM 2020 (swift_algo.c) */
	CC_ALGO_COUNT
};
_Static_assert((int)CC_ALGO_COUNT == (int)ROCE_CC_ALGO_COUNT,
	       "every algorithm the register file names has a table");

extern const struct cc_algo_ops cc_dcqcn_ops;
extern const struct cc_algo_ops cc_swift_ops;
extern const struct cc_algo_ops *const cc_algos[CC_ALGO_COUNT];

#endif
