/* SPDX-License-Identifier: MIT */
/*
 * Bus helpers and the local backend: an in-process model device, called
 * directly (the device serialises its own accesses).
 */
#include <stddef.h>

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

static const struct roce_bus_ops local_ops = {
	.name = "local",
	.read32 = local_read32,
	.write32 = local_write32,
	.close = local_close,
};

int roce_bus_open_local(struct roce_bus *bus, struct roce_device *dev)
{
	if (!bus || !dev)
		return ROCE_E_INVAL;
	bus->ops = &local_ops;
	bus->ctx = dev;
	return ROCE_OK;
}
