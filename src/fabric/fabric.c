/* SPDX-License-Identifier: MIT */
/*
 * The switched fabric (roce/fabric.h): per host, a NIC transmit queue and
 * its link up to the switch; per switch port, an output queue and the link
 * down to the host. One event loop moves frames in time order:
 *
 *   NIC start   the host link is free and a frame waits: it is on the wire
 *               for its serialisation time (preamble, FCS and gap counted),
 *               then arrives at the switch after the propagation delay
 *   arrival     switched by destination MAC to an output queue: marked CE
 *               by RED if ECT, dropped if the queue is full (lossy), or,
 *               with PFC, its ingress paused while that ingress holds more
 *               than its XOFF of the buffer
 *   egress      the output link is free and a frame waits: serialised and,
 *               after the propagation delay, in the host's receive queue
 *
 * Times are picoseconds inside (a 4 KB frame at 100 Gbit/s is 334.56 ns:
 * nanoseconds would drift), nanoseconds at the API. Ties go to the lower
 * port, NIC before arrival before egress: one order, every run. Each
 * port's three next events sit in one heap (events.h) and a MAC table
 * routes, so a frame costs the same with 3 ports or 1024.
 */
#include <stdlib.h>
#include <string.h>

#include "roce/fabric.h"
#include "roce/params.h"
#include "roce/status.h"
#include "events.h"

#define PS_PER_NS 1000u
#define WIRE_EXTRA 24u                  /* preamble 8, FCS 4, gap 12 */
#define MAX_PORTS ROCE_FABRIC_MAX_PORTS

enum fev_kind { EV_NIC, EV_ARRIVE, EV_EGRESS, EV_KINDS };

struct fnode {
	struct fnode *next;
	uint64_t t;                     /* ps: when it may move on */
	uint32_t len;
	uint16_t src;                   /* ingress port */
	uint8_t data[ROCE_MAX_FRAME];
};

struct fqueue {
	struct fnode *head, *tail;
	uint64_t bytes;
};

struct fport {
	struct roce_fabric *f;
	unsigned idx;
	bool attached;
	uint8_t mac[6];
	struct fqueue nic;              /* host: waiting to be sent */
	uint64_t nic_free;              /* ps: the host link's next free time */
	struct fqueue up;               /* on the link to the switch */
	struct fqueue egress;           /* the switch's output queue to the host */
	uint64_t eg_free;
	struct fqueue down;             /* on the link to the host, then received */
	unsigned lent;                  /* of down: lent by rx_burst */
	uint64_t ing_bytes;             /* PFC: this ingress's frames in the
					   switch's output queues */
	struct roce_fabric_stats st;
	uint64_t *from;                 /* bytes sent to the host, by ingress */
};

struct roce_fabric {
	struct roce_fabric_config c;
	uint64_t now;                   /* ps */
	uint64_t rng;
	roce_fabric_tap_fn tap;
	void *tap_ctx;
	struct fnode *free;
	struct fev_heap ev;             /* id port * EV_KINDS + kind */
	uint32_t *mac_slot;             /* MAC hash -> port + 1 (0: empty) */
	uint32_t mac_mask;
	struct fport *port;             /* c.ports of them */
	uint64_t *from;                 /* ports x ports: each port's from[] */
	uint64_t used;                  /* PFC: bytes in all output queues */
};

void roce_fabric_config_default(struct roce_fabric_config *c, unsigned ports)
{
	*c = (struct roce_fabric_config){
		.ports = ports, .link_mbps = 100000, .prop_ns = 1000,
		.buffer_bytes = 1u << 20, .kmin_bytes = 100 << 10, .kmax_bytes = 400 << 10,
		.pmax_ppm = 200000, .pfc_xoff_bytes = 256 << 10, .pfc_xon_bytes = 128 << 10,
		.nic_queue_bytes = 64 << 10, .seed = 1,
	};
}

