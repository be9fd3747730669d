/* SPDX-License-Identifier: MIT */
/*
 * rocectl: the host's view of the device. Register read/write/dump by name
 * or offset with fields decoded, the seed's power-on sequence from a config
 * file (init), its register regression check (verify), table entries and
 * counters. The same commands run over every bus backend.
 *
 * Exit status: 0 success; 1 the device or bus said no (error response,
 * mismatch, timeout); 2 a bad command line or config file.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "roce/bus.h"
#include "roce/counters.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "roce/regmap.h"
#include "roce/tables.h"

#define EXIT_DEVICE 1
#define EXIT_USAGE 2

struct ctl {
	const char *sock;		/* bus selection */
	const char *mmap_spec;
	int local;
	int json;
	struct roce_bus bus;
	struct roce_device *dev;	/* --local */
	struct roce_drv drv;
};

static volatile sig_atomic_t g_interrupted;

static void usage(FILE *f)
{
	fputs("usage: rocectl [bus] [--json] COMMAND [ARGS]\n"
	      "Control a RoCE v2 NIC through its AXI-Lite register file.\n"
	      "\n"
	      "bus (default: $ROCECTL_BUS as socket:PATH, mmap:FILE[@OFFSET] or\n"
	      "local; else roced's default socket, see roced --help):\n"
	      "  --socket PATH        a device served by roced\n"
	      "  --mmap FILE[@OFF]    a register window: PCIe BAR\n"
	      "                       (/sys/bus/pci/devices/*/resourceN), UIO\n"
	      "                       (/dev/uioN, map N at OFF = N * page size),\n"
	      "                       XDMA (/dev/xdma0_user), or a file served\n"
	      "                       by roced --mmap FILE\n"
	      "  --local              a throwaway in-process device\n"
	      "  --json               machine-readable output (every command\n"
	      "                       but write)\n"
	      "\n"
	      "commands:\n"
	      "  info                 device ID, version, sizes, status\n"
	      "  read REG|OFFSET      read one register, fields decoded\n"
	      "  write REG|OFFSET VALUE\n"
	      "                       write one register\n"
	      "  dump                 every register of the map, fields decoded\n"
	      "  qp QPN | mr INDEX    LOAD one table entry and show it\n"
	      "  init CONFIG          the power-on sequence from a config file\n"
	      "  verify CONFIG        read back every register the config sets,\n"
	      "                       print the differences; exit 1 on mismatch\n"
	      "  counters [NAME...] [--watch [SECS]] [--count N]\n"
	      "                       64-bit counters; --watch refreshes every\n"
	      "                       SECS (default 1) with deltas and rates,\n"
	      "                       --count N stops after N samples\n"
	      "\n"
	      "exit status: 0 ok, 1 device or bus error or mismatch, 2 usage\n",
	      f);
}

/* ---- output helpers ---------------------------------------------------- */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static int fail(struct ctl *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ctl *c, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rocectl: %s\n", msg);
	if (c && c->json) {
		printf("{\"error\":");
		json_str(msg);
		printf("}\n");
	}
	return code;
}

static int drv_fail(struct ctl *c, int st)
{
	(void)st;
	return fail(c, EXIT_DEVICE, "%s", c->drv.err);
}

/* ---- bus selection ----------------------------------------------------- */

static int open_mmap(struct ctl *c, const char *spec)
{
	char path[4096];
	const char *at = strrchr(spec, '@');
	uint64_t off = 0;
	size_t n = at ? (size_t)(at - spec) : strlen(spec);
	int st;

	if (n == 0 || n >= sizeof(path))
		return fail(c, EXIT_USAGE, "--mmap: bad path '%s'", spec);
	memcpy(path, spec, n);
	path[n] = '\0';
	if (at && (roce_parse_u64(at + 1, false, &off) != ROCE_OK || off & 3))
		return fail(c, EXIT_USAGE, "--mmap: bad offset '%s' (a multiple "
			    "of 4, decimal or 0x hex)", at + 1);
	st = roce_bus_open_mmap(&c->bus, path, off, ROCE_MMAP_AUTO);
	if (st == ROCE_E_NODEV)
		return fail(c, EXIT_DEVICE, "%s: no live mirror behind this "
			    "file (start one with: roced --mmap %s)", path, path);
	if (st == ROCE_E_RANGE)
		return fail(c, EXIT_DEVICE, "%s: too small for a register "
			    "window at offset 0x%" PRIx64, path, off);
	if (st != ROCE_OK)
		return fail(c, EXIT_DEVICE, "cannot map %s: %s", path,
			    st == ROCE_E_IO ? strerror(errno)
					    : roce_status_str(st));
	return 0;
}

