/* SPDX-License-Identifier: MIT */
/*
 * The AF_XDP port's rings against a kernel that publishes late. The
 * kernel tells what it took from the fill and TX rings only when its own
 * cache of entries runs dry, so a frame can be received (or its send
 * completed) while its fill (TX) entry still counts as occupied, and a
 * reservation fails with every frame accounted for. Here the kernel's
 * side of the four rings is this file's: it takes entries, publishes its
 * consumer only at the points a schedule says, and checks what a real
 * kernel cannot: that every fill entry it takes names a frame the port
 * no longer holds (else it would write into a frame the engine is still
 * reading), and that every TX descriptor it takes is the next frame the
 * port sent, once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "link/afxdp_priv.h"
#include "roce/params.h"
#include "roce/wire/ip.h"
#include "roce/wire/udp.h"

#define RXN 8u                  /* receive frames */
#define TXN 4u                  /* transmit frames */
#define HEAD ROCE_AFX_HEADROOM

static const uint8_t me[6] = { 2, 0, 0, 0, 0, 1 };

/* The kernel's side: its cached consumer of the fill (TX) ring, what it
 * has published, and which receive frames the port holds. */
struct kern {
	uint32_t fill_prod, fill_cons, rx_prod, rx_cons, tx_prod, tx_cons, comp_prod,
		comp_cons, flags;
	uint64_t fill_ring[2 * RXN], comp_ring[TXN];
	struct xdp_desc rx_ring[RXN], tx_ring[2 * TXN];
	uint32_t fill_k, tx_k;  /* taken, not yet published */
	bool held[RXN];         /* in the RX ring or lent to the engine */
	uint32_t tx_seq;        /* the next frame the port must have sent */
};

static void ring(void *r, uint32_t size, uint32_t *prod, uint32_t *cons, void *slots,
		 uint32_t *flags, bool producer)
{
	struct xsk_ring_prod *x = r;    /* the two ring types share a layout */

	memset(x, 0, sizeof(*x));
	x->mask = size - 1;
	x->size = size;
	x->producer = prod;
	x->consumer = cons;
	x->ring = slots;
	x->flags = flags;
	x->cached_cons = producer ? size : 0;   /* libxdp's convention */
}

/* A port of RXN receive and TXN transmit frames, its rings twice the
 * frames as afx_open_socket() makes them, every receive frame in the
 * fill ring. */
static struct roce_afxdp *port(struct kern *k)
{
	struct roce_afxdp *afx = calloc(1, sizeof(*afx));

	memset(k, 0, sizeof(*k));
	afx->rx_n = RXN;
	afx->tx_n = TXN;
	afx->fd = -1;
	afx->max_tx = ROCE_AFX_MAX_FRAME;
	afx->udp_port = ROCE_UDP_PORT;
	memcpy(afx->port.mac, me, 6);
	afx->area = calloc(RXN + TXN, ROCE_AFX_CHUNK);
	afx->lent = (struct afx_fifo){ .slot = calloc(RXN, 8), .mask = RXN - 1 };
	afx->back = (struct afx_fifo){ .slot = calloc(RXN, 8), .mask = RXN - 1 };
	afx->free = (struct afx_fifo){ .slot = calloc(TXN, 8), .mask = TXN - 1 };
	ring(&afx->fill, 2 * RXN, &k->fill_prod, &k->fill_cons, k->fill_ring, &k->flags, true);
	ring(&afx->rx, RXN, &k->rx_prod, &k->rx_cons, k->rx_ring, &k->flags, false);
	ring(&afx->tx, 2 * TXN, &k->tx_prod, &k->tx_cons, k->tx_ring, &k->flags, true);
	ring(&afx->comp, TXN, &k->comp_prod, &k->comp_cons, k->comp_ring, &k->flags, false);
	for (uint32_t i = 0; i < RXN; i++)
		k->fill_ring[i] = (uint64_t)i * ROCE_AFX_CHUNK;
	k->fill_prod = afx->fill.cached_prod = RXN;
	for (uint32_t i = 0; i < TXN; i++)
		afx_fifo_push(&afx->free, (uint64_t)(RXN + i) * ROCE_AFX_CHUNK);
	return afx;
}

static void port_free(struct roce_afxdp *afx)
{
	free(afx->lent.slot);
	free(afx->back.slot);
	free(afx->free.slot);
	free(afx->area);
	free(afx);
}

/* The kernel receives up to n frames into fill entries: every third one
 * not for us (the port drops it and gives it back at once). */
static uint32_t kern_rx(struct kern *k, struct roce_afxdp *afx, uint32_t n, uint32_t *seq)
{
	uint32_t got = 0;

	while (got < n && k->fill_k != k->fill_prod && k->rx_prod - k->rx_cons < RXN) {
		uint64_t addr = k->fill_ring[k->fill_k++ & (2 * RXN - 1)];
		uint32_t f = (uint32_t)(addr / ROCE_AFX_CHUNK);
		uint8_t *d = afx->area + addr + HEAD;

		assert_true(addr % ROCE_AFX_CHUNK == 0 && f < RXN);
		/* the port gave back a frame it still holds, or one twice */
		assert_false(k->held[f]);
		k->held[f] = true;
		memset(d, 0, 64);
		memcpy(d, (*seq % 3 == 2) ? (const uint8_t[6]){ 2, 0, 0, 0, 0, 9 } : me, 6);
		roce_put_be16(d + 12, ROCE_ETHERTYPE_IPV4);
		d[14] = 0x45;
		d[14 + 9] = 17;
		roce_put_be16(d + 14 + ROCE_IPV4_HLEN + 2, ROCE_UDP_PORT);
		k->rx_ring[k->rx_prod & (RXN - 1)] = (struct xdp_desc){ addr + HEAD, 64, 0 };
		k->rx_prod++;
		(*seq)++;
		got++;
	}
	return got;
}

