/* SPDX-License-Identifier: MIT */
/*
 * roce-demo: the seed's bring-up flow, end to end, on two emulated NICs,
 * with no privileges.
 *
 * NIC A and NIC B are complete device models (register file, QP and MR
 * tables, DDR, engine) joined by the in-memory link. They are configured
 * only through their AXI-Lite register files: roce_open() runs the driver's
 * power-on sequence (seed 000 section 3.3), roce_modify_qp() and
 * roce_reg_mr() commit QP contexts and MR entries through the table
 * windows, and this tool reads all of it back through the same driver.
 *
 * The flow is seed 001's: A, the board, advertises its memory with a SEND;
 * B, the host, parses the advertisement and uses A's memory with RDMA
 * WRITE, READ (compared byte by byte) and the two atomics. Then a
 * perftest-style table measures WRITE, READ and SEND from B to A, an 8-byte
 * WRITE's latency, and the counters of both NICs are read from their STAT
 * regions.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roce/counters.h"
#include "roce/driver.h"
#include "roce/memlink.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/tables.h"
#include "roce/verbs.h"
#include "roce/wire/byteorder.h"

/*
 * The advertisement (seed 001: a SEND carries the local IP, MAC, memory
 * base, memory size and R_Key). 36 bytes, big-endian like every field on
 * the wire, written and read byte by byte by ad_pack()/ad_parse(), so
 * neither padding nor host byte order reaches the wire:
 *
 *   offset size field
 *        0    4 magic "RADV"
 *        4    1 version (1)
 *        5    1 reserved (0)
 *        6    6 MAC, first byte on the wire first
 *       12    4 IPv4 address
 *       16    8 memory base: the VA a peer puts in RETH / AtomicETH
 *       24    8 memory size in bytes
 *       32    4 R_Key
 *
 * The last 8 bytes of the advertised memory are a counter for atomics,
 * set to AD_COUNTER_INIT before the advertisement goes out.
 */
#define AD_MAGIC        0x52414456u
#define AD_VERSION      1u
#define AD_LEN          36u
#define AD_COUNTER_INIT 1000u

struct demo_ad {
	uint8_t mac[6];
	uint32_t ip;
	uint64_t base, size;
	uint32_t rkey;
};

static void ad_pack(const struct demo_ad *ad, uint8_t b[AD_LEN])
{
	roce_put_be32(b, AD_MAGIC);
	b[4] = AD_VERSION;
	b[5] = 0;
	memcpy(b + 6, ad->mac, 6);
	roce_put_be32(b + 12, ad->ip);
	roce_put_be64(b + 16, ad->base);
	roce_put_be64(b + 24, ad->size);
	roce_put_be32(b + 32, ad->rkey);
}

static const char *ad_parse(const uint8_t *b, uint32_t len, struct demo_ad *ad)
{
	if (len != AD_LEN)
		return "wrong length";
	if (roce_get_be32(b) != AD_MAGIC || b[4] != AD_VERSION)
		return "bad magic or version";
	memcpy(ad->mac, b + 6, 6);
	ad->ip = roce_get_be32(b + 12);
	ad->base = roce_get_be64(b + 16);
	ad->size = roce_get_be64(b + 24);
	ad->rkey = roce_get_be32(b + 32);
	return ad->size < 8 ? "memory too small for the counter" : NULL;
}

/* ---- options ----------------------------------------------------------- */

struct opts {
	enum roce_mtu mtu;
	uint64_t size;
	uint32_t iters;
	double loss, reorder, duplicate, corrupt;       /* percent */
	uint64_t seed;
	const char *pcap;
	bool threads, quick, json, all_counters;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: roce-demo [options]\n"
		"Two emulated RoCE v2 NICs (A, B) on an in-memory link, configured through\n"
		"their register files, run the seed's flow: A SENDs an advertisement of its\n"
		"memory; B WRITEs into it, READs back and compares, runs FETCH_AND_ADD and\n"
		"CMP_AND_SWAP; then a perftest-style bandwidth table (B -> A), the latency\n"
		"of an 8-byte WRITE and the counters of both NICs.\n"
		"\n"
		"  --mtu N           path MTU: 256, 512, 1024, 2048 or 4096 (default 1024)\n"
		"  --size BYTES      WRITE/READ size of the flow, K/M suffix allowed\n"
		"                    (default 1M, at most %uM)\n"
		"  --iters N         messages per bandwidth row and latency samples\n"
		"                    (default %u, %u with --quick, at most %u)\n"
		"  --loss PCT        drop PCT%% of the frames on the link (default 0)\n"
		"  --reorder PCT     hold back PCT%% of the frames past the next one (default 0)\n"
		"  --duplicate PCT   deliver PCT%% of the frames twice (default 0)\n"
		"  --corrupt PCT     flip a bit in PCT%% of the frames (default 0)\n"
		"  --seed N          seed of the link's faults and the data pattern (default 1)\n"
		"  --pcap FILE       capture every frame on the link into FILE\n"
		"  --threads         run each engine on its own thread (default: poll both\n"
		"                    from the main thread)\n"
		"  --quick           fewer iterations and shorter time caps (for tests)\n"
		"  --json            print one JSON object instead of the text report\n"
		"  --all-counters    list every counter, not only the non-zero ones\n"
		"  -h, --help        this text\n"
		"\n"
		"Exit status: 0 every step passed, 1 a step failed, 2 bad option.\n",
		ROCE_DEMO_SIZE_MAX >> 20, ROCE_DEMO_ITERS_DEFAULT,
		ROCE_DEMO_ITERS_QUICK, ROCE_DEMO_ITERS_MAX);
}

static int bad_opt(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "roce-demo: bad %s '%s': %s (try --help)\n", opt, val, why);
	return 2;
}

static int parse_pct(const char *opt, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || isnan(v))
		return bad_opt(opt, s, "not a number");
	if (v < 0 || v > 100)
		return bad_opt(opt, s, "a percentage must lie in 0..100");
	*out = v;
	return 0;
}

static int parse_mtu(const char *s, enum roce_mtu *out)
{
	for (enum roce_mtu m = ROCE_MTU_256; m <= ROCE_MTU_4096; m++) {
		char buf[8];

		snprintf(buf, sizeof(buf), "%u", roce_mtu_bytes(m));
		if (strcmp(s, buf) == 0) {
			*out = m;
			return 0;
		}
	}
	return bad_opt("--mtu", s, "must be 256, 512, 1024, 2048 or 4096");
}

static int parse_num(const char *opt, const char *s, bool suffix, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char why[64];
	int st = roce_parse_u64(s, suffix, out);

	if (st == ROCE_E_FORMAT)
		return bad_opt(opt, s, suffix ? "not a size (e.g. 4096, 64K, 1M)"
					      : "not a non-negative integer");
	snprintf(why, sizeof(why), "must lie in %" PRIu64 "..%" PRIu64, min, max);
	if (st != ROCE_OK || *out < min || *out > max)
		return bad_opt(opt, s, why);
	return 0;
}

enum { OPT_MTU = 256, OPT_SIZE, OPT_ITERS, OPT_LOSS, OPT_REORDER, OPT_DUP,
       OPT_CORRUPT, OPT_SEED, OPT_PCAP, OPT_THREADS, OPT_QUICK, OPT_JSON,
       OPT_ALL };

