/* SPDX-License-Identifier: MIT */
/*
 * roce-pingpong: ibv_rc_pingpong on this engine. Same options, same
 * out-of-band exchange on TCP port 18515 (roce/oob.h), same output, so it
 * runs against rdma-core's ibv_rc_pingpong as client or as server:
 *
 *   roce-pingpong --netdev eth1 -g 1 -s 4096 -n 1000            # server
 *   roce-pingpong --netdev eth1 -g 1 -s 4096 -n 1000 10.0.0.1   # client
 *
 * -g N chooses our GID as ibv_rc_pingpong does (GID 0 the link-local
 * IPv6 one, 1 the IPv4 one, then the interface's IPv6 addresses and
 * --ip6's): the exchange carries it, and the QP talks RoCE v2 over IPv6
 * to an IPv6 GID. Without -g our GID is the IPv4 one, as before.
 *
 * The client sends a message of -s bytes, the server receives it into its
 * buffer and sends that buffer back, -n times (rc_pingpong.c:
 * parse_single_wc). -c checks the data: as ibv_rc_pingpong does, the
 * first byte of every page is 0 (the server checks what it received);
 * the other bytes carry a pattern that the client, getting its own data
 * back, checks in full. Unlike ibv_rc_pingpong, a check that fails makes
 * the exit status 1.
 *
 * Run as roce-uc-pingpong (a link to this program; any name ending in
 * uc-pingpong or uc_pingpong) it is ibv_uc_pingpong: a UC QP, connected
 * without the timeout, retry and READ/atomic attributes, and that tool's
 * options (rc_pingpong's less -o -O -P -t -j -N). UC sends nothing again:
 * a lost message stalls the exchange as it stalls the original, until
 * --timeout.
 *
 * Run as roce-ud-pingpong (ud-pingpong or ud_pingpong at the end of the
 * name) it is ibv_ud_pingpong: a UD QP with ud_pingpong.c's Q_Key
 * 0x11111111, an address handle to the peer, one datagram per message
 * (-s at most the port's MTU, the link's, else "Requested size larger
 * than port MTU"; default size 1024 as its code has it, its usage text
 * says 2048), receive buffers of -s + 40 bytes whose first 40 take the
 * GRH area, sends from byte 40 on, and that tool's options (rc_pingpong's
 * less -m -o -O -P -t -j -N). Its "local address" line has ": GID" where
 * the others have ", GID", as the original prints it.
 *
 * --memlink-selftest runs a server and a client inside this process over
 * the in-memory link and a loopback TCP exchange.
 *
 * Exit status: 0 success, 1 failure, 2 bad command line.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
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

#define PP_RECV_WRID 1u
#define PP_SEND_WRID 2u
#define PP_SIZE_MAX (256u << 20)
#define PP_TIMEOUT_S 60u

struct pp_opts {
	bool uc;                        /* ibv_uc_pingpong (by the program's name) */
	bool ud;                        /* ibv_ud_pingpong (likewise) */
	uint16_t port;
	unsigned size, rx_depth, iters, mtu;
	bool chk, ts, events;
	const char *server;
	struct perf_pp_net net;         /* --netdev, --link, -g, ... */
};

struct pp {
	struct pp_opts o;
	FILE *out;
	int lfd;
	struct perf_ep ep;
	struct roce_oob oob;
	struct roce_pp_dest my, rem;
	unsigned page, routs, pending;
	unsigned off;                   /* the message's place in the buffer:
					 * UD's follows the 40-byte GRH area */
	uint64_t ts_prev, ts_min, ts_max, ts_sum, ts_n;
	char msg[320];
};

static int fail(struct pp *p, int st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct pp *p, int st, const char *fmt, ...)
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

static const char *prog = "roce-pingpong";

/* Options ibv_uc_pingpong does not have (uc_pingpong.c's getopt string),
 * and those ibv_ud_pingpong does not have (ud_pingpong.c's). */
static const char rc_only_opts[] = "oOPtjN";
static const char ud_refused_opts[] = "moOPtjN";

