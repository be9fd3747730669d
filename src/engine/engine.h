/* SPDX-License-Identifier: MIT */
/*
 * The transport engine: the device's data path. The pipeline stages share
 * these structures; nothing here is public API, and nothing here knows the
 * host (no driver, no bus, no verbs objects): the engine is given a device,
 * a port, its addresses and a clock (struct engine_config), and it works on
 * its own per-QP and per-CQ state (struct eng_qp, struct eng_cq), which the
 * verbs objects embed (src/verbs).
 *
 *   link port --rx--> recv.c (receive checks) --+--> resp.c (responder)
 *                                               +--> comp.c (completer)
 *   SQ --> req.c (requester, seed 001 state machine) --+
 *   resp.c reply queue -------------------------------+--> tx.c --> link port
 *
 * One engine thread owns every field not marked otherwise. The send and
 * receive queues and the CQs are single-producer/single-consumer rings
 * shared with the application thread through acquire/release indices.
 */
#ifndef ROCE_ENGINE_ENGINE_H
#define ROCE_ENGINE_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "roce/counters.h"
#include "roce/gid.h"
#include "roce/link.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/tables.h"
#include "roce/verbs.h"        /* the WQE and CQE fields: SGEs, opcodes, roce_wc */
#include "cc/dcqcn.h"
#include "common/idxq.h"
#include "engine/event.h"
#include "engine/timer.h"

/* ---- SPSC ring indices ---------------------------------------------------- */

/* prod is written by the producer, cons by the consumer; both run freely
 * and are masked by (size - 1) on use. */
struct ring_idx {
	_Atomic uint32_t prod;
	_Atomic uint32_t cons;
	uint32_t mask;
};

static inline uint32_t ring_count(struct ring_idx *r)
{
	return atomic_load_explicit(&r->prod, memory_order_acquire) -
	       atomic_load_explicit(&r->cons, memory_order_acquire);
}

/* ---- a place in an MR (dma.c, mover.c) ---------------------------------- */

/*
 * A place in an MR: the MR (its table index, which finds its entry) and
 * the offset in it, with the DMA address the key check translated them
 * to. What the responder keeps between packets (a WRITE's next byte, a
 * READ's next response) and what every piece of a DMA carries, so that
 * what moves the bytes (mover.c) knows which MR they belong to and
 * where in it, not only an address: a transform of the MR's (the
 * entry's, by this index) is a function of the MR, the offset and the
 * bytes. The index, not a pointer to the cached copy of the entry: the
 * cache is direct-mapped and another MR may take the slot between two
 * packets.
 */
#define MR_NONE UINT32_MAX              /* no MR: a zero-length access */

struct mr_pos {
	uint64_t pa;                    /* DMA address */
	uint64_t off;                   /* offset in the MR */
	uint32_t mr;                    /* MR table index (or MR_NONE) */
};

static inline void mr_pos_advance(struct mr_pos *at, uint32_t len)
{
	at->pa += len;
	at->off += len;
}

/* ---- work requests -------------------------------------------------------- */

/* A UD destination's address vector, as a UD send WQE carries it (ud.c;
 * roce_create_ah checks it, post_send copies it in): the engine reads
 * nothing but the WQE, as a NIC fetches the AV with the descriptor. */
struct eng_av {
	uint8_t dgid[ROCE_GID_LEN];     /* the peer: an IPv4-mapped GID for IPv4 */
	uint8_t mac[6];
	uint8_t sgid_index;             /* our GID, over IPv6 */
	uint8_t tclass;
	uint32_t flow_label;            /* 0 = none */
};

enum swqe_state {
	SWQE_POSTED,            /* not started */
	SWQE_SENDING,           /* some packets sent */
	SWQE_SENT,              /* every packet sent, waiting for the response */
	SWQE_DONE,              /* acknowledged / responses in; may complete */
};

