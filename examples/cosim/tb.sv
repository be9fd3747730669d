// SPDX-License-Identifier: MIT
//
// Co-simulation example: an AXI-Lite master runs the seed's power-on
// sequence (seed 000 section 3.3, the order of src/driver/poweron.c) into
// the C model, reads every register back and compares (the seed's
// register regression, section 6.3), injects rxe's RDMA WRITE ONLY
// (frame 23 of tests/vectors/captures/rxe_write_lat.pcap) with the QP and
// MR programmed to accept it, and checks the ACK against rxe's own (frame
// 24) and the bytes the model put in its DDR. Last, the model as the
// requester: a posted WRITE comes out as a WRITE ONLY frame.
//
// The sequence is a program of steps (the register map as data, as
// src/regs/regmap.c is): one AXI-Lite transaction per register step.
`include "roce/sim.svh"

module tb (
    input logic clk,
    input logic rst,
    output logic finished,
    output int unsigned errors
);
  import roce_sim_pkg::*;

  // The host the capture's frame 23 was sent to (rxe guest 10.77.0.12)
  // and its peer (10.77.0.11); QP 29 on both, PSN and R_Key of the frame.
  localparam longint unsigned MAC = 64'h5254_0a4d_000c;
  localparam longint unsigned PEER_MAC = 64'h5254_0a4d_000b;
  localparam int unsigned IP = 32'h0a4d_000c;
  localparam int unsigned PEER_IP = 32'h0a4d_000b;
  localparam int unsigned QPN = 29;
  localparam int unsigned RQ_PSN = 32'hb504bb;  // frame 23's PSN
  localparam int unsigned SQ_PSN = 32'h000100;
  localparam int unsigned MR_INDEX = 14;        // frame 23's R_Key 0xe47 >> 8
  localparam int unsigned RKEY = 32'h0000_0e47;
  localparam longint unsigned MR_VA = 64'h0000_556a_f678_0000;  // frame 23's RETH VA
  localparam longint unsigned MR_PA = 64'h0001_0000;
  localparam int unsigned QP_COUNT = 64;
  localparam int unsigned MEM_KIB = 1024;
  localparam int unsigned TYPE_MTU = 2 | 3 << 8 | 3 << 16;  // RC, 1024, local+remote write
  localparam int unsigned TIMERS = 14 | 7 << 8 | 7 << 16 | 12 << 24;
  localparam int N_COUNTERS = 78;  // STAT_CNT_COUNT (docs/regmap.md)

  // ---- the AXI-Lite bus between master and model ----
  logic awvalid, awready, wvalid, wready, bvalid, bready, arvalid, arready, rvalid, rready;
  logic [31:0] awaddr, wdata, araddr, rdata;
  logic [3:0] wstrb;
  logic [1:0] bresp, rresp;
  logic start, is_write, busy, done;
  logic [31:0] addr, data, m_rdata;
  logic [1:0] m_resp;

  axil_master master (
      .clk, .rst, .start, .is_write, .addr, .wdata(data), .busy, .done,
      .rdata(m_rdata), .resp(m_resp), .awvalid, .awready, .awaddr, .wvalid, .wready,
      .m_wdata(wdata), .wstrb, .bvalid, .bready, .bresp, .arvalid, .arready, .araddr,
      .rvalid, .rready, .s_rdata(rdata), .rresp);

  roce_axil_model #(
      .MAC(MAC), .IP(IP), .MEM_KIB(MEM_KIB), .QP_COUNT(QP_COUNT), .LINK_DELAY_US(20)
  ) dut (
      .clk, .rst, .awvalid, .awready, .awaddr, .wvalid, .wready, .wdata, .wstrb,
      .bvalid, .bready, .bresp, .arvalid, .arready, .araddr, .rvalid, .rready, .rdata,
      .rresp);

  // ---- the program ----
  typedef enum logic [3:0] {
    S_WR,       // write addr = data, expect response resp
    S_RD,       // read addr, expect (value & mask) == data and response resp
    S_POLL,     // read addr until (value & mask) == data (bounded)
    S_INJECT,   // DDR at MR_PA to 0xAA, then push rxe's WRITE ONLY
    S_ACK,      // pull one frame: rxe's ACK, but for the IP ID
    S_DDR,      // the WRITE's payload in DDR at MR_PA
    S_REQUEST,  // post a WRITE; pull it; no completion before its ACK
    S_END
  } op_t;
  typedef struct packed {
    op_t op;
    logic [31:0] addr, data, mask;
    logic [1:0] resp;
  } step_t;

  step_t prog[1024];
  int n_prog;

  // r is an int so that callers pass the package's response constants;
  // a response is its two low bits (BRESP/RRESP)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic void add(op_t op, int unsigned a = 0, int unsigned d = 0,
                              int unsigned m = 32'hffff_ffff, int r = ROCE_SIM_OKAY);
    prog[n_prog] = '{op, a, d, m, 2'(r)};
    n_prog++;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  function automatic void wr(int unsigned a, int unsigned d);
    add(S_WR, a, d);
  endfunction
  function automatic void rd(int unsigned a, int unsigned d);
    add(S_RD, a, d);
  endfunction
  // COMMIT (1) or LOAD (2) on a table window, wait for BUSY to clear,
  // expect CMD_STATUS 0
  function automatic void command(int unsigned base, int unsigned cmd);
    wr(base + 4, cmd);
    add(S_POLL, base + 4, 0, 32'h8000_0000);
    rd(base + 8, 0);
  endfunction

  // the QP shadow registers, in their order from QP_STATE (0x4C) on
  function automatic void qp_shadow(int unsigned state, bit write);
    int unsigned v[13] = '{state, TYPE_MTU, QPN, SQ_PSN, RQ_PSN, PEER_IP,
                           PEER_MAC[31:0], {16'h0, PEER_MAC[47:32]}, 32'hffff, TIMERS,
                           0, 0, 1};
    for (int i = 0; i < 13; i++) add(write ? S_WR : S_RD, 32'h4c + 4 * i, v[i]);
    // the IPv4 peer's address vector (QP_DGID_0..2, QP_GRH, QP_FLOW_LABEL)
    for (int i = 0; i < 5; i++) add(write ? S_WR : S_RD, 32'h100 + 4 * i, 0);
  endfunction
  function automatic void mr_shadow(bit write);
    int unsigned v[10] = '{32'h8000_0003, MR_VA[31:0], MR_VA[63:32], MR_PA[31:0], 0,
                           32'h0001_0000, 0, RKEY, RKEY, 1};
    for (int i = 0; i < 10; i++) add(write ? S_WR : S_RD, 32'h8c + 4 * i, v[i]);
  endfunction

  initial begin
    n_prog = 0;
    // probe: identity, and the bus's error responses
    rd(32'h28, 32'h5243_4532);  // DEV_ID "RCE2"
    rd(32'h2c, 32'h0000_0100);  // VERSION 0.1.0
    add(S_WR, 32'h28, 0, 0, ROCE_SIM_SLVERR);  // RO register
    add(S_RD, 32'h2000, 0, 32'hffff_ffff, ROCE_SIM_DECERR);  // unmapped: reads 0
    add(S_WR, 32'h06, 0, 0, ROCE_SIM_DECERR);  // misaligned
    add(S_WR, 32'h40, QP_COUNT, 0, ROCE_SIM_SLVERR);  // QPN beyond QP_COUNT
    // power-on: soft reset, addresses, QPs (RESET), MRs, release, link, enable
    wr(32'h00, 1);
    wr(32'h04, MAC[31:0]);
    wr(32'h08, {16'h0, MAC[47:32]});
    wr(32'h0c, IP);
    wr(32'h10, 4791);
    wr(32'h14, PEER_MAC[31:0]);
    wr(32'h18, {16'h0, PEER_MAC[47:32]});
    wr(32'h1c, PEER_IP);
    wr(32'h20, 4791);
    wr(32'h40, QPN);
    qp_shadow(0, 1);
    command(32'h40, 1);
    wr(32'h80, MR_INDEX);
    mr_shadow(1);
    command(32'h80, 1);
    wr(32'h00, 0);                              // release soft reset
    add(S_POLL, 32'h24, 32'h1, 32'h1);          // STATUS.LINK_READY
    wr(32'h00, 2);                              // ENGINE_EN
    for (int s = 1; s <= 3; s++) begin          // INIT, RTR, RTS (IBA 10.3.1)
      wr(32'h4c, s);
      command(32'h40, 1);
    end
    wr(32'h38, 32'ha5a5_5a5a);                  // SCRATCH
    // regression: every register read back against the configuration
    rd(32'h00, 2);
    rd(32'h04, MAC[31:0]);
    rd(32'h08, {16'h0, MAC[47:32]});
    rd(32'h0c, IP);
    rd(32'h10, 4791);
    rd(32'h14, PEER_MAC[31:0]);
    rd(32'h18, {16'h0, PEER_MAC[47:32]});
    rd(32'h1c, PEER_IP);
    rd(32'h20, 4791);
    rd(32'h24, 32'h1f);                         // link bits and RUNNING
    rd(32'h28, 32'h5243_4532);
    rd(32'h2c, 32'h0000_0100);
    rd(32'h30, QP_COUNT);
    rd(32'h34, 4096);                           // MR_COUNT
    rd(32'h38, 32'ha5a5_5a5a);
    rd(32'h3c, MEM_KIB);
    wr(32'h40, QPN);
    rd(32'h40, QPN);
    command(32'h40, 2);                         // LOAD the live entry
    qp_shadow(3, 0);
    wr(32'h80, MR_INDEX);
    rd(32'h80, MR_INDEX);
    command(32'h80, 2);
    mr_shadow(0);
    rd(32'h1000, 32'hf);                        // STAT_LINK_STATUS
    rd(32'h1004, N_COUNTERS);
    for (int i = 0; i < 2 * N_COUNTERS; i++) rd(32'h1008 + 4 * i, 0);
    // rxe's WRITE in, the ACK out, the payload in DDR
    add(S_INJECT);
    add(S_ACK);
    add(S_DDR);
    rd(32'h1008, 1);                            // tx_pkts
    rd(32'h1018, 1);                            // rx_pkts
    rd(32'h1020, 138);                          // rx_bytes: frame 23
    rd(32'h1028, 1);                            // acks_tx
    add(S_REQUEST);
    add(S_END);
  end

  // ---- the golden frames, written by run from the capture ----
  frame_t wr_frame, ack_frame, frame;
  chunk_t chunk;
  int wr_len, ack_len;
  initial begin
    string dir;
    if (!$value$plusargs("vectors=%s", dir) || !$value$plusargs("write_len=%d", wr_len) ||
        !$value$plusargs("ack_len=%d", ack_len))
      $fatal(1, "usage: +vectors=DIR +write_len=N +ack_len=N");
    $readmemh({dir, "/write_only.hex"}, wr_frame, 0, wr_len - 1);
    $readmemh({dir, "/ack.hex"}, ack_frame, 0, ack_len - 1);
  end

  int err_count = 0;
  assign errors = err_count;
  // The sequencer below is testbench code, not logic: its bookkeeping
  // (the error count, the DPI buffers filled just before a call) is
  // blocking on purpose.
  /* verilator lint_off BLKSEQ */
  function automatic void fail(string what);
    $display("FAIL step %0d: %s", pc, what);
    err_count++;
  endfunction

  // frame 23's payload: after Ethernet, IPv4, UDP, BTH and RETH (70 bytes)
  localparam int PAYLOAD = 70;

  function automatic void step_frames(op_t op);
    int len;
    // poll_cq's outputs: only its return is checked (no completion
    // before the ACK), so the fields themselves go unread
    /* verilator lint_off UNUSEDSIGNAL */
    int st, opc;
    longint unsigned wr_id;
    int unsigned qpn, blen;
    /* verilator lint_on UNUSEDSIGNAL */

    case (op)
      S_INJECT: begin
        for (int i = 0; i < 64; i++) chunk[i] = 8'haa;
        if (roce_sim_mem_write(dut.sim, MR_PA, chunk, 64) != 0) fail("mem_write");
        if (roce_sim_push_frame(dut.sim, wr_frame, wr_len) != 0) fail("push_frame");
      end
      S_ACK: begin
        len = roce_sim_pull_frame(dut.sim, frame);
        if (len != ack_len) fail($sformatf("ACK length %0d, rxe's %0d", len, ack_len));
        // byte for byte as rxe's ACK but for what is the sender's to
        // choose: the IPv4 ID (bytes 18-19), the header checksum over it
        // (24-25) and the ICRC, which covers the ID (IBA A17.3.3)
        for (int i = 0; i < ack_len; i++)
          if (!(i inside {18, 19, 24, 25}) && i < ack_len - 4 && frame[i] != ack_frame[i])
            fail($sformatf("ACK byte %0d: 0x%02x, rxe's 0x%02x", i, frame[i], ack_frame[i]));
        if (roce_sim_pull_frame(dut.sim, frame) != 0) fail("a second frame after the ACK");
      end
      S_DDR: begin
        if (roce_sim_mem_read(dut.sim, MR_PA, chunk, 64) != 0) fail("mem_read");
        for (int i = 0; i < 64; i++)
          if (chunk[i] != wr_frame[PAYLOAD+i])
            fail($sformatf("DDR byte %0d: 0x%02x, written 0x%02x", i, chunk[i],
                           wr_frame[PAYLOAD+i]));
      end
      S_REQUEST: begin
        // 32 bytes of the MR to the peer, as the host's WQE would ask
        if (roce_sim_post_recv(dut.sim, QPN, 8, MR_VA, RKEY, 64) != 0) fail("post_recv");
        if (roce_sim_post_send(dut.sim, QPN, 0, 7, MR_VA, RKEY, 32, 64'h1000, 32'h1234) != 0)
          fail("post_send");
        len = roce_sim_pull_frame(dut.sim, frame);
        if (len != PAYLOAD + 32 + 4) fail($sformatf("WRITE frame length %0d", len));
        if (frame[42] != 8'h0a) fail($sformatf("opcode 0x%02x, not WRITE ONLY", frame[42]));
        if ({frame[47], frame[48], frame[49]} != 24'(QPN) || {frame[51], frame[52], frame[53]} != 24'(SQ_PSN))
          fail("WRITE's QPN or PSN");
        if ({frame[0], frame[1], frame[2], frame[3], frame[4], frame[5]} != PEER_MAC[47:0])
          fail("WRITE's destination MAC");
        for (int i = 0; i < 32; i++)
          if (frame[PAYLOAD+i] != wr_frame[PAYLOAD+i]) fail("WRITE's payload");
        if (roce_sim_poll_cq(dut.sim, wr_id, st, opc, qpn, blen) != 0)
          fail("a completion before the ACK");
        if (roce_sim_now(dut.sim) == 0) fail("virtual time did not move");
      end
      default: ;
    endcase
  endfunction
  /* verilator lint_on BLKSEQ */

  // ---- the sequencer ----
  int pc, polls;
  always_ff @(posedge clk) begin
    if (rst) begin
      pc <= 0;
      start <= 0;
      finished <= 0;
      polls <= 0;
    end else if (!finished) begin
      start <= 0;
      if (pc >= n_prog || prog[pc].op == S_END) begin
        $display("cosim: %0d steps, %0d errors, %0d ns of virtual time", pc, err_count,
                 roce_sim_now(dut.sim));
        finished <= 1;
      end else if (prog[pc].op inside {S_WR, S_RD, S_POLL}) begin
        if (!busy && !start && !done) begin
          start <= 1;
          is_write <= prog[pc].op == S_WR;
          addr <= prog[pc].addr;
          data <= prog[pc].data;
        end else if (done) begin
          if (prog[pc].op == S_POLL) begin
            if (m_resp == 0 && (m_rdata & prog[pc].mask) == prog[pc].data) begin
              pc <= pc + 1;
              polls <= 0;
            end else if (polls > 100000) begin
              fail($sformatf("0x%04x never read 0x%08x under mask 0x%08x", prog[pc].addr,
                             prog[pc].data, prog[pc].mask));
              pc <= pc + 1;
            end else polls <= polls + 1;
          end else begin
            if (m_resp != prog[pc].resp)
              fail($sformatf("%s 0x%04x: response %0d, expected %0d",
                             prog[pc].op == S_WR ? "write" : "read", prog[pc].addr, m_resp,
                             prog[pc].resp));
            else if (prog[pc].op == S_RD && (m_rdata & prog[pc].mask) != prog[pc].data)
              fail($sformatf("read 0x%04x: 0x%08x, expected 0x%08x", prog[pc].addr, m_rdata,
                             prog[pc].data));
            pc <= pc + 1;
          end
        end
      end else begin
        step_frames(prog[pc].op);
        pc <= pc + 1;
      end
    end
  end
endmodule
