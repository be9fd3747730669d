/* SPDX-License-Identifier: MIT */
/*
 * T10-DIF-style protection information: the PI stage's 8-byte tuple per
 * data unit, big-endian as T10 stores it (SBC-4, the protection
 * information model): bytes 0-1 the guard, the CRC16 of the unit
 * (polynomial 0x8BB7, ISA-L's crc16_t10dif), bytes 2-3 the application
 * tag, bytes 4-7 the reference tag.
 */
#include <isa-l/crc.h>
#include <string.h>

#include "roce/status.h"
#include "roce/wire/byteorder.h"
#include "stage/stage.h"

void pi_tuple(const uint8_t *data, uint32_t unit, uint16_t app, uint32_t ref,
	      uint8_t pi[ROCE_STAGE_PI_LEN])
{
	roce_put_be16(pi, crc16_t10dif(0, data, unit));
	roce_put_be16(pi + 2, app);
	roce_put_be32(pi + 4, ref);
}

void pi_generate(const uint8_t *data, uint32_t unit, uint32_t n, uint16_t app,
		 uint32_t ref0, uint8_t *pi)
{
	for (uint32_t i = 0; i < n; i++)
		pi_tuple(data + (size_t)i * unit, unit, app, ref0 + i,
			 pi + (size_t)i * ROCE_STAGE_PI_LEN);
}

int pi_verify(const uint8_t *data, uint32_t unit, uint32_t n, uint16_t app,
	      uint32_t ref0, const uint8_t *pi, uint32_t *bad)
{
	uint8_t want[ROCE_STAGE_PI_LEN];

	for (uint32_t i = 0; i < n; i++) {
		pi_tuple(data + (size_t)i * unit, unit, app, ref0 + i, want);
		if (memcmp(want, pi + (size_t)i * ROCE_STAGE_PI_LEN, sizeof(want))) {
			*bad = i;
			return ROCE_E_PI;
		}
	}
	return ROCE_OK;
}
