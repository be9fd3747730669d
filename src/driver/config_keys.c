/* SPDX-License-Identifier: MIT */
/*
 * The keys of each config section, their value kinds and ranges, the
 * defaults, and the rules that span several keys. Ranges follow the field
 * widths of the register map (roce/regs.h, src/regs/regmap.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "roce/driver.h"
#include "roce/gid.h"
#include "driver/config_priv.h"

#define DEV(n, kind, field, lo, hi, req) \
	{ n, kind, offsetof(struct roce_config, field), lo, hi, req }
#define QP(n, kind, field, lo, hi) \
	{ n, kind, offsetof(struct roce_qp_ctx, field), lo, hi, false }
#define MR(n, kind, field, lo, hi, req) \
	{ n, kind, offsetof(struct roce_mr_ctx, field), lo, hi, req }

const struct cfg_key roce_cfg_device_keys[] = {
	DEV("mac", CFG_MAC, local.mac, 0, 0, true),
	DEV("ip", CFG_IP, local.ip, 0, 0, true),
	DEV("udp_port", CFG_U16, local.udp_port, 1, 0xFFFF, false),
	DEV("peer_mac", CFG_MAC, peer.mac, 0, 0, false),
	DEV("peer_ip", CFG_IP, peer.ip, 0, 0, false),
	DEV("peer_udp_port", CFG_U16, peer.udp_port, 1, 0xFFFF, false),
	DEV("loopback", CFG_BOOL, loopback, 0, 0, false),
	DEV("link_timeout_ms", CFG_U32, link_timeout_ms, 0, 3600000, false),
	/* QP_COUNT: QPN 17, the first after the reserved ones, must exist */
	DEV("qp_count", CFG_U32, qp_count, ROCE_FIRST_QPN + 1, ROCE_MAX_QP, false),
	{ 0 },
};

const struct cfg_key roce_cfg_qp_keys[] = {
	QP("type", CFG_QP_TYPE, type, 0, 0),
	QP("state", CFG_QP_STATE, state, 0, 0),
	QP("mtu", CFG_MTU, mtu, 0, 0),
	QP("access", CFG_ACCESS_U8, access, 0, 0),
	QP("dest_qpn", CFG_U32, dest_qpn, 0, 0xFFFFFF),
	QP("sq_psn", CFG_U32, sq_psn, 0, 0xFFFFFF),
	QP("rq_psn", CFG_U32, rq_psn, 0, 0xFFFFFF),
	QP("peer_ip", CFG_IP, peer_ip, 0, 0),
	QP("peer_mac", CFG_MAC, peer_mac, 0, 0),
	QP("pkey", CFG_U16, pkey, 0, 0xFFFF),
	QP("timeout", CFG_U8, timeout, 0, 31),
	QP("retry_cnt", CFG_U8, retry_cnt, 0, 7),
	QP("rnr_retry", CFG_U8, rnr_retry, 0, 7),
	QP("min_rnr_timer", CFG_U8, min_rnr_timer, 0, 31),
	QP("max_rd_atomic", CFG_U8, max_rd_atomic, 0, ROCE_MAX_RD_ATOMIC),
	QP("max_dest_rd_atomic", CFG_U8, max_dest_rd_atomic, 0,
	   ROCE_MAX_RD_ATOMIC),
	QP("qkey", CFG_U32, qkey, 0, 0xFFFFFFFFu),
	QP("pd", CFG_U32, pd, 0, 0xFFFFFFFFu),
	/* the GRH (RoCE v2 over IPv6): QP_DGID_0..2 with QP_PEER_IP, QP_GRH,
	 * QP_FLOW_LABEL */
	QP("peer_gid", CFG_GID, dgid_hi, 0, 0),
	QP("sgid_index", CFG_U8, sgid_index, 0, ROCE_MAX_GID - 1),
	QP("hop_limit", CFG_U8, hop_limit, 0, 255),
	QP("tclass", CFG_U8, tclass, 0, 255),
	QP("flow_label", CFG_U32, flow_label, 0, 0xFFFFF),
	{ 0 },
};