struct swqe {
	/* from the application */
	uint64_t wr_id;
	uint8_t opcode;                 /* enum roce_wr_opcode */
	uint8_t flags;                  /* enum roce_send_flags */
	uint8_t num_sge;
	uint8_t state;                  /* enum swqe_state */
	uint32_t length;                /* sum of the SGEs */
	struct roce_sge sge[ROCE_MAX_SGE];
	union {
		struct {                /* RC, UC */
			uint64_t remote_addr;
			uint64_t compare_add, swap;
			uint32_t rkey;
		};
		struct {                /* UD: where the message goes */
			struct eng_av av;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	};
	uint32_t imm;                   /* network order */
	/* set by the requester */
	uint32_t first_psn;             /* PSN of the first packet */
	uint32_t npsn;                  /* PSNs it occupies (READ: responses) */
	uint8_t status;                 /* enum roce_wc_status when DONE */
};

struct rwqe {
	uint64_t wr_id;
	uint8_t num_sge;
	uint32_t length;
	struct roce_sge sge[ROCE_MAX_SGE];
};

/* ---- the requester (seed 001 request state machine) ---------------------- */

enum req_state {
	REQ_IDLE,
	REQ_SEND,
	REQ_READ,
	REQ_WRITE_HEAD,
	REQ_WRITE_DATA,
	REQ_ATOMIC,             /* extension: CmpSwap / FetchAdd request */
	REQ_DONE,
	REQ_STATE_COUNT
};

extern const char *const req_state_names[REQ_STATE_COUNT];

struct req_ctx {
	enum req_state state;
	uint32_t cur;                   /* SQ index of the WQE being sent */
	uint32_t psn;                   /* next PSN to send */
	uint32_t psn_max;               /* highest next-PSN ever (resends are below) */
	uint32_t offset;                /* bytes of the current WQE sent */
	uint32_t noack;                 /* packets since the last AckReq */
	uint32_t rd_atomic;             /* READ/atomic WQEs outstanding */
	uint64_t dma_deadline;          /* WRITE_DATA: local DMA timeout */
	bool probe;                     /* the next packet is a tail-loss
					 * probe: AckReq on it (cc.c) */
};

/* ---- the completer -------------------------------------------------------- */

struct comp_ctx {
	uint32_t una;                   /* oldest unacknowledged PSN */
	uint32_t tail;                  /* SQ index of the oldest WQE */
	uint32_t read_psn;              /* next READ response PSN expected */
	uint8_t retry_left;
	uint8_t rnr_left;
	bool go_back;                   /* a retry is under way: ignore stale responses */
	bool alive;                     /* a response came since the last timeout */
	uint64_t timer;                 /* retransmit deadline (0 = off) */
	uint64_t rnr_until;             /* RNR wait: no transmission before */
	/* adaptive retransmission (cc.c): one round-trip sample at a time */
	bool rtt_on;
	uint8_t backoff;                /* timeouts since the last sample */
	uint32_t rtt_psn;
	uint64_t rtt_sent;
	uint64_t srtt, rttvar;          /* ns; srtt 0: no sample yet */
	/* tail-loss probes (cc.c): due when nothing was sent or acked for
	   two round trips; at most CC_PROBES per stall (until an ACK moves
	   una or the timer fires) */
	uint64_t probe_at;              /* 0 = none */
	uint8_t probes;                 /* sent in this stall */
	bool nak_back;                  /* went back on a NAK, nothing acked since */
};

/* ---- the responder -------------------------------------------------------- */

enum reply_kind {
	REPLY_ACK,              /* ACK up to psn (coalesced) */
	REPLY_NAK,              /* NAK / RNR NAK: syndrome, psn */
	REPLY_READ,             /* READ responses: psn .. psn + n - 1 */
	REPLY_ATOMIC,           /* ATOMIC ACKNOWLEDGE with orig */
};

struct reply {
	uint8_t kind;
	uint8_t syndrome;
	uint32_t psn;                   /* next PSN to send (READ: advances) */
	uint32_t msn;
	/* READ (in this order, and with ATOMIC's orig over its PSNs, a
	 * reply stays 48 bytes) */
	uint32_t resid;                 /* bytes left */
	struct mr_pos at;               /* its next byte */
	union {
		struct {
			uint32_t first_psn, last_psn;   /* READ */
		};
		uint64_t orig;                  /* ATOMIC */
	};
};

struct atomic_saved {
	uint32_t psn;
	bool valid;
	uint64_t orig;
};

struct resp_ctx {
	uint32_t psn;                   /* expected PSN (ePSN) */
	uint32_t msn;
	bool nak_sent;                  /* one NAK per sequence error (IBA 9.7.5.1) */
	bool goto_err;                  /* enter ERR once the NAK is out */
	/* a multi-packet SEND or WRITE in progress */
	bool in_send, in_write;
	uint32_t rcv_offset;            /* SEND: bytes placed in the RWQE */
	struct mr_pos write_at;         /* WRITE: where its next byte goes */
	uint32_t write_resid;
	/* replies in PSN order */
	struct reply replies[ROCE_RESP_QUEUE];
	uint32_t rep_head, rep_tail;    /* free-running */
	uint32_t rd_outstanding;        /* READ/atomic replies queued */
	struct atomic_saved atomics[ROCE_ATOMIC_REPLAY];
	uint32_t atomic_next;
	/* a QP on an SRQ: the WQE taken for the message in progress */
	bool srq_held;
	struct rwqe srq_wqe;
};

/* ---- completion queue ------------------------------------------------------ */

/* The CQ ring: the engine produces completions, the host consumes them
 * (roce_poll_cq). Embedded in the verbs CQ. */
struct eng_cq {
	struct ring_idx ring;
	struct roce_wc *wc;
	_Atomic bool overflow;
	/* completion events (event.c): the channel (NULL: none), the arm the
	 * host sets; under the channel's lock, the events raised and not yet
	 * taken and the CQ's place in the channel's list */
	struct eng_channel *channel;
	_Atomic uint8_t arm;
	uint32_t ev_pending;
	struct eng_cq *ev_next;
};

/* ---- shared receive queue ---------------------------------------------------- */

/* An SRQ (srq.c): receive WQEs that the responders of every QP attached
 * to it take from, in order. The host posts under its own lock (several
 * threads may post), the engine alone consumes. Embedded in the verbs
 * SRQ. */
struct eng_srq {
	struct ring_idx rq;
	struct rwqe *rwqe;
	_Atomic uint32_t limit;         /* armed limit; 0 = not armed */
};

/* ---- queue pair ----------------------------------------------------------- */

/* The engine's state of one QP: the queues it consumes, its copy of the QP
 * context, the requester, completer and responder. Embedded in the verbs
 * QP, which keeps what only the host needs (PD, context, SGE limits). */
struct eng_qp {
	uint32_t qpn;
	struct eng_cq *send_cq, *recv_cq;
	struct eng_srq *srq;            /* receive WQEs from here (NULL: the RQ) */
	bool sq_sig_all;