static int open_socket(struct ctl *c, const char *path)
{
	char def[108];
	int st;

	if (!path && !(path = roce_bus_default_socket_path(def, sizeof(def))))
		return fail(c, EXIT_USAGE, "no default socket path; use --socket");
	st = roce_bus_open_socket(&c->bus, path);
	if (st == ROCE_E_IO || st == ROCE_E_RANGE)
		return fail(c, EXIT_DEVICE, "cannot connect to roced at %s: %s "
			    "(is roced running? start it with: roced --socket %s)",
			    path, strerror(errno), path);
	if (st != ROCE_OK)
		return fail(c, EXIT_DEVICE, "roced at %s: %s", path,
			    st == ROCE_E_UNSUPPORTED ? "protocol version mismatch"
						     : roce_status_str(st));
	return 0;
}

static int open_bus(struct ctl *c)
{
	const char *env = getenv("ROCECTL_BUS");
	int st;

	if (!c->sock && !c->mmap_spec && !c->local && env && *env) {
		if (strncmp(env, "socket:", 7) == 0)
			c->sock = env + 7;
		else if (strncmp(env, "mmap:", 5) == 0)
			c->mmap_spec = env + 5;
		else if (strcmp(env, "local") == 0)
			c->local = 1;
		else
			return fail(c, EXIT_USAGE, "ROCECTL_BUS='%s': expected "
				    "socket:PATH, mmap:FILE[@OFFSET] or local", env);
	}
	if (c->local) {
		st = roce_device_create(NULL, &c->dev);
		if (st == ROCE_OK)
			st = roce_bus_open_local(&c->bus, c->dev);
		return st == ROCE_OK ? 0 : fail(c, EXIT_DEVICE, "local device: %s",
						roce_status_str(st));
	}
	if (c->mmap_spec)
		return open_mmap(c, c->mmap_spec);
	return open_socket(c, c->sock);
}

/* ---- registers --------------------------------------------------------- */

/* REG name (any case) or a number; *r is NULL for an unmapped offset. */
static int resolve_reg(struct ctl *c, const char *s, uint32_t *off,
		       const struct roce_reg **r)
{
	uint64_t v;

	*r = roce_regmap_find(s);
	if (*r) {
		*off = (*r)->offset;
		return 0;
	}
	if (roce_parse_u64(s, false, &v) == ROCE_OK && v <= UINT32_MAX) {
		*off = (uint32_t)v;
		*r = roce_regmap_find_offset(*off);
		return 0;
	}
	return fail(c, EXIT_USAGE, "unknown register '%s' (rocectl dump lists "
		    "the names; offsets are numbers like 0x04)", s);
}

static void print_reg(struct ctl *c, const struct roce_reg *r, uint32_t off,
		      uint32_t val, int st, int first)
{
	if (c->json) {
		printf("%s{\"name\":", first ? "" : ",");
		json_str(r ? r->name : "unmapped");
		printf(",\"offset\":%u,", off);
		if (st != ROCE_OK) {
			printf("\"error\":\"%s\"}", roce_status_name(st));
			return;
		}
		printf("\"value\":%u,\"fields\":{", val);
		for (unsigned i = 0; r && i < r->n_fields; i++)
			printf("%s\"%s\":%u", i ? "," : "", r->fields[i].name,
			       roce_reg_field_get(&r->fields[i], val));
		printf("}}");
		return;
	}
	printf("0x%04x %-32s ", off, r ? r->name : "unmapped");
	if (st != ROCE_OK) {
		printf("%s (%s)\n", roce_status_name(st), roce_status_str(st));
		return;
	}
	printf("0x%08x", val);
	for (unsigned i = 0; r && r->n_fields > 1 && i < r->n_fields; i++)
		printf(" %s=%u", r->fields[i].name,
		       roce_reg_field_get(&r->fields[i], val));
	printf("\n");
}

