/* SPDX-License-Identifier: MIT */
/* knobs.c's range check of a whole parameter struct, for the
   algorithms' own checks. */
#ifndef ROCE_CC_KNOBS_H
#define ROCE_CC_KNOBS_H

#include "roce/cc.h"

/* NULL if every knob of tab[n] in p is in its range, else its name. */
const char *cc_knobs_check(const struct roce_cc_knob *tab, unsigned n, const void *p);

#endif
