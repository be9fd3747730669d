/* SPDX-License-Identifier: MIT */
/*
 * bench_suite: the whole benchmark in one run, so every ratio compares
 * figures measured side by side on the same (shared, noisy) machine:
 *   limits   memcpy and CRC-32 hot and cold, a system call, a cache line
 *            between the cores, the ICRC+copy bound of a WRITE;
 *   engine   goodput of WRITE, READ, SEND over the in-memory link, 64 B to
 *            1 MiB, path MTU 1024 and 4096, 1 and 16 QPs, 1 and 2 cores;
 *   latency  8-byte WRITE round trip, p50 and p99;
 *   scale    64 B WRITEs with up to every QP the device holds: one busy
 *            QP beside idle ones, all of them busy, and the time to
 *            create and connect them;
 *   veth     raw-frame rate of a veth pair and the engines over it;
 *   loss     64 KB WRITE goodput under 0.01 .. 10 % random loss on a
 *            virtual clock: the defaults' recovery (adaptive window and
 *            timer, tail-loss probes), go-back-N as IBA says, and a
 *            fixed 64 KB window with the adaptive timer; each point /
 *            0.01 %;
 *   stages   the inline stages' primitives (AES-256-XTS, CRC16, SHA-256)
 *            and 64 KB WRITE and READ to a staged MR (XTS, PI, DEDUP, the
 *            three), each with its bound from the primitive of this run;
 * then the performance targets with their gaps. scripts/bench builds it,
 * sets up the veth pair and runs it; see docs/performance.md.
 *
 * Exit 0 unless something broke (error completion, wrong byte, setup
 * failure): a missed target is a figure, not a failure.
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/engine.h"
#include "lib/limits.h"
#include "lib/loss.h"
#include "lib/report.h"
#include "lib/scale.h"
#include "lib/stages.h"
#include "lib/targets.h"
#include "lib/traffic.h"
#include "lib/veth.h"

enum { S_LIMITS = 1, S_ENGINE = 2, S_LATENCY = 4, S_VETH = 8, S_SCALE = 16, S_LOSS = 32,
       S_STAGES = 64, S_ALL = 127 };

struct opts {
	struct bench_cfg cfg;
	unsigned sections;
	const char *json, *csv, *md;
	struct veth_where veth;
	char veth_spec[256];
	const char *no_veth;
	bool rt;
	const char *source;
	/* matrix filters (0 / -1 = all) */
	int op;
	uint32_t size;
	unsigned mtu, qps, cores;
	const char *stage;              /* the stages section's one chain */
	unsigned unit;                  /* and its data unit */
	unsigned scale_qps;             /* the scale section's largest count */
	bool scale_busy;                /* only that many QPs, all busy */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: bench_suite [options]\n"
"The benchmark suite: limits, engine goodput matrix, latency, scale, veth,\n"
"loss, inline stages; one table.\n"
"  --quick               short run (subset of the matrix, fewer repeats)\n"
"  --reps N              repeats per matrix cell (1..%d; default 3, quick 1)\n"
"  --key-reps N          repeats of the figures targets use (default 5, quick 3)\n"
"  --seconds S           measured time per repeat (default 0.2, quick 0.1)\n"
"  --key-seconds S       the same for key figures (default 0.5, quick 0.2)\n"
"  --only LIST           sections: limits,engine,latency,scale,veth,loss,stages\n"
"                        (default all)\n"
"  --op OP --size N --mtu N --qps N --cores N\n"
"                        run only these matrix cells (e.g. for a profile);\n"
"                        --cores also narrows the latency section, --op and\n"
"                        --mtu the stages section\n"
"  --stage CHAIN --unit N  the stages section: only this chain (a row's name:\n"
"                        xts, pi, 'dedup 50%%', 'dedup+xts+pi 0%%', ...) and\n"
"                        data unit (512 or 4096), beside no stage\n"
"  --scale-qps N         the scale section's largest QP count (2..%u; default\n"
"                        %u, every QP the device holds)\n"
"  --scale-busy N        the scale section runs only N QPs all busy (a profile)\n"
"  --cpus A,B            the two CPUs to use (default 0,1)\n"
"  --source TEXT         what was measured (scripts/bench: git describe)\n"
"  --rt                  run at real-time priority (SCHED_FIFO 1; the kernel's\n"
"                        RT throttling still leaves other jobs 5%%): figures of\n"
"                        the engine rather than of the machine's other load\n"
"  --veth NSA,IFA,NSB,IFB  network namespaces and interfaces of a veth pair\n"
"  --no-veth WHY         why there is no veth pair (printed in the table)\n"
"  --json FILE --csv FILE --markdown FILE   write the results there\n"
"  --help                this text\n", BENCH_MAX_REPS, SCALE_MAX_QPS, SCALE_MAX_QPS);
}

