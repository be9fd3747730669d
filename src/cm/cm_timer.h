/* SPDX-License-Identifier: MIT */
/* The CM's timers (cm_timer.c): what the calls and the MAD handlers arm. */
#ifndef ROCE_CM_TIMER_H
#define ROCE_CM_TIMER_H

#include "cm/cm_table.h"

/* Resend c's last MAD every timeout_us, retries times, then time it out. */
void cm_timer_arm(struct cm *cm, struct cm_conn *c, uint64_t timeout_us, unsigned retries);
/* c into timewait (IBA 12.9), freed when its local ACK timeout passes. */
void cm_enter_timewait(struct cm *cm, struct cm_conn *c);

#endif
