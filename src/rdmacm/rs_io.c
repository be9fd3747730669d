/* SPDX-License-Identifier: MIT */
/*
 * An rsocket's bytes: rsend and its kin write the caller's bytes into
 * the peer's granted buffer (RDMA WRITE with immediate, inline when
 * small, else through the send buffer, which wraps in two pieces);
 * rrecv and its kin copy received writes out of the receive buffer in
 * order, which wraps too. A send waits for a credit, a grant and send
 * space; a receive for a write; both honour O_NONBLOCK and
 * MSG_DONTWAIT, and MSG_PEEK and MSG_WAITALL on receive.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>

#include <rdma/rsocket.h>

#include "rdmacm/rs.h"

static bool nonblocking(struct rsock *rs, int flags)
{
	return (rs->fs_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

static bool conn_can_send(struct rsock *rs)
{
	return rs_can_send(rs) || !(rs->state & RS_WRITABLE);
}

/* a socket still connecting is driven on by a read or write */
static struct rsock *ready(int socket, ssize_t *ret)
{
	struct rsock *rs = rs_find(socket);

	*ret = 0;
	if (!rs) {
		*ret = rs_err(EBADF);
		return NULL;
	}
	if ((rs->state & RS_OPENING) && rs_do_connect(rs)) {
		if (errno == EINPROGRESS)
			errno = EAGAIN;
		*ret = -1;
		return NULL;
	}
	/* never connected (unconnected, listening, or failed before its
	   QP): nothing to read or write */
	if (!rs->cm_id->recv_cq) {
		*ret = rs_err(ENOTCONN);
		return NULL;
	}
	return rs;
}

/* One write into the peer's current grant, its slot advanced first: the
   peer may refill it the moment it sees the data */
static int write_data(struct rsock *rs, struct ibv_sge *sgl, int nsge, uint32_t len, int flags)
{
	volatile struct rs_sge *t = &rs->target_sgl[rs->target_sge];
	struct ibv_send_wr wr = { 0 }, *bad;
	uint32_t msg = RS_MSG(RS_OP_DATA, len);

	rs->sseq_no++;
	rs->sqe_avail--;
	rs->sbuf_bytes_avail -= (int)len;
	wr.wr.rdma.remote_addr = t->addr;
	wr.wr.rdma.rkey = t->key;
	t->addr += len;
	t->length -= len;
	if (!t->length && ++rs->target_sge == RS_SGL_SIZE)
		rs->target_sge = 0;
	wr.wr_id = msg;
	wr.sg_list = sgl;
	wr.num_sge = nsge;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = (unsigned)flags;
	wr.imm_data = htobe32(msg);
	return ibv_post_send(rs->cm_id->qp, &wr, &bad) ? rs_err(errno ? errno : EIO) : 0;
}

static uint32_t sbuf_left(struct rsock *rs)
{
	return (uint32_t)((uintptr_t)&rs->sbuf[rs->sbuf_size] - rs->ssgl[0].addr);
}

static int send_one(struct rsock *rs, const uint8_t *buf, uint32_t n)
{
	struct ibv_sge s = { .addr = (uintptr_t)buf, .length = n };
	uint32_t left = sbuf_left(rs);
	int ret;

	if (n <= rs->sq_inline)
		return write_data(rs, &s, 1, n, IBV_SEND_INLINE);
	if (n <= left) {
		memcpy((void *)(uintptr_t)rs->ssgl[0].addr, buf, n);
		rs->ssgl[0].length = n;
		ret = write_data(rs, rs->ssgl, 1, n, 0);
		rs->ssgl[0].addr = n < left ? rs->ssgl[0].addr + n : (uintptr_t)rs->sbuf;
		return ret;
	}
	/* wraps: the tail of the send buffer, then its head */
	rs->ssgl[0].length = left;
	memcpy((void *)(uintptr_t)rs->ssgl[0].addr, buf, left);
	rs->ssgl[1].length = n - left;
	memcpy(rs->sbuf, buf + left, n - left);
	ret = write_data(rs, rs->ssgl, 2, n, 0);
	rs->ssgl[0].addr = (uintptr_t)rs->sbuf + rs->ssgl[1].length;
	return ret;
}

ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	const uint8_t *p = buf;
	size_t left = len;
	uint32_t olen = RS_FIRST_XFER, n;
	ssize_t ret;
	struct rsock *rs = ready(socket, &ret);

	if (!rs)
		return ret;
	pthread_mutex_lock(&rs->slock);
	for (; left; left -= n, p += n) {
		if (!rs_can_send(rs)) {
			ret = rs_process_cq(rs, nonblocking(rs, flags), conn_can_send);
			if (ret)
				break;
			if (!(rs->state & RS_WRITABLE)) {
				ret = rs_err(ECONNRESET);
				break;
			}
		}
		/* the first writes small, so that a stream starts at once */
		if (olen < left) {
			n = olen;
			if (olen < RS_MAX_XFER)
				olen <<= 1;
		} else {
			n = (uint32_t)left;
		}
		if (n > (uint32_t)rs->sbuf_bytes_avail)
			n = (uint32_t)rs->sbuf_bytes_avail;
		if (n > rs->target_sgl[rs->target_sge].length)
			n = rs->target_sgl[rs->target_sge].length;
		if ((ret = send_one(rs, p, n)))
			break;
	}
	pthread_mutex_unlock(&rs->slock);
	return (ret && left == len) ? ret : (ssize_t)(len - left);
}

ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
		const struct sockaddr *dest_addr, socklen_t addrlen)
{
	(void)addrlen;
	/* a stream socket ignores the address, as TCP's does when connected */
	if (dest_addr && !rs_find(socket))
		return rs_err(EBADF);
	return rsend(socket, buf, len, flags);
}