const struct cfg_key roce_cfg_mr_keys[] = {
	MR("va", CFG_U64, va, 0, UINT64_MAX, false),
	MR("pa", CFG_U64, pa, 0, UINT64_MAX, true),
	MR("len", CFG_U64, len, 0, UINT64_MAX, true),
	MR("access", CFG_ACCESS_U32, access, 0, 0, false),
	MR("rkey", CFG_U32, rkey, 0, 0xFFFFFFFFu, true),
	MR("lkey", CFG_U32, lkey, 0, 0xFFFFFFFFu, false),
	MR("pd", CFG_U32, pd, 0, 0xFFFFFFFFu, false),
	MR("valid", CFG_BOOL, valid, 0, 0, false),
	{ 0 },
};

/* ---- names --------------------------------------------------------------- */

static const char *const qp_state_names[] = {
	[ROCE_QPS_RESET] = "reset", [ROCE_QPS_INIT] = "init",
	[ROCE_QPS_RTR] = "rtr", [ROCE_QPS_RTS] = "rts",
	[ROCE_QPS_SQD] = "sqd", [ROCE_QPS_SQE] = "sqe", [ROCE_QPS_ERR] = "err",
};

static const struct {
	const char *name;
	unsigned val;
} qp_types[] = {
	{ "rc", ROCE_QPT_RC }, { "uc", ROCE_QPT_UC }, { "ud", ROCE_QPT_UD },
}, access_bits[] = {
	{ "local_write", ROCE_ACCESS_LOCAL_WRITE },
	{ "remote_write", ROCE_ACCESS_REMOTE_WRITE },
	{ "remote_read", ROCE_ACCESS_REMOTE_READ },
	{ "remote_atomic", ROCE_ACCESS_REMOTE_ATOMIC },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *cfg_state_name(unsigned state)
{
	return state < NELEM(qp_state_names) ? qp_state_names[state] : "?";
}

const char *roce_qp_type_name(unsigned type)
{
	for (size_t i = 0; i < NELEM(qp_types); i++)
		if (qp_types[i].val == type)
			return qp_types[i].name;
	return "?";
}

void roce_format_access(uint32_t access, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NELEM(access_bits); i++)
		if (access & access_bits[i].val)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0,
					      "%s%s", n ? "," : "",
					      access_bits[i].name);
	if (n == 0)
		snprintf(buf, len, "none");
}

/* ---- values -------------------------------------------------------------- */

int roce_parse_u64(const char *s, bool suffix, uint64_t *out)
{
	unsigned long long v;
	char *end;
	unsigned shift = 0;

	if (*s == '-' || *s == '+')
		return ROCE_E_FORMAT;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || errno)
		return errno == ERANGE ? ROCE_E_RANGE : ROCE_E_FORMAT;
	if (suffix && *end && !end[1]) {
		static const char units[] = "kmgt";
		const char *u = strchr(units, *end | 0x20);

		if (u) {
			shift = 10u * (unsigned)(u - units + 1);
			end++;
		}
	}
	if (*end)
		return ROCE_E_FORMAT;
	if (shift && v > (UINT64_MAX >> shift))
		return ROCE_E_RANGE;
	*out = (uint64_t)v << shift;
	return ROCE_OK;
}

static int parse_access(const char *s, uint32_t *out, char *why, size_t n)
{
	char buf[ROCE_CFG_MAX_LINE];
	uint32_t acc = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	if (strcasecmp(buf, "none") == 0) {
		*out = 0;
		return ROCE_OK;
	}
	for (char *save, *t = strtok_r(buf, ", \t", &save); t;
	     t = strtok_r(NULL, ", \t", &save)) {
		size_t i;

		for (i = 0; i < NELEM(access_bits); i++)
			if (strcasecmp(t, access_bits[i].name) == 0)
				break;
		if (i == NELEM(access_bits)) {
			snprintf(why, n, "unknown access right '%s' (local_write, "
				 "remote_write, remote_read, remote_atomic, none)", t);
			return ROCE_E_FORMAT;
		}
		acc |= access_bits[i].val;
	}
	*out = acc;
	return ROCE_OK;
}

static int parse_named(const char *s, unsigned *out, char *why, size_t n,
		       const char *what)
{
	if (strcmp(what, "type") == 0) {
		for (size_t i = 0; i < NELEM(qp_types); i++)
			if (strcasecmp(s, qp_types[i].name) == 0)
				return *out = qp_types[i].val, ROCE_OK;
		snprintf(why, n, "unknown QP type '%s' (rc, uc, ud)", s);
	} else if (strcmp(what, "state") == 0) {
		for (size_t i = 0; i < NELEM(qp_state_names); i++)
			if (strcasecmp(s, qp_state_names[i]) == 0)
				return *out = (unsigned)i, ROCE_OK;
		snprintf(why, n, "unknown QP state '%s' (reset, init, rtr, "
			 "rts, sqd, sqe, err)", s);
	} else {
		uint64_t v;

		for (unsigned m = ROCE_MTU_256; m <= ROCE_MTU_4096; m++)
			if (roce_parse_u64(s, false, &v) == ROCE_OK &&
			    v == roce_mtu_bytes((enum roce_mtu)m))
				return *out = m, ROCE_OK;
		snprintf(why, n, "bad path MTU '%s' (256, 512, 1024, 2048, "
			 "4096)", s);
	}
	return ROCE_E_FORMAT;
}

