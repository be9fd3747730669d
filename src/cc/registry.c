/* SPDX-License-Identifier: MIT */
/* The congestion-control algorithms by id (algo.h): what a QP's
   reaction point runs. */
#include "cc/algo.h"

const struct cc_algo_ops *const cc_algos[CC_ALGO_COUNT] = {
	[CC_ALGO_DCQCN] = &cc_dcqcn_ops,
	[CC_ALGO_SWIFT] = &cc_swift_ops,
};
