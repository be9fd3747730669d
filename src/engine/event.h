/* SPDX-License-Identifier: MIT */
/*
 * What the engine tells the host without being asked: completion events
 * (a completion landed in a CQ that the host armed) and asynchronous
 * events (a QP entered the error state, an SRQ fell below its limit, the
 * link went down or came up, a CQ overran). On a board these are the
 * interrupt lines and the event queue the driver's handler reads; here an
 * eventfd stands for the interrupt, so a host thread can sleep in poll(),
 * epoll or read() until the engine has something for it.
 *
 * Both sides are allocation-free on the engine's side: a completion event
 * links its CQ into the channel's list of CQs with events (the links live
 * in the CQ), an asynchronous event takes a slot of a fixed ring.
 */
#ifndef ROCE_ENGINE_EVENT_H
#define ROCE_ENGINE_EVENT_H

#include "engine/state.h"

int event_init(struct roce_engine *e);
void event_fini(struct roce_engine *e);

/* Raise cq's completion event (the caller cleared its arm). */
void event_cq(struct eng_cq *cq);
/* Queue an asynchronous event for obj (engine side). */
void event_async(struct roce_engine *e, enum roce_event_type type, void *obj);
/* Once a poll: the device's link-ready model, PORT_ACTIVE / PORT_ERR on a
 * change. */
void event_link(struct roce_engine *e);

#endif
