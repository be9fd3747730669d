/* SPDX-License-Identifier: MIT */
/*
 * The in-memory link: configuration, ports, statistics. The data path is
 * in memlink_tx.c (switching, faults), memlink_rx.c and memlink_ring.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "roce/status.h"
#include "link/memlink_priv.h"

static int check_faults(double loss, double reorder, double dup, double corrupt)
{
	if (!ml_prob_valid(loss) || !ml_prob_valid(reorder) ||
	    !ml_prob_valid(dup) || !ml_prob_valid(corrupt))
		return ROCE_E_RANGE;
	return ROCE_OK;
}

static int check_config(const struct roce_memlink_config *c, uint32_t *frames,
			uint32_t *max_frame)
{
	uint64_t slot;

	if (check_faults(c->loss, c->reorder, c->duplicate, c->corrupt))
		return ROCE_E_RANGE;
	*frames = c->ring_frames ? c->ring_frames : ROCE_MEMLINK_RING_DEFAULT;
	*max_frame = c->max_frame ? c->max_frame : ROCE_MAX_FRAME;
	if (*frames < ROCE_MEMLINK_RING_MIN || *frames > ROCE_MEMLINK_RING_MAX)
		return ROCE_E_RANGE;
	if (*frames & (*frames - 1))
		return ROCE_E_INVAL;
	if (*max_frame < ROCE_MEMLINK_MIN_FRAME || *max_frame > ROCE_MEMLINK_MAX_FRAME)
		return ROCE_E_RANGE;
	slot = (*max_frame + ML_CACHELINE - 1) & ~(uint64_t)(ML_CACHELINE - 1);
	if (slot * *frames > ROCE_MEMLINK_RING_BYTES_MAX)
		return ROCE_E_RANGE;
	return ROCE_OK;
}

static void store_faults(struct roce_memlink *l, double loss, double reorder,
			 double dup, double corrupt)
{
	const double p[ML_NFAULTS] = {
		[ML_LOSS] = loss, [ML_CORRUPT] = corrupt,
		[ML_DUP] = dup, [ML_REORDER] = reorder,
	};

	bool any = false;

	for (unsigned i = 0; i < ML_NFAULTS; i++) {
		uint64_t t = ml_fault_thresh(p[i]);

		atomic_store_explicit(&l->thresh[i], t, memory_order_relaxed);
		any |= t != 0;
	}
	atomic_store_explicit(&l->any_fault, any, memory_order_relaxed);
}

int roce_memlink_create(const struct roce_memlink_config *cfg,
			struct roce_memlink **out)
{
	struct roce_memlink *l;
	uint32_t frames = 0, max_frame = 0;
	int rc;

	if (!cfg || !out)
		return ROCE_E_INVAL;
	rc = check_config(cfg, &frames, &max_frame);
	if (rc)
		return rc;
	l = calloc(1, sizeof(*l));
	if (!l)
		return ROCE_E_NOMEM;
	if (cfg->pcap_path) {
		rc = roce_pcap_open_write(cfg->pcap_path, &l->pcap, NULL, 0);
		if (rc) {
			free(l);
			return rc;
		}
	}
	pthread_mutex_init(&l->attach_lock, NULL);
	atomic_init(&l->nports, 0);
	store_faults(l, cfg->loss, cfg->reorder, cfg->duplicate, cfg->corrupt);
	l->seed = cfg->seed;
	l->delay_ns = cfg->delay_ns;
	l->hold_ns = cfg->reorder_hold_ns ? cfg->reorder_hold_ns : ROCE_MEMLINK_HOLD_NS;
	l->ring_frames = frames;
	l->max_frame = max_frame;
	l->lossless = cfg->lossless;
	l->slot_size = (max_frame + ML_CACHELINE - 1) & ~(uint32_t)(ML_CACHELINE - 1);
	l->now_ns = cfg->now_ns ? cfg->now_ns : roce_clock_ns;
	l->clock_ctx = cfg->now_ns ? cfg->clock_ctx : NULL;
	*out = l;
	return ROCE_OK;
}

static void port_free(struct ml_port *p)
{
	if (!p)
		return;
	ml_ring_free(&p->ring);
	for (unsigned i = 0; i < ROCE_MEMLINK_HOLD_SLOTS; i++)
		free(p->hold[i].buf);
	free(p);
}

static struct ml_port *port_new(struct roce_memlink *l, unsigned idx)
{
	struct ml_port *p = aligned_alloc(ML_CACHELINE,
		(sizeof(*p) + ML_CACHELINE - 1) & ~(size_t)(ML_CACHELINE - 1));

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	if (ml_ring_init(&p->ring, l->ring_frames, l->slot_size)) {
		free(p);
		return NULL;
	}
	for (unsigned i = 0; i < ROCE_MEMLINK_HOLD_SLOTS; i++) {
		p->hold[i].buf = malloc(l->max_frame);
		if (!p->hold[i].buf) {
			port_free(p);
			return NULL;
		}
	}
	p->link = l;
	p->idx = idx;
	p->route_idx = ROCE_MEMLINK_MAX_PORTS;  /* nothing cached */
	ml_prng_seed(&p->prng, l->seed, idx);
	return p;
}

