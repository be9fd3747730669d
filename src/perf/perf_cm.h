/* SPDX-License-Identifier: MIT */
/*
 * roce-perf -R (perftest's rdma_cm mode, perf_cm.c): the exchange over a
 * QP the RDMA CM connected, and the test's QPs connected through the CM.
 */
#ifndef ROCE_PERF_CM_H
#define ROCE_PERF_CM_H

#include <stdint.h>

#include "perf/perf_run.h"

/* The CM on the endpoint and the exchange's connection (the client's REQ
 * on -p, or the server's listener and accept); r->oob runs over it from
 * then on. ROCE_OK or a failure in r->msg (REJ, no answer, timeout). */
int perf_cm_open(struct perf_run *r);
/* The test's QPs through the CM (the client connects, the server accepts
 * each request), with reads as responder resources and initiator depth;
 * they become r->ep.qp[]. */
int perf_cm_connect_qps(struct perf_run *r, uint8_t reads);
/* Disconnect, wait out timewait, take the CM down; before perf_ep_close.
 * Safe after any failure, and without perf_cm_open. */
void perf_cm_close(struct perf_run *r);

#endif
