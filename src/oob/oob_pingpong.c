/* SPDX-License-Identifier: MIT */
/*
 * ibv_rc_pingpong's exchange (rdma-core libibverbs/examples/rc_pingpong.c:
 * pp_client_exch_dest, pp_server_exch_dest; pingpong.c: gid_to_wire_gid).
 *
 *   client                              server
 *   "LID:QPN:PSN:GID\0"  (52 bytes) ->
 *                                       connect its QP (RTR, RTS)
 *                       <-  "LID:QPN:PSN:GID\0"
 *   "done\0" (5 bytes)  ->
 *
 * The GID travels as 32 hex digits: gid_to_wire_gid() prints the four
 * 32-bit words of the raw GID with htobe32() on a value read in host order,
 * which yields the 16 bytes in network order, two digits each.
 */
#include <stdio.h>
#include <string.h>

#include "oob/oob_text.h"
#include "roce/oob.h"
#include "roce/status.h"

void roce_pp_format(const struct roce_pp_dest *d, char msg[ROCE_PP_MSG_LEN])
{
	int n = snprintf(msg, ROCE_PP_MSG_LEN, "%04x:%06x:%06x:", d->lid,
			 d->qpn & 0xFFFFFFu, d->psn & 0xFFFFFFu);

	for (int i = 0; i < 16 && n > 0 && n < ROCE_PP_MSG_LEN; i++)
		n += snprintf(msg + n, (size_t)(ROCE_PP_MSG_LEN - n), "%02x", d->gid[i]);
}

int roce_pp_parse(const char *msg, size_t len, struct roce_pp_dest *d)
{
	const char *p = msg;
	uint64_t lid, qpn, psn;

	if (len != ROCE_PP_MSG_LEN || msg[ROCE_PP_MSG_LEN - 1] != '\0')
		return ROCE_E_FORMAT;
	if (!oob_hexfield(&p, 4, ':', &lid) || !oob_hexfield(&p, 6, ':', &qpn) ||
	    !oob_hexfield(&p, 6, ':', &psn))
		return ROCE_E_FORMAT;
	for (int i = 0; i < 16; i++) {
		int hi = roce_hexval(p[2 * i]), lo = roce_hexval(p[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return ROCE_E_FORMAT;
		d->gid[i] = (uint8_t)(hi << 4 | lo);
	}
	d->lid = (uint16_t)lid;
	d->qpn = (uint32_t)qpn;
	d->psn = (uint32_t)psn;
	return ROCE_OK;
}

static int read_dest(struct roce_oob *o, struct roce_pp_dest *peer)
{
	char msg[ROCE_PP_MSG_LEN];
	int st = roce_oob_recv(o, msg, sizeof(msg));

	if (st)
		return st;
	if (roce_pp_parse(msg, sizeof(msg), peer) != ROCE_OK) {
		snprintf(o->err, sizeof(o->err), "peer's address is not "
			 "LID:QPN:PSN:GID: '%.*s'", ROCE_PP_MSG_LEN - 1, msg);
		return ROCE_E_FORMAT;
	}
	return ROCE_OK;
}

int roce_pp_exchange(struct roce_oob *o, const struct roce_pp_dest *mine,
		     struct roce_pp_dest *peer,
		     int (*connect)(void *arg, const struct roce_pp_dest *peer),
		     void *arg)
{
	char msg[ROCE_PP_MSG_LEN];
	char done[ROCE_PP_DONE_LEN];
	int st;

	roce_pp_format(mine, msg);
	if (o->client) {
		st = roce_oob_send(o, msg, sizeof(msg));
		if (!st)
			st = read_dest(o, peer);
		if (!st)
			st = roce_oob_send(o, "done", ROCE_PP_DONE_LEN);
		return st;
	}
	st = read_dest(o, peer);
	if (!st && connect && (st = connect(arg, peer)) != ROCE_OK)
		snprintf(o->err, sizeof(o->err), "couldn't connect to remote QP: %s",
			 roce_status_str(st));
	if (!st)
		st = roce_oob_send(o, msg, sizeof(msg));
	if (!st)
		st = roce_oob_recv(o, done, sizeof(done));
	if (!st && memcmp(done, "done", ROCE_PP_DONE_LEN) != 0) {
		snprintf(o->err, sizeof(o->err), "peer did not end with \"done\"");
		st = ROCE_E_FORMAT;
	}
	return st;
}
