/* SPDX-License-Identifier: MIT */
#include "roce/status.h"

static const char *const status_names[ROCE_STATUS_COUNT] = {
#define ROCE_X_NAME(code, name, desc) [code] = name,
	ROCE_STATUS_LIST(ROCE_X_NAME)
#undef ROCE_X_NAME
};

static const char *const status_descs[ROCE_STATUS_COUNT] = {
#define ROCE_X_DESC(code, name, desc) [code] = desc,
	ROCE_STATUS_LIST(ROCE_X_DESC)
#undef ROCE_X_DESC
};

const char *roce_status_name(int status)
{
	if (status < 0 || status >= ROCE_STATUS_COUNT)
		return "?";
	return status_names[status];
}

const char *roce_status_str(int status)
{
	if (status < 0 || status >= ROCE_STATUS_COUNT)
		return "unknown status";
	return status_descs[status];
}
