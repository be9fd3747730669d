/* SPDX-License-Identifier: MIT */
/*
 * An rsocket's connection: its RC QP and CQ, its buffers and their
 * memory regions, the connection data of the CM's REQ and REP, and the
 * completions that move credits, grants and received data (the wire in
 * rs.h). rs_io.c copies the bytes in and out.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>

#include "rdmacm/rs.h"

#define RS_POLL_US 10                   /* spin this long before sleeping */

static bool host_is_net(void)
{
	return __BYTE_ORDER == __BIG_ENDIAN;
}

/* page-aligned and zeroed, as the buffers the peer writes into are
   registered whole */
static void *rs_alloc(size_t len)
{
	void *p = NULL;
	long page = sysconf(_SC_PAGESIZE);

	if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, len ? len : 1))
		return NULL;
	memset(p, 0, len);
	return p;
}

static void queue_sizes(struct rsock *rs)
{
	struct ibv_device_attr a;
	uint32_t max = RS_QP_MAX;

	if (!ibv_query_device(rs->cm_id->verbs, &a) && (uint32_t)a.max_qp_wr < max)
		max = (uint32_t)a.max_qp_wr;
	if (rs->sq_size > max)
		rs->sq_size = (uint16_t)max;
	else if (rs->sq_size < RS_QP_MIN)
		rs->sq_size = RS_QP_MIN;
	if (rs->rq_size > max)
		rs->rq_size = (uint16_t)max;
	else if (rs->rq_size < RS_QP_MIN)
		rs->rq_size = RS_QP_MIN;
}

static int post_recv(struct rsock *rs)
{
	struct ibv_recv_wr wr = { .wr_id = RS_WR_RECV }, *bad;

	return ibv_post_recv(rs->cm_id->qp, &wr, &bad) ? rs_err(errno ? errno : EIO) : 0;
}

static int init_bufs(struct rsock *rs)
{
	size_t slots = sizeof(struct rs_sge) * RS_SGL_SIZE;
	uint32_t stotal = rs->sbuf_size;

	rs->rmsg = calloc((size_t)rs->rq_size + 1, sizeof(*rs->rmsg));
	if (!rs->rmsg)
		return rs_err(ENOMEM);
	/* a grant too large to send inline goes from a control slot */
	if (rs->sq_inline < sizeof(struct rs_sge))
		stotal += (uint32_t)sizeof(struct rs_sge) * RS_CTRL_SLOTS;
	if (!(rs->sbuf = rs_alloc(stotal)) ||
	    !(rs->smr = rdma_reg_msgs(rs->cm_id, rs->sbuf, stotal)))
		return rs_err(errno ? errno : ENOMEM);
	if (!(rs->target_sgl = rs_alloc(slots)) ||
	    !(rs->target_mr = rdma_reg_write(rs->cm_id, (void *)rs->target_sgl, slots)))
		return rs_err(errno ? errno : ENOMEM);
	if (!(rs->rbuf = rs_alloc(rs->rbuf_size)) ||
	    !(rs->rmr = rdma_reg_write(rs->cm_id, rs->rbuf, rs->rbuf_size)))
		return rs_err(errno ? errno : ENOMEM);
	rs->ssgl[0].addr = rs->ssgl[1].addr = (uintptr_t)rs->sbuf;
	rs->ssgl[0].lkey = rs->ssgl[1].lkey = rs->smr->lkey;
	rs->sbuf_bytes_avail = (int)rs->sbuf_size;
	/* the first half is granted in the connection data */
	rs->rbuf_free_offset = (int)(rs->rbuf_size >> 1);
	rs->rbuf_bytes_avail = (int)(rs->rbuf_size >> 1);
	rs->sqe_avail = rs->sq_size - (int)rs->ctrl_max_seqno;
	rs->rseq_comp = rs->rq_size >> 1;
	return 0;
}

