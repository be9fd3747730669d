/* SPDX-License-Identifier: MIT */
/*
 * A roce-perf session, step by step as perftest 4.5's mains take them
 * (write_bw.c, read_bw.c, atomic_bw.c, send_bw.c, write_lat.c, read_lat.c,
 * send_lat.c). The number and the order of the key exchanges ("syncs")
 * differ from test to test and must match exactly, or the two sides read
 * each other's messages at the wrong moments:
 *
 *   write/read/atomic_bw  keys, [connect], keys, sync; then the server waits
 *                         in a sync for the client's end, both trade bw
 *                         reports (the server prints the client's), close
 *     with -b             the same to the last sync; per size: sync, both
 *                         run [, sync with -a], both trade reports and print
 *                         the sum; close
 *   send_bw               keys, [connect], sync, keys; per size: post
 *                         receives, sync, run, report (both sides) [, sync
 *                         with -a]; close (with -b both post receives and
 *                         send, and trade reports except with -D)
 *   write_lat             sync, keys, [connect], keys, sync; run on both
 *                         sides; no close
 *   read_lat              sync, keys, [connect], keys, sync; the server
 *                         closes at once, the client runs, then closes
 *   send_lat              keys, [connect], sync, keys; per size: post
 *                         receives, sync, run; close
 *
 * ("keys" is one exchange per QP; "close" is a sync and "done".)
 *
 * With -R (perf_cm.c) the exchange runs over a QP the RDMA CM connected,
 * and "[connect]" moves ahead of all this: after the buffer, a sync, the
 * QPs through the CM, a sync (create_rdma_cm_connection); "close" has no
 * "done" then.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "perf/perf_cm.h"
#include "perf/perf_run.h"
#include "roce/cc.h"
#include "roce/params.h"
#include "roce/status.h"

int perf_fail(struct perf_run *r, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return st ? st : ROCE_E_IO;
}

uint64_t perf_slot(const struct perf_run *r)
{
	uint64_t cl = r->cache_line;

	return r->size > cl ? (r->size + cl - 1) / cl * cl : cl;
}

uint64_t perf_slots(const struct perf_run *r)
{
	uint64_t n = r->cycle_buffer / perf_slot(r);

	return r->size <= r->cycle_buffer / 2 && n > 0 ? n : 1;
}

uint8_t *perf_local(struct perf_run *r, unsigned qp)
{
	return r->ep.buf + perf_layout_local(&r->lay, qp);
}

uint8_t *perf_remote_region(struct perf_run *r, unsigned qp)
{
	return r->ep.buf + perf_layout_remote(&r->lay, qp);
}

uint8_t *perf_recv_region(struct perf_run *r, unsigned qp)
{
	return r->ep.buf + perf_layout_recv(&r->lay, qp);
}

static int oob_fail(struct perf_run *r, int st, const char *what)
{
	return perf_fail(r, st, "%s: %s", what, r->oob.err);
}

static int sync_keys(struct perf_run *r, unsigned qp)
{
	int st = roce_pt_handshake(&r->oob, &r->my[qp], &r->rem[qp]);

	return st ? oob_fail(r, st, "exchange with the peer") : ROCE_OK;
}

static int sync_all(struct perf_run *r)
{
	int st = ROCE_OK;

	for (unsigned i = 0; i < r->ep.nqp && !st; i++)
		st = sync_keys(r, i);
	return st;
}

/* ---- setting up ---------------------------------------------------------- */

static int connect_oob(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	int st;

	r->oob.fd = -1;
	r->oob.timeout_ms = o->timeout_s * 1000u;
	if (o->rdma_cm) {
		/* establish_connection(): rdma_client_connect or
		 * rdma_server_connect; the server's banner first, as
		 * perftest's mains print it */
		if (!o->server) {
			fprintf(r->out, "\n************************************\n"
				"* Waiting for client to connect... *\n"
				"************************************\n");
			fflush(r->out);
		}
		return perf_cm_open(r);
	}
	if (o->server) {
		st = roce_oob_connect(&r->oob, o->server, o->port);
		return st ? oob_fail(r, st, "Unable to init the socket connection") : ROCE_OK;
	}
	fprintf(r->out, "\n************************************\n"
		"* Waiting for client to connect... *\n"
		"************************************\n");
	fflush(r->out);
	if (r->lfd < 0 && (r->lfd = roce_oob_listen(NULL, o->port, NULL, r->oob.err,
						    sizeof(r->oob.err))) < 0)
		return oob_fail(r, ROCE_E_IO, "Unable to init the socket connection");
	st = roce_oob_accept(&r->oob, r->lfd);
	r->lfd = -1;
	return st ? oob_fail(r, st, "Unable to init the socket connection") : ROCE_OK;
}

