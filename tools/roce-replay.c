/* SPDX-License-Identifier: MIT */
/*
 * roce-replay: the model as the golden reference (docs/cosim.md).
 *
 *   roce-replay TRACE [--key-file FILE]
 *     builds each NIC of TRACE (a transaction trace, docs/trace.md, as
 *     roce_sim_trace_open writes it) as a fresh model, makes the trace's
 *     calls on it at their times and checks every output the model makes
 *     against the trace: read data and responses, frames out, DMA, DDR
 *     reads, completions. Host-memory DMA (hdmawr, hdmard) is left out:
 *     the model replayed has no host memory. A staged run's trace names
 *     the key slots it loads, never the keys: --key-file gives them.
 *   roce-replay --compare A B [--time-tolerance NS] [--skip KIND,...]
 *     compares the outputs of two traces (the model's and an RTL's).
 *
 * Exit 0 on a match, 1 on a mismatch (the first is printed with the
 * records around it), 2 on a usage error or a line that is not a record.
 * roce-replay/replay.h lists the files.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce-replay/replay.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: roce-replay TRACE [--key-file FILE]\n"
"       roce-replay --compare A B [--time-tolerance NS] [--skip KIND,...]\n"
"Replays a transaction trace (docs/trace.md) into fresh models of the NIC\n"
"and checks every output against it; or compares the outputs of two traces.\n"
"  --key-file FILE        the XTS keys of a staged run, which its trace never\n"
"                         holds (its key records name the slot): 64 bytes, the\n"
"                         key of every slot, or 64 x N bytes, slots 0..N-1's\n"
"                         in order; a trace that loads a slot without its key\n"
"                         here is refused (exit 2, the slot named)\n"
"  --compare A B          compare the outputs of trace A and trace B, per NIC\n"
"                         and per stream (registers, frames out, DMA writes,\n"
"                         host-memory DMA writes, DDR reads, completions),\n"
"                         in order\n"
"  --time-tolerance NS    with --compare: the times of matching outputs may\n"
"                         differ by NS ns at most (default: times not compared)\n"
"  --skip KIND,...        with --compare: leave out these kinds (wr, rd, fout,\n"
"                         dmawr, hdmawr, memrd, cqe)\n"
"  -h, --help             this text\n"
"Exit: 0 match, 1 mismatch (the first one shown, with the records around\n"
"it), 2 usage error or a malformed trace (its line number shown).\n");
}

static int parse_skip(const char *list, struct compare_opts *o)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	if (!copy)
		return -1;
	for (char *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < TR_KINDS; i++)
			if (!strcmp(k, trace_kind_name((enum trace_kind)i)))
				break;
		if (i == TR_KINDS) {
			fprintf(stderr, "roce-replay: --skip: unknown kind '%s'\n", k);
			rc = -1;
			break;
		}
		o->skip[i] = true;
	}
	free(copy);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "compare", no_argument, NULL, 'c' },
		{ "time-tolerance", required_argument, NULL, 't' },
		{ "skip", required_argument, NULL, 's' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare_opts co = { 0 };
	struct replay_keys keys = { 0 };
	const char *key_file = NULL;
	struct trace_file a, b;
	bool compare = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'c':
			compare = true;
			break;
		case 't':
			co.use_time = true;
			co.tolerance_ns = strtoull(optarg, &end, 10);
			if (!*optarg || *end || optarg[0] == '-') {
				fprintf(stderr, "roce-replay: --time-tolerance: '%s' is not a number of ns\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_skip(optarg, &co))
				return 2;
			break;
		case 'k':
			key_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != (compare ? 2 : 1) || (compare && key_file) ||
	    (!compare && (co.use_time || optind > (key_file ? 3 : 1)))) {
		usage(stderr);
		return 2;
	}
	if ((rc = trace_load(argv[optind], &a)) != 0)
		return rc;
	if (!compare) {
		if (key_file && (rc = replay_keys_load(key_file, &keys)) != 0) {
			trace_free(&a);
			return rc;
		}
		rc = replay_run(&a, &keys);
		replay_keys_free(&keys);
		trace_free(&a);
		return rc;
	}
	if ((rc = trace_load(argv[optind + 1], &b)) != 0) {
		trace_free(&a);
		return rc;
	}
	rc = compare_run(&a, &b, &co);
	trace_free(&a);
	trace_free(&b);
	return rc;
}
