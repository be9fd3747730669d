/* SPDX-License-Identifier: MIT */
/*
 * A place or a fetch through an MR's stage chain (roce/stage.h,
 * docs/stages.md).
 *
 * The chain works on whole chain units (the data unit, or DEDUP's 4 KiB
 * block): XTS and PI need every byte of a unit. A piece of a packet
 * rarely is one (MTU 1024 into 4096-byte units, a WRITE at an odd
 * offset), so:
 * - a unit a piece covers whole goes through the chain straight from the
 *   packet into DDR (fetch: from DDR into the frame), one pass;
 * - a unit a message covers in several pieces is kept by the message's
 *   stream until its last byte arrives, then goes through once (a
 *   stream's packets arrive in PSN order: go-back-N resends what the
 *   responder has not taken, never what it has);
 * - a unit a message covers only in part (its first or last) is read,
 *   merged and written (read-modify-write) when the message ends.
 * Either way no unit is ever in DDR half-transformed, and placing the
 * same bytes again gives the same DDR.
 *
 * A piece is all or nothing: every read it needs (a merge's, a dedup
 * lookup's confirmation), every check (the key, the PI of what a merge
 * reads, the pool's room) comes before the first byte is written.
 */
#include <stdlib.h>
#include <string.h>

#include "roce/icrc.h"
#include "roce/status.h"
#include "stage/dev.h"

struct stage_stream {
	bool held;                      /* a unit is kept */
	uint32_t mr;
	uint64_t unit;                  /* its number in the MR (logical) */
	uint32_t lo, hi;                /* the bytes arrived: [lo, hi) */
	uint8_t buf[ROCE_STAGE_BLOCK];
};

struct stage_stream *stage_stream_new(void)
{
	return calloc(1, sizeof(struct stage_stream));
}

void stage_stream_free(struct stage_stream *s)
{
	free(s);
}

void stage_stream_drop(struct stage_stream *s)
{
	if (s)
		s->held = false;
}

/* ---- one stored unit ------------------------------------------------------- */

static uint8_t *pi_at(struct stage_dev *d, const struct stage_mr *m, uint64_t number)
{
	return d->mem + m->b.pi_pa + number * ROCE_STAGE_PI_LEN;
}

static void note(struct stage_dev *d, bool write, uint64_t addr, const uint8_t *p,
		 uint32_t len)
{
	if (d->note)
		d->note(d->note_arg, write, addr, p, len);
}

/* The first data unit number of a stored chain unit (its tweak and PI
 * reference, less dun_base): where is the chain unit's number in the MR,
 * or its physical block under DEDUP. */
static uint64_t unit_number(const struct stage_mr *m, uint64_t where)
{
	return where * (m->chain_unit / m->unit);
}

/* plain through the chain into dst (a chain unit at DMA address addr),
 * the rest of the chain wire side first. */
static int store(struct stage_dev *d, const struct stage_mr *m, uint64_t addr,
		 uint8_t *dst, uint64_t number, const uint8_t *plain)
{
	const uint32_t cu = m->chain_unit, n = cu / m->unit;
	const uint8_t *cur = plain;
	int rc;

	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX && m->b.chain[i]; i++) {
		switch (m->b.chain[i]) {
		case ROCE_STAGE_XTS:
			rc = stage_xts(d, m->b.key_slot, true, m->b.dun_base + number, m->unit,
				       cur, dst, cu);
			if (rc)
				return rc;
			cur = dst;
			roce_cnt_add(d->cnt, ROCE_CNT_STAGE_XTS_ENCRYPTED, n);
			break;
		case ROCE_STAGE_PI: {
			uint8_t *pi = pi_at(d, m, number);

			pi_generate(cur, m->unit, n, m->b.app_tag,
				    (uint32_t)(m->b.dun_base + number), pi);
			roce_cnt_add(d->cnt, ROCE_CNT_STAGE_PI_GENERATED, n);
			note(d, true, m->b.pi_pa + number * ROCE_STAGE_PI_LEN, pi,
			     n * ROCE_STAGE_PI_LEN);
			break;
		}
		default:
			break;
		}
	}
	if (cur != dst)
		memcpy(dst, cur, cu);
	note(d, true, addr, dst, cu);
	return ROCE_OK;
}

/* The chain unit at DMA address addr back through the chain (DDR side
 * first) into out: ROCE_E_PI when its PI does not match. */
