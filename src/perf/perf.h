/* SPDX-License-Identifier: MIT */
/*
 * roce-perf: perftest's tests (ib_write_bw, ib_read_bw, ib_send_bw,
 * ib_write_lat, ib_read_lat, ib_send_lat, ib_atomic_bw) on this engine,
 * speaking perftest 4.5's out-of-band exchange (roce/oob.h) so either side
 * may be the real perftest on a real RDMA NIC or on Linux soft-RoCE.
 *
 *   perf_args.c    the command line (perftest's flags and defaults)
 *   perf_report.c  perftest's result tables
 *   perf_ep.c      the local endpoint: link, engine, QPs, buffer
 *   perf_bw.c      bandwidth runs; perf_bi.c send_bw -b; perf_lat.c latency runs
 *   perf_flow.c    the test's sequence of exchanges (who syncs when)
 *   perf_check.c   the content check (--check)
 *   perf_cm.c      -R: the exchange and the QPs through the RDMA CM
 *                  (perf_cm_event.c its events, perf_cm_comm.c the exchange's
 *                  QP, perf_cm_ud.c UD after SIDR)
 */
#ifndef ROCE_PERF_H
#define ROCE_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perf/perf_ep.h"
#include "roce/cc_options.h"
#include "roce/memlink.h"
#include "roce/oob.h"
#include "roce/verbs.h"

/* perftest's VerbType order (testsStr[] and the address print depend on it) */
enum perf_verb { PERF_SEND, PERF_WRITE, PERF_READ, PERF_ATOMIC };
enum perf_tst { PERF_BW, PERF_LAT };
enum perf_atomic { PERF_CMP_AND_SWAP, PERF_FETCH_AND_ADD };
/* perftest's ctx_report_fmt (MBS by default, GBS with --report_gbits); the
 * order differs from perftest's enum so that zeroed options mean MB/sec */
enum perf_fmt { PERF_MBS, PERF_GBS };

/* perftest_parameters.h values */
#define PERF_DEF_SIZE_BW        65536u
#define PERF_DEF_SIZE_LAT       2u
#define PERF_DEF_ITERS          1000u
#define PERF_DEF_ITERS_WB       5000u
#define PERF_DEF_TX_BW          128u
#define PERF_DEF_TX_LAT         1u
#define PERF_DEF_QP_TIME        14u
#define PERF_DEF_RX_SEND        512u
#define PERF_DEF_CQ_MOD         100u
#define PERF_DEF_DURATION       5u
#define PERF_MIN_ITER           5u
#define PERF_MAX_ITER           100000000u
#define PERF_MAX_TX             15000u
#define PERF_MAX_RX             16384u
#define PERF_UC_MAX_RX          16000u     /* UC_MAX_RX */
#define PERF_MAX_SIZE           8388608u   /* -a goes up to 2^23 */
#define PERF_MIN_QP             1u         /* MIN_QP_NUM */
#define PERF_MAX_QP             16384u     /* MAX_QP_NUM; the device may offer
					    * fewer (perf_ep_qp_limit) */
#define PERF_CACHE_LINE         64u
#define PERF_MAX_CYCLE          65536u     /* largest page/cache line we accept */
#define PERF_CQ_MOD_LIMIT       8192u      /* MSG_SIZE_CQ_MOD_LIMIT */
#define PERF_MIN_RNR_TIMER      12u
#define PERF_ATOMIC_ADD         1u         /* ATOMIC_ADD_VALUE */
#define PERF_TIMEOUT_S_DEFAULT  60u
#define PERF_POLL_BATCH         16u        /* CTX_POLL_BATCH */
#define PERF_SELFTEST_RING      8192u      /* in-memory link: an 8 MiB message in flight */
/* print_report_bw()'s format_factor: bytes per reported unit, MB = 2^20
 * bytes (0x100000), Gb = 10^9 bits (125000000 bytes) */
#define PERF_FMT_FACTOR_MBS     1048576.0
#define PERF_FMT_FACTOR_GBS     125000000.0

