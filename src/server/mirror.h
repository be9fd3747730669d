/* SPDX-License-Identifier: MIT */
/*
 * The mmap mirror: serves a model device through a file-backed register
 * window so the mmap bus backend can be tested without hardware (protocol
 * and file layout in roce/bus.h). Runs in a thread of its own.
 */
#ifndef ROCE_DRIVER_MIRROR_H
#define ROCE_DRIVER_MIRROR_H

#include <stdint.h>

struct roce_device;
struct roce_mirror;

struct roce_mirror_opts {
	uint32_t poll_us;	/* doorbell poll interval while active */
	uint32_t busy_polls;	/* polls a table command reads BUSY */
	uint32_t refresh_ms;	/* status/counter refresh period */
};

#define ROCE_MIRROR_OPTS_DEFAULT { .poll_us = 20, .busy_polls = 3, .refresh_ms = 2 }

/*
 * Creates (or truncates) path to ROCE_MMAP_FILE_SIZE bytes, fills the window
 * from dev, publishes the mirror page and starts polling. opts may be NULL.
 * Errors: ROCE_E_IO (errno tells why), ROCE_E_NOMEM.
 */
int roce_mirror_start(struct roce_device *dev, const char *path,
		      const struct roce_mirror_opts *opts,
		      struct roce_mirror **out);

/* Stops polling, withdraws the mirror page (hosts then see NODEV), unmaps. */
void roce_mirror_stop(struct roce_mirror *m);

#endif
