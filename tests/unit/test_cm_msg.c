/* SPDX-License-Identifier: MIT */
/*
 * MAD and CM message codec (src/cm/mad.c, cm_msg.c, cma.c):
 *   - every CM MAD of rxe's captures (tests/vectors/captures/rxe_rping*.pcap,
 *     rxe_write_bw_R.pcap, rxe_send_lat_R_ud.pcap) parses, every field equals Wireshark's
 *     dissection (tests/vectors/expected/cm/, made by cm_fields.py;
 *     cm_fields_current.sh checks they are current), the rdma_cm header of
 *     each REQ too, and the message packs back into the same 256 bytes;
 *   - the field tables: no two fields overlap, every field round-trips;
 *   - bad input: truncated and oversized MADs, wrong base version, class,
 *     class version and method, unknown attributes, a REJ's ARI length, a
 *     short or foreign rdma_cm header: each its own reason.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/packet.h"
#include "roce/pcap.h"
#include "roce/status.h"
#include "cm/cm_msg.h"
#include "cm/cma.h"

#define VEC ROCE_SOURCE_DIR "/tests/vectors"

/* ---- the expected fields: "frame field value" lines ---------------------- */

struct expect {
	uint64_t frame;
	char field[64];
	char value[512];
	int used;
};

struct expects {
	struct expect *v;
	size_t n, cap;
};

static void expects_load(const char *path, struct expects *e)
{
	FILE *f = fopen(path, "r");
	char line[700];

	if (!f)
		fail_msg("cannot open %s", path);
	memset(e, 0, sizeof(*e));
	while (fgets(line, sizeof(line), f)) {
		struct expect x = { 0 };

		if (sscanf(line, "%" SCNu64 "\t%63s\t%511s", &x.frame, x.field, x.value) != 3)
			fail_msg("%s: bad line '%s'", path, line);
		if (e->n == e->cap) {
			e->cap = e->cap ? e->cap * 2 : 256;
			e->v = realloc(e->v, e->cap * sizeof(*e->v));
			assert_non_null(e->v);
		}
		e->v[e->n++] = x;
	}
	fclose(f);
	assert_true(e->n > 0);
}

static struct expect *expects_find(struct expects *e, uint64_t frame, const char *field)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].frame == frame && strcmp(e->v[i].field, field) == 0)
			return &e->v[i];
	return NULL;
}

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

struct golden_stats {
	unsigned mads, fields, by_attr[32];
};

/* our value of one field against Wireshark's */
static void check_value(const char *cap, uint64_t frame, struct expect *x,
			const char *ours, struct golden_stats *st)
{
	if (strcmp(x->value, ours) != 0)
		fail_msg("%s frame %" PRIu64 " %s: ours %s, Wireshark %s", cap, frame,
			 x->field, ours, x->value);
	x->used = 1;
	st->fields++;
}

static void check_uint(const char *cap, uint64_t frame, struct expects *e,
		       const char *field, uint64_t v, struct golden_stats *st)
{
	struct expect *x = expects_find(e, frame, field);
	char s[32];

	if (!x)
		fail_msg("%s frame %" PRIu64 ": Wireshark shows no %s", cap, frame, field);
	snprintf(s, sizeof(s), "%" PRIu64, v);
	check_value(cap, frame, x, s, st);
}

/*
 * A bytes field. Wireshark shows an IPv4-mapped GID as an IPv4 address
 * under NAME_ipv4, and the REQ's private data, when it carries the
 * rdma_cm header, as ...req.ip_cm.
 */
static void check_bytes(const char *cap, uint64_t frame, struct expects *e,
			const char *field, const uint8_t *p, size_t n,
			struct golden_stats *st)
{
	struct expect *x = expects_find(e, frame, field);
	char s[2 * 256 + 1], alt[96];

	if (!x) {
		snprintf(alt, sizeof(alt), "%s_ipv4", field);
		x = expects_find(e, frame, alt);
		if (x && n == 16) {
			static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

			assert_memory_equal(p, mapped, 12);
			hex(p + 12, 4, s);
			check_value(cap, frame, x, s, st);
			return;
		}
	}
	if (!x && strcmp(field, "infiniband.cm.req.private") == 0)
		x = expects_find(e, frame, "infiniband.cm.req.ip_cm");
	if (!x)
		fail_msg("%s frame %" PRIu64 ": Wireshark shows no %s", cap, frame, field);
	hex(p, n, s);
	check_value(cap, frame, x, s, st);
}

