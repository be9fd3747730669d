/* SPDX-License-Identifier: MIT */
/*
 * The tables' change queues, as a NIC's context cache is invalidated:
 * every commit, engine state change and reset queues the entry it wrote,
 * once until it is taken (a second change before then needs no second
 * entry: the taker reads the latest). One taker, the engine, which looks
 * at them inline on every poll (idxq_pending: two loads) and takes them
 * with idxq_take (common/idxq.h).
 */
#ifndef ROCE_TABLES_CHANGES_H
#define ROCE_TABLES_CHANGES_H

#include "common/idxq.h"
#include "roce/tables.h"

struct idxq *roce_qp_table_change_queue(struct roce_qp_table *t);
struct idxq *roce_mr_table_change_queue(struct roce_mr_table *t);

#endif
