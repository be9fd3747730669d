/* SPDX-License-Identifier: MIT */
/*
 * roced's register server: serves a model device's register file on a UNIX
 * stream socket (protocol in roce/bus.h). Single-threaded: one poll() loop
 * over the listening socket and up to ROCE_REGSRV_MAX_CLIENTS clients.
 */
#ifndef ROCE_DRIVER_REGSRV_H
#define ROCE_DRIVER_REGSRV_H

struct roce_device;
struct roce_regsrv;

/*
 * Binds path and listens. The socket appears under its name only once it
 * accepts connections (bound under a temporary name, then renamed), so a
 * client that finds the file can connect. A stale socket nobody serves is
 * replaced; a live one is ROCE_E_EXISTS. Other errors: ROCE_E_IO (errno),
 * ROCE_E_RANGE (path too long), ROCE_E_NOMEM.
 */
int roce_regsrv_create(struct roce_device *dev, const char *path,
		       struct roce_regsrv **out);

/* Serves until roce_regsrv_stop(); ROCE_OK, or ROCE_E_IO if poll() fails. */
int roce_regsrv_run(struct roce_regsrv *srv);

/* Makes run() return. Async-signal-safe (a write to a pipe). */
void roce_regsrv_stop(struct roce_regsrv *srv);

/* Closes every connection, removes the socket file, frees. */
void roce_regsrv_destroy(struct roce_regsrv *srv);

#endif
