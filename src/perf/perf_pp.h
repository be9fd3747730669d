/* SPDX-License-Identifier: MIT */
/*
 * The GID part of the pingpong examples (roce-pingpong, roce-uc-pingpong,
 * roce-srq-pingpong), as rdma-core v44.0 libibverbs/examples/rc_pingpong.c
 * and srq_pingpong.c have it: -g picks our GID from the port's table
 * (ibv_query_gid in main), the exchange carries it, and pp_connect_ctx
 * gives the QPs a GRH toward the peer's GID when the peer sent one. Here
 * an IPv6 GID on both sides makes the QPs speak RoCE v2 over IPv6; without
 * -g our GID is the IPv4 one and the QPs have no GRH, as before -g.
 * ibv_srq_pingpong uses one GID for all its QPs, the first slot's of the
 * peer (dest->gid), so one route serves every QP.
 */
#ifndef ROCE_PERF_PP_H
#define ROCE_PERF_PP_H

#include <stddef.h>
#include <stdint.h>

#include "perf/perf_ep.h"

/* The --help lines of -g and of --ip6, the same in every pingpong tool. */
#define PERF_PP_GID_HELP \
"  -g, --gid-idx=<index>  our GID: 0 the link-local IPv6 one (from the MAC),\n" \
"                         1 the IPv4 one, then the interface's IPv6 addresses\n" \
"                         and --ip6's; an IPv6 GID makes it RoCE v2 over IPv6\n" \
"                         (default: the IPv4 GID, ::ffff:<ip>)\n"
#define PERF_PP_IP6_HELP \
"  --ip6=ADDR             an IPv6 address of ours the interface does not carry\n" \
"                         (a GID after the interface's; repeatable; our port\n" \
"                         answers neighbour discovery for it)\n"

struct perf_pp_gid {
	int gidx;                       /* -g; -1: none, our IPv4 GID */
	uint8_t ip6[ROCE_MAX_IP6][16];  /* --ip6 */
	unsigned n_ip6;
};

/* No -g, no --ip6. */
#define PERF_PP_GID_INIT { .gidx = -1 }

/* -g VALUE: ROCE_OK, or ROCE_E_INVAL when it is no index of a GID table. */
int perf_pp_gid_opt(struct perf_pp_gid *g, const char *val);
/* --ip6 VALUE: ROCE_OK, ROCE_E_FULL for one more than ROCE_MAX_IP6, or
 * ROCE_E_INVAL when it is not a unicast IPv6 address (an IPv4-mapped one
 * is the IPv4 GID). */
int perf_pp_ip6_opt(struct perf_pp_gid *g, const char *val);
/* The --ip6 addresses into the endpoint's configuration. */
void perf_pp_gid_config(const struct perf_pp_gid *g, struct perf_ep_config *c);
/* Our GID: the -g entry of the endpoint's table, or the IPv4 GID without
 * -g. ROCE_OK, or a status with ep->err ("can't read sgid of index N"). */
int perf_pp_my_gid(const struct perf_pp_gid *g, struct perf_ep *ep, uint8_t gid[16]);
/*
 * The route to the peer whose GID is rem (all zero: it sent none), ours
 * being mine, into c: a GRH from our -g GID to rem when both sides have a
 * GID, else RoCE v2 over IPv4 to rem's IPv4 address or to tcp_ip, the
 * out-of-band peer's (c->peer_ip is set either way: the in-memory link
 * takes MACs from it). ROCE_E_UNSUPPORTED, with a sentence in err, for a
 * peer whose GID is IPv6 when we have no -g, an IPv6 GID of ours toward a
 * peer that sent none, or GIDs of two kinds (one IPv4, one IPv6).
 */
int perf_pp_route(const struct perf_pp_gid *g, const uint8_t mine[16], const uint8_t rem[16],
		  uint32_t tcp_ip, struct perf_conn *c, char *err, size_t errlen);

#endif
