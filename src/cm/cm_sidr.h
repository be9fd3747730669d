/* SPDX-License-Identifier: MIT */
/* Service ID resolution (cm_sidr.c): the handlers cm_recv() hands SIDR
   MADs to. */
#ifndef ROCE_CM_SIDR_H
#define ROCE_CM_SIDR_H

#include "cm/cm_table.h"

void cm_recv_sidr_req(struct cm *cm, const struct cm_addr *from, const struct cm_msg *m);
void cm_recv_sidr_rep(struct cm *cm, const struct cm_msg *m);

#endif
