/* SPDX-License-Identifier: MIT */
/*
 * roce-perf's command line: perftest's flags with perftest's defaults and
 * dependencies (perftest_parameters.c: init_perftest_params, parser,
 * force_dependecies), so a harness can swap "ib_write_bw ARGS" for
 * "roce-perf write_bw ARGS --netdev IF". Flags perftest has and we do not
 * are refused by name rather than ignored.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"
#include "perf/perf_stage_opts.h"
#include "roce/oob.h"
#include "roce/status.h"

static const struct {
	const char *name;
	enum perf_verb verb;
	enum perf_tst tst;
} tests[] = {
	{ "write_bw", PERF_WRITE, PERF_BW },  { "read_bw", PERF_READ, PERF_BW },
	{ "send_bw", PERF_SEND, PERF_BW },    { "atomic_bw", PERF_ATOMIC, PERF_BW },
	{ "write_lat", PERF_WRITE, PERF_LAT }, { "read_lat", PERF_READ, PERF_LAT },
	{ "send_lat", PERF_SEND, PERF_LAT },
};

enum { OPT_NETDEV = 256, OPT_IP, OPT_IP6, OPT_CHECK, OPT_TIMEOUT, OPT_SELFTEST, OPT_COUNTERS,
       OPT_LINK, OPT_XDP_MODE, OPT_REPORT_GBITS, OPT_REPORT_BOTH, OPT_TCLASS, OPT_CC,
       OPT_WINDOW, OPT_ADAPTIVE_RTO, OPT_CC_ALGO, OPT_IBA_STRICT };
enum { OPT_MMAP = 320, OPT_MMAP_OFFSET };

const char *perf_test_name(enum perf_verb v, enum perf_tst t)
{
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (tests[i].verb == v && tests[i].tst == t)
			return tests[i].name;
	return "?";
}

void perf_usage(FILE *f, const char *argv0)
{
	fprintf(f,
"Usage: %s TEST [options] [server]\n"
"  TEST: write_bw read_bw send_bw atomic_bw write_lat read_lat send_lat\n"
"  (or run it as ib_write_bw etc. through a link of that name)\n"
"  Without a server name it waits for a client, as perftest's tools do.\n"
"\n"
"perftest's options:\n"
"  -p, --port=<port>        TCP port of the exchange (default 18515)\n"
"  -d, --ib-dev=<dev>       accepted and ignored (the device is --netdev)\n"
"  -i, --ib-port=<port>     accepted (must be 1)\n"
"  -s, --size=<size>        message size, K/M suffixes (default 65536 bw, 2 lat, 8 atomic)\n"
"  -n, --iters=<iters>      iterations (default 5000 write_bw, 1000 others; >= 5)\n"
"  -D, --duration=<sec>     run for a time instead of -n\n"
"  -f, --margin=<sec>       -D: warm-up and cool-down margins (default duration/4)\n"
"  -a, --all                all sizes 2 .. 2^23 (UD: 2 .. the MTU)\n"
"  -c, --connection=<RC/UC/UD> connection type (default RC); UC: no READ or\n"
"                           atomics; UD: send_bw and send_lat, a message of at\n"
"                           most the MTU (a larger -s becomes the MTU)\n"
"  -q, --qp=<n>             QPs (bandwidth tests; default 1): %u..%u as perftest,\n"
"                           and no more than the device offers (%u here)\n"
"  -m, --mtu=<mtu>          path MTU 256..4096 (default the link's)\n"
"  -x, --gid-index=<idx>    our GID: 0 the link-local IPv6 one (from the MAC),\n"
"                           1 the IPv4 one, then the interface's IPv6 addresses\n"
"                           and --ip6's; an IPv6 GID makes it RoCE v2 over IPv6\n"
"                           (default: the IPv4 GID, ::ffff:<ip>)\n"
"  -u, --qp-timeout=<n>     QP timeout, 4.096 us * 2^n (default 14)\n"
"  -t, --tx-depth=<n>       outstanding sends (default 128 bw, 1 lat)\n"
"  -r, --rx-depth=<n>       posted receives, SEND tests (default 512)\n"
"  -Q, --cq-mod=<n>         a completion every n sends (default 100)\n"
"  -o, --outs=<n>           outstanding READs/atomics offered\n"
"  -A, --atomic_type=<t>    CMP_AND_SWAP or FETCH_AND_ADD (default)\n"
"  -F, --CPU-freq           accepted (no CPU frequency is used here)\n"
"  -N, --noPeak             no peak bandwidth\n"
"  -e, --events             sleep on CQ events (a completion channel) instead of\n"
"                           polling; not for WRITE tests nor -D, as perftest\n"
"  -b, --bidirectional      both sides send at once (bw tests; give it to both)\n"
"  -R, --rdma_cm            connect the QPs through the RDMA CM (REQ/REP/RTU on\n"
"                           -p's port) and run the exchange over a QP it\n"
"                           connected instead of TCP (RC only; give it to both)\n"
"      --report_gbits       bandwidth in Gb/sec (10^9 bits) instead of MB/sec\n"
"      --report-both        with -b, also the local and remote results apart\n"
"      --tclass=<value>     the QPs' IP traffic class (TOS byte, 0..255; its DSCP\n"
"                           >> 3 is the QP's priority for --cc); not with -R\n"
"      --mmap=FILE          the buffer in FILE (mapped shared), so another process\n"
"                           can see it; with --memlink-selftest, the server's\n"
"      --mmap-offset=N      from byte N of FILE on (a multiple of the page size)\n"
"  -V, --version            perftest version we speak (%s)\n"
"  -h, --help               this text\n"
"ours:\n"
"  --netdev=IFNAME          the interface to send RoCE v2 frames on\n"
"  --link=packet|xdp        its port: AF_PACKET (default) or AF_XDP (MTU <= 3822;\n"
"                           RoCE frames only, the kernel keeps ARP and TCP)\n"
"  --xdp-mode=auto|native|generic  XDP mode for --link xdp (default auto)\n"
"  --ip=A.B.C.D             our IPv4 (default: the interface's)\n"
"  --ip6=ADDR               an IPv6 address of ours the interface does not carry\n"
"                           (a GID after the interface's; repeatable; our port\n"
"                           answers neighbour discovery for it)\n"
"  --check                  receiver verifies a known pattern (both sides ours)\n"
"  --counters               print the engine's non-zero counters at the end\n"
"  --cc                     congestion control on every priority (docs/cc.md):\n"
"                           our packets ECN-capable (ECT(0)), a CNP for each\n"
"                           CE-marked one received (at most one per QP per 4 us),\n"
"                           DCQCN with ConnectX's defaults on the CNPs we get\n"
"  --cc-algo=NAME           the reaction point's algorithm, dcqcn or swift\n"
"                           (implies --cc; docs/cc.md)\n"
"  --iba-strict             loss recovery as IBA says alone: no adaptive window,\n"
"                           timer or tail-loss probe (the defaults have them)\n"
"  --window=KB              each RC QP keeps at most KB unacknowledged (go-back-N\n"
"                           resends at most that per loss; 1..1048576)\n"
"  --adaptive-rto           retransmit after the measured round trip (floor\n"
"                           100 us, tail-loss probes): the default; with\n"
"                           --iba-strict, the timer alone\n"
"  --timeout=SEC            bound of every wait (default %u)\n",
		argv0, PERF_MIN_QP, PERF_MAX_QP, perf_ep_qp_limit(NULL), ROCE_PT_VERSION,
		PERF_TIMEOUT_S_DEFAULT);
	perf_stage_usage(f, "our buffer's MR in either role", 27);
}

static int bad(FILE *err, const char *what, const char *val, const char *why)
{
	fprintf(err, "roce-perf: %s '%s': %s (try --help)\n", what, val, why);
	return 2;
}

static bool num(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool size_arg(const char *s, uint64_t *out)
{
	char buf[32];
	size_t n = strlen(s);
	uint64_t mul = 1, v;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == 'K' || buf[n - 1] == 'M') {
		mul = buf[n - 1] == 'K' ? 1024 : 1048576;
		buf[n - 1] = '\0';
	}
	if (!num(buf, 1, UINT_MAX / 2, &v) || v * mul > UINT_MAX / 2)
		return false;
	*out = v * mul;
	return true;
}

static int pick_test(const char *s, struct perf_opts *o)
{
	const char *base = strrchr(s, '/');

	base = base ? base + 1 : s;
	if (strncmp(base, "ib_", 3) == 0)
		base += 3;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(base, tests[i].name) == 0) {
			o->name = tests[i].name;
			o->verb = tests[i].verb;
			o->tst = tests[i].tst;
			return 0;
		}
	}
	return -1;
}

/* change_conn_type(): perftest's names and its refusals, in its words;
 * of the rest, RC, UC and UD are what this engine speaks. */
