/* SPDX-License-Identifier: MIT */
/*
 * MAD/CM fuzz target. The input, cut into MADs (a length byte, then that
 * many bytes, 0 meaning 256), goes
 *   - through cm_msg_parse: no read out of bounds; an accepted MAD packs
 *     back and parses into the same message, and the rdma_cm header of an
 *     accepted REQ parses without overreading;
 *   - into a CM with an RC and a UD listener, one connection and one
 *     SIDR_REQ of its own under way, the clock moving between MADs:
 *     whatever arrives, no crash, no leak, every slot accounted for.
 * Seeds: the CM and SIDR MADs of the rxe captures (tests/fuzz/corpus/cm).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"
#include "cm/cma.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

static uint64_t now_us;

static int fz_send(void *ctx, const struct cm_addr *to, const uint8_t mad[MAD_SIZE])
{
	struct cm_msg m;

	(void)ctx, (void)to;
	/* what we send must be what we parse */
	CHECK(cm_msg_parse(mad, MAD_SIZE, &m) == MAD_OK);
	return 0;
}

static uint64_t fz_now(void *ctx)
{
	(void)ctx;
	return now_us;
}

static int fz_modify(void *ctx, uint32_t qpn, enum cm_qp_state st, const struct cm_qp_attr *a)
{
	(void)ctx, (void)qpn, (void)st;
	CHECK(a != NULL);
	return 0;
}

static void fz_event(void *ctx, const struct cm_event *e)
{
	struct cm *cm = *(struct cm **)ctx;

	/* answer requests in turn: accept, reject, leave waiting */
	if (e->type == CM_EV_CONNECT_REQUEST) {
		switch (e->conn % 3) {
		case 0: cm_accept(cm, e->conn, &(struct cm_accept_param){ .qpn = 0x30 }); break;
		case 1: cm_reject(cm, e->conn, NULL, 0); break;
		default: break;
		}
	} else if (e->type == CM_EV_SIDR_REQUEST) {
		switch (e->conn % 3) {
		case 0: CHECK(cm_sidr_rep(cm, e->conn, CM_SIDR_SUCCESS, 0x31, 0x01234567, NULL, 0) == 0); break;
		case 1: CHECK(cm_sidr_rep(cm, e->conn, CM_SIDR_REJECT, 0, 0, NULL, 0) == 0); break;
		default: break;
		}
	}
}

static void one_mad(const uint8_t *mad, size_t len)
{
	struct cm_msg m, again;
	uint8_t packed[MAD_SIZE];

	if (cm_msg_parse(mad, len, &m) != MAD_OK)
		return;
	CHECK(cm_msg_pack(&m, packed) == MAD_OK);
	CHECK(cm_msg_parse(packed, MAD_SIZE, &again) == MAD_OK);
	CHECK(memcmp(&m, &again, sizeof(m)) == 0);
	if (m.hdr.attr_id == CM_ATTR_REQ) {
		struct cma_hdr h;

		cma_hdr_parse(m.u.req.private_data, CM_REQ_PRIVATE, &h);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cm *cm;
	struct cm_config cfg = {
		.ca_guid = 1, .max_conns = 4, .max_listeners = 2, .packet_life_time = 16,
		.cm_response_timeout = 20, .max_cm_retries = 2, .comm_id_seed = 1,
	};
	struct cm_ops ops = { &cm, fz_send, fz_now, fz_modify, fz_event };
	struct cm_addr peer = { .gid = { [15] = 2 } };

	now_us = 0;
	cm = cm_create(&cfg, &ops);
	CHECK(cm);
	CHECK(cm_listen(cm, CMA_SERVICE_ID(CMA_PS_TCP, 7174), 2, NULL) >= 0);
	CHECK(cm_listen(cm, CMA_SERVICE_ID(CMA_PS_UDP, 18515), 2, NULL) >= 0);
	CHECK(cm_connect(cm, &(struct cm_connect_param){ .peer = peer, .qpn = 0x20,
		.service_id = CMA_SERVICE_ID(CMA_PS_TCP, 1) }) >= 0);
	CHECK(cm_sidr_req(cm, &(struct cm_sidr_param){ .peer = peer,
		.service_id = CMA_SERVICE_ID(CMA_PS_UDP, 2), .pkey = 0xffff }) >= 0);
	while (size > 0) {
		size_t len = data[0] ? data[0] : MAD_SIZE;
		uint8_t *copy;

		data++, size--;
		if (len > size)
			len = size;
		/* exact-size heap copy so ASan sees any overread */
		copy = malloc(len ? len : 1);
		CHECK(copy);
		memcpy(copy, data, len);
		one_mad(copy, len);
		cm_recv(cm, &peer, copy, len);
		free(copy);
		data += len, size -= len;
		now_us += 1000000; /* a second between MADs: retries, timewait */
		cm_poll(cm);
	}
	now_us += 600000000;
	for (int i = 0; i < 64 && cm_next_deadline(cm) != UINT64_MAX; i++) {
		now_us = cm_next_deadline(cm);
		cm_poll(cm);
	}
	/* only connections and SIDR requests waiting for their consumer are
	 * left */
	for (int i = 0; i < 4; i++) {
		enum cm_state st = cm_conn_state(cm, i);

		CHECK(st == CM_IDLE || st == CM_REQ_RCVD || st == CM_ESTABLISHED ||
		      st == CM_MRA_REQ_SENT || st == CM_SIDR_REQ_RCVD);
	}
	cm_destroy(cm);
	return 0;
}