int roce_memlink_attach(struct roce_memlink *l, const uint8_t mac[6],
			struct roce_port *out)
{
	uint64_t key;
	struct ml_port *p;
	unsigned n;
	int rc = ROCE_OK;

	if (!l || !mac || !out)
		return ROCE_E_INVAL;
	if (mac[0] & 1)         /* a station address is never a group address */
		return ROCE_E_INVAL;
	key = ml_mac_key(mac);
	pthread_mutex_lock(&l->attach_lock);
	n = atomic_load_explicit(&l->nports, memory_order_relaxed);
	for (unsigned i = 0; i < n && !rc; i++)
		if (l->mac_key[i] == key)
			rc = ROCE_E_EXISTS;
	if (!rc && n >= ROCE_MEMLINK_MAX_PORTS)
		rc = ROCE_E_FULL;
	if (!rc && !(p = port_new(l, n)))
		rc = ROCE_E_NOMEM;
	if (!rc) {
		l->ports[n] = p;
		l->mac_key[n] = key;
		/* senders that see the new count see the port complete */
		atomic_store_explicit(&l->nports, n + 1, memory_order_release);
		out->ops = &ml_port_ops;
		out->ctx = p;
		memcpy(out->mac, mac, 6);
	}
	pthread_mutex_unlock(&l->attach_lock);
	return rc;
}

void roce_memlink_destroy(struct roce_memlink *l)
{
	if (!l)
		return;
	for (unsigned i = 0; i < ml_nports(l); i++)
		port_free(l->ports[i]);
	roce_pcap_close_write(l->pcap);
	pthread_mutex_destroy(&l->attach_lock);
	free(l);
}

void roce_memlink_get_stats(const struct roce_memlink *l,
			    struct roce_memlink_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!l)
		return;
	for (unsigned i = 0; i < ml_nports(l); i++) {
		const struct ml_stats *s = &l->ports[i]->st;

#define ML_SUM(f) st->f += atomic_load_explicit(&s->f, memory_order_relaxed)
		ML_SUM(sent);
		ML_SUM(delivered);
		ML_SUM(lost);
		ML_SUM(duplicated);
		ML_SUM(reordered);
		ML_SUM(corrupted);
		ML_SUM(no_route);
		ML_SUM(ring_full);
		ML_SUM(paused);
		ML_SUM(zero_copy);
		ML_SUM(bad_len);
#undef ML_SUM
	}
}

int roce_memlink_set_faults(struct roce_memlink *l, double loss,
			    double reorder, double duplicate, double corrupt)
{
	if (!l)
		return ROCE_E_INVAL;
	if (check_faults(loss, reorder, duplicate, corrupt))
		return ROCE_E_RANGE;
	store_faults(l, loss, reorder, duplicate, corrupt);
	return ROCE_OK;
}

int roce_memlink_flush_capture(struct roce_memlink *l)
{
	if (!l)
		return ROCE_E_INVAL;
	return l->pcap ? roce_pcap_flush(l->pcap) : ROCE_OK;
}