static int parse_opt(int c, const char *arg, struct opts *o, bool *iters_set)
{
	uint64_t v;
	int rc;

	switch (c) {
	case OPT_MTU:
		return parse_mtu(arg, &o->mtu);
	case OPT_SIZE:
		return parse_num("--size", arg, true, 1, ROCE_DEMO_SIZE_MAX, &o->size);
	case OPT_ITERS:
		rc = parse_num("--iters", arg, false, 1, ROCE_DEMO_ITERS_MAX, &v);
		o->iters = (uint32_t)v;
		*iters_set = true;
		return rc;
	case OPT_LOSS: return parse_pct("--loss", arg, &o->loss);
	case OPT_REORDER: return parse_pct("--reorder", arg, &o->reorder);
	case OPT_DUP: return parse_pct("--duplicate", arg, &o->duplicate);
	case OPT_CORRUPT: return parse_pct("--corrupt", arg, &o->corrupt);
	case OPT_SEED:
		return parse_num("--seed", arg, false, 0, UINT64_MAX, &o->seed);
	case OPT_PCAP: o->pcap = arg; return 0;
	case OPT_THREADS: o->threads = true; return 0;
	case OPT_QUICK: o->quick = true; return 0;
	case OPT_JSON: o->json = true; return 0;
	case OPT_ALL: o->all_counters = true; return 0;
	}
	return 2;
}

/* 0 to run, 1 after --help (exit 0), 2 on a bad option. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "mtu", required_argument, NULL, OPT_MTU },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "iters", required_argument, NULL, OPT_ITERS },
		{ "loss", required_argument, NULL, OPT_LOSS },
		{ "reorder", required_argument, NULL, OPT_REORDER },
		{ "duplicate", required_argument, NULL, OPT_DUP },
		{ "corrupt", required_argument, NULL, OPT_CORRUPT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "pcap", required_argument, NULL, OPT_PCAP },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "all-counters", no_argument, NULL, OPT_ALL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool iters_set = false;
	int c;

	*o = (struct opts){ .mtu = ROCE_MTU_1024, .size = ROCE_DEMO_SIZE_DEFAULT,
			    .seed = 1 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "roce-demo: %s '%s' (try --help)\n",
				c == ':' ? "missing value for" : "unknown option",
				argv[optind - 1]);
			return 2;
		}
		if (parse_opt(c, optarg, o, &iters_set))
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "roce-demo: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return 2;
	}
	if (!iters_set)
		o->iters = o->quick ? ROCE_DEMO_ITERS_QUICK : ROCE_DEMO_ITERS_DEFAULT;
	return 0;
}

/* ---- the two NICs and the run ------------------------------------------ */

#define MIB              (1024.0 * 1024.0)      /* perftest's MB */
#define PAGE             4096u
#define QP_DEPTH         (2u * ROCE_DEMO_BW_DEPTH)
#define AD_RECV_LEN      256u

struct nic {
	const char *name;
	uint8_t mac[6];
	uint32_t ip;
	uint32_t sq_psn;
	unsigned access;                /* QP access flags */
	struct roce_port port;
	struct roce_context *ctx;
	struct roce_drv *drv;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	uint8_t *buf;                   /* device DDR, see struct demo */
	size_t len;
	struct roce_mr *mr[2];
	int n_mr;
	/* read back through the register file */
	struct roce_dev_info dev;
	struct roce_endpoint ep;
	struct roce_qp_ctx qpc;
	struct roce_mr_ctx mrc[2];
	struct roce_counter_value cnt[ROCE_CNT_COUNT];
	size_t n_cnt;
};

enum step_id { ST_SETUP, ST_ADVERTISE, ST_WRITE, ST_READ, ST_FETCH_ADD,
	       ST_CMP_SWAP, ST_BANDWIDTH, ST_LATENCY, ST_COUNTERS, ST_COUNT };

enum step_state { STEP_NOT_RUN, STEP_PASS, STEP_FAIL };

struct step {
	const char *key;                /* JSON name */
	const char *label;              /* "a".."e" for the seed's flow */
	const char *title;
	enum step_state st;
	char detail[512];
};

#define STEP(k, l, t) { .key = k, .label = l, .title = t }
static const struct step step_init[ST_COUNT] = {
	[ST_SETUP] = STEP("setup", NULL, "setup through the register files"),
	[ST_ADVERTISE] = STEP("advertise", "a", "SEND advertisement A -> B"),
	[ST_WRITE] = STEP("write", "b", "WRITE B -> A"),
	[ST_READ] = STEP("read_compare", "c", "READ A -> B and compare"),
	[ST_FETCH_ADD] = STEP("fetch_and_add", "d", "FETCH_AND_ADD on A's counter"),
	[ST_CMP_SWAP] = STEP("cmp_and_swap", "e", "CMP_AND_SWAP on A's counter"),
	[ST_BANDWIDTH] = STEP("bandwidth", NULL, "bandwidth table"),
	[ST_LATENCY] = STEP("latency", NULL, "WRITE latency"),
	[ST_COUNTERS] = STEP("counters", NULL, "counters through the register files"),
};

struct bw_row {
	const char *op;
	uint32_t bytes, iters;
	double peak, avg, mpps;         /* MB/s (2^20), MB/s, Mpps */
};

struct lat {
	uint32_t n;
	double min, p50, avg, p99, max; /* microseconds */
};

#define BW_ROWS 9

/*
 * Memory: A exposes region = [A.buf, +region_len): the flow's WRITE/READ
 * target (and the bandwidth rows') with the counter in its last 8 bytes,
 * registered with remote rights; behind it, a scratch buffer of
 * ROCE_DEMO_BW_MAX_MSG (the advertisement's source, SEND rows' receives)
 * in an MR of its own with local rights only. B holds, in one local MR:
 * the pattern [0, size_r), the read-back buffer [size_r, 2 size_r), the
 * atomics' result and the advertisement's receive buffer in the next page,
 * then the bandwidth rows' source.
 */