static int load(struct stage_dev *d, const struct stage_mr *m, uint64_t addr,
		uint64_t number, uint8_t *out)
{
	const uint32_t cu = m->chain_unit, n = cu / m->unit;
	const uint8_t *src = d->resolve(d->resolve_arg, addr, cu), *cur = src;
	uint32_t bad;
	int rc;

	if (!src)
		return ROCE_E_BOUNDS;
	for (int i = ROCE_STAGE_CHAIN_MAX - 1; i >= 0; i--) {
		switch (m->b.chain[i]) {
		case ROCE_STAGE_XTS:
			rc = stage_xts(d, m->b.key_slot, false, m->b.dun_base + number, m->unit,
				       cur, out, cu);
			if (rc)
				return rc;
			cur = out;
			roce_cnt_add(d->cnt, ROCE_CNT_STAGE_XTS_DECRYPTED, n);
			break;
		case ROCE_STAGE_PI:
			roce_cnt_add(d->cnt, ROCE_CNT_STAGE_PI_VERIFIED, n);
			if (pi_verify(cur, m->unit, n, m->b.app_tag,
				      (uint32_t)(m->b.dun_base + number), pi_at(d, m, number),
				      &bad) != ROCE_OK) {
				roce_cnt_inc(d->cnt, ROCE_CNT_STAGE_PI_ERRORS);
				return ROCE_E_PI;
			}
			break;
		default:
			break;
		}
	}
	if (cur != out)
		memcpy(out, cur, cu);
	note(d, false, addr, src, cu);
	return ROCE_OK;
}

static uint64_t pool_addr(const struct stage_mr *m, uint32_t phys)
{
	return m->b.pool_pa + (uint64_t)phys * ROCE_STAGE_BLOCK;
}

/* Logical chain unit u of the MR (DMA base base) as the wire sees it. */
static int read_unit(struct stage_dev *d, const struct stage_mr *m, uint64_t u,
		     uint8_t *out)
{
	uint32_t phys;

	if (!m->dedup)
		return load(d, m, m->dma_base + u * m->chain_unit, unit_number(m, u), out);
	phys = dedup_map(m->dd, (uint32_t)u);
	if (phys == DEDUP_NONE) {
		memset(out, 0, m->chain_unit);  /* never written: zeros */
		return ROCE_OK;
	}
	return load(d, m, pool_addr(m, phys), unit_number(m, phys), out);
}

struct same_ctx {
	struct stage_dev *d;
	const struct stage_mr *m;
};

/* DEDUP's confirmation: physical block phys holds exactly plain (a block
 * whose PI fails is never shared). */
static bool same_block(void *arg, uint32_t phys, const uint8_t *plain)
{
	struct same_ctx *c = arg;
	uint8_t *tmp = c->d->scratch[STAGE_SCRATCH_SAME];

	return load(c->d, c->m, pool_addr(c->m, phys), unit_number(c->m, phys), tmp) ==
		       ROCE_OK &&
	       memcmp(tmp, plain, ROCE_STAGE_BLOCK) == 0;
}

/* ---- place ------------------------------------------------------------------ */

/* One chain unit a piece writes. */
struct unit_op {
	uint64_t u;                     /* logical number in the MR */
	const uint8_t *plain;           /* its bytes as the wire has them */
	uint8_t *rmw;                   /* a merge: read into it first, then */
	const uint8_t *ov;              /* ... these bytes over [ov_lo, ov_hi) */
	uint32_t ov_lo, ov_hi;
	const uint8_t *ov2;             /* ... then these over [ov2_lo, ov2_hi) */
	uint32_t ov2_lo, ov2_hi;
	uint64_t addr;                  /* where it is stored (no DEDUP) */
	uint8_t *dst;
	struct dedup_plan plan;         /* where it is stored (DEDUP) */
};

#define PLACE_CHUNK ROCE_STAGE_BLOCK     /* pieces are taken this much at once */
#define MAX_OPS (PLACE_CHUNK / (1u << ROCE_STAGE_UNIT_MIN_SHIFT) + 1)

static bool key_ready(struct stage_dev *d, const struct stage_mr *m)
{
	return !roce_stage_has(&m->b, ROCE_STAGE_XTS) ||
	       (stage_keys_loaded(d) >> m->b.key_slot & 1u);
}

/* Everything that may fail, before any byte is written: the merges'
 * reads, the destinations, DEDUP's plans. */
