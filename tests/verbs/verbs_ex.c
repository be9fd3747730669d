/* SPDX-License-Identifier: MIT */
/*
 * A libibverbs program of our own, built against rdma-core's header and
 * run under roce-run by tests/scripts/verbs_ex.sh, two of it on a veth
 * pair: the verbs of rdma-core's newer API, end to end.
 *   client  on an RC QP of ibv_create_qp_ex (every send op) one
 *           ibv_wr_start .. ibv_wr_complete batch: an inline SEND, a
 *           WRITE with immediate from an SGE list, an inline WRITE from
 *           a list of buffers, a READ, a fetch-and-add and a
 *           compare-and-swap; then ibv_post_send inline on RC, and UD
 *           inline SENDs by both APIs; each inline source wiped as soon
 *           as it is handed over. Its completions through
 *           ibv_start_poll/next_poll/end_poll and the ibv_wc_read_*
 *           accessors (wall-clock stamps in order, within the run). The
 *           refusals: over max_inline_data, too many SGEs, the send ops
 *           and wc_flags not offered, an aborted batch that sends nothing.
 *   server  receives on an extended CQ with a completion channel
 *           (ibv_req_notify_cq on ibv_cq_ex_to_cq, ibv_get_cq_event), reads
 *           opcode, byte_len, imm_data, qp_num, src_qp and wc_flags, and
 *           checks the bytes the WRITEs and atomics left.
 * Usage: verbs_ex server PORT | client SERVER_IPV4 PORT.
 * Prints "verbs_ex: ok" and exits 0 when every check held.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oob.h"
#include "qp_rts.h"

static int failed;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "verbs_ex:%d: %s\n", __LINE__, #c); \
			       failed = 1; } } while (0)

#define BUF (64 * 1024)
#define QKEY 0x11111111u
#define INLINE 256
#define RD_DEPTH 128            /* READs/atomics outstanding: rxe's most */
#define N_READS 100             /* client_reads: READs, then fetch-and-adds */
#define N_FADDS 20
/* where things land in the server's buffer */
#define AT_WIMM 4096            /* WRITE with immediate: 300 bytes */
#define AT_WINL 8192            /* inline WRITE from two buffers: 150 */
#define AT_READ 12288           /* what the client READs: 64 */
#define AT_FADD 16384           /* fetch-and-add's word */
#define AT_CSWP 16392           /* compare-and-swap's word */
#define AT_RECV 32768           /* RC receives, 1 KB each */
#define AT_UD 49152             /* UD receives, 1 KB each (GRH first) */

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq_ex *cq;
	struct ibv_qp *rc, *ud;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

