/* SPDX-License-Identifier: MIT */
/*
 * roced's register server (protocol in roce/bus.h, its handling in
 * regsrv_proto.c). Every request is answered at once from the model
 * device, whose accesses are thread-safe, so one poll() loop serves every
 * client without blocking on any of them: client sockets are non-blocking
 * and a client that does not take its 12-byte answer is dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/params.h"
#include "server/regsrv.h"

struct regsrv_client {
	int fd;				/* -1: free slot */
	struct roce_regsrv_conn conn;
};

struct roce_regsrv {
	struct roce_device *dev;
	int lfd;
	int wake[2];			/* stop pipe */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct regsrv_client cl[ROCE_REGSRV_MAX_CLIENTS];
	struct trace_writer *trace;
	uint32_t trace_nic;
};

static void client_drop(struct regsrv_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	memset(&c->conn, 0, sizeof(c->conn));
}

/* Reads no further than the pending request, so a request is answered
 * (regsrv_proto.c) as soon as it is whole. */
static void regsrv_client_input(struct roce_regsrv *srv,
				struct regsrv_client *c)
{
	uint8_t in[ROCE_SOCK_MSG_LEN], rsp[ROCE_SOCK_MSG_LEN];
	enum roce_regsrv_verdict v;
	size_t used;
	ssize_t n = recv(c->fd, in, sizeof(in) - c->conn.have, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_drop(c);
		return;
	}
	v = roce_regsrv_input(srv->dev, &c->conn, in, (size_t)n, &used, rsp);
	if (v == ROCE_REGSRV_MORE)
		return;
	if (send(c->fd, rsp, sizeof(rsp), MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)sizeof(rsp) || v == ROCE_REGSRV_CLOSE)
		client_drop(c);
}

static void regsrv_accept(struct roce_regsrv *srv)
{
	int fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (size_t i = 0; i < ROCE_REGSRV_MAX_CLIENTS; i++) {
		if (srv->cl[i].fd < 0) {
			srv->cl[i].fd = fd;
			srv->cl[i].conn.trace = srv->trace;
			srv->cl[i].conn.trace_nic = srv->trace_nic;
			return;
		}
	}
	close(fd);	/* full: the client sees the connection close */
}

int roce_regsrv_run(struct roce_regsrv *srv)
{
	struct pollfd pfd[2 + ROCE_REGSRV_MAX_CLIENTS];

	for (;;) {
		nfds_t n = 2;

		pfd[0] = (struct pollfd){ .fd = srv->wake[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = srv->lfd, .events = POLLIN };
		for (size_t i = 0; i < ROCE_REGSRV_MAX_CLIENTS; i++)
			pfd[n++] = (struct pollfd){ .fd = srv->cl[i].fd,
						    .events = POLLIN };
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return ROCE_E_IO;
		}
		if (pfd[0].revents)
			return ROCE_OK;
		if (pfd[1].revents & POLLIN)
			regsrv_accept(srv);
		for (size_t i = 0; i < ROCE_REGSRV_MAX_CLIENTS; i++)
			if (srv->cl[i].fd >= 0 && pfd[2 + i].revents)
				regsrv_client_input(srv, &srv->cl[i]);
	}
}

void roce_regsrv_stop(struct roce_regsrv *srv)
{
	ssize_t n = write(srv->wake[1], "x", 1);

	(void)n;	/* a full pipe already holds a wake-up */
}

/* Is somebody serving path? A stale socket refuses connections. */
static bool regsrv_path_live(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	strcpy(sa.sun_path, path);
	live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return live;
}

/*
 * The socket is full control of the NIC (keys, QPs, memory): only its
 * owner, and the group it is given to, may connect (connect() needs write
 * permission on the socket file). It is bound inside a private directory
 * (mkdtemp: 0700) next to path, given its group and mode there, where
 * nobody else can reach it, and only then renamed to path: at no moment
 * is a wider socket reachable, whatever the umask. The umask during bind
 * is 0177 as well, so even the private copy is never wider than 0600 (the
 * umask is the process's: for that moment it can only narrow what another
 * thread creates).
 */
