/* SPDX-License-Identifier: MIT */
/*
 * roced: runs a model RoCE device in this process and serves its register
 * file to host software: on a UNIX socket (rocectl --socket, the socket bus
 * backend) and optionally through a file-backed register window
 * (--mmap FILE; rocectl --mmap FILE, the mmap bus backend). The server is
 * src/server/regsrv.c, the window mirror src/server/mirror.c.
 *
 * With --netdev IFNAME --ip A.B.C.D the device is a whole NIC on a real
 * interface: its transport engine runs on a raw-Ethernet port (AF_PACKET
 * or, with --link xdp, AF_XDP; roce/link_open.h) on a thread of its own,
 * answers RoCE v2 peers there, and the register file (control plane,
 * counters) stays served as above. docs/link.md tells what an
 * application can do with it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "roce/link_open.h"
#include "roce/verbs.h"
#include "common/trace.h"
#include "server/mirror.h"
#include "server/regsrv.h"

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
		"  -g, --group GROUP       give the socket to GROUP (name or number), mode\n"
		"                          0660: its members may connect too\n"
		"  -m, --mmap FILE         also mirror the registers into FILE, a\n"
		"                          file-backed register window for the mmap bus\n"
		"  -d, --link-delay-us N   link-ready rises N us after start and after\n"
		"                          each soft-reset release (default 0)\n"
		"  -M, --mem-size BYTES    device memory, multiple of 1K; K/M/G suffix\n"
		"                          (default 64M)\n"
		"  -Q, --qp-count N        QP table entries, the QP_COUNT register: QPNs\n"
		"                          0..N-1 exist, N in %u..%u (default %u)\n"
		"  -n, --netdev IFNAME     run the engine on this network interface\n"
		"                          (raw Ethernet; needs CAP_NET_RAW, and root\n"
		"                          for --link xdp)\n"
		"  -i, --ip A.B.C.D        the engine's IPv4 address (with --netdev)\n"
		"      --link packet|xdp   the port: AF_PACKET (default) or AF_XDP\n"
		"      --link-mode MODE    AF_PACKET: auto, ring, ring-v3 or mmsg\n"
		"                          (default auto)\n"
		"      --xdp-mode MODE     AF_XDP: auto, native or generic (default auto)\n"
		"      --arp WHEN          answer ARP for --ip: auto (when the kernel\n"
		"                          does not carry the address), on, off; an\n"
		"                          AF_XDP port that answers takes the whole\n"
		"                          queue, one that does not shares the\n"
		"                          interface with the kernel\n"
		"  -t, --trace FILE        write the transaction trace into FILE\n"
		"                          (docs/trace.md): every register access the\n"
		"                          clients make; with --netdev also the\n"
		"                          engine's frames, DMA and completions\n"
		"  -q, --quiet             no start-up messages\n"
		"  -h, --help              this text\n"
		"\n"
		"The socket is full control of the NIC (registers, keys, QPs, memory):\n"
		"it is created mode 0600, only this user may connect, whatever the\n"
		"umask; --group opens it to one group.\n"
		"SIGINT or SIGTERM shut roced down and remove its socket.\n",
		roce_bus_default_socket_path(def, sizeof(def)) ? def : "?",
		ROCE_FIRST_QPN + 1, ROCE_MAX_QP, ROCE_MAX_QP);
}

static void on_signal(int sig)
{
	(void)sig;
	g_stopped = 1;
	if (g_srv)
		roce_regsrv_stop(g_srv);
}

enum arp_when { ARP_AUTO, ARP_ON, ARP_OFF };

struct roced_opts {
	char sock[108];
	const char *group_name;
	gid_t group;			/* ROCE_REGSRV_NO_GROUP: mode 0600 */
	const char *mmap_path;
	struct roce_device_config dev;
	int quiet;
	const char *netdev;
	const char *ip_text;
	uint32_t ip;
	enum roce_link_kind link;
	enum roce_afpacket_mode link_mode;
	enum roce_afxdp_mode xdp_mode;
	enum arp_when arp;
	const char *trace_path;
	struct trace_writer *trace;
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

/* A group name, or a number (which need not name a group, as chown's). */
static int parse_group(const char *s, gid_t *out)
{
	struct group gr, *res = NULL;
	char buf[16384], *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s >= '0' && *s <= '9' && !*end && !errno && v < ROCE_REGSRV_NO_GROUP) {
		*out = (gid_t)v;
		return 0;
	}
	if (*s && getgrnam_r(s, &gr, buf, sizeof(buf), &res) == 0 && res) {
		*out = res->gr_gid;
		return 0;
	}
	fprintf(stderr, "roced: --group: unknown group '%s' (a group name or "
		"number)\n", s);
	return -1;
}

static int parse_arp(const char *s, enum arp_when *out)
{
	static const char *const names[] = { "auto", "on", "off" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum arp_when)i;
			return 0;
		}
	fprintf(stderr, "roced: --arp: '%s' is not auto, on or off\n", s);
	return -1;
}