static void usage(FILE *f, bool uc, bool ud)
{
	fprintf(f,
"Usage:\n"
"  %s --netdev IF [options]          start a server and wait for connection\n"
"  %s --netdev IF [options] <host>   connect to server at <host>\n"
"\nOptions (ibv_%s_pingpong's):\n", prog, prog, ud ? "ud" : uc ? "uc" : "rc");
	fprintf(f,
"  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
"  -d, --ib-dev=<dev>     accepted and ignored (the device is --netdev)\n"
"  -i, --ib-port=<port>   use port <port> of IB device (must be 1)\n");
	fprintf(f, ud ?
"  -s, --size=<size>      size of message to exchange (default 1024; at most\n"
"                         the port's MTU, the link's)\n" :
"  -s, --size=<size>      size of message to exchange (default 4096)\n"
"  -m, --mtu=<size>       path MTU (default 1024)\n");
	fprintf(f,
"  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n"
"  -n, --iters=<iters>    number of exchanges (default 1000)\n"
"  -l, --sl=<sl>          service level value (accepted, not used)\n"
"  -e, --events           sleep on CQ events (default poll); the engine then runs\n"
"                         on a thread of its own\n"
PERF_PP_GID_HELP
"  -c, --chk              validate received buffer (a failure is exit status 1)\n");
	if (!uc && !ud)
		fprintf(f,
"  -o, -O, -P, -j         on-demand paging, device memory: not supported\n"
"  -t, --ts               receive completion times (in ns: no HCA clock here)\n"
"  -N, --new_send         accepted (one post-send API here)\n");
	fprintf(f,
"\nOurs:\n"
"  --netdev=IFNAME        the interface to send RoCE v2 frames on (required)\n"
"  --link=packet|xdp      its port: AF_PACKET (default) or AF_XDP (MTU <= 3822;\n"
"                         RoCE frames only, the kernel keeps ARP and TCP)\n"
"  --xdp-mode=auto|native|generic  XDP mode for --link xdp (default auto)\n"
"  --ip=A.B.C.D           our IPv4 (default: the interface's)\n"
PERF_PP_IP6_HELP
"  --timeout=SEC          bound of every wait (default %u)\n"
"  --counters             print the engine's non-zero counters at the end\n"
"  -h, --help             this text\n", PP_TIMEOUT_S);
}

static int bad(const char *what, const char *val)
{
	return perf_pp_bad(prog, what, val);
}

static int one_opt(int c, const char *a, struct pp_opts *o)
{
	unsigned v;
	int r;

	switch (c) {
	case 'p': if (!perf_pp_num(a, 1, 65535, &v)) return bad("port", a); o->port = (uint16_t)v; return 0;
	case 'd': case 'l': case 'N': return 0;
	case 'i': if (!perf_pp_num(a, 1, 1, &v)) return bad("IB port (only 1)", a); return 0;
	case 's': if (!perf_pp_num(a, 1, PP_SIZE_MAX, &o->size)) return bad("size", a); return 0;
	case 'm': if (!perf_pp_num(a, 256, 4096, &o->mtu) || (o->mtu & (o->mtu - 1)))
			return bad("MTU", a);
		return 0;
	case 'r': if (!perf_pp_num(a, 1, 8000, &o->rx_depth)) return bad("rx depth", a); return 0;
	case 'n': if (!perf_pp_num(a, 1, 100000000, &o->iters)) return bad("iterations", a); return 0;
	case 'e': o->events = true; return 0;
	case 'o': case 'O': case 'P': case 'j':
		fprintf(stderr, "%s: -%c: %s is not supported\n", prog, c,
			c == 'j' ? "device memory (-j)" : "on-demand paging");
		return 1;
	case 't': o->ts = true; return 0;
	case 'c': o->chk = true; return 0;
	case 'h': usage(stdout, o->uc, o->ud); return -1;
	default:
		if ((r = perf_pp_net_opt(prog, c, a, &o->net)) != 1)
			return r;
		fprintf(stderr, "%s: unknown option (try --help)\n", prog);
		return 2;
	}
}