const char *roce_fabric_config_check(const struct roce_fabric_config *c)
{
	if (!c)
		return "config";
	if (c->ports < 2 || c->ports > MAX_PORTS)
		return "ports";
	if (!c->link_mbps || c->link_mbps > 1600000)
		return "link_mbps";
	if (c->buffer_bytes < ROCE_MAX_FRAME)
		return "buffer_bytes";
	if (c->kmin_bytes > c->kmax_bytes)
		return "kmin_bytes";
	if (c->pmax_ppm > 1000000)
		return "pmax_ppm";
	if (c->pfc && (c->pfc_xon_bytes > c->pfc_xoff_bytes || !c->pfc_xoff_bytes))
		return "pfc_xon_bytes";
	if (c->nic_queue_bytes < ROCE_MAX_FRAME)
		return "nic_queue_bytes";
	return NULL;
}

static void sched(struct roce_fabric *f, struct fport *p, enum fev_kind kind);

/* ---- frames and queues --------------------------------------------------- */

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static struct fnode *node_get(struct roce_fabric *f)
{
	struct fnode *n = f->free;

	if (n)
		f->free = n->next;
	else
		n = malloc(sizeof(*n));
	return n;
}

static void node_put(struct roce_fabric *f, struct fnode *n)
{
	n->next = f->free;
	f->free = n;
}

static void q_push(struct fqueue *q, struct fnode *n)
{
	n->next = NULL;
	if (q->tail)
		q->tail->next = n;
	else
		q->head = n;
	q->tail = n;
	q->bytes += n->len;
}

static struct fnode *q_pop(struct fqueue *q)
{
	struct fnode *n = q->head;

	q->head = n->next;
	if (!q->head)
		q->tail = NULL;
	q->bytes -= n->len;
	return n;
}

static void q_free(struct roce_fabric *f, struct fqueue *q)
{
	while (q->head)
		node_put(f, q_pop(q));
}

/* ---- the host side: a roce_port ----------------------------------------- */

static unsigned fab_tx(void *ctx, const struct roce_frame *fr, unsigned n)
{
	struct fport *p = ctx;
	struct roce_fabric *f = p->f;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct fnode *x;

		/* a full transmit queue pushes back (an empty one takes any
		   frame: a jumbo frame is never stuck) */
		if (p->nic.head && p->nic.bytes + fr[i].len > f->c.nic_queue_bytes)
			break;
		if (fr[i].len > ROCE_MAX_FRAME || !(x = node_get(f)))
			break;
		memcpy(x->data, fr[i].data, fr[i].len);
		x->len = fr[i].len;
		x->t = f->now;
		x->src = (uint16_t)p->idx;
		q_push(&p->nic, x);
	}
	if (i)
		sched(f, p, EV_NIC);
	return i;
}

static unsigned fab_rx(void *ctx, struct roce_frame *fr, unsigned max)
{
	struct fport *p = ctx;
	struct fnode *x = p->down.head;
	unsigned skip = p->lent, n = 0;

	for (; x && skip; skip--)
		x = x->next;
	for (; x && n < max && x->t <= p->f->now; x = x->next, n++) {
		fr[n].data = x->data;
		fr[n].len = x->len;
	}
	p->lent += n;
	return n;
}

static void fab_rx_release(void *ctx, unsigned n)
{
	struct fport *p = ctx;

	for (; n && p->lent; n--, p->lent--)
		node_put(p->f, q_pop(&p->down));
}

static const struct roce_port_ops fab_ops = {
	.tx_burst = fab_tx, .rx_burst = fab_rx, .rx_release = fab_rx_release,
};

/* ---- the switch ------------------------------------------------------------ */

static uint64_t rnd(struct roce_fabric *f)
{
	/* xorshift64*: the marking draws, from the seed */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545F4914F6CDD1Dull;
}

