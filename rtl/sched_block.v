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
// queue (as the C++ block keeps it at each push and take).
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
  reg [IDW-1:0]        m_id     [0:POOL-1];
  reg [CHW-1:0]        m_ch     [0:POOL-1];
  reg [CPW-1:0]        m_chip   [0:POOL-1];
  reg [DW-1:0]         m_die    [0:POOL-1];
  reg [AW-1:0]         m_need   [0:POOL-1];
  reg [31:0]           m_seq    [0:POOL-1];  // arrival number
  reg [PW-1:0]         m_next   [0:POOL-1];  // the next entry of its list (or of the free list)
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

  // Per queue, whether its candidate is ready; and each list's tail (for the link a push
  // writes into the memory).
  wire [NQ-1:0]        q_ready;
  reg  [PW-1:0]        l_tail     [0:NQ*NK-1];  // each list's tail and whether it has any,
  reg                  l_nonempty [0:NQ*NK-1];  // written by its queue, read by the memory
  reg  [NQ-1:0]        take;        // a decision edge's: the queues whose candidates go
  reg  [CHANNELS*CPW-1:0] rr;       // per channel, the chip granted last

  genvar gq;
  generate
    for (gq = 0; gq < NQ; gq = gq + 1) begin : queue
      localparam integer QC = MODE == 0 ? gq / CHIPS : 0;  // HOS: the queue's channel and chip
      localparam integer QP = MODE == 0 ? gq % CHIPS : 0;
      // Its lists: head, tail, non-empty.
      reg [NK*PW-1:0] head, tail;
      reg [NK-1:0]    nonempty;
      // The candidate, registered: its list and entry, and what a decision reads of it.
      reg [2:0]       c_list;
      reg [PW-1:0]    c_entry;
      reg             c_valid;
      reg [IDW-1:0]   c_id;
      reg [CHW-1:0]   c_ch;
      reg [CPW-1:0]   c_chip;
      reg [DW-1:0]    c_die;
      reg [AW-1:0]    c_need;

      // Ready: its die's accept word offers what it needs, and its channel is open (HOS:
      // the queue's own channel and chip; IOS: the head's).
      reg ready;
      always @* begin : sample
        integer d;
        reg [AW-1:0] offer;
        offer = {AW{1'b0}};
        if (MODE == 0) begin
          for (d = 0; d < DIES; d = d + 1)
            if (c_die == d[DW-1:0]) offer = accept[((QC * CHIPS + QP) * DIES + d) * AW +: AW];
          ready = open[QC] && c_ch == QC[CHW-1:0] && c_chip == QP[CPW-1:0];  // its own, by construction
        end else begin
          offer = accept[(({{(32 - CHW){1'b0}}, c_ch} * CHIPS + {{(32 - CPW){1'b0}}, c_chip}) * DIES +
                          {{(32 - DW){1'b0}}, c_die}) * AW +: AW];
          ready = open[c_ch];
        end
        ready = ready && c_valid && (c_need & ~offer) == {AW{1'b0}};
      end
      assign q_ready[gq] = ready;

      // The grant of its channel so far (HOS): its candidate if the decision takes it,
      // else what the channel's chips before it give (at most one chip per channel is
      // taken). A chain of multiplexers, so that no wide vector of every queue's fields
      // is assembled to read one.
      wire           g_any;
      wire [IDW-1:0] g_id;
      wire [CPW-1:0] g_chip;
      wire [PW-1:0]  g_entry;
      if (MODE != 0 || QP == 0) begin : first_chip
        assign g_any = take[gq];
        assign g_id = take[gq] ? c_id : {IDW{1'b0}};
        assign g_chip = take[gq] ? c_chip : {CPW{1'b0}};
        assign g_entry = take[gq] ? c_entry : {PW{1'b0}};
      end else begin : next_chip_
        assign g_any = take[gq] || queue[gq - 1].g_any;
        assign g_id = take[gq] ? c_id : queue[gq - 1].g_id;
        assign g_chip = take[gq] ? c_chip : queue[gq - 1].g_chip;
        assign g_entry = take[gq] ? c_entry : queue[gq - 1].g_entry;
      end

      // The queue changes only at an edge that takes its candidate or pushes to it; only
      // then are its lists and its candidate computed anew.
      wire taken = take[gq];
      wire here = put && (MODE != 0 || (push_channel == QC[CHW-1:0] && push_chip == QP[CPW-1:0]));
      always @(posedge clk) begin : update
        integer k;
        reg [NK*PW-1:0] n_head, n_tail;
        reg [NK-1:0]    n_ne;
        reg [PW-1:0]    h, r, o, pick;
        reg             found;
        reg [31:0]      r_seq, o_seq;
        if (rst) begin
          nonempty <= {NK{1'b0}};
          for (k = 0; k < NK; k = k + 1) l_nonempty[gq * NK + k] <= 1'b0;
          c_valid <= 1'b0;
        end else if (taken || here) begin
          n_head = head;
          n_tail = tail;
          n_ne = nonempty;
          // The candidate leaves the head of its list.
          if (taken) begin
            if (n_head[c_list * PW +: PW] == n_tail[c_list * PW +: PW]) n_ne[c_list] = 1'b0;
            else n_head[c_list * PW +: PW] = m_next[c_entry];
          end
          // A push goes to the tail of its list (the memory links it: see `memory`).
          if (here) begin
            if (!n_ne[push_list]) n_head[push_list * PW +: PW] = alloc;
            n_tail[push_list * PW +: PW] = alloc;
            n_ne[push_list] = 1'b1;
          end
          head <= n_head;
          tail <= n_tail;
          nonempty <= n_ne;
          for (k = 0; k < NK; k = k + 1) begin
            l_tail[gq * NK + k] <= n_tail[k * PW +: PW];
            l_nonempty[gq * NK + k] <= n_ne[k];
          end
          // The new candidate, as the C++ block's refresh: while urgent GC waits, the
          // host's oldest read; else the first class with a command: its oldest read with
          // read_first if it has one, else the older of its oldest read and its oldest
          // other command. (Arrival numbers compare modulo 2^32.)
          found = 1'b0;
          pick = {PW{1'b0}};
          c_list <= 3'd0;
          if (MODE != 0) begin
            found = n_ne[1];
            pick = n_head[1 * PW +: PW];
            c_list <= 3'd1;
          end else if ((n_ne[0] || n_ne[1]) && n_ne[2]) begin
            found = 1'b1;
            pick = n_head[2 * PW +: PW];
            c_list <= 3'd2;
          end else begin
            for (k = 0; k < 3; k = k + 1)
              if (!found && (n_ne[2 * k] || n_ne[2 * k + 1])) begin
                found = 1'b1;
                r = n_head[(2 * k) * PW +: PW];
                o = n_head[(2 * k + 1) * PW +: PW];
                r_seq = here && r == alloc ? seq : m_seq[r];
                o_seq = here && o == alloc ? seq : m_seq[o];
                if (!n_ne[2 * k] || (n_ne[2 * k + 1] && !read_first && $signed(o_seq - r_seq) < 0)) begin
                  pick = o;
                  c_list <= 3'd2 * k[2:0] + 3'd1;
                end else begin
                  pick = r;
                  c_list <= 3'd2 * k[2:0];
                end
              end
          end
          h = pick;
          c_valid <= found;
          c_entry <= h;
          // Its fields: from the push if it is the entry just taken, else from memory.
          if (here && h == alloc) begin
            c_id <= push_id;
            c_ch <= push_channel;
            c_chip <= push_chip;
            c_die <= push_die;
            c_need <= need_of(push_op, push_planes);
          end else begin
            c_id <= m_id[h];
            c_ch <= m_ch[h];
            c_chip <= m_chip[h];
            c_die <= m_die[h];
            c_need <= m_need[h];
          end
        end
      end
    end
  endgenerate

  // Per channel, what it is granted at this edge (HOS: the end of its chips' chain; IOS:
  // the one queue's candidate, on its channel).
  wire [CHANNELS-1:0]     next_grant;
  wire [CHANNELS*IDW-1:0] next_id;
  wire [CHANNELS*CPW-1:0] next_chip;
  wire [CHANNELS*PW-1:0]  next_entry;  // the entry each grant frees
  genvar ga;
  generate
    for (ga = 0; ga < CHANNELS; ga = ga + 1) begin : channel
      localparam integer LASTQ = MODE == 0 ? ga * CHIPS + CHIPS - 1 : 0;
      wire here = queue[LASTQ].g_any && (MODE == 0 || queue[0].c_ch == ga[CHW-1:0]);
      assign next_grant[ga] = here;
      assign next_id[ga * IDW +: IDW] = here ? queue[LASTQ].g_id : grant_id[ga * IDW +: IDW];
      assign next_chip[ga * CPW +: CPW] = here ? queue[LASTQ].g_chip : grant_chip[ga * CPW +: CPW];
      assign next_entry[ga * PW +: PW] = here ? queue[LASTQ].g_entry : {PW{1'b0}};
    end
  endgenerate

  // ---- the memory: a push's entry written and linked; granted entries freed ----
  wire [PW-1:0] push_tail = l_tail[push_queue * NK + {29'b0, push_list}];
  wire          push_linked = l_nonempty[push_queue * NK + {29'b0, push_list}];
  wire [31:0]   push_queue = MODE != 0 ? 32'd0 : {{(32 - CHW){1'b0}}, push_channel} * CHIPS + {{(32 - CPW){1'b0}}, push_chip};
  always @(posedge clk) begin : memory
    integer q;
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
        if (push_linked) m_next[push_tail] <= alloc;
        if (free_count != 0) begin
          free_head <= m_next[free_head];
          free_count <= free_count - 1'b1;
        end else begin
          fresh <= fresh + 1'b1;
        end
        seq <= seq + 32'd1;
      end
      // The granted entries go to the front of the free list.
      if (decide) begin
        first = free_head;
        n = free_count;
        for (q = 0; q < CHANNELS; q = q + 1)
          if (next_grant[q]) begin
            e = next_entry[q * PW +: PW];
            m_next[e] <= first;
            first = e;
            n = n + 1'b1;
          end
        free_head <= first;
        free_count <= n;
      end
    end
  end

  // ---- the decision ----
  always @* begin : decision
    integer a, b, sel;
    take = {NQ{1'b0}};
    sel = -1;
    if (!decide) begin
      // No decision at this edge: nothing taken (and a simulator need not scan).
    end else if (MODE == 0) begin
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
      if (push && (decide || full)) overflow <= 1'b1;
    end
  end
endmodule