static int prepare(struct stage_dev *d, const struct stage_mr *m, struct unit_op *op,
		   unsigned nops)
{
	struct same_ctx sc = { d, m };
	unsigned i;
	int rc = ROCE_OK;

	if (!key_ready(d, m))
		return ROCE_E_STAGE;
	for (i = 0; i < nops; i++) {
		if (!op[i].rmw)
			continue;
		rc = read_unit(d, m, op[i].u, op[i].rmw);
		if (rc)
			return rc;
		memcpy(op[i].rmw + op[i].ov_lo, op[i].ov, op[i].ov_hi - op[i].ov_lo);
		if (op[i].ov2)
			memcpy(op[i].rmw + op[i].ov2_lo, op[i].ov2, op[i].ov2_hi - op[i].ov2_lo);
		op[i].plain = op[i].rmw;
	}
	if (!m->dedup) {
		for (i = 0; i < nops; i++) {
			op[i].addr = m->dma_base + op[i].u * m->chain_unit;
			op[i].dst = d->resolve(d->resolve_arg, op[i].addr, m->chain_unit);
			if (!op[i].dst)
				return ROCE_E_BOUNDS;
		}
		return ROCE_OK;
	}
	for (i = 0; i < nops; i++) {
		rc = dedup_plan(m->dd, (uint32_t)op[i].u, op[i].plain, same_block, &sc,
				&op[i].plan);
		roce_cnt_inc(d->cnt, ROCE_CNT_STAGE_DEDUP_LOOKUPS);
		if (rc)
			break;
	}
	if (rc)
		while (i--)
			dedup_cancel(m->dd, &op[i].plan);
	return rc;
}

/* Write what prepare() made ready: nothing here fails but a key cleared
 * in between (then the unit is left as it was). */
static int commit(struct stage_dev *d, struct stage_mr *m, struct unit_op *op,
		  unsigned nops)
{
	struct dedup_stats before, after;
	int rc = ROCE_OK;

	if (!m->dedup) {
		for (unsigned i = 0; i < nops && !rc; i++)
			rc = store(d, m, op[i].addr, op[i].dst, unit_number(m, op[i].u),
				   op[i].plain);
		m->gen++;
		return rc;
	}
	dedup_stats(m->dd, &before);
	for (unsigned i = 0; i < nops; i++) {
		struct dedup_plan *p = &op[i].plan;

		if (p->hit) {
			roce_cnt_inc(d->cnt, ROCE_CNT_STAGE_DEDUP_HITS);
		} else {
			uint64_t a = pool_addr(m, p->phys);

			if (!rc)
				rc = store(d, m, a, d->mem + a, unit_number(m, p->phys), op[i].plain);
			if (rc) {
				dedup_cancel(m->dd, p);
				continue;
			}
		}
		dedup_commit(m->dd, p);
	}
	dedup_stats(m->dd, &after);
	stage_dedup_levels(d, (int64_t)after.in_use - before.in_use,
			   ((int64_t)after.mapped - after.in_use) -
				   ((int64_t)before.mapped - before.in_use));
	m->gen++;
	return rc;
}

static void fail(struct stage_dev *d, struct stage_stream *s)
{
	roce_cnt_inc(d->cnt, ROCE_CNT_STAGE_ERRORS);
	stage_stream_drop(s);
}

/* The unit a stream keeps, completed from what DDR holds (its message
 * moved on without finishing it). */
static int flush_held(struct stage_dev *d, struct stage_stream *s)
{
	struct stage_mr *m = d->mr[s->mr];
	struct unit_op op = { 0 };
	int rc;

	s->held = false;
	if (!m)
		return ROCE_OK;         /* the MR went: its bytes with it */
	op.u = s->unit;
	op.rmw = d->scratch[STAGE_SCRATCH_HEAD];
	op.ov = s->buf + s->lo;
	op.ov_lo = s->lo;
	op.ov_hi = s->hi;
	rc = prepare(d, m, &op, 1);
	return rc ? rc : commit(d, m, &op, 1);
}

/* What a piece leaves its stream keeping: [lo, hi) of unit, the bytes
 * from copy_lo on taken from src. */
struct keep {
	bool on;
	uint64_t unit;
	uint32_t lo, hi, copy_lo;
	const uint8_t *src;
};