/* ps on the wire for a frame of len bytes */
static uint64_t ser_ps(const struct roce_fabric *f, uint32_t len)
{
	return (uint64_t)(len + WIRE_EXTRA) * 8 * 1000000u / f->c.link_mbps;
}

/* ECT -> CE in the IP header (IPv4's checksum updated as RFC 1624 says);
   false when the packet is not ECN-capable. */
static bool mark_ce(struct fnode *x)
{
	uint8_t *d = x->data;
	uint16_t type;

	if (x->len < 14 + 40)
		return false;
	type = (uint16_t)(d[12] << 8 | d[13]);
	if (type == 0x0800) {
		uint32_t old = (uint32_t)(d[14] << 8 | d[15]), sum;

		if (!(d[15] & 3))
			return false;
		d[15] |= 3;
		sum = (uint16_t)~(d[24] << 8 | d[25]);
		sum += (uint16_t)~old + (uint32_t)(d[14] << 8 | d[15]);
		sum = (sum & 0xFFFF) + (sum >> 16);
		sum = (sum & 0xFFFF) + (sum >> 16);
		sum = (uint16_t)~sum;
		d[24] = (uint8_t)(sum >> 8);
		d[25] = (uint8_t)sum;
		return true;
	}
	if (type == 0x86DD) {
		if (!(d[15] & 0x30))
			return false;
		d[15] |= 0x30;
		return true;
	}
	return false;
}

static bool red_mark(struct roce_fabric *f, uint64_t q)
{
	const struct roce_fabric_config *c = &f->c;
	uint64_t p;

	if (q < c->kmin_bytes)
		return false;
	if (q >= c->kmax_bytes)
		return true;
	p = (uint64_t)c->pmax_ppm * (q - c->kmin_bytes) / (c->kmax_bytes - c->kmin_bytes);
	return rnd(f) % 1000000u < p;
}

/* The MAC table: open addressing, at most half full. */
static uint32_t mac_hash(const struct roce_fabric *f, const uint8_t *m)
{
	uint64_t k = 0;

	for (int i = 0; i < 6; i++)
		k = k << 8 | m[i];
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & f->mac_mask;
}

static int route(const struct roce_fabric *f, const uint8_t *dst)
{
	for (uint32_t h = mac_hash(f, dst);; h = (h + 1) & f->mac_mask) {
		uint32_t v = f->mac_slot[h];

		if (!v)
			return -1;
		if (!memcmp(f->port[v - 1].mac, dst, 6))
			return (int)(v - 1);
	}
}

/* ---- the events ------------------------------------------------------------ */

/* When port p's event of this kind can happen, if it can: the heap keeps
   it up to date after every change of a queue, a free time or a pause. */
static void sched(struct roce_fabric *f, struct fport *p, enum fev_kind kind)
{
	uint32_t id = p->idx * EV_KINDS + kind;
	uint64_t t;

	switch (kind) {
	case EV_NIC:
		if (!p->nic.head || p->st.paused)
			goto none;
		t = max64(p->nic_free, p->nic.head->t);
		break;
	case EV_ARRIVE:
		if (!p->up.head)
			goto none;
		t = p->up.head->t;
		break;
	default:
		if (!p->egress.head)
			goto none;
		t = max64(p->eg_free, p->egress.head->t);
		break;
	}
	fev_set(&f->ev, id, t);
	return;
none:
	fev_clear(&f->ev, id);
}

/* PFC, as a switch's ingress accounting has it (802.1Qbb: the port
   that receives pauses the link it receives on): an ingress is paused
   while its frames in the buffer exceed its XOFF, and resumed once they
   are down to XON. A static XOFF alone never fires in an N:1 incast of
   window-bound flows (64 x 64 KB, no ingress near 256 KB, the buffer
   full), so, as shared-buffer switches do (a dynamic threshold, alpha =
   1), XOFF is at most the buffer's free space (buffer_bytes less what
   all ingresses hold), and XON keeps its ratio to XOFF. An ingress that
   holds more than its share is the one paused: the pause shares the
   queue, whatever the senders' rates. The pause acts at once (no pause
   frame's flight); what is on the wire still arrives, into the headroom
   a lossless switch keeps beside its buffer, so buffer_bytes is not
   enforced. */
