/* SPDX-License-Identifier: MIT */
/*
 * Host driver, table windows (roce/regs.h): select an entry with INDEX,
 * fill the shadow registers, COMMIT applies them atomically (seed 000
 * section 3.2: shadow registers plus a commit register, so the data path
 * never sees a half-written QP); LOAD copies an entry back into the shadow.
 * COMMIT reads BUSY until the command is done; then CMD_STATUS tells
 * whether the device accepted it.
 */
#include "common/clock.h"
#include "roce/driver.h"
#include "driver/drv_priv.h"

/* The registers of one table window. */
struct drv_table {
	const char *name;		/* "QP", "MR" */
	uint32_t index, commit, cmd_status;
	uint32_t (*word_reg)(unsigned i); /* the shadow register of word i */
	unsigned nregs;
};

static uint32_t mr_word_reg(unsigned i)
{
	return ROCE_REG_MR_ACCESS + 4u * i;
}

static const struct drv_table qp_tbl = {
	"QP", ROCE_REG_QP_INDEX, ROCE_REG_QP_COMMIT, ROCE_REG_QP_CMD_STATUS,
	roce_qp_word_reg, ROCE_QP_NREGS,
};

static const struct drv_table mr_tbl = {
	"MR", ROCE_REG_MR_INDEX, ROCE_REG_MR_COMMIT, ROCE_REG_MR_CMD_STATUS,
	mr_word_reg, ROCE_MR_NREGS,
};

/* Polls COMMIT until BUSY clears, then checks CMD_STATUS. The clock is
 * read only once the table is found busy: a model that commits at once
 * (roce-demo --virtual-time) then runs without reading the wall clock. */
static int drv_table_wait(struct roce_drv *drv, const struct drv_table *t,
			  uint32_t index, const char *cmd)
{
	uint64_t deadline = 0;
	uint32_t v;
	int st;

	for (unsigned i = 0;; i++) {
		if ((st = roce_drv_read(drv, t->commit, &v)) != ROCE_OK)
			return st;
		if (!(v & ROCE_TBL_BUSY))
			break;
		if (!deadline)
			deadline = roce_now_ms() + drv->cmd_timeout_ms;
		else if (roce_now_ms() > deadline)
			return roce_drv_fail(drv, ROCE_E_TIMEOUT,
					     "%s %u: %s still BUSY after %u ms",
					     t->name, index,
					     roce_drv_reg_name(t->commit),
					     drv->cmd_timeout_ms);
		if (i >= 16)
			roce_drv_sleep_us(10);
	}
	if ((st = roce_drv_read(drv, t->cmd_status, &v)) != ROCE_OK)
		return st;
	if (v != ROCE_OK)
		return roce_drv_fail(drv, (int)v < ROCE_STATUS_COUNT ? (int)v
								    : ROCE_E_IO,
				     "%s %u: %s rejected, %s = %u: %s (%s)",
				     t->name, index, cmd,
				     roce_drv_reg_name(t->cmd_status), v,
				     roce_status_name((int)v),
				     roce_status_str((int)v));
	return ROCE_OK;
}

static int drv_table_write(struct roce_drv *drv, const struct drv_table *t,
			   uint32_t index, const uint32_t *regs)
{
	int st = roce_drv_write(drv, t->index, index);

	for (unsigned i = 0; i < t->nregs && st == ROCE_OK; i++)
		st = roce_drv_write(drv, t->word_reg(i), regs[i]);
	if (st == ROCE_OK)
		st = roce_drv_write(drv, t->commit, ROCE_TBL_CMD_COMMIT);
	if (st == ROCE_OK)
		return drv_table_wait(drv, t, index, "COMMIT");
	return roce_drv_context(drv, st, "%s %u", t->name, index);
}

/* LOAD entry index into the shadow registers. */
static int drv_table_load(struct roce_drv *drv, const struct drv_table *t,
			  uint32_t index)
{
	int st = roce_drv_write(drv, t->index, index);

	if (st == ROCE_OK)
		st = roce_drv_write(drv, t->commit, ROCE_TBL_CMD_LOAD);
	if (st == ROCE_OK)
		return drv_table_wait(drv, t, index, "LOAD");
	return roce_drv_context(drv, st, "%s %u", t->name, index);
}

