// The flash scheduler block (docs/scheduler.md has the rules; controller/sched_policy.h
// is the C++ block it must match decision for decision). Verilog-2005, synthesizable.
//
// Commands wait in one command memory of POOL entries shared by all chips, linked into
// lists as the C++ block links them: per chip (HOS) and class, its reads and its other
// commands, each in arrival order (IOS: one list of everything). A push takes the first
// entry of the free list (or, until every entry has been used once, the next never used
// one); a grant puts its entry back on the free list.
//
// MODE 0, HOS. Per channel a round-robin pointer rr, the chip granted last on it (reset:
// the last chip, so chip 0 is scanned first). At a decision edge each channel grants,
// scanning its chips from rr + 1, the first whose candidate is ready: at most one
// command per channel per edge. A chip's candidate: with by_priority, the first
// non-empty class (0 urgent GC, 1 host, 2 background GC), except that while urgent GC
// waits the host's oldest read goes first; in that class (or in the whole queue without
// by_priority) the oldest command, or with read_first the oldest read if there is one.
// read_first and by_priority are configuration inputs (controller.read_first,
// controller.gc_priority), static during a run.
// MODE 1, IOS: one list in arrival order; at a decision edge its head is granted on its
// channel if it is ready (head-of-line blocking).
//
// Ready: the channel is open (no command of the block waits for its bus) and the die's
// accept word offers what the command needs: need = {1, planes} << (9 * op), ready when
// (need & ~accept) == 0 (FlashCommand::start_need, ChannelEngine::accept_word).
//
// The clock runs only at the edges that change something (the co-simulation clocks it
// once per command queued and once per decision edge of the C++ block): `push` appends a
// command, `decide` takes a decision from `open` and `accept` as sampled at that edge.
// An edge does one or the other: a push in a decision edge is refused (overflow).
// Grants are registered: grant, grant_id and grant_chip hold the last decision's until
// the next decision. `ready_any` says, between edges, on which channels a decision would
// grant. `overflow` is sticky: a push found the memory full (the command is lost).
// Each queue keeps its candidate in registers, computed at the edges that change the
// queue (as the C++ block keeps it at each push and take), by one refresh unit per
// channel (HOS) shared by the channel's chips: an edge changes at most one queue of a
// channel (a push one queue, a decision one per channel).
//
// RESCHEDULING (HOS, docs/scheduler.md "Rescheduling"; resched_mp, resched_pipe and
// window are configuration inputs, static during a run). Per die of the group's chips the
// operation granted last (lop), per queue the passes in a row (passes) and whether its
// candidate was moved by the pipeline rule (c_moved). Pipeline: in the candidate's class,
// the other list's head goes instead when it continues its die's last operation, the
// chosen one does not, it is not keep_order and passes < window. Multi-plane: at a
// decision edge the granted candidate's list is walked, `window` entries after it, and
// the first entry met of each other plane of its die joins it when it is a single-page
// command of its operation, at its page (an erase: any), not keep_order, and the die's
// accept word offers the planes so far; joined entries are unlinked (m_next of the entry
// before them rewritten), freed with the candidate, and granted as grant_part_id.
//
// SUSPEND (HOS, docs/scheduler.md "Suspend and resume"; susp_mode, susp_gc and
// min_margin are configuration inputs, static during a run; susp_mode 0 grants exactly as
// a block without it). Per die the block samples a suspend word beside its accept word:
// {margin[15:0] (the operation's remaining time beyond the suspend latency, whole us),
// resumable, held, erase, the read offer by suspension[8:0]}. Per queue a registered
// suspend read (s_*): the head of its host reads if it may suspend (not keep_order; a GC
// read only with susp_gc), else with susp_gc the head of urgent GC's reads, then of
// background GC's. A queue is ready with, in this order: (1) its suspend read, if its die
// holds an operation and accepts the read; (2) its candidate, ready as without suspend;
// (susp_hold: not a program of the die the suspend read waits for);
// (3) its suspend read by suspension (its die offers the read's planes, susp_mode names
// the operation's kind, margin > min_margin); (4) a RESUME of its lowest resumable die.
// The grant says which (grant_suspend, grant_resume with grant_die; a RESUME frees no
// entry and has id 0).
//
// FAULT (for the test that the co-simulation's check catches a difference): 0 none;
// 1 each channel scans its chips from chip 0 at every edge, ignoring rr.
module sched_block #(
    parameter integer CHANNELS = 2,
    parameter integer CHIPS = 2,        // chips per channel
    parameter integer DIES = 1,         // dies per chip
    parameter integer POOL = 64,        // commands held at once, all chips together
    parameter integer MODE = 0,         // 0 HOS, 1 IOS
    parameter integer IDW = 32,         // command id bits
    parameter integer WMAX = 16,        // the largest rescheduling window
    parameter integer RESCHED = 1,      // 0: no rescheduling hardware (the inputs are ignored)
    parameter integer SUSPEND = 1,      // 0: no suspend hardware (the inputs are ignored)
    parameter integer FAULT = 0
) (
    input  wire                              clk,
    input  wire                              rst,
    input  wire                              read_first,   // HOS: static during a run
    input  wire                              by_priority,  // HOS: static during a run
    input  wire                              resched_mp,   // HOS: multi-plane rescheduling, static
    input  wire                              resched_pipe, // HOS: pipeline rescheduling, static
    input  wire [WW-1:0]                     window,       // 1 .. WMAX, static
    input  wire                              push,
    input  wire [IDW-1:0]                    push_id,
    input  wire [CHW-1:0]                    push_channel,
    input  wire [CPW-1:0]                    push_chip,
    input  wire [DW-1:0]                     push_die,
    input  wire [1:0]                        push_op,      // 0 read, 1 program, 2 erase
    input  wire [PLANES_MAX-1:0]             push_planes,
    input  wire [1:0]                        push_class,   // 0 urgent GC, 1 host, 2 background GC
    input  wire [31:0]                       push_page,    // its page offset [15:0], read level [23:16], cell mode [31:24]
    input  wire                              push_keep,    // keep_order: never moved by rescheduling
    input  wire                              decide,
    input  wire [CHANNELS-1:0]               open,
    input  wire [CHANNELS*CHIPS*DIES*AW-1:0] accept,       // per die (channel, chip, die order)
    input  wire [1:0]                        susp_mode,    // HOS: bit 0 erase, bit 1 program; static
    input  wire                              susp_gc,      // HOS: GC's reads suspend too; static
    input  wire                              susp_hold,    // HOS: read priority over a cached program; static
    input  wire [15:0]                       min_margin,   // HOS: us a suspension must save; static
    input  wire [CHANNELS*CHIPS*DIES*SW-1:0] soffer,       // per die: its suspend word
    output reg  [CHANNELS-1:0]               grant,
    output reg  [CHANNELS*IDW-1:0]           grant_id,
    output reg  [CHANNELS*CPW-1:0]           grant_chip,
    output reg  [CHANNELS-1:0]               grant_suspend, // the read goes by suspension
    output reg  [CHANNELS-1:0]               grant_resume,  // a RESUME of die grant_die of grant_chip
    output reg  [CHANNELS*DW-1:0]            grant_die,
    // Multi-plane rescheduling: per channel, the commands granted with grant_id as one
    // n-plane command (slot k valid, id), in the order they joined.
    output reg  [CHANNELS*NP-1:0]            grant_part,
    output reg  [CHANNELS*NP*IDW-1:0]        grant_part_id,
    output reg  [CHANNELS-1:0]               ready_any,    // per channel: a decision now would grant
    output reg                               overflow,
    // Status, for the waveforms (no logic of their own): per queue (HOS a chip, channel
    // by channel; IOS the one queue) whether a command waits in it, and whether its
    // candidate could start now.
    output wire [NQ-1:0]                     queue_held,
    output wire [NQ-1:0]                     queue_ready
);
  localparam integer PLANES_MAX = 8;                // kMaxPlanes
  localparam integer NP = PLANES_MAX - 1;           // partners of a granted command, at most
  localparam integer WW = $clog2(WMAX + 1);         // a window's (and a pass count's) bits
  localparam integer SB = PLANES_MAX + 1;           // kStartBits
  localparam integer AW = 3 * SB;                   // an accept word
  localparam integer SW = 28;                       // a suspend word
  localparam integer CHW = CHANNELS > 1 ? $clog2(CHANNELS) : 1;
  localparam integer CPW = CHIPS > 1 ? $clog2(CHIPS) : 1;
  localparam integer DW = DIES > 1 ? $clog2(DIES) : 1;
  localparam integer PW = POOL > 1 ? $clog2(POOL) : 1;  // an entry's address
  localparam integer NQ = MODE == 0 ? CHANNELS * CHIPS : 1;  // queues
  localparam integer NK = 6;                        // lists per queue: class * 2 + (0 reads, 1 others)
  localparam integer LAST_CHIP = CHIPS - 1;

  // What a command needs of its die's accept word (FlashCommand::start_need).
  function [AW-1:0] need_of(input [1:0] o, input [PLANES_MAX-1:0] p);
    begin
      need_of = {{(AW - SB){1'b0}}, 1'b1, p};
      if (o == 2'd1) need_of = need_of << SB;
      if (o == 2'd2) need_of = need_of << (2 * SB);
    end
  endfunction

  // ---- the command memory ----
  // A RAM (`ram_block`: rtl/cost.sh keeps it as RAM bits and ports; the queues' small
  // arrays become flip-flops).
  (* ram_block *) reg [IDW-1:0] m_id   [0:POOL-1];
  (* ram_block *) reg [CHW-1:0] m_ch   [0:POOL-1];
  (* ram_block *) reg [CPW-1:0] m_chip [0:POOL-1];
  (* ram_block *) reg [DW-1:0]  m_die  [0:POOL-1];
  (* ram_block *) reg [AW-1:0]  m_need [0:POOL-1];
  (* ram_block *) reg [31:0]    m_seq  [0:POOL-1];  // arrival number
  (* ram_block *) reg [PW-1:0]  m_next [0:POOL-1];  // the next entry of its list (or of the free list)
  (* ram_block *) reg [1:0]     m_op   [0:POOL-1];  // rescheduling: operation, keep_order
  (* ram_block *) reg           m_keep [0:POOL-1];
  (* ram_block *) reg [1:0]     m_cls  [0:POOL-1];  // suspend: its class (GC's reads may not suspend)
  reg [PW-1:0]         free_head;             // the free list
  reg [PW:0]           free_count;
  reg [PW:0]           fresh;                 // entries fresh .. POOL - 1 were never used
  reg [31:0]           seq;                   // the next arrival number

  // The entry a push takes.
  wire [PW-1:0] alloc = free_count != 0 ? free_head : fresh[PW-1:0];
  wire          full = free_count == 0 && fresh == POOL[PW:0];
  // The list a push goes to, in its queue: by class (one class without by_priority),
  // reads apart from the others (IOS: one list).
  wire [2:0] push_list = MODE != 0 ? 3'd1 :
                         {(by_priority ? push_class : 2'd1), 1'b0} + {2'b00, push_op != 2'd0};
  wire       put = push && !decide && !full && !rst;

  // Multi-plane rescheduling's fields of a command: its planes and page (rmem.m_planes,
  // rmem.m_page), only in a block with the hardware.
  generate
    if (MODE == 0 && RESCHED != 0) begin : rmem
      (* ram_block *) reg [PLANES_MAX-1:0] m_planes [0:POOL-1];
      (* ram_block *) reg [31:0]           m_page   [0:POOL-1];
      always @(posedge clk) begin : write
        if (put) begin
          m_planes[alloc] <= push_planes;
          m_page[alloc] <= push_page;
        end
      end
    end else begin : no_rmem
      wire unused_page = &{1'b0, push_page};  // a block without rescheduling ignores it
    end
  endgenerate

  // The queues are kept in groups: HOS a channel's chips, IOS the one queue. A group
  // holds its queues' lists and candidates, decides which of its candidates a decision
  // edge takes, and has one unit that refreshes a queue's lists and candidate: the queue
  // its decision takes, or the one a push goes to (an edge does one or the other, and a
  // channel grants at most one command per edge, so one unit per group suffices).
  localparam integer NG = MODE == 0 ? CHANNELS : 1;  // groups
  localparam integer GQ = MODE == 0 ? CHIPS : 1;     // queues per group
  localparam integer QW = GQ > 1 ? $clog2(GQ) : 1;   // a queue's index in its group
  localparam integer LAST_Q = GQ - 1;

  wire [NQ-1:0] q_ready;  // per queue: its candidate could start now
  assign queue_ready = q_ready;

  genvar gg, gb, gw;
  generate
    for (gg = 0; gg < NG; gg = gg + 1) begin : group
      // Per queue of the group: its lists (head, tail, non-empty) and its candidate,
      // registered: the candidate's list and entry, and what a decision reads of it.
      reg [NK*PW-1:0] head    [0:GQ-1];
      reg [NK*PW-1:0] tail    [0:GQ-1];
      reg [NK-1:0]    ne      [0:GQ-1];
      reg [2:0]       c_list  [0:GQ-1];
      reg [PW-1:0]    c_entry [0:GQ-1];
      reg [GQ-1:0]    c_valid;
      reg [IDW-1:0]   c_id    [0:GQ-1];
      reg [CHW-1:0]   c_ch    [0:GQ-1];  // HOS: the group's channel, by construction
      reg [CPW-1:0]   c_chip  [0:GQ-1];  // HOS: the queue's chip, by construction
      reg [DW-1:0]    c_die   [0:GQ-1];
      reg [AW-1:0]    c_need  [0:GQ-1];
      // Suspend: the queue's suspend read (its list and entry, what a decision reads of it).
      reg [GQ-1:0]    s_valid;
      reg [2:0]       s_list  [0:GQ-1];
      reg [PW-1:0]    s_entry [0:GQ-1];
      reg [IDW-1:0]   s_id    [0:GQ-1];
      reg [DW-1:0]    s_die   [0:GQ-1];
      reg [SB-1:0]    s_need  [0:GQ-1];  // a read's need: {1, planes}
      wire            susp_on = MODE == 0 && SUSPEND != 0 && susp_mode != 2'd0;
      // Per queue, how a decision would take from it: 1 the suspend read on its held die,
      // 2 the candidate, 3 the suspend read by suspension, 4 a RESUME of die q_rdie.
      wire [3*GQ-1:0]  q_kind;
      wire [DW*GQ-1:0] q_rdie;

      // Ready: the die's accept word offers what the candidate needs, and its channel is
      // open (HOS: the group's channel and the queue's chip; IOS: the head's).
      for (gb = 0; gb < GQ; gb = gb + 1) begin : queue
        wire [CHW-1:0] ch = c_ch[gb];
        wire [CPW-1:0] chip = c_chip[gb];
        wire [DW-1:0]  die = c_die[gb];
        wire [AW-1:0]  need = c_need[gb];
        reg ready;
        always @* begin : sample
          integer d;
          reg [AW-1:0] offer;
          offer = {AW{1'b0}};
          if (MODE == 0) begin
            for (d = 0; d < DIES; d = d + 1)
              if (die == d[DW-1:0]) offer = accept[((gg * CHIPS + gb) * DIES + d) * AW +: AW];
            ready = open[gg];
          end else begin
            offer = accept[(({{(32 - CHW){1'b0}}, ch} * CHIPS + {{(32 - CPW){1'b0}}, chip}) * DIES +
                            {{(32 - DW){1'b0}}, die}) * AW +: AW];
            ready = open[ch];
          end
          ready = ready && c_valid[gb] && (need & ~offer) == {AW{1'b0}};
        end
        wire [DW-1:0] sdie = s_die[gb];
        // susp_hold: the candidate is a program of the die the suspend read waits for.
        wire          c_prog = need[2 * SB - 1:SB] != {SB{1'b0}};
        wire [SB-1:0] sneed = s_need[gb];
        reg [2:0]    kind;
        reg [DW-1:0] rdie;
        always @* begin : suspend_kind
          integer d;
          reg [SB-1:0] s_offer, s_acc;  // the suspend read's die: its read offers by suspension and as it is
          reg          s_erase, s_held;
          reg [15:0]   s_margin;
          reg          resumable;
          kind = ready ? 3'd2 : 3'd0;
          rdie = {DW{1'b0}};
          s_offer = {SB{1'b0}};
          s_acc = {SB{1'b0}};
          s_erase = 1'b0;
          s_held = 1'b0;
          s_margin = 16'd0;
          resumable = 1'b0;
          if (susp_on && open[gg]) begin
            kind = 3'd0;
            for (d = 0; d < DIES; d = d + 1)
              if (sdie == d[DW-1:0]) begin
                s_offer = soffer[((gg * CHIPS + gb) * DIES + d) * SW +: SB];
                s_erase = soffer[((gg * CHIPS + gb) * DIES + d) * SW + 9];
                s_held = soffer[((gg * CHIPS + gb) * DIES + d) * SW + 10];
                s_margin = soffer[((gg * CHIPS + gb) * DIES + d) * SW + 12 +: 16];
                s_acc = accept[((gg * CHIPS + gb) * DIES + d) * AW +: SB];
              end
            for (d = DIES - 1; d >= 0; d = d - 1)
              if (soffer[((gg * CHIPS + gb) * DIES + d) * SW + 11]) begin
                resumable = 1'b1;
                rdie = d[DW-1:0];
              end
            if (s_valid[gb] && s_held && (sneed & ~s_acc) == {SB{1'b0}}) kind = 3'd1;
            else if (ready && !(susp_hold && s_valid[gb] && (sneed & ~s_acc) != {SB{1'b0}} && c_prog && die == sdie))
              kind = 3'd2;
            else if (s_valid[gb] && (s_erase ? susp_mode[0] : susp_mode[1]) && (sneed & ~s_offer) == {SB{1'b0}} &&
                     s_margin > min_margin)
              kind = 3'd3;
            else if (resumable) kind = 3'd4;
          end
        end
        assign q_ready[gg * GQ + gb] = kind != 3'd0;
        assign q_kind[3 * gb +: 3] = kind;
        assign q_rdie[DW * gb +: DW] = rdie;
      end
      assign queue_held[gg * GQ +: GQ] = c_valid;

      // The decision (only at a decision edge). HOS: the first ready chip after rr, the
      // chip granted last on the channel, else the first ready chip (at or before rr);
      // IOS: the one queue's candidate if it is ready.
      reg [CPW-1:0] rr;
      reg           t_any;  // a candidate of the group is taken
      reg [QW-1:0]  t_q;    // which
      always @* begin : decision
        integer b, sel;
        sel = -1;
        if (decide) begin
          for (b = LAST_Q; b >= 0; b = b - 1)
            if (q_ready[gg * GQ + b]) sel = b;
          if (MODE == 0 && FAULT != 1)
            for (b = LAST_Q; b >= 0; b = b - 1)
              if (q_ready[gg * GQ + b] && b[CPW-1:0] > rr) sel = b;
        end
        t_any = sel >= 0;
        t_q = sel >= 0 ? sel[QW-1:0] : {QW{1'b0}};
      end
      // What the decision grants, on the channel t_ch: the candidate, the suspend read, or
      // a RESUME (no entry).
      wire [CHW-1:0] t_ch;
      wire [CPW-1:0] t_chip;
      wire [2:0]     t_kind = q_kind[3 * t_q +: 3];
      wire           t_sread = t_kind == 3'd1 || t_kind == 3'd3;
      wire           t_resume = t_kind == 3'd4;
      wire [DW-1:0]  t_rdie = q_rdie[DW * t_q +: DW];
      wire [IDW-1:0] t_id = t_resume ? {IDW{1'b0}} : t_sread ? s_id[t_q] : c_id[t_q];
      wire [PW-1:0]  t_entry = t_sread ? s_entry[t_q] : c_entry[t_q];
      wire [2:0]     t_list = t_sread ? s_list[t_q] : c_list[t_q];
      if (MODE == 0) begin : hos_grant
        assign t_ch = gg[CHW-1:0];
        assign t_chip = t_q;  // QW == CPW
      end else begin : ios_grant
        assign t_ch = c_ch[0];
        assign t_chip = c_chip[0];
      end

      // Rescheduling state (HOS): per die of the group's chips the operation last granted
      // ({valid, op}), per queue the passes in a row and whether its candidate was moved.
      reg [2:0]    lop    [0:GQ*DIES-1];
      reg [WW-1:0] passes [0:GQ-1];
      reg [GQ-1:0] c_moved;
      wire         resched = MODE == 0 && RESCHED != 0 && (resched_mp || resched_pipe);

      // The granted candidate's list after the grant (its head, tail, non-empty), and with
      // multi-plane rescheduling its partners: the list walked from the entry after the
      // candidate, `window` entries at most, one stage per entry (docs/scheduler.md).
      // Only at a decision edge (no push then: the memory is as the last edge left it).
      wire [PW-1:0]  h_entry = t_entry;
      wire [2:0]     h_list = t_list;
      wire [NK*PW-1:0] h_heads = head[t_q];
      wire [NK*PW-1:0] h_tails = tail[t_q];
      wire [PW-1:0]  h_tail = h_tails[h_list * PW +: PW];
      // What the walk gives: per stage, whether its entry joins (and is freed), whether
      // the entry before it is relinked, the entries, links and ids involved; the list
      // after the grant; the partners in slot order.
      wire [WMAX-1:0]     j_step;   // stage k's entry joins
      wire [WMAX-1:0]     u_step;   // ... and the entry before it is relinked
      wire [WMAX*PW-1:0]  e_step, nx_step, prev_step;
      wire [PW-1:0]       g_head, g_tail;
      wire                g_ne;
      wire [NP-1:0]       j_valid;
      wire [NP*IDW-1:0]   j_id;
      if (MODE == 0 && RESCHED != 0) begin : rs
        wire [1:0]     h_op = m_op[h_entry];
        wire [PLANES_MAX-1:0] h_planes = rmem.m_planes[h_entry];
        wire [31:0]    h_page = rmem.m_page[h_entry];
        wire [DW-1:0]  h_die = c_die[t_q];
        reg  [AW-1:0]  h_offer;  // the accept word of the candidate's die
        always @* begin : offer_of
          integer d;
          h_offer = {AW{1'b0}};
          for (d = 0; d < GQ * DIES; d = d + 1)
            if (d == {{(32 - QW){1'b0}}, t_q} * DIES + {{(32 - DW){1'b0}}, h_die})
              h_offer = accept[((gg * CHIPS) * DIES + d) * AW +: AW];
        end
        wire walk = decide && t_any && t_kind == 3'd2 && resched_mp && h_planes != {PLANES_MAX{1'b0}} &&
                    (h_planes & (h_planes - 1'b1)) == {PLANES_MAX{1'b0}};
        // Stage k's state before its entry (from stage k - 1): the entry, whether the walk
        // ended, the planes met and joined, the last entry kept in the list (prev), the
        // list's head, tail and non-empty after the changes so far, and the joins so far.
        wire [WMAX*IDW-1:0] id_step;
        wire [WMAX*4-1:0]   cnt_step;  // joins before stage k
        for (gw = 0; gw < WMAX; gw = gw + 1) begin : stage
          wire [PW-1:0] e, prev, head_in, tail_in;
          wire ended, pv, ne_in;
          wire [PLANES_MAX-1:0] seen, mask;
          wire [3:0] cnt;
          if (gw == 0) begin : first
            assign e = m_next[h_entry];
            assign ended = h_heads[h_list * PW +: PW] == h_tail;  // the candidate was alone in its list
            assign seen = h_planes;
            assign mask = h_planes;
            assign prev = {PW{1'b0}};
            assign pv = 1'b0;
            assign head_in = m_next[h_entry];
            assign tail_in = h_tail;
            assign ne_in = !ended;
            assign cnt = 4'd0;
          end else begin : later
            assign e = stage[gw - 1].nx;
            assign ended = stage[gw - 1].ended || (stage[gw - 1].act && stage[gw - 1].last);
            assign seen = stage[gw - 1].act && stage[gw - 1].here ? stage[gw - 1].seen | stage[gw - 1].ep : stage[gw - 1].seen;
            assign mask = stage[gw - 1].joins ? stage[gw - 1].mask | stage[gw - 1].ep : stage[gw - 1].mask;
            assign pv = stage[gw - 1].act && !stage[gw - 1].joins ? 1'b1 : stage[gw - 1].pv;
            assign prev = stage[gw - 1].act && !stage[gw - 1].joins ? stage[gw - 1].e : stage[gw - 1].prev;
            assign head_in = stage[gw - 1].head_out;
            assign tail_in = stage[gw - 1].tail_out;
            assign ne_in = stage[gw - 1].ne_out;
            assign cnt = stage[gw - 1].cnt + {3'd0, stage[gw - 1].joins};
          end
          wire act = walk && !ended && gw < window;
          wire [PW-1:0] nx = m_next[e];
          wire [PLANES_MAX-1:0] ep = rmem.m_planes[e];
          wire here = m_die[e] == h_die;
          wire last = e == h_tail;
          wire joins = act && here && (seen & ep) == {PLANES_MAX{1'b0}} && m_op[e] == h_op &&
                       ep != {PLANES_MAX{1'b0}} && (ep & (ep - 1'b1)) == {PLANES_MAX{1'b0}} && rmem.m_page[e][31:24] == h_page[31:24] &&
                       (h_op == 2'd2 || rmem.m_page[e] == h_page) && !m_keep[e] &&
                       (need_of(h_op, mask | ep) & ~h_offer) == {AW{1'b0}};
          wire [PW-1:0] head_out = joins && !pv ? nx : head_in;
          wire          ne_out = joins && !pv && last ? 1'b0 : ne_in;
          wire [PW-1:0] tail_out = joins && pv && last ? prev : tail_in;
          assign j_step[gw] = joins;
          assign u_step[gw] = joins && pv;
          assign e_step[gw * PW +: PW] = e;
          assign nx_step[gw * PW +: PW] = nx;
          assign prev_step[gw * PW +: PW] = prev;
          assign id_step[gw * IDW +: IDW] = m_id[e];
          assign cnt_step[gw * 4 +: 4] = cnt;
        end
        assign g_head = stage[WMAX - 1].head_out;
        assign g_tail = stage[WMAX - 1].tail_out;
        assign g_ne = stage[WMAX - 1].ne_out;
        // The partners in the order they joined (slot s: the stage whose join was the s-th).
        reg [NP-1:0]     jv;
        reg [NP*IDW-1:0] ji;
        always @* begin : slots
          integer k, n;
          jv = {NP{1'b0}};
          ji = {NP * IDW{1'b0}};
          for (k = 0; k < WMAX; k = k + 1) begin
            n = {28'd0, cnt_step[k * 4 +: 4]};
            if (j_step[k] && n < NP) begin
              jv[n] = 1'b1;
              ji[n * IDW +: IDW] = id_step[k * IDW +: IDW];
            end
          end
        end
        assign j_valid = jv;
        assign j_id = ji;
      end else begin : plain
        // No rescheduling hardware: the candidate leaves the head of its list, alone.
        assign j_step = {WMAX{1'b0}};
        assign u_step = {WMAX{1'b0}};
        assign e_step = {WMAX * PW{1'b0}};
        assign nx_step = {WMAX * PW{1'b0}};
        assign prev_step = {WMAX * PW{1'b0}};
        assign g_head = m_next[h_entry];
        assign g_tail = h_tail;
        assign g_ne = h_heads[h_list * PW +: PW] != h_tail;
        assign j_valid = {NP{1'b0}};
        assign j_id = {NP * IDW{1'b0}};
      end

      // A push to the group: its queue, and the tail of the list it joins (the memory
      // links the new entry after it), chained through the groups as `link*`.
      wire          p_here = put && (MODE != 0 || push_channel == gg[CHW-1:0]);
      wire [QW-1:0] p_q = MODE == 0 ? push_chip[QW-1:0] : {QW{1'b0}};
      wire [NK*PW-1:0] p_tails = tail[p_q];
      wire [NK-1:0]    p_ne = ne[p_q];
      wire          linked_here = p_here && p_ne[push_list];
      wire [PW-1:0] link_here = p_tails[push_list * PW +: PW];
      wire          linked;
      wire [PW-1:0] link_at;
      if (gg == 0) begin : first_group
        assign linked = linked_here;
        assign link_at = link_here;
      end else begin : next_group
        assign linked = linked_here || group[gg - 1].linked;
        assign link_at = p_here ? link_here : group[gg - 1].link_at;
      end

      // The unit: the queue an edge changes gets its lists and its candidate anew.
      always @(posedge clk) begin : update
        integer k;
        reg [QW-1:0]    u;
        reg [NK*PW-1:0] n_head, n_tail;
        reg [NK-1:0]    n_ne;
        reg [2:0]       cl;
        reg [PW-1:0]    r, o, h;
        reg             found;
        reg [31:0]      r_seq, o_seq;
        reg [2:0]       n_lop [0:GQ*DIES-1];
        reg [WW-1:0]    n_passes;
        reg [PW-1:0]    alt;
        reg [2:0]       alt_cl;
        reg [DW-1:0]    b_die, a_die;
        reg [1:0]       b_op, a_op;
        reg             a_keep, moved;
        reg             s_found;
        reg [2:0]       s_cl;
        reg [PW-1:0]    s_h;
        if (rst) begin
          for (k = 0; k < GQ; k = k + 1) begin
            ne[k] <= {NK{1'b0}};
            passes[k] <= {WW{1'b0}};
          end
          for (k = 0; k < GQ * DIES; k = k + 1) lop[k] <= 3'd0;
          c_valid <= {GQ{1'b0}};
          s_valid <= {GQ{1'b0}};
          c_moved <= {GQ{1'b0}};
          rr <= LAST_CHIP[CPW-1:0];
        end else if (t_any || p_here) begin
          u = t_any ? t_q : p_q;
          n_head = head[u];
          n_tail = tail[u];
          n_ne = ne[u];
          for (k = 0; k < GQ * DIES; k = k + 1) n_lop[k] = lop[k];
          n_passes = passes[u];
          // The candidate (or the suspend read) leaves the head of its list (with its
          // partners, from the list); a RESUME takes nothing.
          if (t_any && MODE == 0) rr <= t_chip;
          if (t_any && !t_resume) begin
            cl = t_list;
            n_head[cl * PW +: PW] = g_head;
            n_tail[cl * PW +: PW] = g_tail;
            n_ne[cl] = g_ne;
            // The die's last operation and the queue's passes, with rescheduling.
            if (resched) begin
              n_lop[{{(32 - QW){1'b0}}, u} * DIES + {{(32 - DW){1'b0}}, c_die[u]}] = {1'b1, m_op[c_entry[u]]};
              n_passes = c_moved[u] ? passes[u] + 1'b1 : {WW{1'b0}};
            end
          end
          if (RESCHED != 0) begin
            for (k = 0; k < GQ * DIES; k = k + 1) lop[k] <= n_lop[k];
            passes[u] <= n_passes;
          end
          moved = 1'b0;
          // A push goes to the tail of its list (the memory links it).
          if (p_here) begin
            if (!n_ne[push_list]) n_head[push_list * PW +: PW] = alloc;
            n_tail[push_list * PW +: PW] = alloc;
            n_ne[push_list] = 1'b1;
          end
          head[u] <= n_head;
          tail[u] <= n_tail;
          ne[u] <= n_ne;
          // The new candidate, as the C++ block's refresh: while urgent GC waits, the
          // host's oldest read; else the first class with a command: its oldest read with
          // read_first if it has one, else the older of its oldest read and its oldest
          // other command. (Arrival numbers compare modulo 2^32.)
          found = 1'b0;
          h = {PW{1'b0}};
          cl = 3'd0;
          if (MODE != 0) begin
            found = n_ne[1];
            h = n_head[1 * PW +: PW];
            cl = 3'd1;
          end else if ((n_ne[0] || n_ne[1]) && n_ne[2]) begin
            found = 1'b1;
            h = n_head[2 * PW +: PW];
            cl = 3'd2;
          end else begin
            for (k = 0; k < 3; k = k + 1)
              if (!found && (n_ne[2 * k] || n_ne[2 * k + 1])) begin
                found = 1'b1;
                r = n_head[(2 * k) * PW +: PW];
                o = n_head[(2 * k + 1) * PW +: PW];
                r_seq = p_here && r == alloc ? seq : m_seq[r];
                o_seq = p_here && o == alloc ? seq : m_seq[o];
                if (!n_ne[2 * k] || (n_ne[2 * k + 1] && !read_first && $signed(o_seq - r_seq) < 0)) begin
                  h = o;
                  cl = 3'd2 * k[2:0] + 3'd1;
                end else begin
                  h = r;
                  cl = 3'd2 * k[2:0];
                end
                // Pipeline: the other list's head, if it continues its die's last
                // operation and h does not (fields from the push if just taken).
                if (RESCHED != 0 && resched_pipe && n_ne[2 * k] && n_ne[2 * k + 1] && n_passes < window) begin
                  alt = h == r ? o : r;
                  alt_cl = h == r ? 3'd2 * k[2:0] + 3'd1 : 3'd2 * k[2:0];
                  b_die = p_here && h == alloc ? push_die : m_die[h];
                  b_op = p_here && h == alloc ? push_op : m_op[h];
                  a_die = p_here && alt == alloc ? push_die : m_die[alt];
                  a_op = p_here && alt == alloc ? push_op : m_op[alt];
                  a_keep = p_here && alt == alloc ? push_keep : m_keep[alt];
                  if (n_lop[{{(32 - QW){1'b0}}, u} * DIES + {{(32 - DW){1'b0}}, a_die}] == {1'b1, a_op} &&
                      n_lop[{{(32 - QW){1'b0}}, u} * DIES + {{(32 - DW){1'b0}}, b_die}] != {1'b1, b_op} && !a_keep) begin
                    h = alt;
                    cl = alt_cl;
                    moved = 1'b1;
                  end
                end
              end
          end
          c_moved[u] <= moved;
          c_list[u] <= cl;
          c_valid[u] <= found;
          c_entry[u] <= h;
          // Its fields: from the push if it is the entry just taken, else from memory.
          if (p_here && h == alloc) begin
            c_id[u] <= push_id;
            c_ch[u] <= push_channel;
            c_chip[u] <= push_chip;
            c_die[u] <= push_die;
            c_need[u] <= need_of(push_op, push_planes);
          end else begin
            c_id[u] <= m_id[h];
            c_ch[u] <= m_ch[h];
            c_chip[u] <= m_chip[h];
            c_die[u] <= m_die[h];
            c_need[u] <= m_need[h];
          end
          // The suspend read: the head of the host reads if it may suspend, else (GC's
          // reads suspending) the head of urgent GC's reads, then of background GC's.
          s_found = 1'b0;
          s_cl = 3'd2;
          s_h = n_head[2 * PW +: PW];
          if (susp_on) begin
            for (k = 0; k < 3; k = k + 1)
              if (!s_found && (k == 0 || susp_gc)) begin
                s_cl = k == 0 ? 3'd2 : k == 1 ? 3'd0 : 3'd4;
                s_h = n_head[s_cl * PW +: PW];
                if (n_ne[s_cl] && !(p_here && s_h == alloc ? push_keep : m_keep[s_h]) &&
                    ((p_here && s_h == alloc ? push_class : m_cls[s_h]) == 2'd1 || susp_gc))
                  s_found = 1'b1;
              end
          end
          s_valid[u] <= s_found;
          s_list[u] <= s_cl;
          s_entry[u] <= s_h;
          if (p_here && s_h == alloc) begin
            s_id[u] <= push_id;
            s_die[u] <= push_die;
            s_need[u] <= {1'b1, push_planes};
          end else begin
            s_id[u] <= m_id[s_h];
            s_die[u] <= m_die[s_h];
            s_need[u] <= m_need[s_h][SB-1:0];
          end
        end
      end
    end
  endgenerate

  // Per channel, what it is granted at this edge (HOS: its group's decision; IOS: the one
  // queue's candidate, on its channel).
  wire [CHANNELS-1:0]     next_grant;
  wire [CHANNELS*IDW-1:0] next_id;
  wire [CHANNELS*CPW-1:0] next_chip;
  wire [CHANNELS*PW-1:0]  next_entry;  // the entry each grant frees
  wire [CHANNELS-1:0]     next_free;   // the grant frees it (a RESUME frees none)
  wire [CHANNELS-1:0]     next_suspend, next_resume;
  wire [CHANNELS*DW-1:0]  next_die;
  // Multi-plane rescheduling, per channel and partner slot: the partner granted (its
  // entry freed too) and the unlink its removal writes.
  wire [CHANNELS*NP-1:0]       next_part;
  wire [CHANNELS*NP*IDW-1:0]   next_part_id;
  wire [CHANNELS*WMAX-1:0]     next_step;        // per walk stage: its entry joined (freed)
  wire [CHANNELS*WMAX*PW-1:0]  next_step_entry;
  wire [CHANNELS*WMAX-1:0]     next_unlink;      // ... and the entry before it relinked
  wire [CHANNELS*WMAX*PW-1:0]  next_unlink_prev, next_unlink_next;
  genvar ga;
  generate
    for (ga = 0; ga < CHANNELS; ga = ga + 1) begin : channel
      localparam integer G = MODE == 0 ? ga : 0;
      wire here = group[G].t_any && group[G].t_ch == ga[CHW-1:0];
      assign next_grant[ga] = here;
      assign next_id[ga * IDW +: IDW] = here ? group[G].t_id : grant_id[ga * IDW +: IDW];
      assign next_chip[ga * CPW +: CPW] = here ? group[G].t_chip : grant_chip[ga * CPW +: CPW];
      assign next_entry[ga * PW +: PW] = here ? group[G].t_entry : {PW{1'b0}};
      assign next_free[ga] = here && !group[G].t_resume;
      assign next_suspend[ga] = here && group[G].t_kind == 3'd3;
      assign next_resume[ga] = here && group[G].t_resume;
      assign next_die[ga * DW +: DW] = here && group[G].t_resume ? group[G].t_rdie : {DW{1'b0}};
      assign next_part[ga * NP +: NP] = here ? group[G].j_valid : {NP{1'b0}};
      assign next_part_id[ga * NP * IDW +: NP * IDW] = here ? group[G].j_id : {NP * IDW{1'b0}};
      assign next_step[ga * WMAX +: WMAX] = here ? group[G].j_step : {WMAX{1'b0}};
      assign next_step_entry[ga * WMAX * PW +: WMAX * PW] = group[G].e_step;
      assign next_unlink[ga * WMAX +: WMAX] = here ? group[G].u_step : {WMAX{1'b0}};
      assign next_unlink_prev[ga * WMAX * PW +: WMAX * PW] = group[G].prev_step;
      assign next_unlink_next[ga * WMAX * PW +: WMAX * PW] = group[G].nx_step;
    end
  endgenerate

  // ---- the memory: a push's entry written and linked; granted entries freed ----
  wire [PW-1:0] push_tail = group[NG - 1].link_at;
  wire          push_linked = group[NG - 1].linked;
  always @(posedge clk) begin : memory
    integer q, k;
    reg [PW-1:0] first, e;
    reg [PW:0] n;
    if (rst) begin
      free_count <= {(PW + 1){1'b0}};
      fresh <= {(PW + 1){1'b0}};
      seq <= 32'd0;
    end else begin
      if (put) begin
        m_id[alloc] <= push_id;
        m_ch[alloc] <= push_channel;
        m_chip[alloc] <= push_chip;
        m_die[alloc] <= push_die;
        m_need[alloc] <= need_of(push_op, push_planes);
        m_seq[alloc] <= seq;
        m_op[alloc] <= push_op;
        m_keep[alloc] <= push_keep;
        m_cls[alloc] <= push_class;
        if (push_linked) m_next[push_tail] <= alloc;
        if (free_count != 0) begin
          free_head <= m_next[free_head];
          free_count <= free_count - 1'b1;
        end else begin
          fresh <= fresh + 1'b1;
        end
        seq <= seq + 32'd1;
      end
      // The granted entries (and their partners) go to the front of the free list; a
      // partner's removal from its list rewrites the link of the entry before it.
      if (decide) begin
        first = free_head;
        n = free_count;
        for (q = 0; q < CHANNELS; q = q + 1) begin
          for (k = 0; k < WMAX; k = k + 1)
            if (next_unlink[q * WMAX + k])
              m_next[next_unlink_prev[(q * WMAX + k) * PW +: PW]] <= next_unlink_next[(q * WMAX + k) * PW +: PW];
          if (next_free[q]) begin
            e = next_entry[q * PW +: PW];
            m_next[e] <= first;
            first = e;
            n = n + 1'b1;
          end
          for (k = 0; k < WMAX; k = k + 1)
            if (next_step[q * WMAX + k]) begin
              e = next_step_entry[(q * WMAX + k) * PW +: PW];
              m_next[e] <= first;
              first = e;
              n = n + 1'b1;
            end
        end
        free_head <= first;
        free_count <= n;
      end
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
        for (a = 0; a < CHANNELS; a = a + 1) ready_any[a] = q_ready[0] && group[0].t_ch == a[CHW-1:0];
      end
    end
  endgenerate

  always @(posedge clk) begin : outputs
    if (rst) begin
      grant <= {CHANNELS{1'b0}};
      grant_id <= {CHANNELS * IDW{1'b0}};
      grant_chip <= {CHANNELS * CPW{1'b0}};
      grant_suspend <= {CHANNELS{1'b0}};
      grant_resume <= {CHANNELS{1'b0}};
      grant_die <= {CHANNELS * DW{1'b0}};
      grant_part <= {CHANNELS * NP{1'b0}};
      grant_part_id <= {CHANNELS * NP * IDW{1'b0}};
      overflow <= 1'b0;
    end else begin
      if (decide) begin
        grant <= next_grant;
        grant_id <= next_id;
        grant_chip <= next_chip;
        grant_suspend <= next_suspend;
        grant_resume <= next_resume;
        grant_die <= next_die;
        grant_part <= next_part;
        grant_part_id <= next_part_id;
      end
      if (push && (decide || full)) overflow <= 1'b1;
    end
  end
endmodule
