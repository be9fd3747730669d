/* SPDX-License-Identifier: MIT */
/*
 * One roce-perf session: the options, the endpoint, the TCP exchange and
 * the state the runs share. perftest keeps the same things in its
 * pingpong_context and perftest_parameters.
 */
#ifndef ROCE_PERF_RUN_H
#define ROCE_PERF_RUN_H

#include "perf/perf.h"
#include "perf/perf_ep.h"
#include "perf/perf_layout.h"

struct perf_run {
	struct perf_opts *o;
	FILE *out, *err;
	int lfd;                        /* listening socket made beforehand, or -1 */
	struct perf_ep ep;
	struct roce_oob oob;
	struct perf_cm *cm;             /* -R: the RDMA CM's side (perf_cm.c) */
	/* per QP, o->nqp of each, allocated with the session (perftest's
	 * my_dest, rem_dest, scnt, ccnt): the runs allocate nothing */
	struct roce_pt_dest *my, *rem;  /* the keys sent and received */
	uint64_t *scnt, *ccnt;          /* a bw run's sends posted, completed */
	uint64_t *rposted;              /* receives posted */
	uint32_t cycle_buffer, cache_line;
	int mtu;                        /* ibverbs enum, agreed with the peer */
	uint64_t size;                  /* the size being run */
	struct perf_layout lay;         /* the buffer: rights, size, regions */
	uint64_t buff;                  /* BUFF_SIZE(): one QP's region */
	uint64_t *t_post, *t_done;      /* per message, for the reports */
	uint64_t n_times;
	uint64_t iters_done;            /* -D: messages counted in the window */
	uint64_t t_begin, t_end;        /* -D: the sampling window (ns) */
	uint64_t posted;                /* -D: messages posted per QP */
	char msg[320];                  /* why the session failed */
};

/* UD: the GRH area ahead of every received message (perftest's
 * UD_ADDITION, SIZE()); 0 for RC and UC. */
static inline uint32_t perf_grh(const struct perf_run *r)
{
	return r->o->conn == ROCE_QPT_UD ? ROCE_GRH_LEN : 0;
}

/* -D: perftest's SIGALRM states (catch_alarm) as deadlines. */
enum dur_state { DUR_START, DUR_SAMPLE, DUR_STOP, DUR_END };

struct dur {
	uint64_t t0, begin, stop, end;
	enum dur_state st;
};

static inline void dur_init(struct dur *d, const struct perf_opts *o, uint64_t now)
{
	d->t0 = now;
	d->begin = now + (uint64_t)o->margin * 1000000000ull;
	d->stop = now + (uint64_t)(o->duration - o->margin) * 1000000000ull;
	d->end = now + (uint64_t)o->duration * 1000000000ull;
	d->st = DUR_START;
}

static inline enum dur_state dur_step(struct dur *d, struct perf_run *r, uint64_t now)
{
	if (d->st == DUR_START && now >= d->begin) {
		d->st = DUR_SAMPLE;
		r->t_begin = now;
	}
	if (d->st == DUR_SAMPLE && now >= d->stop) {
		d->st = DUR_STOP;
		r->t_end = now;
	}
	if (d->st == DUR_STOP && now >= d->end)
		d->st = DUR_END;
	return d->st;
}

/* Set r->msg; returns st (never ROCE_OK: a failure without a status is
 * ROCE_E_IO). */
int perf_fail(struct perf_run *r, int st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* INC(): a message's slot, at least a cache line. */
uint64_t perf_slot(const struct perf_run *r);
/* Slots a QP's region cycles through (1 when a message is more than half
 * the cycle buffer, as perftest stops cycling then). */
uint64_t perf_slots(const struct perf_run *r);
uint8_t *perf_local(struct perf_run *r, unsigned qp);   /* QP's send region */
uint8_t *perf_remote_region(struct perf_run *r, unsigned qp); /* the region it
							  * advertises */
uint8_t *perf_recv_region(struct perf_run *r, unsigned qp);  /* its receives' */

/* perf_bw.c: one size. The client side of write/read/atomic/send, the
 * server side of send. ROCE_OK or a failure in r->msg. */
int perf_bw_client(struct perf_run *r, struct perf_bw_result *res);
/* The run's result (print_report_bw): from the -D window, else from the
 * post and completion times of total messages (start: the first post). */
void perf_bw_result_of(struct perf_run *r, uint64_t total, uint64_t start,
		       struct perf_bw_result *res);
int perf_bw_server(struct perf_run *r, struct perf_bw_result *res);
/* -b on send_bw (run_iter_bi): both sides post receives and send; the
 * server starts sending at the client's first message. perf_bi.c. */
int perf_bw_bi(struct perf_run *r, struct perf_bw_result *res);
/* The pieces of the bandwidth loops that perf_bi.c shares: post what the
 * tx_depth window allows on every QP (all iterations, or open-ended with
 * -D); a failed completion as the session's failure; a receive's --check;
 * true (and the failure set) after timeout_s without a completion. */
int perf_post_window(struct perf_run *r, uint64_t *scnt, const uint64_t *ccnt,
		     uint64_t *tot_s, bool open_ended);
int perf_wc_error(struct perf_run *r, const struct roce_wc *wc, const char *side,
		  uint64_t a, uint64_t b);
int perf_check_recv(struct perf_run *r, const struct roce_wc *wc);
bool perf_stalled(struct perf_run *r, uint64_t *last, uint64_t now,
		  uint64_t posted, uint64_t done);
/* count receives on QP q, the next at index posted[q] (slot by slot in
 * bandwidth tests, all at the region's start in latency tests). */
int perf_post_recvs(struct perf_run *r, uint64_t *posted, uint64_t count, unsigned q);
/* --check after the run of a write_bw/atomic_bw client, on the server. */
int perf_check_region(struct perf_run *r, uint64_t total_iters);

/* perf_lat.c: one size, both sides of write_lat and send_lat, the client
 * of read_lat. */
int perf_lat_run(struct perf_run *r, struct perf_lat_result *res, double *tps);

/* perf_flow.c */
int perf_session(struct perf_run *r);

#endif
