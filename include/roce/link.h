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
 *
 * Zero-copy TX (optional): a port that can hand out its own buffer for the
 * next frame (the in-memory link: a slot of the receiver's ring) offers
 * tx_get/tx_put; the engine then builds the frame there, gathering the
 * payload straight out of the MR, and no copy follows. tx_get may always
 * say no (NULL): the caller then builds in its own buffer and uses
 * tx_burst. A frame taken with tx_get is sent by tx_put, before any other
 * call on the port; frames go out in the order they were handed over.
 * After the frames of a poll, the engine calls tx_kick (if the port has
 * one) once.
 *
 * Waking (optional): an engine thread with nothing to do may sleep until
 * a frame arrives. It hands its port a struct roce_wake (set_wake, once,
 * when the thread starts); the link then rings w->fd whenever it makes a
 * frame available to that port while w->asleep is set, after a full
 * fence between the frame's publication and the look at w->asleep (the
 * engine sets asleep, fences, and polls once more before it sleeps, so no
 * frame falls between). A port on a socket sets w->port_fd instead, and
 * the kernel wakes the thread's poll(). can_sleep says whether every
 * frame for the port will come that way now (not when a delay or a fault
 * holds frames back for later): if not, the engine naps instead.
 */
#ifndef ROCE_LINK_H
#define ROCE_LINK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

/* An engine thread's wake-up: asleep while it sleeps on fd (an eventfd),
 * and on port_fd too when the port set one (a socket that polls readable
 * when frames wait; -1 otherwise). */
struct roce_wake {
	_Atomic int asleep;
	int fd;
	int port_fd;
};

/* Wake w's thread if it sleeps. The caller has published its work and
 * issued a sequentially consistent fence since. */
static inline void roce_wake_if_asleep(struct roce_wake *w)
{
	if (atomic_load_explicit(&w->asleep, memory_order_relaxed)) {
		uint64_t one = 1;

		/* a full counter (EAGAIN) wakes as well as a written one */
		if (write(w->fd, &one, sizeof(one)) < 0)
			return;
	}
}

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
	/* Optional (may be NULL): a buffer for one len-byte frame toward
	 * dst_mac, or NULL when the port cannot lend one now. */
	uint8_t *(*tx_get)(void *ctx, const uint8_t *dst_mac, uint32_t len);
	/* Send the frame written into the buffer of the last tx_get. */
	void (*tx_put)(void *ctx);
	/* Optional: the frames put since the last call are all of this poll's
	 * transmission (a port that must tell its device, e.g. one system
	 * call to kick a ring, does it here, once per burst). */
	void (*tx_kick)(void *ctx);
	/* Optional: frames arriving for this port ring w (NULL: no longer). */
	void (*set_wake)(void *ctx, struct roce_wake *w);
	/* Optional (with set_wake): true when every frame for this port will
	 * ring the wake now; false while some may appear later on their own
	 * (a delay, a held frame), which polling must collect. */
	bool (*can_sleep)(void *ctx);
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

static inline uint8_t *roce_port_tx_get(struct roce_port *p, const uint8_t *dst_mac,
					uint32_t len)
{
	return p->ops->tx_get ? p->ops->tx_get(p->ctx, dst_mac, len) : NULL;
}

static inline void roce_port_tx_put(struct roce_port *p)
{
	p->ops->tx_put(p->ctx);
}

static inline void roce_port_set_wake(struct roce_port *p, struct roce_wake *w)
{
	if (p->ops->set_wake)
		p->ops->set_wake(p->ctx, w);
}

static inline bool roce_port_can_sleep(struct roce_port *p)
{
	return p->ops->set_wake && p->ops->can_sleep && p->ops->can_sleep(p->ctx);
}

static inline void roce_port_tx_kick(struct roce_port *p)
{
	if (p->ops->tx_kick)
		p->ops->tx_kick(p->ctx);
}

#endif
