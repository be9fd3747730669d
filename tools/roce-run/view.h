/* SPDX-License-Identifier: MIT */
/* roce-run: the device where rdma-core's programs look for it (view.c). */
#ifndef ROCE_RUN_VIEW_H
#define ROCE_RUN_VIEW_H

#include <stddef.h>

/* What the drop-in reads to point ibdev_path at the view's directory */
#define ROCE_RUN_VIEW_ENV "ROCE_RUN_SYSFS"

enum view_result {
	VIEW_MADE,              /* PROGRAM's tree sees /dev/infiniband/uverbs0
				   and /sys/class/infiniband/roce0 */
	VIEW_NOT_ALLOWED,       /* no CAP_SYS_ADMIN: nothing changed */
	VIEW_FAILED,            /* why says what; the namespace may be half made */
};

/*
 * In a mount namespace of our own (PROGRAM inherits it across exec, no
 * other process sees it): /dev/infiniband holding uverbs0, a character
 * device that refuses commands, and /sys/class/infiniband/IBDEV and
 * /sys/class/infiniband_verbs/uverbs0 with the attributes rdma-core's
 * programs read (the port, its GID table as the drop-in builds it from
 * ifname's addresses, ip overriding the IPv4 one when not 0).
 */
enum view_result view_make(const char *ifname, const char *ibdev, unsigned ip, char *why,
			   size_t n);

#endif
