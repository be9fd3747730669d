/* SPDX-License-Identifier: MIT */
/*
 * The communication manager's messages (IBA 12.6, Tables 106-120): one
 * struct of plain numbers per message, packed into and parsed from the 232
 * bytes after the MAD header by one table of field locations per message
 * (cm_msg.c). Bit positions count from the most significant bit of a byte,
 * as IBA draws them and as the kernel's include/rdma/ibta_vol1_c12.h
 * declares them.
 */
#ifndef ROCE_CM_MSG_H
#define ROCE_CM_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "cm/mad.h"

/* Attribute IDs of the CM class (IBA 12.6; the kernel's CM_*_ATTR_ID) */
enum cm_attr {
	CM_ATTR_REQ = 0x0010,
	CM_ATTR_MRA = 0x0011,
	CM_ATTR_REJ = 0x0012,
	CM_ATTR_REP = 0x0013,
	CM_ATTR_RTU = 0x0014,
	CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016,
	CM_ATTR_SIDR_REQ = 0x0017,
	CM_ATTR_SIDR_REP = 0x0018,
};

/* Private data sizes (Tables 106-120) */
#define CM_REQ_PRIVATE 92
#define CM_MRA_PRIVATE 222
#define CM_REJ_ARI 72
#define CM_REJ_PRIVATE 148
#define CM_REP_PRIVATE 196
#define CM_RTU_PRIVATE 224
#define CM_DREQ_PRIVATE 220
#define CM_DREP_PRIVATE 224
#define CM_SIDR_REQ_PRIVATE 216
#define CM_SIDR_REP_INFO 72
#define CM_SIDR_REP_PRIVATE 136

/* REQ: Table 106 (one path: primary; the alternate path's fields too) */
struct cm_path {
	uint16_t local_lid, remote_lid;
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;         /* 20 bits */
	uint8_t packet_rate;         /* 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;                  /* 4 bits */
	uint8_t subnet_local;        /* 1 bit */
	uint8_t local_ack_timeout;   /* 5 bits */
};

struct cm_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;                /* 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn;               /* 24 bits */
	uint8_t initiator_depth;
	uint32_t remote_eecn;              /* 24 bits */
	uint8_t remote_cm_response_timeout; /* 5 bits */
	uint8_t transport_service_type;    /* 2 bits: 0 RC, 1 UC, 3 XRC */
	uint8_t e2e_flow_control;          /* 1 bit */
	uint32_t starting_psn;             /* 24 bits */
	uint8_t local_cm_response_timeout; /* 5 bits */
	uint8_t retry_count;               /* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;                  /* 4 bits, IBA enum: 3 = 1024 */
	uint8_t rdc_exists;                /* 1 bit */
	uint8_t rnr_retry_count;           /* 3 bits */
	uint8_t max_cm_retries;            /* 4 bits */
	uint8_t srq;                       /* 1 bit */
	uint8_t extended_transport;        /* 3 bits */
	struct cm_path primary, alternate;
	uint8_t sap_supported;             /* 1 bit */
	uint8_t private_data[CM_REQ_PRIVATE];
};

struct cm_mra {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_mraed;   /* 2 bits: 0 REQ, 1 REP, 2 LAP */
	uint8_t service_timeout; /* 5 bits */
	uint8_t private_data[CM_MRA_PRIVATE];
};

struct cm_rej {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_rejected; /* 2 bits: 0 REQ, 1 REP, 2 other */
	uint8_t reject_info_length; /* 7 bits */
	uint16_t reason;
	uint8_t ari[CM_REJ_ARI];
	uint8_t private_data[CM_REJ_PRIVATE];
};

struct cm_rep {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;           /* 24 bits */
	uint32_t local_eecn;          /* 24 bits */
	uint32_t starting_psn;        /* 24 bits */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;     /* 5 bits */
	uint8_t failover_accepted;    /* 2 bits */
	uint8_t e2e_flow_control;     /* 1 bit */
	uint8_t rnr_retry_count;      /* 3 bits */
	uint8_t srq;                  /* 1 bit */
	uint64_t local_ca_guid;
	uint8_t private_data[CM_REP_PRIVATE];
};

struct cm_rtu {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[CM_RTU_PRIVATE];
};

struct cm_dreq {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t remote_qpn;          /* 24 bits */
	uint8_t private_data[CM_DREQ_PRIVATE];
};

struct cm_drep {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[CM_DREP_PRIVATE];
};

struct cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[CM_SIDR_REQ_PRIVATE];
};

struct cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;
	uint8_t info_length;
	uint32_t qpn;                 /* 24 bits */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t info[CM_SIDR_REP_INFO];
	uint8_t private_data[CM_SIDR_REP_PRIVATE];
};

/* A whole CM MAD: the header and the message its attribute ID names. */
struct cm_msg {
	struct mad_hdr hdr;
	union {
		struct cm_req req;
		struct cm_mra mra;
		struct cm_rej rej;
		struct cm_rep rep;
		struct cm_rtu rtu;
		struct cm_dreq dreq;
		struct cm_drep drep;
		struct cm_sidr_req sidr_req;
		struct cm_sidr_rep sidr_rep;
	} u;
};

/* One field of a message: where it lies and where its number goes. */
enum cm_field_kind { CM_FIELD_UINT, CM_FIELD_BYTES };
struct cm_field {
	const char *name;      /* ours: "local_qpn" */
	const char *ws;        /* Wireshark's field ("infiniband.cm.req.localqpn"),
				  NULL where it shows none */
	enum cm_field_kind kind;
	uint8_t byte;          /* offset after the MAD header */
	uint8_t bit;           /* UINT: first bit, from the MSB of `byte` */
	uint16_t width;        /* UINT: bits; BYTES: bytes */
	uint16_t member;       /* offsetof in the message struct */
	uint8_t size;          /* UINT: sizeof the member (1, 2, 4, 8) */
};

/* The table of one attribute: its name, fields and struct size. */
struct cm_layout {
	uint16_t attr_id;
	const char *name;       /* "REQ" */
	const struct cm_field *fields;
	size_t nfields;
};

/* The layout of attr_id, or NULL for an ID that is not a CM message. */
const struct cm_layout *cm_layout_of(uint16_t attr_id);
/* "REQ", "REP", ...; "?" for others. */
const char *cm_attr_name(uint16_t attr_id);

/* A field's number in a message struct of its layout (UINT fields). */
uint64_t cm_field_get(const struct cm_field *f, const void *msg);

/*
 * Parses a received MAD: mad_check(), then the attribute's fields. Every
 * rejection is a mad_err; msg->hdr is filled when the header was there.
 */
enum mad_err cm_msg_parse(const uint8_t *buf, size_t len, struct cm_msg *msg);

/*
 * Packs msg into a 256-byte MAD. Bits no field covers (IBA's reserved
 * bits) are zero, as IBA 12.6 asks of a sender. A value wider than its
 * field is cut to the field (the caller's numbers come from the IBA
 * ranges). Returns MAD_E_ATTR for an attribute ID with no layout.
 */
enum mad_err cm_msg_pack(const struct cm_msg *msg, uint8_t out[MAD_SIZE]);

/* msg's header set for attr_id and tid, the message zeroed. */
void cm_msg_init(struct cm_msg *msg, uint16_t attr_id, uint64_t tid);

#endif