/* One chunk of a piece (at most PLACE_CHUNK bytes): all of it or none. */
static int place_chunk(struct stage_dev *d, struct stage_stream *s, struct stage_mr *m,
		       uint32_t mr, uint64_t off, const uint8_t *src, uint32_t len,
		       bool last)
{
	const uint32_t cu = m->chain_unit;
	const uint64_t u0 = off / cu, u1 = (off + len - 1) / cu;
	struct unit_op op[MAX_OPS];
	struct keep k = { 0 };
	unsigned nops = 0, nscratch = 0;
	bool cont;
	int rc;

	cont = s && s->held && s->mr == mr && s->unit == u0 && s->hi == off % cu;
	if (s && s->held && !cont) {
		rc = flush_held(d, s);
		if (rc)
			return rc;
	}
	for (uint64_t u = u0; u <= u1; u++) {
		uint32_t lo = u == u0 ? (uint32_t)(off % cu) : 0;
		uint32_t hi = u == u1 ? (uint32_t)((off + len - 1) % cu) + 1 : cu;
		const uint8_t *p = src + (u * cu + lo - off);
		/* the stream's unit goes on from its first byte kept */
		uint32_t from = u == u0 && cont ? s->lo : lo;
		struct unit_op *o = &op[nops];

		memset(o, 0, sizeof(*o));
		o->u = u;
		if (from == 0 && hi == cu) {
			if (u == u0 && cont) {
				memcpy(s->buf + lo, p, hi - lo);
				p = s->buf;
			}
			o->plain = p;           /* whole: straight through */
			nops++;
		} else if (s && u == u1 && !last) {
			k = (struct keep){ true, u, from, hi, lo, p };
		} else {
			/* a merge: DDR's unit, the bytes kept, this piece's */
			o->rmw = d->scratch[nscratch++];
			if (u == u0 && cont) {
				o->ov = s->buf + s->lo;
				o->ov_lo = s->lo;
				o->ov_hi = lo;
				o->ov2 = p;
				o->ov2_lo = lo;
				o->ov2_hi = hi;
			} else {
				o->ov = p;
				o->ov_lo = lo;
				o->ov_hi = hi;
			}
			nops++;
		}
	}
	rc = prepare(d, m, op, nops);
	if (!rc)
		rc = commit(d, m, op, nops);
	if (rc)
		return rc;
	if (s) {
		/* after the commit: a unit above may have read s->buf */
		s->held = k.on;
		if (k.on) {
			memcpy(s->buf + k.copy_lo, k.src, k.hi - k.copy_lo);
			s->mr = mr;
			s->unit = k.unit;
			s->lo = k.lo;
			s->hi = k.hi;
		}
	}
	return ROCE_OK;
}

int stage_place(struct stage_dev *d, struct stage_stream *s, const struct stage_pos *at,
		const uint8_t *src, uint32_t len, bool last)
{
	struct stage_mr *m = at->mr < ROCE_MAX_MR ? d->mr[at->mr] : NULL;
	uint64_t off = at->off;
	int rc = ROCE_OK;

	if (!m) {
		fail(d, s);
		return ROCE_E_STAGE;
	}
	while (len && !rc) {
		uint32_t n = len < PLACE_CHUNK ? len : PLACE_CHUNK;

		rc = place_chunk(d, s, m, at->mr, off, src, n, last && n == len);
		off += n;
		src += n;
		len -= n;
	}
	if (!rc && last && s && s->held)
		rc = flush_held(d, s);
	if (rc)
		fail(d, s);
	return rc;
}

/* ---- fetch ------------------------------------------------------------------- */

static uint32_t out_bytes(uint8_t *dst, const uint8_t *src, uint32_t len, uint32_t *crc,
			  uint32_t c)
{
	if (!crc) {
		if (dst != src)
			memcpy(dst, src, len);
		return c;
	}
	return dst == src ? roce_crc32(c, dst, len) : roce_crc32_copy(c, dst, src, len);
}

/* A chain that leaves the bytes as the wire has them (no XTS) on a DDR
 * MR: a unit is checked where it is stored and its bytes go to the frame
 * from there, in the pass that takes the ICRC (no copy of the unit); a
 * DEDUP logical block never written reads from a unit of zeros. *p is
 * where the unit's bytes are. */
static const uint8_t zero_unit[ROCE_STAGE_BLOCK];

static bool stored_as_sent(const struct stage_mr *m)
{
	return m->space == ROCE_MR_SPACE_DDR && !roce_stage_has(&m->b, ROCE_STAGE_XTS);
}

static int check_stored(struct stage_dev *d, const struct stage_mr *m, uint64_t u,
			const uint8_t **p)
{
	const uint32_t cu = m->chain_unit, n = cu / m->unit;
	uint64_t addr = m->dma_base + u * cu, number = unit_number(m, u);
	uint32_t bad;

	if (m->dedup) {
		uint32_t phys = dedup_map(m->dd, (uint32_t)u);

		if (phys == DEDUP_NONE) {
			*p = zero_unit;
			return ROCE_OK;
		}
		addr = pool_addr(m, phys);
		number = unit_number(m, phys);
	}
	*p = d->resolve(d->resolve_arg, addr, cu);
	if (!*p)
		return ROCE_E_BOUNDS;
	if (roce_stage_has(&m->b, ROCE_STAGE_PI)) {
		roce_cnt_add(d->cnt, ROCE_CNT_STAGE_PI_VERIFIED, n);
		if (pi_verify(*p, m->unit, n, m->b.app_tag, (uint32_t)(m->b.dun_base + number),
			      pi_at(d, m, number), &bad) != ROCE_OK) {
			roce_cnt_inc(d->cnt, ROCE_CNT_STAGE_PI_ERRORS);
			return ROCE_E_PI;
		}
	}
	note(d, false, addr, *p, cu);
	return ROCE_OK;
}