static int set_int(const struct cfg_key *k, void *obj, const char *val,
		   char *why, size_t n)
{
	char *p = (char *)obj + k->off;
	uint64_t v;
	int st = roce_parse_u64(val, k->kind == CFG_U64, &v);

	if (st == ROCE_E_FORMAT) {
		snprintf(why, n, "'%s' is not a number", val);
		return ROCE_E_FORMAT;
	}
	if (st != ROCE_OK || v < k->min || v > k->max) {
		snprintf(why, n, "%s out of range (%llu..%llu)", val,
			 (unsigned long long)k->min, (unsigned long long)k->max);
		return ROCE_E_FORMAT;
	}
	if (k->kind == CFG_U8)
		*(uint8_t *)p = (uint8_t)v;
	else if (k->kind == CFG_U16)
		*(uint16_t *)p = (uint16_t)v;
	else if (k->kind == CFG_U32)
		*(uint32_t *)p = (uint32_t)v;
	else
		*(uint64_t *)p = v;
	return ROCE_OK;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < NELEM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, ROCE_OK;
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, ROCE_OK;
	}
	return ROCE_E_FORMAT;
}

int roce_cfg_set_value(const struct cfg_key *k, void *obj, const char *val,
		       char *why, size_t n)
{
	char *p = (char *)obj + k->off;
	unsigned u;
	uint32_t a;

	switch (k->kind) {
	case CFG_U8: case CFG_U16: case CFG_U32: case CFG_U64:
		return set_int(k, obj, val, why, n);
	case CFG_MAC:
		if (roce_parse_mac(val, (uint8_t *)p) == ROCE_OK)
			return ROCE_OK;
		snprintf(why, n, "bad MAC address '%s' (expected "
			 "xx:xx:xx:xx:xx:xx)", val);
		return ROCE_E_FORMAT;
	case CFG_IP:
		if (roce_parse_ipv4(val, (uint32_t *)p) == ROCE_OK)
			return ROCE_OK;
		snprintf(why, n, "bad IPv4 address '%s' (expected a.b.c.d)", val);
		return ROCE_E_FORMAT;
	case CFG_BOOL:
		if (parse_bool(val, (bool *)p) == ROCE_OK)
			return ROCE_OK;
		snprintf(why, n, "'%s' is not a boolean (true/false, yes/no, "
			 "on/off, 1/0)", val);
		return ROCE_E_FORMAT;
	case CFG_QP_TYPE: case CFG_QP_STATE: case CFG_MTU:
		if (parse_named(val, &u, why, n, k->name) != ROCE_OK)
			return ROCE_E_FORMAT;
		*(uint8_t *)p = (uint8_t)u;
		return ROCE_OK;
	case CFG_GID: {
		uint8_t gid[ROCE_GID_LEN];

		/* the whole GID: its last 4 bytes are peer_ip */
		if (roce_gid_parse(val, gid) == ROCE_OK) {
			roce_qp_set_dgid((struct roce_qp_ctx *)obj, gid);
			return ROCE_OK;
		}
		snprintf(why, n, "bad GID '%s' (expected an IPv6 address: "
			 "fd91::2, fe80::1, ::ffff:10.0.0.1)", val);
		return ROCE_E_FORMAT;
	}
	case CFG_ACCESS_U8: case CFG_ACCESS_U32:
		if (parse_access(val, &a, why, n) != ROCE_OK)
			return ROCE_E_FORMAT;
		if (k->kind == CFG_ACCESS_U8)
			*(uint8_t *)p = (uint8_t)a;
		else
			*(uint32_t *)p = a;
		return ROCE_OK;
	}
	return ROCE_E_INVAL;
}

/* ---- defaults and cross-key rules ---------------------------------------- */

