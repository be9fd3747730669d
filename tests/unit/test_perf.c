/* SPDX-License-Identifier: MIT */
/*
 * roce-perf's pieces without a network: the result tables against lines
 * printed by perftest 4.5 itself (ib_write_bw and ib_write_lat on Linux
 * soft-RoCE), the report arithmetic, perftest's defaults and option
 * dependencies, and the content-check patterns.
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
#include "roce/status.h"

static char *print_to_string(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static void bw_line(FILE *f, const void *r)
{
	perf_print_bw(f, r);
}

static void lat_line(FILE *f, const void *r)
{
	perf_print_lat(f, r);
}

/* "ib_write_bw -s 64 -n 20": the client's line, tabs and all */
static void test_bw_table(void **state)
{
	struct perf_bw_result r = { 64, 20, 0.3061, 0.2563, 0.004199 };
	char *s = print_to_string(bw_line, &r);

	(void)state;
	assert_string_equal(s, " 64         20               0.31               0.26   "
			    "\t\t   0.004199\n");
	free(s);
	assert_string_equal(PERF_RESULT_FMT_BW, " #bytes     #iterations    BW peak[MB/sec]"
			    "    BW average[MB/sec]   MsgRate[Mpps]\n");
}

/* "ib_write_lat -s 64 -n 10" */
static void test_lat_table(void **state)
{
	struct perf_lat_result r = { 64, 10, 349.03, 1339.30, 564.01, 609.03, 208.13,
				     1339.30, 1339.30 };
	char *s = print_to_string(lat_line, &r);

	(void)state;
	assert_string_equal(s, " 64      10          349.03         1339.30      564.01   \t"
			    "       609.03      \t208.13 \t\t1339.30 \t\t1339.30\n");
	free(s);
}

static void test_bw_compute(void **state)
{
	/* 10 messages of 1 MiB, one per ms, completions timed every 5th:
	 * 1000 MiB/s average; the best run is 1 ms per message too */
	uint64_t post[10], done[10] = { 0 };
	struct perf_bw_result r;

	(void)state;
	for (int i = 0; i < 10; i++)
		post[i] = 1000000ull * (uint64_t)i;
	done[4] = 5000000;
	done[9] = 10000000;
	perf_bw_compute(1048576, 10, post, done, 5, true, PERF_MBS, &r);
	assert_true(r.bw_avg > 999.9 && r.bw_avg < 1000.1);
	assert_true(r.bw_peak > 999.9 && r.bw_peak < 1000.1);
	assert_true(r.msg_rate > 0.000999 && r.msg_rate < 0.001001);
	/* without the peak, only the first post and done[0] count */
	done[0] = 20000000;
	perf_bw_compute(1048576, 10, post, done, 5, false, PERF_MBS, &r);
	assert_true(r.bw_avg > 499.9 && r.bw_avg < 500.1);
	assert_true(r.bw_peak == 0);
}

static void test_lat_compute(void **state)
{
	/* posts 2 us apart except two slow gaps (the tail perftest drops) */
	uint64_t t[12];
	struct perf_lat_result r;

	(void)state;
	t[0] = 0;
	for (int i = 1; i < 12; i++)
		t[i] = t[i - 1] + (i == 3 ? 50000 : i == 7 ? 90000 : 2000);
	assert_int_equal(perf_lat_compute(64, 12, t, 2, &r), ROCE_OK);
	assert_true(r.t_typical > 0.999 && r.t_typical < 1.001);     /* half of 2 us */
	assert_true(r.t_avg > 0.999 && r.t_avg < 1.001);
	assert_true(r.t_min > 0.999 && r.t_min < 1.001);
	assert_true(r.t_stdev < 0.001);
	assert_true(r.t_max > 24.9 && r.t_max < 25.1);              /* delta[cnt] */
	assert_int_equal(perf_lat_compute(64, 3, t, 2, &r), ROCE_E_RANGE);
}