/* What the sides swap: QPNs, GID, buffer and key */
struct card {
	uint32_t rc, ud, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct ibv_qp *make_qp(struct side *s, enum ibv_qp_type type, uint64_t ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = ibv_cq_ex_to_cq(s->cq), .recv_cq = ibv_cq_ex_to_cq(s->cq),
		.qp_type = type, .pd = s->pd,
		.cap = { .max_send_wr = 160, .max_recv_wr = 32, .max_send_sge = 2,
			 .max_recv_sge = 1, .max_inline_data = INLINE },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
			     IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(s->ctx, &a);

	CHECK(qp && a.cap.max_inline_data == INLINE && ibv_qp_to_qp_ex(qp));
	return qp;
}

static int open_side(struct side *s, bool channel)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |
			    IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};

	s->ctx = l && l[0] ? ibv_open_device(l[0]) : NULL;
	ibv_free_device_list(l);
	if (!s->ctx)
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	s->ch = channel ? ibv_create_comp_channel(s->ctx) : NULL;
	ca.channel = s->ch;
	s->cq = ibv_create_cq_ex(s->ctx, &ca);
	s->buf = calloc(1, BUF);
	if (!s->pd || !s->cq || !s->buf)
		return -1;
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	s->rc = make_qp(s, IBV_QPT_RC, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	s->ud = make_qp(s, IBV_QPT_UD, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	return s->mr && s->rc && s->ud && !ibv_query_gid(s->ctx, 1, 1, &s->gid) ? 0 : -1;
}

/* Everything open_side made, released (and checked: each verb's 0) */
static void close_side(struct side *s)
{
	CHECK(!s->rc || ibv_destroy_qp(s->rc) == 0);
	CHECK(!s->ud || ibv_destroy_qp(s->ud) == 0);
	CHECK(!s->mr || ibv_dereg_mr(s->mr) == 0);
	CHECK(!s->cq || ibv_destroy_cq(ibv_cq_ex_to_cq(s->cq)) == 0);
	CHECK(!s->ch || ibv_destroy_comp_channel(s->ch) == 0);
	CHECK(!s->pd || ibv_dealloc_pd(s->pd) == 0);
	CHECK(!s->ctx || ibv_close_device(s->ctx) == 0);
	free(s->buf);
}

static int ud_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* Swap cards, then both QPs to RTS toward the peer's */
static int connect_sides(int fd, struct side *s, struct card *peer)
{
	struct card me = { .rc = s->rc->qp_num, .ud = s->ud->qp_num, .rkey = s->mr->rkey,
			   .addr = (uintptr_t)s->buf };
	union ibv_gid g;

	memcpy(me.gid, s->gid.raw, 16);
	if (oob_swap(fd, &me, peer, sizeof(me)))
		return -1;
	memcpy(g.raw, peer->gid, 16);
	/* rxe's 128 READs/atomics each way, as ib_read_bw moves its QP */
	return qp_to_rts_rd(s->rc, peer->rc, &g, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC, RD_DEPTH) || ud_to_rts(s->ud);
}

/* n completions through start/next/end poll (10 s at most): each one's
   wr_id, status, opcode, byte_len, wc_flags, imm (host order), src_qp,
   qp_num and stamp into the arrays */
struct got {
	uint64_t id;
	enum ibv_wc_status st;
	enum ibv_wc_opcode op;
	uint32_t len, flags, imm, src_qp, qp_num;
	uint64_t ns;
};

/* What the CQ holds now, up to n, in one start/next/end poll */
static int drain(struct side *s, struct got *g, int n)
{
	struct ibv_poll_cq_attr pa = { 0 };
	int k = 0, rc = ibv_start_poll(s->cq, &pa);

	if (rc == ENOENT)
		return 0;
	if (rc)
		return -1;
	do {
		g[k].id = s->cq->wr_id;
		g[k].st = s->cq->status;
		g[k].op = ibv_wc_read_opcode(s->cq);
		g[k].len = ibv_wc_read_byte_len(s->cq);
		g[k].flags = ibv_wc_read_wc_flags(s->cq);
		g[k].imm = ntohl(ibv_wc_read_imm_data(s->cq));
		g[k].src_qp = ibv_wc_read_src_qp(s->cq);
		g[k].qp_num = ibv_wc_read_qp_num(s->cq);
		g[k].ns = ibv_wc_read_completion_wallclock_ns(s->cq);
		k++;
	} while (k < n && ibv_next_poll(s->cq) == 0);
	ibv_end_poll(s->cq);
	return k;
}

/* n completions (10 s at most), sorted by wr_id */
static int poll_ex(struct side *s, struct got *g, int n)
{
	int k = 0;

	for (time_t t0 = time(NULL); k < n && time(NULL) - t0 < 10;) {
		int j = drain(s, g + k, n - k);

		if (j < 0)
			return -1;
		k += j;
	}
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && g[j].id < g[j - 1].id; j--) {
			struct got t = g[j];

			g[j] = g[j - 1];
			g[j - 1] = t;
		}
	return k;
}

