/* SPDX-License-Identifier: MIT */
/* Register accesses the device tests expect to succeed (include after
 * cmocka.h). */
#ifndef ROCE_TEST_DEVICE_IO_H
#define ROCE_TEST_DEVICE_IO_H

#include <stdint.h>

#include "roce/device.h"
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

#endif