static int cmd_read(struct ctl *c, int argc, char **argv)
{
	const struct roce_reg *r;
	uint32_t off, val = 0;
	int st;

	if (argc != 1)
		return fail(c, EXIT_USAGE, "usage: rocectl read REG|OFFSET");
	if ((st = resolve_reg(c, argv[0], &off, &r)) != 0)
		return st;
	if ((st = roce_drv_read(&c->drv, off, &val)) != ROCE_OK)
		return drv_fail(c, st);
	print_reg(c, r, off, val, ROCE_OK, 1);
	if (c->json)
		printf("\n");
	return 0;
}

static int cmd_write(struct ctl *c, int argc, char **argv)
{
	const struct roce_reg *r;
	uint32_t off;
	uint64_t v;
	int st;

	if (argc != 2)
		return fail(c, EXIT_USAGE, "usage: rocectl write REG|OFFSET VALUE");
	if ((st = resolve_reg(c, argv[0], &off, &r)) != 0)
		return st;
	if (roce_parse_u64(argv[1], false, &v) != ROCE_OK || v > UINT32_MAX)
		return fail(c, EXIT_USAGE, "bad value '%s' (a 32-bit number, "
			    "decimal or 0x hex)", argv[1]);
	if ((st = roce_drv_write(&c->drv, off, (uint32_t)v)) != ROCE_OK)
		return drv_fail(c, st);
	return 0;
}

static int cmd_dump(struct ctl *c, int argc, char **argv)
{
	const struct roce_reg *r;

	(void)argv;
	if (argc != 0)
		return fail(c, EXIT_USAGE, "usage: rocectl dump");
	if (c->json)
		printf("{\"registers\":[");
	for (size_t i = 0; (r = roce_regmap_at(i)) != NULL; i++) {
		uint32_t val = 0;
		int st = roce_bus_read32(&c->bus, r->offset, &val);

		/* An error response is shown in place; a dead bus ends it. */
		if (st != ROCE_OK && st != ROCE_E_SLVERR && st != ROCE_E_DECERR) {
			if (c->json)
				printf("]}\n");
			return fail(c, EXIT_DEVICE, "read %s: %s", r->name,
				    roce_status_str(st));
		}
		print_reg(c, r, r->offset, val, st, i == 0);
	}
	if (c->json)
		printf("]}\n");
	return 0;
}

/* ---- device and table entries ------------------------------------------ */

static int cmd_info(struct ctl *c, int argc, char **argv)
{
	struct roce_dev_info in;
	int st;

	(void)argv;
	if (argc != 0)
		return fail(c, EXIT_USAGE, "usage: rocectl info");
	if ((st = roce_drv_probe(&c->drv, &in)) != ROCE_OK)
		return drv_fail(c, st);
	if (c->json) {
		printf("{\"bus\":\"%s\",\"dev_id\":%u,\"version\":\"%u.%u.%u\","
		       "\"qp_count\":%u,\"mr_count\":%u,\"mem_size_kb\":%u,"
		       "\"status\":%u,\"link_ready\":%s}\n",
		       roce_bus_name(&c->bus), in.dev_id, in.version >> 16,
		       (in.version >> 8) & 0xFF, in.version & 0xFF, in.qp_count,
		       in.mr_count, in.mem_size_kb, in.status,
		       in.status & ROCE_STATUS_LINK_READY ? "true" : "false");
		return 0;
	}
	printf("bus          %s\n", roce_bus_name(&c->bus));
	printf("dev_id       0x%08x\n", in.dev_id);
	printf("version      %u.%u.%u\n", in.version >> 16,
	       (in.version >> 8) & 0xFF, in.version & 0xFF);
	printf("qp_count     %u\nmr_count     %u\nmem_size     %u KiB\n",
	       in.qp_count, in.mr_count, in.mem_size_kb);
	printf("status       0x%08x%s%s%s\n", in.status,
	       in.status & ROCE_STATUS_LINK_READY ? " link-ready" : " link-down",
	       in.status & ROCE_STATUS_RUNNING ? " running" : "",
	       in.status & ROCE_STATUS_IN_RESET ? " in-reset" : "");
	return 0;
}

