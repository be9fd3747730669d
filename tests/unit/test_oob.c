/* SPDX-License-Identifier: MIT */
/*
 * The out-of-band exchange against the originals' bytes. The golden
 * messages were taken from TCP streams between Debian 12's ibv_rc_pingpong
 * and perftest 4.5 (ib_write_bw, ib_read_bw) on Linux soft-RoCE, and from
 * the format strings of rc_pingpong.c and perftest_communication.h; none
 * of them comes from this code's own output.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "roce/oob.h"
#include "roce/status.h"

/* ibv_rc_pingpong client (10.77.0.12) to server: QPN 0x11, PSN 0x68a7f1 */
static const char pp_golden[ROCE_PP_MSG_LEN] =
	"0000:000011:68a7f1:00000000000000000000ffff0a4d000c";
/* ib_read_bw client keys: out_reads 0x80 (rxe's max_qp_rd_atom) */
static const char pt_golden[ROCE_PT_KEY_LEN] =
	"0000:0080:000017:46f402:0000082a:0000558bfd3ce000:00:00:00:00:00:00:"
	"00:00:00:00:ff:ff:0a:4d:00:0c:00000000:";
/* KEY_PRINT_FMT (no GID): "%04x:%04x:%06x:%06x:%08x:%016llx:%08x" */
static const char pt_nogid[ROCE_PT_KEY_LEN_NOGID] =
	"0000:0001:000014:ca1156:00000566:0000555f58e03000:00000000";
/* ib_write_bw -s 64 -n 20 client's report: 0.31 / 0.26 MB/s, 0.004199 Mpps */
static const uint8_t report_golden[40] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
	0x3f, 0xd3, 0x97, 0xac, 0xe4, 0x8d, 0x5d, 0x5a,
	0x3f, 0xd0, 0x67, 0x2e, 0x94, 0x4e, 0x3c, 0x1a,
	0x3f, 0x71, 0x33, 0x29, 0x52, 0x5a, 0xea, 0x4d,
};
/* ib_write_bw -R client's keys over rdma_cm (rxe_write_bw_R.pcap frame 31,
 * the SEND's payload): struct pingpong_dest in big endian, QPN 0x13, PSN
 * 0x95c74e, R_Key 0x730, ::ffff:10.91.0.12, GID index 1 */
static const uint8_t dest_bin_golden[ROCE_PT_DEST_BIN_LEN] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x13, 0x00, 0x95, 0xc7, 0x4e,
	0x00, 0x00, 0x07, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x55, 0x8f, 0x2a, 0x1f, 0x90, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xff, 0xff, 0x0a, 0x5b, 0x00, 0x0c,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};
/* what ib_write_bw sends first: version, cycle buffer, cache line, MTU */
static const uint8_t preamble_golden[26] = {
	'6', '.', '0', '6', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x40, '3', 0,
};

static void test_gid(void **state)
{
	uint8_t gid[16];
	static const uint8_t want[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
					  10, 77, 0, 12 };

	(void)state;
	roce_gid_from_ipv4(0x0A4D000Cu, gid);
	assert_memory_equal(gid, want, 16);
	assert_int_equal(roce_gid_to_ipv4(gid), 0x0A4D000Cu);
	gid[0] = 0xfe;
	assert_int_equal(roce_gid_to_ipv4(gid), 0);
}

static void test_pp_format(void **state)
{
	struct roce_pp_dest d = { .lid = 0, .qpn = 0x11, .psn = 0x68a7f1 };
	char msg[ROCE_PP_MSG_LEN];

	(void)state;
	roce_gid_from_ipv4(0x0A4D000Cu, d.gid);
	memset(msg, 'x', sizeof(msg));
	roce_pp_format(&d, msg);
	assert_memory_equal(msg, pp_golden, ROCE_PP_MSG_LEN);
}

