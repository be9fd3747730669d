/* SPDX-License-Identifier: MIT */
/*
 * The out-of-band exchange of the standard RDMA test tools: a TCP
 * connection (port 18515 by default) over which two peers trade the QP
 * numbers, PSNs, GIDs, R_Keys and addresses they need before any RoCE
 * packet flows, and later synchronise and trade results.
 *
 * Two dialects, byte-compatible with the originals:
 *
 *  - ibv_rc_pingpong (rdma-core libibverbs/examples/rc_pingpong.c,
 *    pingpong.c): one 52-byte message each way, "%04x:%06x:%06x:%s" of
 *    LID, QPN, PSN and the GID as 32 hex digits, NUL included. The client
 *    writes first; the server answers once its QP is connected; the client
 *    ends with "done" (5 bytes with the NUL).
 *
 *  - perftest 4.5 as Debian 12 ships it (version string "6.06";
 *    src/perftest_communication.c, Ethernet exchange, no rdma_cm): fixed
 *    size binary and text messages, each exchanged in both directions with
 *    the client writing first (ctx_xchg_data, ctx_hand_shake):
 *      version      16 bytes, the version string NUL-padded
 *      sys data     4 bytes cycle buffer, 4 bytes cache line (big endian)
 *      MTU          2 bytes, the ibverbs MTU enum as "%d" plus NUL
 *      keys         108 bytes, KEY_PRINT_FMT_GID (below), NUL included;
 *                   the same message is traded again at every sync point
 *      bw report    8 bytes size, 8 bytes iterations, 3 doubles (peak,
 *                   average, message rate), all big endian
 *      close        a keys exchange, then "done" (5 bytes) from each side
 *
 * Every call is bounded by the connection's timeout: that long without a
 * byte and without work done by the idle hook, which runs while a call
 * waits (the tools drive their engine from it, so the data path keeps
 * moving while a peer is slow on TCP).
 */
#ifndef ROCE_OOB_H
#define ROCE_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/gid.h"           /* the GIDs the exchanges carry */

#define ROCE_OOB_PORT_DEFAULT   18515u

/*
 * A message transport in place of the socket: perftest's rdma_cm exchange
 * (-R), where every write is one SEND on an RC QP the CM connected and
 * every read takes one received message (perftest_communication.c:
 * rdma_write_data, rdma_read_data). The exchanges above it are the same
 * messages of the same sizes; send and recv return a status and say why
 * in err.
 */
struct roce_oob_msg {
	int (*send)(void *arg, const void *buf, size_t len, char *err, size_t errlen);
	int (*recv)(void *arg, void *buf, size_t len, char *err, size_t errlen);
	void *arg;
};

struct roce_oob {
	int fd;                         /* connected socket, -1 = none */
	bool client;                    /* the side that writes first */
	unsigned timeout_ms;            /* bound of each call */
	/* Run while waiting (NULL = sleep). It returns how much work it did:
	 * non-zero means the data path is alive and restarts the timeout, so
	 * a server waiting on TCP for the end of a long test is not cut off
	 * while the client's traffic flows. */
	unsigned (*idle)(void *arg);
	void *idle_arg;
	const struct roce_oob_msg *msg; /* not NULL: the exchange runs over it,
					 * not over fd (perftest -R) */
	char err[192];                  /* why the last call failed */
};

/* ---- the TCP connection ------------------------------------------------- */

/* A listening IPv4 socket on bind_ip (NULL or "" = any) and port (0 = an
 * ephemeral one; *bound gets the port in use, may be NULL). Returns the
 * socket, or -1 with the reason in err. */
int roce_oob_listen(const char *bind_ip, uint16_t port, uint16_t *bound,
		    char *err, size_t errlen);

/* Wait for one connection on lfd (then closed) and make o the server
 * side of it. ROCE_OK, ROCE_E_TIMEOUT, ROCE_E_IO. */
int roce_oob_accept(struct roce_oob *o, int lfd);

/* Connect to host:port as the client. A refused connection is retried
 * (the server may not be listening yet) until the timeout passes.
 * ROCE_OK, ROCE_E_NOENT (host unknown), ROCE_E_TIMEOUT, ROCE_E_IO. */
int roce_oob_connect(struct roce_oob *o, const char *host, uint16_t port);

/* All of buf, or an error: ROCE_E_TIMEOUT, ROCE_E_IO (peer closed or a
 * socket error). */
int roce_oob_send(struct roce_oob *o, const void *buf, size_t len);
int roce_oob_recv(struct roce_oob *o, void *buf, size_t len);
/* perftest's ctx_xchg_data: the client sends then receives, the server
 * receives then sends. */
int roce_oob_xchg(struct roce_oob *o, const void *mine, void *theirs, size_t len);
void roce_oob_close(struct roce_oob *o);

/* The IPv4 address of the connected peer (host order), 0 if unknown. */
uint32_t roce_oob_peer_ip(const struct roce_oob *o);


/* ---- ibv_rc_pingpong ------------------------------------------------------- */

#define ROCE_PP_MSG_LEN 52              /* sizeof "0000:000000:000000:" + 32 hex digits */
#define ROCE_PP_DONE_LEN 5              /* sizeof "done" */

struct roce_pp_dest {
	uint16_t lid;
	uint32_t qpn;                   /* 24 bits */
	uint32_t psn;                   /* 24 bits */
	uint8_t gid[16];                /* raw, network order */
};

