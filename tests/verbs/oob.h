/* SPDX-License-Identifier: MIT */
/*
 * For the libibverbs programs of tests/verbs: the TCP socket two of them
 * exchange their QPNs, GIDs and keys over (as ibv_rc_pingpong does): the
 * server accepts one connection, the client retries until the server
 * listens (10 s), and each swaps a block of bytes with the other.
 */
#ifndef ROCE_TESTS_VERBS_OOB_H
#define ROCE_TESTS_VERBS_OOB_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The one connection to port (fd of it, -1); *ls the listening socket. */
static inline int oob_accept(int port, int *ls)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int one = 1;

	*ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(*ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(*ls, (struct sockaddr *)&a, sizeof(a)) || listen(*ls, 1))
		return -1;
	return accept(*ls, NULL, NULL);
}

static inline int oob_connect(const char *ip, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, ip, &a.sin_addr);
	for (int i = 0; i < 100 && connect(fd, (struct sockaddr *)&a, sizeof(a)); i++) {
		close(fd);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		usleep(100000);
	}
	return fd;
}

/* len bytes out, the peer's len bytes in: 0, or -1 */
static inline int oob_swap(int fd, const void *out, void *in, size_t len)
{
	if (write(fd, out, len) != (ssize_t)len)
		return -1;
	for (size_t got = 0; got < len;) {
		ssize_t k = read(fd, (char *)in + got, len - got);

		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

#endif