	/* send queue: app produces, engine consumes (cons = completer tail) */
	struct ring_idx sq;
	struct swqe *swqe;
	/* receive queue */
	struct ring_idx rq;
	struct rwqe *rwqe;
	/* the state posting checks (IBA 10.8.2), in the QP's own lines
	 * rather than the table's: set by modify_qp, ERR by the engine
	 * (engine_qp_error); both under the engine lock, so in the table's
	 * order */
	_Atomic uint8_t host_state;

	/* the QP context as last read from the table (engine thread) */
	struct roce_qp_cfg cfg;
	uint32_t mtu;                   /* bytes */
	uint16_t sport;                 /* UDP source port */
	uint8_t tmpl[ROCE_ETH_HLEN + ROCE_IPV6_HLEN + ROCE_UDP_HLEN]; /* tx_template() */
	uint8_t tmpl_l3len;     /* its IP header: 20 (IPv4) or 40 (IPv6) */
	uint32_t tmpl_sum;      /* IPv4: its header's word sum but for the
				 * length, ID and checksum: finished per packet */
	struct eng_av tmpl_av;  /* UD: the destination tmpl was built for
				 * (ud.c builds it again for another) */
	bool tmpl_ud;           /* tmpl holds tmpl_av's headers */
	bool flushed;                   /* ERR: queues flushed */

	struct req_ctx req;
	struct comp_ctx comp;

	/* scheduling (sched.c): the transmit arbiter's queue, the timer */
	struct eng_qp *run_next, *run_prev;
	bool in_run;
	struct eng_timer timer;         /* its earliest deadline */
	uint32_t active_idx;            /* position in engine.active[] */

	/* congestion control (cc.c): whether its priority is a reaction
	 * point's, and DCQCN's pacing of it */
	bool rp_on;
	uint32_t window;                /* RC: most PSNs unacknowledged; 0: no cap */
	bool paced;                     /* DCQCN holds it below line rate */
	bool pace_wait;                 /* it had to wait: its timer wakes it */
	uint64_t next_tx;               /* paced: no data packet before (ns) */
	uint64_t pace_t;                /* paced: when the last one was due */
	uint32_t pace_len;              /* ... and its length */

