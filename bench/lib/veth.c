/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/pair.h"
#include "lib/report.h"
#include "lib/traffic.h"
#include "lib/veth.h"
#include "roce/afpacket.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"

#define RAW_BURST ROCE_AFP_TX_BATCH

struct raw {
	struct roce_port *tx, *rx;
	struct roce_frame f[RAW_BURST];
	int cpu_rx;
	_Atomic int stop;
	_Atomic int rx_ready;
	uint64_t rx_frames, rx_ns;
};

static bool enter_ns(const char *name, char *why, size_t n)
{
	if (bench_enter_ns(name) == 0)
		return true;
	snprintf(why, n, errno == ENOENT ? "no network namespace '%s'"
					 : "cannot enter network namespace '%s'", name);
	return false;
}

static struct roce_afpacket *open_port(const char *ns, const char *ifname,
				       char *why, size_t n)
{
	struct roce_afpacket_config c = { 0 };
	struct roce_afpacket *afp = NULL;
	char err[256];

	if (!enter_ns(ns, why, n))
		return NULL;
	c.ifname = ifname;
	c.mode = ROCE_AFP_RING;
	if (roce_afpacket_open(&c, &afp, err, sizeof(err)) != ROCE_OK) {
		snprintf(why, n, "%s", err);
		return NULL;
	}
	return afp;
}

static void *raw_rx(void *arg)
{
	struct raw *r = arg;
	struct roce_frame f[ROCE_RX_BURST];
	uint64_t frames = 0, t0 = 0, last = 0;

	atomic_store(&r->rx_ready, 1);
	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		unsigned n = roce_port_rx(r->rx, f, ROCE_RX_BURST);

		if (!n)
			continue;
		last = bench_now_ns();
		if (!t0)
			t0 = last;
		else
			frames += n;    /* the first burst starts the clock */
		roce_port_rx_release(r->rx, n);
	}
	r->rx_ns = last - t0;
	r->rx_frames = frames;
	return NULL;
}

/* Frames/s received at B while A's port sends as fast as it can. */
static double raw_once(void *arg, double secs)
{
	struct raw *r = arg;
	uint64_t t0;
	pthread_t t;

	atomic_store(&r->stop, 0);
	atomic_store(&r->rx_ready, 0);
	bench_thread(&t, raw_rx, r, r->cpu_rx);
	while (!atomic_load(&r->rx_ready))
		;
	t0 = bench_now_ns();
	while (bench_now_ns() - t0 < secs * 1e9)
		roce_port_tx(r->tx, r->f, RAW_BURST);
	/* let the last frames arrive, then stop the receiver */
	bench_sleep_us(2000);
	atomic_store_explicit(&r->stop, 1, memory_order_release);
	pthread_join(t, NULL);
	return r->rx_ns ? (double)r->rx_frames / ((double)r->rx_ns * 1e-9) : 0;
}

/* The frames the raw measurements send: what the engine sends. */
enum raw_kind { RAW_ACK, RAW_WRITE64, RAW_MTU, RAW_KINDS };

static const struct {
	uint8_t op;
	const char *cond, *what;
} raw_kinds[RAW_KINDS] = {
	[RAW_ACK] = { ROCE_OP_RC_ACK, "ack", "ACK" },
	[RAW_WRITE64] = { ROCE_OP_RC_WRITE_ONLY, "write64", "64 B WRITE ONLY" },
	[RAW_MTU] = { ROCE_OP_RC_WRITE_MIDDLE, "mtu", "path-MTU WRITE MIDDLE" },
};

static uint8_t raw_buf[RAW_BURST][ROCE_MAX_FRAME];

/* Fill r's burst with frames of kind k; returns their length. */
static uint32_t raw_setup(struct raw *r, enum raw_kind k, uint32_t mtu)
{
	uint32_t payload = k == RAW_ACK ? 0 : k == RAW_WRITE64 ? 64 : mtu, len = 0;

	for (unsigned j = 0; j < RAW_BURST; j++) {
		len = bench_roce_frame(raw_buf[j], r->tx->mac, r->rx->mac, raw_kinds[k].op, payload);
		r->f[j] = (struct roce_frame){ raw_buf[j], len };
	}
	return len;
}

static void raw_rates(const struct bench_cfg *cfg, struct roce_afpacket *a,
		      struct roce_afpacket *b)
{
	const uint32_t mtu = roce_mtu_bytes(roce_afpacket_path_mtu(a));
	struct roce_afpacket_stats sa0, sb0, sa1, sb1;
	struct raw r;

	memset(&r, 0, sizeof(r));
	r.tx = roce_afpacket_port(a);
	r.rx = roce_afpacket_port(b);
	r.cpu_rx = cfg->cpu_b;
	for (int k = 0; k < RAW_KINDS; k++) {
		uint32_t len = raw_setup(&r, (enum raw_kind)k, mtu);
		struct bench_row *row;

		roce_afpacket_get_stats(a, &sa0);
		roce_afpacket_get_stats(b, &sb0);
		row = bench_row_add("veth", "raw frames");
		row->size = len;
		row->mtu = mtu;
		row->cores = 2;
		snprintf(row->cond, sizeof(row->cond), "%s", raw_kinds[k].cond);
		snprintf(row->unit, sizeof(row->unit), "Mframes/s");
		bench_pin(cfg->cpu_a);
		bench_measure(cfg->reps_key, cfg->secs_key, false, raw_once, &r, &row->st,
			      &row->load);
		bench_pin(-1);
		roce_afpacket_get_stats(a, &sa1);
		roce_afpacket_get_stats(b, &sb1);
		row->rate = row->st.best;
		row->st.best *= 1e-6;
		row->st.med *= 1e-6;
		row->st.min *= 1e-6;
		row->st.max *= 1e-6;
		snprintf(row->note, sizeof(row->note), "%s frames, %.2f Gbit/s; %.0f%% of "
			 "those sent arrived (kernel drops %llu)", raw_kinds[k].what,
			 row->rate * len * 8e-9, 100.0 * (double)(sb1.rx_frames - sb0.rx_frames) /
			 (double)(sa1.tx_frames - sa0.tx_frames + 1),
			 (unsigned long long)(sb1.rx_kernel_drops - sb0.rx_kernel_drops));
	}
}