int rs_create_ep(struct rsock *rs)
{
	struct rdma_cm_id *id = rs->cm_id;
	struct ibv_qp_init_attr qa = { 0 };

	queue_sizes(rs);
	if (!(id->recv_cq_channel = ibv_create_comp_channel(id->verbs)))
		return -1;
	if (rs->fs_flags & O_NONBLOCK)
		(void)fcntl(id->recv_cq_channel->fd, F_SETFL, O_NONBLOCK);
	id->recv_cq = ibv_create_cq(id->verbs, rs->sq_size + rs->rq_size, id,
				    id->recv_cq_channel, 0);
	if (!id->recv_cq)
		return -1;
	/* armed at once, so that the first completion wakes a poller */
	ibv_req_notify_cq(id->recv_cq, 0);
	id->send_cq_channel = id->recv_cq_channel;
	id->send_cq = id->recv_cq;

	qa.qp_context = rs;
	qa.send_cq = qa.recv_cq = id->recv_cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = rs->sq_size;
	qa.cap.max_recv_wr = rs->rq_size;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = rs->sq_inline;
	if (rdma_create_qp(id, NULL, &qa))
		return -1;
	rs->sq_inline = (uint16_t)qa.cap.max_inline_data;
	if (init_bufs(rs))
		return -1;
	for (unsigned i = 0; i < rs->rq_size; i++)
		if (post_recv(rs))
			return -1;
	return 0;
}

void rs_free_ep(struct rsock *rs)
{
	struct rdma_cm_id *id = rs->cm_id;

	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->target_mr)
		ibv_dereg_mr(rs->target_mr);
	free(rs->sbuf);
	free(rs->rbuf);
	free((void *)rs->target_sgl);
	free(rs->rmsg);
	if (!id)
		return;
	if (id->recv_cq && rs->unack_cqe)
		ibv_ack_cq_events(id->recv_cq, rs->unack_cqe);
	if (id->qp) {
		rdma_destroy_qp(id);     /* and the CQ and its channel, as librdmacm's */
		return;
	}
	if (id->recv_cq)
		ibv_destroy_cq(id->recv_cq);
	if (id->recv_cq_channel)
		ibv_destroy_comp_channel(id->recv_cq_channel);
	id->recv_cq = id->send_cq = NULL;
	id->recv_cq_channel = id->send_cq_channel = NULL;
}

void rs_format_conn_data(struct rsock *rs, struct rs_conn_data *c)
{
	memset(c, 0, sizeof(*c));
	c->version = 1;
	/* no iomap offered (riomap is refused): the flag stays clear */
	c->flags = host_is_net() ? RS_CONN_FLAG_NET : 0;
	c->credits = htobe16(rs->rq_size);
	c->target_sgl.addr = htobe64((uintptr_t)rs->target_sgl);
	c->target_sgl.length = htobe32(RS_SGL_SIZE);
	c->target_sgl.key = htobe32(rs->target_mr->rkey);
	c->data_buf.addr = htobe64((uintptr_t)rs->rbuf);
	c->data_buf.length = htobe32(rs->rbuf_size >> 1);
	c->data_buf.key = htobe32(rs->rmr->rkey);
}

void rs_save_conn_data(struct rsock *rs, const struct rs_conn_data *c)
{
	rs->remote_sgl.addr = be64toh(c->target_sgl.addr);
	rs->remote_sgl.length = be32toh(c->target_sgl.length);
	rs->remote_sgl.key = be32toh(c->target_sgl.key);
	rs->remote_sge = 1;             /* its slot 0 is the first half, below */
	rs->swap_sgl = host_is_net() != !!(c->flags & RS_CONN_FLAG_NET);
	rs->target_sgl[0].addr = be64toh(c->data_buf.addr);
	rs->target_sgl[0].length = be32toh(c->data_buf.length);
	rs->target_sgl[0].key = be32toh(c->data_buf.key);
	rs->sseq_comp = be16toh(c->credits);
}

/* A zero-length write with immediate: control or credits alone */
int rs_post_ctrl(struct rsock *rs, uint32_t msg)
{
	struct ibv_send_wr wr = { 0 }, *bad;

	wr.wr_id = msg;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(msg);
	return ibv_post_send(rs->cm_id->qp, &wr, &bad) ? rs_err(errno ? errno : EIO) : 0;
}

/* ---- credits and grants ----------------------------------------------------- */

bool rs_ctrl_avail(struct rsock *rs)
{
	return rs->ctrl_seqno != rs->ctrl_max_seqno;
}

