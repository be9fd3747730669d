// SPDX-License-Identifier: MIT
//
// The C model of the NIC (roce/sim.h) behind an AXI-Lite slave port: what
// an RTL testbench instantiates where its DUT's register file would be.
// Every AW/W pair becomes one roce_sim_axil_write, every AR one
// roce_sim_axil_read, with the model's response in BRESP/RRESP (AMBA AXI4
// A3.4.4: OKAY, SLVERR, DECERR). Each clock edge advances the model's
// virtual clock by CLK_NS, so its link bring-up and timers run in
// simulated time. The handle `sim` is public for the frame and DDR calls.
`include "roce/sim.svh"

module roce_axil_model #(
    parameter longint unsigned MAC = 64'h0000_0200_0000_0001,
    parameter int unsigned IP = 32'h0a00_0001,
    parameter int unsigned MEM_KIB = 1024,
    parameter int unsigned QP_COUNT = 64,
    parameter int unsigned LINK_DELAY_US = 20,
    parameter longint unsigned CLK_NS = 4
) (
    input logic clk,
    input logic rst,
    // write address / data / response
    input logic awvalid,
    output logic awready,
    input logic [31:0] awaddr,
    input logic wvalid,
    output logic wready,
    input logic [31:0] wdata,
    input logic [3:0] wstrb,
    output logic bvalid,
    input logic bready,
    output logic [1:0] bresp,
    // read address / data
    input logic arvalid,
    output logic arready,
    input logic [31:0] araddr,
    output logic rvalid,
    input logic rready,
    output logic [31:0] rdata,
    output logic [1:0] rresp
);
  import roce_sim_pkg::*;

  chandle sim;
  logic aw_held, w_held;
  logic [31:0] aw_addr, w_data;
  logic [3:0] w_strb;

  initial begin
    string trace;
    sim = roce_sim_create(MAC, IP, MEM_KIB, QP_COUNT, LINK_DELAY_US);
    if (sim == null) $fatal(1, "roce_sim_create refused the configuration");
    // +trace=FILE: the model's transaction trace (docs/trace.md), which
    // roce-replay checks against a fresh model and compares with an RTL's
    // (two statements: Verilator calls a DPI function of an && before
    // its left side, which would open the file before its name is read)
    if ($value$plusargs("trace=%s", trace)) begin
      if (roce_sim_trace_open(sim, trace, 0) != 0)
        $fatal(1, "cannot create the trace file %s", trace);
    end
  end
  final roce_sim_destroy(sim);

  assign awready = !aw_held && !bvalid;
  assign wready = !w_held && !bvalid;
  assign arready = !rvalid;

  always_ff @(posedge clk) begin
    // the DPI returns an int; the response is its two low bits
    /* verilator lint_off UNUSEDSIGNAL */
    int resp;
    /* verilator lint_on UNUSEDSIGNAL */
    int unsigned data;

    if (rst) begin
      aw_held <= 0;
      w_held <= 0;
      bvalid <= 0;
      rvalid <= 0;
    end else begin
      roce_sim_advance(sim, CLK_NS);
      // write: address and data may come in either order (AXI A3.3.1)
      if (awvalid && awready) begin
        aw_held <= 1;
        aw_addr <= awaddr;
      end
      if (wvalid && wready) begin
        w_held <= 1;
        w_data <= wdata;
        w_strb <= wstrb;
      end
      if (aw_held && w_held) begin
        // the register file takes whole words only: a partial strobe is
        // an error response, not a silent merge
        resp = w_strb == 4'hf ? roce_sim_axil_write(sim, aw_addr, w_data) : ROCE_SIM_SLVERR;
        bresp <= resp[1:0];
        bvalid <= 1;
        aw_held <= 0;
        w_held <= 0;
      end
      if (bvalid && bready) bvalid <= 0;
      if (arvalid && arready) begin
        resp = roce_sim_axil_read(sim, araddr, data);
        rdata <= data;
        rresp <= resp[1:0];
        rvalid <= 1;
      end else if (rvalid && rready) rvalid <= 0;
    end
  end
endmodule
