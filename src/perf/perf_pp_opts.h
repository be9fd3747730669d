/* SPDX-License-Identifier: MIT */
/*
 * The options every pingpong tool (roce-pingpong and its UC and UD names,
 * roce-srq-pingpong) takes beside its original's: the interface and its
 * port, our addresses, the GID (-g, --ip6), the wait bound, the counters,
 * the in-memory self-test; and the number and error helpers their parsers
 * share.
 */
#ifndef ROCE_PERF_PP_OPTS_H
#define ROCE_PERF_PP_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "perf/perf_pp.h"
#include "roce/cc_options.h"
#include "roce/link_open.h"

struct perf_pp_net {
	const char *netdev;             /* --netdev */
	enum roce_link_kind link;       /* --link */
	enum roce_afxdp_mode xdp_mode;  /* --xdp-mode */
	uint32_t ip;                    /* --ip; 0: the interface's */
	unsigned timeout_s;             /* --timeout */
	bool counters;                  /* --counters */
	bool selftest;                  /* --memlink-selftest */
	struct perf_pp_gid gid;         /* -g, --ip6 */
	struct roce_cc_options cc;      /* --iba-strict */
};

#define PERF_PP_NET_INIT(timeout) { .timeout_s = (timeout), .gid = PERF_PP_GID_INIT, \
				     .cc = { .algo = -1 } }

/* getopt_long values of the long options, after every character */
enum { PERF_PP_OPT_NETDEV = 256, PERF_PP_OPT_IP, PERF_PP_OPT_IP6, PERF_PP_OPT_LINK,
       PERF_PP_OPT_XDP_MODE, PERF_PP_OPT_TIMEOUT, PERF_PP_OPT_COUNTERS,
       PERF_PP_OPT_SELFTEST, PERF_PP_OPT_IBA_STRICT };

/* Their entries of a struct option table (-g's is the tool's own). */
#define PERF_PP_NET_LONGOPTS                                                   \
	{ "netdev", 1, NULL, PERF_PP_OPT_NETDEV }, { "ip", 1, NULL, PERF_PP_OPT_IP }, \
	{ "ip6", 1, NULL, PERF_PP_OPT_IP6 }, { "link", 1, NULL, PERF_PP_OPT_LINK },  \
	{ "xdp-mode", 1, NULL, PERF_PP_OPT_XDP_MODE },                                \
	{ "timeout", 1, NULL, PERF_PP_OPT_TIMEOUT },                                  \
	{ "counters", 0, NULL, PERF_PP_OPT_COUNTERS },                                \
	{ "memlink-selftest", 0, NULL, PERF_PP_OPT_SELFTEST },                        \
	{ "iba-strict", 0, NULL, PERF_PP_OPT_IBA_STRICT }

/* s as an unsigned number (decimal, 0x hex) in [min, max]. */
bool perf_pp_num(const char *s, unsigned long min, unsigned long max, unsigned *out);
/* "PROG: bad WHAT 'VAL' (try --help)" on stderr; returns 2 (usage). */
int perf_pp_bad(const char *prog, const char *what, const char *val);
/* Option c (-g or one of the long ones above) with its value a: 0 taken,
 * 2 a bad value (said on stderr), 1 not one of these. */
int perf_pp_net_opt(const char *prog, int c, const char *a, struct perf_pp_net *o);

#endif
