/* SPDX-License-Identifier: MIT */
/*
 * The targets of the performance issue, checked against the rows measured
 * in this run. A target whose figures were not measured says why; a missed
 * one shows its gap (docs/performance.md explains what bounds each).
 */
#ifndef BENCH_TARGETS_H
#define BENCH_TARGETS_H

/* veth_why: why the veth rows are missing ("" when they were run). */
void targets_compute(const char *veth_why);

#endif
