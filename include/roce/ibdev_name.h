/* SPDX-License-Identifier: MIT */
/*
 * The name the drop-in libibverbs gives its device (ibv_get_device_name,
 * /sys/class/infiniband/NAME): roce0, or what roce-run --ibdev sets in
 * ROCE_RUN_IBDEV, for programs whose peer must name the same device (UCX's
 * ucx_perftest hands the client's -d to its server) or that look for a
 * name of their own. Both roce-run and the drop-in check it.
 */
#ifndef ROCE_IBDEV_NAME_H
#define ROCE_IBDEV_NAME_H

#include <stdbool.h>
#include <string.h>

#define ROCE_IBDEV_DEFAULT "roce0"
#define ROCE_IBDEV_ENV "ROCE_RUN_IBDEV"
#define ROCE_IBDEV_MAX 63u      /* rdma-core's IBV_SYSFS_NAME_MAX less its NUL */

/* 1..ROCE_IBDEV_MAX letters, digits, '_', '-', '.', and not "." or "..":
 * a file name in /sys/class/infiniband. */
static inline bool roce_ibdev_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > ROCE_IBDEV_MAX || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

#endif
