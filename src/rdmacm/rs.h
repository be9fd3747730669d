/* SPDX-License-Identifier: MIT */
/*
 * rsockets in the drop-in librdmacm.so.1 (docs/verbs.md, "rsockets"):
 * stream sockets over an RC QP, on the wire as rdma-core's rsockets, so
 * that each end may be either library.
 *
 * The wire, as rdma-core's rsocket.c speaks it (protocol version 1):
 *   - the CM's REQ and REP carry a struct rs_conn_data (40 bytes): the
 *     sender's receive credits (its receive queue depth), where the peer
 *     writes buffer grants (target_sgl: RS_SGL_SIZE struct rs_sge, in
 *     the writer's byte order, RS_CONN_FLAG_NET saying which), and the
 *     first half of the sender's receive buffer (data_buf);
 *   - data is an RDMA WRITE with immediate into the granted half, the
 *     immediate RS_OP_DATA and the byte count; the reader copies it out
 *     in order;
 *   - grants: when half the receive buffer is free again, an RDMA WRITE
 *     with immediate of one struct rs_sge (that half) into the peer's
 *     target_sgl, the immediate RS_OP_SGL and the new credit limit
 *     (received messages + queue depth); with no half free, the same
 *     immediate in a zero-length write (credits only);
 *   - control: a zero-length WRITE with immediate RS_OP_CTRL and
 *     RS_CTRL_DISCONNECT, _SHUTDOWN or _KEEPALIVE;
 *   - every receive WQE has no scatter list: a write with immediate
 *     consumes one and says only its immediate.
 * The socket number is the CM ID's event channel fd, as rdma-core's is,
 * so an rsocket never shares a number with a file the program opens.
 */
#ifndef ROCE_RDMACM_RS_H
#define ROCE_RDMACM_RS_H

#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* The immediate: op in bits 31..29, data in 28..0 */
enum { RS_OP_DATA = 0, RS_OP_WRITE = 2, RS_OP_SGL = 4, RS_OP_IOMAP_SGL = 6, RS_OP_CTRL = 7 };
enum { RS_CTRL_DISCONNECT = 0, RS_CTRL_KEEPALIVE = 1, RS_CTRL_SHUTDOWN = 2 };
#define RS_MSG(op, data) (((uint32_t)(op) << 29) | (uint32_t)(data))
#define RS_MSG_OP(m) ((m) >> 29)
#define RS_MSG_DATA(m) ((m) & 0x1FFFFFFFu)

#define RS_WR_RECV (1ull << 63)         /* a receive's wr_id */

#define RS_SGL_SIZE 2                   /* grant slots at each end */
#define RS_CTRL_SLOTS 4                 /* control messages in flight */
#define RS_SNDLOWAT 2048                /* the least send space worth a send */
#define RS_FIRST_XFER 2048              /* a send's first write; doubles ... */
#define RS_MAX_XFER 65536               /* ... up to this */
#define RS_QP_MIN 16
#define RS_QP_MAX 0xFFFE
#define RS_CONN_RETRIES 6
#define RS_CONN_FLAG_NET 1              /* the grants are big-endian */
#define RS_CONN_FLAG_IOMAP 2            /* an iomap follows the grant slots */

