// The flash scheduler block (docs/scheduler.md has the rules; controller/sched_policy.h
// is the C++ block it must match decision for decision). Verilog-2005, synthesizable.
//
// MODE 0, HOS: one queue per chip, commands in arrival order (a collapsing queue: entry 0
// the oldest). Per channel a round-robin pointer rr, the chip granted last on it (reset:
// the last chip, so chip 0 is scanned first). At a decision edge each channel grants,
// scanning its chips from rr + 1, the first whose candidate is ready: at most one
// command per channel per edge. A chip's candidate: with by_priority, the first
// non-empty class (0 urgent GC, 1 host, 2 background GC), except that while urgent GC
// waits the host's oldest read goes first; in that class (or in the whole queue without
// by_priority) the oldest command, or with read_first the oldest read if there is one.
// read_first and by_priority are configuration inputs (controller.read_first,
// controller.gc_priority), static during a run.
// MODE 1, IOS: one FIFO of QDEPTH commands; at a decision edge its head is granted on its
// channel if it is ready (head-of-line blocking).
//
// Ready: the channel is open (no command of the block waits for its bus) and the die's
// accept word offers what the command needs: need = {1, planes} << (9 * op), ready when
// (need & ~accept) == 0 (FlashCommand::start_need, ChannelEngine::accept_word).
//
// The clock runs only at the edges that change something (the co-simulation clocks it
// once per command queued and once per decision edge of the C++ block): `push` appends a
// command, `decide` takes a decision from `open` and `accept` as sampled at that edge. A
// push in the same edge as a decision is appended after the decision's grants. Grants
// are registered: grant, grant_id and grant_chip hold the last decision's until the next
// decision. `overflow` is sticky: a push found its queue full (the command is lost).
// Each queue keeps its candidate in registers, computed at the edges that change the
// queue (as the C++ block keeps it at each push and take): a decision only compares each
// candidate's need with its die's accept word and arbitrates per channel.
//
// FAULT (for the test that the co-simulation's check catches a difference): 0 none;
// 1 each channel scans its chips from chip 0 at every edge, ignoring rr.
module sched_block #(
    parameter integer CHANNELS = 2,
    parameter integer CHIPS = 2,        // chips per channel
    parameter integer DIES = 1,         // dies per chip
    parameter integer QDEPTH = 8,       // per chip queue (HOS), the FIFO (IOS)
    parameter integer MODE = 0,         // 0 HOS, 1 IOS
    parameter integer IDW = 32,         // command id bits
    parameter integer FAULT = 0
) (
    input  wire                              clk,
    input  wire                              rst,
    input  wire                              read_first,   // HOS: static during a run
    input  wire                              by_priority,  // HOS: static during a run
    input  wire                              push,
    input  wire [IDW-1:0]                    push_id,
    input  wire [CHW-1:0]                    push_channel,
    input  wire [CPW-1:0]                    push_chip,
    input  wire [DW-1:0]                     push_die,
    input  wire [1:0]                        push_op,      // 0 read, 1 program, 2 erase
    input  wire [PLANES_MAX-1:0]             push_planes,
    input  wire [1:0]                        push_class,   // 0 urgent GC, 1 host, 2 background GC
    input  wire                              decide,
    input  wire [CHANNELS-1:0]               open,
    input  wire [CHANNELS*CHIPS*DIES*AW-1:0] accept,       // per die (channel, chip, die order)
    output reg  [CHANNELS-1:0]               grant,
    output reg  [CHANNELS*IDW-1:0]           grant_id,
    output reg  [CHANNELS*CPW-1:0]           grant_chip,
    output reg  [CHANNELS-1:0]               ready_any,    // per channel: a decision now would grant
    output reg                               overflow
);
  localparam integer PLANES_MAX = 8;                // kMaxPlanes
  localparam integer SB = PLANES_MAX + 1;           // kStartBits
  localparam integer AW = 3 * SB;                   // an accept word
  localparam integer CHW = CHANNELS > 1 ? $clog2(CHANNELS) : 1;
  localparam integer CPW = CHIPS > 1 ? $clog2(CHIPS) : 1;
  localparam integer DW = DIES > 1 ? $clog2(DIES) : 1;
  localparam integer NQ = MODE == 0 ? CHANNELS * CHIPS : 1;  // queues
  localparam integer LAST_CHIP = CHIPS - 1;

  // What a command needs of its die's accept word (FlashCommand::start_need).
  function [AW-1:0] need_of(input [1:0] o, input [PLANES_MAX-1:0] p);
    begin
      need_of = {{(AW - SB){1'b0}}, 1'b1, p};
      if (o == 2'd1) need_of = need_of << SB;
      if (o == 2'd2) need_of = need_of << (2 * SB);
    end
  endfunction

  // Per queue, its candidate: ready, and its id and chip (IOS: the head's channel is
  // queue[0].c_ch).
  wire [NQ-1:0]     q_ready;
  wire [NQ*IDW-1:0] q_id;
  wire [NQ*CPW-1:0] q_chip;
  wire [NQ-1:0]     q_overflow;  // a push to the queue found it full
  reg  [NQ-1:0]     take;        // the decision: the queues whose candidates go
  reg  [CHANNELS*CPW-1:0] rr;  // per channel, the chip granted last

  genvar gq;
  generate
    for (gq = 0; gq < NQ; gq = gq + 1) begin : queue
      localparam integer QC = MODE == 0 ? gq / CHIPS : 0;  // HOS: the queue's channel and chip
      localparam integer QP = MODE == 0 ? gq % CHIPS : 0;
      // The entries, oldest first, entry i at bits [i * width +: width] of each field, and
      // which are in use (a thermometer: 0 .. n-1).
      reg [QDEPTH*IDW-1:0]        id;
      reg [QDEPTH*CHW-1:0]        ch;
      reg [QDEPTH*CPW-1:0]        chip;
      reg [QDEPTH*DW-1:0]         die;
      reg [QDEPTH*2-1:0]          op;
      reg [QDEPTH*PLANES_MAX-1:0] planes;
      reg [QDEPTH*2-1:0]          cls;
      reg [QDEPTH-1:0]            used;
      // The candidate (one-hot) and what the decision needs of it, registered: computed
      // when the queue changes, as the C++ block keeps its candidate at each push and take.
      reg [QDEPTH-1:0]     cand;
      reg [IDW-1:0]        c_id;
      reg [CHW-1:0]        c_ch;
      reg [CPW-1:0]        c_chip;
      reg [DW-1:0]         c_die;
      reg [AW-1:0]         c_need;

      // Ready: its die's accept word offers what it needs, and its channel is open (HOS:
      // the queue's own channel and chip; IOS: the head's).
      reg ready;
      always @* begin : sample
        integer a, b, d;
        reg [AW-1:0] offer;
        offer = {AW{1'b0}};
        ready = 1'b0;
        if (MODE == 0) begin
          for (d = 0; d < DIES; d = d + 1)
            if (c_die == d[DW-1:0]) offer = accept[((QC * CHIPS + QP) * DIES + d) * AW +: AW];
          ready = open[QC] && c_ch == QC[CHW-1:0] && c_chip == QP[CPW-1:0];  // its own, by construction
        end else begin
          for (a = 0; a < CHANNELS; a = a + 1)
            for (b = 0; b < CHIPS; b = b + 1)
              for (d = 0; d < DIES; d = d + 1)
                if (c_ch == a[CHW-1:0] && c_chip == b[CPW-1:0] && c_die == d[DW-1:0]) begin
                  offer = accept[((a * CHIPS + b) * DIES + d) * AW +: AW];
                  ready = open[a];
                end
        end
        ready = ready && |used && (c_need & ~offer) == {AW{1'b0}};
      end
      assign q_ready[gq] = ready;
      assign q_id[gq * IDW +: IDW] = c_id;
      assign q_chip[gq * CPW +: CPW] = c_chip;

      // The queue changes only at an edge that takes its candidate or pushes to it; only
      // then is its next content and candidate computed.
      wire taken = decide && take[gq];
      wire here = push && (MODE != 0 || (push_channel == QC[CHW-1:0] && push_chip == QP[CPW-1:0]));
      wire [QDEPTH-1:0] left = taken ? used >> 1 : used;
      assign q_overflow[gq] = here && left[QDEPTH-1];
      always @(posedge clk) begin : update
        integer i;
        reg [QDEPTH*IDW-1:0]        n_id;
        reg [QDEPTH*CHW-1:0]        n_ch;
        reg [QDEPTH*CPW-1:0]        n_chip;
        reg [QDEPTH*DW-1:0]         n_die;
        reg [QDEPTH*2-1:0]          n_op;
        reg [QDEPTH*PLANES_MAX-1:0] n_planes;
        reg [QDEPTH*2-1:0]          n_cls;
        reg [QDEPTH-1:0]            n_used, older, slot, pick;
        reg urgent, host_read, any_read;
        reg [1:0] first_cls, cls_i;
        if (rst || taken || here) begin
          n_id = id;
          n_ch = ch;
          n_chip = chip;
          n_die = die;
          n_op = op;
          n_planes = planes;
          n_cls = cls;
          n_used = rst ? {QDEPTH{1'b0}} : left;
          // The candidate leaves: the younger entries move up one.
          if (taken && !rst) begin
            older = cand - 1'b1;
            for (i = 0; i < QDEPTH - 1; i = i + 1)
              if (!older[i]) begin
                n_id[i * IDW +: IDW] = n_id[(i + 1) * IDW +: IDW];
                n_ch[i * CHW +: CHW] = n_ch[(i + 1) * CHW +: CHW];
                n_chip[i * CPW +: CPW] = n_chip[(i + 1) * CPW +: CPW];
                n_die[i * DW +: DW] = n_die[(i + 1) * DW +: DW];
                n_op[i * 2 +: 2] = n_op[(i + 1) * 2 +: 2];
                n_planes[i * PLANES_MAX +: PLANES_MAX] = n_planes[(i + 1) * PLANES_MAX +: PLANES_MAX];
                n_cls[i * 2 +: 2] = n_cls[(i + 1) * 2 +: 2];
              end
          end
          // A push goes to the first free entry after what is left.
          if (here && !rst && !left[QDEPTH-1]) begin
            slot = {left[QDEPTH-2:0], 1'b1} & ~left;
            for (i = 0; i < QDEPTH; i = i + 1)
              if (slot[i]) begin
                n_id[i * IDW +: IDW] = push_id;
                n_ch[i * CHW +: CHW] = push_channel;
                n_chip[i * CPW +: CPW] = push_chip;
                n_die[i * DW +: DW] = push_die;
                n_op[i * 2 +: 2] = push_op;
                n_planes[i * PLANES_MAX +: PLANES_MAX] = push_planes;
                n_cls[i * 2 +: 2] = push_class;
              end
            n_used = left | slot;
          end
          // The new candidate.
          pick = {QDEPTH{1'b0}};
          if (MODE == 0) begin
            // While urgent GC waits, the host's oldest read goes first.
            urgent = 1'b0;
            host_read = 1'b0;
            for (i = 0; i < QDEPTH; i = i + 1) begin
              if (n_used[i] && n_cls[i * 2 +: 2] == 2'd0) urgent = 1'b1;
              if (n_used[i] && n_cls[i * 2 +: 2] == 2'd1 && n_op[i * 2 +: 2] == 2'd0) host_read = 1'b1;
            end
            // Else the first class present (without by_priority one class): in it the
            // oldest read with read_first if it has one, else the oldest command.
            first_cls = 2'd3;
            for (i = 0; i < QDEPTH; i = i + 1) begin
              cls_i = by_priority ? n_cls[i * 2 +: 2] : 2'd1;
              if (n_used[i] && cls_i < first_cls) first_cls = cls_i;
            end
            any_read = 1'b0;
            for (i = 0; i < QDEPTH; i = i + 1) begin
              cls_i = by_priority ? n_cls[i * 2 +: 2] : 2'd1;
              if (n_used[i] && cls_i == first_cls && n_op[i * 2 +: 2] == 2'd0) any_read = 1'b1;
            end
            for (i = QDEPTH - 1; i >= 0; i = i - 1) begin
              cls_i = by_priority ? n_cls[i * 2 +: 2] : 2'd1;
              if (by_priority && urgent && host_read) begin
                if (n_used[i] && n_cls[i * 2 +: 2] == 2'd1 && n_op[i * 2 +: 2] == 2'd0) pick = {{(QDEPTH - 1){1'b0}}, 1'b1} << i;
              end else if (n_used[i] && cls_i == first_cls && (!read_first || !any_read || n_op[i * 2 +: 2] == 2'd0)) begin
                pick = {{(QDEPTH - 1){1'b0}}, 1'b1} << i;
              end
            end
          end else begin
            pick[0] = n_used[0];  // IOS: the head
          end
          id <= n_id;
          ch <= n_ch;
          chip <= n_chip;
          die <= n_die;
          op <= n_op;
          planes <= n_planes;
          cls <= n_cls;
          used <= n_used;
          cand <= pick;
          c_id <= {IDW{1'b0}};
          c_ch <= {CHW{1'b0}};
          c_chip <= {CPW{1'b0}};
          c_die <= {DW{1'b0}};
          c_need <= {AW{1'b0}};
          for (i = 0; i < QDEPTH; i = i + 1)
            if (pick[i]) begin
              c_id <= n_id[i * IDW +: IDW];
              c_ch <= n_ch[i * CHW +: CHW];
              c_chip <= n_chip[i * CPW +: CPW];
              c_die <= n_die[i * DW +: DW];
              c_need <= need_of(n_op[i * 2 +: 2], n_planes[i * PLANES_MAX +: PLANES_MAX]);
            end
        end
      end
    end
  endgenerate

  // ---- the decision ----
  always @* begin : decision
    integer a, b, sel;
    take = {NQ{1'b0}};
    if (MODE == 0) begin
      for (a = 0; a < CHANNELS; a = a + 1) begin
        // The first ready chip after rr, else the first ready chip (at or before rr).
        sel = -1;
        for (b = CHIPS - 1; b >= 0; b = b - 1)
          if (q_ready[a * CHIPS + b]) sel = b;
        if (FAULT != 1)
          for (b = CHIPS - 1; b >= 0; b = b - 1)
            if (q_ready[a * CHIPS + b] && b[CPW-1:0] > rr[a * CPW +: CPW]) sel = b;
        if (sel >= 0) take[a * CHIPS + sel] = 1'b1;
      end
    end else begin
      take[0] = q_ready[0];
    end
  end
  // What a decision now would grant, per channel (sampled between edges: the block asks
  // for a decision edge only when it would grant something).
  generate
    if (MODE == 0) begin : hos_would_grant
      always @* begin : would_grant
        integer a;
        for (a = 0; a < CHANNELS; a = a + 1) ready_any[a] = |q_ready[a * CHIPS +: CHIPS];
      end
    end else begin : ios_would_grant
      always @* begin : would_grant
        integer a;
        for (a = 0; a < CHANNELS; a = a + 1) ready_any[a] = q_ready[0] && queue[0].c_ch == a[CHW-1:0];
      end
    end
  endgenerate

  // Per channel, what it is granted at this edge.
  reg [CHANNELS-1:0]     next_grant;
  reg [CHANNELS*IDW-1:0] next_id;
  reg [CHANNELS*CPW-1:0] next_chip;
  always @* begin : granted
    integer a, q;
    next_grant = {CHANNELS{1'b0}};
    next_id = grant_id;
    next_chip = grant_chip;
    if (MODE == 0) begin
      for (a = 0; a < CHANNELS; a = a + 1)
        for (q = a * CHIPS; q < (a + 1) * CHIPS; q = q + 1)
          if (take[q]) begin
            next_grant[a] = 1'b1;
            next_id[a * IDW +: IDW] = q_id[q * IDW +: IDW];
            next_chip[a * CPW +: CPW] = q_chip[q * CPW +: CPW];
          end
    end else begin
      for (a = 0; a < CHANNELS; a = a + 1)
        if (take[0] && queue[0].c_ch == a[CHW-1:0]) begin
          next_grant[a] = 1'b1;
          next_id[a * IDW +: IDW] = q_id[0 +: IDW];
          next_chip[a * CPW +: CPW] = q_chip[0 +: CPW];
        end
    end
  end

  always @(posedge clk) begin : outputs
    integer a;
    if (rst) begin
      for (a = 0; a < CHANNELS; a = a + 1) rr[a * CPW +: CPW] <= LAST_CHIP[CPW-1:0];
      grant <= {CHANNELS{1'b0}};
      grant_id <= {CHANNELS * IDW{1'b0}};
      grant_chip <= {CHANNELS * CPW{1'b0}};
      overflow <= 1'b0;
    end else begin
      if (decide) begin
        grant <= next_grant;
        grant_id <= next_id;
        grant_chip <= next_chip;
        if (MODE == 0)
          for (a = 0; a < CHANNELS; a = a + 1)
            if (next_grant[a]) rr[a * CPW +: CPW] <= next_chip[a * CPW +: CPW];
      end
      if (|q_overflow) overflow <= 1'b1;
    end
  end
endmodule
