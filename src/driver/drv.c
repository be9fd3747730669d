/* SPDX-License-Identifier: MIT */
/*
 * Host driver, device-level calls: checked register access, probe, soft
 * reset and enable, addresses, wait for link. Every failure leaves a message
 * naming the register (from the register map) and the AXI response.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "roce/driver.h"
#include "roce/regmap.h"
#include "driver/drv_priv.h"

void roce_drv_init(struct roce_drv *drv, struct roce_bus *bus)
{
	memset(drv, 0, sizeof(*drv));
	drv->bus = bus;
	drv->cmd_timeout_ms = ROCE_DRV_CMD_TIMEOUT_MS;
}

const char *roce_drv_reg_name(uint32_t off)
{
	const struct roce_reg *r = roce_regmap_find_offset(off);

	return r ? r->name : "unmapped";
}

int roce_drv_fail(struct roce_drv *drv, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(drv->err, sizeof(drv->err), fmt, ap);
	va_end(ap);
	return st;
}

/* Prefixes the current message: "step: <message>". */
int roce_drv_context(struct roce_drv *drv, int st, const char *fmt, ...)
{
	char prefix[128];
	char old[ROCE_DRV_ERR_LEN];
	va_list ap;
	size_t n;

	if (st == ROCE_OK)
		return st;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, drv->err, sizeof(old));
	n = strlen(prefix);
	if (n + 2 < sizeof(drv->err)) {
		memcpy(drv->err, prefix, n);
		memcpy(drv->err + n, ": ", 2);
		n += 2;
		snprintf(drv->err + n, sizeof(drv->err) - n, "%.*s",
			 (int)(sizeof(drv->err) - n - 1), old);
	}
	return st;
}

int roce_drv_read(struct roce_drv *drv, uint32_t off, uint32_t *val)
{
	int st = roce_bus_read32(drv->bus, off, val);

	if (st != ROCE_OK)
		return roce_drv_fail(drv, st, "read %s (0x%03x): %s (%s)",
				     roce_drv_reg_name(off), off,
				     roce_status_name(st), roce_status_str(st));
	return ROCE_OK;
}

int roce_drv_write(struct roce_drv *drv, uint32_t off, uint32_t val)
{
	int st = roce_bus_write32(drv->bus, off, val);

	if (st != ROCE_OK)
		return roce_drv_fail(drv, st,
				     "write %s (0x%03x) = 0x%08x: %s (%s)",
				     roce_drv_reg_name(off), off, val,
				     roce_status_name(st), roce_status_str(st));
	return ROCE_OK;
}

int roce_drv_probe(struct roce_drv *drv, struct roce_dev_info *info)
{
	static const uint32_t offs[] = {
		ROCE_REG_DEV_ID, ROCE_REG_VERSION, ROCE_REG_QP_COUNT,
		ROCE_REG_MR_COUNT, ROCE_REG_MEM_SIZE_KB, ROCE_REG_STATUS,
	};
	uint32_t v[6];
	int st;

	for (size_t i = 0; i < 6; i++)
		if ((st = roce_drv_read(drv, offs[i], &v[i])) != ROCE_OK)
			return st;
	*info = (struct roce_dev_info){ v[0], v[1], v[2], v[3], v[4], v[5] };
	/* A raw PCIe window reads all-ones when nothing answers. */
	if (info->dev_id == 0xFFFFFFFFu)
		return roce_drv_fail(drv, ROCE_E_NODEV,
				     "DEV_ID reads 0xffffffff: no device "
				     "behind the window");
	if (info->dev_id != ROCE_DEV_ID_VALUE)
		return roce_drv_fail(drv, ROCE_E_UNSUPPORTED,
				     "DEV_ID 0x%08x is not a RoCE engine "
				     "(expected 0x%08x)", info->dev_id,
				     ROCE_DEV_ID_VALUE);
	if (info->version >> 16 != ROCE_VERSION_MAJOR)
		return roce_drv_fail(drv, ROCE_E_UNSUPPORTED,
				     "VERSION 0x%08x: register map major %u, "
				     "this driver knows %u", info->version,
				     info->version >> 16, ROCE_VERSION_MAJOR);
	return ROCE_OK;
}

