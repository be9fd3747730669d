/* SPDX-License-Identifier: MIT */
/*
 * The tables' change queues themselves, for the engine's poll loop: it
 * looks at them inline on every poll (two loads) instead of calling
 * roce_*_table_take_changed (roce/tables.h) only to learn that nothing
 * changed. Same single-taker rule.
 */
#ifndef ROCE_TABLES_CHANGES_H
#define ROCE_TABLES_CHANGES_H

#include "common/idxq.h"
#include "roce/tables.h"

struct idxq *roce_qp_table_change_queue(struct roce_qp_table *t);
struct idxq *roce_mr_table_change_queue(struct roce_mr_table *t);

#endif
