/* SPDX-License-Identifier: MIT */
/*
 * The TCP side of the out-of-band exchange: listen, accept, connect, and
 * exact-length sends and receives, each bounded by the connection's
 * timeout. rc_pingpong and perftest use single read()/write() calls and
 * count on a 108-byte message arriving whole; a TCP stream owes them
 * nothing of the kind, so here every transfer loops until it is complete.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "roce/oob.h"
#include "roce/status.h"

#define OOB_RETRY_MS    100u    /* between connection attempts */
#define OOB_IDLE_SPIN   256u    /* idle-hook calls between clock reads */

static int fail(struct roce_oob *o, int st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct roce_oob *o, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->err, sizeof(o->err), fmt, ap);
	va_end(ap);
	return st;
}

/*
 * Wait until fd is ready for events or the deadline passes. With an idle
 * hook the socket is polled without blocking between calls of the hook
 * (the engine must keep running), and work done by the hook moves the
 * deadline; without one, poll() sleeps.
 * Returns 1 ready, 0 timed out, -1 error (errno).
 */
static int wait_fd(struct roce_oob *o, int fd, short events, uint64_t *deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		uint64_t now = roce_now_ms();
		unsigned work = 0;
		int r;

		if (now >= *deadline)
			return 0;
		if (!o->idle) {
			r = poll(&p, 1, (int)(*deadline - now));
		} else {
			r = 0;
			for (unsigned i = 0; i < OOB_IDLE_SPIN && r == 0; i++) {
				r = poll(&p, 1, 0);
				if (r == 0)
					work += o->idle(o->idle_arg);
			}
			if (work)
				*deadline = roce_now_ms() + o->timeout_ms;
		}
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

int roce_oob_listen(const char *bind_ip, uint16_t port, uint16_t *bound,
		    char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	socklen_t sl = sizeof(sa);
	int one = 1;
	int fd;

	if (bind_ip && *bind_ip && inet_pton(AF_INET, bind_ip, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "'%s' is not an IPv4 address", bind_ip);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		snprintf(err, errlen, "couldn't listen to port %u: %s", port,
			 strerror(errno));
		close(fd);
		return -1;
	}
	if (bound && getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
		*bound = ntohs(sa.sin_port);
	return fd;
}

static void tune(int fd)
{
	int one = 1;

	/* small messages, strictly alternating: no Nagle delay */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int roce_oob_accept(struct roce_oob *o, int lfd)
{
	uint64_t deadline = roce_now_ms() + o->timeout_ms;
	int r = wait_fd(o, lfd, POLLIN, &deadline);
	int fd;

	if (r == 0) {
		close(lfd);
		return fail(o, ROCE_E_TIMEOUT, "no client connected within %u ms",
			    o->timeout_ms);
	}
	fd = r > 0 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
	close(lfd);
	if (fd < 0)
		return fail(o, ROCE_E_IO, "accept: %s", strerror(errno));
	tune(fd);
	o->fd = fd;
	o->client = false;
	return ROCE_OK;
}

/* One non-blocking connect attempt, completed within the deadline. */
static int try_connect(struct roce_oob *o, const struct sockaddr_in *sa,
		       uint64_t deadline, int *fd_out)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	int r;

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		if (errno != EINPROGRESS) {
			soerr = errno;
			close(fd);
			return -soerr;
		}
		r = wait_fd(o, fd, POLLOUT, &deadline);
		if (r <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 ||
		    soerr) {
			close(fd);
			return r == 0 ? -ETIMEDOUT : -(soerr ? soerr : errno);
		}
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*fd_out = fd;
	return 0;
}

static void nap(struct roce_oob *o, unsigned ms)
{
	uint64_t end = roce_now_ms() + ms;

	if (!o->idle) {
		struct timespec ts = { 0, (long)ms * 1000000L };

		nanosleep(&ts, NULL);
		return;
	}
	while (roce_now_ms() < end)
		o->idle(o->idle_arg);
}

int roce_oob_connect(struct roce_oob *o, const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	struct sockaddr_in sa;
	uint64_t deadline = roce_now_ms() + o->timeout_ms;
	int r, fd = -1;

	r = getaddrinfo(host, NULL, &hints, &res);
	if (r != 0 || !res)
		return fail(o, ROCE_E_NOENT, "%s: %s", host, gai_strerror(r));
	memcpy(&sa, res->ai_addr, sizeof(sa));
	freeaddrinfo(res);
	sa.sin_port = htons(port);
	for (;;) {
		r = try_connect(o, &sa, deadline, &fd);
		if (r == 0)
			break;
		if ((r != -ECONNREFUSED && r != -ETIMEDOUT && r != -EAGAIN) ||
		    roce_now_ms() + OOB_RETRY_MS >= deadline)
			return fail(o, r == -ETIMEDOUT || r == -ECONNREFUSED ?
				    ROCE_E_TIMEOUT : ROCE_E_IO,
				    "couldn't connect to %s:%u: %s", host, port,
				    strerror(-r));
		nap(o, OOB_RETRY_MS);
	}
	tune(fd);
	o->fd = fd;
	o->client = true;
	return ROCE_OK;
}

int roce_oob_send(struct roce_oob *o, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t deadline = roce_now_ms() + o->timeout_ms;

	if (o->msg)
		return o->msg->send(o->msg->arg, buf, len, o->err, sizeof(o->err));

	while (len) {
		ssize_t n;
		int r = wait_fd(o, o->fd, POLLOUT, &deadline);

		if (r == 0)
			return fail(o, ROCE_E_TIMEOUT, "peer did not read within %u ms",
				    o->timeout_ms);
		n = r > 0 ? send(o->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) : -1;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return fail(o, ROCE_E_IO, "send to peer: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return ROCE_OK;
}

int roce_oob_recv(struct roce_oob *o, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t want = len;
	uint64_t deadline = roce_now_ms() + o->timeout_ms;

	if (o->msg)
		return o->msg->recv(o->msg->arg, buf, len, o->err, sizeof(o->err));

	while (len) {
		ssize_t n;
		int r = wait_fd(o, o->fd, POLLIN, &deadline);

		if (r == 0)
			return fail(o, ROCE_E_TIMEOUT, "peer sent %zu of %zu bytes "
				    "within %u ms", want - len, want, o->timeout_ms);
		n = r > 0 ? recv(o->fd, p, len, MSG_DONTWAIT) : -1;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n == 0)
			return fail(o, ROCE_E_IO, "peer closed the connection after "
				    "%zu of %zu bytes", want - len, want);
		if (n < 0)
			return fail(o, ROCE_E_IO, "receive from peer: %s",
				    strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return ROCE_OK;
}

int roce_oob_xchg(struct roce_oob *o, const void *mine, void *theirs, size_t len)
{
	int st;

	if (o->client) {
		st = roce_oob_send(o, mine, len);
		return st ? st : roce_oob_recv(o, theirs, len);
	}
	st = roce_oob_recv(o, theirs, len);
	return st ? st : roce_oob_send(o, mine, len);
}

void roce_oob_close(struct roce_oob *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	o->msg = NULL;          /* its QP is its owner's to take down */
}

uint32_t roce_oob_peer_ip(const struct roce_oob *o)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);

	if (o->fd < 0 || getpeername(o->fd, (struct sockaddr *)&sa, &sl) < 0 ||
	    sa.sin_family != AF_INET)
		return 0;
	return ntohl(sa.sin_addr.s_addr);
}
