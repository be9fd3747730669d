/* SPDX-License-Identifier: MIT */
/*
 * Link bring-up model (seed 000 section 2.2: after the core reset, wait for
 * gtpowergood, tx_resetdone and gt_rxresetdone before sending).
 *
 * The link restarts at device create and at every release of
 * CTRL.SOFT_RESET; while SOFT_RESET is held every bit is 0. From the
 * restart, GT_POWERGOOD rises after delay/2, TX_RESET_DONE after 3*delay/4
 * and RX_RESET_DONE after delay; LINK_READY is all three. delay 0 raises
 * them together at once.
 *
 * roce_link_ready() is on the receive path (every frame): once it has seen
 * the link up it remembers that for the current epoch and stops reading
 * the clock until the next reset.
 */
#ifndef ROCE_REGS_LINK_MODEL_H
#define ROCE_REGS_LINK_MODEL_H

#include <stdbool.h>
#include <stdint.h>

struct roce_link_model {
	uint64_t start_ns;      /* atomic; LINK_HELD while in reset */
	uint64_t epoch;         /* atomic; moves at every hold and restart */
	uint64_t ready_epoch;   /* atomic; epoch in which LINK_READY was seen */
	uint64_t delay_ns;
	uint64_t (*now_ns)(void *ctx);
	void *clock_ctx;
};

#define ROCE_LINK_HELD UINT64_MAX

/* now_ns NULL = CLOCK_MONOTONIC. The link restarts at once. */
void roce_link_init(struct roce_link_model *l, uint32_t delay_us,
		    uint64_t (*now_ns)(void *), void *clock_ctx);
void roce_link_hold(struct roce_link_model *l);    /* reset asserted */
void roce_link_restart(struct roce_link_model *l); /* reset released */

/* ROCE_STATUS_LINK_READY | GT_POWERGOOD | TX_ / RX_RESET_DONE bits. */
uint32_t roce_link_bits(const struct roce_link_model *l);
bool roce_link_ready(struct roce_link_model *l);  /* fast once up */

#endif
