/* SPDX-License-Identifier: MIT */
/*
 * roce/sim.h through its ABI only: two simulated NICs, each brought up by
 * the seed's power-on sequence in register writes (seed 000 section 3.3,
 * src/driver/poweron.c's order), a QP and an MR programmed through the
 * table windows, an RDMA WRITE from one to the other with every frame
 * moved by pull/push and the clock advanced by the test; the peer's DDR
 * and the completion checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "roce/regs.h"
#include "roce/sim.h"
#include "roce/status.h"
#include "roce/verbs.h"

#define QPN       17u
#define LINK_US   100u
#define MR_IDX    1u
#define MR_PA     0x2000u
#define MR_VA     0x7f0000100000ull
#define MR_LEN    0x4000u
#define KEY(b)    (MR_IDX << 8 | (b))

struct side {
	struct roce_sim *s;
	unsigned long long mac;
	uint32_t ip;
	uint8_t key;
};

static void wr(struct roce_sim *s, uint32_t addr, uint32_t v)
{
	int resp = roce_sim_axil_write(s, addr, v);

	if (resp != ROCE_SIM_OKAY)
		fail_msg("write 0x%x = 0x%x: response %d", addr, v, resp);
}

static uint32_t rd(struct roce_sim *s, uint32_t addr)
{
	unsigned int v = 0;

	assert_int_equal(roce_sim_axil_read(s, addr, &v), ROCE_SIM_OKAY);
	return v;
}

static void qp_commit(struct roce_sim *s, uint32_t state, const struct side *peer)
{
	wr(s, ROCE_REG_QP_INDEX, QPN);
	wr(s, ROCE_REG_QP_STATE, state);
	/* RC, MTU 1024, remote write allowed */
	wr(s, ROCE_REG_QP_TYPE_MTU, ROCE_QPT_RC | ROCE_MTU_1024 << 8 | 0x3u << 16);
	wr(s, ROCE_REG_QP_DEST_QPN, QPN);
	wr(s, ROCE_REG_QP_SQ_PSN, 100);
	wr(s, ROCE_REG_QP_RQ_PSN, 100);
	wr(s, ROCE_REG_QP_PEER_IP, peer->ip);
	wr(s, ROCE_REG_QP_PEER_MAC_LOW, (uint32_t)peer->mac);
	wr(s, ROCE_REG_QP_PEER_MAC_HIGH, (uint32_t)(peer->mac >> 32));
	wr(s, ROCE_REG_QP_TIMERS, 14u | 7u << 8 | 7u << 16 | 12u << 24);
	wr(s, ROCE_REG_QP_PD, 1);
	wr(s, ROCE_REG_QP_COMMIT, 1);
	assert_int_equal(rd(s, ROCE_REG_QP_COMMIT) >> 31, 0);
	assert_int_equal(rd(s, ROCE_REG_QP_CMD_STATUS), ROCE_OK);
}

/* The seed's order: soft reset, addresses, QP (RESET), MR, release, wait
 * for the link, enable; then the QP up the IBA 10.3.1 ladder. */
static void power_on(struct side *me, const struct side *peer)
{
	struct roce_sim *s = me->s;
	unsigned polls = 0;

	wr(s, ROCE_REG_CTRL, ROCE_CTRL_SOFT_RESET);
	wr(s, ROCE_REG_MAC_LOW, (uint32_t)me->mac);
	wr(s, ROCE_REG_MAC_HIGH, (uint32_t)(me->mac >> 32));
	wr(s, ROCE_REG_IP_ADDR, me->ip);
	wr(s, ROCE_REG_PEER_MAC_LOW, (uint32_t)peer->mac);
	wr(s, ROCE_REG_PEER_MAC_HIGH, (uint32_t)(peer->mac >> 32));
	wr(s, ROCE_REG_PEER_IP, peer->ip);
	qp_commit(s, ROCE_QPS_RESET, peer);
	wr(s, ROCE_REG_MR_INDEX, MR_IDX);
	wr(s, ROCE_REG_MR_ACCESS, 0x80000003u);       /* VALID, local + remote write */
	wr(s, ROCE_REG_MR_VA_LOW, (uint32_t)MR_VA);
	wr(s, ROCE_REG_MR_VA_HIGH, (uint32_t)(MR_VA >> 32));
	wr(s, ROCE_REG_MR_PA_LOW, MR_PA);
	wr(s, ROCE_REG_MR_LEN_LOW, MR_LEN);
	wr(s, ROCE_REG_MR_RKEY, KEY(me->key));
	wr(s, ROCE_REG_MR_LKEY, KEY(me->key));
	wr(s, ROCE_REG_MR_PD, 1);
	wr(s, ROCE_REG_MR_COMMIT, 1);
	assert_int_equal(rd(s, ROCE_REG_MR_CMD_STATUS), ROCE_OK);
	wr(s, ROCE_REG_CTRL, 0);
	/* the link comes up LINK_US of simulated time after the release */
	while (!(rd(s, ROCE_REG_STATUS) & ROCE_STATUS_LINK_READY)) {
		assert_true(++polls <= 2 * LINK_US);
		roce_sim_advance(s, 1000);
	}
	assert_in_range(polls, LINK_US - 1, LINK_US + 1);
	wr(s, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN);
	qp_commit(s, ROCE_QPS_INIT, peer);
	qp_commit(s, ROCE_QPS_RTR, peer);
	qp_commit(s, ROCE_QPS_RTS, peer);
}

