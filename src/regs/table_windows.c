/* SPDX-License-Identifier: MIT */
/*
 * The QP_TABLE and MR_TABLE windows: index register, shadow registers and
 * a command register (seed 000 section 3.2). COMMIT decodes the shadow
 * into a table entry and hands it to the table, which validates it and
 * swaps it in under the entry's sequence lock, so the data path sees the
 * old entry or the new one, never a mix. LOAD encodes the live entry
 * (including state the engine changed) back into the shadow.
 */
#include <string.h>

#include "roce/status.h"
#include "regs/device_priv.h"

/* MAC in two registers: HIGH[15:0] = bytes 0..1, LOW = bytes 2..5. */
static void mac_from_regs(uint32_t high, uint32_t low, uint8_t mac[6])
{
	mac[0] = (uint8_t)(high >> 8);
	mac[1] = (uint8_t)high;
	mac[2] = (uint8_t)(low >> 24);
	mac[3] = (uint8_t)(low >> 16);
	mac[4] = (uint8_t)(low >> 8);
	mac[5] = (uint8_t)low;
}

static void mac_to_regs(const uint8_t mac[6], uint32_t *high, uint32_t *low)
{
	*high = (uint32_t)mac[0] << 8 | mac[1];
	*low = (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 |
	       (uint32_t)mac[4] << 8 | mac[5];
}

/* ---- QP ---------------------------------------------------------------- */

static void qp_from_shadow(struct roce_device *dev, struct roce_qp_cfg *c)
{
	uint32_t tm = *dev_reg(dev, ROCE_REG_QP_TYPE_MTU);
	uint32_t tmr = *dev_reg(dev, ROCE_REG_QP_TIMERS);
	uint32_t rd = *dev_reg(dev, ROCE_REG_QP_RD_ATOMIC);

	memset(c, 0, sizeof(*c));
	c->qpn = *dev_reg(dev, ROCE_REG_QP_INDEX);
	c->state = (uint8_t)*dev_reg(dev, ROCE_REG_QP_STATE);
	c->type = (uint8_t)tm;
	c->mtu = (uint8_t)(tm >> 8);
	c->access = (uint8_t)(tm >> 16);
	c->dest_qpn = *dev_reg(dev, ROCE_REG_QP_DEST_QPN);
	c->sq_psn = *dev_reg(dev, ROCE_REG_QP_SQ_PSN);
	c->rq_psn = *dev_reg(dev, ROCE_REG_QP_RQ_PSN);
	c->peer_ip = *dev_reg(dev, ROCE_REG_QP_PEER_IP);
	mac_from_regs(*dev_reg(dev, ROCE_REG_QP_PEER_MAC_HIGH),
		      *dev_reg(dev, ROCE_REG_QP_PEER_MAC_LOW), c->peer_mac);
	c->pkey = (uint16_t)*dev_reg(dev, ROCE_REG_QP_PKEY);
	c->timeout = tmr & 0x1Fu;
	c->retry_cnt = (tmr >> 8) & 0x7u;
	c->rnr_retry = (tmr >> 16) & 0x7u;
	c->min_rnr_timer = (tmr >> 24) & 0x1Fu;
	c->max_rd_atomic = (uint8_t)rd;
	c->max_dest_rd_atomic = (uint8_t)(rd >> 8);
	c->qkey = *dev_reg(dev, ROCE_REG_QP_QKEY);
	c->pd = *dev_reg(dev, ROCE_REG_QP_PD);
}

static void qp_to_shadow(struct roce_device *dev, const struct roce_qp_cfg *c)
{
	*dev_reg(dev, ROCE_REG_QP_STATE) = c->state;
	*dev_reg(dev, ROCE_REG_QP_TYPE_MTU) =
		c->type | (uint32_t)c->mtu << 8 | (uint32_t)c->access << 16;
	*dev_reg(dev, ROCE_REG_QP_DEST_QPN) = c->dest_qpn;
	*dev_reg(dev, ROCE_REG_QP_SQ_PSN) = c->sq_psn;
	*dev_reg(dev, ROCE_REG_QP_RQ_PSN) = c->rq_psn;
	*dev_reg(dev, ROCE_REG_QP_PEER_IP) = c->peer_ip;
	mac_to_regs(c->peer_mac, dev_reg(dev, ROCE_REG_QP_PEER_MAC_HIGH),
		    dev_reg(dev, ROCE_REG_QP_PEER_MAC_LOW));
	*dev_reg(dev, ROCE_REG_QP_PKEY) = c->pkey;
	*dev_reg(dev, ROCE_REG_QP_TIMERS) =
		c->timeout | (uint32_t)c->retry_cnt << 8 |
		(uint32_t)c->rnr_retry << 16 | (uint32_t)c->min_rnr_timer << 24;
	*dev_reg(dev, ROCE_REG_QP_RD_ATOMIC) =
		c->max_rd_atomic | (uint32_t)c->max_dest_rd_atomic << 8;
	*dev_reg(dev, ROCE_REG_QP_QKEY) = c->qkey;
	*dev_reg(dev, ROCE_REG_QP_PD) = c->pd;
}

void roce_qp_window_command(struct roce_device *dev, uint32_t cmd)
{
	uint32_t qpn = *dev_reg(dev, ROCE_REG_QP_INDEX);
	struct roce_qp_cfg c;
	int rc;

	if (cmd == ROCE_TBL_CMD_COMMIT) {
		qp_from_shadow(dev, &c);
		rc = roce_qp_table_commit(dev->qp, qpn, &c);
	} else {
		rc = roce_qp_table_lookup(dev->qp, qpn, &c, NULL);
		if (rc == ROCE_OK)
			qp_to_shadow(dev, &c);
	}
	*dev_reg(dev, ROCE_REG_QP_CMD_STATUS) = (uint32_t)rc;
}

/* ---- MR ---------------------------------------------------------------- */

static uint64_t reg64(struct roce_device *dev, uint32_t low_off)
{
	return (uint64_t)*dev_reg(dev, low_off + 4) << 32 | *dev_reg(dev, low_off);
}

static void set_reg64(struct roce_device *dev, uint32_t low_off, uint64_t v)
{
	*dev_reg(dev, low_off) = (uint32_t)v;
	*dev_reg(dev, low_off + 4) = (uint32_t)(v >> 32);
}

static void mr_from_shadow(struct roce_device *dev, struct roce_mr_entry *e)
{
	uint32_t acc = *dev_reg(dev, ROCE_REG_MR_ACCESS);

	memset(e, 0, sizeof(*e));
	e->access = acc & ~ROCE_MR_VALID;
	e->valid = acc & ROCE_MR_VALID;
	e->va = reg64(dev, ROCE_REG_MR_VA_LOW);
	e->pa = reg64(dev, ROCE_REG_MR_PA_LOW);
	e->len = reg64(dev, ROCE_REG_MR_LEN_LOW);
	e->rkey = *dev_reg(dev, ROCE_REG_MR_RKEY);
	e->lkey = *dev_reg(dev, ROCE_REG_MR_LKEY);
	e->pd = *dev_reg(dev, ROCE_REG_MR_PD);
}

static void mr_to_shadow(struct roce_device *dev, const struct roce_mr_entry *e)
{
	*dev_reg(dev, ROCE_REG_MR_ACCESS) =
		e->access | (e->valid ? ROCE_MR_VALID : 0);
	set_reg64(dev, ROCE_REG_MR_VA_LOW, e->va);
	set_reg64(dev, ROCE_REG_MR_PA_LOW, e->pa);
	set_reg64(dev, ROCE_REG_MR_LEN_LOW, e->len);
	*dev_reg(dev, ROCE_REG_MR_RKEY) = e->rkey;
	*dev_reg(dev, ROCE_REG_MR_LKEY) = e->lkey;
	*dev_reg(dev, ROCE_REG_MR_PD) = e->pd;
}

void roce_mr_window_command(struct roce_device *dev, uint32_t cmd)
{
	uint32_t index = *dev_reg(dev, ROCE_REG_MR_INDEX);
	struct roce_mr_entry e;
	int rc;

	if (cmd == ROCE_TBL_CMD_COMMIT) {
		mr_from_shadow(dev, &e);
		rc = roce_mr_table_commit(dev->mr, index, &e);
	} else {
		rc = roce_mr_table_lookup(dev->mr, index, &e);
		if (rc == ROCE_OK)
			mr_to_shadow(dev, &e);
	}
	*dev_reg(dev, ROCE_REG_MR_CMD_STATUS) = (uint32_t)rc;
}
