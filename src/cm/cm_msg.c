/* SPDX-License-Identifier: MIT */
/*
 * CM message codec: one table of field locations per attribute (IBA 12.6,
 * Tables 106-120; the same locations as the kernel's
 * include/rdma/ibta_vol1_c12.h), which both pack and parse walk. Offsets are
 * from the end of the MAD header; bits count from a byte's MSB.
 */
#include "cm/cm_msg.h"

#include <string.h>

#include <roce/wire/byteorder.h>

#define U(T, nm, wsname, by, bi, wd, m)                                     \
	{ .name = nm, .ws = wsname, .kind = CM_FIELD_UINT, .byte = by,      \
	  .bit = bi, .width = wd, .member = offsetof(T, m),                 \
	  .size = sizeof(((T *)0)->m) }
#define B(T, nm, wsname, by, len, m)                                        \
	{ .name = nm, .ws = wsname, .kind = CM_FIELD_BYTES, .byte = by,     \
	  .width = len, .member = offsetof(T, m) }

#define WS_REQ "infiniband.cm.req"
/*
 * A path's fields (Table 106), at base 52 (primary) or 96 (alternate).
 * Wireshark 4.0 takes its flow label and packet rate from other bits than
 * Table 106 and the kernel's CM_REQ_PRIMARY_FLOW_LABEL put them (the flow
 * label as 3 bytes under a 4-byte mask, the rate from the flow label's
 * first byte): no Wireshark name for those two (test_cm_msg checks the
 * quirk instead).
 */
