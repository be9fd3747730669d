/* SPDX-License-Identifier: MIT */
/*
 * roce-srq-pingpong: ibv_srq_pingpong on this engine (rdma-core v44.0
 * libibverbs/examples/srq_pingpong.c). Same options, same out-of-band
 * exchange on TCP port 18515 (one line for each of 256 slots, roce/oob.h),
 * same output, so it runs against the original as client or as server:
 *
 *   roce-srq-pingpong --netdev eth1 -q 4 -s 4096 -n 1000            # server
 *   roce-srq-pingpong --netdev eth1 -q 4 -s 4096 -n 1000 10.0.0.1   # client
 *
 * -q RC QPs (default 16) share one SRQ of -r receives (default 500) and
 * one CQ; each QP plays ping-pong on its own: the client sends on every
 * QP, a QP sends again once its send and a receive have completed, until
 * -n sends and -n receives have completed in all (the original's loop:
 * its counts are totals, not per QP). -e sleeps on the completion channel.
 * -c: the client's buffer carries a pattern whose first byte of every
 * page is 0 (what the original writes); the server checks those bytes of
 * every message it receives, the client, getting its pattern back, every
 * byte. A failed check makes the exit status 1.
 *
 * -g N chooses our GID as roce-pingpong's -g does (perf_pp.h: 0 the
 * link-local IPv6 GID, 1 the IPv4 one, then the interface's IPv6 addresses
 * and --ip6's); every QP has that GID, the exchange carries it in each
 * slot, and the QPs talk RoCE v2 over IPv6 to the peer's IPv6 GID (its
 * first slot's, as srq_pingpong.c's pp_connect_ctx takes dest->gid for
 * all). Without -g our GID is the IPv4 one.
 *
 * --memlink-selftest runs a server and a client inside this process over
 * the in-memory link and a loopback TCP exchange.
 *
 * Exit status: 0 success, 1 failure, 2 bad command line.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf/perf_ep.h"
#include "perf/perf_layout.h"
#include "perf/perf_pp.h"
#include "perf/perf_pp_opts.h"
#include "roce/oob.h"
#include "roce/status.h"

#define SP_RECV_WRID 1u
#define SP_SEND_WRID 2u
#define SP_MAX_QP ROCE_PP_SRQ_SLOTS     /* srq_pingpong.c MAX_QP */
#define SP_SIZE_MAX (256u << 20)
#define SP_TIMEOUT_S 60u

struct sp_opts {
	uint16_t port;
	unsigned size, num_qp, rx_depth, iters, mtu;
	bool chk, events;
	const char *server;
	struct perf_pp_net net;         /* --netdev, --link, -g, ... */
};

struct sp {
	struct sp_opts o;
	FILE *out;
	int lfd;
	struct perf_ep ep;
	struct roce_oob oob;
	struct roce_pp_dest my[SP_MAX_QP], rem[SP_MAX_QP];
	unsigned pending[SP_MAX_QP];
	unsigned page, routs;
	char msg[320];
};

static int fail(struct sp *p, int st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct sp *p, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return st ? st : ROCE_E_IO;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage:\n"
"  roce-srq-pingpong --netdev IF [options]          start a server and wait for connection\n"
"  roce-srq-pingpong --netdev IF [options] <host>   connect to server at <host>\n"
"\nOptions (ibv_srq_pingpong's):\n"
"  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
"  -d, --ib-dev=<dev>     accepted and ignored (the device is --netdev)\n"
"  -i, --ib-port=<port>   use port <port> of IB device (must be 1)\n"
"  -s, --size=<size>      size of message to exchange (default 4096)\n"
"  -m, --mtu=<size>       path MTU (default 1024)\n"
"  -q, --num-qp=<num>     number of QPs to use (default 16, at most %u)\n"
"  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n"
"  -n, --iters=<iters>    number of exchanges, in all (default 1000)\n"
"  -l, --sl=<sl>          service level value (accepted, not used)\n"
"  -e, --events           sleep on CQ events (default poll); the engine then runs\n"
"                         on a thread of its own\n"
PERF_PP_GID_HELP
"  -o, --odp              on-demand paging: not supported\n"
"  -c, --chk              validate received buffer (a failure is exit status 1)\n"
"\nOurs:\n"
"  --netdev=IFNAME        the interface to send RoCE v2 frames on (required)\n"
"  --link=packet|xdp      its port: AF_PACKET (default) or AF_XDP (MTU <= 3822;\n"
"                         RoCE frames only, the kernel keeps ARP and TCP)\n"
"  --xdp-mode=auto|native|generic  XDP mode for --link xdp (default auto)\n"
"  --ip=A.B.C.D           our IPv4 (default: the interface's)\n"
PERF_PP_IP6_HELP
"  --timeout=SEC          bound of every wait (default %u)\n"
"  --counters             print the engine's non-zero counters at the end\n"
"  -h, --help             this text\n", SP_MAX_QP - 1, SP_TIMEOUT_S);
}

