/* SPDX-License-Identifier: MIT */
/*
 * roce-pingpong: ibv_rc_pingpong on this engine. Same options, same
 * out-of-band exchange on TCP port 18515 (roce/oob.h), same output, so it
 * runs against rdma-core's ibv_rc_pingpong as client or as server:
 *
 *   roce-pingpong --netdev eth1 -g 1 -s 4096 -n 1000            # server
 *   roce-pingpong --netdev eth1 -g 1 -s 4096 -n 1000 10.0.0.1   # client
 *
 * -g N chooses our GID as ibv_rc_pingpong does (GID 0 the link-local
 * IPv6 one, 1 the IPv4 one, then the interface's IPv6 addresses and
 * --ip6's): the exchange carries it, and the QP talks RoCE v2 over IPv6
 * to an IPv6 GID. Without -g our GID is the IPv4 one, as before.
 *
 * The client sends a message of -s bytes, the server receives it into its
 * buffer and sends that buffer back, -n times (rc_pingpong.c:
 * parse_single_wc). -c checks the data: as ibv_rc_pingpong does, the
 * first byte of every page is 0 (the server checks what it received);
 * the other bytes carry a pattern that the client, getting its own data
 * back, checks in full. Unlike ibv_rc_pingpong, a check that fails makes
 * the exit status 1.
 *
 * Run as roce-uc-pingpong (a link to this program; any name ending in
 * uc-pingpong or uc_pingpong) it is ibv_uc_pingpong: a UC QP, connected
 * without the timeout, retry and READ/atomic attributes, and that tool's
 * options (rc_pingpong's less -o -O -P -t -j -N). UC sends nothing again:
 * a lost message stalls the exchange as it stalls the original, until
 * --timeout.
 *
 * Run as roce-ud-pingpong (ud-pingpong or ud_pingpong at the end of the
 * name) it is ibv_ud_pingpong: a UD QP with ud_pingpong.c's Q_Key
 * 0x11111111, an address handle to the peer, one datagram per message
 * (-s at most the port's MTU, the link's, else "Requested size larger
 * than port MTU"; default size 1024 as its code has it, its usage text
 * says 2048), receive buffers of -s + 40 bytes whose first 40 take the
 * GRH area, sends from byte 40 on, and that tool's options (rc_pingpong's
 * less -m -o -O -P -t -j -N). Its "local address" line has ": GID" where
 * the others have ", GID", as the original prints it.
 *
 * --memlink-selftest runs a server and a client inside this process over
 * the in-memory link and a loopback TCP exchange.
 *
 * Exit status: 0 success, 1 failure, 2 bad command line.
 *
 * The program is the pingpong tools' skeleton (tools/pingpong/); this
 * file gives the three kinds, RC, UC and UD (struct pp_kind:
 * options, defaults and help lines, one QP and its receive queue, the
 * exchange).
 */
#include <string.h>

#include "pingpong/pingpong.h"
#include "roce/status.h"

/* rc_pingpong.c's options; uc_pingpong.c has none of -o -O -P -t -j -N,
 * ud_pingpong.c none of -m -o -O -P -t -j -N either */
static const char optstring[] = ":p:d:i:s:m:r:n:l:eg:oOPtcjNh";
static const char help_size[] =
"  -s, --size=<size>      size of message to exchange (default 4096)\n"
"  -m, --mtu=<size>       path MTU (default 1024)\n";
static const char help_size_ud[] =
"  -s, --size=<size>      size of message to exchange (default 1024; at most\n"
"                         the port's MTU, the link's)\n";
static const char help_rc_only[] =
"  -o, -O, -P, -j         on-demand paging, device memory: not supported\n"
"  -t, --ts               receive completion times (in ns: no HCA clock here)\n"
"  -N, --new_send         accepted (one post-send API here)\n";

static uint8_t pattern(unsigned i, unsigned page)
{
	/* rc_pingpong marks each page with 0 in its first byte */
	return i % page == 0 ? 0 : (uint8_t)(i * 7u ^ (i >> 8) ^ 0x5au);
}

/* pp_init_ctx(): one QP, one send in flight, rx_depth receives (and one
 * more) on its own receive queue, a send CQ and a receive CQ; a UD
 * datagram is at most the port's MTU (ud_pingpong.c) */
static int open_qp(struct pp *p, struct perf_ep_config *c, const struct perf_layout *l)
{
	unsigned port_mtu;
	int st;

	c->sq_depth = 2;
	c->rq_depth = p->o.rx_depth + 1;
	if ((st = perf_ep_open(&p->ep, c)) != ROCE_OK)
		return pp_fail(p, st, "%s", p->ep.err);
	port_mtu = roce_mtu_bytes(roce_context_port_mtu(p->ep.ctx));
	if (p->o.kind->qpt == ROCE_QPT_UD && p->o.size > port_mtu)
		return pp_fail(p, ROCE_E_RANGE, "Requested size larger than port MTU (%u)", port_mtu);
	if ((st = perf_ep_buffer(&p->ep, l->len, l->align, l->mr_access)) != ROCE_OK)
		return pp_fail(p, st, "%s", p->ep.err);
	memset(p->ep.buf, 0x7b, p->o.size + p->off);
	if ((st = perf_ep_init(&p->ep, 0)) != ROCE_OK)
		return pp_fail(p, st, "%s", p->ep.err);
	p->wc_max = 2;                  /* a send and a receive */
	return ROCE_OK;
}

static int exchange(struct pp *p)
{
	return roce_pp_exchange(&p->oob, &p->my[0], &p->rem[0], pp_connect, p);
}

#define PP_RC_FAMILY                                                            \
	.optstring = optstring, .num_qp = 1, .pattern = pattern,               \
	.open = open_qp, .exchange = exchange

static const struct pp_kind rc = {
	.prog = "roce-pingpong", .orig = "rc", .qpt = ROCE_QPT_RC, .size = 4096,
	.help_size = help_size, .help_post_chk = help_rc_only, PP_RC_FAMILY,
};
static const struct pp_kind uc = {
	.prog = "roce-uc-pingpong", .orig = "uc", .qpt = ROCE_QPT_UC, .size = 4096,
	.refused = "oOPtjN", .help_size = help_size, PP_RC_FAMILY,
};
static const struct pp_kind ud = {
	.prog = "roce-ud-pingpong", .orig = "ud", .qpt = ROCE_QPT_UD,
	.size = 1024,                   /* ud_pingpong.c's main() */
	.refused = "moOPtjN", .help_size = help_size_ud, PP_RC_FAMILY,
};

/* ibv_uc_pingpong by name (t "uc"): roce-uc-pingpong, ibv_uc_pingpong,
 * ...; ibv_ud_pingpong likewise (t "ud") */
static bool named(const char *argv0, const char *t)
{
	const char *base = strrchr(argv0, '/');
	char dash[16], under[16];
	size_t n;

	base = base ? base + 1 : argv0;
	n = strlen(base);
	snprintf(dash, sizeof(dash), "%s-pingpong", t);
	snprintf(under, sizeof(under), "%s_pingpong", t);
	return n >= 11 && (strcmp(base + n - 11, dash) == 0 ||
			   strcmp(base + n - 11, under) == 0);
}

int main(int argc, char **argv)
{
	return pp_main(named(argv[0], "uc") ? &uc : named(argv[0], "ud") ? &ud : &rc,
		       argc, argv);
}