struct demo {
	struct opts o;
	struct roce_memlink *link;
	struct roce_memlink_stats ls;
	struct nic a, b;
	size_t size_r, region_len;
	size_t b_back, b_result, b_adbuf, b_bwsrc;
	struct demo_ad ad;              /* as B parsed it */
	uint32_t rq_out;                /* receives posted on A, not completed */
	struct step step[ST_COUNT];
	struct bw_row bw[BW_ROWS];
	int n_bw;
	struct lat lat;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool step_set(struct step *s, enum step_state st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a step's outcome and its one-line story; true when it passed. */
static bool step_set(struct step *s, enum step_state st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
	s->st = st;
	return st == STEP_PASS;
}

#define step_fail(s, ...) step_set(s, STEP_FAIL, __VA_ARGS__)
#define step_pass(s, ...) step_set(s, STEP_PASS, __VA_ARGS__)

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

static bool nic_open(struct demo *d, struct nic *n, size_t len)
{
	struct step *s = &d->step[ST_SETUP];
	struct roce_context_attr ca = { .ip = n->ip, .port = &n->port };
	struct roce_qp_init_attr qa = { .qp_type = ROCE_QPT_RC };
	int st;

	/* the DDR: the buffers plus room for the allocator's alignment */
	ca.dev.mem_size = round_up(len + (1u << 20), 1u << 20);
	if (ca.dev.mem_size < ROCE_DEV_MEM_SIZE_DEFAULT)
		ca.dev.mem_size = ROCE_DEV_MEM_SIZE_DEFAULT;
	memcpy(ca.mac, n->mac, 6);
	if ((st = roce_memlink_attach(d->link, n->mac, &n->port)) != ROCE_OK)
		return step_fail(s, "attach NIC %s to the link: %s", n->name,
				 roce_status_str(st));
	if ((st = roce_open(&ca, &n->ctx)) != ROCE_OK)
		return step_fail(s, "power-on of NIC %s: %s", n->name,
				 roce_status_str(st));
	n->drv = roce_context_driver(n->ctx);
	n->pd = roce_alloc_pd(n->ctx);
	n->scq = roce_create_cq(n->ctx, 4 * QP_DEPTH);
	n->rcq = roce_create_cq(n->ctx, 4 * QP_DEPTH);
	if (!n->pd || !n->scq || !n->rcq)
		return step_fail(s, "NIC %s: PD or CQ: out of memory", n->name);
	qa.send_cq = n->scq;
	qa.recv_cq = n->rcq;
	qa.cap = (struct roce_qp_cap){ QP_DEPTH, QP_DEPTH, 1, 1 };
	n->qp = roce_create_qp(n->pd, &qa);
	n->buf = roce_mem_alloc(n->ctx, len, PAGE);
	if (!n->qp || !n->buf)
		return step_fail(s, "NIC %s: QP or %zu bytes of DDR: failed",
				 n->name, len);
	n->len = len;
	memset(n->buf, 0, len);
	return true;
}

static bool nic_reg(struct demo *d, struct nic *n, size_t off, size_t len,
		    unsigned access)
{
	struct roce_mr *mr = roce_reg_mr(n->pd, n->buf + off, len, access);

	if (!mr)
		return step_fail(&d->step[ST_SETUP], "NIC %s: MR of %zu bytes: failed",
				 n->name, len);
	n->mr[n->n_mr++] = mr;
	return true;
}

/* RESET -> INIT -> RTR -> RTS toward the peer, as perftest does. */
static bool nic_connect(struct demo *d, struct nic *n, const struct nic *peer)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
				   .qp_access_flags = n->access };
	int st;

	st = roce_modify_qp(n->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS |
			    ROCE_QP_PKEY_INDEX);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = d->o.mtu;
	at.dest_qp_num = roce_qp_num(peer->qp);
	at.rq_psn = peer->sq_psn;
	at.max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC;
	at.min_rnr_timer = 1;
	at.ah_attr.dest_ip = peer->ip;
	memcpy(at.ah_attr.dest_mac, peer->mac, 6);
	if (st == ROCE_OK)
		st = roce_modify_qp(n->qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
				    ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				    ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				    ROCE_QP_MIN_RNR_TIMER);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = n->sq_psn;
	/* 4.096 us * 2^10 = 4.2 ms. An engine on its own thread may wait for
	 * a core for tens of ms on a loaded machine while its peer's timer
	 * runs: 2^12 (16.8 ms) lets it miss 134 ms before retry_cnt runs out. */
	at.timeout = d->o.threads ? 12 : 10;
	at.retry_cnt = 7;
	at.rnr_retry = 7;               /* retry forever */
	at.max_rd_atomic = ROCE_MAX_RD_ATOMIC;
	if (st == ROCE_OK)
		st = roce_modify_qp(n->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
				    ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				    ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
	if (st != ROCE_OK)
		return step_fail(&d->step[ST_SETUP], "NIC %s: QP to %s: %s (%s)",
				 n->name, roce_qp_state_name(at.qp_state),
				 roce_status_str(st), n->drv->err);
	return true;
}

/* What the host driver reads back: identity, addresses, QP context, MRs. */
static bool nic_readback(struct demo *d, struct nic *n)
{
	struct roce_drv *drv = n->drv;
	int st = roce_drv_probe(drv, &n->dev);

	if (st == ROCE_OK)
		st = roce_drv_get_local(drv, &n->ep);
	if (st == ROCE_OK)
		st = roce_drv_qp_read(drv, roce_qp_num(n->qp), &n->qpc);
	for (int i = 0; i < n->n_mr && st == ROCE_OK; i++)
		st = roce_drv_mr_read(drv, n->mr[i]->index, &n->mrc[i]);
	if (st != ROCE_OK)
		return step_fail(&d->step[ST_SETUP], "NIC %s read-back: %s",
				 n->name, drv->err);
	return true;
}

/* The link first: a capture file that cannot be created is a bad option. */
static int link_open(struct demo *d)
{
	struct roce_memlink_config lc = {
		.seed = d->o.seed, .loss = d->o.loss / 100,
		.reorder = d->o.reorder / 100, .duplicate = d->o.duplicate / 100,
		.corrupt = d->o.corrupt / 100, .pcap_path = d->o.pcap,
	};
	int st = roce_memlink_create(&lc, &d->link);

	if (st != ROCE_OK)
		step_fail(&d->step[ST_SETUP], "in-memory link: %s",
			  roce_status_str(st));
	return st;
}

static bool demo_open(struct demo *d)
{
	const unsigned remote = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
				ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	size_t exposed = d->o.size > ROCE_DEMO_BW_MAX_MSG ? d->o.size
							   : ROCE_DEMO_BW_MAX_MSG;
	int st;

	d->size_r = round_up(d->o.size, PAGE);
	d->region_len = round_up(exposed, PAGE) + PAGE;
	d->b_back = d->size_r;
	d->b_result = 2 * d->size_r;
	d->b_adbuf = d->b_result + 64;
	d->b_bwsrc = d->b_result + PAGE;
	d->a = (struct nic){ .name = "A", .mac = { 0x02, 0, 0, 0, 0, 0x0a },
			     .ip = 0x0A000001u, .sq_psn = 0x00A001u, .access = remote };
	/* B starts near the top of the 24-bit PSN space, so the flow's WRITE
	 * and READ cross the wrap to 0 (IBA 9.7.1: PSNs are modulo 2^24) */
	d->b = (struct nic){ .name = "B", .mac = { 0x02, 0, 0, 0, 0, 0x0b },
			     .ip = 0x0A000002u, .sq_psn = 0xFFFF80u,
			     .access = ROCE_ACCESS_LOCAL_WRITE };
	if (!nic_open(d, &d->a, d->region_len + ROCE_DEMO_BW_MAX_MSG) ||
	    !nic_open(d, &d->b, d->b_bwsrc + ROCE_DEMO_BW_MAX_MSG) ||
	    !nic_reg(d, &d->a, 0, d->region_len, remote) ||
	    !nic_reg(d, &d->a, d->region_len, ROCE_DEMO_BW_MAX_MSG,
		     ROCE_ACCESS_LOCAL_WRITE) ||
	    !nic_reg(d, &d->b, 0, d->b.len, ROCE_ACCESS_LOCAL_WRITE) ||
	    !nic_connect(d, &d->a, &d->b) || !nic_connect(d, &d->b, &d->a))
		return false;
	if (d->o.threads && ((st = roce_engine_start(d->a.ctx, -1)) != ROCE_OK ||
			     (st = roce_engine_start(d->b.ctx, -1)) != ROCE_OK))
		return step_fail(&d->step[ST_SETUP], "engine thread: %s",
				 roce_status_str(st));
	if (!nic_readback(d, &d->a) || !nic_readback(d, &d->b))
		return false;
	return step_pass(&d->step[ST_SETUP], "NICs A and B powered on, QP 0x%06x "
			 "and QP 0x%06x in %s", d->a.qpc.qpn, d->b.qpc.qpn,
			 roce_qp_state_name(d->b.qpc.state));
}

static void nic_close(struct nic *n)
{
	if (!n->ctx)
		return;
	roce_engine_stop(n->ctx);
	if (n->qp)
		roce_destroy_qp(n->qp);
	for (int i = 0; i < n->n_mr; i++)
		roce_dereg_mr(n->mr[i]);
	roce_mem_free(n->ctx, n->buf);
	if (n->scq)
		roce_destroy_cq(n->scq);
	if (n->rcq)
		roce_destroy_cq(n->rcq);
	if (n->pd)
		roce_dealloc_pd(n->pd);
	roce_close(n->ctx);
}

/* ---- driving the engines ----------------------------------------------- */

/* Let the engines run: poll both from here, or, when each has a thread of
 * its own, nap 10 us so that this thread, spinning on CQs, does not take a
 * core from them (two engines and this thread may share two cores). */
static void kick(struct demo *d)
{
	if (d->o.threads) {
		struct timespec ts = { 0, 10000 };

		nanosleep(&ts, NULL);
		return;
	}
	roce_engine_poll(d->a.ctx);
	roce_engine_poll(d->b.ctx);
}

/* One successful completion from cq within ROCE_DEMO_STEP_MS. */
static bool wait_one(struct demo *d, struct roce_cq *cq, struct roce_wc *wc,
		     struct step *s, const char *what)
{
	uint64_t end = now_ns() + ROCE_DEMO_STEP_MS * 1000000ull;
	int n = 0;

