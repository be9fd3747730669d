/* SPDX-License-Identifier: MIT */
/*
 * roce-run: runs an unmodified libibverbs program on the engine.
 *
 *   roce-run --netdev IFNAME [--ip A.B.C.D] [--link packet|xdp] -- PROGRAM [ARGS...]
 *
 * It checks what it can before the program starts (the interface, the
 * rights AF_PACKET needs, that no other roce-run holds the interface, that
 * PROGRAM, or a script's interpreter, is a dynamically linked 64-bit
 * program: whatever in its tree loads libibverbs or librdmacm, by
 * DT_NEEDED or dlopen(), gets the drop-in), then puts the drop-in libibverbs.so.1 (src/ibverbs) and
 * librdmacm.so.1 (src/rdmacm), both installed in <libdir>/roce/ibverbs,
 * first in LD_LIBRARY_PATH, says which interface
 * through the environment (ROCE_RUN_NETDEV, ROCE_RUN_IP, ROCE_RUN_LINK)
 * and execs PROGRAM: its process is the program's, with the engine on a
 * thread of its own once the program opens the device (docs/verbs.md).
 *
 * Inline stages (docs/verbs.md, "Inline stages"): --stage LIST (and
 * --key-file, --data-unit, --dun-base) set ROCE_STAGE and its fellows,
 * which the drop-in reads to bind every MR the program registers; an
 * inherited ROCE_STAGE is taken as well. Both are checked here first, so
 * dedup (never on a program's own memory), a bad unit or key file stops
 * roce-run before PROGRAM starts.
 *
 * Loss recovery and congestion control (docs/cc.md): --iba-strict and
 * --cc-algo NAME set ROCE_IBA_STRICT and ROCE_CC_ALGO (roce/cc_options.h),
 * which the drop-in writes to the device's CC block when the program
 * opens it; neither set, the device keeps its defaults.
 *
 * ROCE_RUN_PRELOAD, when set, goes before PROGRAM's LD_PRELOAD (and not
 * into roce-run's own): a sanitized drop-in needs the sanitizer's runtime
 * in a program built without it.
 *
 * The lock: an flock on a file named for the network namespace and the
 * interface, inherited by PROGRAM across exec and released when it exits.
 *
 * The device's files (roce-run/view.c): /dev/infiniband/uverbs0 and
 * /sys/class/infiniband/roce0 in a mount namespace of PROGRAM's own,
 * where roce-run may make one; --no-dev-files, none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roce-run/elf.h"
#include "roce-run/view.h"
#include "roce/cc_options.h"
#include "roce/ibdev_name.h"
#include "roce/params.h"
#include "roce/stage_config.h"

#ifndef ROCE_RUN_LIBDIR
#define ROCE_RUN_LIBDIR "lib/roce/ibverbs"
#endif

/* exit statuses (man/roce-run.1) */
enum { RUN_SETUP = 1, RUN_USAGE = 2, RUN_NOT_FOUND = 127 };

