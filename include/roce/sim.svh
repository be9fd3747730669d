// SPDX-License-Identifier: MIT
//
// roce_sim_pkg: the DPI-C import of every function of roce/sim.h, the C
// ABI of the device model for simulators. Types as IEEE 1800 section 35
// maps them to the C declarations there:
//   chandle <-> struct roce_sim *, int unsigned <-> unsigned int,
//   longint unsigned <-> unsigned long long, and a fixed-size unpacked
//   byte unsigned array <-> unsigned char * (its first element).
// Link the testbench with libroce.a (and libisal, libpcap, pthread).
// docs/cosim.md shows how; examples/cosim/ uses every function.
`ifndef ROCE_SIM_SVH
`define ROCE_SIM_SVH

// The file is named after roce/sim.h, whose ABI it declares, not after
// the package: Verilator's -Wall wants them to match.
/* verilator lint_off DECLFILENAME */
package roce_sim_pkg;

  localparam int ROCE_SIM_FRAME_MAX = 4224;  // bytes of a frame buffer
  localparam int ROCE_SIM_MEM_CHUNK = 256;   // bytes of a DDR access at most

  // AXI-Lite responses (BRESP/RRESP)
  localparam int ROCE_SIM_OKAY   = 0;
  localparam int ROCE_SIM_SLVERR = 2;
  localparam int ROCE_SIM_DECERR = 3;

  typedef byte unsigned frame_t[ROCE_SIM_FRAME_MAX];
  typedef byte unsigned chunk_t[ROCE_SIM_MEM_CHUNK];

  // A NIC at power-on; null on a bad argument.
  import "DPI-C" function chandle roce_sim_create(
      input longint unsigned mac, input int unsigned ip, input int unsigned mem_kib,
      input int unsigned qp_count, input int unsigned link_delay_us);
  import "DPI-C" function void roce_sim_destroy(input chandle s);

  // AXI-Lite access; returns ROCE_SIM_OKAY, _SLVERR or _DECERR.
  import "DPI-C" function int roce_sim_axil_write(
      input chandle s, input int unsigned addr, input int unsigned data);
  import "DPI-C" function int roce_sim_axil_read(
      input chandle s, input int unsigned addr, output int unsigned data);

  // Simulated time (ns): advance runs the engine until it is idle.
  import "DPI-C" function longint unsigned roce_sim_now(input chandle s);
  import "DPI-C" function void roce_sim_advance(input chandle s, input longint unsigned ns);

  // Frames (Ethernet header on, no FCS): push returns 0 or -1; pull
  // returns the length of the oldest transmitted frame, 0 when none.
  import "DPI-C" function int roce_sim_push_frame(
      input chandle s, input frame_t frame, input int len);
  import "DPI-C" function int roce_sim_pull_frame(input chandle s, output frame_t frame);

  // DDR window: 1..ROCE_SIM_MEM_CHUNK bytes; 0 or -1.
  import "DPI-C" function int roce_sim_mem_write(
      input chandle s, input longint unsigned addr, input chunk_t data, input int len);
  import "DPI-C" function int roce_sim_mem_read(
      input chandle s, input longint unsigned addr, output chunk_t data, input int len);

  // Work requests and completions (the host's rings; opcode 0 WRITE,
  // 2 SEND, 4 READ); 0 or an enum roce_status code.
  import "DPI-C" function int roce_sim_post_send(
      input chandle s, input int unsigned qpn, input int opcode,
      input longint unsigned wr_id, input longint unsigned laddr,
      input int unsigned lkey, input int unsigned len,
      input longint unsigned raddr, input int unsigned rkey);
  import "DPI-C" function int roce_sim_post_recv(
      input chandle s, input int unsigned qpn, input longint unsigned wr_id,
      input longint unsigned laddr, input int unsigned lkey, input int unsigned len);
  import "DPI-C" function int roce_sim_poll_cq(
      input chandle s, output longint unsigned wr_id, output int status,
      output int opcode, output int unsigned qpn, output int unsigned byte_len);

  // The transaction trace (docs/trace.md) into path, nic the NIC's number
  // in it; "" stops it. 0 or -1.
  import "DPI-C" function int roce_sim_trace_open(
      input chandle s, input string path, input int unsigned nic);

endpackage
/* verilator lint_on DECLFILENAME */

`endif