static int link_mtu(struct perf_run *r)
{
	struct perf_opts *o = r->o;
	int want = o->mtu ? perf_mtu_from_bytes(o->mtu) : r->ep.link_mtu;

	if (want > (int)r->ep.link_mtu) {
		fprintf(r->out, "Requested mtu is higher than active mtu \n"
			"Changing to active mtu - %d\n", r->ep.link_mtu);
		want = r->ep.link_mtu;
	}
	return want;
}

static int prelude(struct perf_run *r)
{
	char ver[ROCE_PT_VERSION_LEN + 1];
	int st;

	r->cycle_buffer = (uint32_t)sysconf(_SC_PAGESIZE);
	r->cache_line = perf_cache_line_size();
	r->mtu = link_mtu(r);
	if ((st = roce_pt_xchg_version(&r->oob, ver)) != ROCE_OK ||
	    (st = roce_pt_xchg_sysdata(&r->oob, &r->cycle_buffer, &r->cache_line)) ||
	    (st = roce_pt_xchg_mtu(&r->oob, &r->mtu)))
		return oob_fail(r, st, "Failed to exchange data between server and clients");
	if (r->cycle_buffer > PERF_MAX_CYCLE || r->cache_line > PERF_MAX_CYCLE)
		return perf_fail(r, ROCE_E_RANGE, "the peer's cycle buffer (%u) or cache "
				 "line (%u) is larger than %u", r->cycle_buffer,
				 r->cache_line, PERF_MAX_CYCLE);
	/* check_link(): a UD message is at most the MTU; a larger size
	 * becomes it, said aloud only with -a */
	if (r->o->conn == ROCE_QPT_UD && r->o->size > roce_mtu_bytes((enum roce_mtu)r->mtu)) {
		if (r->o->run_all)
			fprintf(r->err, " Max msg size in UD is MTU %u\n Changing to this MTU\n",
				roce_mtu_bytes((enum roce_mtu)r->mtu));
		r->o->size = r->size = roce_mtu_bytes((enum roce_mtu)r->mtu);
	}
	return ROCE_OK;
}

/* The buffer as perftest allocates it once it knows the cycle buffer and
 * cache line (alloc_ctx(), create_mr() after check_sys_data()). */
static int make_buffer(struct perf_run *r)
{
	int st;

	perf_layout(r->o, r->cycle_buffer, r->cache_line, &r->lay);
	r->buff = r->lay.buff;
	st = perf_ep_buffer(&r->ep, r->lay.len, r->lay.align, r->lay.mr_access);
	if (st == ROCE_OK)
		st = perf_stage_bind(&r->ep, r->out);
	if (st)
		return perf_fail(r, st, "Couldn't create IB resources: %s", r->ep.err);
	if (r->o->mmap_file)    /* pp_init_mmap()'s line */
		fprintf(r->out, "allocated mmap buffer of size %zu at %p\n", r->ep.len,
			(void *)r->ep.buf);
	return ROCE_OK;
}

static int open_ep(struct perf_run *r, struct roce_memlink *ml)
{
	const struct perf_opts *o = r->o;
	struct perf_ep_config c = {
		.netdev = o->netdev, .link = o->link, .xdp_mode = o->xdp_mode,
		.ip = o->ip, .memlink = ml, .nqp = o->nqp, .qp_type = o->conn,
		.n_ip6 = o->n_ip6,
		.sq_depth = o->tx_depth + 1,
		.rq_depth = o->verb == PERF_SEND ? o->rx_depth + 1 : 1,
		/* the bandwidth loops keep at most tx_depth sends and
		 * rx_depth receives of a QP outstanding */
		.scq_per_qp = o->tx_depth,
		.rcq_per_qp = o->verb == PERF_SEND ? o->rx_depth : 1,
		.timeout_ms = o->timeout_s * 1000u,
		.counters = o->counters,
		.mmap_file = o->mmap_file, .mmap_offset = o->mmap_offset,
		.events = o->events,
		.cm_qps = o->rdma_cm,
		.stage = &o->stage,
	};
	struct perf_layout most;
	int st;

	memcpy(c.ip6, o->ip6, sizeof(c.ip6));
	if (c.sq_depth > ROCE_MAX_WR || c.rq_depth > ROCE_MAX_WR)
		return perf_fail(r, ROCE_E_RANGE, "tx/rx depth above the engine's %u",
				 ROCE_MAX_WR);
	/* DDR for the largest buffer the exchange may call for (the peer's
	 * cycle buffer and cache line are known only after it, and it needs
	 * the link's MTU), with its alignment */
	perf_layout(o, PERF_MAX_CYCLE, PERF_MAX_CYCLE, &most);
	c.max_buf = most.len + most.align;
	c.qp_access = most.qp_access;
	c.cc = &o->cc;          /* --cc, --cc-algo, --iba-strict, --window ... */
	if ((st = perf_ep_open(&r->ep, &c)) != ROCE_OK)
		return perf_fail(r, st, "%s", r->ep.err);
	/* the exchange keeps the engine running, unless its thread does */
	r->oob.idle = r->ep.thread ? NULL : perf_ep_progress;
	r->oob.idle_arg = &r->ep;
	return ROCE_OK;
}