static int parse_index(struct ctl *c, const char *s, const char *what,
		       uint32_t *out)
{
	uint64_t v;

	if (roce_parse_u64(s, false, &v) != ROCE_OK || v > 0xFFFFFF)
		return fail(c, EXIT_USAGE, "bad %s '%s' (a number up to 0xffffff)",
			    what, s);
	*out = (uint32_t)v;
	return 0;
}

static void show_kv(struct ctl *c, int *first, const char *k, const char *fmt,
		    uint64_t v, const char *text)
{
	if (c->json) {
		printf("%s\"%s\":", *first ? "" : ",", k);
		if (text)
			json_str(text);
		else
			printf("%" PRIu64, v);
	} else if (text) {
		printf("%-20s %s\n", k, text);
	} else {
		printf("%-20s ", k);
		printf(fmt, v);
		printf("\n");
	}
	*first = 0;
}

static int cmd_qp(struct ctl *c, int argc, char **argv)
{
	struct roce_qp_ctx q;
	char mac[18], ip[16], acc[80];
	uint32_t qpn = 0;
	int st, f = 1;

	if (argc != 1)
		return fail(c, EXIT_USAGE, "usage: rocectl qp QPN");
	if ((st = parse_index(c, argv[0], "QPN", &qpn)) != 0)
		return st;
	if ((st = roce_drv_qp_read(&c->drv, qpn, &q)) != ROCE_OK)
		return drv_fail(c, st);
	roce_format_mac(q.peer_mac, mac);
	roce_format_ipv4(q.peer_ip, ip);
	roce_format_access(q.access, acc, sizeof(acc));
	if (c->json)
		printf("{");
	show_kv(c, &f, "qpn", "%" PRIu64, q.qpn, NULL);
	show_kv(c, &f, "state", NULL, 0, roce_qp_state_name(q.state));
	show_kv(c, &f, "type", NULL, 0, roce_qp_type_name(q.type));
	show_kv(c, &f, "mtu", "%" PRIu64,
		roce_mtu_bytes((enum roce_mtu)q.mtu), NULL);
	show_kv(c, &f, "access", NULL, 0, acc);
	show_kv(c, &f, "dest_qpn", "0x%06" PRIx64, q.dest_qpn, NULL);
	show_kv(c, &f, "sq_psn", "0x%06" PRIx64, q.sq_psn, NULL);
	show_kv(c, &f, "rq_psn", "0x%06" PRIx64, q.rq_psn, NULL);
	show_kv(c, &f, "peer_ip", NULL, 0, ip);
	show_kv(c, &f, "peer_mac", NULL, 0, mac);
	show_kv(c, &f, "pkey", "0x%04" PRIx64, q.pkey, NULL);
	show_kv(c, &f, "timeout", "%" PRIu64, q.timeout, NULL);
	show_kv(c, &f, "retry_cnt", "%" PRIu64, q.retry_cnt, NULL);
	show_kv(c, &f, "rnr_retry", "%" PRIu64, q.rnr_retry, NULL);
	show_kv(c, &f, "min_rnr_timer", "%" PRIu64, q.min_rnr_timer, NULL);
	show_kv(c, &f, "max_rd_atomic", "%" PRIu64, q.max_rd_atomic, NULL);
	show_kv(c, &f, "max_dest_rd_atomic", "%" PRIu64, q.max_dest_rd_atomic, NULL);
	show_kv(c, &f, "qkey", "0x%08" PRIx64, q.qkey, NULL);
	show_kv(c, &f, "pd", "%" PRIu64, q.pd, NULL);
	if (c->json)
		printf("}\n");
	return 0;
}

