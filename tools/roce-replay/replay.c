/* SPDX-License-Identifier: MIT */
/*
 * Replay: every NIC of the trace becomes a fresh model (roce/sim.h) made
 * with its create record's arguments. The trace's calls (register
 * accesses, frames in, DDR accesses, posts, pulls, polls, clock advances)
 * are made on it in the trace's order, each at its record's time, and
 * every record the model then produces (the call's own, and the DMA it
 * causes) must be the trace's next record of that NIC: same time, kind,
 * fields and bytes. The first that is not is the mismatch.
 *
 * A key record (a LOAD of a key slot) names the slot, never the key: the
 * replay writes the key from --key-file into the key words (their own
 * records say 0) before the LOAD command the record stands before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce-replay/replay.h"
#include "sim/sim_priv.h"
#include "roce/regs.h"
#include "roce/stage.h"

#define MAX_NICS 64

struct nic {
	struct roce_sim *s;
	unsigned *idx;          /* the trace's records of this NIC, in order */
	unsigned n, pos;        /* pos: the next one the model must produce */
};

struct replay {
	const struct trace_file *t;
	const struct replay_keys *keys;
	struct nic nic[MAX_NICS];
	bool bad;               /* a mismatch was shown */
};

struct obs {
	struct replay *rp;
	struct nic *n;
};

static void mismatch(struct replay *rp, int i, const struct trace_rec *got, const char *why)
{
	static char line[TRACE_LINE_MAX];

	if (rp->bad)
		return;
	rp->bad = true;
	if (got)
		trace_format(got, line, sizeof(line));
	show_mismatch(rp->t, i, got ? line : NULL, why);
}

/* Each record the model produces against the trace's next one. */
static void observe(void *arg, const struct trace_rec *r)
{
	struct obs *o = arg;
	struct nic *n = o->n;
	const struct trace_rec *want;
	int i;

	if (o->rp->bad)
		return;
	if (n->pos >= n->n) {
		mismatch(o->rp, -1, r, "the model produced a record the trace does not have");
		return;
	}
	i = (int)n->idx[n->pos++];
	want = &o->rp->t->rec[i].r;
	if (!trace_rec_equal(want, r))
		mismatch(o->rp, i, r, "the model's record differs");
	else if (want->t != r->t)
		mismatch(o->rp, i, r, "the model's record comes at another time");
}

static int index_nics(struct replay *rp)
{
	const struct trace_file *t = rp->t;

	for (unsigned i = 0; i < t->n; i++) {
		uint32_t id = t->rec[i].r.nic;
		struct nic *n;

		if (id >= MAX_NICS) {
			fprintf(stderr, "roce-replay: %s:%u: NIC %u: at most %u NICs\n",
				t->path, t->rec[i].line, id, MAX_NICS);
			return 2;
		}
		n = &rp->nic[id];
		/* host memory is the host's, not the model's: the sim has none,
		 * so a replay cannot make these, and leaves them out (--compare
		 * compares them) */
		if (t->rec[i].r.kind == TR_HDMA_WR || t->rec[i].r.kind == TR_HDMA_RD)
			continue;
		if ((n->n == 0) != (t->rec[i].r.kind == TR_CREATE)) {
			fprintf(stderr, "roce-replay: %s:%u: %s\n", t->path, t->rec[i].line,
				n->n ? "a second create for this NIC"
				     : "the NIC's first record must be create");
			return 2;
		}
		if ((n->n & (n->n - 1)) == 0) {
			unsigned *p = realloc(n->idx, (n->n ? 2 * n->n : 64) * sizeof(*p));

			if (!p)
				return 2;
			n->idx = p;
		}
		n->idx[n->n++] = i;
	}
	return 0;
}

static void call(struct roce_sim *s, const struct trace_rec *r)
{
	static unsigned char buf[ROCE_SIM_FRAME_MAX];
	unsigned long long wr_id;
	unsigned int v, qpn, len;
	int status, opcode;

	switch (r->kind) {
	case TR_REG_WR:
		roce_sim_axil_write(s, (unsigned)r->addr, r->data);
		break;
	case TR_REG_RD:
		roce_sim_axil_read(s, (unsigned)r->addr, &v);
		break;
	case TR_FRAME_IN:
		roce_sim_push_frame(s, r->bytes, (int)r->len);
		break;
	case TR_FRAME_OUT:
		roce_sim_pull_frame(s, buf);
		break;
	case TR_MEM_WR:
		roce_sim_mem_write(s, r->addr, r->bytes, (int)r->len);
		break;
	case TR_MEM_RD:
		roce_sim_mem_read(s, r->addr, buf, (int)(r->len > ROCE_SIM_MEM_CHUNK ? 0 : r->len));
		break;
	case TR_POST_SEND:
		roce_sim_post_send(s, r->qpn, (int)r->op, r->wr_id, r->addr, r->lkey, r->len,
				   r->raddr, r->rkey);
		break;
	case TR_POST_RECV:
		roce_sim_post_recv(s, r->qpn, r->wr_id, r->addr, r->lkey, r->len);
		break;
	case TR_CQE:
		roce_sim_poll_cq(s, &wr_id, &status, &opcode, &qpn, &len);
		break;
	default:
		break;
	}
}

