/* SPDX-License-Identifier: MIT */
/*
 * The engine's events (event.h): completion events into a CQ's channel,
 * asynchronous events into the engine's queue, the link watched once a
 * poll. Every path here is allocation-free; the eventfd write is the
 * interrupt a board would raise.
 */
#include <sys/eventfd.h>
#include <unistd.h>

#include "engine/event.h"
#include "engine/state.h"
#include "roce/device.h"
#include "roce/status.h"

/* The interrupt: one count on the eventfd per event (the fd is made with
 * EFD_SEMAPHORE, so each read by the host takes one). A write can only
 * fail when the count would pass 2^64 - 2: never. */
static void ring_fd(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

int event_init(struct roce_engine *e)
{
	struct eng_async *a = &e->async;

	a->fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (a->fd < 0)
		return ROCE_E_NOMEM;
	pthread_mutex_init(&a->lock, NULL);
	a->head = a->tail = 0;
	atomic_init(&a->lost, 0);
	/* the link as the context found it: a change from here on is an
	 * event (an ibverbs context gets no PORT_ACTIVE for a port that was
	 * up when it was opened) */
	a->link_up = roce_device_link_ready(e->dev);
	return ROCE_OK;
}

void event_fini(struct roce_engine *e)
{
	if (e->async.fd >= 0) {
		close(e->async.fd);
		pthread_mutex_destroy(&e->async.lock);
	}
	e->async.fd = -1;
}

/*
 * The CQ joins the channel's list once, however many events it has
 * waiting (ev_pending counts them): the list's length is bounded by the
 * CQs on the channel and needs no allocation. The host's
 * roce_get_cq_event takes events from the head.
 */
void event_cq(struct eng_cq *cq)
{
	struct eng_channel *ch = cq->channel;

	pthread_mutex_lock(&ch->lock);
	if (cq->ev_pending++ == 0) {
		cq->ev_next = NULL;
		if (ch->tail)
			ch->tail->ev_next = cq;
		else
			ch->head = cq;
		ch->tail = cq;
	}
	pthread_mutex_unlock(&ch->lock);
	ring_fd(ch->fd);
}

void event_async(struct roce_engine *e, enum roce_event_type type, void *obj)
{
	struct eng_async *a = &e->async;
	struct eng_async_rec *r;

	pthread_mutex_lock(&a->lock);
	if (a->tail - a->head == ROCE_ASYNC_QUEUE) {
		/* full: this event is lost, the count says how many were */
		pthread_mutex_unlock(&a->lock);
		atomic_fetch_add_explicit(&a->lost, 1, memory_order_relaxed);
		return;
	}
	r = &a->rec[a->tail++ % ROCE_ASYNC_QUEUE];
	r->type = (uint8_t)type;
	r->dead = false;
	r->obj = obj;
	pthread_mutex_unlock(&a->lock);
	ring_fd(a->fd);
}

/*
 * PORT_ERR when the device's link stops being ready (CTRL.SOFT_RESET held),
 * PORT_ACTIVE when it is ready again (the link-ready bits of the model,
 * regs/link_model.c). Once the link is up this is the model's epoch check,
 * two loads; a sleeping engine thread sees a change when it next wakes
 * (ROCE_IDLE_SLEEP_MS at most).
 */
void event_link(struct roce_engine *e)
{
	bool up = roce_device_link_ready(e->dev);

	if (up == e->async.link_up)
		return;
	e->async.link_up = up;
	event_async(e, up ? ROCE_EVENT_PORT_ACTIVE : ROCE_EVENT_PORT_ERR, NULL);
}