	/* last: its reply queue is 1.7 KB, and a turn of a QP that only
	 * sends reads none of it (everything above is a few cache lines) */
	struct resp_ctx resp;
	/* congestion control's cold state (cc.c): read on a CNP, a CE mark
	 * or a paced packet only */
	struct dcqcn_rp rp;
	uint64_t last_cnp;              /* NP: when we last sent it a CNP (ns) */
	uint32_t rate_pub;              /* the rate CC_QP_RATE shows (Mbit/s) */
	bool rate_pub_limited;
	bool cnp_once;                  /* last_cnp is valid */
};

/* ---- engine ----------------------------------------------------------------- */

/* A copy of an MR entry, good until a commit changes the entry (ctx.c
 * empties it then): the per-packet key checks read no table at all. */
struct mr_cached {
	uint32_t index;
	uint32_t gen;                   /* odd = empty */
	struct roce_mr_entry e;
};

#define MR_CACHE 64u                    /* direct-mapped by MR index */

struct tx_slot {
	uint8_t data[ROCE_MAX_FRAME];
};

/* What the engine is given: the device it is the data path of (its QP and
 * MR tables, counters and DDR, through roce/device.h), the link port, the
 * station addresses and a clock. */
struct engine_config {
	struct roce_device *dev;
	struct roce_port *port;
	uint8_t mac[6];
	uint32_t ip;                    /* IPv4, host order */
	struct roce_gid_table gids;     /* the port's GIDs: the IPv6 ones are
					 * the addresses it sends from and
					 * accepts (addr.c) */
	uint64_t (*now_ns)(void *ctx);  /* timers; NULL = CLOCK_MONOTONIC */
	void *clock_ctx;
};

/* An observer of the engine's memory accesses (mover.c): write or read, the
 * DMA address (DMA_HOST set: host memory, the rest its IOVA; else a DDR
 * address), the bytes (after a write, as written). */
typedef void (*eng_dma_observer)(void *arg, bool write, uint64_t pa,
				 const uint8_t *data, uint32_t len);

struct roce_engine {
	struct roce_device *dev;
	struct roce_counters *cnt;
	struct roce_qp_table *qpt;
	struct roce_mr_table *mrt;
	uint8_t *mem;                   /* device DDR */
	uint64_t mem_size;
	/* the IOMMU to host memory (engine/iommu.h): the host's, set by it;
	 * NULL: no host memory (every HOST MR access is refused) */
	struct iommu *iommu;
	struct roce_port *port;
	uint8_t mac[6];
	uint32_t ip;
	uint16_t ip_id;
	struct roce_gid_table gids;
	uint8_t ip6[ROCE_MAX_GID][ROCE_GID_LEN]; /* the table's IPv6 addresses */
	unsigned n_ip6;

	uint64_t (*now_ns)(void *);
	void *clock_ctx;
	uint64_t now;                   /* this poll's time, once read */
	bool now_valid;                 /* read this poll (engine_now) */

	struct eng_qp *qp_by_qpn[ROCE_MAX_QP];
	struct eng_qp **active;         /* QPs that exist, dense: for the
					 * control path only, never per poll */
	uint32_t n_active;

	/* the work that finds the engine (sched.c): QPNs rung by their
	 * doorbells; QPs with something to send, served round robin; the
	 * QPs' deadlines */
	struct idxq doorbells;
	struct idxq *qp_changes, *mr_changes;   /* the tables' (ctx.c) */
	struct eng_qp *run_head, *run_tail;
	uint32_t n_run;
	struct timer_wheel timers;

	/* TX staging: frames built here go to the port in one burst */
	struct tx_slot *tx;
	struct roce_frame tx_frames[ROCE_TX_BURST];
	uint32_t tx_n;                  /* staged, not yet taken by the link */
	uint32_t tx_built;              /* frames built this poll, staged or not */
	uint32_t tx_zc;                 /* of them, built in the link's buffers */

	struct mr_cached mrc[MR_CACHE];

	bool dma_stall;
	uint32_t dma_timeout_us;
	/* an observer of every DDR access the engine makes (the transaction
	 * trace): NULL when off, one predicted-not-taken branch each */
	eng_dma_observer dma_obs;
	void *dma_obs_arg;

	struct eng_async async;         /* asynchronous events (event.c) */
	struct roce_cc_config cc;       /* congestion control (cc.c) */
	uint32_t cc_gen;                /* the CC block's commit it took last */

	_Atomic uint32_t idle_after_us; /* engine thread: nap once idle this long */
	_Atomic uint32_t idle_nap_us;
	_Atomic uint32_t idle_sleep_ms; /* or sleep until woken, this long at most */
	struct roce_wake wake;          /* rung by the port and by post_send */
	_Atomic uint64_t sleeps, wakeups;

