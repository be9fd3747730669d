/* SPDX-License-Identifier: MIT */
/*
 * Event channels of the rdma_cm-shaped API (roce/cm.h): a queue of events
 * behind an eventfd that is readable while the queue holds any (librdmacm's
 * channel is the rdma_cm device's fd, poll()able the same way), and the
 * records of the IDs on them. The fd is only the level for poll(): every
 * read and write of it happens under the CM's lock, so its count is known
 * (0 or 1) and dropping or moving events never leaves a count behind
 * that would wake a reader for nothing; a blocking get waits on a
 * condition variable, as a reader of the kernel's ucma sleeps in read().
 * The bottom of the API's layers: it calls nothing of the files above
 * (rdma_cm.c draws them).
 */
#include "cm/rdma_cm_event.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "roce/status.h"

static const char *const event_names[] = {
	"RDMA_CM_EVENT_ADDR_RESOLVED",   "RDMA_CM_EVENT_ADDR_ERROR",
	"RDMA_CM_EVENT_ROUTE_RESOLVED",  "RDMA_CM_EVENT_ROUTE_ERROR",
	"RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
	"RDMA_CM_EVENT_CONNECT_ERROR",   "RDMA_CM_EVENT_UNREACHABLE",
	"RDMA_CM_EVENT_REJECTED",        "RDMA_CM_EVENT_ESTABLISHED",
	"RDMA_CM_EVENT_DISCONNECTED",    "RDMA_CM_EVENT_DEVICE_REMOVAL",
	"RDMA_CM_EVENT_MULTICAST_JOIN",  "RDMA_CM_EVENT_MULTICAST_ERROR",
	"RDMA_CM_EVENT_ADDR_CHANGE",     "RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

const char *roce_cm_event_str(enum roce_cm_event_type type)
{
	if ((unsigned)type < sizeof(event_names) / sizeof(event_names[0]))
		return event_names[type];
	return "UNKNOWN EVENT";
}

struct roce_cm_event_channel *roce_cm_create_event_channel(struct roce_cm *cm)
{
	struct roce_cm_event_channel *ch;

	if (!cm)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->cm = cm;
	ch->fd = eventfd(0, EFD_CLOEXEC);
	if (ch->fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_cond_init(&ch->cond, NULL);
	pthread_mutex_lock(&cm->lock);
	ch->next = cm->chans;
	cm->chans = ch;
	pthread_mutex_unlock(&cm->lock);
	return ch;
}

int roce_cm_destroy_event_channel(struct roce_cm_event_channel *ch)
{
	struct roce_cm *cm;
	struct roce_cm_event_channel **pp;

	if (!ch)
		return ROCE_E_INVAL;
	cm = ch->cm;
	pthread_mutex_lock(&cm->lock);
	if (ch->ids) {
		pthread_mutex_unlock(&cm->lock);
		return ROCE_E_BUSY;
	}
	for (pp = &cm->chans; *pp; pp = &(*pp)->next)
		if (*pp == ch) {
			*pp = ch->next;
			break;
		}
	while (ch->head) {
		struct cm_ev_node *n = ch->head;

		ch->head = n->next;
		free(n);
	}
	close(ch->fd);
	ch->fd = -1;
	/* a thread still waiting in a get (the program's event thread, as
	   rping's) stays asleep, as the kernel's reader of a closed channel
	   does; the channel stays for it */
	ch->destroyed = true;
	if (!ch->waiters) {
		pthread_mutex_unlock(&cm->lock);
		pthread_cond_destroy(&ch->cond);
		free(ch);
		return ROCE_OK;
	}
	pthread_mutex_unlock(&cm->lock);
	return ROCE_OK;
}

/* The fd's level after the queue changed (the CM's lock held): count 1
   while events are queued, 0 when none; one reader woken for a new one */
static void set_ready(struct roce_cm_event_channel *ch)
{
	bool want = ch->head != NULL;
	uint64_t v = 1;

	if (want == ch->ready)
		return;
	/* neither blocks: the count is 0 before the write, 1 before the read */
	if ((want ? write(ch->fd, &v, sizeof(v)) : read(ch->fd, &v, sizeof(v))) != sizeof(v)) {
		/* an eventfd fails neither here */
	}
	ch->ready = want;
}

int roce_cm_channel_fd(const struct roce_cm_event_channel *ch)
{
	return ch ? ch->fd : -1;
}

void rcm_queue(struct roce_cm_event_channel *ch, struct roce_cm_id *id,
	       struct roce_cm_id *listen_id, enum roce_cm_event_type type, int status,
	       const uint8_t *priv, size_t len)
{
	struct cm_ev_node *n = calloc(1, sizeof(*n));

	if (!n)
		return; /* as a lost event: the CM's own timers go on */
	n->ev.id = id;
	n->ev.listen_id = listen_id;
	n->ev.event = type;
	n->ev.status = status;
	if (priv && len) {
		if (len > sizeof(n->priv))
			len = sizeof(n->priv);
		memcpy(n->priv, priv, len);
		n->ev.param.private_data = n->priv;
		n->ev.param.private_data_len = (uint8_t)(len > 255 ? 255 : len);
	}
	if (ch->tail)
		ch->tail->next = n;
	else
		ch->head = n;
	ch->tail = n;
	set_ready(ch);
	pthread_cond_signal(&ch->cond);
}

int roce_cm_get_cm_event(struct roce_cm_event_channel *ch, struct roce_cm_event **event)
{
	struct roce_cm *cm;
	struct cm_ev_node *n;
	int fl;

	if (!ch || !event)
		return ROCE_E_INVAL;
	cm = ch->cm;
	/* blocks unless the program made the fd non-blocking, as a read of
	   the kernel's channel does */
	fl = fcntl(ch->fd, F_GETFL);
	pthread_mutex_lock(&cm->lock);
	while (!ch->head) {
		if (fl < 0 || (fl & O_NONBLOCK)) {
			pthread_mutex_unlock(&cm->lock);
			return fl < 0 ? ROCE_E_IO : ROCE_E_AGAIN;
		}
		ch->waiters++;
		pthread_cond_wait(&ch->cond, &cm->lock);
		ch->waiters--;
		while (ch->destroyed) /* never woken again: see destroy */
			pthread_cond_wait(&ch->cond, &cm->lock);
	}
	n = ch->head;
	ch->head = n->next;
	if (!ch->head)
		ch->tail = NULL;
	if (n->ev.id)
		n->ev.id->events_out++;
	set_ready(ch);
	/* another event for another waiting thread */
	if (ch->head)
		pthread_cond_signal(&ch->cond);
	pthread_mutex_unlock(&cm->lock);
	*event = &n->ev;
	return ROCE_OK;
}

int roce_cm_ack_cm_event(struct roce_cm_event *event)
{
	struct cm_ev_node *n = (struct cm_ev_node *)event;
	struct roce_cm_id *id;

	if (!event)
		return ROCE_E_INVAL;
	id = event->id;
	if (id) {
		struct roce_cm *cm = id->cm;

		pthread_mutex_lock(&cm->lock);
		id->events_out--;
		/* a destroyed ID waits for its last ack, as for its slot */
		if (id->destroyed && !id->events_out && id->conn < 0)
			rcm_id_free(id);
		pthread_mutex_unlock(&cm->lock);
	}
	free(n);
	return ROCE_OK;
}

/* The events of id queued on ch, taken out in their order (ch's tail
   mended): the rest of the queue keeps its order. */
static struct cm_ev_node *unlink_events(struct roce_cm_event_channel *ch,
					const struct roce_cm_id *id)
{
	struct cm_ev_node **pp, *last = NULL, *taken = NULL, **tp = &taken;

	for (pp = &ch->head; *pp;) {
		struct cm_ev_node *n = *pp;

		if (n->ev.id != id) {
			last = n;
			pp = &n->next;
			continue;
		}
		*pp = n->next;
		n->next = NULL;
		*tp = n;
		tp = &n->next;
	}
	ch->tail = last;
	return taken;
}

void rcm_drop_events(struct roce_cm_event_channel *ch, struct roce_cm_id *id)
{
	struct cm_ev_node *n = unlink_events(ch, id);

	while (n) {
		struct cm_ev_node *next = n->next;

		free(n);
		n = next;
	}
	set_ready(ch);
}

int roce_cm_migrate_id(struct roce_cm_id *id, struct roce_cm_event_channel *ch)
{
	struct roce_cm_event_channel *old;
	struct cm_ev_node *n;

	if (!id || !ch || ch->cm != id->cm || id->destroyed)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&ch->cm->lock);
	old = id->ch;
	if (old != ch) {
		/* the queued events move in order */
		for (n = unlink_events(old, id); n; n = n->next) {
			if (ch->tail)
				ch->tail->next = n;
			else
				ch->head = n;
			ch->tail = n;
		}
		set_ready(old);
		set_ready(ch);
		if (ch->head)
			pthread_cond_signal(&ch->cond);
		old->ids--;
		ch->ids++;
		id->ch = ch;
	}
	pthread_mutex_unlock(&ch->cm->lock);
	return ROCE_OK;
}

/* ---- ID records --------------------------------------------------------- */

/*
 * An ID's record is freed by whichever comes last of its destruction, its
 * connection slot and its last acknowledged event (roce_cm_ack_cm_event):
 * it lives here, below the files that make, connect and destroy IDs, so
 * that the ack frees it without calling up.
 */
struct roce_cm_id *rcm_id_new(struct roce_cm_event_channel *ch, void *context)
{
	struct roce_cm_id *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	id->cm = ch->cm;
	id->ch = ch;
	id->context = context;
	id->conn = -1;
	id->listener = -1;
	id->next = ch->cm->ids;
	ch->cm->ids = id;
	ch->ids++;
	return id;
}

void rcm_id_free(struct roce_cm_id *id)
{
	struct roce_cm_id **pp;

	for (pp = &id->cm->ids; *pp; pp = &(*pp)->next)
		if (*pp == id) {
			*pp = id->next;
			break;
		}
	if (id->ch)
		id->ch->ids--;
	free(id);
}