static void check_mad(const char *cap, uint64_t frame, const uint8_t *mad, size_t len,
		      struct expects *e, struct golden_stats *st)
{
	struct cm_msg m;
	const struct cm_layout *l;
	uint8_t again[MAD_SIZE];
	enum mad_err err = cm_msg_parse(mad, len, &m);

	if (err != MAD_OK)
		fail_msg("%s frame %" PRIu64 ": %s", cap, frame, mad_err_str(err));
	st->mads++;
	st->by_attr[m.hdr.attr_id & 31]++;
	check_uint(cap, frame, e, "infiniband.mad.baseversion", m.hdr.base_version, st);
	check_uint(cap, frame, e, "infiniband.mad.mgmtclass", m.hdr.mgmt_class, st);
	check_uint(cap, frame, e, "infiniband.mad.classversion", m.hdr.class_version, st);
	check_uint(cap, frame, e, "infiniband.mad.method", m.hdr.method, st);
	check_uint(cap, frame, e, "infiniband.mad.status", m.hdr.status, st);
	check_uint(cap, frame, e, "infiniband.mad.classspecific", m.hdr.class_specific, st);
	check_uint(cap, frame, e, "infiniband.mad.transactionid", m.hdr.tid, st);
	check_uint(cap, frame, e, "infiniband.mad.attributeid", m.hdr.attr_id, st);
	check_uint(cap, frame, e, "infiniband.mad.attributemodifier", m.hdr.attr_mod, st);

	l = cm_layout_of(m.hdr.attr_id);
	assert_non_null(l);
	for (size_t i = 0; i < l->nfields; i++) {
		const struct cm_field *f = &l->fields[i];

		if (!f->ws)
			continue;
		if (f->kind == CM_FIELD_UINT)
			check_uint(cap, frame, e, f->ws, cm_field_get(f, &m.u), st);
		else
			check_bytes(cap, frame, e, f->ws, (const uint8_t *)&m.u + f->member,
				    f->width, st);
	}
	if (m.hdr.attr_id == CM_ATTR_REQ) {
		/*
		 * Wireshark 4.0's reading of the path's flow label and packet
		 * rate (cm_msg.c): bytes 88-90 under the mask 0xFFFFF000, and
		 * byte 88's low 6 bits.
		 */
		check_uint(cap, frame, e, "infiniband.cm.req.prim_flowlabel",
			   m.u.req.primary.flow_label >> 8, st);
		check_uint(cap, frame, e, "infiniband.cm.req.prim_pktrate",
			   (m.u.req.primary.flow_label >> 12) & 0x3f, st);
	}
	if (m.hdr.attr_id == CM_ATTR_REQ &&
	    cma_service_port(m.u.req.service_id, CMA_PS_TCP) >= 0) {
		struct cma_hdr h;
		char s[40];

		assert_int_equal(cma_hdr_parse(m.u.req.private_data, CM_REQ_PRIVATE, &h), MAD_OK);
		check_uint(cap, frame, e, "infiniband.cm.req.ip_cm.majv", h.version >> 4, st);
		check_uint(cap, frame, e, "infiniband.cm.req.ip_cm.minv", h.version & 15, st);
		check_uint(cap, frame, e, "infiniband.cm.req.ip_cm.ipv", h.ip_version, st);
		check_uint(cap, frame, e, "infiniband.cm.req.ip_cm.sport", h.src_port, st);
		check_uint(cap, frame, e, "infiniband.cm.req.serviceid.dport",
			   (uint64_t)cma_service_port(m.u.req.service_id, CMA_PS_TCP), st);
		if (h.ip_version == 4) {
			hex(h.src_addr + 12, 4, s);
			check_value(cap, frame, expects_find(e, frame, "infiniband.cm.req.ip_cm.sip4"), s, st);
			hex(h.dst_addr + 12, 4, s);
			check_value(cap, frame, expects_find(e, frame, "infiniband.cm.req.ip_cm.dip4"), s, st);
		}
	}
	/* the same bytes back */
	assert_int_equal(cm_msg_pack(&m, again), MAD_OK);
	if (memcmp(again, mad, MAD_SIZE) != 0)
		fail_msg("%s frame %" PRIu64 ": %s re-packs into other bytes", cap, frame,
			 cm_attr_name(m.hdr.attr_id));
}