static int parse(struct perf_opts *o, const char *line)
{
	char buf[256], *argv[32];
	int argc = 0;
	FILE *null = fopen("/dev/null", "w");
	int r;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	r = perf_parse(argc, argv, o, null, null);
	fclose(null);
	return r;
}

static void test_args(void **state)
{
	struct perf_opts o;

	(void)state;
	assert_int_equal(parse(&o, "roce-perf write_bw 10.0.0.1"), 0);
	assert_int_equal(o.verb, PERF_WRITE);
	assert_int_equal(o.size, 65536);
	assert_int_equal(o.iters, 5000);
	assert_int_equal(o.tx_depth, 128);
	assert_int_equal(o.cq_mod, 1);          /* 64 KiB > 8 KiB: no moderation */
	assert_int_equal(o.port, 18515);
	assert_string_equal(o.server, "10.0.0.1");

	assert_int_equal(parse(&o, "ib_send_lat -s 2K -n 10"), 0);  /* by link name */
	assert_int_equal(o.verb, PERF_SEND);
	assert_int_equal(o.tst, PERF_LAT);
	assert_int_equal(o.size, 2048);
	assert_int_equal(o.rx_depth, 10);       /* min(512, iters) */
	assert_null(o.server);

	assert_int_equal(parse(&o, "x read_bw -s 64 -n 50 -t 200 -Q 16 -o 4 -x 1 -u 17 -F -m 1024"), 0);
	assert_int_equal(o.tx_depth, 50);       /* at most iters */
	assert_int_equal(o.cq_mod, 16);
	assert_int_equal(o.out_reads, 4);
	assert_int_equal(o.qp_timeout, 17);
	assert_int_equal(o.mtu, 1024);

	assert_int_equal(parse(&o, "x write_bw -D 8"), 0);
	assert_true(o.duration_mode);
	assert_int_equal(o.margin, 2);          /* duration / 4 */
	assert_int_equal(o.iters, 0);
	assert_int_equal(parse(&o, "x write_bw -D 4 -f 2"), 2);     /* DURATION > 2*MARGIN */
	assert_int_equal(parse(&o, "x write_bw -a"), 0);
	assert_int_equal(o.size, PERF_MAX_SIZE);
	assert_int_equal(parse(&o, "x atomic_bw -A CMP_AND_SWAP"), 0);
	assert_int_equal(o.atomic, PERF_CMP_AND_SWAP);
	assert_int_equal(o.size, 8);

	assert_int_equal(parse(&o, "x atomic_bw -a"), 2);
	assert_int_equal(parse(&o, "x write_lat -q 2"), 2);
	assert_int_equal(parse(&o, "x write_bw -n 4"), 2);
	assert_int_equal(parse(&o, "x write_bw -m 1000"), 2);
	assert_int_equal(parse(&o, "x write_bw -A FETCH_AND_ADD"), 2);
	assert_int_equal(parse(&o, "x write_bw -r 8"), 2);
	assert_int_equal(parse(&o, "x write_bw --ip 1.2.3"), 2);
	assert_int_equal(parse(&o, "x write_bw a b"), 2);
	assert_int_equal(parse(&o, "x write_bw -z"), 2);
	assert_int_equal(parse(&o, "x nonsense"), 2);
	assert_int_equal(parse(&o, "x write_bw -h"), 1);
	assert_int_equal(parse(&o, "x write_bw --ip 10.1.2.3 --netdev eth1 --check"), 0);
	assert_int_equal(o.ip, 0x0A010203u);
	assert_true(o.check);
	/* -x: perftest's GID index; without it our GID stays the IPv4 one
	 * (printed as perftest prints its RoCE default, 0) */
	assert_int_equal(parse(&o, "x write_bw"), 0);
	assert_false(o.gid_set);
	assert_int_equal(o.gid_index, 0);
	assert_int_equal(parse(&o, "x write_bw -x 2 --ip6 fd91::2 --ip6 fe80::1"), 0);
	assert_true(o.gid_set);
	assert_int_equal(o.gid_index, 2);
	assert_int_equal(o.n_ip6, 2);
	assert_int_equal(o.ip6[0][0], 0xfd);
	assert_int_equal(o.ip6[0][15], 2);
	assert_int_equal(parse(&o, "x write_bw --ip6 ff02::1"), 2);
	assert_int_equal(parse(&o, "x write_bw --ip6 ::ffff:10.0.0.1"), 2);
	assert_int_equal(parse(&o, "x write_bw --ip6 fd91::zz"), 2);
	assert_int_equal(parse(&o, "x write_bw -x 65"), 2);

	/* -e: perftest's rules (parser(), force_dependecies()): not on the
	 * WRITE verb, not with -D, and a large message keeps cq_mod */
	assert_int_equal(parse(&o, "x send_bw -e -s 65536"), 0);
	assert_true(o.events);
	assert_int_equal(o.cq_mod, 100);
	assert_int_equal(parse(&o, "x read_lat --events"), 0);
	assert_true(o.events);
	assert_int_equal(parse(&o, "x send_bw -s 65536"), 0);
	assert_false(o.events);
	assert_int_equal(o.cq_mod, 1);
	assert_int_equal(parse(&o, "x write_bw -e"), 2);
	assert_int_equal(parse(&o, "x write_lat -e"), 2);
	assert_int_equal(parse(&o, "x send_bw -e -D 4"), 2);
}

