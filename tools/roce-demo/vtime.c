/* SPDX-License-Identifier: MIT */
/*
 * --virtual-time: the seed's flow on one clock the tool moves, with no
 * thread and no read of the wall clock on the way (the unit tests'
 * virtual clock, given to everything that keeps time: both engines'
 * timers, both devices' link-ready models, the link's delay and reorder
 * hold). Both engines poll once per kick, from this thread, in a fixed
 * order; each kick then moves the clock by the time the busier NIC's
 * frames of that kick take on a 100 Gbit/s wire, and by a poll period when
 * neither sent anything. The same options then give the same run, frame
 * for frame, and the same trace; the bandwidth figures are those of
 * engines that never wait on a CPU, on that wire, in virtual time.
 */
#include "roce-demo/demo.h"
#include "roce/device.h"

#define VT_WIRE_GBPS  100u      /* the wire the clock models */
#define VT_POLL_NS    100u      /* a kick that sent nothing */
/* The NICs' DDR in a virtual-time run: fixed, 2 MiB aligned, far from
 * where the loader, the heap and the sanitizers' shadows map */
#define VT_DDR_BASE   0x3f0000000000ull
#define VT_DDR_STRIDE 0x001000000000ull

struct demo_clock demo_clock;

uint64_t demo_clock_read(void *ctx)
{
	(void)ctx;
	return demo_clock.ns;
}

/* Bytes n's engine sent since the last tick (its TX_BYTES counter, read
 * in the device, not through the register file: no trace record). */
static uint64_t sent(struct nic *n)
{
	uint64_t now = roce_cnt_read(roce_device_counters(roce_context_device(n->ctx)),
				     ROCE_CNT_TX_BYTES);
	uint64_t d = now - n->vt_tx_bytes;

	n->vt_tx_bytes = now;
	return d;
}

void demo_clock_tick(struct demo *d)
{
	uint64_t a = sent(&d->a), b = sent(&d->b), bytes = a > b ? a : b;
	uint64_t ns = (bytes * 8 + VT_WIRE_GBPS - 1) / VT_WIRE_GBPS;

	demo_clock.ns += ns > VT_POLL_NS ? ns : VT_POLL_NS;
}

void *demo_ddr_at(const struct demo *d, const struct nic *n)
{
	if (!d->o.virtual_time)
		return NULL;
	return (void *)(uintptr_t)(VT_DDR_BASE + (n == &d->b ? VT_DDR_STRIDE : 0));
}
