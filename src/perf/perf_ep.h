/* SPDX-License-Identifier: MIT */
/*
 * The local end of a test tool (roce-pingpong, roce-perf): a link port
 * (AF_PACKET or AF_XDP on a network interface, or the in-memory link for the
 * self-test), an engine powered on through its register file, one PD, a
 * send and a receive CQ, nqp RC or UC QPs (as many as the device offers) and
 * one registered buffer in device DDR, with the rights and the layout the
 * original tool gives them (perf_layout.h). The tools are single-threaded
 * as the originals are: the thread that polls the CQs also runs the engine
 * (perf_ep_progress), so a machine with few cores does not lose one to an
 * engine thread spinning beside it. With events (the originals' -e) the
 * engine runs on its own thread instead, the CQs are on a completion
 * channel, and the tool sleeps on the channel when a CQ is empty
 * (perf_ep_idle).
 */
#ifndef ROCE_PERF_EP_H
#define ROCE_PERF_EP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/cc_options.h"
#include "roce/link_open.h"
#include "roce/stage_config.h"
#include "roce/verbs.h"

/* --stage: the buffer's MR bound to a stage chain (docs/stages.md), so a
 * peer's WRITEs and READs, and our own, go through it. */
struct perf_ep_stage {
	struct roce_stage_config cfg;   /* no chain: a plain MR */
	const char *save_ddr;           /* at close: the MR as stored */
};

struct perf_ep_config {
	const char *netdev;             /* the port's interface */
	enum roce_link_kind link;       /* --link: ROCE_LINK_PACKET or _XDP
					 * (sharing the interface with the
					 * kernel's stack) */
	enum roce_afxdp_mode xdp_mode;  /* ROCE_LINK_XDP */
	uint32_t ip;                    /* ours, host order; 0 = the netdev's */
	/* IPv6 addresses of ours beyond those the netdev carries (--ip6):
	 * the GID table is the link-local GID, the IPv4 one, the netdev's
	 * global IPv6 addresses, then these (roce/gid.h) */
	uint8_t ip6[ROCE_MAX_IP6][16];
	unsigned n_ip6;
	struct roce_memlink *memlink;   /* instead of netdev: the self-test */
	unsigned nqp;
	enum roce_qp_type qp_type;      /* ROCE_QPT_RC (0), ROCE_QPT_UC or
					 * ROCE_QPT_UD */
	size_t max_buf;                 /* the largest buffer perf_ep_buffer()
					 * will ask for, with its alignment:
					 * sizes the device DDR */
	unsigned qp_access;             /* qp_access_flags at INIT */
	const char *mmap_file;          /* --mmap: the DDR starts with this
					 * file from mmap_offset on, so the
					 * buffer can be seen through it */
	uint64_t mmap_offset;
	uint32_t sq_depth, rq_depth;
	uint32_t scq_per_qp, rcq_per_qp; /* completions a QP may leave unpolled
					 * in the send, the receive CQ (the
					 * CQs hold that times nqp); 0: the
					 * queue's depth */
	unsigned timeout_ms;            /* ARP resolution */
	bool counters;                  /* print the engine's counters on close */
	bool events;                    /* -e: a completion channel, the engine
					 * on its own thread */
	uint32_t one_cq;                /* not 0: one CQ of this many entries for
					 * sends and receives (scq == rcq), as
					 * the pingpong examples have */
	uint32_t srq_depth;             /* not 0: the QPs take their receives
					 * from one SRQ of this depth (srq) */
	bool cm_qps;                    /* the QPs come later from the RDMA CM
					 * (roce-perf -R): none made here, the
					 * engine on its own thread (the CM's
					 * thread needs it running) */
	const struct perf_ep_stage *stage; /* NULL or no chain: a plain MR */
	const struct roce_cc_options *cc;  /* --iba-strict, --cc ...: written
					    * before any QP; NULL or nothing
					    * asked: the device's defaults */
};

struct perf_ep {
	struct roce_context *ctx;
	struct roce_link *link;         /* the port and our addresses */
	uint32_t ip;                    /* ours (the link's) */
	enum roce_mtu link_mtu;         /* largest path MTU the link carries */
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;      /* may be one CQ (one_cq) */
	struct roce_srq *srq;           /* srq_depth: the QPs' receive queue */
	struct roce_qp **qp;            /* nqp of them, allocated at open */
	struct roce_ah **ah;            /* UD: QP i's AH to its peer (connect) */
	uint32_t *ud_qpn;               /* UD: QP i's peer QPN (connect) */
	uint32_t ud_qkey;               /* UD: the peers' Q_Key: PERF_UD_QKEY,
					 * or -R's RDMA_UDP_QKEY (SIDR) */
	bool *init_done;
	unsigned nqp;                   /* QPs made so far */
	enum roce_qp_type qp_type;
	unsigned qp_access;
	uint8_t *buf;
	size_t len;
	struct roce_mr *mr;
	const char *mmap_file;          /* the DDR's file window, if any */
	uint64_t mmap_offset;
	size_t mmap_len;                /* bytes of the file in the window */
	unsigned timeout_ms;
	bool counters;
	struct roce_comp_channel *channel; /* events: both CQs' */
	bool thread;                    /* the engine runs on its own thread */
	uint64_t events;                /* completion events taken */
	struct perf_ep_stage stage;     /* the buffer's stages (perf_stage.c) */
	uint8_t *pi;                    /* their PI area in DDR, or NULL */
	char err[256];
};

