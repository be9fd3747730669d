/* SPDX-License-Identifier: MIT */
/* rocectl's output helpers: JSON strings and error messages. */
#include <stdarg.h>
#include <stdio.h>

#include "rocectl/ctl.h"

void ctl_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

int ctl_fail(struct ctl *c, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rocectl: %s\n", msg);
	if (c && c->json) {
		printf("{\"error\":");
		ctl_json_str(msg);
		printf("}\n");
	}
	return code;
}

int ctl_drv_fail(struct ctl *c)
{
	return ctl_fail(c, EXIT_DEVICE, "%s", c->drv.err);
}