static int regsrv_bind_private(struct roce_regsrv *srv, const char *dir,
			       gid_t group, char *sock, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int rc;

	if ((size_t)snprintf(sock, len, "%s/s", dir) >= len ||
	    strlen(sock) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return ROCE_E_RANGE;
	}
	strcpy(sa.sun_path, sock);
	srv->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv->lfd < 0)
		return ROCE_E_IO;
	old = umask(0177);
	rc = bind(srv->lfd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc != 0)
		return ROCE_E_IO;
	if (group != ROCE_REGSRV_NO_GROUP &&
	    (lchown(sock, (uid_t)-1, group) != 0 || chmod(sock, 0660) != 0))
		return ROCE_E_PERM;
	if (group == ROCE_REGSRV_NO_GROUP && chmod(sock, 0600) != 0)
		return ROCE_E_PERM;
	return listen(srv->lfd, 16) == 0 ? ROCE_OK : ROCE_E_IO;
}

static int regsrv_listen(struct roce_regsrv *srv, gid_t group)
{
	char dir[sizeof(srv->path)], sock[sizeof(srv->path)];
	struct stat st;
	int rc, e;

	if (lstat(srv->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode) || regsrv_path_live(srv->path)) {
			errno = EADDRINUSE;
			return ROCE_E_EXISTS;
		}
		unlink(srv->path);
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s.XXXXXX", srv->path) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return ROCE_E_RANGE;
	}
	if (!mkdtemp(dir))
		return ROCE_E_IO;
	sock[0] = '\0';
	rc = regsrv_bind_private(srv, dir, group, sock, sizeof(sock));
	if (rc == ROCE_OK && rename(sock, srv->path) != 0)
		rc = ROCE_E_IO;
	e = errno;
	if (rc != ROCE_OK && sock[0])
		unlink(sock);
	rmdir(dir);
	errno = e;
	return rc;
}

int roce_regsrv_create(struct roce_device *dev, const char *path, gid_t group,
		       struct roce_regsrv **out)
{
	struct roce_regsrv *srv;
	int st;

	if (!dev || !path || !out)
		return ROCE_E_INVAL;
	if (strlen(path) + 12 >= sizeof(srv->path)) {	/* room for ".XXXXXX/s" */
		errno = ENAMETOOLONG;
		return ROCE_E_RANGE;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return ROCE_E_NOMEM;
	srv->dev = dev;
	srv->lfd = -1;
	srv->wake[0] = srv->wake[1] = -1;
	strcpy(srv->path, path);
	for (size_t i = 0; i < ROCE_REGSRV_MAX_CLIENTS; i++)
		srv->cl[i].fd = -1;
	if (pipe2(srv->wake, O_NONBLOCK | O_CLOEXEC) != 0)
		st = ROCE_E_IO;
	else
		st = regsrv_listen(srv, group);
	if (st != ROCE_OK) {
		int e = errno;

		if (srv->lfd >= 0)
			close(srv->lfd);
		if (srv->wake[0] >= 0) {
			close(srv->wake[0]);
			close(srv->wake[1]);
		}
		free(srv);
		errno = e;
		return st;
	}
	*out = srv;
	return ROCE_OK;
}

void roce_regsrv_destroy(struct roce_regsrv *srv)
{
	if (!srv)
		return;
	for (size_t i = 0; i < ROCE_REGSRV_MAX_CLIENTS; i++)
		client_drop(&srv->cl[i]);
	close(srv->lfd);
	unlink(srv->path);
	close(srv->wake[0]);
	close(srv->wake[1]);
	free(srv);
}

void roce_regsrv_set_trace(struct roce_regsrv *srv, struct trace_writer *w, uint32_t nic)
{
	srv->trace = w;
	srv->trace_nic = nic;
}
