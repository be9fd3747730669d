/* SPDX-License-Identifier: MIT */
/*
 * cq.c: completions into a CQ ring, and the completion events they raise.
 */
#ifndef ROCE_ENGINE_CQ_H
#define ROCE_ENGINE_CQ_H

#include "engine/state.h"

/* A completion into cq; solicited: a receive completion of a message with
 * the BTH SE bit (an error completion counts as solicited too, IBA
 * 11.4.2.2), for a CQ armed for solicited completions only. */
void cq_post(struct roce_engine *e, struct eng_cq *cq, const struct roce_wc *wc,
	     bool solicited);

static inline void cq_push(struct roce_engine *e, struct eng_cq *cq,
			   const struct roce_wc *wc)
{
	cq_post(e, cq, wc, false);
}

#endif