/* Returns the number of CM MADs in the capture (0 when it is not there). */
static unsigned golden_capture(const char *name, unsigned want_attrs_mask)
{
	char path[512];
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	struct expects e;
	struct golden_stats st = { 0 };
	unsigned cm_frames = 0;

	snprintf(path, sizeof(path), VEC "/captures/%s.pcap", name);
	assert_int_equal(roce_pcap_open_read(path, &r, NULL, 0), ROCE_OK);
	snprintf(path, sizeof(path), VEC "/expected/cm/%s.tsv", name);
	expects_load(path, &e);
	while (roce_pcap_next(r, &rec) == ROCE_OK) {
		struct roce_pkt p;
		struct roce_hdrs h;

		if (roce_parse(rec.data, rec.caplen, 0, &p) != ROCE_OK)
			continue;
		roce_decode(&p, &h);
		/* a MAD: UD SEND ONLY to QP1 with the GSI Q_Key (IBA 13.5) */
		if (h.bth.opcode != 0x64 || h.bth.dqpn != MAD_GSI_QPN)
			continue;
		assert_int_equal(h.deth.qkey, MAD_GSI_QKEY);
		assert_int_equal(p.payload_len, MAD_SIZE);
		check_mad(name, rec.index, roce_pkt_payload(&p), p.payload_len, &e, &st);
	}
	roce_pcap_close_read(r);
	/* every frame Wireshark took for a CM MAD was one of ours */
	for (size_t i = 0; i < e.n; i++)
		if (strcmp(e.v[i].field, "infiniband.mad.mgmtclass") == 0)
			cm_frames++;
	assert_int_equal(cm_frames, st.mads);
	for (unsigned a = 0; a < 32; a++)
		if (want_attrs_mask & (1u << a) && st.by_attr[a] == 0)
			fail_msg("%s: no %s in the capture", name, cm_attr_name((uint16_t)(0x10 + a - 16)));
	print_message("%s: %u CM MADs, %u fields equal to Wireshark's\n", name, st.mads, st.fields);
	assert_true(st.fields > st.mads * 9);
	free(e.v);
	return st.mads;
}

#define HANDSHAKE (1u << (CM_ATTR_REQ & 31) | 1u << (CM_ATTR_REP & 31) | \
		   1u << (CM_ATTR_RTU & 31) | 1u << (CM_ATTR_DREQ & 31) |    \
		   1u << (CM_ATTR_DREP & 31))

static void test_golden_rping_cm(void **state)
{
	(void)state;
	assert_int_equal(golden_capture("rxe_rping_cm", HANDSHAKE), 5);
}

/* the interop harness's self_rping run: rping -C 3 -v between rxe guests */
static void test_golden_rping(void **state)
{
	(void)state;
	assert_int_equal(golden_capture("rxe_rping", HANDSHAKE), 5);
}

/* self_write_R: ib_write_bw -R, two connections through the CM */
static void test_golden_write_bw_R(void **state)
{
	(void)state;
	assert_int_equal(golden_capture("rxe_write_bw_R", HANDSHAKE), 10);
}

/* self_send_R_ud: ib_send_lat -R -c UD, the exchange's connection and the
 * UD QP's SIDR_REQ and SIDR_REP (Wireshark dissects only their MAD
 * header: their fields are checked by re-packing and by test_cm_golden) */
static void test_golden_send_lat_R_ud(void **state)
{
	(void)state;
	assert_int_equal(golden_capture("rxe_send_lat_R_ud",
					HANDSHAKE | 1u << (CM_ATTR_SIDR_REQ & 31) |
						1u << (CM_ATTR_SIDR_REP & 31)),
			 7);
}

/* ---- the tables ------------------------------------------------------------ */

static const uint16_t all_attrs[] = {
	CM_ATTR_REQ, CM_ATTR_MRA, CM_ATTR_REJ, CM_ATTR_REP, CM_ATTR_RTU,
	CM_ATTR_DREQ, CM_ATTR_DREP, CM_ATTR_SIDR_REQ, CM_ATTR_SIDR_REP,
};

