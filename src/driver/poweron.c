/* SPDX-License-Identifier: MIT */
/*
 * The seed's power-on sequence (seed 000 section 3.3) and its register
 * regression check (section 6.3), both driven by a struct roce_config.
 *
 * Order of the sequence. The seed writes "release soft reset and enable"
 * once, after the link is ready. The device holds the link in reset while
 * CTRL.SOFT_RESET is set, and the link-ready bits rise link_delay_us after
 * its release (roce/device.h), so waiting for the link with reset still
 * asserted would never end. The driver therefore releases the reset with
 * the engine still disabled, waits for LINK_READY, and only then sets
 * ENGINE_EN: the engine still never runs before the link is ready, which
 * is what the seed's rule protects (enabling early loses first packets).
 */
#include <stdio.h>

#include "roce/driver.h"
#include "roce/tables.h"
#include "driver/drv_priv.h"

static int poweron_check_sizes(struct roce_drv *drv,
			       const struct roce_config *cfg,
			       const struct roce_dev_info *info)
{
	/* QP_COUNT is fixed when the device is built: a config that states
	 * another describes another device */
	if (cfg->qp_count && cfg->qp_count != info->qp_count)
		return roce_drv_fail(drv, ROCE_E_MISMATCH,
				     "QP_COUNT %u, but the config says "
				     "qp_count = %u", info->qp_count,
				     cfg->qp_count);
	for (uint32_t i = 0; i < cfg->n_qp; i++)
		if (cfg->qp[i].qpn >= info->qp_count)
			return roce_drv_fail(drv, ROCE_E_RANGE,
					     "QP %u: beyond QP_COUNT %u",
					     cfg->qp[i].qpn, info->qp_count);
	for (uint32_t i = 0; i < cfg->n_mr; i++)
		if (cfg->mr[i].index >= info->mr_count)
			return roce_drv_fail(drv, ROCE_E_RANGE,
					     "MR %u: beyond MR_COUNT %u",
					     cfg->mr[i].index, info->mr_count);
	return ROCE_OK;
}

/* IBA 10.3.1 modify-QP ladder from RESET to the configured state. */
static int poweron_qp_state(struct roce_drv *drv, const struct roce_qp_ctx *qp)
{
	static const enum roce_qp_state ladder[] = {
		ROCE_QPS_INIT, ROCE_QPS_RTR, ROCE_QPS_RTS,
	};
	struct roce_qp_ctx q = *qp;
	int st = ROCE_OK;

	q.state = ROCE_QPS_RESET;	/* where step 4 left it */
	for (size_t i = 0; i < 3 && st == ROCE_OK; i++) {
		if (qp->state == ROCE_QPS_ERR || ladder[i] > qp->state)
			break;
		q.state = ladder[i];
		st = roce_drv_qp_write(drv, &q);
	}
	if (st == ROCE_OK && q.state != qp->state) {
		q.state = qp->state;	/* SQD, SQE from RTS; ERR from any */
		st = roce_drv_qp_write(drv, &q);
	}
	return roce_drv_context(drv, st, "moving to %s",
				roce_qp_state_name(q.state));
}

static int poweron_tables(struct roce_drv *drv, const struct roce_config *cfg)
{
	int st = ROCE_OK;

	for (uint32_t i = 0; i < cfg->n_qp && st == ROCE_OK; i++) {
		struct roce_qp_ctx q = cfg->qp[i];

		q.state = ROCE_QPS_RESET;	/* seed: QPs start in Reset */
		st = roce_drv_qp_write(drv, &q);
	}
	if (st != ROCE_OK)
		return roce_drv_context(drv, st, "step 4 (QP contexts)");
	for (uint32_t i = 0; i < cfg->n_mr && st == ROCE_OK; i++)
		st = roce_drv_mr_write(drv, &cfg->mr[i]);
	return roce_drv_context(drv, st, "step 5 (MR entries)");
}

int roce_drv_power_on(struct roce_drv *drv, const struct roce_config *cfg)
{
	struct roce_dev_info info;
	int st;

	if ((st = roce_drv_probe(drv, &info)) != ROCE_OK ||
	    (st = poweron_check_sizes(drv, cfg, &info)) != ROCE_OK)
		return roce_drv_context(drv, st, "step 1 (probe)");
	if ((st = roce_drv_soft_reset(drv)) != ROCE_OK)
		return roce_drv_context(drv, st, "step 2 (soft reset)");
	if ((st = roce_drv_set_local(drv, &cfg->local)) != ROCE_OK ||
	    (st = roce_drv_set_peer(drv, &cfg->peer)) != ROCE_OK)
		return roce_drv_context(drv, st, "step 3 (addresses)");
	if ((st = poweron_tables(drv, cfg)) != ROCE_OK)
		return st;
	if ((st = roce_drv_write(drv, ROCE_REG_CTRL, 0)) != ROCE_OK ||
	    (st = roce_drv_wait_link(drv, cfg->link_timeout_ms)) != ROCE_OK)
		return roce_drv_context(drv, st, "step 6 (wait for link)");
	if ((st = roce_drv_enable(drv, cfg->loopback)) != ROCE_OK)
		return roce_drv_context(drv, st, "step 7 (enable)");
	for (uint32_t i = 0; i < cfg->n_qp && st == ROCE_OK; i++)
		st = poweron_qp_state(drv, &cfg->qp[i]);
	return roce_drv_context(drv, st, "step 8 (QP states)");
}

