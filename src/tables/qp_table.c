/* SPDX-License-Identifier: MIT */
/*
 * The QP table: ROCE_MAX_QP contexts, QPN = index, each behind its own
 * sequence lock (seqlock.h). Commits validate the state transition of
 * IBA 10.3.1 and the attributes the target state needs, the way
 * ibv_modify_qp requires attributes per transition (IBA 11.2.5.3).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "roce/params.h"
#include "roce/status.h"
#include "roce/tables.h"
#include "common/idxq.h"
#include "tables/changes.h"
#include "tables/seqlock.h"

#define QP_WORDS (sizeof(struct roce_qp_cfg) / sizeof(uint32_t))
_Static_assert(sizeof(struct roce_qp_cfg) % sizeof(uint32_t) == 0,
	       "a QP context must be a whole number of words");

#define U24_MAX 0xFFFFFFu

struct qp_slot {
	uint32_t seq;
	uint32_t w[QP_WORDS];
};

struct roce_qp_table {
	struct idxq changed;            /* entries the data path must re-read */
	uint32_t count;                 /* QPNs 0..count-1 exist (QP_COUNT) */
	struct qp_slot slot[ROCE_MAX_QP];
};

/* After a write: queue the entry for the data path (tables/changes.h;
 * common/idxq.h: the entry's write is published before the push). */
static void mark_changed(struct roce_qp_table *t, uint32_t qpn)
{
	idxq_push(&t->changed, qpn);
}

static const char *const qp_state_names[] = {
	[ROCE_QPS_RESET] = "RESET", [ROCE_QPS_INIT] = "INIT",
	[ROCE_QPS_RTR] = "RTR",     [ROCE_QPS_RTS] = "RTS",
	[ROCE_QPS_SQD] = "SQD",     [ROCE_QPS_SQE] = "SQE",
	[ROCE_QPS_ERR] = "ERR",
};

const char *roce_qp_state_name(int state)
{
	if (state < 0 || state > ROCE_QPS_ERR)
		return "?";
	return qp_state_names[state];
}

static void cfg_to_words(const struct roce_qp_cfg *c, uint32_t *w)
{
	memcpy(w, c, sizeof(*c));
}

static void words_to_cfg(const uint32_t *w, struct roce_qp_cfg *c)
{
	memcpy(c, w, sizeof(*c));
}

int roce_qp_table_create(struct roce_qp_table **out)
{
	struct roce_qp_table *t;
	struct roce_qp_cfg c;
	uint32_t w[QP_WORDS];

	if (!out)
		return ROCE_E_INVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return ROCE_E_NOMEM;
	if (!idxq_init(&t->changed, ROCE_MAX_QP)) {
		free(t);
		return ROCE_E_NOMEM;
	}
	/* power-on: every QP in RESET, default partition */
	memset(&c, 0, sizeof(c));
	c.pkey = 0xFFFF;
	c.state = ROCE_QPS_RESET;
	for (uint32_t i = 0; i < ROCE_MAX_QP; i++) {
		c.qpn = i;
		cfg_to_words(&c, w);
		memcpy(t->slot[i].w, w, sizeof(w));
	}
	t->count = ROCE_MAX_QP;
	*out = t;
	return ROCE_OK;
}

void roce_qp_table_destroy(struct roce_qp_table *t)
{
	if (!t)
		return;
	idxq_fini(&t->changed);
	free(t);
}

/* IBA 10.3.1 figure 124, restricted to what a host may request. */
static bool qp_transition_ok(unsigned cur, unsigned next)
{
	if (next == ROCE_QPS_RESET || next == ROCE_QPS_ERR)
		return true;
	switch (cur) {
	case ROCE_QPS_RESET:
		return next == ROCE_QPS_INIT;
	case ROCE_QPS_INIT:
		return next == ROCE_QPS_INIT || next == ROCE_QPS_RTR;
	case ROCE_QPS_RTR:
		return next == ROCE_QPS_RTS;
	case ROCE_QPS_RTS:
		return next == ROCE_QPS_RTS || next == ROCE_QPS_SQD;
	case ROCE_QPS_SQD:
	case ROCE_QPS_SQE:
		return next == ROCE_QPS_RTS;
	default:
		return false;
	}
}

