/* SPDX-License-Identifier: MIT */
/*
 * An rsocket's life: rsocket, rbind, rlisten, raccept, rconnect (a
 * state machine that a non-blocking socket steps on each call, as
 * rdma-core's does), rshutdown, rclose, and the table from socket
 * number to socket. Stream sockets only: a datagram rsocket (rdma-core
 * runs UD QPs behind a UDP socket for it) is refused with its reason.
 *
 * The defaults are rdma-core's, and its configuration files are read
 * as it reads them (/etc/rdma/rsocket/{mem,wmem,inline,sqsize,rqsize}_
 * default, polling_time), so that both ends of a mixed pair size alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "rdmacm/rc.h"
#include "rdmacm/rs.h"

#define RS_CONF_DIR "/etc/rdma/rsocket"

static struct {
	uint32_t mem, wmem;
	uint16_t inline_size, sqsize, rqsize;
} def = { 1u << 17, 1u << 17, 64, 384, 384 };

static pthread_once_t conf_once = PTHREAD_ONCE_INIT;

/* a value of rdma-core's configuration directory, or dflt */
static unsigned long conf(const char *name, unsigned long dflt)
{
	unsigned long v = dflt;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), RS_CONF_DIR "/%s", name);
	if (!(f = fopen(path, "r")))
		return dflt;
	if (fscanf(f, "%lu", &v) != 1) {
		fprintf(stderr, "librdmacm: %s: not a number, ignored\n", path);
		v = dflt;
	}
	fclose(f);
	return v;
}

static uint16_t clamp16(unsigned long v)
{
	return (uint16_t)(v > RS_QP_MAX ? RS_QP_MAX : v);
}

static void configure(void)
{
	unsigned long v;

	def.inline_size = clamp16(conf("inline_default", def.inline_size));
	def.sqsize = clamp16(conf("sqsize_default", def.sqsize));
	def.rqsize = clamp16(conf("rqsize_default", def.rqsize));
	v = conf("mem_default", def.mem);
	def.mem = v < 1 ? 1 : v > (1ul << 30) ? 1u << 30 : (uint32_t)v;
	v = conf("wmem_default", def.wmem);
	def.wmem = v < RS_SNDLOWAT ? RS_SNDLOWAT << 1 : v > (1ul << 30) ? 1u << 30 : (uint32_t)v;
}

int rs_err(int err)
{
	errno = err;
	return -1;
}

/* ---- the table: socket number (the CM channel's fd) to socket ------------ */

#define RS_PAGE 1024
#define RS_PAGES 1024                   /* numbers below 1M, as open files are */

static struct rsock **table[RS_PAGES];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static int table_set(int n, struct rsock *rs)
{
	struct rsock **page;

	if (n < 0 || n >= RS_PAGE * RS_PAGES)
		return rs_err(EMFILE);
	pthread_mutex_lock(&table_lock);
	page = table[n / RS_PAGE];
	if (!page && rs && !(page = table[n / RS_PAGE] = calloc(RS_PAGE, sizeof(*page)))) {
		pthread_mutex_unlock(&table_lock);
		return rs_err(ENOMEM);
	}
	if (page)
		__atomic_store_n(&page[n % RS_PAGE], rs, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&table_lock);
	return n;
}

struct rsock *rs_find(int socket)
{
	struct rsock **page;

	if (socket < 0 || socket >= RS_PAGE * RS_PAGES)
		return NULL;
	page = __atomic_load_n(&table[socket / RS_PAGE], __ATOMIC_ACQUIRE);
	return page ? __atomic_load_n(&page[socket % RS_PAGE], __ATOMIC_ACQUIRE) : NULL;
}

static struct rsock *rs_new(const struct rsock *from)
{
	struct rsock *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->index = -1;
	pthread_mutex_init(&rs->slock, NULL);
	pthread_mutex_init(&rs->rlock, NULL);
	pthread_mutex_init(&rs->cq_lock, NULL);
	pthread_mutex_init(&rs->cq_wait_lock, NULL);
	/* an accepted socket takes its listener's sizes */
	rs->sbuf_size = from ? from->sbuf_size : def.wmem;
	rs->rbuf_size = from ? from->rbuf_size : def.mem;
	rs->sq_inline = from ? from->sq_inline : def.inline_size;
	rs->sq_size = from ? from->sq_size : def.sqsize;
	rs->rq_size = from ? from->rq_size : def.rqsize;
	rs->ctrl_max_seqno = RS_CTRL_SLOTS;
	rs->fs_flags = from ? from->fs_flags : 0;
	return rs;
}