static int bad(const char *what, const char *val)
{
	return perf_pp_bad("roce-srq-pingpong", what, val);
}

static int one_opt(int c, const char *a, struct sp_opts *o)
{
	unsigned v;
	int r;

	switch (c) {
	case 'p': if (!perf_pp_num(a, 1, 65535, &v)) return bad("port", a); o->port = (uint16_t)v; return 0;
	case 'd': case 'l': return 0;
	case 'i': if (!perf_pp_num(a, 1, 1, &v)) return bad("IB port (only 1)", a); return 0;
	case 's': if (!perf_pp_num(a, 1, SP_SIZE_MAX, &o->size)) return bad("size", a); return 0;
	case 'm': if (!perf_pp_num(a, 256, 4096, &o->mtu) || (o->mtu & (o->mtu - 1)))
			return bad("MTU", a);
		return 0;
	/* any count is taken here; main() refuses 256 and more in the
	 * original's words */
	case 'q': if (!perf_pp_num(a, 1, 1u << 20, &o->num_qp)) return bad("number of QPs", a); return 0;
	case 'r': if (!perf_pp_num(a, 1, 8000, &o->rx_depth)) return bad("rx depth", a); return 0;
	case 'n': if (!perf_pp_num(a, 1, 100000000, &o->iters)) return bad("iterations", a); return 0;
	case 'e': o->events = true; return 0;
	case 'o': fprintf(stderr, "roce-srq-pingpong: -o: on-demand paging is not supported\n");
		return 1;
	case 'c': o->chk = true; return 0;
	case 'h': usage(stdout); return -1;
	default:
		if ((r = perf_pp_net_opt("roce-srq-pingpong", c, a, &o->net)) != 1)
			return r;
		fprintf(stderr, "roce-srq-pingpong: unknown option (try --help)\n");
		return 2;
	}
}

static int parse(int argc, char **argv, struct sp_opts *o)
{
	static const struct option lo[] = {
		{ "port", 1, NULL, 'p' }, { "ib-dev", 1, NULL, 'd' },
		{ "ib-port", 1, NULL, 'i' }, { "size", 1, NULL, 's' },
		{ "mtu", 1, NULL, 'm' }, { "num-qp", 1, NULL, 'q' },
		{ "rx-depth", 1, NULL, 'r' }, { "iters", 1, NULL, 'n' },
		{ "sl", 1, NULL, 'l' }, { "events", 0, NULL, 'e' },
		{ "odp", 0, NULL, 'o' }, { "gid-idx", 1, NULL, 'g' },
		{ "chk", 0, NULL, 'c' }, { "help", 0, NULL, 'h' },
		PERF_PP_NET_LONGOPTS, { NULL, 0, NULL, 0 },
	};
	int c, r;

	*o = (struct sp_opts){ .port = ROCE_OOB_PORT_DEFAULT, .size = 4096, .mtu = 1024,
			       .num_qp = 16, .rx_depth = 500, .iters = 1000,
			       .net = PERF_PP_NET_INIT(SP_TIMEOUT_S) };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:i:s:m:q:r:n:l:eog:ch", lo, NULL)) != -1) {
		if (c == '?' || c == ':') {
			fprintf(stderr, "roce-srq-pingpong: %s option '%s' (try --help)\n",
				c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
			return 2;
		}
		if ((r = one_opt(c, optarg, o)) != 0)
			return r;
	}
	if (optind == argc - 1)
		o->server = argv[optind];
	else if (optind < argc)
		return bad("argument", argv[optind + 1]);
	/* main()'s checks, in the original's words (which say "less than
	 * 255" of a limit that lets 255 QPs through) */
	if (o->num_qp > o->rx_depth) {
		fprintf(stderr, "rx_depth %u is too small for %u QPs -- must have at least "
			"one receive per QP.\n", o->rx_depth, o->num_qp);
		return 2;
	}
	if (o->num_qp >= SP_MAX_QP) {
		fprintf(stderr, "num_qp %u must be less than %u\n", o->num_qp, SP_MAX_QP - 1);
		return 2;
	}
	if (!o->net.netdev && !o->net.selftest) {
		fprintf(stderr, "roce-srq-pingpong: give the interface with --netdev IFNAME "
			"(try --help)\n");
		return 2;
	}
	return 0;
}

