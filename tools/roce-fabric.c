/* SPDX-License-Identifier: MIT */
/*
 * roce-fabric: N senders -> 1 receiver incast of long WRITE flows through
 * a switch on a virtual clock (roce/fabric.h), with DCQCN, Swift or no
 * congestion control (or several in turn on the same scenario, side by
 * side), lossy or with PFC; a late-joining flow and a victim flow to
 * another port on request. Prints convergence, utilisation, fairness,
 * queue depth, drops and timeouts before and after convergence, CNPs and
 * pauses (text or --json), and with --plot the per-flow rates and queue
 * depth over time as SVG. Virtual time: the same options give the same
 * figures on any machine.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce-fabric/fabric.h"

static void usage(FILE *f)
{
	fputs("usage: roce-fabric [options]\n"
	      "An incast on a simulated switch: N senders WRITE to one receiver\n"
	      "through one output queue, every engine on one virtual clock.\n"
	      "\n"
	      "  --senders N       incast senders, 1..256, all starting together\n"
	      "                    (default 8)\n"
	      "  --cc LIST         congestion control, or a comma list run in turn on\n"
	      "                    the same scenario and printed side by side:\n"
	      "                    dcqcn (default): ECN marking, CNPs and DCQCN with\n"
	      "                    ConnectX's knobs; swift: the engine's Swift (RTTs\n"
	      "                    on ACKs, a window); none: no ECT, no CNP, no cut\n"
	      "  --paper           DCQCN with the paper's knobs instead\n"
	      "  --pfc             lossless: a sender whose frames in the switch\n"
	      "                    exceed XOFF (or the buffer's free space, if\n"
	      "                    less) is paused (sends no frame) until they are\n"
	      "                    down to XON (in the same ratio to that XOFF)\n"
	      "  --xoff KB         PFC's XOFF per ingress (default 256)\n"
	      "  --xon KB          PFC's XON per ingress (default 128)\n"
	      "  --link-gbps N     every link's rate (default 100)\n"
	      "  --duration-ms N   simulated time (default 20, at most 1000)\n"
	      "  --late-ms T       the last sender starts at T ms (default: with all)\n"
	      "  --victim          sender 0 also sends to another, idle port\n"
	      "  --kmin KB         RED: marking starts (default 100)\n"
	      "  --kmax KB         RED: every ECT packet marked above (default 400)\n"
	      "  --pmax P          RED: probability at Kmax, 0..1 (default 0.2)\n"
	      "  --buffer KB       an output queue's limit (default 1024)\n"
	      "  --msg KB          WRITE size (default 64)\n"
	      "  --read            the receiver READs from the senders instead: their\n"
	      "                    READ responses make the incast (paced responders)\n"
	      "  --fixed-rto       retransmit after the QPs' timeout (16.8 ms) only,\n"
	      "                    not the adaptive timer from measured round trips\n"
	      "  --window KB       each QP's bound on unacknowledged bytes (default\n"
	      "                    64: about the bandwidth-delay product; 0: none)\n"
	      "  --seed N          the switch's marking draws (default 1)\n"
	      "  --set NAME=VALUE  a DCQCN knob (repeatable; --set list shows them)\n"
	      "  --converge-us W   convergence's window (default 1000; whole 100 us)\n"
	      "  --json[=FILE]     a JSON object per algorithm, a line each, instead\n"
	      "                    of the table (to FILE, the table still printed)\n"
	      "  --plot FILE.svg   per-flow rate and queue depth over time, a column\n"
	      "                    per algorithm\n"
	      "  --pcap FILE       every frame entering the switch, CE marks applied\n"
	      "                    (virtual time from 00:00:01; keep the run short)\n"
	      "  -q, --quiet       no progress line\n"
	      "  -h, --help        this text\n"
	      "\n"
	      "Converged at T: the first 100 us boundary from which every window of\n"
	      "W us (--converge-us, sliding by 100 us to the end of the run) has a\n"
	      "Jain index >= 0.9 over the incast flows' rates and bottleneck\n"
	      "utilisation >= 0.9; \"not converged\" when the last window misses.\n"
	      "After convergence (from T, else over the second half of the run):\n"
	      "utilisation, Jain, queue p50/p99 (1 us samples), drops, timeouts;\n"
	      "the queue's p50/p99 over the whole run and drops before T too. All\n"
	      "in virtual time: the same figures on any machine.\n"
	      "\n"
	      "Exit status: 0 the run completed, 1 it could not be set up, 2 bad option.\n",
	      f);
}

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "roce-fabric: bad %s '%s': %s (try --help)\n", opt, val, why);
	return 2;
}

static int num(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		char why[64];

		snprintf(why, sizeof(why), "a number from %g to %g", lo, hi);
		return bad(opt, s, why);
	}
	*out = v;
	return 0;
}

static void list_knobs(FILE *f)
{
	struct roce_cc_config d;
	unsigned n;
	const struct roce_dcqcn_knob *k = roce_dcqcn_knobs(&n);

	roce_cc_config_default(&d);
	fprintf(f, "DCQCN knobs (ConnectX's names; default = ConnectX's):\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "  %-30s %7u  %-7s %u..%u  %s\n", k[i].name,
			roce_dcqcn_get(&d.dcqcn, &k[i]), k[i].unit, k[i].min, k[i].max, k[i].what);
}

/* --set NAME=VALUE: a knob that exists, a value in its range */
static int parse_set(struct fab_opts *o, const char *arg)
{
	struct roce_dcqcn_params scratch = { 0 };
	const char *eq = strchr(arg, '=');
	static char names[32][40];
	double v;
	size_t n;

	if (!strcmp(arg, "list")) {
		list_knobs(stdout);
		return -1;
	}
	if (!eq || (n = (size_t)(eq - arg)) == 0 || n >= sizeof(names[0]))
		return bad("--set", arg, "NAME=VALUE (--set list shows the names)");
	if (o->nsets == 32)
		return bad("--set", arg, "at most 32 of them");
	memcpy(names[o->nsets], arg, n);
	names[o->nsets][n] = '\0';
	if (num("--set", eq + 1, 0, 4294967295.0, &v))
		return 2;
	switch (roce_dcqcn_set(&scratch, names[o->nsets], (uint32_t)v)) {
	case -1:
		return bad("--set", arg, "no such knob (--set list shows them)");
	case -2:
		return bad("--set", arg, "out of the knob's range (--set list)");
	}
	o->set_name[o->nsets] = names[o->nsets];
	o->set_val[o->nsets++] = (uint32_t)v;
	return 0;
}