/* Encodings every context must respect, whatever its state. */
static int qp_check_ranges(const struct roce_qp_cfg *c)
{
	if (c->state > ROCE_QPS_ERR || c->dest_qpn > U24_MAX ||
	    c->sq_psn > U24_MAX || c->rq_psn > U24_MAX ||
	    c->mtu > ROCE_MTU_4096 || c->timeout > 31 || c->retry_cnt > 7 ||
	    c->rnr_retry > 7 || c->min_rnr_timer > 31 ||
	    c->max_rd_atomic > ROCE_MAX_RD_ATOMIC ||
	    c->max_dest_rd_atomic > ROCE_MAX_RD_ATOMIC ||
	    c->flow_label > ROCE_FIELD_MASK(ROCE_QP_FLOW_LABEL_WIDTH))
		return ROCE_E_RANGE;
	if (c->access & ~0xFu)
		return ROCE_E_INVAL;
	if (c->type != 0 && c->type != ROCE_QPT_RC && c->type != ROCE_QPT_UC &&
	    c->type != ROCE_QPT_UD)
		return ROCE_E_INVAL;
	return ROCE_OK;
}

static bool mac_usable(const uint8_t mac[6])
{
	static const uint8_t zero[6];

	/* unicast (I/G bit clear) and not all zero */
	return !(mac[0] & 1u) && memcmp(mac, zero, 6) != 0;
}

/* A unicast peer: an IPv4 address other than 0, or an IPv6 GID that is
 * not multicast (ff00::/8; :: cannot be one, its high words are not 0). */
static bool peer_usable(const struct roce_qp_cfg *c)
{
	if (roce_qp_dgid_ipv6(c))
		return (c->dgid_hi[0] >> 24) != 0xFFu;
	return c->peer_ip != 0;
}

/* Attributes the target state needs (IBA 11.2.5.3: INIT needs the
 * partition, RTR the path and remote QP, RTS the timers). */
static int qp_check_attrs(const struct roce_qp_cfg *c)
{
	bool connected = c->type == ROCE_QPT_RC || c->type == ROCE_QPT_UC;

	if (c->state == ROCE_QPS_RESET || c->state == ROCE_QPS_ERR)
		return ROCE_OK;
	if (c->type == 0 || (c->pkey & 0x7FFFu) == 0)
		return ROCE_E_INVAL;
	if (c->state == ROCE_QPS_INIT)
		return ROCE_OK;
	if (c->mtu < ROCE_MTU_256)
		return ROCE_E_RANGE;
	if (connected && (!peer_usable(c) || !mac_usable(c->peer_mac)))
		return ROCE_E_INVAL;
	return ROCE_OK;
}

int roce_qp_table_commit(struct roce_qp_table *t, uint32_t qpn,
			 const struct roce_qp_cfg *cfg)
{
	struct qp_slot *slot;
	struct roce_qp_cfg cur, next;
	uint32_t w[QP_WORDS], s;
	int rc;

	if (!t || !cfg)
		return ROCE_E_INVAL;
	if (qpn >= t->count)
		return ROCE_E_QPN;
	next = *cfg;
	next.qpn = qpn;
	rc = qp_check_ranges(&next);
	if (rc != ROCE_OK)
		return rc;

	/* The transition is checked under the entry's lock so an engine
	 * state change (RTS -> ERR) cannot slip in between check and store. */
	slot = &t->slot[qpn];
	s = seq_write_begin(&slot->seq);
	seq_load_held(slot->w, w, QP_WORDS);
	words_to_cfg(w, &cur);
	rc = qp_transition_ok(cur.state, next.state) ? qp_check_attrs(&next)
						     : ROCE_E_STATE;
	if (rc != ROCE_OK) {
		seq_write_abort(&slot->seq, s);
		return rc;
	}
	cfg_to_words(&next, w);
	seq_store_held(slot->w, w, QP_WORDS);
	seq_write_end(&slot->seq, s);
	mark_changed(t, qpn);
	return ROCE_OK;
}

