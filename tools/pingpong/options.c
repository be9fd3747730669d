/* SPDX-License-Identifier: MIT */
/*
 * The pingpong tools' command line: the originals' options (every letter
 * any of them takes, each kind's getopt string saying which it has) and
 * ours (perf_pp_opts.h), their help, the originals' checks. A kind's
 * defaults and help lines are its own (struct pp_kind).
 */
#include <stdio.h>
#include <string.h>

#include "pingpong/pingpong.h"
#include "roce/status.h"

/* Every long option of the originals; a kind takes those whose letter
 * its getopt string has (getopt_long matches abbreviations among them:
 * ibv_srq_pingpong's --n is --num-qp, ibv_rc_pingpong's is ambiguous). */
static const struct option family[] = {
	{ "port", 1, NULL, 'p' }, { "ib-dev", 1, NULL, 'd' },
	{ "ib-port", 1, NULL, 'i' }, { "size", 1, NULL, 's' },
	{ "mtu", 1, NULL, 'm' }, { "num-qp", 1, NULL, 'q' },
	{ "rx-depth", 1, NULL, 'r' }, { "iters", 1, NULL, 'n' },
	{ "sl", 1, NULL, 'l' }, { "events", 0, NULL, 'e' },
	{ "gid-idx", 1, NULL, 'g' }, { "odp", 0, NULL, 'o' },
	{ "iodp", 0, NULL, 'O' }, { "prefetch", 0, NULL, 'P' },
	{ "ts", 0, NULL, 't' }, { "chk", 0, NULL, 'c' },
	{ "dm", 0, NULL, 'j' }, { "new_send", 0, NULL, 'N' },
	{ "help", 0, NULL, 'h' },
};
static const struct option ours[] = {
	PERF_PP_NET_LONGOPTS, PERF_STAGE_LONGOPTS, { NULL, 0, NULL, 0 }
};

#define N_FAMILY (sizeof(family) / sizeof(family[0]))
#define N_OURS (sizeof(ours) / sizeof(ours[0]))

/* The kind's table: its letters' long options, ours, the end. */
static void longopts(const struct pp_kind *k, struct option lo[N_FAMILY + N_OURS])
{
	unsigned n = 0;

	for (unsigned i = 0; i < N_FAMILY; i++)
		if (strchr(k->optstring, family[i].val))
			lo[n++] = family[i];
	for (unsigned i = 0; i < N_OURS; i++)
		lo[n++] = ours[i];
}

static void usage(FILE *f, const struct pp_kind *k)
{
	fprintf(f,
"Usage:\n"
"  %s --netdev IF [options]          start a server and wait for connection\n"
"  %s --netdev IF [options] <host>   connect to server at <host>\n"
"\nOptions (ibv_%s_pingpong's):\n"
"  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
"  -d, --ib-dev=<dev>     accepted and ignored (the device is --netdev)\n"
"  -i, --ib-port=<port>   use port <port> of IB device (must be 1)\n"
"%s%s"
"  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n"
"  -n, --iters=<iters>    number of exchanges%s (default 1000)\n"
"  -l, --sl=<sl>          service level value (accepted, not used)\n"
"  -e, --events           sleep on CQ events (default poll); the engine then runs\n"
"                         on a thread of its own\n"
PERF_PP_GID_HELP
"%s"
"  -c, --chk              validate received buffer (a failure is exit status 1)\n"
"%s", k->prog, k->prog, k->orig, k->help_size, k->help_qp ? k->help_qp : "",
		k->help_iters ? k->help_iters : "", k->help_pre_chk ? k->help_pre_chk : "",
		k->help_post_chk ? k->help_post_chk : "");
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
"  --iba-strict           loss recovery as IBA says alone: no adaptive window,\n"
"                         timer or tail-loss probe (docs/cc.md)\n"
"  -h, --help             this text\n", PP_TIMEOUT_S);
	perf_stage_usage(f, "our buffer's MR", 25);
	fprintf(f, "  (the buffer we SEND from and receive into; the bytes it holds when\n"
		"  bound are taken as stored: a client's first message is what they\n"
		"  fetch as; -c is refused)\n");
}

/* --stage and its companions (perf_stage_opts.h), in roce-perf's words;
 * else an unknown option. */
static int stage_opt(const char *prog, int c, const char *a, struct perf_ep_stage *s)
{
	const char *what;
	char why[96];

	switch (perf_stage_opt(c, a, s, &what, why, sizeof(why))) {
	case ROCE_OK: return 0;
	case ROCE_E_INVAL:
		fprintf(stderr, "%s: %s '%s': %s (try --help)\n", prog, what, a, why);
		return 2;
	}
	fprintf(stderr, "%s: unknown option (try --help)\n", prog);
	return 2;
}