struct perf_conn {
	uint32_t dest_qpn, rq_psn, sq_psn;
	uint32_t peer_ip;               /* host order; with a GRH, the TCP
					 * peer's (the in-memory link's MACs
					 * come from it) */
	/* a GRH (the tools' -g/-x): our GID sgid_index, the peer's dgid;
	 * without one, RoCE v2 over IPv4 to peer_ip */
	bool grh;
	uint8_t sgid_index;
	uint8_t dgid[16];
	enum roce_mtu mtu;
	uint8_t timeout, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	int tclass;                     /* the IP traffic class (TOS) of the
					 * QP's packets (perftest's --tclass);
					 * < 0 or 0: none */
};

/* The Q_Key of the tools' UD QPs and of their WRs: ibv_ud_pingpong's
 * 0x11111111, which is perftest's DEF_QKEY too. */
#define PERF_UD_QKEY 0x11111111u

/* ROCE_OK or a status with ep->err saying what failed: ROCE_E_RANGE for
 * more QPs than the device offers, or CQs deeper than it makes. On
 * failure the endpoint is closed again. */
int perf_ep_open(struct perf_ep *ep, const struct perf_ep_config *c);
/* The RC QPs the device offers a tool: its QP entries less the reserved
 * QPNs below ROCE_FIRST_QPN. ep NULL (or not open): a full-size device's. */
unsigned perf_ep_qp_limit(const struct perf_ep *ep);
/* The buffer: len bytes of DDR at an align-aligned address (the file
 * window's start with --mmap), zeroed, and one MR over it with access
 * (enum roce_access bits). Once, after perf_ep_open; ROCE_OK or a status
 * with ep->err (the endpoint stays open). */
int perf_ep_buffer(struct perf_ep *ep, size_t len, size_t align, unsigned access);
/* perf_stage.c. With stages, the MR's length rounded up to their unit
 * (the buffer is allocated that long). */
size_t perf_stage_mr_len(const struct perf_ep_stage *s, size_t len);
/* Bind the buffer's MR to ep->stage (the key loaded into slot 0, the PI
 * area and dedup's pool in DDR) and say so on out; ROCE_OK at once
 * without stages, else a status with ep->err. */
int perf_stage_bind(struct perf_ep *ep, FILE *out);
/* At close: --save-ddr's file, the stage counters on out, the PI area
 * freed. A failed save is said on stderr. */
void perf_stage_close(struct perf_ep *ep, FILE *out);
void perf_ep_close(struct perf_ep *ep);
/* QP i to INIT (receives may be posted from then on). */
int perf_ep_init(struct perf_ep *ep, unsigned i);
/* QP i: [RESET -> INIT ->] RTR -> RTS toward the peer (its MAC by ARP, or
 * neighbour discovery for an IPv6 DGID). A UC QP takes no timeout, retry,
 * RNR or READ/atomic attribute (c's are ignored), as ibv_uc_pingpong and
 * perftest -c UC give none. A UD QP takes the SQ PSN only, and the peer
 * becomes ep->ah[i] and ep->ud_qpn[i], what its WRs name. */
int perf_ep_connect(struct perf_ep *ep, unsigned i, const struct perf_conn *c);
/* Run the engine once; frames moved (the OOB idle hook: a perf_ep *).
 * With the engine on its own thread: a yield of the CPU, 0. */
unsigned perf_ep_progress(void *ep);
/*
 * A poll found the CQs empty. Polling: nothing to do. With events: sleep
 * on the channel until a completion event comes, then acknowledge it and
 * arm its CQ again, as perftest's ctx_notify_events() and
 * ibv_rc_pingpong's loop do (the caller polls next, so a completion that
 * came before the arm is found). Returns after PERF_EP_EVENT_SLICE_MS
 * without one, so the caller's time limits still run. ROCE_OK (an event
 * or the slice over), or a status with ep->err.
 */
int perf_ep_idle(struct perf_ep *ep);
#define PERF_EP_EVENT_SLICE_MS 100u
/* GID index of the endpoint's table into gid (ROCE_OK), or why not: its
 * message in ep->err, as ibv_rc_pingpong's "can't read sgid of index". */
int perf_ep_gid(struct perf_ep *ep, int index, uint8_t gid[16]);
/* ibverbs MTU enum from bytes (256..4096), 0 if not one of them. */
enum roce_mtu perf_mtu_from_bytes(unsigned bytes);

#endif