static void send_credits(struct rsock *rs)
{
	uint32_t msg, half = rs->rbuf_size >> 1;

	rs->ctrl_seqno++;
	rs->rseq_comp = (uint16_t)(rs->rseq_no + (rs->rq_size >> 1));
	msg = RS_MSG(RS_OP_SGL, (uint16_t)(rs->rseq_no + rs->rq_size));
	if (rs->rbuf_bytes_avail >= (int)half) {
		struct rs_sge g = {
			.addr = (uintptr_t)&rs->rbuf[rs->rbuf_free_offset],
			.key = rs->rmr->rkey,
			.length = half,
		};
		struct ibv_sge s = { .length = sizeof(g) };
		struct ibv_send_wr wr = { 0 }, *bad;

		if (rs->swap_sgl) {
			g.addr = __builtin_bswap64(g.addr);
			g.key = __builtin_bswap32(g.key);
			g.length = __builtin_bswap32(g.length);
		}
		if (rs->sq_inline >= sizeof(g)) {
			s.addr = (uintptr_t)&g;
			wr.send_flags = IBV_SEND_INLINE;
		} else {
			uint8_t *slot = rs->sbuf + rs->sbuf_size +
					sizeof(g) * (rs->ctrl_seqno & (RS_CTRL_SLOTS - 1));

			memcpy(slot, &g, sizeof(g));
			s.addr = (uintptr_t)slot;
			s.lkey = rs->smr->lkey;
		}
		wr.wr_id = msg;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htobe32(msg);
		wr.wr.rdma.remote_addr = rs->remote_sgl.addr +
					 (uint64_t)rs->remote_sge * sizeof(struct rs_sge);
		wr.wr.rdma.rkey = rs->remote_sgl.key;
		if (ibv_post_send(rs->cm_id->qp, &wr, &bad)) {
			rs->state = RS_ERROR;
			rs->err = errno ? errno : EIO;
			return;
		}
		rs->rbuf_bytes_avail -= (int)half;
		rs->rbuf_free_offset += (int)half;
		if (rs->rbuf_free_offset >= (int)rs->rbuf_size)
			rs->rbuf_free_offset = 0;
		if (++rs->remote_sge == (int)rs->remote_sgl.length)
			rs->remote_sge = 0;
	} else if (rs_post_ctrl(rs, msg)) {
		rs->state = RS_ERROR;
		rs->err = errno;
	}
}

/* Half the buffer free, or half the credits used: tell the peer */
static void update_credits(struct rsock *rs)
{
	if ((rs->rbuf_bytes_avail >= (int)(rs->rbuf_size >> 1) ||
	     (int16_t)(rs->rseq_no - rs->rseq_comp) >= 0) &&
	    rs_ctrl_avail(rs) && (rs->state & RS_CONNECTED))
		send_credits(rs);
}

/* ---- completions ------------------------------------------------------------ */

static void recv_done(struct rsock *rs, uint32_t msg)
{
	switch (RS_MSG_OP(msg)) {
	case RS_OP_SGL:
		rs->sseq_comp = (uint16_t)RS_MSG_DATA(msg);
		break;
	case RS_OP_CTRL:
		if (RS_MSG_DATA(msg) == RS_CTRL_DISCONNECT)
			rs->state = RS_DISCONNECTED;
		else if (RS_MSG_DATA(msg) == RS_CTRL_SHUTDOWN)
			rs->state = (rs->state & RS_WRITABLE) ? rs->state & ~RS_READABLE
							      : RS_DISCONNECTED;
		break;
	case RS_OP_DATA:
		rs->rmsg[rs->rmsg_tail].op = RS_MSG_OP(msg);
		rs->rmsg[rs->rmsg_tail].data = RS_MSG_DATA(msg);
		if (++rs->rmsg_tail == rs->rq_size + 1)
			rs->rmsg_tail = 0;
		break;
	default:                        /* iomap grants and direct writes: none offered */
		break;
	}
}

static void send_done(struct rsock *rs, const struct ibv_wc *wc)
{
	uint32_t msg = (uint32_t)wc->wr_id;

	switch (RS_MSG_OP(msg)) {
	case RS_OP_SGL:
		rs->ctrl_max_seqno++;
		break;
	case RS_OP_CTRL:
		rs->ctrl_max_seqno++;
		if (RS_MSG_DATA(msg) == RS_CTRL_DISCONNECT)
			rs->state = RS_DISCONNECTED;
		break;
	default:
		rs->sqe_avail++;
		rs->sbuf_bytes_avail += (int)RS_MSG_DATA(msg);
		break;
	}
	if (wc->status != IBV_WC_SUCCESS && (rs->state & RS_CONNECTED)) {
		rs->state = RS_ERROR;
		rs->err = EIO;
	}
}

