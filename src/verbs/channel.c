/* SPDX-License-Identifier: MIT */
/*
 * Completion channels: the host's end of the completion events the engine
 * raises (engine/event.c). The channel's fd is an eventfd in semaphore
 * mode whose count is the number of events waiting, so it is readable
 * exactly while one waits and a read takes one, as the kernel's
 * completion event file behaves for ibv_get_cq_event.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "verbs/verbs_priv.h"
#include "roce/status.h"

struct roce_comp_channel *roce_create_comp_channel(struct roce_context *ctx)
{
	struct roce_comp_channel *ch;

	if (!ctx)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	/* blocking, as ibv_comp_channel's fd: the caller may set O_NONBLOCK */
	ch->eng.fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (ch->eng.fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->eng.lock, NULL);
	ch->ctx = ctx;
	return ch;
}

int roce_destroy_comp_channel(struct roce_comp_channel *ch)
{
	if (!ch)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&ch->eng.lock);
	if (ch->eng.ncq) {
		pthread_mutex_unlock(&ch->eng.lock);
		return ROCE_E_BUSY;     /* ibv_destroy_comp_channel(3): CQs use it */
	}
	pthread_mutex_unlock(&ch->eng.lock);
	pthread_mutex_destroy(&ch->eng.lock);
	close(ch->eng.fd);
	free(ch);
	return ROCE_OK;
}

int roce_comp_channel_fd(const struct roce_comp_channel *ch)
{
	return ch ? ch->eng.fd : -1;
}

void channel_attach(struct roce_comp_channel *ch, struct roce_cq *cq)
{
	pthread_mutex_lock(&ch->eng.lock);
	ch->eng.ncq++;
	pthread_mutex_unlock(&ch->eng.lock);
	cq->channel = ch;
	cq->eng.channel = &ch->eng;
}

/* Out of its list: the events the CQ still has there go with it. */
static void unlink_cq(struct eng_channel *ch, struct eng_cq *cq)
{
	struct eng_cq **pp = &ch->head, *prev = NULL;

	if (!cq->ev_pending)
		return;
	while (*pp && *pp != cq) {
		prev = *pp;
		pp = &(*pp)->ev_next;
	}
	if (*pp) {
		*pp = cq->ev_next;
		if (ch->tail == cq)
			ch->tail = prev;
	}
	cq->ev_pending = 0;
	cq->ev_next = NULL;
}

/*
 * Before the CQ is destroyed (the engine's lock held, so no event is being
 * raised): ROCE_E_BUSY while events that roce_get_cq_event returned are
 * not acknowledged; otherwise it leaves the channel. The count on the fd
 * keeps the events that were dropped: roce_get_cq_event skips them.
 */
int channel_detach(struct roce_cq *cq)
{
	struct roce_comp_channel *ch = cq->channel;

	if (!ch)
		return ROCE_OK;
	pthread_mutex_lock(&ch->eng.lock);
	if (cq->comp.reported != cq->comp.acked) {
		pthread_mutex_unlock(&ch->eng.lock);
		return ROCE_E_BUSY;
	}
	unlink_cq(&ch->eng, &cq->eng);
	ch->eng.ncq--;
	pthread_mutex_unlock(&ch->eng.lock);
	cq->channel = NULL;
	cq->eng.channel = NULL;
	return ROCE_OK;
}

/*
 * One shot (ibv_req_notify_cq(3)): the engine clears the arm when it raises
 * the event. NEXT and SOLICITED accumulate, NEXT winning (IBA 11.4.2.2).
 * The fence pairs with the engine's (cq_post, src/engine/cq.c): a completion the
 * engine published without seeing this arm is seen by the poll the caller
 * makes next.
 */
int roce_req_notify_cq(struct roce_cq *cq, int solicited_only)
{
	if (!cq || !cq->eng.channel)
		return ROCE_E_INVAL;
	atomic_fetch_or_explicit(&cq->eng.arm, solicited_only ? CQ_ARM_SOLICITED : CQ_ARM_NEXT,
				 memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
	return ROCE_OK;
}

/* The CQ at the head of the list, one of its events taken; NULL when the
 * list is empty (the count read was for an event dropped with its CQ). */
static struct eng_cq *take_event(struct eng_channel *ch)
{
	struct eng_cq *cq = ch->head;

	if (!cq)
		return NULL;
	ch->head = cq->ev_next;
	if (!ch->head)
		ch->tail = NULL;
	cq->ev_next = NULL;
	if (--cq->ev_pending) {
		/* more of its events wait: behind the other CQs' */
		if (ch->tail)
			ch->tail->ev_next = cq;
		else
			ch->head = cq;
		ch->tail = cq;
	}
	((struct roce_cq *)cq)->comp.reported++;
	return cq;
}

int roce_get_cq_event(struct roce_comp_channel *ch, struct roce_cq **cq_out,
		      void **cq_context)
{
	if (!ch || !cq_out)
		return ROCE_E_INVAL;
	for (;;) {
		struct eng_cq *cq;
		uint64_t one;

		/* blocks while the count is 0, unless the fd is non-blocking */
		if (read(ch->eng.fd, &one, sizeof(one)) < 0) {
			/* a signal: returned, as read(2) on the kernel's fd
			   returns it (a handler with SA_RESTART restarts
			   the read itself) */
			if (errno == EINTR)
				return ROCE_E_INTR;
			return errno == EAGAIN ? ROCE_E_AGAIN : ROCE_E_IO;
		}
		pthread_mutex_lock(&ch->eng.lock);
		cq = take_event(&ch->eng);
		pthread_mutex_unlock(&ch->eng.lock);
		if (!cq)
			continue;
		*cq_out = (struct roce_cq *)cq;
		if (cq_context)
			*cq_context = (*cq_out)->cq_context;
		return ROCE_OK;
	}
}

void roce_ack_cq_events(struct roce_cq *cq, unsigned int nevents)
{
	if (!cq || !cq->channel)
		return;
	pthread_mutex_lock(&cq->channel->eng.lock);
	cq->comp.acked += nevents;
	pthread_mutex_unlock(&cq->channel->eng.lock);
}
