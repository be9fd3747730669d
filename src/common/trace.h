/* SPDX-License-Identifier: MIT */
/*
 * The transaction trace (docs/trace.md): every transaction at a NIC's
 * boundary, one text line each, so that a model run and an RTL simulation
 * can be compared line by line (roce-replay). The one description of the
 * format is the kind table in trace.c: the writer and the parser both
 * read it, so they cannot disagree.
 *
 *   <time_ns> <nic> <kind> <name>=<value>... [<bytes in hex>]
 */
#ifndef ROCE_COMMON_TRACE_H
#define ROCE_COMMON_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_MAGIC "# roce-trace 1"

enum trace_kind {
	TR_CREATE,      /* sim: the NIC's creation arguments */
	TR_ADV,         /* sim: advancing the clock made the engine act */
	TR_REG_WR,      /* AXI-Lite write and its response */
	TR_REG_RD,      /* AXI-Lite read, its data and response */
	TR_FRAME_IN,    /* a frame from the wire */
	TR_FRAME_OUT,   /* a frame to the wire */
	TR_MEM_WR,      /* the host (testbench) writes DDR through the window */
	TR_MEM_RD,      /* the host reads DDR through the window */
	TR_DMA_WR,      /* the engine writes DDR */
	TR_DMA_RD,      /* the engine reads DDR */
	TR_POST_SEND,   /* a send work request and post_send's return */
	TR_POST_RECV,   /* a receive work request and post_recv's return */
	TR_CQE,         /* a completion */
	TR_HDMA_WR,     /* the engine writes host memory (an IOVA) */
	TR_HDMA_RD,     /* the engine reads host memory */
	TR_KEY,         /* a key slot loaded or cleared: the slot, never the key */
	TR_KINDS
};

/* One record. Which members a kind uses is the kind table's (trace.c). */
struct trace_rec {
	uint64_t t;             /* ns: virtual time, or real since the start */
	uint32_t nic;
	enum trace_kind kind;
	uint64_t addr;          /* register or DDR address, host DMA: IOVA;
				 * post: laddr; create: mac */
	uint64_t wr_id;         /* post, cqe */
	uint64_t raddr;         /* post_send */
	uint32_t data;          /* register value; create: ip */
	int32_t resp;           /* AXI response; post: return; cqe: status */
	uint32_t qpn;           /* post, cqe; create: qp_count; key: the slot */
	uint32_t op;            /* post_send: roce_wr_opcode; cqe: roce_wc_opcode;
				 * create: link_delay_us; key: TRACE_KEY_LOAD/CLEAR */
	uint32_t lkey, rkey;
	uint32_t len;           /* bytes; cqe: byte_len; create: mem_kib */
	const uint8_t *bytes;   /* frames, DDR accesses: len bytes, else NULL */
};

/* A key record's op: STAGE_KEY_CMD's own values (roce/regs.h). */
#define TRACE_KEY_LOAD  1u
#define TRACE_KEY_CLEAR 2u

const char *trace_kind_name(enum trace_kind k);
/* Inputs drive the NIC (a replay applies them); the rest are its outputs
 * (a replay checks them). A register read and a post are both: the access
 * is the input, its data, response or return the output. */
bool trace_kind_is_input(enum trace_kind k);

/* Same kind, NIC, fields and bytes (the time is not compared). */
bool trace_rec_equal(const struct trace_rec *a, const struct trace_rec *b);

/* A writer: one file, records in call order. */
struct trace_writer;
/* NULL with errno set when the file cannot be created. */
struct trace_writer *trace_writer_open(const char *path);
void trace_writer_close(struct trace_writer *w);
/* Thread-safe: records of one file may come from several threads. */
void trace_write(struct trace_writer *w, const struct trace_rec *r);
/* Real time for traces without a virtual clock: ns since the first
 * record that asked for it. */
uint64_t trace_writer_real_ns(struct trace_writer *w);

/*
 * The trace never holds a key (docs/trace.md). A register write is
 * recorded with trace_reg_wr_data's data: 0 for the STAGE block's key
 * words. A write that is a LOAD or CLEAR command is preceded by a key
 * record naming the slot (trace_key_cmd fills r but for the slot, which
 * the caller reads from STAGE_KEY_SLOT into r->qpn, and returns true), so
 * a replay knows where to put a key it takes from a key file.
 */
uint32_t trace_reg_wr_data(uint32_t addr, uint32_t data);
bool trace_key_cmd(uint32_t addr, uint32_t data, struct trace_rec *r);

/* The line of r, without the newline, into buf (room for TRACE_LINE_MAX);
 * its length. */
#define TRACE_LINE_MAX (256 + 2 * 4224 + 16)
int trace_format(const struct trace_rec *r, char *buf, size_t size);

/* Parse one line (no newline) into r; r->bytes points into bytes (room for
 * 4224). 0, or -1 with a reason in err. Comments (#) and empty lines are
 * not records: trace_parse returns 1 for them. */
int trace_parse(const char *line, struct trace_rec *r, uint8_t *bytes,
		char *err, size_t errlen);

#endif
