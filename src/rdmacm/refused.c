/* SPDX-License-Identifier: MIT */
/*
 * What the drop-in librdmacm.so.1 exports and does not offer: every name
 * of rdma-core 44's librdmacm.map is here, so that a program that links
 * one loads (Debian builds with BIND_NOW), and each says on stderr what
 * it is and why it is refused, once a call, failing as its function
 * fails (-1, or NULL, with errno).
 *
 *   - multicast (rdma_join_multicast, _ex, rdma_leave_multicast): the
 *     engine has no multicast groups (docs/verbs.md, Limits);
 *   - ECE (rdma_set_local_ece, rdma_get_remote_ece, rdma_reject_ece):
 *     the engine's CM carries no ECE, as rxe's does not;
 *   - rdma_notify: the engine's CM has no communication-established
 *     notification (its RTU is resent by the active side instead);
 *   - rsockets (rsocket ... riowrite): not in this library yet.
 */
#include <errno.h>
#include <stdio.h>

#include <rdma/rsocket.h>

#include "rdmacm/rc.h"

#define NO_MCAST "multicast is not supported by this device"
#define NO_ECE "ECE is not supported (the CM carries none, as rxe's)"
#define NO_RSOCKETS "rsockets are not supported by this librdmacm"

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	(void)id, (void)addr, (void)context;
	return rc_refuse("rdma_join_multicast", NO_MCAST, EOPNOTSUPP);
}

int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	(void)id, (void)mc_join_attr, (void)context;
	return rc_refuse("rdma_join_multicast_ex", NO_MCAST, EOPNOTSUPP);
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id, (void)addr;
	return rc_refuse("rdma_leave_multicast", NO_MCAST, EOPNOTSUPP);
}

int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id, (void)ece;
	return rc_refuse("rdma_set_local_ece", NO_ECE, EOPNOTSUPP);
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id, (void)ece;
	return rc_refuse("rdma_get_remote_ece", NO_ECE, EOPNOTSUPP);
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void)id, (void)private_data, (void)private_data_len;
	return rc_refuse("rdma_reject_ece", NO_ECE, EOPNOTSUPP);
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	(void)id, (void)event;
	return rc_refuse("rdma_notify", "not supported by this CM (the active side resends "
			 "its RTU)", EOPNOTSUPP);
}

/* ---- rsockets ------------------------------------------------------------------ */

static int no_rsockets(const char *what)
{
	return rc_refuse(what, NO_RSOCKETS, ENOSYS);
}

int rsocket(int domain, int type, int protocol)
{
	(void)domain, (void)type, (void)protocol;
	return no_rsockets("rsocket");
}

int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return no_rsockets("rbind");
}

int rlisten(int socket, int backlog)
{
	(void)socket, (void)backlog;
	return no_rsockets("rlisten");
}

int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return no_rsockets("raccept");
}

int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return no_rsockets("rconnect");
}

int rshutdown(int socket, int how)
{
	(void)socket, (void)how;
	return no_rsockets("rshutdown");
}

int rclose(int socket)
{
	(void)socket;
	return no_rsockets("rclose");
}

ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	(void)socket, (void)buf, (void)len, (void)flags;
	return no_rsockets("rrecv");
}

ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags, struct sockaddr *src_addr,
		  socklen_t *addrlen)
{
	(void)socket, (void)buf, (void)len, (void)flags, (void)src_addr, (void)addrlen;
	return no_rsockets("rrecvfrom");
}

ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	(void)socket, (void)msg, (void)flags;
	return no_rsockets("rrecvmsg");
}

ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	(void)socket, (void)buf, (void)len, (void)flags;
	return no_rsockets("rsend");
}

ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
		const struct sockaddr *dest_addr, socklen_t addrlen)
{
	(void)socket, (void)buf, (void)len, (void)flags, (void)dest_addr, (void)addrlen;
	return no_rsockets("rsendto");
}

ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	(void)socket, (void)msg, (void)flags;
	return no_rsockets("rsendmsg");
}

ssize_t rread(int socket, void *buf, size_t count)
{
	(void)socket, (void)buf, (void)count;
	return no_rsockets("rread");
}

ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket, (void)iov, (void)iovcnt;
	return no_rsockets("rreadv");
}

ssize_t rwrite(int socket, const void *buf, size_t count)
{
	(void)socket, (void)buf, (void)count;
	return no_rsockets("rwrite");
}

ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket, (void)iov, (void)iovcnt;
	return no_rsockets("rwritev");
}

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	(void)fds, (void)nfds, (void)timeout;
	return no_rsockets("rpoll");
}

int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	    struct timeval *timeout)
{
	(void)nfds, (void)readfds, (void)writefds, (void)exceptfds, (void)timeout;
	return no_rsockets("rselect");
}

int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return no_rsockets("rgetpeername");
}

int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return no_rsockets("rgetsockname");
}

int rsetsockopt(int socket, int level, int optname, const void *optval, socklen_t optlen)
{
	(void)socket, (void)level, (void)optname, (void)optval, (void)optlen;
	return no_rsockets("rsetsockopt");
}

int rgetsockopt(int socket, int level, int optname, void *optval, socklen_t *optlen)
{
	(void)socket, (void)level, (void)optname, (void)optval, (void)optlen;
	return no_rsockets("rgetsockopt");
}

int rfcntl(int socket, int cmd, ...)
{
	(void)socket, (void)cmd;
	return no_rsockets("rfcntl");
}

off_t riomap(int socket, void *buf, size_t len, int prot, int flags, off_t offset)
{
	(void)socket, (void)buf, (void)len, (void)prot, (void)flags, (void)offset;
	return no_rsockets("riomap");
}

int riounmap(int socket, void *buf, size_t len)
{
	(void)socket, (void)buf, (void)len;
	return no_rsockets("riounmap");
}

size_t riowrite(int socket, const void *buf, size_t count, off_t offset, int flags)
{
	(void)socket, (void)buf, (void)count, (void)offset, (void)flags;
	no_rsockets("riowrite");
	return 0;       /* rsockets' riowrite: the bytes written, errno set */
}