static uint64_t pfc_xoff(const struct roce_fabric *f)
{
	uint64_t free = f->used < f->c.buffer_bytes ? f->c.buffer_bytes - f->used : 0;

	return free < f->c.pfc_xoff_bytes ? free : f->c.pfc_xoff_bytes;
}

static void pfc_pause(struct roce_fabric *f, struct fport *in)
{
	if (in->st.paused || in->ing_bytes <= pfc_xoff(f))
		return;
	in->st.paused = true;
	in->st.pause_frames++;
	sched(f, in, EV_NIC);
}

/* in's frame left: resumed once its share is down to XON's part of XOFF
   (none left always resumes it). */
static void pfc_resume(struct roce_fabric *f, struct fport *in)
{
	if (!in->st.paused ||
	    in->ing_bytes * f->c.pfc_xoff_bytes > pfc_xoff(f) * f->c.pfc_xon_bytes)
		return;
	in->st.paused = false;
	sched(f, in, EV_NIC);
}

static void arrive(struct roce_fabric *f, struct fport *in, struct fnode *x)
{
	int d = route(f, x->data);
	struct fport *out;

	if (d < 0) {
		in->st.unroutable++;
		node_put(f, x);
		return;
	}
	out = &f->port[d];
	if (!f->c.pfc && out->egress.bytes + x->len > f->c.buffer_bytes) {
		out->st.drops++;
		if (f->tap)
			f->tap(f->tap_ctx, in->idx, x->data, x->len, f->now / PS_PER_NS, true);
		node_put(f, x);
		return;
	}
	if (red_mark(f, out->egress.bytes) && mark_ce(x))
		out->st.marks++;
	if (f->tap)
		f->tap(f->tap_ctx, in->idx, x->data, x->len, f->now / PS_PER_NS, false);
	x->t = f->now;
	x->src = (uint16_t)in->idx;
	q_push(&out->egress, x);
	in->ing_bytes += x->len;
	f->used += x->len;
	sched(f, out, EV_EGRESS);
	if (out->egress.bytes > out->st.queue_max_bytes)
		out->st.queue_max_bytes = out->egress.bytes;
	if (f->c.pfc)
		pfc_pause(f, in);
}

static void depart(struct roce_fabric *f, struct fport *out)
{
	struct fnode *x = q_pop(&out->egress);
	uint64_t done = f->now + ser_ps(f, x->len);

	out->eg_free = done;
	out->st.tx_frames++;
	out->st.tx_bytes += x->len;
	out->from[x->src] += x->len;
	f->port[x->src].ing_bytes -= x->len;
	f->used -= x->len;
	x->t = done + (uint64_t)f->c.prop_ns * PS_PER_NS;
	q_push(&out->down, x);
	sched(f, out, EV_EGRESS);
	if (f->c.pfc)
		pfc_resume(f, &f->port[x->src]);
}

static void nic_start(struct roce_fabric *f, struct fport *p)
{
	struct fnode *x = q_pop(&p->nic);
	uint64_t done = f->now + ser_ps(f, x->len);

	p->nic_free = done;
	x->t = done + (uint64_t)f->c.prop_ns * PS_PER_NS;
	q_push(&p->up, x);
	sched(f, p, EV_NIC);
	sched(f, p, EV_ARRIVE);
}