/* The outstanding READs/atomics we offer (perftest's out_reads, bounded
 * by the engine's), 1 for other tests. */
static uint16_t out_reads(const struct perf_opts *o)
{
	if (o->verb != PERF_READ && o->verb != PERF_ATOMIC)
		return 1;
	return o->out_reads > 0 && o->out_reads < (int)ROCE_MAX_RD_ATOMIC ?
	       (uint16_t)o->out_reads : ROCE_MAX_RD_ATOMIC;
}

static int set_up(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	uint16_t reads;
	uint8_t gid[16];
	int st;

	/* -x: the GID of that index, as perftest queries it; else ours is
	 * the IPv4 one */
	if (!o->gid_set)
		roce_gid_from_ipv4(r->ep.ip, gid);
	else if ((st = perf_ep_gid(&r->ep, o->gid_index, gid)) != ROCE_OK)
		return perf_fail(r, st, "Unable to query gid: %s", r->ep.err);

	reads = out_reads(o);
	srand48((long)getpid() * time(NULL) ^ (long)(uintptr_t)r);
	for (unsigned i = 0; i < r->ep.nqp; i++) {
		struct roce_pt_dest *d = &r->my[i];

		memset(d, 0, sizeof(*d));
		d->out_reads = reads;
		d->qpn = roce_qp_num(r->ep.qp[i]);
		d->psn = (uint32_t)lrand48() & 0xFFFFFFu;
		d->rkey = r->ep.mr->rkey;
		d->vaddr = (uintptr_t)perf_remote_region(r, i);
		memcpy(d->gid, gid, 16);
		/* set_up_connection(): the index of the GID (ours: -x, else
		 * the IPv4 one, entry 1) */
		d->gid_index = o->gid_set ? (uint32_t)o->gid_index : 1u;
	}
	return ROCE_OK;
}

static void print_info(struct perf_run *r)
{
	static const char *const verbs[] = { "Send", "RDMA_Write", "RDMA_Read", "Atomic" };
	const struct perf_opts *o = r->o;
	FILE *f = r->out;
	bool client = o->server != NULL;
	const char *dev = o->ib_dev ? o->ib_dev : o->netdev ? o->netdev : "memlink";

	fprintf(f, PERF_RESULT_LINE "                    %s ", verbs[o->verb]);
	if (o->verb == PERF_ATOMIC)
		fprintf(f, "%s ", o->atomic == PERF_FETCH_AND_ADD ? "FETCH_AND_ADD"
								  : "CMP_AND_SWAP");
	/* ctx_print_test_info(): "Bidirectional " before "BW " with -b */
	fprintf(f, "%s%sTest\n", o->tst == PERF_BW && o->duplex ? "Bidirectional " : "",
		o->tst == PERF_BW ? "BW " : "Latency ");
	/* -e: perftest names the device's completion vector (eq_num 0) */
	if (o->events)
		fprintf(f, " Test with events. Using %s_comp0\n", dev);
	fprintf(f, " Dual-port       : OFF\t\tDevice         : %s\n", dev);
	fprintf(f, " Number of qps   : %u\t\tTransport type : IB\n", o->nqp);
	fprintf(f, " Connection type : %s\t\tUsing SRQ      : OFF\n",
		o->conn == ROCE_QPT_UD ? "UD" : o->conn == ROCE_QPT_UC ? "UC" : "RC");
	fprintf(f, " PCIe relax order: Unsupported\n ibv_wr* API     : OFF\n");
	if (client || o->duplex)
		fprintf(f, " TX depth        : %u\n", o->tx_depth);
	if (o->verb == PERF_SEND && (!client || o->duplex))
		fprintf(f, " RX depth        : %u\n", o->rx_depth);
	if (o->tst == PERF_BW)
		fprintf(f, " CQ Moderation   : %u\n", o->cq_mod);
	fprintf(f, " Mtu             : %u[B]\n Link type       : Ethernet\n",
		roce_mtu_bytes((enum roce_mtu)r->mtu));
	fprintf(f, " GID index       : %d\n", o->gid_index);
	if (o->verb != PERF_READ && o->verb != PERF_ATOMIC)
		fprintf(f, " Max inline data : 0[B]\n");
	else
		fprintf(f, " Outstand reads  : %u\n", r->my[0].out_reads);
	/* ctx_print_test_info(): the server's rdma_cm lines come after the
	 * connection all the same */
	fprintf(f, " rdma_cm QPs\t : %s\n Data ex. method : %s", o->rdma_cm ? "ON" : "OFF",
		o->rdma_cm ? "rdma_cm" : "Ethernet");
	if (o->rdma_cm && !client)
		fprintf(f, "\n" PERF_RESULT_LINE " Waiting for client rdma_cm QP to connect\n"
			" Please run the same command with the IB/RoCE interface IP");
	fprintf(f, "\n" PERF_RESULT_LINE);
}

