/* SPDX-License-Identifier: MIT */
/*
 * Management datagrams (IBA 13.4): the 24-byte common MAD header every
 * 256-byte MAD starts with, and the checks the communication manager makes
 * before it looks at a message. The CM class (0x07, class version 2) is the
 * only class this layer takes; its messages are in cm_msg.h.
 *
 * A rejected MAD is counted under its reason (enum mad_err), never an error
 * the owner has to handle: like a dropped packet, it is a counter.
 */
#ifndef ROCE_CM_MAD_H
#define ROCE_CM_MAD_H

#include <stddef.h>
#include <stdint.h>

#define MAD_SIZE 256     /* IBA 13.4: every MAD on QP0/QP1 is 256 bytes */
#define MAD_HDR_SIZE 24  /* IBA 13.4.2; the kernel's struct ib_mad_hdr */
#define MAD_DATA_SIZE (MAD_SIZE - MAD_HDR_SIZE)

#define MAD_BASE_VERSION 1     /* IBA 13.4.2: BaseVersion */
#define MAD_CLASS_CM 0x07      /* IBA 13.4: Communication Management (IB_MGMT_CLASS_CM) */
#define MAD_CM_CLASS_VERSION 2 /* IBA 12.6: the CM class version (IB_CM_CLASS_VERSION) */
#define MAD_METHOD_SEND 0x03   /* IBA 12.6: every CM message is a Send */

/* QP1, the general services QP, and its well-known Q_Key (IBA 13.5; IB_QP1_QKEY). */
#define MAD_GSI_QPN 1
#define MAD_GSI_QKEY 0x80010000u

/* The common MAD header (IBA 13.4.2), fields as numbers. */
struct mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;          /* bit 7: response (R) */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;            /* transaction ID */
	uint16_t attr_id;
	uint16_t reserved;       /* kept as received, so a re-pack is exact */
	uint32_t attr_mod;
};

/*
 * Why a MAD was not taken, in the order mad_check() looks. X(code, name,
 * description); MAD_OK is 0.
 */
#define MAD_ERR_LIST(X)                                                     \
	X(MAD_OK, "ok", "accepted")                                         \
	X(MAD_E_TRUNCATED, "truncated", "shorter than a 256-byte MAD")       \
	X(MAD_E_OVERSIZE, "oversize", "longer than a 256-byte MAD")          \
	X(MAD_E_BASE_VERSION, "base_version", "base version is not 1")       \
	X(MAD_E_CLASS, "class", "management class is not CM (0x07)")        \
	X(MAD_E_CLASS_VERSION, "class_version", "CM class version is not 2") \
	X(MAD_E_METHOD, "method", "method is not Send (0x03)")              \
	X(MAD_E_ATTR, "attr", "unknown CM attribute ID")                    \
	X(MAD_E_FIELD, "field", "a field holds a value IBA 12.6 forbids")

enum mad_err {
#define MAD_X_ENUM(code, name, desc) code,
	MAD_ERR_LIST(MAD_X_ENUM)
#undef MAD_X_ENUM
	MAD_ERR_COUNT
};

const char *mad_err_name(int err);
const char *mad_err_str(int err);

/* Reads the header of buf (at least MAD_HDR_SIZE bytes). */
void mad_hdr_parse(const uint8_t *buf, struct mad_hdr *h);
/* Writes h into the first MAD_HDR_SIZE bytes of buf. */
void mad_hdr_pack(const struct mad_hdr *h, uint8_t *buf);
/* A CM header (base 1, class 0x07 version 2, Send) for attribute attr_id. */
void mad_hdr_cm(struct mad_hdr *h, uint16_t attr_id, uint64_t tid);

/*
 * The checks of a received MAD of len bytes, up to (not including) the
 * attribute ID: size, base version, class, class version, method. Fills h
 * when the header is there (len >= MAD_HDR_SIZE).
 */
enum mad_err mad_check(const uint8_t *buf, size_t len, struct mad_hdr *h);

#endif
