/* SPDX-License-Identifier: MIT */
/* Interim device model: plain register storage, filled in by the regmap. */
#include <stdlib.h>

#include "roce/device.h"
#include "roce/counters.h"
#include "roce/params.h"
#include "roce/regs.h"
#include "roce/status.h"

struct roce_device {
	uint32_t regs[0x100 / 4];
	struct roce_counters cnt;
	uint8_t *mem;
	size_t mem_size;
};

int roce_device_create(const struct roce_device_config *cfg,
		       struct roce_device **out)
{
	struct roce_device *dev;

	if (!out)
		return ROCE_E_INVAL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return ROCE_E_NOMEM;
	dev->mem_size = cfg && cfg->mem_size ? cfg->mem_size : ROCE_DEV_MEM_SIZE_DEFAULT;
	dev->mem = calloc(1, dev->mem_size);
	if (!dev->mem) {
		free(dev);
		return ROCE_E_NOMEM;
	}
	dev->regs[ROCE_REG_UDP_PORT / 4] = ROCE_UDP_PORT;
	dev->regs[ROCE_REG_PEER_UDP_PORT / 4] = ROCE_UDP_PORT;
	dev->regs[ROCE_REG_DEV_ID / 4] = ROCE_DEV_ID_VALUE;
	dev->regs[ROCE_REG_VERSION / 4] = ROCE_VERSION_VALUE;
	*out = dev;
	return ROCE_OK;
}

void roce_device_destroy(struct roce_device *dev)
{
	if (!dev)
		return;
	free(dev->mem);
	free(dev);
}

int roce_device_read32(struct roce_device *dev, uint32_t off, uint32_t *val)
{
	*val = 0;
	if (off & 3 || off >= 0x100)
		return ROCE_E_DECERR;
	*val = dev->regs[off / 4];
	return ROCE_OK;
}

int roce_device_write32(struct roce_device *dev, uint32_t off, uint32_t val)
{
	if (off & 3 || off >= 0x100)
		return ROCE_E_DECERR;
	dev->regs[off / 4] = val;
	return ROCE_OK;
}

uint8_t *roce_device_mem(struct roce_device *dev, size_t *size)
{
	if (size)
		*size = dev->mem_size;
	return dev->mem;
}

struct roce_counters *roce_device_counters(struct roce_device *dev)
{
	return &dev->cnt;
}

struct roce_qp_table *roce_device_qp_table(struct roce_device *dev)
{
	(void)dev;
	return NULL;
}

struct roce_mr_table *roce_device_mr_table(struct roce_device *dev)
{
	(void)dev;
	return NULL;
}

bool roce_device_link_ready(struct roce_device *dev)
{
	(void)dev;
	return true;
}

bool roce_device_running(struct roce_device *dev)
{
	uint32_t ctrl = dev->regs[ROCE_REG_CTRL / 4];

	return !(ctrl & ROCE_CTRL_SOFT_RESET) && (ctrl & ROCE_CTRL_ENGINE_EN);
}

bool roce_device_rx_admit(struct roce_device *dev)
{
	return roce_device_running(dev);
}

uint32_t roce_device_link_bits(struct roce_device *dev)
{
	(void)dev;
	return 0xF;
}