	while (n == 0 && now_ns() < end) {
		kick(d);
		n = roce_poll_cq(cq, 1, wc);
	}
	if (n < 0)
		return step_fail(s, "%s: completion queue overflow", what);
	if (n == 0)
		return step_fail(s, "%s: no completion within %u ms", what,
				 ROCE_DEMO_STEP_MS);
	if (wc->status != ROCE_WC_SUCCESS)
		return step_fail(s, "%s: completion status '%s'", what,
				 roce_wc_status_str(wc->status));
	return true;
}

static void wr_init(struct roce_send_wr *wr, struct roce_sge *sge,
		    enum roce_wr_opcode op, const struct nic *n, size_t off,
		    uint32_t len, int mr)
{
	*sge = (struct roce_sge){ (uint64_t)(uintptr_t)(n->buf + off), len,
				  n->mr[mr]->lkey };
	*wr = (struct roce_send_wr){ .wr_id = (uint64_t)op, .sg_list = sge,
				     .num_sge = 1, .opcode = op,
				     .send_flags = ROCE_SEND_SIGNALED };
}

/* Post one WR on n and wait for its successful completion. */
static bool post_wait(struct demo *d, struct nic *n, struct roce_send_wr *wr,
		      struct step *s, const char *what)
{
	struct roce_send_wr *bad;
	struct roce_wc wc;
	int st = roce_post_send(n->qp, wr, &bad);

	if (st != ROCE_OK)
		return step_fail(s, "%s: post_send: %s", what, roce_status_str(st));
	return wait_one(d, n->scq, &wc, s, what);
}

/* ---- the seed's flow ---------------------------------------------------- */

static uint64_t counter_va(const struct demo *d)
{
	return d->ad.base + d->ad.size - 8;
}

static uint64_t a_counter(const struct demo *d)
{
	uint64_t v;

	memcpy(&v, d->a.buf + d->region_len - 8, 8);
	return v;
}

/* (a) A advertises its memory; B parses the message and checks it against
 * the peer its own QP context names. */
static bool step_advertise(struct demo *d, struct step *s)
{
	struct nic *a = &d->a, *b = &d->b;
	struct demo_ad ad = { .base = (uint64_t)(uintptr_t)a->buf,
			      .size = d->region_len, .rkey = a->mr[0]->rkey };
	struct roce_sge rsge = { (uint64_t)(uintptr_t)(b->buf + d->b_adbuf),
				 AD_RECV_LEN, b->mr[0]->lkey };
	struct roce_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 };
	struct roce_send_wr wr;
	struct roce_sge sge;
	struct roce_wc wc;
	uint64_t init = AD_COUNTER_INIT;
	char mac[18], ip[16];
	const char *why;

	if (roce_drv_get_local(a->drv, &a->ep) != ROCE_OK)
		return step_fail(s, "A's addresses: %s", a->drv->err);
	memcpy(ad.mac, a->ep.mac, 6);
	ad.ip = a->ep.ip;
	memcpy(a->buf + d->region_len - 8, &init, 8);
	ad_pack(&ad, a->buf + d->region_len);
	if (roce_post_recv(b->qp, &rwr, NULL) != ROCE_OK)
		return step_fail(s, "B's post_recv failed");
	wr_init(&wr, &sge, ROCE_WR_SEND, a, d->region_len, AD_LEN, 1);
	if (!post_wait(d, a, &wr, s, "A's SEND") ||
	    !wait_one(d, b->rcq, &wc, s, "B's receive"))
		return false;
	if ((why = ad_parse(b->buf + d->b_adbuf, wc.byte_len, &d->ad)))
		return step_fail(s, "B received %u bytes: %s", wc.byte_len, why);
	if (roce_drv_qp_read(b->drv, roce_qp_num(b->qp), &b->qpc) != ROCE_OK)
		return step_fail(s, "B's QP context: %s", b->drv->err);
	roce_format_mac(d->ad.mac, mac);
	roce_format_ipv4(d->ad.ip, ip);
	if (d->ad.ip != b->qpc.peer_ip || memcmp(d->ad.mac, b->qpc.peer_mac, 6))
		return step_fail(s, "advertised %s %s is not the peer of B's QP", ip, mac);
	return step_pass(s, "SEND A -> B, %u-byte advertisement; B parsed: IP %s, "
			 "MAC %s,\nbase 0x%" PRIx64 ", size %" PRIu64 ", R_Key 0x%08x "
			 "(IP and MAC match B's QP context)", wc.byte_len, ip, mac,
			 d->ad.base, d->ad.size, d->ad.rkey);
}

static void fill_pattern(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < n; i++) {
		if (i % 8 == 0) {       /* xorshift64 */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		p[i] = (uint8_t)(x >> (8 * (i % 8)));
	}
}

/* Byte by byte: how many differ, and the first that does (or n). */
static size_t compare(const uint8_t *got, const uint8_t *want, size_t n,
		      size_t *first)
{
	size_t bad = 0;

	*first = n;
	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			if (!bad++)
				*first = i;
		}
	}
	return bad;
}

static double mbs(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / MIB * 1e9 / (double)ns : 0;
}

