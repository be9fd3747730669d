/* SPDX-License-Identifier: MIT */
/*
 * The register bus: every access the host makes to the device is one aligned
 * 32-bit read or write through a struct roce_bus (Corundum's reg_if idea), so
 * the same driver code drives
 *
 *   local   an in-process model device (struct roce_device);
 *   socket  a model device served by `roced` over a UNIX stream socket;
 *   mmap    a memory-mapped register window: a PCIe BAR (sysfs
 *           .../resourceN), a UIO device (/dev/uioN), an XDMA user character
 *           device (/dev/xdma0_user), or a file mirrored by `roced --mmap`.
 *
 * Every operation returns an enum roce_status: ROCE_OK, the AXI-Lite error
 * responses ROCE_E_SLVERR / ROCE_E_DECERR, or a transport failure
 * (ROCE_E_IO, ROCE_E_TIMEOUT, ...).
 */
#ifndef ROCE_BUS_H
#define ROCE_BUS_H

#include <stddef.h>
#include <stdint.h>

#include "roce/status.h"

struct roce_device;

struct roce_bus_ops {
	const char *name;	/* "local", "socket", "mmap" */
	int (*read32)(void *ctx, uint32_t off, uint32_t *val);
	int (*write32)(void *ctx, uint32_t off, uint32_t val);
	int (*close)(void *ctx);
	/* The device's DDR through a debug port (as an FPGA's JTAG-to-AXI
	 * bridge): one aligned 32-bit word, word = byte address / 4, bytes
	 * 4w..4w+3 little-endian. NULL: the bus has no such port. */
	int (*mem_read32)(void *ctx, uint32_t word, uint32_t *val);
	int (*mem_write32)(void *ctx, uint32_t word, uint32_t val);
};

struct roce_bus {
	const struct roce_bus_ops *ops;
	void *ctx;
};

static inline int roce_bus_read32(struct roce_bus *bus, uint32_t off,
				  uint32_t *val)
{
	return bus->ops->read32(bus->ctx, off, val);
}

static inline int roce_bus_write32(struct roce_bus *bus, uint32_t off,
				   uint32_t val)
{
	return bus->ops->write32(bus->ctx, off, val);
}

/*
 * len bytes of the device's DDR at byte address addr, through the bus's
 * debug port one 32-bit word at a time (a partial word at either end is
 * read, merged and written back: not atomic against the data path).
 * Errors: ROCE_E_UNSUPPORTED (the bus has no DDR port), ROCE_E_RANGE
 * (addr + len past the 16 GiB a word index reaches), ROCE_E_DECERR (past
 * the device's DDR), or the bus's own.
 */
int roce_bus_mem_read(struct roce_bus *bus, uint64_t addr, void *buf,
		      size_t len);
int roce_bus_mem_write(struct roce_bus *bus, uint64_t addr, const void *buf,
		       size_t len);

/* Releases the backend; safe on a zeroed or already closed bus. */
int roce_bus_close(struct roce_bus *bus);

/* Name of the backend ("local", ...) or "closed". */
const char *roce_bus_name(const struct roce_bus *bus);

/* ---- local ---------------------------------------------------------------
 * Borrows dev (the caller destroys it after closing the bus).
 */
int roce_bus_open_local(struct roce_bus *bus, struct roce_device *dev);

/* ---- socket --------------------------------------------------------------
 * Wire protocol (version 1) between a client and roced. Every message, in
 * both directions, is 12 bytes: three 32-bit little-endian words.
 *
 *   request   op | offset | value
 *   response  op | resp   | value
 *
 * op: HELLO, READ or WRITE (a register), MEM_READ or MEM_WRITE (a word
 * of the device's DDR: offset = byte address / 4, which reaches the 16 GiB
 * the device may have; DECERR past its DDR). The response echoes op. resp is the AXI
 * response code (0 OKAY, 2 SLVERR, 3 DECERR), so the protocol does not
 * depend on the numbering of enum roce_status, or one of the protocol
 * errors below. value is the data read (READ), the server's protocol
 * version (HELLO), otherwise 0.
 *
 * A connection starts with HELLO (offset = ROCE_SOCK_MAGIC, value = the
 * client's protocol version). The server answers OKAY with its version, or
 * BAD_VERSION / NO_HELLO and closes the connection. Requests are answered
 * in order, one response per request. MEM_READ and MEM_WRITE came later
 * without a new version: a server without them answers BAD_OP, which the
 * client reports as ROCE_E_UNSUPPORTED. They pass through the same socket,
 * so whoever may touch the registers may touch the DDR, and no one else.
 */
#define ROCE_SOCK_PROTO_VERSION	1u
#define ROCE_SOCK_MAGIC		0x52434544u	/* "RCED" */
#define ROCE_SOCK_MSG_LEN	12u

