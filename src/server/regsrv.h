/* SPDX-License-Identifier: MIT */
/*
 * roced's register server: serves a model device's register file on a UNIX
 * stream socket (protocol in roce/bus.h). Single-threaded: one poll() loop
 * over the listening socket and up to ROCE_REGSRV_MAX_CLIENTS clients.
 */
#ifndef ROCE_DRIVER_REGSRV_H
#define ROCE_DRIVER_REGSRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "roce/bus.h"

struct trace_writer;

struct roce_device;
struct roce_regsrv;

#define ROCE_REGSRV_NO_GROUP ((gid_t)-1)

/*
 * Binds path and listens. The socket is full control of the NIC, so its
 * file is mode 0600 (only this user may connect), whatever the umask; with
 * a group other than ROCE_REGSRV_NO_GROUP it belongs to that group, mode
 * 0660. The socket appears under its name only once it accepts
 * connections with that mode (bound in a private directory, then renamed),
 * so a client that finds the file can connect, and nobody else ever could.
 * A stale socket nobody serves is replaced; a live one is ROCE_E_EXISTS.
 * Other errors: ROCE_E_PERM (the group or mode could not be set: errno),
 * ROCE_E_IO (errno), ROCE_E_RANGE (path too long), ROCE_E_NOMEM.
 */
int roce_regsrv_create(struct roce_device *dev, const char *path, gid_t group,
		       struct roce_regsrv **out);

/* Serves until roce_regsrv_stop(); ROCE_OK, or ROCE_E_IO if poll() fails. */
int roce_regsrv_run(struct roce_regsrv *srv);

/* Makes run() return. Async-signal-safe (a write to a pipe). */
void roce_regsrv_stop(struct roce_regsrv *srv);

/* Closes every connection, removes the socket file, frees. */
void roce_regsrv_destroy(struct roce_regsrv *srv);
/* Record every register access the clients make into w as NIC nic (w
   stays the caller's; NULL: stop). Before roce_regsrv_run. */
void roce_regsrv_set_trace(struct roce_regsrv *srv, struct trace_writer *w, uint32_t nic);

/* ---- the protocol, apart from the socket (regsrv_proto.c) ---------------- */

/* One client's side of the protocol: zeroed when it connects. */
struct roce_regsrv_conn {
	bool hello;			/* a good HELLO came first */
	size_t have;			/* bytes of the pending request */
	uint8_t buf[ROCE_SOCK_MSG_LEN];
	/* the transaction trace (docs/trace.md): each register access is a
	 * wr/rd record of NIC trace_nic, in real time; NULL: none */
	struct trace_writer *trace;
	uint32_t trace_nic;
};

enum roce_regsrv_verdict {
	ROCE_REGSRV_MORE,		/* request incomplete: nothing to send */
	ROCE_REGSRV_REPLY,		/* send rsp, keep the connection */
	ROCE_REGSRV_CLOSE,		/* send rsp, then close the connection */
};

/*
 * Takes the bytes a client sent: as many of in[0..len) as complete its
 * pending request (*used says how many). Once a request is whole it is
 * answered -- a register access on dev, or a protocol error -- and its
 * 12-byte response is in rsp. A connection the verdict closes must not be
 * fed again.
 */
enum roce_regsrv_verdict roce_regsrv_input(struct roce_device *dev,
					   struct roce_regsrv_conn *c,
					   const uint8_t *in, size_t len,
					   size_t *used,
					   uint8_t rsp[ROCE_SOCK_MSG_LEN]);

#endif
