/* SPDX-License-Identifier: MIT */
/* Helpers shared by the in-memory link suites. */
#ifndef ROCE_TEST_MEMLINK_TEST_H
#define ROCE_TEST_MEMLINK_TEST_H

#include <stdint.h>
#include <string.h>

#include "roce/link.h"
#include "roce/memlink.h"

#define ETHERTYPE_TEST 0x88B5   /* IEEE local experimental */

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0A };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0B };
static const uint8_t mac_c[6] = { 0x02, 0, 0, 0, 0, 0x0C };
static const uint8_t mac_bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

/* An injected clock the test moves by hand. */
struct fake_clock {
	uint64_t now;
};

static inline uint64_t fake_now(void *ctx)
{
	return __atomic_load_n(&((struct fake_clock *)ctx)->now, __ATOMIC_RELAXED);
}

static inline void fake_set(struct fake_clock *c, uint64_t ns)
{
	__atomic_store_n(&c->now, ns, __ATOMIC_RELAXED);
}

/* A test frame: Ethernet header, 32-bit sequence number, then bytes that
 * depend on every bit of the sequence number and on the offset, so a flip
 * in the sequence number shows as a frame that matches no sequence. */
static inline uint32_t mk_frame(uint8_t *buf, const uint8_t *dst,
				const uint8_t *src, uint32_t seq, uint32_t len)
{
	uint32_t h = seq;

	h ^= h >> 16;
	h *= 0x7FEB352Du;
	h ^= h >> 15;
	h *= 0x846CA68Bu;
	h ^= h >> 16;
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	buf[12] = ETHERTYPE_TEST >> 8;
	buf[13] = ETHERTYPE_TEST & 0xFF;
	buf[14] = (uint8_t)(seq >> 24);
	buf[15] = (uint8_t)(seq >> 16);
	buf[16] = (uint8_t)(seq >> 8);
	buf[17] = (uint8_t)seq;
	for (uint32_t i = 18; i < len; i++)
		buf[i] = (uint8_t)((h >> (8 * (i % 4))) + i);
	return len;
}

static inline uint32_t frame_seq(const uint8_t *f)
{
	return (uint32_t)f[14] << 24 | (uint32_t)f[15] << 16 |
	       (uint32_t)f[16] << 8 | f[17];
}

/* Send one frame through p; the link always takes it. */
static inline unsigned send1(struct roce_port *p, uint8_t *buf, uint32_t len)
{
	struct roce_frame f = { buf, len };

	return roce_port_tx(p, &f, 1);
}

/* Receive everything now visible on p (at most max) into seqs[], then give
 * the frames back. Returns how many. */
static inline unsigned drain(struct roce_port *p, uint32_t *seqs, unsigned max)
{
	struct roce_frame f[32];
	unsigned total = 0, n;

	while (total < max &&
	       (n = roce_port_rx(p, f, max - total < 32 ? max - total : 32)) > 0) {
		for (unsigned i = 0; i < n; i++)
			seqs[total + i] = frame_seq(f[i].data);
		total += n;
		roce_port_rx_release(p, n);
	}
	return total;
}

/* Count how many bits differ between two buffers; *first gets the index
 * of the first differing bit. */
static inline unsigned bit_diff(const uint8_t *a, const uint8_t *b,
				uint32_t len, uint32_t *first)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < len; i++) {
		uint8_t x = a[i] ^ b[i];

		for (unsigned j = 0; j < 8; j++) {
			if (x & (1u << j)) {
				if (!n)
					*first = i * 8 + j;
				n++;
			}
		}
	}
	return n;
}

#endif