static int cmd_mr(struct ctl *c, int argc, char **argv)
{
	struct roce_mr_ctx m;
	char acc[80];
	uint32_t idx = 0;
	int st, f = 1;

	if (argc != 1)
		return fail(c, EXIT_USAGE, "usage: rocectl mr INDEX");
	if ((st = parse_index(c, argv[0], "MR index", &idx)) != 0)
		return st;
	if ((st = roce_drv_mr_read(&c->drv, idx, &m)) != ROCE_OK)
		return drv_fail(c, st);
	roce_format_access(m.access, acc, sizeof(acc));
	if (c->json)
		printf("{");
	show_kv(c, &f, "index", "%" PRIu64, m.index, NULL);
	if (c->json)
		printf(",\"valid\":%s", m.valid ? "true" : "false");
	else
		show_kv(c, &f, "valid", NULL, 0, m.valid ? "yes" : "no");
	show_kv(c, &f, "access", NULL, 0, acc);
	show_kv(c, &f, "va", "0x%" PRIx64, m.va, NULL);
	show_kv(c, &f, "pa", "0x%" PRIx64, m.pa, NULL);
	show_kv(c, &f, "len", "%" PRIu64, m.len, NULL);
	show_kv(c, &f, "rkey", "0x%08" PRIx64, m.rkey, NULL);
	show_kv(c, &f, "lkey", "0x%08" PRIx64, m.lkey, NULL);
	show_kv(c, &f, "pd", "%" PRIu64, m.pd, NULL);
	if (c->json)
		printf("}\n");
	return 0;
}

/* ---- init and verify --------------------------------------------------- */

static struct roce_config *load_config(struct ctl *c, const char *path)
{
	struct roce_config *cfg = malloc(sizeof(*cfg));
	char err[512];
	int st;

	if (!cfg) {
		fail(c, EXIT_DEVICE, "out of memory");
		return NULL;
	}
	if ((st = roce_config_load(path, cfg, err, sizeof(err))) != ROCE_OK) {
		fail(c, EXIT_USAGE, "%s", err);
		free(cfg);
		return NULL;
	}
	return cfg;
}

static int cmd_init(struct ctl *c, int argc, char **argv)
{
	struct roce_config *cfg;
	int st;

	if (argc != 1)
		return fail(c, EXIT_USAGE, "usage: rocectl init CONFIG");
	if (!(cfg = load_config(c, argv[0])))
		return EXIT_USAGE;
	st = roce_drv_power_on(&c->drv, cfg);
	if (st == ROCE_OK && c->json)
		printf("{\"ok\":true,\"qps\":%u,\"mrs\":%u}\n", cfg->n_qp,
		       cfg->n_mr);
	else if (st == ROCE_OK)
		printf("init: %s: device up, %u QP(s), %u MR(s)\n", argv[0],
		       cfg->n_qp, cfg->n_mr);
	free(cfg);
	return st == ROCE_OK ? 0 : fail(c, EXIT_DEVICE, "init: %s", c->drv.err);
}

struct verify_out {
	struct ctl *c;
	unsigned n;
};

static void verify_print(const struct roce_verify_diff *d, void *arg)
{
	struct verify_out *o = arg;

	if (o->c->json) {
		printf("%s{\"register\":", o->n++ ? "," : "");
		json_str(d->reg);
		printf(",\"offset\":%u,\"expected\":%u,\"actual\":%u,"
		       "\"status\":\"%s\"}", d->off, d->expected, d->actual,
		       roce_status_name(d->status));
		return;
	}
	o->n++;
	if (d->status != ROCE_OK)
		printf("MISMATCH %-28s (0x%03x) expected 0x%08x, read failed: %s\n",
		       d->reg, d->off, d->expected, roce_status_name(d->status));
	else
		printf("MISMATCH %-28s (0x%03x) expected 0x%08x actual 0x%08x\n",
		       d->reg, d->off, d->expected, d->actual);
}

