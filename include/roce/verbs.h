/* SPDX-License-Identifier: MIT */
/*
 * The verbs API: what an RDMA programmer knows from libibverbs, in front of
 * the engine. Opaque handles, post_send(qp, wr, &bad_wr), poll_cq(cq, n,
 * wc[]), enums with string tables. Values of the enums are ibverbs' own, so
 * code moves between the two with a rename.
 *
 * A context owns one device model (register file, tables, DDR), its host
 * driver, and the engine that runs the data path on a link port. Every QP
 * and MR setting is written through the register file (roce/driver.h), so
 * the model is configured exactly as the board is.
 *
 * Buffers: the engine's memory is the device DDR. roce_mem_alloc() hands
 * out DDR; roce_reg_mr() registers a range of it. roce_reg_host_mr()
 * registers the program's own memory (malloc, mmap) instead: the engine
 * reaches it through an IOMMU window the context maps for it alone, and
 * nothing outside the window (docs/design.md, "Host memory"). A virtual
 * address is the buffer's pointer value, as with ibverbs, so the peer
 * uses it in RETHs.
 *
 * Threads: post_send, post_recv and poll_cq are lock-free (single producer,
 * single consumer queues) and may run on another thread than the engine.
 * Control calls (create, modify, destroy) may too; they take the engine's
 * lock. The engine runs when roce_engine_poll() is called, or on its own
 * thread (roce_engine_start()). post_srq_recv may run on several threads
 * at once (it takes the SRQ's lock, as ibv_post_srq_recv is thread-safe).
 *
 * Events: a thread that sleeps on a completion channel or on the
 * asynchronous event fd is woken by the engine, so the engine must run
 * meanwhile: on its own thread (roce_engine_start()) or on another thread
 * that calls roce_engine_poll().
 */
#ifndef ROCE_VERBS_H
#define ROCE_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/device.h"
#include "roce/gid.h"
#include "roce/link.h"
#include "roce/regs.h"
#include "roce/stage.h"

struct roce_context;
struct roce_pd;
struct roce_mr;
struct roce_cq;
struct roce_qp;
struct roce_ah;
struct roce_srq;
struct roce_comp_channel;

/* ---- context ------------------------------------------------------------ */

/* IPv6 addresses a port may carry beside its link-local one */
#define ROCE_MAX_IP6 (ROCE_MAX_GID - 2u)

struct trace_writer;

struct roce_context_attr {
	uint8_t mac[6];                 /* station address (MAC_LOW/HIGH) */
	uint32_t ip;                    /* IPv4, host order (IP_ADDR) */
	/* the port's other IPv6 addresses (global, ULA, a link-local one
	 * that is not the MAC's): GIDs 2.. of its table (roce/gid.h) */
	uint8_t ip6[ROCE_MAX_IP6][ROCE_GID_LEN];
	unsigned n_ip6;
	struct roce_port *port;         /* the link; required */
	struct roce_device_config dev;  /* device model: DDR size, link delay,
	                                 * QP count */
	uint32_t link_timeout_ms;       /* power-on wait for link-ready; 0 = default */
	/* the port's active MTU (ibv_port_attr.active_mtu): the largest UD
	 * message; 0 = ROCE_MTU_4096. The tools give the link's, as rxe
	 * takes its port's from the netdev's MTU */
	enum roce_mtu port_mtu;
	uint64_t (*now_ns)(void *ctx);  /* engine clock (timers); NULL = monotonic */
	void *clock_ctx;
	/* the transaction trace (docs/trace.md; src/common/trace.h, for the
	 * tools of this tree): every register access, frame, DMA and
	 * completion of this NIC as records of NIC trace_nic, at now_ns's
	 * time (or real time since its first record); NULL = none */
	struct trace_writer *trace;
	uint32_t trace_nic;
	/* MR key bytes: 0 = random (getrandom), else drawn from this seed,
	 * for a run that must repeat exactly (roce-demo --virtual-time) */
	uint64_t key_seed;
};

/* Create the device, run the power-on sequence through the driver (soft
 * reset, addresses, wait for link-ready, enable) and attach the engine to
 * the port. ROCE_E_INVAL for an IPv6 address that cannot be a GID,
 * ROCE_E_FULL for more than the GID table holds. */
