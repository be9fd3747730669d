/* SPDX-License-Identifier: MIT */
/* roce-rping's parts: the options and setup (roce-rping.c) and the
   exchange of rdma-core's rping (exchange.c). */
#ifndef ROCE_TOOLS_RPING_H
#define ROCE_TOOLS_RPING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "perf/perf_ep.h"
#include "roce/cm.h"

/* rping.c: RPING_BUFSIZE, and its smallest size (sizeof "2147483647" +
   sizeof "rdma-ping-%d: ") */
#define RPING_BUFSIZE (64 * 1024)
#define RPING_MIN_BUFSIZE 26
#define RPING_MSG_FMT "rdma-ping-%d: "

/* struct rping_rdma_info: what each SEND carries, big-endian */
#define RPING_INFO_LEN 16

struct rping {
	/* options */
	bool server, verbose, validate, debug, persistent, self_qp;
	int count;                     /* 0: forever */
	int size;
	uint16_t port;
	struct sockaddr_storage addr, src;
	/* the run */
	struct perf_ep ep;
	struct roce_cm *cm;
	struct roce_cm_event_channel *ch;
	struct roce_cm_id *id;         /* client: the connection; server: the listener */
	struct roce_cm_id *child;      /* server: the connection */
	struct roce_qp *qp;
	uint8_t *recv_buf, *send_buf, *rdma_buf, *start_buf;
	bool disconnected;
};

#define DEBUG_LOG(r, ...) do { if ((r)->debug) printf(__VA_ARGS__); } while (0)

/* exchange.c: 0, or -1 after a message on stderr */
int rping_test_server(struct rping *r);
int rping_test_client(struct rping *r);
/* The next CM event (within ms), handled as rping's cma handler does:
   the event's type, RPING_EV_NONE, or RPING_EV_ERROR for an error event
   (printed as rping prints it). */
#define RPING_EV_NONE (-1)
#define RPING_EV_ERROR (-2)
int rping_cm_event(struct rping *r, unsigned ms, struct roce_cm_id **child);
int rping_post_recv(struct rping *r);

#endif