static void post_recvs(struct side *s)
{
	for (int i = 0; i < 8; i++) {
		struct ibv_sge rs = { (uintptr_t)s->buf + AT_RECV + i * 1024u, 1024, s->mr->lkey };
		struct ibv_sge us = { (uintptr_t)s->buf + AT_UD + i * 1024u, 1024, s->mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 100 + (uint64_t)i, .sg_list = &rs, .num_sge = 1 };
		struct ibv_recv_wr u = { .wr_id = 200 + (uint64_t)i, .sg_list = &us, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		CHECK(ibv_post_recv(s->rc, &r, &bad) == 0 && ibv_post_recv(s->ud, &u, &bad) == 0);
	}
}

/* ---- server ------------------------------------------------------------- */

/* The receives, by the completion channel: 3 on RC, 2 on UD */
static void server_receives(struct side *s, const struct card *peer)
{
	struct got g[5];
	uint8_t want[INLINE];
	int k = 0;

	/* arm, take what came, sleep on the channel only when nothing did */
	for (time_t t0 = time(NULL); k < 5 && !failed && time(NULL) - t0 < 10;) {
		struct ibv_cq *cq;
		void *cctx;
		int j;

		CHECK(ibv_req_notify_cq(ibv_cq_ex_to_cq(s->cq), 0) == 0);
		j = drain(s, g + k, 5 - k);
		CHECK(j >= 0);
		if (j > 0) {
			k += j;
			continue;
		}
		CHECK(ibv_get_cq_event(s->ch, &cq, &cctx) == 0 && cq == ibv_cq_ex_to_cq(s->cq));
		ibv_ack_cq_events(cq, 1);
	}
	CHECK(k == 5);
	/* RC in order: the inline SEND, the WRITE with immediate, the
	   ibv_post_send inline SEND */
	CHECK(g[0].id == 100 && g[0].st == IBV_WC_SUCCESS && g[0].op == IBV_WC_RECV &&
	      g[0].len == 100 && g[0].qp_num == s->rc->qp_num && !(g[0].flags & IBV_WC_WITH_IMM));
	pattern(want, 100, 1);
	CHECK(memcmp(s->buf + AT_RECV, want, 100) == 0);
	CHECK(g[1].id == 101 && g[1].op == IBV_WC_RECV_RDMA_WITH_IMM && g[1].imm == 7 &&
	      (g[1].flags & IBV_WC_WITH_IMM));
	CHECK(g[2].id == 102 && g[2].op == IBV_WC_RECV && g[2].len == 200);
	pattern(want, 200, 3);
	CHECK(memcmp(s->buf + AT_RECV + 2048, want, 200) == 0);
	/* UD: the wr API's inline SEND with immediate, then ibv_post_send's */
	CHECK(g[3].id == 200 && g[3].op == IBV_WC_RECV && g[3].len == 40 + 64 &&
	      g[3].src_qp == peer->ud && g[3].qp_num == s->ud->qp_num && g[3].imm == 9 &&
	      (g[3].flags & IBV_WC_GRH) && (g[3].flags & IBV_WC_WITH_IMM));
	pattern(want, 64, 4);
	CHECK(memcmp(s->buf + AT_UD + 40, want, 64) == 0);
	CHECK(g[4].id == 201 && g[4].len == 40 + INLINE && g[4].src_qp == peer->ud);
	pattern(want, INLINE, 5);
	CHECK(memcmp(s->buf + AT_UD + 1024 + 40, want, INLINE) == 0);
}

static int server(int port)
{
	struct side s = { 0 };
	struct card peer;
	uint8_t want[300];
	uint64_t v;
	int ls, fd;
	char c;

	CHECK(open_side(&s, true) == 0);
	if (failed)
		return 1;
	pattern(s.buf + AT_READ, 64, 2);
	v = 40;
	memcpy(s.buf + AT_FADD, &v, 8);
	v = 0x1234;
	memcpy(s.buf + AT_CSWP, &v, 8);
	fd = oob_accept(port, &ls);
	CHECK(fd >= 0 && connect_sides(fd, &s, &peer) == 0);
	post_recvs(&s);
	CHECK(write(fd, "R", 1) == 1);
	server_receives(&s, &peer);
	CHECK(read(fd, &c, 1) == 1 && c == 'D');        /* the client's side is done */
	pattern(want, 300, 6);
	CHECK(memcmp(s.buf + AT_WIMM, want, 300) == 0);
	pattern(want, 150, 7);
	CHECK(memcmp(s.buf + AT_WINL, want, 150) == 0);
	memcpy(&v, s.buf + AT_FADD, 8);
	CHECK(v == 45 + N_FADDS);
	memcpy(&v, s.buf + AT_CSWP, 8);
	CHECK(v == 0x5678);
	CHECK(write(fd, "E", 1) == 1);
	close(fd);
	close(ls);
	close_side(&s);
	return failed;
}

/* ---- client ------------------------------------------------------------- */

/* The RC batch of ibv_wr_*: 6 WRs, each source wiped once handed over */
static void client_batch(struct side *s, const struct card *peer)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(s->rc);
	uint8_t a[100], b[150];
	struct ibv_data_buf bl[2] = { { b, 50 }, { b + 50, 100 } };
	struct ibv_sge two[2] = { { (uintptr_t)s->buf, 100, s->mr->lkey },
				  { (uintptr_t)s->buf + 100, 200, s->mr->lkey } };
	struct got g[6];
	uint64_t t0 = now_ns();

	pattern(s->buf, 300, 6);
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(x);
	x->wr_id = 1;
	ibv_wr_send(x);
	pattern(a, 100, 1);
	ibv_wr_set_inline_data(x, a, 100);
	memset(a, 0, sizeof(a));
	x->wr_id = 2;
	ibv_wr_rdma_write_imm(x, peer->rkey, peer->addr + AT_WIMM, htonl(7));
	ibv_wr_set_sge_list(x, 2, two);
	x->wr_id = 3;
	ibv_wr_rdma_write(x, peer->rkey, peer->addr + AT_WINL);
	pattern(b, 150, 7);
	ibv_wr_set_inline_data_list(x, 2, bl);
	memset(b, 0, sizeof(b));
	x->wr_id = 4;
	ibv_wr_rdma_read(x, peer->rkey, peer->addr + AT_READ);
	ibv_wr_set_sge(x, s->mr->lkey, (uintptr_t)s->buf + 1024, 64);
	x->wr_id = 5;
	ibv_wr_atomic_fetch_add(x, peer->rkey, peer->addr + AT_FADD, 5);
	ibv_wr_set_sge(x, s->mr->lkey, (uintptr_t)s->buf + 2048, 8);
	x->wr_id = 6;
	ibv_wr_atomic_cmp_swp(x, peer->rkey, peer->addr + AT_CSWP, 0x1234, 0x5678);
	ibv_wr_set_sge(x, s->mr->lkey, (uintptr_t)s->buf + 2056, 8);
	CHECK(ibv_wr_complete(x) == 0);
	CHECK(poll_ex(s, g, 6) == 6);
	for (int i = 0; i < 6; i++) {
		CHECK(g[i].id == (uint64_t)i + 1 && g[i].st == IBV_WC_SUCCESS);
		CHECK(g[i].ns >= t0 && g[i].ns <= now_ns() && (i == 0 || g[i].ns >= g[i - 1].ns));
	}
	CHECK(g[0].op == IBV_WC_SEND && g[1].op == IBV_WC_RDMA_WRITE &&
	      g[2].op == IBV_WC_RDMA_WRITE && g[3].op == IBV_WC_RDMA_READ && g[3].len == 64 &&
	      g[4].op == IBV_WC_FETCH_ADD && g[5].op == IBV_WC_COMP_SWAP);
	pattern(a, 64, 2);
	CHECK(memcmp(s->buf + 1024, a, 64) == 0);
	{
		uint64_t fa, cs;

		memcpy(&fa, s->buf + 2048, 8);
		memcpy(&cs, s->buf + 2056, 8);
		CHECK(fa == 40 && cs == 0x1234);
	}
}