int roce_open(const struct roce_context_attr *attr, struct roce_context **out);
void roce_close(struct roce_context *ctx);

struct roce_device *roce_context_device(struct roce_context *ctx);

/* ibv_query_gid / ibv_query_gid_type: entry index of port's GID table
 * (roce/gid.h: 0 the link-local GID, 1 the IPv4 one, then the IPv6
 * addresses). port must be 1; ROCE_E_INVAL otherwise, ROCE_E_NOENT for an
 * index past the entries the port has. */
int roce_query_gid(struct roce_context *ctx, uint8_t port, int index,
		   uint8_t gid[ROCE_GID_LEN]);
int roce_query_gid_type(struct roce_context *ctx, uint8_t port, int index,
			enum roce_gid_type *type);
/* The whole table (for listing it). */
const struct roce_gid_table *roce_context_gids(struct roce_context *ctx);
struct roce_drv *roce_context_driver(struct roce_context *ctx);
/* The port's active MTU (ibv_query_port's active_mtu). */
enum roce_mtu roce_context_port_mtu(struct roce_context *ctx);

/* Run the data path once: receive a burst, run timers, transmit a burst.
 * Returns how many frames moved (0 = idle). */
unsigned roce_engine_poll(struct roce_context *ctx);
/* Run the engine on its own thread (pinned to cpu, -1 = not pinned). The
 * thread polls without pause while anything moves; once nothing has
 * moved for ROCE_IDLE_AFTER_US it sleeps until a frame arrives or a work
 * request is posted (ROCE_IDLE_SLEEP_MS at most), where the port can wake
 * it (the in-memory link without delay or faults, AF_XDP, AF_PACKET but
 * on a TPACKET_V3 ring) and nothing
 * waits on a timer; otherwise it naps ROCE_IDLE_NAP_US between polls
 * (interrupt moderation: a few % of a core, and the first frame after a
 * quiet spell waits up to a nap). */
int roce_engine_start(struct roce_context *ctx, int cpu);
void roce_engine_stop(struct roce_context *ctx);
/* The engine thread's idle policy: nap nap_us between polls once idle for
 * after_us (or sleep, see roce_engine_start); after_us 0 = never nap nor
 * sleep (pure polling, as DPDK). ROCE_E_RANGE for a nap of 0 or over
 * 100 ms. Takes effect at once, thread or not. */
int roce_engine_set_idle(struct roce_context *ctx, uint32_t after_us, uint32_t nap_us);
/* The longest the idle engine thread sleeps before it looks again by
 * itself (the driver may change a QP through the register file, which
 * wakes nothing); 0 = never sleep, nap instead. ROCE_E_RANGE over an hour. */
int roce_engine_set_sleep(struct roce_context *ctx, uint32_t max_ms);
/* How often the engine thread went to sleep, and how often it was woken
 * (by a frame or a work request, not by the time limit). */
void roce_engine_sleep_stats(struct roce_context *ctx, uint64_t *sleeps,
			     uint64_t *wakeups);

/* Run to completion (docs/verbs.md): the caller's thread runs one turn
 * of the engine unless another thread is running one (then it returns at
 * once, without waiting). Frames moved. */
unsigned roce_engine_drive(struct roce_context *ctx);
/* The caller found nothing and will drive again (it spins on a CQ): with
 * a handoff set (roce_engine_set_handoff) the engine thread parks while
 * callers wait so, and takes over handoff_us after the last. */
void roce_engine_waiting(struct roce_context *ctx);
/* The caller is about to block (a completion channel, a socket): the
 * engine thread takes over now instead of handoff_us later. */
void roce_engine_release(struct roce_context *ctx);
/* The engine thread parks while callers drive within handoff_us (and
 * takes over after); 0 = off, the thread runs as roce_engine_start says
 * (the default). ROCE_E_RANGE over ROCE_RTC_HANDOFF_MAX_US. */
