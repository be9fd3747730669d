/* SPDX-License-Identifier: MIT */
/*
 * The transaction trace's format, writer and parser (docs/trace.md).
 *
 * One table says, for every kind, its name, whether it is an input, its
 * fields (name, member, base) in the order they are written and whether
 * the record ends with bytes. trace_format walks it to write a line and
 * trace_parse to read one, in the same order, so the two agree by
 * construction. Numbers are written without leading zeros (SystemVerilog's
 * %0h and %0d), hex without 0x; the parser accepts leading zeros, so a
 * testbench may pad.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <time.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/hex.h"
#include "common/trace.h"
#include "roce/regs.h"
#include "roce/stage.h"

_Static_assert(TRACE_KEY_LOAD == ROCE_STAGE_KEY_CMD_LOAD &&
	       TRACE_KEY_CLEAR == ROCE_STAGE_KEY_CMD_CLEAR, "a key record's op is the command's");

/* SDEC: signed (a return code); KEYOP: a key record's op by name */
enum base { HEX, DEC, SDEC, KEYOP };

static const char *const key_ops[] = { [TRACE_KEY_LOAD] = "load", [TRACE_KEY_CLEAR] = "clear" };
#define KEY_OPS (sizeof(key_ops) / sizeof(key_ops[0]))

struct field {
	const char *name;
	enum base base;
	uint8_t size;           /* 4 or 8 */
	uint16_t off;
};

#define FLD(n, m, b) { n, b, sizeof(((struct trace_rec *)0)->m), offsetof(struct trace_rec, m) }
#define MAX_FIELDS 9

struct kind_desc {
	const char *name;
	bool input;
	bool bytes;             /* the line ends with len bytes in hex */
	struct field f[MAX_FIELDS];
};

static const struct kind_desc kinds[TR_KINDS] = {
	[TR_CREATE] = { "create", true, false, {
		FLD("mac", addr, HEX), FLD("ip", data, HEX), FLD("mem_kib", len, DEC),
		FLD("qp_count", qpn, DEC), FLD("link_delay_us", op, DEC) } },
	[TR_ADV] = { "adv", true, false, { { NULL, HEX, 0, 0 } } },
	[TR_REG_WR] = { "wr", true, false, {
		FLD("addr", addr, HEX), FLD("data", data, HEX), FLD("resp", resp, SDEC) } },
	[TR_REG_RD] = { "rd", true, false, {
		FLD("addr", addr, HEX), FLD("data", data, HEX), FLD("resp", resp, SDEC) } },
	[TR_FRAME_IN] = { "fin", true, true, { FLD("len", len, DEC) } },
	[TR_FRAME_OUT] = { "fout", false, true, { FLD("len", len, DEC) } },
	[TR_MEM_WR] = { "memwr", true, true, { FLD("addr", addr, HEX), FLD("len", len, DEC) } },
	[TR_MEM_RD] = { "memrd", false, true, { FLD("addr", addr, HEX), FLD("len", len, DEC) } },
	[TR_DMA_WR] = { "dmawr", false, true, { FLD("addr", addr, HEX), FLD("len", len, DEC) } },
	[TR_DMA_RD] = { "dmard", false, true, { FLD("addr", addr, HEX), FLD("len", len, DEC) } },
	[TR_POST_SEND] = { "post", true, false, {
		FLD("qpn", qpn, DEC), FLD("op", op, DEC), FLD("wr_id", wr_id, HEX),
		FLD("laddr", addr, HEX), FLD("lkey", lkey, HEX), FLD("len", len, DEC),
		FLD("raddr", raddr, HEX), FLD("rkey", rkey, HEX), FLD("ret", resp, SDEC) } },
	[TR_POST_RECV] = { "recv", true, false, {
		FLD("qpn", qpn, DEC), FLD("wr_id", wr_id, HEX), FLD("laddr", addr, HEX),
		FLD("lkey", lkey, HEX), FLD("len", len, DEC), FLD("ret", resp, SDEC) } },
	[TR_CQE] = { "cqe", false, false, {
		FLD("qpn", qpn, DEC), FLD("wr_id", wr_id, HEX), FLD("status", resp, SDEC),
		FLD("opcode", op, DEC), FLD("len", len, DEC) } },
	/* host memory through the IOMMU: addr is the IOVA; its own kinds, so
	 * that a DDR stream compares alike whether buffers are in DDR or not */
	[TR_HDMA_WR] = { "hdmawr", false, true, { FLD("addr", addr, HEX), FLD("len", len, DEC) } },
	[TR_HDMA_RD] = { "hdmard", false, true, { FLD("addr", addr, HEX), FLD("len", len, DEC) } },
	/* the STAGE block's LOAD or CLEAR of a key slot, written before the
	 * command's wr: the slot and what was done, never the key (its words
	 * are traced as 0); a replay loads the slot from a key file */
	[TR_KEY] = { "key", true, false, { FLD("slot", qpn, DEC), FLD("op", op, KEYOP) } },
};

#define BYTES_MAX 4224u         /* ROCE_MAX_FRAME; DDR records are shorter */

