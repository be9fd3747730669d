/* SPDX-License-Identifier: MIT */
/*
 * Golden data: every RoCE v2 packet of the captures of Linux rxe talking to
 * rxe (tests/vectors/captures) must
 *   - parse, with a correct ICRC, except the 2 packets corrupted on purpose
 *     in host_peer_rc_pingpong.pcap (frames 105 and 106);
 *   - decode to the fields Wireshark dissects (tests/vectors/expected/,
 *     made by tshark_fields.py; tshark_golden.sh checks they are current);
 *   - rebuild, from its decoded fields and payload, into the same bytes.
 */
#include <dirent.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "roce/icrc.h"
#include "roce/packet.h"
#include "roce/pcap.h"
#include "roce/status.h"

#define VEC ROCE_SOURCE_DIR "/tests/vectors"

struct totals {
	unsigned files, packets, bad_icrc, opcodes_seen[256];
};

static struct totals tot;

/* Our fields in the column order of tshark_fields.py (decimal; empty when
 * the header is absent). */
static void our_columns(const struct roce_pcap_rec *rec, const struct roce_pkt *p,
			const struct roce_hdrs *h, char *out, size_t n)
{
	char reth[64] = "\t\t", aeth[32] = "\t", atm[64] = "\t", ack[32] = "",
	     deth[32] = "\t";

	if (roce_op_has(p->op, ROCE_HDR_RETH))
		snprintf(reth, sizeof(reth), "%" PRIu64 "\t%u\t%u", h->reth.va,
			 h->reth.rkey, h->reth.len);
	else if (roce_op_has(p->op, ROCE_HDR_ATMETH))
		snprintf(reth, sizeof(reth), "%" PRIu64 "\t%u\t", h->atomic.va,
			 h->atomic.rkey);
	if (roce_op_has(p->op, ROCE_HDR_AETH))
		snprintf(aeth, sizeof(aeth), "%u\t%u", h->aeth.syndrome, h->aeth.msn);
	if (roce_op_has(p->op, ROCE_HDR_ATMETH))
		snprintf(atm, sizeof(atm), "%" PRIu64 "\t%" PRIu64, h->atomic.swap_add,
			 h->atomic.compare);
	if (roce_op_has(p->op, ROCE_HDR_ATMACK))
		snprintf(ack, sizeof(ack), "%" PRIu64, h->atomic_ack.orig);
	if (roce_op_has(p->op, ROCE_HDR_DETH))
		snprintf(deth, sizeof(deth), "%u\t%u", h->deth.qkey, h->deth.sqpn);
	snprintf(out, n, "%" PRIu64 "\t%u\t%u\t%u\t%u\t%u\t%s\t%s\t%s\t%s\t%s\t%u",
		 rec->index, h->bth.opcode, h->bth.dqpn, h->bth.psn, h->bth.pad,
		 h->bth.pkey, reth, aeth, atm, ack, deth,
		 __builtin_bswap32(p->icrc_wire));
}

static void check_rebuild(const char *name, const struct roce_pcap_rec *rec,
			  const struct roce_pkt *p, const struct roce_hdrs *h,
			  bool icrc_ok)
{
	uint8_t buf[16384];
	size_t len, ip_end = p->icrc_off + ROCE_ICRC_LEN;
	unsigned flags = h->udp.check ? ROCE_BUILD_UDP_CSUM : 0;
	int rc;

	rc = roce_build(h, roce_pkt_payload(p), p->payload_len, flags, buf,
			sizeof(buf), &len);
	if (rc != ROCE_OK)
		fail_msg("%s frame %" PRIu64 ": rebuild failed: %s", name, rec->index,
			 roce_status_name(rc));
	assert_int_equal(len, ip_end);
	/* a corrupted packet rebuilds with the ICRC it should have had */
	if (memcmp(buf, rec->data, icrc_ok ? ip_end : p->icrc_off) != 0)
		fail_msg("%s frame %" PRIu64 ": rebuilt bytes differ", name, rec->index);
	/* Ethernet padding after the IP packet is zeros */
	for (size_t i = ip_end; i < rec->caplen; i++)
		assert_int_equal(rec->data[i], 0);
}

