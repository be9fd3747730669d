/* SPDX-License-Identifier: MIT */
/*
 * sim_record A.trace B.trace [--drop PCT] [--seed N] [--key-file K]: a scenario through
 * roce/sim.h only, each NIC's transaction trace into its file. Two NICs
 * brought up by the power-on sequence in register writes (as test_sim),
 * then B posts a receive, A a WRITE of 3000 bytes, a SEND of 100 and a
 * READ of 600 back; the test moves every frame between them, dropping PCT
 * percent with a PRNG seeded by N (the wire's faults on the caller's
 * clock), and advances both clocks 100 us per round until every
 * completion is in. Exit 0 when all succeeded and B's and A's DDR hold
 * what they must, 1 otherwise, 2 on usage. tests/scripts/sim_trace.sh runs
 * it twice and wants the same bytes, and replays the traces.
 *
 * --key-file K (64 bytes): B's MR goes through AES-XTS (key slot 0, loaded
 * through the STAGE block, 512-byte units), so B's trace holds a key
 * record and B's DDR ciphertext; what A READs back is still the
 * plaintext. tests/scripts/demo_stage_trace.sh replays it with the key.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/layout.h"
#include "roce/regs.h"
#include "roce/stage.h"
#include "roce/sim.h"
#include "roce/verbs.h"

#define QPN     17u
#define MR_PA   0x2000u
#define MR_VA   0x7f0000100000ull
#define MR_LEN  0x4000u
#define KEY(b)  (1u << 8 | (b))
#define ROUNDS  2000            /* 200 ms of simulated time at most */

struct side {
	struct roce_sim *s;
	unsigned long long mac;
	uint32_t ip;
	uint8_t key;
};

static int failed;
static uint64_t rng;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "sim_record: %s\n", what);
		failed = 1;
	}
}

static void wr(struct roce_sim *s, uint32_t addr, uint32_t v)
{
	check(roce_sim_axil_write(s, addr, v) == ROCE_SIM_OKAY, "register write refused");
}

static uint32_t rd(struct roce_sim *s, uint32_t addr)
{
	unsigned int v = 0;

	check(roce_sim_axil_read(s, addr, &v) == ROCE_SIM_OKAY, "register read refused");
	return v;
}

static void qp_commit(struct roce_sim *s, uint32_t state, const struct side *peer)
{
	wr(s, ROCE_REG_QP_INDEX, QPN);
	wr(s, ROCE_REG_QP_STATE, state);
	/* RC, MTU 1024, local write, remote write and read */
	wr(s, ROCE_REG_QP_TYPE_MTU, ROCE_QPT_RC | ROCE_MTU_1024 << 8 | 0x7u << 16);
	wr(s, ROCE_REG_QP_DEST_QPN, QPN);
	wr(s, ROCE_REG_QP_SQ_PSN, 100);
	wr(s, ROCE_REG_QP_RQ_PSN, 100);
	wr(s, ROCE_REG_QP_PEER_IP, peer->ip);
	wr(s, ROCE_REG_QP_PEER_MAC_LOW, (uint32_t)peer->mac);
	wr(s, ROCE_REG_QP_PEER_MAC_HIGH, (uint32_t)(peer->mac >> 32));
	/* timeout 8 (1 ms), retry 7, RNR retry 7, min RNR timer 1 */
	wr(s, ROCE_REG_QP_TIMERS, 8u | 7u << 8 | 7u << 16 | 1u << 24);
	wr(s, ROCE_REG_QP_RD_ATOMIC, 4u | 4u << 8);
	wr(s, ROCE_REG_QP_PD, 1);
	wr(s, ROCE_REG_QP_COMMIT, 1);
	check(rd(s, ROCE_REG_QP_CMD_STATUS) == 0, "QP commit failed");
}