/* FNV-1a over every frame moved, in order: two runs compare by it */
static uint64_t frames_hash;

/* Every frame src sent, into dst; returns how many. */
static unsigned xfer(struct roce_sim *src, struct roce_sim *dst)
{
	static unsigned char f[ROCE_SIM_FRAME_MAX];
	unsigned n = 0;
	int len;

	while ((len = roce_sim_pull_frame(src, f)) > 0) {
		for (int i = 0; i < len; i++)
			frames_hash = (frames_hash ^ f[i]) * 0x100000001b3ull;
		assert_int_equal(roce_sim_push_frame(dst, f, len), 0);
		n++;
	}
	return n;
}

static void test_bus_responses(void **state)
{
	struct roce_sim *s = roce_sim_create(0x020000000001ull, 0x0a000001, 1024, 32, 0);
	unsigned int v = 1;

	(void)state;
	assert_non_null(s);
	assert_int_equal(roce_sim_axil_read(s, ROCE_REG_DEV_ID, &v), ROCE_SIM_OKAY);
	assert_int_equal(v, 0x52434532u);
	assert_int_equal(rd(s, ROCE_REG_QP_COUNT), 32);
	assert_int_equal(rd(s, ROCE_REG_MEM_SIZE_KB), 1024);
	assert_int_equal(roce_sim_axil_write(s, ROCE_REG_DEV_ID, 0), ROCE_SIM_SLVERR);
	assert_int_equal(roce_sim_axil_read(s, 0x2000, &v), ROCE_SIM_DECERR);
	assert_int_equal(v, 0);
	assert_int_equal(roce_sim_axil_write(s, 0x3, 0), ROCE_SIM_DECERR);
	/* QPN 32 is beyond this device's table */
	assert_int_equal(roce_sim_axil_write(s, ROCE_REG_QP_INDEX, 32), ROCE_SIM_SLVERR);
	assert_int_equal(roce_sim_now(s), 0);
	roce_sim_advance(s, 1234);
	assert_int_equal(roce_sim_now(s), 1234);
	roce_sim_destroy(s);
	/* bad configurations */
	assert_null(roce_sim_create(1ull << 48, 0, 0, 0, 0));
	assert_null(roce_sim_create(2, 0, 0, 17, 0));
	assert_null(roce_sim_create(2, 0, 1u << 31, 0, 0));
}

