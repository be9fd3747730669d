/* SPDX-License-Identifier: MIT */
/*
 * The verbs objects behind the opaque handles of roce/verbs.h: the host
 * side. A context owns the device model, its host driver (over a bus to the
 * register file) and the engine, the device's data path, which it embeds;
 * a CQ and a QP embed the engine's CQ ring and per-QP state (struct eng_cq,
 * struct eng_qp) and keep beside them what only the host needs. The host
 * depends on the device here, never the reverse: src/engine knows nothing
 * of this header.
 */
#ifndef ROCE_VERBS_VERBS_PRIV_H
#define ROCE_VERBS_VERBS_PRIV_H

#include <stdint.h>

#include "engine/engine.h"
#include "roce/bus.h"
#include "roce/driver.h"
#include "roce/params.h"
#include "roce/verbs.h"

struct devmem;

struct roce_context {
	struct roce_device *dev;
	struct roce_bus bus;
	struct roce_drv drv;
	struct roce_engine eng;
	/* control-path allocations */
	uint32_t qp_count;              /* the device's QP_COUNT */
	uint32_t qpn_free[ROCE_MAX_QP]; /* ring of free QPNs (qp.c) */
	uint32_t qpn_head, qpn_tail;    /* free-running; tail - head free */
	uint8_t mr_used[ROCE_MAX_MR / 8];
	uint32_t next_pdn;
	struct devmem *mem;
	uint64_t rng;
	struct roce_gid_table gids;     /* port 1's, built at open (gid.c) */
	enum roce_mtu port_mtu;         /* the port's active MTU: UD QPs' */
	bool gsi_used;                  /* QP1 exists (qp.c) */
};

struct roce_pd {
	struct roce_context *ctx;
	uint32_t pdn;
};

struct roce_cq {
	struct eng_cq eng;              /* the ring the engine fills */
	struct roce_context *ctx;
};

struct roce_qp {
	/* what posting reads, ahead of the engine's state: the first line
	 * of the object then serves a post together with the rings */
	struct roce_context *ctx;
	struct roce_pd *pd;
	uint32_t max_send_sge, max_recv_sge;
	enum roce_qp_type type;         /* RC, UC or UD (QP1: UD):
					 * what post and modify allow */
	struct eng_qp eng;              /* the queues and the engine's state */
};

/* An address handle: its address vector as the engine reads it from a
 * UD WQE (engine.h), checked once here. */
struct roce_ah {
	struct roce_pd *pd;
	struct eng_av av;
};

/* qp.c: every QPN from ROCE_FIRST_QPN up to qp_count - 1 free. */
void qpn_pool_init(struct roce_context *ctx, uint32_t qp_count);
/* qp.c: an address vector's checks (GID index, family, unicast, flow
 * label): ROCE_OK or ROCE_E_INVAL. ah.c uses it for AHs too. */
int av_check(struct roce_context *ctx, const struct roce_ah_attr *ah);

#endif