/* ---- the run ----------------------------------------------------------- */

static uint8_t pattern(unsigned i, unsigned page)
{
	return i % page == 0 ? 0 : (uint8_t)(i * 13u ^ (i >> 8) ^ 0xa5u);
}

/* pp_post_recv(): n receives into the buffer, on the SRQ */
static unsigned post_recv(struct sp *p, unsigned n)
{
	struct roce_sge sge = { (uintptr_t)p->ep.buf, p->o.size, p->ep.mr->lkey };
	struct roce_recv_wr wr = { .wr_id = SP_RECV_WRID, .sg_list = &sge, .num_sge = 1 };
	struct roce_recv_wr *badwr;
	unsigned i;

	for (i = 0; i < n; i++)
		if (roce_post_srq_recv(p->ep.srq, &wr, &badwr) != ROCE_OK)
			break;
	return i;
}

static int post_send(struct sp *p, unsigned q)
{
	struct roce_sge sge = { (uintptr_t)p->ep.buf, p->o.size, p->ep.mr->lkey };
	struct roce_send_wr wr = { .wr_id = SP_SEND_WRID, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *badwr;
	int st = roce_post_send(p->ep.qp[q], &wr, &badwr);

	return st ? fail(p, st, "Couldn't post send: %s", roce_status_str(st)) : ROCE_OK;
}

/* pp_connect_ctx(): every QP to RTS toward its peer; the route is the
 * first slot's GID (the original uses dest->gid for all QPs), a GRH from
 * our -g GID when both sides have one, else the peer's IPv4 address or
 * the TCP peer's (perf_pp.h) */
static int conn(void *arg, const struct roce_pp_dest *rem)
{
	struct sp *p = arg;
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
		if ((st = perf_ep_connect(&p->ep, i, &c)) != ROCE_OK)
			return fail(p, st, "Failed to modify QP[%u] to RTR/RTS: %s", i, p->ep.err);
	}
	return ROCE_OK;
}

static int check(struct sp *p)
{
	bool client = p->o.server != NULL;

	for (unsigned i = 0; i < p->o.size; i++) {
		if ((client || i % p->page == 0) && p->ep.buf[i] != pattern(i, p->page)) {
			fprintf(p->out, "invalid data in page %u\n", i / p->page);
			return fail(p, ROCE_E_MISMATCH, "content check: byte %u (page %u) "
				    "is 0x%02x, expected 0x%02x", i, i / p->page,
				    p->ep.buf[i], pattern(i, p->page));
		}
	}
	return ROCE_OK;
}

static int find_qp(struct sp *p, uint32_t qpn)
{
	for (unsigned i = 0; i < p->o.num_qp; i++)
		if (p->my[i].qpn == qpn)
			return (int)i;
	return -1;
}