/* (b) B writes its pattern into A's memory, found through the ad. */
static bool step_write(struct demo *d, struct step *s)
{
	struct nic *b = &d->b;
	uint32_t mtu = roce_mtu_bytes(d->o.mtu), len = (uint32_t)d->o.size;
	uint32_t npkt = (len + mtu - 1) / mtu, psn = b->qpc.sq_psn;
	struct roce_send_wr wr;
	struct roce_sge sge;
	size_t first, bad;
	uint64_t t0;

	fill_pattern(b->buf, len, d->o.seed);
	memset(d->a.buf, 0, len);
	wr_init(&wr, &sge, ROCE_WR_RDMA_WRITE, b, 0, len, 0);
	wr.wr.rdma.remote_addr = d->ad.base;
	wr.wr.rdma.rkey = d->ad.rkey;
	t0 = now_ns();
	if (!post_wait(d, b, &wr, s, "WRITE"))
		return false;
	t0 = now_ns() - t0;
	if ((bad = compare(d->a.buf, b->buf, len, &first)))
		return step_fail(s, "%zu of %u bytes in A's memory differ, first at "
				 "offset %zu", bad, len, first);
	/* B has sent nothing before: the WRITE starts at its sq_psn */
	return step_pass(s, "WRITE B -> A, %u bytes in %u packets of MTU %u, PSN "
			 "0x%06x..0x%06x (%.0f MB/s): A's memory holds B's pattern",
			 len, npkt, mtu, psn, (psn + npkt - 1) & 0xFFFFFF, mbs(len, t0));
}

/* (c) B reads A's memory back into a second buffer and compares. */
static bool step_read(struct demo *d, struct step *s)
{
	struct nic *b = &d->b;
	uint32_t len = (uint32_t)d->o.size;
	struct roce_send_wr wr;
	struct roce_sge sge;
	size_t first, bad;
	uint64_t t0;

	memset(b->buf + d->b_back, 0, len);
	wr_init(&wr, &sge, ROCE_WR_RDMA_READ, b, d->b_back, len, 0);
	wr.wr.rdma.remote_addr = d->ad.base;
	wr.wr.rdma.rkey = d->ad.rkey;
	t0 = now_ns();
	if (!post_wait(d, b, &wr, s, "READ"))
		return false;
	t0 = now_ns() - t0;
	if ((bad = compare(b->buf + d->b_back, b->buf, len, &first)))
		return step_fail(s, "%zu of %u bytes read back differ from what was "
				 "written, first at offset %zu", bad, len, first);
	return step_pass(s, "READ A -> B, %u bytes into a second buffer (%.0f MB/s): "
			 "identical byte by byte", len, mbs(len, t0));
}

/* One atomic from B on A's counter; *orig is what the responder returned. */
static bool atomic_op(struct demo *d, struct step *s, enum roce_wr_opcode op,
		      uint64_t compare_add, uint64_t swap, uint64_t *orig)
{
	struct nic *b = &d->b;
	uint64_t poison = 0xDEADBEEFDEADBEEFull;
	struct roce_send_wr wr;
	struct roce_sge sge;

	memcpy(b->buf + d->b_result, &poison, 8);
	wr_init(&wr, &sge, op, b, d->b_result, 8, 0);
	wr.wr.atomic.remote_addr = counter_va(d);
	wr.wr.atomic.rkey = d->ad.rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	if (!post_wait(d, b, &wr, s, op == ROCE_WR_ATOMIC_FETCH_AND_ADD ?
		       "FETCH_AND_ADD" : "CMP_AND_SWAP"))
		return false;
	memcpy(orig, b->buf + d->b_result, 8);
	return true;
}

/* (d) FETCH_AND_ADD returns the original and adds (IBA 9.4.5). */
static bool step_fetch_add(struct demo *d, struct step *s)
{
	const uint64_t want = AD_COUNTER_INIT, add = 5;
	uint64_t orig, mem;

	if (!atomic_op(d, s, ROCE_WR_ATOMIC_FETCH_AND_ADD, add, 0, &orig))
		return false;
	mem = a_counter(d);
	if (orig != want || mem != want + add)
		return step_fail(s, "returned %" PRIu64 " (want %" PRIu64 "), A's "
				 "counter %" PRIu64 " (want %" PRIu64 ")", orig, want,
				 mem, want + add);
	return step_pass(s, "FETCH_AND_ADD +%" PRIu64 " on A's counter at 0x%" PRIx64
			 ": returned %" PRIu64 ", counter now %" PRIu64, add,
			 counter_va(d), orig, mem);
}

/* (e) CMP_AND_SWAP swaps only when the compare value matches; either way
 * it returns the original. */
static bool step_cmp_swap(struct demo *d, struct step *s)
{
	const uint64_t cur = AD_COUNTER_INIT + 5, swap = 42, miss = 7;
	uint64_t hit_orig, miss_orig, mem_hit, mem_miss;

	if (!atomic_op(d, s, ROCE_WR_ATOMIC_CMP_AND_SWP, cur, swap, &hit_orig))
		return false;
	mem_hit = a_counter(d);
	if (!atomic_op(d, s, ROCE_WR_ATOMIC_CMP_AND_SWP, cur, miss, &miss_orig))
		return false;
	mem_miss = a_counter(d);
	if (hit_orig != cur || mem_hit != swap)
		return step_fail(s, "compare %" PRIu64 " swap %" PRIu64 ": returned %"
				 PRIu64 ", counter %" PRIu64 " (want %" PRIu64 ", %"
				 PRIu64 ")", cur, swap, hit_orig, mem_hit, cur, swap);
	if (miss_orig != swap || mem_miss != swap)
		return step_fail(s, "compare %" PRIu64 " (no match) swap %" PRIu64
				 ": returned %" PRIu64 ", counter %" PRIu64 " (want %"
				 PRIu64 ", unchanged)", cur, miss, miss_orig, mem_miss,
				 swap);
	return step_pass(s, "CMP_AND_SWAP %" PRIu64 " -> %" PRIu64 ": returned %"
			 PRIu64 ", counter %" PRIu64 "; again (no match): returned %"
			 PRIu64 ", counter unchanged", cur, swap, hit_orig, mem_hit,
			 miss_orig);
}

/* ---- perftest-style measurements (B -> A) ------------------------------- */

static uint64_t row_ns(const struct demo *d)
{
	return (d->o.quick ? ROCE_DEMO_ROW_MS / 10 : ROCE_DEMO_ROW_MS) * 1000000ull;
}

/*
 * perftest's peak is its best rate over runs of consecutive messages. Here:
 * the best rate over any stretch of at least a tenth of the messages,
 * measured between the ends of two CQ polls (completions reaped by one
 * poll share its timestamp; t[0] is the start), and never below the
 * average.
 */
static double peak_mbs(const uint64_t *t, uint32_t done, uint32_t bytes,
		       double avg)
{
	uint32_t w = done >= 10 ? done / 10 : 1, i = 0, k = 0;
	double best = avg, r;

	for (uint32_t j = w; j <= done; j++) {
		if (j < done && t[j + 1] == t[j])
			continue;       /* not the last of its poll */
		for (; k + w <= j; k++)
			if (k == 0 || t[k + 1] > t[k])
				i = k;
		r = mbs((uint64_t)(j - i) * bytes, t[j] - t[i]);
		if (t[j] > t[i] && r > best)
			best = r;
	}
	return best;
}

/* SEND rows: keep up to QP_DEPTH receives posted on A, as many as the row
 * still needs; receives left over by a row cut short serve the next. */
static bool refill_recv(struct demo *d, uint32_t needed, struct step *s)
{
	struct nic *a = &d->a;
	struct roce_sge sge = { (uint64_t)(uintptr_t)(a->buf + d->region_len),
				ROCE_DEMO_BW_MAX_MSG, a->mr[1]->lkey };
	struct roce_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };

	while (d->rq_out < QP_DEPTH && d->rq_out < needed) {
		if (roce_post_recv(a->qp, &wr, NULL) != ROCE_OK)
			return step_fail(s, "A's post_recv failed");
		d->rq_out++;
	}
	return true;
}