	pthread_mutex_t lock;           /* held by the engine around a poll */
	pthread_t thread;
	_Atomic bool running;
	_Atomic bool has_thread;
};

/* The doorbell of a QP (any thread, after publishing a work request):
 * queue the QP for the engine (common/idxq.h says why nothing is lost),
 * and wake the engine thread if it sleeps: the fence pairs with the one
 * in engine_sleep, so either it sees the queued QP or we see it asleep. */
static inline void engine_doorbell(struct roce_engine *e, struct eng_qp *qp)
{
	idxq_push(&e->doorbells, qp->qpn);
	if (e->has_thread) {
		atomic_thread_fence(memory_order_seq_cst);
		roce_wake_if_asleep(&e->wake);
	}
}

/* Wake the engine thread for work that is not a QP's (e.g. stopping). */
static inline void engine_wake(struct roce_engine *e)
{
	if (!e->has_thread)
		return;
	atomic_thread_fence(memory_order_seq_cst);
	roce_wake_if_asleep(&e->wake);
}

/* The control path's lock: the host holds it while it changes what the
 * engine walks (QPs, the MR table). */
static inline void engine_lock(struct roce_engine *e)
{
	pthread_mutex_lock(&e->lock);
}

static inline void engine_unlock(struct roce_engine *e)
{
	pthread_mutex_unlock(&e->lock);
}

/* engine.c: life, QPs, completions */
int engine_init(struct roce_engine *e, const struct engine_config *cfg);
void engine_fini(struct roce_engine *e);
void engine_add_qp(struct roce_engine *e, struct eng_qp *qp);
void engine_del_qp(struct roce_engine *e, struct eng_qp *qp);
void engine_qp_error(struct roce_engine *e, struct eng_qp *qp);
/* A completion into cq; solicited: a receive completion of a message with
 * the BTH SE bit (an error completion counts as solicited too, IBA
 * 11.4.2.2), for a CQ armed for solicited completions only. */
void engine_cq_post(struct roce_engine *e, struct eng_cq *cq, const struct roce_wc *wc,
		    bool solicited);
static inline void engine_cq_push(struct roce_engine *e, struct eng_cq *cq,
				  const struct roce_wc *wc)
{
	engine_cq_post(e, cq, wc, false);
}

/* This poll's time: the clock is read at the first need in a poll (an
 * idle poll with no timer armed reads none; a read costs 30-55 ns). */
static inline uint64_t engine_now(struct roce_engine *e)
{
	if (!e->now_valid) {
		e->now = e->now_ns(e->clock_ctx);
		e->now_valid = true;
	}
	return e->now;
}

/* engine.c: polling, the engine thread and its idle policy, the DMA fault
 * hook (the public roce_engine_* calls of roce/verbs.h are these, on the
 * context's engine) */
unsigned engine_poll(struct roce_engine *e);
int engine_start(struct roce_engine *e, int cpu);
void engine_stop(struct roce_engine *e);
int engine_set_idle(struct roce_engine *e, uint32_t after_us, uint32_t nap_us);
int engine_set_sleep(struct roce_engine *e, uint32_t max_ms);
void engine_sleep_stats(struct roce_engine *e, uint64_t *sleeps, uint64_t *wakeups);
void engine_set_dma_stall(struct roce_engine *e, bool stall, uint32_t timeout_us);

/* The lines an event for qp reads first: the rings, the context copy,
 * the requester, completer and scheduling fields, the responder's
 * indices (struct eng_qp keeps them ahead of the reply queue). For loops
 * over many QPs (the arbiter, a receive burst), as DPDK's burst loops
 * prefetch. */
static inline void qp_prefetch(const struct eng_qp *qp)
{
	const char *p = (const char *)qp;

	for (size_t off = 0; off < offsetof(struct eng_qp, resp) + 64; off += 64)
		__builtin_prefetch(p + off);
}

/* sched.c: the transmit arbiter, doorbells, timers, the sleep decision.
 * Every event that may give a QP something to send (a doorbell, a frame
 * for it, a context change, a timer) kicks it into the arbiter's queue;
 * the arbiter serves the queue round robin and drops a QP once a turn
 * leaves it with nothing it can send. After every event a QP is settled:
 * its timer follows its earliest deadline. */
static inline void sched_kick(struct roce_engine *e, struct eng_qp *qp)
{
	if (qp->in_run)
		return;
	qp->in_run = true;
	qp->run_next = NULL;
	qp->run_prev = e->run_tail;
	if (e->run_tail)
		e->run_tail->run_next = qp;
	else
		e->run_head = qp;
	e->run_tail = qp;
	e->n_run++;
}
void sched_remove(struct roce_engine *e, struct eng_qp *qp);
void sched_settle(struct roce_engine *e, struct eng_qp *qp);
void sched_doorbells(struct roce_engine *e);
void sched_timers(struct roce_engine *e);
void sched_arbiter(struct roce_engine *e);
bool sched_idle(struct roce_engine *e);

/* cc.c: congestion control (docs/cc.md). The hot checks are inline: a
 * QP that is not paced costs a flag test per packet, nothing more. */
/* A CC_COMMIT in the register file since the last poll: the engine takes
 * the block (every QP's ECN marking, window, reaction point). */
void cc_changes(struct roce_engine *e);
/* The QP's context changed (priority, state): its CC state follows. */
void cc_qp_sync(struct roce_engine *e, struct eng_qp *qp);
/* The IP TOS / traffic class of a QP's packets: its traffic class, with
 * the ECN field ECT when its priority is a reaction point's. */
uint8_t cc_tos(const struct roce_engine *e, uint8_t tclass);
/* NP: a packet (opcode op) for qp arrived with ECN CE. */
void cc_rx_ce(struct roce_engine *e, struct eng_qp *qp, const struct roce_opcode_info *op);
/* RP: a CNP for qp arrived. */
void cc_rx_cnp(struct roce_engine *e, struct eng_qp *qp);
bool cc_pace_ok(struct roce_engine *e, struct eng_qp *qp);
/* A paced QP waiting to send: DCQCN's timers run, next_tx follows the
   rate they leave (sched.c, at the QP's timer). */
void cc_repace(struct roce_engine *e, struct eng_qp *qp);
/* When a waiting paced QP must look again (0: not waiting). */
static inline uint64_t cc_deadline(const struct roce_engine *e, const struct eng_qp *qp)
{
	uint64_t d;

	if (!qp->pace_wait)
		return 0;
	d = dcqcn_next_change(&qp->rp, &e->cc.dcqcn);
	return d && d < qp->next_tx ? d : qp->next_tx;
}
void cc_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t frame_len);
/* May qp send a data packet now? (a paced QP that may not waits for
 * its timer) */