/* ctx_print_pingpong_data(): perftest prints the GID bytes with %02d. */
static void print_dest(struct perf_run *r, const struct roce_pt_dest *d, bool local)
{
	FILE *f = r->out;

	fprintf(f, " %s address: LID %#04x QPN %#06x PSN %#06x", local ? "local" : "remote",
		d->lid, d->qpn, d->psn);
	if (r->o->verb == PERF_READ)
		fprintf(f, " OUT %#04x", d->out_reads);
	if (r->o->verb == PERF_READ || r->o->verb == PERF_WRITE)
		fprintf(f, " RKey %#08x VAddr %#016llx", d->rkey,
			(unsigned long long)d->vaddr);
	fprintf(f, "\n GID: ");
	for (int i = 0; i < 16; i++)
		fprintf(f, "%02d%s", d->gid[i], i < 15 ? ":" : "\n");
}

static int connect_qps(struct perf_run *r)
{
	for (unsigned i = 0; i < r->ep.nqp; i++) {
		const struct roce_pt_dest *rem = &r->rem[i];
		uint32_t ip = roce_gid_to_ipv4(rem->gid);
		static const uint8_t zero[16];
		struct perf_conn c = {
			.dest_qpn = rem->qpn, .rq_psn = rem->psn, .sq_psn = r->my[i].psn,
			.mtu = (enum roce_mtu)r->mtu, .timeout = (uint8_t)r->o->qp_timeout,
			.min_rnr_timer = PERF_MIN_RNR_TIMER,
			.tclass = r->o->tclass,
			.max_dest_rd_atomic = (uint8_t)r->my[i].out_reads,
			.max_rd_atomic = (uint8_t)(rem->out_reads < ROCE_MAX_RD_ATOMIC ?
						   rem->out_reads : ROCE_MAX_RD_ATOMIC),
		};
		int st;

		bool v6 = !ip && memcmp(rem->gid, zero, 16) != 0;

		if (!ip && !v6)
			ip = roce_oob_peer_ip(&r->oob);  /* no GID: the TCP peer */
		if (v6 && !r->o->gid_set)
			return perf_fail(r, ROCE_E_UNSUPPORTED, "Found Incompatibility issue "
					 "with GID types: the peer's GID is IPv6; give -x "
					 "with one of our IPv6 GIDs (0 is the link-local one)");
		/* perftest's ctx_modify_qp_to_rtr: a GRH from our -x GID to
		 * the peer's */
		if (r->o->gid_set && memcmp(rem->gid, zero, 16) != 0) {
			c.grh = true;
			c.sgid_index = (uint8_t)r->o->gid_index;
			memcpy(c.dgid, rem->gid, 16);
		}
		c.peer_ip = ip ? ip : roce_oob_peer_ip(&r->oob);
		if (!c.max_rd_atomic)
			c.max_rd_atomic = 1;
		if ((st = perf_ep_connect(&r->ep, i, &c)) != ROCE_OK)
			return perf_fail(r, st, "Unable to Connect the HCA's through the "
					 "link: %s", r->ep.err);
	}
	return ROCE_OK;
}

/* -R: create_rdma_cm_connection(), between the buffer and the keys: a
 * sync, the QPs through the CM (READ/atomic depths for those tests only),
 * a sync. The keys of the syncs are still zeros, as perftest's. */
static int cm_qps(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	bool reads = o->verb == PERF_READ || o->verb == PERF_ATOMIC;
	int st;

	if (!o->rdma_cm)
		return ROCE_OK;
	if ((st = sync_keys(r, 0)) != ROCE_OK ||
	    (st = perf_cm_connect_qps(r, reads ? (uint8_t)out_reads(o) : 0)) != ROCE_OK)
		return st;
	return sync_keys(r, 0);
}