static ssize_t sendv(int socket, const struct iovec *iov, int iovcnt, int flags)
{
	ssize_t total = 0;

	if (iovcnt < 0 || (iovcnt && !iov))
		return rs_err(EINVAL);
	for (int i = 0; i < iovcnt; i++) {
		ssize_t n;

		if (!iov[i].iov_len)
			continue;
		n = rsend(socket, iov[i].iov_base, iov[i].iov_len, flags);
		if (n < 0)
			return total ? total : n;
		total += n;
		if ((size_t)n < iov[i].iov_len)
			break;
	}
	return total;
}

ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	if (!msg)
		return rs_err(EINVAL);
	if (msg->msg_control && msg->msg_controllen)
		return rs_err(ENOTSUP);
	return sendv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

ssize_t rwrite(int socket, const void *buf, size_t count)
{
	return rsend(socket, buf, count, 0);
}

ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	return sendv(socket, iov, iovcnt, 0);
}

/* ---- receive ---------------------------------------------------------------- */

/* Copy n bytes out at *off, wrapping at the buffer's end */
static void copy_out(struct rsock *rs, uint8_t *dst, int *off, uint32_t n)
{
	uint32_t end = rs->rbuf_size - (uint32_t)*off;

	if (n > end) {
		memcpy(dst, &rs->rbuf[*off], end);
		dst += end;
		n -= end;
		*off = 0;
	}
	memcpy(dst, &rs->rbuf[*off], n);
	*off += (int)n;
}

static size_t peek(struct rsock *rs, uint8_t *buf, size_t len)
{
	int head = rs->rmsg_head, off = rs->rbuf_offset;
	size_t done = 0;

	while (done < len && head != rs->rmsg_tail) {
		uint32_t n = rs->rmsg[head].data;

		if (len - done < n)
			n = (uint32_t)(len - done);
		else if (++head == rs->rq_size + 1)
			head = 0;
		copy_out(rs, buf + done, &off, n);
		done += n;
	}
	return done;
}

ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	uint8_t *p = buf;
	size_t left = len;
	ssize_t ret;
	struct rsock *rs = ready(socket, &ret);

	if (!rs)
		return ret;
	pthread_mutex_lock(&rs->rlock);
	do {
		if (!rs_have_rdata(rs)) {
			ret = rs_process_cq(rs, nonblocking(rs, flags), rs_conn_have_rdata);
			if (ret)
				break;
		}
		if (flags & MSG_PEEK) {
			left -= peek(rs, p, left);
			break;
		}
		while (left && rs_have_rdata(rs)) {
			struct rs_rmsg *m = &rs->rmsg[rs->rmsg_head];
			uint32_t n = m->data;

			if (left < n) {
				n = (uint32_t)left;
				m->data -= n;
			} else {
				rs->rseq_no++;
				if (++rs->rmsg_head == rs->rq_size + 1)
					rs->rmsg_head = 0;
			}
			copy_out(rs, p, &rs->rbuf_offset, n);
			rs->rbuf_bytes_avail += (int)n;
			p += n;
			left -= n;
		}
	} while (left && (flags & MSG_WAITALL) && (rs->state & RS_READABLE));
	pthread_mutex_unlock(&rs->rlock);
	return (ret && left == len) ? ret : (ssize_t)(len - left);
}

ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags, struct sockaddr *src_addr,
		  socklen_t *addrlen)
{
	ssize_t ret = rrecv(socket, buf, len, flags);

	if (ret > 0 && src_addr && addrlen)
		rgetpeername(socket, src_addr, addrlen);
	return ret;
}

/* As rdma-core's: the first vector only (a short read, which a stream allows) */
static ssize_t recvv(int socket, const struct iovec *iov, int iovcnt, int flags)
{
	if (iovcnt <= 0 || !iov)
		return iovcnt == 0 ? 0 : rs_err(EINVAL);
	return rrecv(socket, iov[0].iov_base, iov[0].iov_len, flags);
}

ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	if (!msg)
		return rs_err(EINVAL);
	if (msg->msg_control && msg->msg_controllen)
		return rs_err(ENOTSUP);
	return recvv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

ssize_t rread(int socket, void *buf, size_t count)
{
	return rrecv(socket, buf, count, 0);
}

ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	return recvv(socket, iov, iovcnt, 0);
}
