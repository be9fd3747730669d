/* SPDX-License-Identifier: MIT */
/* The bottom of the rdma_cm-shaped API (rdma_cm_event.c): the queue of
   events on a channel and the ID records; the CM's lock held. */
#ifndef ROCE_CM_RDMA_CM_EVENT_H
#define ROCE_CM_RDMA_CM_EVENT_H

#include "cm/rdma_cm_priv.h"

/* An event for id (and listen_id, the listener of a CONNECT_REQUEST) on
   ch, with a copy of priv; a failed allocation loses it, as a lost MAD. */
void rcm_queue(struct roce_cm_event_channel *ch, struct roce_cm_id *id,
	       struct roce_cm_id *listen_id, enum roce_cm_event_type type, int status,
	       const uint8_t *priv, size_t len);
/* The events of id queued on ch and not yet returned, dropped: a
   destroyed ID's never reach the program, nor wake a thread waiting on
   the channel (the kernel's ucma drops them likewise at rdma_destroy_id,
   ucma_cleanup_events). */
void rcm_drop_events(struct roce_cm_event_channel *ch, struct roce_cm_id *id);
/* A new ID on ch, on the CM's list: NULL when out of memory. */
struct roce_cm_id *rcm_id_new(struct roce_cm_event_channel *ch, void *context);
void rcm_id_free(struct roce_cm_id *id);

#endif