/* Up to 32 completions of cq: each must have succeeded; stamps them in t
 * (t[done] is the done-th message's completion time). */
static int reap(struct roce_cq *cq, uint64_t *t, uint32_t *done,
		struct step *s, const char *what)
{
	struct roce_wc wc[32];
	int n = roce_poll_cq(cq, 32, wc);
	uint64_t now = now_ns();

	if (n < 0)
		return step_fail(s, "%s: completion queue overflow", what), -1;
	for (int i = 0; i < n; i++) {
		if (wc[i].status != ROCE_WC_SUCCESS)
			return step_fail(s, "%s: completion status '%s'", what,
					 roce_wc_status_str(wc[i].status)), -1;
		if (t)
			t[*done + 1] = now;
		(*done)++;
	}
	return n;
}

/* One row: up to iters messages of bytes, ROCE_DEMO_BW_DEPTH in flight,
 * each signaled; stops posting at the row's time cap. */
static bool bw_row(struct demo *d, enum roce_wr_opcode op, uint32_t bytes,
		   uint64_t *t, struct bw_row *r, struct step *s)
{
	struct nic *a = &d->a, *b = &d->b;
	uint32_t iters = d->o.iters, posted = 0, done = 0, rdone = 0;
	uint64_t stop = now_ns() + row_ns(d);
	uint64_t give_up = stop + ROCE_DEMO_STEP_MS * 1000000ull;
	struct roce_send_wr wr, *bad;
	struct roce_sge sge;
	bool send = op == ROCE_WR_SEND;
	char what[32];

	snprintf(what, sizeof(what), "%s %u B", r->op, bytes);
	wr_init(&wr, &sge, op, b, d->b_bwsrc, bytes, 0);
	wr.wr.rdma.remote_addr = d->ad.base;
	wr.wr.rdma.rkey = d->ad.rkey;
	t[0] = now_ns();
	while (done < posted || rdone < done || (posted < iters && now_ns() < stop)) {
		if (send && !refill_recv(d, iters - rdone, s))
			return false;
		while (posted < iters && posted - done < ROCE_DEMO_BW_DEPTH &&
		       now_ns() < stop) {
			int st = roce_post_send(b->qp, &wr, &bad);

			if (st != ROCE_OK)
				return step_fail(s, "%s: post_send: %s", what,
						 roce_status_str(st));
			posted++;
		}
		kick(d);
		if (reap(b->scq, t, &done, s, what) < 0)
			return false;
		if (send) {
			int got = reap(a->rcq, NULL, &rdone, s, "A's receive");

			if (got < 0)
				return false;
			d->rq_out -= (uint32_t)got;
		} else {
			rdone = done;
		}
		if (now_ns() > give_up)
			return step_fail(s, "%s: %u of %u messages completed "
					 "within %u ms", what, done, posted,
					 ROCE_DEMO_STEP_MS);
	}
	r->bytes = bytes;
	r->iters = done;
	r->avg = mbs((uint64_t)done * bytes, t[done] - t[0]);
	r->peak = peak_mbs(t, done, bytes, r->avg);
	r->mpps = t[done] > t[0] ? done / ((double)(t[done] - t[0]) / 1e9) / 1e6 : 0;
	return true;
}

static void print_bw_head(void)
{
	printf("\nBandwidth B -> A, perftest style (MB = 2^20 bytes; %u in flight; "
	       "peak: best tenth of the run)\n", ROCE_DEMO_BW_DEPTH);
	printf(" %-6s %8s %12s %16s %19s %14s\n", "op", "#bytes", "#iterations",
	       "BW peak[MB/sec]", "BW average[MB/sec]", "MsgRate[Mpps]");
}

static void print_bw_row(const struct bw_row *r)
{
	printf(" %-6s %8u %12u %16.2f %19.2f %14.6f\n", r->op, r->bytes, r->iters,
	       r->peak, r->avg, r->mpps);
	fflush(stdout);
}

