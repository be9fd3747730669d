/* SPDX-License-Identifier: MIT */
/*
 * The advertisement (seed 001: a SEND carries the local IP, MAC, memory
 * base, memory size and R_Key). 36 bytes, big-endian like every field on
 * the wire, written and read byte by byte by demo_ad_pack()/demo_ad_parse(),
 * so neither padding nor host byte order reaches the wire:
 *
 *   offset size field
 *        0    4 magic "RADV"
 *        4    1 version (1)
 *        5    1 reserved (0)
 *        6    6 MAC, first byte on the wire first
 *       12    4 IPv4 address
 *       16    8 memory base: the VA a peer puts in RETH / AtomicETH
 *       24    8 memory size in bytes
 *       32    4 R_Key
 *
 * The last 8 bytes of the advertised memory are a counter for atomics,
 * set to AD_COUNTER_INIT before the advertisement goes out.
 */
#include <string.h>

#include "roce-demo/demo.h"
#include "roce/wire/byteorder.h"

#define AD_MAGIC        0x52414456u
#define AD_VERSION      1u

void demo_ad_pack(const struct demo_ad *ad, uint8_t b[AD_LEN])
{
	roce_put_be32(b, AD_MAGIC);
	b[4] = AD_VERSION;
	b[5] = 0;
	memcpy(b + 6, ad->mac, 6);
	roce_put_be32(b + 12, ad->ip);
	roce_put_be64(b + 16, ad->base);
	roce_put_be64(b + 24, ad->size);
	roce_put_be32(b + 32, ad->rkey);
}

const char *demo_ad_parse(const uint8_t *b, uint32_t len, struct demo_ad *ad)
{
	if (len != AD_LEN)
		return "wrong length";
	if (roce_get_be32(b) != AD_MAGIC || b[4] != AD_VERSION)
		return "bad magic or version";
	memcpy(ad->mac, b + 6, 6);
	ad->ip = roce_get_be32(b + 12);
	ad->base = roce_get_be64(b + 16);
	ad->size = roce_get_be64(b + 24);
	ad->rkey = roce_get_be32(b + 32);
	return ad->size < 8 ? "memory too small for the counter" : NULL;
}
