/* SPDX-License-Identifier: MIT */
/*
 * What libibverbs reads from sysfs for a program (ibv_devinfo's board_id):
 * the device has no sysfs directory (its paths name none), so a read
 * finds no file and the program leaves the line out, as it does for a
 * kernel device without the file. A path outside it is read as
 * rdma-core reads it (one line, the newline dropped). The sysfs root is
 * rdma-core's: $SYSFS_PATH without its trailing slashes, else /sys
 * (qperf asks for it, and reads nothing of ours under it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
const char *ibv_get_sysfs_path(void);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, const char *dev, const char *fmt, ...);

int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	if (!dir || !file || !buf || !size ||
	    snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path)) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	if (n <= 0)
		return -1;
	if ((size_t)n == size)
		n--;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	return (int)n;
}

int ibv_read_ibdev_sysfs_file(char *buf, size_t size, const char *dev, const char *fmt, ...)
{
	(void)buf;
	(void)size;
	(void)dev;
	(void)fmt;
	errno = ENOENT;
	return -1;
}

/* Whether data lands in order (rdma-core 1.14): not promised, 0. */
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}

static char sysfs_root[256] = "/sys";
static pthread_once_t sysfs_once = PTHREAD_ONCE_INIT;

static void find_sysfs(void)
{
	const char *env = getenv("SYSFS_PATH");
	size_t n;

	if (!env || !*env || strlen(env) >= sizeof(sysfs_root))
		return;
	n = strlen(env);
	while (n > 1 && env[n - 1] == '/')
		n--;
	memcpy(sysfs_root, env, n);
	sysfs_root[n] = 0;
}

const char *ibv_get_sysfs_path(void)
{
	pthread_once(&sysfs_once, find_sysfs);
	return sysfs_root;
}
