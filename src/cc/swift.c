/* SPDX-License-Identifier: MIT */
/*
 * Swift's arithmetic (swift.h): the paper's Algorithm 1 on one QP's
 * window, and section 3.5's target delay. Integers throughout, as a
 * NIC's pipeline would keep them (the flow-scaling curve through an
 * integer square root rather than a table: the same curve, exactly).
 */
#include "cc/knobs.h"
#include "cc/swift.h"

/* The knobs are in thousandths of a packet, the window in millionths. */
#define MILLI_TO_U 1000u

void swift_params_default(struct roce_swift_params *p)
{
#define X(n, N, def, lo, hi, unit, what) p->n = def;
	ROCE_SWIFT_KNOB_LIST(X)
#undef X
}

const char *swift_params_check(const struct roce_swift_params *p)
{
	unsigned n;
	const struct roce_cc_knob *k = roce_swift_knobs(&n);
	const char *bad = cc_knobs_check(k, n, p);

	if (bad)
		return bad;
	/* the flow-scaling curve runs from fs_min_cwnd to fs_max_cwnd */
	if (p->fs_min_cwnd >= p->fs_max_cwnd)
		return "fs_min_cwnd";
	if (p->min_cwnd > p->max_cwnd)
		return "min_cwnd";
	return NULL;
}

void swift_init(struct swift_qp *s, const struct roce_swift_params *p, uint64_t line_kbps,
		uint32_t mtu)
{
	uint64_t w = (uint64_t)p->init_cwnd * MILLI_TO_U;
	uint64_t lo = (uint64_t)p->min_cwnd * MILLI_TO_U, hi = (uint64_t)p->max_cwnd * MILLI_TO_U;

	*s = (struct swift_qp){
		.cwnd = w < lo ? lo : w > hi ? hi : w,
		.rtt0 = p->base_target,
		.line_kbps = line_kbps,
		.mtu = mtu,
	};
}

/* floor(sqrt(x)) */
static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* sqrt of a window of w millionths of a packet, in millionths */
static uint64_t root(uint64_t w)
{
	return isqrt(w * SWIFT_UPKT);
}

/*
 * Flow scaling (section 3.5): alpha / sqrt(cwnd) + beta, clamped to
 * [0, fs_range], with alpha = fs_range / (1/sqrt(fs_min_cwnd) -
 * 1/sqrt(fs_max_cwnd)) and beta = -alpha / sqrt(fs_max_cwnd): fs_range
 * at fs_min_cwnd, nothing at fs_max_cwnd. Over a common denominator:
 * fs_range * sqrt(min) * (sqrt(max) - sqrt(cwnd)) / (sqrt(cwnd) *
 * (sqrt(max) - sqrt(min))).
 */
static uint64_t flow_scaling(const struct roce_swift_params *p, uint64_t cwnd)
{
	uint64_t rmin = root((uint64_t)p->fs_min_cwnd * MILLI_TO_U);
	uint64_t rmax = root((uint64_t)p->fs_max_cwnd * MILLI_TO_U);
	uint64_t rc = root(cwnd);

	if (rc >= rmax)
		return 0;
	if (rc <= rmin)
		return p->fs_range;
	return (uint64_t)((unsigned __int128)p->fs_range * rmin * (rmax - rc) /
			  ((unsigned __int128)rc * (rmax - rmin)));
}

uint64_t swift_target(const struct roce_swift_params *p, uint64_t cwnd, unsigned hops)
{
	if (!hops)
		hops = p->hops;
	return p->base_target + (uint64_t)hops * p->h + flow_scaling(p, cwnd);
}

static void clamp(struct swift_qp *s, const struct roce_swift_params *p)
{
	uint64_t lo = (uint64_t)p->min_cwnd * MILLI_TO_U, hi = (uint64_t)p->max_cwnd * MILLI_TO_U;

	if (s->cwnd < lo)
		s->cwnd = lo;
	if (s->cwnd > hi)
		s->cwnd = hi;
}

/* Algorithm 1's tail: clamped, and a decrease starts the round trip in
   which no other may follow. The paper writes cwnd <= cwnd_prev; an
   unchanged window is not a decrease here, or every ACK a blocked
   decrease left unchanged would move the time on and block the next
   decrease for as long as the delay stays above the target. */
static void settle(struct swift_qp *s, const struct roce_swift_params *p, uint64_t prev,
		   uint64_t now)
{
	clamp(s, p);
	if (s->cwnd < prev) {
		s->t_last_decrease = now;
		s->cuts++;
	} else if (s->cwnd > prev) {
		s->increases++;
	}
}

/* At most one decrease per round trip (the last sample's). */
static bool can_decrease(const struct swift_qp *s, uint64_t now)
{
	return now - s->t_last_decrease >= s->rtt;
}

void swift_ack(struct swift_qp *s, const struct roce_swift_params *p, uint64_t now,
	       uint64_t delay, uint32_t acked, unsigned hops)
{
	uint64_t prev = s->cwnd, ai = (uint64_t)p->ai * MILLI_TO_U;

	s->retransmit_cnt = 0;
	if (!delay)
		return;         /* no sample (Karn): nothing to compare */
	s->rtt = delay;
	s->target = swift_target(p, s->cwnd, hops);
	if (delay < s->target) {
		/* additive increase: ai per round trip, ai / cwnd per packet
		   acknowledged; below one packet ai per packet */
		if (s->cwnd >= SWIFT_UPKT)
			s->cwnd += (uint64_t)((unsigned __int128)ai * acked * SWIFT_UPKT / s->cwnd);
		else
			s->cwnd += ai * acked;
	} else if (can_decrease(s, now)) {
		/* multiplicative decrease by max(1 - beta * (delay - target) /
		   delay, 1 - max_mdf), in millionths */
		uint64_t f = SWIFT_UPKT - (uint64_t)p->beta * MILLI_TO_U * (delay - s->target) / delay;
		uint64_t floor = SWIFT_UPKT - (uint64_t)p->max_mdf * MILLI_TO_U;

		s->cwnd = s->cwnd * (f > floor ? f : floor) / SWIFT_UPKT;
	}
	settle(s, p, prev, now);
}

void swift_timeout(struct swift_qp *s, const struct roce_swift_params *p, uint64_t now)
{
	uint64_t prev = s->cwnd;

	if (++s->retransmit_cnt >= p->retx_reset_threshold)
		s->cwnd = (uint64_t)p->min_cwnd * MILLI_TO_U;
	else if (can_decrease(s, now))
		s->cwnd = s->cwnd * (SWIFT_UPKT - (uint64_t)p->max_mdf * MILLI_TO_U) / SWIFT_UPKT;
	settle(s, p, prev, now);
}

bool swift_paced(const struct swift_qp *s)
{
	return s->cwnd < SWIFT_UPKT;
}

uint64_t swift_rate_kbps(const struct swift_qp *s)
{
	/* cwnd * mtu / rtt: (cwnd / 1e6) packets * mtu * 8 bits / (rtt /
	   1e9) s / 1e3 = cwnd * mtu * 8 / rtt kbit/s; before a sample, the
	   base target stands for the round trip */
	uint64_t rtt = s->rtt ? s->rtt : s->rtt0, r;

	if (!swift_paced(s))
		return s->line_kbps;
	r = s->cwnd * s->mtu * 8 / rtt;
	return r < 1 ? 1 : r > s->line_kbps ? s->line_kbps : r;
}

uint32_t swift_window(const struct swift_qp *s)
{
	uint64_t w = s->cwnd / SWIFT_UPKT;

	return w < 1 ? 1 : w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}