/* The engine's turn: it gives back what it was lent last turn (it holds
 * frames while the kernel receives more), then takes what came; what the
 * port dropped it gave back itself. A frame is the kernel's again once
 * the port has it in its fill ring or its back queue. */
struct engine {
	uint32_t lent[64], n;
};

static void engine_rx(struct kern *k, struct roce_afxdp *afx, struct engine *g)
{
	struct roce_frame f[64];
	uint32_t from = afx->rx.cached_cons, n;

	if (g->n)
		afx_port_ops.rx_release(afx, g->n);
	for (uint32_t i = 0; i < g->n; i++)
		k->held[g->lent[i]] = false;
	n = afx_port_ops.rx_burst(afx, f, 64);
	for (uint32_t i = from; i != afx->rx.cached_cons; i++)
		k->held[(k->rx_ring[i & (RXN - 1)].addr - HEAD) / ROCE_AFX_CHUNK] = false;
	for (uint32_t i = 0; i < n; i++) {
		g->lent[i] = (uint32_t)((f[i].data - HEAD - afx->area) / ROCE_AFX_CHUNK);
		k->held[g->lent[i]] = true;
	}
	g->n = n;
}

static void test_fill_ring_room_published_late(void **state)
{
	struct kern k;
	struct roce_afxdp *afx = port(&k);
	struct engine g = { .n = 0 };
	uint32_t seq = 0, received = 0;

	(void)state;
	/* batches of 1..5 frames; the kernel publishes its fill consumer
	   every fourth round only, so the port's reservations fail at
	   positions all round the ring */
	for (uint32_t round = 0; round < 400; round++) {
		received += kern_rx(&k, afx, 1 + round % 5, &seq);
		if (round % 4 == 3)
			k.fill_cons = k.fill_k;
		engine_rx(&k, afx, &g);
	}
	assert_true(received > 200);
	/* once the kernel publishes, every frame is in the fill ring again,
	   each once */
	k.fill_cons = k.fill_k;
	engine_rx(&k, afx, &g);
	engine_rx(&k, afx, &g);
	assert_int_equal(afx_fifo_count(&afx->back), 0);
	assert_int_equal(k.fill_prod - k.fill_k, RXN);
	for (uint32_t f = 0; f < RXN; f++) {
		uint32_t seen = 0;

		for (uint32_t i = k.fill_k; i != k.fill_prod; i++)
			seen += k.fill_ring[i & (2 * RXN - 1)] == (uint64_t)f * ROCE_AFX_CHUNK;
		assert_int_equal(seen, 1);
		assert_false(k.held[f]);
	}
	port_free(afx);
}

/* The kernel sends what the TX ring holds, in order, and completes each
 * frame at once; it publishes its TX consumer only when told. */
static void kern_tx(struct kern *k, struct roce_afxdp *afx, bool publish)
{
	while (k->tx_k != k->tx_prod) {
		const struct xdp_desc *d = &k->tx_ring[k->tx_k++ & (2 * TXN - 1)];
		uint32_t got;

		assert_true(d->addr >= (uint64_t)RXN * ROCE_AFX_CHUNK && d->len == 64);
		memcpy(&got, afx->area + d->addr + 60, 4);
		/* a stale or repeated descriptor: not what the port sent next */
		assert_int_equal(got, k->tx_seq);
		k->tx_seq++;
		assert_true(k->comp_prod - k->comp_cons < TXN);
		k->comp_ring[k->comp_prod++ & (TXN - 1)] = d->addr;
	}
	if (publish)
		k->tx_cons = k->tx_k;
}

static void test_tx_ring_room_published_late(void **state)
{
	struct kern k;
	struct roce_afxdp *afx = port(&k);
	uint8_t data[3][64];
	struct roce_frame f[3];
	uint32_t next = 0, sent = 0;

	(void)state;
	for (uint32_t round = 0; round < 300; round++) {
		unsigned n;

		for (unsigned i = 0; i < 3; i++) {
			uint32_t s = next + i;

			memset(data[i], 0, 64);
			memcpy(data[i] + 60, &s, 4);
			f[i] = (struct roce_frame){ data[i], 64 };
		}
		/* what is not taken is offered again, first, next round */
		n = afx_port_ops.tx_burst(afx, f, 3);
		assert_true(n <= 3);
		next += n;
		sent += n;
		kern_tx(&k, afx, round % 5 == 4);
		/* zero-copy: a frame is handed out only with room for it */
		if (round % 7 == 0) {
			uint8_t *b = afx_port_ops.tx_get(afx, me, 64);

			if (b) {
				memset(b, 0, 64);
				memcpy(b + 60, &next, 4);
				afx_port_ops.tx_put(afx);
				next++;
				sent++;
			}
			kern_tx(&k, afx, false);
		}
	}
	/* a late TX consumer slows the port; it never loses or repeats */
	assert_int_equal(k.tx_seq, next);
	assert_true(sent > 300);
	port_free(afx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_ring_room_published_late),
		cmocka_unit_test(test_tx_ring_room_published_late),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