int roce_engine_set_handoff(struct roce_context *ctx, uint32_t handoff_us);
struct roce_engine_rtc_stats {
	uint32_t handoff_us;
	uint64_t driven;                /* turns run by callers */
	uint64_t thread_turns;          /* turns run by the engine thread */
	uint64_t parks;                 /* times the thread parked */
	uint64_t takeovers;             /* ... and took over again */
	/* from the last drive to the thread running again: p50, p99 (1 us
	 * steps, 1000 us at most: "at least"), the longest */
	uint32_t takeover_p50_us, takeover_p99_us;
	uint64_t takeover_max_ns;
	/* the thread parks at real-time priority (SCHED_FIFO 1), so that
	 * its deadline preempts whatever holds the core; false where that
	 * was refused (no CAP_SYS_NICE or RLIMIT_RTPRIO): it parks at
	 * normal priority, on time while a core is free */
	bool parks_realtime;
};
void roce_engine_rtc_stats(struct roce_context *ctx, struct roce_engine_rtc_stats *s);

/* DDR for buffers (control path; not for the per-packet path). */
void *roce_mem_alloc(struct roce_context *ctx, size_t len, size_t align);
void roce_mem_free(struct roce_context *ctx, void *p);

/* ---- protection domain, memory region ----------------------------------- */

struct roce_pd *roce_alloc_pd(struct roce_context *ctx);
int roce_dealloc_pd(struct roce_pd *pd);

struct roce_mr {
	struct roce_context *ctx;
	struct roce_pd *pd;
	void *addr;
	size_t length;
	uint32_t lkey, rkey;
	uint32_t index;                 /* MR table entry */
	unsigned access;
};

/* access: enum roce_access bits. addr must lie in the DDR (roce_mem_alloc).
 * The key byte is random, so keys are not guessable from the index. */
struct roce_mr *roce_reg_mr(struct roce_pd *pd, void *addr, size_t length,
			    unsigned access);
/* Host memory: [addr, addr + length) of the program's own, mapped into an
 * IOMMU window for the engine, and an MR entry in the host space over it;
 * va = addr, keys as roce_reg_mr's. The memory must stay allocated until
 * roce_dereg_mr, which unmaps the window. NULL with errno: EINVAL (pd or
 * addr NULL, length 0, access bits the entry refuses), EOVERFLOW (the
 * range wraps or is longer than a window, 1 TiB less a page), ENOMEM (no
 * window or MR entry free). */
struct roce_mr *roce_reg_host_mr(struct roce_pd *pd, void *addr, size_t length,
				 unsigned access);
int roce_dereg_mr(struct roce_mr *mr);
/* As ibv_rereg_mr with IBV_REREG_MR_CHANGE_PD and/or _ACCESS (rxe's
 * two): the MR's entry moves to pd and/or takes access, its range and
 * keys kept; the entry is rewritten whole through the register file, so
 * the engine's next key check sees the new one. ROCE_E_INVAL for no
 * flag, another flag (a new translation is refused), a pd of another
 * context or rights the entry refuses; the MR is as before on error. */
#define ROCE_REREG_PD     (1u << 1)
#define ROCE_REREG_ACCESS (1u << 2)
int roce_rereg_mr(struct roce_mr *mr, unsigned flags, struct roce_pd *pd, unsigned access);

/* ---- inline stages (roce/stage.h, docs/stages.md) ------------------------- */

/* Bind mr to a stage chain (NULL or an all-zero binding: none), written
 * with its entry through the MR window. ROCE_E_INVAL for a binding
 * roce_stage_binding_check refuses (nothing changes); the MR's bytes at
 * that moment are taken as stored (PI: their tuples are generated). */
int roce_mr_set_stage(struct roce_mr *mr, const struct roce_stage_binding *b);
/* Load an AES-256-XTS key (two 32-byte halves, which must differ) into
 * key slot slot, or clear it. The key is never readable back. */
int roce_stage_key_load(struct roce_context *ctx, unsigned slot,
			const uint8_t key[ROCE_STAGE_KEY_LEN]);
int roce_stage_key_clear(struct roce_context *ctx, unsigned slot);

/* ---- completion queue --------------------------------------------------- */

enum roce_wc_status {
	ROCE_WC_SUCCESS = 0,
	ROCE_WC_LOC_LEN_ERR = 1,
	ROCE_WC_LOC_QP_OP_ERR = 2,
	ROCE_WC_LOC_PROT_ERR = 4,
	ROCE_WC_WR_FLUSH_ERR = 5,
	ROCE_WC_MW_BIND_ERR = 6,
	ROCE_WC_BAD_RESP_ERR = 7,
	ROCE_WC_LOC_ACCESS_ERR = 8,
	ROCE_WC_REM_INV_REQ_ERR = 9,
	ROCE_WC_REM_ACCESS_ERR = 10,
	ROCE_WC_REM_OP_ERR = 11,
	ROCE_WC_RETRY_EXC_ERR = 12,
	ROCE_WC_RNR_RETRY_EXC_ERR = 13,
	ROCE_WC_FATAL_ERR = 19,
	ROCE_WC_GENERAL_ERR = 21,
};

