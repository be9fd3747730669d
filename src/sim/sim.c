/* SPDX-License-Identifier: MIT */
/*
 * roce/sim.h: a NIC for simulators. The device (src/regs) and the engine
 * (src/engine) are wired as roce_open wires them (src/verbs/verbs.c), but
 * without the driver's power-on: the testbench does that through the
 * register file, as its RTL's host would. Both read the caller's clock.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_priv.h"
#include "roce/device.h"
#include "roce/gid.h"
#include "roce/params.h"
#include "roce/regs.h"
#include "roce/status.h"

_Static_assert(ROCE_SIM_FRAME_MAX == ROCE_MAX_FRAME, "sim.h frame size");

/* Polls per run at most: a run ends when the engine is idle, or when the
 * transmit FIFO is full (the next pull_frame runs it again); the bound
 * only keeps a bug from hanging the simulator. */
#define SIM_RUN_POLLS 4096u

static uint64_t sim_clock(void *ctx)
{
	return ((struct roce_sim *)ctx)->now;
}

void sim_boundary(struct roce_sim *s, struct trace_rec *r)
{
	if (s->observer) {
		r->t = s->now;
		r->nic = s->nic;
		s->observer(s->observer_arg, r);
	}
}

bool sim_run(struct roce_sim *s)
{
	uint32_t cqes = atomic_load_explicit(&s->cq.ring.prod, memory_order_relaxed);
	unsigned idle = 0;
	bool moved = false;

	/* two empty polls: one may only have moved a QP into the arbiter */
	for (unsigned i = 0; i < SIM_RUN_POLLS && idle < 2; i++) {
		unsigned n = engine_poll(&s->eng);

		moved |= n != 0;
		idle = n ? 0 : idle + 1;
	}
	return moved || cqes != atomic_load_explicit(&s->cq.ring.prod, memory_order_relaxed);
}

static void mac_from_u64(uint8_t mac[6], unsigned long long v)
{
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(v >> (40 - 8 * i));
}

struct roce_sim *roce_sim_create(unsigned long long mac, unsigned int ip,
				 unsigned int mem_kib, unsigned int qp_count,
				 unsigned int link_delay_us)
{
	struct roce_device_config dc = { 0 };
	struct engine_config ec = { 0 };
	struct roce_sim *s;

	if (mac >> 48 || (qp_count && (qp_count < ROCE_FIRST_QPN + 1 || qp_count > ROCE_MAX_QP)))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	dc.mem_size = (size_t)mem_kib * 1024u;
	dc.link_delay_us = link_delay_us;
	dc.now_ns = sim_clock;
	dc.clock_ctx = s;
	dc.qp_count = qp_count;
	dc.mem_fd = -1;
	s->qp_count = qp_count ? qp_count : ROCE_MAX_QP;
	s->qp = calloc(s->qp_count, sizeof(*s->qp));
	if (!s->qp || sim_port_init(s) != ROCE_OK || sim_cq_init(s) != ROCE_OK ||
	    roce_device_create(&dc, &s->dev) != ROCE_OK)
		goto fail;
	s->created = (struct trace_rec){ .kind = TR_CREATE, .addr = mac, .data = ip,
					 .len = mem_kib, .qpn = qp_count,
					 .op = link_delay_us };
	ec.dev = s->dev;
	ec.port = &s->port;
	mac_from_u64(ec.mac, mac);
	memcpy(s->port.mac, ec.mac, 6);
	ec.ip = ip;
	ec.now_ns = sim_clock;
	ec.clock_ctx = s;
	if (roce_gid_table_build(&ec.gids, ec.mac, ip, NULL, 0) != ROCE_OK ||
	    engine_init(&s->eng, &ec) != ROCE_OK)
		goto fail;
	return s;
fail:
	if (s->dev)
		roce_device_destroy(s->dev);
	sim_wq_fini(s);
	sim_port_fini(s);
	free(s->qp);
	free(s);
	return NULL;
}

void roce_sim_destroy(struct roce_sim *s)
{
	if (!s)
		return;
	sim_trace_fini(s);
	engine_fini(&s->eng);
	sim_wq_fini(s);
	roce_device_destroy(s->dev);
	sim_port_fini(s);
	free(s->qp);
	free(s);
}

static int axi_resp(int st)
{
	return st == ROCE_OK ? ROCE_SIM_OKAY : st == ROCE_E_DECERR ? ROCE_SIM_DECERR
								    : ROCE_SIM_SLVERR;
}

/* What a register write changes beyond the register file: the engine's
 * station address follows MAC_* and IP_ADDR (the RTL's data path is wired
 * to those registers), and a committed QP gets its queues here. */
