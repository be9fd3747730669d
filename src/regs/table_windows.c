/* SPDX-License-Identifier: MIT */
/*
 * The QP_TABLE and MR_TABLE windows: index register, shadow registers and
 * a command register (seed 000 section 3.2). COMMIT decodes the shadow
 * into a table entry and hands it to the table, which validates it and
 * swaps it in under the entry's sequence lock, so the data path sees the
 * old entry or the new one, never a mix. LOAD encodes the live entry
 * (including state the engine changed) back into the shadow. Both go
 * through the entry codecs of roce/layout.h, as the host driver does.
 */
#include <string.h>

#include "roce/layout.h"
#include "roce/status.h"
#include "regs/device_priv.h"

static uint32_t mr_word_reg(unsigned i)
{
	return ROCE_REG_MR_ACCESS + 4u * i;
}

/* The shadow registers of a window as an image: word i is in the
 * register word_reg(i) (the QP shadow continues at QP_DGID_0). */
static void shadow_read(struct roce_device *dev, uint32_t (*word_reg)(unsigned),
			uint32_t *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		w[i] = *dev_reg(dev, word_reg(i));
}

static void shadow_write(struct roce_device *dev, uint32_t (*word_reg)(unsigned),
			 const uint32_t *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		*dev_reg(dev, word_reg(i)) = w[i];
}

/* ---- QP ---------------------------------------------------------------- */

void roce_qp_window_command(struct roce_device *dev, uint32_t cmd)
{
	uint32_t qpn = *dev_reg(dev, ROCE_REG_QP_INDEX);
	uint32_t w[ROCE_QP_NREGS];
	struct roce_qp_cfg c;
	int rc;

	if (cmd == ROCE_TBL_CMD_COMMIT) {
		shadow_read(dev, roce_qp_word_reg, w, ROCE_QP_NREGS);
		roce_qp_from_regs(qpn, w, &c);
		rc = roce_qp_table_commit(dev->qp, qpn, &c);
	} else {
		rc = roce_qp_table_lookup(dev->qp, qpn, &c, NULL);
		if (rc == ROCE_OK) {
			roce_qp_to_regs(&c, w);
			shadow_write(dev, roce_qp_word_reg, w, ROCE_QP_NREGS);
		}
	}
	*dev_reg(dev, ROCE_REG_QP_CMD_STATUS) = (uint32_t)rc;
}

/* ---- MR ---------------------------------------------------------------- */

void roce_mr_window_command(struct roce_device *dev, uint32_t cmd)
{
	uint32_t index = *dev_reg(dev, ROCE_REG_MR_INDEX);
	uint32_t w[ROCE_MR_NREGS];
	struct roce_mr_entry e;
	int rc;

	if (cmd == ROCE_TBL_CMD_COMMIT) {
		shadow_read(dev, mr_word_reg, w, ROCE_MR_NREGS);
		roce_mr_from_regs(index, w, &e);
		rc = roce_mr_table_commit(dev->mr, index, &e);
	} else {
		rc = roce_mr_table_lookup(dev->mr, index, &e);
		if (rc == ROCE_OK) {
			roce_mr_to_regs(&e, w);
			shadow_write(dev, mr_word_reg, w, ROCE_MR_NREGS);
		}
	}
	*dev_reg(dev, ROCE_REG_MR_CMD_STATUS) = (uint32_t)rc;
}