/* WRITE, READ and SEND at three sizes; rows are printed as they finish. */
static bool run_bandwidth(struct demo *d, struct step *s)
{
	static const struct { enum roce_wr_opcode op; const char *name; } ops[] = {
		{ ROCE_WR_RDMA_WRITE, "WRITE" }, { ROCE_WR_RDMA_READ, "READ" },
		{ ROCE_WR_SEND, "SEND" },
	};
	static const uint32_t sizes[] = { 64, 4096, ROCE_DEMO_BW_MAX_MSG };
	uint64_t *t = malloc(((size_t)d->o.iters + 1) * sizeof(*t));
	bool ok = t != NULL;

	if (!ok)
		return step_fail(s, "out of memory");
	if (!d->o.json)
		print_bw_head();
	for (size_t i = 0; ok && i < 3; i++) {
		for (size_t j = 0; ok && j < 3; j++) {
			struct bw_row *r = &d->bw[d->n_bw];

			r->op = ops[i].name;
			ok = bw_row(d, ops[i].op, sizes[j], t, r, s);
			if (ok && !d->o.json)
				print_bw_row(r);
			d->n_bw += ok;
		}
	}
	free(t);
	return ok && step_pass(s, "%d rows", d->n_bw);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* perftest's write_lat halves a ping-pong of WRITEs; this is the requester's
 * view instead: post one signaled 8-byte WRITE, spin until it completes
 * (the request out, the ACK back). */
static bool run_latency(struct demo *d, struct lat *l, struct step *s)
{
	struct nic *b = &d->b;
	uint64_t *t = malloc((size_t)d->o.iters * sizeof(*t));
	uint64_t stop = now_ns() + row_ns(d), sum = 0;
	struct roce_send_wr wr;
	struct roce_sge sge;
	bool ok = t != NULL;
	uint32_t n = 0;

	wr_init(&wr, &sge, ROCE_WR_RDMA_WRITE, b, d->b_bwsrc, 8, 0);
	wr.wr.rdma.remote_addr = d->ad.base;
	wr.wr.rdma.rkey = d->ad.rkey;
	while (ok && n < d->o.iters && (n == 0 || now_ns() < stop)) {
		uint64_t t0 = now_ns();

		ok = post_wait(d, b, &wr, s, "8-byte WRITE");
		t[n] = now_ns() - t0;
		sum += t[n++];
	}
	if (ok) {
		qsort(t, n, sizeof(*t), cmp_u64);
		*l = (struct lat){ n, t[0] / 1e3, t[n / 2] / 1e3, sum / 1e3 / n,
				   t[((size_t)n * 99 + 99) / 100 - 1] / 1e3,
				   t[n - 1] / 1e3 };
		step_pass(s, "%u samples", n);
	}
	free(t);
	return ok;
}

static bool read_counters(struct demo *d, struct step *s)
{
	struct nic *n[2] = { &d->a, &d->b };

	for (int i = 0; i < 2; i++) {
		if (roce_drv_counters_read(n[i]->drv, n[i]->cnt, ROCE_CNT_COUNT,
					   &n[i]->n_cnt) != ROCE_OK)
			return step_fail(s, "NIC %s: %s", n[i]->name, n[i]->drv->err);
	}
	if (d->a.n_cnt != d->b.n_cnt)
		return step_fail(s, "the two register maps list different counters");
	return step_pass(s, "%zu counters each", d->a.n_cnt);
}

static uint64_t cnt_of(const struct nic *n, const char *name)
{
	for (size_t i = 0; i < n->n_cnt; i++)
		if (strcmp(n->cnt[i].name, name) == 0)
			return n->cnt[i].value;
	return 0;
}

/* ---- text report -------------------------------------------------------- */

static void print_banner(const struct demo *d)
{
	const struct opts *o = &d->o;

	printf("roce-demo: two emulated RoCE v2 NICs, A and B, joined by an in-memory link.\n"
	       "Each is a whole device model (register file, QP and MR tables, DDR, engine),\n"
	       "configured only through its AXI-Lite register file, as the host driver\n"
	       "configures the board. Path MTU %u; engines %s.\n",
	       roce_mtu_bytes(o->mtu), o->threads ? "on threads of their own"
						  : "polled from the main thread");
	if (o->loss + o->reorder + o->duplicate + o->corrupt > 0)
		printf("Link faults (seed %" PRIu64 "): loss %g%%, reorder %g%%, "
		       "duplicate %g%%, corrupt %g%%.\n", o->seed, o->loss,
		       o->reorder, o->duplicate, o->corrupt);
	else
		printf("Link: no faults.\n");
	if (o->pcap)
		printf("Capturing every frame into %s.\n", o->pcap);
}

static void print_nic(const struct nic *n)
{
	const struct roce_qp_ctx *q = &n->qpc;
	char mac[18], ip[16], pmac[18], pip[16], acc[96];
	uint32_t id = n->dev.dev_id, v = n->dev.version;

	roce_format_mac(n->ep.mac, mac);
	roce_format_ipv4(n->ep.ip, ip);
	roce_format_mac(q->peer_mac, pmac);
	roce_format_ipv4(q->peer_ip, pip);
	printf("  NIC %s  %c%c%c%c v%u.%u.%u, STATUS 0x%02x%s%s, DDR %u MiB, "
	       "%u QPs, %u MRs\n", n->name, id >> 24, (id >> 16) & 0xFF,
	       (id >> 8) & 0xFF, id & 0xFF, v >> 16, (v >> 8) & 0xFF, v & 0xFF,
	       n->dev.status, n->dev.status & ROCE_STATUS_LINK_READY ? " link-ready" : "",
	       n->dev.status & ROCE_STATUS_RUNNING ? " running" : "",
	       n->dev.mem_size_kb / 1024, n->dev.qp_count, n->dev.mr_count);
	printf("         MAC %s  IP %s  UDP %u\n", mac, ip, n->ep.udp_port);
	roce_format_access(q->access, acc, sizeof(acc));
	printf("         QP 0x%06x %s %s MTU %u, access %s\n", q->qpn,
	       roce_qp_state_name(q->state), roce_qp_type_name(q->type),
	       roce_mtu_bytes((enum roce_mtu)q->mtu), acc);
	printf("           -> QP 0x%06x at %s %s, sq_psn 0x%06x, rq_psn 0x%06x, "
	       "timeout %u, retry %u\n", q->dest_qpn, pip, pmac, q->sq_psn,
	       q->rq_psn, q->timeout, q->retry_cnt);
	for (int i = 0; i < n->n_mr; i++) {
		const struct roce_mr_ctx *m = &n->mrc[i];

		roce_format_access(m->access, acc, sizeof(acc));
		printf("         MR %-3u va 0x%" PRIx64 " len %" PRIu64 " R_Key 0x%08x"
		       " %s\n", m->index, m->va, m->len, m->rkey, acc);
	}
}

static void print_step(const struct step *s)
{
	const char *nl = strchr(s->detail, '\n');
	int head = nl ? (int)(nl - s->detail) : (int)strlen(s->detail);

	if (s->st == STEP_PASS)
		printf("  \u2713 (%s) %.*s\n", s->label, head, s->detail);
	else
		printf("  \u2717 FAIL (%s) %s: %.*s\n", s->label ? s->label : s->key,
		       s->title, head, s->detail);
	if (nl)
		printf("        %s\n", nl + 1);
}

static void print_latency(const struct demo *d)
{
	const struct lat *l = &d->lat;

	printf("\nWRITE latency: 8 bytes, signaled, post to completion (request out, ACK\n"
	       "back; perftest's write_lat reports half a ping-pong instead)%s\n",
	       d->o.threads ? ";\nthe main thread naps 10 µs between CQ polls to leave "
			      "the cores to the engines" : "");
	printf(" %6s %12s %12s %16s %12s %12s\n", "#bytes", "#iterations",
	       "t_min[usec]", "t_typical[usec]", "t_avg[usec]", "99%[usec]");
	printf(" %6u %12u %12.2f %16.2f %12.2f %12.2f\n", 8u, l->n, l->min,
	       l->p50, l->avg, l->p99);
	printf(" p50 %.2f \u00b5s, p99 %.2f \u00b5s\n", l->p50, l->p99);
}

static void print_counters(const struct demo *d)
{
	const struct roce_memlink_stats *ls = &d->ls;
	int shown = 0;

	printf("\nCounters, read from each NIC's STAT registers%s\n",
	       d->o.all_counters ? "" : " (non-zero ones; --all-counters for all)");
	printf("  %-26s %14s %14s\n", "counter", "NIC A", "NIC B");
	for (size_t i = 0; i < d->a.n_cnt; i++) {
		uint64_t va = d->a.cnt[i].value, vb = d->b.cnt[i].value;

		if (!d->o.all_counters && !va && !vb)
			continue;
		printf("  %-26s %14" PRIu64 " %14" PRIu64 "\n", d->a.cnt[i].name,
		       va, vb);
		shown++;
	}
	if (!shown)
		printf("  (all zero)\n");
	printf("Link: %" PRIu64 " frames sent, %" PRIu64 " delivered, %" PRIu64
	       " lost, %" PRIu64 " corrupted, %" PRIu64 " duplicated, %" PRIu64
	       " reordered, %" PRIu64 " dropped (ring full)\n", ls->sent,
	       ls->delivered, ls->lost, ls->corrupted, ls->duplicated,
	       ls->reordered, ls->ring_full);
	if (ls->lost + ls->corrupted + ls->duplicated + ls->reordered)
		printf("Recovery: %" PRIu64 " retransmissions, %" PRIu64 " timeouts, %"
		       PRIu64 " PSN-sequence NAKs sent, %" PRIu64 " ICRC drops "
		       "(A + B)\n",
		       cnt_of(&d->a, "retransmissions") + cnt_of(&d->b, "retransmissions"),
		       cnt_of(&d->a, "timeouts") + cnt_of(&d->b, "timeouts"),
		       cnt_of(&d->a, "naks_tx_psn_seq_err") +
		       cnt_of(&d->b, "naks_tx_psn_seq_err"),
		       cnt_of(&d->a, "icrc_errors") + cnt_of(&d->b, "icrc_errors"));
}

/* Failure lines of the steps that have no success line of their own. */
static void print_summary(const struct demo *d, int failed)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (d->step[i].st == STEP_FAIL && !d->step[i].label)
			print_step(&d->step[i]);
	if (failed < 0) {
		printf("\nPASS: every step succeeded.\n");
		return;
	}
	printf("\nFAIL: %s: %s\n", d->step[failed].title, d->step[failed].detail);
}

/* ---- JSON report -------------------------------------------------------- */