static inline bool cc_may_send(struct roce_engine *e, struct eng_qp *qp)
{
	return !qp->paced || cc_pace_ok(e, qp);
}
/* The ECN field of a received packet is CE (0b11) */
static inline bool pkt_ce(const struct roce_pkt *p)
{
	const uint8_t *ip = p->frame + p->l3_off;

	return p->ipv6 ? (ip[1] & 0x30) == 0x30 : (ip[1] & 3) == 3;
}

/* ctx.c: the context cache, following the register file's commits */
void ctx_changes(struct roce_engine *e);
void ctx_sync_qp(struct roce_engine *e, struct eng_qp *qp);
bool ctx_changes_pending(struct roce_engine *e);

/* tx.c: staging, frame building and local memory (DMA) */
static inline bool tx_room(const struct roce_engine *e)
{
	return e->tx_n < ROCE_TX_BURST && e->tx_built < ROCE_TX_BURST;
}
unsigned tx_flush(struct roce_engine *e);
void tx_template(struct roce_engine *e, struct eng_qp *qp);
/* The template from a context's address fields (tx_template gives the
 * QP's own; ud.c a WQE's destination). */
void tx_template_cfg(struct roce_engine *e, struct eng_qp *qp, const struct roce_qp_cfg *c);
/* Build one packet for qp into the next staging slot; payload (len
 * bytes, may be 0) from SGEs or from a place in an MR (a READ response). */
struct tx_pkt {
	uint8_t opcode;
	uint32_t psn;
	bool ackreq, se;
	const struct roce_hdrs *ext;    /* RETH/AETH/... values (or NULL) */
	const struct roce_sge *sge;     /* gather payload from SGEs ... */
	uint32_t nsge, sge_off;         /* ... starting this far in */
	const struct mr_pos *at;        /* ... or from one place in an MR */
	uint32_t len;
	const struct eng_av *av;        /* UD: the WQE's destination (qp->tmpl
					 * holds its headers), else NULL */
	uint32_t dqpn;                  /* UD: the destination QP */
	bool cnp;                       /* a CNP: BECN set, the CNP's DSCP and ECN */
};
int tx_build(struct roce_engine *e, struct eng_qp *qp, const struct tx_pkt *p);

/* dma.c: protection (keys, rights, bounds) and translation to DDR or,
 * through the IOMMU, host memory; mover.c: the bytes themselves */

/*
 * A DMA address: what the data path keeps between a key check and the
 * bytes it moves (a READ's reply, a WRITE's next packet). Bit 63 clear:
 * a DDR address; set: host memory, the low bits its IOVA (an MR entry's
 * space and pa in one word; IOVAs stay below ROCE_MR_HOST_PA_LIMIT).
 * Only dma_ptr turns one into a pointer.
 */
