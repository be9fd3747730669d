/* SPDX-License-Identifier: MIT */
/*
 * The AF_XDP port's data path: frames lent in place out of the UMEM and
 * given back to the fill ring in order (as its room allows), frames copied into (or built in)
 * transmit frames of the UMEM and handed to the kernel one system call a
 * burst, ARP answered and learned, everything else that arrives dropped
 * before the engine sees it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "link/afxdp_priv.h"
#include "roce/params.h"
#include "roce/status.h"

/* ---- transmit --------------------------------------------------------------- */

bool afx_lose(struct roce_afxdp *afx)
{
	if (!afx->loss_thresh ||
	    (!afx->loss_all && netdev_prng_next(&afx->prng) >= afx->loss_thresh))
		return false;
	afx_count(&afx->st.tx_fault_drops, 1);
	return true;
}

/* Give the frames the kernel has sent back to the free list. */
static void reap(struct roce_afxdp *afx)
{
	uint32_t idx, n = xsk_ring_cons__peek(&afx->comp, afx->tx_n, &idx);

	for (uint32_t i = 0; i < n; i++)
		afx_fifo_push(&afx->free, *xsk_ring_cons__comp_addr(&afx->comp, idx + i));
	if (n)
		xsk_ring_cons__release(&afx->comp, n);
}

/* A free transmit frame (reaping first when none is left), and room for
 * it in the TX ring, which the kernel may not have published yet
 * (afxdp_priv.h): without it the frame stays free. */
static bool take(struct roce_afxdp *afx, uint64_t *addr)
{
	if (!afx_fifo_count(&afx->free))
		reap(afx);
	return afx_fifo_count(&afx->free) && xsk_prod_nb_free(&afx->tx, 1) >= 1 &&
	       afx_fifo_pop(&afx->free, addr);
}

/* take() found room in the TX ring for this frame: the reservation holds. */
static void submit(struct roce_afxdp *afx, uint64_t addr, uint32_t len)
{
	uint32_t idx = 0;
	struct xdp_desc *d;

	(void)xsk_ring_prod__reserve(&afx->tx, 1, &idx);
	d = xsk_ring_prod__tx_desc(&afx->tx, idx);
	d->addr = addr;
	d->len = len;
	d->options = 0;
	xsk_ring_prod__submit(&afx->tx, 1);
	afx->unkicked++;
	afx_count(&afx->st.tx_frames, 1);
	afx_count(&afx->st.tx_bytes, len);
}

/*
 * Copy mode sends at most ROCE_AFX_KICK_BATCH descriptors a call and says
 * EAGAIN when more are left; EBUSY/ENOBUFS mean the kernel is short of
 * room for now. What is left goes out at the next kick (rx_burst makes
 * one when the engine has nothing new to send).
 */
