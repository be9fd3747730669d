/* SPDX-License-Identifier: MIT */
/*
 * The engine's state: what the stages of the data path share. The
 * engine (struct roce_engine) with its tables, staging and clock; a QP's
 * state (struct eng_qp) with its send and receive queues and the
 * requester's, completer's and responder's contexts; the CQs and SRQs
 * the verbs objects embed. Structures and the few one-line accessors
 * every stage uses; no stage's prototypes (each stage has its header:
 * engine.h says which calls which).
 *
 * One engine thread owns every field not marked otherwise. The send and
 * receive queues and the CQs are single-producer/single-consumer rings
 * shared with the application thread through acquire/release indices.
 */
#ifndef ROCE_ENGINE_STATE_H
#define ROCE_ENGINE_STATE_H

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
#include "cc/algo.h"
#include "common/idxq.h"
#include "engine/timer.h"

/* ---- events (event.c) ------------------------------------------------------ */

struct eng_cq;

/* The arm of a CQ (ibv_req_notify_cq): the host sets bits, the engine
 * clears them all when it raises the event. NEXT outranks SOLICITED
 * (IBA 11.4.2.2: both requested means the next completion). */
enum {
	CQ_ARM_SOLICITED = 1u << 0,
	CQ_ARM_NEXT = 1u << 1,
};

/*
 * A completion channel: the CQs attached to it that have events not yet
 * taken, in the order they were raised, and the eventfd whose count is the
 * number of those events (EFD_SEMAPHORE: each read takes one), so the fd
 * is readable exactly while an event waits, as the kernel's event file.
 */
struct eng_channel {
	pthread_mutex_t lock;           /* the list and the CQs' ev_* fields */
	int fd;
	struct eng_cq *head, *tail;
	uint32_t ncq;                   /* CQs attached (control path) */
};

/* One asynchronous event: its type and the engine object it concerns
 * (struct eng_qp, eng_cq or eng_srq; NULL for a port event). */
struct eng_async_rec {
	uint8_t type;                   /* enum roce_event_type */
	bool dead;                      /* its object was destroyed: skipped */
	void *obj;
};

/*
 * The asynchronous event queue of an engine: a ring of ROCE_ASYNC_QUEUE
 * records and an eventfd counting them (EFD_SEMAPHORE). An event that
 * finds the ring full is dropped and counted in lost (the object's state
 * still says what happened: a QP in ERR, an SRQ's count); the host reads
 * lost with roce_async_events_lost().
 */
struct eng_async {
	pthread_mutex_t lock;
	int fd;
	struct eng_async_rec rec[ROCE_ASYNC_QUEUE];
	uint32_t head, tail;            /* free-running; tail - head queued */
	_Atomic uint64_t lost;
	bool link_up;                   /* engine thread: the link as last seen */
};

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
	bool staged;                    /* the MR has a stage chain (mover.h) */
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
	union {
		/* more than ROCE_WQE_SGE: all of them in the QP's list
		 * area (swqe_sgl) */
		struct roce_sge sge[ROCE_WQE_SGE];
		/* ROCE_SEND_INLINE: the message itself, when it fits in the
		 * SGEs' room (else in the QP's inline area: swqe_inline) */
		uint8_t inl[ROCE_WQE_SGE * sizeof(struct roce_sge)];
	};
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
	struct roce_sge sge[ROCE_WQE_SGE];      /* beyond: rwqe_sgl */
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
					 * probe: AckReq on it (recovery.c) */
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
	/* adaptive retransmission (recovery.c): one round-trip sample at a
	   time */
	bool rtt_on;
	uint8_t backoff;                /* timeouts since the last sample */
	uint32_t rtt_psn;
	uint32_t rtt_una;               /* una when rtt_psn went out */
	uint64_t rtt_sent;
	uint64_t srtt, rttvar;          /* ns; srtt 0: no sample yet */
	uint64_t rtt_min;               /* ns: the smallest sample (window.c) */
	uint64_t rtt_last;              /* ns: the latest sample (window.c) */
	/* the delivery rate (window.c): packets a second acknowledged over
	   a sample's round trip, the largest of this epoch of samples and
	   of the one before */
	uint64_t dr_cur, dr_prev;
	uint8_t dr_n;                   /* samples in this epoch */
	uint32_t dr_una;                /* una at the last sample's end */
	uint64_t dr_at;                 /* when it ended (0: none yet) */
	/* tail-loss probes (recovery.c): due when nothing was sent or acked
	   for two round trips; at most PROBES_PER_STALL per stall (until an
	   ACK moves una or the timer fires) */
	uint64_t probe_at;              /* 0 = none */
	uint8_t probes;                 /* sent in this stall */
	uint8_t probe_backoff;          /* stalls probed since the last sample */
	bool nak_back;                  /* went back on a NAK, nothing acked since */
	/* a timeout's first resend (recovery.c, frto_*): una's packet alone
	   until an ACK tells a loss from a late ACK */
	bool frto;
	uint32_t frto_una;              /* una when the timer fired */
	uint32_t frto_awnd;             /* the adaptive window before its cut */
	uint32_t frto_next;             /* the requester's PSN when the timer
					   fired: a spurious timeout resumes there */
	uint64_t frto_at;               /* when it fired */
	/* the PSNs of the last packets sent with AckReq (recovery.c,
	   frto_go_on): a peer answers those, and a duplicate */
