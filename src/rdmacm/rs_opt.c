/* SPDX-License-Identifier: MIT */
/*
 * An rsocket's options and flags: rsetsockopt, rgetsockopt, rfcntl,
 * with rdma-core's meanings (SO_RCVBUF and SO_SNDBUF double as the
 * kernel's do, before the connection's buffers exist; SOL_RDMA sizes
 * the queues and the inline limit before connecting; TCP options that
 * mean nothing on a reliable connection are accepted). What is not
 * offered says so: keepalive messages, direct-placement iomaps.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <string.h>

#include <rdma/rsocket.h>

#include "rdmacm/rc.h"
#include "rdmacm/rs.h"

static uint32_t u32_opt(const void *v, socklen_t len)
{
	uint32_t x;

	memcpy(&x, v, sizeof(x));
	(void)len;
	return x;
}

static int set_socket(struct rsock *rs, int name, const void *v, socklen_t len, bool *on)
{
	uint32_t x = u32_opt(v, len);

	*on = x != 0;
	switch (name) {
	case SO_REUSEADDR:
		/* the CM may refuse it once bound; a socket option is a hint */
		(void)rdma_set_option(rs->cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR,
				      (void *)v, len);
		return 0;
	case SO_RCVBUF:
		if (!rs->rbuf)
			rs->rbuf_size = x > (1u << 29) ? 1u << 30 : x < RS_SNDLOWAT ? RS_SNDLOWAT << 1 : x << 1;
		return 0;
	case SO_SNDBUF:
		if (!rs->sbuf)
			rs->sbuf_size = x > (1u << 29) ? 1u << 30 : x < RS_SNDLOWAT ? RS_SNDLOWAT << 1 : x << 1;
		return 0;
	case SO_LINGER:
		*on = !((const struct linger *)v)->l_onoff; /* inverted: default on */
		return 0;
	case SO_OOBINLINE:
		return 0;
	case SO_KEEPALIVE:
		if (!x)
			return 0;
		return rc_refuse("rsetsockopt", "SO_KEEPALIVE: this librdmacm sends no keepalive "
				 "messages (the RC transport's retries detect a dead peer)", ENOTSUP);
	default:
		return rs_err(ENOTSUP);
	}
}

static int set_tcp(struct rsock *rs, int name, const void *v, socklen_t len, bool *on)
{
	int x = (int)u32_opt(v, len);

	*on = x != 0;
	switch (name) {
	case TCP_KEEPCNT:
	case TCP_KEEPINTVL:
	case TCP_MAXSEG:
	case TCP_NODELAY:
		return 0;               /* nothing to do on a reliable connection */
	case TCP_KEEPIDLE:
		if (x <= 0)
			return rs_err(EINVAL);
		rs->keepalive_time = (unsigned)x;
		return 0;
	default:
		return rs_err(ENOTSUP);
	}
}

static int set_rdma(struct rsock *rs, int name, const void *v, socklen_t len)
{
	uint32_t x = u32_opt(v, len);

	if (rs->state >= RS_OPENING)
		return rs_err(EINVAL);
	switch (name) {
	case RDMA_SQSIZE:
		rs->sq_size = (uint16_t)(x > RS_QP_MAX ? RS_QP_MAX : x);
		return 0;
	case RDMA_RQSIZE:
		rs->rq_size = (uint16_t)(x > RS_QP_MAX ? RS_QP_MAX : x);
		return 0;
	case RDMA_INLINE:
		rs->sq_inline = (uint16_t)(x > RS_QP_MAX ? RS_QP_MAX : x);
		return 0;
	case RDMA_IOMAPSIZE:
		if (!x)
			return 0;
		return rc_refuse("rsetsockopt", "RDMA_IOMAPSIZE: iomaps (riomap, riowrite) are not "
				 "supported by this librdmacm", ENOTSUP);
	case RDMA_ROUTE:
		/* the route is resolved from the address, as without the option */
		return 0;
	default:
		return rs_err(ENOTSUP);
	}
}

int rsetsockopt(int socket, int level, int optname, const void *optval, socklen_t optlen)
{
	struct rsock *rs = rs_find(socket);
	uint64_t *opts = NULL;
	bool on = false;
	int ret;

	if (!rs)
		return rs_err(EBADF);
	if (!optval || optlen < (optname == SO_LINGER && level == SOL_SOCKET ?
				 sizeof(struct linger) : sizeof(int)))
		return rs_err(EINVAL);
	switch (level) {
	case SOL_SOCKET:
		opts = &rs->so_opts;
		ret = set_socket(rs, optname, optval, optlen, &on);
		break;
	case IPPROTO_TCP:
		opts = &rs->tcp_opts;
		ret = set_tcp(rs, optname, optval, optlen, &on);
		break;
	case IPPROTO_IPV6:
		if (optname != IPV6_V6ONLY)
			return rs_err(ENOTSUP);
		opts = &rs->ipv6_opts;
		on = u32_opt(optval, optlen) != 0;
		ret = rdma_set_option(rs->cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
				      (void *)optval, optlen);
		break;
	case SOL_RDMA:
		ret = set_rdma(rs, optname, optval, optlen);
		break;
	default:
		return rs_err(ENOTSUP);
	}
	if (!ret && opts && optname < 64) {
		if (on)
			*opts |= 1ull << optname;
		else
			*opts &= ~(1ull << optname);
	}
	return ret;
}

