/* SPDX-License-Identifier: MIT */
/*
 * Configuration files for the power-on sequence: what a person writes to
 * describe a device (the files in examples/).
 *
 *   # comment                  ('#' starts a comment anywhere)
 *   mac = 02:00:00:00:00:01    device keys before the first section,
 *   [device]                   or in a [device] section
 *   [qp 17]                    one QP context (QPN 17)
 *   [mr 3]                     one MR entry (index 3)
 *
 * The device key qp_count states the device's QP count (QP_COUNT,
 * 18..16384): [qp N] sections must then lie below it, wherever the key
 * stands.
 *
 * Keys are described by tables (one per section kind), so checking a value
 * is the same code for every key. Every error names the file and line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "roce/driver.h"
#include "driver/config_priv.h"

enum cfg_sect { SECT_DEVICE, SECT_QP, SECT_MR };

struct cfg_parser {
	struct roce_config *cfg;
	const char *name;
	unsigned line;
	enum cfg_sect sect;
	void *obj;			/* struct being filled */
	uint64_t seen;			/* keys set in this section (bits) */
	unsigned sect_line;
	uint64_t dev_seen;
	char *err;
	size_t errlen;
};

static int cfg_error(struct cfg_parser *p, int st, unsigned line,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int cfg_error(struct cfg_parser *p, int st, unsigned line,
		     const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s:%u: %s", p->name, line, msg);
	return st;
}

/* ---- sections ---------------------------------------------------------- */

static const struct cfg_key *sect_keys(enum cfg_sect s)
{
	return s == SECT_DEVICE ? roce_cfg_device_keys
	     : s == SECT_QP ? roce_cfg_qp_keys : roce_cfg_mr_keys;
}

static const char *sect_name(enum cfg_sect s)
{
	return s == SECT_DEVICE ? "device" : s == SECT_QP ? "qp" : "mr";
}

/* Checks the section just finished: required keys, cross-key rules. */
static int cfg_close_section(struct cfg_parser *p)
{
	const struct cfg_key *k = sect_keys(p->sect);
	char why[160] = "";

	if (p->sect == SECT_DEVICE) {
		p->dev_seen |= p->seen;	/* required keys checked at the end */
		return ROCE_OK;
	}
	for (unsigned i = 0; k[i].name; i++)
		if (k[i].required && !(p->seen >> i & 1))
			return cfg_error(p, ROCE_E_FORMAT, p->sect_line,
					 "[%s] section lacks required key '%s'",
					 sect_name(p->sect), k[i].name);
	if (roce_cfg_check_obj(p->sect == SECT_QP, p->obj, p->seen, why,
			       sizeof(why)) != ROCE_OK)
		return cfg_error(p, ROCE_E_FORMAT, p->sect_line, "[%s %u] %s",
				 sect_name(p->sect),
				 p->sect == SECT_QP
					 ? ((struct roce_qp_ctx *)p->obj)->qpn
					 : ((struct roce_mr_ctx *)p->obj)->index,
				 why);
	return ROCE_OK;
}

static int cfg_parse_index(struct cfg_parser *p, const char *s, uint32_t max,
			   uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || *end || errno || *s == '-')
		return cfg_error(p, ROCE_E_FORMAT, p->line,
				 "bad section number '%s'", s);
	if (v >= max)
		return cfg_error(p, ROCE_E_RANGE, p->line,
				 "section number %llu out of range (0..%u)",
				 v, max - 1);
	*out = (uint32_t)v;
	return ROCE_OK;
}

static bool cfg_dup_index(const struct roce_config *c, bool qp, uint32_t idx)
{
	for (uint32_t i = 0; qp && i < c->n_qp; i++)
		if (c->qp[i].qpn == idx)
			return true;
	for (uint32_t i = 0; !qp && i < c->n_mr; i++)
		if (c->mr[i].index == idx)
			return true;
	return false;
}