/* -q: perftest's range (parser(): CHECK_VALUE_IN_RANGE(num_of_qps, int,
 * MIN_QP_NUM 1, MAX_QP_NUM 16384, "num of Qps"), perftest_parameters.h:172),
 * refused outside it with perftest's words and exit status 2 (a bad
 * command line); what the device offers is the endpoint's check. */
static void test_args_qps(void **state)
{
	static const char *const bad[] = { "0", "16385", "-1", "4x", "100000" };
	struct perf_opts o;

	(void)state;
	assert_int_equal(parse(&o, "x write_bw"), 0);
	assert_int_equal(o.nqp, 1);
	assert_int_equal(parse(&o, "x write_bw -q 256"), 0);
	assert_int_equal(o.nqp, 256);
	assert_int_equal(parse(&o, "x send_bw --qp=1"), 0);
	assert_int_equal(o.nqp, 1);
	assert_int_equal(parse(&o, "x send_bw -q 16384"), 0);
	assert_int_equal(o.nqp, 16384);
	assert_int_equal(PERF_MIN_QP, 1);
	assert_int_equal(PERF_MAX_QP, 16384);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[64], *err = NULL;
		size_t len = 0;
		FILE *null = fopen("/dev/null", "w"), *e = open_memstream(&err, &len);
		char *argv[] = { "x", "write_bw", "-q", (char *)bad[i], NULL };

		assert_non_null(null);
		assert_non_null(e);
		assert_int_equal(perf_parse(4, argv, &o, null, e), 2);
		fclose(null);
		fclose(e);
		snprintf(line, sizeof(line), "num of Qps '%s': should be between 1 and 16384",
			 bad[i]);
		assert_non_null(strstr(err, line));
		free(err);
	}
	/* perftest: " Multiple QPs only available on bw tests" */
	assert_int_equal(parse(&o, "x send_lat -q 2"), 2);
}

/* -c (change_conn_type, force_dependecies): RC by default; UC for the
 * SEND and WRITE tests, refused with READ and atomics; the other names
 * refused; on UC the default receive depth becomes min(iters, 16000). */