#define DMA_HOST (1ull << 63)

/* The bytes at DMA address addr, len of them, or NULL when [addr, addr +
 * len) is not all inside the DDR or inside one IOMMU window: checked as
 * they are about to move (a window may have gone since the key check).
 * dma.c and mover.c only: the pipeline holds places and pieces, not
 * pointers. */
uint8_t *dma_ptr(const struct roce_engine *e, uint64_t addr, uint64_t len);

/* Watch the engine's memory accesses (NULL to stop): called after each
 * write and each read with the DMA address and the bytes as they now are. */
void engine_set_dma_observer(struct roce_engine *e, eng_dma_observer fn, void *arg);

static inline void dma_note(struct roce_engine *e, bool write, uint64_t addr,
			    const uint8_t *data, uint32_t len)
{
	if (__builtin_expect(e->dma_obs != NULL, 0))
		e->dma_obs(e->dma_obs_arg, write, addr, data, len);
}

struct dma_seg {                        /* one piece of a DMA */
	struct mr_pos at;               /* its MR, offset and DMA address */
	uint8_t *ptr;                   /* its bytes */
	uint32_t len;
};

/* Resolve len bytes of an SGE list from byte off to DMA ranges and their
 * bytes (at most one per SGE), every L_Key, right, bound and window
 * checked first. */
int mem_resolve(struct roce_engine *e, const struct roce_sge *sge, unsigned nsge,
		uint32_t off, uint32_t len, unsigned access, struct dma_seg *seg,
		unsigned *nseg);
/* Translate [va, va + len) under lkey with the given access; returns the
 * place in the MR or a status (ROCE_E_LKEY, ROCE_E_BOUNDS, ROCE_E_ACCESS). */
int mem_lkey(struct roce_engine *e, uint32_t lkey, uint64_t va, uint64_t len,
	     unsigned access, struct mr_pos *at);
int mem_rkey(struct roce_engine *e, struct eng_qp *qp, uint32_t rkey,
	     uint64_t va, uint64_t len, unsigned access, struct mr_pos *at);
/* The len bytes at a place checked earlier (a WRITE's next packet, a READ's
 * next response) as one piece, or ROCE_E_BOUNDS when they are no longer
 * all in the DDR or in one IOMMU window (a window may have gone since the
 * key check). */
int mem_seg_at(const struct roce_engine *e, const struct mr_pos *at, uint32_t len,
	       struct dma_seg *seg);

/* mover.c: place (wire -> MR) and fetch (MR -> frame), the only copies
 * into and out of an MR, each with its DMA note */
void mem_place(struct roce_engine *e, const struct dma_seg *seg, unsigned nseg,
	       const uint8_t *src);
/* crc NULL: a plain copy; else the CRC-32 of the bytes is taken in the
 * same pass, from *crc on (tx.c's ICRC). */
void mem_fetch(struct roce_engine *e, const struct dma_seg *seg, unsigned nseg,
	       uint8_t *dst, uint32_t *crc);
/* Place len bytes at *at (mem_seg_at's checks), then move *at past them. */
int mem_place_at(struct roce_engine *e, struct mr_pos *at, const uint8_t *src,
		 uint32_t len);
/* Place len bytes into an SGE list from byte off (mem_resolve's checks,
 * local write access): nothing moves unless all of it resolves. */
int mem_place_sge(struct roce_engine *e, const struct roce_sge *sge, unsigned nsge,
		  uint32_t off, const uint8_t *src, uint32_t len);
/* The 8-byte read-modify-write of an atomic at *at (aligned, checked):
 * the word is fetched, becomes swap_add if it equals compare (cmp_swap)
 * or itself plus swap_add, and is placed; *orig is what it was. */
int mem_atomic(struct roce_engine *e, const struct mr_pos *at, bool cmp_swap,
	       uint64_t compare, uint64_t swap_add, uint64_t *orig);

/* recv.c */
void recv_frame(struct roce_engine *e, const uint8_t *frame, uint32_t len);
void recv_prefetch(struct roce_engine *e, const uint8_t *frame, uint32_t len);

/* addr.c: the station's IPv6 addresses (the GID table's) */
void addr_init(struct roce_engine *e, const struct roce_gid_table *gids);
/* Whether a frame to addr is for this port (one of its IPv6 GIDs). */
bool addr_ip6_ours(const struct roce_engine *e, const uint8_t addr[ROCE_GID_LEN]);
/* The address an IPv6 QP sends from: GID sgid_index when that is an IPv6
 * one, else the link-local GID (entry 0). */
