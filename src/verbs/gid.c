/* SPDX-License-Identifier: MIT */
/*
 * The port's GID table as the verbs see it (ibv_query_gid,
 * ibv_query_gid_type). The context builds it at open from the station
 * addresses (roce/gid.h says how and in which order) and hands a copy to
 * the engine, which sends from it and accepts frames to it.
 */
#include <string.h>

#include "verbs/verbs_priv.h"
#include "roce/status.h"

/* Our only port is 1, as rxe's. */
static const struct roce_gid_entry *entry(struct roce_context *ctx, uint8_t port,
					  int index, int *st)
{
	if (!ctx || port != 1 || index < 0) {
		*st = ROCE_E_INVAL;
		return NULL;
	}
	if ((unsigned)index >= ctx->gids.n) {
		*st = ROCE_E_NOENT;
		return NULL;
	}
	*st = ROCE_OK;
	return &ctx->gids.e[index];
}

int roce_query_gid(struct roce_context *ctx, uint8_t port, int index,
		   uint8_t gid[ROCE_GID_LEN])
{
	int st;
	const struct roce_gid_entry *e = entry(ctx, port, index, &st);

	if (e && gid)
		memcpy(gid, e->gid, ROCE_GID_LEN);
	return e && !gid ? ROCE_E_INVAL : st;
}

int roce_query_gid_type(struct roce_context *ctx, uint8_t port, int index,
			enum roce_gid_type *type)
{
	int st;
	const struct roce_gid_entry *e = entry(ctx, port, index, &st);

	if (e && type)
		*type = (enum roce_gid_type)e->type;
	return e && !type ? ROCE_E_INVAL : st;
}

const struct roce_gid_table *roce_context_gids(struct roce_context *ctx)
{
	return &ctx->gids;
}