enum roce_wc_opcode {
	ROCE_WC_SEND = 0,
	ROCE_WC_RDMA_WRITE = 1,
	ROCE_WC_RDMA_READ = 2,
	ROCE_WC_COMP_SWAP = 3,
	ROCE_WC_FETCH_ADD = 4,
	ROCE_WC_RECV = 128,
	ROCE_WC_RECV_RDMA_WITH_IMM = 129,
};

/* The GRH area at the head of every UD receive buffer (IBA 11.4.1.2:
 * the first 40 bytes take the GRH, whether one came or not); the message
 * follows it, and byte_len counts both. RoCE v2 puts the IP header there:
 * IPv4's in the last 20 bytes after 20 zero ones, IPv6's in all 40
 * (ud.c). It is also how the host learns the sender's address: the
 * completion has only src_qp, as ibv_wc has. */
#define ROCE_GRH_LEN 40u

enum roce_wc_flags {
	ROCE_WC_GRH = 1u << 0,          /* UD: the receive buffer starts with
					 * the 40-byte GRH area (ud.c) */
	ROCE_WC_WITH_IMM = 1u << 1,
	ROCE_WC_IPV6 = 1u << 2,         /* UD: the datagram came over IPv6 (its
					 * GRH area holds an IPv6 header) */
};

struct roce_wc {
	uint64_t wr_id;
	enum roce_wc_status status;
	enum roce_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t imm_data;              /* network order, as ibverbs */
	uint32_t qp_num;
	uint32_t src_qp;                /* UD: the sender's QPN (its DETH) */
	unsigned wc_flags;
};

const char *roce_wc_status_str(enum roce_wc_status status);
const char *roce_wc_opcode_str(enum roce_wc_opcode opcode);

/* cqe: capacity (rounded up to a power of two). */
struct roce_cq *roce_create_cq(struct roce_context *ctx, int cqe);
/* As ibv_create_cq(ctx, cqe, cq_context, channel, 0): a CQ whose
 * completion events (roce_req_notify_cq) go to channel (NULL: none);
 * roce_get_cq_event hands back cq_context with it. */
struct roce_cq *roce_create_cq_channel(struct roce_context *ctx, int cqe, void *cq_context,
				       struct roce_comp_channel *channel);
/* ROCE_E_BUSY, and the CQ stays, while completion events that
 * roce_get_cq_event returned, or asynchronous events, are not acknowledged
 * (ibv_destroy_cq waits for them instead; refusing keeps a program that
 * forgot an ack from hanging). Events raised and not yet taken are dropped
 * with the CQ, as the kernel drops them. */
int roce_destroy_cq(struct roce_cq *cq);
/* As ibv_resize_cq: the CQ holds cqe completions from now on (1 ..
 * ROCE_MAX_CQE, else ROCE_E_RANGE), those it holds kept in order;
 * ROCE_E_INVAL when it holds more than cqe, ROCE_E_FULL when it
 * overran, ROCE_E_NOMEM; the CQ is as before on every error. One thread
 * at a time with the polls of the same CQ, as polling itself. */
int roce_resize_cq(struct roce_cq *cq, int cqe);
/* Returns the number of completions stored in wc (0..n), or a negative
 * status (-ROCE_E_FULL: the CQ overflowed and completions were lost). */
int roce_poll_cq(struct roce_cq *cq, int n, struct roce_wc *wc);

/* ---- completion channels (src/verbs/channel.c) ------------------------- */

/*
 * A completion channel is a file descriptor (an eventfd) that is readable
 * while completion events wait in it; poll, epoll or select it, or make it
 * non-blocking with fcntl(O_NONBLOCK) as with ibv_comp_channel's fd.
 *
 * The libibverbs cycle: roce_req_notify_cq arms a CQ for one event; the
 * engine raises it at the next completion (solicited_only: the next
 * receive completion of a message sent with the solicited event bit, or
 * the next completion in error; IBA 11.4.2.2, ibv_req_notify_cq(3)); the
 * host takes it with roce_get_cq_event, acknowledges it with
 * roce_ack_cq_events, arms again and polls the CQ empty (a completion that
 * came before the arm raises nothing: the poll finds it).
 */