/* Marks the bits each field covers: no bit twice, none past the MAD. */
static void test_fields_disjoint(void **state)
{
	(void)state;
	for (size_t a = 0; a < sizeof(all_attrs) / sizeof(all_attrs[0]); a++) {
		const struct cm_layout *l = cm_layout_of(all_attrs[a]);
		uint8_t seen[MAD_DATA_SIZE * 8] = { 0 };

		assert_non_null(l);
		for (size_t i = 0; i < l->nfields; i++) {
			const struct cm_field *f = &l->fields[i];
			unsigned first = f->byte * 8u + f->bit;
			unsigned bits = f->kind == CM_FIELD_UINT ? f->width : f->width * 8u;

			assert_true(first + bits <= sizeof(seen));
			if (f->kind == CM_FIELD_UINT)
				assert_true(f->width <= f->size * 8u);
			for (unsigned b = first; b < first + bits; b++) {
				if (seen[b])
					fail_msg("%s: %s overlaps another field at bit %u",
						 l->name, f->name, b);
				seen[b] = 1;
			}
		}
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * Random bytes in every field: parse gives back each field's bits, pack
 * gives back the bytes with the reserved bits cleared.
 */
static void test_roundtrip_random(void **state)
{
	(void)state;
	for (int round = 0; round < 200; round++) {
		for (size_t a = 0; a < sizeof(all_attrs) / sizeof(all_attrs[0]); a++) {
			const struct cm_layout *l = cm_layout_of(all_attrs[a]);
			uint8_t mad[MAD_SIZE], packed[MAD_SIZE], covered[MAD_SIZE] = { 0 };
			struct mad_hdr h;
			struct cm_msg m;

			for (size_t i = 0; i < MAD_SIZE; i++)
				mad[i] = (uint8_t)next_rand();
			mad_hdr_cm(&h, l->attr_id, next_rand());
			h.status = (uint16_t)next_rand();
			h.attr_mod = (uint32_t)next_rand();
			h.reserved = (uint16_t)next_rand();
			mad_hdr_pack(&h, mad);
			if (l->attr_id == CM_ATTR_REJ)
				mad[MAD_HDR_SIZE + 9] &= 0x7f, mad[MAD_HDR_SIZE + 9] %= 0x49 << 1;
			memset(covered, 0xff, MAD_HDR_SIZE);
			for (size_t i = 0; i < l->nfields; i++) {
				const struct cm_field *f = &l->fields[i];
				unsigned first = f->byte * 8u + f->bit;
				unsigned bits = f->kind == CM_FIELD_UINT ? f->width : f->width * 8u;

				for (unsigned b = first; b < first + bits; b++)
					covered[MAD_HDR_SIZE + b / 8] |= (uint8_t)(0x80 >> (b % 8));
			}
			assert_int_equal(cm_msg_parse(mad, sizeof(mad), &m), MAD_OK);
			assert_int_equal(m.hdr.tid, h.tid);
			assert_int_equal(m.hdr.reserved, h.reserved);
			assert_int_equal(cm_msg_pack(&m, packed), MAD_OK);
			for (size_t i = 0; i < MAD_SIZE; i++)
				if (packed[i] != (mad[i] & covered[i]))
					fail_msg("%s byte %zu: packed %02x, want %02x", l->name, i,
						 packed[i], mad[i] & covered[i]);
		}
	}
}

/* A few REQ fields by hand, against the bytes IBA's Table 106 puts them in. */
static void test_req_bits(void **state)
{
	struct cm_msg m;
	uint8_t mad[MAD_SIZE];
	const uint8_t *d = mad + MAD_HDR_SIZE;

	(void)state;
	cm_msg_init(&m, CM_ATTR_REQ, 0x1122334455667788ull);
	m.u.req.local_qpn = 0xABCDEF;
	m.u.req.responder_resources = 0x5A;
	m.u.req.remote_cm_response_timeout = 20;
	m.u.req.transport_service_type = 1;
	m.u.req.e2e_flow_control = 1;
	m.u.req.path_mtu = 3;
	m.u.req.rnr_retry_count = 7;
	m.u.req.max_cm_retries = 15;
	m.u.req.primary.flow_label = 0xFFFFF;
	m.u.req.primary.packet_rate = 0x2d;
	m.u.req.primary.local_ack_timeout = 19;
	assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
	assert_int_equal(mad[0], 1);
	assert_int_equal(mad[1], 0x07);
	assert_int_equal(mad[2], 2);
	assert_int_equal(mad[3], 0x03);
	assert_int_equal(mad[16], 0x00);
	assert_int_equal(mad[17], 0x10);
	assert_int_equal(d[32], 0xAB);
	assert_int_equal(d[34], 0xEF);
	assert_int_equal(d[35], 0x5A);
	assert_int_equal(d[43], 20 << 3 | 1 << 1 | 1);
	assert_int_equal(d[50], 3 << 4 | 7);
	assert_int_equal(d[51], 15 << 4);
	assert_int_equal(d[88], 0xFF);
	assert_int_equal(d[90], 0xF0);
	assert_int_equal(d[91], 0x2d);
	assert_int_equal(d[95], 19 << 3);
}

/* ---- bad input --------------------------------------------------------------- */

static void good_req(uint8_t mad[MAD_SIZE])
{
	struct cm_msg m;

	cm_msg_init(&m, CM_ATTR_REQ, 7);
	assert_int_equal(cm_msg_pack(&m, mad), MAD_OK);
}

static void test_bad_mads(void **state)
{
	uint8_t mad[MAD_SIZE + 8] = { 0 };
	struct cm_msg m;

	(void)state;
	good_req(mad);
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_OK);
	assert_int_equal(cm_msg_parse(mad, 0, &m), MAD_E_TRUNCATED);
	assert_int_equal(cm_msg_parse(mad, MAD_HDR_SIZE - 1, &m), MAD_E_TRUNCATED);
	assert_int_equal(cm_msg_parse(mad, MAD_HDR_SIZE, &m), MAD_E_TRUNCATED);
	assert_int_equal(m.hdr.attr_id, CM_ATTR_REQ); /* the header, for the counters */
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE - 1, &m), MAD_E_TRUNCATED);
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE + 1, &m), MAD_E_OVERSIZE);

	mad[0] = 2;
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_E_BASE_VERSION);
	good_req(mad);
	mad[1] = 0x04; /* performance management */
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_E_CLASS);
	good_req(mad);
	mad[2] = 1;
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_E_CLASS_VERSION);
	good_req(mad);
	mad[3] = 0x81; /* GetResp */
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_E_METHOD);
	good_req(mad);
	mad[17] = 0x19; /* LAP: not taken */
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_E_ATTR);
	mad[16] = 0xFF, mad[17] = 0xFF;
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_E_ATTR);
	mad[16] = 0, mad[17] = 0x12; /* REJ with 100 bytes of ARI */
	mad[MAD_HDR_SIZE + 9] = 100 << 1;
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_E_FIELD);
	mad[MAD_HDR_SIZE + 9] = CM_REJ_ARI << 1;
	assert_int_equal(cm_msg_parse(mad, MAD_SIZE, &m), MAD_OK);
	assert_int_equal(m.u.rej.reject_info_length, CM_REJ_ARI);

	/* packing an unknown attribute */
	cm_msg_init(&m, 0x0019, 1);
	assert_int_equal(cm_msg_pack(&m, mad), MAD_E_ATTR);
	assert_string_equal(mad_err_name(MAD_E_CLASS_VERSION), "class_version");
	assert_string_equal(mad_err_name(-1), "?");
	assert_string_equal(mad_err_name(MAD_ERR_COUNT), "?");
	assert_string_equal(cm_attr_name(0x0019), "?");
}

