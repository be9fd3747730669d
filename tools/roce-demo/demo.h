/* SPDX-License-Identifier: MIT */
/*
 * roce-demo's shared state: the options, the two NICs, the steps of a run
 * and their results, and the functions the files of the tool call across.
 *
 *   options.c   command line
 *   step.c      the steps: names, outcomes
 *   nic.c       the two NICs: open, register, connect, read back, close
 *   drive.c     driving the engines: post, poll, completions
 *   ad.c        the advertisement's wire format
 *   flow.c      the seed's flow: advertisement, WRITE, READ, atomics
 *   perf.c      the perftest-style bandwidth table and WRITE latency
 *   report.c    the text report
 *   json.c      the JSON report
 *   vtime.c     --virtual-time: the one clock, moved by the link's load
 *   stage.c     --stage: A's MR bound to a stage chain, what its DDR holds
 */
#ifndef ROCE_DEMO_H
#define ROCE_DEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "roce/cc_options.h"
#include "roce/counters.h"
#include "roce/driver.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/stage_config.h"
#include "roce/verbs.h"

#define MIB              (1024.0 * 1024.0)      /* perftest's MB */
#define PAGE             4096u
#define QP_DEPTH         (2u * ROCE_DEMO_BW_DEPTH)

/* ---- options (options.c) ------------------------------------------------ */

struct opts {
	enum roce_mtu mtu;
	uint64_t size;
	uint32_t iters;
	double loss, reorder, duplicate, corrupt;       /* percent */
	uint64_t seed;
	uint32_t qp_count;                              /* each NIC's; 0 = default */
	const char *pcap;
	const char *trace;                              /* --trace FILE */
	bool threads, quick, json, all_counters;
	struct roce_cc_options cc;                      /* --iba-strict, --window,
							   --adaptive-rto, --rto-min-us */
	bool virtual_time;                              /* --virtual-time */
	struct roce_stage_config stage;                 /* --stage ...; no chain: none */
	const char *save_ddr, *save_read;               /* --save-ddr, --save-read */
};

static inline bool demo_staged(const struct opts *o)
{
	return o->stage.chain[0] != ROCE_STAGE_NONE;
}

/* 0 to run, 1 after --help (exit 0), 2 on a bad option. */
int demo_parse_args(int argc, char **argv, struct opts *o);

/* ---- the advertisement (ad.c) ------------------------------------------- */

#define AD_LEN          36u
#define AD_COUNTER_INIT 1000u   /* the atomics' counter before the flow */

struct demo_ad {
	uint8_t mac[6];
	uint32_t ip;
	uint64_t base, size;
	uint32_t rkey;
};

void demo_ad_pack(const struct demo_ad *ad, uint8_t b[AD_LEN]);
/* NULL when b holds a valid advertisement, else what is wrong with it. */
const char *demo_ad_parse(const uint8_t *b, uint32_t len, struct demo_ad *ad);

/* ---- the NICs, the steps, the results ----------------------------------- */

struct nic {
	const char *name;
	uint8_t mac[6];
	uint32_t ip;
	uint32_t sq_psn;
	unsigned access;                /* QP access flags */
	struct roce_port port;
	struct roce_context *ctx;
	struct roce_drv *drv;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	uint8_t *buf;                   /* device DDR, see struct demo */
	size_t len;
	struct roce_mr *mr[2];
	int n_mr;
	/* read back through the register file */
	struct roce_dev_info dev;
	struct roce_endpoint ep;
	struct roce_qp_ctx qpc;
	struct roce_mr_ctx mrc[2];
	struct roce_counter_value cnt[ROCE_CNT_COUNT];
	size_t n_cnt;
	uint64_t vt_tx_bytes;           /* TX_BYTES at the last virtual tick */
};

enum step_id { ST_SETUP, ST_ADVERTISE, ST_WRITE, ST_READ, ST_FETCH_ADD,
	       ST_CMP_SWAP, ST_BANDWIDTH, ST_LATENCY, ST_COUNTERS, ST_COUNT };

enum step_state { STEP_NOT_RUN, STEP_PASS, STEP_FAIL };

struct step {
	const char *key;                /* JSON name */
	const char *label;              /* "a".."e" for the seed's flow */
	const char *title;
	enum step_state st;
	char detail[512];
};

struct bw_row {
	const char *op;
	uint32_t bytes, iters;
	double peak, avg, mpps;         /* MB/s (2^20), MB/s, Mpps */
};

struct lat {
	uint32_t n;
	double min, p50, avg, p99, max; /* microseconds */
};

#define BW_ROWS 9

/*
 * Memory: A exposes region = [A.buf, +region_len): the flow's WRITE/READ
 * target (and the bandwidth rows') with the counter in its last 8 bytes,
 * registered with remote rights; behind it, a scratch buffer of
 * ROCE_DEMO_BW_MAX_MSG (the advertisement's source, SEND rows' receives)
 * in an MR of its own with local rights only. B holds, in one local MR:
 * the pattern [0, size_r), the read-back buffer [size_r, 2 size_r), the
 * atomics' result and the advertisement's receive buffer in the next page,
 * then the bandwidth rows' source.
 */