static void test_args_conn(void **state)
{
	struct perf_opts o;

	(void)state;
	assert_int_equal(parse(&o, "x send_bw"), 0);
	assert_int_equal(o.conn, ROCE_QPT_RC);
	assert_int_equal(o.rx_depth, 512);
	assert_int_equal(parse(&o, "x send_bw -c UC"), 0);
	assert_int_equal(o.conn, ROCE_QPT_UC);
	assert_int_equal(o.rx_depth, 1000);     /* -n 1000: a receive per message */
	assert_int_equal(parse(&o, "x send_bw -c UC -n 20000"), 0);
	assert_int_equal(o.rx_depth, 16000);    /* UC_MAX_RX */
	assert_int_equal(parse(&o, "x send_bw -c UC -n 20000 -r 100"), 0);
	assert_int_equal(o.rx_depth, 100);      /* asked for: kept */
	assert_int_equal(parse(&o, "x send_bw -c UC -n 300"), 0);
	assert_int_equal(o.rx_depth, 300);
	assert_int_equal(parse(&o, "x send_bw -c RC -n 20000"), 0);
	assert_int_equal(o.rx_depth, 512);
	assert_int_equal(parse(&o, "x write_bw --connection=UC"), 0);
	assert_int_equal(o.conn, ROCE_QPT_UC);
	assert_int_equal(o.rx_depth, 1);
	assert_int_equal(parse(&o, "x write_lat -c UC"), 0);
	assert_int_equal(parse(&o, "x send_lat -c UC"), 0);
	assert_int_equal(o.conn, ROCE_QPT_UC);
	assert_int_equal(parse(&o, "x read_bw -c UC"), 2);
	assert_int_equal(parse(&o, "x read_lat -c UC"), 2);
	assert_int_equal(parse(&o, "x atomic_bw -c UC"), 2);
	assert_int_equal(parse(&o, "x write_bw -c UD"), 2);
	assert_int_equal(parse(&o, "x read_lat -c UD"), 2);
	assert_int_equal(parse(&o, "x atomic_bw -c UD"), 2);
	/* UD: send_bw and send_lat; the receive depth as UC's; the CQ
	 * moderation kept for a large size (perftest's force_dependecies) */
	assert_int_equal(parse(&o, "x send_bw -c UD -n 20000"), 0);
	assert_int_equal(o.conn, ROCE_QPT_UD);
	assert_int_equal(o.rx_depth, 16000);    /* UC_MAX_RX, as UC */
	assert_int_equal(parse(&o, "x send_bw -c UD -s 65536 -Q 50"), 0);
	assert_int_equal(o.cq_mod, 50);
	assert_int_equal(parse(&o, "x send_bw -c UC -s 65536 -Q 50"), 0);
	assert_int_equal(parse(&o, "x send_bw -c UD -s 65536"), 0);
	assert_int_equal(o.cq_mod, 100);
	assert_int_equal(parse(&o, "x send_bw -c RC -s 65536"), 0);
	assert_int_equal(o.cq_mod, 1);
	assert_int_equal(parse(&o, "x send_lat --connection=UD"), 0);
	assert_int_equal(o.conn, ROCE_QPT_UD);
	assert_int_equal(parse(&o, "x send_bw -c XRC"), 2);
	assert_int_equal(parse(&o, "x send_bw -c uc"), 2);
	assert_int_equal(parse(&o, "x send_bw -c"), 2);
}

static void test_patterns(void **state)
{
	uint8_t buf[3000];

	(void)state;
	perf_fill_bw(buf, 1, 4096, sizeof(buf));
	assert_int_equal(perf_verify_bw(buf, 1, 4096, sizeof(buf)), -1);
	/* the wrong offset, QP or iteration is caught */
	assert_true(perf_verify_bw(buf, 1, 4160, sizeof(buf)) >= 0);
	assert_true(perf_verify_bw(buf, 2, 4096, sizeof(buf)) >= 0);
	buf[2999] ^= 1;
	assert_int_equal(perf_verify_bw(buf, 1, 4096, sizeof(buf)), 2999);
	perf_fill_lat(buf, 7, 100);
	assert_int_equal(perf_verify_lat(buf, 7, 100), -1);
	assert_int_equal(perf_verify_lat(buf, 8, 100), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bw_table),
		cmocka_unit_test(test_lat_table),
		cmocka_unit_test(test_bw_compute),
		cmocka_unit_test(test_lat_compute),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_args_qps),
		cmocka_unit_test(test_args_conn),
		cmocka_unit_test(test_patterns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
