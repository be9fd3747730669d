/* SPDX-License-Identifier: MIT */
/*
 * roce-run: the device where rdma-core's programs look for it.
 *
 * A program that links the drop-in libibverbs finds roce0 through
 * ibv_get_device_list. Some also look at the files a kernel device has:
 * UCX takes a device only when /dev/infiniband/<dev_name> is a character
 * device it may read and write (uct_ib_device_is_accessible), and reads
 * each GID's type from /sys/class/infiniband/<dev>/ports/1/gid_attrs/
 * types/<i> ("RoCE v2"; without it, RoCE v1 and GID 0); qperf and
 * ibstat read the port's files. These are open() and stat() calls no
 * library sees, so they get real files: in a mount namespace of
 * PROGRAM's tree (unshare(CLONE_NEWNS), propagation private, nothing
 * outside it changes), a tmpfs on /dev/infiniband and on
 * /sys/class/infiniband(_verbs), written here and then made read-only.
 * Where such a directory does not exist (no rdma modules loaded), its
 * parent is covered by a tmpfs that holds the parent's entries again,
 * each bound back from the original (symbolic links copied), plus the
 * new directory. uverbs0 is a character device with /dev/full's
 * numbers: it opens, and any command written to it fails (ENOSPC), so a
 * program that talks to the kernel's uverbs behind libibverbs' back gets
 * an error, never a silent success.
 *
 * The files follow the kernel's formats (drivers/infiniband/core/
 * sysfs.c): "4: ACTIVE", GIDs as eight groups of four hex digits, the
 * GUIDs as four; a GID slot past the table reads zeros, and has no type
 * or netdev file (the kernel's read fails there).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "roce-run/view.h"
#include "roce/afpacket.h"
#include "roce/gid.h"
#include "roce/link_open.h"
#include "roce/status.h"

/* the drop-in's uverbs name (src/ibverbs/device.c) */
#define VIEW_UVERBS "uverbs0"

struct view_err {
	char *why;
	size_t n;
};

static enum view_result failed(struct view_err *e, const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	vsnprintf(e->why, e->n, fmt, ap);
	va_end(ap);
	if (err) {
		size_t l = strlen(e->why);

		snprintf(e->why + l, e->n - l, ": %s", strerror(err));
	}
	return VIEW_FAILED;
}

/* path/name as one path; false (ENAMETOOLONG) when it does not fit */
static bool join(char *out, const char *path, const char *name)
{
	if (snprintf(out, PATH_MAX, "%s/%s", path, name) < PATH_MAX)
		return true;
	errno = ENAMETOOLONG;
	return false;
}

static bool put(const char *dir, const char *file, const char *fmt, ...)
{
	char p[PATH_MAX];
	va_list ap;
	FILE *f;
	int ok;

	if (!join(p, dir, file) || !(f = fopen(p, "we")))
		return false;
	va_start(ap, fmt);
	ok = vfprintf(f, fmt, ap) >= 0;
	va_end(ap);
	return (fclose(f) == 0) && ok;
}

static bool mkdirs(const char *dir, const char *sub)
{
	char p[PATH_MAX];

	if (!join(p, dir, sub))
		return false;
	for (char *s = p + strlen(dir) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return false;
		*s = '/';
	}
	return !mkdir(p, 0755) || errno == EEXIST;
}