#define COMP_ACKREQ_PSNS 16     /* a power of two */
	uint32_t ackreq_psn[COMP_ACKREQ_PSNS];
	uint8_t ackreq_i;
	/* IBA's detection time counts from here (recovery.c, rto_floor):
	   when una's packet first went out, or una last moved */
	uint64_t since;
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
	uint32_t ack_psn;               /* after the last SEND or WRITE packet
					   taken: what an ACK may cover (resp.c) */
	uint32_t msn;
	bool nak_sent;                  /* one NAK per sequence error (IBA 9.7.5.1) */
	bool goto_err;                  /* enter ERR once the NAK is out */
	/* a multi-packet SEND or WRITE in progress */
	bool in_send, in_write;
	uint32_t rcv_offset;            /* SEND: bytes placed in the RWQE */
	struct mr_pos write_at;         /* WRITE: where its next byte goes */
	uint32_t write_resid;
	/* replies in PSN order, and the atomics' saved results: sized from
	 * the QP's max_dest_rd_atomic as it enters RTR (resp.c resp_size),
	 * so a QP that accepts rxe's 128 pays for them and the many QPs
	 * that accept a few do not (one block; NULL before RTR) */
	struct reply *replies;
	uint32_t rep_cap;               /* ROCE_RESP_QUEUE(max_dest_rd_atomic) */
	uint32_t rep_head, rep_tail;    /* free-running */
	uint32_t rd_outstanding;        /* READ/atomic replies queued */
	struct atomic_saved *atomics;
	uint32_t atomic_cap;            /* ROCE_ATOMIC_REPLAY(max_dest_rd_atomic) */
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

/* ---- transports ----------------------------------------------------------- */

/* What a QP's transport is, where the stages differ by it (IBA 9.8: UC
 * and UD are RC without acknowledgements; UD without a connection). The
 * stages ask these, never the QP's type; ctx.c sets a QP's from its
 * context (anything but UC and UD is RC, as the table's type field
 * allows no other). */
struct eng_transport {
	uint8_t wire;           /* ROCE_TRANSPORT_*: the opcodes it takes */
	uint8_t op_class;       /* IBA 9.2.1: its opcodes' top bits (RC 0x00, UC 0x20) */
	bool acked;             /* RC: ACKs, retransmission, timers, the window */
	bool connected;         /* one peer (its address checked, congestion
				 * control); UD: a destination per WQE, any
				 * station may send */
	bool rd_atomic;         /* READ and atomic requests exist */
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
	/* ROCE_SEND_INLINE messages longer than a WQE's SGE room: inl_len
	 * bytes per send WQE, made only for a QP that asked for them */
	uint8_t *inl;
	uint32_t inl_len;
	/* receive queue */
	struct ring_idx rq;
	struct rwqe *rwqe;
	/* the state posting checks (IBA 10.8.2), in the QP's own lines
	 * rather than the table's: set by modify_qp, ERR by the engine
	 * (qp_error); both under the engine lock, so in the table's
	 * order */
	_Atomic uint8_t host_state;