struct roce_comp_channel *roce_create_comp_channel(struct roce_context *ctx);
/* ROCE_E_BUSY while CQs use the channel (ibv_destroy_comp_channel). */
int roce_destroy_comp_channel(struct roce_comp_channel *channel);
int roce_comp_channel_fd(const struct roce_comp_channel *channel);
/* Arm cq for one event; ROCE_E_INVAL for a CQ without a channel. */
int roce_req_notify_cq(struct roce_cq *cq, int solicited_only);
/* The next event: blocks until one comes unless the fd is non-blocking
 * (then ROCE_E_AGAIN when none waits); ROCE_E_INTR when a signal whose
 * handler has no SA_RESTART interrupts the wait; ROCE_E_IO on a read
 * error. */
int roce_get_cq_event(struct roce_comp_channel *channel, struct roce_cq **cq,
		      void **cq_context);
void roce_ack_cq_events(struct roce_cq *cq, unsigned int nevents);

/* ---- asynchronous events (src/verbs/async.c) ----------------------------- */

/* ibverbs' enum ibv_event_type values; the engine raises those named
 * below the enum. */
enum roce_event_type {
	ROCE_EVENT_CQ_ERR = 0,
	ROCE_EVENT_QP_FATAL = 1,
	ROCE_EVENT_QP_REQ_ERR = 2,
	ROCE_EVENT_QP_ACCESS_ERR = 3,
	ROCE_EVENT_COMM_EST = 4,
	ROCE_EVENT_SQ_DRAINED = 5,
	ROCE_EVENT_PATH_MIG = 6,
	ROCE_EVENT_PATH_MIG_ERR = 7,
	ROCE_EVENT_DEVICE_FATAL = 8,
	ROCE_EVENT_PORT_ACTIVE = 9,
	ROCE_EVENT_PORT_ERR = 10,
	ROCE_EVENT_LID_CHANGE = 11,
	ROCE_EVENT_PKEY_CHANGE = 12,
	ROCE_EVENT_SM_CHANGE = 13,
	ROCE_EVENT_SRQ_ERR = 14,
	ROCE_EVENT_SRQ_LIMIT_REACHED = 15,
	ROCE_EVENT_QP_LAST_WQE_REACHED = 16,
};
/*
 * Raised by the engine:
 *   CQ_ERR             a completion found its CQ full (overrun, IBA 11.4.2.1);
 *                      once, as the CQ stays in error
 *   QP_FATAL           the engine moved the QP to ERR (retries exhausted, a
 *                      NAK it cannot recover from, a request it refused)
 *   SRQ_LIMIT_REACHED  the SRQ's WQE count fell below its armed limit;
 *                      the limit is then disarmed (ibv_modify_srq(3))
 *   QP_LAST_WQE_REACHED  a QP on an SRQ entered ERR (by the engine or the
 *                      host) and will take no more of its WQEs; after
 *                      QP_FATAL when the engine moved it
 *   PORT_ERR, PORT_ACTIVE  the device's link went down (soft reset held) or
 *                      came up again (link-ready), port_num 1
 */
struct roce_async_event {
	union {
		struct roce_cq *cq;
		struct roce_qp *qp;
		struct roce_srq *srq;
		int port_num;
	} element;
	enum roce_event_type event_type;
};

const char *roce_event_type_str(enum roce_event_type type);
/* The context's asynchronous event fd (ibv_context's async_fd): readable
 * while events wait; blocking unless set O_NONBLOCK. */
int roce_async_fd(const struct roce_context *ctx);
/*
 * The next asynchronous event, blocking as ibv_get_async_event unless the
 * fd is non-blocking (ROCE_E_AGAIN when none waits). Each must be
 * acknowledged; an object with events not acknowledged is not destroyed
 * (ROCE_E_BUSY). The queue holds ROCE_ASYNC_QUEUE events; one that finds
 * it full is dropped and counted (roce_async_events_lost). An event whose
 * object was destroyed before it was read is never returned (the fd may
 * have been readable for it). A signal interrupts a blocking wait as it
 * does roce_get_cq_event's (ROCE_E_INTR).
 */
