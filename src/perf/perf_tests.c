/* SPDX-License-Identifier: MIT */
/*
 * The measuring part of each test, after the peers are connected
 * (perf_flow.c): the sizes to run, the syncs around each run, the reports
 * and the close, in perftest's order.
 */
#include <inttypes.h>
#include <string.h>

#include "perf/perf_run.h"
#include "roce/status.h"

#define RUN_ALL_FIRST 1u        /* -a: sizes 2^1 .. 2^23 */
#define RUN_ALL_LAST 23u

/* -a's last size: 2^23, or UD's MTU (send_bw.c: size_max_pow) */
static unsigned run_all_last(const struct perf_run *r)
{
	unsigned last = 0;

	if (r->o->conn != ROCE_QPT_UD)
		return RUN_ALL_LAST;
	while ((2ull << last) <= roce_mtu_bytes((enum roce_mtu)r->mtu))
		last++;
	return last;
}

static int sync0(struct perf_run *r)
{
	int st = roce_pt_handshake(&r->oob, &r->my[0], &r->rem[0]);

	return st ? perf_fail(r, st, "Failed to exchange data between server and "
			      "clients: %s", r->oob.err) : ROCE_OK;
}

static int close_oob(struct perf_run *r)
{
	int st = roce_pt_close(&r->oob, &r->my[0]);

	return st ? perf_fail(r, st, "Failed to close connection between server "
			      "and client: %s", r->oob.err) : ROCE_OK;
}

static void to_pt(const struct perf_bw_result *b, struct roce_pt_report *p)
{
	*p = (struct roce_pt_report){ b->size, b->iters, b->bw_peak, b->bw_avg,
				      b->msg_rate };
}

static void from_pt(const struct roce_pt_report *p, struct perf_bw_result *b)
{
	*b = (struct perf_bw_result){ p->size, p->iters, p->bw_peak, p->bw_avg,
				      p->msg_rate };
}

/* xchg_bw_reports(): mine for the peer's */
static int xchg_reports(struct perf_run *r, const struct perf_bw_result *mine,
			struct perf_bw_result *peer)
{
	struct roce_pt_report a, b;
	int st;

	to_pt(mine, &a);
	if ((st = roce_pt_xchg_report(&r->oob, &a, &b)) != ROCE_OK)
		return perf_fail(r, st, "bw reports: %s", r->oob.err);
	from_pt(&b, peer);
	return ROCE_OK;
}

static void bw_header(struct perf_run *r)
{
	fprintf(r->out, PERF_RESULT_LINE "%s", perf_bw_header(r->o->report_fmt));
	fflush(r->out);
}

static void bw_line(struct perf_run *r, const struct perf_bw_result *my,
		    const struct perf_bw_result *rem)
{
	perf_print_full_bw(r->out, r->o->report_fmt, my, rem);
	fflush(r->out);
}

/* --check of what the peer wrote or added into our regions, once it is
 * done (write_bw, atomic_bw); on a mismatch the exchange still closes, so
 * the peer ends too. */
static int check_peer_ops(struct perf_run *r, const struct perf_bw_result *peer)
{
	const struct perf_opts *o = r->o;
	int st;

	if (o->duration_mode && o->verb == PERF_ATOMIC) {
		fprintf(r->out, " content check: not with -D on atomic tests\n");
		return ROCE_OK;
	}
	st = perf_check_region(r, o->duration_mode ? UINT64_MAX / 2 : peer->iters);
	if (st) {
		close_oob(r);
		return st;
	}
	fprintf(r->out, " content check: passed\n");
	return ROCE_OK;
}

/* write_bw, read_bw, atomic_bw with -b (write_bw.c, read_bw.c,
 * atomic_bw.c): both sides run as the client does, between a sync before
 * each size and (-a, perftest >= 4.6) one after it; then they trade
 * reports and each prints the sum of both directions. */
static int rdma_bw_duplex(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	struct perf_bw_result mine = { 0 }, peer = { 0 };
	int st;

	bw_header(r);
	for (unsigned i = o->run_all ? RUN_ALL_FIRST : 0;
	     i <= (o->run_all ? run_all_last(r) : 0); i++) {
		if (o->run_all)
			r->size = 1ull << i;
		if ((st = sync0(r)) != ROCE_OK || (st = perf_bw_client(r, &mine)) != ROCE_OK ||
		    (o->run_all && (st = sync0(r)) != ROCE_OK) ||
		    (st = xchg_reports(r, &mine, &peer)) != ROCE_OK)
			return st;
		bw_line(r, &mine, &peer);
	}
	if (o->report_both && !o->run_all)
		perf_print_report_both(r->out, o->report_fmt, o->verb == PERF_ATOMIC, &mine, &peer);
	if (o->check && o->verb == PERF_READ)
		fprintf(r->out, " content check: passed\n");
	else if (o->check && (st = check_peer_ops(r, &peer)) != ROCE_OK)
		return st;
	fprintf(r->out, PERF_RESULT_LINE);
	return close_oob(r);
}

