/* SPDX-License-Identifier: MIT */
/*
 * Host driver, congestion control: the CC block (roce/regs.h) written
 * from a roce_cc_config and committed, read back, and a QP's current rate,
 * own window, recovery and algorithm through the CC_QP_SELECT window.
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
	       (c->adaptive_rto ? ROCE_CC_ADAPTIVE_RTO : 0) |
	       (c->adaptive_window ? ROCE_CC_ADAPTIVE_WINDOW : 0);
	if ((rc = roce_drv_write(drv, ROCE_REG_CC_CTRL, ctrl)) ||
	    (rc = roce_drv_write(drv, ROCE_REG_CC_RTT_US, c->rtt_us)) ||
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
	c->adaptive_window = v & ROCE_CC_ADAPTIVE_WINDOW;
	if ((rc = roce_drv_read(drv, ROCE_REG_CC_RTT_US, &c->rtt_us)) ||
	    (rc = roce_drv_read(drv, ROCE_REG_CC_LINE_MBPS, &c->line_mbps)) ||
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

/* A per-QP register through CC_QP_SELECT: read (val) or written (*val) */
static int qp_reg(struct roce_drv *drv, uint32_t qpn, uint32_t off, bool write, uint32_t *val)
{
	int rc = roce_drv_write(drv, ROCE_REG_CC_QP_SELECT, qpn);

	if (rc)
		return rc;
	return write ? roce_drv_write(drv, off, *val) : roce_drv_read(drv, off, val);
}

int roce_drv_cc_qp_window(struct roce_drv *drv, uint32_t qpn, uint32_t *kb)
{
	if (!drv || !kb)
		return ROCE_E_INVAL;
	return qp_reg(drv, qpn, ROCE_REG_CC_QP_WINDOW_KB, false, kb);
}

int roce_drv_cc_qp_set_window(struct roce_drv *drv, uint32_t qpn, uint32_t kb)
{
	if (!drv || kb > (1u << 20))
		return ROCE_E_INVAL;
	return qp_reg(drv, qpn, ROCE_REG_CC_QP_WINDOW_KB, true, &kb);
}

/* The verbs' flags are the register's bits */
_Static_assert(ROCE_RECOVERY_OWN == ROCE_CC_QP_REC_OWN &&
		       ROCE_RECOVERY_ADAPTIVE_RTO == ROCE_CC_QP_REC_RTO &&
		       ROCE_RECOVERY_ADAPTIVE_WINDOW == ROCE_CC_QP_REC_WINDOW,
	       "ROCE_RECOVERY_* are CC_QP_RECOVERY's bits");

int roce_drv_cc_qp_recovery(struct roce_drv *drv, uint32_t qpn, uint32_t *flags)
{
	if (!drv || !flags)
		return ROCE_E_INVAL;
	return qp_reg(drv, qpn, ROCE_REG_CC_QP_RECOVERY, false, flags);
}

int roce_drv_cc_qp_set_recovery(struct roce_drv *drv, uint32_t qpn, uint32_t flags)
{
	const uint32_t bits = ROCE_CC_QP_REC_RTO | ROCE_CC_QP_REC_WINDOW;

	/* bits without OWN would read as the device's: refused, not lost */
	if (!drv || (flags & ~(bits | ROCE_CC_QP_REC_OWN)) ||
	    ((flags & bits) && !(flags & ROCE_CC_QP_REC_OWN)))
		return ROCE_E_INVAL;
	return qp_reg(drv, qpn, ROCE_REG_CC_QP_RECOVERY, true, &flags);
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