/* ibv_uc_pingpong by name (t "uc"): roce-uc-pingpong, ibv_uc_pingpong,
 * ...; ibv_ud_pingpong likewise (t "ud") */
static bool named(const char *argv0, const char *t)
{
	const char *base = strrchr(argv0, '/');
	char dash[16], under[16];
	size_t n;

	base = base ? base + 1 : argv0;
	n = strlen(base);
	snprintf(dash, sizeof(dash), "%s-pingpong", t);
	snprintf(under, sizeof(under), "%s_pingpong", t);
	return n >= 11 && (strcmp(base + n - 11, dash) == 0 ||
			   strcmp(base + n - 11, under) == 0);
}

static int parse(int argc, char **argv, struct pp_opts *o)
{
	static const struct option lo[] = {
		{ "port", 1, NULL, 'p' }, { "ib-dev", 1, NULL, 'd' },
		{ "ib-port", 1, NULL, 'i' }, { "size", 1, NULL, 's' },
		{ "mtu", 1, NULL, 'm' }, { "rx-depth", 1, NULL, 'r' },
		{ "iters", 1, NULL, 'n' }, { "sl", 1, NULL, 'l' },
		{ "events", 0, NULL, 'e' }, { "gid-idx", 1, NULL, 'g' },
		{ "odp", 0, NULL, 'o' }, { "iodp", 0, NULL, 'O' },
		{ "prefetch", 0, NULL, 'P' }, { "ts", 0, NULL, 't' },
		{ "chk", 0, NULL, 'c' }, { "dm", 0, NULL, 'j' },
		{ "new_send", 0, NULL, 'N' }, { "help", 0, NULL, 'h' },
		PERF_PP_NET_LONGOPTS, { NULL, 0, NULL, 0 },
	};
	int c, r;

	*o = (struct pp_opts){ .uc = named(argv[0], "uc"), .ud = named(argv[0], "ud"),
			       .port = ROCE_OOB_PORT_DEFAULT,
			       .size = 4096, .mtu = 1024, .rx_depth = 500, .iters = 1000,
			       .net = PERF_PP_NET_INIT(PP_TIMEOUT_S) };
	if (o->uc)
		prog = "roce-uc-pingpong";
	if (o->ud) {
		prog = "roce-ud-pingpong";
		o->size = 1024;         /* ud_pingpong.c's main() */
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:i:s:m:r:n:l:eg:oOPtcjNh", lo, NULL)) != -1) {
		if (c > 0 && c < 256 && ((o->uc && strchr(rc_only_opts, c)) ||
					 (o->ud && strchr(ud_refused_opts, c)))) {
			fprintf(stderr, "%s: unknown option '-%c' (try --help)\n", prog, c);
			return 2;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "%s: %s option '%s' (try --help)\n", prog,
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
	if (!o->net.netdev && !o->net.selftest) {
		fprintf(stderr, "%s: give the interface with --netdev IFNAME "
			"(try --help)\n", prog);
		return 2;
	}
	return 0;
}

/* ---- the run ----------------------------------------------------------- */

static uint8_t pattern(unsigned i, unsigned page)
{
	/* rc_pingpong marks each page with 0 in its first byte */
	return i % page == 0 ? 0 : (uint8_t)(i * 7u ^ (i >> 8) ^ 0x5au);
}

static int post_recv(struct pp *p, unsigned n)
{
	/* UD: the GRH area, then the message (ud_pingpong.c pp_post_recv) */
	struct roce_sge sge = { (uintptr_t)p->ep.buf, p->o.size + p->off, p->ep.mr->lkey };
	struct roce_recv_wr wr = { .wr_id = PP_RECV_WRID, .sg_list = &sge, .num_sge = 1 };
	struct roce_recv_wr *badwr;
	unsigned i;

	for (i = 0; i < n; i++)
		if (roce_post_recv(p->ep.qp[0], &wr, &badwr) != ROCE_OK)
			break;
	return (int)i;
}

static int post_send(struct pp *p)
{
	struct roce_sge sge = { (uintptr_t)p->ep.buf + p->off, p->o.size, p->ep.mr->lkey };
	struct roce_send_wr wr = { .wr_id = PP_SEND_WRID, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *badwr;
	int st;

	if (p->o.ud) {
		wr.wr.ud.ah = p->ep.ah[0];
		wr.wr.ud.remote_qpn = p->ep.ud_qpn[0];
		wr.wr.ud.remote_qkey = PERF_UD_QKEY;
	}
	st = roce_post_send(p->ep.qp[0], &wr, &badwr);

	return st ? fail(p, st, "Couldn't post send: %s", roce_status_str(st)) : ROCE_OK;
}

static int conn(void *arg, const struct roce_pp_dest *rem)
{
	struct pp *p = arg;
	struct perf_conn c = {
		.dest_qpn = rem->qpn, .rq_psn = rem->psn, .sq_psn = p->my.psn,
		.mtu = perf_mtu_from_bytes(p->o.mtu), .timeout = 14, .min_rnr_timer = 12,
		.max_rd_atomic = 1, .max_dest_rd_atomic = 1,
	};
	int st;

	/* rc_pingpong's pp_connect_ctx: a GRH toward the peer's GID
	 * (perf_pp.h) */
	st = perf_pp_route(&p->o.net.gid, p->my.gid, rem->gid, roce_oob_peer_ip(&p->oob), &c,
			   p->msg, sizeof(p->msg));
	if (st)
		return st;
	if (c.mtu > p->ep.link_mtu)
		c.mtu = p->ep.link_mtu;
	st = perf_ep_connect(&p->ep, 0, &c);
	if (st)
		fail(p, st, "Failed to connect the QP: %s", p->ep.err);
	return st;
}

static int check(struct pp *p)
{
	const uint8_t *m = p->ep.buf + p->off;

	for (unsigned i = 0; i < p->o.size; i++) {
		bool client = p->o.server != NULL;

		if ((client || i % p->page == 0) && m[i] != pattern(i, p->page)) {
			fprintf(p->out, "invalid data in page %u\n", i / p->page);
			return fail(p, ROCE_E_MISMATCH, "content check: byte %u (page %u) "
				    "is 0x%02x, expected 0x%02x", i, i / p->page,
				    m[i], pattern(i, p->page));
		}
	}
	return ROCE_OK;
}

/* parse_single_wc() */
static int one_wc(struct pp *p, const struct roce_wc *wc, unsigned *scnt, unsigned *rcnt)
{
	if (wc->status != ROCE_WC_SUCCESS)
		return fail(p, ROCE_E_IO, "Failed status %s (%d) for wr_id %d",
			    roce_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
	if (wc->wr_id == PP_SEND_WRID) {
		++*scnt;
	} else if (wc->wr_id == PP_RECV_WRID) {
		if (--p->routs <= 1) {
			p->routs += (unsigned)post_recv(p, p->o.rx_depth - p->routs);
			if (p->routs < p->o.rx_depth)
				return fail(p, ROCE_E_FULL, "Couldn't post receive (%u)", p->routs);
		}
		++*rcnt;
		if (p->o.ts) {
			uint64_t t = now_ns();

			if (p->ts_prev) {
				uint64_t d = t - p->ts_prev;

				p->ts_max = d > p->ts_max ? d : p->ts_max;
				p->ts_min = !p->ts_n || d < p->ts_min ? d : p->ts_min;
				p->ts_sum += d;
				p->ts_n++;
			}
			p->ts_prev = t;
		}
		if (p->o.chk && check(p) != ROCE_OK)
			return ROCE_E_MISMATCH;
	} else {
		return fail(p, ROCE_E_IO, "Completion for unknown wr_id %d", (int)wc->wr_id);
	}
	p->pending &= ~(unsigned)wc->wr_id;
	if (*scnt < p->o.iters && !p->pending) {
		if (post_send(p) != ROCE_OK)
			return ROCE_E_IO;
		p->pending = PP_RECV_WRID | PP_SEND_WRID;
	}
	return ROCE_OK;
}

static int loop(struct pp *p)
{
	unsigned scnt = 0, rcnt = 0;
	uint64_t last = now_ns(), limit = (uint64_t)p->o.net.timeout_s * 1000000000ull;

	while (rcnt < p->o.iters || scnt < p->o.iters) {
		struct roce_wc wc[2];
		int n = 0, st;

		/* -e: the loop starts with an event (ibv_get_cq_event, then the
		 * CQ armed again), the poll follows; perf_ep_idle waits for
		 * one within a bounded slice */
		if (p->o.events && (st = perf_ep_idle(&p->ep)) != ROCE_OK)
			return fail(p, st, "%s", p->ep.err);
		perf_ep_progress(&p->ep);
		for (int c = 0; c < 2; c++) {
			int k = roce_poll_cq(c ? p->ep.rcq : p->ep.scq, 2 - n, wc + n);

			if (k < 0)
				return fail(p, k, "poll CQ failed %d", k);
			n += k;
		}
		for (int i = 0; i < n; i++)
			if ((st = one_wc(p, &wc[i], &scnt, &rcnt)) != ROCE_OK)
				return st;
		if (n)
			last = now_ns();
		else if (now_ns() - last > limit)
			return fail(p, ROCE_E_TIMEOUT, "no completion for %u s (%u sent, "
				    "%u received)", p->o.net.timeout_s, scnt, rcnt);
	}
	return ROCE_OK;
}

static int exchange(struct pp *p)
{
	char gid[INET6_ADDRSTRLEN];
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
		st = roce_pp_exchange(&p->oob, &p->my, &p->rem, conn, p);
	if (st) {
		roce_oob_close(&p->oob);
		return p->msg[0] ? st : fail(p, st, "%s", p->oob.err);
	}
	inet_ntop(AF_INET6, p->rem.gid, gid, sizeof(gid));
	fprintf(p->out, "  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n",
		p->rem.lid, p->rem.qpn, p->rem.psn, gid);
	if (p->o.server)
		st = conn(p, &p->rem);  /* while the TCP peer is still known */
	roce_oob_close(&p->oob);
	return st;
}

static void results(struct pp *p, uint64_t ns)
{
	float usec = (float)(ns / 1000);
	long long bytes = (long long)p->o.size * p->o.iters * 2;

	fprintf(p->out, "%lld bytes in %.2f seconds = %.2f Mbit/sec\n",
		bytes, usec / 1000000., bytes * 8. / usec);
	fprintf(p->out, "%u iters in %.2f seconds = %.2f usec/iter\n",
		p->o.iters, usec / 1000000., usec / p->o.iters);
	if (p->o.ts && p->ts_n) {
		fprintf(p->out, "Max receive completion clock cycles = %" PRIu64 "\n", p->ts_max);
		fprintf(p->out, "Min receive completion clock cycles = %" PRIu64 "\n", p->ts_min);
		fprintf(p->out, "Average receive completion clock cycles = %f\n",
			(double)p->ts_sum / (double)p->ts_n);
	}
}

static int run(struct pp *p, struct roce_memlink *ml)
{
	struct perf_ep_config c = {
		.netdev = p->o.net.netdev, .link = p->o.net.link, .xdp_mode = p->o.net.xdp_mode,
		.ip = p->o.net.ip, .memlink = ml, .nqp = 1,
		.qp_type = p->o.ud ? ROCE_QPT_UD : p->o.uc ? ROCE_QPT_UC : ROCE_QPT_RC,
		.sq_depth = 2, .rq_depth = p->o.rx_depth + 1,
		.timeout_ms = p->o.net.timeout_s * 1000u,
		.counters = p->o.net.counters, .events = p->o.events,
	};
	struct perf_layout l;
	char gid[INET6_ADDRSTRLEN];
	uint64_t t0;
	int st;

	/* ibv_rc_pingpong's rights and buffer: the QP none, the MR local
	 * write over size bytes on a page (perf_layout.h) */
	p->page = (unsigned)sysconf(_SC_PAGESIZE);
	p->off = p->o.ud ? ROCE_GRH_LEN : 0;
	perf_layout_pingpong(p->o.size + p->off, p->page, &l);
	c.max_buf = l.len + l.align;
	c.qp_access = l.qp_access;
	perf_pp_gid_config(&p->o.net.gid, &c);
	if ((st = perf_ep_open(&p->ep, &c)) != ROCE_OK)
		return fail(p, st, "%s", p->ep.err);
	/* ud_pingpong.c pp_init_ctx: a datagram is at most the port's MTU */
	if (p->o.ud && p->o.size > roce_mtu_bytes(roce_context_port_mtu(p->ep.ctx)))
		return fail(p, ROCE_E_RANGE, "Requested size larger than port MTU (%u)",
			    roce_mtu_bytes(roce_context_port_mtu(p->ep.ctx)));
	if ((st = perf_ep_buffer(&p->ep, l.len, l.align, l.mr_access)) != ROCE_OK)
		return fail(p, st, "%s", p->ep.err);
	memset(p->ep.buf, 0x7b, p->o.size + p->off);
	if ((st = perf_ep_init(&p->ep, 0)) != ROCE_OK)
		return fail(p, st, "%s", p->ep.err);
	p->routs = (unsigned)post_recv(p, p->o.rx_depth);
	if (p->routs < p->o.rx_depth)
		return fail(p, ROCE_E_FULL, "Couldn't post receive (%u)", p->routs);
	srand48((long)getpid() * time(NULL) ^ (long)(uintptr_t)p);
	p->my = (struct roce_pp_dest){ .qpn = roce_qp_num(p->ep.qp[0]),
				       .psn = (uint32_t)lrand48() & 0xFFFFFFu };
	if ((st = perf_pp_my_gid(&p->o.net.gid, &p->ep, p->my.gid)) != ROCE_OK)
		return fail(p, st, "%s", p->ep.err);
	inet_ntop(AF_INET6, p->my.gid, gid, sizeof(gid));
	fprintf(p->out, "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s\n",
		p->my.lid, p->my.qpn, p->my.psn, p->o.ud ? ":" : ",", gid);
	fflush(p->out);
	if ((st = exchange(p)) != ROCE_OK)
		return st;
	p->pending = PP_RECV_WRID;
	if (p->o.server) {
		for (unsigned i = 0; p->o.chk && i < p->o.size; i++)
			p->ep.buf[p->off + i] = pattern(i, p->page);
		if ((st = post_send(p)) != ROCE_OK)
			return st;
		p->pending |= PP_SEND_WRID;
	}
	t0 = now_ns();
	if ((st = loop(p)) != ROCE_OK)
		return st;
	results(p, now_ns() - t0);
	/* let the last ACKs go out before the engine stops */
	if (p->ep.thread)
		usleep(20000);
	for (uint64_t end = now_ns() + 20000000ull; !p->ep.thread && now_ns() < end;)
		perf_ep_progress(&p->ep);
	return ROCE_OK;
}

static int finish(struct pp *p, int st)
{
	perf_ep_close(&p->ep);
	fflush(p->out);
	if (st)
		fprintf(stderr, "%s (%s): %s: %s\n", prog, p->o.server ? "client" : "server",
			roce_status_name(st), p->msg);
	return st ? 1 : 0;
}

static void *server_thread(void *arg)
{
	void **a = arg;
	struct pp *p = a[0];

	*(int *)a[2] = finish(p, run(p, a[1]));
	return NULL;
}

static int selftest(const struct pp_opts *o)
{
	struct roce_memlink_config lc = { .seed = 1, .ring_frames = 8192, .lossless = true };
	struct roce_memlink *ml;
	struct pp *s = calloc(1, sizeof(*s)), *c = calloc(1, sizeof(*c));
	char *text = NULL;
	size_t len = 0;
	int rs = 1, rc = 1;
	pthread_t t;
	void *args[3] = { s, NULL, &rs };

	if (!s || !c || roce_memlink_create(&lc, &ml) != ROCE_OK) {
		fprintf(stderr, "%s: self-test setup failed\n", prog);
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
		fprintf(stderr, "%s: self-test: cannot start the server\n", prog);
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
	struct pp *p;
	int r, rc;
	struct pp_opts o;

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
