/* SPDX-License-Identifier: MIT */
/*
 * The mmap mirror (roced --mmap). A file cannot see loads and stores, so the
 * host rings a doorbell after every store (roce/bus.h) and the mirror:
 *   - applies the store to the model device;
 *   - for a table command (QP_COMMIT / MR_COMMIT) first shows COMMIT with
 *     BUSY, acknowledges, and completes the command busy_polls polls later,
 *     as a device behind a BAR that takes time would;
 *   - copies the model's read-back values into the window before it
 *     acknowledges, so a read after a store sees what the device holds;
 *   - refreshes the window every refresh_ms for status and counters.
 * Doorbells are handled strictly in order, one at a time: a host that reads
 * after its store was acknowledged sees a deterministic result.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "roce/bus.h"
#include "roce/device.h"
#include "roce/regs.h"
#include "server/mirror.h"

/* After this many idle polls the mirror naps a millisecond at a time. */
#define MIRROR_IDLE_POLLS 2000u

/* Register ranges the device decodes; the rest of the window reads 1s. */
static const struct {
	uint32_t lo, hi;
} mirror_ranges[] = {
	{ ROCE_REG_CTRL, ROCE_REG_MR_PD + 4 },
	{ ROCE_REG_STAT_BASE, ROCE_REG_STAT_END + 1 },
};

struct roce_mirror {
	struct roce_device *dev;
	struct roce_mirror_opts opts;
	void *map;
	volatile uint32_t *regs;
	volatile struct roce_mirror_page *page;
	pthread_t thread;
	int stop;			/* atomic */
	uint32_t acked;			/* last sequence acknowledged */
	bool pending;			/* a table command shows BUSY */
	uint32_t pend_off, pend_val, pend_polls;
	uint64_t next_refresh_ns;
};

static void win_store(struct roce_mirror *m, uint32_t off, uint32_t val)
{
	__atomic_store_n(&m->regs[off / 4], val, __ATOMIC_RELAXED);
}

static bool is_commit(uint32_t off)
{
	return off == ROCE_REG_QP_COMMIT || off == ROCE_REG_MR_COMMIT;
}

static uint32_t model_read(struct roce_mirror *m, uint32_t off)
{
	uint32_t v;

	return roce_device_read32(m->dev, off, &v) == ROCE_OK ? v : 0xFFFFFFFFu;
}

/*
 * Copies the model's read-back values into the window (failed reads: 1s).
 * The COMMIT registers go last, with release order: a host that sees BUSY
 * clear must also see the shadow registers a LOAD filled.
 */
static void mirror_refresh(struct roce_mirror *m)
{
	for (size_t r = 0; r < sizeof(mirror_ranges) / sizeof(mirror_ranges[0]); r++)
		for (uint32_t off = mirror_ranges[r].lo; off < mirror_ranges[r].hi;
		     off += 4)
			if (!is_commit(off))
				win_store(m, off, model_read(m, off));
	__atomic_store_n(&m->regs[ROCE_REG_QP_COMMIT / 4],
			 model_read(m, ROCE_REG_QP_COMMIT), __ATOMIC_RELEASE);
	__atomic_store_n(&m->regs[ROCE_REG_MR_COMMIT / 4],
			 model_read(m, ROCE_REG_MR_COMMIT), __ATOMIC_RELEASE);
	m->next_refresh_ns = roce_now_ns() + (uint64_t)m->opts.refresh_ms * 1000000u;
}

static void mirror_apply(struct roce_mirror *m, uint32_t off, uint32_t val)
{
	int st = roce_device_write32(m->dev, off, val);

	__atomic_store_n(&m->page->wr_status, (uint32_t)st, __ATOMIC_RELAXED);
	mirror_refresh(m);
}

static void mirror_ack(struct roce_mirror *m, uint32_t seq)
{
	m->acked = seq;
	__atomic_store_n(&m->page->ack_seq, seq, __ATOMIC_RELEASE);
}

