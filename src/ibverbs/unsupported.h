/* SPDX-License-Identifier: MIT */
/* The one message of a verb this device does not offer (device.c). Apart
 * from rv.h so that stubs.c can define the verbs without rdma-core's
 * prototypes. */
#ifndef ROCE_IBVERBS_UNSUPPORTED_H
#define ROCE_IBVERBS_UNSUPPORTED_H

/* One line on stderr naming the verb; sets errno to err and returns it. */
int rv_unsupported(const char *verb, int err);

#endif