void roce_config_defaults(struct roce_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->local.udp_port = ROCE_UDP_PORT;
	cfg->peer.udp_port = ROCE_UDP_PORT;
	cfg->link_timeout_ms = ROCE_DRV_LINK_TIMEOUT_MS;
}

/* What perftest and ibv_rc_pingpong use unless told otherwise. */
void roce_cfg_qp_defaults(struct roce_qp_ctx *q, uint32_t qpn)
{
	memset(q, 0, sizeof(*q));
	q->qpn = qpn;
	q->type = ROCE_QPT_RC;
	q->state = ROCE_QPS_RTS;
	q->mtu = ROCE_MTU_1024;
	q->access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		    ROCE_ACCESS_REMOTE_READ;
	q->pkey = 0xFFFF;
	q->timeout = 14;
	q->retry_cnt = 7;
	q->rnr_retry = 7;
	q->min_rnr_timer = 12;
	q->max_rd_atomic = 1;
	q->max_dest_rd_atomic = 1;
}

void roce_cfg_mr_defaults(struct roce_mr_ctx *m, uint32_t index)
{
	memset(m, 0, sizeof(*m));
	m->index = index;
	m->valid = true;
	m->access = ROCE_ACCESS_LOCAL_WRITE;
}

static bool key_seen(const struct cfg_key *keys, uint64_t seen,
		     const char *name)
{
	for (unsigned i = 0; keys[i].name; i++)
		if (strcmp(keys[i].name, name) == 0)
			return seen >> i & 1;
	return false;
}

static int check_qp(struct roce_qp_ctx *q, uint64_t seen, char *why, size_t n)
{
	bool connected = q->type != ROCE_QPT_UD;
	bool past_rtr = q->state >= ROCE_QPS_RTR && q->state != ROCE_QPS_ERR;

	if (connected && past_rtr && !key_seen(roce_cfg_qp_keys, seen, "dest_qpn")) {
		snprintf(why, n, "an %s QP in state %s needs 'dest_qpn'",
			 roce_qp_type_name(q->type),
			 cfg_state_name(q->state));
		return ROCE_E_FORMAT;
	}
	if (key_seen(roce_cfg_qp_keys, seen, "peer_gid") &&
	    key_seen(roce_cfg_qp_keys, seen, "peer_ip")) {
		snprintf(why, n, "give 'peer_ip' or 'peer_gid', not both (an IPv4 "
			 "peer's GID is ::ffff:a.b.c.d)");
		return ROCE_E_FORMAT;
	}
	if (q->state >= ROCE_QPS_INIT && (q->pkey & 0x7FFF) == 0) {
		snprintf(why, n, "pkey 0x%04x: the low 15 bits must not be 0",
			 q->pkey);
		return ROCE_E_FORMAT;
	}
	return ROCE_OK;
}

/* MR_RKEY / MR_LKEY: bits 31:8 carry the index, 7:0 a random byte. */
static int check_mr(struct roce_mr_ctx *m, uint64_t seen, char *why,
		    size_t n)
{
	if (!key_seen(roce_cfg_mr_keys, seen, "lkey"))
		m->lkey = m->rkey;
	if (m->rkey >> 8 != m->index || m->lkey >> 8 != m->index) {
		snprintf(why, n, "%s 0x%08x must carry the MR index in bits "
			 "31:8 (0x%06x00..0x%06xff)",
			 m->rkey >> 8 != m->index ? "rkey" : "lkey",
			 m->rkey >> 8 != m->index ? m->rkey : m->lkey,
			 m->index, m->index);
		return ROCE_E_FORMAT;
	}
	/* IBA 10.6.3.1: remote write or atomic needs local write. */
	if ((m->access & (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(m->access & ROCE_ACCESS_LOCAL_WRITE)) {
		snprintf(why, n, "remote_write and remote_atomic need local_write "
			 "(IBA 10.6.3.1)");
		return ROCE_E_FORMAT;
	}
	if (m->valid && (m->len == 0 || m->va + m->len < m->va ||
			 m->pa + m->len < m->pa)) {
		snprintf(why, n, m->len == 0 ? "len must not be 0"
			 : "va/pa + len wraps past 2^64");
		return ROCE_E_FORMAT;
	}
	return ROCE_OK;
}

int roce_cfg_check_obj(bool qp, void *obj, uint64_t seen, char *why,
		       size_t whylen)
{
	return qp ? check_qp(obj, seen, why, whylen)
		  : check_mr(obj, seen, why, whylen);
}