const char *trace_kind_name(enum trace_kind k)
{
	return (unsigned)k < TR_KINDS ? kinds[k].name : "?";
}

bool trace_kind_is_input(enum trace_kind k)
{
	return (unsigned)k < TR_KINDS && kinds[k].input;
}

static uint64_t get(const struct trace_rec *r, const struct field *f)
{
	const char *p = (const char *)r + f->off;

	if (f->size == 8)
		return *(const uint64_t *)(const void *)p;
	return *(const uint32_t *)(const void *)p;
}

static void put(struct trace_rec *r, const struct field *f, uint64_t v)
{
	char *p = (char *)r + f->off;

	if (f->size == 8)
		*(uint64_t *)(void *)p = v;
	else
		*(uint32_t *)(void *)p = (uint32_t)v;
}

int trace_format(const struct trace_rec *r, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	const struct kind_desc *k = &kinds[r->kind];
	size_t n;

	n = (size_t)snprintf(buf, size, "%" PRIu64 " %" PRIu32 " %s", r->t, r->nic, k->name);
	for (const struct field *f = k->f; f < k->f + MAX_FIELDS && f->name && n < size; f++) {
		uint64_t v = get(r, f);

		if (f->base == HEX)
			n += (size_t)snprintf(buf + n, size - n, " %s=%" PRIx64, f->name, v);
		else if (f->base == DEC)
			n += (size_t)snprintf(buf + n, size - n, " %s=%" PRIu64, f->name, v);
		else if (f->base == KEYOP)
			n += (size_t)snprintf(buf + n, size - n, " %s=%s", f->name,
					      v < KEY_OPS && key_ops[v] ? key_ops[v] : "?");
		else
			n += (size_t)snprintf(buf + n, size - n, " %s=%" PRId32, f->name,
					      (int32_t)(uint32_t)v);
	}
	if (k->bytes && r->len && r->bytes && n + 1 + 2 * (size_t)r->len < size) {
		buf[n++] = ' ';
		for (uint32_t i = 0; i < r->len; i++) {
			buf[n++] = hex[r->bytes[i] >> 4];
			buf[n++] = hex[r->bytes[i] & 15];
		}
	}
	if (n >= size)
		n = size - 1;
	buf[n] = '\0';
	return (int)n;
}

struct trace_writer {
	FILE *f;
	uint64_t t0;            /* CLOCK_MONOTONIC of the first real-time record */
	pthread_mutex_t lock;   /* an engine thread and the host's may share it */
	char line[TRACE_LINE_MAX];
};

uint64_t trace_writer_real_ns(struct trace_writer *w)
{
	uint64_t now = roce_now_ns();

	/* the first record's time is real time's zero: a trace on a virtual
	 * clock never reads the wall clock */
	pthread_mutex_lock(&w->lock);
	if (!w->t0)
		w->t0 = now;
	now -= w->t0;
	pthread_mutex_unlock(&w->lock);
	return now;
}

struct trace_writer *trace_writer_open(const char *path)
{
	struct trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = fopen(path, "w");
	if (!w->f) {
		int e = errno;

		free(w);
		errno = e;
		return NULL;
	}
	/* a frame's line is 8 KiB: buffer many before a write(2) */
	setvbuf(w->f, NULL, _IOFBF, 1u << 20);
	fprintf(w->f, "%s\n", TRACE_MAGIC);
	pthread_mutex_init(&w->lock, NULL);
	return w;
}