/* Slot's key from --key-file, or NULL. */
static const uint8_t *key_of(const struct replay_keys *k, uint32_t slot)
{
	if (!k || !k->key)
		return NULL;
	if (k->every_slot)
		return k->key;
	return slot < k->n ? k->key + (size_t)slot * ROCE_STAGE_KEY_LEN : NULL;
}

/* Every LOAD the trace makes has its key, before anything is replayed:
 * else one line naming the slot. */
static int keys_present(const struct replay *rp)
{
	const struct trace_file *t = rp->t;

	for (unsigned i = 0; i < t->n; i++) {
		const struct trace_rec *r = &t->rec[i].r;

		if (r->kind == TR_KEY && r->op == TRACE_KEY_LOAD && !key_of(rp->keys, r->qpn)) {
			fprintf(stderr, "roce-replay: %s:%u: key slot %u is loaded here and a trace "
				"never holds a key: give its key with --key-file FILE\n", t->path,
				t->rec[i].line, r->qpn);
			return 2;
		}
	}
	return 0;
}

/* The key words of a LOAD, straight into the device: the trace's own
 * writes of them carry 0, and this is no call of the trace's. */
static void put_key(struct roce_sim *s, const uint8_t *key)
{
	for (unsigned w = 0; w < ROCE_STAGE_KEY_LEN / 4; w++) {
		const uint8_t *b = key + 4 * w;

		roce_device_write32(s->dev, ROCE_REG_STAGE_KEY(w), (uint32_t)b[0] |
				    (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				    (uint32_t)b[3] << 24);
	}
}

/* Record i of the trace: make the call it stands for on its NIC. */
static int step(struct replay *rp, struct obs *obs, unsigned i)
{
	const struct rec *e = &rp->t->rec[i];
	const struct trace_rec *r = &e->r;
	struct nic *n = &rp->nic[r->nic];
	unsigned before = n->pos;
	uint64_t now;

	if (r->kind == TR_DMA_WR || r->kind == TR_DMA_RD ||
	    r->kind == TR_HDMA_WR || r->kind == TR_HDMA_RD)
		return 0;               /* produced by a call, not one */
	if (r->kind == TR_KEY) {
		/* the model writes it itself with the command's wr, next */
		if (n->s && r->op == TRACE_KEY_LOAD)
			put_key(n->s, key_of(rp->keys, r->qpn));
		return 0;
	}
	if (r->kind == TR_CREATE) {
		n->s = roce_sim_create(r->addr, r->data, r->len, r->qpn, r->op);
		if (!n->s) {
			fprintf(stderr, "roce-replay: %s:%u: the model refuses these arguments\n",
				rp->t->path, e->line);
			return 2;
		}
		obs[r->nic] = (struct obs){ rp, n };
		sim_observe(n->s, observe, &obs[r->nic], r->nic);
		return 0;
	}
	now = roce_sim_now(n->s);
	if (r->t < now) {
		mismatch(rp, (int)i, NULL, "the trace's time goes back");
		return 1;
	}
	if (r->kind == TR_ADV)
		roce_sim_advance(n->s, r->t - now);
	else {
		if (r->t > now)
			roce_sim_advance(n->s, r->t - now);
		call(n->s, r);
	}
	if (!rp->bad && n->pos == before)
		mismatch(rp, (int)n->idx[before], NULL, "the model did not produce it");
	return rp->bad;
}

int replay_run(const struct trace_file *t, const struct replay_keys *keys)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	struct obs *obs = calloc(MAX_NICS, sizeof(*obs));
	int rc = 2;

	if (!rp || !obs)
		goto out;
	rp->t = t;
	rp->keys = keys;
	if ((rc = keys_present(rp)) != 0 || (rc = index_nics(rp)) != 0)
		goto out;
	for (unsigned i = 0; i < t->n && rc == 0; i++)
		rc = step(rp, obs, i);
	for (unsigned k = 0; k < MAX_NICS && rc == 0; k++)
		if (rp->nic[k].pos < rp->nic[k].n) {
			mismatch(rp, (int)rp->nic[k].idx[rp->nic[k].pos], NULL,
				 "the model did not produce it");
			rc = 1;
		}
	if (rc == 0)
		printf("roce-replay: %s: %u records, every output matches\n", t->path, t->n);
out:
	for (unsigned k = 0; rp && k < MAX_NICS; k++) {
		roce_sim_destroy(rp->nic[k].s);
		free(rp->nic[k].idx);
	}
	free(rp);
	free(obs);
	return rc;
}
