/* SPDX-License-Identifier: MIT */
/*
 * rping's exchange (rdma-core v44 librdmacm/examples/rping.c), per ping:
 *   client: SEND its source buffer's addr/rkey/len
 *   server: RDMA READ the ping data, SEND "go ahead"
 *   client: SEND its sink buffer's addr/rkey/len
 *   server: RDMA WRITE the data back, SEND "go ahead"
 *   client: -V compares sink and source, -v prints the data.
 * rping runs it on a CQ thread with a semaphore; here one thread polls
 * the CQ and the CM's channel, with the same states in the same order.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "roce-rping/rping.h"
#include "roce/status.h"

int rping_cm_event(struct rping *r, unsigned ms, struct roce_cm_id **child)
{
	struct pollfd pf = { .fd = roce_cm_channel_fd(r->ch), .events = POLLIN };
	struct roce_cm_event *ev;
	int type;

	if (poll(&pf, 1, (int)ms) != 1 || roce_cm_get_cm_event(r->ch, &ev) != ROCE_OK)
		return RPING_EV_NONE;
	type = (int)ev->event;
	DEBUG_LOG(r, "cma_event type %s cma_id %p (%s)\n", roce_cm_event_str(ev->event),
		  (void *)ev->id, ev->id == r->id ? "parent" : "child");
	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_REQUEST:
		if (child)
			*child = ev->id;
		DEBUG_LOG(r, "child cma %p\n", (void *)ev->id);
		break;
	case ROCE_CM_EVENT_ADDR_RESOLVED:
	case ROCE_CM_EVENT_ROUTE_RESOLVED:
	case ROCE_CM_EVENT_TIMEWAIT_EXIT:
		break;
	case ROCE_CM_EVENT_ESTABLISHED:
		DEBUG_LOG(r, "ESTABLISHED\n");
		break;
	case ROCE_CM_EVENT_CONNECT_RESPONSE:
		DEBUG_LOG(r, "CONNECT_RESPONSE\n");
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
		fprintf(stderr, "%s DISCONNECT EVENT...\n", r->server ? "server" : "client");
		r->disconnected = true;
		break;
	default:
		fprintf(stderr, "cma event %s, error %d\n", roce_cm_event_str(ev->event),
			ev->status);
		type = RPING_EV_ERROR;
		break;
	}
	roce_cm_ack_cm_event(ev);
	return type;
}

int rping_post_recv(struct rping *r)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)r->recv_buf, RPING_INFO_LEN,
				r->ep.mr->lkey };
	struct roce_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

	return roce_post_recv(r->qp, &wr, NULL);
}

/* Waits for a completion of opcode want (a receive is posted again);
   0, 1 once disconnected, -1 on an error completion. */
static int wait_wc(struct rping *r, enum roce_wc_opcode want)
{
	const struct timespec nap = { 0, 20000 };
	struct roce_wc wc;
	int n;

	for (;;) {
		while ((n = roce_poll_cq(r->ep.rcq, 1, &wc)) == 1) {
			if (wc.status == ROCE_WC_WR_FLUSH_ERR)
				continue; /* the QP went to ERR: disconnecting */
			if (wc.status != ROCE_WC_SUCCESS) {
				fprintf(stderr, "cq completion failed status %d\n", wc.status);
				return -1;
			}
			switch (wc.opcode) {
			case ROCE_WC_SEND:
				DEBUG_LOG(r, "send completion\n");
				break;
			case ROCE_WC_RDMA_WRITE:
				DEBUG_LOG(r, "rdma write completion\n");
				break;
			case ROCE_WC_RDMA_READ:
				DEBUG_LOG(r, "rdma read completion\n");
				break;
			case ROCE_WC_RECV:
				DEBUG_LOG(r, "recv completion\n");
				if (wc.byte_len != RPING_INFO_LEN) {
					fprintf(stderr, "Received bogus data, size %u\n",
						wc.byte_len);
					return -1;
				}
				break;
			default:
				DEBUG_LOG(r, "unknown!!!!! completion\n");
				return -1;
			}
			if (wc.opcode == want)
				return 0;
		}
		if (n < 0) {
			fprintf(stderr, "poll error %d\n", n);
			return -1;
		}
		if (r->disconnected)
			return 1;
		/* the CM's events meanwhile (the peer's DREQ) */
		if (rping_cm_event(r, 0, NULL) == RPING_EV_ERROR)
			return -1;
		nanosleep(&nap, NULL);
	}
}

static int post(struct rping *r, enum roce_wr_opcode op, void *buf, uint32_t len,
		uint64_t raddr, uint32_t rkey)
{
	struct roce_sge sge = { (uint64_t)(uintptr_t)buf, len, r->ep.mr->lkey };
	struct roce_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op,
				   .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *bad;
	int rc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	rc = roce_post_send(r->qp, &wr, &bad);
	if (rc)
		fprintf(stderr, "post send error %d\n", rc);
	return rc ? -1 : 0;
}