int roce_qp_table_lookup(const struct roce_qp_table *t, uint32_t qpn,
			 struct roce_qp_cfg *out, uint32_t *generation)
{
	uint32_t w[QP_WORDS], s;

	if (qpn >= ROCE_MAX_QP)
		return ROCE_E_QPN;
	s = seq_read(&t->slot[qpn].seq, t->slot[qpn].w, w, QP_WORDS);
	words_to_cfg(w, out);
	if (generation)
		*generation = s >> 1;
	return ROCE_OK;
}

/* What the engine may do on its own (IBA 10.3.1): fail a QP, or stop its
 * send queue on a send error; repeating the current state is a no-op. */
static bool engine_move_ok(unsigned cur, unsigned next)
{
	if (cur == next)
		return true;
	if (next == ROCE_QPS_ERR)
		return cur != ROCE_QPS_RESET;
	return next == ROCE_QPS_SQE && cur == ROCE_QPS_RTS;
}

int roce_qp_table_set_state(struct roce_qp_table *t, uint32_t qpn,
			    enum roce_qp_state st)
{
	struct qp_slot *slot;
	struct roce_qp_cfg c;
	uint32_t w[QP_WORDS], s;

	if (qpn >= ROCE_MAX_QP)
		return ROCE_E_QPN;
	slot = &t->slot[qpn];
	s = seq_write_begin(&slot->seq);
	seq_load_held(slot->w, w, QP_WORDS);
	words_to_cfg(w, &c);
	if (!engine_move_ok(c.state, st)) {
		seq_write_abort(&slot->seq, s);
		return ROCE_E_STATE;
	}
	if (c.state == st) {
		seq_write_abort(&slot->seq, s);
		return ROCE_OK;
	}
	c.state = (uint8_t)st;
	cfg_to_words(&c, w);
	seq_store_held(slot->w, w, QP_WORDS);
	seq_write_end(&slot->seq, s);
	mark_changed(t, qpn);
	return ROCE_OK;
}

void roce_qp_table_reset_all(struct roce_qp_table *t)
{
	for (uint32_t i = 0; i < ROCE_MAX_QP; i++) {
		struct qp_slot *slot = &t->slot[i];
		struct roce_qp_cfg c;
		uint32_t w[QP_WORDS], s;

		s = seq_write_begin(&slot->seq);
		seq_load_held(slot->w, w, QP_WORDS);
		words_to_cfg(w, &c);
		if (c.state == ROCE_QPS_RESET) {
			seq_write_abort(&slot->seq, s);
			continue;
		}
		c.state = ROCE_QPS_RESET;
		cfg_to_words(&c, w);
		seq_store_held(slot->w, w, QP_WORDS);
		seq_write_end(&slot->seq, s);
		mark_changed(t, i);
	}
}


uint32_t roce_qp_table_generation(const struct roce_qp_table *t, uint32_t qpn)
{
	if (qpn >= ROCE_MAX_QP)
		return 0;
	/* as lookup reports it: a write under way still shows the old one */
	return __atomic_load_n(&t->slot[qpn].seq, __ATOMIC_ACQUIRE) >> 1;
}

uint8_t roce_qp_table_state(const struct roce_qp_table *t, uint32_t qpn)
{
	size_t off = offsetof(struct roce_qp_cfg, state);
	uint32_t w;
	uint8_t b[4];

	if (qpn >= ROCE_MAX_QP)
		return ROCE_QPS_RESET;
	/* one word, read atomically: the state byte cannot be torn */
	w = __atomic_load_n(&t->slot[qpn].w[off / 4], __ATOMIC_ACQUIRE);
	memcpy(b, &w, 4);
	return b[off % 4];
}

int roce_qp_table_set_count(struct roce_qp_table *t, uint32_t count)
{
	if (count == 0 || count > ROCE_MAX_QP)
		return ROCE_E_RANGE;
	t->count = count;
	return ROCE_OK;
}

struct idxq *roce_qp_table_change_queue(struct roce_qp_table *t)
{
	return &t->changed;
}