static void test_pp_parse(void **state)
{
	struct roce_pp_dest d;
	char bad[ROCE_PP_MSG_LEN];

	(void)state;
	assert_int_equal(roce_pp_parse(pp_golden, sizeof(pp_golden), &d), ROCE_OK);
	assert_int_equal(d.lid, 0);
	assert_int_equal(d.qpn, 0x11);
	assert_int_equal(d.psn, 0x68a7f1);
	assert_int_equal(roce_gid_to_ipv4(d.gid), 0x0A4D000Cu);
	/* upper-case hex is still what sscanf("%x") takes */
	memcpy(bad, pp_golden, sizeof(bad));
	bad[12] = 'A';
	assert_int_equal(roce_pp_parse(bad, sizeof(bad), &d), ROCE_OK);
	assert_int_equal(d.psn, 0xA8a7f1);
	assert_int_equal(roce_pp_parse(pp_golden, sizeof(pp_golden) - 1, &d), ROCE_E_FORMAT);
	bad[4] = '-';
	assert_int_equal(roce_pp_parse(bad, sizeof(bad), &d), ROCE_E_FORMAT);
	memcpy(bad, pp_golden, sizeof(bad));
	bad[30] = 'g';
	assert_int_equal(roce_pp_parse(bad, sizeof(bad), &d), ROCE_E_FORMAT);
	memcpy(bad, pp_golden, sizeof(bad));
	bad[51] = '0';
	assert_int_equal(roce_pp_parse(bad, sizeof(bad), &d), ROCE_E_FORMAT);
}

static void test_pt_format(void **state)
{
	struct roce_pt_dest d = { .lid = 0, .out_reads = 0x80, .qpn = 0x17,
				  .psn = 0x46f402, .rkey = 0x82a,
				  .vaddr = 0x558bfd3ce000ull, .srqn = 0 };
	char msg[ROCE_PT_KEY_LEN];

	(void)state;
	roce_gid_from_ipv4(0x0A4D000Cu, d.gid);
	memset(msg, 'x', sizeof(msg));
	roce_pt_format(&d, msg);
	assert_memory_equal(msg, pt_golden, ROCE_PT_KEY_LEN);
}

static void test_pt_parse(void **state)
{
	struct roce_pt_dest d;
	char bad[ROCE_PT_KEY_LEN];

	(void)state;
	assert_int_equal(roce_pt_parse(pt_golden, sizeof(pt_golden), &d), ROCE_OK);
	assert_int_equal(d.out_reads, 0x80);
	assert_int_equal(d.qpn, 0x17);
	assert_int_equal(d.psn, 0x46f402);
	assert_int_equal(d.rkey, 0x82a);
	assert_true(d.vaddr == 0x558bfd3ce000ull);
	assert_int_equal(roce_gid_to_ipv4(d.gid), 0x0A4D000Cu);
	assert_int_equal(d.srqn, 0);

	assert_int_equal(roce_pt_parse(pt_nogid, sizeof(pt_nogid), &d), ROCE_OK);
	assert_int_equal(d.out_reads, 1);
	assert_int_equal(d.qpn, 0x14);
	assert_int_equal(d.rkey, 0x566);
	assert_true(d.vaddr == 0x555f58e03000ull);

	memcpy(bad, pt_golden, sizeof(bad));
	bad[50] = 'z';                  /* first GID byte */
	assert_int_equal(roce_pt_parse(bad, sizeof(bad), &d), ROCE_E_FORMAT);
	memcpy(bad, pt_golden, sizeof(bad));
	bad[106] = ';';                 /* the trailing colon */
	assert_int_equal(roce_pt_parse(bad, sizeof(bad), &d), ROCE_E_FORMAT);
	/* an rc_pingpong message where perftest keys are expected */
	assert_int_equal(roce_pt_parse(pp_golden, sizeof(pp_golden), &d), ROCE_E_FORMAT);
}

static void test_dest_bin(void **state)
{
	struct roce_pt_dest d, e = { .out_reads = 1, .qpn = 0x13, .psn = 0x95c74e,
				     .rkey = 0x730, .vaddr = 0x558f2a1f9000ull,
				     .gid_index = 1 };
	uint8_t b[ROCE_PT_DEST_BIN_LEN];

	(void)state;
	roce_pt_unpack_dest(dest_bin_golden, &d);
	assert_int_equal(d.lid, 0);
	assert_int_equal(d.out_reads, 1);
	assert_int_equal(d.qpn, 0x13);
	assert_int_equal(d.psn, 0x95c74e);
	assert_int_equal(d.rkey, 0x730);
	assert_true(d.vaddr == 0x558f2a1f9000ull);
	assert_int_equal(roce_gid_to_ipv4(d.gid), 0x0A5B000Cu);
	assert_int_equal(d.srqn, 0);
	assert_int_equal(d.gid_index, 1);
	roce_gid_from_ipv4(0x0A5B000Cu, e.gid);
	memset(b, 0xEE, sizeof(b));
	roce_pt_pack_dest(&e, b);
	assert_memory_equal(b, dest_bin_golden, sizeof(b));
}

/* A message transport that echoes each message back and logs their sizes */
struct echo {
	uint8_t last[64];
	size_t sent[16], n_sent, n_recv;
};

