/* SPDX-License-Identifier: MIT */
/*
 * Encoding of the 12-byte roced socket messages (protocol in roce/bus.h):
 * three little-endian 32-bit words. Byte order is handled here only.
 */
#ifndef ROCE_DRIVER_SOCKMSG_H
#define ROCE_DRIVER_SOCKMSG_H

#include <stdint.h>

#include "roce/bus.h"

struct roce_sock_msg {
	uint32_t w[3];		/* request: op, off, val; response: op, resp, val */
};

static inline void roce_sock_msg_pack(const struct roce_sock_msg *m,
				      uint8_t buf[ROCE_SOCK_MSG_LEN])
{
	for (int i = 0; i < 3; i++) {
		buf[4 * i + 0] = (uint8_t)m->w[i];
		buf[4 * i + 1] = (uint8_t)(m->w[i] >> 8);
		buf[4 * i + 2] = (uint8_t)(m->w[i] >> 16);
		buf[4 * i + 3] = (uint8_t)(m->w[i] >> 24);
	}
}

static inline void roce_sock_msg_unpack(const uint8_t buf[ROCE_SOCK_MSG_LEN],
					struct roce_sock_msg *m)
{
	for (int i = 0; i < 3; i++)
		m->w[i] = (uint32_t)buf[4 * i] |
			  (uint32_t)buf[4 * i + 1] << 8 |
			  (uint32_t)buf[4 * i + 2] << 16 |
			  (uint32_t)buf[4 * i + 3] << 24;
}

/* AXI response <-> enum roce_status */
static inline uint32_t roce_sock_resp_from_status(int st)
{
	switch (st) {
	case ROCE_OK:
		return ROCE_SOCK_OKAY;
	case ROCE_E_DECERR:
		return ROCE_SOCK_DECERR;
	default:
		return ROCE_SOCK_SLVERR;
	}
}

static inline int roce_sock_status_from_resp(uint32_t resp)
{
	switch (resp) {
	case ROCE_SOCK_OKAY:
		return ROCE_OK;
	case ROCE_SOCK_SLVERR:
		return ROCE_E_SLVERR;
	case ROCE_SOCK_DECERR:
		return ROCE_E_DECERR;
	case ROCE_SOCK_BAD_VERSION:
		return ROCE_E_UNSUPPORTED;
	case ROCE_SOCK_NO_HELLO:
		return ROCE_E_STATE;
	default:
		return ROCE_E_IO;
	}
}

#endif