static void rs_destroy(struct rsock *rs)
{
	if (rs->index >= 0)
		table_set(rs->index, NULL);
	rs_free_ep(rs);
	if (rs->cm_id)
		rdma_destroy_id(rs->cm_id);
	pthread_mutex_destroy(&rs->slock);
	pthread_mutex_destroy(&rs->rlock);
	pthread_mutex_destroy(&rs->cq_lock);
	pthread_mutex_destroy(&rs->cq_wait_lock);
	free(rs);
}

int rs_set_fd_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

int rsocket(int domain, int type, int protocol)
{
	int kind = type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct rsock *rs;

	if (domain == AF_IB)
		return rc_refuse("rsocket", "AF_IB is not supported (RoCE has no IB addressing)",
				 EAFNOSUPPORT);
	if (domain != AF_INET && domain != AF_INET6)
		return rs_err(ENOTSUP);
	if (kind == SOCK_DGRAM) {
		/* said once: Debian's librspreload asks at every socket(2) and
		   falls back to the kernel's UDP socket, which is right */
		static int said;

		if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			return rs_err(ENOTSUP);
		return rc_refuse("rsocket", "datagram rsockets (SOCK_DGRAM) are not supported: "
				 "stream rsockets only (said once)", ENOTSUP);
	}
	if (kind != SOCK_STREAM || (protocol && protocol != IPPROTO_TCP))
		return rs_err(ENOTSUP);
	pthread_once(&conf_once, configure);
	if (!(rs = rs_new(NULL)))
		return rs_err(ENOMEM);
	rs->fs_flags = (type & SOCK_NONBLOCK) ? O_NONBLOCK : 0;
	if (rdma_create_id(NULL, &rs->cm_id, rs, RDMA_PS_TCP))
		goto err;
	rs->cm_id->route.addr.src_addr.sa_family = (sa_family_t)domain;
	if (type & SOCK_CLOEXEC)
		(void)fcntl(rs->cm_id->channel->fd, F_SETFD, FD_CLOEXEC);
	if ((rs->index = table_set(rs->cm_id->channel->fd, rs)) < 0)
		goto err;
	return rs->index;
err:
	{
		int e = errno;

		rs_destroy(rs);
		return rs_err(e);
	}
}

int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rsock *rs = rs_find(socket);

	(void)addrlen;
	if (!rs)
		return rs_err(EBADF);
	if (rdma_bind_addr(rs->cm_id, (struct sockaddr *)addr))
		return -1;
	rs->state = RS_BOUND;
	return 0;
}

int rlisten(int socket, int backlog)
{
	struct rsock *rs = rs_find(socket);

	if (!rs)
		return rs_err(EBADF);
	if (rs->state == RS_LISTENING)
		return 0;
	if (rdma_listen(rs->cm_id, backlog))
		return -1;
	if (rs->fs_flags & O_NONBLOCK)
		rs_set_fd_nonblock(rs->cm_id->channel->fd, true);
	rs->state = RS_LISTENING;
	return 0;
}

/* A request's socket: its QP and buffers, the peer's connection data
   taken, ours given in the REP */
static struct rsock *accept_one(struct rsock *l, struct rdma_cm_id *id)
{
	struct rdma_conn_param param;
	const struct rs_conn_data *creq;
	struct rs_conn_data cresp;
	struct rsock *rs = rs_new(l);