int roce_get_async_event(struct roce_context *ctx, struct roce_async_event *event);
void roce_ack_async_event(struct roce_async_event *event);
uint64_t roce_async_events_lost(struct roce_context *ctx);

/* ---- queue pair --------------------------------------------------------- */

struct roce_qp_cap {
	uint32_t max_send_wr, max_recv_wr;
	uint32_t max_send_sge, max_recv_sge;
	/* the longest ROCE_SEND_INLINE message (0..ROCE_MAX_INLINE; 0:
	 * none): up to the WQE's SGE room it costs nothing, beyond it a
	 * QP holds that many bytes per send WQE */
	uint32_t max_inline_data;
};

struct roce_qp_init_attr {
	struct roce_cq *send_cq, *recv_cq;
	struct roce_qp_cap cap;
	enum roce_qp_type qp_type;      /* ROCE_QPT_RC, _UC, _UD, or _GSI (QP1) */
	bool sq_sig_all;
	struct roce_srq *srq;           /* receive WQEs from this SRQ (then
					 * max_recv_wr/sge are ignored and
					 * roce_post_recv is refused) */
};

enum roce_qp_attr_mask {
	ROCE_QP_STATE = 1u << 0,
	ROCE_QP_ACCESS_FLAGS = 1u << 3,
	ROCE_QP_PKEY_INDEX = 1u << 4,
	ROCE_QP_QKEY = 1u << 6,
	ROCE_QP_AV = 1u << 7,
	ROCE_QP_PATH_MTU = 1u << 8,
	ROCE_QP_TIMEOUT = 1u << 9,
	ROCE_QP_RETRY_CNT = 1u << 10,
	ROCE_QP_RNR_RETRY = 1u << 11,
	ROCE_QP_RQ_PSN = 1u << 12,
	ROCE_QP_MAX_QP_RD_ATOMIC = 1u << 13,
	ROCE_QP_MIN_RNR_TIMER = 1u << 15,
	ROCE_QP_SQ_PSN = 1u << 16,
	ROCE_QP_MAX_DEST_RD_ATOMIC = 1u << 17,
	ROCE_QP_DEST_QPN = 1u << 20,
};

/* The GRH of an address vector (ibv_global_route): RoCE v2 carries it
 * as the IP header. */
struct roce_global_route {
	uint8_t dgid[ROCE_GID_LEN];     /* the peer's GID */
	uint32_t flow_label;            /* 0 = none */
	uint8_t sgid_index;             /* our GID (roce_query_gid) */
	uint8_t hop_limit;              /* see roce_modify_qp */
	uint8_t traffic_class;
};

/* Address vector: where the peer is. With is_global the GID says it, and
 * the family follows the SGID, as with ibverbs on RoCE v2 (an IPv4-mapped
 * SGID needs an IPv4-mapped DGID: RoCE v2 over IPv4; any other, an IPv6
 * DGID); without it dest_ip does (IPv4). */
struct roce_ah_attr {
	uint32_t dest_ip;               /* host order, when !is_global */
	uint8_t dest_mac[6];
	bool is_global;
	struct roce_global_route grh;
};

struct roce_qp_attr {
	enum roce_qp_state qp_state;
	enum roce_mtu path_mtu;
	uint32_t qp_access_flags;
	uint32_t dest_qp_num;
	uint32_t rq_psn, sq_psn;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint16_t pkey;                  /* P_Key itself (the table has one entry) */
	uint32_t qkey;                  /* UD: the Q_Key its receives must carry */
	struct roce_ah_attr ah_attr;
};

/* QP1, the General Services Interface's QP (IBA 13.4.6, 13.5): a UD QP
 * whose QPN is always 1 and whose Q_Key is the well-known GSI one, which
 * its receives must carry (Linux: IB_QP1_QKEY; rxe: GSI_QKEY). One per
 * port. Not a QP type of the register file: its context is a UD QP's. */
#define ROCE_QPT_GSI ((enum roce_qp_type)1)
#define ROCE_GSI_QPN 1u
#define ROCE_GSI_QKEY 0x80010000u