/* ---- regression check -------------------------------------------------- */

struct verify_ctx {
	struct roce_drv *drv;
	roce_verify_cb cb;
	void *arg;
	unsigned ndiff;
};

static void verify_report(struct verify_ctx *v, const char *prefix,
			  uint32_t off, uint32_t exp, uint32_t act, int st)
{
	struct roce_verify_diff d = { .off = off, .expected = exp,
				      .actual = act, .status = st };

	snprintf(d.reg, sizeof(d.reg), "%s%s", prefix, roce_drv_reg_name(off));
	v->ndiff++;
	if (v->cb)
		v->cb(&d, v->arg);
}

/* AXI error responses are findings; a dead transport ends the check. */
static bool verify_fatal(int st)
{
	return st != ROCE_OK && st != ROCE_E_SLVERR && st != ROCE_E_DECERR;
}

static int verify_reg(struct verify_ctx *v, uint32_t off, uint32_t exp)
{
	uint32_t act = 0;
	int st = roce_drv_read(v->drv, off, &act);

	if (verify_fatal(st))
		return st;
	if (st != ROCE_OK || act != exp)
		verify_report(v, "", off, exp, act, st);
	return ROCE_OK;
}

/* The MR image's registers are MR_ACCESS on, one after the other. */
static uint32_t mr_word_reg(unsigned i)
{
	return ROCE_REG_MR_ACCESS + 4u * i;
}

static int verify_entry(struct verify_ctx *v, const char *tbl, uint32_t idx,
			uint32_t (*word_reg)(unsigned), const uint32_t *exp,
			const uint32_t *act, unsigned n, int st)
{
	char prefix[24];

	snprintf(prefix, sizeof(prefix), "%s[%u].", tbl, idx);
	if (verify_fatal(st))
		return st;
	for (unsigned i = 0; i < n; i++)
		if (st != ROCE_OK || exp[i] != act[i]) {
			verify_report(v, prefix, word_reg(i), exp[i],
				      st == ROCE_OK ? act[i] : 0, st);
			if (st != ROCE_OK)
				break;	/* one line for a failed LOAD */
		}
	return ROCE_OK;
}

static int verify_device(struct verify_ctx *v, const struct roce_config *cfg)
{
	const uint32_t exp[][2] = {
		{ ROCE_REG_DEV_ID, ROCE_DEV_ID_VALUE },
		{ ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN |
				 (cfg->loopback ? ROCE_CTRL_LOOPBACK : 0) },
		{ ROCE_REG_MAC_LOW, roce_mac_low(cfg->local.mac) },
		{ ROCE_REG_MAC_HIGH, roce_mac_high(cfg->local.mac) },
		{ ROCE_REG_IP_ADDR, cfg->local.ip },
		{ ROCE_REG_UDP_PORT, cfg->local.udp_port },
		{ ROCE_REG_PEER_MAC_LOW, roce_mac_low(cfg->peer.mac) },
		{ ROCE_REG_PEER_MAC_HIGH, roce_mac_high(cfg->peer.mac) },
		{ ROCE_REG_PEER_IP, cfg->peer.ip },
		{ ROCE_REG_PEER_UDP_PORT, cfg->peer.udp_port },
	};
	int st = ROCE_OK;

	for (size_t i = 0; i < sizeof(exp) / sizeof(exp[0]) && st == ROCE_OK; i++)
		st = verify_reg(v, exp[i][0], exp[i][1]);
	if (st == ROCE_OK && cfg->qp_count)
		st = verify_reg(v, ROCE_REG_QP_COUNT, cfg->qp_count);
	return st;
}

int roce_drv_verify(struct roce_drv *drv, const struct roce_config *cfg,
		    roce_verify_cb cb, void *arg, unsigned *ndiff)
{
	struct verify_ctx v = { drv, cb, arg, 0 };
	int st = verify_device(&v, cfg);

	for (uint32_t i = 0; i < cfg->n_qp && st == ROCE_OK; i++) {
		uint32_t exp[ROCE_QP_NREGS], act[ROCE_QP_NREGS] = { 0 };
		const struct roce_qp_ctx *q = &cfg->qp[i];

		roce_qp_to_regs(q, exp);
		st = roce_drv_qp_read_regs(drv, q->qpn, act);
		st = verify_entry(&v, "QP", q->qpn, roce_qp_word_reg, exp, act,
				  ROCE_QP_NREGS, st);
	}
	for (uint32_t i = 0; i < cfg->n_mr && st == ROCE_OK; i++) {
		uint32_t exp[ROCE_MR_NREGS], act[ROCE_MR_NREGS] = { 0 };
		const struct roce_mr_ctx *m = &cfg->mr[i];

		roce_mr_to_regs(m, exp);
		st = roce_drv_mr_read_regs(drv, m->index, act);
		st = verify_entry(&v, "MR", m->index, mr_word_reg, exp,
				  act, ROCE_MR_NREGS, st);
	}
	if (ndiff)
		*ndiff = v.ndiff;
	if (st != ROCE_OK)
		return st;
	return v.ndiff ? ROCE_E_MISMATCH : ROCE_OK;
}