struct rs_sge {                         /* wire: 16 bytes */
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

struct rs_conn_data {                   /* wire: 40 bytes, big-endian */
	uint8_t version;
	uint8_t flags;
	uint16_t credits;
	uint8_t reserved[3];
	uint8_t target_iomap_size;
	struct rs_sge target_sgl;
	struct rs_sge data_buf;
};

_Static_assert(sizeof(struct rs_sge) == 16, "rsockets' grant is 16 bytes on the wire");
_Static_assert(sizeof(struct rs_conn_data) == 40, "rsockets' connection data is 40 bytes");

/* States, ordered passive < opening < connected < disconnected (a
 * comparison says "connected or later"); the connected bits combine. */
enum {
	RS_INIT = 0,
	RS_BOUND = 0x0001,
	RS_LISTENING = 0x0002,
	RS_OPENING = 0x0004,
	RS_RESOLVING_ADDR = RS_OPENING | 0x0010,
	RS_RESOLVING_ROUTE = RS_OPENING | 0x0020,
	RS_CONNECTING = RS_OPENING | 0x0040,
	RS_ACCEPTING = RS_OPENING | 0x0080,
	RS_CONNECTED = 0x0100,
	RS_WRITABLE = 0x0200,
	RS_READABLE = 0x0400,
	RS_CONNECT_RDWR = RS_CONNECTED | RS_READABLE | RS_WRITABLE,
	RS_CONNECT_ERROR = 0x0800,
	RS_DISCONNECTED = 0x1000,
	RS_ERROR = 0x2000,
};

struct rs_rmsg {                        /* a received write, not yet read */
	uint32_t op, data;
};

struct rsock {
	int index;                      /* the socket number */
	pthread_mutex_t slock, rlock;   /* senders, receivers */
	pthread_mutex_t cq_lock;        /* polling the CQ */
	pthread_mutex_t cq_wait_lock;   /* waiting on its channel */
	struct rdma_cm_id *cm_id;
	int state, err, retries;
	int fs_flags;                   /* O_NONBLOCK */
	bool swap_sgl;                  /* the peer writes grants in the other order */
	uint64_t so_opts, tcp_opts, ipv6_opts; /* options set, for rgetsockopt */
	unsigned keepalive_time;

	uint32_t sbuf_size, rbuf_size;
	uint16_t sq_size, rq_size, sq_inline;
	int sqe_avail;

	unsigned ctrl_seqno, ctrl_max_seqno;
	uint16_t sseq_no, sseq_comp;    /* writes sent; the peer's credit limit */
	uint16_t rseq_no, rseq_comp;    /* writes read; when to grant again */

	int remote_sge;                 /* the peer's grant slot we write next */
	struct rs_sge remote_sgl;       /* the peer's grant slots */
	struct ibv_mr *target_mr;
	volatile struct rs_sge *target_sgl; /* our grant slots: the peer writes them */
	int target_sge;                 /* the slot we send into */

	uint8_t *rbuf;
	struct ibv_mr *rmr;
	int rbuf_bytes_avail, rbuf_free_offset, rbuf_offset;
	struct rs_rmsg *rmsg;           /* rq_size + 1 */
	int rmsg_head, rmsg_tail;

	uint8_t *sbuf;                  /* sbuf_size, then the control slots */
	struct ibv_mr *smr;
	int sbuf_bytes_avail;
	struct ibv_sge ssgl[2];

	bool cq_armed;
	unsigned unack_cqe;
};

/* rs_sock.c: the process's sockets by number */
struct rsock *rs_find(int socket);
int rs_do_connect(struct rsock *rs);
int rs_set_fd_nonblock(int fd, bool on);

/* rs_data.c: the connection's QP, buffers and data path */
int rs_create_ep(struct rsock *rs);
void rs_free_ep(struct rsock *rs);
void rs_format_conn_data(struct rsock *rs, struct rs_conn_data *c);
void rs_save_conn_data(struct rsock *rs, const struct rs_conn_data *c);
int rs_post_ctrl(struct rsock *rs, uint32_t msg);
int rs_process_cq(struct rsock *rs, bool nonblock, bool (*test)(struct rsock *rs));
int rs_get_cq_event(struct rsock *rs);
bool rs_ctrl_avail(struct rsock *rs);
bool rs_can_send(struct rsock *rs);
bool rs_have_rdata(struct rsock *rs);
bool rs_conn_have_rdata(struct rsock *rs);
bool rs_conn_can_send_ctrl(struct rsock *rs);
bool rs_conn_all_sends_done(struct rsock *rs);
bool rs_is_cq_armed(struct rsock *rs);
bool rs_poll_all(struct rsock *rs);

/* -1 with errno */
int rs_err(int err);

#endif