	/* the QP context as last read from the table (engine thread) */
	struct roce_qp_cfg cfg;
	const struct eng_transport *tr; /* cfg.type's (ctx.c) */
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
	 * point's, and its pacing at the rate its algorithm grants */
	bool rp_on;
	uint32_t window;                /* RC: most PSNs unacknowledged; 0: no cap */
	bool rec_rto;                   /* RC: adaptive timer, tail-loss probes
					   (recovery.c), the QP's or CC_CTRL's */
	bool paced;                     /* its algorithm holds it below line rate */
	bool pace_wait;                 /* it had to wait: its timer wakes it */
	uint64_t next_tx;               /* paced: no data packet before (ns) */
	uint64_t pace_t;                /* paced: when the last one was due */
	uint32_t pace_len;              /* ... and its length */

	/* last: its reply queue is 1.7 KB, and a turn of a QP that only
	 * sends reads none of it (everything above is a few cache lines) */
	struct resp_ctx resp;
	/* the stage layer's streams (mover.h): a unit of a staged MR kept
	 * until the message's next piece completes it; the responder's
	 * (SEND, WRITE) and the requester's (READ responses). NULL until
	 * the QP first places into a staged MR */
	struct stage_stream *stage_in[2];
	/* congestion control's cold state (cc.c): read on a CNP, a CE mark
	 * or a paced packet only */
	const struct cc_algo_ops *cc_algo;      /* the RP's algorithm (NULL:
						   never synced) */
	struct cc_grant cc_grant;       /* what it allows, as of its last event */
	uint32_t window_cfg;            /* the CC block's window (or the QP's
					   own), PSNs; 0: no cap */
	/* the loss-adaptive window (window.c), PSNs; awnd 0: off */
	uint32_t awnd, awnd_max;        /* now, and its cap (the BDP's) */
	uint32_t awnd_acked;            /* PSNs acknowledged toward the next +1 */
	uint32_t awnd_recover;          /* a NAK before una passes it: no cut */
	bool awnd_hold;                 /* awnd_recover is set */
	bool rec_window;                /* RC: the adaptive window is on */
	struct cc_algo_priv cc_priv;    /* its state of this QP */
	uint64_t last_cnp;              /* NP: when we last sent it a CNP (ns) */
	uint32_t rate_pub;              /* the rate CC_QP_RATE shows (Mbit/s) */
	bool rate_pub_limited;
	bool cnp_once;                  /* last_cnp is valid */
	/* an algorithm that takes ACKs (Swift): the engine's time each PSN
	   went out at, by PSN modulo the record's size, for an RTT sample on
	   every ACK (cc.c); the TTL of the last response, for its hops; the
	   MTU the algorithm was started with */
	struct cc_sent_at {
		uint32_t psn;           /* bits 23:0; CC_SENT_VALID (cc.h) */
		uint32_t t;             /* ns, modulo 2^32 */
	} cc_sent_at[ROCE_CC_SEND_TIMES];
	uint8_t cc_ttl;
	uint32_t cc_mtu;
	bool cc_karn;                   /* no sample before cc_sample_from */
	uint32_t cc_sample_from;        /* psn_max at the last resend */