/* Deeper than the old limit of 16: READ_DEPTH asked at RTR and RTS
   (perftest's ib_read_bw failed there), then N_READS READs and N_FADDS
   fetch-and-adds posted in one chain, each one's data checked; 129 is
   refused, the QP kept as it was */
static void client_reads(struct side *s, const struct card *peer)
{
	static struct ibv_send_wr w[N_READS + N_FADDS];
	static struct ibv_sge sg[N_READS + N_FADDS];
	static struct got g[N_READS + N_FADDS];
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_send_wr *bad = NULL;
	uint8_t want[64];
	bool seen[N_FADDS] = { false };
	int n = N_READS + N_FADDS;

	CHECK(ibv_query_qp(s->rc, &qa, IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC,
			   &qi) == 0 && qa.max_rd_atomic == RD_DEPTH &&
	      qa.max_dest_rd_atomic == RD_DEPTH);
	memset(s->buf + 4096, 0, N_READS * 64 + N_FADDS * 8);
	for (int i = 0; i < n; i++) {
		bool read = i < N_READS;

		sg[i] = (struct ibv_sge){ (uintptr_t)s->buf + 4096 + (read ? i * 64 :
				N_READS * 64 + (i - N_READS) * 8), read ? 64 : 8, s->mr->lkey };
		w[i] = (struct ibv_send_wr){ .wr_id = 1000 + (uint64_t)i, .next = i + 1 < n ?
					     &w[i + 1] : NULL, .sg_list = &sg[i], .num_sge = 1,
					     .send_flags = IBV_SEND_SIGNALED };
		if (read) {
			w[i].opcode = IBV_WR_RDMA_READ;
			w[i].wr.rdma.remote_addr = peer->addr + AT_READ;
			w[i].wr.rdma.rkey = peer->rkey;
		} else {
			w[i].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			w[i].wr.atomic.remote_addr = peer->addr + AT_FADD;
			w[i].wr.atomic.compare_add = 1;
			w[i].wr.atomic.rkey = peer->rkey;
		}
	}
	CHECK(ibv_post_send(s->rc, w, &bad) == 0);
	CHECK(poll_ex(s, g, n) == n);
	pattern(want, 64, 2);
	for (int i = 0; i < n; i++) {
		CHECK(g[i].id == 1000 + (uint64_t)i && g[i].st == IBV_WC_SUCCESS);
		if (i < N_READS) {
			CHECK(g[i].op == IBV_WC_RDMA_READ && g[i].len == 64 &&
			      memcmp(s->buf + 4096 + i * 64, want, 64) == 0);
		} else {
			uint64_t v;

			memcpy(&v, s->buf + 4096 + N_READS * 64 + (i - N_READS) * 8, 8);
			CHECK(g[i].op == IBV_WC_FETCH_ADD && v >= 45 && v < 45 + N_FADDS &&
			      !seen[v - 45]);
			if (v >= 45 && v < 45 + N_FADDS)
				seen[v - 45] = true;
		}
	}
	/* one more than rxe's most: EINVAL, and the QP still has 128 */
	memset(&qa, 0, sizeof(qa));
	qa.max_rd_atomic = RD_DEPTH + 1;
	CHECK(ibv_modify_qp(s->rc, &qa, IBV_QP_MAX_QP_RD_ATOMIC) == EINVAL);
	CHECK(ibv_query_qp(s->rc, &qa, IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_STATE, &qi) == 0 &&
	      qa.max_rd_atomic == RD_DEPTH && qa.qp_state == IBV_QPS_RTS);
}

