/* SPDX-License-Identifier: MIT */
/*
 * What the scale suites (test_engine_scale*.c) share: payloads that name
 * the QP and the message they belong to, so a byte that lands in another
 * QP's region, or a frame sent for another QP, gives itself away; and the
 * map from a QPN back to the fixture's QP index.
 */
#ifndef ROCE_TEST_SCALE_H
#define ROCE_TEST_SCALE_H

#include "pair.h"
#include "roce/packet.h"

/* The bytes at the start of a payload that name its QP and message */
#define SCALE_TAG_LEN 4u

/* Byte k of the payload of message msg of QP qp: the first 4 bytes are
 * the QP index and the message number, little-endian, the rest mixed from
 * both. */
static inline uint8_t scale_byte(uint32_t qp, uint32_t msg, uint32_t k)
{
	uint32_t x;

	switch (k) {
	case 0: return (uint8_t)qp;
	case 1: return (uint8_t)(qp >> 8);
	case 2: return (uint8_t)msg;
	case 3: return (uint8_t)(msg >> 8);
	}
	x = (qp + 1) * 2654435761u ^ (msg + 1) * 40503u ^ k * 0x9E3779B9u;
	return (uint8_t)(x >> 24 ^ x >> 11);
}

static inline void scale_fill(uint8_t *p, uint32_t len, uint32_t qp, uint32_t msg)
{
	for (uint32_t k = 0; k < len; k++)
		p[k] = scale_byte(qp, msg, k);
}

/* True when p[0..len) is what scale_fill wrote for (qp, msg). */
static inline bool scale_check(const uint8_t *p, uint32_t len, uint32_t qp, uint32_t msg)
{
	for (uint32_t k = 0; k < len; k++)
		if (p[k] != scale_byte(qp, msg, k))
			return false;
	return true;
}

/* True when all of p[0..len) is 0: nothing was written there. */
static inline bool scale_zero(const uint8_t *p, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++)
		if (p[k])
			return false;
	return true;
}

/* The QP index (into s->qps) of each QPN of side s; -1 for none. */
static inline int32_t *scale_qpn_index(const struct pair_side *s)
{
	int32_t *idx = malloc(ROCE_MAX_QP * sizeof(*idx));

	assert_non_null(idx);
	for (uint32_t q = 0; q < ROCE_MAX_QP; q++)
		idx[q] = -1;
	for (unsigned i = 0; i < s->nqp; i++) {
		uint32_t qpn = roce_qp_num(s->qps[i]);

		assert_true(qpn < ROCE_MAX_QP && idx[qpn] < 0);
		idx[qpn] = (int32_t)i;
	}
	return idx;
}

#endif
