/* SPDX-License-Identifier: MIT */
/* IDs and addresses (rdma_cm_id.c): what the connecting files and the
   CM's opening take from them; the CM's lock held (but rcm_rnd, before
   the CM runs, and rcm_resolve_mac, which cm_qp1 calls under it). */
#ifndef ROCE_CM_RDMA_CM_ID_H
#define ROCE_CM_RDMA_CM_ID_H

#include "cm/rdma_cm_priv.h"

uint32_t rcm_rnd(struct roce_cm *cm);
uint16_t rcm_sa_port(const struct sockaddr_storage *ss);
/* 127.0.0.0/8 or ::1 */
bool rcm_sa_loopback(const struct sockaddr_storage *ss);
void rcm_gid_sa(const uint8_t gid[16], uint16_t port, struct sockaddr_storage *ss);
/* cm_qp1's resolver (arg: the roce_cm) */
int rcm_resolve_mac(void *arg, const uint8_t gid[16], uint8_t mac[6]);
/* rdma_cm's header (an ephemeral source port if none), then the user's
   private data, into priv; sgid: our GID it names */
void rcm_hdr(struct roce_cm_id *id, const struct roce_conn_param *param, uint8_t *priv,
	     uint8_t sgid[16]);

#endif
