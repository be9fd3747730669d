/* SPDX-License-Identifier: MIT */
/*
 * The QP and MR tables: fixed arrays sized from params.h, allocated once.
 *
 * The register file (control plane, one writer at a time) commits whole
 * entries; the data path looks entries up from another thread. Each entry
 * is guarded by a sequence lock: writers make the sequence odd, store the
 * entry, make it even again; readers copy the entry and retry if the
 * sequence moved. A lookup therefore never sees a torn entry, never takes
 * a lock and never allocates (seed 000 section 3.2: "the data path never
 * sees a half-written QP or MR").
 */
#ifndef ROCE_TABLES_H
#define ROCE_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/layout.h"
#include "roce/regs.h"

struct roce_qp_table; /* opaque */
struct roce_mr_table; /* opaque */

#define ROCE_MR_KEY(index, key_byte) \
	(((uint32_t)(index) << ROCE_MR_KEY_INDEX_SHIFT) | ((key_byte) & 0xFFu))
#define ROCE_MR_KEY_INDEX(key)       ((key) >> ROCE_MR_KEY_INDEX_SHIFT)

const char *roce_qp_state_name(int state); /* "RTS"; "?" if unknown */

/* ---- QP table ---------------------------------------------------------- */

int roce_qp_table_create(struct roce_qp_table **out);
void roce_qp_table_destroy(struct roce_qp_table *t);

/*
 * The QPNs that exist are 0..count-1 (the device's QP_COUNT; ROCE_MAX_QP
 * after create). Commits beyond them answer ROCE_E_QPN. ROCE_E_RANGE for
 * count 0 or above ROCE_MAX_QP. Set once, before the table is used.
 */
int roce_qp_table_set_count(struct roce_qp_table *t, uint32_t count);

/*
 * Apply cfg to entry qpn atomically (cfg->qpn is ignored). Checks, in
 * order: ROCE_E_QPN (qpn beyond the table's count); ROCE_E_RANGE (a field beyond its
 * encoding: state, 24-bit QPN/PSNs, MTU > 5, timer widths, rd_atomic >
 * ROCE_MAX_RD_ATOMIC); ROCE_E_INVAL (unknown type or access bits);
 * ROCE_E_STATE (transition not in IBA 10.3.1); then what the target state
 * needs: from INIT a type and a P_Key (ROCE_E_INVAL), from RTR a path MTU
 * (ROCE_E_RANGE) and, for RC/UC, a peer IP and unicast MAC (ROCE_E_INVAL).
 * On failure the entry is unchanged.
 */
int roce_qp_table_commit(struct roce_qp_table *t, uint32_t qpn,
			 const struct roce_qp_cfg *cfg);

/*
 * Data path: copy entry qpn (whatever its state) into *out; *generation
 * (may be NULL) changes on every commit and state change. ROCE_E_QPN if
 * qpn is out of range. Never blocks, never allocates.
 */
int roce_qp_table_lookup(const struct roce_qp_table *t, uint32_t qpn,
			 struct roce_qp_cfg *out, uint32_t *generation);

/* The generation alone, as lookup reports it: one load, for a data path
 * that keeps its own copy and looks the entry up again only when this
 * moved. */
uint32_t roce_qp_table_generation(const struct roce_qp_table *t, uint32_t qpn);

/* The state alone (one word read): for posting paths that only need it. */
uint8_t roce_qp_table_state(const struct roce_qp_table *t, uint32_t qpn);

/*
 * Engine-driven state change (e.g. RTS -> ERR after the retry count is
 * exhausted, RTS -> SQE). Visible to LOAD. Moves the engine may make: any
 * state but RESET -> ERR, RTS -> SQE; the current state again is a no-op.
 * ROCE_E_STATE otherwise, ROCE_E_QPN for qpn out of range.
 */
int roce_qp_table_set_state(struct roce_qp_table *t, uint32_t qpn,
			    enum roce_qp_state s);

/* Soft reset: every QP back to RESET (other fields kept). */
void roce_qp_table_reset_all(struct roce_qp_table *t);

/* ---- MR table ---------------------------------------------------------- */

/* mem_size: device memory; every valid DDR MR's [pa, pa+len) lies inside it. */
int roce_mr_table_create(size_t mem_size, struct roce_mr_table **out);
void roce_mr_table_destroy(struct roce_mr_table *t);

/*
 * Apply e to entry index atomically. e->valid false invalidates the entry
 * (other fields ignored). For a valid entry returns ROCE_E_NOENT (index >=
 * ROCE_MAX_MR), ROCE_E_INVAL (len 0, unknown access bits or space), ROCE_E_ACCESS
 * (remote write/atomic without local write, IBA 10.6.3.1), ROCE_E_BOUNDS
 * (VA range wraps; a DDR entry's PA range outside device memory, a HOST
 * entry's beyond ROCE_MR_HOST_PA_LIMIT: whether host memory is mapped
 * there is checked by the data path, not here), ROCE_E_RKEY /
 * ROCE_E_LKEY (key bits 31:8 are not the index). Because every key carries
 * its index, two valid entries can never share a key.
 */
int roce_mr_table_commit(struct roce_mr_table *t, uint32_t index,
			 const struct roce_mr_entry *e);

/* Copy entry index (valid or not). ROCE_E_NOENT if index out of range. */
int roce_mr_table_lookup(const struct roce_mr_table *t, uint32_t index,
			 struct roce_mr_entry *out);

/* Data path: the valid entry whose R_Key / L_Key is exactly key, else
 * ROCE_E_RKEY / ROCE_E_LKEY. Never blocks, never allocates. */
int roce_mr_table_lookup_rkey(const struct roce_mr_table *t, uint32_t rkey,
			      struct roce_mr_entry *out);
int roce_mr_table_lookup_lkey(const struct roce_mr_table *t, uint32_t lkey,
			      struct roce_mr_entry *out);

/*
 * For a data path that keeps copies of entries: lookup_gen also returns the
 * entry's generation (even; it changes on every commit), and generation()
 * reads it alone (one load; odd while a commit is under way). A copy whose
 * generation still matches is still the entry.
 */
int roce_mr_table_lookup_gen(const struct roce_mr_table *t, uint32_t index,
			     struct roce_mr_entry *out, uint32_t *gen);
uint32_t roce_mr_table_generation(const struct roce_mr_table *t, uint32_t index);

/* Soft reset: invalidate every entry. */
void roce_mr_table_clear_all(struct roce_mr_table *t);

#endif