int stage_fetch(struct stage_dev *d, const struct stage_pos *at, uint8_t *dst,
		uint32_t len, uint32_t *crc)
{
	struct stage_mr *m = at->mr < ROCE_MAX_MR ? d->mr[at->mr] : NULL;
	struct stage_cache *c = &d->cache;
	uint64_t off = at->off;
	uint32_t v = crc ? *crc : 0;
	bool as_sent;
	int rc;

	if (!m) {
		roce_cnt_inc(d->cnt, ROCE_CNT_STAGE_ERRORS);
		return ROCE_E_STAGE;
	}
	as_sent = stored_as_sent(m);
	while (len) {
		const uint32_t cu = m->chain_unit;
		uint64_t u = off / cu;
		uint32_t in = (uint32_t)(off % cu), n = cu - in < len ? cu - in : len;
		const uint8_t *src;

		if (n == cu && !as_sent) {
			/* whole: from DDR into the frame, then its CRC while
			   the bytes are in cache */
			rc = read_unit(d, m, u, dst);
			if (rc)
				goto failed;
			src = dst;
		} else if (n == cu) {
			rc = check_stored(d, m, u, &src);
			if (rc)
				goto failed;
		} else {
			/* a part: the unit once (into the cache, or checked
			   where it is); a fetch that goes on where the last one
			   stopped (the next packet of a READ response) takes
			   the rest from there */
			if (!(c->valid && c->mr == at->mr && c->unit == u && c->gen == m->gen &&
			      c->next == off)) {
				c->valid = false;
				c->stored = NULL;
				rc = as_sent ? check_stored(d, m, u, &c->stored)
					     : read_unit(d, m, u, c->buf);
				if (rc)
					goto failed;
				c->valid = true;
				c->mr = at->mr;
				c->unit = u;
				c->gen = m->gen;
			}
			c->next = off + n;
			src = (c->stored ? c->stored : c->buf) + in;
		}
		v = out_bytes(dst, src, n, crc, v);
		off += n;
		dst += n;
		len -= n;
	}
	if (crc)
		*crc = v;
	return ROCE_OK;
failed:
	roce_cnt_inc(d->cnt, ROCE_CNT_STAGE_ERRORS);
	return rc;
}

/* ---- binding ------------------------------------------------------------------ */

int stage_mr_adopt(struct stage_dev *d, struct stage_mr *m)
{
	const uint32_t unit = m->unit;
	bool pi_stored = false;
	uint64_t n = m->len / unit;

	/* PI over what is stored (PI after XTS, or no XTS): its tuples are
	 * made over the bytes as they are. Over the plaintext (PI before
	 * XTS) they need the key: taken when it is there, else units read
	 * before they are first written fail their check. */
	if (m->dedup || !roce_stage_has(&m->b, ROCE_STAGE_PI))
		return ROCE_OK;
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX && m->b.chain[i]; i++) {
		if (m->b.chain[i] == ROCE_STAGE_XTS)
			pi_stored = true;
		if (m->b.chain[i] == ROCE_STAGE_PI)
			break;
	}
	pi_stored = pi_stored || !roce_stage_has(&m->b, ROCE_STAGE_XTS);
	if (!pi_stored && !key_ready(d, m))
		return ROCE_OK;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *p = d->resolve(d->resolve_arg, m->dma_base + i * unit, unit);
		uint8_t *tmp = d->scratch[STAGE_SCRATCH_SAME];

		if (!p)
			return ROCE_E_BOUNDS;
		if (!pi_stored) {
			int rc = stage_xts(d, m->b.key_slot, false, m->b.dun_base + i, unit, p,
					   tmp, unit);

			if (rc)
				return rc;
			p = tmp;
		}
		pi_tuple(p, unit, m->b.app_tag, (uint32_t)(m->b.dun_base + i), pi_at(d, m, i));
	}
	note(d, true, m->b.pi_pa, pi_at(d, m, 0), (uint32_t)(n * ROCE_STAGE_PI_LEN));
	return ROCE_OK;
}