static void usage(FILE *f)
{
	fputs("usage: roce-run --netdev IFNAME [options] -- PROGRAM [ARGS...]\n"
	      "Runs an unmodified libibverbs program (ibv_devinfo, ibv_rc_pingpong,\n"
	      "ib_write_bw, ...) on the RoCE v2 engine: it sees one device, roce0, whose\n"
	      "port sends and receives on IFNAME.\n"
	      "A librdmacm program (rping, ucmatose, ...) connects through the engine's\n"
	      "RDMA CM, on IFNAME's IPv4 and IPv6 addresses.\n"
	      "\n"
	      "  --netdev IFNAME     the interface (required)\n"
	      "  --ip A.B.C.D        our IPv4 address (default: the interface's)\n"
	      "  --link packet|xdp   the port: AF_PACKET (default) or AF_XDP\n"
	      "  --ibdev NAME        the device's name (default roce0; ROCE_RUN_IBDEV), for\n"
	      "                      a peer that must name the same one (ucx_perftest's\n"
	      "                      server takes the client's -d)\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Inline stages (docs/stages.md), bound to every MR the program registers:\n"
	      "  --stage LIST        xts, pi or xts,pi (sets ROCE_STAGE); not dedup: the\n"
	      "                      program's MRs are its own memory\n"
	      "  --key-file FILE     the 64-byte XTS key (ROCE_STAGE_KEY_FILE; default a\n"
	      "                      random one)\n"
	      "  --data-unit N       512 or 4096 (ROCE_STAGE_UNIT; default 4096)\n"
	      "  --dun-base N        tweak of each MR's unit 0 (ROCE_STAGE_DUN_BASE; default 0)\n"
	      "The program's buffers then hold what the stages store: with xts, ciphertext,\n"
	      "not what its peer sent (the drop-in says so on stderr at start); an MR\n"
	      "whose length is not a whole number of units is refused.\n"
	      "\n"
	      "Loss recovery and congestion control (docs/cc.md):\n"
	      "  --iba-strict        loss recovery as IBA says alone: no adaptive window,\n"
	      "                      timer or tail-loss probe (ROCE_IBA_STRICT=1; the\n"
	      "                      defaults have them)\n"
	      "  --cc-algo NAME      ECN, CNPs and the reaction point on every priority,\n"
	      "                      with dcqcn or swift (ROCE_CC_ALGO)\n"
	      "\n"
	      "Who runs the engine (docs/verbs.md):\n"
	      "  (default)           run to completion: a thread of the program that polls a\n"
	      "                      CQ or posts runs the engine's turn itself; the engine's\n"
	      "                      own thread parks meanwhile (no spinning) and takes over\n"
	      "                      50 us after the last poll, or at once when the program\n"
	      "                      waits on a completion channel (ROCE_RUN_ENGINE=rtc)\n"
	      "  --engine-thread     the engine on its own thread always, beside the\n"
	      "                      program's (ROCE_RUN_ENGINE=thread): it spins 1 ms\n"
	      "                      after the last frame, then sleeps until one comes\n"
	      "  --handoff-us N      run to completion: the takeover after the last poll\n"
	      "                      (ROCE_RUN_HANDOFF_US, 1..100000; default 50); the\n"
	      "                      parked thread waits real-time where the process may\n"
	      "                      (root, CAP_SYS_NICE, RLIMIT_RTPRIO), so its wake-up\n"
	      "                      preempts whatever holds the core\n"
	      "  --no-dev-files      run the program without /dev/infiniband/uverbs0 and\n"
	      "                      /sys/class/infiniband/roce0 (made by default where\n"
	      "                      roce-run may, CAP_SYS_ADMIN, in a mount namespace of\n"
	      "                      the program's own: UCX needs them)\n"
	      "  --stats             at the device's close, the engine's turns (the\n"
	      "                      program's and its thread's), the takeover delays\n"
	      "                      and whether it parked real-time, on stderr\n"
	      "                      (ROCE_RUN_STATS=1)\n"
	      "\n"
	      "GID index 0 is the link-local IPv6 GID, 1 the IPv4 one (use -g 1 / -x 1).\n"
	      "Exit status: PROGRAM's; 1 when it cannot start (no such interface, no\n"
	      "CAP_NET_RAW, the interface held by another roce-run, PROGRAM static,\n"
	      "32-bit or no program), 2 bad usage, 127 PROGRAM not found.\n", f);
}

static int fail(int code, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "roce-run: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return code;
}

