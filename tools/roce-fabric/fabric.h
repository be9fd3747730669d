/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric's parts:
 *   roce-fabric.c  command line
 *   hosts.c        the engines on the fabric, their QPs, the flows, the
 *                  virtual-time loop and its samples
 *   metrics.c      Jain's index, percentiles, convergence: arithmetic on
 *                  series, nothing of the run (unit-tested alone)
 *   report.c       the figures of a run (utilisation, fairness, queue,
 *                  drops and timeouts before and after convergence), the
 *                  text table (a column per algorithm) and --json
 *   plot.c         --plot: per-flow rate and queue depth over time, SVG,
 *                  a column of panels per algorithm
 */
#ifndef ROCE_FABRIC_TOOL_H
#define ROCE_FABRIC_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/cc.h"
#include "roce/fabric.h"

#define FAB_MAX_SENDERS 256
#define FAB_MAX_CC 4                    /* algorithms in one --cc list */
#define FAB_BIN_NS 100000u              /* rate bins: 100 us */
#define FAB_SAMPLE_NS 1000u             /* queue samples: 1 us */
/* Converged: from the first bin boundary after which every window of
   conv_us (default 1 ms, sliding by a bin) has Jain >= FAB_CONV_JAIN over
   the incast flows and bottleneck utilisation >= FAB_CONV_UTIL. */
#define FAB_CONV_US_DEFAULT 1000u
#define FAB_CONV_JAIN 0.9
#define FAB_CONV_UTIL 0.9

/* --cc: what the reaction point runs */
enum fab_cc {
	FAB_CC_NONE,                    /* no ECN marking by the hosts, no CNP */
	FAB_CC_DCQCN,
	FAB_CC_SWIFT,                   /* roce_cc_config.algo = SWIFT */
};

struct fab_opts {
	unsigned senders;
	enum fab_cc cc;                 /* this run's */
	unsigned ncc;                   /* --cc's list, run in turn */
	enum fab_cc ccs[FAB_MAX_CC];
	bool paper;
	bool pfc;
	bool victim;                    /* sender 0 also sends to another port */
	uint32_t link_gbps;
	uint32_t duration_ms;
	double late_ms;                 /* the last sender starts then (0: with all) */
	uint32_t kmin_kb, kmax_kb, buffer_kb;
	uint32_t xoff_kb, xon_kb;       /* PFC thresholds */
	double pmax;
	uint32_t msg_kb;                /* WRITE size */
	uint32_t window_kb;             /* go-back-N's bound; 0: none */
	uint32_t conv_us;               /* convergence's window */
	bool fixed_rto;                 /* the QPs' IBA timeout only */
	bool read;                      /* the receiver READs instead */
	uint64_t seed;
	const char *plot, *json_file, *pcap;
	unsigned nsets;                 /* --set NAME=VALUE, in order */
	const char *set_name[32];
	uint32_t set_val[32];
	bool json, quiet;
};

struct fab_flow {
	unsigned src, dst;              /* fabric ports */
	uint64_t start_ns;
	uint64_t *bins;                 /* bytes through dst's queue per bin */
	uint64_t bytes;                 /* in the measurement window */
	double gbps;
	struct roce_qp_cc cc;           /* the sender QP's CC state at the end */
};

/* A queue's percentiles over some samples */
struct fab_queue_pct {
	uint32_t p50, p99;
};

struct fab_run {
	struct fab_opts o;
	unsigned nflows, nbins;
	struct fab_flow flow[FAB_MAX_SENDERS + 1];
	uint32_t *queue;                /* bottleneck queue samples (bytes) */
	uint64_t nsamples;
	uint64_t *wire;                 /* bottleneck wire bytes per bin */
	uint32_t *drop_bin;             /* drops at the bottleneck per bin */
	uint32_t *timeout_bin;          /* retransmission timeouts per bin */
	/* totals */
	uint64_t drops, marks, pauses, cnp_sent, cnp_handled, timeouts, retrans;
	uint64_t queue_max;
	/* figures (report.c) */
	bool converged;
	double converge_ms;             /* -1: not converged */
	double window_ms;               /* measured over: from convergence (or
					   the second half) to the end */
	double utilization, jain;       /* over the window */
	struct fab_queue_pct q_run, q_win;
	uint64_t drops_before, drops_after, timeouts_after;
	double victim_gbps;
};

/* metrics.c */
/* Jain's fairness index of n rates, (sum x)^2 / (n sum x^2): 1 when all
   are equal, 1/n when one has it all; 1 for fewer than two or all 0. */
double fab_jain(const double *x, unsigned n);
/* ok[i]: window i (the one starting at bin i) meets the thresholds. The
   first i from which every window on is ok, or n when the last is not. */
unsigned fab_converge(const bool *ok, unsigned n);
/* The p-th percentile (0..1) of n samples, nearest rank below; 0 for none.
   Sorts v. */
uint32_t fab_percentile(uint32_t *v, size_t n, double p);

int fab_simulate(struct fab_run *r);
void fab_figures(struct fab_run *r);
void fab_print(const struct fab_run *runs, unsigned n, FILE *f);
void fab_json(const struct fab_run *r, FILE *f);
int fab_plot(const struct fab_run *runs, unsigned n, const char *path);
void fab_free(struct fab_run *r);
const char *fab_cc_name(const struct fab_opts *o);

#endif
