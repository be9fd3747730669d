/* SPDX-License-Identifier: MIT */
/*
 * roce-perf -R: the exchange's QP. perftest's messages (versions, sys
 * data, MTU, keys, reports) travel as SENDs on one RC QP in place of the
 * TCP socket (rdma_write_data / rdma_read_data): a roce_oob_msg whose send
 * waits for its completion and whose receive takes the next of
 * PCM_RX_SLOTS receives, posted again at once.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "perf/perf_cm_priv.h"
#include "roce/status.h"

void pcm_nap_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

static uint8_t *rx_slot(struct perf_cm *p, unsigned k)
{
	return p->buf + (size_t)k * PCM_SLOT;
}

static int post_rx(struct perf_cm *p, struct roce_qp *qp, unsigned k)
{
	struct roce_sge sge = { (uintptr_t)rx_slot(p, k), PCM_SLOT, p->mr->lkey };
	struct roce_recv_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1 };
	struct roce_recv_wr *bad;

	return roce_post_recv(qp, &wr, &bad);
}

static struct roce_qp *comm_qp(struct perf_cm *p)
{
	return roce_cm_id_qp(p->slot[p->comm].id);
}

/* One completion of cq within ms, sleeping briefly between empty polls */
int pcm_poll_one(struct roce_cq *cq, struct roce_wc *wc, unsigned ms)
{
	uint64_t end = roce_now_ms() + ms;
	unsigned spins = 0;

	for (;;) {
		int n = roce_poll_cq(cq, 1, wc);

		if (n > 0)
			return ROCE_OK;
		if (n < 0)
			return ROCE_E_IO;
		if (roce_now_ms() >= end)
			return ROCE_E_TIMEOUT;
		if (++spins > 64)
			pcm_nap_us(50);
	}
}

/* rdma_write_data: one signaled SEND, waited for */
static int msg_send(void *arg, const void *buf, size_t len, char *err, size_t errlen)
{
	struct perf_cm *p = arg;
	uint8_t *out = rx_slot(p, PCM_RX_SLOTS);
	struct roce_sge sge = { (uintptr_t)out, (uint32_t)len, p->mr->lkey };
	struct roce_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *bad;
	struct roce_wc wc;
	int st;

	if (len > PCM_SLOT) {
		snprintf(err, errlen, "a %zu-byte message (at most %u)", len, PCM_SLOT);
		return ROCE_E_RANGE;
	}
	memcpy(out, buf, len);
	if ((st = roce_post_send(comm_qp(p), &wr, &bad)) != ROCE_OK) {
		snprintf(err, errlen, "SEND on the rdma_cm QP: %s", roce_status_str(st));
		return st;
	}
	if ((st = pcm_poll_one(p->scq, &wc, p->timeout_ms)) != ROCE_OK) {
		snprintf(err, errlen, "the peer did not take our message within %u ms",
			 p->timeout_ms);
		return st;
	}
	if (wc.status != ROCE_WC_SUCCESS) {
		snprintf(err, errlen, "SEND on the rdma_cm QP: %s", roce_wc_status_str(wc.status));
		return ROCE_E_IO;
	}
	return ROCE_OK;
}

/* rdma_read_data: the next message, which must be len bytes; its slot
 * takes a receive again at once */
static int msg_recv(void *arg, void *buf, size_t len, char *err, size_t errlen)
{
	struct perf_cm *p = arg;
	struct roce_wc wc;
	int st = pcm_poll_one(p->rcq, &wc, p->timeout_ms);
	unsigned k = p->rx_next;

	if (st != ROCE_OK) {
		snprintf(err, errlen, "no message from the peer within %u ms", p->timeout_ms);
		return st;
	}
	if (wc.status != ROCE_WC_SUCCESS || wc.wr_id != k) {
		snprintf(err, errlen, "receive on the rdma_cm QP: %s",
			 roce_wc_status_str(wc.status));
		return ROCE_E_IO;
	}
	if (wc.byte_len != len) {
		snprintf(err, errlen, "the peer sent %u bytes where perftest's exchange "
			 "has %zu here (protocol mismatch)", wc.byte_len, len);
		return ROCE_E_FORMAT;
	}
	memcpy(buf, rx_slot(p, k), len);
	p->rx_next = (k + 1) % PCM_RX_SLOTS;
	if ((st = post_rx(p, comm_qp(p), k)) != ROCE_OK) {
		snprintf(err, errlen, "receive on the rdma_cm QP: %s", roce_status_str(st));
		return st;
	}
	return ROCE_OK;
}

/* The comm QP on slot i's ID */
int pcm_make_comm_qp(struct perf_run *r, struct perf_cm *p, int i)
{
	struct roce_qp_init_attr qa = {
		.send_cq = p->scq, .recv_cq = p->rcq, .qp_type = ROCE_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = PCM_RX_SLOTS, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int st = roce_cm_create_qp(p->slot[i].id, r->ep.pd, &qa);

	if (st)
		return perf_fail(r, st, "rdma_cm: the exchange's QP: %s", roce_status_str(st));
	p->comm = i;
	return ROCE_OK;
}

/* The comm QP's receives: the server's before it accepts, as
 * post_one_recv_wqe before rdma_accept, so the client's first message
 * finds one; the client's once connected, before its first message (the
 * server writes only after reading it). A client's attempt that meets
 * REJ 8 so leaves no flushed receive in the CQ the next attempt uses. */
int pcm_post_comm_rx(struct perf_run *r, struct perf_cm *p)
{
	int st = ROCE_OK;

	p->rx_next = 0;
	for (unsigned k = 0; k < PCM_RX_SLOTS && !st; k++)
		st = post_rx(p, comm_qp(p), k);
	return st ? perf_fail(r, st, "rdma_cm: receives: %s", roce_status_str(st)) : ROCE_OK;
}

/* p->msg: perftest's messages over the comm QP */
void pcm_msg_init(struct perf_cm *p)
{
	p->msg = (struct roce_oob_msg){ msg_send, msg_recv, p };
}
