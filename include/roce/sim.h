/* SPDX-License-Identifier: MIT */
/*
 * The device model for simulators: a C ABI an RTL testbench calls through
 * SystemVerilog DPI-C (roce/sim.svh declares every function below).
 *
 * One simulated NIC = the register file and DDR (roce/device.h), the
 * engine (the data path) and a port whose frames go to and come from the
 * caller. Nothing runs by itself: no thread, no wall clock. The caller
 * owns the time (roce_sim_advance) and the engine runs from the calls that
 * advance time or push or pull a frame, so the same calls give the same
 * frames on any machine.
 *
 * Types are the ones IEEE 1800 section 35 (DPI) maps to C without svdpi.h:
 *   chandle            struct roce_sim *
 *   int / int unsigned int / unsigned int (output: a pointer)
 *   longint unsigned   unsigned long long
 *   byte unsigned a[N] unsigned char * (a fixed-size unpacked array is
 *                      passed as a pointer to its first element)
 * Frame buffers hold ROCE_SIM_FRAME_MAX bytes, DDR chunks ROCE_SIM_MEM_CHUNK.
 *
 * The host side has no register interface for work requests in the
 * register map (docs/regmap.md): roce_sim_post_send / _post_recv /
 * _poll_cq stand for the descriptor rings a host fills, so a testbench can
 * make the model the requester as well as the responder.
 */
#ifndef ROCE_SIM_H
#define ROCE_SIM_H

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_SIM_FRAME_MAX 4224         /* ROCE_MAX_FRAME: 4096 MTU + headers */
#define ROCE_SIM_MEM_CHUNK 256          /* bytes per roce_sim_mem_read/write */

/* AXI-Lite responses (AMBA AXI4 BRESP/RRESP encoding) */
#define ROCE_SIM_OKAY   0
#define ROCE_SIM_SLVERR 2
#define ROCE_SIM_DECERR 3

/* The handle. A chandle is a void * to C: a testbench may define
 * ROCE_SIM_HANDLE as void * before including this header, next to the
 * prototypes its simulator generated, and the C++ compiler then rejects
 * any declaration that does not match (examples/cosim/tb_main.cpp). */
#ifndef ROCE_SIM_HANDLE
struct roce_sim;
#define ROCE_SIM_HANDLE struct roce_sim *
#endif

/*
 * A NIC at power-on (CTRL = 0, tables empty, docs/regmap.md).
 * mac: 48 bits, first byte in bits 47:40; ip: IPv4, first octet in 31:24;
 * mem_kib: DDR size (0 = 64 MiB); qp_count: QP table entries (0 = 16384,
 * else 18..16384); link_delay_us: the link-ready bits rise this long (in
 * simulated time) after the release of soft reset. The engine takes its
 * station address from MAC_LOW/HIGH and IP_ADDR whenever they are written;
 * mac and ip only start it. NULL on a bad argument or no memory.
 */
ROCE_SIM_HANDLE roce_sim_create(unsigned long long mac, unsigned int ip,
				 unsigned int mem_kib, unsigned int qp_count,
				 unsigned int link_delay_us);
void roce_sim_destroy(ROCE_SIM_HANDLE s);

/* AXI-Lite write / read at a byte offset; returns the response
 * (ROCE_SIM_OKAY/SLVERR/DECERR); a failed read gives 0 in *data. */
int roce_sim_axil_write(ROCE_SIM_HANDLE s, unsigned int addr, unsigned int data);
int roce_sim_axil_read(ROCE_SIM_HANDLE s, unsigned int addr, unsigned int *data);

/* Simulated time in ns since create; advance moves it by ns and runs the
 * engine until it is idle (timers that came due fire). */
unsigned long long roce_sim_now(ROCE_SIM_HANDLE s);
void roce_sim_advance(ROCE_SIM_HANDLE s, unsigned long long ns);

/* A frame from the wire (Ethernet header on, no FCS), len bytes of frame;
 * the engine takes it at once. Returns 0, or -1 for a bad length or a full
 * receive queue (the frame is dropped, as a MAC with a full FIFO would). */
int roce_sim_push_frame(ROCE_SIM_HANDLE s, const unsigned char *frame, int len);
/* The oldest frame the NIC transmitted, copied into frame (room for
 * ROCE_SIM_FRAME_MAX bytes); returns its length, 0 when none waits. */
int roce_sim_pull_frame(ROCE_SIM_HANDLE s, unsigned char *frame);

/* DDR window: len (1..ROCE_SIM_MEM_CHUNK) bytes at a device address.
 * Returns 0, or -1 when [addr, addr + len) leaves the DDR or len is bad. */
int roce_sim_mem_write(ROCE_SIM_HANDLE s, unsigned long long addr,
		       const unsigned char *buf, int len);
int roce_sim_mem_read(ROCE_SIM_HANDLE s, unsigned long long addr,
		      unsigned char *buf, int len);

/*
 * Work requests on a QP programmed through the QP window: opcode is
 * enum roce_wr_opcode (0 RDMA WRITE, 2 SEND, 4 RDMA READ), one SGE (laddr,
 * lkey, len; none when len is 0), remote address and R_Key for RDMA.
 * Every send is signaled. Returns 0 or an enum roce_status code: 9 (state)
 * QP not in RTS, 7 (full) queue full, 1 (inval) another opcode, 5 (noent)
 * a QPN never committed.
 */
int roce_sim_post_send(ROCE_SIM_HANDLE s, unsigned int qpn, int opcode,
		       unsigned long long wr_id, unsigned long long laddr,
		       unsigned int lkey, unsigned int len,
		       unsigned long long raddr, unsigned int rkey);
int roce_sim_post_recv(ROCE_SIM_HANDLE s, unsigned int qpn, unsigned long long wr_id,
		       unsigned long long laddr, unsigned int lkey, unsigned int len);
/* The oldest completion of any QP: returns 1 and its fields (status and
 * opcode as enum roce_wc_status / roce_wc_opcode), or 0 when none. */
int roce_sim_poll_cq(ROCE_SIM_HANDLE s, unsigned long long *wr_id, int *status,
		     int *opcode, unsigned int *qpn, unsigned int *byte_len);

/*
 * The transaction trace (docs/trace.md): from now on every transaction at
 * this NIC's boundary is a line of path (created or truncated), nic the
 * NIC's number in it, the first line create's arguments. An empty path
 * stops it (the file is closed; destroy closes it too). One file per NIC:
 * roce-replay replays each on its own, roce-replay --compare compares.
 * Returns 0, or -1 when the file cannot be created.
 */
int roce_sim_trace_open(ROCE_SIM_HANDLE s, const char *path, unsigned int nic);

#ifdef __cplusplus
}
#endif

#endif