#define PATH(p, base, ws)                                                   \
	U(struct cm_req, #p "_local_lid", WS_REQ "." ws "locallid", base, 0, 16, p.local_lid), \
	U(struct cm_req, #p "_remote_lid", WS_REQ "." ws "remotelid", base + 2, 0, 16, p.remote_lid), \
	B(struct cm_req, #p "_local_gid", WS_REQ "." ws "localgid", base + 4, 16, p.local_gid), \
	B(struct cm_req, #p "_remote_gid", WS_REQ "." ws "remotegid", base + 20, 16, p.remote_gid), \
	U(struct cm_req, #p "_flow_label", NULL, base + 36, 0, 20, p.flow_label), \
	U(struct cm_req, #p "_packet_rate", NULL, base + 39, 2, 6, p.packet_rate), \
	U(struct cm_req, #p "_traffic_class", WS_REQ "." ws "tfcclass", base + 40, 0, 8, p.traffic_class), \
	U(struct cm_req, #p "_hop_limit", WS_REQ "." ws "hoplim", base + 41, 0, 8, p.hop_limit), \
	U(struct cm_req, #p "_sl", WS_REQ "." ws "sl", base + 42, 0, 4, p.sl), \
	U(struct cm_req, #p "_subnet_local", WS_REQ "." ws "subnetlocal", base + 42, 4, 1, p.subnet_local), \
	U(struct cm_req, #p "_local_ack_timeout", WS_REQ "." ws "localacktout", base + 43, 0, 5, p.local_ack_timeout)

/* Table 106 */
static const struct cm_field req_fields[] = {
	U(struct cm_req, "local_comm_id", WS_REQ, 0, 0, 32, local_comm_id),
	U(struct cm_req, "service_id", WS_REQ ".serviceid", 8, 0, 64, service_id),
	U(struct cm_req, "local_ca_guid", WS_REQ ".localcaguid", 16, 0, 64, local_ca_guid),
	U(struct cm_req, "local_qkey", WS_REQ ".localqkey", 28, 0, 32, local_qkey),
	U(struct cm_req, "local_qpn", WS_REQ ".localqpn", 32, 0, 24, local_qpn),
	U(struct cm_req, "responder_resources", WS_REQ ".responderres", 35, 0, 8, responder_resources),
	U(struct cm_req, "local_eecn", WS_REQ ".localeecn", 36, 0, 24, local_eecn),
	U(struct cm_req, "initiator_depth", WS_REQ ".initdepth", 39, 0, 8, initiator_depth),
	U(struct cm_req, "remote_eecn", WS_REQ ".remoteeecn", 40, 0, 24, remote_eecn),
	U(struct cm_req, "remote_cm_response_timeout", WS_REQ ".remoteresptout", 43, 0, 5, remote_cm_response_timeout),
	U(struct cm_req, "transport_service_type", WS_REQ ".transpsvctype", 43, 5, 2, transport_service_type),
	U(struct cm_req, "e2e_flow_control", WS_REQ ".e2eflowctrl", 43, 7, 1, e2e_flow_control),
	U(struct cm_req, "starting_psn", WS_REQ ".startpsn", 44, 0, 24, starting_psn),
	U(struct cm_req, "local_cm_response_timeout", WS_REQ ".localresptout", 47, 0, 5, local_cm_response_timeout),
	U(struct cm_req, "retry_count", WS_REQ ".retrcount", 47, 5, 3, retry_count),
	U(struct cm_req, "pkey", WS_REQ ".pkey", 48, 0, 16, pkey),
	U(struct cm_req, "path_mtu", WS_REQ ".pppmtu", 50, 0, 4, path_mtu),
	U(struct cm_req, "rdc_exists", WS_REQ ".rdcexist", 50, 4, 1, rdc_exists),
	U(struct cm_req, "rnr_retry_count", WS_REQ ".rnrretrcount", 50, 5, 3, rnr_retry_count),
	U(struct cm_req, "max_cm_retries", WS_REQ ".maxcmretr", 51, 0, 4, max_cm_retries),
	U(struct cm_req, "srq", WS_REQ ".srq", 51, 4, 1, srq),
	U(struct cm_req, "extended_transport", WS_REQ ".ext_transport", 51, 5, 3, extended_transport),
	PATH(primary, 52, "prim_"),
	PATH(alternate, 96, "alt_"),
	U(struct cm_req, "sap_supported", NULL, 139, 5, 1, sap_supported),
	B(struct cm_req, "private_data", NULL, 140, CM_REQ_PRIVATE, private_data),
};

/* Table 107 (Wireshark 4.0 does not dissect MRA) */
static const struct cm_field mra_fields[] = {
	U(struct cm_mra, "local_comm_id", NULL, 0, 0, 32, local_comm_id),
	U(struct cm_mra, "remote_comm_id", NULL, 4, 0, 32, remote_comm_id),
	U(struct cm_mra, "message_mraed", NULL, 8, 0, 2, message_mraed),
	U(struct cm_mra, "service_timeout", NULL, 9, 0, 5, service_timeout),
	B(struct cm_mra, "private_data", NULL, 10, CM_MRA_PRIVATE, private_data),
};

/* Table 108 */
static const struct cm_field rej_fields[] = {
	U(struct cm_rej, "local_comm_id", "infiniband.cm.rej.localcommid", 0, 0, 32, local_comm_id),
	U(struct cm_rej, "remote_comm_id", "infiniband.cm.rej.remotecommid", 4, 0, 32, remote_comm_id),
	U(struct cm_rej, "message_rejected", "infiniband.cm.rej.msgrej", 8, 0, 2, message_rejected),
	U(struct cm_rej, "reject_info_length", "infiniband.cm.rej.rejinfolen", 9, 0, 7, reject_info_length),
	U(struct cm_rej, "reason", "infiniband.cm.rej.reason", 10, 0, 16, reason),
	B(struct cm_rej, "ari", "infiniband.cm.rej.ari", 12, CM_REJ_ARI, ari),
	B(struct cm_rej, "private_data", "infiniband.cm.rej.private", 84, CM_REJ_PRIVATE, private_data),
};

/* Table 110 */
static const struct cm_field rep_fields[] = {
	U(struct cm_rep, "local_comm_id", "infiniband.cm.rep", 0, 0, 32, local_comm_id),
	U(struct cm_rep, "remote_comm_id", "infiniband.cm.rep.remotecommid", 4, 0, 32, remote_comm_id),
	U(struct cm_rep, "local_qkey", "infiniband.cm.rep.localqkey", 8, 0, 32, local_qkey),
	U(struct cm_rep, "local_qpn", "infiniband.cm.rep.localqpn", 12, 0, 24, local_qpn),
	U(struct cm_rep, "local_eecn", "infiniband.cm.rep.localeecn", 16, 0, 24, local_eecn),
	U(struct cm_rep, "starting_psn", "infiniband.cm.rep.startpsn", 20, 0, 24, starting_psn),
	U(struct cm_rep, "responder_resources", "infiniband.cm.rep.respres", 24, 0, 8, responder_resources),
	U(struct cm_rep, "initiator_depth", "infiniband.cm.rep.initdepth", 25, 0, 8, initiator_depth),
	U(struct cm_rep, "target_ack_delay", "infiniband.cm.rep.tgtackdelay", 26, 0, 5, target_ack_delay),
	U(struct cm_rep, "failover_accepted", "infiniband.cm.rep.failoveracc", 26, 5, 2, failover_accepted),
	U(struct cm_rep, "e2e_flow_control", "infiniband.cm.rep.e2eflowctrl", 26, 7, 1, e2e_flow_control),
	U(struct cm_rep, "rnr_retry_count", "infiniband.cm.rep.rnrretrcount", 27, 0, 3, rnr_retry_count),
	U(struct cm_rep, "srq", "infiniband.cm.rep.srq", 27, 3, 1, srq),
	U(struct cm_rep, "local_ca_guid", "infiniband.cm.rep.localcaguid", 28, 0, 64, local_ca_guid),
	B(struct cm_rep, "private_data", "infiniband.cm.rep.private", 36, CM_REP_PRIVATE, private_data),
};

/* Table 111 */
static const struct cm_field rtu_fields[] = {
	U(struct cm_rtu, "local_comm_id", "infiniband.cm.rtu.localcommid", 0, 0, 32, local_comm_id),
	U(struct cm_rtu, "remote_comm_id", "infiniband.cm.rtu.remotecommid", 4, 0, 32, remote_comm_id),
	B(struct cm_rtu, "private_data", "infiniband.cm.rtu.private", 8, CM_RTU_PRIVATE, private_data),
};

/* Table 112 (Wireshark files the remote QPN under the REQ's names) */
static const struct cm_field dreq_fields[] = {
	U(struct cm_dreq, "local_comm_id", "infiniband.cm.dreq.localcommid", 0, 0, 32, local_comm_id),
	U(struct cm_dreq, "remote_comm_id", "infiniband.cm.dreq.remotecommid", 4, 0, 32, remote_comm_id),
	U(struct cm_dreq, "remote_qpn", "infiniband.cm.req.remoteqpneecn", 8, 0, 24, remote_qpn),
	B(struct cm_dreq, "private_data", "infiniband.cm.dreq.private", 12, CM_DREQ_PRIVATE, private_data),
};

/* Table 113 */
static const struct cm_field drep_fields[] = {
	U(struct cm_drep, "local_comm_id", "infiniband.cm.drsp.localcommid", 0, 0, 32, local_comm_id),
	U(struct cm_drep, "remote_comm_id", "infiniband.cm.drsp.remotecommid", 4, 0, 32, remote_comm_id),
	B(struct cm_drep, "private_data", "infiniband.cm.drsp.private", 8, CM_DREP_PRIVATE, private_data),
};

/* Table 119 */
static const struct cm_field sidr_req_fields[] = {
	U(struct cm_sidr_req, "request_id", NULL, 0, 0, 32, request_id),
	U(struct cm_sidr_req, "pkey", NULL, 4, 0, 16, pkey),
	U(struct cm_sidr_req, "service_id", NULL, 8, 0, 64, service_id),
	B(struct cm_sidr_req, "private_data", NULL, 16, CM_SIDR_REQ_PRIVATE, private_data),
};

/* Table 120 */
static const struct cm_field sidr_rep_fields[] = {
	U(struct cm_sidr_rep, "request_id", NULL, 0, 0, 32, request_id),
	U(struct cm_sidr_rep, "status", NULL, 4, 0, 8, status),
	U(struct cm_sidr_rep, "info_length", NULL, 5, 0, 8, info_length),
	U(struct cm_sidr_rep, "qpn", NULL, 8, 0, 24, qpn),
	U(struct cm_sidr_rep, "service_id", NULL, 12, 0, 64, service_id),
	U(struct cm_sidr_rep, "qkey", NULL, 20, 0, 32, qkey),
	B(struct cm_sidr_rep, "info", NULL, 24, CM_SIDR_REP_INFO, info),
	B(struct cm_sidr_rep, "private_data", NULL, 96, CM_SIDR_REP_PRIVATE, private_data),
};

#define LAYOUT(id, nm, f) { id, nm, f, sizeof(f) / sizeof((f)[0]) }
static const struct cm_layout layouts[] = {
	LAYOUT(CM_ATTR_REQ, "REQ", req_fields),
	LAYOUT(CM_ATTR_MRA, "MRA", mra_fields),
	LAYOUT(CM_ATTR_REJ, "REJ", rej_fields),
	LAYOUT(CM_ATTR_REP, "REP", rep_fields),
	LAYOUT(CM_ATTR_RTU, "RTU", rtu_fields),
	LAYOUT(CM_ATTR_DREQ, "DREQ", dreq_fields),
	LAYOUT(CM_ATTR_DREP, "DREP", drep_fields),
	LAYOUT(CM_ATTR_SIDR_REQ, "SIDR_REQ", sidr_req_fields),
	LAYOUT(CM_ATTR_SIDR_REP, "SIDR_REP", sidr_rep_fields),
};

const struct cm_layout *cm_layout_of(uint16_t attr_id)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].attr_id == attr_id)
			return &layouts[i];
	return NULL;
}

const char *cm_attr_name(uint16_t attr_id)
{
	const struct cm_layout *l = cm_layout_of(attr_id);

	return l ? l->name : "?";
}

/*
 * The bytes a UINT field touches, as one big-endian number: every field
 * of Tables 106-120 lies within 8 bytes of its first byte.
 */
static unsigned field_nbytes(const struct cm_field *f)
{
	return (f->bit + f->width + 7u) / 8u;
}

static uint64_t field_mask(const struct cm_field *f)
{
	return f->width >= 64 ? ~0ull : (1ull << f->width) - 1;
}

static uint64_t load_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void store_be(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = n; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

uint64_t cm_field_get(const struct cm_field *f, const void *msg)
{
	const uint8_t *m = (const uint8_t *)msg + f->member;

	switch (f->size) {
	case 1: return *m;
	case 2: { uint16_t v; memcpy(&v, m, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, m, 4); return v; }
	default: { uint64_t v; memcpy(&v, m, 8); return v; }
	}
}

static void field_set(const struct cm_field *f, void *msg, uint64_t v)
{
	uint8_t *m = (uint8_t *)msg + f->member;

	switch (f->size) {
	case 1: *m = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(m, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(m, &x, 4); break; }
	default: memcpy(m, &v, 8); break;
	}
}

static void fields_parse(const struct cm_layout *l, const uint8_t *data, void *msg)
{
	for (size_t i = 0; i < l->nfields; i++) {
		const struct cm_field *f = &l->fields[i];
		unsigned n;

		if (f->kind == CM_FIELD_BYTES) {
			memcpy((uint8_t *)msg + f->member, data + f->byte, f->width);
			continue;
		}
		n = field_nbytes(f);
		field_set(f, msg, load_be(data + f->byte, n) >> (n * 8 - f->bit - f->width) &
					  field_mask(f));
	}
}

static void fields_pack(const struct cm_layout *l, const void *msg, uint8_t *data)
{
	for (size_t i = 0; i < l->nfields; i++) {
		const struct cm_field *f = &l->fields[i];
		unsigned n, shift;
		uint64_t word;

		if (f->kind == CM_FIELD_BYTES) {
			memcpy(data + f->byte, (const uint8_t *)msg + f->member, f->width);
			continue;
		}
		/* read-modify-write: fields share bytes (REQ byte 43: three) */
		n = field_nbytes(f);
		shift = n * 8 - f->bit - f->width;
		word = load_be(data + f->byte, n);
		word &= ~(field_mask(f) << shift);
		word |= (cm_field_get(f, msg) & field_mask(f)) << shift;
		store_be(data + f->byte, n, word);
	}
}

enum mad_err cm_msg_parse(const uint8_t *buf, size_t len, struct cm_msg *msg)
{
	const struct cm_layout *l;
	enum mad_err err;

	memset(msg, 0, sizeof(*msg));
	err = mad_check(buf, len, &msg->hdr);
	if (err != MAD_OK)
		return err;
	l = cm_layout_of(msg->hdr.attr_id);
	if (!l)
		return MAD_E_ATTR;
	fields_parse(l, buf + MAD_HDR_SIZE, &msg->u);
	/* Table 108: a REJ's ARI field holds 72 bytes */
	if (l->attr_id == CM_ATTR_REJ && msg->u.rej.reject_info_length > CM_REJ_ARI)
		return MAD_E_FIELD;
	return MAD_OK;
}

enum mad_err cm_msg_pack(const struct cm_msg *msg, uint8_t out[MAD_SIZE])
{
	const struct cm_layout *l = cm_layout_of(msg->hdr.attr_id);

	if (!l)
		return MAD_E_ATTR;
	memset(out, 0, MAD_SIZE);
	mad_hdr_pack(&msg->hdr, out);
	fields_pack(l, &msg->u, out + MAD_HDR_SIZE);
	return MAD_OK;
}

void cm_msg_init(struct cm_msg *msg, uint16_t attr_id, uint64_t tid)
{
	memset(msg, 0, sizeof(*msg));
	mad_hdr_cm(&msg->hdr, attr_id, tid);
}
