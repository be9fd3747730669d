/* SPDX-License-Identifier: MIT */
/*
 * What the drop-in librdmacm.so.1 (src/rdmacm) calls in the drop-in
 * libibverbs.so.1 besides the verbs: the engine's CM (roce/cm.h) opened
 * on the process's one context, so that the CM and the QPs it connects
 * are those of the one engine. Exported from libibverbs.so.1 under its
 * own version node, ROCE_RDMACM_PRIVATE (libibverbs.map), as rdma-core's
 * librdmacm reaches its libibverbs through IBVERBS_PRIVATE.
 */
#ifndef ROCE_IBVERBS_RV_CM_H
#define ROCE_IBVERBS_RV_CM_H

#include <infiniband/verbs.h>

#include "roce/cm.h"

/* The CM of the context (an ibv_open_device of this library): its QP1 on
 * a PD of its own, addresses resolved on the context's interface (ARP,
 * neighbour discovery). 0, or an errno. One at a time per process. */
int rv_cm_open(struct ibv_context *context, struct roce_cm **out);
/* 0, or EBUSY while IDs or channels of it remain (roce_cm_close) */
int rv_cm_close(struct roce_cm *cm);

#endif