/*
 * An RC, UC or UD QP in RESET. Its QPN is a free one from ROCE_FIRST_QPN up to the
 * device's QP_COUNT - 1 (read when the context was opened); each create
 * and destroy costs O(1). NULL when refused; roce_create_qp_status says
 * why: ROCE_E_INVAL (bad attr), ROCE_E_NOMEM, ROCE_E_FULL (every QPN below
 * QP_COUNT is in use) or the driver's error writing the QP context.
 * ROCE_QPT_GSI makes QP1 (above): ROCE_E_EXISTS while one exists. A UD
 * QP's context MTU is the port's (roce_context_attr.port_mtu): a UD
 * message must fit one packet of it.
 * roce_destroy_qp: ROCE_E_BUSY while asynchronous events of the QP are not
 * acknowledged.
 */
struct roce_qp *roce_create_qp(struct roce_pd *pd, const struct roce_qp_init_attr *attr);
int roce_create_qp_status(struct roce_pd *pd, const struct roce_qp_init_attr *attr,
			  struct roce_qp **out);
int roce_destroy_qp(struct roce_qp *qp);
uint32_t roce_qp_num(const struct roce_qp *qp);
/* RESET -> INIT -> RTR -> RTS as with ibverbs; mask says which fields.
 * ROCE_E_INVAL for a UC QP's mask naming the timeout, retry, RNR or
 * READ/atomic attributes, as ibv_modify_qp refuses them for UC; for a UD
 * QP's naming those or the path (AV, path MTU, destination QPN, RQ PSN,
 * access flags), which a UD QP does not have (IBA 11.2.5.3: INIT takes
 * the P_Key and the Q_Key, RTS the SQ PSN); for an RC or UC QP's naming
 * the Q_Key; for a Q_Key on QP1 other than ROCE_GSI_QKEY.
 *
 * ROCE_QP_AV with a GRH: ROCE_E_INVAL for an SGID index the port has not,
 * or a DGID of the other family or not unicast. The hop limit is the
 * route's (64) whatever the AV says, as the kernel sets it for RoCE
 * (ib_resolve_unicast_gid_dmac); traffic class and flow label are the
 * AV's. */
int roce_modify_qp(struct roce_qp *qp, const struct roce_qp_attr *attr, unsigned mask);
/* The QP context as the register file holds it (LOAD). */
int roce_query_qp(struct roce_qp *qp, struct roce_qp_attr *attr);

/* ---- address handle ----------------------------------------------------- */

/*
 * ibv_create_ah: where a UD message goes (the peer's IPv4 address or GID,
 * its MAC, the GRH fields), as an address vector for roce_modify_qp is
 * checked (ROCE_E_INVAL: an SGID index the port has not, a DGID of the
 * other family or not unicast, a flow label over 20 bits, a MAC that is
 * not unicast). The caller resolves the MAC (ARP, neighbour discovery),
 * as for a QP's AV. The hop limit is the route's (64), as for a QP. The
 * AH stays on the host: post_send copies its address vector into the
 * WQE, so an AH may be destroyed once its WRs are posted.
 */
struct roce_ah *roce_create_ah(struct roce_pd *pd, const struct roce_ah_attr *attr);
int roce_create_ah_status(struct roce_pd *pd, const struct roce_ah_attr *attr,
			  struct roce_ah **out);
int roce_destroy_ah(struct roce_ah *ah);

struct roce_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

enum roce_wr_opcode {
	ROCE_WR_RDMA_WRITE = 0,
	ROCE_WR_RDMA_WRITE_WITH_IMM = 1,
	ROCE_WR_SEND = 2,
	ROCE_WR_SEND_WITH_IMM = 3,
	ROCE_WR_RDMA_READ = 4,
	ROCE_WR_ATOMIC_CMP_AND_SWP = 5,
	ROCE_WR_ATOMIC_FETCH_AND_ADD = 6,
};

enum roce_send_flags {
	ROCE_SEND_FENCE = 1u << 0,
	ROCE_SEND_SIGNALED = 1u << 1,
	ROCE_SEND_SOLICITED = 1u << 2,
	/* SEND and WRITE: the SGEs' addr are the bytes' own addresses (no
	 * L_Key), copied into the WQE at post, so the buffer is free again
	 * when post returns (ibverbs' IBV_SEND_INLINE); at most the QP's
	 * max_inline_data bytes */
	ROCE_SEND_INLINE = 1u << 3,
};

