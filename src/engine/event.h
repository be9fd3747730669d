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

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "roce/verbs.h"        /* enum roce_event_type */

struct roce_engine;
struct eng_cq;

/* The arm of a CQ (ibv_req_notify_cq): the host sets bits, the engine
 * clears them all when it raises the event. NEXT outranks SOLICITED
 * (IBA 11.4.2.2: both requested means the next completion). */
enum {
	CQ_ARM_SOLICITED = 1u << 0,
	CQ_ARM_NEXT = 1u << 1,
};

/*
 * A completion channel: the CQs attached to it that have events not yet
 * taken, in the order they were raised, and the eventfd whose count is the
 * number of those events (EFD_SEMAPHORE: each read takes one), so the fd
 * is readable exactly while an event waits, as the kernel's event file.
 */
struct eng_channel {
	pthread_mutex_t lock;           /* the list and the CQs' ev_* fields */
	int fd;
	struct eng_cq *head, *tail;
	uint32_t ncq;                   /* CQs attached (control path) */
};

/* One asynchronous event: its type and the engine object it concerns
 * (struct eng_qp, eng_cq or eng_srq; NULL for a port event). */
struct eng_async_rec {
	uint8_t type;                   /* enum roce_event_type */
	bool dead;                      /* its object was destroyed: skipped */
	void *obj;
};

/*
 * The asynchronous event queue of an engine: a ring of ROCE_ASYNC_QUEUE
 * records and an eventfd counting them (EFD_SEMAPHORE). An event that
 * finds the ring full is dropped and counted in lost (the object's state
 * still says what happened: a QP in ERR, an SRQ's count); the host reads
 * lost with roce_async_events_lost().
 */
struct eng_async {
	pthread_mutex_t lock;
	int fd;
	struct eng_async_rec rec[ROCE_ASYNC_QUEUE];
	uint32_t head, tail;            /* free-running; tail - head queued */
	_Atomic uint64_t lost;
	bool link_up;                   /* engine thread: the link as last seen */
};

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