/* Shadow words [from, nregs) into regs. */
static int drv_table_words(struct roce_drv *drv, const struct drv_table *t,
			   unsigned from, uint32_t *regs)
{
	int st = ROCE_OK;

	for (unsigned i = from; i < t->nregs && st == ROCE_OK; i++)
		st = roce_drv_read(drv, t->word_reg(i), &regs[i]);
	return st;
}

static int drv_table_read(struct roce_drv *drv, const struct drv_table *t,
			  uint32_t index, uint32_t *regs)
{
	int st = drv_table_load(drv, t, index);

	return st == ROCE_OK ? drv_table_words(drv, t, 0, regs) : st;
}

int roce_drv_qp_write(struct roce_drv *drv, const struct roce_qp_ctx *qp)
{
	uint32_t r[ROCE_QP_NREGS];

	roce_qp_to_regs(qp, r);
	return drv_table_write(drv, &qp_tbl, qp->qpn, r);
}

int roce_drv_qp_read_regs(struct roce_drv *drv, uint32_t qpn,
			  uint32_t regs[ROCE_QP_NREGS])
{
	return drv_table_read(drv, &qp_tbl, qpn, regs);
}

int roce_drv_qp_read(struct roce_drv *drv, uint32_t qpn,
		     struct roce_qp_ctx *qp)
{
	uint32_t r[ROCE_QP_NREGS];
	int st = drv_table_read(drv, &qp_tbl, qpn, r);

	if (st == ROCE_OK)
		roce_qp_from_regs(qpn, r, qp);
	return st;
}

int roce_drv_mr_write(struct roce_drv *drv, const struct roce_mr_ctx *mr)
{
	uint32_t r[ROCE_MR_NREGS];

	if (!roce_mr_stage_fits(&mr->stage))
		return roce_drv_fail(drv, ROCE_E_INVAL, "MR %u: a stage binding MR_STAGE "
				     "cannot hold (unit 512 or 4096, key slot 0..15)",
				     mr->index);
	roce_mr_to_regs(mr, r);
	return drv_table_write(drv, &mr_tbl, mr->index, r);
}

int roce_drv_mr_read_regs(struct roce_drv *drv, uint32_t index,
			  uint32_t regs[ROCE_MR_NREGS])
{
	return drv_table_read(drv, &mr_tbl, index, regs);
}

int roce_drv_mr_read(struct roce_drv *drv, uint32_t index,
		     struct roce_mr_ctx *mr)
{
	uint32_t r[ROCE_MR_NREGS];
	int st = drv_table_read(drv, &mr_tbl, index, r);

	if (st == ROCE_OK)
		roce_mr_from_regs(index, r, mr);
	return st;
}

/* A scan of the whole table (rocectl stage) reads two words of an entry
   that has no binding, not all of them. */
int roce_drv_mr_read_bound(struct roce_drv *drv, uint32_t index,
			   struct roce_mr_ctx *mr, bool *bound)
{
	uint32_t r[ROCE_MR_NREGS] = { 0 };
	int st = drv_table_load(drv, &mr_tbl, index);

	*bound = false;
	if (st == ROCE_OK)
		st = roce_drv_read(drv, ROCE_REG_MR_ACCESS, &r[ROCE_MR_ACCESS_WORD]);
	if (st != ROCE_OK || !(r[ROCE_MR_ACCESS_WORD] & ROCE_MR_VALID))
		return st;
	if ((st = roce_drv_read(drv, ROCE_REG_MR_STAGE, &r[ROCE_MR_STAGE_WORD])) ||
	    !r[ROCE_MR_STAGE_WORD])
		return st;
	if ((st = drv_table_words(drv, &mr_tbl, 0, r)) == ROCE_OK) {
		roce_mr_from_regs(index, r, mr);
		*bound = roce_stage_bound(&mr->stage);
	}
	return st;
}
