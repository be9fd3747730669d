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

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
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
	struct vtrace *trace;           /* the transaction trace (trace.c), or NULL */
	/* host memory (hostmr.c): the IOMMU's windows, which only this side
	 * maps, and each MR's window (0: a DDR MR) */
	struct iommu *iommu;
	uint64_t mr_iova[ROCE_MAX_MR];
};

/* verbs.c: an MR entry in space at pa, written through the driver, the
 * engine lock held; NULL with the status in *st. */
struct roce_mr *mr_create_locked(struct roce_pd *pd, void *addr, size_t length,
				 unsigned access, uint8_t space, uint64_t pa, int *st);
/* hostmr.c: an MR's entry is gone (engine lock held): unmap its window,
 * if it has one. */
void hostmr_unmap_locked(struct roce_context *ctx, uint32_t index);

/* trace.c: the transaction trace's taps, each a no-op without a trace */
int vtrace_open(struct roce_context *ctx, const struct roce_context_attr *attr);
struct roce_port *vtrace_port(struct roce_context *ctx, struct roce_port *port);
void vtrace_engine(struct roce_context *ctx);
void vtrace_cqes(struct vtrace *v, const struct roce_wc *wc, int n);
void vtrace_close(struct roce_context *ctx);

struct roce_pd {
	struct roce_context *ctx;
	uint32_t pdn;
};

/* Events handed to the host and acknowledged by it (an object is not
 * destroyed while the two differ). Completion events: under the channel's
 * lock; asynchronous events: under the engine's async lock. */
struct ev_count {
	uint32_t reported, acked;
};

struct roce_cq {
	struct eng_cq eng;              /* the ring the engine fills */
	struct roce_context *ctx;
	struct vtrace *trace;           /* ctx's, kept here: polling reads no more
					 * of the context than before */
	struct roce_comp_channel *channel;
	void *cq_context;
	struct ev_count comp, async;
};

struct roce_qp {
	/* what posting reads, ahead of the engine's state: the first line
	 * of the object then serves a post together with the rings */
	struct roce_context *ctx;
	struct roce_pd *pd;
	struct roce_srq *srq;
	uint32_t max_send_sge, max_recv_sge;
	uint32_t max_inline;            /* ROCE_SEND_INLINE's limit */
	enum roce_qp_type type;         /* RC, UC or UD (QP1: UD):
					 * what post and modify allow */
	struct ev_count async;
	struct eng_qp eng;              /* the queues and the engine's state */
};

/* An address handle: its address vector as the engine reads it from a
 * UD WQE (engine.h), checked once here. */
struct roce_ah {
	struct roce_pd *pd;
	struct eng_av av;
};

struct roce_srq {
	struct eng_srq eng;             /* the ring the responders take from */
	struct roce_context *ctx;
	struct roce_pd *pd;
	void *srq_context;
	pthread_mutex_t post_lock;      /* the posting threads' producer side */
	uint32_t max_sge;
	uint32_t nqp;                   /* QPs attached (engine lock) */
	struct ev_count async;
};

struct roce_comp_channel {
	struct eng_channel eng;         /* the events the engine raises */
	struct roce_context *ctx;
};

/* qp.c: every QPN from ROCE_FIRST_QPN up to qp_count - 1 free. */
void qpn_pool_init(struct roce_context *ctx, uint32_t qp_count);
/* qp.c: an address vector's checks (GID index, family, unicast, flow
 * label): ROCE_OK or ROCE_E_INVAL. ah.c uses it for AHs too. */
int av_check(struct roce_context *ctx, const struct roce_ah_attr *ah);
/* qp.c: a receive WQE from wr: ROCE_E_INVAL (SGEs), ROCE_E_RANGE (length). */
int rwqe_fill(struct rwqe *r, struct roce_sge *ext, const struct roce_recv_wr *wr,
	      uint32_t max_sge);

/* The engine hands back eng_* pointers (events): the verbs object around
 * one. A CQ's and an SRQ's engine object is its first member; a QP's
 * follows what posting reads. */
_Static_assert(offsetof(struct roce_cq, eng) == 0, "eng_cq first");
_Static_assert(offsetof(struct roce_srq, eng) == 0, "eng_srq first");
static inline struct roce_qp *qp_of_eng(void *eng)
{
	return (struct roce_qp *)((char *)eng - offsetof(struct roce_qp, eng));
}

/* channel.c: a new CQ joins its channel; before a CQ is destroyed (engine
 * lock held) it leaves it: ROCE_E_BUSY while its returned events are not
 * acknowledged. */
void channel_attach(struct roce_comp_channel *ch, struct roce_cq *cq);
int channel_detach(struct roce_cq *cq);

/* async.c, before an object is destroyed, the engine's lock held (no
 * event can be raised meanwhile): whether events of it that
 * roce_get_async_event returned are not acknowledged yet; then, once it
 * goes, its events still queued are dropped (obj: its eng_qp, eng_cq or
 * eng_srq). */
bool async_busy(struct roce_context *ctx, const struct ev_count *n);
void async_purge(struct roce_context *ctx, const void *obj);

#endif