const uint8_t *addr_sgid6(const struct roce_engine *e, unsigned sgid_index);

/* resp.c */
void resp_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
/* The receive WQE the message in progress lands in: the RQ's head, or
 * the one the QP took from its SRQ; NULL when none is posted (uc.c too). */
struct rwqe *rwqe_take(struct roce_engine *e, struct eng_qp *qp);
void rwqe_release(struct eng_qp *qp);
/* Complete that receive WQE (uc.c too). */
void recv_complete(struct roce_engine *e, struct eng_qp *qp, enum roce_wc_status status,
		   enum roce_wc_opcode op, uint32_t len, const struct roce_pkt *p);
void resp_tx(struct roce_engine *e, struct eng_qp *qp);
void resp_reset(struct eng_qp *qp);

/* srq.c: the responder's side of an SRQ */
struct rwqe *srq_take(struct roce_engine *e, struct eng_qp *qp);
void srq_flush(struct roce_engine *e, struct eng_qp *qp);

/* req.c */
void req_tx(struct roce_engine *e, struct eng_qp *qp);
void req_reset(struct eng_qp *qp);
void req_go_back(struct roce_engine *e, struct eng_qp *qp, uint32_t psn);

/* uc.c: the UC transport (IBA 9.8), where it differs from RC: the
 * responder of a UC QP, and the requester's opcodes and completions */
static inline bool qp_is_uc(const struct eng_qp *qp)
{
	return qp->cfg.type == ROCE_QPT_UC;
}
void uc_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
uint8_t uc_opcode(uint8_t rc_opcode);
void uc_sent(struct eng_qp *qp, struct swqe *w);

/* ud.c: the UD transport (IBA 9.8, unreliable datagram): one packet per message,
 * a destination per WQE, the Q_Key, the GRH area of a receive */
static inline bool qp_is_ud(const struct eng_qp *qp)
{
	return qp->cfg.type == ROCE_QPT_UD;
}
/* UC and UD: nothing is acknowledged, a WQE completes once sent. */
static inline bool qp_unreliable(const struct eng_qp *qp)
{
	return qp->cfg.type == ROCE_QPT_UC || qp->cfg.type == ROCE_QPT_UD;
}
void ud_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
/* The requester's checks of a UD WQE it takes: ROCE_WC_SUCCESS or the
 * status it completes with (the WQE is not sent). */
enum roce_wc_status ud_wqe_check(const struct eng_qp *qp, const struct swqe *w);
/* A UD packet of w: its opcode, DETH and destination into p, the QP's
 * header template made for w's destination. */
void ud_packet(struct roce_engine *e, struct eng_qp *qp, const struct swqe *w,
	       struct roce_hdrs *ext, struct tx_pkt *p);

/* comp.c */
void comp_response(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
void comp_timers(struct roce_engine *e, struct eng_qp *qp);
void comp_complete(struct roce_engine *e, struct eng_qp *qp);
void comp_flush(struct roce_engine *e, struct eng_qp *qp);
void comp_reset(struct eng_qp *qp);
uint64_t comp_timeout_ns(const struct eng_qp *qp);
/* The retransmission timer's length: the IBA timeout, or the adaptive
   one when the context asks for it (cc.c) */
uint64_t cc_rto_ns(const struct roce_engine *e, const struct eng_qp *qp);
/* A new packet psn went out with AckReq (req.c): maybe a sample */
void cc_rtt_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t psn);
/* una moved to new_una by an ACK (comp.c): maybe the sample's end */
void cc_rtt_acked(struct roce_engine *e, struct eng_qp *qp, uint32_t new_una);
/* A new packet went out or una moved: the tail-loss probe is due two
   round trips from now (adaptive retransmission only) */
void cc_probe_arm(struct roce_engine *e, struct eng_qp *qp);
/* The probe's time came (comp.c's timer): resend the last packet sent,
   or after a NAK, a timeout or a first probe, from una */
void cc_probe(struct roce_engine *e, struct eng_qp *qp);
/* req.c: go back to the last PSN sent, if a SEND or WRITE carries it,
   the packet it sends next with AckReq; with from_una, to una (all that
   is outstanding). True if it went back. */
bool req_probe(struct roce_engine *e, struct eng_qp *qp, bool from_una);

static inline struct swqe *sq_at(struct eng_qp *qp, uint32_t i)
{
	return &qp->swqe[i & qp->sq.mask];
}

#endif