	if (!rs)
		goto err;
	rs->cm_id = id;
	id->context = rs;
	if ((rs->index = table_set(id->channel->fd, rs)) < 0)
		goto err;
	creq = id->event->param.conn.private_data;
	if (id->event->param.conn.private_data_len < sizeof(*creq) || creq->version != 1) {
		fprintf(stderr, "librdmacm: raccept: a request without rsockets' connection "
			"data (version 1): rejected\n");
		goto err;
	}
	if (rs_create_ep(rs))
		goto err;
	rs_save_conn_data(rs, creq);
	param = id->event->param.conn;
	rs_format_conn_data(rs, &cresp);
	param.private_data = &cresp;
	param.private_data_len = sizeof(cresp);
	if (rs->fs_flags & O_NONBLOCK)
		rs_set_fd_nonblock(id->channel->fd, true);
	if (!rdma_accept(id, &param))
		rs->state = RS_CONNECT_RDWR;
	else if (errno == EAGAIN || errno == EWOULDBLOCK)
		rs->state = RS_ACCEPTING;
	else
		goto err;
	return rs;
err:
	rdma_reject(id, NULL, 0);
	if (rs)
		rs_destroy(rs);
	else
		rdma_destroy_id(id);
	return NULL;
}

int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rsock *l = rs_find(socket), *rs;
	struct rdma_cm_id *id;

	if (!l || l->state != RS_LISTENING)
		return rs_err(EBADF);
	for (;;) {
		if (rdma_get_request(l->cm_id, &id))
			return -1;      /* EAGAIN when non-blocking and none waits */
		if ((rs = accept_one(l, id)))
			break;
		if (l->fs_flags & O_NONBLOCK)
			return rs_err(EAGAIN);
	}
	if (addr && addrlen)
		rgetpeername(rs->index, addr, addrlen);
	return rs->index;
}

/* One step of connecting; -1 with EINPROGRESS while a non-blocking step waits */
int rs_do_connect(struct rsock *rs)
{
	struct rc_id *r = RC_OF(rc_id, rs->cm_id);
	struct rdma_conn_param param;
	struct rs_conn_data creq;
	const struct rs_conn_data *cresp;
	int ret;

	pthread_mutex_lock(&rs->slock);
	switch (rs->state) {
	case RS_INIT:
	case RS_BOUND:
resolve_addr:
		ret = rdma_resolve_addr(rs->cm_id, NULL, &rs->cm_id->route.addr.dst_addr,
					1000 << rs->retries++);
		if (!ret)
			goto resolve_route;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			rs->state = RS_RESOLVING_ADDR;
		break;
	case RS_RESOLVING_ADDR:
		if ((ret = rc_complete(r))) {
			if (errno == ETIMEDOUT && rs->retries <= RS_CONN_RETRIES)
				goto resolve_addr;
			break;
		}
		rs->retries = 0;
resolve_route:
		ret = rdma_resolve_route(rs->cm_id, 1000 << rs->retries++);
		if (!ret)
			goto do_connect;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			rs->state = RS_RESOLVING_ROUTE;
		break;
	case RS_RESOLVING_ROUTE:
		if ((ret = rc_complete(r))) {
			if (errno == ETIMEDOUT && rs->retries <= RS_CONN_RETRIES)
				goto resolve_route;
			break;
		}
do_connect:
		if ((ret = rs_create_ep(rs)))
			break;
		memset(&param, 0, sizeof(param));
		rs_format_conn_data(rs, &creq);
		param.private_data = &creq;
		param.private_data_len = sizeof(creq);
		param.flow_control = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		rs->retries = 0;
		ret = rdma_connect(rs->cm_id, &param);
		if (!ret)
			goto connected;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			rs->state = RS_CONNECTING;
		break;
	case RS_CONNECTING:
		if ((ret = rc_complete(r)))
			break;
connected:
		cresp = rs->cm_id->event->param.conn.private_data;
		if (rs->cm_id->event->param.conn.private_data_len < sizeof(*cresp) ||
		    cresp->version != 1) {
			ret = rs_err(ENOTSUP);
			break;
		}
		rs_save_conn_data(rs, cresp);
		rs->state = RS_CONNECT_RDWR;
		break;
	case RS_ACCEPTING:
		if (!(rs->fs_flags & O_NONBLOCK))
			rs_set_fd_nonblock(rs->cm_id->channel->fd, false);
		if (!(ret = rc_complete(r)))
			rs->state = RS_CONNECT_RDWR;
		break;
	case RS_CONNECT_ERROR:
	case RS_DISCONNECTED:
	case RS_ERROR:
		ret = rs_err(ENOTCONN);
		goto unlock;
	default:
		ret = (rs->state & RS_CONNECTED) ? 0 : rs_err(EINVAL);
		goto unlock;
	}
	if (ret) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			errno = EINPROGRESS;
		} else {
			rs->state = RS_CONNECT_ERROR;
			rs->err = errno;
		}
	}