static int bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "bench_suite: %s '%s': want %s (try --help)\n", opt, val, want);
	return 2;
}

static bool num(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return false;
	v = strtoul(s, &end, 0);
	if (*end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool secs(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || !(v >= 0.01 && v <= 60))
		return false;
	*out = v;
	return true;
}

static int parse_sections(const char *s, unsigned *out)
{
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", s);
	*out = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "limits")) *out |= S_LIMITS;
		else if (!strcmp(tok, "engine")) *out |= S_ENGINE;
		else if (!strcmp(tok, "latency")) *out |= S_LATENCY;
		else if (!strcmp(tok, "veth")) *out |= S_VETH;
		else if (!strcmp(tok, "scale")) *out |= S_SCALE;
		else if (!strcmp(tok, "loss")) *out |= S_LOSS;
		else if (!strcmp(tok, "stages")) *out |= S_STAGES;
		else return -1;
	}
	return *out ? 0 : -1;
}

static int parse_veth(struct opts *o, const char *s)
{
	char *f[4], *save;

	snprintf(o->veth_spec, sizeof(o->veth_spec), "%s", s);
	f[0] = strtok_r(o->veth_spec, ",", &save);
	for (int i = 1; i < 4; i++)
		f[i] = f[i - 1] ? strtok_r(NULL, ",", &save) : NULL;
	if (!f[3] || strtok_r(NULL, ",", &save))
		return -1;
	o->veth = (struct veth_where){ f[0], f[1], f[2], f[3] };
	return 0;
}

static int parse_op(const char *s, int *op)
{
	if (!strcasecmp(s, "write")) *op = ROCE_WR_RDMA_WRITE;
	else if (!strcasecmp(s, "read")) *op = ROCE_WR_RDMA_READ;
	else if (!strcasecmp(s, "send")) *op = ROCE_WR_SEND;
	else return -1;
	return 0;
}