/* --netdev and --ip go together; the IP is a unicast IPv4 address. */
static int check_netdev_args(struct roced_opts *o)
{
	struct in_addr a;

	if (!o->netdev && !o->ip_text)
		return 0;
	if (!o->netdev || !o->ip_text) {
		fprintf(stderr, "roced: --netdev and --ip go together (try --help)\n");
		return 2;
	}
	if (inet_pton(AF_INET, o->ip_text, &a) != 1) {
		fprintf(stderr, "roced: --ip: '%s' is not an IPv4 address (A.B.C.D)\n",
			o->ip_text);
		return 2;
	}
	o->ip = ntohl(a.s_addr);
	if (!o->ip || o->ip == 0xFFFFFFFFu || (o->ip >> 28) == 0xE) {
		fprintf(stderr, "roced: --ip: %s is not a unicast address\n",
			o->ip_text);
		return 2;
	}
	return 0;
}

/* Returns 0 to run, 1 to exit successfully (--help), 2 on a usage error. */
static int parse_args(int argc, char **argv, struct roced_opts *o)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "group", required_argument, NULL, 'g' },
		{ "mmap", required_argument, NULL, 'm' },
		{ "link-delay-us", required_argument, NULL, 'd' },
		{ "mem-size", required_argument, NULL, 'M' },
		{ "qp-count", required_argument, NULL, 'Q' },
		{ "netdev", required_argument, NULL, 'n' },
		{ "ip", required_argument, NULL, 'i' },
		{ "link", required_argument, NULL, 'l' },
		{ "link-mode", required_argument, NULL, 'L' },
		{ "xdp-mode", required_argument, NULL, 'X' },
		{ "arp", required_argument, NULL, 'A' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "trace", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	if (!roce_bus_default_socket_path(o->sock, sizeof(o->sock)))
		o->sock[0] = '\0';
	o->group = ROCE_REGSRV_NO_GROUP;
	while ((c = getopt_long(argc, argv, "s:g:m:d:M:Q:n:i:t:qh", lopts, NULL)) != -1) {
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
		case 'g':
			if (parse_group(optarg, &o->group))
				return 2;
			o->group_name = optarg;
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
		case 'Q':
			/* 0 would mean the default to the device: not a count */
			if (parse_num("--qp-count", optarg, false, ROCE_MAX_QP, &v))
				return 2;
			if (v <= ROCE_FIRST_QPN) {
				fprintf(stderr, "roced: --qp-count: %s is too few: QPN %u, "
					"the first after the reserved ones, must "
					"exist (at least %u)\n", optarg,
					ROCE_FIRST_QPN, ROCE_FIRST_QPN + 1);
				return 2;
			}
			o->dev.qp_count = (uint32_t)v;
			break;
		case 'n':
			o->netdev = optarg;
			break;
		case 'i':
			o->ip_text = optarg;
			break;
		case 'l':
			if (roce_link_kind_parse(optarg, &o->link)) {
				fprintf(stderr, "roced: --link: '%s' is not packet or "
					"xdp\n", optarg);
				return 2;
			}
			break;
		case 'X':
			if (roce_afxdp_mode_parse(optarg, &o->xdp_mode)) {
				fprintf(stderr, "roced: --xdp-mode: '%s' is not auto, "
					"native or generic\n", optarg);
				return 2;
			}
			break;
		case 'L':
			if (roce_afpacket_mode_parse(optarg, &o->link_mode)) {
				fprintf(stderr, "roced: --link-mode: '%s' is not auto, "
					"ring, ring-v3 or mmsg\n", optarg);
				return 2;
			}
			break;
		case 'A':
			if (parse_arp(optarg, &o->arp))
				return 2;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 't':
			o->trace_path = optarg;
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
	return check_netdev_args(o);
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
	st = roce_regsrv_create(dev, o->sock, o->group, &g_srv);
	if (st == ROCE_E_PERM && o->group_name) {
		fprintf(stderr, "roced: cannot give the socket %s to group %s: %s\n",
			o->sock, o->group_name, strerror(errno));
		roce_mirror_stop(mirror);
		return 1;
	}
	if (st != ROCE_OK) {
		fprintf(stderr, "roced: cannot serve on %s: %s%s\n", o->sock,
			strerror(errno), st == ROCE_E_EXISTS
			? " (another roced is serving it)" : "");
		roce_mirror_stop(mirror);
		return 1;
	}
	if (!o->quiet) {
		fprintf(stderr, "roced: serving registers on %s (mode %s%s)\n",
			o->sock, o->group_name ? "0660, group " : "0600",
			o->group_name ? o->group_name : "");
		if (mirror)
			fprintf(stderr, "roced: mirroring registers into %s\n",
				o->mmap_path);
	}
	if (o->trace)
		roce_regsrv_set_trace(g_srv, o->trace, 0);
	st = g_stopped ? ROCE_OK : roce_regsrv_run(g_srv);
	roce_regsrv_destroy(g_srv);
	g_srv = NULL;
	roce_mirror_stop(mirror);
	if (st != ROCE_OK)
		fprintf(stderr, "roced: server failed: %s\n", strerror(errno));
	return st == ROCE_OK ? 0 : 1;
}

/* The data path: poll the engine; after ROCE_AFP_IDLE_POLLS empty polls,
 * sleep on the port (at most ROCE_AFP_IDLE_WAIT_US, so the engine's
 * timers still tick) instead of spinning a core while nothing happens. */
struct engine_loop {
	struct roce_context *ctx;
	struct roce_link *link;
	atomic_bool stop;
	pthread_t thread;
};

static void *engine_loop(void *arg)
{
	struct engine_loop *l = arg;
	unsigned idle = 0;

	while (!atomic_load_explicit(&l->stop, memory_order_relaxed)) {
		if (roce_engine_poll(l->ctx)) {
			idle = 0;
			continue;
		}
		if (++idle >= ROCE_AFP_IDLE_POLLS)
			roce_link_wait(l->link, ROCE_AFP_IDLE_WAIT_US);
	}
	return NULL;
}

/* The engine thread starts with SIGINT and SIGTERM blocked, so the
 * handler that stops the server always runs on the main thread. */
static int start_loop(struct engine_loop *l)
{
	sigset_t block, old;
	int rc;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = pthread_create(&l->thread, NULL, engine_loop, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* The device as a NIC on a network interface: the engine (roce_open's
 * power-on sequence included) on a raw-Ethernet port, on its own thread.
 * Its IPv6 GID is the link-local one of its MAC, answered unless the
 * kernel carries it (then the AF_PACKET port holds its UDP port). */
static int serve_netdev(struct roced_opts *o)
{
	static const enum roce_link_arp arp[] = {
		[ARP_AUTO] = ROCE_LINK_ARP_AUTO, [ARP_ON] = ROCE_LINK_ARP_PORT,
		[ARP_OFF] = ROCE_LINK_ARP_NONE,
	};
	struct roce_link_spec ls = {
		.kind = o->link, .ifname = o->netdev, .ip = o->ip,
		.packet_mode = o->link_mode, .xdp_mode = o->xdp_mode,
		.arp = arp[o->arp], .no_netdev_ip6 = true,
	};
	struct roce_context_attr ca = { 0 };
	const struct roce_link_info *li;
	struct roce_link *link = NULL;
	struct roce_afpacket *afp;
	struct roce_context *ctx = NULL;
	struct engine_loop loop = { 0 };
	char err[256];
	int st, rc;

	st = roce_link_open(&ls, &link, err, sizeof(err));
	if (st != ROCE_OK) {
		fprintf(stderr, "roced: %s\n", err);
		return 1;
	}
	li = roce_link_info(link);
	memcpy(ca.mac, li->mac, 6);
	ca.ip = o->ip;
	ca.port = roce_link_port(link);
	ca.dev = o->dev;
	ca.trace = o->trace;            /* the engine's frames, DMA, completions */
	ca.trace_nic = 0;
	st = roce_open(&ca, &ctx);
	loop.ctx = ctx;
	loop.link = link;
	if (st == ROCE_OK && start_loop(&loop))
		st = ROCE_E_NOMEM;
	if (st != ROCE_OK) {
		fprintf(stderr, "roced: cannot start the engine on %s: %s\n",
			o->netdev, roce_status_str(st));
		roce_close(ctx);
		roce_link_close(link);
		return 1;
	}
	afp = roce_link_afpacket(link);
	if (!o->quiet)
		fprintf(stderr, "roced: engine on %s (%s%s), %02x:%02x:%02x:%02x:%02x:%02x "
			"%s, MTU %u (path MTU %u), UDP %u%s, ARP %s\n", o->netdev,
			afp ? "" : "xdp ", roce_link_mode_name(link),
			li->mac[0], li->mac[1], li->mac[2], li->mac[3], li->mac[4], li->mac[5],
			o->ip_text, li->mtu, roce_mtu_bytes(li->path_mtu), ROCE_UDP_PORT,
			afp && roce_afpacket_port_held(afp) ? " held" : "",
			li->arp_answered ? "answered" : "left to the kernel");
	rc = serve(roce_context_device(ctx), o);
	atomic_store(&loop.stop, true);
	pthread_join(loop.thread, NULL);
	roce_close(ctx);
	roce_link_close(link);
	return rc;
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
	if (o.trace_path && !(o.trace = trace_writer_open(o.trace_path))) {
		fprintf(stderr, "roced: cannot write the trace %s: %s\n", o.trace_path,
			strerror(errno));
		return 1;
	}
	if (o.netdev) {
		rc = serve_netdev(&o);
	} else {
		st = roce_device_create(&o.dev, &dev);
		if (st != ROCE_OK) {
			fprintf(stderr, "roced: cannot create the device: %s\n",
				roce_status_str(st));
			trace_writer_close(o.trace);
			return 1;
		}
		rc = serve(dev, &o);
		roce_device_destroy(dev);
	}
	trace_writer_close(o.trace);   /* flushes it */
	return rc;
}