/* One option; a letter reaches here only when the kind's getopt string
 * has it. 0 taken, -1 --help, else the exit status. */
static int one_opt(int c, const char *a, struct pp_opts *o)
{
	const char *prog = o->kind->prog;
	unsigned v;
	int r;

	switch (c) {
	case 'p': if (!perf_pp_num(a, 1, 65535, &v)) return perf_pp_bad(prog, "port", a);
		o->port = (uint16_t)v;
		return 0;
	case 'd': case 'l': case 'N': return 0;
	case 'i': if (!perf_pp_num(a, 1, 1, &v)) return perf_pp_bad(prog, "IB port (only 1)", a);
		return 0;
	case 's': if (!perf_pp_num(a, 1, PP_SIZE_MAX, &o->size)) return perf_pp_bad(prog, "size", a);
		return 0;
	case 'm': if (!perf_pp_num(a, 256, 4096, &o->mtu) || (o->mtu & (o->mtu - 1)))
			return perf_pp_bad(prog, "MTU", a);
		return 0;
	/* any count is taken here; pp_parse refuses 256 and more in
	 * srq_pingpong's words */
	case 'q': if (!perf_pp_num(a, 1, 1u << 20, &o->num_qp))
			return perf_pp_bad(prog, "number of QPs", a);
		return 0;
	case 'r': if (!perf_pp_num(a, 1, 8000, &o->rx_depth)) return perf_pp_bad(prog, "rx depth", a);
		return 0;
	case 'n': if (!perf_pp_num(a, 1, 100000000, &o->iters))
			return perf_pp_bad(prog, "iterations", a);
		return 0;
	case 'e': o->events = true; return 0;
	case 'o': case 'O': case 'P': case 'j':
		fprintf(stderr, "%s: -%c: %s is not supported\n", prog, c,
			c == 'j' ? "device memory (-j)" : "on-demand paging");
		return 1;
	case 't': o->ts = true; return 0;
	case 'c': o->chk = true; return 0;
	case 'h': usage(stdout, o->kind); return -1;
	default:
		if ((r = perf_pp_net_opt(prog, c, a, &o->net)) != 1)
			return r;
		return stage_opt(prog, c, a, &o->stage);
	}
}

/* The stage options together, and -c against them: 0, else said. */
static int stage_check(const char *prog, const struct pp_opts *o)
{
	char why[96];

	if (perf_stage_opts_check(&o->stage, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return 2;
	}
	if (o->stage.cfg.chain[0] && o->chk) {
		/* docs/stages.md, "What the local CPU sees" */
		fprintf(stderr, "%s: -c with --stage: our buffer holds what the stages "
			"store (ciphertext), not the pattern; check our DDR with --save-ddr\n",
			prog);
		return 2;
	}
	return 0;
}

int pp_parse(const struct pp_kind *kind, int argc, char **argv, struct pp_opts *o)
{
	const char *prog = kind->prog;
	struct option lo[N_FAMILY + N_OURS];
	int c, r;

	*o = (struct pp_opts){ .kind = kind, .port = ROCE_OOB_PORT_DEFAULT, .size = kind->size,
			       .num_qp = kind->num_qp, .mtu = 1024, .rx_depth = 500,
			       .iters = 1000, .net = PERF_PP_NET_INIT(PP_TIMEOUT_S) };
	perf_stage_opts_init(&o->stage);
	longopts(kind, lo);
	opterr = 0;
	while ((c = getopt_long(argc, argv, kind->optstring, lo, NULL)) != -1) {
		if (c > 0 && c < 256 && kind->refused && strchr(kind->refused, c)) {
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
		return perf_pp_bad(prog, "argument", argv[optind + 1]);
	/* srq_pingpong.c main()'s checks, in its words (which say "less
	 * than 255" of a limit that lets 255 QPs through); one QP always
	 * passes them */
	if (o->num_qp > o->rx_depth) {
		fprintf(stderr, "rx_depth %u is too small for %u QPs -- must have at least "
			"one receive per QP.\n", o->rx_depth, o->num_qp);
		return 2;
	}
	if (o->num_qp >= PP_MAX_QP) {
		fprintf(stderr, "num_qp %u must be less than %u\n", o->num_qp, PP_MAX_QP - 1);
		return 2;
	}
	if (stage_check(prog, o))
		return 2;
	if (!o->net.netdev && !o->net.selftest) {
		fprintf(stderr, "%s: give the interface with --netdev IFNAME "
			"(try --help)\n", prog);
		return 2;
	}
	return 0;
}
