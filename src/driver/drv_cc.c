/* SPDX-License-Identifier: MIT */
/*
 * Host driver, congestion control: the CC block (roce/regs.h) written
 * from a roce_cc_config and committed, read back, and a QP's current rate,
 * own window and own algorithm through the CC_QP_SELECT window.
 */
#include "roce/cc.h"
#include "roce/driver.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "driver/drv_priv.h"

int roce_drv_cc_write(struct roce_drv *drv, const struct roce_cc_config *c)
{
	uint32_t ctrl, st;
	int rc;

	if (!drv || roce_cc_config_check(c))
		return ROCE_E_INVAL;
	ctrl = (uint32_t)c->np_prio_mask << ROCE_CC_NP_MASK_SHIFT |
	       (uint32_t)c->rp_prio_mask << ROCE_CC_RP_MASK_SHIFT |
	       (uint32_t)c->ecn << ROCE_CC_ECN_SHIFT |
	       (c->adaptive_rto ? ROCE_CC_ADAPTIVE_RTO : 0);
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_CTRL, ctrl)) ||
	    (rc = roce_drv_write(drv, ROCE_REG_CC_LINE_MBPS, c->line_mbps)) ||
	    (rc = roce_drv_write(drv, ROCE_REG_CC_WINDOW_KB, c->window_kb)) ||
	    (rc = roce_drv_write(drv, ROCE_REG_CC_RTO_MIN_US, c->rto_min_us)))
		return rc;
#define X(n, N, def, lo, hi, unit, what)                                                  \
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_KNOB(ROCE_DCQCN_##N), c->dcqcn.n)) != 0) \
		return rc;
	ROCE_DCQCN_KNOB_LIST(X)
#undef X
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_ALGO, c->algo)) != 0)
		return rc;
#define X(n, N, def, lo, hi, unit, what)                                                   \
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_##N), c->swift.n)) != 0) \
		return rc;
	ROCE_SWIFT_KNOB_LIST(X)
#undef X
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_COMMIT, 1)) ||
	    (rc = roce_drv_read(drv, ROCE_REG_CC_STATUS, &st)))
		return rc;
	return st ? ROCE_E_INVAL : ROCE_OK;
}

int roce_drv_cc_read(struct roce_drv *drv, struct roce_cc_config *c)
{
	uint32_t v;
	int rc;

	if (!drv || !c)
		return ROCE_E_INVAL;
	roce_cc_config_default(c);
	if ((rc = roce_drv_read(drv, ROCE_REG_CC_CTRL, &v)))
		return rc;
	c->np_prio_mask = (uint8_t)(v >> ROCE_CC_NP_MASK_SHIFT);
	c->rp_prio_mask = (uint8_t)(v >> ROCE_CC_RP_MASK_SHIFT);
	c->ecn = (uint8_t)(v >> ROCE_CC_ECN_SHIFT & 3);
	c->adaptive_rto = v & ROCE_CC_ADAPTIVE_RTO;
	if ((rc = roce_drv_read(drv, ROCE_REG_CC_LINE_MBPS, &c->line_mbps)) ||
	    (rc = roce_drv_read(drv, ROCE_REG_CC_WINDOW_KB, &c->window_kb)) ||
	    (rc = roce_drv_read(drv, ROCE_REG_CC_RTO_MIN_US, &c->rto_min_us)))
		return rc;
#define X(n, N, def, lo, hi, unit, what)                                                  \
	if ((rc = roce_drv_read(drv, ROCE_REG_CC_KNOB(ROCE_DCQCN_##N), &c->dcqcn.n)) != 0) \
		return rc;
	ROCE_DCQCN_KNOB_LIST(X)
#undef X
	if ((rc = roce_drv_read(drv, ROCE_REG_CC_ALGO, &v)))
		return rc;
	c->algo = (uint8_t)v;
#define X(n, N, def, lo, hi, unit, what)                                                   \
	if ((rc = roce_drv_read(drv, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_##N), &c->swift.n)) != 0) \
		return rc;
	ROCE_SWIFT_KNOB_LIST(X)
#undef X
	return ROCE_OK;
}

int roce_drv_cc_qp_rate(struct roce_drv *drv, uint32_t qpn, bool *limited, uint32_t *mbps)
{
	uint32_t v;
	int rc;

	if (!drv || !limited || !mbps)
		return ROCE_E_INVAL;
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_QP_SELECT, qpn)) ||
	    (rc = roce_drv_read(drv, ROCE_REG_CC_QP_RATE, &v)))
		return rc;
	*limited = v & ROCE_CC_RATE_LIMITED;
	*mbps = v & ~ROCE_CC_RATE_LIMITED;
	return ROCE_OK;
}

int roce_drv_cc_qp_window(struct roce_drv *drv, uint32_t qpn, uint32_t *kb)
{
	int rc;

	if (!drv || !kb)
		return ROCE_E_INVAL;
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_QP_SELECT, qpn)))
		return rc;
	return roce_drv_read(drv, ROCE_REG_CC_QP_WINDOW_KB, kb);
}

int roce_drv_cc_qp_set_window(struct roce_drv *drv, uint32_t qpn, uint32_t kb)
{
	int rc;

	if (!drv || kb > (1u << 20))
		return ROCE_E_INVAL;
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_QP_SELECT, qpn)))
		return rc;
	return roce_drv_write(drv, ROCE_REG_CC_QP_WINDOW_KB, kb);
}

int roce_drv_cc_qp_algo(struct roce_drv *drv, uint32_t qpn, int *algo)
{
	uint32_t v;
	int rc;

	if (!drv || !algo)
		return ROCE_E_INVAL;
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_QP_SELECT, qpn)) ||
	    (rc = roce_drv_read(drv, ROCE_REG_CC_QP_ALGO, &v)))
		return rc;
	*algo = (int)v - 1;
	return ROCE_OK;
}

int roce_drv_cc_qp_set_algo(struct roce_drv *drv, uint32_t qpn, int algo)
{
	int rc;

	if (!drv || algo < -1 || algo >= ROCE_CC_ALGO_COUNT)
		return ROCE_E_INVAL;
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_QP_SELECT, qpn)))
		return rc;
	return roce_drv_write(drv, ROCE_REG_CC_QP_ALGO, (uint32_t)(algo + 1));
}