int roce_drv_soft_reset(struct roce_drv *drv)
{
	return roce_drv_write(drv, ROCE_REG_CTRL, ROCE_CTRL_SOFT_RESET);
}

int roce_drv_enable(struct roce_drv *drv, bool loopback)
{
	uint32_t ctrl = ROCE_CTRL_ENGINE_EN | (loopback ? ROCE_CTRL_LOOPBACK : 0);

	return roce_drv_write(drv, ROCE_REG_CTRL, ctrl);
}

/* Register sets of the local and the peer endpoint. */
static const uint32_t ep_regs[2][4] = {
	{ ROCE_REG_MAC_LOW, ROCE_REG_MAC_HIGH, ROCE_REG_IP_ADDR,
	  ROCE_REG_UDP_PORT },
	{ ROCE_REG_PEER_MAC_LOW, ROCE_REG_PEER_MAC_HIGH, ROCE_REG_PEER_IP,
	  ROCE_REG_PEER_UDP_PORT },
};

static int drv_set_ep(struct roce_drv *drv, const uint32_t regs[4],
		      const struct roce_endpoint *ep)
{
	const uint32_t v[4] = { roce_mac_low(ep->mac), roce_mac_high(ep->mac),
				ep->ip, ep->udp_port };
	int st = ROCE_OK;

	for (size_t i = 0; i < 4 && st == ROCE_OK; i++)
		st = roce_drv_write(drv, regs[i], v[i]);
	return st;
}

static int drv_get_ep(struct roce_drv *drv, const uint32_t regs[4],
		      struct roce_endpoint *ep)
{
	uint32_t v[4];
	int st = ROCE_OK;

	for (size_t i = 0; i < 4 && st == ROCE_OK; i++)
		st = roce_drv_read(drv, regs[i], &v[i]);
	if (st != ROCE_OK)
		return st;
	roce_mac_from_regs(v[0], v[1], ep->mac);
	ep->ip = v[2];
	ep->udp_port = (uint16_t)v[3];
	return ROCE_OK;
}

int roce_drv_set_local(struct roce_drv *drv, const struct roce_endpoint *ep)
{
	return drv_set_ep(drv, ep_regs[0], ep);
}

int roce_drv_set_peer(struct roce_drv *drv, const struct roce_endpoint *ep)
{
	return drv_set_ep(drv, ep_regs[1], ep);
}

int roce_drv_get_local(struct roce_drv *drv, struct roce_endpoint *ep)
{
	return drv_get_ep(drv, ep_regs[0], ep);
}

int roce_drv_get_peer(struct roce_drv *drv, struct roce_endpoint *ep)
{
	return drv_get_ep(drv, ep_regs[1], ep);
}

void roce_drv_sleep_us(uint32_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000u,
			       .tv_nsec = (long)(us % 1000000u) * 1000 };

	nanosleep(&ts, NULL);
}

/* Seed 000 section 2.2: wait for gtpowergood and both reset-done signals.
 * The clock is read only once the link is found down (a link already up,
 * as under roce-demo --virtual-time, needs no wall clock). */
int roce_drv_wait_link(struct roce_drv *drv, uint32_t timeout_ms)
{
	uint64_t deadline = 0;
	uint32_t s;
	int st;

	for (;;) {
		if ((st = roce_drv_read(drv, ROCE_REG_STATUS, &s)) != ROCE_OK)
			return st;
		if (s & ROCE_STATUS_LINK_READY)
			return ROCE_OK;
		if (!deadline)
			deadline = roce_now_ms() + timeout_ms;
		else if (roce_now_ms() >= deadline)
			break;
		roce_drv_sleep_us(1000);
	}
	return roce_drv_fail(drv, ROCE_E_TIMEOUT,
			     "link not ready after %u ms (STATUS 0x%08x:%s%s%s)",
			     timeout_ms, s,
			     s & ROCE_STATUS_GT_POWERGOOD ? "" : " no GT_POWERGOOD",
			     s & ROCE_STATUS_TX_RESET_DONE ? "" : " no TX_RESET_DONE",
			     s & ROCE_STATUS_RX_RESET_DONE ? "" : " no RX_RESET_DONE");
}