static int conn_type(const char *a, struct perf_opts *o, FILE *err)
{
	static const char *const later[] = { "RawEth", "XRC", "DC", "SRD" };

	if (strcmp(a, "RC") == 0) {
		o->conn = ROCE_QPT_RC;
		return 0;
	}
	if (strcmp(a, "UC") == 0) {
		if (o->verb == PERF_READ || o->verb == PERF_ATOMIC) {
			fprintf(err, "roce-perf: UC connection not possible in READ/ATOMIC verbs\n");
			return 2;
		}
		o->conn = ROCE_QPT_UC;
		return 0;
	}
	if (strcmp(a, "UD") == 0) {
		if (o->verb != PERF_SEND) {
			fprintf(err, "roce-perf: UD connection only possible in SEND verb\n");
			return 2;
		}
		o->conn = ROCE_QPT_UD;
		return 0;
	}
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		if (strcmp(a, later[i]) == 0)
			return bad(err, "connection type", a, "not supported by this engine "
				   "(RC, UC and UD are)");
	fprintf(err, "roce-perf: Invalid Connection type. Please choose from "
		"{RC,UC,UD,XRC,DC,SRD}\n");
	return 2;
}

static void defaults(struct perf_opts *o)
{
	o->size = o->tst == PERF_BW ? PERF_DEF_SIZE_BW : PERF_DEF_SIZE_LAT;
	if (o->verb == PERF_ATOMIC)
		o->size = 8;
	o->iters = o->tst == PERF_BW && o->verb == PERF_WRITE ? PERF_DEF_ITERS_WB
							     : PERF_DEF_ITERS;
	o->tx_depth = o->tst == PERF_BW ? PERF_DEF_TX_BW : PERF_DEF_TX_LAT;
	o->rx_depth = o->verb == PERF_SEND ? PERF_DEF_RX_SEND : 1;
	o->cq_mod = PERF_DEF_CQ_MOD;
	o->duration = PERF_DEF_DURATION;
	o->qp_timeout = PERF_DEF_QP_TIME;
	o->nqp = 1;
	o->conn = ROCE_QPT_RC;
	o->gid_index = -1;
	o->ib_port = 1;
	o->port = ROCE_OOB_PORT_DEFAULT;
	o->atomic = PERF_FETCH_AND_ADD;
	o->timeout_s = PERF_TIMEOUT_S_DEFAULT;
	o->tclass = -1;
	roce_cc_options_init(&o->cc);
	perf_stage_opts_init(&o->stage);
}