/* Keys and QPs, in the test's order (see the top of the file). */
static int connect_peer(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	bool lat_rdma = o->tst == PERF_LAT && o->verb != PERF_SEND;
	int st = ROCE_OK;

	if (lat_rdma)
		st = sync_keys(r, 0);
	if (!st)
		st = sync_all(r);
	if (!st && !o->rdma_cm)         /* -R: the CM connected them */
		st = connect_qps(r);
	if (!st && o->verb == PERF_SEND)
		st = sync_keys(r, 0);
	for (unsigned i = 0; i < r->ep.nqp && !st; i++)
		print_dest(r, &r->my[i], true);
	for (unsigned i = 0; i < r->ep.nqp && !st; i++) {
		st = sync_keys(r, i);
		if (!st)
			print_dest(r, &r->rem[i], false);
	}
	if (!st && o->verb != PERF_SEND)
		st = sync_keys(r, 0);           /* "after moving qp to RTR" */
	return st;
}

int perf_flow_bw(struct perf_run *r);
int perf_flow_lat(struct perf_run *r);

/* What the session keeps per message and per QP, before it starts: the
 * time stamps (perftest's tposted and tcompleted: iters of every QP, one
 * of each when no peak is computed from them) and the QPs' keys and
 * counters; freed by free_run() on every path. */
static int alloc_run(struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	uint64_t n = o->tst == PERF_BW && o->no_peak ? 1 : o->iters * o->nqp;

	r->n_times = n ? n : 1;
	r->t_post = calloc(r->n_times, sizeof(uint64_t));
	r->t_done = calloc(r->n_times, sizeof(uint64_t));
	if (!r->t_post || !r->t_done)
		return perf_fail(r, ROCE_E_NOMEM, "%" PRIu64 " time stamps: out of memory",
				 r->n_times);
	r->my = calloc(o->nqp, sizeof(*r->my));
	r->rem = calloc(o->nqp, sizeof(*r->rem));
	r->scnt = calloc(o->nqp, sizeof(*r->scnt));
	r->ccnt = calloc(o->nqp, sizeof(*r->ccnt));
	r->rposted = calloc(o->nqp, sizeof(*r->rposted));
	if (!r->my || !r->rem || !r->scnt || !r->ccnt || !r->rposted)
		return perf_fail(r, ROCE_E_NOMEM, "the state of %u QPs: out of memory",
				 o->nqp);
	return ROCE_OK;
}

static void free_run(struct perf_run *r)
{
	free(r->t_post);
	free(r->t_done);
	free(r->my);
	free(r->rem);
	free(r->scnt);
	free(r->ccnt);
	free(r->rposted);
	r->t_post = r->t_done = NULL;
	r->my = r->rem = NULL;
	r->scnt = r->ccnt = r->rposted = NULL;
}

/* The whole session; ml is the in-memory link of the self-test or NULL. */
int perf_session_on(struct perf_run *r, struct roce_memlink *ml)
{
	const struct perf_opts *o = r->o;
	int st;

	r->size = o->size;
	if ((st = alloc_run(r)) == ROCE_OK && (st = open_ep(r, ml)) == ROCE_OK &&
	    (st = connect_oob(r)) == ROCE_OK && (st = prelude(r)) == ROCE_OK &&
	    (st = make_buffer(r)) == ROCE_OK && (st = cm_qps(r)) == ROCE_OK &&
	    (st = set_up(r)) == ROCE_OK) {
		/* --check: what the other side will find, in place before any
		 * sync (with -b both sides send, so both fill) */
		for (unsigned i = 0; o->check && i < r->ep.nqp; i++) {
			if (o->verb == PERF_READ && (!o->server || o->duplex))
				perf_fill_bw(perf_remote_region(r, i), i, 0, r->buff);
			if ((o->verb == PERF_WRITE || o->verb == PERF_SEND) &&
			    (o->server || o->duplex) && o->tst == PERF_BW)
				perf_fill_bw(perf_local(r, i), i, 0, r->buff);
		}
		print_info(r);
		st = connect_peer(r);
	}
	if (!st)
		st = o->tst == PERF_BW ? perf_flow_bw(r) : perf_flow_lat(r);
	roce_oob_close(&r->oob);
	perf_cm_close(r);
	if (r->lfd >= 0)
		close(r->lfd);
	r->lfd = -1;
	perf_ep_close(&r->ep);
	free_run(r);
	return st;
}

int perf_session(struct perf_run *r)
{
	return perf_session_on(r, NULL);
}