void trace_writer_close(struct trace_writer *w)
{
	if (!w)
		return;
	fclose(w->f);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void trace_write(struct trace_writer *w, const struct trace_rec *r)
{
	int n;

	pthread_mutex_lock(&w->lock);
	n = trace_format(r, w->line, sizeof(w->line));
	w->line[n] = '\n';
	fwrite(w->line, 1, (size_t)n + 1, w->f);
	pthread_mutex_unlock(&w->lock);
}

/* ---- parsing -------------------------------------------------------------- */

/* The next space-separated token of *s: its start, its length in *len. */
static const char *token(const char **s, size_t *len)
{
	const char *p = *s, *start;

	while (*p == ' ' || *p == '\t')
		p++;
	start = p;
	while (*p && *p != ' ' && *p != '\t' && *p != '\r')
		p++;
	*len = (size_t)(p - start);
	while (*p == '\r')
		p++;
	*s = p;
	return *len ? start : NULL;
}

static int number(const char *t, size_t len, enum base b, uint64_t *v)
{
	uint64_t x = 0;
	bool neg = false;

	if (b == KEYOP) {
		for (size_t i = 0; i < KEY_OPS; i++)
			if (key_ops[i] && strlen(key_ops[i]) == len && !strncmp(t, key_ops[i], len)) {
				*v = i;
				return 0;
			}
		return -1;
	}
	if (b == SDEC && len > 1 && t[0] == '-') {
		neg = true;
		t++;
		len--;
	}
	if (len == 0 || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int d = b == HEX ? roce_hexval(t[i]) : (t[i] >= '0' && t[i] <= '9' ? t[i] - '0' : -1);
		uint64_t next;

		if (d < 0)
			return -1;
		next = x * (b == HEX ? 16u : 10u) + (uint64_t)d;
		if ((b == HEX && x >> 60) || (b != HEX && next / 10u != x))
			return -1;
		x = next;
	}
	if (b == SDEC && x > (neg ? 0x80000000ull : 0x7fffffffull))
		return -1;
	*v = neg ? (uint64_t)(uint32_t)-(int64_t)x : x;
	return 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int parse_fields(const char **s, const struct kind_desc *k, struct trace_rec *r,
			char *err, size_t errlen)
{
	for (const struct field *f = k->f; f < k->f + MAX_FIELDS && f->name; f++) {
		size_t len, nl = strlen(f->name);
		const char *t = token(s, &len);
		uint64_t v;

		if (!t || len <= nl + 1 || strncmp(t, f->name, nl) || t[nl] != '=')
			FAIL("%s: field %u must be %s=", k->name, (unsigned)(f - k->f) + 1, f->name);
		if (number(t + nl + 1, len - nl - 1, f->base, &v) ||
		    (f->size == 4 && f->base != SDEC && v > UINT32_MAX))
			FAIL("%s: bad value in '%.*s'", k->name, (int)len, t);
		put(r, f, v);
	}
	return 0;
}

static int parse_bytes(const char **s, struct trace_rec *r, uint8_t *bytes,
		       char *err, size_t errlen)
{
	size_t len;
	const char *t = token(s, &len);

	if (r->len > BYTES_MAX)
		FAIL("len %" PRIu32 " beyond %u bytes", r->len, BYTES_MAX);
	if (r->len == 0)
		return 0;
	if (!t || len != 2 * (size_t)r->len)
		FAIL("len=%" PRIu32 " wants %" PRIu32 " hex digits, found %zu", r->len,
		     2 * r->len, t ? len : 0);
	for (uint32_t i = 0; i < r->len; i++) {
		int hi = roce_hexval(t[2 * i]), lo = roce_hexval(t[2 * i + 1]);

		if (hi < 0 || lo < 0)
			FAIL("not hex at byte %" PRIu32, i);
		bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	r->bytes = bytes;
	return 0;
}

int trace_parse(const char *line, struct trace_rec *r, uint8_t *bytes,
		char *err, size_t errlen)
{
	const char *s = line, *t;
	size_t len;
	uint64_t v;
	int k;

	memset(r, 0, sizeof(*r));
	t = token(&s, &len);
	if (!t || t[0] == '#')
		return 1;
	if (number(t, len, DEC, &r->t))
		FAIL("bad time '%.*s'", (int)len, t);
	t = token(&s, &len);
	if (!t || number(t, len, DEC, &v) || v > UINT32_MAX)
		FAIL("bad or missing NIC number");
	r->nic = (uint32_t)v;
	t = token(&s, &len);
	if (!t)
		FAIL("missing kind");
	for (k = 0; k < TR_KINDS; k++)
		if (strlen(kinds[k].name) == len && !strncmp(t, kinds[k].name, len))
			break;
	if (k == TR_KINDS)
		FAIL("unknown kind '%.*s'", (int)len, t);
	r->kind = (enum trace_kind)k;
	if (parse_fields(&s, &kinds[k], r, err, errlen))
		return -1;
	if (kinds[k].bytes && parse_bytes(&s, r, bytes, err, errlen))
		return -1;
	if ((t = token(&s, &len)))
		FAIL("%s: unexpected '%.*s'", kinds[k].name, len > 20 ? 20 : (int)len, t);
	return 0;
}

uint32_t trace_reg_wr_data(uint32_t addr, uint32_t data)
{
	bool key_word = addr >= ROCE_REG_STAGE_KEY(0) &&
			addr < ROCE_REG_STAGE_KEY(ROCE_STAGE_KEY_LEN / 4);

	return key_word ? 0 : data;
}

bool trace_key_cmd(uint32_t addr, uint32_t data, struct trace_rec *r)
{
	if (addr != ROCE_REG_STAGE_KEY_CMD ||
	    (data != ROCE_STAGE_KEY_CMD_LOAD && data != ROCE_STAGE_KEY_CMD_CLEAR))
		return false;
	*r = (struct trace_rec){ .kind = TR_KEY,
				 .op = data == ROCE_STAGE_KEY_CMD_LOAD ? TRACE_KEY_LOAD
								       : TRACE_KEY_CLEAR };
	return true;
}

bool trace_rec_equal(const struct trace_rec *a, const struct trace_rec *b)
{
	const struct kind_desc *k;

	if (a->kind != b->kind || a->nic != b->nic || (unsigned)a->kind >= TR_KINDS)
		return false;
	k = &kinds[a->kind];
	for (const struct field *f = k->f; f < k->f + MAX_FIELDS && f->name; f++)
		if (get(a, f) != get(b, f))
			return false;
	if (k->bytes && a->len &&
	    (!a->bytes || !b->bytes || memcmp(a->bytes, b->bytes, a->len)))
		return false;
	return true;
}
