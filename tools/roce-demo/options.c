/* SPDX-License-Identifier: MIT */
/* roce-demo's command line: the options, their checks and --help. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce-demo/demo.h"
#include "roce/status.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: roce-demo [options]\n"
		"Two emulated RoCE v2 NICs (A, B) on an in-memory link, configured through\n"
		"their register files, run the seed's flow: A SENDs an advertisement of its\n"
		"memory; B WRITEs into it, READs back and compares, runs FETCH_AND_ADD and\n"
		"CMP_AND_SWAP; then a perftest-style bandwidth table (B -> A), the latency\n"
		"of an 8-byte WRITE and the counters of both NICs.\n"
		"\n"
		"  --mtu N           path MTU: 256, 512, 1024, 2048 or 4096 (default 1024)\n"
		"  --size BYTES      WRITE/READ size of the flow, K/M suffix allowed\n"
		"                    (default 1M, at most %uM)\n"
		"  --iters N         messages per bandwidth row and latency samples\n"
		"                    (default %u, %u with --quick, at most %u)\n"
		"  --loss PCT        drop PCT%% of the frames on the link (default 0)\n"
		"  --reorder PCT     hold back PCT%% of the frames past the next one (default 0)\n"
		"  --duplicate PCT   deliver PCT%% of the frames twice (default 0)\n"
		"  --corrupt PCT     flip a bit in PCT%% of the frames (default 0)\n"
		"  --seed N          seed of the link's faults and the data pattern (default 1)\n"
		"  --qp-count N      QP table entries of each NIC (QP_COUNT), %u..%u\n"
		"                    (default %u)\n"
		"  --pcap FILE       capture every frame on the link into FILE\n"
		"  --iba-strict      loss recovery as IBA says alone: no adaptive window,\n"
		"                    timer or tail-loss probe (the defaults have them;\n"
		"                    docs/cc.md)\n"
		"  --window KB       each QP keeps at most KB unacknowledged: go-back-N\n"
		"                    resends at most that per loss (default: about one\n"
		"                    bandwidth-delay product, adapting to loss)\n"
		"  --adaptive-rto    retransmit after the measured round trip, not the\n"
		"                    QP's fixed timeout: the default; with --iba-strict,\n"
		"                    the timer alone\n"
		"  --rto-min-us N    the adaptive timer's floor (default 100)\n"
		"  --threads         run each engine on its own thread (default: poll both\n"
		"                    from the main thread)\n"
		"  --virtual-time    run on one virtual clock (no thread, no wall clock): the\n"
		"                    same options give the same run and trace; figures are\n"
		"                    in virtual time (a 100 Gbit/s wire); not with --threads\n"
		"  --trace FILE      write the transaction trace of both NICs into FILE (NIC\n"
		"                    0 is A, 1 is B; docs/trace.md)\n"
		"  --stage LIST      bind A's exposed MR to inline stages (docs/stages.md):\n"
		"                    xts, pi, dedup or a comma-separated chain, wire side\n"
		"                    first, e.g. dedup,xts,pi (dedup first, pi after xts\n"
		"                    recommended); then the flow's DDR is shown beside what\n"
		"                    was sent, and the atomics are not run (an atomic on a\n"
		"                    staged MR is refused)\n"
		"  --key-file FILE   the XTS key: exactly 64 bytes, its halves different\n"
		"                    (default: a random key, not shown)\n"
		"  --data-unit N     XTS and PI data unit: 512 or 4096 (default 4096)\n"
		"  --dun-base N      unit 0's tweak and PI reference tag; unit i uses N + i\n"
		"                    (default 0)\n"
		"  --save-ddr FILE   after the flow, A's MR as stored in its DDR, the whole\n"
		"                    MR from its first byte (ciphertext with xts); with\n"
		"                    dedup the MR's range is the block pool, so FILE holds\n"
		"                    the physical blocks, and FILE.map the logical -> physical\n"
		"                    map: a line 'logical physical' per logical block of the\n"
		"                    MR ('logical -' for one never written)\n"
		"  --save-read FILE  the bytes the flow's READ brought back to B\n"
		"  --quick           fewer iterations and shorter time caps (for tests)\n"
		"  --json            print one JSON object instead of the text report\n"
		"  --all-counters    list every counter, not only the non-zero ones\n"
		"  -h, --help        this text\n"
		"\n"
		"Exit status: 0 every step passed, 1 a step failed, 2 bad option.\n",
		ROCE_DEMO_SIZE_MAX >> 20, ROCE_DEMO_ITERS_DEFAULT,
		ROCE_DEMO_ITERS_QUICK, ROCE_DEMO_ITERS_MAX, ROCE_FIRST_QPN + 1,
		ROCE_MAX_QP, ROCE_MAX_QP);
}

static int bad_opt(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "roce-demo: bad %s '%s': %s (try --help)\n", opt, val, why);
	return 2;
}

static int parse_pct(const char *opt, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || isnan(v))
		return bad_opt(opt, s, "not a number");
	if (v < 0 || v > 100)
		return bad_opt(opt, s, "a percentage must lie in 0..100");
	*out = v;
	return 0;
}

static int parse_mtu(const char *s, enum roce_mtu *out)
{
	for (enum roce_mtu m = ROCE_MTU_256; m <= ROCE_MTU_4096; m++) {
		char buf[8];

		snprintf(buf, sizeof(buf), "%u", roce_mtu_bytes(m));
		if (strcmp(s, buf) == 0) {
			*out = m;
			return 0;
		}
	}
	return bad_opt("--mtu", s, "must be 256, 512, 1024, 2048 or 4096");
}

static int parse_num(const char *opt, const char *s, bool suffix, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char why[64];
	int st = roce_parse_u64(s, suffix, out);

	if (st == ROCE_E_FORMAT)
		return bad_opt(opt, s, suffix ? "not a size (e.g. 4096, 64K, 1M)"
					      : "not a non-negative integer");
	snprintf(why, sizeof(why), "must lie in %" PRIu64 "..%" PRIu64, min, max);
	if (st != ROCE_OK || *out < min || *out > max)
		return bad_opt(opt, s, why);
	return 0;
}

enum { OPT_MTU = 256, OPT_SIZE, OPT_ITERS, OPT_LOSS, OPT_REORDER, OPT_DUP,
       OPT_CORRUPT, OPT_SEED, OPT_QP_COUNT, OPT_PCAP, OPT_THREADS, OPT_QUICK,
       OPT_JSON, OPT_ALL, OPT_WINDOW, OPT_ADAPTIVE, OPT_IBA_STRICT, OPT_VTIME, OPT_TRACE, OPT_RTO_MIN,
       OPT_STAGE, OPT_KEY_FILE, OPT_UNIT, OPT_DUN, OPT_SAVE_DDR, OPT_SAVE_READ };

/* --stage LIST: the names (stage_config.c's words and refusals). */
static int parse_stage(const char *arg, struct opts *o)
{
	char why[160];

	if (roce_stage_chain_parse(arg, o->stage.chain, why, sizeof(why)) != ROCE_OK)
		return bad_opt("--stage", arg, why);
	return 0;
}