static int echo_send(void *arg, const void *buf, size_t len, char *err, size_t errlen)
{
	struct echo *e = arg;

	(void)err;
	(void)errlen;
	assert_true(len <= sizeof(e->last) && e->n_sent < 16);
	memcpy(e->last, buf, len);
	e->sent[e->n_sent++] = len;
	return ROCE_OK;
}

static int echo_recv(void *arg, void *buf, size_t len, char *err, size_t errlen)
{
	struct echo *e = arg;

	(void)err;
	(void)errlen;
	memcpy(buf, e->last, len);
	e->n_recv++;
	return ROCE_OK;
}

/* Over rdma_cm (-R) each exchange is one message of perftest's size each
 * way: version 16, sys data 4 and 4, MTU 2, keys 56 (binary), a report
 * five times 8; the close is a handshake with no "done" after it */
static void test_msg_transport(void **state)
{
	struct echo e = { 0 };
	const struct roce_oob_msg m = { echo_send, echo_recv, &e };
	struct roce_oob o = { .fd = -1, .client = true, .timeout_ms = 100, .msg = &m };
	static const size_t want[] = { 16, 4, 4, 2, 56, 8, 8, 8, 8, 8, 56 };
	struct roce_pt_dest mine = { .qpn = 0x12, .rkey = 0x99 }, peer;
	struct roce_pt_report rep = { .size = 64, .iters = 5 }, prep;
	char ver[ROCE_PT_VERSION_LEN + 1];
	uint32_t cb = 4096, cl = 64;
	int mtu = 3;

	(void)state;
	assert_int_equal(roce_pt_xchg_version(&o, ver), ROCE_OK);
	assert_string_equal(ver, ROCE_PT_VERSION);
	assert_int_equal(roce_pt_xchg_sysdata(&o, &cb, &cl), ROCE_OK);
	assert_int_equal(roce_pt_xchg_mtu(&o, &mtu), ROCE_OK);
	assert_int_equal(roce_pt_handshake(&o, &mine, &peer), ROCE_OK);
	assert_int_equal(peer.qpn, 0x12);
	assert_int_equal(peer.rkey, 0x99);
	assert_int_equal(roce_pt_xchg_report(&o, &rep, &prep), ROCE_OK);
	assert_int_equal(prep.iters, 5);
	assert_int_equal(roce_pt_close(&o, &mine), ROCE_OK);
	assert_int_equal(e.n_sent, sizeof(want) / sizeof(want[0]));
	assert_int_equal(e.n_recv, e.n_sent);
	for (size_t i = 0; i < e.n_sent; i++)
		assert_int_equal(e.sent[i], want[i]);
	assert_null(o.msg);
}

static void test_report(void **state)
{
	struct roce_pt_report r;
	uint8_t b[40];

	(void)state;
	roce_pt_report_unpack(report_golden, &r);
	assert_int_equal(r.size, 64);
	assert_int_equal(r.iters, 20);
	assert_true(r.bw_peak > 0.305 && r.bw_peak < 0.315);
	assert_true(r.bw_avg > 0.255 && r.bw_avg < 0.265);
	assert_true(r.msg_rate > 0.0041985 && r.msg_rate < 0.0041995);
	roce_pt_report_pack(&r, b);
	assert_memory_equal(b, report_golden, sizeof(b));
}

/* ---- the exchange over a real TCP connection ------------------------------ */

struct peer {
	uint16_t port;
	int st;
	unsigned idle_calls;
	struct roce_pt_dest dest;
	struct roce_pt_report rep;
	struct roce_pp_dest pp;
	char err[192];
};

static unsigned count_idle(void *arg)
{
	++*(unsigned *)arg;
	return 0;
}

static void client_init(struct roce_oob *o, struct peer *p)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->timeout_ms = 5000;
	o->idle = count_idle;
	o->idle_arg = &p->idle_calls;
}

