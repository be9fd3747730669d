/* SPDX-License-Identifier: MIT */
/*
 * The CC block of the register file (0x200-0x2FF, roce/regs.h): the
 * congestion-control configuration as registers, taken by the engine as a
 * whole at CC_COMMIT (a half-written set never reaches the data path), and
 * each QP's current rate, which the engine publishes and CC_QP_RATE shows
 * for the QP CC_QP_SELECT names (a NIC's rate table, read through a
 * window), and each QP's own bounded window (CC_QP_WINDOW_KB, through the
 * same selection), loss recovery (CC_QP_RECOVERY) and algorithm
 * (CC_QP_ALGO), which the engine takes at once.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "regs/device_priv.h"

/* The registers as a configuration. */
static void cc_from_regs(struct roce_device *dev, struct roce_cc_config *c)
{
	uint32_t ctrl = *dev_reg(dev, ROCE_REG_CC_CTRL);

	roce_cc_config_default(c);
	c->np_prio_mask = (uint8_t)(ctrl >> ROCE_CC_NP_MASK_SHIFT);
	c->rp_prio_mask = (uint8_t)(ctrl >> ROCE_CC_RP_MASK_SHIFT);
	c->ecn = (uint8_t)(ctrl >> ROCE_CC_ECN_SHIFT & 3);
	c->adaptive_rto = ctrl & ROCE_CC_ADAPTIVE_RTO;
	c->adaptive_window = ctrl & ROCE_CC_ADAPTIVE_WINDOW;
	c->rtt_us = *dev_reg(dev, ROCE_REG_CC_RTT_US);
	c->line_mbps = *dev_reg(dev, ROCE_REG_CC_LINE_MBPS);
	c->window_kb = *dev_reg(dev, ROCE_REG_CC_WINDOW_KB);
	c->rto_min_us = *dev_reg(dev, ROCE_REG_CC_RTO_MIN_US);
#define X(n, N, def, lo, hi, unit, what) \
	c->dcqcn.n = *dev_reg(dev, ROCE_REG_CC_KNOB(ROCE_DCQCN_##N));
	ROCE_DCQCN_KNOB_LIST(X)
#undef X
	c->algo = (uint8_t)*dev_reg(dev, ROCE_REG_CC_ALGO);
#define X(n, N, def, lo, hi, unit, what) \
	c->swift.n = *dev_reg(dev, ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_##N));
	ROCE_SWIFT_KNOB_LIST(X)
#undef X
}

/* The lock is held. */
void roce_cc_commit(struct roce_device *dev)
{
	struct roce_cc_config c;

	cc_from_regs(dev, &c);
	if (roce_cc_config_check(&c)) {
		*dev_reg(dev, ROCE_REG_CC_STATUS) = 1;
		return;
	}
	dev->cc = c;
	*dev_reg(dev, ROCE_REG_CC_STATUS) = 0;
	atomic_fetch_add_explicit(&dev->cc_gen, 1, memory_order_release);
}

uint32_t roce_cc_qp_rate_read(struct roce_device *dev)
{
	uint32_t qpn = *dev_reg(dev, ROCE_REG_CC_QP_SELECT);

	if (qpn >= dev->qp_count || !dev->qp_rate)
		return 0;
	return atomic_load_explicit(&dev->qp_rate[qpn], memory_order_relaxed);
}

/* A QP's word of a per-QP table (CC_QP_WINDOW_KB, CC_QP_RECOVERY): NULL
   past this device's QPs, which read 0 and take no write */
static _Atomic uint32_t *qp_word(struct roce_device *dev, _Atomic uint32_t *tab, uint32_t qpn)
{
	return qpn < dev->qp_count && tab ? &tab[qpn] : NULL;
}

static uint32_t selected_read(struct roce_device *dev, _Atomic uint32_t *tab)
{
	_Atomic uint32_t *w = qp_word(dev, tab, *dev_reg(dev, ROCE_REG_CC_QP_SELECT));

	return w ? atomic_load_explicit(w, memory_order_relaxed) : 0;
}

static void selected_write(struct roce_device *dev, _Atomic uint32_t *tab, uint32_t v)
{
	_Atomic uint32_t *w = qp_word(dev, tab, *dev_reg(dev, ROCE_REG_CC_QP_SELECT));

	if (!w)
		return;
	atomic_store_explicit(w, v, memory_order_relaxed);
	/* the engine re-reads its QPs' words with the next generation */
	atomic_fetch_add_explicit(&dev->cc_gen, 1, memory_order_release);
}

uint32_t roce_cc_qp_window_read(struct roce_device *dev)
{
	return selected_read(dev, dev->qp_window);
}

void roce_cc_qp_window_write(struct roce_device *dev, uint32_t kb)
{
	selected_write(dev, dev->qp_window, kb);
}

uint32_t roce_cc_qp_recovery_read(struct roce_device *dev)
{
	return selected_read(dev, dev->qp_recovery);
}

void roce_cc_qp_recovery_write(struct roce_device *dev, uint32_t v)
{
	selected_write(dev, dev->qp_recovery, v);
}

uint32_t roce_cc_qp_algo_read(struct roce_device *dev)
{
	return selected_read(dev, dev->qp_algo);
}

/* v is in range: the register map's field refused anything else */
void roce_cc_qp_algo_write(struct roce_device *dev, uint32_t v)
{
	selected_write(dev, dev->qp_algo, v);
}

uint32_t roce_device_qp_algo(struct roce_device *dev, uint32_t qpn)
{
	_Atomic uint32_t *w = qp_word(dev, dev->qp_algo, qpn);

	return w ? atomic_load_explicit(w, memory_order_acquire) : 0;
}

uint32_t roce_device_qp_window(struct roce_device *dev, uint32_t qpn)
{
	_Atomic uint32_t *w = qp_word(dev, dev->qp_window, qpn);

	return w ? atomic_load_explicit(w, memory_order_acquire) : 0;
}

uint32_t roce_device_qp_recovery(struct roce_device *dev, uint32_t qpn)
{
	_Atomic uint32_t *w = qp_word(dev, dev->qp_recovery, qpn);

	return w ? atomic_load_explicit(w, memory_order_acquire) : 0;
}

bool roce_device_cc_changed(struct roce_device *dev, uint32_t *gen, struct roce_cc_config *out)
{
	uint32_t g = atomic_load_explicit(&dev->cc_gen, memory_order_acquire);

	if (g == *gen)
		return false;
	pthread_mutex_lock(&dev->lock);
	*out = dev->cc;
	*gen = atomic_load_explicit(&dev->cc_gen, memory_order_relaxed);
	pthread_mutex_unlock(&dev->lock);
	return true;
}

void roce_device_cc_rate(struct roce_device *dev, uint32_t qpn, bool limited, uint32_t mbps)
{
	if (qpn < dev->qp_count && dev->qp_rate)
		atomic_store_explicit(&dev->qp_rate[qpn],
				      (limited ? ROCE_CC_RATE_LIMITED : 0) | (mbps & ~ROCE_CC_RATE_LIMITED),
				      memory_order_relaxed);
}