void roce_pp_format(const struct roce_pp_dest *d, char msg[ROCE_PP_MSG_LEN]);
/* ROCE_OK or ROCE_E_FORMAT (wrong length, field or separator). */
int roce_pp_parse(const char *msg, size_t len, struct roce_pp_dest *d);

/* The whole exchange. The server calls connect(arg, peer) between reading
 * the client's message and answering, as rc_pingpong connects its QP
 * before replying; a non-zero return aborts the exchange with that status.
 * The client connects after this returns. */
int roce_pp_exchange(struct roce_oob *o, const struct roce_pp_dest *mine,
		     struct roce_pp_dest *peer,
		     int (*connect)(void *arg, const struct roce_pp_dest *peer),
		     void *arg);

/* ibv_srq_pingpong's exchange: the message of each of n QPs in
 * ROCE_PP_SRQ_SLOTS slots (the rest zeros), the same back, "done"; the
 * server connects (arg, peer[0..n)) in between. ROCE_E_RANGE for n over
 * the slots. */
#define ROCE_PP_SRQ_SLOTS 256u          /* srq_pingpong.c MAX_QP */
int roce_pp_exchange_srq(struct roce_oob *o, const struct roce_pp_dest *mine,
			 struct roce_pp_dest *peer, unsigned n,
			 int (*connect)(void *arg, const struct roce_pp_dest *peer),
			 void *arg);

/* ---- perftest ---------------------------------------------------------------- */

#define ROCE_PT_VERSION         "6.06"  /* Debian 12 perftest 4.5-0.17 */
#define ROCE_PT_VERSION_LEN     16      /* MAX_VERSION */
#define ROCE_PT_VERSION_MIN     5.70    /* check_version_compatibility() */
#define ROCE_PT_KEY_LEN         108     /* KEY_MSG_SIZE_GID */
#define ROCE_PT_KEY_LEN_NOGID   59      /* KEY_MSG_SIZE: IB without GID */
#define ROCE_PT_DONE_LEN        5
/* The keys over rdma_cm (-R): struct pingpong_dest as perftest's
 * rdma_write_keys sends it, each int big endian: lid, out_reads, qpn,
 * psn, rkey at 0..19, 4 bytes of padding, vaddr at 24, the GID at 32,
 * srqn at 48, gid_index at 52 */
#define ROCE_PT_DEST_BIN_LEN    56

struct roce_pt_dest {
	uint16_t lid;
	uint16_t out_reads;             /* outstanding READs/atomics offered */
	uint32_t qpn, psn;
	uint32_t rkey;
	uint64_t vaddr;                 /* where the peer may write/read */
	uint8_t gid[16];
	uint32_t srqn;
	uint32_t gid_index;             /* our GID's index: the binary keys
					 * (-R) carry it, the text ones not */
};

/* "%04x:%04x:%06x:%06x:%08x:%016llx:" then 16 x "%02x:" then "%08x:" */
void roce_pt_format(const struct roce_pt_dest *d, char msg[ROCE_PT_KEY_LEN]);
int roce_pt_parse(const char *msg, size_t len, struct roce_pt_dest *d);

/* The binary keys of the rdma_cm exchange (ROCE_PT_DEST_BIN_LEN bytes). */
void roce_pt_pack_dest(const struct roce_pt_dest *d, uint8_t b[ROCE_PT_DEST_BIN_LEN]);
void roce_pt_unpack_dest(const uint8_t b[ROCE_PT_DEST_BIN_LEN], struct roce_pt_dest *d);

/* Versions: sends ROCE_PT_VERSION, stores the peer's (NUL-terminated) in
 * peer; ROCE_E_MISMATCH when it is older than ROCE_PT_VERSION_MIN. */
int roce_pt_xchg_version(struct roce_oob *o, char peer[ROCE_PT_VERSION_LEN + 1]);
/* check_sys_data(): both sides keep the larger of each value. */
int roce_pt_xchg_sysdata(struct roce_oob *o, uint32_t *cycle_buffer,
			 uint32_t *cache_line);
/* check_mtu(): *mtu (ibverbs enum 1..5) becomes the smaller of the two
 * when the peer's is valid. */
int roce_pt_xchg_mtu(struct roce_oob *o, int *mtu);
/* ctx_hand_shake(): trade keys (text on the socket, binary over
 * o->msg); a malformed peer message is ROCE_E_FORMAT. */
int roce_pt_handshake(struct roce_oob *o, const struct roce_pt_dest *mine,
		      struct roce_pt_dest *peer);

struct roce_pt_report {
	uint64_t size;                  /* message bytes */
	uint64_t iters;
	double bw_peak, bw_avg;         /* MB/s (2^20 bytes) */
	double msg_rate;                /* Mpps */
};

void roce_pt_report_pack(const struct roce_pt_report *r, uint8_t b[40]);
void roce_pt_report_unpack(const uint8_t b[40], struct roce_pt_report *r);
/* xchg_bw_reports(): five exchanges of 8 bytes. */
int roce_pt_xchg_report(struct roce_oob *o, const struct roce_pt_report *mine,
			struct roce_pt_report *peer);
/* ctx_close_connection(): one more handshake, "done", close; over o->msg
 * the handshake only. */
int roce_pt_close(struct roce_oob *o, const struct roce_pt_dest *mine);

#endif
