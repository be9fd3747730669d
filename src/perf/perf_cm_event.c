/* SPDX-License-Identifier: MIT */
/*
 * roce-perf -R: the CM's events, recorded per ID. Every ID of ours (the
 * exchange's, the test QPs', the requests a server takes) has a slot; an
 * event sets its slot's flags, and the connection code waits for flags
 * rather than for events (perf_cm.c).
 */
#include <arpa/inet.h>
#include <poll.h>

#include "common/clock.h"
#include "perf/perf_cm_priv.h"
#include "roce/status.h"

/* The live slot of id: a destroyed ID's memory may come back as a new
 * ID's, so a slot whose ID is gone never matches */
static int slot_of(struct perf_cm *p, const struct roce_cm_id *id)
{
	for (unsigned i = 0; i < p->n_slot; i++)
		if (p->slot[i].id == id && !(p->slot[i].flags & PCM_GONE))
			return (int)i;
	return -1;
}

int pcm_slot_add(struct perf_cm *p, struct roce_cm_id *id)
{
	if (p->n_slot == p->max_slot)
		return -1;
	p->slot[p->n_slot] = (struct pcm_slot){ .id = id };
	return (int)p->n_slot++;
}

/* Takes one event if there is one within ms; records it in its ID's slot.
 * A CONNECT_REQUEST gets a slot of its own; one past the slots is
 * rejected, as a listener past its backlog would. */
void pcm_pump(struct perf_cm *p, unsigned ms)
{
	struct pollfd pf = { .fd = roce_cm_channel_fd(p->ch), .events = POLLIN };
	struct roce_cm_event *ev;
	struct pcm_slot *s;
	int i;

	if (poll(&pf, 1, (int)ms) <= 0 || roce_cm_get_cm_event(p->ch, &ev) != ROCE_OK)
		return;
	i = slot_of(p, ev->id);
	if (ev->event == ROCE_CM_EVENT_CONNECT_REQUEST && i < 0) {
		i = pcm_slot_add(p, ev->id);
		if (i < 0) {
			roce_cm_reject(ev->id, NULL, 0);
			roce_cm_ack_cm_event(ev);
			roce_cm_destroy_id(ev->id);
			return;
		}
		p->slot[i].peer_init_depth = ev->param.initiator_depth;
		p->slot[i].ah_attr = ev->ud.ah_attr; /* a UD requester's address */
	}
	s = i >= 0 ? &p->slot[i] : NULL;
	switch (s ? ev->event : ROCE_CM_EVENT_TIMEWAIT_EXIT) {
	case ROCE_CM_EVENT_ADDR_RESOLVED: s->flags |= PCM_ADDR; break;
	case ROCE_CM_EVENT_ROUTE_RESOLVED: s->flags |= PCM_ROUTE; break;
	case ROCE_CM_EVENT_ESTABLISHED:
		s->flags |= PCM_EST;
		s->ah_attr = ev->ud.ah_attr;
		s->ud_qpn = ev->ud.qp_num;
		s->ud_qkey = ev->ud.qkey;
		break;
	case ROCE_CM_EVENT_DISCONNECTED: s->flags |= PCM_DISC; break;
	case ROCE_CM_EVENT_ADDR_ERROR:
	case ROCE_CM_EVENT_ROUTE_ERROR:
	case ROCE_CM_EVENT_CONNECT_ERROR:
	case ROCE_CM_EVENT_UNREACHABLE:
	case ROCE_CM_EVENT_REJECTED:
		s->flags |= PCM_FAIL;
		s->fail = ev->event;
		s->status = ev->status;
		break;
	default: break;
	}
	roce_cm_ack_cm_event(ev);
}

/* Until slot i has one of flags (true) or ms pass (false). */
bool pcm_wait_flags(struct perf_cm *p, int i, unsigned flags, unsigned ms)
{
	uint64_t end = roce_now_ms() + ms;

	while (!(p->slot[i].flags & flags)) {
		if (roce_now_ms() >= end)
			return false;
		pcm_pump(p, 20);
	}
	return true;
}

int pcm_fail_of(struct perf_run *r, struct perf_cm *p, int i, const char *what)
{
	const struct pcm_slot *s = &p->slot[i];

	if (!(s->flags & PCM_FAIL))
		return perf_fail(r, ROCE_E_TIMEOUT, "rdma_cm: %s: no answer within %u ms",
				 what, p->timeout_ms);
	if (s->fail == ROCE_CM_EVENT_REJECTED && s->status == 8)
		return perf_fail(r, ROCE_E_NOENT, "rdma_cm: %s: rejected (REJ reason 8, "
				 "invalid service ID: nobody listens on port %u)", what,
				 ntohs(p->peer.sin_port));
	if (s->fail == ROCE_CM_EVENT_REJECTED)
		return perf_fail(r, ROCE_E_IO, "rdma_cm: %s: rejected (REJ reason %d)",
				 what, s->status);
	if (s->fail == ROCE_CM_EVENT_UNREACHABLE && s->status > 0)
		return perf_fail(r, ROCE_E_IO, "rdma_cm: %s: SIDR_REP status %d (%s)", what,
				 s->status, s->status == 1 ? "nobody listens for UD on the port"
				 : s->status == 2 ? "rejected" : "refused");
	if (s->fail == ROCE_CM_EVENT_UNREACHABLE)
		return perf_fail(r, ROCE_E_TIMEOUT, "rdma_cm: %s: unreachable (no answer "
				 "to the REQ's resends, or our QP refused the peer's REP)", what);
	return perf_fail(r, ROCE_E_IO, "rdma_cm: %s: %s (status %d)", what,
			 roce_cm_event_str(s->fail), s->status);
}