static void test_cma_hdr(void **state)
{
	struct cma_hdr h, back;
	uint8_t buf[CMA_HDR_SIZE];

	(void)state;
	assert_int_equal(CMA_SERVICE_ID(CMA_PS_TCP, 7174), 0x0000000001061c06ull);
	assert_int_equal(cma_service_port(0x0000000001061c06ull, CMA_PS_TCP), 7174);
	assert_int_equal(cma_service_port(0x0000000001111c06ull, CMA_PS_TCP), -1);
	assert_int_equal(cma_service_port(0x1000000001061c06ull, CMA_PS_TCP), -1);

	cma_hdr_ipv4(&h, 0x0a4d000c, 0x0a4d000b, 0x9aeb);
	cma_hdr_pack(&h, buf);
	assert_int_equal(buf[1], 0x40);
	assert_int_equal(buf[16], 0x0a);
	assert_int_equal(buf[35], 0x0b);
	assert_int_equal(cma_hdr_parse(buf, sizeof(buf), &back), MAD_OK);
	assert_memory_equal(&h, &back, sizeof(h));
	assert_int_equal(cma_hdr_parse(buf, CMA_HDR_SIZE - 1, &back), MAD_E_TRUNCATED);
	buf[0] = 0x10;
	assert_int_equal(cma_hdr_parse(buf, sizeof(buf), &back), MAD_E_FIELD);
	buf[0] = 0;
	buf[1] = 0x50;
	assert_int_equal(cma_hdr_parse(buf, sizeof(buf), &back), MAD_E_FIELD);
	buf[1] = 0x60;
	assert_int_equal(cma_hdr_parse(buf, sizeof(buf), &back), MAD_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_rping_cm),
		cmocka_unit_test(test_golden_rping),
		cmocka_unit_test(test_golden_write_bw_R),
		cmocka_unit_test(test_golden_send_lat_R_ud),
		cmocka_unit_test(test_fields_disjoint),
		cmocka_unit_test(test_roundtrip_random),
		cmocka_unit_test(test_req_bits),
		cmocka_unit_test(test_bad_mads),
		cmocka_unit_test(test_cma_hdr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