static void *pt_client(void *arg)
{
	struct peer *p = arg;
	struct roce_oob o;
	char ver[ROCE_PT_VERSION_LEN + 1];
	uint32_t cb = 4096, cl = 64;
	int mtu = 4;
	struct roce_pt_dest mine = { .out_reads = 1, .qpn = 0x14, .psn = 0xca1156,
				     .rkey = 0x566, .vaddr = 0x555f58e03000ull };
	struct roce_pt_report rep = { 64, 20, 0.3061, 0.2563, 0.004199 };

	client_init(&o, p);
	roce_gid_from_ipv4(0x0A4D000Cu, mine.gid);
	p->st = roce_oob_connect(&o, "127.0.0.1", p->port);
	if (!p->st)
		p->st = roce_pt_xchg_version(&o, ver);
	if (!p->st)
		p->st = roce_pt_xchg_sysdata(&o, &cb, &cl);
	if (!p->st)
		p->st = roce_pt_xchg_mtu(&o, &mtu);
	if (!p->st)
		p->st = roce_pt_handshake(&o, &mine, &p->dest);
	if (!p->st)
		p->st = roce_pt_xchg_report(&o, &rep, &p->rep);
	if (!p->st)
		p->st = roce_pt_close(&o, &mine);
	if (!p->st && (cb != 8192 || cl != 128 || mtu != 3))
		p->st = ROCE_E_MISMATCH;
	memcpy(p->err, o.err, sizeof(p->err));
	roce_oob_close(&o);
	return NULL;
}