/* write_bw, read_bw, atomic_bw: the server only serves and waits. */
static int rdma_bw(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	struct perf_bw_result mine = { 0 }, peer;
	int st;

	if (o->duplex)
		return rdma_bw_duplex(r);
	bw_header(r);
	if (!o->server) {
		if ((st = sync0(r)) != ROCE_OK || (st = xchg_reports(r, &mine, &peer)) != ROCE_OK)
			return st;
		bw_line(r, &peer, NULL);
		if (o->check && o->verb != PERF_READ) {
			r->size = peer.size ? peer.size : r->size;
			if ((st = check_peer_ops(r, &peer)) != ROCE_OK)
				return st;
		}
		st = close_oob(r);
		fprintf(r->out, PERF_RESULT_LINE);
		return st;
	}
	for (unsigned i = o->run_all ? RUN_ALL_FIRST : 0;
	     i <= (o->run_all ? run_all_last(r) : 0); i++) {
		if (o->run_all)
			r->size = 1ull << i;
		if ((st = perf_bw_client(r, &mine)) != ROCE_OK)
			return st;
		bw_line(r, &mine, NULL);
	}
	fprintf(r->out, PERF_RESULT_LINE);
	if (o->check && o->verb == PERF_READ)
		fprintf(r->out, " content check: passed\n");
	if ((st = sync0(r)) != ROCE_OK || (st = xchg_reports(r, &mine, &peer)) != ROCE_OK)
		return st;
	return close_oob(r);
}

/* send_bw.c: per size, the receiving sides post their receives, a sync,
 * the run, the report; with -b both sides receive and send (perf_bi.c) and
 * trade reports to print the sum, except with -D, where each side prints
 * what it counted itself, both directions. */
static int send_bw(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	struct perf_bw_result res, peer = { 0 };
	bool recv = !o->server || o->duplex;
	int st;

	bw_header(r);
	for (unsigned i = o->run_all ? RUN_ALL_FIRST : 0;
	     i <= (o->run_all ? run_all_last(r) : 0); i++) {
		if (o->run_all)
			r->size = 1ull << i;
		if (recv) {
			memset(r->rposted, 0, r->ep.nqp * sizeof(*r->rposted));
			for (unsigned q = 0; q < r->ep.nqp; q++)
				if ((st = perf_post_recvs(r, r->rposted, o->rx_depth, q)))
					return st;
		}
		if ((st = sync0(r)) != ROCE_OK)
			return st;
		st = o->duplex ? perf_bw_bi(r, &res) :
		     o->server ? perf_bw_client(r, &res) : perf_bw_server(r, &res);
		if (st)
			return st;
		if (o->duplex && !o->duration_mode) {
			if ((st = xchg_reports(r, &res, &peer)) != ROCE_OK)
				return st;
			bw_line(r, &res, &peer);
		} else {
			bw_line(r, &res, NULL);
		}
		if (o->run_all && (st = sync0(r)) != ROCE_OK)
			return st;
	}
	/* with -D perftest prints a remote report it never received; ours
	 * is zero */
	if (o->duplex && o->report_both && !o->run_all)
		perf_print_report_both(r->out, o->report_fmt, false, &res, &peer);
	fprintf(r->out, PERF_RESULT_LINE);
	if (o->check && recv)
		fprintf(r->out, " content check: passed\n");
	return close_oob(r);
}

int perf_flow_bw(struct perf_run *r)
{
	return r->o->verb == PERF_SEND ? send_bw(r) : rdma_bw(r);
}

static int lat_sizes(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	struct perf_lat_result res;
	double tps = 0;
	int st;

	fprintf(r->out, PERF_RESULT_LINE "%s", o->duration_mode ? PERF_RESULT_FMT_LAT_DUR
								: PERF_RESULT_FMT_LAT);
	fflush(r->out);
	for (unsigned i = o->run_all ? RUN_ALL_FIRST : 0;
	     i <= (o->run_all ? run_all_last(r) : 0); i++) {
		if (o->run_all)
			r->size = 1ull << i;
		if (o->verb == PERF_SEND) {
			memset(r->rposted, 0, r->ep.nqp * sizeof(*r->rposted));
			if ((st = perf_post_recvs(r, r->rposted, o->rx_depth, 0)) ||
			    (st = sync0(r)))
				return st;
		}
		if ((st = perf_lat_run(r, &res, &tps)) != ROCE_OK)
			return st;
		if (o->duration_mode)
			perf_print_lat_dur(r->out, res.size, res.iters, res.t_avg, tps);
		else
			perf_print_lat(r->out, &res);
		fflush(r->out);
	}
	return ROCE_OK;
}

int perf_flow_lat(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	int st;

	if (o->verb == PERF_READ && !o->server) {
		st = close_oob(r);      /* only the client posts READs */
		fprintf(r->out, PERF_RESULT_LINE);
		return st;
	}
	if ((st = lat_sizes(r)) != ROCE_OK)
		return st;
	if (o->check)
		fprintf(r->out, " content check: passed\n");
	if (o->verb == PERF_WRITE) {
		fprintf(r->out, PERF_RESULT_LINE);
		return ROCE_OK;         /* write_lat ends without a close */
	}
	if (o->verb == PERF_READ) {
		st = close_oob(r);
		fprintf(r->out, PERF_RESULT_LINE);
		return st;
	}
	fprintf(r->out, PERF_RESULT_LINE);
	return close_oob(r);
}
