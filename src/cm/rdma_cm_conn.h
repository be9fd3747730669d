/* SPDX-License-Identifier: MIT */
/* Connections (rdma_cm_conn.c): the CM's event callback, which
   roce_cm_open gives cm_qp1. */
#ifndef ROCE_CM_RDMA_CM_CONN_H
#define ROCE_CM_RDMA_CM_CONN_H

#include "cm/rdma_cm_priv.h"

/* The CM's event in the API's terms (arg: the roce_cm); the lock held. */
void rcm_cm_event(void *arg, const struct cm_event *ev);

#endif