static void test_mem_window(void **state)
{
	struct roce_sim *s = roce_sim_create(0x020000000001ull, 0x0a000001, 64, 0, 0);
	unsigned char a[ROCE_SIM_MEM_CHUNK], b[ROCE_SIM_MEM_CHUNK];

	(void)state;
	assert_non_null(s);
	for (unsigned i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(i * 7 + 1);
	assert_int_equal(roce_sim_mem_write(s, 64 * 1024 - 256, a, 256), 0);
	assert_int_equal(roce_sim_mem_read(s, 64 * 1024 - 256, b, 256), 0);
	assert_memory_equal(a, b, 256);
	assert_int_equal(roce_sim_mem_write(s, 64 * 1024 - 255, a, 256), -1);
	assert_int_equal(roce_sim_mem_read(s, 0, b, 0), -1);
	assert_int_equal(roce_sim_mem_read(s, 0, b, ROCE_SIM_MEM_CHUNK + 1), -1);
	assert_int_equal(roce_sim_push_frame(s, a, 0), -1);
	assert_int_equal(roce_sim_pull_frame(s, b), 0);
	roce_sim_destroy(s);
}

/* Returns the hash of every frame the scenario moved. */
static uint64_t write_scenario(void)
{
	struct side a = { .mac = 0x02000000000aull, .ip = 0x0a000001, .key = 0x5a };
	struct side b = { .mac = 0x02000000000bull, .ip = 0x0a000002, .key = 0xc3 };
	unsigned char src[3000], got[ROCE_SIM_MEM_CHUNK];
	unsigned long long wr_id;
	unsigned int qpn, len, frames = 0, acks = 0;
	int status, opcode;

	frames_hash = 0xcbf29ce484222325ull;
	a.s = roce_sim_create(0x020000000099ull, 0, 1024, 32, LINK_US);
	b.s = roce_sim_create(0x020000000098ull, 0, 1024, 32, LINK_US);
	assert_non_null(a.s);
	assert_non_null(b.s);
	power_on(&a, &b);
	power_on(&b, &a);
	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 13 + 5);
	for (unsigned off = 0; off < sizeof(src); off += ROCE_SIM_MEM_CHUNK) {
		int n = sizeof(src) - off < ROCE_SIM_MEM_CHUNK ? (int)(sizeof(src) - off)
							      : ROCE_SIM_MEM_CHUNK;

		assert_int_equal(roce_sim_mem_write(a.s, MR_PA + off, src + off, n), 0);
	}
	/* a WRITE of 3000 bytes at MTU 1024: FIRST, MIDDLE, LAST */
	assert_int_equal(roce_sim_post_send(a.s, QPN, ROCE_WR_RDMA_WRITE, 77, MR_VA,
					    KEY(a.key), sizeof(src), MR_VA + 16, KEY(b.key)),
			 ROCE_OK);
	for (int round = 0; round < 10; round++) {
		frames += xfer(a.s, b.s);
		acks += xfer(b.s, a.s);
		roce_sim_advance(a.s, 1000);
		roce_sim_advance(b.s, 1000);
	}
	assert_int_equal(frames, 3);
	assert_true(acks >= 1);
	assert_int_equal(roce_sim_poll_cq(a.s, &wr_id, &status, &opcode, &qpn, &len), 1);
	assert_int_equal(wr_id, 77);
	assert_int_equal(status, ROCE_WC_SUCCESS);
	assert_int_equal(opcode, ROCE_WC_RDMA_WRITE);
	assert_int_equal(qpn, QPN);
	assert_int_equal(roce_sim_poll_cq(a.s, &wr_id, &status, &opcode, &qpn, &len), 0);
	for (unsigned off = 0; off < sizeof(src); off += ROCE_SIM_MEM_CHUNK) {
		int n = sizeof(src) - off < ROCE_SIM_MEM_CHUNK ? (int)(sizeof(src) - off)
							      : ROCE_SIM_MEM_CHUNK;

		assert_int_equal(roce_sim_mem_read(b.s, MR_PA + 16 + off, got, n), 0);
		assert_memory_equal(got, src + off, (size_t)n);
	}
	/* the counters say the same, read as the seed's STAT registers */
	assert_int_equal(rd(b.s, ROCE_REG_STAT_CNT_LOW(0) + 16), 3); /* rx_pkts */
	/* a second WRITE: no completion while its frame waits to be pulled */
	assert_int_equal(roce_sim_post_send(a.s, QPN, ROCE_WR_RDMA_WRITE, 78, MR_VA,
					    KEY(a.key), 8, MR_VA, KEY(b.key)), ROCE_OK);
	assert_int_equal(roce_sim_poll_cq(a.s, &wr_id, &status, &opcode, &qpn, &len), 0);
	assert_int_equal(roce_sim_post_send(a.s, QPN, 9, 1, 0, 0, 0, 0, 0), ROCE_E_INVAL);
	assert_int_equal(roce_sim_post_send(a.s, 18, ROCE_WR_RDMA_WRITE, 1, 0, 0, 0, 0, 0),
			 ROCE_E_NOENT);
	roce_sim_destroy(a.s);
	roce_sim_destroy(b.s);
	return frames_hash;
}

static void test_write_between_two(void **state)
{
	(void)state;
	write_scenario();
}

/* No wall clock and no thread: the same calls give the same frames. */
static void test_same_frames_twice(void **state)
{
	uint64_t first = write_scenario();

	(void)state;
	assert_true(first == write_scenario());
}

/* roce_sim_trace_open: its file, its first records, "" to stop, a path
 * that cannot be created (the records' contents: sim_trace.sh). */
static void test_trace_open(void **state)
{
	struct roce_sim *s = roce_sim_create(0x020000000001ull, 0x0a000001, 64, 32, 0);
	char path[] = "/tmp/test_sim_trace_XXXXXX", line[256];
	unsigned int v;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_non_null(s);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(roce_sim_trace_open(s, "/nonexistent/dir/t", 0), -1);
	assert_int_equal(roce_sim_trace_open(s, path, 3), 0);
	roce_sim_advance(s, 250);
	assert_int_equal(roce_sim_axil_read(s, ROCE_REG_DEV_ID, &v), ROCE_SIM_OKAY);
	assert_int_equal(roce_sim_axil_write(s, ROCE_REG_DEV_ID, 0), ROCE_SIM_SLVERR);
	assert_int_equal(roce_sim_trace_open(s, "", 0), 0);     /* closes the file */
	assert_int_equal(roce_sim_axil_read(s, ROCE_REG_DEV_ID, &v), ROCE_SIM_OKAY);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "# roce-trace 1\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "0 3 create mac=20000000001 ip=a000001 mem_kib=64 "
			    "qp_count=32 link_delay_us=0\n");
	/* an advance in which the engine did nothing writes nothing */
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "250 3 rd addr=28 data=52434532 resp=0\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "250 3 wr addr=28 data=0 resp=2\n");
	assert_null(fgets(line, sizeof(line), f));              /* stopped */
	fclose(f);
	unlink(path);
	roce_sim_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bus_responses),
		cmocka_unit_test(test_mem_window),
		cmocka_unit_test(test_write_between_two),
		cmocka_unit_test(test_same_frames_twice),
		cmocka_unit_test(test_trace_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
