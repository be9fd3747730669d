/* SPDX-License-Identifier: MIT */
/*
 * rpoll and rselect over rsockets and ordinary fds together, as
 * rdma-core's: each rsocket is first polled without sleeping (its CQ
 * drained, its connection stepped); when none is ready, each is armed
 * and poll(2) sleeps on the fd that will wake it -- the CQ's channel
 * once connected, the CM's channel while connecting or listening --
 * beside the program's own fds; what wakes is processed, and a wake
 * that brings nothing the program asked for (credits, a grant) sleeps
 * again until the timeout.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include <rdma/rsocket.h>

#include "rdmacm/rs.h"

#define RS_POLL_SPIN_US 10

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

static short poll_rs(struct rsock *rs, short events, bool nonblock, bool (*test)(struct rsock *))
{
	short rev = 0;

again:
	if ((rs->state & RS_CONNECTED) || rs->state == RS_DISCONNECTED || (rs->state & RS_ERROR)) {
		rs_process_cq(rs, nonblock, test);
		if ((events & POLLIN) && rs_conn_have_rdata(rs))
			rev |= POLLIN;
		if ((events & POLLOUT) && rs_can_send(rs))
			rev |= POLLOUT;
		/* the hang-up once the data that came before it is read, as
		   TCP's: rdma-core's says it at once, and a reader polling
		   for the last bytes could see POLLHUP before them */
		if (rs->state == RS_DISCONNECTED && !rs_have_rdata(rs))
			rev |= POLLHUP;
		else if (!(rs->state & (RS_CONNECTED | RS_DISCONNECTED)))
			rev |= POLLERR;
		return rev;
	}
	if (rs->state == RS_LISTENING) {
		struct pollfd p = { .fd = rs->cm_id->channel->fd, .events = events };

		poll(&p, 1, 0);
		return p.revents;
	}
	if (rs->state & RS_OPENING) {
		if (!rs_do_connect(rs) || errno != EINPROGRESS)
			goto again;
		errno = 0;
	}
	if (rs->state == RS_CONNECT_ERROR)
		return (short)((events & (POLLIN | POLLOUT)) | POLLERR);
	return 0;
}

static int check(struct pollfd *fds, nfds_t n)
{
	int cnt = 0;

	for (nfds_t i = 0; i < n; i++) {
		struct rsock *rs = rs_find(fds[i].fd);

		if (rs)
			fds[i].revents = poll_rs(rs, fds[i].events, true, rs_poll_all);
		else
			poll(&fds[i], 1, 0);
		cnt += fds[i].revents != 0;
	}
	return cnt;
}

/* 1 when something is ready already; else rfds holds what to sleep on */
static int arm(struct pollfd *rfds, struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++) {
		struct rsock *rs = rs_find(fds[i].fd);

		rfds[i].revents = 0;
		if (!rs) {
			rfds[i].fd = fds[i].fd;
			rfds[i].events = fds[i].events;
			continue;
		}
		fds[i].revents = poll_rs(rs, fds[i].events, false, rs_is_cq_armed);
		if (fds[i].revents)
			return 1;
		rfds[i].fd = rs->state >= RS_CONNECTED && rs->cm_id->recv_cq_channel ?
			     rs->cm_id->recv_cq_channel->fd : rs->cm_id->channel->fd;
		rfds[i].events = POLLIN;
	}
	return 0;
}

static int events(struct pollfd *rfds, struct pollfd *fds, nfds_t n)
{
	int cnt = 0;

	for (nfds_t i = 0; i < n; i++) {
		struct rsock *rs = rs_find(fds[i].fd);

		if (rs) {
			if (rfds[i].revents && rs->state >= RS_CONNECTED) {
				pthread_mutex_lock(&rs->cq_wait_lock);
				rs_get_cq_event(rs);
				pthread_mutex_unlock(&rs->cq_wait_lock);
			}
			fds[i].revents = poll_rs(rs, fds[i].events, true, rs_poll_all);
		} else {
			fds[i].revents = rfds[i].revents;
		}
		cnt += fds[i].revents != 0;
	}
	return cnt;
}

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	uint64_t start = now_us();
	struct pollfd *rfds;
	int ret;

	if (nfds && !fds)
		return rs_err(EFAULT);
	do {
		ret = check(fds, nfds);
		if (ret || !timeout)
			return ret;
	} while (now_us() - start <= RS_POLL_SPIN_US);
	if (!(rfds = calloc(nfds ? nfds : 1, sizeof(*rfds))))
		return rs_err(ENOMEM);
	do {
		int left = -1;

		if ((ret = arm(rfds, fds, nfds)))
			break;
		if (timeout >= 0) {
			left = timeout - (int)((now_us() - start) / 1000);
			if (left <= 0) {
				ret = 0;
				break;
			}
		}
		ret = poll(rfds, nfds, left);
		if (ret < 0)
			break;
		ret = events(rfds, fds, nfds);
	} while (!ret);
	free(rfds);
	return ret;
}

int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	    struct timeval *timeout)
{
	struct pollfd *fds;
	int n = 0, ret, cnt = 0;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return rs_err(EINVAL);
	if (!(fds = calloc(nfds ? (size_t)nfds : 1, sizeof(*fds))))
		return rs_err(ENOMEM);
	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;
		bool any = false;

		if (readfds && FD_ISSET(fd, readfds))
			ev |= POLLIN, any = true;
		if (writefds && FD_ISSET(fd, writefds))
			ev |= POLLOUT, any = true;
		if (exceptfds && FD_ISSET(fd, exceptfds))
			any = true;
		if (any) {
			fds[n].fd = fd;
			fds[n++].events = ev;
		}
	}
	ret = rpoll(fds, (nfds_t)n, timeout ? (int)(timeout->tv_sec * 1000 +
						     timeout->tv_usec / 1000) : -1);
	if (ret < 0) {
		free(fds);
		return ret;
	}
	if (readfds)
		FD_ZERO(readfds);
	if (writefds)
		FD_ZERO(writefds);
	if (exceptfds)
		FD_ZERO(exceptfds);
	for (int i = 0; i < n; i++) {
		if (readfds && (fds[i].revents & (POLLIN | POLLHUP)))
			FD_SET(fds[i].fd, readfds), cnt++;
		if (writefds && (fds[i].revents & POLLOUT))
			FD_SET(fds[i].fd, writefds), cnt++;
		if (exceptfds && (fds[i].revents & ~(POLLIN | POLLOUT)))
			FD_SET(fds[i].fd, exceptfds), cnt++;
	}
	free(fds);
	return cnt;
}
