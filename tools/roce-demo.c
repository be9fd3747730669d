/* SPDX-License-Identifier: MIT */
/*
 * roce-demo: the seed's bring-up flow, end to end, on two emulated NICs,
 * with no privileges.
 *
 * NIC A and NIC B are complete device models (register file, QP and MR
 * tables, DDR, engine) joined by the in-memory link. They are configured
 * only through their AXI-Lite register files: roce_open() runs the driver's
 * power-on sequence (seed 000 section 3.3), roce_modify_qp() and
 * roce_reg_mr() commit QP contexts and MR entries through the table
 * windows, and this tool reads all of it back through the same driver.
 *
 * The flow is seed 001's: A, the board, advertises its memory with a SEND;
 * B, the host, parses the advertisement and uses A's memory with RDMA
 * WRITE, READ (compared byte by byte) and the two atomics. Then a
 * perftest-style table measures WRITE, READ and SEND from B to A, an 8-byte
 * WRITE's latency, and the counters of both NICs are read from their STAT
 * regions.
 *
 * With --stage, A's exposed MR goes through inline stages (docs/stages.md)
 * and, after the READ, the report shows what A's DDR holds.
 *
 * This file runs the steps in order; the files of roce-demo/ do the work
 * (demo.h lists them).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/trace.h"
#include "roce-demo/demo.h"
#include "roce/status.h"

/* The seed's flow, then the measurements; each runs only if all before
 * it passed (a QP in error would fail everything after it anyway). */
static void run(struct demo *d)
{
	static bool (*const flow[])(struct demo *, struct step *) = {
		demo_step_advertise, demo_step_write, demo_step_read,
		demo_step_fetch_add, demo_step_cmp_swap,
	};
	bool text = !d->o.json;

	if (text) {
		printf("\nConfiguration, read back through each register file\n");
		demo_print_nic(&d->a);
		demo_print_nic(&d->b);
		printf("\nThe seed's flow: A advertises its memory with a SEND, B uses it\n");
	}
	for (size_t i = 0; i < sizeof(flow) / sizeof(flow[0]); i++) {
		struct step *s = &d->step[ST_ADVERTISE + i];

		if (demo_staged(&d->o) && (ST_ADVERTISE + i == ST_FETCH_ADD ||
					   ST_ADVERTISE + i == ST_CMP_SWAP))
			/* the MR's words are not what the wire sees: the
			 * responder refuses an atomic (docs/stages.md) */
			demo_step_set(s, STEP_NOT_RUN, "an atomic on a staged MR is refused "
				      "(invalid request): not run with --stage");
		else
			flow[i](d, s);
		if (text) {
			demo_print_step(s);
			fflush(stdout);
		}
		/* what DDR holds now, before the measurements overwrite it */
		if (ST_ADVERTISE + i == ST_READ && s->st == STEP_PASS &&
		    !demo_stage_show(d, &d->step[ST_SETUP]))
			return;
		if (s->st == STEP_FAIL)
			return;
	}
	if (!demo_run_bandwidth(d, &d->step[ST_BANDWIDTH]))
		return;
	if (demo_run_latency(d, &d->lat, &d->step[ST_LATENCY]) && text)
		demo_print_latency(d);
}

static void report(const struct demo *d, int failed)
{
	if (d->o.json) {
		demo_print_json(d, failed);
		return;
	}
	if (d->a.n_cnt)
		demo_print_counters(d);
	demo_print_summary(d, failed);
}

int main(int argc, char **argv)
{
	struct demo *d = calloc(1, sizeof(*d));
	int rc, failed;

	if (!d) {
		fprintf(stderr, "roce-demo: out of memory\n");
		return 1;
	}
	demo_steps_init(d);
	rc = demo_parse_args(argc, argv, &d->o);
	if (rc) {
		free(d);
		return rc == 1 ? 0 : 2;
	}
	demo_clock.on = d->o.virtual_time;
	if (d->o.trace && !(d->trace = trace_writer_open(d->o.trace))) {
		fprintf(stderr, "roce-demo: cannot create trace file '%s'\n", d->o.trace);
		free(d);
		return 2;
	}
	if (demo_link_open(d) != ROCE_OK && d->o.pcap) {
		trace_writer_close(d->trace);
		fprintf(stderr, "roce-demo: cannot create capture file '%s'\n", d->o.pcap);
		free(d);
		return 2;
	}
	if (!d->o.json)
		demo_print_banner(d);
	if (d->link && demo_open(d))
		run(d);
	demo_finish(d);
	failed = demo_first_failed(d);
	report(d, failed);
	demo_close(d);
	trace_writer_close(d->trace);
	free(d);
	return failed < 0 ? 0 : 1;
}