/* "[device]", "[qp N]", "[mr N]"; s is the text between the brackets. */
static int cfg_open_section(struct cfg_parser *p, char *s)
{
	struct roce_config *c = p->cfg;
	char *kind = strtok(s, " \t"), *num = strtok(NULL, " \t");
	uint32_t idx = 0;
	int st;

	if ((st = cfg_close_section(p)) != ROCE_OK)
		return st;
	p->seen = 0;
	p->sect_line = p->line;
	if (kind && strcasecmp(kind, "device") == 0 && !num) {
		if (p->dev_seen)
			return cfg_error(p, ROCE_E_FORMAT, p->line,
					 "device keys given twice");
		p->sect = SECT_DEVICE;
		p->obj = c;
		return ROCE_OK;
	}
	if (!kind || !num || strtok(NULL, " \t") ||
	    (strcasecmp(kind, "qp") && strcasecmp(kind, "mr")))
		return cfg_error(p, ROCE_E_FORMAT, p->line,
				 "bad section header (expected [device], "
				 "[qp N] or [mr N])");
	p->sect = strcasecmp(kind, "qp") == 0 ? SECT_QP : SECT_MR;
	st = cfg_parse_index(p, num, p->sect == SECT_QP ? ROCE_MAX_QP
							: ROCE_MAX_MR, &idx);
	if (st != ROCE_OK)
		return st;
	if (p->sect == SECT_QP && c->qp_count && idx >= c->qp_count)
		return cfg_error(p, ROCE_E_RANGE, p->line,
				 "[qp %u] beyond the device's QPs "
				 "(qp_count = %u: 0..%u)", idx, c->qp_count,
				 c->qp_count - 1);
	if (cfg_dup_index(c, p->sect == SECT_QP, idx))
		return cfg_error(p, ROCE_E_EXISTS, p->line,
				 "[%s %u] defined twice", sect_name(p->sect), idx);
	if (p->sect == SECT_QP) {
		if (c->n_qp >= ROCE_CFG_MAX_QP)
			return cfg_error(p, ROCE_E_FULL, p->line,
					 "more than %u QP sections",
					 ROCE_CFG_MAX_QP);
		p->obj = &c->qp[c->n_qp++];
		roce_cfg_qp_defaults(p->obj, idx);
	} else {
		if (c->n_mr >= ROCE_CFG_MAX_MR)
			return cfg_error(p, ROCE_E_FULL, p->line,
					 "more than %u MR sections",
					 ROCE_CFG_MAX_MR);
		p->obj = &c->mr[c->n_mr++];
		roce_cfg_mr_defaults(p->obj, idx);
	}
	return ROCE_OK;
}

/* ---- lines ------------------------------------------------------------- */

static char *cfg_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* A qp_count key after [qp N] sections: each must lie below it. */
static int cfg_check_qp_count(struct cfg_parser *p)
{
	const struct roce_config *c = p->cfg;

	for (uint32_t i = 0; c->qp_count && i < c->n_qp; i++)
		if (c->qp[i].qpn >= c->qp_count)
			return cfg_error(p, ROCE_E_RANGE, p->line,
					 "qp_count = %u leaves out [qp %u] "
					 "above (QPNs 0..%u)", c->qp_count,
					 c->qp[i].qpn, c->qp_count - 1);
	return ROCE_OK;
}

static int cfg_key_value(struct cfg_parser *p, char *line)
{
	const struct cfg_key *k = sect_keys(p->sect);
	char *eq = strchr(line, '='), *key, *val, why[160] = "";
	unsigned i;

	if (!eq)
		return cfg_error(p, ROCE_E_FORMAT, p->line,
				 "expected 'key = value' or a [section]");
	*eq = '\0';
	key = cfg_trim(line);
	val = cfg_trim(eq + 1);
	for (i = 0; k[i].name && strcasecmp(k[i].name, key); i++)
		;
	if (!k[i].name)
		return cfg_error(p, ROCE_E_FORMAT, p->line,
				 "unknown key '%s' in the %s section", key,
				 sect_name(p->sect));
	if (p->seen >> i & 1)
		return cfg_error(p, ROCE_E_EXISTS, p->line,
				 "key '%s' given twice", k[i].name);
	if (!*val)
		return cfg_error(p, ROCE_E_FORMAT, p->line,
				 "key '%s' has no value", k[i].name);
	if (roce_cfg_set_value(&k[i], p->obj, val, why, sizeof(why)) != ROCE_OK)
		return cfg_error(p, ROCE_E_FORMAT, p->line, "%s: %s", k[i].name,
				 why);
	p->seen |= 1ull << i;
	return p->sect == SECT_DEVICE ? cfg_check_qp_count(p) : ROCE_OK;
}

