/* SPDX-License-Identifier: MIT */
/*
 * mmap bus backend: volatile 32-bit loads and stores on a mapped register
 * window (PCIe BAR, UIO, XDMA user device), or on a file served by a mirror
 * (see roce/bus.h for why a file needs one and how the doorbell works).
 *
 * Accesses are __atomic loads (acquire) and stores (release) on a volatile
 * pointer: each is one aligned 32-bit bus transaction, as MMIO needs, and
 * the mirror running as a thread of the same process does not make them a
 * data race.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "roce/bus.h"

struct mmap_bus {
	void *map;			/* page-aligned mapping */
	size_t map_len;
	volatile uint32_t *regs;	/* register 0 */
	volatile struct roce_mirror_page *mirror; /* NULL on a raw window */
	uint32_t seq;			/* last doorbell rung */
};

static bool mmap_off_ok(uint32_t off)
{
	return (off & 3u) == 0 && off < ROCE_MMAP_REG_SPAN;
}

static int mmap_read32(void *ctx, uint32_t off, uint32_t *val)
{
	struct mmap_bus *mb = ctx;

	/* A real window would return all-ones or fault; say DECERR instead. */
	if (!mmap_off_ok(off))
		return ROCE_E_DECERR;
	/* acquire: after COMMIT reads idle, the shadow reads are current */
	*val = __atomic_load_n(&mb->regs[off / 4], __ATOMIC_ACQUIRE);
	return ROCE_OK;
}

/* Rings the mirror's doorbell for the store just made and waits for it. */
static int mmap_doorbell(struct mmap_bus *mb, uint32_t off, uint32_t val)
{
	volatile struct roce_mirror_page *p = mb->mirror;
	uint64_t deadline = roce_now_ms() + ROCE_MMAP_ACK_TIMEOUT_MS;
	struct timespec nap = { .tv_nsec = 10000 };
	uint32_t seq = ++mb->seq;

	__atomic_store_n(&p->wr_off, off, __ATOMIC_RELAXED);
	__atomic_store_n(&p->wr_val, val, __ATOMIC_RELAXED);
	__atomic_store_n(&p->host_seq, seq, __ATOMIC_RELEASE);
	for (unsigned i = 0;; i++) {
		if (__atomic_load_n(&p->ack_seq, __ATOMIC_ACQUIRE) == seq)
			return ROCE_OK;
		if (__atomic_load_n(&p->magic, __ATOMIC_RELAXED) !=
		    ROCE_MMAP_MIRROR_MAGIC)
			return ROCE_E_NODEV;	/* mirror stopped */
		if (i < 64)
			continue;
		if (roce_now_ms() > deadline)
			return ROCE_E_TIMEOUT;
		nanosleep(&nap, NULL);
	}
}

static int mmap_write32(void *ctx, uint32_t off, uint32_t val)
{
	struct mmap_bus *mb = ctx;

	if (!mmap_off_ok(off))
		return ROCE_E_DECERR;
	__atomic_store_n(&mb->regs[off / 4], val, __ATOMIC_RELEASE);
	return mb->mirror ? mmap_doorbell(mb, off, val) : ROCE_OK;
}

static int mmap_close(void *ctx)
{
	struct mmap_bus *mb = ctx;
	int st = ROCE_OK;

	if (mb->map && munmap(mb->map, mb->map_len) != 0)
		st = ROCE_E_IO;
	free(mb);
	return st;
}

static const struct roce_bus_ops mmap_ops = {
	.name = "mmap",
	.read32 = mmap_read32,
	.write32 = mmap_write32,
	.close = mmap_close,
};

/* AUTO: hardware windows are character devices or sysfs resource files. */
static bool mmap_is_raw(const char *path, const struct stat *st,
			enum roce_mmap_mode mode)
{
	if (mode != ROCE_MMAP_AUTO)
		return mode == ROCE_MMAP_RAW;
	return S_ISCHR(st->st_mode) || strncmp(path, "/sys/", 5) == 0;
}

static int mmap_map(int fd, const struct stat *st, uint64_t offset,
		    size_t span, struct mmap_bus *mb)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t base = offset & ~(page - 1);
	size_t delta = (size_t)(offset - base);

	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size < offset + span)
		return ROCE_E_RANGE;
	mb->map_len = delta + span;
	mb->map = mmap(NULL, mb->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, (off_t)base);
	if (mb->map == MAP_FAILED) {
		mb->map = NULL;
		return ROCE_E_IO;
	}
	mb->regs = (volatile uint32_t *)((char *)mb->map + delta);
	return ROCE_OK;
}

static int mmap_attach(const char *path, uint64_t offset,
		       enum roce_mmap_mode mode, struct mmap_bus *mb)
{
	struct stat st;
	bool raw;
	int fd, rc;

	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return ROCE_E_IO;
	if (fstat(fd, &st) != 0) {
		rc = ROCE_E_IO;
		goto out;
	}
	raw = mmap_is_raw(path, &st, mode);
	rc = mmap_map(fd, &st, offset,
		      raw ? ROCE_MMAP_REG_SPAN : ROCE_MMAP_FILE_SIZE, mb);
	if (rc != ROCE_OK || raw)
		goto out;
	mb->mirror = (volatile struct roce_mirror_page *)
		((volatile char *)mb->regs + ROCE_MMAP_REG_SPAN);
	if (__atomic_load_n(&mb->mirror->magic, __ATOMIC_ACQUIRE) !=
	    ROCE_MMAP_MIRROR_MAGIC ||
	    mb->mirror->version != ROCE_MMAP_MIRROR_VERSION)
		rc = ROCE_E_NODEV;
	mb->seq = __atomic_load_n(&mb->mirror->host_seq, __ATOMIC_RELAXED);
out:
	if (close(fd) != 0 && rc == ROCE_OK)
		rc = ROCE_E_IO;
	return rc;
}

int roce_bus_open_mmap(struct roce_bus *bus, const char *path,
		       uint64_t offset, enum roce_mmap_mode mode)
{
	struct mmap_bus *mb;
	int st;

	if (!bus || !path || (offset & 3u))
		return ROCE_E_INVAL;
	mb = calloc(1, sizeof(*mb));
	if (!mb)
		return ROCE_E_NOMEM;
	st = mmap_attach(path, offset, mode, mb);
	if (st != ROCE_OK) {
		int e = errno;

		mmap_close(mb);
		errno = e;
		return st;
	}
	bus->ops = &mmap_ops;
	bus->ctx = mb;
	return ROCE_OK;
}