/* PROGRAM as execvp would find it, into out; false if nowhere. */
static bool find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK) == 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		if (n && snprintf(out, len, "%.*s/%s", (int)n, path, name) < (int)len &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* The drop-in library's folder, beside our own installation. */
static bool find_libdir(char *out, size_t len)
{
	char exe[PATH_MAX], lib[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = 0;
	if (snprintf(lib, sizeof(lib), "%s/../%s/libibverbs.so.1", exe, ROCE_RUN_LIBDIR) >=
	    (int)sizeof(lib) || access(lib, R_OK) != 0)
		return false;
	return snprintf(out, len, "%s/../%s", exe, ROCE_RUN_LIBDIR) < (int)len;
}

/* The interface's lock, held (and inherited by PROGRAM) on success. */
static int take_lock(const char *ifname)
{
	char path[PATH_MAX];
	struct stat ns;
	const char *dir = access("/run/lock", W_OK) == 0 ? "/run/lock" : "/tmp";
	int fd;

	/* interfaces of one name in two namespaces are two interfaces */
	if (stat("/proc/self/ns/net", &ns) != 0)
		ns.st_ino = 0;
	snprintf(path, sizeof(path), "%s/roce-run.%lu.%s.lock", dir,
		 (unsigned long)ns.st_ino, ifname);
	fd = open(path, O_RDWR | O_CREAT, 0600);       /* no O_CLOEXEC: PROGRAM keeps it */
	if (fd < 0)
		return fail(-RUN_SETUP, "%s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return fail(-RUN_SETUP, "%s is already held by another roce-run (lock %s)",
			    ifname, path);
	}
	return fd;
}

/* ROCE_RUN_PRELOAD into PROGRAM's LD_PRELOAD, first. */
static int preload(void)
{
	const char *pre = getenv("ROCE_RUN_PRELOAD"), *old = getenv("LD_PRELOAD");
	size_t n;
	char *p;

	if (!pre || !*pre)
		return 0;
	n = strlen(pre) + (old ? strlen(old) : 0) + 2;
	p = malloc(n);
	if (!p)
		return fail(RUN_SETUP, "out of memory%s%s", "", "");
	snprintf(p, n, "%s%s%s", pre, old && *old ? ":" : "", old && *old ? old : "");
	setenv("LD_PRELOAD", p, 1);
	unsetenv("ROCE_RUN_PRELOAD");
	free(p);
	return 0;
}

/* ROCE_STAGE and its fellows as the drop-in will read them: refused here,
 * in one line, rather than by a program that cannot say why. */
static int check_stages(void)
{
	struct roce_stage_config sc;
	uint8_t key[ROCE_STAGE_KEY_LEN];
	char why[256];

	if (roce_stage_config_env(&sc, why, sizeof(why)))
		return fail(RUN_USAGE, "%s%s (try --help)", why, "");
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
		if (sc.chain[i] == ROCE_STAGE_DEDUP)
			return fail(RUN_USAGE, "stage dedup: %s (use xts and pi)", "a dedup "
				    "volume is the card's DDR, and a program's MRs are its own "
				    "memory", "");
	if (sc.chain[0] && sc.key_file) {
		int st = roce_stage_key_file(sc.key_file, key, why, sizeof(why));

		memset(key, 0, sizeof(key));
		if (st)
			return fail(RUN_SETUP, "--key-file %s%s", why, "");
	}
	return 0;
}

/* ROCE_IBA_STRICT and ROCE_CC_ALGO as the drop-in will read them. */
/* Whether PROGRAM can load the drop-in: any dynamically linked 64-bit
 * program can, whether it names libibverbs, reaches it through another
 * library, or dlopen()s it (UCX, libfabric, OpenMPI, python3); a script
 * through its interpreter (script: the script, NULL for a program). A
 * static or foreign program cannot: refused, in one line. */
static int check_program(const char *prog, const char *script)
{
	static const char *const libs[] = { "libibverbs.so.1", "librdmacm.so.1", NULL };
	char interp[PATH_MAX], what[PATH_MAX + 64];
	const char *why = NULL;

	if (script)
		snprintf(what, sizeof(what), "%s: its interpreter %s", script, prog);
	else
		snprintf(what, sizeof(what), "%s", prog);
	switch (elf_needs(prog, libs)) {
	case ELF_NEEDS:
	case ELF_NEEDS_NOT:
		return 0;
	case ELF_STATIC:
		why = "is statically linked: the drop-in libibverbs cannot reach it";
		break;
	case ELF_NOT_ELF:
		if (!script && elf_script_interp(prog, interp, sizeof(interp))) {
			if (interp[0] != '/')
				return fail(RUN_SETUP, "%s: its interpreter %s is not an "
					    "absolute path", prog, interp);
			return check_program(interp, prog);
		}
		why = "is neither an ELF program nor a script";
		break;
	case ELF_UNSUPPORTED:
		why = "is not a 64-bit little-endian ELF program (the drop-in is 64-bit)";
		break;
	case ELF_BAD:
		why = "is a malformed ELF file";
		break;
	case ELF_IO:
		return fail(RUN_SETUP, "%s: %s", what, strerror(errno));
	}
	return fail(RUN_SETUP, "%s %s", what, why);
}

/* /dev/infiniband/uverbs0 and /sys/class/infiniband/roce0 for PROGRAM's
 * tree (roce-run/view.c), where the rights allow: ROCE_RUN_SYSFS=1 tells
 * the drop-in. Without CAP_SYS_ADMIN the program runs without them. */
static int device_files(const char *netdev, const char *ip, bool want)
{
	struct in_addr a = { 0 };
	char why[PATH_MAX + 128];

	unsetenv(ROCE_RUN_VIEW_ENV);
	if (!want)
		return 0;
	if (ip)
		inet_pton(AF_INET, ip, &a);
	switch (view_make(netdev, getenv(ROCE_IBDEV_ENV) ? getenv(ROCE_IBDEV_ENV)
							   : ROCE_IBDEV_DEFAULT,
			  ntohl(a.s_addr), why, sizeof(why))) {
	case VIEW_MADE:
		setenv(ROCE_RUN_VIEW_ENV, "1", 1);
		return 0;
	case VIEW_NOT_ALLOWED:
		return 0;
	case VIEW_FAILED:
		break;
	}
	return fail(RUN_SETUP, "the device's files (/dev/infiniband, /sys/class/infiniband): "
		    "%s%s (--no-dev-files runs without them)", why, "");
}

static int check_cc(void)
{
	struct roce_cc_options o;
	char why[160];

	if (roce_cc_options_env(&o, why, sizeof(why)))
		return fail(RUN_USAGE, "%s%s (try --help)", why, "");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netdev", required_argument, NULL, 'n' },
		{ "ip", required_argument, NULL, 'i' },
		{ "link", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "stage", required_argument, NULL, 's' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "data-unit", required_argument, NULL, 'u' },
		{ "dun-base", required_argument, NULL, 'b' },
		{ "iba-strict", no_argument, NULL, 'S' },
		{ "cc-algo", required_argument, NULL, 'a' },
		{ "engine-thread", no_argument, NULL, 'E' },
		{ "handoff-us", required_argument, NULL, 'H' },
		{ "stats", no_argument, NULL, 'T' },
		{ "no-dev-files", no_argument, NULL, 'D' },
		{ "ibdev", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	const char *netdev = NULL, *ip = NULL, *link = "packet";
	char prog[PATH_MAX], libdir[PATH_MAX], *ldpath;
	struct in_addr a;
	bool dev_files = true;
	int c, s;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': netdev = optarg; break;
		case 'i': ip = optarg; break;
		case 'l': link = optarg; break;
		case 'h': usage(stdout); return 0;
		case 's': setenv(ROCE_STAGE_ENV, optarg, 1); break;
		case 'k': setenv(ROCE_STAGE_ENV_KEY_FILE, optarg, 1); break;
		case 'u': setenv(ROCE_STAGE_ENV_UNIT, optarg, 1); break;
		case 'b': setenv(ROCE_STAGE_ENV_DUN_BASE, optarg, 1); break;
		case 'S': setenv(ROCE_CC_ENV_IBA_STRICT, "1", 1); break;
		case 'a': setenv(ROCE_CC_ENV_ALGO, optarg, 1); break;
		case 'E': setenv("ROCE_RUN_ENGINE", "thread", 1); break;
		case 'H': {
			char *end;
			unsigned long us = strtoul(optarg, &end, 10);

			if (*end || !*optarg || !us || us > ROCE_RTC_HANDOFF_MAX_US)
				return fail(RUN_USAGE, "--handoff-us %s: 1 to 100000%s (try --help)",
					    optarg, "");
			setenv("ROCE_RUN_HANDOFF_US", optarg, 1);
			break;
		}
		case 'T': setenv("ROCE_RUN_STATS", "1", 1); break;
		case 'D': dev_files = false; break;
		case 'I':
			if (!roce_ibdev_name_ok(optarg))
				return fail(RUN_USAGE, "--ibdev %s: not a device name (letters, digits, "
					    "'_', '-', '.'; 63 at most)%s (try --help)", optarg, "");
			setenv(ROCE_IBDEV_ENV, optarg, 1);
			break;
		default: usage(stderr); return RUN_USAGE;
		}
	}
	if (!netdev)
		return fail(RUN_USAGE, "give the interface with --netdev IFNAME%s%s (try --help)",
			    "", "");
	if (optind >= argc)
		return fail(RUN_USAGE, "no PROGRAM to run%s%s (try --help)", "", "");
	if (ip && inet_pton(AF_INET, ip, &a) != 1)
		return fail(RUN_USAGE, "--ip %s: not an IPv4 address%s (try --help)", ip, "");
	if (strcmp(link, "packet") && strcmp(link, "xdp"))
		return fail(RUN_USAGE, "--link %s: packet or xdp%s (try --help)", link, "");
	if ((s = check_stages()) != 0 || (s = check_cc()) != 0)
		return s;
	if (getenv(ROCE_IBDEV_ENV) && *getenv(ROCE_IBDEV_ENV) &&
	    !roce_ibdev_name_ok(getenv(ROCE_IBDEV_ENV)))
		return fail(RUN_USAGE, "ROCE_RUN_IBDEV=%s: not a device name (letters, digits, "
			    "'_', '-', '.'; 63 at most)%s (try --help)", getenv(ROCE_IBDEV_ENV), "");
	if (strlen(netdev) >= IF_NAMESIZE || !if_nametoindex(netdev))
		return fail(RUN_SETUP, "%s: no such interface%s", netdev, "");
	/* the rights the port's socket needs, asked the same way */
	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s < 0)
		return fail(RUN_SETUP, "%s: cannot open a raw socket: %s (roce-run needs "
			    "CAP_NET_RAW: run it as root)", netdev, strerror(errno));
	close(s);
	if (!find_program(argv[optind], prog, sizeof(prog)))
		return fail(RUN_NOT_FOUND, "%s: %s", argv[optind],
			    strchr(argv[optind], '/') ? "not an executable file" :
			    "command not found");
	if ((s = check_program(prog, NULL)) != 0)
		return s;
	if (!find_libdir(libdir, sizeof(libdir)))
		return fail(RUN_SETUP, "the drop-in libibverbs.so.1 is not in ../%s beside "
			    "roce-run%s", ROCE_RUN_LIBDIR, "");
	if ((s = take_lock(netdev)) < 0)
		return -s;
	if ((s = device_files(netdev, ip, dev_files)) != 0)
		return s;
	ldpath = getenv("LD_LIBRARY_PATH");
	if (ldpath && *ldpath) {
		size_t n = strlen(libdir) + strlen(ldpath) + 2;
		char *p = malloc(n);

		if (!p)
			return fail(RUN_SETUP, "out of memory%s%s", "", "");
		snprintf(p, n, "%s:%s", libdir, ldpath);
		setenv("LD_LIBRARY_PATH", p, 1);
		free(p);
	} else {
		setenv("LD_LIBRARY_PATH", libdir, 1);
	}
	if ((s = preload()) != 0)
		return s;
	setenv("ROCE_RUN_NETDEV", netdev, 1);
	setenv("ROCE_RUN_LINK", link, 1);
	if (ip)
		setenv("ROCE_RUN_IP", ip, 1);
	else
		unsetenv("ROCE_RUN_IP");
	execv(prog, argv + optind);
	return fail(RUN_NOT_FOUND, "%s: %s", prog, strerror(errno));
}
