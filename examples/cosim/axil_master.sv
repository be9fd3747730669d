// SPDX-License-Identifier: MIT
//
// An AXI-Lite master with a one-transaction command port: start with
// is_write, addr and wdata; done pulses with rdata and resp when the B or
// R beat arrives. AW and W are raised together and each dropped on its own
// handshake (AXI A3.2.1: a valid, once raised, stays until ready).
module axil_master (
    input logic clk,
    input logic rst,
    input logic start,
    input logic is_write,
    input logic [31:0] addr,
    input logic [31:0] wdata,
    output logic busy,
    output logic done,
    output logic [31:0] rdata,
    output logic [1:0] resp,
    output logic awvalid,
    input logic awready,
    output logic [31:0] awaddr,
    output logic wvalid,
    input logic wready,
    output logic [31:0] m_wdata,
    output logic [3:0] wstrb,
    input logic bvalid,
    output logic bready,
    input logic [1:0] bresp,
    output logic arvalid,
    input logic arready,
    output logic [31:0] araddr,
    input logic rvalid,
    output logic rready,
    input logic [31:0] s_rdata,
    input logic [1:0] rresp
);
  assign bready = busy;
  assign rready = busy;
  assign wstrb = 4'hf;

  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 0;
      done <= 0;
      awvalid <= 0;
      wvalid <= 0;
      arvalid <= 0;
    end else begin
      done <= 0;
      if (start && !busy) begin
        busy <= 1;
        if (is_write) begin
          awvalid <= 1;
          wvalid <= 1;
          awaddr <= addr;
          m_wdata <= wdata;
        end else begin
          arvalid <= 1;
          araddr <= addr;
        end
      end
      if (awvalid && awready) awvalid <= 0;
      if (wvalid && wready) wvalid <= 0;
      if (arvalid && arready) arvalid <= 0;
      if (busy && bvalid) begin
        busy <= 0;
        done <= 1;
        resp <= bresp;
      end
      if (busy && rvalid) begin
        busy <= 0;
        done <= 1;
        resp <= rresp;
        rdata <= s_rdata;
      end
    end
  end
endmodule