static int parse_cpus(const char *s, int *a, int *b)
{
	unsigned long x, y;
	char buf[32], *comma;

	snprintf(buf, sizeof(buf), "%s", s);
	comma = strchr(buf, ',');
	if (!comma)
		return -1;
	*comma = 0;
	if (!num(buf, 0, (unsigned long)bench_ncpus() - 1, &x) ||
	    !num(comma + 1, 0, (unsigned long)bench_ncpus() - 1, &y))
		return -1;
	*a = (int)x;
	*b = (int)y;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "reps", required_argument, NULL, 'r' },
		{ "key-reps", required_argument, NULL, 'R' },
		{ "seconds", required_argument, NULL, 's' },
		{ "key-seconds", required_argument, NULL, 'S' },
		{ "only", required_argument, NULL, 'o' },
		{ "op", required_argument, NULL, 'O' },
		{ "size", required_argument, NULL, 'z' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "qps", required_argument, NULL, 'Q' },
		{ "cores", required_argument, NULL, 'c' },
		{ "stage", required_argument, NULL, 'g' },
		{ "unit", required_argument, NULL, 'u' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "scale-qps", required_argument, NULL, 'N' },
		{ "scale-busy", required_argument, NULL, 'B' },
		{ "rt", no_argument, NULL, 'T' },
		{ "source", required_argument, NULL, 'L' },
		{ "veth", required_argument, NULL, 'v' },
		{ "no-veth", required_argument, NULL, 'n' },
		{ "json", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'x' },
		{ "markdown", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c;
	bool reps = false, kreps = false, sec = false, ksec = false;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'q': o->cfg.quick = true; break;
		case 'r':
			if (!num(optarg, 1, BENCH_MAX_REPS, &v))
				return bad("--reps", optarg, "1..16");
			o->cfg.reps = (unsigned)v;
			reps = true;
			break;
		case 'R':
			if (!num(optarg, 1, BENCH_MAX_REPS, &v))
				return bad("--key-reps", optarg, "1..16");
			o->cfg.reps_key = (unsigned)v;
			kreps = true;
			break;
		case 's':
			if (!secs(optarg, &o->cfg.secs))
				return bad("--seconds", optarg, "0.01..60");
			sec = true;
			break;
		case 'S':
			if (!secs(optarg, &o->cfg.secs_key))
				return bad("--key-seconds", optarg, "0.01..60");
			ksec = true;
			break;
		case 'o':
			if (parse_sections(optarg, &o->sections))
				return bad("--only", optarg,
					   "limits,engine,latency,scale,veth,loss,stages");
			break;
		case 'O':
			if (parse_op(optarg, &o->op))
				return bad("--op", optarg, "write, read or send");
			break;
		case 'z':
			if (!num(optarg, 1, BENCH_MAX_MSG, &v))
				return bad("--size", optarg, "1..1048576");
			o->size = (uint32_t)v;
			break;
		case 'm':
			if (!num(optarg, 256, 4096, &v) || (v & (v - 1)))
				return bad("--mtu", optarg, "256, 512, 1024, 2048 or 4096");
			o->mtu = (unsigned)v;
			break;
		case 'Q':
			if (!num(optarg, 1, BENCH_MAX_QPS, &v))
				return bad("--qps", optarg, "1..16");
			o->qps = (unsigned)v;
			break;
		case 'c':
			if (!num(optarg, 1, 2, &v))
				return bad("--cores", optarg, "1 or 2");
			o->cores = (unsigned)v;
			break;
		case 'g': o->stage = optarg; break;
		case 'u':
			if (!num(optarg, 512, 4096, &v) || (v != 512 && v != 4096))
				return bad("--unit", optarg, "512 or 4096");
			o->unit = (unsigned)v;
			break;
		case 'N':
		case 'B':
			if (!num(optarg, 2, SCALE_MAX_QPS, &v)) {
				char want[32];

				snprintf(want, sizeof(want), "2..%u", SCALE_MAX_QPS);
				return bad(c == 'N' ? "--scale-qps" : "--scale-busy", optarg, want);
			}
			o->scale_qps = (unsigned)v;
			o->scale_busy = c == 'B';
			break;
		case 'C':
			if (parse_cpus(optarg, &o->cfg.cpu_a, &o->cfg.cpu_b))
				return bad("--cpus", optarg, "two online CPU numbers A,B");
			break;
		case 'v':
			if (parse_veth(o, optarg))
				return bad("--veth", optarg, "NSA,IFA,NSB,IFB");
			break;
		case 'n': o->no_veth = optarg; break;
		case 'T': o->rt = true; break;
		case 'L': o->source = optarg; break;
		case 'j': o->json = optarg; break;
		case 'x': o->csv = optarg; break;
		case 'M': o->md = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bench_suite: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return 2;
	}
	if (!reps)
		o->cfg.reps = o->cfg.quick ? 1 : 3;
	if (!kreps)
		o->cfg.reps_key = o->cfg.quick ? 3 : 5;
	if (!sec)
		o->cfg.secs = o->cfg.quick ? 0.1 : 0.2;
	if (!ksec)
		o->cfg.secs_key = o->cfg.quick ? 0.2 : 0.5;
	o->cfg.cold_bytes = (o->cfg.quick ? 128u : 256u) << 20;
	return 0;
}

/* The matrix, narrowed by --op/--size/--mtu/--qps/--cores. */
static void run_engine(const struct opts *o)
{
	static const enum roce_wr_opcode all_ops[] = {
		ROCE_WR_RDMA_WRITE, ROCE_WR_RDMA_READ, ROCE_WR_SEND };
	static const uint32_t full_sizes[] = { 64, 256, 1024, 4096, 16384, 65536,
					       262144, 1048576 };
	static const uint32_t quick_sizes[] = { 64, 4096, 65536, 1048576 };
	static const unsigned full_mtus[] = { 1024, 4096 }, quick_mtus[] = { 4096 };
	static const unsigned full_qps[] = { 1, 16 }, quick_qps[] = { 1 };
	static const unsigned all_cores[] = { 1, 2 };
	enum roce_wr_opcode op1 = (enum roce_wr_opcode)o->op;
	uint32_t size1 = o->size;
	unsigned mtu1 = o->mtu, qps1 = o->qps, cores1 = o->cores;
	struct engine_plan pl = {
		all_ops, 3,
		o->cfg.quick ? quick_sizes : full_sizes, o->cfg.quick ? 4 : 8,
		o->cfg.quick ? quick_mtus : full_mtus, o->cfg.quick ? 1 : 2,
		o->cfg.quick ? quick_qps : full_qps, o->cfg.quick ? 1 : 2,
		all_cores, 2,
	};

	if (o->op >= 0)
		pl.ops = &op1, pl.n_ops = 1;
	if (o->size)
		pl.sizes = &size1, pl.n_sizes = 1;
	if (o->mtu)
		pl.mtus = &mtu1, pl.n_mtus = 1;
	if (o->qps)
		pl.qps = &qps1, pl.n_qps = 1;
	if (o->cores)
		pl.cores = &cores1, pl.n_cores = 1;
	engine_matrix(&o->cfg, &pl);
	/* the ratios the targets use, unless the matrix was narrowed (a
	 * profile of one cell, a test) */
	if (o->op < 0 && !o->size && !o->mtu && !o->qps && !o->cores)
		engine_ratios(&o->cfg);
}