static bool tmpfs_on(const char *path)
{
	return mount("roce-run", path, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") == 0;
}

static bool read_only(const char *path)
{
	return mount(NULL, path, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		     "mode=0755") == 0;
}

/* The entry name of the directory open as dfd (and as the O_PATH ofd)
 * again at path/name in the tmpfs on path: a directory or file bound
 * back from the original (its submounts too), a link copied. */
static bool rebind(int dfd, int ofd, const char *path, const char *name)
{
	char src[64 + NAME_MAX], dst[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t l;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !join(dst, path, name))
		return false;
	snprintf(src, sizeof(src), "/proc/self/fd/%d/%s", ofd, name);
	if (S_ISLNK(st.st_mode)) {
		l = readlinkat(dfd, name, target, sizeof(target) - 1);
		if (l < 0)
			return false;
		target[l] = 0;
		return symlink(target, dst) == 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdir(dst, st.st_mode & 07777))
			return false;
	} else {
		fd = open(dst, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return false;
		close(fd);
	}
	return mount(src, dst, NULL, MS_BIND | MS_REC, NULL) == 0;
}

/* The directory path covered by a tmpfs that holds its entries again
 * and the new directories names[] (read-only after). */
static enum view_result cover(const char *path, const char *const *names,
			      struct view_err *e)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ofd;

	ofd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	d = opendir(path);
	if (ofd < 0 || !d) {
		if (ofd >= 0)
			close(ofd);
		if (d)
			closedir(d);
		return failed(e, "%s", path);
	}
	if (!tmpfs_on(path)) {
		closedir(d);
		close(ofd);
		return failed(e, "a tmpfs on %s", path);
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!rebind(dirfd(d), ofd, path, de->d_name)) {
			closedir(d);
			close(ofd);
			return failed(e, "%s/%s again in the private %s", path, de->d_name, path);
		}
	}
	closedir(d);
	close(ofd);
	for (; *names; names++)
		if (!join(dir, path, *names) || mkdir(dir, 0755))
			return failed(e, "%s", dir);
	return read_only(path) ? VIEW_MADE : failed(e, "%s read-only", path);
}

static void gid_text(const uint8_t g[ROCE_GID_LEN], char *out)
{
	for (int i = 0; i < 8; i++)
		sprintf(out + 5 * i, "%02x%02x%s", g[2 * i], g[2 * i + 1], i < 7 ? ":" : "");
}

static bool fill_port(const char *dev, const char *ifname, const struct roce_gid_table *t)
{
	char port[PATH_MAX], g[48];

	if (!join(port, dev, "ports/1") || !mkdirs(dev, "ports/1/gids") ||
	    !mkdirs(dev, "ports/1/gid_attrs/types") || !mkdirs(dev, "ports/1/gid_attrs/ndevs") ||
	    !mkdirs(dev, "ports/1/pkeys"))
		return false;
	if (!put(port, "state", "4: ACTIVE\n") || !put(port, "phys_state", "5: LinkUp\n") ||
	    !put(port, "link_layer", "Ethernet\n") || !put(port, "rate", "100 Gb/sec (4X EDR)\n") ||
	    !put(port, "lid", "0x0\n") || !put(port, "sm_lid", "0x0\n") ||
	    !put(port, "lid_mask_count", "0\n") || !put(port, "sm_sl", "0\n") ||
	    !put(port, "pkeys/0", "0xffff\n"))
		return false;
	for (unsigned i = 0; i < ROCE_MAX_GID; i++) {
		static const uint8_t none[ROCE_GID_LEN];
		char f[48];

		gid_text(i < t->n ? t->e[i].gid : none, g);
		snprintf(f, sizeof(f), "gids/%u", i);
		if (!put(port, f, "%s\n", g))
			return false;
		if (i >= t->n)
			continue;
		snprintf(f, sizeof(f), "gid_attrs/types/%u", i);
		if (!put(port, f, "%s\n", t->e[i].type == ROCE_GID_TYPE_ROCE_V1 ? "IB/RoCE v1"
									: "RoCE v2"))
			return false;
		snprintf(f, sizeof(f), "gid_attrs/ndevs/%u", i);
		if (!put(port, f, "%s\n", ifname))
			return false;
	}
	return true;
}

/* The port's GID table as the drop-in builds it (roce_open's
 * roce_gid_table_build over the link's addresses). */
static bool gids_of(const char *ifname, unsigned ip, uint8_t mac[6], struct roce_gid_table *t)
{
	uint8_t ip6[ROCE_LINK_MAX_IP6][16];
	struct ifreq r = { 0 };
	unsigned n6;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return false;
	snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", ifname);
	if (ioctl(s, SIOCGIFHWADDR, &r)) {
		close(s);
		return false;
	}
	close(s);
	memcpy(mac, r.ifr_hwaddr.sa_data, 6);
	n6 = roce_netdev_ipv6_addrs(ifname, ip6, ROCE_LINK_MAX_IP6);
	if (roce_gid_table_build(t, mac, ip ? ip : roce_netdev_ipv4(ifname), ip6, n6) != ROCE_OK) {
		errno = ERANGE;
		return false;
	}
	return true;
}

