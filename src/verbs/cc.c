/* SPDX-License-Identifier: MIT */
/* Congestion control's host calls (roce/cc.h): configure a context's
   engine, read a QP's state as its algorithm reports it. */
#include "roce/cc.h"
#include "roce/driver.h"
#include "roce/status.h"
#include "engine/cc.h"
#include "verbs/verbs_priv.h"

int roce_context_set_cc(struct roce_context *ctx, const struct roce_cc_config *c)
{
	/* through the register file, as the rest of the device is set up:
	   the engine takes the block at its next poll */
	return ctx ? roce_drv_cc_write(&ctx->drv, c) : ROCE_E_INVAL;
}

int roce_qp_cc_state(struct roce_qp *qp, struct roce_qp_cc *out)
{
	struct roce_engine *e;

	if (!qp || !out)
		return ROCE_E_INVAL;
	e = &qp->ctx->eng;
	engine_lock(e);         /* the engine thread writes it between polls */
	cc_qp_state(&qp->eng, out);
	engine_unlock(e);
	return ROCE_OK;
}

int roce_qp_set_window_kb(struct roce_qp *qp, uint32_t kb)
{
	return qp ? roce_drv_cc_qp_set_window(&qp->ctx->drv, roce_qp_num(qp), kb) : ROCE_E_INVAL;
}

int roce_qp_set_recovery(struct roce_qp *qp, unsigned flags)
{
	return qp ? roce_drv_cc_qp_set_recovery(&qp->ctx->drv, roce_qp_num(qp), flags)
		  : ROCE_E_INVAL;
}

int roce_qp_set_cc_algo(struct roce_qp *qp, int algo)
{
	return qp ? roce_drv_cc_qp_set_algo(&qp->ctx->drv, roce_qp_num(qp), algo) : ROCE_E_INVAL;
}
