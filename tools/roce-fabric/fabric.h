/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric's parts:
 *   roce-fabric.c  command line
 *   hosts.c        the engines on the fabric, their QPs, the flows, the
 *                  virtual-time loop and its samples
 *   report.c       the figures (utilisation, fairness, queue, convergence),
 *                  the text table and --json
 *   plot.c         --plot: per-flow rate and queue depth over time, SVG
 */
#ifndef ROCE_FABRIC_TOOL_H
#define ROCE_FABRIC_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/cc.h"
#include "roce/fabric.h"

#define FAB_MAX_SENDERS 32
#define FAB_BIN_NS 100000u              /* rate bins: 100 us */
#define FAB_SAMPLE_NS 1000u             /* queue samples: 1 us */

struct fab_opts {
	unsigned senders;
	bool dcqcn, paper;
	bool pfc;
	bool victim;                    /* sender 0 also sends to another port */
	uint32_t link_gbps;
	uint32_t duration_ms;
	double late_ms;                 /* the last sender starts then (0: with all) */
	uint32_t kmin_kb, kmax_kb, buffer_kb;
	double pmax;
	uint32_t msg_kb;                /* WRITE size */
	uint32_t window_kb;             /* go-back-N's bound; 0: none */
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
	struct roce_qp_cc cc;           /* the sender QP's DCQCN state at the end */
};

struct fab_run {
	struct fab_opts o;
	unsigned nflows, nbins;
	struct fab_flow flow[FAB_MAX_SENDERS + 1];
	uint32_t *queue;                /* bottleneck queue samples (bytes) */
	uint64_t nsamples;
	uint64_t wire_bins_bytes;       /* unused */
	/* totals */
	uint64_t drops, marks, pauses, cnp_sent, cnp_handled, timeouts, retrans;
	uint64_t queue_max;
	uint64_t *wire;                 /* bottleneck wire bytes per bin */
	/* figures (report.c) */
	double utilization, jain, converge_ms, window_ms;
	uint64_t queue_p99;
	double victim_gbps;
};

int fab_simulate(struct fab_run *r);
void fab_figures(struct fab_run *r);
void fab_print(const struct fab_run *r, FILE *f);
void fab_json(const struct fab_run *r, FILE *f);
int fab_plot(const struct fab_run *r, const char *path);
void fab_free(struct fab_run *r);

#endif
