/* SPDX-License-Identifier: MIT */
/*
 * roce-perf: perftest's ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw,
 * ib_write_lat, ib_read_lat and ib_send_lat on this engine, compatible on
 * the wire and on the out-of-band TCP exchange with Debian 12's perftest
 * 4.5, as client (given a server name) or as server (without one):
 *
 *   roce-perf write_bw --netdev eth1 -s 4096 -n 1000          # server
 *   roce-perf write_bw --netdev eth1 -s 4096 -n 1000 10.0.0.1 # client
 *
 * Run through a link named ib_write_bw etc., it takes the test from its
 * name, so a harness can swap it for perftest's tools.
 *
 * --memlink-selftest runs a server and a client of the given test inside
 * this process, each with its own engine, over the in-memory link and a
 * loopback TCP exchange: the whole tool without a network interface. With
 * --mmap, the server's buffer is the one in the file.
 *
 * Exit status: 0 success, 1 the test failed (peer unreachable, protocol
 * mismatch, completion error, timeout, content check), 2 bad command line.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/perf.h"
#include "perf/perf_run.h"
#include "roce/status.h"

int perf_session_on(struct perf_run *r, struct roce_memlink *ml);

static int report(struct perf_run *r, int st)
{
	fflush(r->out);
	if (st)
		fprintf(r->err, "roce-perf %s (%s): %s: %s\n", r->o->name,
			r->o->server ? "client" : "server", roce_status_name(st), r->msg);
	return st ? 1 : 0;
}

struct side {
	struct perf_opts o;
	struct perf_run r;
	struct roce_memlink *ml;
	char *text;
	size_t text_len;
	int rc;
};

static void *server_thread(void *arg)
{
	struct side *s = arg;

	s->rc = report(&s->r, perf_session_on(&s->r, s->ml));
	fflush(s->r.out);
	return NULL;
}

static int selftest(struct perf_opts *o)
{
	struct roce_memlink_config lc = { .seed = 1, .ring_frames = PERF_SELFTEST_RING,
					  .lossless = true };
	struct side srv = { .o = *o }, cli = { .o = *o };
	char err[128];
	uint16_t port = 0;
	pthread_t t;
	int st, lfd;

	if ((st = roce_memlink_create(&lc, &srv.ml)) != ROCE_OK) {
		fprintf(stderr, "roce-perf: in-memory link: %s\n", roce_status_str(st));
		return 1;
	}
	/* -R: the CM connects the two over the link itself, on -p's port */
	lfd = o->rdma_cm ? -2 : roce_oob_listen("127.0.0.1", 0, &port, err, sizeof(err));
	if (lfd == -1) {
		fprintf(stderr, "roce-perf: %s\n", err);
		roce_memlink_destroy(srv.ml);
		return 1;
	}
	srv.o.server = NULL;
	srv.o.ip = 0x0A000001u;
	srv.o.no_peak = o->no_peak || (o->verb == PERF_SEND && o->tst == PERF_BW && !o->duplex);
	cli.o.server = o->rdma_cm ? "10.0.0.1" : "127.0.0.1";
	cli.o.mmap_file = NULL;         /* --mmap: the server's buffer only */
	cli.o.stage.save_ddr = NULL;    /* --save-ddr: the server's MR */
	cli.o.ip = 0x0A000002u;
	if (!o->rdma_cm)
		cli.o.port = port;
	else
		lfd = -1;
	srv.r = (struct perf_run){ .o = &srv.o, .err = stderr, .lfd = lfd };
	srv.r.out = open_memstream(&srv.text, &srv.text_len);
	cli.r = (struct perf_run){ .o = &cli.o, .out = stdout, .err = stderr, .lfd = -1 };
	if (!srv.r.out || pthread_create(&t, NULL, server_thread, &srv) != 0) {
		fprintf(stderr, "roce-perf: cannot start the server side\n");
		if (lfd >= 0)
			close(lfd);
		roce_memlink_destroy(srv.ml);
		return 1;
	}
	printf("==== client\n");
	cli.rc = report(&cli.r, perf_session_on(&cli.r, srv.ml));
	pthread_join(t, NULL);
	fclose(srv.r.out);
	printf("==== server\n%s", srv.text ? srv.text : "");
	free(srv.text);
	roce_memlink_destroy(srv.ml);
	return cli.rc || srv.rc;
}

int main(int argc, char **argv)
{
	struct perf_opts o;
	struct perf_run r = { .o = &o, .out = stdout, .err = stderr, .lfd = -1 };
	int rc = perf_parse(argc, argv, &o, stdout, stderr);

	if (rc)
		return rc == 1 ? 0 : 2;
	if (o.selftest)
		return selftest(&o);
	if (!o.netdev) {
		fprintf(stderr, "roce-perf: give the interface with --netdev IFNAME "
			"(try --help)\n");
		return 2;
	}
	return report(&r, perf_session(&r));
}
