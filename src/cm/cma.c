/* SPDX-License-Identifier: MIT */
/* rdma_cm's REQ private-data header and port-space service IDs (cma.h). */
#include "cm/cma.h"

#include <string.h>

#include <roce/wire/byteorder.h>

enum mad_err cma_hdr_parse(const uint8_t *buf, size_t len, struct cma_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < CMA_HDR_SIZE)
		return MAD_E_TRUNCATED;
	h->version = buf[0];
	h->ip_version = buf[1] >> 4;
	h->src_port = roce_get_be16(buf + 2);
	memcpy(h->src_addr, buf + 4, 16);
	memcpy(h->dst_addr, buf + 20, 16);
	if (h->version != CMA_VERSION)
		return MAD_E_FIELD;
	if (h->ip_version != 4 && h->ip_version != 6)
		return MAD_E_FIELD;
	return MAD_OK;
}

void cma_hdr_pack(const struct cma_hdr *h, uint8_t *buf)
{
	buf[0] = h->version;
	buf[1] = (uint8_t)(h->ip_version << 4);
	roce_put_be16(buf + 2, h->src_port);
	memcpy(buf + 4, h->src_addr, 16);
	memcpy(buf + 20, h->dst_addr, 16);
}

void cma_hdr_ipv4(struct cma_hdr *h, uint32_t src_ip, uint32_t dst_ip, uint16_t src_port)
{
	memset(h, 0, sizeof(*h));
	h->version = CMA_VERSION;
	h->ip_version = 4;
	h->src_port = src_port;
	/* cma.c's union cma_ip_addr: ip4.addr is the last 4 of 16 bytes */
	roce_put_be32(h->src_addr + 12, src_ip);
	roce_put_be32(h->dst_addr + 12, dst_ip);
}

int cma_service_port(uint64_t service_id, uint16_t ps)
{
	if ((service_id & CMA_SERVICE_MASK) != CMA_SERVICE_ID(ps, 0))
		return -1;
	return (int)(service_id & 0xFFFF);
}
