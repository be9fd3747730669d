/* SPDX-License-Identifier: MIT */
/*
 * Address handles, and the address vector of a received UD message
 * (ibv_init_ah_from_wc): RoCE v2 carries the IP header in the 40-byte GRH
 * area at the head of the receive buffer (IPv4's in its last 20 bytes,
 * after 20 zero ones; IPv6's in all 40, as rxe and the engine write it),
 * so the reply goes to the sender's address, from ours as the GID index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "roce/gid.h"
#include "roce/params.h"
#include "roce/status.h"

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rv_context *c = pd ? rv_ctx(pd->context) : NULL;
	struct roce_ah_attr ra;
	struct rv_ah *a;
	int err, st;

	if (!c || !attr) {
		errno = EINVAL;
		return NULL;
	}
	if ((err = rv_resolve(c, attr, &ra)) != 0) {
		errno = err;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	st = roce_create_ah_status(RV_OF(rv_pd, pd)->pd, &ra, &a->ah);
	if (st) {
		free(a);
		errno = rv_errno(st);
		return NULL;
	}
	a->ibv.context = pd->context;
	a->ibv.pd = pd;
	return &a->ibv;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	struct rv_ah *a = RV_OF(rv_ah, ah);
	int st;

	if (!ah)
		return EINVAL;
	st = roce_destroy_ah(a->ah);
	if (st)
		return rv_errno(st);
	free(a);
	return 0;
}

/* The sender's and our GID from the GRH area; 0 or EINVAL. */
static int grh_gids(const uint8_t *grh, uint8_t sgid[16], uint8_t dgid[16])
{
	static const uint8_t zero[20];

	if (!memcmp(grh, zero, 20) && (grh[20] >> 4) == 4) {
		uint32_t s = (uint32_t)grh[32] << 24 | (uint32_t)grh[33] << 16 |
			     (uint32_t)grh[34] << 8 | grh[35];
		uint32_t d = (uint32_t)grh[36] << 24 | (uint32_t)grh[37] << 16 |
			     (uint32_t)grh[38] << 8 | grh[39];

		roce_gid_from_ipv4(s, sgid);
		roce_gid_from_ipv4(d, dgid);
		return 0;
	}
	if ((grh[0] >> 4) == 6) {
		memcpy(sgid, grh + 8, 16);
		memcpy(dgid, grh + 24, 16);
		return 0;
	}
	return EINVAL;
}

int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port, struct ibv_wc *wc,
			struct ibv_grh *grh, struct ibv_ah_attr *ah)
{
	struct rv_context *c = rv_ctx(context);
	uint8_t from[16], to[16], g[16];

	if (!c || !wc || !grh || !ah || port != 1 || !(wc->wc_flags & IBV_WC_GRH))
		return EINVAL;  /* RoCE: the address is in the GRH */
	if (grh_gids((const uint8_t *)grh, from, to) != 0)
		return EINVAL;
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.hop_limit = ROCE_HOP_LIMIT;
	memcpy(ah->grh.dgid.raw, from, 16);
	for (int i = 0; i < (int)ROCE_MAX_GID; i++)
		if (roce_query_gid(c->ctx, 1, i, g) == 0 && !memcmp(g, to, 16)) {
			ah->grh.sgid_index = (uint8_t)i;
			return 0;
		}
	return ENOENT;  /* sent to an address the port has not */
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port)
{
	struct ibv_ah_attr a;
	int err;

	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	err = ibv_init_ah_from_wc(pd->context, port, wc, grh, &a);
	if (err) {
		errno = err;
		return NULL;
	}
	return ibv_create_ah(pd, &a);
}