void roce_fabric_advance(struct roce_fabric *f, uint64_t t_ns)
{
	uint64_t end = t_ns * PS_PER_NS, t;
	uint32_t id;

	while (fev_peek(&f->ev, &id, &t) && t <= end) {
		struct fport *p = &f->port[id / EV_KINDS];

		f->now = max64(f->now, t);
		switch (id % EV_KINDS) {
		case EV_NIC:
			nic_start(f, p);
			break;
		case EV_ARRIVE:
			arrive(f, p, q_pop(&p->up));
			sched(f, p, EV_ARRIVE);
			break;
		default:
			depart(f, p);
			break;
		}
	}
	f->now = max64(f->now, end);
}

/* ---- life and statistics --------------------------------------------------- */

int roce_fabric_create(const struct roce_fabric_config *c, struct roce_fabric **out)
{
	struct roce_fabric *f;

	if (!out || roce_fabric_config_check(c))
		return ROCE_E_INVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return ROCE_E_NOMEM;
	f->c = *c;
	f->rng = c->seed ? c->seed : 1;
	for (f->mac_mask = 1; f->mac_mask < 2 * c->ports; f->mac_mask <<= 1)
		;
	f->mac_slot = calloc(f->mac_mask, sizeof(*f->mac_slot));
	f->mac_mask--;
	f->port = calloc(c->ports, sizeof(*f->port));
	f->from = calloc((size_t)c->ports * c->ports, sizeof(*f->from));
	if (!f->mac_slot || !f->port || !f->from ||
	    fev_init(&f->ev, c->ports * EV_KINDS)) {
		roce_fabric_destroy(f);
		return ROCE_E_NOMEM;
	}
	for (unsigned i = 0; i < c->ports; i++) {
		f->port[i].f = f;
		f->port[i].idx = i;
		f->port[i].from = f->from + (size_t)i * c->ports;
	}
	*out = f;
	return ROCE_OK;
}

void roce_fabric_destroy(struct roce_fabric *f)
{
	if (!f)
		return;
	for (unsigned i = 0; f->port && i < f->c.ports; i++) {
		struct fport *p = &f->port[i];

		q_free(f, &p->nic);
		q_free(f, &p->up);
		q_free(f, &p->egress);
		q_free(f, &p->down);
	}
	while (f->free) {
		struct fnode *n = f->free;

		f->free = n->next;
		free(n);
	}
	fev_fini(&f->ev);
	free(f->mac_slot);
	free(f->port);
	free(f->from);
	free(f);
}

int roce_fabric_attach(struct roce_fabric *f, unsigned i, const uint8_t mac[6],
		       struct roce_port *out)
{
	uint32_t h;

	if (!f || !mac || !out || i >= f->c.ports || f->port[i].attached || route(f, mac) >= 0)
		return ROCE_E_INVAL;
	f->port[i].attached = true;
	memcpy(f->port[i].mac, mac, 6);
	for (h = mac_hash(f, mac); f->mac_slot[h]; h = (h + 1) & f->mac_mask)
		;
	f->mac_slot[h] = i + 1;
	out->ops = &fab_ops;
	out->ctx = &f->port[i];
	memcpy(out->mac, mac, 6);
	return ROCE_OK;
}

void roce_fabric_set_tap(struct roce_fabric *f, roce_fabric_tap_fn fn, void *ctx)
{
	f->tap = fn;
	f->tap_ctx = ctx;
}

uint64_t roce_fabric_now(const struct roce_fabric *f)
{
	return f->now / PS_PER_NS;
}

uint64_t roce_fabric_clock(void *fabric)
{
	return roce_fabric_now(fabric);
}

void roce_fabric_stats(const struct roce_fabric *f, unsigned i, struct roce_fabric_stats *s)
{
	if (i >= f->c.ports) {
		memset(s, 0, sizeof(*s));
		return;
	}
	*s = f->port[i].st;
	s->queue_bytes = f->port[i].egress.bytes;
}

uint64_t roce_fabric_bytes(const struct roce_fabric *f, unsigned dst, unsigned src)
{
	return dst < f->c.ports && src < f->c.ports ? f->port[dst].from[src] : 0;
}