static int cfg_line(struct cfg_parser *p, char *line)
{
	char *hash = strchr(line, '#'), *s;
	size_t n;

	if (hash)
		*hash = '\0';
	s = cfg_trim(line);
	if (!*s)
		return ROCE_OK;
	if (*s != '[')
		return cfg_key_value(p, s);
	n = strlen(s);
	if (s[n - 1] != ']')
		return cfg_error(p, ROCE_E_FORMAT, p->line,
				 "section header lacks ']'");
	s[n - 1] = '\0';
	return cfg_open_section(p, cfg_trim(s + 1));
}

/* QPs inherit the device's peer address unless they name their own. */
static void cfg_inherit_peer(struct roce_config *c)
{
	for (uint32_t i = 0; i < c->n_qp; i++) {
		struct roce_qp_ctx *q = &c->qp[i];
		static const uint8_t zero[6];

		if (q->peer_ip == 0)
			q->peer_ip = c->peer.ip;
		if (memcmp(q->peer_mac, zero, 6) == 0)
			memcpy(q->peer_mac, c->peer.mac, 6);
	}
}

int roce_config_parse(const char *text, size_t len, const char *name,
		      struct roce_config *cfg, char *err, size_t errlen)
{
	struct cfg_parser p = { .cfg = cfg, .name = name ? name : "config",
				.sect = SECT_DEVICE, .obj = cfg, .err = err,
				.errlen = errlen };
	char buf[ROCE_CFG_MAX_LINE + 2];
	size_t pos = 0;
	int st = ROCE_OK;

	roce_config_defaults(cfg);
	while (pos < len && st == ROCE_OK) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - text) : len) - pos;

		p.line++;
		if (n > ROCE_CFG_MAX_LINE)
			return cfg_error(&p, ROCE_E_FORMAT, p.line,
					 "line longer than %u characters",
					 ROCE_CFG_MAX_LINE);
		if (memchr(text + pos, '\0', n))
			return cfg_error(&p, ROCE_E_FORMAT, p.line,
					 "NUL byte in the line");
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		pos += n + 1;
		st = cfg_line(&p, buf);
	}
	if (st == ROCE_OK)
		st = cfg_close_section(&p);
	for (unsigned i = 0; st == ROCE_OK && roce_cfg_device_keys[i].name; i++)
		if (roce_cfg_device_keys[i].required && !(p.dev_seen >> i & 1))
			st = cfg_error(&p, ROCE_E_FORMAT, p.line ? p.line : 1,
				       "device key '%s' is required (before "
				       "the first section or in [device])",
				       roce_cfg_device_keys[i].name);
	if (st == ROCE_OK)
		cfg_inherit_peer(cfg);
	return st;
}

int roce_config_load(const char *path, struct roce_config *cfg, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text;
	size_t len;
	int st;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ROCE_E_IO;
	}
	/* Configs are small; refuse anything absurd rather than allocate it. */
	text = malloc(ROCE_CFG_MAX_FILE + 1);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return ROCE_E_NOMEM;
	}
	len = fread(text, 1, ROCE_CFG_MAX_FILE + 1, f);
	st = ferror(f) ? ROCE_E_IO : ROCE_OK;
	fclose(f);
	if (st != ROCE_OK)
		snprintf(err, errlen, "%s: read error", path);
	else if (len > ROCE_CFG_MAX_FILE)
		st = ROCE_E_RANGE, snprintf(err, errlen,
					    "%s: larger than %u bytes", path,
					    ROCE_CFG_MAX_FILE);
	else
		st = roce_config_parse(text, len, path, cfg, err, errlen);
	free(text);
	return st;
}
