/* SPDX-License-Identifier: MIT */
/*
 * Bus helpers and the local backend: an in-process model device, called
 * directly (the device serialises its own accesses); the DDR debug port's
 * byte-range accesses over any bus's word operations.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "roce/bus.h"
#include "roce/device.h"

int roce_bus_close(struct roce_bus *bus)
{
	int st = ROCE_OK;

	if (bus && bus->ops && bus->ops->close)
		st = bus->ops->close(bus->ctx);
	if (bus) {
		bus->ops = NULL;
		bus->ctx = NULL;
	}
	return st;
}

const char *roce_bus_name(const struct roce_bus *bus)
{
	return (bus && bus->ops) ? bus->ops->name : "closed";
}

/* Whether [addr, addr + len) lies within the 2^32 words a port reaches;
   *w0 its first word. */
static int mem_span(const struct roce_bus *bus, uint64_t addr, size_t len,
		    bool write, uint32_t *w0)
{
	const struct roce_bus_ops *o = bus ? bus->ops : NULL;

	if (!o || !o->mem_read32 || (write && !o->mem_write32))
		return ROCE_E_UNSUPPORTED;
	if (addr > (4ull << 30) * 4 || len > (4ull << 30) * 4 - addr)
		return ROCE_E_RANGE;
	*w0 = (uint32_t)(addr / 4);
	return ROCE_OK;
}

int roce_bus_mem_read(struct roce_bus *bus, uint64_t addr, void *buf,
		      size_t len)
{
	uint8_t *out = buf;
	uint32_t w;
	int st = mem_span(bus, addr, len, false, &w);

	for (size_t done = 0; st == ROCE_OK && done < len; w++) {
		unsigned skip = done ? 0 : (unsigned)(addr & 3);
		size_t n = len - done < 4 - skip ? len - done : 4 - skip;
		uint8_t b[4];
		uint32_t v;

		if ((st = bus->ops->mem_read32(bus->ctx, w, &v)) != ROCE_OK)
			break;
		for (int i = 0; i < 4; i++)
			b[i] = (uint8_t)(v >> (8 * i));
		memcpy(out + done, b + skip, n);
		done += n;
	}
	return st;
}

int roce_bus_mem_write(struct roce_bus *bus, uint64_t addr, const void *buf,
		       size_t len)
{
	const uint8_t *in = buf;
	uint32_t w;
	int st = mem_span(bus, addr, len, true, &w);

	for (size_t done = 0; st == ROCE_OK && done < len; w++) {
		unsigned skip = done ? 0 : (unsigned)(addr & 3);
		size_t n = len - done < 4 - skip ? len - done : 4 - skip;
		uint32_t v = 0;

		/* A partial word keeps the bytes around it: read, merge. */
		if (n < 4 && (st = bus->ops->mem_read32(bus->ctx, w, &v)) != ROCE_OK)
			break;
		for (size_t i = 0; i < n; i++) {
			v &= ~(0xFFu << (8 * (skip + i)));
			v |= (uint32_t)in[done + i] << (8 * (skip + i));
		}
		st = bus->ops->mem_write32(bus->ctx, w, v);
		done += n;
	}
	return st;
}

static int local_read32(void *ctx, uint32_t off, uint32_t *val)
{
	return roce_device_read32(ctx, off, val);
}

static int local_write32(void *ctx, uint32_t off, uint32_t val)
{
	return roce_device_write32(ctx, off, val);
}

static int local_close(void *ctx)
{
	(void)ctx;	/* the device is borrowed */
	return ROCE_OK;
}

static int local_mem_read32(void *ctx, uint32_t word, uint32_t *val)
{
	return roce_device_mem_read32(ctx, (uint64_t)word * 4, val);
}

static int local_mem_write32(void *ctx, uint32_t word, uint32_t val)
{
	return roce_device_mem_write32(ctx, (uint64_t)word * 4, val);
}

static const struct roce_bus_ops local_ops = {
	.name = "local",
	.read32 = local_read32,
	.write32 = local_write32,
	.close = local_close,
	.mem_read32 = local_mem_read32,
	.mem_write32 = local_mem_write32,
};

int roce_bus_open_local(struct roce_bus *bus, struct roce_device *dev)
{
	if (!bus || !dev)
		return ROCE_E_INVAL;
	bus->ops = &local_ops;
	bus->ctx = dev;
	return ROCE_OK;
}