static int recv_all(int fd, void *buf, size_t len)
{
	uint8_t *b = buf;

	while (len) {
		ssize_t n = recv(fd, b, len, 0);

		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The server side written by hand from perftest's sources: it sees exactly
 * perftest's bytes from our client and answers like perftest 6.06 would. */
static void test_pt_client_bytes(void **state)
{
	struct peer p = { 0 };
	char err[128];
	int lfd = roce_oob_listen("127.0.0.1", 0, &p.port, err, sizeof(err));
	pthread_t t;
	uint8_t pre[26], keys[ROCE_PT_KEY_LEN], rep[40], done[5];
	static const uint8_t answer[26] = {
		'6', '.', '0', '6', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x80, '3', 0,
	};
	int fd;

	(void)state;
	assert_true(lfd >= 0);
	assert_int_equal(pthread_create(&t, NULL, pt_client, &p), 0);
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	/* version, cycle buffer, cache line, MTU: each read then answered */
	assert_int_equal(recv_all(fd, pre, 16), 0);
	assert_int_equal(send(fd, answer, 16, 0), 16);
	assert_int_equal(recv_all(fd, pre + 16, 4), 0);
	assert_int_equal(send(fd, answer + 16, 4, 0), 4);
	assert_int_equal(recv_all(fd, pre + 20, 4), 0);
	assert_int_equal(send(fd, answer + 20, 4, 0), 4);
	assert_int_equal(recv_all(fd, pre + 24, 2), 0);
	assert_int_equal(send(fd, answer + 24, 2, 0), 2);
	assert_memory_equal(pre, preamble_golden, 24);
	assert_int_equal(pre[24], '4');  /* this client asked for 2048 */
	assert_int_equal(pre[25], 0);
	assert_int_equal(recv_all(fd, keys, sizeof(keys)), 0);
	assert_int_equal(send(fd, pt_golden, sizeof(pt_golden), 0), ROCE_PT_KEY_LEN);
	assert_memory_equal(keys, "0000:0001:000014:ca1156:00000566:0000555f58e03000:"
			    "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:0c:00000000:",
			    ROCE_PT_KEY_LEN);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(recv_all(fd, rep + 8 * i, 8), 0);
		assert_int_equal(send(fd, report_golden + 8 * i, 8, 0), 8);
	}
	assert_memory_equal(rep, report_golden, 16);
	assert_int_equal(recv_all(fd, keys, sizeof(keys)), 0);
	assert_int_equal(send(fd, pt_golden, sizeof(pt_golden), 0), ROCE_PT_KEY_LEN);
	assert_int_equal(recv_all(fd, done, sizeof(done)), 0);
	assert_memory_equal(done, "done", 5);
	pthread_join(t, NULL);
	close(fd);
	if (p.st)
		fail_msg("client: %s: %s", roce_status_name(p.st), p.err);
	assert_int_equal(p.dest.qpn, 0x17);
	assert_int_equal(p.rep.iters, 20);
}

static int connected_qp;

static int pp_connect(void *arg, const struct roce_pp_dest *peer)
{
	(void)arg;
	connected_qp = (int)peer->qpn;
	return ROCE_OK;
}

static void *pp_client(void *arg)
{
	struct peer *p = arg;
	struct roce_oob o;
	struct roce_pp_dest mine = { .qpn = 0x11, .psn = 0x68a7f1 };

	client_init(&o, p);
	roce_gid_from_ipv4(0x0A4D000Cu, mine.gid);
	p->st = roce_oob_connect(&o, "127.0.0.1", p->port);
	if (!p->st)
		p->st = roce_pp_exchange(&o, &mine, &p->pp, NULL, NULL);
	memcpy(p->err, o.err, sizeof(p->err));
	roce_oob_close(&o);
	return NULL;
}

/* Our client against our server: the server connects before it answers. */
static void test_pp_exchange(void **state)
{
	struct peer p = { 0 };
	struct roce_oob o = { .fd = -1, .timeout_ms = 5000 };
	struct roce_pp_dest mine = { .qpn = 0x22, .psn = 0x40d608 }, peer;
	pthread_t t;
	int lfd = roce_oob_listen(NULL, 0, &p.port, o.err, sizeof(o.err));

	(void)state;
	assert_true(lfd >= 0);
	roce_gid_from_ipv4(0x0A4D000Bu, mine.gid);
	connected_qp = 0;
	assert_int_equal(pthread_create(&t, NULL, pp_client, &p), 0);
	assert_int_equal(roce_oob_accept(&o, lfd), ROCE_OK);
	assert_int_equal(roce_oob_peer_ip(&o), 0x7F000001u);
	assert_int_equal(roce_pp_exchange(&o, &mine, &peer, pp_connect, NULL), ROCE_OK);
	pthread_join(t, NULL);
	roce_oob_close(&o);
	if (p.st)
		fail_msg("client: %s: %s", roce_status_name(p.st), p.err);
	assert_int_equal(connected_qp, 0x11);
	assert_int_equal(peer.psn, 0x68a7f1);
	assert_int_equal(p.pp.qpn, 0x22);
	assert_int_equal(roce_gid_to_ipv4(p.pp.gid), 0x0A4D000Bu);
}

/* ibv_srq_pingpong's exchange: our client's bytes as the original server
 * reads them (256 slots of 52 bytes whatever the QPs, zeros past them),
 * the server's 256 slots parsed back, then "done". */
struct srq_client {
	uint16_t port;
	int st;
	struct roce_pp_dest peer[3];
	char err[192];
};

static void *srq_client(void *arg)
{
	struct srq_client *c = arg;
	struct roce_oob o = { .fd = -1, .timeout_ms = 5000 };
	struct roce_pp_dest mine[3];

	for (int i = 0; i < 3; i++) {
		mine[i] = (struct roce_pp_dest){ .qpn = 0x11u + (uint32_t)i, .psn = 0x100u + (uint32_t)i };
		roce_gid_from_ipv4(0x0A4D000Cu, mine[i].gid);
	}
	c->st = roce_oob_connect(&o, "127.0.0.1", c->port);
	if (!c->st)
		c->st = roce_pp_exchange_srq(&o, mine, c->peer, 3, NULL, NULL);
	memcpy(c->err, o.err, sizeof(c->err));
	roce_oob_close(&o);
	return NULL;
}

static void test_srq_exchange_bytes(void **state)
{
	struct srq_client c = { 0 };
	char err[128], msg[ROCE_PP_MSG_LEN], done[ROCE_PP_DONE_LEN];
	static char all[ROCE_PP_SRQ_SLOTS][ROCE_PP_MSG_LEN];
	int lfd = roce_oob_listen("127.0.0.1", 0, &c.port, err, sizeof(err));
	struct roce_oob o = { .fd = -1 };
	pthread_t t;
	int fd;

	(void)state;
	assert_true(lfd >= 0);
	assert_int_equal(pthread_create(&t, NULL, srq_client, &c), 0);
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	close(lfd);
	assert_int_equal(recv_all(fd, all, sizeof(all)), 0);
	assert_string_equal(all[0], "0000:000011:000100:00000000000000000000ffff0a4d000c");
	assert_string_equal(all[2], "0000:000013:000102:00000000000000000000ffff0a4d000c");
	for (unsigned i = 3; i < ROCE_PP_SRQ_SLOTS; i++)
		assert_string_equal(all[i], "0000:000000:000000:00000000000000000000000000000000");
	/* the server's answer: its three QPs, then zeros */
	for (unsigned i = 0; i < ROCE_PP_SRQ_SLOTS; i++) {
		struct roce_pp_dest d = { .qpn = i < 3 ? 0x40 + i : 0, .psn = i < 3 ? 7 : 0 };

		if (i < 3)
			roce_gid_from_ipv4(0x0A4D000Bu, d.gid);
		roce_pp_format(&d, msg);
		assert_int_equal(send(fd, msg, sizeof(msg), 0), (ssize_t)sizeof(msg));
	}
	assert_int_equal(recv_all(fd, done, sizeof(done)), 0);
	assert_memory_equal(done, "done", ROCE_PP_DONE_LEN);
	pthread_join(t, NULL);
	close(fd);
	if (c.st)
		fail_msg("client: %s: %s", roce_status_name(c.st), c.err);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(c.peer[i].qpn, 0x40 + i);
		assert_int_equal(roce_gid_to_ipv4(c.peer[i].gid), 0x0A4D000Bu);
	}
	/* more QPs than slots: refused before a byte moves */
	assert_int_equal(roce_pp_exchange_srq(&o, NULL, NULL, ROCE_PP_SRQ_SLOTS + 1, NULL, NULL),
			 ROCE_E_RANGE);
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Every wait is bounded, the idle hook runs while waiting, and a peer that
 * speaks an older perftest is refused. */
static void test_bounds_and_mismatch(void **state)
{
	int sv[2];
	unsigned calls = 0;
	struct roce_oob o = { .timeout_ms = 200, .idle = count_idle, .idle_arg = &calls };
	char buf[8], ver[ROCE_PT_VERSION_LEN + 1];
	static const char old[16] = "5.60";
	uint64_t t0;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	o.fd = sv[0];
	o.client = false;
	t0 = ms_now();
	assert_int_equal(roce_oob_recv(&o, buf, sizeof(buf)), ROCE_E_TIMEOUT);
	assert_true(ms_now() - t0 >= 190 && ms_now() - t0 < 2000);
	assert_true(calls > 0);
	assert_non_null(strstr(o.err, "0 of 8 bytes"));

	assert_int_equal(send(sv[1], old, sizeof(old), 0), 16);
	assert_int_equal(roce_pt_xchg_version(&o, ver), ROCE_E_MISMATCH);
	assert_non_null(strstr(o.err, "5.60"));
	assert_int_equal(recv_all(sv[1], ver, ROCE_PT_VERSION_LEN), 0);
	assert_memory_equal(ver, "6.06\0\0\0\0\0\0\0\0\0\0\0\0", 16);

	close(sv[1]);
	assert_int_equal(roce_oob_recv(&o, buf, sizeof(buf)), ROCE_E_IO);
	assert_non_null(strstr(o.err, "closed"));
	roce_oob_close(&o);
	assert_int_equal(o.fd, -1);
}

static uint64_t busy_until;

static unsigned busy_idle(void *arg)
{
	(void)arg;
	return ms_now() < busy_until;   /* "frames moved" until then */
}

/* Work done by the idle hook counts as life: the timeout runs from the
 * end of the work, not from the start of the call. */
static void test_work_extends_timeout(void **state)
{
	int sv[2];
	struct roce_oob o = { .timeout_ms = 200, .idle = busy_idle };
	char buf[4];
	uint64_t t0;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	o.fd = sv[0];
	t0 = ms_now();
	busy_until = t0 + 400;
	assert_int_equal(roce_oob_recv(&o, buf, sizeof(buf)), ROCE_E_TIMEOUT);
	assert_true(ms_now() - t0 >= 590);
	assert_true(ms_now() - t0 < 3000);
	roce_oob_close(&o);
	close(sv[1]);
}

static void test_connect_refused(void **state)
{
	struct roce_oob o = { .fd = -1, .timeout_ms = 300 };
	char err[64];
	uint16_t port;
	int lfd = roce_oob_listen("127.0.0.1", 0, &port, err, sizeof(err));
	uint64_t t0;

	(void)state;
	assert_true(lfd >= 0);
	close(lfd);                     /* nobody listens there any more */
	t0 = ms_now();
	assert_int_equal(roce_oob_connect(&o, "127.0.0.1", port), ROCE_E_TIMEOUT);
	assert_true(ms_now() - t0 < 2000);
	assert_non_null(strstr(o.err, "couldn't connect"));
	assert_int_equal(roce_oob_listen("1.2.3", 0, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an IPv4"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gid),
		cmocka_unit_test(test_pp_format),
		cmocka_unit_test(test_pp_parse),
		cmocka_unit_test(test_pt_format),
		cmocka_unit_test(test_pt_parse),
		cmocka_unit_test(test_dest_bin),
		cmocka_unit_test(test_msg_transport),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_pt_client_bytes),
		cmocka_unit_test(test_pp_exchange),
		cmocka_unit_test(test_srq_exchange_bytes),
		cmocka_unit_test(test_bounds_and_mismatch),
		cmocka_unit_test(test_work_extends_timeout),
		cmocka_unit_test(test_connect_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