static void check_file(const char *name)
{
	char path[512], line[512], ours[512];
	struct roce_pcap_reader *r;
	struct roce_pcap_rec rec;
	FILE *exp;
	int rc;

	snprintf(path, sizeof(path), VEC "/captures/%s.pcap", name);
	assert_int_equal(roce_pcap_open_read(path, &r, NULL, 0), ROCE_OK);
	snprintf(path, sizeof(path), VEC "/expected/%s.tsv", name);
	exp = fopen(path, "r");
	assert_non_null(exp);
	tot.files++;
	while ((rc = roce_pcap_next(r, &rec)) == ROCE_OK) {
		struct roce_pkt p;
		struct roce_hdrs h;
		bool icrc_ok;

		rc = roce_parse(rec.data, rec.caplen, 0, &p);
		if (rc == ROCE_E_ETHERTYPE || rc == ROCE_E_NOT_UDP || rc == ROCE_E_UDP_PORT ||
		    rc == ROCE_E_IP6_NEXT_HDR)
			continue;       /* TCP exchange, ARP, ND: not RoCE */
		icrc_ok = rc == ROCE_OK;
		if (rc == ROCE_E_ICRC) {
			tot.bad_icrc++;
			assert_string_equal(name, "host_peer_rc_pingpong");
			assert_true(rec.index == 105 || rec.index == 106);
		} else if (rc != ROCE_OK) {
			fail_msg("%s frame %" PRIu64 ": %s", name, rec.index,
				 roce_status_name(rc));
		}
		tot.packets++;
		tot.opcodes_seen[p.opcode]++;
		roce_decode(&p, &h);
		our_columns(&rec, &p, &h, ours, sizeof(ours));
		if (!fgets(line, sizeof(line), exp))
			fail_msg("%s: no expected line for frame %" PRIu64, name, rec.index);
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, ours) != 0)
			fail_msg("%s frame %" PRIu64 ":\n tshark: %s\n ours:   %s", name,
				 rec.index, line, ours);
		check_rebuild(name, &rec, &p, &h, icrc_ok);
	}
	assert_int_equal(rc, ROCE_E_EMPTY);
	assert_null(fgets(line, sizeof(line), exp));    /* tshark saw no more */
	fclose(exp);
	roce_pcap_close_read(r);
}

static void test_every_capture(void **state)
{
	DIR *d = opendir(VEC "/captures");
	struct dirent *e;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char name[256];
		size_t n = strlen(e->d_name);

		if (n < 6 || strcmp(e->d_name + n - 5, ".pcap") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 5), e->d_name);
		check_file(name);
	}
	closedir(d);
	assert_true(tot.files >= 13);
	assert_true(tot.packets > 2000);
	assert_int_equal(tot.bad_icrc, 2);
}

static void test_every_opcode_family_seen(void **state)
{
	static const uint8_t must[] = {
		ROCE_OP_RC_SEND_FIRST, ROCE_OP_RC_SEND_MIDDLE, ROCE_OP_RC_SEND_LAST,
		ROCE_OP_RC_SEND_ONLY, ROCE_OP_RC_WRITE_FIRST, ROCE_OP_RC_WRITE_MIDDLE,
		ROCE_OP_RC_WRITE_LAST, ROCE_OP_RC_WRITE_ONLY, ROCE_OP_RC_READ_REQUEST,
		ROCE_OP_RC_READ_RESP_FIRST, ROCE_OP_RC_READ_RESP_MIDDLE,
		ROCE_OP_RC_READ_RESP_LAST, ROCE_OP_RC_READ_RESP_ONLY, ROCE_OP_RC_ACK,
		ROCE_OP_RC_ATOMIC_ACK, ROCE_OP_RC_CMP_SWAP, ROCE_OP_RC_FETCH_ADD,
		ROCE_OP_UC_SEND_FIRST, ROCE_OP_UC_SEND_MIDDLE, ROCE_OP_UC_SEND_LAST,
		ROCE_OP_UD_SEND_ONLY,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(must); i++)
		if (!tot.opcodes_seen[must[i]])
			fail_msg("opcode %s not in the golden captures",
				 roce_opcode_name(must[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_capture),
		cmocka_unit_test(test_every_opcode_family_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