enum roce_sock_op {
	ROCE_SOCK_HELLO = 1,
	ROCE_SOCK_READ = 2,
	ROCE_SOCK_WRITE = 3,
	ROCE_SOCK_MEM_READ = 4,		/* value: the DDR word read */
	ROCE_SOCK_MEM_WRITE = 5,	/* value: the DDR word to write */
};

enum roce_sock_resp {
	ROCE_SOCK_OKAY = 0,		/* AXI OKAY */
	ROCE_SOCK_SLVERR = 2,		/* AXI SLVERR */
	ROCE_SOCK_DECERR = 3,		/* AXI DECERR */
	ROCE_SOCK_BAD_OP = 0x10,	/* unknown op */
	ROCE_SOCK_BAD_VERSION = 0x11,	/* HELLO with another version/magic */
	ROCE_SOCK_NO_HELLO = 0x12,	/* request before HELLO */
};

/*
 * Default socket path, the first that applies:
 *   $ROCED_SOCKET; $XDG_RUNTIME_DIR/roced.sock; /run/roced.sock when /run
 *   is writable (root); /tmp/roced-<uid>.sock.
 * Returns buf, or NULL if the path does not fit.
 */
char *roce_bus_default_socket_path(char *buf, size_t len);

/*
 * Connects and exchanges HELLO. Errors: ROCE_E_IO (errno tells why: ENOENT,
 * ECONNREFUSED ...), ROCE_E_UNSUPPORTED (protocol version), ROCE_E_RANGE
 * (path too long), ROCE_E_TIMEOUT (no answer).
 */
int roce_bus_open_socket(struct roce_bus *bus, const char *path);

/* ---- mmap ----------------------------------------------------------------
 * A raw memory-mapped window is accessed with volatile, aligned 32-bit loads
 * and stores. It cannot report SLVERR or DECERR: on PCIe a failed read
 * completes as all-ones (0xFFFFFFFF) and a failed write is dropped. The
 * backend therefore rejects only what it can see itself (misaligned offsets,
 * offsets outside the window: DECERR), and the driver treats DEV_ID reading
 * 0xFFFFFFFF as "device absent" (ROCE_E_NODEV).
 *
 * A plain file cannot observe stores, so a file-backed window is served by
 * a mirror (roced --mmap FILE, or roce_mirror_start()): the file holds the
 * ROCE_MMAP_REG_SPAN bytes of registers followed by one mirror page. After
 * each store the host rings the mirror's doorbell (offset, value, sequence
 * number) and waits until the mirror acknowledges that sequence number; the
 * mirror applies the write to its model device and writes the model's
 * read-back values into the window before it acknowledges, and refreshes
 * status and counters periodically. Table commands (a write to QP_COMMIT or
 * MR_COMMIT) are acknowledged with COMMIT reading BUSY and completed a few
 * polls later, as a device behind a BAR would, which is why the driver
 * always polls BUSY. One writer at a time, as on the hardware.
 */
#define ROCE_MMAP_REG_SPAN	0x2000u		/* registers 0x0000-0x1FFF */
#define ROCE_MMAP_MIRROR_PAGE	0x1000u
#define ROCE_MMAP_FILE_SIZE	(ROCE_MMAP_REG_SPAN + ROCE_MMAP_MIRROR_PAGE)
#define ROCE_MMAP_MIRROR_MAGIC	0x52494D52u	/* "RMIR" */
#define ROCE_MMAP_MIRROR_VERSION 1u

/* The mirror page, at ROCE_MMAP_REG_SPAN past the register window. */
struct roce_mirror_page {
	uint32_t magic;		/* ROCE_MMAP_MIRROR_MAGIC while served */
	uint32_t version;
	uint32_t host_seq;	/* host: bumped after each store */
	uint32_t ack_seq;	/* mirror: = host_seq once applied */
	uint32_t wr_off;	/* host: offset of the store */
	uint32_t wr_val;	/* host: value stored */
	uint32_t wr_status;	/* mirror: model's response (diagnostics) */
	uint32_t heartbeat;	/* mirror: bumped every poll */
};

enum roce_mmap_mode {
	/*
	 * AUTO: character devices and files under /sys are raw windows; any
	 * other regular file must carry a live mirror page.
	 */
	ROCE_MMAP_AUTO = 0,
	ROCE_MMAP_RAW,
	ROCE_MMAP_MIRROR,
};

/*
 * Maps ROCE_MMAP_REG_SPAN bytes at offset (any multiple of 4) of path.
 * Errors: ROCE_E_IO (errno tells why), ROCE_E_INVAL (offset), ROCE_E_RANGE
 * (file too small), ROCE_E_NODEV (mirror mode but no live mirror).
 */
int roce_bus_open_mmap(struct roce_bus *bus, const char *path,
		       uint64_t offset, enum roce_mmap_mode mode);

/* How long a store waits for the mirror's acknowledgement. */
#define ROCE_MMAP_ACK_TIMEOUT_MS 2000u

#endif
