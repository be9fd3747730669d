/* SPDX-License-Identifier: MIT */
/*
 * A link port: where an engine's frames leave and arrive. The in-memory
 * link (roce/memlink.h) and the raw-Ethernet links implement it; the engine
 * only sees these operations, in bursts (one call moves many frames).
 *
 * TX copies: tx_burst() takes the frames out of the caller's buffers before
 * it returns, as a NIC's DMA does, so the engine reuses its staging buffers
 * at once. RX lends: rx_burst() returns views of received frames in the
 * port's own ring; they stay valid until rx_release() gives them back, in
 * order, so the engine parses in place without a copy.
 */
#ifndef ROCE_LINK_H
#define ROCE_LINK_H

#include <stdint.h>

struct roce_frame {
	uint8_t *data;
	uint32_t len;
};

struct roce_port_ops {
	/* Send frames[0..n); returns how many the link took (the rest found
	 * no room and are the caller's to count or retry). */
	unsigned (*tx_burst)(void *ctx, const struct roce_frame *frames, unsigned n);
	/* Lend up to max received frames; returns how many. */
	unsigned (*rx_burst)(void *ctx, struct roce_frame *frames, unsigned max);
	/* Give back the n oldest frames lent by rx_burst. */
	void (*rx_release)(void *ctx, unsigned n);
};

struct roce_port {
	const struct roce_port_ops *ops;
	void *ctx;
	uint8_t mac[6];         /* the port's station address */
};

static inline unsigned roce_port_tx(struct roce_port *p,
				    const struct roce_frame *f, unsigned n)
{
	return p->ops->tx_burst(p->ctx, f, n);
}

static inline unsigned roce_port_rx(struct roce_port *p, struct roce_frame *f,
				    unsigned max)
{
	return p->ops->rx_burst(p->ctx, f, max);
}

static inline void roce_port_rx_release(struct roce_port *p, unsigned n)
{
	p->ops->rx_release(p->ctx, n);
}

#endif