int main(int argc, char **argv)
{
	static const unsigned bound_mtus[] = { 1024, 4096 };
	struct opts o = { .sections = S_ALL, .op = -1 };
	struct bench_run_info ri = { 0 };
	struct bench_load_mark mark;
	char why[256] = "";
	int rc;

	o.cfg.cpu_a = 0;
	o.cfg.cpu_b = bench_ncpus() > 1 ? 1 : 0;
	if ((rc = parse_args(argc, argv, &o)) != 0)
		return rc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.rt) {
		/* threads created later (engine threads) inherit the policy */
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
			bench_die("--rt: cannot set SCHED_FIFO (needs CAP_SYS_NICE)");
	}
	bench_run_info_fill(&ri);
	ri.quick = o.cfg.quick;
	ri.reps = o.cfg.reps;
	ri.reps_key = o.cfg.reps_key;
	ri.secs = o.cfg.secs;
	ri.secs_key = o.cfg.secs_key;
	ri.rt = o.rt;
	snprintf(ri.source, sizeof(ri.source), "%s", o.source ? o.source : "");
	bench_load_mark(&mark);
	printf("bench_suite: %s%s, CPUs %d and %d\n", ri.cpu, o.cfg.quick ? ", quick" : "",
	       o.cfg.cpu_a, o.cfg.cpu_b);

	if (o.sections & S_LIMITS) {
		printf("limits ...\n");
		limits_run(&o.cfg);
		bound_run(&o.cfg, bound_mtus, 2);
		bench_print_limits(stdout);
	}
	if (o.sections & S_ENGINE) {
		printf("engine matrix ...\n");
		run_engine(&o);
		bench_print_engine(stdout);
	}
	if (o.sections & S_LATENCY) {
		printf("latency ...\n");
		engine_latency(&o.cfg, o.cores);
		bench_print_latency(stdout);
	}
	if (o.sections & S_SCALE) {
		printf("scale ...\n");
		scale_run(&o.cfg, o.scale_qps ? o.scale_qps : SCALE_MAX_QPS, o.scale_busy);
		bench_print_scale(stdout);
	}
	if (o.sections & S_VETH) {
		if (!o.veth.ns_a)
			snprintf(why, sizeof(why), "%s", o.no_veth ? o.no_veth
				 : "no veth pair given (--veth; scripts/bench makes one)");
		else if (printf("veth ...\n"), !veth_run(&o.cfg, &o.veth, why, sizeof(why)))
			printf("veth: not measured: %s\n", why);
		bench_print_veth(stdout);
	}

	if (o.sections & S_LOSS) {
		printf("loss ...\n");
		loss_run(&o.cfg);
		bench_print_loss(stdout);
	}

	if (o.sections & S_STAGES) {
		printf("stages ...\n");
		struct stages_plan pl = { o.op, o.mtu, o.stage, o.unit };

		stages_run(&o.cfg, &pl);
		bench_print_stages(stdout);
	}

	bench_print_ratios(stdout);
	targets_compute(o.sections & S_VETH ? why : "section not run");
	bench_load_since(&mark, &ri.load);
	ri.elapsed_s = (double)(bench_now_ns() - mark.t_ns) * 1e-9;
	bench_print_targets(stdout);
	bench_print_machine(stdout, &ri);
	if (o.json && !bench_write_json(o.json, &ri))
		bench_die("cannot write %s", o.json);
	if (o.csv && !bench_write_csv(o.csv))
		bench_die("cannot write %s", o.csv);
	if (o.md && !bench_write_markdown(o.md, &ri))
		bench_die("cannot write %s", o.md);
	return 0;
}
