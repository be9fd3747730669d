/* SPDX-License-Identifier: MIT */
/*
 * What the engine takes of the device's stage hardware (src/stage): the
 * key slots the STAGE block loads and each MR's stage state.
 */
#ifndef ROCE_REGS_DEVICE_STAGE_H
#define ROCE_REGS_DEVICE_STAGE_H

#include "roce/device.h"
#include "stage/stage.h"

struct stage_dev *roce_device_stage(struct roce_device *dev);

#endif
