/* SPDX-License-Identifier: MIT */
/*
 * The pingpong tools' one skeleton, as rdma-core's examples share
 * libibverbs/examples/pingpong.c. roce-pingpong (ibv_rc_pingpong, and
 * ibv_uc_pingpong and ibv_ud_pingpong by its name) and roce-srq-pingpong
 * (ibv_srq_pingpong) are one program: the options and their help
 * (options.c), the endpoint, the out-of-band exchange (roce/oob.h) and
 * the timed run (run.c), the loop of the originals' parse_single_wc and
 * the report (loop.c), the process and the in-memory self-test (main.c).
 *
 * What differs is a kind (struct pp_kind), one per original, given by
 * the tool's own file: its options and their help, its QPs and receive
 * queue, how its QPs connect and which exchange carries them, and the
 * pattern -c checks. Every kind has num_qp QPs, ibv_rc_pingpong's one
 * and ibv_srq_pingpong's -q; the skeleton plays ping-pong on each.
 */
#ifndef ROCE_TOOLS_PINGPONG_H
#define ROCE_TOOLS_PINGPONG_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perf/perf_ep.h"
#include "perf/perf_layout.h"
#include "perf/perf_pp.h"
#include "perf/perf_pp_opts.h"
#include "perf/perf_stage_opts.h"
#include "roce/oob.h"

#define PP_RECV_WRID 1u
#define PP_SEND_WRID 2u
#define PP_MAX_QP ROCE_PP_SRQ_SLOTS     /* srq_pingpong.c MAX_QP */
#define PP_SIZE_MAX (256u << 20)
#define PP_TIMEOUT_S 60u

struct pp;

/* One original: its name, options and help, and its transport's parts. */
struct pp_kind {
	const char *prog;               /* the name in our messages */
	const char *orig;               /* "rc": "Options (ibv_rc_pingpong's)" */
	enum roce_qp_type qpt;          /* UD: the GRH area, an AH per send */
	/* getopt_long's letters: the original's (their long names follow
	 * from them, options.c) */
	const char *optstring;
	const char *refused;            /* letters the optstring takes but this
					 * original has not: "unknown option" */
	unsigned size, num_qp;          /* the original's defaults */
	/* its lines of the help, in the original's order: -s (and -m),
	 * what follows them (-q), the words after "number of exchanges",
	 * the lines before -c and those after it; NULL: none */
	const char *help_size, *help_qp, *help_iters, *help_pre_chk, *help_post_chk;
	/* -c's byte i of a message, 0 at the start of every page (what
	 * the originals check) */
	uint8_t (*pattern)(unsigned i, unsigned page);
	/* Open p->ep from the config the skeleton filled (link, addresses,
	 * buffer rights, GID; nqp num_qp), give it the buffer of layout l,
	 * bring every QP to INIT and set p->wc_max. ROCE_OK, or a status
	 * with p->msg. */
	int (*open)(struct pp *p, struct perf_ep_config *c, const struct perf_layout *l);
	/* The exchange of p->my for p->rem over p->oob, with pp_connect as
	 * its connect (the server's side calls it in between). */
	int (*exchange)(struct pp *p);
	bool qp_index;                  /* messages name the QP: "QP[3]" */
};

struct pp_opts {
	const struct pp_kind *kind;
	uint16_t port;
	unsigned size, num_qp, rx_depth, iters, mtu;
	bool chk, ts, events;
	const char *server;             /* the client's peer; NULL: the server */
	struct perf_pp_net net;         /* --netdev, --link, -g, ... */
	struct perf_ep_stage stage;     /* --stage, --key-file, --data-unit,
					 * --dun-base, --save-ddr: the buffer's
					 * MR (perf_stage_opts.h) */
};

struct pp {
	struct pp_opts o;
	FILE *out;
	int lfd;                        /* the listening socket, when open */
	struct perf_ep ep;
	struct roce_oob oob;
	struct roce_pp_dest my[PP_MAX_QP], rem[PP_MAX_QP];
	unsigned pending[PP_MAX_QP];    /* per QP: the WR ids not yet completed */
	unsigned page, routs, wc_max;
	unsigned off;                   /* the message's place in the buffer:
					 * UD's follows the 40-byte GRH area */
	uint64_t ts_prev, ts_min, ts_max, ts_sum, ts_n;
	char msg[320];
};

/* p->msg from fmt; returns st, or ROCE_E_IO for 0. */
int pp_fail(struct pp *p, int st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* options.c: the command line into o; 0, -1 after --help, else the exit
 * status (2 a bad command line, 1 an unsupported option). */
int pp_parse(const struct pp_kind *kind, int argc, char **argv, struct pp_opts *o);

/* run.c: the whole run of one side; ROCE_OK, or a status with p->msg. */
int pp_run(struct pp *p, struct roce_memlink *ml);
/* pp_connect_ctx(): every QP to RTS toward rem[i] (a struct pp *p as
 * arg); ROCE_OK, or a status with p->msg. */
int pp_connect(void *arg, const struct roce_pp_dest *rem);

/* loop.c: the receives, a send on QP q, the loop, the report. */
unsigned pp_post_recv(struct pp *p, unsigned n);
int pp_post_send(struct pp *p, unsigned q);
int pp_loop(struct pp *p);
void pp_results(struct pp *p, uint64_t ns);

/* main.c: a tool's main(): parse, run (or the self-test), exit status. */
int pp_main(const struct pp_kind *kind, int argc, char **argv);

#endif