struct roce_send_wr {
	uint64_t wr_id;
	struct roce_send_wr *next;
	struct roce_sge *sg_list;
	int num_sge;
	enum roce_wr_opcode opcode;
	unsigned send_flags;
	uint32_t imm_data;              /* network order, as ibverbs */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		/* UD: the destination. A remote_qkey with its high-order bit
		 * set stands for the QP's own Q_Key (ud.c) */
		struct {
			struct roce_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
};

struct roce_recv_wr {
	uint64_t wr_id;
	struct roce_recv_wr *next;
	struct roce_sge *sg_list;
	int num_sge;
};

/* Returns ROCE_OK, or an error with *bad_wr at the first WR not posted:
 * ROCE_E_FULL (queue full), ROCE_E_INVAL (bad opcode, too many SGEs; a
 * READ or atomic on a UC QP; on a UD QP anything but a SEND, or no AH or
 * one of another PD; ROCE_SEND_INLINE on a READ or atomic, or over the
 * QP's max_inline_data),
 * ROCE_E_STATE (QP in RESET or INIT for sends); roce_post_recv: ROCE_E_INVAL
 * for a QP on an SRQ (roce_post_srq_recv). */
int roce_post_send(struct roce_qp *qp, struct roce_send_wr *wr,
		   struct roce_send_wr **bad_wr);
/* The send WQEs the QP's send queue takes now (the posting thread's
 * view: the engine only frees slots): a caller that must post a batch
 * whole or not at all (ibv_wr_complete) asks first. */
uint32_t roce_qp_sq_room(const struct roce_qp *qp);
int roce_post_recv(struct roce_qp *qp, struct roce_recv_wr *wr,
		   struct roce_recv_wr **bad_wr);

/* ---- shared receive queue (src/verbs/srq.c) ------------------------------ */

struct roce_srq_attr {
	uint32_t max_wr;                /* WQEs it holds (rounded up) */
	uint32_t max_sge;               /* SGEs per WQE (1..ROCE_MAX_SGE) */
	uint32_t srq_limit;             /* armed limit, 0 = none */
};

struct roce_srq_init_attr {
	void *srq_context;
	struct roce_srq_attr attr;
};

enum roce_srq_attr_mask {
	ROCE_SRQ_MAX_WR = 1u << 0,      /* resize: not supported */
	ROCE_SRQ_LIMIT = 1u << 1,
};

/*
 * An SRQ of the PD: RC QPs created with it take their receive WQEs from it
 * in posting order, each message one WQE; the completion goes to the QP's
 * own receive CQ with its qp_num. With none left the responder answers
 * RNR NAK, as for an empty receive queue. A non-zero srq_limit arms the
 * limit at once, as rxe does (ibv_create_srq(3) calls it irrelevant).
 * attr->attr gets the sizes made. NULL when refused (a size out of range,
 * memory).
 */
struct roce_srq *roce_create_srq(struct roce_pd *pd, struct roce_srq_init_attr *attr);
/* ROCE_SRQ_LIMIT arms the limit (0 disarms): SRQ_LIMIT_REACHED once the
 * count of WQEs drops below it, then disarmed. ROCE_E_RANGE for a limit
 * above max_wr, ROCE_E_UNSUPPORTED for ROCE_SRQ_MAX_WR. */
int roce_modify_srq(struct roce_srq *srq, const struct roce_srq_attr *attr, unsigned mask);
/* max_wr, max_sge and the limit armed now (0 once it fired). */
int roce_query_srq(struct roce_srq *srq, struct roce_srq_attr *attr);
/* ROCE_E_BUSY while QPs use it or its asynchronous events are not
 * acknowledged. */
int roce_destroy_srq(struct roce_srq *srq);
/* As roce_post_recv; safe from several threads at once. */
int roce_post_srq_recv(struct roce_srq *srq, struct roce_recv_wr *wr,
		       struct roce_recv_wr **bad_wr);

/* Test and fault hooks. */
/* Stall the local DMA engine: WRITE/SEND data reads time out after
 * timeout_us and complete with ROCE_WC_GENERAL_ERR (seed 001 WRITE_DATA). */
void roce_engine_set_dma_stall(struct roce_context *ctx, bool stall, uint32_t timeout_us);

#endif
