/* SPDX-License-Identifier: MIT */
/* The status socket (rdma_cm_status.c): the CM thread serves it; a CM
   without one, e.g. when the socket cannot be made, still works. */
#ifndef ROCE_CM_RDMA_CM_STATUS_H
#define ROCE_CM_RDMA_CM_STATUS_H

#include "cm/rdma_cm_priv.h"

int rcm_status_open(struct roce_cm *cm);
void rcm_status_serve(struct roce_cm *cm);
void rcm_status_close(struct roce_cm *cm);

#endif