/* rping_format_send: our buffer's address, rkey and the ping size */
static void format_send(struct rping *r, const uint8_t *buf)
{
	uint64_t a = htobe64((uint64_t)(uintptr_t)buf);
	uint32_t k = htobe32(r->ep.mr->rkey), s = htobe32((uint32_t)r->size);

	memcpy(r->send_buf, &a, 8);
	memcpy(r->send_buf + 8, &k, 4);
	memcpy(r->send_buf + 12, &s, 4);
	DEBUG_LOG(r, "RDMA addr %llx rkey %x len %d\n",
		  (unsigned long long)(uintptr_t)buf, r->ep.mr->rkey, r->size);
}

int rping_test_server(struct rping *r)
{
	uint64_t raddr;
	uint32_t rkey, rlen;
	int rc;

	for (;;) {
		/* the client's source addr/rkey/len */
		if ((rc = wait_wc(r, ROCE_WC_RECV)) != 0)
			return rc > 0 ? 0 : -1;
		memcpy(&raddr, r->recv_buf, 8);
		memcpy(&rkey, r->recv_buf + 8, 4);
		memcpy(&rlen, r->recv_buf + 12, 4);
		raddr = be64toh(raddr);
		rkey = be32toh(rkey);
		rlen = be32toh(rlen);
		DEBUG_LOG(r, "Received rkey %x addr %llx len %u from peer\n", rkey,
			  (unsigned long long)raddr, rlen);
		if (rlen > (uint32_t)RPING_BUFSIZE) {
			fprintf(stderr, "Received bogus data, size %u\n", rlen);
			return -1;
		}
		if (rping_post_recv(r))
			return -1;
		if (post(r, ROCE_WR_RDMA_READ, r->rdma_buf, rlen, raddr, rkey))
			return -1;
		DEBUG_LOG(r, "server posted rdma read req \n");
		if ((rc = wait_wc(r, ROCE_WC_RDMA_READ)) != 0)
			return rc > 0 ? 0 : -1;
		DEBUG_LOG(r, "server received read complete\n");
		r->rdma_buf[RPING_BUFSIZE - 1] = 0;
		if (r->verbose)
			printf("server ping data: %s\n", r->rdma_buf);
		if (post(r, ROCE_WR_SEND, r->send_buf, RPING_INFO_LEN, 0, 0))
			return -1;
		DEBUG_LOG(r, "server posted go ahead\n");
		/* the client's sink addr/rkey/len */
		if ((rc = wait_wc(r, ROCE_WC_RECV)) != 0)
			return rc > 0 ? 0 : -1;
		memcpy(&raddr, r->recv_buf, 8);
		memcpy(&rkey, r->recv_buf + 8, 4);
		raddr = be64toh(raddr);
		rkey = be32toh(rkey);
		if (rping_post_recv(r))
			return -1;
		DEBUG_LOG(r, "server received sink adv\n");
		/* the data back: the string and its NUL, as rping writes it */
		if (post(r, ROCE_WR_RDMA_WRITE, r->rdma_buf,
			 (uint32_t)strlen((char *)r->rdma_buf) + 1, raddr, rkey))
			return -1;
		if ((rc = wait_wc(r, ROCE_WC_RDMA_WRITE)) != 0)
			return rc > 0 ? 0 : -1;
		DEBUG_LOG(r, "server rdma write complete \n");
		if (post(r, ROCE_WR_SEND, r->send_buf, RPING_INFO_LEN, 0, 0))
			return -1;
		DEBUG_LOG(r, "server posted go ahead\n");
	}
}

int rping_test_client(struct rping *r)
{
	int start = 65, rc;

	for (int ping = 0; !r->count || ping < r->count; ping++) {
		int cc = snprintf((char *)r->start_buf, (size_t)r->size, RPING_MSG_FMT, ping);
		unsigned char c = (unsigned char)start;

		/* rping's text: the header, then letters A..z from `start` */
		for (int i = cc; i < r->size; i++) {
			r->start_buf[i] = c;
			if (++c > 122)
				c = 65;
		}
		if (++start > 122)
			start = 65;
		r->start_buf[r->size - 1] = 0;

		format_send(r, r->start_buf);
		if (post(r, ROCE_WR_SEND, r->send_buf, RPING_INFO_LEN, 0, 0))
			return -1;
		if ((rc = wait_wc(r, ROCE_WC_RECV)) != 0 || rping_post_recv(r)) {
			fprintf(stderr, "wait for RDMA_WRITE_ADV state %d\n", rc);
			return -1;
		}
		format_send(r, r->rdma_buf);
		if (post(r, ROCE_WR_SEND, r->send_buf, RPING_INFO_LEN, 0, 0))
			return -1;
		if ((rc = wait_wc(r, ROCE_WC_RECV)) != 0 || rping_post_recv(r)) {
			fprintf(stderr, "wait for RDMA_WRITE_COMPLETE state %d\n", rc);
			return -1;
		}
		if (r->validate && memcmp(r->start_buf, r->rdma_buf, (size_t)r->size)) {
			fprintf(stderr, "data mismatch!\n");
			return -1;
		}
		if (r->verbose)
			printf("ping data: %s\n", r->rdma_buf);
	}
	return 0;
}
