/* SPDX-License-Identifier: MIT */
/*
 * roced's protocol (roce/bus.h) apart from any socket: the bytes one client
 * sent go in, the response to send comes out. regsrv.c feeds it what each
 * recv() returns; tests/fuzz/fuzz_regsrv.c feeds it arbitrary bytes. A
 * request is acted on only once all of its 12 bytes are in, and a request
 * the protocol does not allow (anything before a good HELLO, an unknown
 * op) never reaches the device. MEM_READ and MEM_WRITE reach its DDR, a
 * word each, bounds-checked by the device.
 */
#include <string.h>

#include "common/trace.h"
#include "roce/bus.h"
#include "roce/device.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "server/regsrv.h"
#include "server/sockmsg.h"

/* A register access into the connection's trace (AXI responses: 0 OKAY,
   2 SLVERR, 3 DECERR, as the sim ABI and the verbs context record them). */
static void trace_access(const struct roce_regsrv_conn *c, enum trace_kind kind,
			 uint32_t addr, uint32_t data, int st)
{
	struct trace_rec r = { .kind = kind, .addr = addr, .nic = c->trace_nic,
			       .data = st == ROCE_OK ? data : 0,
			       .resp = st == ROCE_OK ? 0 : st == ROCE_E_DECERR ? 3 : 2 };

	if (!c->trace)
		return;
	r.t = trace_writer_real_ns(c->trace);
	trace_write(c->trace, &r);
}

/* A DDR debug-port access that reached the DDR, as a memwr or memrd
   record of its word (the bytes as written or read, little-endian as
   the DDR holds them); one past the DDR is refused and not recorded. */
static void trace_mem(const struct roce_regsrv_conn *c, enum trace_kind kind,
		      uint64_t addr, uint32_t word, int st)
{
	uint8_t b[4] = { (uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16),
			 (uint8_t)(word >> 24) };
	struct trace_rec r = { .kind = kind, .addr = addr, .nic = c->trace_nic,
			       .len = 4, .bytes = b };

	if (!c->trace || st != ROCE_OK)
		return;
	r.t = trace_writer_real_ns(c->trace);
	trace_write(c->trace, &r);
}

/* Before a key command, its key record: the slot, never the key
 * (common/trace.h; the key words themselves are traced as 0). */
static void trace_key(struct roce_device *dev, const struct roce_regsrv_conn *c,
		      uint32_t addr, uint32_t data)
{
	struct trace_rec r;

	if (!c->trace || !trace_key_cmd(addr, data, &r) ||
	    roce_device_read32(dev, ROCE_REG_STAGE_KEY_SLOT, &r.qpn) != ROCE_OK)
		return;
	r.nic = c->trace_nic;
	r.t = trace_writer_real_ns(c->trace);
	trace_write(c->trace, &r);
}

/* Answers one whole request; false when the connection must close. */
static bool regsrv_answer(struct roce_device *dev, struct roce_regsrv_conn *c,
			  const struct roce_sock_msg *req, struct roce_sock_msg *rsp)
{
	bool keep = true;

	*rsp = (struct roce_sock_msg){ .w = { req->w[0], ROCE_SOCK_OKAY, 0 } };
	if (req->w[0] == ROCE_SOCK_HELLO) {
		keep = req->w[1] == ROCE_SOCK_MAGIC &&
		       req->w[2] == ROCE_SOCK_PROTO_VERSION;
		rsp->w[1] = keep ? ROCE_SOCK_OKAY : ROCE_SOCK_BAD_VERSION;
		rsp->w[2] = ROCE_SOCK_PROTO_VERSION;
		c->hello = keep;
	} else if (!c->hello) {
		rsp->w[1] = ROCE_SOCK_NO_HELLO;
		keep = false;
	} else if (req->w[0] == ROCE_SOCK_READ) {
		int st = roce_device_read32(dev, req->w[1], &rsp->w[2]);

		rsp->w[1] = roce_sock_resp_from_status(st);
		trace_access(c, TR_REG_RD, req->w[1], rsp->w[2], st);
	} else if (req->w[0] == ROCE_SOCK_WRITE) {
		int st;

		trace_key(dev, c, req->w[1], req->w[2]);
		st = roce_device_write32(dev, req->w[1], req->w[2]);
		rsp->w[1] = roce_sock_resp_from_status(st);
		trace_access(c, TR_REG_WR, req->w[1], trace_reg_wr_data(req->w[1], req->w[2]), st);
	} else if (req->w[0] == ROCE_SOCK_MEM_READ) {
		/* the DDR debug port: one word, DECERR past the DDR */
		int st = roce_device_mem_read32(dev, (uint64_t)req->w[1] * 4, &rsp->w[2]);

		rsp->w[1] = roce_sock_resp_from_status(st);
		trace_mem(c, TR_MEM_RD, (uint64_t)req->w[1] * 4, rsp->w[2], st);
	} else if (req->w[0] == ROCE_SOCK_MEM_WRITE) {
		int st = roce_device_mem_write32(dev, (uint64_t)req->w[1] * 4, req->w[2]);

		rsp->w[1] = roce_sock_resp_from_status(st);
		trace_mem(c, TR_MEM_WR, (uint64_t)req->w[1] * 4, req->w[2], st);
	} else {
		rsp->w[1] = ROCE_SOCK_BAD_OP;
	}
	return keep;
}

enum roce_regsrv_verdict roce_regsrv_input(struct roce_device *dev,
					   struct roce_regsrv_conn *c,
					   const uint8_t *in, size_t len,
					   size_t *used,
					   uint8_t rsp[ROCE_SOCK_MSG_LEN])
{
	struct roce_sock_msg req, out;
	size_t n = sizeof(c->buf) - c->have;
	bool keep;

	if (n > len)
		n = len;
	memcpy(c->buf + c->have, in, n);
	c->have += n;
	*used = n;
	if (c->have < sizeof(c->buf))
		return ROCE_REGSRV_MORE;
	c->have = 0;
	roce_sock_msg_unpack(c->buf, &req);
	keep = regsrv_answer(dev, c, &req, &out);
	roce_sock_msg_pack(&out, rsp);
	return keep ? ROCE_REGSRV_REPLY : ROCE_REGSRV_CLOSE;
}
