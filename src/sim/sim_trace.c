/* SPDX-License-Identifier: MIT */
/*
 * The transaction trace of a simulated NIC (docs/trace.md): an observer on
 * sim_boundary() that writes each record, and on the engine's DDR accesses
 * (src/engine/dma.c's hook), which become dmawr/dmard records at the same
 * boundary. The first record is create's arguments, so that roce-replay
 * can build the same NIC.
 */
#include <errno.h>

#include "engine/mover.h"
#include "sim/sim_priv.h"
#include "roce/status.h"

static void write_rec(void *arg, const struct trace_rec *r)
{
	trace_write(arg, r);
}

static void on_dma(void *arg, bool write, uint64_t pa, const uint8_t *data, uint32_t len)
{
	bool host = pa & DMA_HOST;      /* engine.h: host memory, an IOVA */
	struct trace_rec r = { .kind = host ? (write ? TR_HDMA_WR : TR_HDMA_RD)
					    : (write ? TR_DMA_WR : TR_DMA_RD),
			       .addr = pa & ~DMA_HOST, .bytes = data, .len = len };

	sim_boundary(arg, &r);
}

void sim_observe(struct roce_sim *s, sim_observer fn, void *arg, uint32_t nic)
{
	struct trace_rec r = s->created;

	s->observer = fn;
	s->observer_arg = arg;
	s->nic = nic;
	engine_set_dma_observer(&s->eng, fn ? on_dma : NULL, s);
	sim_boundary(s, &r);
}

void sim_trace_fini(struct roce_sim *s)
{
	if (!s->trace)
		return;
	sim_observe(s, NULL, NULL, 0);
	trace_writer_close(s->trace);
	s->trace = NULL;
}

int roce_sim_trace_open(struct roce_sim *s, const char *path, unsigned int nic)
{
	struct trace_writer *w;

	if (!s || !path)
		return -1;
	sim_trace_fini(s);
	if (!*path)
		return 0;
	w = trace_writer_open(path);
	if (!w)
		return -1;
	s->trace = w;
	sim_observe(s, write_rec, w, nic);
	return 0;
}