static enum view_result fill_sys(const char *ifname, const char *ibdev, unsigned ip,
			       struct view_err *e)
{
	char ib[PATH_MAX];
	static const char uv[] = "/sys/class/infiniband_verbs/" VIEW_UVERBS;
	struct roce_gid_table t;
	uint8_t mac[6], u[8];
	char guid[24];

	if (!join(ib, "/sys/class/infiniband", ibdev))
		return failed(e, "/sys/class/infiniband/%s", ibdev);
	if (!gids_of(ifname, ip, mac, &t))
		return failed(e, "%s: its addresses", ifname);
	/* the node GUID as the drop-in makes it: the MAC's EUI-64 */
	u[0] = mac[0] ^ 2u, u[1] = mac[1], u[2] = mac[2], u[3] = 0xff, u[4] = 0xfe;
	u[5] = mac[3], u[6] = mac[4], u[7] = mac[5];
	snprintf(guid, sizeof(guid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7]);
	if (!mkdirs("/sys/class/infiniband", ibdev) ||
	    !put(ib, "node_type", "1: CA\n") || !put(ib, "node_guid", "%s\n", guid) ||
	    !put(ib, "sys_image_guid", "%s\n", guid) || !put(ib, "fw_ver", "roce-nic 0.1\n") ||
	    !put(ib, "node_desc", "%s\n", ibdev) || !fill_port(ib, ifname, &t))
		return failed(e, "%s", ib);
	if (!mkdirs("/sys/class/infiniband_verbs", VIEW_UVERBS) ||
	    !put("/sys/class/infiniband_verbs", "abi_version", "6\n") ||
	    !put(uv, "ibdev", "%s\n", ibdev) || !put(uv, "abi_version", "1\n") ||
	    !put(uv, "dev", "%u:%u\n", 1u, 7u))
		return failed(e, "%s", uv);
	return VIEW_MADE;
}

enum view_result view_make(const char *ifname, const char *ibdev, unsigned ip, char *why,
			   size_t n)
{
	static const char *const dev[] = { "infiniband", NULL };
	static const char *const sys[] = { "infiniband", "infiniband_verbs", NULL };
	static const struct {
		const char *parent;
		const char *const *names;
	} at[] = { { "/dev", dev }, { "/sys/class", sys } };
	struct view_err e = { why, n };
	enum view_result r;
	char p[PATH_MAX];

	if (unshare(CLONE_NEWNS))
		return errno == EPERM ? VIEW_NOT_ALLOWED : failed(&e, "a mount namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return failed(&e, "private mounts");
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		const char *const *nm;
		struct stat st;
		bool all = true;

		/* a directory not there (no rdma modules): the parent again,
		   with it */
		for (nm = at[i].names; *nm; nm++)
			if (!join(p, at[i].parent, *nm) || stat(p, &st) || !S_ISDIR(st.st_mode))
				all = false;
		if (!all && (r = cover(at[i].parent, at[i].names, &e)) != VIEW_MADE)
			return r;
		for (nm = at[i].names; *nm; nm++)
			if (!join(p, at[i].parent, *nm) || !tmpfs_on(p))
				return failed(&e, "a tmpfs on %s", p);
	}
	errno = 0;
	if (mknod("/dev/infiniband/" VIEW_UVERBS, S_IFCHR | 0666, makedev(1, 7)) ||
	    chmod("/dev/infiniband/" VIEW_UVERBS, 0666))
		return failed(&e, "/dev/infiniband/%s", VIEW_UVERBS);
	if ((r = fill_sys(ifname, ibdev, ip, &e)) != VIEW_MADE)
		return r;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		for (const char *const *nm = at[i].names; *nm; nm++)
			if (!join(p, at[i].parent, *nm) || !read_only(p))
				return failed(&e, "%s read-only", p);
	return VIEW_MADE;
}
