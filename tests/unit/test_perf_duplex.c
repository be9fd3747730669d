/* SPDX-License-Identifier: MIT */
/*
 * roce-perf's -b/--bidirectional, --report_gbits and --report-both against
 * perftest 4.5-0.17's source: the parser's verdicts (perftest_parameters.c:
 * parser, force_dependecies), the Gb/sec unit and header (print_report_bw's
 * format_factor, RESULT_FMT_G and REPORT_FMT_EXT of perftest_parameters.h),
 * the sum of both directions (print_full_bw_report) and the Local/Remote
 * tables (the report_both block of write_bw.c, read_bw.c, send_bw.c and
 * atomic_bw.c). The expected strings are perftest's literals, written out
 * here rather than taken from our macros.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perf/perf.h"

/* perftest_parameters.h */
#define PT_RESULT_LINE "---------------------------------------------------------------------------------------\n"
#define PT_RESULT_FMT " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
#define PT_RESULT_FMT_G " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"

static int parse_err(struct perf_opts *o, const char *line, char **err)
{
	static char buf[256];           /* o->server points into it */
	char *argv[32];
	int argc = 0, r;
	size_t len = 0;
	FILE *null = fopen("/dev/null", "w"), *e = open_memstream(err, &len);

	assert_non_null(null);
	assert_non_null(e);
	snprintf(buf, sizeof(buf), "%s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	r = perf_parse(argc, argv, o, null, e);
	fclose(null);
	fclose(e);
	return r;
}

static int parse(struct perf_opts *o, const char *line)
{
	char *err = NULL;
	int r = parse_err(o, line, &err);

	free(err);
	return r;
}

static void test_args(void **state)
{
	struct perf_opts o;
	char *err = NULL;

	(void)state;
	/* defaults: one direction, MB/sec, no separate tables */
	assert_int_equal(parse(&o, "x write_bw"), 0);
	assert_false(o.duplex);
	assert_false(o.report_both);
	assert_int_equal(o.report_fmt, PERF_MBS);

	/* -b on every bandwidth test, short and long */
	assert_int_equal(parse(&o, "x write_bw -b"), 0);
	assert_true(o.duplex);
	assert_int_equal(parse(&o, "x read_bw --bidirectional 10.0.0.1"), 0);
	assert_true(o.duplex);
	assert_string_equal(o.server, "10.0.0.1");
	assert_int_equal(parse(&o, "x atomic_bw -b"), 0);
	assert_true(o.duplex);
	assert_int_equal(parse(&o, "ib_send_bw -b -a"), 0);
	assert_true(o.duplex);

	/* parser(), case 'b': refused on latency tests with perftest's words */
	assert_int_equal(parse_err(&o, "x write_lat -b", &err), 2);
	assert_non_null(strstr(err, "Bidirectional is only available in BW test"));
	free(err);
	assert_int_equal(parse(&o, "x read_lat --bidirectional"), 2);
	assert_int_equal(parse(&o, "x send_lat -b 10.0.0.1"), 2);

	/* both report flags are accepted by every test (perftest's flags) */
	assert_int_equal(parse(&o, "x send_bw --report_gbits --report-both"), 0);
	assert_int_equal(o.report_fmt, PERF_GBS);
	assert_true(o.report_both);
	assert_false(o.duplex);                 /* --report-both alone: no -b */
	assert_int_equal(parse(&o, "x write_lat --report_gbits --report-both"), 0);
	assert_int_equal(o.report_fmt, PERF_GBS);
	/* perftest spells them so; no other spelling */
	assert_int_equal(parse(&o, "x write_bw --report-gbits"), 2);
	assert_int_equal(parse(&o, "x write_bw --report_both"), 2);

	/* force_dependecies(): the send_bw server reports no peak, unless -b */
	assert_int_equal(parse(&o, "x send_bw"), 0);
	assert_true(o.no_peak);
	assert_int_equal(parse(&o, "x send_bw -b"), 0);
	assert_false(o.no_peak);
	assert_int_equal(parse(&o, "x send_bw -b 10.0.0.1"), 0);
	assert_false(o.no_peak);
}

/* print_report_bw(): format_factor 0x100000 (MB) or 125000000 (Gb) */
static void test_gbits_unit(void **state)
{
	uint64_t post[10], done[10] = { 0 };
	struct perf_bw_result mb, gb;

	(void)state;
	/* 10 MiB, one MiB per ms: 1000 MB/sec, 8.388608 Gb/sec */
	for (int i = 0; i < 10; i++)
		post[i] = 1000000ull * (uint64_t)i;
	done[4] = 5000000;
	done[9] = 10000000;
	perf_bw_compute(1048576, 10, post, done, 5, true, PERF_MBS, &mb);
	perf_bw_compute(1048576, 10, post, done, 5, true, PERF_GBS, &gb);
	assert_true(mb.bw_avg > 999.999 && mb.bw_avg < 1000.001);
	assert_true(gb.bw_avg > 8.388607 && gb.bw_avg < 8.388609);
	assert_true(gb.bw_peak > 8.388607 && gb.bw_peak < 8.388609);
	/* the message rate does not depend on the unit */
	assert_true(gb.msg_rate == mb.msg_rate);
	assert_string_equal(perf_bw_header(PERF_GBS), PT_RESULT_FMT_G "\n");
	assert_string_equal(perf_bw_header(PERF_MBS), PT_RESULT_FMT "\n");
}

static char *full_bw(enum perf_fmt fmt, const struct perf_bw_result *my,
		     const struct perf_bw_result *rem)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	perf_print_full_bw(f, fmt, my, rem);
	fclose(f);
	return buf;
}

