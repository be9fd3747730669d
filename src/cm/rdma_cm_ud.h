/* SPDX-License-Identifier: MIT */
/* UDP IDs (rdma_cm_ud.c): what the connection calls and the CM's events
   hand over for an ID of RDMA_PS_UDP; the CM's lock held. */
#ifndef ROCE_CM_RDMA_CM_UD_H
#define ROCE_CM_RDMA_CM_UD_H

#include "cm/rdma_cm_priv.h"

int rcm_ud_connect(struct roce_cm_id *id, const struct roce_conn_param *param);
int rcm_ud_accept(struct roce_cm_id *id, const struct roce_conn_param *param);
int rcm_ud_reject(struct roce_cm_id *id, const void *private_data, uint8_t len);
/* CM_EV_SIDR_REQUEST or CM_EV_SIDR_REPLY */
void rcm_ud_event(struct roce_cm *cm, const struct cm_event *ev);

#endif