/* The key into slot 0 (word n: bytes 4n..4n+3, byte 4n low), LOADed. */
static void key_load(struct roce_sim *s, const unsigned char key[ROCE_STAGE_KEY_LEN])
{
	wr(s, ROCE_REG_STAGE_KEY_SLOT, 0);
	for (unsigned w = 0; w < ROCE_STAGE_KEY_LEN / 4; w++)
		wr(s, ROCE_REG_STAGE_KEY(w), (uint32_t)key[4 * w] | (uint32_t)key[4 * w + 1] << 8 |
		   (uint32_t)key[4 * w + 2] << 16 | (uint32_t)key[4 * w + 3] << 24);
	wr(s, ROCE_REG_STAGE_KEY_CMD, ROCE_STAGE_KEY_CMD_LOAD);
	check(rd(s, ROCE_REG_STAGE_KEY_STATUS) == 0, "key load refused");
}

static void power_on(struct side *me, const struct side *peer, const unsigned char *key)
{
	struct roce_sim *s = me->s;
	unsigned polls = 0;

	wr(s, ROCE_REG_CTRL, ROCE_CTRL_SOFT_RESET);
	wr(s, ROCE_REG_MAC_LOW, (uint32_t)me->mac);
	wr(s, ROCE_REG_MAC_HIGH, (uint32_t)(me->mac >> 32));
	wr(s, ROCE_REG_IP_ADDR, me->ip);
	qp_commit(s, ROCE_QPS_RESET, peer);
	wr(s, ROCE_REG_MR_INDEX, 1);
	wr(s, ROCE_REG_MR_ACCESS, 0x80000007u);       /* VALID, local write, remote write + read */
	wr(s, ROCE_REG_MR_VA_LOW, (uint32_t)MR_VA);
	wr(s, ROCE_REG_MR_VA_HIGH, (uint32_t)(MR_VA >> 32));
	wr(s, ROCE_REG_MR_PA_LOW, MR_PA);
	wr(s, ROCE_REG_MR_LEN_LOW, MR_LEN);
	wr(s, ROCE_REG_MR_RKEY, KEY(me->key));
	wr(s, ROCE_REG_MR_LKEY, KEY(me->key));
	wr(s, ROCE_REG_MR_PD, 1);
	if (key) {              /* XTS alone, slot 0, 512-byte units */
		key_load(s, key);
		wr(s, ROCE_REG_MR_STAGE, ROCE_STAGE_XTS << ROCE_MR_STAGE_CHAIN_SHIFT(0));
	}
	wr(s, ROCE_REG_MR_COMMIT, 1);
	check(rd(s, ROCE_REG_MR_CMD_STATUS) == 0, "MR commit failed");
	wr(s, ROCE_REG_CTRL, 0);
	while (!(rd(s, ROCE_REG_STATUS) & ROCE_STATUS_LINK_READY) && ++polls < 1000)
		roce_sim_advance(s, 1000);
	wr(s, ROCE_REG_CTRL, ROCE_CTRL_ENGINE_EN);
	qp_commit(s, ROCE_QPS_INIT, peer);
	qp_commit(s, ROCE_QPS_RTR, peer);
	qp_commit(s, ROCE_QPS_RTS, peer);
}

/* xorshift64: the wire's losses, the same for the same seed */
static unsigned pct(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % 100u);
}

static void xfer(struct roce_sim *src, struct roce_sim *dst, unsigned drop)
{
	static unsigned char f[ROCE_SIM_FRAME_MAX];
	int len;

	while ((len = roce_sim_pull_frame(src, f)) > 0)
		if (pct() >= drop)
			roce_sim_push_frame(dst, f, len);
}

static void mem_put(struct roce_sim *s, uint64_t pa, const unsigned char *b, unsigned len)
{
	for (unsigned off = 0; off < len; off += ROCE_SIM_MEM_CHUNK) {
		int n = len - off < ROCE_SIM_MEM_CHUNK ? (int)(len - off) : ROCE_SIM_MEM_CHUNK;

		check(roce_sim_mem_write(s, pa + off, b + off, n) == 0, "DDR write");
	}
}

static void mem_check(struct roce_sim *s, uint64_t pa, const unsigned char *want,
		      unsigned len, const char *what)
{
	unsigned char got[ROCE_SIM_MEM_CHUNK];

	for (unsigned off = 0; off < len; off += ROCE_SIM_MEM_CHUNK) {
		int n = len - off < ROCE_SIM_MEM_CHUNK ? (int)(len - off) : ROCE_SIM_MEM_CHUNK;

		check(roce_sim_mem_read(s, pa + off, got, n) == 0 &&
		      !memcmp(got, want + off, (size_t)n), what);
	}
}