static int cmd_verify(struct ctl *c, int argc, char **argv)
{
	struct verify_out o = { c, 0 };
	struct roce_config *cfg;
	unsigned ndiff = 0;
	int st;

	if (argc != 1)
		return fail(c, EXIT_USAGE, "usage: rocectl verify CONFIG");
	if (!(cfg = load_config(c, argv[0])))
		return EXIT_USAGE;
	if (c->json)
		printf("{\"diffs\":[");
	st = roce_drv_verify(&c->drv, cfg, verify_print, &o, &ndiff);
	free(cfg);
	if (c->json)
		printf("],\"ok\":%s}\n", st == ROCE_OK ? "true" : "false");
	if (st == ROCE_E_MISMATCH) {
		fprintf(stderr, "rocectl: verify: %u register(s) differ from %s\n",
			ndiff, argv[0]);
		return EXIT_DEVICE;
	}
	if (st != ROCE_OK) {
		fprintf(stderr, "rocectl: verify: %s\n", c->drv.err);
		return EXIT_DEVICE;
	}
	if (!c->json)
		printf("verify: %s: every register matches\n", argv[0]);
	return 0;
}

/* ---- counters ---------------------------------------------------------- */

struct watch_opts {
	int watch;
	double secs;
	uint64_t count;			/* 0: until interrupted */
	const char *names[ROCE_CNT_COUNT];
	size_t n_names;
};

static int counters_args(struct ctl *c, int argc, char **argv,
			 struct watch_opts *w)
{
	char *end;

	w->secs = 1.0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--watch") == 0) {
			w->watch = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-' &&
			    (strtod(argv[i + 1], &end), *end == '\0')) {
				w->secs = strtod(argv[++i], NULL);
				if (!(w->secs >= 0.01 && w->secs <= 3600))
					return fail(c, EXIT_USAGE, "--watch: "
						    "interval '%s' not within "
						    "0.01..3600 s", argv[i]);
			}
		} else if (strcmp(argv[i], "--count") == 0) {
			if (i + 1 >= argc ||
			    roce_parse_u64(argv[++i], false, &w->count) != ROCE_OK ||
			    w->count == 0)
				return fail(c, EXIT_USAGE, "--count needs a "
					    "positive number");
		} else if (argv[i][0] == '-') {
			return fail(c, EXIT_USAGE, "counters: unknown option '%s'",
				    argv[i]);
		} else if (roce_cnt_find(argv[i]) < 0) {
			return fail(c, EXIT_USAGE, "unknown counter '%s' (rocectl "
				    "counters lists them)", argv[i]);
		} else if (w->n_names < ROCE_CNT_COUNT) {
			w->names[w->n_names++] = argv[i];
		}
	}
	if (w->count && !w->watch)
		w->watch = 1, w->secs = w->secs > 0 ? w->secs : 1.0;
	return 0;
}

static int counter_wanted(const struct watch_opts *w, const char *name)
{
	for (size_t i = 0; i < w->n_names; i++)
		if (strcasecmp(w->names[i], name) == 0)
			return 1;
	return w->n_names == 0;
}

static void counters_print(struct ctl *c, const struct watch_opts *w,
			   const struct roce_counter_value *v,
			   const uint64_t *prev, size_t n, double dt)
{
	int first = 1;

	if (c->json)
		printf("{\"counters\":{");
	else if (w->watch)
		printf("%-24s %20s %14s %14s\n", "counter", "value", "delta",
		       "per second");
	for (size_t i = 0; i < n; i++) {
		uint64_t d = prev ? v[i].value - prev[i] : 0;

		if (!counter_wanted(w, v[i].name))
			continue;
		if (c->json && !w->watch)
			printf("%s\"%s\":%" PRIu64, first ? "" : ",", v[i].name,
			       v[i].value);
		else if (c->json)
			printf("%s\"%s\":{\"value\":%" PRIu64 ",\"delta\":%" PRIu64
			       ",\"rate\":%.3f}", first ? "" : ",", v[i].name,
			       v[i].value, d, dt > 0 ? (double)d / dt : 0.0);
		else if (w->watch)
			printf("%-24s %20" PRIu64 " %14" PRIu64 " %14.1f\n",
			       v[i].name, v[i].value, d,
			       dt > 0 ? (double)d / dt : 0.0);
		else
			printf("%-24s %20" PRIu64 "\n", v[i].name, v[i].value);
		first = 0;
	}
	if (c->json)
		printf("}}\n");
	else if (w->watch)
		printf("\n");
	fflush(stdout);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double secs)
{
	struct timespec ts = { .tv_sec = (time_t)secs };

	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);	/* SIGINT cuts it short: the loop then ends */
}

