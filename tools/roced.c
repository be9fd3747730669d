/* SPDX-License-Identifier: MIT */
/*
 * roced: runs a model RoCE device in this process and serves its register
 * file to host software: on a UNIX socket (rocectl --socket, the socket bus
 * backend) and optionally through a file-backed register window
 * (--mmap FILE; rocectl --mmap FILE, the mmap bus backend). The server is
 * src/driver/regsrv.c, the window mirror src/driver/mirror.c.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "driver/mirror.h"
#include "driver/regsrv.h"

static struct roce_regsrv *g_srv;
static volatile sig_atomic_t g_stopped;

static void usage(FILE *f)
{
	char def[108];

	fprintf(f,
		"usage: roced [options]\n"
		"Run a model RoCE v2 NIC and serve its AXI-Lite register file.\n"
		"\n"
		"  -s, --socket PATH       UNIX socket to serve on (default %s;\n"
		"                          $ROCED_SOCKET, else $XDG_RUNTIME_DIR/roced.sock,\n"
		"                          else /run/roced.sock as root, else\n"
		"                          /tmp/roced-UID.sock)\n"
		"  -m, --mmap FILE         also mirror the registers into FILE, a\n"
		"                          file-backed register window for the mmap bus\n"
		"  -d, --link-delay-us N   link-ready rises N us after start and after\n"
		"                          each soft-reset release (default 0)\n"
		"  -M, --mem-size BYTES    device memory, multiple of 1K; K/M/G suffix\n"
		"                          (default 64M)\n"
		"  -q, --quiet             no start-up messages\n"
		"  -h, --help              this text\n"
		"\n"
		"SIGINT or SIGTERM shut roced down and remove its socket.\n",
		roce_bus_default_socket_path(def, sizeof(def)) ? def : "?");
}

static void on_signal(int sig)
{
	(void)sig;
	g_stopped = 1;
	if (g_srv)
		roce_regsrv_stop(g_srv);
}

struct roced_opts {
	char sock[108];
	const char *mmap_path;
	struct roce_device_config dev;
	int quiet;
};

static int parse_num(const char *opt, const char *s, bool suffix, uint64_t max,
		     uint64_t *out)
{
	if (roce_parse_u64(s, suffix, out) != ROCE_OK || *out > max) {
		fprintf(stderr, "roced: %s: bad value '%s' (a number up to %llu%s)\n",
			opt, s, (unsigned long long)max,
			suffix ? ", K/M/G suffix allowed" : "");
		return -1;
	}
	return 0;
}

/* Returns 0 to run, 1 to exit successfully (--help), 2 on a usage error. */
static int parse_args(int argc, char **argv, struct roced_opts *o)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "mmap", required_argument, NULL, 'm' },
		{ "link-delay-us", required_argument, NULL, 'd' },
		{ "mem-size", required_argument, NULL, 'M' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	if (!roce_bus_default_socket_path(o->sock, sizeof(o->sock)))
		o->sock[0] = '\0';
	while ((c = getopt_long(argc, argv, "s:m:d:M:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (strlen(optarg) >= sizeof(o->sock) - 12 || !*optarg) {
				fprintf(stderr, "roced: --socket: path empty or "
					"longer than %zu bytes\n",
					sizeof(o->sock) - 13);
				return 2;
			}
			strcpy(o->sock, optarg);
			break;
		case 'm':
			o->mmap_path = optarg;
			break;
		case 'd':
			if (parse_num("--link-delay-us", optarg, false,
				      UINT32_MAX, &v))
				return 2;
			o->dev.link_delay_us = (uint32_t)v;
			break;
		case 'M':
			if (parse_num("--mem-size", optarg, true,
				      ROCE_DEV_MEM_SIZE_MAX, &v))
				return 2;
			o->dev.mem_size = (size_t)v;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "roced: try 'roced --help'\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "roced: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return 2;
	}
	return 0;
}

static int serve(struct roce_device *dev, const struct roced_opts *o)
{
	struct roce_mirror *mirror = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	int st;

	if (o->mmap_path &&
	    (st = roce_mirror_start(dev, o->mmap_path, NULL, &mirror)) != ROCE_OK) {
		fprintf(stderr, "roced: cannot mirror into %s: %s\n",
			o->mmap_path, st == ROCE_E_IO ? strerror(errno)
						      : roce_status_str(st));
		return 1;
	}
	/* Handlers first, so a signal during start-up still cleans up. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	st = roce_regsrv_create(dev, o->sock, &g_srv);
	if (st != ROCE_OK) {
		fprintf(stderr, "roced: cannot serve on %s: %s%s\n", o->sock,
			strerror(errno), st == ROCE_E_EXISTS
			? " (another roced is serving it)" : "");
		roce_mirror_stop(mirror);
		return 1;
	}
	if (!o->quiet) {
		fprintf(stderr, "roced: serving registers on %s\n", o->sock);
		if (mirror)
			fprintf(stderr, "roced: mirroring registers into %s\n",
				o->mmap_path);
	}
	st = g_stopped ? ROCE_OK : roce_regsrv_run(g_srv);
	roce_regsrv_destroy(g_srv);
	g_srv = NULL;
	roce_mirror_stop(mirror);
	if (st != ROCE_OK)
		fprintf(stderr, "roced: server failed: %s\n", strerror(errno));
	return st == ROCE_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct roced_opts o = { 0 };
	struct roce_device *dev;
	int rc = parse_args(argc, argv, &o), st;

	if (rc)
		return rc == 1 ? 0 : 2;
	if (!o.sock[0]) {
		fprintf(stderr, "roced: no usable default socket path; use --socket\n");
		return 2;
	}
	st = roce_device_create(&o.dev, &dev);
	if (st != ROCE_OK) {
		fprintf(stderr, "roced: cannot create the device: %s\n",
			roce_status_str(st));
		return 1;
	}
	rc = serve(dev, &o);
	roce_device_destroy(dev);
	return rc;
}