static int put_int(void *optval, socklen_t *optlen, int v)
{
	if (*optlen < sizeof(int))
		return rs_err(EINVAL);
	memcpy(optval, &v, sizeof(v));
	*optlen = sizeof(int);
	return 0;
}

static bool opt_on(uint64_t opts, int name)
{
	return name < 64 && (opts & (1ull << name));
}

int rgetsockopt(int socket, int level, int optname, void *optval, socklen_t *optlen)
{
	struct rsock *rs = rs_find(socket);

	if (!rs)
		return rs_err(EBADF);
	if (!optval || !optlen)
		return rs_err(EFAULT);
	switch (level) {
	case SOL_SOCKET:
		switch (optname) {
		case SO_REUSEADDR:
		case SO_KEEPALIVE:
		case SO_OOBINLINE:
			return put_int(optval, optlen, opt_on(rs->so_opts, optname));
		case SO_RCVBUF:
			return put_int(optval, optlen, (int)rs->rbuf_size);
		case SO_SNDBUF:
			return put_int(optval, optlen, (int)rs->sbuf_size);
		case SO_LINGER: {
			struct linger l = { .l_onoff = !opt_on(rs->so_opts, SO_LINGER) };

			if (*optlen < sizeof(l))
				return rs_err(EINVAL);
			memcpy(optval, &l, sizeof(l));
			*optlen = sizeof(l);
			return 0;
		}
		case SO_ERROR: {
			int e = rs->err;

			rs->err = 0;
			return put_int(optval, optlen, e);
		}
		}
		break;
	case IPPROTO_TCP:
		switch (optname) {
		case TCP_KEEPCNT:
		case TCP_KEEPINTVL:
			return put_int(optval, optlen, 1);
		case TCP_KEEPIDLE:
			return put_int(optval, optlen, (int)rs->keepalive_time);
		case TCP_NODELAY:
			return put_int(optval, optlen, opt_on(rs->tcp_opts, optname));
		case TCP_MAXSEG:
			return put_int(optval, optlen, rs->cm_id->route.num_paths ?
				       1 << (7 + rs->cm_id->route.path_rec->mtu) : 2048);
		}
		break;
	case IPPROTO_IPV6:
		if (optname == IPV6_V6ONLY)
			return put_int(optval, optlen, opt_on(rs->ipv6_opts, optname));
		break;
	case SOL_RDMA:
		switch (optname) {
		case RDMA_SQSIZE:
			return put_int(optval, optlen, rs->sq_size);
		case RDMA_RQSIZE:
			return put_int(optval, optlen, rs->rq_size);
		case RDMA_INLINE:
			return put_int(optval, optlen, rs->sq_inline);
		case RDMA_IOMAPSIZE:
			return put_int(optval, optlen, 0);
		}
		break;
	}
	return rs_err(ENOTSUP);
}

/* O_NONBLOCK reaches the fds a call may wait on: the CQ's channel, and
   the CM's while connecting or listening */
static void set_nonblocking(struct rsock *rs, bool on)
{
	struct rdma_cm_id *id = rs->cm_id;

	if (id->recv_cq_channel)
		rs_set_fd_nonblock(id->recv_cq_channel->fd, on);
	if (rs->state < RS_CONNECTED)
		rs_set_fd_nonblock(id->channel->fd, on);
}

int rfcntl(int socket, int cmd, ...)
{
	struct rsock *rs = rs_find(socket);
	va_list ap;
	int arg;

	if (!rs)
		return rs_err(EBADF);
	switch (cmd) {
	case F_GETFL:
		return rs->fs_flags;
	case F_SETFL:
		va_start(ap, cmd);
		arg = va_arg(ap, int);
		va_end(ap);
		if ((arg & O_NONBLOCK) != (rs->fs_flags & O_NONBLOCK))
			set_nonblocking(rs, arg & O_NONBLOCK);
		rs->fs_flags = arg;
		return 0;
	default:
		return rc_refuse("rfcntl", "only F_GETFL and F_SETFL are supported on an rsocket",
				 ENOTSUP);
	}
}
