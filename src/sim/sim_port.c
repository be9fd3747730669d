/* SPDX-License-Identifier: MIT */
/*
 * The simulated NIC's port (roce/link.h): the engine's transmitted frames
 * wait in s->tx until the simulator pulls them, and the frames it pushes
 * wait in s->rx until the engine's next poll lends them, as the in-memory
 * link's rings do (src/link/memlink_ring.c), but with one end in the
 * caller's hands. A full FIFO drops, as a MAC's would.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_priv.h"
#include "roce/status.h"

int sim_fifo_put(struct sim_fifo *f, const uint8_t *frame, uint32_t len)
{
	uint32_t i = f->tail % SIM_FIFO_FRAMES;

	if (f->tail - f->head >= SIM_FIFO_FRAMES || len > ROCE_MAX_FRAME)
		return -1;
	memcpy(f->slot[i].data, frame, len);
	f->len[i] = len;
	f->tail++;
	return 0;
}

static unsigned port_tx_burst(void *ctx, const struct roce_frame *frames, unsigned n)
{
	struct roce_sim *s = ctx;
	unsigned i;

	for (i = 0; i < n; i++)
		if (sim_fifo_put(&s->tx, frames[i].data, frames[i].len) != 0)
			break;
	return i;
}

/* Lend the frames in order; rx_release gives back the oldest. */
static unsigned port_rx_burst(void *ctx, struct roce_frame *frames, unsigned max)
{
	struct roce_sim *s = ctx;
	unsigned n = 0;

	for (uint32_t p = s->rx.head; p != s->rx.tail && n < max; p++, n++) {
		frames[n].data = s->rx.slot[p % SIM_FIFO_FRAMES].data;
		frames[n].len = s->rx.len[p % SIM_FIFO_FRAMES];
	}
	return n;
}

static void port_rx_release(void *ctx, unsigned n)
{
	struct roce_sim *s = ctx;

	s->rx.head += n;
}

static const struct roce_port_ops sim_port_ops = {
	.tx_burst = port_tx_burst,
	.rx_burst = port_rx_burst,
	.rx_release = port_rx_release,
};

int sim_port_init(struct roce_sim *s)
{
	s->rx.slot = calloc(SIM_FIFO_FRAMES, sizeof(*s->rx.slot));
	s->tx.slot = calloc(SIM_FIFO_FRAMES, sizeof(*s->tx.slot));
	if (!s->rx.slot || !s->tx.slot)
		return ROCE_E_NOMEM;
	s->port.ops = &sim_port_ops;
	s->port.ctx = s;
	return ROCE_OK;
}

void sim_port_fini(struct roce_sim *s)
{
	free(s->rx.slot);
	free(s->tx.slot);
}
