/* SPDX-License-Identifier: MIT */
/*
 * The device model: what sits behind the AXI-Lite bus of the FPGA NIC.
 *
 * One roce_device holds the register file (src/regs), the QP and MR tables
 * (src/tables), the engine counters (roce/counters.h), the link bring-up
 * model and the board's DDR. The host side reaches it only through
 * roce_device_read32/write32, exactly as a driver reaches the real board
 * through a BAR; the data path (another thread) uses the direct accessors
 * below.
 *
 * Power-on state: CTRL = 0 (not in soft reset, engine disabled), tables
 * empty (every QP in RESET, every MR invalid), counters zero. The link-ready
 * bits rise link_delay_us after create and after every release of
 * CTRL.SOFT_RESET (seed 000 section 2.2: wait for gtpowergood and the TX/RX
 * reset-done signals before sending). docs/regmap.md describes every
 * register.
 */
#ifndef ROCE_DEVICE_H
#define ROCE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct roce_device;     /* opaque */
struct roce_counters;   /* roce/counters.h */
struct roce_qp_table;   /* roce/tables.h */
struct roce_mr_table;   /* roce/tables.h */

struct roce_device_config {
	size_t mem_size;            /* device DDR bytes, multiple of 1 KiB;
	                             * 0 = ROCE_DEV_MEM_SIZE_DEFAULT */
	uint32_t link_delay_us;     /* link-ready bits rise this long after
	                             * create / soft-reset release; 0 = at once */
	uint64_t (*now_ns)(void *ctx); /* clock of the link model;
	                                * NULL = CLOCK_MONOTONIC */
	void *clock_ctx;
	/* A window of the DDR in a file (0 = none): its first mem_file_len
	 * bytes are a shared mapping (MAP_SHARED) of the open file mem_fd
	 * from byte mem_file_offset on, so another process sees, through the
	 * file, what the engine writes there and the reverse; the rest of the
	 * DDR stays anonymous. mem_file_offset: a multiple of the page size;
	 * mem_file_len <= mem_size; a regular file must hold the whole
	 * window. The device keeps the mapping, not mem_fd. */
	int mem_fd;
	uint64_t mem_file_offset;
	size_t mem_file_len;
	/* QP table entries: QPNs 0..qp_count-1 exist (QP_COUNT reads it);
	 * 0 = ROCE_MAX_QP. At least ROCE_FIRST_QPN + 1, so that one QP
	 * beyond the special ones 0 and 1 (IBA 3.5.1) can be created. */
	uint32_t qp_count;
	/* The DDR at this host address (2 MiB aligned), which must be free:
	 * MR virtual addresses, and so the frames' RETH addresses, are then
	 * the same in every run (roce-demo --virtual-time). NULL = anywhere. */
	void *mem_at;
};

/*
 * Create a device; cfg may be NULL for the defaults. Returns ROCE_OK,
 * ROCE_E_INVAL (mem_size not a multiple of 1 KiB, mem_file_offset not on a
 * page, out NULL), ROCE_E_RANGE (mem_size above ROCE_DEV_MEM_SIZE_MAX,
 * mem_file_len above mem_size or past the end of the file, qp_count above
 * ROCE_MAX_QP or, when not 0, below ROCE_FIRST_QPN + 1), ROCE_E_IO (the
 * file cannot be mapped) or ROCE_E_NOMEM.
 */
int roce_device_create(const struct roce_device_config *cfg,
		       struct roce_device **out);
void roce_device_destroy(struct roce_device *dev);

/*
 * AXI-Lite access. Returns ROCE_OK (OKAY), ROCE_E_SLVERR (write to a
 * read-only register, reserved bits set, field value out of range) or
 * ROCE_E_DECERR (unmapped or misaligned offset). A failed write changes
 * nothing; a failed read stores 0 in *val. Thread-safe. (ROCE_E_INVAL
 * only for a NULL dev or val: a caller bug, not a bus response.)
 */
int roce_device_read32(struct roce_device *dev, uint32_t off, uint32_t *val);
int roce_device_write32(struct roce_device *dev, uint32_t off, uint32_t val);

/* Device DDR: MR physical addresses index into it. */
uint8_t *roce_device_mem(struct roce_device *dev, size_t *size);

/* One aligned 32-bit word of the DDR at byte address addr (bytes addr..
 * addr+3 little-endian), for the bus's debug port: ROCE_E_DECERR when
 * misaligned or past the DDR. */
int roce_device_mem_read32(struct roce_device *dev, uint64_t addr,
			   uint32_t *val);
int roce_device_mem_write32(struct roce_device *dev, uint64_t addr,
			    uint32_t val);

struct roce_counters *roce_device_counters(struct roce_device *dev);
struct roce_qp_table *roce_device_qp_table(struct roce_device *dev);
struct roce_mr_table *roce_device_mr_table(struct roce_device *dev);

/* What the data path asks before accepting a frame. Lock-free. */
bool roce_device_link_ready(struct roce_device *dev);
bool roce_device_running(struct roce_device *dev); /* out of reset, ENGINE_EN */
bool roce_device_loopback(struct roce_device *dev); /* CTRL.LOOPBACK */

/*
 * The data path reports a received frame. Returns false, and counts the
 * frame as lost (RX_LOST_LINK_DOWN plus DROP_DISABLED or DROP_LINK_DOWN),
 * when the engine is not running or the link is not ready yet; true when
 * the frame may enter the receive pipeline (which then counts rx_pkts).
 */
bool roce_device_rx_admit(struct roce_device *dev);

/* The CC block (roce/regs.h): the configuration last committed, when its
 * generation is not *gen (then *gen is updated); the engine polls it. */
struct roce_cc_config;
bool roce_device_cc_changed(struct roce_device *dev, uint32_t *gen,
			    struct roce_cc_config *out);
/* A QP's own window (CC_QP_WINDOW_KB), 0 when it takes the device's;
 * writing it moves the CC generation, so the engine takes it at once. */
uint32_t roce_device_qp_window(struct roce_device *dev, uint32_t qpn);
/* A QP's own recovery bits (CC_QP_RECOVERY: ROCE_CC_QP_REC_OWN and the
 * bits), 0 when it follows CC_CTRL's; taken at once as the window. */
uint32_t roce_device_qp_recovery(struct roce_device *dev, uint32_t qpn);
/* A QP's own algorithm (CC_QP_ALGO): 0 when it takes the device's, else
 * 1 + enum roce_cc_algo; taken as a window is. */
uint32_t roce_device_qp_algo(struct roce_device *dev, uint32_t qpn);
/* The engine publishes a QP's rate (what CC_QP_RATE shows). */
void roce_device_cc_rate(struct roce_device *dev, uint32_t qpn, bool limited,
			 uint32_t mbps);

/* Link status bits as in STATUS[3:0] and STAT LINK_STATUS. */
uint32_t roce_device_link_bits(struct roce_device *dev);

#endif
