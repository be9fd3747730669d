/* SPDX-License-Identifier: MIT */
/*
 * The transaction trace of a verbs context (roce_context_attr.trace,
 * docs/trace.md): the device's boundary as the sim ABI records it, here
 * taps on the three ways in and out of the device. The driver's bus (each
 * register access and its response), the engine's port (each frame in
 * and out; a frame built in the link's buffer is recorded before it is
 * handed over) and the engine's DDR accesses (dma.c's observer); the
 * completions are recorded by roce_poll_cq. The host's work requests are
 * not: they live in host memory, not at the device's boundary.
 */
#include <stdlib.h>
#include <string.h>

#include "common/trace.h"
#include "engine/mover.h"
#include "verbs/verbs_priv.h"
#include "roce/regs.h"
#include "roce/status.h"

struct vtrace {
	struct trace_writer *w;
	uint32_t nic;
	uint64_t (*now_ns)(void *);     /* NULL: real time since the open */
	void *clock_ctx;
	struct roce_bus bus;            /* the driver's own (local) bus */
	struct roce_port *port;         /* the engine's port behind the tap */
	struct roce_port tap;
	uint8_t *zc;                    /* tx_get's buffer and length */
	uint32_t zc_len;
};

static void emit(struct vtrace *v, struct trace_rec *r)
{
	r->t = v->now_ns ? v->now_ns(v->clock_ctx) : trace_writer_real_ns(v->w);
	r->nic = v->nic;
	trace_write(v->w, r);
}

static int axi_resp(int st)
{
	return st == ROCE_OK ? 0 : st == ROCE_E_DECERR ? 3 : 2;     /* OKAY, DECERR, SLVERR */
}

static int bus_read(void *ctx, uint32_t off, uint32_t *val)
{
	struct vtrace *v = ctx;
	int st = roce_bus_read32(&v->bus, off, val);
	struct trace_rec r = { .kind = TR_REG_RD, .addr = off,
			       .data = st == ROCE_OK ? *val : 0, .resp = axi_resp(st) };

	emit(v, &r);
	return st;
}

static int bus_write(void *ctx, uint32_t off, uint32_t val)
{
	struct vtrace *v = ctx;
	struct trace_rec r;
	int st;

	/* a key command: its slot first (common/trace.h), never the key */
	if (trace_key_cmd(off, val, &r) &&
	    roce_bus_read32(&v->bus, ROCE_REG_STAGE_KEY_SLOT, &r.qpn) == ROCE_OK)
		emit(v, &r);
	st = roce_bus_write32(&v->bus, off, val);
	r = (struct trace_rec){ .kind = TR_REG_WR, .addr = off,
				.data = trace_reg_wr_data(off, val), .resp = axi_resp(st) };
	emit(v, &r);
	return st;
}

static int bus_close(void *ctx)
{
	struct vtrace *v = ctx;

	return roce_bus_close(&v->bus);
}

static const struct roce_bus_ops tap_bus_ops = {
	.name = "trace", .read32 = bus_read, .write32 = bus_write, .close = bus_close,
};

static void frame(struct vtrace *v, enum trace_kind k, const uint8_t *data, uint32_t len)
{
	struct trace_rec r = { .kind = k, .bytes = data, .len = len };

	emit(v, &r);
}

static unsigned tx_burst(void *ctx, const struct roce_frame *f, unsigned n)
{
	struct vtrace *v = ctx;
	unsigned took = roce_port_tx(v->port, f, n);

	for (unsigned i = 0; i < took; i++)
		frame(v, TR_FRAME_OUT, f[i].data, f[i].len);
	return took;
}

static unsigned rx_burst(void *ctx, struct roce_frame *f, unsigned max)
{
	struct vtrace *v = ctx;
	unsigned n = roce_port_rx(v->port, f, max);

	for (unsigned i = 0; i < n; i++)
		frame(v, TR_FRAME_IN, f[i].data, f[i].len);
	return n;
}

static void rx_release(void *ctx, unsigned n)
{
	roce_port_rx_release(((struct vtrace *)ctx)->port, n);
}

static uint8_t *tx_get(void *ctx, const uint8_t *dst, uint32_t len)
{
	struct vtrace *v = ctx;

	v->zc = roce_port_tx_get(v->port, dst, len);
	v->zc_len = len;
	return v->zc;
}

static void tx_put(void *ctx)
{
	struct vtrace *v = ctx;

	frame(v, TR_FRAME_OUT, v->zc, v->zc_len);
	roce_port_tx_put(v->port);
}

static void tx_kick(void *ctx)
{
	roce_port_tx_kick(((struct vtrace *)ctx)->port);
}

static void set_wake(void *ctx, struct roce_wake *w)
{
	roce_port_set_wake(((struct vtrace *)ctx)->port, w);
}

static bool can_sleep(void *ctx)
{
	return roce_port_can_sleep(((struct vtrace *)ctx)->port);
}

static const struct roce_port_ops tap_port_ops = {
	.tx_burst = tx_burst, .rx_burst = rx_burst, .rx_release = rx_release,
	.tx_get = tx_get, .tx_put = tx_put, .tx_kick = tx_kick,
	.set_wake = set_wake, .can_sleep = can_sleep,
};

static void on_dma(void *arg, bool write, uint64_t pa, const uint8_t *data, uint32_t len)
{
	bool host = pa & DMA_HOST;      /* engine.h: host memory, an IOVA */
	struct trace_rec r = { .kind = host ? (write ? TR_HDMA_WR : TR_HDMA_RD)
					    : (write ? TR_DMA_WR : TR_DMA_RD),
			       .addr = pa & ~DMA_HOST, .bytes = data, .len = len };

	emit(arg, &r);
}

int vtrace_open(struct roce_context *ctx, const struct roce_context_attr *attr)
{
	struct vtrace *v;

	if (!attr->trace)
		return ROCE_OK;
	v = calloc(1, sizeof(*v));
	if (!v)
		return ROCE_E_NOMEM;
	v->w = attr->trace;
	v->nic = attr->trace_nic;
	v->now_ns = attr->now_ns;
	v->clock_ctx = attr->clock_ctx;
	v->port = attr->port;
	v->tap = (struct roce_port){ .ops = &tap_port_ops, .ctx = v };
	memcpy(v->tap.mac, attr->port->mac, 6);
	/* the driver's bus goes through the tap from the power-on on */
	v->bus = ctx->bus;
	ctx->bus = (struct roce_bus){ .ops = &tap_bus_ops, .ctx = v };
	ctx->trace = v;
	return ROCE_OK;
}

struct roce_port *vtrace_port(struct roce_context *ctx, struct roce_port *port)
{
	return ctx->trace ? &ctx->trace->tap : port;
}

void vtrace_engine(struct roce_context *ctx)
{
	if (ctx->trace)
		engine_set_dma_observer(&ctx->eng, on_dma, ctx->trace);
}

void vtrace_cqes(struct vtrace *v, const struct roce_wc *wc, int n)
{
	for (int i = 0; i < n; i++) {
		struct trace_rec r = { .kind = TR_CQE, .qpn = wc[i].qp_num,
				       .wr_id = wc[i].wr_id, .resp = (int32_t)wc[i].status,
				       .op = (uint32_t)wc[i].opcode, .len = wc[i].byte_len };

		emit(v, &r);
	}
}

void vtrace_close(struct roce_context *ctx)
{
	free(ctx->trace);
	ctx->trace = NULL;
}
