/* SPDX-License-Identifier: MIT */
/* Helpers shared by the driver's source files. */
#ifndef ROCE_DRIVER_DRV_PRIV_H
#define ROCE_DRIVER_DRV_PRIV_H

#include <stdint.h>

#include "roce/driver.h"

/* Register name from the register map, or "unmapped". */
const char *roce_drv_reg_name(uint32_t off);

/* Sets drv->err and returns st. */
int roce_drv_fail(struct roce_drv *drv, int st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* When st is an error, prefixes drv->err with a context; returns st. */
int roce_drv_context(struct roce_drv *drv, int st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void roce_drv_sleep_us(uint32_t us);

#endif