/* --cc NAME[,NAME...]: each a known algorithm, at most FAB_MAX_CC */
static int parse_cc(struct fab_opts *o, const char *arg)
{
	static const char *const names[] = {
		[FAB_CC_NONE] = "none", [FAB_CC_DCQCN] = "dcqcn", [FAB_CC_SWIFT] = "swift",
	};
	const char *p = arg;

	o->ncc = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		unsigned i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i]) == len && !strncmp(p, names[i], len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return bad("--cc", arg, "dcqcn, swift or none, or a comma list of them");
		if (o->ncc == FAB_MAX_CC)
			return bad("--cc", arg, "at most 4 in a list");
		o->ccs[o->ncc++] = (enum fab_cc)i;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int parse(int argc, char **argv, struct fab_opts *o)
{
	static const struct option lo[] = {
		{ "senders", 1, 0, 'n' }, { "cc", 1, 0, 'c' }, { "paper", 0, 0, 'P' },
		{ "pfc", 0, 0, 'f' }, { "link-gbps", 1, 0, 'g' }, { "duration-ms", 1, 0, 'd' },
		{ "late-ms", 1, 0, 'l' }, { "victim", 0, 0, 'v' }, { "kmin", 1, 0, 'k' },
		{ "kmax", 1, 0, 'K' }, { "pmax", 1, 0, 'p' }, { "buffer", 1, 0, 'b' },
		{ "msg", 1, 0, 'm' }, { "seed", 1, 0, 's' }, { "json", 2, 0, 'j' },
		{ "xoff", 1, 0, 'x' }, { "xon", 1, 0, 'X' }, { "converge-us", 1, 0, 'C' },
		{ "plot", 1, 0, 'o' }, { "quiet", 0, 0, 'q' }, { "help", 0, 0, 'h' },
		{ "set", 1, 0, 'S' }, { "pcap", 1, 0, 'c' + 256 }, { "window", 1, 0, 'w' }, { "fixed-rto", 0, 0, 'R' },
		{ "read", 0, 0, 'r' + 256 },
		{ 0, 0, 0, 0 },
	};
	double v;
	int c, rc;

	*o = (struct fab_opts){ .senders = 8, .ncc = 1, .ccs = { FAB_CC_DCQCN }, .link_gbps = 100,
				.duration_ms = 20, .kmin_kb = 100, .kmax_kb = 400, .pmax = 0.2,
				.buffer_kb = 1024, .xoff_kb = 256, .xon_kb = 128, .msg_kb = 64,
				.window_kb = 64, .conv_us = FAB_CONV_US_DEFAULT, .seed = 1 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'n':
			rc = num("--senders", optarg, 1, FAB_MAX_SENDERS, &v);
			o->senders = (unsigned)v;
			break;
		case 'c': rc = parse_cc(o, optarg); break;
		case 'x': rc = num("--xoff", optarg, 1, 65536, &v); o->xoff_kb = (uint32_t)v; break;
		case 'X': rc = num("--xon", optarg, 0, 65536, &v); o->xon_kb = (uint32_t)v; break;
		case 'C':
			rc = num("--converge-us", optarg, 100, 1e6, &v);
			o->conv_us = (uint32_t)v / 100 * 100;
			break;
		case 'P': o->paper = true; break;
		case 'f': o->pfc = true; break;
		case 'g': rc = num("--link-gbps", optarg, 1, 800, &v); o->link_gbps = (uint32_t)v; break;
		case 'd': rc = num("--duration-ms", optarg, 1, 1000, &v); o->duration_ms = (uint32_t)v; break;
		case 'l': rc = num("--late-ms", optarg, 0, 1000, &o->late_ms); break;
		case 'v': o->victim = true; break;
		case 'k': rc = num("--kmin", optarg, 0, 65536, &v); o->kmin_kb = (uint32_t)v; break;
		case 'K': rc = num("--kmax", optarg, 0, 65536, &v); o->kmax_kb = (uint32_t)v; break;
		case 'p': rc = num("--pmax", optarg, 0, 1, &o->pmax); break;
		case 'b': rc = num("--buffer", optarg, 8, 65536, &v); o->buffer_kb = (uint32_t)v; break;
		case 'm': rc = num("--msg", optarg, 1, 1024, &v); o->msg_kb = (uint32_t)v; break;
		case 's': rc = num("--seed", optarg, 0, 1e15, &v); o->seed = (uint64_t)v; break;
		case 'j': o->json = true; o->json_file = optarg; break;
		case 'o': o->plot = optarg; break;
		case 'q': o->quiet = true; break;
		case 'S': rc = parse_set(o, optarg); break;
		case 'R': o->fixed_rto = true; break;
		case 'r' + 256: o->read = true; break;
		case 'c' + 256: o->pcap = optarg; break;
		case 'w': rc = num("--window", optarg, 0, 1 << 20, &v); o->window_kb = (uint32_t)v; break;
		case 'h': usage(stdout); return -1;
		default:
			fprintf(stderr, "roce-fabric: unknown option '%s' (try --help)\n",
				argv[optind - 1]);
			return 2;
		}
		if (rc)
			return rc;
	}
	if (optind < argc) {
		fprintf(stderr, "roce-fabric: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return 2;
	}
	if (o->kmin_kb > o->kmax_kb) {
		fprintf(stderr, "roce-fabric: --kmin %u is above --kmax %u\n", o->kmin_kb,
			o->kmax_kb);
		return 2;
	}
	if (o->pfc && o->xon_kb > o->xoff_kb) {
		fprintf(stderr, "roce-fabric: --xon %u is above --xoff %u\n", o->xon_kb, o->xoff_kb);
		return 2;
	}
	if (o->conv_us > o->duration_ms * 1000u) {
		fprintf(stderr, "roce-fabric: --converge-us %u is longer than the %u ms run\n",
			o->conv_us, o->duration_ms);
		return 2;
	}
	if (o->late_ms >= o->duration_ms && o->late_ms > 0) {
		fprintf(stderr, "roce-fabric: --late-ms %g is not within the %u ms run\n",
			o->late_ms, o->duration_ms);
		return 2;
	}
	return 0;
}

static int json_out(const struct fab_run *runs, unsigned n, const char *path)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f)
		return -1;
	for (unsigned i = 0; i < n; i++)
		fab_json(&runs[i], f);
	return path && fclose(f) ? -1 : 0;
}

/* Each algorithm of --cc in turn, on the same options and seed. */
int main(int argc, char **argv)
{
	static struct fab_run runs[FAB_MAX_CC];
	struct fab_opts o;
	unsigned n = 0;
	int rc, status = 0;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	for (; n < o.ncc; n++) {
		runs[n].o = o;
		runs[n].o.cc = o.ccs[n];
		if (fab_simulate(&runs[n])) {
			fprintf(stderr, "roce-fabric: could not set the fabric and its engines up\n");
			status = 1;
			n++;
			goto out;
		}
		fab_figures(&runs[n]);
	}
	if (!o.json || o.json_file)
		fab_print(runs, n, stdout);
	if (o.json && json_out(runs, n, o.json_file)) {
		fprintf(stderr, "roce-fabric: cannot write %s: %s\n", o.json_file, strerror(errno));
		status = 1;
	}
	if (o.plot && fab_plot(runs, n, o.plot)) {
		fprintf(stderr, "roce-fabric: cannot write %s: %s\n", o.plot, strerror(errno));
		status = 1;
	}
out:
	for (unsigned i = 0; i < n; i++)
		fab_free(&runs[i]);
	return status;
}
