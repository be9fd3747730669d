/* SPDX-License-Identifier: MIT */
/*
 * ibv_srq_pingpong's exchange (rdma-core libibverbs/examples/srq_pingpong.c:
 * pp_client_exch_dest, pp_server_exch_dest): rc_pingpong's message, once
 * for each of MAX_QP (256) slots whatever the number of QPs in use (the
 * slots past it carry zeros), then "done".
 *
 *   client                                   server
 *   256 x "LID:QPN:PSN:GID\0" (52 bytes) ->
 *                                            connect its QPs
 *                          <-  256 x "LID:QPN:PSN:GID\0"
 *   "done\0" (5 bytes)      ->
 */
#include <stdio.h>
#include <string.h>

#include "roce/oob.h"
#include "roce/status.h"

static int send_all(struct roce_oob *o, const struct roce_pp_dest *mine, unsigned n)
{
	for (unsigned i = 0; i < ROCE_PP_SRQ_SLOTS; i++) {
		static const struct roce_pp_dest none;
		char msg[ROCE_PP_MSG_LEN];
		int st;

		roce_pp_format(i < n ? &mine[i] : &none, msg);
		if ((st = roce_oob_send(o, msg, sizeof(msg))) != ROCE_OK)
			return st;
	}
	return ROCE_OK;
}

static int recv_all(struct roce_oob *o, struct roce_pp_dest *peer, unsigned n)
{
	for (unsigned i = 0; i < ROCE_PP_SRQ_SLOTS; i++) {
		char msg[ROCE_PP_MSG_LEN];
		struct roce_pp_dest d;
		int st = roce_oob_recv(o, msg, sizeof(msg));

		if (st)
			return st;
		if (roce_pp_parse(msg, sizeof(msg), &d) != ROCE_OK) {
			snprintf(o->err, sizeof(o->err), "peer's address %u is not "
				 "LID:QPN:PSN:GID: '%.*s'", i, ROCE_PP_MSG_LEN - 1, msg);
			return ROCE_E_FORMAT;
		}
		if (i < n)
			peer[i] = d;
	}
	return ROCE_OK;
}

int roce_pp_exchange_srq(struct roce_oob *o, const struct roce_pp_dest *mine,
			 struct roce_pp_dest *peer, unsigned n,
			 int (*connect)(void *arg, const struct roce_pp_dest *peer),
			 void *arg)
{
	char done[ROCE_PP_DONE_LEN];
	int st;

	if (n > ROCE_PP_SRQ_SLOTS)
		return ROCE_E_RANGE;
	if (o->client) {
		st = send_all(o, mine, n);
		if (!st)
			st = recv_all(o, peer, n);
		if (!st)
			st = roce_oob_send(o, "done", ROCE_PP_DONE_LEN);
		return st;
	}
	st = recv_all(o, peer, n);
	if (!st && connect && (st = connect(arg, peer)) != ROCE_OK)
		snprintf(o->err, sizeof(o->err), "Couldn't connect to remote QP: %s",
			 roce_status_str(st));
	if (!st)
		st = send_all(o, mine, n);
	if (!st)
		st = roce_oob_recv(o, done, sizeof(done));
	if (!st && memcmp(done, "done", ROCE_PP_DONE_LEN) != 0) {
		snprintf(o->err, sizeof(o->err), "peer did not end with \"done\"");
		st = ROCE_E_FORMAT;
	}
	return st;
}
