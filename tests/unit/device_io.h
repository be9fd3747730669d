/* SPDX-License-Identifier: MIT */
/* Register accesses the device tests expect to succeed, and a device with
 * the host driver on a local bus (include after cmocka.h). */
#ifndef ROCE_TEST_DEVICE_IO_H
#define ROCE_TEST_DEVICE_IO_H

#include <stdint.h>
#include <string.h>

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "roce/status.h"

static inline uint32_t rd(struct roce_device *dev, uint32_t off)
{
	uint32_t v = 0xDEADBEEF;

	assert_int_equal(roce_device_read32(dev, off, &v), ROCE_OK);
	return v;
}

static inline void wr(struct roce_device *dev, uint32_t off, uint32_t v)
{
	assert_int_equal(roce_device_write32(dev, off, v), ROCE_OK);
}

/* A device of mem_size bytes of DDR and the driver on it, for a suite's
 * setup and teardown. */
struct dev_fix {
	struct roce_device *dev;
	struct roce_bus bus;
	struct roce_drv drv;
};

static inline int dev_fix_setup(void **state, uint64_t mem_size)
{
	struct roce_device_config dc = { .mem_size = mem_size };
	static struct dev_fix f;

	memset(&f, 0, sizeof(f));
	if (roce_device_create(&dc, &f.dev) != ROCE_OK)
		return -1;
	if (roce_bus_open_local(&f.bus, f.dev) != ROCE_OK)
		return -1;
	roce_drv_init(&f.drv, &f.bus);
	*state = &f;
	return 0;
}

static inline int dev_fix_teardown(void **state)
{
	struct dev_fix *f = *state;

	roce_bus_close(&f->bus);
	roce_device_destroy(f->dev);
	return 0;
}

#endif
