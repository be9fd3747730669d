/* SPDX-License-Identifier: MIT */
/*
 * Socket bus backend: a client of roced's register server. One blocking
 * request/response exchange per register access (protocol in roce/bus.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "roce/bus.h"
#include "server/sockmsg.h"

/* A server that does not answer within this is treated as gone. */
#define SOCK_IO_TIMEOUT_S 5

struct sock_bus {
	int fd;
};

static int sock_send_all(int fd, const uint8_t *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (n < 0 && errno == EAGAIN) ? ROCE_E_TIMEOUT : ROCE_E_IO;
		buf += n;
		len -= (size_t)n;
	}
	return ROCE_OK;
}

static int sock_recv_all(int fd, uint8_t *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = ECONNRESET;
		if (n <= 0)
			return (n < 0 && errno == EAGAIN) ? ROCE_E_TIMEOUT : ROCE_E_IO;
		buf += n;
		len -= (size_t)n;
	}
	return ROCE_OK;
}

/* One exchange; *resp gets the response's resp word, *val its value. */
static int sock_xfer(struct sock_bus *sb, uint32_t op, uint32_t off,
		     uint32_t val, uint32_t *resp, uint32_t *rval)
{
	struct roce_sock_msg m = { .w = { op, off, val } };
	uint8_t buf[ROCE_SOCK_MSG_LEN];
	int st;

	if (sb->fd < 0)
		return ROCE_E_IO;
	roce_sock_msg_pack(&m, buf);
	st = sock_send_all(sb->fd, buf, sizeof(buf));
	if (st == ROCE_OK)
		st = sock_recv_all(sb->fd, buf, sizeof(buf));
	if (st != ROCE_OK)
		return st;
	roce_sock_msg_unpack(buf, &m);
	if (m.w[0] != op) {
		errno = EPROTO;
		return ROCE_E_IO;
	}
	*resp = m.w[1];
	*rval = m.w[2];
	return ROCE_OK;
}

static int sock_read32(void *ctx, uint32_t off, uint32_t *val)
{
	uint32_t resp, v;
	int st = sock_xfer(ctx, ROCE_SOCK_READ, off, 0, &resp, &v);

	if (st != ROCE_OK)
		return st;
	st = roce_sock_status_from_resp(resp);
	if (st == ROCE_OK)
		*val = v;
	return st;
}

static int sock_write32(void *ctx, uint32_t off, uint32_t val)
{
	uint32_t resp, v;
	int st = sock_xfer(ctx, ROCE_SOCK_WRITE, off, val, &resp, &v);

	return st != ROCE_OK ? st : roce_sock_status_from_resp(resp);
}

/* The DDR port: BAD_OP is a server older than MEM_READ and MEM_WRITE. */
static int sock_mem_xfer(void *ctx, uint32_t op, uint32_t word, uint32_t val,
			 uint32_t *out)
{
	uint32_t resp, v;
	int st = sock_xfer(ctx, op, word, val, &resp, &v);

	if (st != ROCE_OK)
		return st;
	if (resp == ROCE_SOCK_BAD_OP)
		return ROCE_E_UNSUPPORTED;
	st = roce_sock_status_from_resp(resp);
	if (st == ROCE_OK && out)
		*out = v;
	return st;
}

static int sock_mem_read32(void *ctx, uint32_t word, uint32_t *val)
{
	return sock_mem_xfer(ctx, ROCE_SOCK_MEM_READ, word, 0, val);
}

static int sock_mem_write32(void *ctx, uint32_t word, uint32_t val)
{
	return sock_mem_xfer(ctx, ROCE_SOCK_MEM_WRITE, word, val, NULL);
}

static int sock_close(void *ctx)
{
	struct sock_bus *sb = ctx;
	int st = ROCE_OK;

	if (sb->fd >= 0 && close(sb->fd) != 0)
		st = ROCE_E_IO;
	free(sb);
	return st;
}

static const struct roce_bus_ops sock_ops = {
	.name = "socket",
	.read32 = sock_read32,
	.write32 = sock_write32,
	.close = sock_close,
	.mem_read32 = sock_mem_read32,
	.mem_write32 = sock_mem_write32,
};

char *roce_bus_default_socket_path(char *buf, size_t len)
{
	const char *env = getenv("ROCED_SOCKET");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if ((env = getenv("XDG_RUNTIME_DIR")) && *env)
		n = snprintf(buf, len, "%s/roced.sock", env);
	else if (access("/run", W_OK) == 0)
		n = snprintf(buf, len, "/run/roced.sock");
	else
		n = snprintf(buf, len, "/tmp/roced-%u.sock", (unsigned)getuid());
	return (n < 0 || (size_t)n >= len) ? NULL : buf;
}

static int sock_connect(const char *path, int *out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = SOCK_IO_TIMEOUT_S };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return ROCE_E_RANGE;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ROCE_E_IO;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return ROCE_E_IO;
	}
	*out = fd;
	return ROCE_OK;
}

int roce_bus_open_socket(struct roce_bus *bus, const char *path)
{
	struct sock_bus *sb;
	uint32_t resp, ver;
	int st;

	if (!bus || !path)
		return ROCE_E_INVAL;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return ROCE_E_NOMEM;
	sb->fd = -1;
	st = sock_connect(path, &sb->fd);
	if (st == ROCE_OK)
		st = sock_xfer(sb, ROCE_SOCK_HELLO, ROCE_SOCK_MAGIC,
			       ROCE_SOCK_PROTO_VERSION, &resp, &ver);
	if (st == ROCE_OK)
		st = roce_sock_status_from_resp(resp);
	if (st == ROCE_OK && ver != ROCE_SOCK_PROTO_VERSION)
		st = ROCE_E_UNSUPPORTED;
	if (st != ROCE_OK) {
		int e = errno;

		sock_close(sb);
		errno = e;
		return st;
	}
	bus->ops = &sock_ops;
	bus->ctx = sb;
	return ROCE_OK;
}