static const struct option longopts[] = {
	{ "port", 1, NULL, 'p' },       { "ib-dev", 1, NULL, 'd' },
	{ "ib-port", 1, NULL, 'i' },    { "size", 1, NULL, 's' },
	{ "iters", 1, NULL, 'n' },      { "duration", 1, NULL, 'D' },
	{ "margin", 1, NULL, 'f' },     { "all", 0, NULL, 'a' },
	{ "qp", 1, NULL, 'q' },         { "mtu", 1, NULL, 'm' },
	{ "connection", 1, NULL, 'c' },
	{ "gid-index", 1, NULL, 'x' },  { "qp-timeout", 1, NULL, 'u' },
	{ "tx-depth", 1, NULL, 't' },   { "rx-depth", 1, NULL, 'r' },
	{ "cq-mod", 1, NULL, 'Q' },     { "outs", 1, NULL, 'o' },
	{ "atomic_type", 1, NULL, 'A' }, { "CPU-freq", 0, NULL, 'F' },
	{ "noPeak", 0, NULL, 'N' },     { "version", 0, NULL, 'V' },
	{ "events", 0, NULL, 'e' },
	{ "bidirectional", 0, NULL, 'b' },
	{ "rdma_cm", 0, NULL, 'R' },
	{ "report_gbits", 0, NULL, OPT_REPORT_GBITS },
	{ "report-both", 0, NULL, OPT_REPORT_BOTH },
	{ "tclass", 1, NULL, OPT_TCLASS },
	{ "cc", 0, NULL, OPT_CC },
	{ "window", 1, NULL, OPT_WINDOW },
	{ "adaptive-rto", 0, NULL, OPT_ADAPTIVE_RTO },
	{ "cc-algo", 1, NULL, OPT_CC_ALGO },
	{ "iba-strict", 0, NULL, OPT_IBA_STRICT },
	{ "help", 0, NULL, 'h' },       { "netdev", 1, NULL, OPT_NETDEV },
	{ "link", 1, NULL, OPT_LINK },  { "xdp-mode", 1, NULL, OPT_XDP_MODE },
	{ "ip", 1, NULL, OPT_IP },      { "check", 0, NULL, OPT_CHECK },
	{ "ip6", 1, NULL, OPT_IP6 },
	{ "timeout", 1, NULL, OPT_TIMEOUT },
	{ "mmap", 1, NULL, OPT_MMAP },  { "mmap-offset", 1, NULL, OPT_MMAP_OFFSET },
	{ "counters", 0, NULL, OPT_COUNTERS },
	{ "memlink-selftest", 0, NULL, OPT_SELFTEST },
	PERF_STAGE_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static int one_opt(int c, const char *a, struct perf_opts *o, FILE *out, FILE *err)
{
	uint64_t v;
	struct in_addr in;

	switch (c) {
	case 'p': if (!num(a, 1, 65535, &v)) return bad(err, "port", a, "not 1..65535");
		o->port = (uint16_t)v; return 0;
	case 'd': o->ib_dev = a; return 0;
	case 'i': if (!num(a, 1, 1, &v)) return bad(err, "IB port", a, "only port 1");
		return 0;
	case 's': if (!size_arg(a, &o->size)) return bad(err, "size", a, "not 1..2^31-1");
		o->size_set = true; return 0;
	case 'n': if (!num(a, PERF_MIN_ITER, PERF_MAX_ITER, &o->iters))
			return bad(err, "iterations", a, "not between 5 and 100000000");
		return 0;
	case 'D': if (!num(a, 1, 86400, &v)) return bad(err, "duration", a, "not 1..86400");
		o->duration = (unsigned)v; o->duration_mode = true; return 0;
	case 'f': if (!num(a, 0, 43200, &v)) return bad(err, "margin", a, "not 0..43200");
		o->margin = (unsigned)v + 1; return 0;   /* +1: set (0 is a value) */
	case 'a': o->run_all = true; return 0;
	case 'c': return conn_type(a, o, err);
	case 'q': if (o->tst != PERF_BW) return bad(err, "-q", a, "multiple QPs only on bw tests");
		/* parser(): CHECK_VALUE_IN_RANGE(num_of_qps, MIN_QP_NUM,
		 * MAX_QP_NUM, "num of Qps"); what the device offers is
		 * checked when it is open (perf_ep_open) */
		if (!num(a, PERF_MIN_QP, PERF_MAX_QP, &v)) {
			char why[64];

			snprintf(why, sizeof(why), "should be between %u and %u",
				 PERF_MIN_QP, PERF_MAX_QP);
			return bad(err, "num of Qps", a, why);
		}
		o->nqp = (unsigned)v; return 0;
	case 'm': if (!num(a, 256, 4096, &v) || (v & (v - 1)))
			return bad(err, "MTU", a, "not 256, 512, 1024, 2048 or 4096");
		o->mtu = (unsigned)v; return 0;
	case 'x': if (!num(a, 0, 64, &v)) return bad(err, "GID index", a, "not 0..64");
		o->gid_index = (int)v; o->gid_set = true; return 0;
	case 'u': if (!num(a, 0, 31, &v)) return bad(err, "QP timeout", a, "not 0..31");
		o->qp_timeout = (unsigned)v; return 0;
	case 't': if (!num(a, 1, PERF_MAX_TX, &v)) return bad(err, "tx depth", a, "not 1..15000");
		o->tx_depth = (unsigned)v; return 0;
	case 'r': if (!num(a, 1, PERF_MAX_RX, &v)) return bad(err, "rx depth", a, "not 1..16384");
		if (o->verb != PERF_SEND && v > 1)
			return bad(err, "rx depth", a, "on RDMA verbs rx depth can be only 1");
		o->rx_depth = (unsigned)v; return 0;
	case 'Q': if (!num(a, 1, 1024, &v)) return bad(err, "CQ moderation", a, "not 1..1024");
		o->cq_mod = (unsigned)v; o->cq_mod_set = true; return 0;
	case 'o': if (o->verb != PERF_READ && o->verb != PERF_ATOMIC)
			return bad(err, "-o", a, "outstanding reads only on READ and atomic tests");
		if (!num(a, 1, 65535, &v)) return bad(err, "outstanding reads", a, "not 1..65535");
		o->out_reads = (int)v; return 0;
	case 'A': if (o->verb != PERF_ATOMIC) return bad(err, "-A", a, "only for atomic tests");
		if (strcmp(a, "CMP_AND_SWAP") == 0) o->atomic = PERF_CMP_AND_SWAP;
		else if (strcmp(a, "FETCH_AND_ADD") == 0) o->atomic = PERF_FETCH_AND_ADD;
		else return bad(err, "atomic type", a, "choose CMP_AND_SWAP or FETCH_AND_ADD");
		return 0;
	case 'F': o->cpu_freq_f = true; return 0;
	case 'e': if (o->verb == PERF_WRITE) {   /* parser(): perftest's words */
			fprintf(err, "roce-perf: Events feature not available on WRITE verb "
				"(try --help)\n");
			return 2;
		}
		o->events = true; return 0;
	case 'R': o->rdma_cm = true; return 0;
	case 'N': if (o->tst == PERF_LAT) return bad(err, "-N", "", "only for bw tests");
		o->no_peak = true; return 0;
	case 'b': if (o->tst == PERF_LAT) {      /* parser(): the message perftest prints */
			fprintf(err, "roce-perf: Bidirectional is only available in BW test "
				"(try --help)\n");
			return 2;
		}
		o->duplex = true; return 0;
	/* accepted by every test, as perftest does; only bw tables show them */
	case OPT_REPORT_GBITS: o->report_fmt = PERF_GBS; return 0;
	case OPT_REPORT_BOTH: o->report_both = true; return 0;
	/* perftest: CHECK_VALUE(traffic_class, uint16_t, ...), used as
	 * ah_attr.grh.traffic_class, a byte */
	case OPT_TCLASS: if (!num(a, 0, 255, &v)) return bad(err, "traffic class", a, "not 0..255");
		o->tclass = (int)v; return 0;
	case OPT_CC: o->cc.ecn = true; return 0;
	case OPT_CC_ALGO: {
		char why[96];

		if (roce_cc_options_algo(&o->cc, a, why, sizeof(why)))
			return bad(err, "--cc-algo", a, "choose dcqcn or swift");
		return 0;
	}
	case OPT_IBA_STRICT: o->cc.iba_strict = true; return 0;
	case OPT_WINDOW: if (!num(a, 1, 1u << 20, &v)) return bad(err, "--window", a, "not 1..1048576 KB");
		o->cc.window_kb = (uint32_t)v; return 0;
	case OPT_ADAPTIVE_RTO: o->cc.adaptive_rto = true; return 0;
	case 'V': fprintf(out, "Version: %s\n", ROCE_PT_VERSION); return 1;
	case 'h': perf_usage(out, "roce-perf"); return 1;
	case OPT_NETDEV: o->netdev = a; return 0;
	case OPT_LINK: if (roce_link_kind_parse(a, &o->link))
			return bad(err, "--link", a, "choose packet or xdp");
		return 0;
	case OPT_XDP_MODE: if (roce_afxdp_mode_parse(a, &o->xdp_mode))
			return bad(err, "--xdp-mode", a, "choose auto, native or generic");
		return 0;
	case OPT_IP: if (inet_pton(AF_INET, a, &in) != 1 || !in.s_addr)
			return bad(err, "--ip", a, "not an IPv4 address");
		o->ip = ntohl(in.s_addr); return 0;
	case OPT_IP6:
		if (o->n_ip6 == ROCE_MAX_IP6)
			return bad(err, "--ip6", a, "too many");
		if (roce_gid_parse(a, o->ip6[o->n_ip6]) != ROCE_OK ||
		    !roce_gid_is_unicast(o->ip6[o->n_ip6]) ||
		    roce_gid_is_v4mapped(o->ip6[o->n_ip6]))
			return bad(err, "--ip6", a, "not a unicast IPv6 address");
		o->n_ip6++;
		return 0;
	case OPT_CHECK: o->check = true; return 0;
	case OPT_COUNTERS: o->counters = true; return 0;
	case OPT_TIMEOUT: if (!num(a, 1, 86400, &v)) return bad(err, "timeout", a, "not 1..86400 s");
		o->timeout_s = (unsigned)v; return 0;
	case OPT_SELFTEST: o->selftest = true; return 0;
	case OPT_MMAP: if (!*a) return bad(err, "--mmap", a, "name a file");
		o->mmap_file = a; return 0;
	case OPT_MMAP_OFFSET: if (!num(a, 0, INT64_MAX, &o->mmap_offset))
			return bad(err, "mmap offset", a, "not a number of bytes");
		return 0;
	default: {
		const char *what;
		char why[96];

		switch (perf_stage_opt(c, a, &o->stage, &what, why, sizeof(why))) {
		case ROCE_OK: return 0;
		case ROCE_E_INVAL: return bad(err, what, a, why);
		}
		fprintf(err, "roce-perf: unknown or unsupported option (try --help)\n");
		return 2;
	}
	}
}

/* force_dependecies(), the parts that apply to RC and UC over one port. */
static int depend(struct perf_opts *o, FILE *err)
{
	char why[96];

	/* -R: librdmacm has no UC; the buffer could not be the first thing in
	 * an --mmap file, since the CM's exchange needs memory before it */
	if (o->rdma_cm && o->conn == ROCE_QPT_UC) {
		fprintf(err, "roce-perf: UC is not supported in librdmacm (-R)\n");
		return 2;
	}
	if (o->rdma_cm && o->tclass >= 0) {
		fprintf(err, "roce-perf: --tclass with -R is not supported here (the CM "
			"sets the path's traffic class)\n");
		return 2;
	}
	if (o->rdma_cm && o->mmap_file) {
		fprintf(err, "roce-perf: -R and --mmap cannot go together\n");
		return 2;
	}
	if (o->stage.cfg.chain[0] && o->check) {
		/* docs/stages.md, "What the local CPU sees" */
		fprintf(err, "roce-perf: --check with --stage: our buffer holds what the "
			"stages store (ciphertext), not the pattern; check on the peer's side "
			"and our DDR with --save-ddr\n");
		return 2;
	}
	if (o->stage.cfg.chain[0] && o->verb == PERF_ATOMIC) {
		fprintf(err, "roce-perf: --stage with atomic_bw: a staged MR refuses atomics "
			"(its words are not what the wire sees)\n");
		return 2;
	}
	if (perf_stage_opts_check(&o->stage, why, sizeof(why))) {
		fprintf(err, "roce-perf: %s\n", why);
		return 2;
	}
	if (o->verb == PERF_ATOMIC && (o->size != 8 || o->run_all)) {
		fprintf(err, "roce-perf: message size cannot be changed for atomic tests\n");
		return 2;
	}
	if (o->duration_mode && o->run_all) {
		fprintf(err, "roce-perf: duration mode doesn't support running on all sizes\n");
		return 2;
	}
	if (!o->duration_mode) {
		if (o->tx_depth > o->iters)
			o->tx_depth = (unsigned)o->iters;
		if (o->verb == PERF_SEND && o->rx_depth > o->iters)
			o->rx_depth = (unsigned)o->iters;
		/* no RNR on UC or UD: the default receive depth becomes a
		 * receive per message, up to UC_MAX_RX */
		if ((o->conn == ROCE_QPT_UC || o->conn == ROCE_QPT_UD) &&
		    o->rx_depth == PERF_DEF_RX_SEND)
			o->rx_depth = (unsigned)(o->iters < PERF_UC_MAX_RX ? o->iters
									  : PERF_UC_MAX_RX);
	}
	if (o->duration_mode && o->events) {
		fprintf(err, "roce-perf: Duration mode doesn't work with events.\n");
		return 2;
	}
	/* perftest keeps cq_mod with events ("a lot of processes with
	 * use_event leads to bugs") and on UD, whose messages are never
	 * that large */
	if (o->size > PERF_CQ_MOD_LIMIT && o->conn != ROCE_QPT_UD && !o->run_all &&
	    !o->cq_mod_set && !o->events)
		o->cq_mod = 1;
	if (o->tst == PERF_LAT)
		o->cq_mod = 1;
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	if (o->run_all)
		o->size = PERF_MAX_SIZE;
	if (o->duration_mode) {
		o->margin = o->margin ? o->margin - 1 : o->duration / 4;
		if (!(o->duration > 2 * o->margin)) {
			fprintf(err, "roce-perf: please check that DURATION > 2*MARGIN\n");
			return 2;
		}
		o->iters = 0;
		o->no_peak = true;
	}
	if (o->verb == PERF_SEND && o->tst == PERF_BW && !o->server && !o->duplex)
		o->no_peak = true;
	if (o->verb == PERF_SEND && o->rx_depth % 2 == 1 && !o->run_all)
		o->rx_depth++;
	if (!o->duration_mode && o->iters > 20000 && o->tst == PERF_BW)
		o->no_peak = true;
	if (o->gid_index < 0)
		o->gid_index = 0;       /* RoCE: perftest picks a GID itself */
	return 0;
}

int perf_parse(int argc, char **argv, struct perf_opts *o, FILE *out, FILE *err)
{
	int c, r, first = 1;

	memset(o, 0, sizeof(*o));
	if (pick_test(argv[0], o) != 0) {
		if (argc < 2 || argv[1][0] == '-') {
			if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
				perf_usage(out, "roce-perf");
				return 1;
			}
			fprintf(err, "roce-perf: name the test first (try --help)\n");
			return 2;
		}
		if (pick_test(argv[1], o) != 0)
			return bad(err, "test", argv[1], "not write_bw, read_bw, send_bw, "
				   "atomic_bw, write_lat, read_lat or send_lat");
		first = 2;
	}
	defaults(o);
	/* the options start after the test name: hand getopt a vector that
	 * begins there, and reset it fully (optind 0) for repeated calls */
	argv += first - 1;
	argc -= first - 1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:i:s:n:D:f:ac:q:m:x:u:t:r:Q:o:A:FNebRVh",
				longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			fprintf(err, "roce-perf: %s option '%s' (try --help)\n",
				c == ':' ? "missing value for" : "unknown or unsupported",
				argv[optind - 1]);
			return 2;
		}
		if ((r = one_opt(c, optarg, o, out, err)) != 0)
			return r;
	}
	if (optind == argc - 1)
		o->server = argv[optind];
	else if (optind < argc)
		return bad(err, "argument", argv[optind + 1], "only one server name");
	return depend(o, err);
}