/* The chain's order and unit, as roce_stage_binding_check will judge them
 * when A's MR is bound: refused now, with its reason, not after setup. */
static int check_stage(const struct opts *o, const char *list)
{
	struct roce_stage_binding b = { .unit_shift = o->stage.unit_shift,
					.pool_blocks = 1, .pi_pa = 1u << 20 };
	const char *why = NULL;
	uint8_t key[ROCE_STAGE_KEY_LEN];
	char kwhy[200];

	memcpy(b.chain, o->stage.chain, sizeof(b.chain));
	if (roce_stage_binding_check(&b, 1u << 20, false, 1u << 30, &why) != ROCE_OK)
		return bad_opt("--stage", list, why);
	if (o->stage.key_file && !roce_stage_has(&b, ROCE_STAGE_XTS)) {
		fprintf(stderr, "roce-demo: --key-file without xts in --stage (try --help)\n");
		return 2;
	}
	if (o->stage.key_file &&
	    roce_stage_key_file(o->stage.key_file, key, kwhy, sizeof(kwhy)) != ROCE_OK) {
		fprintf(stderr, "roce-demo: --key-file %s\n", kwhy);
		return 2;
	}
	memset(key, 0, sizeof(key));
	return 0;
}

static int parse_opt(int c, const char *arg, struct opts *o, bool *iters_set)
{
	uint64_t v;
	int rc;

	switch (c) {
	case OPT_MTU:
		return parse_mtu(arg, &o->mtu);
	case OPT_SIZE:
		return parse_num("--size", arg, true, 1, ROCE_DEMO_SIZE_MAX, &o->size);
	case OPT_ITERS:
		rc = parse_num("--iters", arg, false, 1, ROCE_DEMO_ITERS_MAX, &v);
		o->iters = (uint32_t)v;
		*iters_set = true;
		return rc;
	case OPT_LOSS: return parse_pct("--loss", arg, &o->loss);
	case OPT_REORDER: return parse_pct("--reorder", arg, &o->reorder);
	case OPT_DUP: return parse_pct("--duplicate", arg, &o->duplicate);
	case OPT_CORRUPT: return parse_pct("--corrupt", arg, &o->corrupt);
	case OPT_SEED:
		return parse_num("--seed", arg, false, 0, UINT64_MAX, &o->seed);
	case OPT_QP_COUNT:
		/* QPN 17, the first after the reserved ones, must exist */
		rc = parse_num("--qp-count", arg, false, ROCE_FIRST_QPN + 1,
			       ROCE_MAX_QP, &v);
		o->qp_count = (uint32_t)v;
		return rc;
	case OPT_PCAP: o->pcap = arg; return 0;
	case OPT_THREADS: o->threads = true; return 0;
	case OPT_QUICK: o->quick = true; return 0;
	case OPT_JSON: o->json = true; return 0;
	case OPT_ALL: o->all_counters = true; return 0;
	case OPT_WINDOW:
		rc = parse_num("--window", arg, false, 0, 1u << 20, &v);
		o->cc.window_kb = (uint32_t)v;
		return rc;
	case OPT_ADAPTIVE: o->cc.adaptive_rto = true; return 0;
	case OPT_IBA_STRICT: o->cc.iba_strict = true; return 0;
	case OPT_RTO_MIN:
		rc = parse_num("--rto-min-us", arg, false, 1, 10000000, &v);
		o->cc.rto_min_us = (uint32_t)v;
		return rc;
	case OPT_VTIME: o->virtual_time = true; return 0;
	case OPT_TRACE: o->trace = arg; return 0;
	case OPT_STAGE: return parse_stage(arg, o);
	case OPT_KEY_FILE: o->stage.key_file = arg; return 0;
	case OPT_UNIT:
		if (roce_stage_unit_parse(arg, &o->stage.unit_shift) != ROCE_OK)
			return bad_opt("--data-unit", arg, "must be 512 or 4096");
		return 0;
	case OPT_DUN:
		return parse_num("--dun-base", arg, false, 0, UINT64_MAX, &o->stage.dun_base);
	case OPT_SAVE_DDR: o->save_ddr = arg; return 0;
	case OPT_SAVE_READ: o->save_read = arg; return 0;
	}
	return 2;
}