unlock:
	pthread_mutex_unlock(&rs->slock);
	return ret;
}

int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rsock *rs = rs_find(socket);

	if (!rs)
		return rs_err(EBADF);
	if (!addr || addrlen < sizeof(struct sockaddr_in) ||
	    (addr->sa_family == AF_INET6 && addrlen < sizeof(struct sockaddr_in6)))
		return rs_err(EINVAL);
	if (rs->state == RS_INIT || rs->state == RS_BOUND) {
		memcpy(&rs->cm_id->route.addr.dst_addr, addr,
		       addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						   : sizeof(struct sockaddr_in));
		if (rs->fs_flags & O_NONBLOCK)
			rs_set_fd_nonblock(rs->cm_id->channel->fd, true);
	}
	return rs_do_connect(rs);
}

int rshutdown(int socket, int how)
{
	struct rsock *rs = rs_find(socket);
	int ctrl, ret = 0;

	if (!rs)
		return rs_err(EBADF);
	if ((rs->fs_flags & O_NONBLOCK) && rs->cm_id->recv_cq_channel)
		rs_set_fd_nonblock(rs->cm_id->recv_cq_channel->fd, false);
	if (rs->state & RS_CONNECTED) {
		if (how == SHUT_RDWR) {
			ctrl = RS_CTRL_DISCONNECT;
			rs->state &= ~(RS_READABLE | RS_WRITABLE);
		} else if (how == SHUT_WR) {
			rs->state &= ~RS_WRITABLE;
			ctrl = (rs->state & RS_READABLE) ? RS_CTRL_SHUTDOWN : RS_CTRL_DISCONNECT;
		} else {
			rs->state &= ~RS_READABLE;
			if (rs->state & RS_WRITABLE)
				goto out;
			ctrl = RS_CTRL_DISCONNECT;
		}
		if (!rs_ctrl_avail(rs) && (ret = rs_process_cq(rs, false, rs_conn_can_send_ctrl)))
			goto out;
		if ((rs->state & RS_CONNECTED) && rs_ctrl_avail(rs)) {
			rs->ctrl_seqno++;
			ret = rs_post_ctrl(rs, RS_MSG(RS_OP_CTRL, ctrl));
		}
	}
	if (rs->state & RS_CONNECTED)
		rs_process_cq(rs, false, rs_conn_all_sends_done);
out:
	if ((rs->fs_flags & O_NONBLOCK) && (rs->state & RS_CONNECTED) &&
	    rs->cm_id->recv_cq_channel)
		rs_set_fd_nonblock(rs->cm_id->recv_cq_channel->fd, true);
	if ((rs->state & RS_DISCONNECTED) && rs->cm_id->qp) {
		/* the QP to ERR flushes the receives: a poller wakes */
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		ibv_req_notify_cq(rs->cm_id->recv_cq, 0);
		ibv_modify_qp(rs->cm_id->qp, &a, IBV_QP_STATE);
	}
	return ret;
}

int rclose(int socket)
{
	struct rsock *rs = rs_find(socket);

	if (!rs)
		return rs_err(EBADF);
	if (rs->state & RS_CONNECTED)
		rshutdown(socket, SHUT_RDWR);
	/* destroying the connected ID sends the CM's DREQ */
	rs_destroy(rs);
	return 0;
}

static void copy_addr(struct sockaddr *dst, const struct sockaddr *src, socklen_t *len)
{
	socklen_t size = src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						    : sizeof(struct sockaddr_in);

	memcpy(dst, src, *len < size ? *len : size);
	*len = size;
}

int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rsock *rs = rs_find(socket);

	if (!rs)
		return rs_err(EBADF);
	if (!addr || !addrlen)
		return rs_err(EFAULT);
	copy_addr(addr, rdma_get_peer_addr(rs->cm_id), addrlen);
	return 0;
}

int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rsock *rs = rs_find(socket);

	if (!rs)
		return rs_err(EBADF);
	if (!addr || !addrlen)
		return rs_err(EFAULT);
	copy_addr(addr, rdma_get_local_addr(rs->cm_id), addrlen);
	return 0;
}