/* The raw path's capacity as the engine's figure: Gbit/s of payload at
 * payload bytes a frame, or frames/s (payload 0). */
struct raw_cap {
	struct raw *r;
	uint32_t payload;
};

static double raw_cap_once(void *arg, double secs)
{
	struct raw_cap *c = arg;
	double fps = raw_once(c->r, secs);

	return c->payload ? fps * c->payload * 8e-9 : fps;
}

/* Engine and raw path side by side, repeat by repeat: WRITE 64 KB goodput
 * against the payload the raw path-MTU frame rate carries, and the 64 B
 * WRITE message rate against the raw rate of its frames. */
static void ratios(const struct bench_cfg *cfg, struct pair *p,
		   struct roce_afpacket *a, struct roce_afpacket *b)
{
	const uint32_t mtu = roce_mtu_bytes(roce_afpacket_path_mtu(a));
	struct raw r;

	memset(&r, 0, sizeof(r));
	r.tx = roce_afpacket_port(a);
	r.rx = roce_afpacket_port(b);
	r.cpu_rx = cfg->cpu_b;
	pair_b_thread(p, -1);
	bench_pin(cfg->cpu_a);
	for (int i = 0; i < 2; i++) {
		bool small = i == 1;
		struct traffic_fn e = { p, ROCE_WR_RDMA_WRITE, small ? 64 : 65536,
					3000 + (uint64_t)i, cfg->cpu_b, small };
		struct raw_cap c = { &r, small ? 0 : mtu };
		struct bench_row *row = bench_row_add("ratio", "veth engine / raw");
		struct bench_stat se, sr;

		raw_setup(&r, small ? RAW_WRITE64 : RAW_MTU, mtu);
		snprintf(row->op, sizeof(row->op), "WRITE");
		snprintf(row->unit, sizeof(row->unit), "x");
		row->size = e.size;
		row->mtu = mtu;
		row->qps = 1;
		row->cores = 2;
		bench_measure_pair(cfg->reps_key, cfg->secs_key, traffic_fn, &e,
				   raw_cap_once, &c, &se, &sr, &row->st, &row->load);
		if (small)
			snprintf(row->note, sizeof(row->note), "medians: engine %.3f M msg/s, "
				 "raw %.3f M frames/s", se.med * 1e-6, sr.med * 1e-6);
		else
			snprintf(row->note, sizeof(row->note), "medians: engine %.2f Gbit/s, "
				 "raw frames carry %.2f Gbit/s of payload", se.med, sr.med);
	}
	bench_pin(-1);
}

static void engines(const struct bench_cfg *cfg, struct roce_afpacket *a,
		    struct roce_afpacket *b)
{
	static const uint32_t sizes[] = { 65536, 64 };
	struct pair p;
	enum roce_mtu mtu = roce_afpacket_path_mtu(a);

	memset(&p, 0, sizeof(p));
	pair_open_ports(&p, roce_afpacket_port(a), roce_afpacket_port(b), mtu, 1);
	pair_b_thread(&p, cfg->cpu_b);
	bench_pin(cfg->cpu_a);
	for (size_t i = 0; i < 2; i++) {
		struct bench_row *row = bench_row_add("veth", "engine goodput");

		row->mtu = roce_mtu_bytes(mtu);
		row->qps = 1;
		row->cores = 2;
		traffic_row(&p, ROCE_WR_RDMA_WRITE, sizes[i], cfg->reps_key,
			    cfg->secs_key, 1000 + i, row);
	}
	bench_pin(-1);
	ratios(cfg, &p, a, b);
	pair_teardown(&p);
}

bool veth_run(const struct bench_cfg *cfg, const struct veth_where *w,
	      char *why, size_t whylen)
{
	struct roce_afpacket *a = NULL, *b = NULL;
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	bool ok = false;

	if (home < 0) {
		snprintf(why, whylen, "cannot open /proc/self/ns/net");
		return false;
	}
	a = open_port(w->ns_a, w->if_a, why, whylen);
	if (a)
		b = open_port(w->ns_b, w->if_b, why, whylen);
	/* sockets keep their namespace: the rest runs from ours */
	if (setns(home, CLONE_NEWNET) != 0)
		bench_die("cannot return to the original network namespace");
	close(home);
	if (a && b) {
		if (roce_afpacket_path_mtu(a) == 0) {
			snprintf(why, whylen, "%s: MTU %u too small for RoCE", w->if_a,
				 roce_afpacket_mtu(a));
		} else {
			raw_rates(cfg, a, b);
			engines(cfg, a, b);
			ok = true;
		}
	}
	roce_afpacket_close(a);
	roce_afpacket_close(b);
	return ok;
}