void afx_kick(struct roce_afxdp *afx)
{
	unsigned calls = afx->unkicked / ROCE_AFX_KICK_BATCH + 1;

	afx->unkicked = 0;
	afx->tx_pending = false;
	if (!xsk_ring_prod__needs_wakeup(&afx->tx))
		return;
	for (unsigned i = 0; i < calls; i++) {
		if (sendto(afx->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
			return;
		if (errno == EAGAIN)
			continue;
		if (errno != EBUSY && errno != ENOBUFS)
			afx_count(&afx->st.tx_errors, 1);
		break;
	}
	afx->tx_pending = true;
}

bool afx_tx_copy(struct roce_afxdp *afx, const uint8_t *data, uint32_t len)
{
	uint64_t addr;

	if (!take(afx, &addr))
		return false;
	memcpy(xsk_umem__get_data(afx->area, addr), data, len);
	submit(afx, addr, len);
	return true;
}

static unsigned afx_tx_burst(void *ctx, const struct roce_frame *f, unsigned n)
{
	struct roce_afxdp *afx = ctx;
	unsigned i;

	reap(afx);
	for (i = 0; i < n; i++) {
		if (f[i].len < ROCE_ETH_HLEN) {
			afx_count(&afx->st.tx_too_short, 1);
			continue;       /* taken: it could never go */
		}
		if (f[i].len > afx->max_tx) {
			afx_count(&afx->st.tx_too_big, 1);
			continue;
		}
		if (afx_lose(afx))
			continue;
		if (!afx_tx_copy(afx, f[i].data, f[i].len))
			break;          /* no free frame: the rest is not taken */
	}
	if (afx->unkicked)
		afx_kick(afx);
	return i;
}

static uint8_t *afx_tx_get(void *ctx, const uint8_t *dst_mac, uint32_t len)
{
	struct roce_afxdp *afx = ctx;

	(void)dst_mac;
	/* a frame that cannot go is tx_burst's to refuse and count */
	if (len < ROCE_ETH_HLEN || len > afx->max_tx || !take(afx, &afx->get_addr))
		return NULL;
	afx->get_len = len;
	return xsk_umem__get_data(afx->area, afx->get_addr);
}

static void afx_tx_put(void *ctx)
{
	struct roce_afxdp *afx = ctx;

	if (afx_lose(afx)) {
		/* built, never sent: the frame is free again */
		afx_fifo_push(&afx->free, afx->get_addr);
		return;
	}
	submit(afx, afx->get_addr, afx->get_len);
	afx_count(&afx->st.tx_zero_copy, 1);
}

static void afx_tx_kick(void *ctx)
{
	struct roce_afxdp *afx = ctx;

	if (afx->unkicked || afx->tx_pending)
		afx_kick(afx);
}

/* ---- receive ---------------------------------------------------------------- */

static void learn(struct roce_afxdp *afx, uint32_t ip, const uint8_t mac[6])
{
	unsigned i;

	for (i = 0; i < AFX_NEIGH; i++)
		if (afx->neigh[i].ip == ip)
			break;
	if (i == AFX_NEIGH) {
		i = afx->neigh_next;
		afx->neigh_next = (afx->neigh_next + 1) % AFX_NEIGH;
	}
	afx->neigh[i].ip = ip;
	memcpy(afx->neigh[i].mac, mac, 6);
}

static void arp_input(struct roce_afxdp *afx, const uint8_t *data, uint32_t len)
{
	struct roce_arp a;
	size_t rlen;

	afx_count(&afx->st.rx_arp, 1);
	if (roce_arp_parse(data, len, &a) != ROCE_OK)
		return;
	/* a reply to us (or a request naming its sender) tells us a
	 * neighbour's address: the kernel would have learned it too */
	if (afx->ip && a.tpa == afx->ip && a.spa && !(a.sha[0] & 1))
		learn(afx, a.spa, a.sha);
	if (!afx->answer_arp)
		return;
	rlen = roce_arp_answer(&a, afx->port.mac, afx->ip, afx->arp_buf);
	if (rlen && afx_tx_copy(afx, afx->arp_buf, (uint32_t)rlen)) {
		afx_kick(afx);
		afx_count(&afx->st.arp_replies, 1);
	}
}

/* Up to n frames from q into the fill ring, as many as it has room for
 * now (the kernel publishes its room late: afxdp_priv.h; a failed
 * reservation is never written past). Returns how many went. */
static uint32_t to_fill(struct roce_afxdp *afx, struct afx_fifo *q, uint32_t n)
{
	uint32_t room = xsk_prod_nb_free(&afx->fill, n), idx = 0;
	uint64_t addr = 0;

	if (n > room)
		n = room;
	if (!n || xsk_ring_prod__reserve(&afx->fill, n, &idx) != n)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		afx_fifo_pop(q, &addr);
		*xsk_ring_prod__fill_addr(&afx->fill, idx + i) = addr;
	}
	xsk_ring_prod__submit(&afx->fill, n);
	return n;
}

/* The frames waiting in back, oldest first. */
static void fill_back(struct roce_afxdp *afx)
{
	to_fill(afx, &afx->back, afx_fifo_count(&afx->back));
}

/* Frames looked at per rx_burst. */
#define RX_BATCH 64u

static unsigned afx_rx_burst(void *ctx, struct roce_frame *f, unsigned max)
{
	struct roce_afxdp *afx = ctx;
	uint32_t idx = 0, n, lent = 0;

	/* frames a kick left queued go out now, even when the engine has
	 * nothing new to send; frames the fill ring had no room for go back
	 * now (the kernel publishes its room late) */
	if (afx->tx_pending)
		afx_kick(afx);
	fill_back(afx);
	n = xsk_ring_cons__peek(&afx->rx, max < RX_BATCH ? max : RX_BATCH, &idx);
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&afx->fill))
			recvfrom(afx->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&afx->rx, idx + i);
		uint8_t *data = xsk_umem__get_data(afx->area, d->addr);
		enum roce_afx_class c = roce_afxdp_classify(data, d->len, afx->port.mac,
							    afx->udp_port);
		uint64_t frame = d->addr & ~(uint64_t)(ROCE_AFX_CHUNK - 1);

		if (c == ROCE_AFX_LEND) {
			f[lent].data = data;
			f[lent++].len = d->len;
			afx_fifo_push(&afx->lent, frame);
			afx_count(&afx->st.rx_bytes, d->len);
			continue;
		}
		if (c == ROCE_AFX_ARP)
			arp_input(afx, data, d->len);
		else
			afx_count(&afx->st.rx_dropped, 1);
		afx_fifo_push(&afx->back, frame);      /* consumed here */
	}
	xsk_ring_cons__release(&afx->rx, n);
	if (lent < n)
		fill_back(afx);
	afx_count(&afx->st.rx_frames, lent);
	return lent;
}

static void afx_rx_release(void *ctx, unsigned n)
{
	struct roce_afxdp *afx = ctx;
	uint32_t k = afx_fifo_count(&afx->lent);
	uint64_t addr = 0;

	if (n > k)
		n = k;
	if (!n)
		return;
	/* straight to the fill ring; what finds no room waits in back */
	fill_back(afx);
	n -= to_fill(afx, &afx->lent, n);
	while (n--) {
		afx_fifo_pop(&afx->lent, &addr);
		afx_fifo_push(&afx->back, addr);
	}
}

/* A sleeping engine thread polls the socket: the kernel wakes it when a
 * frame reaches the RX ring. */
static void afx_set_wake(void *ctx, struct roce_wake *w)
{
	struct roce_afxdp *afx = ctx;

	if (w)
		w->port_fd = afx->fd;
}

/* Not while frames a kick left queued wait for the next poll to go out. */
static bool afx_can_sleep(void *ctx)
{
	const struct roce_afxdp *afx = ctx;

	return !afx->tx_pending;
}

const struct roce_port_ops afx_port_ops = {
	.tx_burst = afx_tx_burst,
	.rx_burst = afx_rx_burst,
	.rx_release = afx_rx_release,
	.tx_get = afx_tx_get,
	.tx_put = afx_tx_put,
	.tx_kick = afx_tx_kick,
	.set_wake = afx_set_wake,
	.can_sleep = afx_can_sleep,
};