/* Completions of s: counts the successful ones, flags any other. */
static unsigned reap(struct roce_sim *s)
{
	unsigned long long wr_id;
	unsigned int qpn, len, n = 0;
	int status, opcode;

	while (roce_sim_poll_cq(s, &wr_id, &status, &opcode, &qpn, &len) == 1) {
		check(status == ROCE_WC_SUCCESS, "a completion failed");
		n++;
	}
	return n;
}

static int usage(void)
{
	fprintf(stderr, "usage: sim_record A.trace B.trace [--drop PCT] [--seed N] [--key-file K]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct side a = { .mac = 0x02000000000aull, .ip = 0x0a000001, .key = 0x5a };
	struct side b = { .mac = 0x02000000000bull, .ip = 0x0a000002, .key = 0xc3 };
	static unsigned char src[3000], back[600];
	unsigned drop = 0, done_a = 0, done_b = 0;
	static unsigned char key[ROCE_STAGE_KEY_LEN + 1];
	const char *key_file = NULL;

	rng = 1;
	if (argc < 3)
		return usage();
	for (int i = 3; i + 1 < argc + 1; i += 2) {
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(argv[i], "--drop"))
			drop = (unsigned)strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seed"))
			rng = strtoull(argv[i + 1], NULL, 0) | 1u;
		else if (!strcmp(argv[i], "--key-file"))
			key_file = argv[i + 1];
		else
			return usage();
	}
	if (drop > 50)
		return usage();
	if (key_file) {
		FILE *f = fopen(key_file, "rb");
		size_t n = f ? fread(key, 1, sizeof(key), f) : 0;

		if (f)
			fclose(f);
		if (n != ROCE_STAGE_KEY_LEN)
			return usage();
	}
	a.s = roce_sim_create(a.mac, a.ip, 1024, 32, 100);
	b.s = roce_sim_create(b.mac, b.ip, 1024, 32, 100);
	if (!a.s || !b.s || roce_sim_trace_open(a.s, argv[1], 0) ||
	    roce_sim_trace_open(b.s, argv[2], 1)) {
		fprintf(stderr, "sim_record: cannot create the NICs or their traces\n");
		return 1;
	}
	power_on(&a, &b, NULL);
	power_on(&b, &a, key_file ? key : NULL);
	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 13 + 5);
	mem_put(a.s, MR_PA, src, sizeof(src));
	check(roce_sim_post_recv(b.s, QPN, 5, MR_VA + 0x3000, KEY(b.key), 256) == 0, "post_recv");
	check(roce_sim_post_send(a.s, QPN, ROCE_WR_RDMA_WRITE, 1, MR_VA, KEY(a.key),
				 sizeof(src), MR_VA + 16, KEY(b.key)) == 0, "post WRITE");
	check(roce_sim_post_send(a.s, QPN, ROCE_WR_SEND, 2, MR_VA + 100, KEY(a.key),
				 100, 0, 0) == 0, "post SEND");
	check(roce_sim_post_send(a.s, QPN, ROCE_WR_RDMA_READ, 3, MR_VA + 0x3800, KEY(a.key),
				 sizeof(back), MR_VA + 16, KEY(b.key)) == 0, "post READ");
	for (int round = 0; round < ROUNDS && (done_a < 3 || done_b < 1); round++) {
		xfer(a.s, b.s, drop);
		xfer(b.s, a.s, drop);
		roce_sim_advance(a.s, 100000);
		roce_sim_advance(b.s, 100000);
		done_a += reap(a.s);
		done_b += reap(b.s);
	}
	check(done_a == 3 && done_b == 1, "not every completion came");
	if (!key_file) {        /* else B's DDR holds ciphertext: A's READ checks it */
		mem_check(b.s, MR_PA + 16, src, sizeof(src), "B's DDR lacks the WRITE");
		mem_check(b.s, MR_PA + 0x3000, src + 100, 100, "B's DDR lacks the SEND");
	}
	mem_check(a.s, MR_PA + 0x3800, src, sizeof(back), "A's DDR lacks the READ");
	roce_sim_destroy(a.s);
	roce_sim_destroy(b.s);
	return failed;
}