/* One poll; returns true if it did any work. */
static bool mirror_step(struct roce_mirror *m)
{
	uint32_t seq, off, val;

	if (m->pending) {
		if (--m->pend_polls == 0) {
			m->pending = false;
			mirror_apply(m, m->pend_off, m->pend_val);
		}
		return true;
	}
	seq = __atomic_load_n(&m->page->host_seq, __ATOMIC_ACQUIRE);
	if (seq == m->acked)
		return false;
	off = __atomic_load_n(&m->page->wr_off, __ATOMIC_RELAXED);
	val = __atomic_load_n(&m->page->wr_val, __ATOMIC_RELAXED);
	if (is_commit(off) && m->opts.busy_polls > 0) {
		win_store(m, off, val | ROCE_TBL_BUSY);
		m->pending = true;
		m->pend_off = off;
		m->pend_val = val;
		m->pend_polls = m->opts.busy_polls;
	} else {
		mirror_apply(m, off, val);
	}
	mirror_ack(m, seq);
	return true;
}

static void *mirror_main(void *arg)
{
	struct roce_mirror *m = arg;
	unsigned idle = 0;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		struct timespec nap = { .tv_nsec = 1000000 };

		idle = mirror_step(m) ? 0 : idle + 1;
		if (!m->pending && roce_now_ns() >= m->next_refresh_ns)
			mirror_refresh(m);
		__atomic_add_fetch(&m->page->heartbeat, 1, __ATOMIC_RELAXED);
		if (idle < MIRROR_IDLE_POLLS)
			nap.tv_nsec = (long)m->opts.poll_us * 1000;
		nanosleep(&nap, NULL);
	}
	return NULL;
}

static int mirror_map(struct roce_mirror *m, const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	int st = ROCE_OK;

	if (fd < 0)
		return ROCE_E_IO;
	/* Truncating first zeroes a stale window, including its magic. */
	if (ftruncate(fd, 0) != 0 || ftruncate(fd, ROCE_MMAP_FILE_SIZE) != 0)
		st = ROCE_E_IO;
	if (st == ROCE_OK) {
		m->map = mmap(NULL, ROCE_MMAP_FILE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0);
		if (m->map == MAP_FAILED) {
			m->map = NULL;
			st = ROCE_E_IO;
		}
	}
	if (close(fd) != 0 && st == ROCE_OK)
		st = ROCE_E_IO;
	return st;
}

static void mirror_publish(struct roce_mirror *m)
{
	m->regs = m->map;
	m->page = (volatile struct roce_mirror_page *)
		((char *)m->map + ROCE_MMAP_REG_SPAN);
	for (uint32_t off = 0; off < ROCE_MMAP_REG_SPAN; off += 4)
		win_store(m, off, 0xFFFFFFFFu);
	mirror_refresh(m);
	m->acked = 0;
	m->page->version = ROCE_MMAP_MIRROR_VERSION;
	/* The magic goes last: a host that sees it finds a complete window. */
	__atomic_store_n(&m->page->magic, ROCE_MMAP_MIRROR_MAGIC,
			 __ATOMIC_RELEASE);
}

int roce_mirror_start(struct roce_device *dev, const char *path,
		      const struct roce_mirror_opts *opts,
		      struct roce_mirror **out)
{
	static const struct roce_mirror_opts defaults = ROCE_MIRROR_OPTS_DEFAULT;
	struct roce_mirror *m;
	int st;

	if (!dev || !path || !out)
		return ROCE_E_INVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return ROCE_E_NOMEM;
	m->dev = dev;
	m->opts = opts ? *opts : defaults;
	if (m->opts.refresh_ms == 0)
		m->opts.refresh_ms = 1;
	st = mirror_map(m, path);
	if (st == ROCE_OK) {
		mirror_publish(m);
		if (pthread_create(&m->thread, NULL, mirror_main, m) != 0)
			st = ROCE_E_NOMEM;
	}
	if (st != ROCE_OK) {
		int e = errno;

		if (m->map)
			munmap(m->map, ROCE_MMAP_FILE_SIZE);
		free(m);
		errno = e;
		return st;
	}
	*out = m;
	return ROCE_OK;
}

void roce_mirror_stop(struct roce_mirror *m)
{
	if (!m)
		return;
	__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
	pthread_join(m->thread, NULL);
	__atomic_store_n(&m->page->magic, 0, __ATOMIC_RELEASE);
	munmap(m->map, ROCE_MMAP_FILE_SIZE);
	free(m);
}