static int poll_cq(struct rsock *rs)
{
	struct ibv_wc wc;
	int n, ret = 0, received = 0;

	while ((n = ibv_poll_cq(rs->cm_id->recv_cq, 1, &wc)) > 0) {
		if (!(wc.wr_id & RS_WR_RECV)) {
			send_done(rs, &wc);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			continue;
		received++;
		if (wc.wc_flags & IBV_WC_WITH_IMM)
			recv_done(rs, be32toh(wc.imm_data));
		if (rs->state == RS_DISCONNECTED)
			return 0;
	}
	if (n < 0)
		ret = rs_err(EIO);
	if (rs->state & RS_CONNECTED) {
		while (!ret && received--)
			ret = post_recv(rs);
		if (ret) {
			rs->state = RS_ERROR;
			rs->err = errno;
		}
	}
	return ret;
}

int rs_get_cq_event(struct rsock *rs)
{
	struct ibv_cq *cq;
	void *ctx;

	if (!rs->cq_armed)
		return 0;
	if (ibv_get_cq_event(rs->cm_id->recv_cq_channel, &cq, &ctx)) {
		if (errno != EAGAIN && errno != EINTR)
			rs->state = RS_ERROR;
		return -1;
	}
	if (++rs->unack_cqe >= (unsigned)rs->sq_size + rs->rq_size) {
		ibv_ack_cq_events(rs->cm_id->recv_cq, rs->unack_cqe);
		rs->unack_cqe = 0;
	}
	rs->cq_armed = false;
	return 0;
}

/* Poll until test says so; sleep on the channel unless nonblock. Two
 * locks: a sender waiting for credits must not keep a receiver from
 * the CQ that would bring them. */
static int process_cq(struct rsock *rs, bool nonblock, bool (*test)(struct rsock *rs))
{
	int ret;

	pthread_mutex_lock(&rs->cq_lock);
	do {
		update_credits(rs);
		ret = poll_cq(rs);
		if (test(rs)) {
			ret = 0;
			break;
		}
		if (ret)
			break;
		if (nonblock) {
			ret = rs_err(EWOULDBLOCK);
		} else if (!rs->cq_armed) {
			ibv_req_notify_cq(rs->cm_id->recv_cq, 0);
			rs->cq_armed = true;
		} else {
			update_credits(rs);
			pthread_mutex_lock(&rs->cq_wait_lock);
			pthread_mutex_unlock(&rs->cq_lock);
			ret = rs_get_cq_event(rs);
			pthread_mutex_unlock(&rs->cq_wait_lock);
			pthread_mutex_lock(&rs->cq_lock);
		}
	} while (!ret);
	update_credits(rs);
	pthread_mutex_unlock(&rs->cq_lock);
	return ret;
}

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* Spin a few microseconds, as rdma-core's polling_time, then sleep */
int rs_process_cq(struct rsock *rs, bool nonblock, bool (*test)(struct rsock *rs))
{
	uint64_t start = 0;

	for (;;) {
		int ret = process_cq(rs, true, test);

		if (!ret || nonblock || errno != EWOULDBLOCK)
			return ret;
		if (!start)
			start = now_us();
		if (now_us() - start > RS_POLL_US)
			return process_cq(rs, false, test);
	}
}

/* ---- the tests the waits use ---------------------------------------------- */

bool rs_can_send(struct rsock *rs)
{
	return rs->sqe_avail && rs->sbuf_bytes_avail >= RS_SNDLOWAT &&
	       rs->sseq_no != rs->sseq_comp && rs->target_sgl[rs->target_sge].length != 0;
}

bool rs_have_rdata(struct rsock *rs)
{
	return rs->rmsg_head != rs->rmsg_tail;
}

bool rs_conn_have_rdata(struct rsock *rs)
{
	return rs_have_rdata(rs) || !(rs->state & RS_READABLE);
}

bool rs_conn_can_send_ctrl(struct rsock *rs)
{
	return rs_ctrl_avail(rs) || !(rs->state & RS_CONNECTED);
}

bool rs_conn_all_sends_done(struct rsock *rs)
{
	return ((int)rs->ctrl_max_seqno - (int)rs->ctrl_seqno) + rs->sqe_avail == rs->sq_size ||
	       !(rs->state & RS_CONNECTED);
}

bool rs_is_cq_armed(struct rsock *rs)
{
	return rs->cq_armed;
}

bool rs_poll_all(struct rsock *rs)
{
	(void)rs;
	return true;
}
