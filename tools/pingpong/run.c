/* SPDX-License-Identifier: MIT */
/*
 * One side of a pingpong run, in the originals' order: the endpoint (the
 * kind's QPs, on the buffer and rights of the pingpong examples), the
 * receives posted, the local address lines, the out-of-band exchange
 * (roce/oob.h) with the connection made in it, the remote address lines,
 * the client's first sends, the timed loop (loop.c) and its report.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "pingpong/pingpong.h"
#include "roce/status.h"

int pp_fail(struct pp *p, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return st ? st : ROCE_E_IO;
}

/* "  local address:  LID ..." and "  remote address: LID ...";
 * ud_pingpong's local line has ": GID" where the others have ", GID" */
static void print_dest(struct pp *p, const char *what, const struct roce_pp_dest *d, char sep)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, d->gid, gid, sizeof(gid));
	fprintf(p->out, "  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x%c GID %s\n", what,
		d->lid, d->qpn, d->psn, sep, gid);
}

/* pp_connect_ctx(): one route for every QP, from the first slot's GID
 * (srq_pingpong uses dest->gid for all): a GRH from our -g GID when both
 * sides have one, else the peer's IPv4 address or the TCP peer's
 * (perf_pp.h); rc_pingpong's attributes: -m's path MTU (at most the
 * link's), timeout 14, min RNR timer 12, one READ each way */
int pp_connect(void *arg, const struct roce_pp_dest *rem)
{
	struct pp *p = arg;
	struct perf_conn route = { 0 };
	int st = perf_pp_route(&p->o.net.gid, p->my[0].gid, rem[0].gid,
			       roce_oob_peer_ip(&p->oob), &route, p->msg, sizeof(p->msg));

	if (st)
		return st;
	for (unsigned i = 0; i < p->o.num_qp; i++) {
		struct perf_conn c = route;

		c.dest_qpn = rem[i].qpn;
		c.rq_psn = rem[i].psn;
		c.sq_psn = p->my[i].psn;
		c.mtu = perf_mtu_from_bytes(p->o.mtu);
		c.timeout = 14;
		c.min_rnr_timer = 12;
		c.max_rd_atomic = c.max_dest_rd_atomic = 1;
		if (c.mtu > p->ep.link_mtu)
			c.mtu = p->ep.link_mtu;
		if ((st = perf_ep_connect(&p->ep, i, &c)) == ROCE_OK)
			continue;
		if (p->o.kind->qp_index)
			return pp_fail(p, st, "Failed to modify QP[%u] to RTR/RTS: %s", i, p->ep.err);
		return pp_fail(p, st, "Failed to connect the QP: %s", p->ep.err);
	}
	return ROCE_OK;
}

static int exchange(struct pp *p)
{
	int st;

	/* the exchange keeps the engine running, unless its thread does (-e) */
	p->oob = (struct roce_oob){ .fd = -1, .timeout_ms = p->o.net.timeout_s * 1000u,
				    .idle = p->ep.thread ? NULL : perf_ep_progress,
				    .idle_arg = &p->ep };
	if (p->o.server)
		st = roce_oob_connect(&p->oob, p->o.server, p->o.port);
	else if (p->lfd < 0 && (p->lfd = roce_oob_listen(NULL, p->o.port, NULL, p->oob.err,
							 sizeof(p->oob.err))) < 0)
		st = ROCE_E_IO;
	else
		st = roce_oob_accept(&p->oob, p->lfd);
	p->lfd = -1;
	if (!st)
		st = p->o.kind->exchange(p);
	if (st) {
		roce_oob_close(&p->oob);
		return p->msg[0] ? st : pp_fail(p, st, "%s", p->oob.err);
	}
	for (unsigned i = 0; i < p->o.num_qp; i++)
		print_dest(p, "remote address:", &p->rem[i], ',');
	if (p->o.server)
		st = pp_connect(p, p->rem);     /* while the TCP peer is still known */
	roce_oob_close(&p->oob);
	return st;
}

/* The endpoint: the config every kind shares, the kind's QPs and queues
 * on it (pp_kind.open), the receives, our addresses. */
