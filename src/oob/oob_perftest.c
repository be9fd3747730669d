/* SPDX-License-Identifier: MIT */
/*
 * perftest's Ethernet (TCP) exchange, as perftest 4.5-0.17 (version string
 * "6.06", Debian 12) speaks it: src/perftest_communication.c
 * (ethernet_write_keys/ethernet_read_keys, ctx_xchg_data, exchange_versions,
 * check_sys_data, check_mtu, xchg_bw_reports, ctx_close_connection).
 *
 * Every exchange is symmetric and fixed size; the client writes first.
 * Peers older than 5.70 are refused by perftest itself
 * (check_version_compatibility), so the branches for older peers (4-byte
 * iteration counts before 5.33, no sys data before 5.32, a 4-byte MTU
 * before 5.31) never apply and are not kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oob/oob_text.h"
#include "roce/oob.h"
#include "roce/status.h"

void roce_pt_format(const struct roce_pt_dest *d, char msg[ROCE_PT_KEY_LEN])
{
	int n = snprintf(msg, ROCE_PT_KEY_LEN, "%04x:%04x:%06x:%06x:%08x:%016llx:",
			 d->lid, d->out_reads, d->qpn & 0xFFFFFFu, d->psn & 0xFFFFFFu,
			 d->rkey, (unsigned long long)d->vaddr);

	for (int i = 0; i < 16 && n > 0 && n < ROCE_PT_KEY_LEN; i++)
		n += snprintf(msg + n, (size_t)(ROCE_PT_KEY_LEN - n), "%02x:", d->gid[i]);
	if (n > 0 && n < ROCE_PT_KEY_LEN)
		snprintf(msg + n, (size_t)(ROCE_PT_KEY_LEN - n), "%08x:", d->srqn);
}

/* Both message sizes: with a GID (RoCE, 108) and without (IB, 59). */
int roce_pt_parse(const char *msg, size_t len, struct roce_pt_dest *d)
{
	const char *p = msg;
	uint64_t v[6], b, srqn;
	static const unsigned width[6] = { 4, 4, 6, 6, 8, 16 };
	bool gid = len == ROCE_PT_KEY_LEN;

	if ((!gid && len != ROCE_PT_KEY_LEN_NOGID) || msg[len - 1] != '\0')
		return ROCE_E_FORMAT;
	for (int i = 0; i < 6; i++)
		if (!oob_hexfield(&p, width[i], ':', &v[i]))
			return ROCE_E_FORMAT;
	memset(d->gid, 0, sizeof(d->gid));
	for (int i = 0; gid && i < 16; i++) {
		if (!oob_hexfield(&p, 2, ':', &b))
			return ROCE_E_FORMAT;
		d->gid[i] = (uint8_t)b;
	}
	if (!oob_hexfield(&p, 8, gid ? ':' : '\0', &srqn) || (gid && *p != '\0'))
		return ROCE_E_FORMAT;
	d->lid = (uint16_t)v[0];
	d->out_reads = (uint16_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	d->srqn = (uint32_t)srqn;
	return ROCE_OK;
}

int roce_pt_xchg_version(struct roce_oob *o, char peer[ROCE_PT_VERSION_LEN + 1])
{
	char mine[ROCE_PT_VERSION_LEN] = ROCE_PT_VERSION;   /* strncpy's padding */
	int st = roce_oob_xchg(o, mine, peer, ROCE_PT_VERSION_LEN);

	if (st)
		return st;
	peer[ROCE_PT_VERSION_LEN] = '\0';
	if (atof(peer) < ROCE_PT_VERSION_MIN) {
		snprintf(o->err, sizeof(o->err), "peer's perftest version '%.16s' is "
			 "older than %.2f (not compatible)", peer, ROCE_PT_VERSION_MIN);
		return ROCE_E_MISMATCH;
	}
	return ROCE_OK;
}

static void put_be32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_be64(uint8_t *b, uint64_t v)
{
	put_be32(b, (uint32_t)(v >> 32));
	put_be32(b + 4, (uint32_t)v);
}

static uint64_t get_be64(const uint8_t *b)
{
	return (uint64_t)get_be32(b) << 32 | get_be32(b + 4);
}

int roce_pt_xchg_sysdata(struct roce_oob *o, uint32_t *cycle_buffer,
			 uint32_t *cache_line)
{
	uint8_t mine[4], theirs[4];
	int st;

	put_be32(mine, *cycle_buffer);
	if ((st = roce_oob_xchg(o, mine, theirs, 4)) != ROCE_OK)
		return st;
	if (get_be32(theirs) > *cycle_buffer)
		*cycle_buffer = get_be32(theirs);
	put_be32(mine, *cache_line);
	if ((st = roce_oob_xchg(o, mine, theirs, 4)) != ROCE_OK)
		return st;
	if (get_be32(theirs) > *cache_line)
		*cache_line = get_be32(theirs);
	return ROCE_OK;
}

int roce_pt_xchg_mtu(struct roce_oob *o, int *mtu)
{
	char mine[2], theirs[3] = { 0 };
	int st, rem;

	/* sprintf(cur, "%d", mtu) into a char[4], of which 2 bytes travel */
	mine[0] = (char)('0' + (*mtu % 10));
	mine[1] = '\0';
	if ((st = roce_oob_xchg(o, mine, theirs, 2)) != ROCE_OK)
		return st;
	rem = (int)strtol(theirs, NULL, 10);
	if (rem >= 1 && rem <= 5 && rem < *mtu)
		*mtu = rem;
	return ROCE_OK;
}

void roce_pt_pack_dest(const struct roce_pt_dest *d, uint8_t b[ROCE_PT_DEST_BIN_LEN])
{
	memset(b, 0, ROCE_PT_DEST_BIN_LEN);
	put_be32(b, d->lid);
	put_be32(b + 4, d->out_reads);
	put_be32(b + 8, d->qpn);
	put_be32(b + 12, d->psn);
	put_be32(b + 16, d->rkey);
	put_be64(b + 24, d->vaddr);
	memcpy(b + 32, d->gid, 16);
	put_be32(b + 48, d->srqn);
	put_be32(b + 52, d->gid_index);
}

void roce_pt_unpack_dest(const uint8_t b[ROCE_PT_DEST_BIN_LEN], struct roce_pt_dest *d)
{
	uint32_t reads = get_be32(b + 4);

	d->lid = (uint16_t)get_be32(b);
	/* an int on the wire; more than 16 bits would be no device's */
	d->out_reads = reads > 0xFFFFu ? 0xFFFFu : (uint16_t)reads;
	d->qpn = get_be32(b + 8) & 0xFFFFFFu;
	d->psn = get_be32(b + 12) & 0xFFFFFFu;
	d->rkey = get_be32(b + 16);
	d->vaddr = get_be64(b + 24);
	memcpy(d->gid, b + 32, 16);
	/* rdma_read_keys takes no srqn: its value is whatever the buffer held */
	d->srqn = get_be32(b + 48);
	d->gid_index = get_be32(b + 52);
}

/* Over rdma_cm the keys are the struct itself (rdma_write_keys, with
 * perftest's HAVE_ENDIAN conversions), one SEND each way. */
static int handshake_bin(struct roce_oob *o, const struct roce_pt_dest *mine,
			 struct roce_pt_dest *peer)
{
	uint8_t out[ROCE_PT_DEST_BIN_LEN], in[ROCE_PT_DEST_BIN_LEN];
	int st;

	roce_pt_pack_dest(mine, out);
	if ((st = roce_oob_xchg(o, out, in, sizeof(in))) != ROCE_OK)
		return st;
	roce_pt_unpack_dest(in, peer);
	return ROCE_OK;
}

int roce_pt_handshake(struct roce_oob *o, const struct roce_pt_dest *mine,
		      struct roce_pt_dest *peer)
{
	char out[ROCE_PT_KEY_LEN], in[ROCE_PT_KEY_LEN];
	int st;

	if (o->msg)
		return handshake_bin(o, mine, peer);
	roce_pt_format(mine, out);
	if ((st = roce_oob_xchg(o, out, in, sizeof(in))) != ROCE_OK)
		return st;
	if (roce_pt_parse(in, sizeof(in), peer) != ROCE_OK) {
		snprintf(o->err, sizeof(o->err), "peer's keys are not perftest's "
			 "108-byte GID format (protocol mismatch): '%.40s...'", in);
		return ROCE_E_FORMAT;
	}
	return ROCE_OK;
}

static uint64_t double_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bits_double(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

void roce_pt_report_pack(const struct roce_pt_report *r, uint8_t b[40])
{
	put_be64(b, r->size);
	put_be64(b + 8, r->iters);
	put_be64(b + 16, double_bits(r->bw_peak));
	put_be64(b + 24, double_bits(r->bw_avg));
	put_be64(b + 32, double_bits(r->msg_rate));
}

void roce_pt_report_unpack(const uint8_t b[40], struct roce_pt_report *r)
{
	r->size = get_be64(b);
	r->iters = get_be64(b + 8);
	r->bw_peak = bits_double(get_be64(b + 16));
	r->bw_avg = bits_double(get_be64(b + 24));
	r->msg_rate = bits_double(get_be64(b + 32));
}

int roce_pt_xchg_report(struct roce_oob *o, const struct roce_pt_report *mine,
			struct roce_pt_report *peer)
{
	uint8_t out[40], in[40];
	int st = ROCE_OK;

	/* five separate 8-byte exchanges, as xchg_bw_reports() does them */
	roce_pt_report_pack(mine, out);
	for (int i = 0; i < 5 && st == ROCE_OK; i++)
		st = roce_oob_xchg(o, out + 8 * i, in + 8 * i, 8);
	if (st == ROCE_OK)
		roce_pt_report_unpack(in, peer);
	return st;
}

int roce_pt_close(struct roce_oob *o, const struct roce_pt_dest *mine)
{
	struct roce_pt_dest peer;
	int st = roce_pt_handshake(o, mine, &peer);

	/* over rdma_cm ctx_close_connection() stops after the handshake */
	if (o->msg) {
		roce_oob_close(o);
		return st;
	}
	/* both sides write "done" and close without reading the other's */
	if (st == ROCE_OK)
		st = roce_oob_send(o, "done", ROCE_PT_DONE_LEN);
	roce_oob_close(o);
	return st;
}