/* print_full_bw_report(): REPORT_FMT, or REPORT_FMT_EXT when a Gb/sec
 * average is under 0.1; with the remote report, the sums */
static void test_full_report(void **state)
{
	struct perf_bw_result slow = { 64, 20, 0.3, 0.05, 0.004199 };
	struct perf_bw_result fast = { 64, 20, 0.3, 0.15, 0.004199 };
	struct perf_bw_result my = { 65536, 1000, 100.5, 90.25, 0.001444 };
	struct perf_bw_result rem = { 65536, 1000, 200.0, 80.0, 0.0012 };
	char *s;

	(void)state;
	s = full_bw(PERF_GBS, &slow, NULL);
	assert_string_equal(s, " 64         20           0.300000            0.050000"
			    "            0.004199\n");
	free(s);
	s = full_bw(PERF_MBS, &slow, NULL);     /* MB/sec: never the long format */
	assert_string_equal(s, " 64         20               0.30               0.05   "
			    "\t\t   0.004199\n");
	free(s);
	s = full_bw(PERF_GBS, &fast, NULL);
	assert_string_equal(s, " 64         20               0.30               0.15   "
			    "\t\t   0.004199\n");
	free(s);
	/* -b: size and iterations are mine, the rates both sides' sums */
	s = full_bw(PERF_MBS, &my, &rem);
	assert_string_equal(s, " 65536      1000             300.50             170.25 "
			    "\t\t   0.002644\n");
	free(s);
	/* the format follows this side's own average, taken before the sum
	 * (print_full_bw_report sets inc_accuracy where it declares bw_avg,
	 * before adding the remote report): a slow side prints the sum of two
	 * slow directions in the long format although the sum is not slow... */
	slow.bw_avg = 0.06;
	s = full_bw(PERF_GBS, &slow, &slow);
	assert_string_equal(s, " 64         20           0.600000            0.120000"
			    "            0.008398\n");
	free(s);
	/* ...and a fast side a sum with a slow peer in the short one */
	s = full_bw(PERF_GBS, &fast, &slow);
	assert_string_equal(s, " 64         20               0.60               0.21   "
			    "\t\t   0.008398\n");
	free(s);
}

static char *report_both(enum perf_fmt fmt, bool atomic, const struct perf_bw_result *my,
			 const struct perf_bw_result *rem)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	perf_print_report_both(f, fmt, atomic, my, rem);
	fclose(f);
	return buf;
}

static void test_report_both(void **state)
{
	struct perf_bw_result my = { 65536, 1000, 100.5, 90.25, 0.001444 };
	struct perf_bw_result rem = { 65536, 1000, 200.0, 80.0, 0.0012 };
	char *s;

	(void)state;
	/* write_bw.c, read_bw.c, send_bw.c: "Local results: " with a space */
	s = report_both(PERF_MBS, false, &my, &rem);
	assert_string_equal(s,
		PT_RESULT_LINE "\n Local results: \n" PT_RESULT_LINE PT_RESULT_FMT "\n"
		" 65536      1000             100.50             90.25  \t\t   0.001444\n"
		PT_RESULT_LINE "\n Remote results: \n" PT_RESULT_LINE PT_RESULT_FMT "\n"
		" 65536      1000             200.00             80.00  \t\t   0.001200\n");
	free(s);
	/* atomic_bw.c: without the space; --report_gbits: the Gb header */
	s = report_both(PERF_GBS, true, &my, &rem);
	assert_string_equal(s,
		PT_RESULT_LINE "\n Local results:\n" PT_RESULT_LINE PT_RESULT_FMT_G "\n"
		" 65536      1000             100.50             90.25  \t\t   0.001444\n"
		PT_RESULT_LINE "\n Remote results:\n" PT_RESULT_LINE PT_RESULT_FMT_G "\n"
		" 65536      1000             200.00             80.00  \t\t   0.001200\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_gbits_unit),
		cmocka_unit_test(test_full_report),
		cmocka_unit_test(test_report_both),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
