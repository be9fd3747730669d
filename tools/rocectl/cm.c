/* SPDX-License-Identifier: MIT */
/*
 * rocectl cm [PID]: the RDMA CM's status in the programs that run one.
 * The CM lives in the program (roce/cm.h), not in the device, so this
 * reads no register: each CM answers on an abstract unix socket named
 * ROCE_CM_STATUS_PREFIX "<pid>.<n>" in its network namespace; the
 * listening ones are found in /proc/net/unix (run rocectl in the
 * program's namespace: ip netns exec NS rocectl cm).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "roce/cm.h"
#include "rocectl/ctl.h"

#define MAX_CMS 64
#define SO_ACCEPTCON 0x10000 /* /proc/net/unix's Flags of a listener */

/* The listening CM sockets' names (without the '@'), of pid if not 0. */
static int find_cms(long pid, char names[MAX_CMS][108])
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512], want[64];
	int n = 0;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "@%s%ld.", ROCE_CM_STATUS_PREFIX, pid);
	while (n < MAX_CMS && fgets(line, sizeof(line), f)) {
		unsigned long flags;
		char path[108];

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %107s", &flags, path) != 2 ||
		    !(flags & SO_ACCEPTCON))
			continue;
		if (strncmp(path, want, pid ? strlen(want)
					    : strlen("@" ROCE_CM_STATUS_PREFIX)) != 0)
			continue;
		snprintf(names[n++], sizeof(names[0]), "%s", path + 1);
	}
	fclose(f);
	return n;
}

/* Asks one CM for its status and copies the answer to stdout. */
static int query(const char *name, int json)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const struct timeval tmo = { 2, 0 };
	size_t len = strlen(name);
	char buf[4096];
	ssize_t r;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memcpy(sa.sun_path + 1, name, len);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) ||
	    send(fd, json ? "json\n" : "text\n", 5, MSG_NOSIGNAL) != 5) {
		close(fd);
		return -1;
	}
	len = 0;
	while ((r = recv(fd, buf, sizeof(buf), 0)) > 0) {
		fwrite(buf, 1, (size_t)r, stdout);
		len += (size_t)r;
	}
	close(fd);
	/* an empty answer: refused (another user's CM) or gone */
	return r < 0 || !len ? -1 : 0;
}

int cmd_cm(struct ctl *c, int argc, char **argv)
{
	static char names[MAX_CMS][108];
	long pid = 0;
	int n, failed = 0;

	if (argc > 1)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl cm [PID]");
	if (argc == 1) {
		char *end;

		errno = 0;
		pid = strtol(argv[0], &end, 10);
		if (errno || *end || pid <= 0)
			return ctl_fail(c, EXIT_USAGE, "cm: bad PID '%s'", argv[0]);
	}
	n = find_cms(pid, names);
	if (n < 0)
		return ctl_fail(c, EXIT_DEVICE, "cannot read /proc/net/unix: %s",
				strerror(errno));
	if (n == 0)
		return ctl_fail(c, EXIT_DEVICE, "no RDMA CM%s in this network namespace "
				"(the CM runs inside programs such as roce-rping or "
				"roce-perf -R; run rocectl where they run: ip netns "
				"exec NS rocectl cm)", pid ? " of that PID" : "");
	if (c->json)
		fputs("[", stdout);
	for (int i = 0; i < n; i++) {
		if (c->json && i)
			fputs(",", stdout);
		else if (i)
			fputs("\n", stdout);
		fflush(stdout);
		if (query(names[i], c->json)) {
			fprintf(stderr, "rocectl: %s: no answer (not ours, or exiting)\n",
				names[i]);
			failed = 1;
			if (c->json)
				fputs("null", stdout);
		}
	}
	if (c->json)
		fputs("]\n", stdout);
	return failed ? EXIT_DEVICE : 0;
}
