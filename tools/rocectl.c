/* SPDX-License-Identifier: MIT */
/*
 * rocectl: the host's view of the device. Register read/write/dump by name
 * or offset with fields decoded, the seed's power-on sequence from a config
 * file (init), its register regression check (verify), table entries and
 * counters. The same commands run over every bus backend.
 *
 * Exit status: 0 success; 1 the device or bus said no (error response,
 * mismatch, timeout); 2 a bad command line or config file.
 *
 * This file reads the command line, opens the bus and runs the command;
 * the commands live in rocectl/ (ctl.h lists the files).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocectl/ctl.h"

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
	      "  --local              a throwaway in-process device (for init and\n"
	      "                       verify, with the config's qp_count)\n"
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
	      "  cc [set NAME=VALUE...|qp QPN [window=KB] [recovery=R] [algo=NAME]]\n"
	      "                       congestion control: the block (ECN masks,\n"
	      "                       window, timers, DCQCN knobs), changed and\n"
	      "                       committed, or a QP's current rate\n"
	      "  cm [PID]             the RDMA CM's IDs, connection states and\n"
	      "                       MAD counters in the programs of this\n"
	      "                       network namespace that run one (no bus)\n"
	      "  stage [key load SLOT FILE | key clear SLOT]\n"
	      "                       the inline stages: key slots loaded, MRs'\n"
	      "                       stage bindings, stage counters; load or\n"
	      "                       clear an XTS key (rocectl stage --help)\n"
	      "  ddr read ADDR LEN [-o FILE] | ddr write ADDR (-i FILE | HEX...)\n"
	      "                       the device's DDR through the bus's debug\n"
	      "                       port (rocectl ddr --help)\n"
	      "\n"
	      "exit status: 0 ok, 1 device or bus error or mismatch, 2 usage\n",
	      f);
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
		return ctl_fail(c, EXIT_USAGE, "--mmap: bad path '%s'", spec);
	memcpy(path, spec, n);
	path[n] = '\0';
	if (at && (roce_parse_u64(at + 1, false, &off) != ROCE_OK || off & 3))
		return ctl_fail(c, EXIT_USAGE, "--mmap: bad offset '%s' (a multiple "
				"of 4, decimal or 0x hex)", at + 1);
	st = roce_bus_open_mmap(&c->bus, path, off, ROCE_MMAP_AUTO);
	if (st == ROCE_E_NODEV)
		return ctl_fail(c, EXIT_DEVICE, "%s: no live mirror behind this "
				"file (start one with: roced --mmap %s)", path, path);
	if (st == ROCE_E_RANGE)
		return ctl_fail(c, EXIT_DEVICE, "%s: too small for a register "
				"window at offset 0x%" PRIx64, path, off);
	if (st != ROCE_OK)
		return ctl_fail(c, EXIT_DEVICE, "cannot map %s: %s", path,
				st == ROCE_E_IO ? strerror(errno)
						: roce_status_str(st));
	return 0;
}

static int open_socket(struct ctl *c, const char *path)
{
	char def[108];
	int st;

	if (!path && !(path = roce_bus_default_socket_path(def, sizeof(def))))
		return ctl_fail(c, EXIT_USAGE, "no default socket path; use --socket");
	st = roce_bus_open_socket(&c->bus, path);
	if (st == ROCE_E_IO && errno == EACCES)
		return ctl_fail(c, EXIT_DEVICE, "cannot connect to roced at %s: %s "
				"(its socket is for roced's user only, or the group "
				"given with roced --group)", path, strerror(errno));
	if (st == ROCE_E_IO || st == ROCE_E_RANGE)
		return ctl_fail(c, EXIT_DEVICE, "cannot connect to roced at %s: %s "
				"(is roced running? start it with: roced --socket %s)",
				path, strerror(errno), path);
	if (st != ROCE_OK)
		return ctl_fail(c, EXIT_DEVICE, "roced at %s: %s", path,
				st == ROCE_E_UNSUPPORTED ? "protocol version mismatch"
							 : roce_status_str(st));
	return 0;
}

int ctl_local_device(struct ctl *c, uint32_t qp_count)
{
	struct roce_device_config dc = { .qp_count = qp_count };
	int st;

	roce_bus_close(&c->bus);	/* the local bus only borrows the device */
	roce_device_destroy(c->dev);
	c->dev = NULL;
	st = roce_device_create(&dc, &c->dev);
	if (st == ROCE_OK)
		st = roce_bus_open_local(&c->bus, c->dev);
	if (st != ROCE_OK)
		return ctl_fail(c, EXIT_DEVICE, "local device: %s",
				roce_status_str(st));
	roce_drv_init(&c->drv, &c->bus);
	return 0;
}