/* 0 to run, 1 after --help (exit 0), 2 on a bad option. */
int demo_parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "mtu", required_argument, NULL, OPT_MTU },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "iters", required_argument, NULL, OPT_ITERS },
		{ "loss", required_argument, NULL, OPT_LOSS },
		{ "reorder", required_argument, NULL, OPT_REORDER },
		{ "duplicate", required_argument, NULL, OPT_DUP },
		{ "corrupt", required_argument, NULL, OPT_CORRUPT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "qp-count", required_argument, NULL, OPT_QP_COUNT },
		{ "pcap", required_argument, NULL, OPT_PCAP },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "all-counters", no_argument, NULL, OPT_ALL },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "adaptive-rto", no_argument, NULL, OPT_ADAPTIVE },
		{ "iba-strict", no_argument, NULL, OPT_IBA_STRICT },
		{ "rto-min-us", required_argument, NULL, OPT_RTO_MIN },
		{ "virtual-time", no_argument, NULL, OPT_VTIME },
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "stage", required_argument, NULL, OPT_STAGE },
		{ "key-file", required_argument, NULL, OPT_KEY_FILE },
		{ "data-unit", required_argument, NULL, OPT_UNIT },
		{ "dun-base", required_argument, NULL, OPT_DUN },
		{ "save-ddr", required_argument, NULL, OPT_SAVE_DDR },
		{ "save-read", required_argument, NULL, OPT_SAVE_READ },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool iters_set = false;
	const char *stage_list = NULL;
	int c;

	*o = (struct opts){ .mtu = ROCE_MTU_1024, .size = ROCE_DEMO_SIZE_DEFAULT,
			    .seed = 1, .stage.unit_shift = ROCE_STAGE_UNIT_MAX_SHIFT };
	roce_cc_options_init(&o->cc);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "roce-demo: %s '%s' (try --help)\n",
				c == ':' ? "missing value for" : "unknown option",
				argv[optind - 1]);
			return 2;
		}
		if (parse_opt(c, optarg, o, &iters_set))
			return 2;
		if (c == OPT_STAGE)
			stage_list = optarg;
	}
	if (optind < argc) {
		fprintf(stderr, "roce-demo: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return 2;
	}
	if (o->virtual_time && o->threads) {
		fprintf(stderr, "roce-demo: --virtual-time runs without threads: "
			"not with --threads (try --help)\n");
		return 2;
	}
	if (demo_staged(o) && check_stage(o, stage_list))
		return 2;
	if (!demo_staged(o) && o->stage.key_file) {
		fprintf(stderr, "roce-demo: --key-file needs --stage with xts (try --help)\n");
		return 2;
	}
	if (!iters_set)
		o->iters = o->quick ? ROCE_DEMO_ITERS_QUICK : ROCE_DEMO_ITERS_DEFAULT;
	return 0;
}