static int open_ep(struct pp *p, struct roce_memlink *ml)
{
	struct perf_ep_config c = {
		.netdev = p->o.net.netdev, .link = p->o.net.link, .xdp_mode = p->o.net.xdp_mode,
		.ip = p->o.net.ip, .memlink = ml, .nqp = p->o.num_qp, .qp_type = p->o.kind->qpt,
		.timeout_ms = p->o.net.timeout_s * 1000u,
		.counters = p->o.net.counters, .events = p->o.events,
		.stage = &p->o.stage, .cc = &p->o.net.cc,
	};
	struct perf_layout l;
	uint8_t gid[16];
	int st;

	/* the buffer and rights of the pingpong examples: the QP none, the
	 * MR local write over the message (and UD's GRH area) on a page
	 * (perf_layout.h) */
	p->page = (unsigned)sysconf(_SC_PAGESIZE);
	p->off = p->o.kind->qpt == ROCE_QPT_UD ? ROCE_GRH_LEN : 0;
	perf_layout_pingpong(p->o.size + p->off, p->page, &l);
	c.max_buf = l.len + l.align;
	c.qp_access = l.qp_access;
	perf_pp_gid_config(&p->o.net.gid, &c);
	if ((st = p->o.kind->open(p, &c, &l)) != ROCE_OK)
		return st;
	/* --stage: the buffer's MR through the chain from here on; what
	 * the kind put in it (rc_pingpong's 0x7b bytes) is taken as stored */
	if ((st = perf_stage_bind(&p->ep, p->out)) != ROCE_OK)
		return pp_fail(p, st, "%s", p->ep.err);
	p->routs = pp_post_recv(p, p->o.rx_depth);
	if (p->routs < p->o.rx_depth)
		return pp_fail(p, ROCE_E_FULL, "Couldn't post receive (%u)", p->routs);
	/* one GID for all QPs, as srq_pingpong queries gidx for each */
	if ((st = perf_pp_my_gid(&p->o.net.gid, &p->ep, gid)) != ROCE_OK)
		return pp_fail(p, st, "%s", p->ep.err);
	srand48((long)getpid() * time(NULL) ^ (long)(uintptr_t)p);
	for (unsigned i = 0; i < p->o.num_qp; i++) {
		p->my[i] = (struct roce_pp_dest){ .qpn = roce_qp_num(p->ep.qp[i]),
						  .psn = (uint32_t)lrand48() & 0xFFFFFFu };
		memcpy(p->my[i].gid, gid, 16);
		print_dest(p, "local address: ", &p->my[i],
			   p->o.kind->qpt == ROCE_QPT_UD ? ':' : ',');
	}
	fflush(p->out);
	return ROCE_OK;
}

int pp_run(struct pp *p, struct roce_memlink *ml)
{
	uint64_t t0;
	int st;

	if ((st = open_ep(p, ml)) != ROCE_OK || (st = exchange(p)) != ROCE_OK)
		return st;
	for (unsigned i = 0; i < p->o.num_qp; i++)
		p->pending[i] = PP_RECV_WRID;
	/* the client sends first, on every QP */
	if (p->o.server) {
		for (unsigned i = 0; p->o.chk && i < p->o.size; i++)
			p->ep.buf[p->off + i] = p->o.kind->pattern(i, p->page);
		for (unsigned i = 0; i < p->o.num_qp; i++) {
			if ((st = pp_post_send(p, i)) != ROCE_OK)
				return st;
			p->pending[i] |= PP_SEND_WRID;
		}
	}
	t0 = roce_now_ns();
	if ((st = pp_loop(p)) != ROCE_OK)
		return st;
	pp_results(p, roce_now_ns() - t0);
	/* let the last ACKs go out before the engine stops */
	if (p->ep.thread)
		usleep(20000);
	for (uint64_t end = roce_now_ns() + 20000000ull; !p->ep.thread && roce_now_ns() < end;)
		perf_ep_progress(&p->ep);
	return ROCE_OK;
}