static void after_write(struct roce_sim *s, uint32_t addr, uint32_t data)
{
	uint32_t lo = 0, hi = 0;

	switch (addr) {
	case ROCE_REG_MAC_LOW:
	case ROCE_REG_MAC_HIGH:
		roce_device_read32(s->dev, ROCE_REG_MAC_LOW, &lo);
		roce_device_read32(s->dev, ROCE_REG_MAC_HIGH, &hi);
		mac_from_u64(s->eng.mac, (unsigned long long)hi << 32 | lo);
		memcpy(s->port.mac, s->eng.mac, 6);
		break;
	case ROCE_REG_IP_ADDR:
		s->eng.ip = data;
		break;
	case ROCE_REG_QP_COMMIT:
		/* a COMMIT (not a LOAD) the table took */
		if (data == 1 &&
		    roce_device_read32(s->dev, ROCE_REG_QP_CMD_STATUS, &hi) == ROCE_OK &&
		    hi == ROCE_OK &&
		    roce_device_read32(s->dev, ROCE_REG_QP_INDEX, &lo) == ROCE_OK)
			sim_qp_attach(s, lo);
		break;
	default:
		break;
	}
}

int roce_sim_axil_write(struct roce_sim *s, unsigned int addr, unsigned int data)
{
	struct trace_rec r;
	int resp;

	/* a key command: its slot first (common/trace.h), never the key */
	if (s->observer && trace_key_cmd(addr, data, &r) &&
	    roce_device_read32(s->dev, ROCE_REG_STAGE_KEY_SLOT, &r.qpn) == ROCE_OK)
		sim_boundary(s, &r);
	resp = axi_resp(roce_device_write32(s->dev, addr, data));
	r = (struct trace_rec){ .kind = TR_REG_WR, .addr = addr,
				.data = trace_reg_wr_data(addr, data), .resp = resp };

	if (resp == ROCE_SIM_OKAY)
		after_write(s, addr, data);
	sim_boundary(s, &r);
	return resp;
}

int roce_sim_axil_read(struct roce_sim *s, unsigned int addr, unsigned int *data)
{
	uint32_t v = 0;
	int resp = axi_resp(roce_device_read32(s->dev, addr, &v));
	struct trace_rec r = { .kind = TR_REG_RD, .addr = addr, .data = v,
			       .resp = resp };

	*data = v;
	sim_boundary(s, &r);
	return resp;
}

unsigned long long roce_sim_now(struct roce_sim *s)
{
	return s->now;
}

void roce_sim_advance(struct roce_sim *s, unsigned long long ns)
{
	struct trace_rec r = { .kind = TR_ADV };

	s->now += ns;
	/* recorded only when the engine acted: a replay then runs it at the
	 * same times, and a testbench that advances every clock edge does not
	 * write a line per edge */
	if (sim_run(s))
		sim_boundary(s, &r);
}

int roce_sim_push_frame(struct roce_sim *s, const unsigned char *frame, int len)
{
	struct trace_rec r = { .kind = TR_FRAME_IN, .bytes = frame,
			       .len = len > 0 ? (uint32_t)len : 0 };

	if (len <= 0 || len > ROCE_SIM_FRAME_MAX)
		return -1;
	sim_boundary(s, &r);
	if (sim_fifo_put(&s->rx, frame, (uint32_t)len) != 0)
		return -1;
	sim_run(s);
	return 0;
}

int roce_sim_pull_frame(struct roce_sim *s, unsigned char *frame)
{
	uint32_t i = s->tx.head % SIM_FIFO_FRAMES;
	struct trace_rec r = { .kind = TR_FRAME_OUT };

	sim_run(s);
	if (s->tx.head == s->tx.tail)
		return 0;
	r.len = s->tx.len[i];
	r.bytes = s->tx.slot[i].data;
	memcpy(frame, r.bytes, r.len);
	s->tx.head++;
	sim_boundary(s, &r);
	/* a full FIFO held the engine back: it may send more now */
	sim_run(s);
	return (int)r.len;
}

/* The DDR bytes [addr, addr + len), or NULL when they leave it. */
static uint8_t *mem_at(struct roce_sim *s, unsigned long long addr, int len)
{
	size_t size;
	uint8_t *mem = roce_device_mem(s->dev, &size);

	if (len <= 0 || len > ROCE_SIM_MEM_CHUNK || addr > size || (size_t)len > size - addr)
		return NULL;
	return mem + addr;
}

int roce_sim_mem_write(struct roce_sim *s, unsigned long long addr,
		       const unsigned char *buf, int len)
{
	uint8_t *p = mem_at(s, addr, len);
	struct trace_rec r = { .kind = TR_MEM_WR, .addr = addr, .bytes = buf };

	if (!p)
		return -1;
	memcpy(p, buf, (size_t)len);
	r.len = (uint32_t)len;
	sim_boundary(s, &r);
	return 0;
}

int roce_sim_mem_read(struct roce_sim *s, unsigned long long addr,
		      unsigned char *buf, int len)
{
	uint8_t *p = mem_at(s, addr, len);
	struct trace_rec r = { .kind = TR_MEM_RD, .addr = addr, .bytes = buf };

	if (!p)
		return -1;
	memcpy(buf, p, (size_t)len);
	r.len = (uint32_t)len;
	sim_boundary(s, &r);
	return 0;
}