struct perf_opts {
	const char *name;               /* "write_bw" */
	enum perf_verb verb;
	enum perf_tst tst;
	enum roce_qp_type conn;         /* -c: ROCE_QPT_RC, ROCE_QPT_UC or _UD (not
					 * with READ or atomics, as perftest) */
	uint64_t size;
	bool size_set;
	uint64_t iters;
	bool duration_mode;
	unsigned duration, margin;      /* seconds */
	unsigned nqp;
	unsigned mtu;                   /* bytes, 0 = the link's */
	int gid_index;                  /* -x: our GID (roce/gid.h's table) */
	bool gid_set;                   /* -x given; else our GID is the IPv4
					 * one, ::ffff:<ip> */
	unsigned qp_timeout;
	unsigned tx_depth, rx_depth, cq_mod;
	bool cq_mod_set;
	int out_reads;                  /* 0 = the engine's maximum */
	bool run_all, cpu_freq_f, no_peak;
	bool duplex;                    /* -b: both sides send */
	bool report_both;               /* --report-both: -b's two directions apart */
	enum perf_fmt report_fmt;       /* --report_gbits: Gb/sec */
	enum perf_atomic atomic;
	uint16_t port;
	const char *ib_dev;
	unsigned ib_port;
	const char *netdev;
	enum roce_link_kind link;       /* --link */
	enum roce_afxdp_mode xdp_mode;  /* --xdp-mode */
	uint32_t ip;                    /* host order, 0 = the netdev's */
	uint8_t ip6[ROCE_MAX_IP6][16];  /* --ip6: more IPv6 GIDs */
	unsigned n_ip6;
	bool check;
	const char *mmap_file;          /* --mmap: the buffer in this file */
	uint64_t mmap_offset;           /* --mmap-offset */
	bool counters;                  /* --counters */
	int tclass;                     /* --tclass: the QPs' IP traffic class
					 * (TOS); -1: none given (0) */
	struct roce_cc_options cc;      /* --cc, --cc-algo, --iba-strict,
					 * --window, --adaptive-rto
					 * (roce/cc_options.h) */
	bool events;                    /* -e: sleep on a completion channel */
	bool rdma_cm;                   /* -R: connect through the RDMA CM, the
					 * exchange over a CM-connected QP */
	unsigned timeout_s;
	const char *server;             /* NULL: we are the server */
	bool selftest;                  /* --memlink-selftest */
	struct perf_ep_stage stage;     /* --stage, --key-file, --data-unit,
					 * --dun-base, --save-ddr */
};

/* 0 ok, 1 --help/--version printed (exit 0), 2 bad command line (message
 * on err). test may be NULL (taken from argv[1]). */
int perf_parse(int argc, char **argv, struct perf_opts *o, FILE *out, FILE *err);
void perf_usage(FILE *f, const char *argv0);
const char *perf_test_name(enum perf_verb v, enum perf_tst t);

/* ---- results ------------------------------------------------------------ */

struct perf_bw_result {
	uint64_t size, iters;
	double bw_peak, bw_avg, msg_rate;   /* MB/s (2^20) or Gb/s, Mpps */
};

struct perf_lat_result {
	uint64_t size, iters;
	double t_min, t_max, t_typical, t_avg, t_stdev, p99, p999; /* usec */
};

#define PERF_RESULT_LINE "---------------------------------------------------------------------------------------\n"
#define PERF_RESULT_FMT_BW " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
#define PERF_RESULT_FMT_BW_G " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
#define PERF_RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
#define PERF_RESULT_FMT_LAT_DUR " #bytes        #iterations       t_avg[usec]    tps average\n"

void perf_print_bw(FILE *f, const struct perf_bw_result *r);
/* The bandwidth table's header in the unit of fmt (RESULT_FMT, RESULT_FMT_G). */
const char *perf_bw_header(enum perf_fmt fmt);
/* print_full_bw_report(): my line, or with rem (-b) the sum of both sides';
 * in Gb/sec a line gets six decimals (REPORT_FMT_EXT) when this side's
 * own average is under 0.1, whatever the sum. */
void perf_print_full_bw(FILE *f, enum perf_fmt fmt, const struct perf_bw_result *my,
			const struct perf_bw_result *rem);
/* --report-both with -b: the "Local results" and "Remote results" tables
 * (atomic_bw prints the two titles without perftest's other tests' space
 * before the line's end). */
void perf_print_report_both(FILE *f, enum perf_fmt fmt, bool atomic,
			    const struct perf_bw_result *my, const struct perf_bw_result *rem);
void perf_print_lat(FILE *f, const struct perf_lat_result *r);
void perf_print_lat_dur(FILE *f, uint64_t size, uint64_t iters, double t_avg, double tps);

/* print_report_bw(): from post/completion times (ns) of iters messages;
 * t_done[i] is when message i (0-based) was known complete. Without peak,
 * only t_post[0] and t_done[0] are used. Bandwidths in the unit of fmt. */
void perf_bw_compute(uint64_t size, uint64_t iters, const uint64_t *t_post,
		     const uint64_t *t_done, unsigned cq_mod, bool peak,
		     enum perf_fmt fmt, struct perf_bw_result *r);
/* print_report_lat(): from iters post times (ns), rtt_factor 2 for
 * ping-pong tests (half the round trip), 1 for READ/atomic. Sorts a copy;
 * needs iters >= 4. */
int perf_lat_compute(uint64_t size, uint64_t iters, const uint64_t *t_post,
		     unsigned rtt_factor, struct perf_lat_result *r);

/* ---- the content check -------------------------------------------------- */

uint8_t perf_pat_bw(unsigned qp, uint64_t off);
uint8_t perf_pat_lat(uint64_t iter, uint64_t x);
void perf_fill_bw(uint8_t *p, unsigned qp, uint64_t off, uint64_t len);
/* Index of the first byte that differs, or -1. */
int64_t perf_verify_bw(const uint8_t *p, unsigned qp, uint64_t off, uint64_t len);
void perf_fill_lat(uint8_t *p, uint64_t iter, uint64_t len);
int64_t perf_verify_lat(const uint8_t *p, uint64_t iter, uint64_t len);

#endif
