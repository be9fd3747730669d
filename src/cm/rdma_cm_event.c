/* SPDX-License-Identifier: MIT */
/*
 * Event channels of the rdma_cm-shaped API (roce/cm.h): a queue of events
 * behind an eventfd whose count is the events waiting (librdmacm's channel
 * is the rdma_cm device's fd, read() giving one event), and the records
 * of the IDs on them. The bottom of the API's layers: it calls nothing of
 * the files above (rdma_cm.c draws them).
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
	ch->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->fd < 0) {
		free(ch);
		return NULL;
	}
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
	pthread_mutex_unlock(&cm->lock);
	close(ch->fd);
	free(ch);
	return ROCE_OK;
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
	uint64_t one = 1;

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
	if (write(ch->fd, &one, sizeof(one)) != sizeof(one)) {
		/* an eventfd write fails only on overflow of its count */
	}
}

int roce_cm_get_cm_event(struct roce_cm_event_channel *ch, struct roce_cm_event **event)
{
	struct roce_cm *cm;
	struct cm_ev_node *n;
	uint64_t v;

	if (!ch || !event)
		return ROCE_E_INVAL;
	cm = ch->cm;
	/* one read, one event (EFD_SEMAPHORE): blocks as the fd does; a count
	   whose event was dropped (rcm_drop_events) finds none: read again */
	do {
		while (read(ch->fd, &v, sizeof(v)) != sizeof(v)) {
			if (errno == EAGAIN)
				return ROCE_E_AGAIN;
			if (errno != EINTR)
				return ROCE_E_IO;
		}
		pthread_mutex_lock(&cm->lock);
		n = ch->head;
		if (n) {
			ch->head = n->next;
			if (!ch->head)
				ch->tail = NULL;
			if (n->ev.id)
				n->ev.id->events_out++;
		}
		pthread_mutex_unlock(&cm->lock);
	} while (!n);
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
}

int roce_cm_migrate_id(struct roce_cm_id *id, struct roce_cm_event_channel *ch)
{
	struct roce_cm_event_channel *old;
	struct cm_ev_node *n;
	uint64_t v = 1;

	if (!id || !ch || ch->cm != id->cm || id->destroyed)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&ch->cm->lock);
	old = id->ch;
	if (old != ch) {
		/* the queued events move in order; each takes its count along
		   (one read of the old eventfd cannot block: its count is at
		   least the events queued there) */
		for (n = unlink_events(old, id); n; n = n->next) {
			if (ch->tail)
				ch->tail->next = n;
			else
				ch->head = n;
			ch->tail = n;
			if (read(old->fd, &v, sizeof(v)) != sizeof(v) ||
			    write(ch->fd, &v, sizeof(v)) != sizeof(v)) {
				/* an eventfd fails only on a count it cannot hold */
			}
		}
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