	/* WRs of more than ROCE_WQE_SGE SGEs: sgl_len entries per WQE, made
	 * only for a QP that asked for them (send, receive); last, out of
	 * the lines every turn reads (swqe_sgl, rwqe_sgl) */
	struct roce_sge *sgl_s, *sgl_r;
	uint8_t sgl_s_len, sgl_r_len;
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

/* An observer of the engine's memory accesses (mover.c): write or read, the
 * DMA address (DMA_HOST set: host memory, the rest its IOVA; else a DDR
 * address), the bytes (after a write, as written). */
typedef void (*eng_dma_observer)(void *arg, bool write, uint64_t pa,
				 const uint8_t *data, uint32_t len);

/* Run to completion (thread.c): the program's threads drive the engine,
 * the engine thread parks meanwhile. */
#define ENGINE_RTC_HIST 1001            /* takeover delays: 1 us buckets */
struct eng_rtc {
	_Atomic uint32_t handoff_us;    /* 0: the thread never parks */
	_Atomic uint64_t drive_ns;      /* a program's last turn (or try) */
	_Atomic bool released;          /* a program is about to block */
	_Atomic bool parked;            /* the thread waits on its eventfd */
	_Atomic bool driving;           /* a program's thread runs a turn now */
	_Atomic bool watched;           /* the thread or the watchdog looked
					 * (not released): the end of a drive
					 * after the look is a drive */
	_Atomic uint64_t spent_ns;      /* the drive_ns a takeover ended: the
					 * thread parks again on a newer drive only */
	int watch_fd;                   /* the watchdog's eventfd: a park began */
	pthread_t watchdog;
	_Atomic bool rt_ok, rt_refused; /* parked real-time; refused (no
					 * CAP_SYS_NICE or RLIMIT_RTPRIO):
					 * parks at normal priority */
	_Atomic uint64_t driven, thread_turns, parks, takeovers;
	/* the thread writes them, a stats call may read them meanwhile */
	_Atomic uint64_t max_ns;        /* the longest takeover */
	_Atomic uint32_t hist[ENGINE_RTC_HIST];
};

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
	uint32_t tx_self;               /* bit i: staged frame i is to our own MAC */
	uint32_t loop_n;                /* frames in loop (below), for the next turn */

	struct mr_cached mrc[MR_CACHE];
	struct stage_dev *stage;        /* the device's stage hardware */

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
	struct eng_rtc rtc;             /* run to completion (thread.c) */

	/* the NIC's local loopback: frames to our own MAC never reach the
	 * link; they come back into our receive path at the next turn
	 * (allocated at the first one). Last: only such frames read it */
	struct tx_slot *loop;
	uint32_t loop_len[ROCE_TX_BURST];
};


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

/* The register file committed a QP or MR entry the engine has not taken
 * yet (ctx.c takes them): two loads when nothing changed. */
static inline bool engine_changes_pending(struct roce_engine *e)
{
	return idxq_pending(e->qp_changes) || idxq_pending(e->mr_changes);
}

static inline struct swqe *sq_at(struct eng_qp *qp, uint32_t i)
{
	return &qp->swqe[i & qp->sq.mask];
}

/* Where a WQE's SGEs are: in it, or in its slot of the QP's list area
 * (a receive WQE copied from an SRQ has ROCE_WQE_SGE at most) */
static inline const struct roce_sge *swqe_sgl(const struct eng_qp *qp, const struct swqe *w)
{
	return w->num_sge <= ROCE_WQE_SGE ? w->sge
					   : qp->sgl_s + (size_t)(w - qp->swqe) * qp->sgl_s_len;
}

static inline const struct roce_sge *rwqe_sgl(const struct eng_qp *qp, const struct rwqe *w)
{
	return w->num_sge <= ROCE_WQE_SGE ? w->sge
					   : qp->sgl_r + (size_t)(w - qp->rwqe) * qp->sgl_r_len;
}

/* Where a ROCE_SEND_INLINE WQE's bytes are: in the WQE, or in its slot
 * of the QP's inline area */
static inline uint8_t *swqe_inline(const struct eng_qp *qp, struct swqe *w)
{
	return qp->inl ? qp->inl + (size_t)(w - qp->swqe) * qp->inl_len : w->inl;
}

#endif