/* One completion, as the original's loop body. */
static int one_wc(struct sp *p, const struct roce_wc *wc, unsigned *scnt, unsigned *rcnt)
{
	int q;

	if (wc->status != ROCE_WC_SUCCESS)
		return fail(p, ROCE_E_IO, "Failed status %s (%d) for wr_id %d",
			    roce_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
	q = find_qp(p, wc->qp_num);
	if (q < 0)
		return fail(p, ROCE_E_IO, "Couldn't find QPN %06x", wc->qp_num);
	if (wc->wr_id == SP_SEND_WRID) {
		++*scnt;
	} else if (wc->wr_id == SP_RECV_WRID) {
		if (--p->routs <= p->o.num_qp) {
			p->routs += post_recv(p, p->o.rx_depth - p->routs);
			if (p->routs < p->o.rx_depth)
				return fail(p, ROCE_E_FULL, "Couldn't post receive (%u)", p->routs);
		}
		++*rcnt;
		if (p->o.chk && check(p) != ROCE_OK)
			return ROCE_E_MISMATCH;
	} else {
		return fail(p, ROCE_E_IO, "Completion for unknown wr_id %d", (int)wc->wr_id);
	}
	p->pending[q] &= ~(unsigned)wc->wr_id;
	if (*scnt < p->o.iters && !p->pending[q]) {
		if (post_send(p, (unsigned)q) != ROCE_OK)
			return ROCE_E_IO;
		p->pending[q] = SP_RECV_WRID | SP_SEND_WRID;
	}
	return ROCE_OK;
}

static int loop(struct sp *p)
{
	unsigned scnt = 0, rcnt = 0, num_wc = p->o.num_qp + p->o.rx_depth;
	uint64_t last = now_ns(), limit = (uint64_t)p->o.net.timeout_s * 1000000000ull;
	struct roce_wc *wc = calloc(num_wc, sizeof(*wc));
	int st = ROCE_OK;

	if (!wc)
		return fail(p, ROCE_E_NOMEM, "%u work completions: out of memory", num_wc);
	while (st == ROCE_OK && (rcnt < p->o.iters || scnt < p->o.iters)) {
		int n;

		/* -e: an event first (then its CQ armed again), the poll after */
		if (p->o.events && (st = perf_ep_idle(&p->ep)) != ROCE_OK) {
			fail(p, st, "%s", p->ep.err);
			break;
		}
		perf_ep_progress(&p->ep);
		n = roce_poll_cq(p->ep.scq, (int)num_wc, wc);
		if (n < 0) {
			st = fail(p, n, "poll CQ failed %d", n);
			break;
		}
		for (int i = 0; i < n && st == ROCE_OK; i++)
			st = one_wc(p, &wc[i], &scnt, &rcnt);
		if (n)
			last = now_ns();
		else if (now_ns() - last > limit)
			st = fail(p, ROCE_E_TIMEOUT, "no completion for %u s (%u sent, %u "
				  "received)", p->o.net.timeout_s, scnt, rcnt);
	}
	free(wc);
	return st;
}

static void print_dest(struct sp *p, const char *what, const struct roce_pp_dest *d)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, d->gid, gid, sizeof(gid));
	fprintf(p->out, "  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", what,
		d->lid, d->qpn, d->psn, gid);
}

static int exchange(struct sp *p)
{
	int st;

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
		st = roce_pp_exchange_srq(&p->oob, p->my, p->rem, p->o.num_qp, conn, p);
	if (st) {
		roce_oob_close(&p->oob);
		return p->msg[0] ? st : fail(p, st, "%s", p->oob.err);
	}
	for (unsigned i = 0; i < p->o.num_qp; i++)
		print_dest(p, "remote address:", &p->rem[i]);
	if (p->o.server)
		st = conn(p, p->rem);   /* while the TCP peer is still known */
	roce_oob_close(&p->oob);
	return st;
}

static int run(struct sp *p, struct roce_memlink *ml)
{
	struct perf_ep_config c = {
		.netdev = p->o.net.netdev, .link = p->o.net.link, .xdp_mode = p->o.net.xdp_mode,
		.ip = p->o.net.ip, .memlink = ml, .nqp = p->o.num_qp,
		/* pp_init_ctx(): one send in flight per QP, the SRQ rx_depth
		 * deep, one CQ of rx_depth + num_qp */
		.sq_depth = 1, .rq_depth = 1, .srq_depth = p->o.rx_depth,
		.one_cq = p->o.rx_depth + p->o.num_qp,
		.timeout_ms = p->o.net.timeout_s * 1000u,
		.counters = p->o.net.counters, .events = p->o.events,
	};
	struct perf_layout l;
	uint8_t gid[16];
	uint64_t t0;
	int st;

	/* the buffer and rights of the pingpong examples: local write only */
	p->page = (unsigned)sysconf(_SC_PAGESIZE);
	perf_layout_pingpong(p->o.size, p->page, &l);
	c.max_buf = l.len + l.align;
	c.qp_access = l.qp_access;
	perf_pp_gid_config(&p->o.net.gid, &c);
	if ((st = perf_ep_open(&p->ep, &c)) != ROCE_OK ||
	    (st = perf_ep_buffer(&p->ep, l.len, l.align, l.mr_access)) != ROCE_OK)
		return fail(p, st, "%s", p->ep.err);
	for (unsigned i = 0; i < p->o.num_qp; i++)
		if ((st = perf_ep_init(&p->ep, i)) != ROCE_OK)
			return fail(p, st, "Failed to modify QP[%u] to INIT: %s", i, p->ep.err);
	p->routs = post_recv(p, p->o.rx_depth);
	if (p->routs < p->o.rx_depth)
		return fail(p, ROCE_E_FULL, "Couldn't post receive (%u)", p->routs);
	/* one GID for all QPs, as the original queries gidx for each */
	if ((st = perf_pp_my_gid(&p->o.net.gid, &p->ep, gid)) != ROCE_OK)
		return fail(p, st, "%s", p->ep.err);
	srand48((long)getpid() * time(NULL) ^ (long)(uintptr_t)p);
	for (unsigned i = 0; i < p->o.num_qp; i++) {
		p->my[i] = (struct roce_pp_dest){ .qpn = roce_qp_num(p->ep.qp[i]),
						  .psn = (uint32_t)lrand48() & 0xFFFFFFu };
		memcpy(p->my[i].gid, gid, 16);
		print_dest(p, "local address: ", &p->my[i]);
	}
	fflush(p->out);
	if ((st = exchange(p)) != ROCE_OK)
		return st;
	for (unsigned i = 0; i < p->o.num_qp; i++)
		p->pending[i] = SP_RECV_WRID;
	if (p->o.server) {
		for (unsigned i = 0; p->o.chk && i < p->o.size; i++)
			p->ep.buf[i] = pattern(i, p->page);
		for (unsigned i = 0; i < p->o.num_qp; i++) {
			if ((st = post_send(p, i)) != ROCE_OK)
				return st;
			p->pending[i] = SP_SEND_WRID | SP_RECV_WRID;
		}
	}
	t0 = now_ns();
	if ((st = loop(p)) != ROCE_OK)
		return st;
	{
		float usec = (float)((now_ns() - t0) / 1000);
		long long bytes = (long long)p->o.size * p->o.iters * 2;

		fprintf(p->out, "%lld bytes in %.2f seconds = %.2f Mbit/sec\n",
			bytes, usec / 1000000., bytes * 8. / usec);
		fprintf(p->out, "%u iters in %.2f seconds = %.2f usec/iter\n",
			p->o.iters, usec / 1000000., usec / p->o.iters);
	}
	/* let the last ACKs go out before the engine stops */
	if (p->ep.thread)
		usleep(20000);
	for (uint64_t end = now_ns() + 20000000ull; !p->ep.thread && now_ns() < end;)
		perf_ep_progress(&p->ep);
	return ROCE_OK;
}

