/* SPDX-License-Identifier: MIT */
/*
 * Parser fuzz target. Any input must parse without reading out of bounds;
 * an accepted frame must decode and rebuild into the same bytes (except the
 * pad bytes, which the builder zeroes, and the ICRC when it was not checked).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/status.h"

/* A failed property is a finding: libFuzzer reports the abort and the input. */
#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

static void check_rebuild(const uint8_t *data, const struct roce_pkt *p)
{
	static uint8_t out[70000];
	struct roce_hdrs h;
	size_t len, pad_off = p->payload_off + p->payload_len;

	roce_decode(p, &h);
	CHECK(roce_build(&h, roce_pkt_payload(p), p->payload_len,
			 h.udp.check ? ROCE_BUILD_UDP_CSUM : 0, out, sizeof(out),
			 &len) == ROCE_OK);
	CHECK(len == p->icrc_off + 4u);
	/* everything up to the pad is identical */
	CHECK(memcmp(out, data, pad_off) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_pkt p;
	uint8_t *copy;

	/* exact-size heap copy so ASan sees any overread */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (roce_parse(copy, size, ROCE_PARSE_NO_ICRC, &p) == ROCE_OK) {
		/* A non-zero UDP checksum covers the pad and the ICRC, which
		 * the builder writes afresh: compare those frames only when
		 * the originals were already what the builder writes. */
		int same_tail = roce_icrc(copy + p.l3_off, p.icrc_off - p.l3_off) ==
				p.icrc_wire;

		for (unsigned i = 0; i < p.pad; i++)
			same_tail &= copy[p.payload_off + p.payload_len + i] == 0;
		if (same_tail || !roce_get_be16(copy + p.l4_off + 6))
			check_rebuild(copy, &p);
	}
	roce_parse(copy, size, ROCE_PARSE_ANY_PORT, &p);
	free(copy);
	return 0;
}