static int open_bus(struct ctl *c)
{
	const char *env = getenv("ROCECTL_BUS");

	if (!c->sock && !c->mmap_spec && !c->local && env && *env) {
		if (strncmp(env, "socket:", 7) == 0)
			c->sock = env + 7;
		else if (strncmp(env, "mmap:", 5) == 0)
			c->mmap_spec = env + 5;
		else if (strcmp(env, "local") == 0)
			c->local = 1;
		else
			return ctl_fail(c, EXIT_USAGE, "ROCECTL_BUS='%s': expected "
					"socket:PATH, mmap:FILE[@OFFSET] or local", env);
	}
	if (c->local)
		return ctl_local_device(c, 0);
	if (c->mmap_spec)
		return open_mmap(c, c->mmap_spec);
	return open_socket(c, c->sock);
}

static const struct {
	const char *name;
	int (*fn)(struct ctl *c, int argc, char **argv);
	int no_bus;	/* reads no register */
	const char *help;	/* its own --help, or NULL */
} commands[] = {
	{ "info", cmd_info, 0, NULL }, { "read", cmd_read, 0, NULL },
	{ "write", cmd_write, 0, NULL },
	{ "dump", cmd_dump, 0, NULL }, { "qp", cmd_qp, 0, NULL }, { "mr", cmd_mr, 0, NULL },
	{ "init", cmd_init, 0, NULL }, { "verify", cmd_verify, 0, NULL },
	{ "counters", cmd_counters, 0, NULL }, { "cm", cmd_cm, 1, NULL }, { "cc", cmd_cc, 0, NULL },
	{ "stage", cmd_stage, 0, ctl_stage_help }, { "ddr", cmd_ddr, 0, ctl_ddr_help },
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
				*done = ctl_fail(NULL, EXIT_USAGE, "%s needs an "
						 "argument", a);
				return -1;
			}
			*(a[2] == 's' ? &c->sock : &c->mmap_spec) = argv[++i];
		} else if (!strcmp(a, "--local") || !strcmp(a, "--socket") ||
			   !strcmp(a, "--mmap")) {
			*done = ctl_fail(NULL, EXIT_USAGE, "choose one bus: --socket, "
					 "--mmap or --local");
			return -1;
		} else {
			*done = ctl_fail(NULL, EXIT_USAGE, "unknown option '%s' (try "
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
		return ctl_fail(NULL, EXIT_USAGE, "unknown command '%s' (try rocectl "
				"--help)", argv[i]);
	for (int a = i + 1; commands[k].help && a < argc; a++)
		if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			fputs(commands[k].help, stdout);
			return 0;
		}
	if (commands[k].no_bus)
		return commands[k].fn(&c, argc - i - 1, argv + i + 1);
	if ((rc = open_bus(&c)) != 0)
		return rc;
	roce_drv_init(&c.drv, &c.bus);
	rc = commands[k].fn(&c, argc - i - 1, argv + i + 1);
	roce_bus_close(&c.bus);
	roce_device_destroy(c.dev);
	return rc;
}