static int finish(struct sp *p, int st)
{
	perf_ep_close(&p->ep);
	fflush(p->out);
	if (st)
		fprintf(stderr, "roce-srq-pingpong (%s): %s: %s\n",
			p->o.server ? "client" : "server", roce_status_name(st), p->msg);
	return st ? 1 : 0;
}

static void *server_thread(void *arg)
{
	void **a = arg;
	struct sp *p = a[0];

	*(int *)a[2] = finish(p, run(p, a[1]));
	return NULL;
}

static int selftest(const struct sp_opts *o)
{
	struct roce_memlink_config lc = { .seed = 1, .ring_frames = 8192, .lossless = true };
	struct roce_memlink *ml;
	struct sp *s = calloc(1, sizeof(*s)), *c = calloc(1, sizeof(*c));
	char *text = NULL;
	size_t len = 0;
	int rs = 1, rc = 1;
	pthread_t t;
	void *args[3] = { s, NULL, &rs };

	if (!s || !c || roce_memlink_create(&lc, &ml) != ROCE_OK) {
		fprintf(stderr, "roce-srq-pingpong: self-test setup failed\n");
		free(s);
		free(c);
		return 1;
	}
	args[1] = ml;
	s->o = *o;
	c->o = *o;
	s->o.server = NULL;
	s->o.net.ip = 0x0A000001u;
	c->o.server = "127.0.0.1";
	c->o.net.ip = 0x0A000002u;
	c->lfd = -1;
	s->lfd = roce_oob_listen("127.0.0.1", 0, &c->o.port, s->msg, sizeof(s->msg));
	s->out = open_memstream(&text, &len);
	c->out = stdout;
	if (s->lfd >= 0 && s->out && pthread_create(&t, NULL, server_thread, args) == 0) {
		printf("==== client\n");
		rc = finish(c, run(c, ml));
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "roce-srq-pingpong: self-test: cannot start the server\n");
	}
	if (s->out)
		fclose(s->out);
	printf("==== server\n%s", text ? text : "");
	free(text);
	roce_memlink_destroy(ml);
	free(s);
	free(c);
	return rc || rs;
}

int main(int argc, char **argv)
{
	struct sp *p;
	struct sp_opts o;
	int r, rc;

	r = parse(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	if (o.net.selftest)
		return selftest(&o);
	p = calloc(1, sizeof(*p));
	if (!p)
		return 1;
	p->o = o;
	p->out = stdout;
	p->lfd = -1;
	rc = finish(p, run(p, NULL));
	free(p);
	return rc;
}