/* ibv_post_send inline on RC, then UD inline by both APIs */
static void client_inline(struct side *s, const struct card *peer)
{
	uint8_t d[INLINE];
	struct ibv_sge sge = { (uintptr_t)d, 200, 0 };   /* no lkey: inline */
	struct ibv_send_wr w = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE }, *bad;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .sgid_index = 1, .hop_limit = 64 } };
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(s->ud);
	struct ibv_ah *ah;
	struct got g[3];

	pattern(d, 200, 3);
	CHECK(ibv_post_send(s->rc, &w, &bad) == 0);
	memset(d, 0, sizeof(d));
	memcpy(aa.grh.dgid.raw, peer->gid, 16);
	ah = ibv_create_ah(s->pd, &aa);
	CHECK(ah != NULL);
	if (!ah)
		return;
	pattern(d, 64, 4);
	ibv_wr_start(x);
	x->wr_id = 8;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(x, htonl(9));
	ibv_wr_set_ud_addr(x, ah, peer->ud, QKEY);
	ibv_wr_set_inline_data(x, d, 64);
	CHECK(ibv_wr_complete(x) == 0);
	memset(d, 0, sizeof(d));
	pattern(d, INLINE, 5);
	sge.length = INLINE;
	w = (struct ibv_send_wr){ .wr_id = 9, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE };
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = peer->ud;
	w.wr.ud.remote_qkey = QKEY;
	CHECK(ibv_post_send(s->ud, &w, &bad) == 0);
	memset(d, 0, sizeof(d));
	CHECK(poll_ex(s, g, 3) == 3);
	for (int i = 0; i < 3; i++)
		CHECK(g[i].id == 7 + (uint64_t)i && g[i].st == IBV_WC_SUCCESS &&
		      g[i].op == IBV_WC_SEND);
	CHECK(ibv_destroy_ah(ah) == 0);
}