static void on_interrupt(int sig)
{
	(void)sig;
	g_interrupted = 1;
}

static int cmd_counters(struct ctl *c, int argc, char **argv)
{
	struct roce_counter_value v[ROCE_CNT_COUNT];
	uint64_t prev[ROCE_CNT_COUNT];
	struct watch_opts w = { 0 };
	double t_prev = 0;
	size_t n;
	int st;

	if ((st = counters_args(c, argc, argv, &w)) != 0)
		return st;
	if (w.watch)
		signal(SIGINT, on_interrupt);
	for (uint64_t k = 0; !g_interrupted; k++) {
		double t = now_s();

		if ((st = roce_drv_counters_read(&c->drv, v, ROCE_CNT_COUNT, &n)))
			return drv_fail(c, st);
		counters_print(c, &w, v, k ? prev : NULL, n, t - t_prev);
		if (!w.watch || (w.count && k + 1 >= w.count))
			break;
		for (size_t i = 0; i < n; i++)
			prev[i] = v[i].value;
		t_prev = t;
		sleep_s(w.secs);
	}
	return 0;
}

/* ---- main -------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*fn)(struct ctl *c, int argc, char **argv);
} commands[] = {
	{ "info", cmd_info }, { "read", cmd_read }, { "write", cmd_write },
	{ "dump", cmd_dump }, { "qp", cmd_qp }, { "mr", cmd_mr },
	{ "init", cmd_init }, { "verify", cmd_verify },
	{ "counters", cmd_counters },
};

/* Global options before the command; returns the command's index in argv. */
static int parse_global(struct ctl *c, int argc, char **argv, int *done)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		int buses = !!c->sock + !!c->mmap_spec + c->local;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			*done = 0;
			return -1;
		} else if (strcmp(a, "--json") == 0) {
			c->json = 1;
		} else if (strcmp(a, "--local") == 0 && !buses) {
			c->local = 1;
		} else if ((strcmp(a, "--socket") == 0 || strcmp(a, "--mmap") == 0)
			   && !buses) {
			if (i + 1 >= argc || !*argv[i + 1]) {
				*done = fail(NULL, EXIT_USAGE, "%s needs an "
					     "argument", a);
				return -1;
			}
			*(a[2] == 's' ? &c->sock : &c->mmap_spec) = argv[++i];
		} else if (!strcmp(a, "--local") || !strcmp(a, "--socket") ||
			   !strcmp(a, "--mmap")) {
			*done = fail(NULL, EXIT_USAGE, "choose one bus: --socket, "
				     "--mmap or --local");
			return -1;
		} else {
			*done = fail(NULL, EXIT_USAGE, "unknown option '%s' (try "
				     "rocectl --help)", a);
			return -1;
		}
	}
	if (i >= argc) {
		usage(stderr);
		*done = EXIT_USAGE;
		return -1;
	}
	return i;
}

int main(int argc, char **argv)
{
	struct ctl c = { 0 };
	int rc = 0, i = parse_global(&c, argc, argv, &rc);
	size_t k;

	if (i < 0)
		return rc;
	/* --json may also follow the command: take it out of its arguments. */
	for (int a = i + 1, out = i + 1; a <= argc; a++) {
		if (a < argc && strcmp(argv[a], "--json") == 0)
			c.json = 1;
		else
			argv[out++] = argv[a];
		if (a == argc)
			argc = out - 1;
	}
	for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (strcmp(argv[i], commands[k].name) == 0)
			break;
	if (k == sizeof(commands) / sizeof(commands[0]))
		return fail(NULL, EXIT_USAGE, "unknown command '%s' (try rocectl "
			    "--help)", argv[i]);
	if ((rc = open_bus(&c)) != 0)
		return rc;
	roce_drv_init(&c.drv, &c.bus);
	rc = commands[k].fn(&c, argc - i - 1, argv + i + 1);
	roce_bus_close(&c.bus);
	roce_device_destroy(c.dev);
	return rc;
}
