/* SPDX-License-Identifier: MIT */
/*
 * rdma_cm on top of the IB CM: the port-space service IDs and the header
 * rdma_cm puts at the front of a REQ's private data (the kernel's
 * drivers/infiniband/core/cma.c, struct cma_hdr; the IBA's Annex A11, "RDMA
 * IP CM Service", names the same 36 bytes). librdmacm users never see it:
 * their private data follows it.
 */
#ifndef ROCE_CM_CMA_H
#define ROCE_CM_CMA_H

#include <stddef.h>
#include <stdint.h>

#include "cm/mad.h"

/* Port spaces (rdma/rdma_cma.h: enum rdma_port_space) */
#define CMA_PS_TCP 0x0106
#define CMA_PS_UDP 0x0111
#define CMA_PS_IB 0x013F
/* Service ID of a port: 0x0000000001060000 | port for RDMA_PS_TCP */
#define CMA_SERVICE_ID(ps, port) ((uint64_t)(ps) << 16 | (uint16_t)(port))
/* The service IDs of a port space: 0x00000000PPPP0000 up to ...PPPPFFFF */
#define CMA_SERVICE_MASK 0xFFFFFFFFFFFF0000ull

#define CMA_HDR_SIZE 36
#define CMA_VERSION 0x00

struct cma_hdr {
	uint8_t version;      /* CMA_VERSION (Annex A11: major 0, minor 0) */
	uint8_t ip_version;   /* 4 or 6 (the byte's high nibble) */
	uint16_t src_port;
	/* IPv6, or IPv4 in the last 4 bytes (the first 12 zero) */
	uint8_t src_addr[16];
	uint8_t dst_addr[16];
};

/*
 * Parses the header at the front of a REQ's private data: MAD_E_TRUNCATED
 * when len < CMA_HDR_SIZE, MAD_E_FIELD for another version or an IP
 * version other than 4 and 6 (no rdma_cm writes those).
 */
enum mad_err cma_hdr_parse(const uint8_t *buf, size_t len, struct cma_hdr *h);
/* Writes the header into buf (CMA_HDR_SIZE bytes). */
void cma_hdr_pack(const struct cma_hdr *h, uint8_t *buf);
/* An IPv4 header: addresses and the source port in network order values. */
void cma_hdr_ipv4(struct cma_hdr *h, uint32_t src_ip, uint32_t dst_ip, uint16_t src_port);

/* The port of a service ID of port space ps, or -1 for another space. */
int cma_service_port(uint64_t service_id, uint16_t ps);

#endif