/* What is refused, and that nothing of it is sent */
static void client_refusals(struct side *s)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(s->rc);
	uint8_t big[INLINE + 1] = { 0 };
	struct ibv_sge three[3] = { { (uintptr_t)s->buf, 8, s->mr->lkey },
				    { (uintptr_t)s->buf, 8, s->mr->lkey },
				    { (uintptr_t)s->buf, 8, s->mr->lkey } };
	struct ibv_sge sge = { (uintptr_t)big, INLINE + 1, 0 };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_INLINE }, *bad = NULL;
	struct ibv_qp_init_attr ia = { .send_cq = ibv_cq_ex_to_cq(s->cq),
				       .recv_cq = ibv_cq_ex_to_cq(s->cq), .qp_type = IBV_QPT_RC,
				       .cap = { 4, 4, 1, 1, 0 } };
	struct ibv_qp_init_attr_ex ie = { .send_cq = ia.send_cq, .recv_cq = ia.recv_cq,
					  .qp_type = IBV_QPT_RC, .pd = s->pd, .cap = ia.cap,
					  .comp_mask = IBV_QP_INIT_ATTR_PD |
						       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
					  .send_ops_flags = IBV_QP_EX_WITH_BIND_MW };
	struct ibv_cq_init_attr_ex ce = { .cqe = 4,
					  .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	struct ibv_qp *qp;
	struct got g;

	/* over max_inline_data: ibv_post_send EINVAL, a batch ENOSPC */
	CHECK(ibv_post_send(s->rc, &w, &bad) == EINVAL && bad == &w);
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, big, INLINE + 1);
	CHECK(ibv_wr_complete(x) == ENOSPC);
	/* more SGEs than the QP has */
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 3, three);
	CHECK(ibv_wr_complete(x) == ENOSPC);
	/* an aborted batch, then an empty one: nothing sent */
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, s->mr->lkey, (uintptr_t)s->buf, 8);
	ibv_wr_abort(x);
	ibv_wr_start(x);
	CHECK(ibv_wr_complete(x) == 0);
	for (int i = 0; i < 10000; i++)
		CHECK(drain(s, &g, 1) == 0);
	/* the caps as rxe reports them: 0 asked, 16 an SGE given; over 512 */
	qp = ibv_create_qp(s->pd, &ia);
	CHECK(qp && ia.cap.max_inline_data == 16 && !ibv_qp_to_qp_ex(qp));
	CHECK(qp && ibv_destroy_qp(qp) == 0);
	ia.cap.max_inline_data = 513;
	errno = 0;
	CHECK(!ibv_create_qp(s->pd, &ia) && errno == EINVAL);
	/* a send op not offered; a wc_flag not offered */
	errno = 0;
	CHECK(!ibv_create_qp_ex(s->ctx, &ie) && errno == EOPNOTSUPP);
	errno = 0;
	CHECK(!ibv_create_cq_ex(s->ctx, &ce) && errno == EOPNOTSUPP);
}

static int client(const char *ip, int port)
{
	struct side s = { 0 };
	struct card peer;
	int fd;
	char c;

	CHECK(open_side(&s, false) == 0);
	if (failed)
		return 1;
	fd = oob_connect(ip, port);
	CHECK(connect_sides(fd, &s, &peer) == 0);
	CHECK(read(fd, &c, 1) == 1 && c == 'R');        /* its receives are up */
	if (failed)
		return 1;
	client_batch(&s, &peer);
	client_reads(&s, &peer);
	client_inline(&s, &peer);
	client_refusals(&s);
	CHECK(write(fd, "D", 1) == 1);
	CHECK(read(fd, &c, 1) == 1 && c == 'E');
	close(fd);
	close_side(&s);
	return failed;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 3 && !strcmp(argv[1], "server"))
		rc = server(atoi(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "client"))
		rc = client(argv[2], atoi(argv[3]));
	else {
		fprintf(stderr, "usage: verbs_ex server PORT | client SERVER_IPV4 PORT\n");
		return 2;
	}
	if (rc == 0)
		printf("verbs_ex: ok\n");
	return rc;
}