static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_nic(const struct nic *n)
{
	char mac[18], ip[16], pip[16];

	roce_format_mac(n->ep.mac, mac);
	roce_format_ipv4(n->ep.ip, ip);
	roce_format_ipv4(n->qpc.peer_ip, pip);
	printf("{\"mac\":\"%s\",\"ip\":\"%s\",\"udp_port\":%u,\"status\":%u,"
	       "\"qp\":{\"qpn\":%u,\"state\":\"%s\",\"mtu\":%u,\"dest_qpn\":%u,"
	       "\"peer_ip\":\"%s\",\"sq_psn\":%u,\"rq_psn\":%u},\"mrs\":[",
	       mac, ip, n->ep.udp_port, n->dev.status, n->qpc.qpn,
	       roce_qp_state_name(n->qpc.state),
	       roce_mtu_bytes((enum roce_mtu)n->qpc.mtu), n->qpc.dest_qpn, pip,
	       n->qpc.sq_psn, n->qpc.rq_psn);
	for (int i = 0; i < n->n_mr; i++)
		printf("%s{\"index\":%u,\"va\":%" PRIu64 ",\"len\":%" PRIu64
		       ",\"rkey\":%u,\"access\":%u}", i ? "," : "", n->mrc[i].index,
		       n->mrc[i].va, n->mrc[i].len, n->mrc[i].rkey, n->mrc[i].access);
	printf("]}");
}

static void json_counters(const struct nic *n)
{
	putchar('{');
	for (size_t i = 0; i < n->n_cnt; i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", n->cnt[i].name,
		       n->cnt[i].value);
	putchar('}');
}

static void print_json(const struct demo *d, int failed)
{
	static const char *const st_name[] = { "not_run", "pass", "fail" };
	const struct opts *o = &d->o;
	const struct roce_memlink_stats *ls = &d->ls;
	const struct lat *l = &d->lat;

	printf("{\"result\":\"%s\",\"failed_step\":", failed < 0 ? "pass" : "fail");
	if (failed < 0)
		printf("null");
	else
		json_str(d->step[failed].key);
	printf(",\"options\":{\"mtu\":%u,\"size\":%" PRIu64 ",\"iters\":%u,"
	       "\"loss\":%g,\"reorder\":%g,\"duplicate\":%g,\"corrupt\":%g,"
	       "\"seed\":%" PRIu64 ",\"threads\":%s,\"quick\":%s,\"pcap\":",
	       roce_mtu_bytes(o->mtu), o->size, o->iters, o->loss, o->reorder,
	       o->duplicate, o->corrupt, o->seed, o->threads ? "true" : "false",
	       o->quick ? "true" : "false");
	if (o->pcap)
		json_str(o->pcap);
	else
		printf("null");
	printf("},\"nics\":{\"A\":");
	json_nic(&d->a);
	printf(",\"B\":");
	json_nic(&d->b);
	printf("},\"steps\":[");
	for (int i = 0; i < ST_COUNT; i++) {
		printf("%s{\"name\":\"%s\",\"result\":\"%s\",\"detail\":", i ? "," : "",
		       d->step[i].key, st_name[d->step[i].st]);
		json_str(d->step[i].detail);
		putchar('}');
	}
	printf("],\"advertisement\":{\"base\":%" PRIu64 ",\"size\":%" PRIu64
	       ",\"rkey\":%u},\"bandwidth\":[", d->ad.base, d->ad.size, d->ad.rkey);
	for (int i = 0; i < d->n_bw; i++)
		printf("%s{\"op\":\"%s\",\"bytes\":%u,\"iterations\":%u,"
		       "\"bw_peak_mb_s\":%.2f,\"bw_avg_mb_s\":%.2f,\"msg_rate_mpps\":%.6f}",
		       i ? "," : "", d->bw[i].op, d->bw[i].bytes, d->bw[i].iters,
		       d->bw[i].peak, d->bw[i].avg, d->bw[i].mpps);
	printf("],\"latency\":{\"op\":\"WRITE\",\"bytes\":8,\"method\":"
	       "\"post_to_completion\",\"samples\":%u,\"min_us\":%.3f,\"p50_us\":%.3f,"
	       "\"avg_us\":%.3f,\"p99_us\":%.3f,\"max_us\":%.3f},\"counters\":{\"A\":",
	       l->n, l->min, l->p50, l->avg, l->p99, l->max);
	json_counters(&d->a);
	printf(",\"B\":");
	json_counters(&d->b);
	printf("},\"link\":{\"sent\":%" PRIu64 ",\"delivered\":%" PRIu64 ",\"lost\":%"
	       PRIu64 ",\"corrupted\":%" PRIu64 ",\"duplicated\":%" PRIu64
	       ",\"reordered\":%" PRIu64 ",\"ring_full\":%" PRIu64 "}}\n", ls->sent,
	       ls->delivered, ls->lost, ls->corrupted, ls->duplicated, ls->reordered,
	       ls->ring_full);
}

/* ---- main --------------------------------------------------------------- */

static int first_failed(const struct demo *d)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (d->step[i].st == STEP_FAIL)
			return i;
	return -1;
}

/* The seed's flow, then the measurements; each runs only if all before
 * it passed (a QP in error would fail everything after it anyway). */
static void run(struct demo *d)
{
	static bool (*const flow[])(struct demo *, struct step *) = {
		step_advertise, step_write, step_read, step_fetch_add, step_cmp_swap,
	};
	bool text = !d->o.json;

	if (text) {
		printf("\nConfiguration, read back through each register file\n");
		print_nic(&d->a);
		print_nic(&d->b);
		printf("\nThe seed's flow: A advertises its memory with a SEND, B uses it\n");
	}
	for (int i = 0; i < 5; i++) {
		struct step *s = &d->step[ST_ADVERTISE + i];

		flow[i](d, s);
		if (text) {
			print_step(s);
			fflush(stdout);
		}
		if (s->st != STEP_PASS)
			return;
	}
	if (!run_bandwidth(d, &d->step[ST_BANDWIDTH]))
		return;
	if (run_latency(d, &d->lat, &d->step[ST_LATENCY]) && text)
		print_latency(d);
}

int main(int argc, char **argv)
{
	struct demo *d = calloc(1, sizeof(*d));
	int rc, failed;

	if (!d) {
		fprintf(stderr, "roce-demo: out of memory\n");
		return 1;
	}
	memcpy(d->step, step_init, sizeof(step_init));
	rc = parse_args(argc, argv, &d->o);
	if (rc) {
		free(d);
		return rc == 1 ? 0 : 2;
	}
	if (link_open(d) != ROCE_OK && d->o.pcap) {
		fprintf(stderr, "roce-demo: cannot create capture file '%s'\n", d->o.pcap);
		free(d);
		return 2;
	}
	if (!d->o.json)
		print_banner(d);
	if (d->link && demo_open(d))
		run(d);
	if (d->a.ctx && d->b.ctx) {
		roce_engine_stop(d->a.ctx);
		roce_engine_stop(d->b.ctx);
		read_counters(d, &d->step[ST_COUNTERS]);
	}
	if (d->link)
		roce_memlink_get_stats(d->link, &d->ls);
	failed = first_failed(d);
	if (d->o.json) {
		print_json(d, failed);
	} else {
		if (d->a.n_cnt)
			print_counters(d);
		print_summary(d, failed);
	}
	nic_close(&d->a);
	nic_close(&d->b);
	roce_memlink_destroy(d->link);
	free(d);
	return failed < 0 ? 0 : 1;
}