struct demo {
	struct opts o;
	struct roce_memlink *link;
	struct roce_memlink_stats ls;
	struct nic a, b;
	size_t size_r, region_len;
	size_t b_back, b_result, b_adbuf, b_bwsrc;
	struct demo_ad ad;              /* as B parsed it */
	uint32_t rq_out;                /* receives posted on A, not completed */
	struct step step[ST_COUNT];
	struct bw_row bw[BW_ROWS];
	int n_bw;
	struct lat lat;
	struct trace_writer *trace;     /* --trace, both NICs' records */
	uint8_t *pi;                    /* --stage with PI: the area in A's DDR */
	struct roce_stage_binding bind; /* --stage: A's MR's binding */
};

/* ---- the clock (vtime.c) -------------------------------------------------- */

/* With --virtual-time, the one clock of both engines, their link-ready
 * models, the link and this tool's timing: only demo_kick moves it. */
extern struct demo_clock {
	bool on;
	uint64_t ns;
} demo_clock;

/* The clock as roce_context_attr and roce_memlink_config take one. */
uint64_t demo_clock_read(void *ctx);
/* After both engines polled once: move the virtual clock by the wire
 * time of what they sent (demo_kick). */
void demo_clock_tick(struct demo *d);
/* Where each NIC's DDR lies in a virtual-time run (NULL otherwise), so
 * that its addresses, and the trace, repeat. */
void *demo_ddr_at(const struct demo *d, const struct nic *n);

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	if (demo_clock.on)
		return demo_clock.ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* MB/s, perftest's MB (2^20 bytes). */
static inline double mbs(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / MIB * 1e9 / (double)ns : 0;
}

/* ---- steps (step.c) ----------------------------------------------------- */

void demo_steps_init(struct demo *d);
/* Record a step's outcome and its one-line story; true when it passed. */
bool demo_step_set(struct step *s, enum step_state st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define step_fail(s, ...) demo_step_set(s, STEP_FAIL, __VA_ARGS__)
#define step_pass(s, ...) demo_step_set(s, STEP_PASS, __VA_ARGS__)
/* The first step that failed, or -1. */
int demo_first_failed(const struct demo *d);

/* ---- the NICs (nic.c) --------------------------------------------------- */

/* The link first: a capture file that cannot be created is a bad option. */
int demo_link_open(struct demo *d);
bool demo_open(struct demo *d);
/* Stop the engines, read both NICs' counters and the link's statistics. */
void demo_finish(struct demo *d);
void demo_close(struct demo *d);

/* ---- driving the engines (drive.c) -------------------------------------- */

void demo_kick(struct demo *d);
bool demo_wait_one(struct demo *d, struct roce_cq *cq, struct roce_wc *wc,
		   struct step *s, const char *what);
int demo_reap(struct roce_cq *cq, uint64_t *t, uint32_t *done,
	      struct step *s, const char *what);
void demo_wr_init(struct roce_send_wr *wr, struct roce_sge *sge,
		  enum roce_wr_opcode op, const struct nic *n, size_t off,
		  uint32_t len, int mr);
void demo_wr_to_ad(struct demo *d, struct roce_send_wr *wr,
		   struct roce_sge *sge, enum roce_wr_opcode op, size_t off,
		   uint32_t len);
bool demo_post_wait(struct demo *d, struct nic *n, struct roce_send_wr *wr,
		    struct step *s, const char *what);

/* ---- the seed's flow (flow.c) and the measurements (perf.c) -------------- */

bool demo_step_advertise(struct demo *d, struct step *s);
bool demo_step_write(struct demo *d, struct step *s);
bool demo_step_read(struct demo *d, struct step *s);
bool demo_step_fetch_add(struct demo *d, struct step *s);
bool demo_step_cmp_swap(struct demo *d, struct step *s);

bool demo_run_bandwidth(struct demo *d, struct step *s);
bool demo_run_latency(struct demo *d, struct lat *l, struct step *s);

/* ---- the inline stages (stage.c) ---------------------------------------- */

/* --stage: the key into A's slot 0, the PI area in A's DDR, A's exposed
 * MR bound (nothing without --stage). */
bool demo_stage_bind(struct demo *d, struct step *s);
/* The flow's pattern: with dedup, blocks in pairs (block 2k + 1 a copy of
 * block 2k), so that dedup has something to save. */
void demo_stage_pattern(const struct demo *d, uint8_t *p, size_t n);
/* After the flow's READ: what A's DDR holds, beside what was sent, and the
 * --save-ddr and --save-read files. False (s failed) when a file cannot be
 * written. */
bool demo_stage_show(struct demo *d, struct step *s);
void demo_stage_close(struct demo *d);

/* ---- reports (report.c, json.c) ----------------------------------------- */

void demo_print_banner(const struct demo *d);
void demo_print_nic(const struct nic *n);
void demo_print_step(const struct step *s);
void demo_print_bw_head(const struct demo *d);
void demo_print_bw_row(const struct bw_row *r);
void demo_print_latency(const struct demo *d);
void demo_print_counters(const struct demo *d);
void demo_print_summary(const struct demo *d, int failed);
void demo_print_json(const struct demo *d, int failed);

#endif
