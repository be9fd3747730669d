/* SPDX-License-Identifier: MIT */
/* What the raw-Ethernet ports share: errno to status. */
#include <errno.h>

#include "link/netdev_util.h"
#include "roce/status.h"

int netdev_errno_status(int errnum)
{
	switch (errnum) {
	case EPERM:
	case EACCES:
		return ROCE_E_PERM;
	case ENODEV:
	case ENXIO:
		return ROCE_E_NOENT;
	case ENETDOWN:
		return ROCE_E_LINK_DOWN;
	case ENOMEM:
	case ENOBUFS:
		return ROCE_E_NOMEM;
	case EADDRINUSE:
		return ROCE_E_EXISTS;
	case EOPNOTSUPP:
	case ENOPROTOOPT:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return ROCE_E_UNSUPPORTED;
	default:
		return ROCE_E_IO;
	}
}
